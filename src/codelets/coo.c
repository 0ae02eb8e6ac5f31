/* The codelets of assembly through coordinates (seed 004): pattern (the CSR structure of a plan's
 * cells and the permutation that sums their element matrices into it, built once: on a CPU team
 * by host/pattern.c, on an OpenCL device by coo.cl's sort, scans and segments) and sum (the CSR
 * values of one matrix as segmented sums of its element matrices through the pattern). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codelets.h"
#include "host/sparse.h"
#include "volume_opencl.h"

/* dst = src, n int64 values, by the worker's team. */
static void copy_i64(int64_t *dst, const int64_t *src, int64_t n)
{
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < n; k++) dst[k] = src[k];
}

/* buffers: DOF codes, perm, seg, rowptr, colind (int64). */
static void pattern_cpu(void *buffers[], void *arg)
{
  struct pattern_arg *a = arg;
  struct pattern p;
  /* the worker's team builds it row by row */
  omp_set_num_threads(femint_team_enter(a->ctx));
  int err = pattern_build_rows(NULL, a->space, a->ncell, a->cells, a->symmetric, a->voff, a->mlo,
                               a->mhi, &p);
  if (!err) {
    copy_i64((int64_t *)STARPU_VECTOR_GET_PTR(buffers[1]), p.perm, p.ncontrib);
    copy_i64((int64_t *)STARPU_VECTOR_GET_PTR(buffers[2]), p.seg, p.nnz + 1);
    copy_i64((int64_t *)STARPU_VECTOR_GET_PTR(buffers[3]), p.rowptr, p.n + 1);
    copy_i64((int64_t *)STARPU_VECTOR_GET_PTR(buffers[4]), p.colind, p.nnz);
    a->ncontrib = p.ncontrib;
    a->nnz = p.nnz;
  } else {
    a->status = err;
    snprintf(a->msg, sizeof a->msg, "pattern: %s", femint_thread_error());
  }
  pattern_free(&p);
  __atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
}

/* The same on the device: the entries of every group, then the sort, scans and segments; only
 * ncontrib and nnz come back before the CSR structure is fetched. Not an asynchronous codelet: its
 * work is over when it returns. */
static void pattern_opencl(void *buffers[], void *arg)
{
  struct pattern_arg *a = arg;
  const int dev = starpu_worker_get_devid(starpu_worker_get_id());
  const struct coo_cl *k = a->coo_cl[dev];
  cl_command_queue queue;
  starpu_opencl_get_current_queue(&queue);
  cl_mem m[5];
  for (int i = 0; i < 5; i++) m[i] = (cl_mem)STARPU_VECTOR_GET_DEV_HANDLE(buffers[i]);
  const size_t bytes = sizeof(cl_long) * (size_t)(a->nentry + 1);
  cl_int e[3] = {CL_SUCCESS, CL_SUCCESS, CL_SUCCESS};
  int err = k ? 0 : femint_seterr(NULL, FEMINT_EOPENCL, "no COO kernels on OpenCL device %d", dev);
  cl_mem row = err ? NULL : clCreateBuffer(k->ctx, CL_MEM_READ_WRITE, bytes, NULL, &e[0]);
  cl_mem col = err ? NULL : clCreateBuffer(k->ctx, CL_MEM_READ_WRITE, bytes, NULL, &e[1]);
  cl_mem val = err ? NULL : clCreateBuffer(k->ctx, CL_MEM_READ_WRITE, bytes, NULL, &e[2]);
  if (!err && (e[0] != CL_SUCCESS || e[1] != CL_SUCCESS || e[2] != CL_SUCCESS))
    err = femint_seterr(NULL, FEMINT_ENOMEM,
                        "no room for the rows, columns and values of %lld entries on OpenCL "
                        "device %d",
                        (long long)a->nentry, dev);
  femint_trace("COO pattern: task started on OpenCL device %d", dev);
  for (int i = 0; i < a->ngroup && !err; i++) {
    const struct pattern_group *pg = &a->groups[i];
    const int64_t ne = a->space->ncomp;
    err = coo_cl_indices(k, queue, pg->ncell, pg->n, a->symmetric, pg->dof_base, pg->entry_base,
                         pg->value_base, pg->per_cell, a->mlo * ne, a->mhi * ne, m[0], row, col,
                         val);
  }
  if (femint_tracing()) { /* the steps' times, each waited for */
    clFinish(queue);
    femint_trace("COO pattern: the entries' rows, columns and values made");
  }
  if (!err)
    err = coo_cl_build(k, queue, a->space->nmode * a->space->ncomp, a->nentry, row, col, val, m[1],
                       m[2], m[3], m[4], &a->ncontrib, &a->nnz);
  if (row) clReleaseMemObject(row);
  if (col) clReleaseMemObject(col);
  if (val) clReleaseMemObject(val);
  clFinish(queue);
  err = femint_cl_status(a->ctx, dev, err);
  if (err) {
    a->status = err;
    snprintf(a->msg, sizeof a->msg, "pattern: %s", femint_thread_error());
  }
  __atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
}

