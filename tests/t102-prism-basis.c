/* Test: the hierarchical prism basis has the documented modes, traces, derivatives and span. */
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "common.h"

#define NSH_MAX 288

/* Local copies of the reference prism's topology as host.h documents it. */
static const int edge_vert[PRISM_NE][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5},
                                           {5, 3}, {0, 3}, {1, 4}, {2, 5}};
static const int face_vert[PRISM_NF][4] = {
    {0, 1, 2, -1}, {3, 4, 5, -1}, {0, 1, 4, 3}, {1, 2, 5, 4}, {2, 0, 3, 5}};
static const double vert_xi[PRISM_NV][3] = {{0, 0, -1}, {1, 0, -1}, {0, 1, -1},
                                            {0, 0, 1},  {1, 0, 1},  {0, 1, 1}};

static double val[4 * NSH_MAX];

static void random_point(double *xi)
{
  double a = drand48(), b = drand48();
  if (a + b > 1) a = 1 - a, b = 1 - b;
  xi[0] = a;
  xi[1] = b;
  xi[2] = 2 * drand48() - 1;
}

/* The normalized Lobatto function sqrt((2k-1)/2) * integral from -1 to s of P_{k-1}, by Gauss
 * quadrature of the Legendre polynomial (independent of the library's closed forms). */
static double lobatto(int k, double s)
{
  if (k == 0) return (1 - s) / 2;
  if (k == 1) return (1 + s) / 2;
  double x[8], w[8], sum = 0;
  quad_gauss_legendre(8, x, w);
  for (int q = 0; q < 8; q++) {
    double t = -1 + (s + 1) * (x[q] + 1) / 2, p0 = 1, p1 = t;
    for (int n = 1; n < k - 1; n++) {
      double p2 = ((2 * n + 1) * t * p1 - n * p0) / (n + 1);
      p0 = p1;
      p1 = p2;
    }
    sum += w[q] * p1 * (s + 1) / 2;
  }
  return sqrt((2 * k - 1) / 2.0) * sum;
}

static int in_list(int v, const int *list, int n)
{
  for (int i = 0; i < n; i++)
    if (list[i] == v) return 1;
  return 0;
}

/* Whether entity (kind, id) lies in the closure of edge g (as_face 0) or face g (as_face 1). */
static int in_closure(int kind, int id, int as_face, int g)
{
  const int *verts = as_face ? face_vert[g] : edge_vert[g];
  int nv = as_face ? (g < 2 ? 3 : 4) : 2;
  if (kind == MODE_VERTEX) return in_list(id, verts, nv);
  if (kind == MODE_EDGE)
    return in_list(edge_vert[id][0], verts, nv) && in_list(edge_vert[id][1], verts, nv);
  if (kind == MODE_FACE) return as_face && id == g;
  return 0;
}

static int imax(int a, int b) { return a > b ? a : b; }

/* An H1 mode: kind, entity, hdeg, vdeg, degree, i1, i2 (the H(curl) fields zero). */
#define H1_MODE(k, e, h, v, d, a, b)                                                              \
  ((struct refel_mode){                                                                            \
      .kind = k, .entity = e, .hdeg = h, .vdeg = v, .degree = d, .i1 = a, .i2 = b})

/* The documented order of the modes, built independently of the library. */
static int expected_modes(int p, struct refel_mode *m)
{
  int n = 0;
  for (int v = 0; v < 6; v++) m[n++] = H1_MODE(MODE_VERTEX, v, 0, 0, 1, 0, 0);
  for (int e = 0; e < 9; e++)
    for (int k = 2; k <= p; k++)
      m[n++] = e < 6 ? H1_MODE(MODE_EDGE, e, k, 0, k, 0, 0)
                     : H1_MODE(MODE_EDGE, e, 0, k, k, 0, 0);
  for (int f = 0; f < 2; f++)
    for (int d = 3; d <= p; d++)
      for (int i = 0; i <= d - 3; i++)
        m[n++] = H1_MODE(MODE_FACE, f, 0, 0, d, i, d - 3 - i);
  for (int f = 2; f < 5; f++)
    for (int k = 2; k <= p; k++)
      for (int j = 2; j <= p; j++)
        m[n++] = H1_MODE(MODE_FACE, f, k, j, imax(k, j), k, j);
  for (int d = 3; d <= p; d++)
    for (int i = 0; i <= d - 3; i++)
      for (int j = 2; j <= p; j++)
        m[n++] = H1_MODE(MODE_INTERIOR, 0, 0, j, imax(d, j), i, d - 3 - i);
  return n;
}

