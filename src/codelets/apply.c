/* apply: the matrix-free action of a form on a chunk of cells (hexahedra, sum factorization):
 * each cell's values of x gathered in tensor order, A_e applied per component with the cell's
 * quadrature data, the result written to the chunk's slice of the element vectors; on a CPU team
 * (host/hex_apply.c) or an OpenCL device (kernels/hex_apply.cl). The sum of the element vectors
 * into y is the caller's (a fixed order: deterministic). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "codelets.h"
#include "host/refel_hex.h"

void apply_batch(const struct apply_arg *a, const void *x, const int64_t *dofs, const void *qd,
                 void *ev, int workerid, int nthreads)
{
  const struct hex_tensor *t = a->tensor;
  const int nc = a->ncomp, np = t->P * t->P * t->P, L = HEX_LANES;
  const int nblock = (a->ncell + L - 1) / L;
  const size_t nqd = (size_t)t->Q * t->Q * t->Q * hex_qdata_size(a->kind);
  /* with the geometry, the kernel makes the quadrature data at each point; in single precision
   * each lane's data is read into doubles in scratch (the CPU computes in double) */
  const size_t per = a->geo ? HEX_GEO_SIZE : nqd, lanes = hex_apply_lanes_scratch(t, a->kind);
  const int single = a->single;
  const size_t nscratch = lanes + (single ? L * per : 0);
  /* elasticity couples the components: all of them go through the kernel at once */
  const int together = a->kind == HEX_APPLY_ELASTICITY ? nc : 1;
  const size_t nu = (size_t)together * np * L;
  int oom = 0;
#pragma omp parallel num_threads(nthreads) reduction(| : oom)
  {
    if (workerid >= 0) femint_team_bind_thread(a->ctx, workerid, omp_get_thread_num());
    double *scratch = malloc((nscratch + 2 * nu) * sizeof *scratch);
    if (!scratch) oom = 1;
    /* blocks of HEX_LANES cells, their values interleaved cell by cell (the last block padded
     * with zeros and its last cell's data) */
#pragma omp for schedule(static)
    for (int blk = 0; blk < nblock; blk++) {
      if (!scratch) continue;
      const int k0 = blk * L, nk = a->ncell - k0 < L ? a->ncell - k0 : L;
      double *u = scratch + nscratch, *v = u + nu;
      const double *q[HEX_LANES];
      for (int z = 0; z < L && !single; z++)
        q[z] = (const double *)qd + (size_t)(k0 + (z < nk ? z : nk - 1)) * per;
      for (int z = 0; z < L && single; z++) { /* the padding lanes repeat the last cell's */
        double *qz = scratch + lanes + z * per;
        for (size_t i = 0; z < nk && i < per; i++)
          qz[i] = real_at(qd, (size_t)(k0 + z) * per + i, single);
        q[z] = z < nk ? qz : q[nk - 1];
      }
      for (int c0 = 0; c0 < nc; c0 += together) {
        for (int c = c0; c < c0 + together; c++)
          for (int z = 0; z < L; z++) {
            double *uc = u + (size_t)(c - c0) * np * L;
            if (z >= nk) {
              for (int n = 0; n < np; n++) uc[(size_t)n * L + z] = 0;
              continue;
            }
            if (a->evec) { /* the kernel alone: the cell's element vector */
              const size_t e0 = ((size_t)(k0 + z) * nc + c) * np;
              for (int n = 0; n < np; n++) uc[(size_t)n * L + z] = real_at(x, e0 + n, single);
              continue;
            }
            const int64_t *dof = dofs + (size_t)(k0 + z) * np;
            const double *xd = x;
            for (int n = 0; n < np; n++) uc[(size_t)n * L + z] = dof[n] >= 0 ? xd[dof[n] * nc + c] : 0;
          }
        hex_apply_lanes(t, a->kind, a->geo, q, u, v, scratch);
        for (int c = c0; c < c0 + together; c++)
          for (int z = 0; z < nk; z++) {
            const double *vc = v + (size_t)(c - c0) * np * L;
            const size_t e0 = ((size_t)(k0 + z) * nc + c) * np;
            for (int n = 0; n < np; n++) real_put(ev, e0 + n, vc[(size_t)n * L + z], single);
          }
      }
    }
    free(scratch);
  }
  if (oom) {
    ((struct apply_arg *)a)->status = FEMINT_ENOMEM;
    snprintf(((struct apply_arg *)a)->msg, sizeof a->msg, "apply: out of memory");
  }
}

/* buffers: x (R; evec: the chunk's element vectors), the chunk's DOFs in tensor order (R), its
 * quadrature data (R), the 1D tables (R), its element vectors (W). */
static void apply_cpu(void *buffers[], void *arg)
{
  const struct apply_arg *a = arg;
  if (a->counts) __atomic_fetch_add(&a->counts[0], 1, __ATOMIC_RELAXED);
  apply_batch(a, (const void *)STARPU_VECTOR_GET_PTR(buffers[0]),
              (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[1]),
              (const void *)STARPU_VECTOR_GET_PTR(buffers[2]),
              (void *)STARPU_VECTOR_GET_PTR(buffers[4]), starpu_worker_get_id(),
              femint_team_enter(a->ctx));
}

