/* Test: the symmetric tetrahedral rules are exact to their degree and not beyond, positive, inside,
 * and invariant under the 24 permutations of the tetrahedron's vertices. */
#include "tet_common.h"

#define MAX_DEGREE 14

/* Whether the point set with its weights maps onto itself under every permutation of the
 * barycentric coordinates (l0, l1, l2, l3) = (1 - x - y - z, x, y, z); the largest distance from
 * an image to the nearest point of the same weight goes to *dist. */
static int permutation_invariant(int n, const double *x, const double *w, double *dist)
{
  int ok = 1;
  for (int perm = 0; perm < 256; perm++) {
    const int idx[4] = {perm >> 6, perm >> 4 & 3, perm >> 2 & 3, perm & 3};
    if ((1 << idx[0] | 1 << idx[1] | 1 << idx[2] | 1 << idx[3]) != 15) continue;
    for (int q = 0; q < n; q++) {
      const double *p = x + 3 * q;
      const double l[4] = {1 - p[0] - p[1] - p[2], p[0], p[1], p[2]};
      const double img[3] = {l[idx[1]], l[idx[2]], l[idx[3]]};
      double best = INFINITY;
      for (int r = 0; r < n; r++) {
        if (fabs(w[r] - w[q]) > 1e-15 * w[q]) continue;
        const double *o = x + 3 * r;
        const double d = fmax(fabs(o[0] - img[0]), fmax(fabs(o[1] - img[1]), fabs(o[2] - img[2])));
        best = fmin(best, d);
      }
      *dist = fmax(*dist, best);
      ok = ok && best < 1e-14;
    }
  }
  return ok;
}

int main(void)
{
  static const int want_points[MAX_DEGREE + 1] = {1,  1,  4,  8,   14,  14,  24, 35,
                                                  46, 59, 79, 96, 127, 149, 194};
  int bad_count = 0, bad_pts = 0, sym = 1, prev_degree = 0;
  double worst = 0, beyond = INFINITY, sum_err = 0, min_bary = INFINITY, dist = 0;
  for (int d = 0; d <= MAX_DEGREE; d++) {
    int n = 0, rd = 0;
    const double *x = NULL, *w = NULL;
    TAP_CALL(NULL, quad_tet_symmetric(d, &n, &x, &w, &rd));
    if (n != want_points[d] || rd < d || (d >= 1 && rd != d && !(d == 4 && rd == 5))) bad_count++;
    double sum = 0;
    for (int q = 0; q < n; q++) {
      const double *p = x + 3 * q;
      const double lmin = fmin(fmin(1 - p[0] - p[1] - p[2], p[0]), fmin(p[1], p[2]));
      min_bary = fmin(min_bary, lmin);
      if (!(w[q] > 0 && lmin > 0)) bad_pts++;
      sum += w[q];
    }
    sum_err = fmax(sum_err, fabs(sum - 1.0 / 6) * 6);
    /* Each rule once, at its own degree. */
    if (rd == prev_degree) continue;
    prev_degree = rd;
    for (int e = 0; e <= rd; e++) worst = fmax(worst, tet_rule_misfit(n, x, w, e));
    const double next = tet_rule_misfit(n, x, w, rd + 1);
    beyond = fmin(beyond, next);
    tap_diag("degree %2d: %3d points, misfit at degree %d: %.2g", rd, n, rd + 1, next);
    sym = permutation_invariant(n, x, w, &dist) && sym;
  }
  tap_ok(!bad_count, "degrees 0..14 get rules of 1, 1, 4, 8, 14, 14, 24, 35, 46, 59, 79, 96, 127, "
                     "149, 194 points, of the degree asked (5 for 4)");
  tap_ok(worst < 1e-14, "every monomial x^a y^b z^c of degree <= the rule's is exact (%.2g)",
         worst);
  tap_ok(beyond > 1e-8, "each rule misses some monomial of its degree + 1 (smallest misfit %.2g)",
         beyond);
  tap_ok(!bad_pts && sum_err < 1e-14,
         "positive weights summing to 1/6 (%.2g), every point strictly inside (smallest "
         "barycentric coordinate %.2g)",
         sum_err, min_bary);
  tap_ok(sym, "the 24 vertex permutations map each rule's points onto points of the same weight "
              "(%.2g)",
         dist);
  int n;
  const double *x, *w;
  tap_ok(quad_tet_symmetric(MAX_DEGREE + 1, &n, &x, &w, NULL) == FEMINT_EORDER,
         "degree 15 is refused (FEMINT_EORDER)");

  /* The H(curl) tetrahedron of order p tabulates the rule of degree 2p + 4 by default. */
  int same = 1;
  for (int p = 1; p <= 3; p++) {
    struct refel *re = NULL;
    TAP_CALL(NULL, refel_tet_create(p, &re));
    TAP_CALL(NULL, quad_tet_symmetric(2 * p + 4, &n, &x, &w, NULL));
    same = same && re->nq == n && re->degree == 2 * p + 4 && re->nline == 0 &&
           !memcmp(re->xq, x, sizeof(double) * 3 * n) && !memcmp(re->wq, w, sizeof(double) * n);
    refel_destroy(&re);
  }
  tap_ok(same, "refel_tet_create(p) tabulates the symmetric rule of degree 2p + 4 (24, 46, 79 "
               "points for p = 1, 2, 3)");
  return tap_done();
}
