/* integrate_load: load vectors on CPU workers. Body forces: the integral of f . v over cells;
 * boundary (Neumann) terms: the integral of g . v over tagged boundary faces (host/load.c for
 * every shape and family). Each task's team writes its cells' and faces' vectors into its batch's
 * own array, so that the tasks run at once; femint_operator_load adds them into the load in
 * order (the same sums whatever ran where). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "codelets.h"
#include "host/load.h"

/* The first failure of the batch's items, with its message (the thread's own). */
static void item_failed(struct load_batch *b, int err)
{
#pragma omp critical(femint_load_failure)
  if (!b->status) {
    snprintf(b->msg, sizeof b->msg, "load integration: %s",
             err == FEMINT_ENOMEM ? "out of memory" : femint_thread_error());
    __atomic_store_n(&b->status, err, __ATOMIC_RELEASE);
  }
}

static void integrate_load_cpu(void *buffers[], void *arg)
{
  (void)buffers;
  struct load_batch *b = arg;
  const struct femint_space *s = b->space;
  const size_t *at = b->at;
  const int worker = starpu_worker_get_id();
#pragma omp parallel num_threads(femint_team_enter(b->ctx))
  {
    if (worker >= 0) femint_team_bind_thread(b->ctx, worker, omp_get_thread_num());
    double *work = b->nface ? malloc(LOAD_WORK * sizeof *work) : NULL;
    if (b->nface && !work) item_failed(b, FEMINT_ENOMEM);
    /* the cells in groups of LOAD_BLOCK (load_cells), then the faces one by one */
    const int ngroup = (b->ncell + LOAD_BLOCK - 1) / LOAD_BLOCK;
#pragma omp for schedule(dynamic, 1)
    for (int g = 0; g < ngroup + b->nface; g++) {
      if (__atomic_load_n(&b->status, __ATOMIC_ACQUIRE)) continue;
      int err;
      if (g < ngroup) {
        const int k = g * LOAD_BLOCK, nk = b->ncell - k < LOAD_BLOCK ? b->ncell - k : LOAD_BLOCK;
        err = load_cells(s, b->re, b->ht, b->cells + k, nk, b->body, b->user, b->ev + at[k]);
      } else {
        const int k = b->ncell + g - ngroup;
        err = load_face(s, b->faces[k - b->ncell], b->traction, b->user, work, b->ev + at[k]);
      }
      if (err) item_failed(b, err);
    }
    free(work);
  }
}

static struct starpu_perfmodel integrate_load_model = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "femint_integrate_load_v2",
};

struct starpu_codelet femint_cl_integrate_load = {
    .name = "femint_integrate_load",
    .cpu_funcs = {integrate_load_cpu},
    .nbuffers = 0,
    .model = &integrate_load_model,
};
