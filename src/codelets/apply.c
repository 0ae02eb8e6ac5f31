/* apply: the matrix-free action of a form on the cells of a batch (hexahedra, sum factorization):
 * each cell's values of x gathered in tensor order, A_e applied per component with the cell's
 * quadrature data, the result written to the batch's slice of the element vectors. The sum of
 * the element vectors into y is the caller's (a fixed order: deterministic). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "codelets.h"
#include "host/refel_hex.h"

void apply_batch(const struct apply_arg *a, const double *x, const double *qd, double *ev,
                 int workerid, int nthreads)
{
  const struct hex_tensor *t = a->tensor;
  const struct femint_space *s = a->space;
  const int nc = s->ncomp, np = t->P * t->P * t->P;
  const size_t nqd = (size_t)t->Q * t->Q * t->Q * hex_qdata_size(a->kind);
  int oom = 0;
#pragma omp parallel num_threads(nthreads) reduction(| : oom)
  {
    if (workerid >= 0) femint_team_bind_thread(a->ctx, workerid, omp_get_thread_num());
    double *scratch = malloc((hex_apply_scratch(t) + 2 * (size_t)np) * sizeof *scratch);
    if (!scratch) oom = 1;
#pragma omp for schedule(static)
    for (int k = 0; k < a->ncell; k++) {
      if (!scratch) continue;
      double *u = scratch + hex_apply_scratch(t), *v = u + np;
      const int64_t *gm = &s->cell_mode[s->cell_off[a->cells[k]]];
      for (int c = 0; c < nc; c++) {
        for (int n = 0; n < np; n++) {
          const int64_t g = gm[t->t2f[n]];
          u[n] = g >= 0 ? x[g * nc + c] : 0;
        }
        hex_apply(t, a->kind, qd + (size_t)k * nqd, u, v, scratch);
        double *out = ev + ((size_t)k * nc + c) * np;
        for (int n = 0; n < np; n++) out[n] = v[n];
      }
    }
    free(scratch);
  }
  if (oom) {
    ((struct apply_arg *)a)->status = FEMINT_ENOMEM;
    snprintf(((struct apply_arg *)a)->msg, sizeof a->msg, "apply: out of memory");
  }
}

/* buffers: x (R), the batch's quadrature data (R), its element vectors (W). */
static void apply_cpu(void *buffers[], void *arg)
{
  const struct apply_arg *a = arg;
  apply_batch(a, (const double *)STARPU_VECTOR_GET_PTR(buffers[0]),
              (const double *)STARPU_VECTOR_GET_PTR(buffers[1]),
              (double *)STARPU_VECTOR_GET_PTR(buffers[2]), starpu_worker_get_id(),
              femint_team_enter(a->ctx));
}

static uint32_t apply_footprint(struct starpu_task *task)
{
  const struct apply_arg *a = task->cl_arg;
  const uint32_t key[4] = {(uint32_t)a->tensor->p, (uint32_t)a->tensor->Q, (uint32_t)a->kind,
                           (uint32_t)(a->ncell * a->space->ncomp)};
  return starpu_hash_crc32c_be_n(key, sizeof key, 0);
}

static struct starpu_perfmodel apply_model = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "femint_apply_v1",
    .footprint = apply_footprint,
};

struct starpu_codelet femint_cl_apply = {
    .name = "femint_apply",
    .cpu_funcs = {apply_cpu},
    .nbuffers = 3,
    .modes = {STARPU_R, STARPU_R, STARPU_W},
    .model = &apply_model,
};