static void apply_opencl(void *buffers[], void *arg)
{
  struct apply_arg *a = arg;
  const int dev = starpu_worker_get_devid(starpu_worker_get_id());
  if (a->counts) __atomic_fetch_add(&a->counts[1], 1, __ATOMIC_RELAXED);
  cl_command_queue queue;
  starpu_opencl_get_current_queue(&queue);
  const struct cl_program_entry *e = a->program[dev];
  cl_int err = e && e->kernel ? CL_SUCCESS : CL_INVALID_PROGRAM;
  const cl_int ncell = a->ncell;
  cl_mem m[5];
  cl_long off[5];
  for (int k = 0; k < 5; k++) {
    m[k] = (cl_mem)STARPU_VECTOR_GET_DEV_HANDLE(buffers[k]);
    off[k] = (cl_long)(STARPU_VECTOR_GET_OFFSET(buffers[k]) / STARPU_VECTOR_GET_ELEMSIZE(buffers[k]));
  }
  /* ncell, x, (dofs, offset), (qd, offset), tab, (ev, offset) */
  if (err == CL_SUCCESS) err = clSetKernelArg(e->kernel, 0, sizeof ncell, &ncell);
  if (err == CL_SUCCESS) err = clSetKernelArg(e->kernel, 1, sizeof(cl_mem), &m[0]);
  if (err == CL_SUCCESS) err = clSetKernelArg(e->kernel, 2, sizeof(cl_mem), &m[1]);
  if (err == CL_SUCCESS) err = clSetKernelArg(e->kernel, 3, sizeof(cl_long), &off[1]);
  if (err == CL_SUCCESS) err = clSetKernelArg(e->kernel, 4, sizeof(cl_mem), &m[2]);
  if (err == CL_SUCCESS) err = clSetKernelArg(e->kernel, 5, sizeof(cl_long), &off[2]);
  if (err == CL_SUCCESS) err = clSetKernelArg(e->kernel, 6, sizeof(cl_mem), &m[3]);
  if (err == CL_SUCCESS) err = clSetKernelArg(e->kernel, 7, sizeof(cl_mem), &m[4]);
  if (err == CL_SUCCESS) err = clSetKernelArg(e->kernel, 8, sizeof(cl_long), &off[4]);
  /* the chunk's own element vectors (evec) start where their buffer does */
  if (err == CL_SUCCESS && off[0] != 0) err = CL_INVALID_BUFFER_SIZE;
  if (err == CL_SUCCESS && ncell > 0) {
    /* M x M work-items per cell, ne cells per work-group (kernels/hex_apply.cl) */
    const size_t m = (size_t)(a->tensor->P > a->tensor->Q ? a->tensor->P : a->tensor->Q);
    const size_t ne = (size_t)a->ne[dev];
    const size_t local[3] = {m, m, ne}, global[3] = {m, m, ne * (((size_t)ncell + ne - 1) / ne)};
    err = clEnqueueNDRangeKernel(queue, e->kernel, 3, NULL, global, local, 0, NULL, NULL);
  }
  err = femint_cl_outcome(a->ctx, dev, err);
  if (err != CL_SUCCESS) {
    a->status = FEMINT_EOPENCL;
    snprintf(a->msg, sizeof a->msg, "apply: OpenCL launch on device %d failed (%d)", dev, err);
  }
}

static uint32_t apply_footprint(struct starpu_task *task)
{
  const struct apply_arg *a = task->cl_arg;
  const uint32_t key[4] = {(uint32_t)a->tensor->p, (uint32_t)a->tensor->Q, (uint32_t)a->kind,
                           (uint32_t)(a->ncell * a->ncomp)};
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
    .opencl_funcs = {apply_opencl},
    .opencl_flags = {STARPU_OPENCL_ASYNC},
    .nbuffers = 5,
    .modes = {STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_W},
    .model = &apply_model,
};

/* buffers: the rule's points and weights (R, doubles), the chunk's cells' geometry (R, doubles,
 * hex_geo), their quadrature data (W), a flag (W: 0, or the chunk's cell + 1 of a point where
 * det J is not positive). OpenCL only: the host makes the data of the cells the CPU applies. */
static void qdata_opencl(void *buffers[], void *arg)
{
  struct qdata_arg *a = arg;
  const int dev = starpu_worker_get_devid(starpu_worker_get_id());
  cl_command_queue queue;
  starpu_opencl_get_current_queue(&queue);
  cl_kernel k = a->kernel[dev];
  cl_int err = k ? CL_SUCCESS : CL_INVALID_KERNEL;
  const cl_int zero = 0, ncell = a->ncell, curved = a->curved;
  if (err == CL_SUCCESS) /* the flag cleared */
    err = clEnqueueFillBuffer(
        queue, (cl_mem)STARPU_VECTOR_GET_DEV_HANDLE(buffers[3]), &zero, sizeof zero,
        STARPU_VECTOR_GET_OFFSET(buffers[3]), sizeof zero, 0, NULL, NULL);
  /* ncell, curved, then (rule, geo, qd, bad) each with its offset */
  if (err == CL_SUCCESS) err = clSetKernelArg(k, 0, sizeof ncell, &ncell);
  if (err == CL_SUCCESS) err = clSetKernelArg(k, 1, sizeof curved, &curved);
  if (err == CL_SUCCESS) err = cl_set_vectors(k, 2, buffers, 4);
  if (err == CL_SUCCESS && ncell > 0) {
    const size_t global = (size_t)ncell * (size_t)a->nq3;
    err = clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, NULL, 0, NULL, NULL);
  }
  err = femint_cl_outcome(a->ctx, dev, err);
  if (err != CL_SUCCESS) {
    a->status = FEMINT_EOPENCL;
    snprintf(a->msg, sizeof a->msg, "the quadrature data on OpenCL device %d failed (%d)", dev,
             err);
  }
}

struct starpu_codelet femint_cl_qdata = {
    .name = "femint_qdata",
    .opencl_funcs = {qdata_opencl},
    .opencl_flags = {STARPU_OPENCL_ASYNC},
    .nbuffers = 4,
    .modes = {STARPU_R, STARPU_R, STARPU_W, STARPU_W},
};