static void test_counts_and_modes(void)
{
  static const int nsh[8] = {0, 6, 18, 40, 75, 126, 196, 288};
  int ok = refel_prism_nsh(0) == FEMINT_EORDER && refel_prism_nsh(8) == FEMINT_EORDER;
  for (int p = 1; p <= 7; p++) ok = ok && refel_prism_nsh(p) == nsh[p];
  tap_ok(ok, "nsh = 6, 18, 40, 75, 126, 196, 288 for p = 1..7, FEMINT_EORDER outside");

  for (int p = 1; p <= 7; p++) {
    struct refel *re = NULL;
    struct refel_mode exp[NSH_MAX];
    if (refel_prism_create(p, &re)) {
      tap_ok(0, "refel_prism_create(%d)", p);
      continue;
    }
    int n = expected_modes(p, exp), same = n == re->nsh;
    for (int i = 0; same && i < n; i++) same = same_mode(&exp[i], &re->mode[i]);
    tap_ok(same, "order %d: modes in the documented order with their metadata", p);

    /* Ranks: at every order q <= p, the modes of an entity that exist are numbered 0..n-1. */
    int bad = 0;
    for (int q = 1; q <= p; q++) {
      for (int kind = MODE_VERTEX; kind <= MODE_FACE; kind++) {
        int nent = kind == MODE_VERTEX ? PRISM_NV : kind == MODE_EDGE ? PRISM_NE : PRISM_NF;
        for (int ent = 0; ent < nent; ent++) {
          int count = 0, want = refel_entity_nmodes(kind, ent, q), seen[64] = {0};
          for (int i = 0; i < re->nsh; i++) {
            const struct refel_mode *m = &re->mode[i];
            if (m->kind != kind || m->entity != ent) continue;
            int r = refel_mode_rank(m, q);
            if ((r >= 0) != (m->degree <= q)) bad++;
            if (r < 0) continue;
            if (r >= want || seen[r]++) bad++;
            count++;
          }
          if (count != want) bad++;
        }
      }
    }
    for (int i = 0; i < re->nsh; i++)
      if (re->mode[i].kind == MODE_INTERIOR && refel_mode_rank(&re->mode[i], p) != -1) bad++;
    int nint = 0;
    for (int i = 0; i < re->nsh; i++) nint += re->mode[i].kind == MODE_INTERIOR;
    if (nint != refel_entity_nmodes(MODE_INTERIOR, 0, p)) bad++;
    tap_ok(!bad, "order %d: refel_mode_rank numbers each entity's modes 0..nmodes(q)-1, q <= %d", p,
           p);

    /* The tabulation is the evaluation at the quadrature points, also in single precision. */
    double diff = 0, fdiff = 0;
    for (int q = 0; q < re->nq; q++) {
      refel_prism_eval(p, re->xq + 3 * q, val);
      for (int k = 0; k < 4 * re->nsh; k++) {
        size_t at = (size_t)q * 4 * re->nsh + k;
        diff = fmax(diff, fabs(val[k] - re->phi[at]));
        fdiff = fmax(fdiff, fabs(re->phi_f[at] - re->phi[at]) / fmax(1, fabs(re->phi[at])));
      }
    }
    tap_ok(diff < 1e-14 && fdiff < 1e-6, "order %d: phi and phi_f tabulate refel_prism_eval (%.2g)",
           p, fdiff);
    refel_destroy(&re);
  }
}

static void test_vertices(void)
{
  int bad_sum = 0, bad_vert = 0;
  double xi[3];
  for (int p = 1; p <= 7; p++) {
    int nsh = refel_prism_nsh(p);
    for (int t = 0; t < 20; t++) {
      random_point(xi);
      refel_prism_eval(p, xi, val);
      for (int d = 0; d < 4; d++) {
        double s = 0;
        for (int v = 0; v < 6; v++) s += val[d * nsh + v];
        if (fabs(s - (d == 0)) > 1e-14) bad_sum++;
      }
    }
    for (int v = 0; v < 6; v++) {
      refel_prism_eval(p, vert_xi[v], val);
      for (int i = 0; i < nsh; i++)
        if (fabs(val[i] - (i == v)) > 1e-14) bad_vert++;
    }
  }
  tap_ok(!bad_sum, "the vertex functions sum to one (and their gradients to zero), p = 1..7");
  tap_ok(!bad_vert, "vertex function v is 1 at vertex v and every other mode is 0 there");
}

static void test_derivatives(void)
{
  const double h = 1e-5;
  static double vp[4 * NSH_MAX], vm[4 * NSH_MAX];
  for (int p = 1; p <= 7; p++) {
    int nsh = refel_prism_nsh(p);
    double worst = 0;
    for (int t = 0; t < 10; t++) {
      double xi[3], x2[3];
      random_point(xi);
      refel_prism_eval(p, xi, val);
      for (int d = 0; d < 3; d++) {
        memcpy(x2, xi, sizeof x2);
        x2[d] = xi[d] + h;
        refel_prism_eval(p, x2, vp);
        x2[d] = xi[d] - h;
        refel_prism_eval(p, x2, vm);
        for (int i = 0; i < nsh; i++) {
          double fd = (vp[i] - vm[i]) / (2 * h), an = val[(d + 1) * nsh + i];
          worst = fmax(worst, fabs(fd - an) / fmax(1, fabs(an)));
        }
      }
    }
    tap_ok(worst < 1e-6, "order %d: derivatives match centered differences (%.2g)", p, worst);
  }
}

