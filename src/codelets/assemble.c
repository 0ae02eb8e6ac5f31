/* assemble: scatter a batch of element matrices into the values of the global CSR matrix, with
 * the orientation signs of the hierarchical modes. The cells of a batch share no DOF, so the team
 * writes disjoint rows without atomics; batches commute (STARPU_RW | STARPU_COMMUTE). */
#define _GNU_SOURCE /* qsort_r */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "codelets.h"

/* Global DOFs (or -1) and signs of a cell's local indices idof*ne + e. */
static void cell_dofs(const struct femint_space *s, int cell, int ne, int64_t *dof, int *sign)
{
  const int64_t off = s->cell_off[cell];
  const int nsh = (int)(s->cell_off[cell + 1] - off);
  for (int i = 0; i < nsh; i++)
    for (int e = 0; e < ne; e++) {
      int64_t m = s->cell_mode[off + i];
      dof[i * ne + e] = m < 0 ? -1 : m * ne + e;
      sign[i * ne + e] = s->cell_sign[off + i];
    }
}

static int compare_by_dof(const void *a, const void *b, void *dofs)
{
  int64_t x = ((const int64_t *)dofs)[*(const int *)a], y = ((const int64_t *)dofs)[*(const int *)b];
  return (x > y) - (x < y);
}

void assemble_batch(const struct batch *b, const void *mats, double *values, int workerid,
                    int nthreads)
{
  const struct group *g = b->g;
  const struct csr *csr = b->csr;
  const int n = g->n, single = g->precision == FEMINT_SINGLE;
#pragma omp parallel num_threads(nthreads)
  {
    if (workerid >= 0) femint_team_bind_thread(b->ctx, workerid, omp_get_thread_num());
    int64_t *dof = malloc((size_t)n * sizeof *dof);
    int *sign = malloc((size_t)n * sizeof *sign), *cols = malloc((size_t)n * sizeof *cols);
    int oom = !dof || !sign || !cols;
#pragma omp for schedule(dynamic, 1)
    for (int k = 0; k < b->ncell; k++) {
      if (oom) continue;
      cell_dofs(g->space, b->cells[k], g->ne, dof, sign);
      int ncol = 0;
      for (int j = 0; j < n; j++)
        if (dof[j] >= 0) cols[ncol++] = j;
      qsort_r(cols, ncol, sizeof *cols, compare_by_dof, dof);
      const size_t base = (size_t)k * n * n;
      for (int i = 0; i < n; i++) {
        if (dof[i] < 0) continue;
        int64_t p = csr->rowptr[dof[i]], end = csr->rowptr[dof[i] + 1];
        for (int jj = 0; jj < ncol; jj++) {
          int j = cols[jj];
          while (p < end && csr->colind[p] < dof[j]) p++;
          if (p == end) break; /* cannot happen: the pattern holds every pair of the cell */
          double a = single ? ((const float *)mats)[base + (size_t)i * n + j]
                            : ((const double *)mats)[base + (size_t)i * n + j];
          values[p] += sign[i] * sign[j] * a;
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
    free(dof);
    free(sign);
    free(cols);
  }
}

static void assemble_cpu(void *buffers[], void *arg)
{
  struct batch *b = arg;
  assemble_batch(b, (const void *)STARPU_VECTOR_GET_PTR(buffers[0]),
                 (double *)STARPU_VECTOR_GET_PTR(buffers[1]), starpu_worker_get_id(),
                 femint_team_enter(b->ctx));
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
    .nbuffers = 2,
    .modes = {STARPU_R, STARPU_RW | STARPU_COMMUTE},
    .model = &assemble_model,
};
