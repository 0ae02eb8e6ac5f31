/* Meshes of any shape from arrays: the shape table, input checks, femint's local vertex order of
 * the cells, the checks of their geometry, and the accessors of the public API. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"
#include "refel_hex.h"
#include "refel_quad.h"
#include "refel_simplex.h"

const int prism_edge_vert[PRISM_NE][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5},
                                          {5, 3}, {0, 3}, {1, 4}, {2, 5}};
const int prism_face_vert[PRISM_NF][4] = {
    {0, 1, 2, -1}, {3, 4, 5, -1}, {0, 1, 4, 3}, {1, 2, 5, 4}, {2, 0, 3, 5}};
static const int quad_face_vert[4][4] = {{0, 1, -1, -1}, {1, 2, -1, -1}, {2, 3, -1, -1},
                                         {3, 0, -1, -1}};
static const int tri_face_vert[TRI_NE][4] = {{0, 1, -1, -1}, {0, 2, -1, -1}, {1, 2, -1, -1}};
static const int tet_face_vert4[TET_NF][4] = {{1, 2, 3, -1}, {0, 2, 3, -1}, {0, 1, 3, -1},
                                              {0, 1, 2, -1}};

const struct cell_topo topo_prism = {FEMINT_PRISM, 3, PRISM_NV, PRISM_NE, PRISM_NF,
                                     prism_edge_vert, prism_face_vert, 0, "prism", "prisms"};
const struct cell_topo topo_quad = {FEMINT_QUAD, 2, 4, 4, 4, quad_edge_vert, quad_face_vert, 1,
                                    "quadrilateral", "quadrilaterals"};
const struct cell_topo topo_tet = {FEMINT_TET, 3, TET_NV, TET_NE, TET_NF, tet_edge_vert,
                                   tet_face_vert4, 1, "tetrahedron", "tetrahedra"};

const struct cell_topo topo_tri = {FEMINT_TRI, 2, TRI_NV, TRI_NE, TRI_NE, tri_edge_vert,
                                   tri_face_vert, 1, "triangle", "triangles"};
const struct cell_topo topo_hex = {FEMINT_HEX, 3, HEX_NV, HEX_NE, HEX_NF, hex_edge_vert,
                                   hex_face_vert, 1, "hexahedron", "hexahedra"};

const struct cell_topo *topo_of(int shape)
{
  switch (shape) {
  case FEMINT_HEX: return &topo_hex;
  case FEMINT_PRISM: return &topo_prism;
  case FEMINT_QUAD: return &topo_quad;
  case FEMINT_TET: return &topo_tet;
  case FEMINT_TRI: return &topo_tri;
  default: return NULL;
  }
}

/* See mesh.h for why the vertical edges decide. */
int mesh_check_cell(const double *X, double *det, double xi[3])
{
  static const double corner[3][2] = {{0, 0}, {1, 0}, {0, 1}};
  double J[9], dmin = INFINITY;
  for (int a = 0; a < 3; a++) {
    double q[3];
    for (int k = 0; k < 3; k++) {
      double p[3] = {corner[a][0], corner[a][1], k - 1.0};
      q[k] = geom_prism_jacobian(X, p, J);
    }
    /* q(t) = c2 t^2 + c1 t + q(0): its minimum on [-1, 1] is at an end or at -c1 / (2 c2). */
    double c2 = 0.5 * (q[2] + q[0]) - q[1], c1 = 0.5 * (q[2] - q[0]), tmin = -1, qmin = q[0];
    if (!(q[2] >= qmin)) tmin = 1, qmin = q[2];
    if (c2 > 0 && fabs(c1) < 2 * c2) {
      double t = -c1 / (2 * c2), p[3] = {corner[a][0], corner[a][1], t};
      double qt = geom_prism_jacobian(X, p, J);
      if (!(qt >= qmin)) tmin = t, qmin = qt;
    }
    if (!(qmin >= dmin)) {
      dmin = qmin;
      xi[0] = corner[a][0], xi[1] = corner[a][1], xi[2] = tmin;
    }
  }
  *det = dmin;
  return dmin > 0;
}

/* The vertical line of every vertex: the vertex of smallest global id of its connected
 * component in the graph of the vertical edges (i, i+3) of the input cells (union-find with path
 * halving). */
