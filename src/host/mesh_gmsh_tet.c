/* Tetrahedral meshes (mesh_tet.h) from Gmsh MSH files: 4- and 10-node tetrahedra, the edge nodes
 * of 10-node cells given to the mesh's edges, boundary face tags from tagged triangles. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gmsh.h"
#include "mesh_tet.h"

/* The corners of the edges of Gmsh's 10-node tetrahedron, whose nodes 4..9 they carry. */
static const int gmsh_tet10_edge[TET_NE][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}};

/* The mesh's local edge (0..5, refel_tet.h) of cell c between vertices va and vb. */
static int local_edge(const struct tet_mesh *m, int c, int va, int vb)
{
  const int *v = &m->cells[4 * (size_t)c];
  for (int e = 0; e < TET_NE; e++) {
    const int p = v[tet_edge_vert[e][0]], q = v[tet_edge_vert[e][1]];
    if ((p == va && q == vb) || (p == vb && q == va)) return e;
  }
  return -1;
}

/* Give every edge the node of its cells (nnode 10), checking that the cells of an edge agree. */
static int set_edge_nodes(const struct gmsh_file *gf, const struct gmsh_selection *s,
                          struct tet_mesh *m)
{
  int *owner = malloc(((size_t)m->nedge + 1) * sizeof *owner), ierr = 0;
  int64_t *tag = malloc(((size_t)m->nedge + 1) * sizeof *tag);
  m->edge_x = malloc(3 * ((size_t)m->nedge + 1) * sizeof *m->edge_x);
  if (!owner || !tag || !m->edge_x) {
    ierr = femint_seterr(NULL, FEMINT_ENOMEM, "%s: out of memory building the mesh", gf->path);
    goto done;
  }
  for (int e = 0; e < m->nedge; e++) owner[e] = -1;
  for (int c = 0; c < s->ncell && !ierr; c++) {
    const int t = s->cell_type[c];
    double G[30];
    const int nodes = gmsh_cell_nodes(gf, s, c, G);
    const int *n = &gf->elem[t].node[(size_t)nodes * s->cell[c]];
    for (int k = 0; k < TET_NE; k++) {
      /* Gmsh's node 4 + k, or the midpoint of a 4-node cell's edge. */
      const int p = gmsh_tet10_edge[k][0], q = gmsh_tet10_edge[k][1];
      const int va = s->vert[n[p]], vb = s->vert[n[q]];
      const int ge = m->cell_edge[6 * (size_t)c + local_edge(m, c, va, vb)];
      const int64_t xt = nodes == 10 ? gf->node[n[4 + k]].tag : -1;
      double x[3];
      for (int d = 0; d < 3; d++)
        x[d] = nodes == 10 ? G[3 * (4 + k) + d] : (G[3 * p + d] + G[3 * q + d]) / 2;
      double *y = &m->edge_x[3 * (size_t)ge];
      if (owner[ge] < 0) {
        owner[ge] = c;
        tag[ge] = xt;
        memcpy(y, x, sizeof x);
        continue;
      }
      const double *a = &m->coords[3 * (size_t)va], *b = &m->coords[3 * (size_t)vb];
      const double len = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                              (a[2] - b[2]) * (a[2] - b[2]));
      const double dist = sqrt((x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) +
                               (x[2] - y[2]) * (x[2] - y[2]));
      if (dist > 1e-12 * len) {
        const int o = owner[ge];
        const struct gmsh_elements *eo = &gf->elem[s->cell_type[o]];
        ierr = gmsh_fail_cell(gf, s, c, FEMINT_EMESH,
                              "and cell %d (element %" PRId64 " at %s %" PRId64
                              ") give the edge between nodes %" PRId64 " and %" PRId64
                              " different nodes: %" PRId64 " at (%g, %g, %g) and %" PRId64
                              " at (%g, %g, %g) (-1: the midpoint of a 4-node cell's edge)",
                              o, eo->tag[s->cell[o]], gf->binary ? "byte" : "line",
                              eo->pos[s->cell[o]], gf->node[n[p]].tag, gf->node[n[q]].tag, xt, x[0],
                              x[1], x[2], tag[ge], y[0], y[1], y[2]);
        break;
      }
    }
  }
  m->nnode = 10;
done:
  free(owner);
  free(tag);
  return ierr;
}

