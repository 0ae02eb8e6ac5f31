/* The L2 distance between a finite element function and a given field over a set of cells: the
 * error measure of convergence studies, summed per rank in a distributed code. */
#include <math.h>
#include <stdlib.h>

#include "mesh.h"
#include "refel_quad.h"
#include "refel_simplex.h"

/* The most points of the line rules; triangle and tetrahedron rules stop at degree 14. */
#define NORM_MAX_LINE 13
#define NORM_MAX_DEGREE 14
/* The most points norm_rule gives: the prism's 42-point triangle rule times 9 Gauss points. */
#define NORM_MAX_POINTS (NORM_MAX_LINE * NORM_MAX_LINE * NORM_MAX_LINE)

/* A rule for a cell of order p, beyond the element's own: degree 2p + 2 where the simplex rules
 * allow it (the prism: that triangle rule times p + 2 Gauss points; the quadrilateral: p + 2
 * Gauss points per direction; the tetrahedron and the triangle: the symmetric rule), into the caller's xi[n][dim]
 * and w[n] of NORM_MAX_POINTS points. */
static int norm_rule(int shape, int p, int *n, double *xi, double *w)
{
  const int degree = 2 * p + 2 < NORM_MAX_DEGREE ? 2 * p + 2 : NORM_MAX_DEGREE;
  const int nline = p + 2 < NORM_MAX_LINE ? p + 2 : NORM_MAX_LINE;
  double gx[NORM_MAX_LINE], gw[NORM_MAX_LINE];
  const double *txy, *tw;
  int ntri;
  *n = 0;
  switch (shape) {
  case FEMINT_TET:
    FEMINT_CALL(quad_tet_symmetric(degree, &ntri, &txy, &tw, NULL));
    for (int q = 0; q < ntri; q++, (*n)++) {
      for (int i = 0; i < 3; i++) xi[3 * q + i] = txy[3 * q + i];
      w[q] = tw[q];
    }
    return 0;
  case FEMINT_TRI:
    FEMINT_CALL(quad_triangle(degree, &ntri, &txy, &tw));
    for (int q = 0; q < ntri; q++, (*n)++) {
      for (int i = 0; i < 2; i++) xi[2 * q + i] = txy[2 * q + i];
      w[q] = tw[q];
    }
    return 0;
  case FEMINT_QUAD:
    FEMINT_CALL(quad_gauss_legendre(nline, gx, gw));
    for (int i = 0; i < nline; i++)
      for (int j = 0; j < nline; j++, (*n)++) {
        xi[2 * *n] = gx[i];
        xi[2 * *n + 1] = gx[j];
        w[*n] = gw[i] * gw[j];
      }
    return 0;
  case FEMINT_HEX:
    FEMINT_CALL(quad_gauss_legendre(nline, gx, gw));
    for (int i = 0; i < nline; i++)
      for (int j = 0; j < nline; j++)
        for (int k = 0; k < nline; k++, (*n)++) {
          xi[3 * *n] = gx[i];
          xi[3 * *n + 1] = gx[j];
          xi[3 * *n + 2] = gx[k];
          w[*n] = gw[i] * gw[j] * gw[k];
        }
    return 0;
  default:
    FEMINT_CALL(quad_triangle(degree, &ntri, &txy, &tw));
    FEMINT_CALL(quad_gauss_legendre(nline, gx, gw));
    for (int t = 0; t < ntri; t++)
      for (int l = 0; l < nline; l++, (*n)++) {
        xi[3 * *n] = txy[2 * t];
        xi[3 * *n + 1] = txy[2 * t + 1];
        xi[3 * *n + 2] = gx[l];
        w[*n] = tw[t] * gw[l];
      }
    return 0;
  }
}


/* sum over the points of one cell of w |det J| |u_h - exact|^2. */
static int cell_error(femint_space_t s, const double *u, int cell, femint_field_fn exact,
                      void *user, double *xi, double *w, double *sum)
{
  const struct femint_mesh *m = s->mesh;
  const int dim = m->topo->dim, nval = s->family == FEMINT_HCURL ? 3 : s->ncomp;
  int n;
  FEMINT_CALL(norm_rule(m->topo->shape, s->order[cell], &n, xi, w));
  double X[3 * MESH_MAX_NODES], J[9];
  const int nnode = mesh_cell_nodes(m, cell, X);
  for (int q = 0; q < n; q++) {
    double x[3], uh[5], ue[5] = {0, 0, 0, 0, 0}, e2 = 0;
    FEMINT_CALL(femint_space_eval(s, u, cell, &xi[dim * q], x, uh));
    if (exact) exact(x, NULL, 0, user, ue);
    for (int k = 0; k < nval; k++) e2 += (uh[k] - ue[k]) * (uh[k] - ue[k]);
    *sum += w[q] * fabs(geom_map(m->topo->shape, nnode, X, &xi[dim * q], NULL, J)) * e2;
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
  double *xi = malloc(3 * NORM_MAX_POINTS * sizeof *xi), *w = malloc(NORM_MAX_POINTS * sizeof *w);
  int err = xi && w ? 0 : femint_seterr(ctx, FEMINT_ENOMEM, "femint_space_l2_error: out of memory");
  double sum = 0;
  for (int k = 0; k < ncells && !err; k++) {
    const int c = cells ? cells[k] : k;
    if (c < 0 || c >= ncell)
      err = femint_seterr(ctx, FEMINT_EINVAL, "femint_space_l2_error: cells[%d] = %d is outside "
                                              "[0, %d)",
                          k, c, ncell);
    else
      err = cell_error(space, u, c, exact, user, xi, w, &sum);
  }
  free(xi);
  free(w);
  if (!err) *err2 = sum;
  return err;
}
