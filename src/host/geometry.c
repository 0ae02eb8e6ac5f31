/* The geometric map of a prism with straight edges and bilinear quadrilateral faces: points,
 * Jacobians, their inverses, and the Jacobian terms that the NOJAC kernels read; the map of a
 * cell of any shape (geom_map) and its Jacobian terms (geom_terms). */
#include <math.h>

#include "refel_quad.h"
#include "refel_simplex.h"

/* Vertex functions N_a = l_{a%3} * (1 -+ xi3)/2 and their reference derivatives dN[a][3]. */
static void vertex_functions(const double xi[3], double *N, double *dN)
{
  const double l[3] = {1 - xi[0] - xi[1], xi[0], xi[1]};
  const double dl[3][2] = {{-1, -1}, {1, 0}, {0, 1}};
  const double z[2] = {0.5 * (1 - xi[2]), 0.5 * (1 + xi[2])};
  const double dz[2] = {-0.5, 0.5};
  for (int a = 0; a < 6; a++) {
    int v = a % 3, h = a / 3;
    if (N) N[a] = l[v] * z[h];
    if (dN) {
      dN[3 * a + 0] = dl[v][0] * z[h];
      dN[3 * a + 1] = dl[v][1] * z[h];
      dN[3 * a + 2] = l[v] * dz[h];
    }
  }
}

void geom_prism_point(const double *X, const double xi[3], double *x)
{
  double N[6];
  vertex_functions(xi, N, NULL);
  for (int i = 0; i < 3; i++) {
    x[i] = 0;
    for (int a = 0; a < 6; a++) x[i] += N[a] * X[3 * a + i];
  }
}

double geom_prism_jacobian(const double *X, const double xi[3], double *J)
{
  double dN[18];
  vertex_functions(xi, NULL, dN);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double s = 0;
      for (int a = 0; a < 6; a++) s += X[3 * a + i] * dN[3 * a + j];
      J[3 * i + j] = s;
    }
  return geom_det3(J);
}

double geom_det3(const double *J)
{
  return J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
         J[2] * (J[3] * J[7] - J[4] * J[6]);
}

double geom_inverse3(const double *J, double *K)
{
  double det = geom_det3(J);
  double r = 1.0 / det;
  K[0] = (J[4] * J[8] - J[5] * J[7]) * r;
  K[1] = (J[2] * J[7] - J[1] * J[8]) * r;
  K[2] = (J[1] * J[5] - J[2] * J[4]) * r;
  K[3] = (J[5] * J[6] - J[3] * J[8]) * r;
  K[4] = (J[0] * J[8] - J[2] * J[6]) * r;
  K[5] = (J[2] * J[3] - J[0] * J[5]) * r;
  K[6] = (J[3] * J[7] - J[4] * J[6]) * r;
  K[7] = (J[1] * J[6] - J[0] * J[7]) * r;
  K[8] = (J[0] * J[4] - J[1] * J[3]) * r;
  return det;
}

int geom_prism_terms(const struct refel *re, const double *X, double *t, int *bad)
{
  return geom_terms(re, PRISM_NV, X, t, bad);
}

int geom_terms(const struct refel *re, int nnode, const double *X, double *t, int *bad)
{
  /* simplices keep their vertices in ascending global order: half of them are negatively
   * oriented, and the mesh checked that det J keeps its sign on each */
  const int simplex = re->shape == FEMINT_TET || re->shape == FEMINT_TRI, dim = re->dim;
  const int nt = 1 + dim * dim;
  for (int q = 0; q < re->nq; q++) {
    double J[9], K[9];
    geom_map(re->shape, nnode, X, &re->xq[dim * q], NULL, J);
    double det = dim == 3 ? geom_inverse3(J, K) : geom_inverse2(J, K);
    if (simplex) det = fabs(det);
    if (!(det > 0) || !isfinite(det)) {
      if (bad) *bad = q;
      return FEMINT_EJACOBIAN;
    }
    t[nt * q] = det * re->wq[q];
    for (int k = 0; k < dim * dim; k++) t[nt * q + 1 + k] = K[k];
  }
  return 0;
}

