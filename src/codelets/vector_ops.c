/* The vector operations of matrix-free solves (vector_ops.h): one codelet, the operation in its
 * argument, a CPU implementation on the worker's OpenMP team and an OpenCL one
 * (kernels/vector_ops.cl). Dot products add fixed ranges (VEC_NRANGE on the CPU; on a device,
 * as many as n makes work-groups), then the ranges' sums in order, so that a result does not
 * depend on the number of threads. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/error.h"
#include "vector_ops.h"
#include "volume_opencl.h"

#define VPTR(i) ((double *)STARPU_VECTOR_GET_PTR(buffers[i]))

/* part[j][k] for the ranges k of n values: the sums acc[0..nd) of each range, the body (the
 * variadic part) run for each i of the range. */
#define RANGES(nt, n, nd, part, ...)                                                             \
  do {                                                                                            \
    const int64_t chunk_ = ((n) + VEC_NRANGE - 1) / VEC_NRANGE;                                   \
    _Pragma("omp parallel for num_threads(nt) schedule(static)")                                  \
    for (int k = 0; k < VEC_NRANGE; k++) {                                                        \
      const int64_t lo = k * chunk_, hi = lo + chunk_ < (n) ? lo + chunk_ : (n);                  \
      double acc[3] = {0, 0, 0};                                                                  \
      for (int64_t i = lo; i < hi; i++) __VA_ARGS__;                                              \
      for (int j = 0; j < (nd); j++) (part)[j * VEC_NRANGE + k] = acc[j];                         \
    }                                                                                             \
  } while (0)

static double range_sum(const double *part, int j)
{
  double s = 0;
  for (int k = 0; k < VEC_NRANGE; k++) s += part[j * VEC_NRANGE + k];
  return s;
}

/* The buffer of an operation's scalars (s). */
static int slots_buffer(int op)
{
  return op == VEC_CG_UPDATE ? 5 : 2;
}

/* VEC_CG_UPDATE's coefficients from the slots s; alpha kept in s[aout], p . A p in s[DEN]. */
static void cg_coefficients(const struct vec_arg *a, double *s, double *alpha, double *beta)
{
  const double gamma = s[a->in0];
  *beta = a->first ? 0 : gamma / s[a->in1];
  s[SLOT_DEN] = a->first ? s[SLOT_PQ] : s[SLOT_PQ] - *beta * gamma / s[a->ain];
  *alpha = gamma / s[SLOT_DEN];
  s[a->aout] = *alpha;
}

/* put[slot] = the sum over the parts of their published values, in the parts' order. */
static void gather_sum(struct vec_arg *a)
{
  for (int i = 0; i < a->ngather; i++) {
    double t = 0;
    for (int d = 0; d < a->nsum; d++) t += a->gather[i].src[d][a->gather[i].slot];
    a->put[a->gather[i].slot] = t;
  }
}

/* VEC_EV_SUM on the CPU, by cells: each thread its range of y's DOFs, through the cells whose
 * places hold them (the blocks' spans), in plan order: every DOF's values added in plan order,
 * as the sum by DOFs adds them, the element vectors read in order (or, those a writer put in
 * place order, through the slots). */
