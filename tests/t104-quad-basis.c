/* Test: the reference quadrilateral of seed 003 has the documented modes, rule, traces,
 * derivatives and span. */
#include "quad_common.h"

static double val[3 * NSH_MAX];

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

/* The point of edge e at edge coordinate s (-1 at its first vertex, 1 at its second). */
static void edge_point(int e, double s, double *xi)
{
  const double *a = vert_xi[edge_vert[e][0]], *b = vert_xi[edge_vert[e][1]];
  for (int c = 0; c < 2; c++) xi[c] = (1 - s) / 2 * a[c] + (1 + s) / 2 * b[c];
}

/* An H1 mode: kind, entity, hdeg, vdeg, degree, i1, i2 (the H(curl) fields zero). */
#define H1_MODE(k, e, h, v, d, a, b)                                                              \
  ((struct refel_mode){                                                                            \
      .kind = k, .entity = e, .hdeg = h, .vdeg = v, .degree = d, .i1 = a, .i2 = b})

/* The documented order of the modes, built independently of the library. */
static int expected_modes(int p, struct refel_mode *m)
{
  int n = 0;
  for (int v = 0; v < 4; v++) m[n++] = H1_MODE(MODE_VERTEX, v, 0, 0, 1, 0, 0);
  for (int e = 0; e < 4; e++)
    for (int k = 2; k <= p; k++)
      m[n++] = e % 2 ? H1_MODE(MODE_EDGE, e, 0, k, k, 0, 0)
                     : H1_MODE(MODE_EDGE, e, k, 0, k, 0, 0);
  for (int i = 2; i <= p; i++) /* i + j <= p, listed by i + j */
    for (int j = 2; i + j <= p; j++)
      m[n++] = H1_MODE(MODE_INTERIOR, 0, i, j, i + j, i, j);
  /* Sort the interior modes by total degree, then i (insertion sort, stable). */
  for (int a = 4 + 4 * (p - 1) + 1; a < n; a++) {
    struct refel_mode t = m[a];
    int b = a - 1;
    while (b >= 4 + 4 * (p - 1) && m[b].degree > t.degree) {
      m[b + 1] = m[b];
      b--;
    }
    m[b + 1] = t;
  }
  return n;
}

static void test_counts_and_modes(void)
{
  static const int nsh[8] = {0, 4, 8, 12, 17, 23, 30, 38};
  static const int seed_dim[8] = {0, 8, 16, 24, 34, 46, 60, 76}; /* seed 003, Table I */
  int ok = refel_quad_nsh(0) == FEMINT_EORDER && refel_quad_nsh(8) == FEMINT_EORDER;
  for (int p = 1; p <= 7; p++) {
    /* n = 4 + 4(p-1)_+ + (p-2)(p-3)_+/2 as the seed writes it. */
    int seed_n = 4 + 4 * (p - 1 > 0 ? p - 1 : 0) + (p - 2) * (p - 3 > 0 ? p - 3 : 0) / 2;
    ok = ok && refel_quad_nsh(p) == nsh[p] && seed_n == nsh[p] && 2 * nsh[p] == seed_dim[p];
  }
  tap_ok(ok, "nsh = 4, 8, 12, 17, 23, 30, 38 (2 nsh = 8 ... 76 as seed 003's Table I) for "
             "p = 1..7, FEMINT_EORDER outside");

  int bad_modes = 0, bad_rank = 0, bad_rule = 0;
  double fdiff = 0, diff = 0;
  for (int p = 1; p <= 7; p++) {
    struct refel *re = NULL;
    if (refel_quad_create(p, &re)) {
      tap_ok(0, "refel_quad_create(%d)", p);
      continue;
    }
    if (re->shape != FEMINT_QUAD || re->dim != 2 || re->nq != (p + 1) * (p + 1) ||
        re->nline != p + 1 || re->degree != 2 * p + 1)
      bad_rule++;
    struct refel_mode exp[NSH_MAX];
    int n = expected_modes(p, exp);
    if (n != re->nsh) bad_modes++;
    for (int i = 0; n == re->nsh && i < n; i++)
      if (!same_mode(&exp[i], &re->mode[i])) bad_modes++;

    /* Ranks: at every order q <= p, the modes of an entity that exist are numbered 0..n-1. */
    for (int q = 1; q <= p; q++) {
      for (int kind = MODE_VERTEX; kind <= MODE_INTERIOR; kind++) {
        if (kind == MODE_FACE) continue;
        int nent = kind == MODE_VERTEX ? 4 : kind == MODE_EDGE ? 4 : 1;
        for (int ent = 0; ent < nent; ent++) {
          int count = 0, want = refel_quad_entity_nmodes(kind, q), seen[64] = {0};
          for (int i = 0; i < re->nsh; i++) {
            const struct refel_mode *m = &re->mode[i];
            if (m->kind != kind || m->entity != ent) continue;
            int r = refel_quad_mode_rank(m, q);
            if ((r >= 0) != (m->degree <= q)) bad_rank++;
            if (r < 0) continue;
            if (r >= want || seen[r]++) bad_rank++;
            count++;
          }
          if (count != want) bad_rank++;
        }
      }
    }

    /* The tabulation is the evaluation at the quadrature points, also in single precision. */
    for (int q = 0; q < re->nq; q++) {
      refel_quad_eval(p, re->xq + 2 * q, val);
      for (int k = 0; k < 3 * re->nsh; k++) {
        size_t at = (size_t)q * 3 * re->nsh + k;
        diff = fmax(diff, fabs(val[k] - re->phi[at]));
        fdiff = fmax(fdiff, fabs(re->phi_f[at] - re->phi[at]) / fmax(1, fabs(re->phi[at])));
      }
    }
    refel_destroy(&re);
  }
  tap_ok(!bad_rule,
         "p = 1..7: a quadrilateral of (p+1)^2 points, exact to degree 2p+1 per variable");
  tap_ok(!bad_modes, "p = 1..7: modes in the documented order with their metadata");
  tap_ok(!bad_rank, "p = 1..7: refel_quad_mode_rank numbers each entity's modes 0..nmodes(q)-1");
  tap_ok(diff < 1e-15 && fdiff < 1e-6,
         "p = 1..7: phi and phi_f tabulate refel_quad_eval (double %.2g, single %.2g)", diff,
         fdiff);
}

