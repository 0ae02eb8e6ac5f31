/* residual: the element residuals of a pointwise form on a chunk of cells (seed 002): each cell's
 * values of u (and of the auxiliary field) gathered, the caller's f0 and f1 evaluated at every
 * quadrature point, and the result tested against every function, written to the chunk's slice
 * of the element vectors; on a CPU team (host/pointwise.c, the caller's compiled functions) or an
 * OpenCL device (kernels/residual.cl with the caller's source inlined: seed 002's thread
 * transposition). The sum into F is the caller's (a fixed order: deterministic). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "codelets.h"
#include "host/pointwise.h"

/* Scratch values per thread for cell_inputs. */
static size_t cell_scratch(const struct residual_arg *a)
{
  const size_t ngeo = (size_t)a->re->nq * pw_geo_size(a->dim);
  return (size_t)a->re->nsh * (PW_MAX_NC + PW_MAX_NA) + (size_t)pw_affine_size(a->dim) + ngeo;
}

/* Cell k of a chunk in double, in the scratch w (cell_scratch values): its values of u (*ue,
 * [nsh][nc]), of the auxiliary field (*ae, [nsh][na], or [na] per cell) and its geometry at the
 * points, returned (from floats, and from an affine cell's). */
static const double *cell_inputs(const struct residual_arg *a, int k, const double *u,
                                 const int64_t *dofs, const void *geo, const double *aux,
                                 const int64_t *adofs, double *w, const double **ue,
                                 const double **ae)
{
  const int nsh = a->re->nsh, nc = a->nc, na = a->na;
  const size_t per = a->affine ? (size_t)pw_affine_size(a->dim)
                               : (size_t)a->re->nq * pw_geo_size(a->dim);
  double *uv = w, *av = w + nsh * PW_MAX_NC, *gc = av + nsh * PW_MAX_NA, *gd = gc + per;
  const int64_t *dk = dofs + (size_t)k * nsh;
  for (int i = 0; i < nsh; i++)
    for (int c = 0; c < nc; c++) uv[i * nc + c] = dk[i] >= 0 ? u[dk[i] * nc + c] : 0;
  if (a->aux == FEMINT_AUX_FIELD) {
    const int64_t *ak = adofs + (size_t)k * nsh;
    for (int i = 0; i < nsh; i++)
      for (int c = 0; c < na; c++) av[i * na + c] = ak[i] >= 0 ? aux[ak[i] * na + c] : 0;
  } else if (a->aux == FEMINT_AUX_CELL) {
    for (int c = 0; c < na; c++) av[c] = aux[(size_t)k * na + c];
  }
  *ue = uv;
  *ae = av;
  for (size_t i = 0; i < per; i++) {
    const size_t at = pw_geo_at(a->affine, a->dim, a->lanes, per, (size_t)a->ncell, (size_t)k, i);
    gc[i] = a->single ? ((const float *)geo)[at] : ((const double *)geo)[at];
  }
  if (!a->affine) return gc;
  pw_affine_points(a->re, gc, gd);
  return gd;
}

