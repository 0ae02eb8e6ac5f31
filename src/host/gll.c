/* The 1D machinery of the Lagrange hexahedron: Gauss-Lobatto-Legendre nodes and weights, the
 * Lagrange polynomials through a set of nodes, and the interpolation and differentiation
 * matrices of sum factorization (refel_hex.h). */
#include <math.h>

#include "refel_hex.h"

/* P_m(x) by the three-term recurrence, with P_{m-1}(x) and P_m'(x) (P'_{k+1} = P'_{k-1} +
 * (2k+1) P_k, valid at the end points too). m >= 1. */
static void legendre_pd(int m, double x, double *p, double *pm1, double *dp)
{
  double p0 = 1, p1 = x, d0 = 0, d1 = 1;
  for (int k = 1; k < m; k++) {
    const double p2 = ((2 * k + 1) * x * p1 - k * p0) / (k + 1);
    const double d2 = d0 + (2 * k + 1) * p1;
    p0 = p1;
    p1 = p2;
    d0 = d1;
    d1 = d2;
  }
  *p = p1;
  *pm1 = p0;
  *dp = d1;
}

int gll_nodes(int n, double *x, double *w)
{
  FEMINT_CHECK(n >= 2 && n <= GLL_MAX, NULL, FEMINT_EORDER,
               "Gauss-Lobatto-Legendre rule of %d points requested (2..%d supported)", n,
               GLL_MAX);
  const int m = n - 1; /* the interior nodes are the roots of P_m' */
  x[0] = -1;
  x[m] = 1;
  /* The lower half from the Chebyshev-Gauss-Lobatto guesses -cos(pi i / m), which lie within
   * the spacing of the roots, by Newton's method on P_m'; (1 - x^2) P_m'' = 2x P_m' - m(m+1) P_m
   * gives the second derivative. Iterate until the step is at rounding level, then once more;
   * the upper half is the mirror image, so that the rule is exactly symmetric. */
  for (int i = 1; i < (m + 1) / 2; i++) {
    double z = -cos(M_PI * i / m);
    int extra = 0;
    for (int it = 0; it < 100 && extra < 2; it++) {
      double p, pm1, dp;
      legendre_pd(m, z, &p, &pm1, &dp);
      const double dz = dp * (1 - z * z) / (2 * z * dp - m * (m + 1) * p);
      z -= dz;
      if (fabs(dz) <= 1e-15) extra++;
    }
    x[i] = z;
    x[m - i] = -z;
  }
  if (m % 2 == 0) x[m / 2] = 0;
  for (int i = 0; i < n; i++) {
    double p, pm1, dp;
    legendre_pd(m, x[i], &p, &pm1, &dp);
    w[i] = 2.0 / (m * (m + 1) * p * p);
  }
  return 0;
}

void lagrange_eval(int n, const double *nodes, double t, double *val, double *der)
{
  /* l_j(t) = prod_{m != j} r_m with r_m = (t - x_m) / (x_j - x_m), built factor by factor with
   * its derivative (r_m' = 1 / (x_j - x_m)). At t = x_j every factor is a/a = 1 exactly, and at
   * another node one factor is 0: the values are the Kronecker delta there without rounding. */
  for (int j = 0; j < n; j++) {
    double v = 1, d = 0;
    for (int m = 0; m < n; m++) {
      if (m == j) continue;
      const double den = nodes[j] - nodes[m];
      const double r = (t - nodes[m]) / den;
      d = d * r + v / den;
      v *= r;
    }
    val[j] = v;
    if (der) der[j] = d;
  }
}

int basis_1d_matrices(int n, const double *nodes, int nq, const double *xq, double *B, double *D)
{
  FEMINT_CHECK(n >= 1 && nq >= 0, NULL, FEMINT_EINVAL,
               "basis_1d_matrices: %d nodes and %d points (at least 1 node, no negative count)",
               n, nq);
  for (int j = 0; j < n; j++)
    for (int m = 0; m < j; m++)
      FEMINT_CHECK(nodes[j] != nodes[m], NULL, FEMINT_EINVAL,
                   "basis_1d_matrices: nodes %d and %d coincide (%.17g)", m, j, nodes[j]);
  for (int q = 0; q < nq; q++)
    lagrange_eval(n, nodes, xq[q], B + (size_t)q * n, D ? D + (size_t)q * n : NULL);
  return 0;
}
