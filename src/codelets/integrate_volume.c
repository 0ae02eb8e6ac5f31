/* integrate_volume: the element matrices of an H1 batch as a StarPU codelet: its CPU
 * implementation (volume_cpu.c, an OpenMP team over the cells), its OpenCL implementation (an
 * asynchronous launch of the group's kernel) and its history-based performance model, whose
 * footprint serves every batch task. */
#include <stdio.h>
#include <stdlib.h>

#include "codelets.h"

/* The Jacobian terms of a batch that carries vertex coordinates (JAC variants), in its precision. */
static void *terms_from_coords(const struct batch *b, const void *coords)
{
  const struct group *g = b->g;
  const int nq = g->re->nq, single = g->precision == FEMINT_SINGLE;
  void *jac = malloc((size_t)b->ncell * nq * GEOM_NTERMS * g->real_size);
  double *t = malloc((size_t)nq * GEOM_NTERMS * sizeof *t);
  for (int k = 0; jac && t && k < b->ncell; k++) {
    double X[18];
    int bad;
    for (int i = 0; i < 18; i++)
      X[i] = single ? ((const float *)coords)[18 * k + i] : ((const double *)coords)[18 * k + i];
    geom_prism_terms(g->re, X, t, &bad); /* the mesh checked the Jacobians */
    size_t off = (size_t)k * nq * GEOM_NTERMS;
    for (int i = 0; i < nq * GEOM_NTERMS; i++) {
      if (single) ((float *)jac)[off + i] = (float)t[i];
      else ((double *)jac)[off + i] = t[i];
    }
  }
  free(t);
  return jac;
}

/* buffers: geometry, coefficients, phi, quadrature points, element matrices. */
static void integrate_volume_cpu(void *buffers[], void *arg)
{
  struct batch *b = arg;
  int w = starpu_worker_get_id();
  const void *geo = (const void *)STARPU_VECTOR_GET_PTR(buffers[0]);
  void *jac = b->g->geo_coords ? terms_from_coords(b, geo) : NULL;
  if (b->g->geo_coords && !jac) {
    b->status = FEMINT_ENOMEM;
    snprintf(b->msg, sizeof b->msg, "integrate_volume: out of memory");
    return;
  }
  b->ran_on = 1;
  integrate_volume_batch_cpu(b, jac ? jac : geo, (const void *)STARPU_VECTOR_GET_PTR(buffers[1]),
                             (const void *)STARPU_VECTOR_GET_PTR(buffers[2]),
                             (void *)STARPU_VECTOR_GET_PTR(buffers[4]), w,
                             femint_team_enter(b->ctx));
  free(jac);
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
    .symbol = "femint_integrate_volume_v3",
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