int residual_batch(const struct residual_arg *a, const double *u, const int64_t *dofs,
                   const void *geo, const double *aux, const int64_t *adofs, void *ev,
                   int workerid, int nthreads)
{
  const struct refel *re = a->re;
  const int nsh = re->nsh, nc = a->nc, na = a->na;
  const size_t ngeo = (size_t)re->nq * pw_geo_size(a->dim); /* a cell's geometry at its points */
  const size_t per = a->affine ? (size_t)pw_affine_size(a->dim) : ngeo; /* as kept */
  /* an affine run keeps its cells' |det J| and K, then their J and x0 (pw_affine_head) */
  const size_t head = a->affine ? (size_t)pw_affine_head(a->dim) : per, tail = per - head;
  const size_t rs = a->single ? sizeof(float) : sizeof(double);
  const int lanes = a->lanes;
  const char *geox = a->affine ? (const char *)geo + pw_padded((size_t)a->ncell, lanes) * head * rs
                               : NULL;
  const struct pw_eval e = {re, a->dim, nc, na, a->aux, a->k, a->f0, a->f1, a->affine};
  int oom = 0;
  if (a->cells) { /* the loop compiled with the caller's functions: a range of whole blocks of
                     lanes a thread */
#pragma omp parallel num_threads(nthreads) reduction(| : oom)
    {
      if (workerid >= 0) femint_team_bind_thread(a->ctx, workerid, omp_get_thread_num());
      const int t = omp_get_thread_num(), nt = omp_get_num_threads();
      const long long n = a->ncell;
      const int lo = (int)(n * t / nt / lanes * lanes);
      const int hi = t == nt - 1 ? (int)n : (int)(n * (t + 1) / nt / lanes * lanes);
      if (hi > lo)
        oom = a->cells(hi - lo, nsh, re->nq, re->phi, re->xq, re->wq, a->affine, u,
                       (const long long *)dofs + (size_t)lo * nsh,
                       (const char *)geo + (size_t)lo * head * rs,
                       geox ? geox + (size_t)lo * tail * rs : NULL, lanes, a->single,
                       a->aux == FEMINT_AUX_CELL ? aux + (size_t)lo * na : aux,
                       adofs ? (const long long *)adofs + (size_t)lo * nsh : NULL, a->aux, a->k,
                       (char *)ev + (size_t)lo * nc * nsh * rs) != 0;
    }
    return oom ? FEMINT_ENOMEM : 0;
  }
#pragma omp parallel num_threads(nthreads) reduction(| : oom)
  {
    if (workerid >= 0) femint_team_bind_thread(a->ctx, workerid, omp_get_thread_num());
    const size_t nr = (size_t)nc * nsh;
    double *w = malloc((cell_scratch(a) + nr) * sizeof *w), *rd = w + cell_scratch(a);
    oom = !w;
#pragma omp for schedule(static)
    for (int k = 0; k < a->ncell; k++) {
      if (!w) continue;
      const double *ue, *ae;
      const double *g = cell_inputs(a, k, u, dofs, geo, aux, adofs, w, &ue, &ae);
      pw_cell_residual(&e, g, ue, ae, rd);
      for (size_t i = 0; i < nr; i++) {
        if (a->single) ((float *)ev)[(size_t)k * nr + i] = (float)rd[i];
        else ((double *)ev)[(size_t)k * nr + i] = rd[i];
      }
    }
    free(w);
  }
  return oom ? FEMINT_ENOMEM : 0;
}

/* buffers: u (R), the chunk's DOFs (R), its geometry (R), phi (R), the auxiliary values (R: the
 * field, the chunk's per-cell values, or a placeholder), the chunk's auxiliary DOFs (R, or a
 * placeholder), its element vectors (W), the slots of its values in them (R: a->sorted, else a
 * placeholder). The CPU writes cell by cell (on the 2-core development machine scattering the
 * values to their slots made the P1 tetrahedra 30% slower; its caches serve the sum that gathers
 * them), the OpenCL kernel to the slots when a->sorted; each tells the sum which it did
 * (*a->wrote_sorted). */
static void residual_cpu(void *buffers[], void *arg)
{
  struct residual_arg *a = arg;
  if (a->counts) __atomic_fetch_add(&a->counts[0], 1, __ATOMIC_RELAXED);
  if (a->wrote_sorted) *a->wrote_sorted = 0;
  const int err = residual_batch(a, (const double *)STARPU_VECTOR_GET_PTR(buffers[0]),
                 (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[1]),
                 (const void *)STARPU_VECTOR_GET_PTR(buffers[2]),
                 (const double *)STARPU_VECTOR_GET_PTR(buffers[4]),
                 (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[5]),
                 (void *)STARPU_VECTOR_GET_PTR(buffers[6]), starpu_worker_get_id(),
                 femint_team_enter(a->ctx));
  if (err) {
    a->status = err;
    snprintf(a->msg, sizeof a->msg, "residual: out of memory on a CPU worker");
  }
}

