/* Tetrahedral meshes: cells with sorted vertices, their edges and faces found by sorting keys,
 * boundary faces, the box of cubes cut in six, and the map that makes cells quadratic (curved). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_tet.h"

void tet_mesh_destroy(struct tet_mesh **mesh)
{
  if (!mesh || !*mesh) return;
  struct tet_mesh *m = *mesh;
  free(m->coords);
  free(m->cells);
  free(m->edge_vert);
  free(m->face_vert);
  free(m->cell_edge);
  free(m->cell_face);
  free(m->face_cell);
  free(m->face_tag);
  free(m->edge_x);
  free(m);
  *mesh = NULL;
}

static int cmp_i64(const void *a, const void *b)
{
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Sort keys[n] and drop repeats; returns the number of distinct keys. */
static int64_t sort_unique(int64_t n, int64_t *keys)
{
  qsort(keys, (size_t)n, sizeof *keys, cmp_i64);
  int64_t m = 0;
  for (int64_t k = 0; k < n; k++)
    if (m == 0 || keys[k] != keys[m - 1]) keys[m++] = keys[k];
  return m;
}

static int find_key(int64_t n, const int64_t *keys, int64_t key)
{
  const int64_t *at = bsearch(&key, keys, (size_t)n, sizeof *keys, cmp_i64);
  return at ? (int)(at - keys) : -1;
}

static int64_t edge_key(const struct tet_mesh *m, int a, int b)
{
  return (int64_t)a * m->nvert + b;
}

static int64_t face_key(const struct tet_mesh *m, int a, int b, int c)
{
  return ((int64_t)a * m->nvert + b) * m->nvert + c;
}

/* Edges, faces, their cells and the boundary tags (1) from the sorted cells. */
static int build_topology(struct tet_mesh *m)
{
  const int64_t ne = 6 * (int64_t)m->ncell, nf = 4 * (int64_t)m->ncell;
  int64_t *ekey = malloc(sizeof *ekey * (ne + 1)), *fkey = malloc(sizeof *fkey * (nf + 1));
  m->cell_edge = malloc(sizeof(int) * 6 * m->ncell);
  m->cell_face = malloc(sizeof(int) * 4 * m->ncell);
  if (!ekey || !fkey || !m->cell_edge || !m->cell_face) goto nomem;
  for (int c = 0; c < m->ncell; c++) {
    const int *v = m->cells + 4 * c;
    for (int e = 0; e < TET_NE; e++)
      ekey[6 * c + e] = edge_key(m, v[tet_edge_vert[e][0]], v[tet_edge_vert[e][1]]);
    for (int f = 0; f < TET_NF; f++) {
      const int *fv = tet_face_vert[f];
      fkey[4 * c + f] = face_key(m, v[fv[0]], v[fv[1]], v[fv[2]]);
    }
  }
  int64_t *ecell = malloc(sizeof *ecell * (ne + 1)), *fcell = malloc(sizeof *fcell * (nf + 1));
  if (!ecell || !fcell) {
    free(ecell);
    free(fcell);
    goto nomem;
  }
  memcpy(ecell, ekey, sizeof *ekey * ne);
  memcpy(fcell, fkey, sizeof *fkey * nf);
  m->nedge = (int)sort_unique(ne, ekey);
  m->nface = (int)sort_unique(nf, fkey);
  for (int64_t k = 0; k < ne; k++) m->cell_edge[k] = find_key(m->nedge, ekey, ecell[k]);
  for (int64_t k = 0; k < nf; k++) m->cell_face[k] = find_key(m->nface, fkey, fcell[k]);
  free(ecell);
  free(fcell);
  m->edge_vert = malloc(sizeof(int) * 2 * m->nedge);
  m->face_vert = malloc(sizeof(int) * 3 * m->nface);
  m->face_cell = malloc(sizeof(int) * 2 * m->nface);
  m->face_tag = calloc((size_t)m->nface, sizeof(int));
  if (!m->edge_vert || !m->face_vert || !m->face_cell || !m->face_tag) goto nomem;
  for (int e = 0; e < m->nedge; e++) {
    m->edge_vert[2 * e] = (int)(ekey[e] / m->nvert);
    m->edge_vert[2 * e + 1] = (int)(ekey[e] % m->nvert);
  }
  for (int f = 0; f < m->nface; f++) {
    m->face_vert[3 * f] = (int)(fkey[f] / m->nvert / m->nvert);
    m->face_vert[3 * f + 1] = (int)(fkey[f] / m->nvert % m->nvert);
    m->face_vert[3 * f + 2] = (int)(fkey[f] % m->nvert);
    m->face_cell[2 * f] = m->face_cell[2 * f + 1] = -1;
  }
  free(ekey);
  free(fkey);
  ekey = fkey = NULL;
  for (int c = 0; c < m->ncell; c++)
    for (int f = 0; f < TET_NF; f++) {
      int *fc = m->face_cell + 2 * m->cell_face[4 * c + f];
      FEMINT_CHECK(fc[1] < 0, NULL, FEMINT_EMESH,
                   "tetrahedral mesh: face (%d, %d, %d) of cell %d already has cells %d and %d",
                   m->cells[4 * c + tet_face_vert[f][0]], m->cells[4 * c + tet_face_vert[f][1]],
                   m->cells[4 * c + tet_face_vert[f][2]], c, fc[0], fc[1]);
      fc[fc[0] < 0 ? 0 : 1] = c;
    }
  for (int f = 0; f < m->nface; f++) m->face_tag[f] = m->face_cell[2 * f + 1] < 0;
  return 0;

nomem:
  free(ekey);
  free(fkey);
  return femint_seterr(NULL, FEMINT_ENOMEM, "tetrahedral mesh: out of memory for %d cells",
                       m->ncell);
}