/* The tensor rule integrates x^a y^b exactly for a, b <= 2p+1 and not x^(2p+2). */
static void test_quadrature(void)
{
  double worst = 0, outside = INFINITY, wsum = 0;
  int bad = 0;
  for (int p = 1; p <= 7; p++) {
    struct refel *re = NULL;
    if (refel_quad_create(p, &re)) {
      tap_ok(0, "refel_quad_create(%d)", p);
      return;
    }
    double s = 0;
    for (int q = 0; q < re->nq; q++) {
      s += re->wq[q];
      if (re->wq[q] <= 0 || fabs(re->xq[2 * q]) >= 1 || fabs(re->xq[2 * q + 1]) >= 1) bad++;
    }
    wsum = fmax(wsum, fabs(s - 4));
    for (int a = 0; a <= 2 * p + 2; a++)
      for (int b = 0; b <= 2 * p + 1; b++) {
        double sum = 0;
        for (int q = 0; q < re->nq; q++)
          sum += re->wq[q] * ipow(re->xq[2 * q], a) * ipow(re->xq[2 * q + 1], b);
        /* Exact: int x^a * int y^b; the scale is the integral of |x|^a |y|^b. */
        double ia = a % 2 ? 0 : 2.0 / (a + 1), ib = b % 2 ? 0 : 2.0 / (b + 1);
        double err = fabs(sum - ia * ib) / (4.0 / ((a + 1) * (b + 1)));
        if (a <= 2 * p + 1)
          worst = fmax(worst, err);
        else if (b == 0)
          outside = fmin(outside, err);
      }
    refel_destroy(&re);
  }
  tap_ok(!bad && wsum < 1e-14, "p = 1..7: positive weights summing to 4 (%.2g), points inside",
         wsum);
  tap_ok(worst < 1e-14, "p = 1..7: x^a y^b integrated exactly for a, b <= 2p+1 (%.2g)", worst);
  tap_ok(outside > 1e-6, "p = 1..7: x^(2p+2) is not (smallest error %.2g)", outside);
}

static void test_vertices(void)
{
  int bad_sum = 0, bad_vert = 0;
  double xi[2];
  for (int p = 1; p <= 7; p++) {
    int nsh = refel_quad_nsh(p);
    for (int t = 0; t < 20; t++) {
      random_point(xi);
      refel_quad_eval(p, xi, val);
      for (int d = 0; d < 3; d++) {
        double s = 0;
        for (int v = 0; v < 4; v++) s += val[d * nsh + v];
        if (fabs(s - (d == 0)) > 1e-15) bad_sum++;
      }
    }
    for (int v = 0; v < 4; v++) {
      refel_quad_eval(p, vert_xi[v], val);
      for (int i = 0; i < nsh; i++)
        if (fabs(val[i] - (i == v)) > 1e-15) bad_vert++;
    }
  }
  tap_ok(!bad_sum, "p = 1..7: the vertex functions sum to one (and their gradients to zero)");
  tap_ok(!bad_vert, "p = 1..7: vertex function v is 1 at vertex v, every other mode 0 there "
                    "(the Lobatto bubbles vanish at the ends of their edges)");
}