static int cmp_key(const void *a, const void *b)
{
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static int64_t face_key(int n, int a, int b, int c)
{
  int v[3] = {a, b, c};
  for (int i = 1; i < 3; i++)
    for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
      const int t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  return ((int64_t)v[0] * n + v[1]) * n + v[2];
}

/* Boundary faces GMSH_TET_UNTAGGED, then the tags of the selected triangles. */
static int tag_faces(const struct gmsh_file *gf, const struct gmsh_selection *s, struct tet_mesh *m)
{
  int nb = 0, ierr = 0;
  int64_t *key = malloc(2 * ((size_t)m->nface + 1) * sizeof *key);
  if (!key)
    return femint_seterr(NULL, FEMINT_ENOMEM, "%s: out of memory building the mesh", gf->path);
  for (int f = 0; f < m->nface; f++) {
    if (m->face_cell[2 * f + 1] >= 0) continue;
    m->face_tag[f] = GMSH_TET_UNTAGGED;
    const int *v = &m->face_vert[3 * (size_t)f];
    key[2 * nb] = face_key(m->nvert, v[0], v[1], v[2]);
    key[2 * nb++ + 1] = f;
  }
  qsort(key, (size_t)nb, 2 * sizeof *key, cmp_key);
  for (int i = 0; i < s->nface && !ierr; i++) {
    const struct gmsh_face *gface = &s->face[i];
    const int64_t *at = NULL;
    if (gface->v[3] < 0 && gface->v[2] >= 0) {
      const int a = s->vert[gface->v[0]], b = s->vert[gface->v[1]], c = s->vert[gface->v[2]];
      const int64_t k = face_key(m->nvert, a, b, c);
      if (a >= 0 && b >= 0 && c >= 0) at = bsearch(&k, key, (size_t)nb, 2 * sizeof *key, cmp_key);
    }
    if (at)
      m->face_tag[at[1]] = gface->tag;
    else
      ierr = gmsh_fail_face(gf, gface, "tetrahedra");
  }
  free(key);
  return ierr;
}

/* Each cell's geometry checked in Gmsh's order, to name its element: femint's X[nnode][3] from
 * Gmsh's nodes (femint's edge e between corners a < b is Gmsh's edge of the same corners). */
static int check_cells(const struct gmsh_file *gf, const struct gmsh_selection *s)
{
  static const int node_of_edge[TET_NE] = {4, 6, 7, 5, 9, 8};
  for (int c = 0; c < s->ncell; c++) {
    double G[30], X[30];
    const int nnode = gmsh_cell_nodes(gf, s, c, G);
    memcpy(X, G, 12 * sizeof *X);
    if (nnode == 10)
      for (int e = 0; e < TET_NE; e++)
        memcpy(&X[3 * (4 + e)], &G[3 * node_of_edge[e]], 3 * sizeof *X);
    if (geom_tet_check(NULL, nnode, X, NULL))
      return gmsh_fail_cell(gf, s, c, FEMINT_EJACOBIAN, "%s", femint_thread_error());
  }
  return 0;
}

int gmsh_read_tet_mesh(const char *path, int part, struct tet_mesh **mesh)
{
  FEMINT_CHECK(mesh, NULL, FEMINT_EINVAL, "gmsh_read_tet_mesh: mesh (output) is NULL");
  *mesh = NULL;
  FEMINT_CHECK(path, NULL, FEMINT_EINVAL, "gmsh_read_tet_mesh: path is NULL");
  FEMINT_CHECK(part == -1 || part >= 1, NULL, FEMINT_EINVAL,
               "gmsh_read_tet_mesh: part = %d (-1 for all, or a partition from 1)", part);
  static const int tet[] = {GMSH_TET, GMSH_TET10};
  struct gmsh_file gf;
  struct gmsh_selection s = {0};
  FEMINT_CALL(gmsh_file_read_part(NULL, path, part, &gf));
  int *cells = NULL, ierr;
  if (gmsh_cell_dim(&gf) == 3)
    ierr = gmsh_check_cells(&gf, 3, 2, tet,
                            "a tetrahedral mesh holds 4- and 10-node tetrahedra only");
  else
    ierr = gmsh_fail_at(&gf, -1, FEMINT_EMESH,
                        "the file has no tetrahedron (element type 4 or 11)");
  if (!ierr) ierr = gmsh_select(&gf, 3, part, "tetrahedron", &s);
  if (!ierr) ierr = check_cells(&gf, &s);
  if (!ierr && !(cells = malloc(4 * (size_t)s.ncell * sizeof *cells)))
    ierr = femint_seterr(NULL, FEMINT_ENOMEM, "%s: out of memory building the mesh", path);
  for (int c = 0; !ierr && c < s.ncell; c++) {
    const int nodes = s.cell_type[c] == GMSH_TET10 ? 10 : 4;
    for (int a = 0; a < 4; a++)
      cells[4 * (size_t)c + a] =
          s.vert[gf.elem[s.cell_type[c]].node[(size_t)nodes * s.cell[c] + a]];
  }
  if (!ierr && (ierr = tet_mesh_create(s.nvert, s.coords, s.ncell, cells, mesh)))
    ierr = gmsh_fail_wrap(&gf, ierr);
  int curved = 0;
  for (int c = 0; !ierr && c < s.ncell; c++) curved |= s.cell_type[c] == GMSH_TET10;
  if (!ierr && curved && (ierr = set_edge_nodes(&gf, &s, *mesh)) == 0 &&
      (ierr = tet_mesh_check(*mesh)))
    ierr = gmsh_fail_wrap(&gf, ierr);
  if (!ierr) ierr = tag_faces(&gf, &s, *mesh);
  if (ierr) tet_mesh_destroy(mesh);
  free(cells);
  gmsh_selection_free(&s);
  gmsh_file_free(&gf);
  return ierr;
}
