/* The names of the DOFs of a space across the parts of a distributed mesh (keys made of global
 * vertex ids) and the caller's global numbering of them. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"
#include "refel_hex.h"

int femint_dof_key_compare(const void *a, const void *b)
{
  const struct femint_dof_key *x = a, *y = b;
  for (int j = 0; j < 4; j++)
    if (x->vert[j] != y->vert[j]) return x->vert[j] < y->vert[j] ? -1 : 1;
  if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
  if (x->mode != y->mode) return x->mode < y->mode ? -1 : 1;
  if (x->comp != y->comp) return x->comp < y->comp ? -1 : 1;
  return 0;
}

/* The order of every vertex, edge and face on this part: the lowest order of its cells (the
 * minimum rule, as space_create applies it to edges and faces). */
static void entity_orders(const struct femint_space *s, int *vertex_order, int *edge_order,
                          int *face_order)
{
  const struct femint_mesh *m = s->mesh;
  const struct cell_topo *t = m->topo;
  for (int v = 0; v < m->nvert; v++) vertex_order[v] = INT_MAX;
  for (int e = 0; e < m->nedge; e++) edge_order[e] = INT_MAX;
  for (int f = 0; f < m->nface; f++) face_order[f] = INT_MAX;
  for (int c = 0; c < m->ncell; c++) {
    const int p = s->order[c];
    for (int a = 0; a < t->nv; a++) {
      int *q = &vertex_order[m->cells[(size_t)t->nv * c + a]];
      if (p < *q) *q = p;
    }
    for (int e = 0; e < t->ne; e++) {
      int *q = &edge_order[m->cell_edge[(size_t)t->ne * c + e]];
      if (p < *q) *q = p;
    }
    for (int f = 0; f < t->nf; f++) {
      int *q = &face_order[m->cell_face[(size_t)t->nf * c + f]];
      if (p < *q) *q = p;
    }
  }
}

/* The key of local mode i (described by md) of cell c; `interior` counts the interior modes of
 * the cell before it. */
/* The rank of an edge or face mode among those of its entity: hierarchical modes by their rank
 * at the highest order (lower orders are prefixes), a hexahedron's nodes in the entity's own
 * orientation. */
static int key_rank(const struct refel *re, const struct refel_mode *md, const int *cv,
                    const int64_t *gid)
{
  if (re->shape != FEMINT_HEX && refel_nodal(re->shape, re->family))
    return refel_rank(re, md, re->order); /* Lagrange simplices: vertices in ascending ids */
  if (re->shape != FEMINT_HEX) return refel_rank(re, md, refel_max_order(re->shape, re->family));
  int64_t gv[MESH_MAX_NV];
  for (int a = 0; a < HEX_NV; a++) gv[a] = gid[cv[a]];
  return space_mode_rank(re, md, re->order, gv);
}

static void mode_key(const struct femint_space *s, const struct refel *re, int c,
                     const struct refel_mode *md, int interior, const int *const orders[3],
                     struct femint_dof_key *k)
{
  const struct femint_mesh *m = s->mesh;
  const struct cell_topo *t = m->topo;
  const int *cv = &m->cells[(size_t)t->nv * c];
  const int64_t *gid = m->vert_gid;
  int nv = 0;
  for (int j = 0; j < 4; j++) k->vert[j] = -1;
  k->first = -1;
  switch (md->kind) {
  case MODE_VERTEX:
    k->kind = FEMINT_ENTITY_VERTEX;
    k->vert[nv++] = gid[cv[md->entity]];
    k->mode = 0;
    k->order = orders[0][cv[md->entity]];
    break;
  case MODE_EDGE:
    k->kind = FEMINT_ENTITY_EDGE;
    for (int j = 0; j < 2; j++) k->vert[nv++] = gid[cv[t->edge_vert[md->entity][j]]];
    k->mode = key_rank(re, md, cv, gid);
    k->order = orders[1][m->cell_edge[(size_t)t->ne * c + md->entity]];
    break;
  case MODE_FACE: {
    const int *fv = t->face_vert[md->entity];
    k->kind = FEMINT_ENTITY_FACE;
    for (int j = 0; j < 4 && fv[j] >= 0; j++) k->vert[nv++] = gid[cv[fv[j]]];
    if (nv == 3 && t->shape == FEMINT_PRISM) k->first = k->vert[0];
    k->mode = key_rank(re, md, cv, gid);
    k->order = orders[2][m->cell_face[(size_t)t->nf * c + md->entity]];
    break;
  }
  default:
    /* A cell: its bottom triangle and the smallest vertex of its top (no other cell holds these
     * four vertices: two cells share at most a face), a hexahedron's bottom vertices 0, 1, 2 and
     * the top vertex 6 (on no face with them), or a quadrilateral's or a tetrahedron's four
     * vertices. */
    k->kind = FEMINT_ENTITY_CELL;
    for (int j = 0; j < (t->nv == 6 || t->nv == 8 ? 3 : 4); j++) k->vert[nv++] = gid[cv[j]];
    if (t->nv == 8) k->vert[nv++] = gid[cv[6]];
    if (t->nv == 6) {
      int64_t top = gid[cv[3]];
      for (int j = 4; j < 6; j++)
        if (gid[cv[j]] < top) top = gid[cv[j]];
      k->vert[nv++] = top;
    }
    k->mode = interior;
    k->order = s->order[c];
    break;
  }
  qsort(k->vert, (size_t)nv, sizeof *k->vert, mesh_cmp_int64);
}

