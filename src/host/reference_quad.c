/* 2D forms on the quadrilateral (plane elasticity of seed 003, the Laplacian, the mass) as generic
 * coefficients c[ne][ne][3][3], and their element matrices by Algorithm 1 of seed 000, kept plain:
 * the reference that quadrilateral kernels will be checked against. */
#include <stdlib.h>
#include <string.h>

#include "refel_quad.h"

int quad_material_matrix(int plane, double young, double poisson, double *D)
{
  FEMINT_CHECK(plane == QUAD_PLANE_STRESS || plane == QUAD_PLANE_STRAIN, NULL, FEMINT_EINVAL,
               "plane elasticity: unknown plane %d (stress 0, strain 1)", plane);
  FEMINT_CHECK(young > 0, NULL, FEMINT_EINVAL, "plane elasticity: Young's modulus %g, must be > 0",
               young);
  FEMINT_CHECK(poisson > -1 && poisson < 0.5, NULL, FEMINT_EINVAL,
               "plane elasticity: Poisson ratio %g, must be in (-1, 0.5)", poisson);
  const double E = young, nu = poisson;
  double a, b, g;
  if (plane == QUAD_PLANE_STRESS) {
    a = E / (1 - nu * nu);
    b = a * nu;
    g = a * (1 - nu) / 2;
  } else {
    const double f = E / ((1 + nu) * (1 - 2 * nu));
    a = f * (1 - nu);
    b = f * nu;
    g = f * (1 - 2 * nu) / 2;
  }
  const double m[9] = {a, b, 0, b, a, 0, 0, 0, g};
  memcpy(D, m, sizeof m);
  return 0;
}

void quad_coef_voigt(const double *D, double *c)
{
  /* eps_k = sum B[k][e][d] d u_e / d x_d: eps_xx = u0,x, eps_yy = u1,y, gamma_xy = u0,y + u1,x. */
  static const double B[3][2][2] = {{{1, 0}, {0, 0}}, {{0, 0}, {0, 1}}, {{0, 1}, {1, 0}}};
  memset(c, 0, QUAD_NCOEF(2) * sizeof *c);
  for (int iE = 0; iE < 2; iE++)
    for (int jE = 0; jE < 2; jE++)
      for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
          double s = 0;
          for (int k = 0; k < 3; k++)
            for (int l = 0; l < 3; l++) s += B[k][iE][a] * D[3 * k + l] * B[l][jE][b];
          c[((iE * 2 + jE) * 3 + 1 + a) * 3 + 1 + b] = s;
        }
}

int quad_coef_elasticity(int plane, double young, double poisson, double *c)
{
  double D[9];
  FEMINT_CALL(quad_material_matrix(plane, young, poisson, D));
  quad_coef_voigt(D, c);
  return 0;
}

void quad_coef_laplace(int ne, double kappa, double *c)
{
  memset(c, 0, QUAD_NCOEF(ne) * sizeof *c);
  for (int e = 0; e < ne; e++)
    for (int d = 1; d <= 2; d++) c[((e * ne + e) * 3 + d) * 3 + d] = kappa;
}

void quad_coef_mass(int ne, double rho, double *c)
{
  memset(c, 0, QUAD_NCOEF(ne) * sizeof *c);
  for (int e = 0; e < ne; e++) c[(e * ne + e) * 9] = rho;
}

int integrate_quad_reference(const struct refel *re, int nnode, const double *X, int ne,
                             const double *c, int storage, double *A)
{
  FEMINT_CHECK(re && re->shape == FEMINT_QUAD && re->dim == 2, NULL, FEMINT_EINVAL,
               "quadrilateral integration: the reference element is not a quadrilateral");
  FEMINT_CHECK(nnode == 4 || nnode == 8, NULL, FEMINT_EINVAL,
               "quadrilateral integration: %d nodes (4 or 8 supported)", nnode);
  FEMINT_CHECK(ne >= 1 && ne <= 5, NULL, FEMINT_EINVAL,
               "quadrilateral integration: %d components (1..5 supported)", ne);
  FEMINT_CHECK(storage == QUAD_STORE_FULL || storage == QUAD_STORE_UPPER, NULL, FEMINT_EINVAL,
               "quadrilateral integration: unknown storage %d", storage);
  const int nsh = re->nsh, n = nsh * ne, upper = storage == QUAD_STORE_UPPER;
  double *psi = malloc((size_t)3 * nsh * sizeof *psi);
  if (!psi) return femint_seterr(NULL, FEMINT_ENOMEM, "quadrilateral integration: out of memory");
  memset(A, 0, (upper ? (size_t)n * (n + 1) / 2 : (size_t)n * n) * sizeof *A);
  for (int q = 0; q < re->nq; q++) {
    const double *phi = re->phi + (size_t)q * 3 * nsh;
    double J[4], K[4];
    geom_quad_jacobian(nnode, X, &re->xq[2 * q], J);
    const double det = geom_inverse2(J, K);
    if (!(det > 0)) {
      free(psi);
      return femint_seterr(NULL, FEMINT_EJACOBIAN,
                           "quadrilateral integration: non-positive Jacobian %g at point %d", det,
                           q);
    }
    /* Values and physical derivatives d/dx_d = sum_j dxi_j/dx_d d/dxi_j. */
    for (int i = 0; i < nsh; i++) {
      psi[i] = phi[i];
      for (int d = 0; d < 2; d++)
        psi[(1 + d) * nsh + i] = phi[nsh + i] * K[d] + phi[2 * nsh + i] * K[2 + d];
    }
    const double dw = det * re->wq[q];
    for (int idof = 0; idof < nsh; idof++)
      for (int jdof = 0; jdof < nsh; jdof++)
        for (int iD = 0; iD < 3; iD++)
          for (int jD = 0; jD < 3; jD++)
            for (int iE = 0; iE < ne; iE++)
              for (int jE = 0; jE < ne; jE++) {
                const int r = idof * ne + iE, col = jdof * ne + jE;
                if (upper && col < r) continue;
                const size_t at = upper ? quad_packed_index(n, r, col) : (size_t)r * n + col;
                A[at] += dw * c[((iE * ne + jE) * 3 + iD) * 3 + jD] * psi[iD * nsh + idof] *
                         psi[jD * nsh + jdof];
              }
  }
  free(psi);
  return 0;
}
