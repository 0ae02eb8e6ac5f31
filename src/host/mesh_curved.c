/* Curved cells: one geometric node per global edge (8-node quadrilaterals, 10-node tetrahedra),
 * given by the cells that share the edge and checked for agreement, and the warp that curves a
 * whole mesh by a smooth map of its bounding box. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"

int mesh_set_edge_nodes(struct femint_mesh *m, const int *in_cells, const double *edge_nodes)
{
  const struct cell_topo *t = m->topo;
  const int dim = t->dim;
  int *owner = malloc(((size_t)m->nedge + 1) * sizeof *owner), ierr = 0;
  m->edge_x = malloc(3 * ((size_t)m->nedge + 1) * sizeof *m->edge_x);
  if (!owner || !m->edge_x) {
    free(owner);
    return femint_seterr(m->ctx, FEMINT_ENOMEM, "out of memory for the edge nodes of a mesh");
  }
  for (int e = 0; e < m->nedge; e++) owner[e] = -1;
  for (int c = 0; c < m->ncell && !ierr; c++)
    for (int k = 0; k < t->ne; k++) {
      const int *in = &in_cells[(size_t)t->nv * c];
      const int a = in[t->edge_vert[k][0]], b = in[t->edge_vert[k][1]];
      const int g = m->cell_edge[(size_t)t->ne * c + mesh_local_edge(m, c, a, b)];
      const double *x = &edge_nodes[((size_t)t->ne * c + k) * dim];
      double *y = &m->edge_x[3 * (size_t)g];
      if (owner[g] < 0) {
        owner[g] = c;
        for (int i = 0; i < 3; i++) y[i] = i < dim ? x[i] : 0;
        continue;
      }
      const double *xa = &m->coords[3 * (size_t)a], *xb = &m->coords[3 * (size_t)b];
      double len = 0, dist = 0;
      for (int i = 0; i < dim; i++) {
        len += (xa[i] - xb[i]) * (xa[i] - xb[i]);
        dist += (x[i] - y[i]) * (x[i] - y[i]);
      }
      if (sqrt(dist) > 1e-12 * sqrt(len)) {
        char first[200], second[200];
        ierr = femint_seterr(m->ctx, FEMINT_EMESH,
                             "%s and %s give the edge between vertices %d and %d different nodes "
                             "(%g, %g, %g) and (%g, %g, %g)",
                             mesh_cell_name(m, owner[g], first, sizeof first),
                             mesh_cell_name(m, c, second, sizeof second), a, b, y[0], y[1], y[2],
                             x[0], x[1], dim == 3 ? x[2] : 0.0);
      }
    }
  free(owner);
  return ierr;
}

static int mesh_warp(femint_mesh_t mesh, double amplitude)
{
  femint_trace("femint_mesh_warp");
  FEMINT_CHECK(mesh, NULL, FEMINT_EINVAL, "femint_mesh_warp: mesh is NULL");
  FEMINT_CHECK(isfinite(amplitude), mesh->ctx, FEMINT_EINVAL,
               "femint_mesh_warp: amplitude %g is not finite", amplitude);
  const struct cell_topo *t = mesh->topo;
  FEMINT_CHECK(t->curved, mesh->ctx, FEMINT_ENOTSUP,
               "femint_mesh_warp: %s have straight edges in femint (quadrilaterals and tetrahedra "
               "can be curved)",
               t->plural);
  const int dim = t->dim;
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int v = 0; v < mesh->nvert; v++)
    for (int d = 0; d < dim; d++) {
      lo[d] = fmin(lo[d], mesh->coords[3 * (size_t)v + d]);
      hi[d] = fmax(hi[d], mesh->coords[3 * (size_t)v + d]);
    }
  if (!mesh->edge_x) {
    mesh->edge_x = malloc(3 * ((size_t)mesh->nedge + 1) * sizeof *mesh->edge_x);
    FEMINT_CHECK(mesh->edge_x, mesh->ctx, FEMINT_ENOMEM, "femint_mesh_warp: out of memory");
    for (int e = 0; e < mesh->nedge; e++)
      for (int d = 0; d < 3; d++)
        mesh->edge_x[3 * (size_t)e + d] = (mesh->coords[3 * (size_t)mesh->edge_vert[2 * e] + d] +
                                           mesh->coords[3 * (size_t)mesh->edge_vert[2 * e + 1] + d]) /
                                          2;
  }
  /* y = x + amplitude * prod_d sin(pi (x_d - lo_d) / (hi_d - lo_d)) on every component */
  for (int k = 0; k < mesh->nvert + mesh->nedge; k++) {
    double *x = k < mesh->nvert ? &mesh->coords[3 * (size_t)k]
                                : &mesh->edge_x[3 * (size_t)(k - mesh->nvert)];
    double s = amplitude;
    for (int d = 0; d < dim; d++) s *= sin(M_PI * (x[d] - lo[d]) / (hi[d] - lo[d]));
    for (int d = 0; d < dim; d++) x[d] += s;
  }
  return mesh_check_all(mesh);
}

int femint_mesh_warp(femint_mesh_t mesh, double amplitude)
{
  femint_host_quiet(1);
  const int err = mesh_warp(mesh, amplitude);
  femint_host_quiet(0);
  return err;
}
