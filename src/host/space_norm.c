/* The L2 distance between a finite element function and a given field over a set of cells: the
 * error measure of convergence studies, summed per rank in a distributed code. */
#include "mesh.h"
#include "refel_quad.h"

/* The most points of the line rule of space_norm; triangle rules stop at degree 14. */
#define NORM_MAX_LINE 9
#define NORM_MAX_TRI_DEGREE 14

/* The same on a quadrilateral: the tensor Gauss rule of p + 2 points per direction. */
static int quad_cell_error(femint_space_t s, const double *u, int cell, femint_field_fn exact,
                           void *user, double *sum)
{
  const int nc = s->ncomp, n = s->order[cell] + 2 < NORM_MAX_LINE ? s->order[cell] + 2
                                                                  : NORM_MAX_LINE;
  double gx[NORM_MAX_LINE], gw[NORM_MAX_LINE], X[16], J[4];
  FEMINT_CALL(quad_gauss_legendre(n, gx, gw));
  const int nnode = mesh_quad_nodes(s->mesh, cell, X);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      const double xi[2] = {gx[i], gx[j]};
      double x[3], uh[5], ue[5] = {0, 0, 0, 0, 0}, e2 = 0;
      FEMINT_CALL(femint_space_eval(s, u, cell, xi, x, uh));
      if (exact) exact(x, NULL, 0, user, ue);
      for (int k = 0; k < nc; k++) e2 += (uh[k] - ue[k]) * (uh[k] - ue[k]);
      *sum += gw[i] * gw[j] * geom_quad_jacobian(nnode, X, xi, J) * e2;
    }
  return 0;
}

/* sum over the quadrature points of one cell of w det J |u_h - exact|^2. */
static int cell_error(femint_space_t s, const double *u, int cell, femint_field_fn exact,
                      void *user, double *sum)
{
  if (s->mesh->topo->shape == FEMINT_QUAD) return quad_cell_error(s, u, cell, exact, user, sum);
  const int p = s->order[cell], nc = s->ncomp;
  /* Degree 2p + 2 so that |u_h - u|^2 of smooth fields is integrated beyond the element's own
   * rule (2p), where the triangle rules allow it. */
  int degree = 2 * p + 2, ntri, nline = p + 2;
  if (degree > NORM_MAX_TRI_DEGREE) degree = NORM_MAX_TRI_DEGREE;
  if (nline > NORM_MAX_LINE) nline = NORM_MAX_LINE;
  const double *txy, *tw;
  double lx[NORM_MAX_LINE], lw[NORM_MAX_LINE], X[18], J[9];
  FEMINT_CALL(quad_triangle(degree, &ntri, &txy, &tw));
  FEMINT_CALL(quad_gauss_legendre(nline, lx, lw));
  FEMINT_CALL(femint_mesh_cell_coords(s->mesh, cell, X));
  for (int t = 0; t < ntri; t++)
    for (int l = 0; l < nline; l++) {
      const double xi[3] = {txy[2 * t], txy[2 * t + 1], lx[l]};
      double x[3], uh[5], ue[5] = {0, 0, 0, 0, 0}, e2 = 0;
      FEMINT_CALL(femint_space_eval(s, u, cell, xi, x, uh));
      if (exact) exact(x, NULL, 0, user, ue);
      for (int k = 0; k < nc; k++) e2 += (uh[k] - ue[k]) * (uh[k] - ue[k]);
      *sum += tw[t] * lw[l] * geom_prism_jacobian(X, xi, J) * e2;
    }
  return 0;
}

int femint_space_l2_error(femint_space_t space, const double *u, int ncells, const int *cells,
                          femint_field_fn exact, void *user, double *err2)
{
  FEMINT_CHECK(space, NULL, FEMINT_EINVAL, "femint_space_l2_error: space is NULL");
  femint_context_t ctx = space->ctx;
  const int ncell = space->mesh->ncell;
  FEMINT_CHECK(u && err2, ctx, FEMINT_EINVAL, "femint_space_l2_error: u or err2 is NULL");
  FEMINT_CHECK(!cells || (ncells >= 0 && ncells <= ncell), ctx, FEMINT_EINVAL,
               "femint_space_l2_error: ncells = %d (must be 0..%d)", ncells, ncell);
  if (!cells) ncells = ncell;
  double sum = 0;
  for (int k = 0; k < ncells; k++) {
    const int c = cells ? cells[k] : k;
    FEMINT_CHECK(c >= 0 && c < ncell, ctx, FEMINT_EINVAL,
                 "femint_space_l2_error: cells[%d] = %d is outside [0, %d)", k, c, ncell);
    FEMINT_CALL(cell_error(space, u, c, exact, user, &sum));
  }
  *err2 = sum;
  return 0;
}