static void ev_sum_cells(const struct vec_arg *a, void *buffers[], double *y, int nt)
{
  const int nc = a->nc, np = a->np, single = a->single;
  const int64_t lo = a->lo, hi = lo + a->n / nc;
#pragma omp parallel num_threads(nt)
  {
    const int nth = omp_get_num_threads(), th = omp_get_thread_num();
    const int64_t tlo = lo + (hi - lo) * th / nth, thi = lo + (hi - lo) * (th + 1) / nth;
    memset(y + (tlo - lo) * nc, 0, (size_t)(thi - tlo) * nc * sizeof *y);
    int64_t c0 = INT64_MAX, c1 = -1;
    for (int64_t b = tlo / EV_SPAN; tlo < thi && b <= (thi - 1) / EV_SPAN; b++)
      if (a->span[2 * b] >= 0) {
        if (a->span[2 * b] < c0) c0 = a->span[2 * b];
        if (a->span[2 * b + 1] > c1) c1 = a->span[2 * b + 1];
      }
    const int klo = c1 < 0 ? 0 : ev_chunk_of(a->chunk_first, a->nchunk, c0);
    const int khi = c1 < 0 ? -1 : ev_chunk_of(a->chunk_first, a->nchunk, c1);
    for (int k = klo; k <= khi; k++) {
      const int64_t k0 = a->chunk_first[k], nk = STARPU_VECTOR_GET_NX(buffers[2 + 2 * k]) / np;
      const int64_t e0 = c0 > k0 ? c0 - k0 : 0, e1 = c1 - k0 < nk - 1 ? c1 - k0 : nk - 1;
      const int64_t *dof = (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[2 + 2 * k]);
      const void *ev = VPTR(1 + 2 * k);
      /* place o of value n of cell kc: in place order, the slot (value c at o nc + c), else
       * (kc nc + c) np + n */
      const int32_t *sl = a->chunk_sorted && a->chunk_sorted[k] ? a->slot + k0 * np : NULL;
      const int64_t step = sl ? 1 : np;
      for (int64_t kc = e0; kc <= e1; kc++)
        for (int n = 0; n < np; n++) {
          const int64_t g = dof[kc * np + n];
          if (g < tlo || g >= thi) continue;
          const int64_t o = sl ? (int64_t)sl[kc * np + n] * nc : kc * nc * np + n;
          double *yg = y + (g - lo) * nc;
          if (single)
            for (int c = 0; c < nc; c++) yg[c] += ((const float *)ev)[o + c * step];
          else
            for (int c = 0; c < nc; c++) yg[c] += ((const double *)ev)[o + c * step];
        }
    }
  }
}