static void test_derivatives(void)
{
  const double h = 1e-5;
  static double vp[3 * NSH_MAX], vm[3 * NSH_MAX];
  double worst = 0;
  for (int p = 1; p <= 7; p++) {
    int nsh = refel_quad_nsh(p);
    for (int t = 0; t < 20; t++) {
      double xi[2], x2[2];
      random_point(xi);
      refel_quad_eval(p, xi, val);
      for (int d = 0; d < 2; d++) {
        memcpy(x2, xi, sizeof x2);
        x2[d] = xi[d] + h;
        refel_quad_eval(p, x2, vp);
        x2[d] = xi[d] - h;
        refel_quad_eval(p, x2, vm);
        for (int i = 0; i < nsh; i++) {
          double fd = (vp[i] - vm[i]) / (2 * h), an = val[(d + 1) * nsh + i];
          worst = fmax(worst, fabs(fd - an) / fmax(1, fabs(an)));
        }
      }
    }
  }
  tap_ok(worst < 1e-7, "p = 1..7: d/dxi and d/deta match centered differences (%.2g)", worst);
}

/* Traces on the four edges, the parity of edge modes, and the normalization of the Lobatto
 * functions (int Li' Lj' = delta_ij). */
static void test_traces(void)
{
  int bad_zero = 0, bad_parity = 0;
  double worst = 0, worst_gram = 0;
  for (int p = 1; p <= 7; p++) {
    struct refel *re = NULL;
    if (refel_quad_create(p, &re)) {
      tap_ok(0, "refel_quad_create(%d)", p);
      return;
    }
    static double vr[3 * NSH_MAX];
    for (int g = 0; g < 4; g++) {
      for (int t = 0; t < 9; t++) {
        double s = -1 + 2.0 * t / 8, xi[2], xr[2];
        edge_point(g, s, xi);
        edge_point(g, -s, xr);
        refel_quad_eval(p, xi, val);
        refel_quad_eval(p, xr, vr);
        for (int i = 0; i < re->nsh; i++) {
          const struct refel_mode *m = &re->mode[i];
          int on = m->kind == MODE_VERTEX
                       ? m->entity == edge_vert[g][0] || m->entity == edge_vert[g][1]
                       : m->kind == MODE_EDGE && m->entity == g;
          if (!on) {
            if (fabs(val[i]) > 1e-15) bad_zero++;
            continue;
          }
          if (m->kind != MODE_EDGE) continue;
          worst = fmax(worst, fabs(val[i] - lobatto(m->degree, s)));
          /* Seen from the other end the mode is (-1)^deg times itself, deg the degree along
           * the edge that the DOF map reads: hdeg on edges 0 and 2, vdeg on 1 and 3. */
          int deg = g % 2 ? m->vdeg : m->hdeg;
          if (deg != m->degree || fabs(vr[i] - (deg % 2 ? -1 : 1) * val[i]) > 1e-15) bad_parity++;
        }
      }
    }
    /* Edge 0 at eta = -1: the d/dxi of its modes are Lk'; Gauss with p+1 points is exact. */
    double gx[8], gw[8];
    quad_gauss_legendre(p + 1, gx, gw);
    for (int a = 4; a < 4 + (p - 1); a++)
      for (int b = 4; b < 4 + (p - 1); b++) {
        double s = 0;
        for (int q = 0; q <= p; q++) {
          double xi[2] = {gx[q], -1};
          refel_quad_eval(p, xi, val);
          s += gw[q] * val[re->nsh + a] * val[re->nsh + b];
        }
        worst_gram = fmax(worst_gram, fabs(s - (a == b)));
      }
    refel_destroy(&re);
  }
  tap_ok(worst < 1e-14, "p = 1..7: each edge mode equals L_k of its edge coordinate (%.2g)", worst);
  tap_ok(!bad_zero, "p = 1..7: modes vanish on the edges that do not hold their entity "
                    "(interior modes on all four)");
  tap_ok(!bad_parity, "p = 1..7: edge modes of odd degree change sign with the edge direction, "
                      "even ones do not, as their hdeg/vdeg say");
  tap_ok(worst_gram < 1e-14, "p = 2..7: int Li' Lj' = delta_ij (%.2g)", worst_gram);
}

static double monomial(const double *xi, const void *data)
{
  const int *ab = data;
  return ipow(xi[0], ab[0]) * ipow(xi[1], ab[1]);
}

