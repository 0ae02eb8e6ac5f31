/* The topology of a mesh of any shape: global edges and faces found by radix sorts of their
 * vertex keys, the cells of each face, the boundary faces and their tags. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"

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

/* Whether cells a and b have the same vertices (in any order). */
static int same_cell(const struct femint_mesh *m, int a, int b)
{
  const int nv = m->topo->nv;
  const int *va = &m->cells[(size_t)nv * a], *vb = &m->cells[(size_t)nv * b];
  for (int i = 0; i < nv; i++) {
    int found = 0;
    for (int j = 0; j < nv && !found; j++) found = va[i] == vb[j];
    if (!found) return 0;
  }
  return 1;
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
        char verts[64] = "", n0[200], n1[200], n2[200];
        for (int j = 0, at = 0; j < 4 && k[j] < m->nvert; j++)
          at += snprintf(verts + at, sizeof verts - (size_t)at, " %d", k[j]);
        const int a = m->face_cell[2 * g], b = m->face_cell[2 * g + 1];
        const int twin = same_cell(m, a, c) ? a : same_cell(m, b, c) ? b : -1;
        if (twin >= 0)
          ierr = femint_seterr(m->ctx, FEMINT_EMESH, "%s repeats %s (the same vertices)",
                               mesh_cell_name(m, c, n2, sizeof n2),
                               mesh_cell_name(m, twin, n0, sizeof n0));
        else
          ierr = femint_seterr(m->ctx, FEMINT_EMESH,
                               "the %s with vertices%s is shared by more than 2 cells: %s, %s and "
                               "%s",
                               m->topo->dim == 2 ? "edge" : "face", verts,
                               mesh_cell_name(m, a, n0, sizeof n0),
                               mesh_cell_name(m, b, n1, sizeof n1),
                               mesh_cell_name(m, c, n2, sizeof n2));
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

int mesh_local_edge(const struct femint_mesh *m, int c, int a, int b)
{
  const struct cell_topo *t = m->topo;
  const int *cv = &m->cells[(size_t)t->nv * c];
  for (int e = 0; e < t->ne; e++) {
    const int p = cv[t->edge_vert[e][0]], q = cv[t->edge_vert[e][1]];
    if ((p == a && q == b) || (p == b && q == a)) return e;
  }
  return -1;
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