size_t geom_table_size(const struct refel *re, int nnode)
{
  return (size_t)re->nq * (1 + (size_t)nnode * re->dim);
}

void geom_table_fill(const struct refel *re, int nnode, double *tab)
{
  /* the map is linear in X: node a at (1, 0, 0) and the others at 0 give J's first row, dN_a */
  const int dim = re->dim;
  double X[3 * MESH_MAX_NODES] = {0}, J[9];
  for (int q = 0; q < re->nq; q++) {
    double *t = tab + (size_t)q * (1 + nnode * dim);
    t[0] = re->wq[q];
    for (int a = 0; a < nnode; a++) {
      X[dim * a] = 1;
      geom_map(re->shape, nnode, X, &re->xq[dim * q], NULL, J);
      X[dim * a] = 0;
      for (int j = 0; j < dim; j++) t[1 + dim * a + j] = J[j];
    }
  }
}

void geom_simplex_nodes(int dim, int nnode, const double *xi, double *N, double *dN)
{
  const int nv = dim + 1, quadratic = nnode > nv;
  double l[4] = {1, 0, 0, 0};
  for (int d = 0; d < dim; d++) {
    l[d + 1] = xi[d];
    l[0] -= xi[d];
  }
  /* dl_a / dxi_j: l_0 decreases along every direction, l_a grows along xi_(a-1) */
#define DL(a, j) ((a) == 0 ? -1.0 : (a) == (j) + 1 ? 1.0 : 0.0)
  for (int a = 0; a < nv; a++) {
    const double f = quadratic ? l[a] * (2 * l[a] - 1) : l[a], df = quadratic ? 4 * l[a] - 1 : 1;
    if (N) N[a] = f;
    if (dN)
      for (int j = 0; j < dim; j++) dN[dim * a + j] = df * DL(a, j);
  }
  const int ne = quadratic ? (dim == 2 ? TRI_NE : TET_NE) : 0;
  for (int e = 0; e < ne; e++) {
    const int *ev = dim == 2 ? tri_edge_vert[e] : tet_edge_vert[e];
    const int a = ev[0], b = ev[1], n = nv + e;
    if (N) N[n] = 4 * l[a] * l[b];
    if (dN)
      for (int j = 0; j < dim; j++) dN[dim * n + j] = 4 * (DL(a, j) * l[b] + l[a] * DL(b, j));
  }
#undef DL
}

double geom_nodal(int dim, int nnode, const double *X, const double *N, const double *dN,
                  double *x, double *J)
{
  if (N)
    for (int i = 0; i < dim; i++) {
      double s = 0;
      for (int a = 0; a < nnode; a++) s += N[a] * X[dim * a + i];
      x[i] = s;
    }
  if (!dN) return 0;
  for (int i = 0; i < dim; i++)
    for (int j = 0; j < dim; j++) {
      double s = 0;
      for (int a = 0; a < nnode; a++) s += X[dim * a + i] * dN[dim * a + j];
      J[dim * i + j] = s;
    }
  return dim == 2 ? J[0] * J[3] - J[1] * J[2] : geom_det3(J);
}

double geom_map(int shape, int nnode, const double *X, const double *xi, double *x, double *J)
{
  switch (shape) {
  case FEMINT_HEX:
    if (x) geom_hex_point(nnode, X, xi, x);
    return geom_hex_jacobian(nnode, X, xi, J);
  case FEMINT_QUAD:
    if (x) geom_quad_point(nnode, X, xi, x);
    return geom_quad_jacobian(nnode, X, xi, J);
  case FEMINT_TET:
    if (x) geom_tet_point(nnode, X, xi, x);
    return geom_tet_jacobian(nnode, X, xi, J);
  case FEMINT_TRI:
    if (x) geom_tri_point(nnode, X, xi, x);
    return geom_tri_jacobian(nnode, X, xi, J);
  default:
    if (x) geom_prism_point(X, xi, x);
    return geom_prism_jacobian(X, xi, J);
  }
}
