/* Prism meshes from arrays: input checks, the normalized local vertex order, the Jacobian check,
 * the topology (global edges and faces, found by radix sorts) and the boundary faces. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"
#include "refel_quad.h"

const int prism_edge_vert[PRISM_NE][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5},
                                          {5, 3}, {0, 3}, {1, 4}, {2, 5}};
const int prism_face_vert[PRISM_NF][4] = {
    {0, 1, 2, -1}, {3, 4, 5, -1}, {0, 1, 4, 3}, {1, 2, 5, 4}, {2, 0, 3, 5}};

static const int quad_face_vert[4][4] = {{0, 1, -1, -1}, {1, 2, -1, -1}, {2, 3, -1, -1},
                                         {3, 0, -1, -1}};

const struct cell_topo topo_prism = {FEMINT_PRISM, 3, PRISM_NV, PRISM_NE, PRISM_NF,
                                     prism_edge_vert, prism_face_vert};
const struct cell_topo topo_quad = {FEMINT_QUAD, 2, 4, 4, 4, quad_edge_vert, quad_face_vert};

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

/* Reorder the vertices of a cell: the bottom triangle sorted by ascending vertical line (then
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

/* Sort n items with nkey integer keys each (keys[i*nkey + k] in [0, range)) lexicographically:
 * a least significant digit radix sort with one counting pass per key. perm receives the item
 * indices in sorted order. Returns 0 or FEMINT_ENOMEM. */
static int sort_keys(femint_context_t ctx, int n, int nkey, const int *keys, int range, int *perm)
{
  int *tmp = malloc((size_t)n * sizeof *tmp);
  int *count = malloc(((size_t)range + 1) * sizeof *count);
  if (!tmp || !count) {
    free(tmp);
    free(count);
    return femint_seterr(ctx, FEMINT_ENOMEM, "out of memory sorting %d mesh entities", n);
  }
  for (int i = 0; i < n; i++) perm[i] = i;
  for (int k = nkey - 1; k >= 0; k--) {
    memset(count, 0, ((size_t)range + 1) * sizeof *count);
    for (int i = 0; i < n; i++) count[keys[(size_t)i * nkey + k] + 1]++;
    for (int r = 0; r < range; r++) count[r + 1] += count[r];
    for (int i = 0; i < n; i++) {
      int item = perm[i];
      tmp[count[keys[(size_t)item * nkey + k]]++] = item;
    }
    memcpy(perm, tmp, (size_t)n * sizeof *perm);
  }
  free(tmp);
  free(count);
  return 0;
}

static void sort_small(int *v, int n)
{
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
      int t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
}

