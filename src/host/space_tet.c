/* The H(curl) DOF map of a tetrahedral mesh: global numbers of the edge, face and interior
 * functions of one order, and their removal on PEC walls. Cells have sorted vertices
 * (mesh_tet.h), so a shared entity gets the same functions from each of its cells. */
#include <stdlib.h>

#include "mesh_tet.h"

void tet_space_destroy(struct tet_space **space)
{
  if (!space || !*space) return;
  free((*space)->cell_all);
  free((*space)->cell_dof);
  free((*space)->all_free);
  free(*space);
  *space = NULL;
}

/* The global DOF of local function i of cell c. */
static int64_t global_dof(const struct tet_mesh *m, const struct tet_mode *md, int p, int c)
{
  const int64_t ne = refel_tet_entity_nmodes(MODE_EDGE, p);
  const int64_t nf = refel_tet_entity_nmodes(MODE_FACE, p);
  const int64_t ni = refel_tet_entity_nmodes(MODE_INTERIOR, p);
  switch (md->kind) {
  case MODE_EDGE: return m->cell_edge[6 * c + md->entity] * ne + md->rank;
  case MODE_FACE: return m->nedge * ne + m->cell_face[4 * c + md->entity] * nf + md->rank;
  default: return m->nedge * ne + m->nface * nf + c * ni + md->rank;
  }
}

/* Mark the DOFs of the PEC faces and of their edges in removed[nall]. */
static void mark_walls(const struct tet_mesh *m, int p, unsigned pec_tags, char *removed)
{
  const int64_t ne = refel_tet_entity_nmodes(MODE_EDGE, p);
  const int64_t nf = refel_tet_entity_nmodes(MODE_FACE, p);
  for (int c = 0; c < m->ncell; c++)
    for (int f = 0; f < TET_NF; f++) {
      const int gf = m->cell_face[4 * c + f], tag = m->face_tag[gf];
      /* TET_PEC_ALL: every boundary face, whatever its tag */
      if (!tag || (pec_tags != TET_PEC_ALL && (tag > 31 || !(pec_tags >> tag & 1u)))) continue;
      for (int64_t r = 0; r < nf; r++) removed[m->nedge * ne + gf * nf + r] = 1;
      /* The edges of face f are those without its opposite vertex f. */
      for (int e = 0; e < TET_NE; e++) {
        if (tet_edge_vert[e][0] == f || tet_edge_vert[e][1] == f) continue;
        for (int64_t r = 0; r < ne; r++) removed[m->cell_edge[6 * c + e] * ne + r] = 1;
      }
    }
}

int tet_space_create(const struct tet_mesh *m, const struct refel_tet *re, unsigned pec_tags,
                     struct tet_space **space)
{
  *space = NULL;
  const int p = re->order, nsh = re->nsh;
  struct tet_space *s = calloc(1, sizeof *s);
  char *removed = NULL;
  if (!s) goto nomem;
  s->mesh = m;
  s->order = p;
  s->nsh = nsh;
  s->nall = (int64_t)m->nedge * refel_tet_entity_nmodes(MODE_EDGE, p) +
            (int64_t)m->nface * refel_tet_entity_nmodes(MODE_FACE, p) +
            (int64_t)m->ncell * refel_tet_entity_nmodes(MODE_INTERIOR, p);
  s->cell_all = malloc(sizeof(int64_t) * nsh * m->ncell);
  s->cell_dof = malloc(sizeof(int64_t) * nsh * m->ncell);
  s->all_free = malloc(sizeof(int64_t) * (s->nall + 1));
  removed = calloc((size_t)s->nall + 1, 1);
  if (!s->cell_all || !s->cell_dof || !s->all_free || !removed) goto nomem;
  mark_walls(m, p, pec_tags, removed);
  s->ndof = 0;
  for (int64_t g = 0; g < s->nall; g++) s->all_free[g] = removed[g] ? -1 : s->ndof++;
  for (int c = 0; c < m->ncell; c++)
    for (int i = 0; i < nsh; i++) {
      const int64_t g = global_dof(m, &re->mode[i], p, c);
      s->cell_all[(int64_t)c * nsh + i] = g;
      s->cell_dof[(int64_t)c * nsh + i] = s->all_free[g];
    }
  free(removed);
  *space = s;
  return 0;

nomem:
  free(removed);
  tet_space_destroy(&s);
  return femint_seterr(NULL, FEMINT_ENOMEM, "H(curl) space: out of memory for %d cells", m->ncell);
}