/* Largest misfit of the projection of x^a y^b at the quadrature points and 20 random points. */
static double fit_error(const struct refel *re, const double *L, int a, int b)
{
  int ab[2] = {a, b}, n = re->nsh;
  double coef[NSH_MAX], err = 0;
  project(re, L, monomial, ab, coef);
  for (int q = 0; q < re->nq + 20; q++) {
    double x[2];
    if (q < re->nq)
      memcpy(x, re->xq + 2 * q, sizeof x);
    else
      random_point(x);
    refel_quad_eval(re->order, x, val);
    double u = 0;
    for (int i = 0; i < n; i++) u += coef[i] * val[i];
    err = fmax(err, fabs(u - monomial(x, ab)));
  }
  return err;
}

static void test_mass_and_span(void)
{
  int bad_spd = 0, bad_count = 0;
  double rmin_all = INFINITY, worst = 0, outside = INFINITY, mdiff = 0;
  for (int p = 1; p <= 7; p++) {
    struct refel *re = NULL;
    if (refel_quad_create(p, &re)) {
      tap_ok(0, "refel_quad_create(%d)", p);
      return;
    }
    int n = re->nsh;
    /* The mass form on the reference square through integrate_quad_reference (det J = 1)
     * against sum_q w_q phi_i phi_j from the tabulation. */
    double c[9], *M = malloc(sizeof(double) * n * n);
    quad_coef_mass(1, 1.0, c);
    if (integrate_quad_reference(re, 8, ref_nodes, 1, c, QUAD_STORE_FULL, M)) bad_spd++;
    double asym = 0, dmax = 0;
    for (int i = 0; i < n; i++) {
      dmax = fmax(dmax, M[i * n + i]);
      for (int j = 0; j < n; j++) {
        double s = 0;
        for (int q = 0; q < re->nq; q++) {
          const double *ph = re->phi + (size_t)q * 3 * n;
          s += re->wq[q] * ph[i] * ph[j];
        }
        mdiff = fmax(mdiff, fabs(M[i * n + j] - s));
        if (j < i) asym = fmax(asym, fabs(M[i * n + j] - M[j * n + i]));
      }
    }
    double r2 = cholesky(n, M);
    if (asym > 1e-15 * dmax || r2 <= 0) bad_spd++;
    rmin_all = fmin(rmin_all, r2);
    free(M);
    double rmin, *L = mass_factor(re, &rmin);
    if (!L) {
      bad_spd++;
      refel_destroy(&re);
      continue;
    }
    /* The span: x^a y^b with a + b <= p, then x^p y and x y^p (for p = 1 the same xy). */
    int count = 0;
    for (int a = 0; a <= p; a++)
      for (int b = 0; a + b <= p; b++, count++) worst = fmax(worst, fit_error(re, L, a, b));
    worst = fmax(worst, fmax(fit_error(re, L, p, 1), fit_error(re, L, 1, p)));
    count += p > 1 ? 2 : 1;
    if (count != n) bad_count++;
    /* Degree p+1 otherwise lies outside: x^(p+1), and x^2 y^max(2, p-1) (in Q_p for p >= 3,
     * not in the trunk space). */
    outside = fmin(outside, fit_error(re, L, p + 1, 0));
    outside = fmin(outside, fit_error(re, L, 2, p > 3 ? p - 1 : 2));
    free(L);
    refel_destroy(&re);
  }
  tap_ok(!bad_spd && mdiff < 1e-15,
         "p = 1..7: the mass matrix (integrate_quad_reference, mass form; = sum w phi_i phi_j to "
         "%.2g) is symmetric positive definite (smallest pivot ratio %.2g)",
         mdiff, rmin_all);
  tap_ok(!bad_count, "p = 1..7: P_p + {x^p y, x y^p} has exactly nsh monomials");
  tap_ok(worst < 1e-12,
         "p = 1..7: every x^a y^b of P_p + {x^p y, x y^p} is reproduced by the "
         "fit (%.2g), so the basis spans exactly that space",
         worst);
  tap_ok(outside > 1e-6,
         "p = 1..7: x^(p+1) and x^2 y^max(2,p-1) are not reproduced (misfit >= %.2g)", outside);
}

static void test_errors(void)
{
  struct refel *re = NULL;
  int ok = refel_quad_create(0, &re) == FEMINT_EORDER && !re &&
           refel_quad_create(8, &re) == FEMINT_EORDER && !re &&
           refel_quad_create_rule(3, 33, &re) == FEMINT_EORDER && !re;
  tap_ok(ok, "orders 0 and 8 and a rule of 33 points are refused");
}

int main(void)
{
  srand48(104);
  test_counts_and_modes();
  test_quadrature();
  test_vertices();
  test_derivatives();
  test_traces();
  test_mass_and_span();
  test_errors();
  return tap_done();
}
