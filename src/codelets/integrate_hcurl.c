/* integrate_hcurl: the element matrices of an H(curl) batch (seed 004's T_e or S_e, by the
 * group's form) as a StarPU codelet: an OpenMP team over the cells on the CPU (one symmetric
 * rank-k update per cell, host/hcurl.c), the hcurl_matrix kernel on OpenCL (one work-group per
 * cell), the footprint of every batch task. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "codelets.h"
#include "host/refel_tet.h"

#define LOADR(ptr, i, single) \
  ((single) ? (double)((const float *)(ptr))[i] : ((const double *)(ptr))[i])

void integrate_hcurl_batch_cpu(struct batch *b, const void *nodes, const void *coef, void *mats,
                               int workerid, int nthreads)
{
  const struct group *g = b->g;
  const struct refel *re = g->re;
  const int nnode = g->nnode, single = g->precision == FEMINT_SINGLE;
  char *out = mats;
  int oom = 0;
#pragma omp parallel num_threads(nthreads) reduction(| : oom)
  {
    if (workerid >= 0) femint_team_bind_thread(b->ctx, workerid, omp_get_thread_num());
    double *scratch = malloc(sizeof(double) * hcurl_cell_scratch(re));
    oom = !scratch;
#pragma omp for schedule(dynamic, 4)
    for (int c = 0; c < b->ncell; c++) {
      if (!scratch) continue;
      double X[30], k[9];
      for (int i = 0; i < 3 * nnode; i++) X[i] = LOADR(nodes, (size_t)c * 3 * nnode + i, single);
      for (int i = 0; i < 9; i++) k[i] = LOADR(coef, (size_t)c * 9 + i, single);
      hcurl_cell_matrix(re, g->kind, nnode, X, k, scratch, single, g->symmetric,
                        out + (size_t)c * g->out_size * g->real_size);
    }
    free(scratch);
  }
  if (oom) {
    b->status = FEMINT_ENOMEM;
    snprintf(b->msg, sizeof b->msg, "integrate_hcurl: out of memory");
  }
}

/* buffers: reference tables, nodes, coefficients, the batch's element matrices. */
static void integrate_hcurl_cpu(void *buffers[], void *arg)
{
  struct batch *b = arg;
  b->ran_on = 1;
  integrate_hcurl_batch_cpu(b, (const void *)STARPU_VECTOR_GET_PTR(buffers[1]),
                            (const void *)STARPU_VECTOR_GET_PTR(buffers[2]),
                            (void *)STARPU_VECTOR_GET_PTR(buffers[3]), starpu_worker_get_id(),
                            femint_team_enter(b->ctx));
}

int hcurl_wg_size(int nsh)
{
  const int n2 = nsh * nsh;
  return n2 <= 64 ? 64 : n2 <= 512 ? 128 : 256;
}

static void integrate_hcurl_opencl(void *buffers[], void *arg)
{
  struct batch *b = arg;
  const struct group *g = b->g;
  const int dev = starpu_worker_get_devid(starpu_worker_get_id());
  cl_command_queue queue;
  starpu_opencl_get_current_queue(&queue);
  const struct cl_program_entry *e = g->program[dev];
  b->ran_on = 2;
  cl_int err = e && e->kernel ? CL_SUCCESS : CL_INVALID_PROGRAM;
  const cl_int ncell = b->ncell;
  cl_mem m[4];
  cl_long off[4];
  for (int k = 0; k < 4; k++) {
    m[k] = (cl_mem)STARPU_VECTOR_GET_DEV_HANDLE(buffers[k]);
    off[k] = (cl_long)(STARPU_VECTOR_GET_OFFSET(buffers[k]) / g->real_size); /* a part of a vector */
  }
  /* ncell, ref, then (buffer, offset) of the nodes, the coefficients and the output */
  if (err == CL_SUCCESS) err = clSetKernelArg(e->kernel, 0, sizeof ncell, &ncell);
  if (err == CL_SUCCESS) err = clSetKernelArg(e->kernel, 1, sizeof(cl_mem), &m[0]);
  for (int k = 1; k < 4 && err == CL_SUCCESS; k++) {
    err = clSetKernelArg(e->kernel, (cl_uint)(2 * k), sizeof(cl_mem), &m[k]);
    if (err == CL_SUCCESS)
      err = clSetKernelArg(e->kernel, (cl_uint)(2 * k + 1), sizeof(cl_long), &off[k]);
  }
  if (err == CL_SUCCESS && ncell > 0) {
    const size_t local = (size_t)hcurl_wg_size(g->nsh), global = local * (size_t)ncell;
    err = clEnqueueNDRangeKernel(queue, e->kernel, 1, NULL, &global, &local, 0, NULL, NULL);
  }
  err = femint_cl_outcome(b->ctx, dev, err);
  if (err != CL_SUCCESS) {
    b->status = FEMINT_EOPENCL;
    snprintf(b->msg, sizeof b->msg, "integrate_hcurl: OpenCL launch on device %d failed (%d)",
             dev, err);
  }
}

static struct starpu_perfmodel integrate_hcurl_model = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "femint_integrate_hcurl_v1",
    .footprint = batch_footprint,
};

struct starpu_codelet femint_cl_integrate_hcurl = {
    .name = "femint_integrate_hcurl",
    .cpu_funcs = {integrate_hcurl_cpu},
    .opencl_funcs = {integrate_hcurl_opencl},
    .opencl_flags = {STARPU_OPENCL_ASYNC},
    .nbuffers = 4,
    .modes = {STARPU_R, STARPU_R, STARPU_R, STARPU_W},
    .model = &integrate_hcurl_model,
};