int femint_space_dof_keys(femint_space_t space, struct femint_dof_key *keys)
{
  FEMINT_CHECK(space, NULL, FEMINT_EINVAL, "femint_space_dof_keys: space is NULL");
  FEMINT_CHECK(keys, space->ctx, FEMINT_EINVAL, "femint_space_dof_keys: keys is NULL");
  const struct femint_mesh *m = space->mesh;
  const int nc = space->ncomp;
  struct refel *re[FEMINT_MAX_ORDER + 1] = {NULL};
  int *vertex_order = malloc((size_t)(m->nvert + 1) * sizeof *vertex_order);
  int *edge_order = malloc((size_t)(m->nedge + 1) * sizeof *edge_order);
  int *face_order = malloc((size_t)(m->nface + 1) * sizeof *face_order);
  const int *const orders[3] = {vertex_order, edge_order, face_order};
  unsigned char *done = calloc((size_t)space->nmode + 1, 1);
  int err = 0;
  if (!vertex_order || !edge_order || !face_order || !done) {
    err = femint_seterr(space->ctx, FEMINT_ENOMEM, "femint_space_dof_keys: out of memory");
    goto out;
  }
  entity_orders(space, vertex_order, edge_order, face_order);
  for (int c = 0; c < m->ncell && !err; c++) {
    const int p = space->order[c];
    if (!re[p] && (err = refel_create(m->topo->shape, space->family, p, &re[p]))) {
      femint_seterr(space->ctx, err, "femint_space_dof_keys: %s", femint_thread_error());
      break;
    }
    const int64_t *gm = &space->cell_mode[space->cell_off[c]];
    for (int i = 0, interior = 0; i < re[p]->nsh; i++) {
      const struct refel_mode *md = &re[p]->mode[i];
      const int64_t g = gm[i];
      if (md->kind == MODE_INTERIOR) interior++;
      if (g < 0 || done[g]) continue;
      done[g] = 1;
      struct femint_dof_key k;
      mode_key(space, re[p], c, md, interior - 1, orders, &k);
      for (int comp = 0; comp < nc; comp++) {
        k.comp = comp;
        keys[g * nc + comp] = k;
      }
    }
  }
out:
  for (int p = 0; p <= FEMINT_MAX_ORDER; p++) refel_destroy(&re[p]);
  free(vertex_order);
  free(edge_order);
  free(face_order);
  free(done);
  return err;
}

int femint_space_set_global_dofs(femint_space_t space, const int64_t *global)
{
  FEMINT_CHECK(space, NULL, FEMINT_EINVAL, "femint_space_set_global_dofs: space is NULL");
  femint_context_t ctx = space->ctx;
  if (!global) {
    free(space->global_dof);
    space->global_dof = NULL;
    return 0;
  }
  const int64_t n = space->nmode * space->ncomp;
  for (int64_t d = 0; d < n; d++)
    FEMINT_CHECK(global[d] >= 0, ctx, FEMINT_EINVAL,
                 "femint_space_set_global_dofs: DOF %lld has the global number %lld (must be "
                 ">= 0)",
                 (long long)d, (long long)global[d]);
  int64_t *copy = malloc((size_t)(n + 1) * sizeof *copy);
  int64_t *sorted = malloc((size_t)(n + 1) * sizeof *sorted);
  if (!copy || !sorted) {
    free(copy), free(sorted);
    return femint_seterr(ctx, FEMINT_ENOMEM, "femint_space_set_global_dofs: out of memory");
  }
  memcpy(copy, global, (size_t)n * sizeof *copy);
  memcpy(sorted, global, (size_t)n * sizeof *sorted);
  qsort(sorted, (size_t)n, sizeof *sorted, mesh_cmp_int64);
  int64_t repeated = -1;
  for (int64_t d = 1; d < n && repeated < 0; d++)
    if (sorted[d] == sorted[d - 1]) repeated = sorted[d];
  free(sorted);
  if (repeated >= 0) {
    free(copy);
    return femint_seterr(ctx, FEMINT_EINVAL,
                         "femint_space_set_global_dofs: the global number %lld is given to two "
                         "DOFs",
                         (long long)repeated);
  }
  free(space->global_dof);
  space->global_dof = copy;
  return 0;
}