struct starpu_codelet femint_cl_pattern = {
    .name = "femint_pattern",
    .cpu_funcs = {pattern_cpu},
    .opencl_funcs = {pattern_opencl},
    .nbuffers = 5,
    .modes = {STARPU_R, STARPU_W, STARPU_W, STARPU_W, STARPU_W},
};

/* buffers: perm, seg, the block's CSR values (W), then the element matrices it reads (R): the
 * first, parts of one vector that starts a->voff0 values before it (the others lie in the same
 * memory; as buffers they hold the tasks that write them). */
static void sum_cpu(void *buffers[], void *arg)
{
  struct sum_arg *a = arg;
  const int64_t *perm = (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[0]);
  const int64_t *seg = (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[1]) + a->u0;
  void *val = (void *)STARPU_VECTOR_GET_PTR(buffers[2]);
  const size_t rs = a->precision == FEMINT_SINGLE ? sizeof(float) : sizeof(double);
  const void *coo = (const char *)STARPU_VECTOR_GET_PTR(buffers[3]) - (size_t)a->voff0 * rs;
  const int single = a->precision == FEMINT_SINGLE, w = starpu_worker_get_id();
  const int64_t nnz = a->nnz;
#pragma omp parallel num_threads(femint_team_enter(a->ctx))
  {
    if (w >= 0) femint_team_bind_thread(a->ctx, w, omp_get_thread_num());
#pragma omp for schedule(static)
    for (int64_t u = 0; u < nnz; u++) {
      const double s = pattern_value(perm, seg, u, coo, single);
      if (a->out_double) ((double *)val)[u] = s;
      else ((float *)val)[u] = (float)s;
    }
  }
}

static void sum_opencl(void *buffers[], void *arg)
{
  struct sum_arg *a = arg;
  const int dev = starpu_worker_get_devid(starpu_worker_get_id());
  cl_command_queue queue;
  starpu_opencl_get_current_queue(&queue);
  const struct cl_program_entry *e = a->program[dev];
  cl_int err = e && e->kernel ? CL_SUCCESS : CL_INVALID_PROGRAM;
  const size_t rs = a->precision == FEMINT_SINGLE ? sizeof(float) : sizeof(double);
  const size_t vs = a->out_double ? sizeof(double) : sizeof(float);
  const cl_long nnz = a->nnz, u0 = a->u0,
                coo_off = (cl_long)(STARPU_VECTOR_GET_OFFSET(buffers[3]) / rs) - a->voff0,
                val_off = (cl_long)(STARPU_VECTOR_GET_OFFSET(buffers[2]) / vs);
  const cl_mem perm = (cl_mem)STARPU_VECTOR_GET_DEV_HANDLE(buffers[0]),
               seg = (cl_mem)STARPU_VECTOR_GET_DEV_HANDLE(buffers[1]),
               val = (cl_mem)STARPU_VECTOR_GET_DEV_HANDLE(buffers[2]),
               coo = (cl_mem)STARPU_VECTOR_GET_DEV_HANDLE(buffers[3]);
  const struct karg k[] = {KARG(nnz), KARG(u0),      KARG(perm), KARG(seg),
                           KARG(coo), KARG(coo_off), KARG(val),  KARG(val_off)};
  for (cl_uint i = 0; i < 8 && err == CL_SUCCESS; i++)
    err = clSetKernelArg(e->kernel, i, k[i].size, k[i].value);
  if (err == CL_SUCCESS && nnz > 0) {
    const size_t local = 128, global = ((size_t)nnz + local - 1) / local * local;
    err = clEnqueueNDRangeKernel(queue, e->kernel, 1, NULL, &global, &local, 0, NULL, NULL);
  }
  err = femint_cl_outcome(a->ctx, dev, err);
  if (err != CL_SUCCESS) {
    a->status = FEMINT_EOPENCL;
    snprintf(a->msg, sizeof a->msg, "sum: OpenCL launch on device %d failed (%d)", dev, err);
  }
}

