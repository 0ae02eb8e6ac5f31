/* integrate_load: load vectors on CPU workers. Body forces: the integral of f . v over cells;
 * boundary (Neumann) terms: the integral of g . v over tagged boundary faces (host/load.c for
 * every shape and family). Each task adds its cells' or faces' contributions to the global vector
 * (STARPU_RW | STARPU_COMMUTE). */
#include <stdio.h>
#include <stdlib.h>

#include "codelets.h"
#include "host/load.h"

static void integrate_load_cpu(void *buffers[], void *arg)
{
  struct load_batch *b = arg;
  double *rhs = (double *)STARPU_VECTOR_GET_PTR(buffers[0]);
  double *work = malloc(LOAD_WORK * sizeof *work);
  int err = work ? 0 : FEMINT_ENOMEM;
  for (int k = 0; k < b->ncell && !err; k++) {
    const int c = b->cells[k];
    err = load_cell(b->space, b->re[b->space->order[c]], c, b->body, b->user, work, rhs);
  }
  for (int k = 0; k < b->nface && !err; k++)
    err = load_face(b->space, b->faces[k], b->traction, b->user, work, rhs);
  if (err) {
    b->status = err;
    snprintf(b->msg, sizeof b->msg, "load integration: %s",
             err == FEMINT_ENOMEM ? "out of memory" : femint_thread_error());
  }
  free(work);
}

static struct starpu_perfmodel integrate_load_model = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "femint_integrate_load_v1",
};

struct starpu_codelet femint_cl_integrate_load = {
    .name = "femint_integrate_load",
    .cpu_funcs = {integrate_load_cpu},
    .nbuffers = 1,
    .modes = {STARPU_RW | STARPU_COMMUTE},
    .model = &integrate_load_model,
};