static void vertical_lines(int nvert, int ncell, const int *cells, const int64_t *gid, int *line)
{
  for (int v = 0; v < nvert; v++) line[v] = v;
  for (int c = 0; c < ncell; c++)
    for (int a = 0; a < 3; a++) {
      int r[2] = {cells[6 * (size_t)c + a], cells[6 * (size_t)c + a + 3]};
      for (int k = 0; k < 2; k++)
        while (line[r[k]] != r[k]) {
          line[r[k]] = line[line[r[k]]];
          r[k] = line[r[k]];
        }
      /* The root of smaller global id stays a root. */
      if (gid[r[0]] < gid[r[1]]) line[r[1]] = r[0];
      else if (r[0] != r[1]) line[r[0]] = r[1];
    }
  for (int v = 0; v < nvert; v++) {
    int r = v;
    while (line[r] != r) r = line[r];
    line[v] = r;
  }
}

/* Whether vertex a of a cell comes before vertex b: by the global id of their vertical lines,
 * then by their own global ids. */
static int vertex_before(const int *line, const int64_t *gid, int a, int b)
{
  return line[a] != line[b] ? gid[line[a]] < gid[line[b]] : gid[a] < gid[b];
}

/* Reorder the vertices of a prism: the bottom triangle sorted by ascending vertical line (then
 * vertex) when that permutation is even; when it is odd, the top triangle in that order
 * becomes the bottom and the old bottom the top, which keeps the orientation of the cell. Since
 * a vertex and the one above it share their line, both triangles of the cell are then listed by
 * ascending line, and two cells stacked on a triangle list it in the same order. With a
 * numbering that is the same on every level of an extruded mesh (as the box's), this is the
 * order of the global vertex ids, whatever part of the mesh a process holds. */
static void normalize_cell(const int *line, const int64_t *gid, const int *in, int *out)
{
  int p[3] = {0, 1, 2}, t, odd = 0;
  if (vertex_before(line, gid, in[p[1]], in[p[0]])) t = p[0], p[0] = p[1], p[1] = t, odd ^= 1;
  if (vertex_before(line, gid, in[p[2]], in[p[1]])) t = p[1], p[1] = p[2], p[2] = t, odd ^= 1;
  if (vertex_before(line, gid, in[p[1]], in[p[0]])) t = p[0], p[0] = p[1], p[1] = t, odd ^= 1;
  for (int i = 0; i < 3; i++) {
    out[i] = in[p[i] + (odd ? 3 : 0)];
    out[i + 3] = in[p[i] + (odd ? 0 : 3)];
  }
}


/* A tetrahedron's vertices by ascending global id (the vertex index breaks no tie: ids are
 * distinct). */
static void sort_simplex(int nv, const int64_t *gid, const int *in, int *out)
{
  memcpy(out, in, (size_t)nv * sizeof *out);
  for (int i = 1; i < nv; i++)
    for (int j = i; j > 0 && gid[out[j - 1]] > gid[out[j]]; j--) {
      const int t = out[j];
      out[j] = out[j - 1];
      out[j - 1] = t;
    }
}

static void mesh_free(struct femint_mesh *m)
{
  if (!m) return;
  free(m->coords);
  free(m->cells);
  free(m->edge_x);
  free(m->vert_bnd);
  free(m->bface);
  free(m->vert_gid);
  free(m->cell_mat);
  free(m->cell_edge);
  free(m->edge_vert);
  free(m->cell_face);
  free(m->face_cell);
  free(m);
}

int mesh_alloc(femint_context_t ctx, const struct cell_topo *topo, int nvert, int ncell,
               struct femint_mesh **mesh)
{
  struct femint_mesh *m = calloc(1, sizeof *m);
  if (m) {
    m->ctx = ctx;
    m->topo = topo;
    m->nvert = nvert;
    m->ncell = ncell;
    m->coords = malloc(3 * (size_t)nvert * sizeof *m->coords);
    m->cells = malloc((size_t)topo->nv * ncell * sizeof *m->cells);
    m->vert_gid = malloc((size_t)nvert * sizeof *m->vert_gid);
    m->cell_mat = calloc((size_t)ncell, sizeof *m->cell_mat);
  }
  if (!m || !m->coords || !m->cells || !m->vert_gid || !m->cell_mat) {
    mesh_free(m);
    *mesh = NULL;
    return femint_seterr(ctx, FEMINT_ENOMEM, "out of memory creating a mesh of %d cells", ncell);
  }
  *mesh = m;
  return 0;
}