static void vec_cpu(void *buffers[], void *cl_arg)
{
  struct vec_arg *a = cl_arg;
  const int nt = femint_team_enter(a->ctx);
  if (a->counts) __atomic_fetch_add(&a->counts[0], 1, __ATOMIC_RELAXED);
  const int64_t n = a->n;
  double part[3 * VEC_NRANGE];
  double *slots = a->ngather || a->publish ? VPTR(slots_buffer(a->op)) : NULL;
  gather_sum(a);
  for (int i = 0; i < a->ngather; i++) slots[a->gather[i].slot] = a->put[a->gather[i].slot];
  for (int i = 0; a->op == VEC_MOVE && i < a->nloads; i++)
    memcpy(VPTR(0) + a->load_at[i], a->load[i], (size_t)a->nload[i] * sizeof(double));
  switch (a->op) {
  case VEC_EV_SUM: /* y holds the DOFs lo .. lo + n / nc - 1 */
    ev_sum_cells(a, buffers, VPTR(0), nt);
    break;
  case VEC_DOT: {
    const double *x = VPTR(0), *y = VPTR(1);
    RANGES(nt, n, 1, part, acc[0] += x[i] * y[i]);
    VPTR(2)[a->out] = range_sum(part, 0);
    break;
  }
  case VEC_CG_START: {
    const double *b = VPTR(0), *dinv = a->jacobi ? VPTR(3) : NULL;
    double *r = VPTR(1), *s = VPTR(2), *z = a->jacobi ? VPTR(4) : NULL;
    RANGES(nt, n, 3, part, {
      const double bi = b[i], ri = bi - r[i], zi = dinv ? dinv[i] * ri : ri;
      r[i] = ri;
      if (z) z[i] = zi;
      acc[0] += ri * zi;
      acc[1] += ri * ri;
      acc[2] += bi * bi;
    });
    s[a->out] = range_sum(part, 0);
    s[SLOT_RR] = range_sum(part, 1);
    s[SLOT_BB] = range_sum(part, 2);
    break;
  }
  case VEC_CG_UPDATE: {
    double *x = VPTR(0), *r = VPTR(1), *p = VPTR(2), *t = VPTR(3), *s = VPTR(5), *rr = VPTR(6);
    const double *w = VPTR(4), *dinv = a->jacobi ? VPTR(7) : NULL;
    double *z = a->jacobi ? VPTR(8) : NULL;
    double alpha, beta;
    cg_coefficients(a, s, &alpha, &beta);
    const int first = a->first;
    RANGES(nt, n, 2, part, {
      const double ui = z ? z[i] : r[i];
      const double pi = first ? ui : ui + beta * p[i], ti = first ? w[i] : w[i] + beta * t[i];
      p[i] = pi;
      t[i] = ti;
      x[i] += alpha * pi;
      const double ri = r[i] - alpha * ti, zi = dinv ? dinv[i] * ri : ri;
      r[i] = ri;
      if (z) z[i] = zi;
      acc[0] += ri * zi;
      acc[1] += ri * ri;
    });
    s[a->out] = range_sum(part, 0);
    s[SLOT_RR] = range_sum(part, 1);
    rr[0] = s[SLOT_RR];
    rr[1] = s[SLOT_DEN];
    break;
  }
  case VEC_COPY: {
    const char *src = (const char *)STARPU_VECTOR_GET_PTR(buffers[0]);
    char *dst = (char *)STARPU_VECTOR_GET_PTR(buffers[1]);
    const size_t chunk = ((size_t)n + (size_t)nt - 1) / (size_t)nt;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int i = 0; i < nt; i++) {
      const size_t lo = (size_t)i * chunk;
      if (lo < (size_t)n) memcpy(dst + lo, src + lo, (size_t)n - lo < chunk ? (size_t)n - lo : chunk);
    }
    break;
  }
  case VEC_MOVE: { /* n = 0: the loads alone, dst the task's one buffer */
    if (n == 0) break;
    double *dst = VPTR(0);
    const double *src = VPTR(1);
    const int64_t *idx = (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[2]);
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t k = 0; k < n; k++) dst[idx[2 * k]] = src[idx[2 * k + 1]];
    break;
  }
  }
  if (a->publish) memcpy(a->publish, slots, VEC_NSLOT * sizeof(double));
  if (a->op == VEC_MOVE && a->store)
    memcpy(a->store, VPTR(0), (size_t)a->nstore * sizeof(double));
}

/* ---- OpenCL ---- */

static const char *const kernel_names[VEC_NOP] = {
    "vec_ev_sum", "vec_dot", "vec_cg_start", "vec_cg_update", "vec_move"};

int vec_kernels_create(int dev, const char *source, struct vec_kernels **out)
{
  *out = NULL;
  cl_context clctx;
  cl_device_id id;
  starpu_opencl_get_context(dev, &clctx);
  starpu_opencl_get_device(dev, &id);
  struct vec_kernels *k = calloc(1, sizeof *k);
  if (!k) return femint_seterr(NULL, FEMINT_ENOMEM, "out of memory");
  char options[96];
  snprintf(options, sizeof options, "-DWG=%d", VEC_WG);
  int err = femint_cl_build(clctx, id, source, options, &k->program);
  cl_int cerr = CL_SUCCESS;
  for (int i = 0; i < VEC_NOP && !err; i++) {
    k->k[i] = clCreateKernel(k->program, kernel_names[i], &cerr);
    if (cerr != CL_SUCCESS)
      err = femint_seterr(NULL, FEMINT_EOPENCL, "clCreateKernel(%s) failed (%d)", kernel_names[i], cerr);
  }
  if (!err) {
    k->finish = clCreateKernel(k->program, "vec_finish", &cerr);
    if (cerr == CL_SUCCESS) k->ev_sum_f = clCreateKernel(k->program, "vec_ev_sum_f", &cerr);
    if (cerr == CL_SUCCESS)
      k->ev_sum_sorted[0] = clCreateKernel(k->program, "vec_ev_sum_sorted", &cerr);
    if (cerr == CL_SUCCESS)
      k->ev_sum_sorted[1] = clCreateKernel(k->program, "vec_ev_sum_sorted_f", &cerr);
    if (cerr == CL_SUCCESS)
      k->partial = clCreateBuffer(clctx, CL_MEM_READ_WRITE, 3 * VEC_CL_MAXGROUP * sizeof(double), NULL,
                                  &cerr);
    if (cerr != CL_SUCCESS)
      err = femint_seterr(NULL, FEMINT_EOPENCL, "the vector kernels' buffers (%d)", cerr);
  }
  if (err) {
    vec_kernels_destroy(&k);
    return err;
  }
  *out = k;
  return 0;
}