/* Traces: edge modes are L_k of the edge coordinate on their edge; modes vanish on the edges
 * and faces whose closure does not hold their entity. */
static void test_traces(void)
{
  for (int p = 1; p <= 7; p++) {
    struct refel *re = NULL;
    if (refel_prism_create(p, &re)) {
      tap_ok(0, "refel_prism_create(%d)", p);
      continue;
    }
    int nsh = re->nsh, bad_edge = 0, bad_zero = 0;
    double worst = 0;
    for (int g = 0; g < PRISM_NE; g++) {
      for (int t = 0; t < 7; t++) {
        double s = -1 + 2 * (t + 0.37) / 7, xi[3];
        const double *a = vert_xi[edge_vert[g][0]], *b = vert_xi[edge_vert[g][1]];
        for (int c = 0; c < 3; c++) xi[c] = (1 - s) / 2 * a[c] + (1 + s) / 2 * b[c];
        refel_prism_eval(p, xi, val);
        for (int i = 0; i < nsh; i++) {
          const struct refel_mode *m = &re->mode[i];
          if (m->kind == MODE_EDGE && m->entity == g) {
            double err = fabs(val[i] - lobatto(m->degree, s));
            worst = fmax(worst, err);
            if (err > 1e-13) bad_edge++;
          } else if (!in_closure(m->kind, m->entity, 0, g) && fabs(val[i]) > 1e-13) {
            bad_zero++;
          }
        }
      }
    }
    tap_ok(!bad_edge, "order %d: each edge mode equals L_k of its edge coordinate (%.2g)", p,
           worst);
    tap_ok(!bad_zero, "order %d: modes vanish on the edges that do not hold their entity", p);

    bad_zero = 0;
    for (int f = 0; f < PRISM_NF; f++) {
      for (int t = 0; t < 10; t++) {
        double xi[3], r[3];
        random_point(r);
        /* A point of face f: on the triangle faces xi3 = -1 or 1, on the quad faces over edges
         * (0,1), (1,2), (2,0) the lines xi2 = 0, xi1 + xi2 = 1, xi1 = 0. */
        double u = drand48();
        double pick[5][3] = {
            {r[0], r[1], -1}, {r[0], r[1], 1}, {u, 0, r[2]}, {u, 1 - u, r[2]}, {0, u, r[2]}};
        memcpy(xi, pick[f], sizeof xi);
        refel_prism_eval(p, xi, val);
        for (int i = 0; i < nsh; i++) {
          const struct refel_mode *m = &re->mode[i];
          if (!in_closure(m->kind, m->entity, 1, f) && fabs(val[i]) > 1e-13) bad_zero++;
        }
      }
    }
    tap_ok(!bad_zero, "order %d: modes vanish on the faces that do not hold their entity", p);
    refel_destroy(&re);
  }
}

static double legendre(int n, double x)
{
  double p0 = 1, p1 = x;
  if (n == 0) return 1;
  for (int k = 1; k < n; k++) {
    double p2 = ((2 * k + 1) * x * p1 - k * p0) / (k + 1);
    p0 = p1;
    p1 = p2;
  }
  return p1;
}

/* Face traces: a triangle-face mode is l0 l1 l2 P_i(l1 - l0) P_j(2 l2 - 1) on its face and a
 * quad-face mode over triangle edge (a, b) is L_k(lb - la) L_m(xi3) on its face. */
static void test_face_traces(void)
{
  static const int tri_edge[3][2] = {{0, 1}, {1, 2}, {2, 0}};
  for (int p = 3; p <= 7; p++) {
    struct refel *re = NULL;
    if (refel_prism_create(p, &re)) {
      tap_ok(0, "refel_prism_create(%d)", p);
      continue;
    }
    double worst = 0;
    for (int f = 0; f < PRISM_NF; f++) {
      for (int t = 0; t < 10; t++) {
        double xi[3], s = 2 * drand48() - 1;
        random_point(xi);
        /* On quad face 2 + e, s is the coordinate lb - la of triangle edge e = (a, b). */
        double pick[5][2] = {{xi[0], xi[1]},
                             {xi[0], xi[1]},
                             {(1 + s) / 2, 0},
                             {(1 - s) / 2, (1 + s) / 2},
                             {0, (1 - s) / 2}};
        xi[0] = pick[f][0];
        xi[1] = pick[f][1];
        if (f < 2) xi[2] = f ? 1 : -1;
        double l[3] = {1 - xi[0] - xi[1], xi[0], xi[1]};
        refel_prism_eval(p, xi, val);
        for (int i = 0; i < re->nsh; i++) {
          const struct refel_mode *m = &re->mode[i];
          if (m->kind != MODE_FACE || m->entity != f) continue;
          double want;
          if (f < 2) {
            want =
                l[0] * l[1] * l[2] * legendre(m->i1, l[1] - l[0]) * legendre(m->i2, 2 * l[2] - 1);
          } else {
            int a = tri_edge[f - 2][0], b = tri_edge[f - 2][1];
            want = lobatto(m->i1, l[b] - l[a]) * lobatto(m->i2, xi[2]);
          }
          worst = fmax(worst, fabs(val[i] - want));
        }
      }
    }
    tap_ok(worst < 1e-13, "order %d: face modes restrict to the documented products (%.2g)", p,
           worst);
    refel_destroy(&re);
  }
}

