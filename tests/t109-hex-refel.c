/* Test: the Gauss-Lobatto-Legendre rules, the 1D Lagrange matrices and the Lagrange reference
 * hexahedron of orders 1-10 have the documented nodes, order, metadata, rule and derivatives. */
#include <stdint.h>
#include <string.h>

#include "host/refel_hex.h"
#include "tap.h"

#define PMAX 10
#define NSH_MAX ((PMAX + 1) * (PMAX + 1) * (PMAX + 1))

/* Local copies of the reference cube's topology as refel_hex.h documents it. */
static const double vert_xi[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                     {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
static const int edge_vert[12][2] = {{0, 1}, {0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3},
                                     {2, 6}, {3, 7}, {4, 5}, {4, 7}, {5, 6}, {6, 7}};
static const int face_vert[6][4] = {{0, 3, 2, 1}, {0, 1, 5, 4}, {0, 4, 7, 3},
                                    {1, 2, 6, 5}, {2, 3, 7, 6}, {4, 5, 6, 7}};

static double ipow(double x, int k)
{
  double r = 1;
  for (int i = 0; i < k; i++) r *= x;
  return r;
}

/* Integral of x^k over [-1,1]. */
static double line_exact(int k) { return k % 2 ? 0 : 2.0 / (k + 1); }

/* Largest error of a 1D rule over the monomials x^lo..x^hi, relative to the integral of |x|^k
 * (so that odd powers have a scale). */
static double line_misfit(int n, const double *x, const double *w, int lo, int hi)
{
  double err = 0;
  for (int k = lo; k <= hi; k++) {
    double s = 0;
    for (int i = 0; i < n; i++) s += w[i] * ipow(x[i], k);
    err = fmax(err, fabs(s - line_exact(k)) * (k + 1) / 2.0);
  }
  return err;
}

static void test_gll_closed_forms(void)
{
  /* The rules of 2..5 points in closed form, ascending. */
  const double s5 = 1 / sqrt(5.0), s37 = sqrt(3 / 7.0);
  static const int npt[4] = {2, 3, 4, 5};
  const double want_x[4][5] = {{-1, 1}, {-1, 0, 1}, {-1, -s5, s5, 1}, {-1, -s37, 0, s37, 1}};
  const double want_w[4][5] = {{1, 1},
                               {1 / 3.0, 4 / 3.0, 1 / 3.0},
                               {1 / 6.0, 5 / 6.0, 5 / 6.0, 1 / 6.0},
                               {0.1, 49 / 90.0, 32 / 45.0, 49 / 90.0, 0.1}};
  double err = 0;
  int fail = 0;
  for (int r = 0; r < 4; r++) {
    double x[5], w[5];
    fail |= gll_nodes(npt[r], x, w);
    for (int i = 0; i < npt[r]; i++)
      err = fmax(err, fmax(fabs(x[i] - want_x[r][i]), fabs(w[i] - want_w[r][i])));
  }
  tap_ok(!fail && err < 1e-14, "GLL n = 2..5 match their closed forms (max error %.3g)", err);
}

static void test_gll_rules(void)
{
  double x[GLL_MAX], w[GLL_MAX];
  int bad_shape = 0, bad_exact = 0, bad_fail = 0, bad_root = 0;
  double worst = 0, least_miss = INFINITY, worst_root = 0;
  for (int n = 2; n <= GLL_MAX; n++) {
    if (gll_nodes(n, x, w)) {
      tap_ok(0, "GLL rule of %d points", n);
      return;
    }
    double sum = 0;
    for (int i = 0; i < n; i++) {
      sum += w[i];
      if (w[i] <= 0 || (i && x[i] <= x[i - 1]) || x[i] != -x[n - 1 - i] || w[i] != w[n - 1 - i])
        bad_shape++;
      /* The interior nodes are the roots of P_{n-1}'. */
      if (i == 0 || i == n - 1) continue;
      double p0 = 1, p1 = x[i], d0 = 0, d1 = 1;
      for (int k = 1; k < n - 1; k++) {
        const double p2 = ((2 * k + 1) * x[i] * p1 - k * p0) / (k + 1), d2 = d0 + (2 * k + 1) * p1;
        p0 = p1, p1 = p2, d0 = d1, d1 = d2;
      }
      worst_root = fmax(worst_root, fabs(d1) / (n * n));
    }
    if (x[0] != -1 || x[n - 1] != 1 || fabs(sum - 2) > 1e-14) bad_shape++;
    if (worst_root > 1e-14) bad_root++;
    const double e = line_misfit(n, x, w, 0, 2 * n - 3);
    worst = fmax(worst, e);
    if (e > 1e-14) {
      bad_exact++;
      tap_diag("GLL n = %d: misfit %.3g up to degree %d", n, e, 2 * n - 3);
    }
    if (n <= 12) {
      const double miss = line_misfit(n, x, w, 2 * n - 2, 2 * n - 2);
      least_miss = fmin(least_miss, miss);
      if (miss < 1e-6) bad_fail++;
    }
  }
  tap_ok(!bad_shape, "GLL n = 2..%d: -1 and 1 at the ends, ascending, symmetric, w > 0, sum w = 2",
         GLL_MAX);
  tap_ok(!bad_root, "GLL n = 2..%d: interior nodes are roots of P_{n-1}' (max |P'|/n^2 %.3g)",
         GLL_MAX, worst_root);
  tap_ok(!bad_exact, "GLL n = 2..%d integrate x^k, k <= 2n-3 (max error %.3g)", GLL_MAX, worst);
  tap_ok(!bad_fail, "GLL n = 2..12 do not integrate x^(2n-2) (least error %.3g)", least_miss);
  tap_ok(gll_nodes(1, x, w) == FEMINT_EORDER && gll_nodes(GLL_MAX + 1, x, w) == FEMINT_EORDER &&
             strstr(femint_thread_error(), "34 points"),
         "GLL outside 2..%d returns FEMINT_EORDER (\"%s\")", GLL_MAX, femint_thread_error());
}

static void test_gauss(void)
{
  double x[32], w[32];
  int bad = 0;
  double worst = 0;
  for (int n = 1; n <= 12; n++) {
    bad |= quad_gauss_legendre(n, x, w);
    worst = fmax(worst, line_misfit(n, x, w, 0, 2 * n - 1));
  }
  tap_ok(!bad && worst < 1e-14, "Gauss-Legendre n = 1..12 integrate x^k, k <= 2n-1 (%.3g)", worst);
}

/* B and D interpolate and differentiate the polynomials of degree < n exactly. */
static void test_1d_matrices(void)
{
  enum { NQ = 16 };
  double g[GLL_MAX], gw[GLL_MAX], xq[NQ], B[NQ * GLL_MAX], D[NQ * GLL_MAX], val[GLL_MAX];
  double worst_b = 0, worst_d = 0;
  int bad = 0, delta = 1;
  for (int n = 2; n <= 11; n++) {
    bad |= gll_nodes(n, g, gw);
    for (int q = 0; q < NQ; q++) xq[q] = 2 * drand48() - 1;
    bad |= basis_1d_matrices(n, g, NQ, xq, B, D);
    for (int k = 0; k < n; k++)
      for (int q = 0; q < NQ; q++) {
        double sb = 0, sd = 0;
        for (int j = 0; j < n; j++) {
          sb += B[q * n + j] * ipow(g[j], k);
          sd += D[q * n + j] * ipow(g[j], k);
        }
        const double vb = ipow(xq[q], k), vd = k ? k * ipow(xq[q], k - 1) : 0;
        worst_b = fmax(worst_b, fabs(sb - vb) / fmax(1, fabs(vb)));
        worst_d = fmax(worst_d, fabs(sd - vd) / fmax(1, fabs(vd)));
      }
    for (int i = 0; i < n; i++) { /* exactly the Kronecker delta at the nodes */
      lagrange_eval(n, g, g[i], val, NULL);
      for (int j = 0; j < n; j++) delta &= val[j] == (i == j);
    }
  }
  tap_ok(!bad && worst_b < 1e-12, "B interpolates x^k, k < n, n = 2..11 (max error %.3g)",
         worst_b);
  tap_ok(!bad && worst_d < 1e-12, "D differentiates x^k, k < n, n = 2..11 (max error %.3g)",
         worst_d);
  tap_ok(delta, "Lagrange values at the nodes are exactly the Kronecker delta");
  const double twice[3] = {-1, 0.5, 0.5};
  tap_ok(basis_1d_matrices(3, twice, 1, xq, B, D) == FEMINT_EINVAL &&
             strstr(femint_thread_error(), "nodes 1 and 2"),
         "basis_1d_matrices refuses coinciding nodes (\"%s\")", femint_thread_error());
}

/* The reference coordinates of function i's node from its metadata and the documented
 * conventions: the node k of an edge (face: (i1, i2)) is the k-th GLL point from the edge's first
 * vertex (the face's v0) along the edge (the face's axes v0 -> v1, v0 -> v3). */
static void node_point(const struct refel_mode *m, int p, const double *g, int interior_pos,
                       double *xi)
{
  const double *v0, *v1, *v3;
  double s1 = 0, s2 = 0;
  switch (m->kind) {
  case MODE_VERTEX: memcpy(xi, vert_xi[m->entity], sizeof(double) * 3); return;
  case MODE_EDGE:
    v0 = vert_xi[edge_vert[m->entity][0]];
    v1 = v3 = vert_xi[edge_vert[m->entity][1]];
    s1 = (g[m->i1] + 1) / 2;
    break;
  case MODE_FACE:
    v0 = vert_xi[face_vert[m->entity][0]];
    v1 = vert_xi[face_vert[m->entity][1]];
    v3 = vert_xi[face_vert[m->entity][3]];
    s1 = (g[m->i1] + 1) / 2;
    s2 = (g[m->i2] + 1) / 2;
    break;
  default: /* xi slowest: the position in the interior block gives the zeta index */
    xi[0] = g[m->i1];
    xi[1] = g[m->i2];
    xi[2] = g[interior_pos % (p - 1) + 1];
    return;
  }
  for (int d = 0; d < 3; d++) xi[d] = v0[d] + s1 * (v1[d] - v0[d]) + s2 * (v3[d] - v0[d]);
}

static double val[4 * NSH_MAX], vp[4 * NSH_MAX], vm[4 * NSH_MAX];

/* The metadata in the documented order: kinds, entities, indices, ranks, degrees. */
static int check_modes(const struct refel *re, int p)
{
  const int m = p - 1, nent[4] = {8, 12, 6, 1}, per[4] = {1, m, m * m, m * m * m};
  int i = 0, ok = 1;
  for (int kind = 0; kind < 4; kind++) {
    ok &= refel_hex_entity_nmodes(kind, p) == per[kind];
    for (int r = 0; r < nent[kind] * per[kind] && i < re->nsh; r++, i++) {
      const struct refel_mode *md = &re->mode[i];
      const int entity = kind == MODE_INTERIOR ? 0 : r / per[kind], rank = r % per[kind];
      int i1 = 0, i2 = 0;
      if (kind == MODE_EDGE) i1 = rank + 1;
      if (kind == MODE_FACE) i1 = rank % m + 1, i2 = rank / m + 1;
      if (kind == MODE_INTERIOR) i1 = rank / (m * m) + 1, i2 = rank / m % m + 1;
      /* struct refel_mode's rank is an int8_t: larger interior ranks are stored as -1. */
      const int stored = rank <= INT16_MAX ? rank : -1;
      ok &= md->kind == kind && md->entity == entity && md->degree == p && md->i1 == i1 &&
            md->i2 == i2 && md->rank == stored && !md->hdeg && !md->vdeg && !md->level &&
            !md->type && !md->odd && !md->sorted && refel_hex_mode_rank(md, p) == stored &&
            refel_rank(re, md, p) == stored && refel_hex_mode_rank(md, 0) == -1;
    }
    ok &= refel_modes(re, kind, 0, p) == per[kind];
  }
  return ok && i == re->nsh && 8 + 12 * per[1] + 6 * per[2] + per[3] == re->nsh;
}

static void test_hex(int p)
{
  struct refel *re = NULL;
  TAP_CALL(NULL, refel_hex_create(p, &re));
  const int nsh = re->nsh, nq = re->nq, n = p + 2;
  tap_ok(re->shape == FEMINT_HEX && re->family == FEMINT_H1 && re->order == p && re->dim == 3 &&
             nsh == (p + 1) * (p + 1) * (p + 1) && refel_hex_nsh(p) == nsh && re->nline == n &&
             nq == n * n * n && re->degree == 2 * n - 1 && re->ntri == 0,
         "p = %d: %d functions on %d points, degree %d per variable", p, nsh, nq, re->degree);
  tap_ok(check_modes(re, p), "p = %d: 8 + 12(p-1) + 6(p-1)^2 + (p-1)^3 modes in order, metadata",
         p);

  /* Kronecker at the nodes placed from the metadata: checks the values and the order. */
  double g[PMAX + 1], gw[PMAX + 1], kron = 0;
  gll_nodes(p + 1, g, gw);
  const int first_interior = nsh - (p - 1) * (p - 1) * (p - 1);
  for (int i = 0; i < nsh; i++) {
    double xi[3];
    node_point(&re->mode[i], p, g, i - first_interior, xi);
    refel_hex_eval(p, xi, val);
    for (int j = 0; j < nsh; j++) kron = fmax(kron, fabs(val[j] - (i == j)));
  }
  tap_ok(kron < 1e-12, "p = %d: function i is 1 at node i and 0 at the others (%.3g)", p, kron);

  /* The rule: tensor points and weights, partition of unity, tables = refel_hex_eval. */
  double x[PMAX + 2], w[PMAX + 2], wsum = 0, unity = 0, dsum = 0, table = 0, single = 0;
  quad_gauss_legendre(n, x, w);
  int tensor = 1;
  for (int q = 0; q < nq; q++) {
    const int i = q / (n * n), j = q / n % n, k = q % n;
    const double *xq = re->xq + 3 * q;
    tensor &= xq[0] == x[i] && xq[1] == x[j] && xq[2] == x[k] && re->wq[q] == w[i] * w[j] * w[k];
    wsum += re->wq[q];
    const double *phi = re->phi + (size_t)q * 4 * nsh;
    for (int d = 0; d < 4; d++) {
      double s = 0;
      for (int f = 0; f < nsh; f++) s += phi[d * nsh + f];
      if (d == 0) unity = fmax(unity, fabs(s - 1));
      else dsum = fmax(dsum, fabs(s));
    }
    for (size_t s = 0; s < 4 * (size_t)nsh; s++)
      single = fmax(single, fabs(re->phi_f[(size_t)q * 4 * nsh + s] - (float)phi[s]));
    if (q % 97 == 0) {
      refel_hex_eval(p, xq, val);
      for (int s = 0; s < 4 * nsh; s++) table = fmax(table, fabs(val[s] - phi[s]));
    }
  }
  tap_ok(tensor && fabs(wsum - 8) < 1e-13, "p = %d: tensor Gauss rule, xi slowest, sum w = 8", p);
  tap_ok(unity < 1e-12 && dsum < 1e-10 && table < 1e-12 && single == 0,
         "p = %d: partition of unity %.2g, derivative sums %.2g, tables = eval %.2g, floats", p,
         unity, dsum, table);

  /* A product monomial of even degrees up to the rule's in each variable is exact (odd ones
   * vanish by symmetry), x^(degree + 1) is not. */
  const int a = re->degree - 1, b = re->degree - 1, c = 2;
  double s_in = 0, s_out = 0;
  for (int q = 0; q < nq; q++) {
    const double *xq = re->xq + 3 * q;
    s_in += re->wq[q] * ipow(xq[0], a) * ipow(xq[1], b) * ipow(xq[2], c);
    s_out += re->wq[q] * ipow(xq[0], a + 2) * ipow(xq[1], b) * ipow(xq[2], c);
  }
  /* Relative errors: past 10 points, Gauss's error on x^2n is small (2e-6 at n = 12). */
  const double in = line_exact(a) * line_exact(b) * line_exact(c),
               out = line_exact(a + 2) * line_exact(b) * line_exact(c);
  const double e_in = fabs(s_in - in) / in, e_out = fabs(s_out - out) / out;
  tap_ok(e_in < 1e-13 && e_out > 1e-9, "p = %d: x^%d y^%d z^%d exact (%.2g), x^%d not (%.2g)", p,
         a, b, c, e_in, a + 2, e_out);

  /* Derivative tables against central differences of the values at a few points. */
  const double h = 1e-6;
  double fd = 0, scale = 1;
  for (int q = 0; q < nq; q += nq / 5 + 1) {
    const double *phi = re->phi + (size_t)q * 4 * nsh;
    for (int d = 0; d < 3; d++) {
      double xp[3], xm[3];
      memcpy(xp, re->xq + 3 * q, sizeof xp);
      memcpy(xm, re->xq + 3 * q, sizeof xm);
      xp[d] += h;
      xm[d] -= h;
      refel_hex_eval(p, xp, vp);
      refel_hex_eval(p, xm, vm);
      for (int f = 0; f < nsh; f++) {
        scale = fmax(scale, fabs(phi[(d + 1) * nsh + f]));
        fd = fmax(fd, fabs((vp[f] - vm[f]) / (2 * h) - phi[(d + 1) * nsh + f]));
      }
    }
  }
  tap_ok(fd < 1e-6 * scale, "p = %d: derivatives match central differences (%.2g of %.3g)", p, fd,
         scale);

  /* The dispatch and femint_refel_info. */
  struct femint_refel_info info;
  TAP_CALL(NULL, femint_refel_info(FEMINT_HEX, FEMINT_H1, p, &info));
  refel_eval(FEMINT_HEX, FEMINT_H1, p, re->xq, vp);
  tap_ok(info.nsh == nsh && info.nq == nq && info.degree == re->degree && info.tri_points == 0 &&
             info.line_points == n && refel_nsh(FEMINT_HEX, FEMINT_H1, p) == nsh &&
             !memcmp(vp, re->phi, sizeof(double) * 4 * nsh),
         "p = %d: femint_refel_info %d functions, %d points, degree %d; refel_nsh, refel_eval", p,
         info.nsh, info.nq, info.degree);
  refel_destroy(&re);
}

/* On its own GLL nodes (nline = p + 1) the element collocates: the values are the identity. */
static void test_lobatto_rule(int p)
{
  struct refel *re = NULL;
  TAP_CALL(NULL, refel_hex_create_rule(p, p + 1, 1, &re));
  double wsum = 0, ident = 0;
  for (int q = 0; q < re->nq; q++) {
    wsum += re->wq[q];
    for (int f = 0; f < re->nsh; f++) {
      const double v = re->phi[(size_t)q * 4 * re->nsh + f];
      /* q and f list the same nodes in different orders: each row has a single 1 */
      ident = fmax(ident, fmin(fabs(v), fabs(v - 1)));
    }
  }
  tap_ok(re->degree == 2 * p - 1 && re->nq == (p + 1) * (p + 1) * (p + 1) &&
             fabs(wsum - 8) < 1e-13 && ident == 0,
         "p = %d on its GLL nodes: degree %d, sum w = 8, values 0 or 1", p, re->degree);
  refel_destroy(&re);
}

static void test_refusals(void)
{
  struct refel dummy, *re = &dummy; /* not NULL: create must reset it */
  struct femint_refel_info info;
  int ok = refel_hex_nsh(0) == FEMINT_EORDER && refel_hex_nsh(PMAX + 1) == FEMINT_EORDER;
  ok &= refel_hex_create(PMAX + 1, &re) == FEMINT_EORDER && !re;
  ok &= strstr(femint_thread_error(), "order 11") != NULL;
  tap_ok(ok, "orders 0 and 11 refused with FEMINT_EORDER (\"%s\")", femint_thread_error());
  ok = refel_hex_create(0, &re) == FEMINT_EORDER;
  ok &= refel_hex_create_rule(2, 0, 0, &re) == FEMINT_EORDER;
  ok &= refel_hex_create_rule(2, 33, 0, &re) == FEMINT_EORDER;
  ok &= refel_hex_create_rule(2, 1, 1, &re) == FEMINT_EORDER;
  ok &= refel_hex_create_rule(2, GLL_MAX + 1, 1, &re) == FEMINT_EORDER;
  ok &= refel_hex_create_rule(2, 4, 2, &re) == FEMINT_EINVAL && !re;
  tap_ok(ok, "bad rules refused: Gauss nline 0 and 33, GLL 1 and 34, lobatto 2");
  ok = refel_create(FEMINT_HEX, FEMINT_HCURL, 1, &re) == FEMINT_ENOTSUP;
  ok &= femint_refel_info(FEMINT_HEX, FEMINT_HCURL, 1, &info) == FEMINT_ENOTSUP;
  ok &= strstr(femint_thread_error(), "hexahedron") != NULL;
  ok &= femint_refel_info(FEMINT_HEX, FEMINT_H1, 0, &info) == FEMINT_EORDER;
  ok &= femint_refel_info(FEMINT_HEX, FEMINT_H1, PMAX + 1, &info) == FEMINT_EORDER;
  ok &= femint_refel_max_order(FEMINT_HEX, FEMINT_H1) == PMAX &&
        femint_refel_max_order(FEMINT_HEX, FEMINT_HCURL) == 0;
  tap_ok(ok, "the hexahedron has no H(curl) space and orders 1..%d only (\"%s\")", PMAX,
         femint_thread_error());
  ok = refel_create(FEMINT_HEX, FEMINT_H1, 2, &re) == 0 && re && re->shape == FEMINT_HEX;
  refel_destroy(&re);
  tap_ok(ok, "refel_create dispatches FEMINT_HEX to the hexahedron");
}

int main(void)
{
  srand48(109);
  int topo = !memcmp(vert_xi, hex_vert_xi, sizeof vert_xi) &&
             !memcmp(edge_vert, hex_edge_vert, sizeof edge_vert) &&
             !memcmp(face_vert, hex_face_vert, sizeof face_vert);
  tap_ok(topo, "the library's cube topology is the documented one");
  test_gll_closed_forms();
  test_gll_rules();
  test_gauss();
  test_1d_matrices();
  for (int p = 1; p <= PMAX; p++) test_hex(p);
  test_lobatto_rule(1);
  test_lobatto_rule(4);
  test_refusals();
  return tap_done();
}
