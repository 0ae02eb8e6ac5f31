/* assemble: scatter a batch of element matrices into the values of the global CSR matrix, with
 * the orientation signs of the hierarchical modes. The cells of a batch are neighbours and share
 * DOFs, so the threads of the team split the rows, not the cells: thread t writes the rows of the
 * scalar modes m with (m / ROW_CHUNK) % nthreads == t, from every cell, without atomics. Batches
 * commute (STARPU_RW | STARPU_COMMUTE on the row blocks they write); compact batches write few
 * blocks, so the assemblies of distant batches run at the same time. */
#define _GNU_SOURCE /* qsort_r */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "codelets.h"

/* Scalar modes per run of rows owned by one thread: 4 modes are 4 * ne rows of ~100 values, so
 * the threads rarely share a cache line and still split a small batch evenly. */
#define ROW_CHUNK 4

static int compare_by_mode(const void *a, const void *b, void *modes)
{
  int64_t x = ((const int64_t *)modes)[*(const int *)a], y = ((const int64_t *)modes)[*(const int *)b];
  return (x > y) - (x < y);
}

/* Entry (r, c) of an element matrix stored full (row-major) or as its packed upper half. */
static inline double entry(const void *mats, size_t base, int n, int r, int c, int single,
                           int symmetric)
{
  size_t k;
  if (!symmetric)
    k = (size_t)r * n + c;
  else if (r <= c)
    k = (size_t)r * n - (size_t)r * (r - 1) / 2 + (c - r);
  else
    k = (size_t)c * n - (size_t)c * (c - 1) / 2 + (r - c);
  return single ? ((const float *)mats)[base + k] : ((const double *)mats)[base + k];
}

/* The CSR rows of a scalar mode m hold, for each component a, the columns col*ne + b of the
 * same scalar columns in the same order: the position of a scalar column is found once and
 * serves all ne*ne entries of the block. */
void assemble_batch(const struct batch *b, const void *mats, double *const *block_base,
                    int workerid, int nthreads)
{
  const struct group *g = b->g;
  const struct rows *csr = b->rows;
  const struct femint_space *s = g->space;
  const int n = g->n, ne = g->ne, nsh = g->nsh, single = g->precision == FEMINT_SINGLE;
  const size_t per_cell = g->symmetric ? (size_t)n * (n + 1) / 2 : (size_t)n * n;
#pragma omp parallel num_threads(nthreads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    if (workerid >= 0) femint_team_bind_thread(b->ctx, workerid, t);
    int *cols = malloc((size_t)nsh * sizeof *cols);
    int64_t *kpos = malloc((size_t)nsh * sizeof *kpos);
    int oom = !cols || !kpos;
    for (int k = 0; k < b->ncell && !oom; k++) {
      const int64_t off = s->cell_off[b->cells[k]];
      const int64_t *mode = s->cell_mode + off;
      const int8_t *sign = s->cell_sign + off;
      int mine = 0, ncol = 0;
      for (int j = 0; j < nsh; j++) {
        if (mode[j] < 0) continue;
        cols[ncol++] = j;
        mine |= (mode[j] / ROW_CHUNK) % nt == t;
      }
      if (!mine) continue;
      qsort_r(cols, ncol, sizeof *cols, compare_by_mode, (void *)mode);
      const size_t base = (size_t)k * per_cell;
      for (int i = 0; i < nsh; i++) {
        if (mode[i] < 0 || (mode[i] / ROW_CHUNK) % nt != t) continue;
        const int64_t r0 = mode[i] * ne, start = csr->rowptr[r0];
        const int64_t len = (csr->rowptr[r0 + 1] - start) / ne; /* scalar columns of the row */
        int64_t p = 0;
        for (int jj = 0; jj < ncol; jj++) {
          const int64_t want = mode[cols[jj]] * ne;
          while (p < len && csr->colind[start + p * ne] < want) p++;
          kpos[jj] = p; /* the pattern holds every pair of the cell: p < len */
        }
        for (int a = 0; a < ne; a++) {
          const int r = i * ne + a;
          double *row = block_base[csr->row_block[r0 + a]] + csr->rowptr[r0 + a];
          for (int jj = 0; jj < ncol; jj++) {
            const int j = cols[jj];
            const double sij = sign[i] * sign[j];
            double *v = row + kpos[jj] * ne;
            for (int bb = 0; bb < ne; bb++)
              v[bb] += sij * entry(mats, base, n, r, j * ne + bb, single, g->symmetric);
          }
        }
      }
    }
    if (oom) {
#pragma omp critical
      {
        ((struct batch *)b)->status = FEMINT_ENOMEM;
        snprintf(((struct batch *)b)->msg, sizeof b->msg, "assemble: out of memory");
      }
    }
    free(cols);
    free(kpos);
  }
}

/* buffers[0]: the element matrices; buffers[1..nblk]: the row blocks b->blk[] of the values. */
static void assemble_cpu(void *buffers[], void *arg)
{
  struct batch *b = arg;
  const struct rows *csr = b->rows;
  double **base = calloc((size_t)csr->nblock, sizeof *base);
  if (!base) {
    b->status = FEMINT_ENOMEM;
    snprintf(b->msg, sizeof b->msg, "assemble: out of memory");
    return;
  }
  for (int k = 0; k < b->nblk; k++)
    base[b->blk[k]] = (double *)STARPU_VECTOR_GET_PTR(buffers[1 + k]) -
                      csr->rowptr[csr->block_row[b->blk[k]]];
  assemble_batch(b, (const void *)STARPU_VECTOR_GET_PTR(buffers[0]), base,
                 starpu_worker_get_id(), femint_team_enter(b->ctx));
  free(base);
}

/* The assembly of a batch is costed by the same key as its integration. */
static struct starpu_perfmodel assemble_model = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "femint_assemble_v1",
    .footprint = batch_footprint,
};

struct starpu_codelet femint_cl_assemble = {
    .name = "femint_assemble",
    .cpu_funcs = {assemble_cpu},
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &assemble_model,
};
