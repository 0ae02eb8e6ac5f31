/* integrate_volume: the element matrices of an H1 batch as a StarPU codelet: its CPU
 * implementation (volume_cpu.c, an OpenMP team over the cells), its OpenCL implementation (an
 * asynchronous launch of the group's kernel) and its history-based performance model, whose
 * footprint serves every batch task. */
#include <stdio.h>
#include <stdlib.h>

#include "codelets.h"

/* buffers: geometry, coefficients, phi, quadrature points or geometry table, element matrices. */
static void integrate_volume_cpu(void *buffers[], void *arg)
{
  struct batch *b = arg;
  int w = starpu_worker_get_id();
  b->ran_on = 1;
  integrate_volume_batch_cpu(b, (const void *)STARPU_VECTOR_GET_PTR(buffers[0]),
                             (const void *)STARPU_VECTOR_GET_PTR(buffers[1]),
                             (const void *)STARPU_VECTOR_GET_PTR(buffers[2]),
                             (void *)STARPU_VECTOR_GET_PTR(buffers[4]), w,
                             femint_team_enter(b->ctx));
}

static void integrate_volume_opencl(void *buffers[], void *arg)
{
  struct batch *b = arg;
  const struct group *g = b->g;
  int dev = starpu_worker_get_devid(starpu_worker_get_id());
  cl_command_queue queue;
  starpu_opencl_get_current_queue(&queue);
  cl_mem m[5];
  for (int k = 0; k < 5; k++) m[k] = (cl_mem)STARPU_VECTOR_GET_DEV_HANDLE(buffers[k]);
  /* the output may be a batch's part of a form's vector of element matrices */
  const size_t out_off = STARPU_VECTOR_GET_OFFSET(buffers[4]) / g->real_size;
  cl_event ev = NULL;
  b->ran_on = 2;
  cl_int err = g->program[dev] ? volume_cl_enqueue(queue, g->program[dev]->kernel, &g->cl_cfg[dev],
                                                   femint_cl_dev(b->ctx, dev), b->ncell, m[0],
                                                   m[1], m[2], m[3], m[4], out_off, &ev)
                               : CL_INVALID_PROGRAM;
  if (ev) clReleaseEvent(ev);
  err = femint_cl_outcome(b->ctx, dev, err);
  if (err != CL_SUCCESS) {
    b->status = FEMINT_EOPENCL;
    snprintf(b->msg, sizeof b->msg, "integrate_volume: OpenCL launch on device %d failed (%d)",
             dev, err);
  }
}

/* History is indexed by what decides the cost: shape, family, order, form, components,
 * precision, cells, kernel variant, storage and geometric nodes. */
uint32_t batch_footprint(struct starpu_task *task)
{
  const struct batch *b = task->cl_arg;
  const struct group *g = b->g;
  const uint32_t key[10] = {(uint32_t)g->shape,     (uint32_t)g->family, (uint32_t)g->order,
                            (uint32_t)g->kind,      (uint32_t)g->ne,     (uint32_t)g->precision,
                            (uint32_t)b->ncell,     (uint32_t)g->variant, (uint32_t)g->symmetric,
                            (uint32_t)g->nnode};
  uint32_t h = 0;
  for (int i = 0; i < 10; i++) h = starpu_hash_crc32c_be(key[i], h);
  return h;
}

static struct starpu_perfmodel integrate_volume_model = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "femint_integrate_volume_v4",
    .footprint = batch_footprint,
};

struct starpu_codelet femint_cl_integrate_volume = {
    .name = "femint_integrate_volume",
    .cpu_funcs = {integrate_volume_cpu},
    .opencl_funcs = {integrate_volume_opencl},
    .opencl_flags = {STARPU_OPENCL_ASYNC},
    .nbuffers = 5,
    .modes = {STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_W},
    .model = &integrate_volume_model,
};