/* Launch kernel on the worker's device with the chunk's ncell, then (buffer, offset in
 * elements) for each of nbuf buffers, then extra (if not NULL, an int), over `items` work-items
 * in groups of RESIDUAL_WG; the outcome in a->status. */
static void launch(struct residual_arg *a, cl_kernel kernel, void *buffers[], int nbuf,
                   const cl_int *extra, size_t items, const char *what)
{
  const int dev = starpu_worker_get_devid(starpu_worker_get_id());
  if (a->counts) __atomic_fetch_add(&a->counts[1], 1, __ATOMIC_RELAXED);
  cl_command_queue queue;
  starpu_opencl_get_current_queue(&queue);
  cl_int err = kernel ? CL_SUCCESS : CL_INVALID_KERNEL;
  const cl_int ncell = a->ncell;
  if (err == CL_SUCCESS) err = clSetKernelArg(kernel, 0, sizeof ncell, &ncell);
  if (err == CL_SUCCESS) err = cl_set_vectors(kernel, 1, buffers, nbuf);
  if (err == CL_SUCCESS && extra)
    err = clSetKernelArg(kernel, (cl_uint)(1 + 2 * nbuf), sizeof *extra, extra);
  if (err == CL_SUCCESS && items > 0) {
    const size_t local = RESIDUAL_WG, global = (items + local - 1) / local * local;
    err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL);
  }
  err = femint_cl_outcome(a->ctx, dev, err);
  if (err != CL_SUCCESS) {
    a->status = FEMINT_EOPENCL;
    snprintf(a->msg, sizeof a->msg, "%s: OpenCL launch on device %d failed (%d)", what, dev, err);
  }
}

/* ncell, the 8 buffers, sorted; a work-group per NB nbatch cells (a work-item per cell when
 * cellwise: NB = RESIDUAL_WG). */
static void residual_opencl(void *buffers[], void *arg)
{
  struct residual_arg *a = arg;
  const int dev = starpu_worker_get_devid(starpu_worker_get_id());
  const struct cl_program_entry *e = a->program[dev];
  const cl_int sorted = a->sorted;
  if (a->wrote_sorted) *a->wrote_sorted = a->sorted;
  const size_t nb = (size_t)a->nb[dev] * (size_t)a->nbatch;
  launch(a, e ? e->kernel : NULL, buffers, 8, &sorted,
         RESIDUAL_WG * (((size_t)a->ncell + nb - 1) / nb), "residual");
}

static uint32_t residual_footprint(struct starpu_task *task)
{
  const struct residual_arg *a = task->cl_arg;
  const uint32_t key[9] = {(uint32_t)a->re->shape, (uint32_t)a->re->order, (uint32_t)a->nc,
                           (uint32_t)a->aux,         (uint32_t)a->ncell, (uint32_t)a->single,
                           (uint32_t)a->nbatch,      (uint32_t)a->cellwise,
                           (uint32_t)a->sorted};
  return starpu_hash_crc32c_be_n(key, sizeof key, 0);
}

static struct starpu_perfmodel residual_model = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "femint_residual_v2",
    .footprint = residual_footprint,
};

struct starpu_codelet femint_cl_residual = {
    .name = "femint_residual",
    .cpu_funcs = {residual_cpu},
    .opencl_funcs = {residual_opencl},
    .opencl_flags = {STARPU_OPENCL_ASYNC},
    .nbuffers = 8,
    .modes = {STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_W, STARPU_R},
    .model = &residual_model,
};

