/* The codelets of the tetrahedral Maxwell assembly (seed 004): maxwell_integrate (T_e or S_e of a
 * batch of cells into its COO slots; an OpenMP team on the CPU, the tet_matrix kernel on OpenCL),
 * maxwell_pattern (the COO -> CSR pattern of all slots, once per space) and maxwell_sum (the CSR
 * values of one matrix as segmented sums of its COO values through the pattern). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codelets.h"
#include "host/maxwell.h"

#define LOADR(ptr, i, single) \
  ((single) ? (double)((const float *)(ptr))[i] : ((const double *)(ptr))[i])

static void batch_fail(struct maxwell_batch *b, int code, const char *what)
{
#pragma omp critical(femint_maxwell_status)
  {
    b->status = code;
    snprintf(b->msg, sizeof b->msg, "maxwell_integrate: %s", what);
  }
}

/* buffers: reference tables, nodes, coefficients, the batch's COO values. */
static void maxwell_integrate_cpu(void *buffers[], void *arg)
{
  struct maxwell_batch *b = arg;
  const struct refel_tet *re = b->mx->re;
  const int nnode = b->mx->mesh->m->nnode, nsh = re->nsh, single = b->precision == FEMINT_SINGLE;
  const void *nodes = (const void *)STARPU_VECTOR_GET_PTR(buffers[1]);
  const void *coef = (const void *)STARPU_VECTOR_GET_PTR(buffers[2]);
  char *out = (char *)STARPU_VECTOR_GET_PTR(buffers[3]);
  const size_t rs = single ? sizeof(float) : sizeof(double), n2 = (size_t)nsh * nsh;
  const int w = starpu_worker_get_id(), nthreads = femint_team_enter(b->mx->ctx);
  b->ran_on = 1;
#pragma omp parallel num_threads(nthreads)
  {
    if (w >= 0) femint_team_bind_thread(b->mx->ctx, w, omp_get_thread_num());
    double *scratch = malloc(sizeof(double) * maxwell_cell_scratch(re));
    if (!scratch) batch_fail(b, FEMINT_ENOMEM, "out of memory");
#pragma omp for schedule(dynamic, 4)
    for (int c = 0; c < b->ncell; c++) {
      if (!scratch) continue;
      double X[30], k[MAXWELL_NCOEF];
      for (int i = 0; i < 3 * nnode; i++) X[i] = LOADR(nodes, (size_t)c * 3 * nnode + i, single);
      for (int i = 0; i < MAXWELL_NCOEF; i++) k[i] = LOADR(coef, (size_t)c * MAXWELL_NCOEF + i, single);
      maxwell_cell_matrix(re, b->which, nnode, X, k, scratch, single, out + (size_t)c * n2 * rs);
    }
    free(scratch);
  }
}

int maxwell_wg_size(int nsh)
{
  const int n2 = nsh * nsh;
  return n2 <= 64 ? 64 : n2 <= 512 ? 128 : 256;
}

static void maxwell_integrate_opencl(void *buffers[], void *arg)
{
  struct maxwell_batch *b = arg;
  const int dev = starpu_worker_get_devid(starpu_worker_get_id());
  cl_command_queue queue;
  starpu_opencl_get_current_queue(&queue);
  const struct cl_program_entry *e = b->program[dev];
  b->ran_on = 2;
  cl_int err = e && e->kernel ? CL_SUCCESS : CL_INVALID_PROGRAM;
  const cl_int ncell = b->ncell;
  const size_t rs = b->precision == FEMINT_SINGLE ? sizeof(float) : sizeof(double);
  cl_mem m[4];
  cl_long off[4];
  for (int k = 0; k < 4; k++) {
    m[k] = (cl_mem)STARPU_VECTOR_GET_DEV_HANDLE(buffers[k]);
    off[k] = (cl_long)(STARPU_VECTOR_GET_OFFSET(buffers[k]) / rs); /* a part of a vector */
  }
  /* ncell, ref, then (buffer, offset) of the nodes, the coefficients and the output */
  if (err == CL_SUCCESS) err = clSetKernelArg(e->kernel, 0, sizeof ncell, &ncell);
  if (err == CL_SUCCESS) err = clSetKernelArg(e->kernel, 1, sizeof(cl_mem), &m[0]);
  for (int k = 1; k < 4 && err == CL_SUCCESS; k++) {
    err = clSetKernelArg(e->kernel, (cl_uint)(2 * k), sizeof(cl_mem), &m[k]);
    if (err == CL_SUCCESS) err = clSetKernelArg(e->kernel, (cl_uint)(2 * k + 1), sizeof(cl_long), &off[k]);
  }
  if (err == CL_SUCCESS && ncell > 0) {
    const size_t local = (size_t)maxwell_wg_size(b->mx->re->nsh), global = local * ncell;
    err = clEnqueueNDRangeKernel(queue, e->kernel, 1, NULL, &global, &local, 0, NULL, NULL);
  }
  if (err != CL_SUCCESS) {
    b->status = FEMINT_EOPENCL;
    snprintf(b->msg, sizeof b->msg, "maxwell_integrate: OpenCL launch on device %d failed (%d)",
             dev, err);
  }
}