static void sort4(int *v)
{
  for (int i = 1; i < 4; i++)
    for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
      const int t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
}

int tet_mesh_check(const struct tet_mesh *m)
{
  for (int c = 0; c < m->ncell; c++) {
    double X[30];
    tet_mesh_cell_nodes(m, c, X);
    if (geom_tet_check(NULL, m->nnode, X, NULL)) {
      char why[256];
      snprintf(why, sizeof why, "%s", femint_thread_error());
      return femint_seterr(NULL, FEMINT_EJACOBIAN,
                           "tetrahedral mesh: cell %d (vertices %d %d "
                           "%d %d): %s",
                           c, m->cells[4 * c], m->cells[4 * c + 1], m->cells[4 * c + 2],
                           m->cells[4 * c + 3], why);
    }
  }
  return 0;
}

int tet_mesh_create(int nvert, const double *coords, int ncell, const int *cells,
                    struct tet_mesh **mesh)
{
  *mesh = NULL;
  FEMINT_CHECK(nvert >= 4 && ncell >= 1 && nvert <= 2000000, NULL, FEMINT_EINVAL,
               "tetrahedral mesh: %d vertices (4..2000000) and %d cells (at least 1)", nvert,
               ncell);
  struct tet_mesh *m = calloc(1, sizeof *m);
  if (!m) return femint_seterr(NULL, FEMINT_ENOMEM, "tetrahedral mesh: out of memory");
  m->nvert = nvert;
  m->ncell = ncell;
  m->nnode = 4;
  m->coords = malloc(sizeof(double) * 3 * nvert);
  m->cells = malloc(sizeof(int) * 4 * ncell);
  int err = 0;
  if (!m->coords || !m->cells) {
    err = femint_seterr(NULL, FEMINT_ENOMEM, "tetrahedral mesh: out of memory");
    goto fail;
  }
  memcpy(m->coords, coords, sizeof(double) * 3 * nvert);
  for (int c = 0; c < ncell && !err; c++) {
    int *v = m->cells + 4 * c;
    memcpy(v, cells + 4 * c, sizeof(int) * 4);
    sort4(v);
    if (v[0] < 0 || v[3] >= nvert)
      err = femint_seterr(NULL, FEMINT_EMESH,
                          "tetrahedral mesh: cell %d has vertex %d outside "
                          "0..%d",
                          c, v[0] < 0 ? v[0] : v[3], nvert - 1);
    else if (v[0] == v[1] || v[1] == v[2] || v[2] == v[3])
      err = femint_seterr(NULL, FEMINT_EMESH,
                          "tetrahedral mesh: cell %d repeats a vertex (%d %d "
                          "%d %d)",
                          c, v[0], v[1], v[2], v[3]);
  }
  if (!err) err = build_topology(m);
  if (!err) err = tet_mesh_check(m);
  if (err) goto fail;
  *mesh = m;
  return 0;

fail:
  tet_mesh_destroy(&m);
  return err;
}

