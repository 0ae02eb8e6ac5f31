/* The map of a hexahedron with straight edges (trilinear, 8 nodes) and the certificate that its
 * Jacobian determinant stays positive over the whole cell. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "refel_hex.h"

/* The 8 trilinear functions and their reference derivatives at xi: N[a], dN[3*a + j]. */
static void trilinear(const double xi[3], double *N, double *dN)
{
  for (int a = 0; a < HEX_NV; a++) {
    const double *v = hex_vert_xi[a];
    const double f[3] = {0.5 * (1 + v[0] * xi[0]), 0.5 * (1 + v[1] * xi[1]),
                         0.5 * (1 + v[2] * xi[2])};
    N[a] = f[0] * f[1] * f[2];
    dN[3 * a] = 0.5 * v[0] * f[1] * f[2];
    dN[3 * a + 1] = 0.5 * v[1] * f[0] * f[2];
    dN[3 * a + 2] = 0.5 * v[2] * f[0] * f[1];
  }
}

void geom_hex_point(const double *X, const double xi[3], double *x)
{
  double N[HEX_NV], dN[3 * HEX_NV];
  trilinear(xi, N, dN);
  for (int i = 0; i < 3; i++) {
    x[i] = 0;
    for (int a = 0; a < HEX_NV; a++) x[i] += N[a] * X[3 * a + i];
  }
}

double geom_hex_jacobian(const double *X, const double xi[3], double *J)
{
  double N[HEX_NV], dN[3 * HEX_NV];
  trilinear(xi, N, dN);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double s = 0;
      for (int a = 0; a < HEX_NV; a++) s += X[3 * a + i] * dN[3 * a + j];
      J[3 * i + j] = s;
    }
  return J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
         J[2] * (J[3] * J[7] - J[4] * J[6]);
}

/* det J of a trilinear map is a polynomial of degree 2 in each variable. On the sub-box [lo,
 * lo + h] of the reference cube (in [0,1]^3 coordinates) its tensor Bernstein coefficients
 * follow from its values at the 27 points {0, 1/2, 1}^3 of the sub-box: in 1D b0 = f(0),
 * b1 = 2 f(1/2) - (f(0) + f(1)) / 2, b2 = f(1). All coefficients positive certify det J > 0 on
 * the sub-box (the polynomial is their convex combination); a value <= 0 disproves it; else the
 * sub-box is split in 8, down to a depth where the cell is called invalid. */
#define HEX_CERT_DEPTH 6

static int certify(const double *X, const double lo[3], double h, int depth, double *dmin,
                   double xi_min[3])
{
  double f[27], J[9];
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      for (int c = 0; c < 3; c++) {
        const double xi[3] = {2 * (lo[0] + 0.5 * h * a) - 1, 2 * (lo[1] + 0.5 * h * b) - 1,
                              2 * (lo[2] + 0.5 * h * c) - 1};
        const double d = geom_hex_jacobian(X, xi, J);
        f[(a * 3 + b) * 3 + c] = d;
        if (!(d >= *dmin)) {
          *dmin = d;
          memcpy(xi_min, xi, sizeof xi);
        }
      }
  if (!(*dmin > 0)) return 0;
  /* To Bernstein coefficients, one direction after the other (stride 9, 3, 1). */
  for (int s = 9; s >= 1; s /= 3)
    for (int k = 0; k < 27; k++) {
      const int digit = (k / s) % 3;
      if (digit != 1) continue;
      f[k] = 2 * f[k] - 0.5 * (f[k - s] + f[k + s]);
    }
  double bmin = f[0];
  for (int k = 1; k < 27; k++) bmin = fmin(bmin, f[k]);
  if (bmin > 0) return 1;
  if (depth == HEX_CERT_DEPTH) return 0;
  for (int o = 0; o < 8; o++) {
    const double sub[3] = {lo[0] + 0.5 * h * (o & 1), lo[1] + 0.5 * h * (o >> 1 & 1),
                           lo[2] + 0.5 * h * (o >> 2 & 1)};
    if (!certify(X, sub, 0.5 * h, depth + 1, dmin, xi_min)) return 0;
  }
  return 1;
}

int geom_hex_check(int nnode, const double *X, double *det, double xi[3])
{
  double dmin = INFINITY, at[3] = {0, 0, 0};
  static const double origin[3] = {0, 0, 0};
  const int ok = nnode == HEX_NV && certify(X, origin, 1.0, 0, &dmin, at);
  if (det) *det = dmin;
  if (xi) memcpy(xi, at, sizeof at);
  if (ok) return 0;
  if (nnode != HEX_NV)
    return femint_seterr(NULL, FEMINT_ENOTSUP, "a hexahedron has 8 geometric nodes, not %d",
                         nnode);
  if (dmin > 0)
    return femint_seterr(NULL, FEMINT_EJACOBIAN,
                         "det J could not be shown positive over the cell (the smallest value "
                         "found, %g at reference point (%g,%g,%g), is positive but too close to "
                         "zero)",
                         dmin, at[0], at[1], at[2]);
  return femint_seterr(NULL, FEMINT_EJACOBIAN,
                       "det J = %g at reference point (%g,%g,%g): the cell is tangled or its "
                       "vertices are not in Gmsh's order (bottom face counter-clockwise seen from "
                       "above, then the top face)",
                       dmin, at[0], at[1], at[2]);
}