static uint32_t maxwell_footprint(struct starpu_task *task)
{
  const struct maxwell_batch *b = task->cl_arg;
  const uint32_t key[5] = {(uint32_t)b->mx->re->order, (uint32_t)b->which,
                           (uint32_t)b->precision, (uint32_t)b->ncell,
                           (uint32_t)b->mx->mesh->m->nnode};
  uint32_t h = 0;
  for (int i = 0; i < 5; i++) h = starpu_hash_crc32c_be(key[i], h);
  return h;
}

static struct starpu_perfmodel maxwell_integrate_model = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "femint_maxwell_integrate_v1",
    .footprint = maxwell_footprint,
};

struct starpu_codelet femint_cl_maxwell_integrate = {
    .name = "femint_maxwell_integrate",
    .cpu_funcs = {maxwell_integrate_cpu},
    .opencl_funcs = {maxwell_integrate_opencl},
    .opencl_flags = {STARPU_OPENCL_ASYNC},
    .nbuffers = 4,
    .modes = {STARPU_R, STARPU_R, STARPU_R, STARPU_W},
    .model = &maxwell_integrate_model,
};

/* ---- the pattern ---- */

/* dst = src, n int64 values, by the worker's team. */
static void copy_i64(int64_t *dst, const int64_t *src, int64_t n)
{
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < n; k++) dst[k] = src[k];
}

/* buffers: cell DOFs, perm, seg, rowptr, colind (int64). */
static void maxwell_pattern_cpu(void *buffers[], void *arg)
{
  struct maxwell_pattern_arg *a = arg;
  const struct femint_maxwell *mx = a->mx;
  const int64_t *cell_dof = (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[0]);
  struct coo_pattern p;
  /* the worker's team builds it row by row */
  omp_set_num_threads(femint_team_enter(mx->ctx));
  int err = coo_pattern_from_cells(mx->space->ndof, mx->mesh->m->ncell, mx->re->nsh, cell_dof, &p);
  if (!err) {
    copy_i64((int64_t *)STARPU_VECTOR_GET_PTR(buffers[1]), p.perm, p.nvalid);
    copy_i64((int64_t *)STARPU_VECTOR_GET_PTR(buffers[2]), p.seg, p.nnz + 1);
    copy_i64((int64_t *)STARPU_VECTOR_GET_PTR(buffers[3]), p.rowptr, p.n + 1);
    copy_i64((int64_t *)STARPU_VECTOR_GET_PTR(buffers[4]), p.colind, p.nnz);
    a->nvalid = p.nvalid;
    a->nnz = p.nnz;
  } else {
    a->status = err;
    snprintf(a->msg, sizeof a->msg, "maxwell_pattern: %s", femint_thread_error());
  }
  coo_pattern_free(&p);
}

/* The same on the device (seed 004's sort, scans and segments): only nvalid and nnz come back
 * before the CSR structure is fetched. */
static void maxwell_pattern_opencl(void *buffers[], void *arg)
{
  struct maxwell_pattern_arg *a = arg;
  const struct femint_maxwell *mx = a->mx;
  const int dev = starpu_worker_get_devid(starpu_worker_get_id());
  cl_command_queue queue;
  starpu_opencl_get_current_queue(&queue);
  cl_mem m[5];
  for (int k = 0; k < 5; k++) m[k] = (cl_mem)STARPU_VECTOR_GET_DEV_HANDLE(buffers[k]);
  const size_t bytes = sizeof(cl_long) * (size_t)(mx->nslot + 1);
  cl_int e1 = CL_SUCCESS, e2 = CL_SUCCESS;
  cl_mem row = clCreateBuffer(a->coo_cl->ctx, CL_MEM_READ_WRITE, bytes, NULL, &e1);
  cl_mem col = clCreateBuffer(a->coo_cl->ctx, CL_MEM_READ_WRITE, bytes, NULL, &e2);
  int err = e1 != CL_SUCCESS || e2 != CL_SUCCESS
                ? femint_seterr(NULL, FEMINT_ENOMEM,
                                "no room for the %lld COO rows and columns on OpenCL device %d",
                                (long long)mx->nslot, dev)
                : 0;
  if (!err)
    err = coo_cl_indices(a->coo_cl, queue, 0, mx->mesh->m->ncell, mx->re->nsh, m[0], row, col);
  if (!err)
    err = coo_cl_build(a->coo_cl, queue, mx->space->ndof, mx->nslot, row, col, m[1], m[2], m[3],
                       m[4], &a->nvalid, &a->nnz);
  if (row) clReleaseMemObject(row);
  if (col) clReleaseMemObject(col);
  /* not an asynchronous codelet: its work is over when it returns */
  clFinish(queue);
  if (err) {
    a->status = err;
    snprintf(a->msg, sizeof a->msg, "maxwell_pattern: %s", femint_thread_error());
  }
}

