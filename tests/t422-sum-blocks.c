/* Test: the blocks of rows in which the COO assembly and the Jacobian sum their values
 * (scheduler/sum_blocks.c), checked against a brute force on H1 prisms of order 2 (3 components)
 * and hexahedra of order 3: the blocks cover the values once, in order, none empty; each block
 * lists exactly the parts (runs of cells) with a cell whose rows have values in it, in
 * ascending order; cells in the space's order give 16 blocks whose first waits for early parts,
 * the same cells listed backwards give one block (the first would wait for the last parts); a
 * subset of the cells (the rows of the others empty, at the end), down to one cell of fewer
 * modes than blocks (hexahedra of order 1), gives no empty block. Every
 * block's task may run once its parts are made: a part missing from its list would let it read
 * element matrices not yet written. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "host/pattern.h"
#include "scheduler/operator.h"

/* Whether sb is right for the cells cells[0..ncell) of s cut into parts of `per` cells, the
 * pattern's row pointers rowptr; *last_dep gets the last part the first block waits for. */
static int check(const struct femint_space *s, const int *cells, int ncell, int per,
                 const int64_t *rowptr, const struct sum_blocks *sb, int *last_dep)
{
  const int ne = s->ncomp, nparts = (ncell + per - 1) / per;
  const int64_t nnz = rowptr[s->nmode * ne];
  int ok = sb->n >= 1 && sb->nz[0] == 0 && sb->nz[sb->n] == nnz;
  for (int b = 0; ok && b < sb->n; b++) ok = sb->nz[b + 1] > sb->nz[b];
  /* the parts each block must list: a cell's mode whose rows' values overlap the block */
  unsigned char *want = calloc((size_t)(sb->n > 0 ? sb->n : 1) * nparts, 1);
  for (int k = 0; ok && k < ncell; k++)
    for (int64_t l = s->cell_off[cells[k]]; l < s->cell_off[cells[k] + 1]; l++) {
      const int64_t m = s->cell_mode[l];
      if (m < 0) continue;
      const int64_t lo = rowptr[m * ne], hi = rowptr[m * ne + ne];
      for (int b = 0; b < sb->n; b++)
        if (lo < sb->nz[b + 1] && hi > sb->nz[b]) want[(size_t)b * nparts + k / per] = 1;
    }
  for (int b = 0; ok && b < sb->n; b++) {
    int n = 0;
    for (int j = 0; j < nparts; j++) n += want[(size_t)b * nparts + j];
    ok = sb->dep_off[b + 1] - sb->dep_off[b] == n;
    for (int i = sb->dep_off[b]; ok && i < sb->dep_off[b + 1]; i++)
      ok = want[(size_t)b * nparts + sb->dep[i]] &&
           (i == sb->dep_off[b] || sb->dep[i] > sb->dep[i - 1]);
  }
  for (int j = 0; ok && j < nparts; j++) ok = sb->part_voff[j] == 1000 * (int64_t)j;
  *last_dep = ok && sb->n > 0 ? sb->dep[sb->dep_off[1] - 1] : -1;
  free(want);
  return ok;
}

/* The blocks of the first ncell cells of s (backwards: the last ones, listed backwards), parts of
 * per cells, at most nblock: checked; the block count and the first block's last part. */
static int blocks_of(femint_context_t ctx, femint_space_t s, int ncell, int backwards, int per,
                     int nblock, int *n, int *last_dep)
{
  const int nc = femint_mesh_num_cells(s->mesh), nparts = (ncell + per - 1) / per;
  int *cells = malloc(sizeof *cells * ncell), *first = malloc(sizeof *first * nparts);
  int *count = malloc(sizeof *count * nparts);
  int64_t *voff = malloc(sizeof *voff * nparts);
  for (int k = 0; k < ncell; k++) cells[k] = backwards ? nc - 1 - k : k;
  for (int j = 0; j < nparts; j++) {
    first[j] = j * per;
    count[j] = ncell - j * per < per ? ncell - j * per : per;
    voff[j] = 1000 * (int64_t)j;
  }
  struct pattern pat;
  TAP_CALL(ctx, pattern_build(ctx, s, ncell, cells, 0, NULL, &pat));
  struct sum_blocks sb;
  int ok = sum_blocks_make(s, cells, nparts, first, count, voff, pat.rowptr, nblock, &sb) == 0;
  ok = ok && check(s, cells, ncell, per, pat.rowptr, &sb, last_dep);
  *n = sb.n;
  sum_blocks_free(&sb);
  pattern_free(&pat);
  free(cells), free(first), free(count), free(voff);
  return ok;
}

static void space_case(femint_context_t ctx, const char *name, femint_space_t s)
{
  const int nc = femint_mesh_num_cells(s->mesh), per = 5, nparts = (nc + per - 1) / per;
  int n, last;
  int ok = blocks_of(ctx, s, nc, 0, per, 16, &n, &last);
  tap_ok(ok && n == 16 && last < nparts / 2,
         "%s, %d cells in %d parts: 16 blocks, each listing exactly the parts of its rows, the "
         "first waiting for part %d", name, nc, nparts, last);
  ok = blocks_of(ctx, s, nc, 1, per, 16, &n, &last);
  tap_ok(ok && n == 1 && last == nparts - 1,
         "%s, the cells listed backwards: one block (the first would wait for the last parts)",
         name);
  ok = blocks_of(ctx, s, nc / 3, 0, per, 16, &n, &last);
  tap_ok(ok && n >= 1, "%s, the first third of the cells (the other rows empty): %d blocks, none "
         "empty, each listing exactly the parts of its rows", name, n);
  ok = blocks_of(ctx, s, nc, 0, per, 1, &n, &last);
  tap_ok(ok && n == 1, "%s, one block asked: every part listed", name);
  /* fewer rows with values than blocks asked: the cut goes on into the empty rows */
  ok = blocks_of(ctx, s, 1, 0, per, 16, &n, &last);
  tap_ok(ok && n >= 1 && n <= 16, "%s, one cell: %d blocks, none empty", name, n);
}

int main(void)
{
  femint_context_t ctx = test_init();
  femint_mesh_t mesh;
  femint_space_t s;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_PRISM, 6, 6, 8, 1, 1, 1, 0.2, 3, &mesh));
  TAP_CALL(ctx, femint_space_create(ctx, mesh, FEMINT_H1, 3, NULL, 2, &s));
  space_case(ctx, "prisms of order 2, 3 components", s);
  femint_space_destroy(&s);
  femint_mesh_destroy(&mesh);
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, 4, 4, 12, 1, 1, 1, 0.2, 3, &mesh));
  TAP_CALL(ctx, femint_space_create(ctx, mesh, FEMINT_H1, 1, NULL, 3, &s));
  space_case(ctx, "hexahedra of order 3", s);
  femint_space_destroy(&s);
  TAP_CALL(ctx, femint_space_create(ctx, mesh, FEMINT_H1, 1, NULL, 1, &s));
  space_case(ctx, "hexahedra of order 1", s);
  femint_space_destroy(&s);
  femint_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  return tap_done();
}