/* jacobian: the element matrices of the Jacobian of a chunk's cells, mats[cell][n][n] (n = nsh
 * nc, row i nc + c) in the precision, from the caller's g0..g3 at u; buffers as residual's first
 * six, then the matrices (W). The CPU computes in double (pw_cell_jacobian), the OpenCL kernel
 * jacobian (kernels/residual.cl) JACOBIAN_ROWS rows of a cell per work-item. */
static void jacobian_cpu(void *buffers[], void *arg)
{
  struct residual_arg *a = arg;
  if (a->counts) __atomic_fetch_add(&a->counts[0], 1, __ATOMIC_RELAXED);
  const double *u = (const double *)STARPU_VECTOR_GET_PTR(buffers[0]);
  const int64_t *dofs = (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
  const void *geo = (const void *)STARPU_VECTOR_GET_PTR(buffers[2]);
  const double *aux = (const double *)STARPU_VECTOR_GET_PTR(buffers[4]);
  const int64_t *adofs = (const int64_t *)STARPU_VECTOR_GET_PTR(buffers[5]);
  void *mats = (void *)STARPU_VECTOR_GET_PTR(buffers[6]);
  const size_t n = (size_t)a->re->nsh * a->nc, nn = n * n;
  const struct pw_eval e = {a->re, a->dim, a->nc, a->na, a->aux, a->k, NULL, NULL, a->affine};
  const int workerid = starpu_worker_get_id();
  int oom = 0;
#pragma omp parallel num_threads(femint_team_enter(a->ctx)) reduction(| : oom)
  {
    if (workerid >= 0) femint_team_bind_thread(a->ctx, workerid, omp_get_thread_num());
    double *w = malloc((cell_scratch(a) + nn) * sizeof *w), *jd = w + cell_scratch(a);
    oom = !w;
#pragma omp for schedule(static)
    for (int k = 0; k < a->ncell; k++) {
      if (!w) continue;
      const double *ue, *ae;
      const double *g = cell_inputs(a, k, u, dofs, geo, aux, adofs, w, &ue, &ae);
      pw_cell_jacobian(&e, a->g, g, ue, ae, a->single ? jd : (double *)mats + (size_t)k * nn);
      for (size_t i = 0; a->single && i < nn; i++) ((float *)mats)[(size_t)k * nn + i] = (float)jd[i];
    }
    free(w);
  }
  if (oom) {
    a->status = FEMINT_ENOMEM;
    snprintf(a->msg, sizeof a->msg, "jacobian: out of memory on a CPU worker");
  }
}

/* ncell and the 7 buffers, a work-item per JACOBIAN_ROWS rows of a cell. */
static void jacobian_opencl(void *buffers[], void *arg)
{
  struct residual_arg *a = arg;
  const int dev = starpu_worker_get_devid(starpu_worker_get_id());
  const int nr = a->re->nsh * a->nc;
  launch(a, a->jkernel ? a->jkernel[dev] : NULL, buffers, 7, NULL,
         (size_t)a->ncell * nr / JACOBIAN_ROWS(a->nc, nr), "jacobian");
}

/* What sets a Jacobian task's time: not the residual kernel's mapping nor where it writes. */
static uint32_t jacobian_footprint(struct starpu_task *task)
{
  const struct residual_arg *a = task->cl_arg;
  const uint32_t key[6] = {(uint32_t)a->re->shape, (uint32_t)a->re->order, (uint32_t)a->nc,
                           (uint32_t)a->aux,       (uint32_t)a->ncell,      (uint32_t)a->single};
  return starpu_hash_crc32c_be_n(key, sizeof key, 0);
}

static struct starpu_perfmodel jacobian_model = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "femint_jacobian_v1",
    .footprint = jacobian_footprint,
};

struct starpu_codelet femint_cl_jacobian = {
    .name = "femint_jacobian",
    .cpu_funcs = {jacobian_cpu},
    .opencl_funcs = {jacobian_opencl},
    .opencl_flags = {STARPU_OPENCL_ASYNC},
    .nbuffers = 7,
    .modes = {STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_W},
    .model = &jacobian_model,
};