int mesh_check_input(femint_context_t ctx, int nvert, const double *coords, int dim, int ncell,
                     int nv, const int *cells)
{
  for (int v = 0; v < nvert; v++)
    for (int j = 0; j < dim; j++) {
      const double x = coords[(size_t)dim * v + j];
      FEMINT_CHECK(isfinite(x), ctx, FEMINT_EMESH,
                   "vertex %d has a coordinate that is not finite (%g)", v, x);
      FEMINT_CHECK(fabs(x) <= MESH_COORD_MAX, ctx, FEMINT_EMESH,
                   "vertex %d: the coordinate %g is beyond %g in magnitude (the Jacobians of its "
                   "cells would overflow)",
                   v, x, MESH_COORD_MAX);
    }
  for (int c = 0; c < ncell; c++) {
    const int *cv = &cells[(size_t)nv * c];
    for (int a = 0; a < nv; a++) {
      FEMINT_CHECK(cv[a] >= 0 && cv[a] < nvert, ctx, FEMINT_EMESH,
                   "cell %d: vertex index %d (local vertex %d) is outside [0, %d)", c, cv[a], a,
                   nvert);
      for (int b = 0; b < a; b++)
        FEMINT_CHECK(cv[a] != cv[b], ctx, FEMINT_EMESH,
                     "cell %d repeats vertex %d (local vertices %d and %d)", c, cv[a], b, a);
    }
  }
  return 0;
}

int mesh_nnode(const struct femint_mesh *m)
{
  return m->topo->nv + (m->edge_x ? m->topo->ne : 0);
}

int mesh_cell_nodes(const struct femint_mesh *m, int c, double *X)
{
  const struct cell_topo *t = m->topo;
  const int dim = t->dim, *cv = &m->cells[(size_t)t->nv * c];
  for (int a = 0; a < t->nv; a++)
    memcpy(&X[dim * a], &m->coords[3 * (size_t)cv[a]], (size_t)dim * sizeof *X);
  if (!m->edge_x) return t->nv;
  for (int e = 0; e < t->ne; e++)
    memcpy(&X[dim * (t->nv + e)], &m->edge_x[3 * (size_t)m->cell_edge[(size_t)t->ne * c + e]],
           (size_t)dim * sizeof *X);
  return t->nv + t->ne;
}

const char *mesh_cell_name(const struct femint_mesh *m, int c, char *buf, size_t len)
{
  char what[160] = "";
  if (m->namer) m->namer->fn(m->namer->user, c, what, sizeof what);
  snprintf(buf, len, what[0] ? "cell %d (%s)" : "cell %d", c, what);
  return buf;
}

/* Whether cell c's Jacobian is positive everywhere (prisms: det and xi where it is not; the other
 * shapes: the reason in the thread's error). */
static int cell_ok(const struct femint_mesh *m, int c, double *det, double *xi)
{
  const struct cell_topo *t = m->topo;
  double X[3 * MESH_MAX_NODES];
  const int nnode = mesh_cell_nodes(m, c, X);
  if (t->shape == FEMINT_PRISM) return mesh_check_cell(X, det, xi);
  return !(t->shape == FEMINT_QUAD  ? geom_quad_check(NULL, nnode, X, NULL)
           : t->shape == FEMINT_HEX ? geom_hex_check(nnode, X, NULL, NULL)
           : t->shape == FEMINT_TRI ? geom_tri_check(nnode, X, NULL)
                                    : geom_tet_check(NULL, nnode, X, NULL));
}

int mesh_check_all(const struct femint_mesh *m)
{
  int first = m->ncell;
#pragma omp parallel for schedule(static) reduction(min : first)
  for (int c = 0; c < m->ncell; c++) {
    double det, xi[3];
    if (c < first && !cell_ok(m, c, &det, xi)) first = c;
  }
  return first < m->ncell ? mesh_check_geometry(m, first) : 0;
}

