/* The geometric map of a triangle with 3 (affine) or 6 (quadratic, curved edges) nodes: points,
 * Jacobians, and the check that det J keeps one sign on the whole cell. */
#include <math.h>

#include "refel_simplex.h"

int geom_tri_nodes(int nnode, const double xi[2], double *N, double *dN)
{
  FEMINT_CHECK(nnode == 3 || nnode == 6, NULL, FEMINT_EINVAL,
               "triangle geometry: %d nodes (3 or 6 supported)", nnode);
  geom_simplex_nodes(2, nnode, xi, N, dN);
  return 0;
}

void geom_tri_point(int nnode, const double *X, const double xi[2], double *x)
{
  double N[6];
  x[0] = x[1] = 0;
  if (!geom_tri_nodes(nnode, xi, N, NULL)) geom_nodal(2, nnode, X, N, NULL, x, NULL);
}

double geom_tri_jacobian(int nnode, const double *X, const double xi[2], double *J)
{
  double dN[12];
  if (geom_tri_nodes(nnode, xi, NULL, dN)) return NAN;
  return geom_nodal(2, nnode, X, NULL, dN, NULL, J);
}

#define CHECK_LATTICE 12
#define CHECK_MARGIN 1e-12

int geom_tri_check(int nnode, const double *X, struct geom_tet_report *rep)
{
  FEMINT_CHECK(nnode == 3 || nnode == 6, NULL, FEMINT_EINVAL,
               "triangle geometry: %d nodes (3 or 6 supported)", nnode);
  const double centroid[2] = {1.0 / 3, 1.0 / 3};
  double J[4], scale = 0;
  const double det0 = geom_tri_jacobian(nnode, X, centroid, J);
  struct geom_tet_report r = {det0 < 0 ? -1 : 1, INFINITY, {centroid[0], centroid[1], 0}};
  /* an affine cell has one det J; a quadratic one, a quadratic det J checked on a lattice */
  const int n = nnode == 3 ? 1 : CHECK_LATTICE;
  for (int i = 0; i <= n; i++)
    for (int j = 0; i + j <= n; j++) {
      const double xi[2] = {nnode == 3 ? centroid[0] : (double)i / n,
                            nnode == 3 ? centroid[1] : (double)j / n};
      const double det = geom_tri_jacobian(nnode, X, xi, J), s = r.orientation * det;
      scale = fmax(scale, fabs(det));
      if (!(s >= r.detmin)) {
        r.detmin = s;
        r.xi[0] = xi[0];
        r.xi[1] = xi[1];
      }
    }
  if (rep) *rep = r;
  /* the scale of a sound cell: its edges' lengths squared */
  double len2 = 0;
  for (int e = 0; e < TRI_NE; e++) {
    const double *a = &X[2 * tri_edge_vert[e][0]], *b = &X[2 * tri_edge_vert[e][1]];
    len2 = fmax(len2, (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]));
  }
  FEMINT_CHECK(isfinite(scale) && r.detmin > CHECK_MARGIN * fmax(scale, len2), NULL,
               FEMINT_EJACOBIAN,
               "triangle: det J = %g at (%g, %g) against %g at the centroid: the map folds or "
               "degenerates",
               r.orientation * r.detmin, r.xi[0], r.xi[1], det0);
  return 0;
}