void vec_kernels_destroy(struct vec_kernels **k)
{
  if (!*k) return;
  for (int i = 0; i < VEC_NOP; i++)
    if ((*k)->k[i]) clReleaseKernel((*k)->k[i]);
  if ((*k)->finish) clReleaseKernel((*k)->finish);
  if ((*k)->ev_sum_f) clReleaseKernel((*k)->ev_sum_f);
  for (int i = 0; i < 2; i++)
    if ((*k)->ev_sum_sorted[i]) clReleaseKernel((*k)->ev_sum_sorted[i]);
  if ((*k)->partial) clReleaseMemObject((*k)->partial);
  if ((*k)->program) clReleaseProgram((*k)->program);
  free(*k);
  *k = NULL;
}

#define DEV(i) ((cl_mem)STARPU_VECTOR_GET_DEV_HANDLE(buffers[i]))
#define WHO "vector operation"

/* The work-groups of a reduction over n values (vector_ops.h). */
static cl_int cl_groups(int64_t n)
{
  const int64_t g = (n + VEC_CL_PER_GROUP - 1) / VEC_CL_PER_GROUP;
  return (cl_int)(g < 1 ? 1 : g > VEC_CL_MAXGROUP ? VEC_CL_MAXGROUP : g);
}

/* The partial sums of a reduction kernel of ng work-groups into nd slots of s, and with rr (not
 * NULL) rr[0] = s[RR], rr[1] = s[DEN] (vec_finish). */
static int finish(cl_command_queue queue, const struct vec_kernels *vk, cl_int nd, cl_int ng,
                  cl_mem s, const cl_int slot[3], cl_mem rr)
{
  const cl_int rrslot = rr ? SLOT_RR : -1, pqslot = SLOT_DEN;
  const cl_mem rrbuf = rr ? rr : s;
  const struct karg k[] = {KARG(nd),      KARG(ng),      KARG(vk->partial), KARG(s),
                           KARG(slot[0]), KARG(slot[1]), KARG(slot[2]),     KARG(rrbuf),
                           KARG(rrslot),  KARG(pqslot)};
  return femint_cl_run(queue, vk->finish, VEC_WG, VEC_WG, 10, k, WHO);
}