static double ipow(double x, int k)
{
  double r = 1;
  for (int i = 0; i < k; i++) r *= x;
  return r;
}

/* Largest misfit of the least-squares fit at the quadrature points of x^a y^b z^c, at the
 * quadrature points and at 20 random points. */
static double fit_error(const struct refel *re, const double *L, int a, int b, int c)
{
  int nsh = re->nsh;
  double coef[NSH_MAX] = {0}, err = 0;
  for (int q = 0; q < re->nq; q++) {
    const double *x = re->xq + 3 * q;
    double f = ipow(x[0], a) * ipow(x[1], b) * ipow(x[2], c);
    for (int i = 0; i < nsh; i++) coef[i] += re->wq[q] * re->phi[(size_t)q * 4 * nsh + i] * f;
  }
  cholesky_solve(nsh, L, coef);
  for (int q = 0; q < re->nq + 20; q++) {
    double x[3];
    if (q < re->nq)
      memcpy(x, re->xq + 3 * q, sizeof x);
    else
      random_point(x);
    refel_prism_eval(re->order, x, val);
    double f = ipow(x[0], a) * ipow(x[1], b) * ipow(x[2], c), u = 0;
    for (int i = 0; i < nsh; i++) u += coef[i] * val[i];
    err = fmax(err, fabs(u - f));
  }
  return err;
}

static void test_mass_and_span(void)
{
  double *M = malloc(sizeof(double) * NSH_MAX * NSH_MAX);
  if (!M) {
    tap_ok(0, "allocation of the mass matrix");
    return;
  }
  for (int p = 1; p <= 7; p++) {
    struct refel *re = NULL;
    if (refel_prism_create(p, &re)) {
      tap_ok(0, "refel_prism_create(%d)", p);
      continue;
    }
    int nsh = re->nsh;
    for (int i = 0; i < nsh; i++)
      for (int j = 0; j < nsh; j++) {
        double s = 0;
        for (int q = 0; q < re->nq; q++) {
          const double *ph = re->phi + (size_t)q * 4 * nsh;
          s += re->wq[q] * ph[i] * ph[j];
        }
        M[i * nsh + j] = s;
      }
    double asym = 0, dmax = 0;
    for (int i = 0; i < nsh; i++) {
      dmax = fmax(dmax, M[i * nsh + i]);
      for (int j = 0; j < i; j++) asym = fmax(asym, fabs(M[i * nsh + j] - M[j * nsh + i]));
    }
    double rmin = cholesky(nsh, M);
    tap_ok(asym <= 1e-15 * dmax && rmin > 0,
           "order %d: the mass matrix is symmetric positive definite (smallest pivot ratio %.2g)",
           p, rmin);
    if (rmin <= 0) {
      refel_destroy(&re);
      continue;
    }
    double worst = 0;
    for (int a = 0; a <= p; a++)
      for (int b = 0; a + b <= p; b++)
        for (int c = 0; c <= p; c++) worst = fmax(worst, fit_error(re, M, a, b, c));
    tap_ok(worst < 1e-10,
           "order %d: x^a y^b z^c, a+b <= %d, c <= %d, reproduced by the fit to %.2g", p, p, p,
           worst);
    /* The check discriminates: degree p + 1 lies outside the space (at the random points: the
     * p + 1 Gauss points in xi3 cannot tell z^(p+1) from its interpolant). */
    double outside = fmin(fit_error(re, M, p + 1, 0, 0), fit_error(re, M, 0, 0, p + 1));
    tap_ok(outside > 1e-6, "order %d: x^%d and z^%d are not in the space (misfit %.2g)", p, p + 1,
           p + 1, outside);
    refel_destroy(&re);
  }
  free(M);
}

int main(void)
{
  srand48(102);
  test_counts_and_modes();
  test_vertices();
  test_derivatives();
  test_traces();
  test_face_traces();
  test_mass_and_span();
  return tap_done();
}