/* buffers: rowptr, colind, values (doubles), x, y. */
static void spmv_cpu(void *buffers[], void *arg)
{
  const struct spmv_arg *a = arg;
  const int64_t *rowptr = (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[0]);
  const int64_t *colind = (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
  const double *val = (const double *)STARPU_VECTOR_GET_PTR(buffers[2]);
  const double *x = (const double *)STARPU_VECTOR_GET_PTR(buffers[3]);
  double *y = (double *)STARPU_VECTOR_GET_PTR(buffers[4]);
#pragma omp parallel for num_threads(femint_team_enter(a->ctx)) schedule(static)
  for (int64_t r = 0; r < a->n; r++) y[r] = csr_row_dot(rowptr, colind, val, x, r);
}

static void spmv_opencl(void *buffers[], void *arg)
{
  struct spmv_arg *a = arg;
  const int dev = starpu_worker_get_devid(starpu_worker_get_id());
  cl_command_queue queue;
  starpu_opencl_get_current_queue(&queue);
  const struct cl_program_entry *e = a->program[dev];
  cl_int err = e && e->kernel ? CL_SUCCESS : CL_INVALID_PROGRAM;
  const cl_long n = a->n;
  cl_mem m[5];
  for (int i = 0; i < 5; i++) m[i] = (cl_mem)STARPU_VECTOR_GET_DEV_HANDLE(buffers[i]);
  const struct karg k[] = {KARG(n), KARG(m[0]), KARG(m[1]), KARG(m[2]), KARG(m[3]), KARG(m[4])};
  for (cl_uint i = 0; i < 6 && err == CL_SUCCESS; i++)
    err = clSetKernelArg(e->kernel, i, k[i].size, k[i].value);
  if (err == CL_SUCCESS && n > 0) {
    const size_t local = 128, global = ((size_t)n + local - 1) / local * local;
    err = clEnqueueNDRangeKernel(queue, e->kernel, 1, NULL, &global, &local, 0, NULL, NULL);
  }
  err = femint_cl_outcome(a->ctx, dev, err);
  if (err != CL_SUCCESS) {
    a->status = FEMINT_EOPENCL;
    snprintf(a->msg, sizeof a->msg, "matrix_mult_vector: OpenCL launch on device %d failed (%d)",
             dev, err);
  }
}

struct starpu_codelet femint_cl_spmv = {
    .name = "femint_spmv",
    .cpu_funcs = {spmv_cpu},
    .opencl_funcs = {spmv_opencl},
    .opencl_flags = {STARPU_OPENCL_ASYNC},
    .nbuffers = 5,
    .modes = {STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_W},
};

static uint32_t sum_footprint(struct starpu_task *task)
{
  const struct sum_arg *a = task->cl_arg;
  return starpu_hash_crc32c_be((uint32_t)a->precision,
                               starpu_hash_crc32c_be((uint32_t)(a->nnz >> 8), 0));
}

static struct starpu_perfmodel sum_model = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "femint_sum_v1",
    .footprint = sum_footprint,
};

struct starpu_codelet femint_cl_sum = {
    .name = "femint_sum",
    .cpu_funcs = {sum_cpu},
    .opencl_funcs = {sum_opencl},
    .opencl_flags = {STARPU_OPENCL_ASYNC},
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &sum_model,
};
