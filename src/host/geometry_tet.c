/* The geometric map of a tetrahedron with 4 (affine) or 10 (quadratic, curved edges and faces)
 * nodes: points, Jacobians, and the check that det J keeps one sign on the whole cell. */
#include <math.h>

#include "refel_simplex.h"

int geom_tet_nodes(int nnode, const double xi[3], double *N, double *dN)
{
  FEMINT_CHECK(nnode == 4 || nnode == 10, NULL, FEMINT_EINVAL,
               "tetrahedron geometry: %d nodes (4 or 10 supported)", nnode);
  geom_simplex_nodes(3, nnode, xi, N, dN);
  return 0;
}

void geom_tet_point(int nnode, const double *X, const double xi[3], double *x)
{
  double N[10];
  x[0] = x[1] = x[2] = 0;
  if (!geom_tet_nodes(nnode, xi, N, NULL)) geom_nodal(3, nnode, X, N, NULL, x, NULL);
}

double geom_tet_jacobian(int nnode, const double *X, const double xi[3], double *J)
{
  double dN[30];
  if (geom_tet_nodes(nnode, xi, NULL, dN)) return NAN;
  return geom_nodal(3, nnode, X, NULL, dN, NULL, J);
}

#define CHECK_LATTICE 8
#define CHECK_MARGIN 1e-12

/* Record det J at xi into rep; returns orientation * det J. */
static double signed_det(int nnode, const double *X, const double xi[3],
                         struct geom_tet_report *rep, double *scale)
{
  double J[9];
  const double det = geom_tet_jacobian(nnode, X, xi, J), s = rep->orientation * det;
  *scale = fmax(*scale, fabs(det));
  if (!(s >= rep->detmin)) {
    rep->detmin = s;
    for (int i = 0; i < 3; i++) rep->xi[i] = xi[i];
  }
  return s;
}

int geom_tet_check(const struct refel *re, int nnode, const double *X,
                   struct geom_tet_report *rep)
{
  FEMINT_CHECK(nnode == 4 || nnode == 10, NULL, FEMINT_EINVAL,
               "tetrahedron geometry: %d nodes (4 or 10 supported)", nnode);
  static const double centroid[3] = {0.25, 0.25, 0.25};
  double J[9], scale = 0;
  const double det0 = geom_tet_jacobian(nnode, X, centroid, J);
  struct geom_tet_report r = {det0 < 0 ? -1 : 1, INFINITY, {0.25, 0.25, 0.25}};
  if (re)
    for (int q = 0; q < re->nq; q++) signed_det(nnode, X, &re->xq[3 * q], &r, &scale);
  /* an affine cell has one det J; a quadratic one, a quadratic det J checked on a lattice */
  if (nnode == 4) signed_det(nnode, X, centroid, &r, &scale);
  else
    for (int i = 0; i <= CHECK_LATTICE; i++)
      for (int j = 0; i + j <= CHECK_LATTICE; j++)
        for (int k = 0; i + j + k <= CHECK_LATTICE; k++) {
          const double xi[3] = {(double)i / CHECK_LATTICE, (double)j / CHECK_LATTICE,
                                (double)k / CHECK_LATTICE};
          signed_det(nnode, X, xi, &r, &scale);
        }
  if (rep) *rep = r;
  FEMINT_CHECK(r.detmin > CHECK_MARGIN * scale, NULL, FEMINT_EJACOBIAN,
               "tetrahedron: det J = %g at (%g, %g, %g) against %g at the centroid: the map "
               "folds or degenerates",
               r.orientation * r.detmin, r.xi[0], r.xi[1], r.xi[2], det0);
  return 0;
}
