/* What a rank of a distributed (MPI) code asks of a space that every rank holds whole: the DOFs
 * a run of cells owns, and the DOFs on the boundary (for Dirichlet conditions). */
#include <stdlib.h>

#include "mesh.h"

/* The number of scalar modes the cells before `cell` meet. space.c numbers the modes in the
 * order the cells meet them (cell 0's first, then the new ones of cell 1, ...), so that count
 * is one more than the largest mode of those cells. */
static int64_t modes_before(const struct femint_space *s, int cell)
{
  int64_t top = -1;
  for (int64_t l = 0; l < s->cell_off[cell]; l++)
    if (s->cell_mode[l] > top) top = s->cell_mode[l];
  return top + 1;
}

int femint_space_dof_range(femint_space_t space, int cell_begin, int cell_end,
                           int64_t *dof_begin, int64_t *dof_end)
{
  FEMINT_CHECK(space, NULL, FEMINT_EINVAL, "femint_space_dof_range: space is NULL");
  const int ncell = space->mesh->ncell;
  FEMINT_CHECK(cell_begin >= 0 && cell_begin <= cell_end && cell_end <= ncell, space->ctx,
               FEMINT_EINVAL,
               "femint_space_dof_range: cells [%d, %d) are not a range inside [0, %d)",
               cell_begin, cell_end, ncell);
  FEMINT_CHECK(dof_begin && dof_end, space->ctx, FEMINT_EINVAL,
               "femint_space_dof_range: dof_begin or dof_end is NULL");
  *dof_begin = modes_before(space, cell_begin) * space->ncomp;
  *dof_end = modes_before(space, cell_end) * space->ncomp;
  return 0;
}

/* Whether local mode md lies on the closure of local face f: a vertex of f, an edge with both
 * ends on f, or f itself (a quadrilateral's faces are its edges). */
static int mode_on_face(const struct cell_topo *t, const struct refel_mode *md, int f)
{
  const int *fv = t->face_vert[f];
  int on[PRISM_NV] = {0};
  for (int j = 0; j < 4 && fv[j] >= 0; j++) on[fv[j]] = 1;
  switch (md->kind) {
  case MODE_VERTEX: return on[md->entity];
  case MODE_EDGE: return on[t->edge_vert[md->entity][0]] && on[t->edge_vert[md->entity][1]];
  case MODE_FACE: return md->entity == f;
  default: return 0;
  }
}

static int face_selected(int tag, int ntag, const int *tags)
{
  if (ntag == 0) return 1;
  if (ntag < 0) return tag > 0;
  for (int i = 0; i < ntag; i++)
    if (tags[i] == tag) return 1;
  return 0;
}

/* Mark the scalar modes on the selected boundary faces. */
static int mark_boundary_modes(const struct femint_space *s, int ntag, const int *tags,
                               unsigned char *mark)
{
  const struct femint_mesh *m = s->mesh;
  struct refel *re[FEMINT_MAX_ORDER + 1] = {NULL};
  int err = 0;
  for (int k = 0; k < m->nbface && !err; k++) {
    const int c = m->bface[3 * k], f = m->bface[3 * k + 1], p = s->order[c];
    if (!face_selected(m->bface[3 * k + 2], ntag, tags)) continue;
    if (!re[p] && (err = refel_create(m->topo->shape, p, &re[p]))) break;
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
  int err = mark_boundary_modes(space, ntag, tags, mark);
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