int mesh_check_geometry(const struct femint_mesh *m, int c)
{
  const struct cell_topo *t = m->topo;
  double det, xi[3];
  if (cell_ok(m, c, &det, xi)) return 0;
  const int *cv = &m->cells[(size_t)t->nv * c];
  char verts[80] = "", name[200];
  for (int a = 0, at = 0; a < t->nv; a++)
    at += snprintf(verts + at, sizeof verts - (size_t)at, "%s%d", a ? " " : "", cv[a]);
  mesh_cell_name(m, c, name, sizeof name);
  if (t->shape == FEMINT_PRISM)
    return femint_seterr(m->ctx, FEMINT_EJACOBIAN,
                         "%s has a non-positive Jacobian (det J = %g at reference point "
                         "(%g,%g,%g))",
                         name, det, xi[0], xi[1], xi[2]);
  return femint_seterr(m->ctx, FEMINT_EJACOBIAN, "%s (vertices %s): %s%s", name, verts,
                       femint_thread_error(),
                       t->shape == FEMINT_QUAD
                           ? "; a quadrilateral lists its vertices counter-clockwise"
                           : "");
}

/* The orientation of d against the face (a, b, c) of a tetrahedron, or the edge (a, b) of a
 * triangle (c unused): the sign of the determinant. */
static int side(int dim, const double *a, const double *b, const double *c, const double *d)
{
  double u[3], v[3], w[3];
  for (int i = 0; i < 3; i++) u[i] = b[i] - a[i], v[i] = c[i] - a[i], w[i] = d[i] - a[i];
  const double det = dim == 2 ? u[0] * w[1] - u[1] * w[0]
                              : u[0] * (v[1] * w[2] - v[2] * w[1]) -
                                    u[1] * (v[0] * w[2] - v[2] * w[0]) +
                                    u[2] * (v[0] * w[1] - v[1] * w[0]);
  return (det > 0) - (det < 0);
}

/* A simplex mesh is tangled where the two cells of an interior face have their opposite vertices
 * on the same side of it (a vertex moved through a face inverts a cell, which then overlaps its
 * neighbours, whatever order the cells list their vertices in). */
static int check_tangle(const struct femint_mesh *m)
{
  const struct cell_topo *t = m->topo;
  const int nv = t->nv, dim = t->dim;
  for (int c = 0; c < m->ncell; c++)
    for (int f = 0; f < t->nf; f++) {
      const int g = m->cell_face[t->nf * c + f], n = m->face_cell[2 * g + 1];
      if (m->face_cell[2 * g] != c || n < 0) continue;
      const int *cv = &m->cells[(size_t)nv * c], *nvx = &m->cells[(size_t)nv * n];
      int fv[3] = {-1, -1, -1}, mine = -1, theirs = -1;
      for (int j = 0; j < dim; j++) fv[j] = cv[t->face_vert[f][j]];
      for (int a = 0; a < nv; a++) {
        if (cv[a] != fv[0] && cv[a] != fv[1] && cv[a] != fv[2]) mine = cv[a];
        if (nvx[a] != fv[0] && nvx[a] != fv[1] && nvx[a] != fv[2]) theirs = nvx[a];
      }
      const double *x = m->coords;
      const double *c2 = &x[3 * (size_t)(dim == 3 ? fv[2] : fv[0])];
      const int s0 = side(dim, &x[3 * (size_t)fv[0]], &x[3 * (size_t)fv[1]], c2,
                          &x[3 * (size_t)mine]);
      const int s1 = side(dim, &x[3 * (size_t)fv[0]], &x[3 * (size_t)fv[1]], c2,
                          &x[3 * (size_t)theirs]);
      if (s0 * s1 < 0) continue;
      char a[200], b[200], verts[48];
      snprintf(verts, sizeof verts, dim == 3 ? "%d %d %d" : "%d %d", fv[0], fv[1], fv[2]);
      return femint_seterr(m->ctx, FEMINT_EJACOBIAN,
                           "%s and %s lie on the same side of the %s they share (vertices %s): "
                           "the mesh is tangled (a vertex moved through %s)",
                           mesh_cell_name(m, c, a, sizeof a), mesh_cell_name(m, n, b, sizeof b),
                           dim == 3 ? "face" : "edge", verts, dim == 3 ? "a face" : "an edge");
    }
  return 0;
}