/* Tag of a boundary face of the box from its centroid: the wall it lies on. */
static int box_tag(const double *c, const double *len)
{
  for (int d = 0; d < 3; d++) {
    const double tol = 1e-9 * len[d];
    if (fabs(c[d]) < tol) return 1 + 2 * d;
    if (fabs(c[d] - len[d]) < tol) return 2 + 2 * d;
  }
  return 1;
}

int tet_mesh_create_box(int nx, int ny, int nz, double lx, double ly, double lz,
                        struct tet_mesh **mesh)
{
  *mesh = NULL;
  FEMINT_CHECK(nx >= 1 && ny >= 1 && nz >= 1 && (int64_t)nx * ny * nz <= 20000000, NULL,
               FEMINT_EINVAL, "tetrahedral box: %d x %d x %d cubes", nx, ny, nz);
  FEMINT_CHECK(lx > 0 && ly > 0 && lz > 0, NULL, FEMINT_EINVAL,
               "tetrahedral box: sides %g x %g x %g must be positive", lx, ly, lz);
  const int nvert = (nx + 1) * (ny + 1) * (nz + 1), ncell = 6 * nx * ny * nz;
  double *X = malloc(sizeof(double) * 3 * nvert);
  int *C = malloc(sizeof(int) * 4 * ncell);
  if (!X || !C) {
    free(X);
    free(C);
    return femint_seterr(NULL, FEMINT_ENOMEM, "tetrahedral box: out of memory");
  }
#define VID(i, j, k) (((k) * (ny + 1) + (j)) * (nx + 1) + (i))
  for (int k = 0; k <= nz; k++)
    for (int j = 0; j <= ny; j++)
      for (int i = 0; i <= nx; i++) {
        double *x = X + 3 * VID(i, j, k);
        x[0] = lx * i / nx;
        x[1] = ly * j / ny;
        x[2] = lz * k / nz;
      }
  /* The tetrahedra of a cube are the 6 monotone paths from corner 000 to 111 along its edges. */
  static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  int c = 0;
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < nx; i++)
        for (int t = 0; t < 6; t++, c++) {
          int p[3] = {i, j, k};
          C[4 * c] = VID(p[0], p[1], p[2]);
          for (int s = 0; s < 3; s++) {
            p[perm[t][s]]++;
            C[4 * c + 1 + s] = VID(p[0], p[1], p[2]);
          }
        }
#undef VID
  int err = tet_mesh_create(nvert, X, ncell, C, mesh);
  free(X);
  free(C);
  if (err) return err;
  struct tet_mesh *m = *mesh;
  const double len[3] = {lx, ly, lz};
  for (int f = 0; f < m->nface; f++) {
    if (!m->face_tag[f]) continue;
    double cen[3] = {0, 0, 0};
    for (int a = 0; a < 3; a++)
      for (int d = 0; d < 3; d++) cen[d] += m->coords[3 * m->face_vert[3 * f + a] + d] / 3;
    m->face_tag[f] = box_tag(cen, len);
  }
  return 0;
}

void tet_mesh_cell_nodes(const struct tet_mesh *m, int c, double *X)
{
  for (int a = 0; a < 4; a++) memcpy(X + 3 * a, m->coords + 3 * m->cells[4 * c + a], 24);
  if (m->nnode == 10)
    for (int e = 0; e < TET_NE; e++)
      memcpy(X + 3 * (4 + e), m->edge_x + 3 * m->cell_edge[6 * c + e], 24);
}

int tet_mesh_map(struct tet_mesh *m, tet_map_fn map, void *user)
{
  if (m->nnode == 4) {
    m->edge_x = malloc(sizeof(double) * 3 * m->nedge);
    if (!m->edge_x) return femint_seterr(NULL, FEMINT_ENOMEM, "tetrahedral mesh: out of memory");
    for (int e = 0; e < m->nedge; e++)
      for (int d = 0; d < 3; d++)
        m->edge_x[3 * e + d] =
            (m->coords[3 * m->edge_vert[2 * e] + d] + m->coords[3 * m->edge_vert[2 * e + 1] + d]) /
            2;
    m->nnode = 10;
  }
  for (int v = 0; v < m->nvert; v++) {
    double y[3];
    map(m->coords + 3 * v, y, user);
    memcpy(m->coords + 3 * v, y, sizeof y);
  }
  for (int e = 0; e < m->nedge; e++) {
    double y[3];
    map(m->edge_x + 3 * e, y, user);
    memcpy(m->edge_x + 3 * e, y, sizeof y);
  }
  return tet_mesh_check(m);
}
