/* integrate_volume: element matrices of a batch of cells as a StarPU codelet: its CPU
 * implementation (volume_cpu.c, an OpenMP team over the cells), its OpenCL implementation (an
 * asynchronous launch of the group's kernel) and its history-based performance model. */
#include <stdio.h>

#include "codelets.h"

static void integrate_volume_cpu(void *buffers[], void *arg)
{
  struct batch *b = arg;
  int w = starpu_worker_get_id();
  integrate_volume_batch_cpu(b, (const void *)STARPU_VECTOR_GET_PTR(buffers[0]),
                             (const void *)STARPU_VECTOR_GET_PTR(buffers[1]),
                             (const void *)STARPU_VECTOR_GET_PTR(buffers[2]),
                             (void *)STARPU_VECTOR_GET_PTR(buffers[3]), w,
                             femint_team_enter(b->ctx));
}

static void integrate_volume_opencl(void *buffers[], void *arg)
{
  struct batch *b = arg;
  const struct group *g = b->g;
  int dev = starpu_worker_get_devid(starpu_worker_get_id());
  cl_command_queue queue;
  starpu_opencl_get_current_queue(&queue);
  cl_mem m[4];
  for (int k = 0; k < 4; k++) m[k] = (cl_mem)STARPU_VECTOR_GET_DEV_HANDLE(buffers[k]);
  cl_event ev = NULL;
  cl_int err = g->program[dev] ? volume_cl_enqueue(queue, g->program[dev]->kernel, &g->cl_cfg[dev],
                                                   &b->ctx->cl_dev[dev], b->ncell, m[0], m[1],
                                                   m[2], NULL, m[3], &ev)
                               : CL_INVALID_PROGRAM;
  if (ev) clReleaseEvent(ev);
  if (err != CL_SUCCESS) {
    b->status = FEMINT_EOPENCL;
    snprintf(b->msg, sizeof b->msg, "integrate_volume: OpenCL launch on device %d failed (%d)",
             dev, err);
  }
}

/* History is indexed by what decides the cost: order, form, components, precision, cells. */
uint32_t batch_footprint(struct starpu_task *task)
{
  const struct batch *b = task->cl_arg;
  uint32_t key[6] = {FEMINT_PRISM, (uint32_t)b->g->order, (uint32_t)b->g->kind,
                     (uint32_t)b->g->ne, (uint32_t)b->g->precision, (uint32_t)b->ncell};
  uint32_t h = 0;
  for (int i = 0; i < 6; i++) h = starpu_hash_crc32c_be(key[i], h);
  return h;
}

static struct starpu_perfmodel integrate_volume_model = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "femint_integrate_volume_v2",
    .footprint = batch_footprint,
};

struct starpu_codelet femint_cl_integrate_volume = {
    .name = "femint_integrate_volume",
    .cpu_funcs = {integrate_volume_cpu},
    .opencl_funcs = {integrate_volume_opencl},
    .opencl_flags = {STARPU_OPENCL_ASYNC},
    .nbuffers = 4,
    .modes = {STARPU_R, STARPU_R, STARPU_R, STARPU_W},
    .model = &integrate_volume_model,
};