static void vec_opencl(void *buffers[], void *cl_arg)
{
  struct vec_arg *a = cl_arg;
  const int dev = starpu_worker_get_devid(starpu_worker_get_id());
  if (a->counts) __atomic_fetch_add(&a->counts[1], 1, __ATOMIC_RELAXED);
  const struct vec_kernels *vk = a->kern ? a->kern[dev] : NULL;
  cl_command_queue queue;
  starpu_opencl_get_current_queue(&queue);
  if (!vk) {
    a->status = FEMINT_EOPENCL;
    snprintf(a->msg, sizeof a->msg, "vector operation: no kernels on OpenCL device %d", dev);
    return;
  }
  cl_kernel kern = vk->k[a->op];
  const cl_long n = a->n;
  const cl_int jacobi = a->jacobi, nc = a->nc, np = a->np, in0 = a->in0, in1 = a->in1;
  const cl_int ng = cl_groups(n);
  const size_t ranges = (size_t)ng * VEC_WG;
  int err = 0;
  /* the sums over the parts into s, and a pack from main memory, before the kernels (put and
   * load stay until the task ends: its end waits for the queue) */
  gather_sum(a);
  const cl_mem slots = a->ngather || a->publish ? DEV(slots_buffer(a->op)) : NULL;
  for (int i = 0; i < a->ngather && !err; i++) {
    const size_t at = (size_t)a->gather[i].slot * sizeof(double);
    if (clEnqueueWriteBuffer(queue, slots, CL_FALSE, at, sizeof(double), &a->put[a->gather[i].slot],
                             0, NULL, NULL) != CL_SUCCESS)
      err = femint_seterr(NULL, FEMINT_EOPENCL, WHO ": the sums over the devices not written");
  }
  for (int i = 0; !err && a->op == VEC_MOVE && i < a->nloads; i++)
    if (a->nload[i] > 0 &&
        clEnqueueWriteBuffer(queue, DEV(0), CL_FALSE, (size_t)a->load_at[i] * sizeof(double),
                             (size_t)a->nload[i] * sizeof(double), a->load[i], 0, NULL,
                             NULL) != CL_SUCCESS)
      err = femint_seterr(NULL, FEMINT_EOPENCL, WHO ": a pack not written");
  switch (err ? -1 : a->op) {
  case VEC_EV_SUM: {
    const double zero = 0;
    cl_mem y = DEV(0);
    /* one chunk in place order that holds every DOF writes y whole: its sum starts from 0 */
    const cl_int first = a->chunk_sorted && a->nchunk == 1 && a->chunk_sorted[0] &&
                         a->chunk_nu[0] * nc == n;
    if (n > 0 && !first &&
        clEnqueueFillBuffer(queue, y, &zero, sizeof zero, 0, (size_t)n * sizeof zero, 0, NULL,
                            NULL) != CL_SUCCESS)
      err = femint_seterr(NULL, FEMINT_EOPENCL, WHO ": clEnqueueFillBuffer failed");
    for (int c = 0; c < a->nchunk && !err; c++) {
      const cl_long nu = a->chunk_nu[c];
      const cl_int ident = nu * nc == n; /* the chunk has every DOF: its j-th is j */
      const cl_mem ev = DEV(1 + 2 * c), map = DEV(2 + 2 * c);
      if (a->chunk_sorted && a->chunk_sorted[c]) {
        const struct karg k[] = {KARG(nu), KARG(nc),  KARG(first), KARG(ident),
                                 KARG(ev), KARG(map), KARG(y)};
        err = femint_cl_run(queue, vk->ev_sum_sorted[a->single], (size_t)nu, VEC_WG, 7, k, WHO);
        continue;
      }
      const struct karg k[] = {KARG(nu), KARG(nc),  KARG(np), KARG(ident),
                               KARG(ev), KARG(map), KARG(y)};
      err = femint_cl_run(queue, a->single ? vk->ev_sum_f : kern, (size_t)nu, VEC_WG, 7, k, WHO);
    }
    break;
  }
  case VEC_DOT: {
    const cl_mem x = DEV(0), y = DEV(1);
    const struct karg k[] = {KARG(n), KARG(x), KARG(y), KARG(vk->partial)};
    err = femint_cl_run(queue, kern, ranges, VEC_WG, 4, k, WHO);
    if (!err) err = finish(queue, vk, 1, ng, DEV(2), (cl_int[3]){a->out, 0, 0}, NULL);
    break;
  }
  case VEC_CG_START: {
    /* without Jacobi, dinv and z are never read or written: any buffer stands for them */
    const cl_mem b = DEV(0), r = DEV(1);
    const cl_mem dinv = a->jacobi ? DEV(3) : b, z = a->jacobi ? DEV(4) : r;
    const struct karg k[] = {KARG(n), KARG(jacobi), KARG(b), KARG(r), KARG(dinv), KARG(z),
                             KARG(vk->partial)};
    err = femint_cl_run(queue, kern, ranges, VEC_WG, 7, k, WHO);
    if (!err) err = finish(queue, vk, 3, ng, DEV(2), (cl_int[3]){a->out, SLOT_RR, SLOT_BB}, NULL);
    break;
  }
  case VEC_CG_UPDATE: {
    const cl_int pq = SLOT_PQ, first = a->first, ain = a->ain, aout = a->aout, den = SLOT_DEN;
    const cl_mem x = DEV(0), r = DEV(1), p = DEV(2), t = DEV(3), w = DEV(4), sv = DEV(5);
    const cl_mem dinv = a->jacobi ? DEV(7) : w, z = a->jacobi ? DEV(8) : r;
    const struct karg k[] = {KARG(n),  KARG(jacobi), KARG(first), KARG(in0),  KARG(in1),
                             KARG(pq), KARG(ain),    KARG(aout),  KARG(den),  KARG(sv),
                             KARG(x),  KARG(r),      KARG(p),     KARG(t),    KARG(w),
                             KARG(dinv), KARG(z),    KARG(vk->partial)};
    err = femint_cl_run(queue, kern, ranges, VEC_WG, 18, k, WHO);
    if (!err) err = finish(queue, vk, 2, ng, sv, (cl_int[3]){a->out, SLOT_RR, 0}, DEV(6));
    break;
  }
  case VEC_MOVE: { /* n = 0: the loads alone, dst the task's one buffer */
    if (n == 0) break;
    const cl_mem dst = DEV(0), src = DEV(1), idx = DEV(2);
    const struct karg k[] = {KARG(n), KARG(dst), KARG(src), KARG(idx)};
    err = femint_cl_run(queue, kern, (size_t)n, VEC_WG, 4, k, WHO);
    break;
  }
  }
  /* the scalars, or a pack, to main memory after the kernels (done when the task ends) */
  if (!err && a->publish &&
      clEnqueueReadBuffer(queue, slots, CL_FALSE, 0, VEC_NSLOT * sizeof(double), a->publish, 0,
                          NULL, NULL) != CL_SUCCESS)
    err = femint_seterr(NULL, FEMINT_EOPENCL, WHO ": the scalars not read back");
  if (!err && a->op == VEC_MOVE && a->store && a->nstore > 0 &&
      clEnqueueReadBuffer(queue, DEV(0), CL_FALSE, 0, (size_t)a->nstore * sizeof(double), a->store,
                          0, NULL, NULL) != CL_SUCCESS)
    err = femint_seterr(NULL, FEMINT_EOPENCL, WHO ": a pack not read back");
  err = femint_cl_status(a->ctx, dev, err);
  if (err) {
    a->status = err;
    snprintf(a->msg, sizeof a->msg, "OpenCL device %d: %s", dev, femint_thread_error());
  }
}

static uint32_t vec_footprint(struct starpu_task *task)
{
  const struct vec_arg *a = task->cl_arg;
  uint64_t n = (uint64_t)a->n; /* a load's size counts as its values */
  for (int i = 0; i < a->nloads; i++) n += (uint64_t)a->nload[i];
  const uint64_t key[2] = {(uint64_t)a->op * 2 + (uint64_t)a->jacobi, n};
  return starpu_hash_crc32c_be_n(key, sizeof key, 0);
}

static struct starpu_perfmodel vec_model = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "femint_vector_v1",
    .footprint = vec_footprint,
};

struct starpu_codelet femint_cl_vec = {
    .name = "femint_vector",
    .cpu_funcs = {vec_cpu},
    .opencl_funcs = {vec_opencl},
    .opencl_flags = {STARPU_OPENCL_ASYNC},
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &vec_model,
};