struct starpu_codelet femint_cl_maxwell_pattern = {
    .name = "femint_maxwell_pattern",
    .cpu_funcs = {maxwell_pattern_cpu},
    .opencl_funcs = {maxwell_pattern_opencl},
    .nbuffers = 5,
    .modes = {STARPU_R, STARPU_W, STARPU_W, STARPU_W, STARPU_W},
};

/* ---- the sums ---- */

/* buffers: perm, seg, COO values, CSR values. */
static void maxwell_sum_cpu(void *buffers[], void *arg)
{
  struct maxwell_sum_arg *a = arg;
  const int64_t *perm = (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[0]);
  const int64_t *seg = (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
  const void *coo = (const void *)STARPU_VECTOR_GET_PTR(buffers[2]);
  void *val = (void *)STARPU_VECTOR_GET_PTR(buffers[3]);
  const int single = a->precision == FEMINT_SINGLE, w = starpu_worker_get_id();
  const int64_t nnz = a->mx->nnz;
#pragma omp parallel num_threads(femint_team_enter(a->mx->ctx))
  {
    if (w >= 0) femint_team_bind_thread(a->mx->ctx, w, omp_get_thread_num());
#pragma omp for schedule(static)
    for (int64_t u = 0; u < nnz; u++) {
      double s = 0;
      for (int64_t k = seg[u]; k < seg[u + 1]; k++) s += LOADR(coo, perm[k], single);
      if (single) ((float *)val)[u] = (float)s;
      else ((double *)val)[u] = s;
    }
  }
}

static void maxwell_sum_opencl(void *buffers[], void *arg)
{
  struct maxwell_sum_arg *a = arg;
  const int dev = starpu_worker_get_devid(starpu_worker_get_id());
  cl_command_queue queue;
  starpu_opencl_get_current_queue(&queue);
  const struct cl_program_entry *e = a->program[dev];
  cl_int err = e && e->kernel ? CL_SUCCESS : CL_INVALID_PROGRAM;
  const cl_long nnz = a->mx->nnz;
  cl_mem m[4];
  for (int k = 0; k < 4; k++) m[k] = (cl_mem)STARPU_VECTOR_GET_DEV_HANDLE(buffers[k]);
  if (err == CL_SUCCESS) err = clSetKernelArg(e->kernel, 0, sizeof nnz, &nnz);
  for (int k = 0; k < 4 && err == CL_SUCCESS; k++)
    err = clSetKernelArg(e->kernel, (cl_uint)k + 1, sizeof(cl_mem), &m[k]);
  if (err == CL_SUCCESS && nnz > 0) {
    const size_t local = 128, global = ((size_t)nnz + local - 1) / local * local;
    err = clEnqueueNDRangeKernel(queue, e->kernel, 1, NULL, &global, &local, 0, NULL, NULL);
  }
  if (err != CL_SUCCESS) {
    a->status = FEMINT_EOPENCL;
    snprintf(a->msg, sizeof a->msg, "maxwell_sum: OpenCL launch on device %d failed (%d)", dev,
             err);
  }
}

static uint32_t sum_footprint(struct starpu_task *task)
{
  const struct maxwell_sum_arg *a = task->cl_arg;
  return starpu_hash_crc32c_be((uint32_t)a->precision,
                               starpu_hash_crc32c_be((uint32_t)(a->mx->nnz >> 8), 0));
}

static struct starpu_perfmodel maxwell_sum_model = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "femint_maxwell_sum_v1",
    .footprint = sum_footprint,
};

struct starpu_codelet femint_cl_maxwell_sum = {
    .name = "femint_maxwell_sum",
    .cpu_funcs = {maxwell_sum_cpu},
    .opencl_funcs = {maxwell_sum_opencl},
    .opencl_flags = {STARPU_OPENCL_ASYNC},
    .nbuffers = 4,
    .modes = {STARPU_R, STARPU_R, STARPU_R, STARPU_W},
    .model = &maxwell_sum_model,
};
