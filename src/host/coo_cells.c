/* The COO -> CSR pattern of the slots of a DOF map (slot c*nsh*nsh + i*nsh + j holds the pair
 * (dof(c,i), dof(c,j))) built row by row on the host's cores, with the result of the global sort
 * (coo_pattern_build): within a row the slots ordered by column, then by slot. A row's slots come
 * from the cells that hold its DOF, found through the transpose of the DOF map, so each row is
 * sorted on its own (about nsh entries per cell of the row) instead of all slots at once. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "mesh_tet.h"

struct entry {
  int64_t col, slot;
};

static int entry_cmp(const void *a, const void *b)
{
  const struct entry *x = a, *y = b;
  if (x->col != y->col) return x->col < y->col ? -1 : 1;
  return (x->slot > y->slot) - (x->slot < y->slot);
}

int coo_pattern_from_cells(int64_t n, int64_t ncell, int nsh, const int64_t *cell_dof,
                           struct coo_pattern *p)
{
  memset(p, 0, sizeof *p);
  const int64_t nmode = ncell * nsh, n2 = (int64_t)nsh * nsh;
  for (int64_t k = 0; k < nmode; k++)
    FEMINT_CHECK(cell_dof[k] < n, NULL, FEMINT_EINVAL,
                 "COO pattern: cell %lld has DOF %lld outside %lld", (long long)(k / nsh),
                 (long long)cell_dof[k], (long long)n);
  int64_t *occ_start = calloc((size_t)n + 1, sizeof *occ_start);
  int64_t *occ = malloc(sizeof *occ * (nmode + 1));
  int64_t *valid = malloc(sizeof *valid * (ncell + 1));
  int64_t *row_start = malloc(sizeof *row_start * (n + 1));
  int64_t *ndist = malloc(sizeof *ndist * (n + 1));
  int64_t *colfull = NULL;
  int err = FEMINT_ENOMEM;
  p->rowptr = malloc(sizeof *p->rowptr * (n + 1));
  if (!occ_start || !occ || !valid || !row_start || !ndist || !p->rowptr) goto done;

  /* The transpose: the local modes (c, i) of each DOF, cells ascending. */
  for (int64_t k = 0; k < nmode; k++)
    if (cell_dof[k] >= 0) occ_start[cell_dof[k] + 1]++;
  for (int64_t r = 0; r < n; r++) occ_start[r + 1] += occ_start[r];
  for (int64_t r = 0; r <= n; r++) row_start[r] = occ_start[r];
  for (int64_t k = 0; k < nmode; k++)
    if (cell_dof[k] >= 0) occ[row_start[cell_dof[k]]++] = k;
  /* Slots of each row: the valid DOFs of the cells of its modes. */
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < ncell; c++) {
    int64_t v = 0;
    for (int j = 0; j < nsh; j++) v += cell_dof[c * nsh + j] >= 0;
    valid[c] = v;
  }
  row_start[0] = 0;
  for (int64_t r = 0; r < n; r++) {
    int64_t s = 0;
    for (int64_t o = occ_start[r]; o < occ_start[r + 1]; o++) s += valid[occ[o] / nsh];
    row_start[r + 1] = row_start[r] + s;
  }
  p->n = n;
  p->nslot = ncell * n2;
  p->nvalid = row_start[n];
  p->perm = malloc(sizeof *p->perm * (p->nvalid + 1));
  colfull = malloc(sizeof *colfull * (p->nvalid + 1));
  if (!p->perm || !colfull) goto done;

  /* Each row: its (column, slot) pairs sorted, the slots into perm, the columns kept. */
  int oom = 0;
#pragma omp parallel reduction(| : oom)
  {
    struct entry *e = NULL;
    int64_t cap = 0;
#pragma omp for schedule(dynamic, 256)
    for (int64_t r = 0; r < n; r++) {
      const int64_t m = row_start[r + 1] - row_start[r];
      if (m > cap) {
        free(e);
        cap = 2 * m;
        e = malloc(sizeof *e * cap);
        if (!e) {
          cap = 0;
          oom = 1;
        }
      }
      if (!e) continue;
      int64_t k = 0;
      for (int64_t o = occ_start[r]; o < occ_start[r + 1]; o++) {
        const int64_t c = occ[o] / nsh, i = occ[o] % nsh;
        for (int j = 0; j < nsh; j++) {
          const int64_t col = cell_dof[c * nsh + j];
          if (col >= 0) e[k++] = (struct entry){col, c * n2 + i * nsh + j};
        }
      }
      qsort(e, (size_t)m, sizeof *e, entry_cmp);
      int64_t d = 0;
      for (k = 0; k < m; k++) {
        p->perm[row_start[r] + k] = e[k].slot;
        colfull[row_start[r] + k] = e[k].col;
        d += k == 0 || e[k].col != e[k - 1].col;
      }
      ndist[r] = d;
    }
    free(e);
  }
  if (oom) goto done;
  p->rowptr[0] = 0;
  for (int64_t r = 0; r < n; r++) p->rowptr[r + 1] = p->rowptr[r] + ndist[r];
  p->nnz = p->rowptr[n];
  p->seg = malloc(sizeof *p->seg * (p->nnz + 1));
  p->colind = malloc(sizeof *p->colind * (p->nnz + 1));
  if (!p->seg || !p->colind) goto done;
#pragma omp parallel for schedule(dynamic, 256)
  for (int64_t r = 0; r < n; r++) {
    int64_t u = p->rowptr[r];
    for (int64_t k = row_start[r]; k < row_start[r + 1]; k++)
      if (k == row_start[r] || colfull[k] != colfull[k - 1]) {
        p->seg[u] = k;
        p->colind[u++] = colfull[k];
      }
  }
  p->seg[p->nnz] = p->nvalid;
  err = 0;

done:
  free(occ_start);
  free(occ);
  free(valid);
  free(row_start);
  free(ndist);
  free(colfull);
  if (err) {
    coo_pattern_free(p);
    return femint_seterr(NULL, err, "COO pattern: out of memory for %lld cells", (long long)ncell);
  }
  return 0;
}
