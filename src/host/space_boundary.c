/* The DOFs of the boundary faces of a space: listed (where Dirichlet conditions go) or removed
 * (homogeneous Dirichlet conditions, perfect electric conductor walls). */
#include <stdlib.h>
#include <string.h>

#include "mesh.h"

/* Whether local mode md lies on the closure of local face f: a vertex of f, an edge with both
 * ends on f, or f itself (a quadrilateral's faces are its edges). */
static int mode_on_face(const struct cell_topo *t, const struct refel_mode *md, int f)
{
  const int *fv = t->face_vert[f];
  int on[MESH_MAX_NV] = {0};
  for (int j = 0; j < 4 && fv[j] >= 0; j++) on[fv[j]] = 1;
  switch (md->kind) {
  case MODE_VERTEX: return on[md->entity];
  case MODE_EDGE: return on[t->edge_vert[md->entity][0]] && on[t->edge_vert[md->entity][1]];
  case MODE_FACE: return md->entity == f;
  default: return 0;
  }
}

int space_face_selected(int tag, int ntag, const int *tags)
{
  if (ntag == 0) return 1;
  if (ntag < 0) return tag > 0;
  for (int i = 0; i < ntag; i++)
    if (tags[i] == tag) return 1;
  return 0;
}

int space_mark_boundary(const struct femint_space *s, int ntag, const int *tags,
                        unsigned char *mark)
{
  const struct femint_mesh *m = s->mesh;
  struct refel *re[FEMINT_MAX_ORDER + 1] = {NULL};
  int err = 0;
  for (int k = 0; k < m->nbface && !err; k++) {
    const int c = m->bface[3 * k], f = m->bface[3 * k + 1], p = s->order[c];
    if (!space_face_selected(m->bface[3 * k + 2], ntag, tags)) continue;
    if (!re[p] && (err = refel_create(m->topo->shape, s->family, p, &re[p]))) break;
    const int64_t *gm = &s->cell_mode[s->cell_off[c]];
    for (int i = 0; i < re[p]->nsh; i++)
      if (gm[i] >= 0 && mode_on_face(m->topo, &re[p]->mode[i], f)) mark[gm[i]] = 1;
  }
  for (int p = 0; p <= FEMINT_MAX_ORDER; p++) refel_destroy(&re[p]);
  return err;
}

int femint_space_boundary_dofs(femint_space_t space, int ntag, const int *tags, int64_t *ndofs,
                               int64_t *dofs)
{
  FEMINT_CHECK(space, NULL, FEMINT_EINVAL, "femint_space_boundary_dofs: space is NULL");
  femint_context_t ctx = space->ctx;
  FEMINT_CHECK(ndofs, ctx, FEMINT_EINVAL, "femint_space_boundary_dofs: ndofs is NULL");
  FEMINT_CHECK(ntag >= -1 && (ntag <= 0 || tags), ctx, FEMINT_EINVAL,
               "femint_space_boundary_dofs: ntag = %d with %s tags", ntag,
               tags ? "a list of" : "no");
  unsigned char *mark = calloc((size_t)space->nmode + 1, 1);
  FEMINT_CHECK(mark, ctx, FEMINT_ENOMEM, "femint_space_boundary_dofs: out of memory");
  int err = space_mark_boundary(space, ntag, tags, mark);
  if (err) {
    free(mark);
    return femint_seterr(ctx, err, "femint_space_boundary_dofs: %s", femint_thread_error());
  }
  const int nc = space->ncomp;
  int64_t n = 0;
  for (int64_t g = 0; g < space->nmode; g++) {
    if (!mark[g]) continue;
    if (dofs)
      for (int k = 0; k < nc; k++) dofs[n + k] = g * nc + k;
    n += nc;
  }
  free(mark);
  *ndofs = n;
  return 0;
}

static int remove_boundary_dofs(femint_space_t space, int ntag, const int *tags)
{
  femint_trace("femint_space_remove_boundary_dofs");
  static const char who[] = "femint_space_remove_boundary_dofs";
  FEMINT_CHECK(space, NULL, FEMINT_EINVAL, "%s: space is NULL", who);
  femint_context_t ctx = space->ctx;
  FEMINT_CHECK(ntag >= -1 && (ntag <= 0 || tags), ctx, FEMINT_EINVAL, "%s: ntag = %d with %s tags",
               who, ntag, tags ? "a list of" : "no");
  FEMINT_CHECK(!space->global_dof, ctx, FEMINT_ESTATE,
               "%s: the space has global DOF numbers (femint_space_set_global_dofs): remove the "
               "DOFs first, then number them",
               who);
  unsigned char *mark = calloc((size_t)space->nmode + 1, 1);
  int64_t *renum = malloc(((size_t)space->nmode + 1) * sizeof *renum);
  int err = mark && renum ? 0 : FEMINT_ENOMEM;
  if (!err) err = space_mark_boundary(space, ntag, tags, mark);
  if (err) {
    free(mark);
    free(renum);
    return femint_seterr(ctx, err, "%s: %s", who,
                         err == FEMINT_ENOMEM ? "out of memory" : femint_thread_error());
  }
  /* The modes left keep their order: the numbering stays the one in which cells meet them. */
  int64_t n = 0;
  for (int64_t g = 0; g < space->nmode; g++) renum[g] = mark[g] ? -1 : n++;
  const int64_t total = space->cell_off[space->mesh->ncell];
  for (int64_t l = 0; l < total; l++)
    if (space->cell_mode[l] >= 0) space->cell_mode[l] = renum[space->cell_mode[l]];
  for (int v = 0; v < space->mesh->nvert; v++)
    if (space->vertex_mode[v] >= 0) space->vertex_mode[v] = renum[space->vertex_mode[v]];
  space->nmode = n;
  space->generation++;
  free(mark);
  free(renum);
  return 0;
}

int femint_space_remove_boundary_dofs(femint_space_t space, int ntag, const int *tags)
{
  femint_host_quiet(1);
  const int err = remove_boundary_dofs(space, ntag, tags);
  femint_host_quiet(0);
  return err;
}