static void mesh_free(struct femint_mesh *m)
{
  if (!m) return;
  free(m->coords);
  free(m->cells);
  free(m->cell_mid);
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

/* Global edges: the edges of every cell sorted by their (smaller, larger) vertex ids. */
static int build_edges(struct femint_mesh *m)
{
  const struct cell_topo *t = m->topo;
  int n = t->ne * m->ncell, ierr;
  int *keys = malloc(2 * (size_t)n * sizeof *keys), *perm = malloc((size_t)n * sizeof *perm);
  m->cell_edge = malloc((size_t)n * sizeof *m->cell_edge);
  if (!keys || !perm || !m->cell_edge) {
    ierr = femint_seterr(m->ctx, FEMINT_ENOMEM, "out of memory building the edges of a mesh");
    goto done;
  }
  for (int c = 0; c < m->ncell; c++)
    for (int e = 0; e < t->ne; e++) {
      const int *cv = &m->cells[(size_t)t->nv * c];
      int a = cv[t->edge_vert[e][0]], b = cv[t->edge_vert[e][1]];
      size_t i = (size_t)t->ne * c + e;
      keys[2 * i] = a < b ? a : b;
      keys[2 * i + 1] = a < b ? b : a;
    }
  ierr = sort_keys(m->ctx, n, 2, keys, m->nvert, perm);
  if (ierr) goto done;
  m->nedge = 0;
  for (int i = 0; i < n; i++) {
    const int *k = &keys[2 * (size_t)perm[i]];
    if (i == 0 || memcmp(k, &keys[2 * (size_t)perm[i - 1]], 2 * sizeof *k)) m->nedge++;
    m->cell_edge[perm[i]] = m->nedge - 1;
  }
  m->edge_vert = malloc(2 * (size_t)(m->nedge ? m->nedge : 1) * sizeof *m->edge_vert);
  if (!m->edge_vert) {
    ierr = femint_seterr(m->ctx, FEMINT_ENOMEM, "out of memory building the edges of a mesh");
    goto done;
  }
  for (int i = 0; i < n; i++) {
    int e = m->cell_edge[i];
    m->edge_vert[2 * e] = keys[2 * (size_t)i];
    m->edge_vert[2 * e + 1] = keys[2 * (size_t)i + 1];
  }
done:
  free(keys);
  free(perm);
  return ierr;
}

/* The key of local face f of cell c: its vertex ids, sorted, nvert in place of missing ones (a
 * triangle has the fourth key nvert, an edge of a quadrilateral the last two). */
static void face_key(const struct femint_mesh *m, int c, int f, int *k)
{
  const struct cell_topo *t = m->topo;
  for (int j = 0; j < 4; j++) {
    int lv = t->face_vert[f][j];
    k[j] = lv < 0 ? m->nvert : m->cells[(size_t)t->nv * c + lv];
  }
  sort_small(k, 4);
}

/* Global faces: the faces of every cell sorted by their keys; a face may belong to 2 cells at
 * most. */
static int build_faces(struct femint_mesh *m)
{
  const int nf = m->topo->nf;
  int n = nf * m->ncell, ierr;
  int *keys = malloc(4 * (size_t)n * sizeof *keys), *perm = malloc((size_t)n * sizeof *perm);
  m->cell_face = malloc((size_t)n * sizeof *m->cell_face);
  if (!keys || !perm || !m->cell_face) {
    ierr = femint_seterr(m->ctx, FEMINT_ENOMEM, "out of memory building the faces of a mesh");
    goto done;
  }
  for (int c = 0; c < m->ncell; c++)
    for (int f = 0; f < nf; f++) face_key(m, c, f, &keys[4 * ((size_t)nf * c + f)]);
  ierr = sort_keys(m->ctx, n, 4, keys, m->nvert + 1, perm);
  if (ierr) goto done;
  m->nface = 0;
  for (int i = 0; i < n; i++) {
    const int *k = &keys[4 * (size_t)perm[i]];
    if (i == 0 || memcmp(k, &keys[4 * (size_t)perm[i - 1]], 4 * sizeof *k)) m->nface++;
    m->cell_face[perm[i]] = m->nface - 1;
  }
  m->face_cell = malloc(2 * (size_t)(m->nface ? m->nface : 1) * sizeof *m->face_cell);
  if (!m->face_cell) {
    ierr = femint_seterr(m->ctx, FEMINT_ENOMEM, "out of memory building the faces of a mesh");
    goto done;
  }
  for (int f = 0; f < 2 * m->nface; f++) m->face_cell[f] = -1;
  for (int c = 0; c < m->ncell; c++)
    for (int f = 0; f < nf; f++) {
      int g = m->cell_face[nf * c + f];
      if (m->face_cell[2 * g] < 0) {
        m->face_cell[2 * g] = c;
      } else if (m->face_cell[2 * g + 1] < 0) {
        m->face_cell[2 * g + 1] = c;
      } else {
        const int *k = &keys[4 * ((size_t)nf * c + f)];
        char verts[64] = "";
        for (int j = 0, at = 0; j < 4 && k[j] < m->nvert; j++)
          at += snprintf(verts + at, sizeof verts - (size_t)at, " %d", k[j]);
        ierr = femint_seterr(m->ctx, FEMINT_EMESH,
                             "the %s with vertices%s is shared by more than 2 cells (%d, %d and "
                             "%d)",
                             m->topo->dim == 2 ? "edge" : "face", verts, m->face_cell[2 * g],
                             m->face_cell[2 * g + 1], c);
        goto done;
      }
    }
done:
  free(keys);
  free(perm);
  return ierr;
}

/* The faces with one cell, listed by cell and local face, with tag 0, and their vertices. */
static int build_boundary(struct femint_mesh *m)
{
  m->nbface = 0;
  for (int g = 0; g < m->nface; g++) m->nbface += m->face_cell[2 * g + 1] < 0;
  m->bface = malloc(3 * (size_t)(m->nbface ? m->nbface : 1) * sizeof *m->bface);
  m->vert_bnd = calloc((size_t)m->nvert, sizeof *m->vert_bnd);
  if (!m->bface || !m->vert_bnd)
    return femint_seterr(m->ctx, FEMINT_ENOMEM, "out of memory listing the boundary faces");
  const struct cell_topo *t = m->topo;
  int n = 0;
  for (int c = 0; c < m->ncell; c++)
    for (int f = 0; f < t->nf; f++) {
      if (m->face_cell[2 * m->cell_face[t->nf * c + f] + 1] >= 0) continue;
      m->bface[3 * n] = c;
      m->bface[3 * n + 1] = f;
      m->bface[3 * n + 2] = 0;
      n++;
      for (int j = 0; j < 4 && t->face_vert[f][j] >= 0; j++)
        m->vert_bnd[m->cells[(size_t)t->nv * c + t->face_vert[f][j]]] = 1;
    }
  return 0;
}

int mesh_build_topology(struct femint_mesh *m)
{
  FEMINT_CALL(build_edges(m));
  FEMINT_CALL(build_faces(m));
  return build_boundary(m);
}

int mesh_face_nv(const struct femint_mesh *m, int f)
{
  int nv = 0;
  while (nv < 4 && m->topo->face_vert[f][nv] >= 0) nv++;
  return nv;
}

void mesh_tag_boundary(struct femint_mesh *mesh, mesh_tag_fn fn, void *user)
{
  for (int b = 0; b < mesh->nbface; b++) {
    const struct cell_topo *t = mesh->topo;
    int c = mesh->bface[3 * b], f = mesh->bface[3 * b + 1], nv = mesh_face_nv(mesh, f);
    double X[12];
    for (int j = 0; j < nv; j++)
      memcpy(&X[3 * j],
             &mesh->coords[3 * (size_t)mesh->cells[(size_t)t->nv * c + t->face_vert[f][j]]],
             3 * sizeof(double));
    mesh->bface[3 * b + 2] = fn(nv, X, user);
  }
}

/* Lexicographic order of two sorted face keys of 4 vertices. */
static int face_key_cmp(const int *a, const int *b)
{
  for (int j = 0; j < 4; j++)
    if (a[j] != b[j]) return a[j] < b[j] ? -1 : 1;
  return 0;
}

int mesh_set_face_tags(struct femint_mesh *m, int n, const int *faces, const int *tags,
                       int *unmatched)
{
  *unmatched = -1;
  if (n == 0 || m->nbface == 0) {
    if (n > 0) *unmatched = 0;
    return 0;
  }
  int nb = m->nbface, ierr;
  int *keys = malloc(4 * (size_t)nb * sizeof *keys), *perm = malloc((size_t)nb * sizeof *perm);
  if (!keys || !perm) {
    ierr = femint_seterr(m->ctx, FEMINT_ENOMEM, "out of memory tagging the boundary faces");
    goto done;
  }
  /* Boundary faces keyed by their sorted vertices (a triangle has the fourth key nvert). */
  for (int b = 0; b < nb; b++) face_key(m, m->bface[3 * b], m->bface[3 * b + 1], &keys[4 * (size_t)b]);
  if ((ierr = sort_keys(m->ctx, nb, 4, keys, m->nvert + 1, perm))) goto done;
  for (int i = 0; i < n; i++) {
    int k[4], lo = 0, hi = nb, ok = 1;
    const int first_missing = m->topo->dim == 2 ? 2 : 3; /* an edge has 2 vertices */
    for (int j = 0; j < 4; j++) {
      int v = faces[4 * (size_t)i + j];
      k[j] = j >= first_missing && v == -1 ? m->nvert : v;
      ok &= (v >= 0 && v < m->nvert) || (j >= first_missing && v == -1);
    }
    sort_small(k, 4);
    while (ok && lo < hi) {
      int mid = lo + (hi - lo) / 2;
      if (face_key_cmp(&keys[4 * (size_t)perm[mid]], k) < 0) lo = mid + 1;
      else hi = mid;
    }
    if (!ok || lo == nb || face_key_cmp(&keys[4 * (size_t)perm[lo]], k) != 0) {
      *unmatched = i;
      break;
    }
    m->bface[3 * perm[lo] + 2] = tags[i];
  }
done:
  free(keys);
  free(perm);
  return ierr;
}

double mesh_uniform(uint64_t *state)
{
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull); /* splitmix64 */
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

int mesh_check_input(femint_context_t ctx, int nvert, const double *coords, int dim, int ncell,
                     int nv, const int *cells)
{
  for (int v = 0; v < nvert; v++)
    for (int j = 0; j < dim; j++)
      FEMINT_CHECK(isfinite(coords[(size_t)dim * v + j]), ctx, FEMINT_EMESH,
                   "vertex %d has a coordinate that is not finite (%g)", v,
                   coords[(size_t)dim * v + j]);
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

/* femint_mesh_create_prisms (gid NULL: the global ids are the indices) or a part of a mesh with
 * the global ids of its vertices, which decide the local vertex order of the cells. who names the
 * public function in messages. */
static int create_prisms(femint_context_t ctx, const char *who, int nvert, const double *coords,
                         const int64_t *gid, int ncell, const int *cells, femint_mesh_t *mesh)
{
  FEMINT_CHECK(mesh, ctx, FEMINT_EINVAL, "%s: mesh (output) is NULL", who);
  *mesh = NULL;
  FEMINT_CHECK(nvert >= 6, ctx, FEMINT_EINVAL,
               "%s: nvert = %d (a prism mesh has 6 vertices or more)", who, nvert);
  FEMINT_CHECK(ncell >= 1 && ncell <= INT_MAX / (2 * PRISM_NE), ctx, FEMINT_EINVAL,
               "%s: ncell = %d (1 to %d)", who, ncell, INT_MAX / (2 * PRISM_NE));
  FEMINT_CHECK(nvert < INT_MAX, ctx, FEMINT_EINVAL, "%s: nvert too large", who);
  FEMINT_CHECK(coords, ctx, FEMINT_EINVAL, "%s: coords is NULL", who);
  FEMINT_CHECK(cells, ctx, FEMINT_EINVAL, "%s: cells is NULL", who);
  FEMINT_CALL(mesh_check_input(ctx, nvert, coords, 3, ncell, 6, cells));

  struct femint_mesh *m;
  FEMINT_CALL(mesh_alloc(ctx, &topo_prism, nvert, ncell, &m));
  int ierr = 0, *line = malloc((size_t)nvert * sizeof *line);
  if (!line) {
    ierr = femint_seterr(ctx, FEMINT_ENOMEM, "out of memory creating a mesh of %d cells", ncell);
    goto fail;
  }
  memcpy(m->coords, coords, 3 * (size_t)nvert * sizeof *m->coords);
  for (int v = 0; v < nvert; v++) m->vert_gid[v] = gid ? gid[v] : v;
  /* A whole mesh orders its triangles by vertical lines, whatever its numbering. A part cannot:
   * its pieces of a line need not reach as low as its neighbour's, so their smallest ids differ.
   * It orders them by the ids of the vertices themselves (each vertex its own line), which
   * agrees across parts for a numbering alike on every level. */
  if (gid) {
    for (int v = 0; v < nvert; v++) line[v] = v;
  } else {
    vertical_lines(nvert, ncell, cells, m->vert_gid, line);
  }
  for (int c = 0; c < ncell; c++)
    normalize_cell(line, m->vert_gid, &cells[6 * (size_t)c], &m->cells[6 * (size_t)c]);
  for (int c = 0; c < ncell; c++) {
    double X[18], det, xi[3];
    for (int a = 0; a < 6; a++)
      memcpy(&X[3 * a], &coords[3 * (size_t)m->cells[6 * (size_t)c + a]], 3 * sizeof(double));
    if (!mesh_check_cell(X, &det, xi)) {
      ierr = femint_seterr(ctx, FEMINT_EJACOBIAN,
                           "cell %d has a non-positive Jacobian (det J = %g at reference point "
                           "(%g,%g,%g))",
                           c, det, xi[0], xi[1], xi[2]);
      goto fail;
    }
  }
  if ((ierr = mesh_build_topology(m))) goto fail;
  free(line);
  *mesh = m;
  return 0;
fail:
  free(line);
  mesh_free(m);
  return ierr;
}

int femint_mesh_create_prisms(femint_context_t ctx, int nvert, const double *coords, int ncell,
                              const int *cells, femint_mesh_t *mesh)
{
  return create_prisms(ctx, "femint_mesh_create_prisms", nvert, coords, NULL, ncell, cells, mesh);
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

int femint_mesh_create_prisms_part(femint_context_t ctx, int nvert, const double *coords,
                                   const int64_t *global_ids, int ncell, const int *cells,
                                   const int *materials, int nface, const int *faces,
                                   const int *tags, femint_mesh_t *mesh)
{
  const char *who = "femint_mesh_create_prisms_part";
  FEMINT_CHECK(mesh, ctx, FEMINT_EINVAL, "%s: mesh (output) is NULL", who);
  *mesh = NULL;
  FEMINT_CHECK(global_ids, ctx, FEMINT_EINVAL, "%s: global_ids is NULL", who);
  FEMINT_CHECK(nface >= 0 && (nface == 0 || (faces && tags)), ctx, FEMINT_EINVAL,
               "%s: nface = %d with %s faces and %s tags", who, nface, faces ? "a list of" : "no",
               tags ? "a list of" : "no");
  FEMINT_CHECK(nvert >= 6, ctx, FEMINT_EINVAL,
               "%s: nvert = %d (a prism mesh has 6 vertices or more)", who, nvert);
  FEMINT_CALL(check_global_ids(ctx, who, nvert, global_ids));
  FEMINT_CALL(create_prisms(ctx, who, nvert, coords, global_ids, ncell, cells, mesh));
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

int femint_mesh_volume(femint_mesh_t mesh, double *volume)
{
  FEMINT_CHECK(mesh, NULL, FEMINT_EINVAL, "femint_mesh_volume: mesh is NULL");
  FEMINT_CHECK(volume, mesh->ctx, FEMINT_EINVAL, "femint_mesh_volume: volume is NULL");
  if (mesh->topo->shape == FEMINT_QUAD) {
    *volume = mesh_quad_area(mesh);
    return 0;
  }
  /* det J is linear in xi1, xi2 and quadratic in xi3: the centroid of the triangle (weight 1/2)
   * times the 2-point Gauss rule on [-1, 1] integrates it exactly. */
  const double g = 1 / sqrt(3.0), pts[2][3] = {{1 / 3.0, 1 / 3.0, -g}, {1 / 3.0, 1 / 3.0, g}};
  double sum = 0, X[18], J[9];
  for (int c = 0; c < mesh->ncell; c++) {
    for (int a = 0; a < 6; a++)
      memcpy(&X[3 * a], &mesh->coords[3 * (size_t)mesh->cells[6 * (size_t)c + a]],
             3 * sizeof(double));
    for (int q = 0; q < 2; q++) sum += 0.5 * geom_prism_jacobian(X, pts[q], J);
  }
  *volume = sum;
  return 0;
}
