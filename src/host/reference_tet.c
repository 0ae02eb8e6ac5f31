/* The Maxwell element matrices of the H(curl) tetrahedron (seed 004's equations 6 and 7 with the
 * covariant map), kept plain and in double: the reference that tetrahedral kernels will be
 * checked against. The geometry is computed from the nodes at every point. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "refel_tet.h"

int tet_coef_scalar(double eps_r, double mu_r, struct tet_coef *k)
{
  FEMINT_CHECK(eps_r > 0 && isfinite(eps_r), NULL, FEMINT_EINVAL,
               "Maxwell coefficients: eps_r = %g, must be positive", eps_r);
  FEMINT_CHECK(mu_r > 0 && isfinite(mu_r), NULL, FEMINT_EINVAL,
               "Maxwell coefficients: mu_r = %g, must be positive", mu_r);
  memset(k, 0, sizeof *k);
  for (int d = 0; d < 3; d++) {
    k->eps[4 * d] = eps_r;
    k->nu[4 * d] = 1 / mu_r;
  }
  return 0;
}

/* 0 when A[9] is symmetric (to 1e-12 relative) with positive leading minors. */
static int check_spd(const double *A, const char *name)
{
  double amax = 0;
  for (int i = 0; i < 9; i++) amax = fmax(amax, fabs(A[i]));
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < i; j++)
      FEMINT_CHECK(fabs(A[3 * i + j] - A[3 * j + i]) <= 1e-12 * amax, NULL, FEMINT_EINVAL,
                   "Maxwell coefficients: %s is not symmetric (entry (%d,%d) = %g, (%d,%d) = %g)",
                   name, i, j, A[3 * i + j], j, i, A[3 * j + i]);
  const double m1 = A[0], m2 = A[0] * A[4] - A[1] * A[3];
  const double m3 = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
                    A[2] * (A[3] * A[7] - A[4] * A[6]);
  FEMINT_CHECK(m1 > 0 && m2 > 0 && m3 > 0 && isfinite(m3), NULL, FEMINT_EINVAL,
               "Maxwell coefficients: %s is not positive definite (leading minors %g, %g, %g)",
               name, m1, m2, m3);
  return 0;
}

int tet_coef_tensor(const double *eps_r, const double *mu_r, struct tet_coef *k)
{
  FEMINT_CALL(check_spd(eps_r, "eps_r"));
  FEMINT_CALL(check_spd(mu_r, "mu_r"));
  memcpy(k->eps, eps_r, sizeof k->eps);
  geom_inverse3(mu_r, k->nu);
  return 0;
}

/* M += F^T A F for the 3 x nsh matrix F (component-major, as tabulated) and the 3 x 3 A; Y is a
 * scratch of 3 * nsh. */
static void add_congruence(int nsh, const double *F, const double *A, double *Y, double *M)
{
  for (int a = 0; a < 3; a++)
    for (int j = 0; j < nsh; j++)
      Y[a * nsh + j] = A[3 * a] * F[j] + A[3 * a + 1] * F[nsh + j] + A[3 * a + 2] * F[2 * nsh + j];
  for (int i = 0; i < nsh; i++)
    for (int j = 0; j < nsh; j++)
      M[(size_t)i * nsh + j] +=
          F[i] * Y[j] + F[nsh + i] * Y[nsh + j] + F[2 * nsh + i] * Y[2 * nsh + j];
}

void tet_congruence(double s, const double *P, const double *C, double *B)
{
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      double t = 0;
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) t += P[3 * a + i] * C[3 * i + j] * P[3 * b + j];
      B[3 * a + b] = s * t;
    }
}

/* The 3 x 3 matrices of point q: AT = w |det J| J^-1 eps J^-T, AS = (w / |det J|) J^T nu J. *sign
 * is set by point 0 and checked at the others: FEMINT_EJACOBIAN when det J vanishes or changes
 * sign. */
static int point_matrices(const struct refel *re, int q, int nnode, const double *X,
                          const struct tet_coef *k, double *sign, double *AT, double *AS)
{
  double J[9], K[9], JT[9];
  geom_tet_jacobian(nnode, X, &re->xq[3 * q], J);
  const double det = geom_inverse3(J, K);
  if (q == 0) *sign = det < 0 ? -1 : 1;
  FEMINT_CHECK(*sign * det > 0, NULL, FEMINT_EJACOBIAN,
               "tetrahedron integration: det J = %g at point %d (%g, %g, %g), sign %+g at point 0",
               det, q, re->xq[3 * q], re->xq[3 * q + 1], re->xq[3 * q + 2], *sign);
  const double adet = fabs(det);
  tet_congruence(re->wq[q] * adet, K, k->eps, AT);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) JT[3 * i + j] = J[3 * j + i];
  tet_congruence(re->wq[q] / adet, JT, k->nu, AS);
  return 0;
}

int tet_element_reference(const struct refel *re, int nnode, const double *X,
                          const struct tet_coef *k, double *T, double *S)
{
  FEMINT_CHECK(nnode == 4 || nnode == 10, NULL, FEMINT_EINVAL,
               "tetrahedron integration: %d nodes (4 or 10 supported)", nnode);
  const int nsh = re->nsh;
  double *Y = malloc(sizeof(double) * 3 * nsh);
  if (!Y) return femint_seterr(NULL, FEMINT_ENOMEM, "tetrahedron integration: out of memory");
  if (T) memset(T, 0, sizeof(double) * nsh * nsh);
  if (S) memset(S, 0, sizeof(double) * nsh * nsh);
  double sign = 0;
  for (int q = 0; q < re->nq; q++) {
    double AT[9], AS[9];
    const int err = point_matrices(re, q, nnode, X, k, &sign, AT, AS);
    if (err) {
      free(Y);
      return err;
    }
    const size_t at = (size_t)q * 3 * nsh;
    if (T) add_congruence(nsh, re->val + at, AT, Y, T);
    if (S) add_congruence(nsh, re->curl + at, AS, Y, S);
  }
  free(Y);
  return 0;
}