int mesh_create(femint_context_t ctx, const char *who, const struct cell_topo *t, int nvert,
                const double *coords, const int64_t *gid, int ncell, const int *cells,
                const double *edge_nodes, const struct mesh_namer *namer,
                struct femint_mesh **mesh)
{
  FEMINT_CHECK(mesh, ctx, FEMINT_EINVAL, "%s: mesh (output) is NULL", who);
  *mesh = NULL;
  FEMINT_CHECK(nvert >= t->nv && nvert < INT_MAX, ctx, FEMINT_EINVAL,
               "%s: nvert = %d (a mesh of %s has %d vertices or more)", who, nvert, t->plural,
               t->nv);
  FEMINT_CHECK(ncell >= 1 && ncell <= INT_MAX / (2 * MESH_MAX_NE), ctx, FEMINT_EINVAL,
               "%s: ncell = %d (1 to %d)", who, ncell, INT_MAX / (2 * MESH_MAX_NE));
  FEMINT_CHECK(coords, ctx, FEMINT_EINVAL, "%s: coords is NULL", who);
  FEMINT_CHECK(cells, ctx, FEMINT_EINVAL, "%s: cells is NULL", who);
  FEMINT_CHECK(!edge_nodes || t->curved, ctx, FEMINT_ENOTSUP,
               "%s: %s have straight edges in femint (edge_nodes must be NULL)", who, t->plural);
  FEMINT_CALL(mesh_check_input(ctx, nvert, coords, t->dim, ncell, t->nv, cells));
  if (edge_nodes)
    for (size_t k = 0; k < (size_t)ncell * t->ne * t->dim; k++)
      FEMINT_CHECK(fabs(edge_nodes[k]) <= MESH_COORD_MAX, ctx, FEMINT_EMESH,
                   "%s: cell %d: the node of edge %d has a coordinate that is not finite or "
                   "beyond 1e100 in magnitude (%g)",
                   who, (int)(k / ((size_t)t->ne * t->dim)), (int)(k / t->dim % t->ne),
                   edge_nodes[k]);

  struct femint_mesh *m;
  FEMINT_CALL(mesh_alloc(ctx, t, nvert, ncell, &m));
  int ierr = 0, *line = NULL;
  m->namer = namer;
  for (int v = 0; v < nvert; v++) {
    for (int i = 0; i < 3; i++) m->coords[3 * (size_t)v + i] = i < t->dim ? coords[(size_t)t->dim * v + i] : 0;
    m->vert_gid[v] = gid ? gid[v] : v;
  }
  if (t->shape == FEMINT_PRISM) {
    if (!(line = malloc((size_t)nvert * sizeof *line))) {
      ierr = femint_seterr(ctx, FEMINT_ENOMEM, "out of memory creating a mesh of %d cells", ncell);
      goto fail;
    }
    /* A whole mesh orders its triangles by vertical lines, whatever its numbering. A part
     * cannot: its pieces of a line need not reach as low as its neighbour's, so their smallest
     * ids differ. It orders them by the ids of the vertices themselves (each vertex its own
     * line), which agrees across parts for a numbering alike on every level. */
    if (gid)
      for (int v = 0; v < nvert; v++) line[v] = v;
    else
      vertical_lines(nvert, ncell, cells, m->vert_gid, line);
    for (int c = 0; c < ncell; c++)
      normalize_cell(line, m->vert_gid, &cells[6 * (size_t)c], &m->cells[6 * (size_t)c]);
  } else if (t->shape == FEMINT_TET || t->shape == FEMINT_TRI) {
    for (int c = 0; c < ncell; c++)
      sort_simplex(t->nv, m->vert_gid, &cells[(size_t)t->nv * c], &m->cells[(size_t)t->nv * c]);
  } else {
    memcpy(m->cells, cells, (size_t)t->nv * ncell * sizeof *cells);
  }
  if ((ierr = mesh_build_topology(m))) goto fail;
  if (edge_nodes && (ierr = mesh_set_edge_nodes(m, cells, edge_nodes))) goto fail;
  ierr = mesh_check_all(m);
  if (!ierr && (t->shape == FEMINT_TET || t->shape == FEMINT_TRI)) ierr = check_tangle(m);
  if (ierr) goto fail;
  free(line);
  m->namer = NULL;
  *mesh = m;
  return 0;
fail:
  free(line);
  mesh_free(m);
  return ierr;
}

static int mesh_from_arrays(femint_context_t ctx, int shape, int nvert, const double *coords,
                            int ncell, const int *cells, const double *edge_nodes,
                            femint_mesh_t *mesh)
{
  const struct cell_topo *t = topo_of(shape);
  FEMINT_CHECK(t, ctx, FEMINT_EINVAL,
               "femint_mesh_create: shape %d is not an element shape (" SHAPE_LIST ")",
               shape);
  return mesh_create(ctx, "femint_mesh_create", t, nvert, coords, NULL, ncell, cells, edge_nodes,
                     NULL, mesh);
}

