/* What a rank of a distributed (MPI) code asks of a space that every rank holds whole: the DOFs
 * a run of cells owns. */
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