int femint_mesh_create(femint_context_t ctx, int shape, int nvert, const double *coords,
                       int ncell, const int *cells, const double *edge_nodes, femint_mesh_t *mesh)
{
  femint_host_quiet(1);
  const int err = mesh_from_arrays(ctx, shape, nvert, coords, ncell, cells, edge_nodes, mesh);
  femint_host_quiet(0);
  return err;
}

double mesh_uniform(uint64_t *state)
{
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull); /* splitmix64 */
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

int mesh_cmp_int64(const void *a, const void *b)
{
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Check that the global ids are non-negative and distinct (on a sorted copy). */
static int check_global_ids(femint_context_t ctx, const char *who, int nvert, const int64_t *gid)
{
  int64_t *sorted = malloc((size_t)nvert * sizeof *sorted);
  FEMINT_CHECK(sorted, ctx, FEMINT_ENOMEM, "%s: out of memory", who);
  memcpy(sorted, gid, (size_t)nvert * sizeof *sorted);
  qsort(sorted, (size_t)nvert, sizeof *sorted, mesh_cmp_int64);
  int64_t bad = sorted[0] < 0 ? sorted[0] : -1;
  for (int v = 1; v < nvert && bad < 0; v++)
    if (sorted[v] == sorted[v - 1]) bad = sorted[v];
  free(sorted);
  FEMINT_CHECK(bad == -1, ctx, FEMINT_EMESH, "%s: global vertex id %lld is %s", who,
               (long long)bad, bad < 0 ? "negative" : "given to two vertices");
  return 0;
}

static int mesh_create_part(femint_context_t ctx, int shape, int nvert, const double *coords,
                            const int64_t *global_ids, int ncell, const int *cells,
                            const double *edge_nodes, const int *materials, int nface,
                            const int *faces, const int *tags, femint_mesh_t *mesh)
{
  const char *who = "femint_mesh_create_part";
  FEMINT_CHECK(mesh, ctx, FEMINT_EINVAL, "%s: mesh (output) is NULL", who);
  *mesh = NULL;
  const struct cell_topo *t = topo_of(shape);
  FEMINT_CHECK(t, ctx, FEMINT_EINVAL,
               "%s: shape %d is not an element shape (" SHAPE_LIST ")", who, shape);
  FEMINT_CHECK(global_ids, ctx, FEMINT_EINVAL, "%s: global_ids is NULL", who);
  FEMINT_CHECK(nface >= 0 && (nface == 0 || (faces && tags)), ctx, FEMINT_EINVAL,
               "%s: nface = %d with %s faces and %s tags", who, nface, faces ? "a list of" : "no",
               tags ? "a list of" : "no");
  FEMINT_CHECK(nvert >= t->nv, ctx, FEMINT_EINVAL,
               "%s: nvert = %d (a mesh of %s has %d vertices or more)", who, nvert, t->plural,
               t->nv);
  FEMINT_CALL(check_global_ids(ctx, who, nvert, global_ids));
  FEMINT_CALL(
      mesh_create(ctx, who, t, nvert, coords, global_ids, ncell, cells, edge_nodes, NULL, mesh));
  struct femint_mesh *m = *mesh;
  if (materials) memcpy(m->cell_mat, materials, (size_t)ncell * sizeof *m->cell_mat);
  int bad = -1, ierr = mesh_set_face_tags(m, nface, faces, tags, &bad);
  if (!ierr && bad >= 0)
    ierr = femint_seterr(ctx, FEMINT_EMESH, "%s: face %d (vertices %d %d %d %d) is not a boundary "
                                            "face of the cells",
                         who, bad, faces[4 * (size_t)bad], faces[4 * (size_t)bad + 1],
                         faces[4 * (size_t)bad + 2], faces[4 * (size_t)bad + 3]);
  if (ierr) femint_mesh_destroy(mesh);
  return ierr;
}

int femint_mesh_create_part(femint_context_t ctx, int shape, int nvert, const double *coords,
                            const int64_t *global_ids, int ncell, const int *cells,
                            const double *edge_nodes, const int *materials, int nface,
                            const int *faces, const int *tags, femint_mesh_t *mesh)
{
  femint_host_quiet(1);
  const int err = mesh_create_part(ctx, shape, nvert, coords, global_ids, ncell, cells,
                                   edge_nodes, materials, nface, faces, tags, mesh);
  femint_host_quiet(0);
  return err;
}

int femint_mesh_destroy(femint_mesh_t *mesh)
{
  if (!mesh) return 0;
  mesh_free(*mesh);
  *mesh = NULL;
  return 0;
}

int femint_mesh_num_cells(femint_mesh_t mesh)
{
  FEMINT_CHECK(mesh, NULL, FEMINT_EINVAL, "femint_mesh_num_cells: mesh is NULL");
  return mesh->ncell;
}

int femint_mesh_num_vertices(femint_mesh_t mesh)
{
  FEMINT_CHECK(mesh, NULL, FEMINT_EINVAL, "femint_mesh_num_vertices: mesh is NULL");
  return mesh->nvert;
}

int femint_mesh_num_boundary_faces(femint_mesh_t mesh)
{
  FEMINT_CHECK(mesh, NULL, FEMINT_EINVAL, "femint_mesh_num_boundary_faces: mesh is NULL");
  return mesh->nbface;
}

int femint_mesh_cell_coords(femint_mesh_t mesh, int cell, double *X)
{
  FEMINT_CHECK(mesh, NULL, FEMINT_EINVAL, "femint_mesh_cell_coords: mesh is NULL");
  FEMINT_CHECK(cell >= 0 && cell < mesh->ncell, mesh->ctx, FEMINT_EINVAL,
               "femint_mesh_cell_coords: cell %d is outside [0, %d)", cell, mesh->ncell);
  FEMINT_CHECK(X, mesh->ctx, FEMINT_EINVAL, "femint_mesh_cell_coords: X is NULL");
  const int nv = mesh->topo->nv;
  for (int a = 0; a < nv; a++)
    memcpy(&X[3 * a], &mesh->coords[3 * (size_t)mesh->cells[(size_t)nv * cell + a]],
           3 * sizeof(double));
  return 0;
}

int femint_mesh_vertex_coords(femint_mesh_t mesh, int vertex, double *x)
{
  FEMINT_CHECK(mesh, NULL, FEMINT_EINVAL, "femint_mesh_vertex_coords: mesh is NULL");
  FEMINT_CHECK(vertex >= 0 && vertex < mesh->nvert, mesh->ctx, FEMINT_EINVAL,
               "femint_mesh_vertex_coords: vertex %d is outside [0, %d)", vertex, mesh->nvert);
  FEMINT_CHECK(x, mesh->ctx, FEMINT_EINVAL, "femint_mesh_vertex_coords: x is NULL");
  memcpy(x, &mesh->coords[3 * (size_t)vertex], 3 * sizeof(double));
  return 0;
}

int femint_mesh_vertex_on_boundary(femint_mesh_t mesh, int vertex)
{
  FEMINT_CHECK(mesh, NULL, FEMINT_EINVAL, "femint_mesh_vertex_on_boundary: mesh is NULL");
  FEMINT_CHECK(vertex >= 0 && vertex < mesh->nvert, mesh->ctx, FEMINT_EINVAL,
               "femint_mesh_vertex_on_boundary: vertex %d is outside [0, %d)", vertex,
               mesh->nvert);
  return mesh->vert_bnd[vertex];
}

int femint_mesh_vertex_global_ids(femint_mesh_t mesh, const int64_t **ids)
{
  FEMINT_CHECK(mesh, NULL, FEMINT_EINVAL, "femint_mesh_vertex_global_ids: mesh is NULL");
  FEMINT_CHECK(ids, mesh->ctx, FEMINT_EINVAL, "femint_mesh_vertex_global_ids: ids is NULL");
  *ids = mesh->vert_gid;
  return 0;
}

int femint_mesh_cell_materials(femint_mesh_t mesh, const int **materials)
{
  FEMINT_CHECK(mesh, NULL, FEMINT_EINVAL, "femint_mesh_cell_materials: mesh is NULL");
  FEMINT_CHECK(materials, mesh->ctx, FEMINT_EINVAL,
               "femint_mesh_cell_materials: materials is NULL");
  *materials = mesh->cell_mat;
  return 0;
}

int femint_mesh_shape(femint_mesh_t mesh)
{
  FEMINT_CHECK(mesh, NULL, FEMINT_EINVAL, "femint_mesh_shape: mesh is NULL");
  return mesh->topo->shape;
}

int femint_mesh_num_nodes(femint_mesh_t mesh)
{
  FEMINT_CHECK(mesh, NULL, FEMINT_EINVAL, "femint_mesh_num_nodes: mesh is NULL");
  return mesh_nnode(mesh);
}

int femint_mesh_cell_nodes(femint_mesh_t mesh, int cell, double *X)
{
  FEMINT_CHECK(mesh, NULL, FEMINT_EINVAL, "femint_mesh_cell_nodes: mesh is NULL");
  FEMINT_CHECK(cell >= 0 && cell < mesh->ncell, mesh->ctx, FEMINT_EINVAL,
               "femint_mesh_cell_nodes: cell %d is outside [0, %d)", cell, mesh->ncell);
  FEMINT_CHECK(X, mesh->ctx, FEMINT_EINVAL, "femint_mesh_cell_nodes: X is NULL");
  double Y[3 * MESH_MAX_NODES];
  const int dim = mesh->topo->dim, nnode = mesh_cell_nodes(mesh, cell, Y);
  for (int a = 0; a < nnode; a++)
    for (int i = 0; i < 3; i++) X[3 * a + i] = i < dim ? Y[dim * a + i] : 0;
  return 0;
}

/* Points and weights of a rule that integrates det J of a cell exactly: det J of a prism is
 * linear in xi1, xi2 and quadratic in xi3 (the triangle's centroid times 2 Gauss points), of a
 * quadrilateral of degree <= 3 in each variable (2 x 2 Gauss points), of a tetrahedron of total
 * degree <= 3 (a symmetric rule of degree 3), of a triangle of degree <= 2. */
static int volume_rule(int shape, int *n, double *xi, double *w)
{
  const double g = 1 / sqrt(3.0);
  if (shape == FEMINT_PRISM) {
    const double p[6] = {1 / 3.0, 1 / 3.0, -g, 1 / 3.0, 1 / 3.0, g};
    memcpy(xi, p, sizeof p);
    w[0] = w[1] = 0.5;
    *n = 2;
  } else if (shape == FEMINT_QUAD) {
    for (int i = 0; i < 4; i++) {
      xi[2 * i] = i & 1 ? g : -g;
      xi[2 * i + 1] = i & 2 ? g : -g;
      w[i] = 1;
    }
    *n = 4;
  } else if (shape == FEMINT_HEX) { /* 2^3 Gauss points: exact for the tri-quadratic det J */
    for (int i = 0; i < 8; i++) {
      for (int d = 0; d < 3; d++) xi[3 * i + d] = i >> d & 1 ? g : -g;
      w[i] = 1;
    }
    *n = 8;
  } else if (shape == FEMINT_TRI) { /* det J of a 6-node triangle is quadratic */
    const double *x, *ww;
    FEMINT_CALL(quad_triangle(2, n, &x, &ww));
    memcpy(xi, x, 2 * (size_t)*n * sizeof *xi);
    memcpy(w, ww, (size_t)*n * sizeof *w);
  } else {
    const double *x, *ww;
    FEMINT_CALL(quad_tet_symmetric(3, n, &x, &ww, NULL));
    memcpy(xi, x, 3 * (size_t)*n * sizeof *xi);
    memcpy(w, ww, (size_t)*n * sizeof *w);
  }
  return 0;
}

int femint_mesh_volume(femint_mesh_t mesh, double *volume)
{
  FEMINT_CHECK(mesh, NULL, FEMINT_EINVAL, "femint_mesh_volume: mesh is NULL");
  FEMINT_CHECK(volume, mesh->ctx, FEMINT_EINVAL, "femint_mesh_volume: volume is NULL");
  double xi[3 * 16], w[16], X[3 * MESH_MAX_NODES], J[9], sum = 0;
  int n;
  FEMINT_CALL(volume_rule(mesh->topo->shape, &n, xi, w));
  const int dim = mesh->topo->dim;
  for (int c = 0; c < mesh->ncell; c++) {
    const int nnode = mesh_cell_nodes(mesh, c, X);
    double v = 0;
    for (int q = 0; q < n; q++) v += w[q] * geom_map(mesh->topo->shape, nnode, X, &xi[dim * q], NULL, J);
    sum += fabs(v);
  }
  *volume = sum;
  return 0;
}
