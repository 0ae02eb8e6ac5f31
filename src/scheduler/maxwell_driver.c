/* femint_maxwell_assemble: the mass (T) and curl-curl (S) matrices of a tetrahedral H(curl)
 * space as seed 004 builds them, in StarPU tasks:
 *
 *   pattern (once per space)  the COO indices of every slot, sorted into the CSR pattern that T
 *                             and S share; perm and seg stay where they were built
 *   integrate (per batch)     T_e or S_e of the batch's cells into its part of the matrix's COO
 *                             values: the T and S tasks of a batch are independent, so that the
 *                             scheduler may run them side by side on CPU teams and devices
 *   sum (per matrix)          the CSR values as segmented sums of the COO values, on the node
 *                             that gathers the COO data: the first OpenCL device when one may be
 *                             used, so that only the CSR values travel back to the host.
 *
 * The COO values of each matrix are one vector that lives on that node and is partitioned into
 * the batches' parts while they integrate; unpartitioning gathers the parts written elsewhere. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/maxwell.h"
#include "host/sparse.h"
#include "kernels.h"
#include "scheduler.h"

/* Cells per batch: the COO values of a batch about 8 MB, at least 4 batches per worker where the
 * mesh allows, never fewer than 16 cells. */
static int batch_cells(const struct femint_maxwell *mx, int nworker, int max_batch, size_t rs)
{
  const int ncell = mx->mesh->m->ncell;
  if (max_batch > 0) return max_batch;
  const size_t per = (size_t)mx->re->nsh * mx->re->nsh * rs;
  int n = (int)((8u << 20) / per);
  const int spread = (ncell + 4 * nworker - 1) / (4 * nworker);
  if (spread < n) n = spread;
  return n < 16 ? 16 : n;
}

/* Build the OpenCL programs a run needs on every driven device: the batch kernel of T
 * (prog[MAXWELL_T]) and of S (prog[MAXWELL_S]), and the segmented sum (prog[2]). */
static int build_programs(femint_context_t ctx, const struct femint_maxwell *mx, int precision,
                          struct cl_program_entry *prog[3][FEMINT_MAX_CL_DEVICES])
{
  char *tet = femint_kernel_text("tet_maxwell.cl"), *coo = femint_kernel_text("coo.cl");
  int err = tet && coo ? 0 : femint_seterr(ctx, FEMINT_ENOMEM, "Maxwell kernels: out of memory");
  const char *real = precision == FEMINT_SINGLE ? "-DREAL=float" : "-DREAL=double -DFEMINT_FP64";
  for (int dev = 0; !err && dev < ctx->ncl_dev; dev++) {
    if (!ctx->cl_driven[dev]) continue;
    if (precision == FEMINT_DOUBLE && !ctx->cl_dev[dev].fp64) continue; /* CPU workers do it */
    for (int which = 0; !err && which < 2; which++) {
      char opts[256];
      snprintf(opts, sizeof opts, "-DNSH=%d -DNQ=%d -DNNODE=%d -DWHICH=%d -DWG_SIZE=%d %s",
               mx->re->nsh, mx->re->nq, mx->mesh->m->nnode, which, maxwell_wg_size(mx->re->nsh),
               real);
      err = femint_context_program(ctx, dev, tet, opts, "tet_matrix", &prog[which][dev]);
    }
    if (!err) err = femint_context_program(ctx, dev, coo, real, "coo_sum", &prog[2][dev]);
  }
  free(tet);
  free(coo);
  return err;
}

/* The COO kernels of OpenCL device dev (built once per space). */
static int coo_kernels(femint_context_t ctx, struct femint_maxwell *mx, int dev)
{
  if (mx->coo_cl[dev]) return 0;
  struct coo_cl *k = calloc(1, sizeof *k);
  FEMINT_CHECK(k, ctx, FEMINT_ENOMEM, "Maxwell pattern: out of memory");
  cl_context cctx;
  cl_device_id cdev;
  starpu_opencl_get_context(dev, &cctx);
  starpu_opencl_get_device(dev, &cdev);
  const int err = coo_cl_create(cctx, cdev, !ctx->cl_dev[dev].fp64, k);
  if (err) {
    free(k);
    return femint_seterr(ctx, err, "%s", femint_thread_error());
  }
  mx->coo_cl[dev] = k;
  return 0;
}

/* The pattern of every COO slot (first assembly): one task, on OpenCL worker gworker (and device
 * dev) when there is one, else on a CPU worker; then the host copies of rowptr and colind. */
static int build_pattern(femint_context_t ctx, struct femint_maxwell *mx, int dev, int gworker)
{
  if (gworker >= 0) FEMINT_CALL(coo_kernels(ctx, mx, dev));
  const struct tet_mesh *m = mx->mesh->m;
  const int64_t n = mx->space->ndof, nslot = mx->nslot;
  FEMINT_CHECK(nslot < UINT32_MAX, ctx, FEMINT_EINVAL,
               "Maxwell assembly: %lld COO slots (at most 2^32 - 1 in one assembly)",
               (long long)nslot);
  mx->rowptr = malloc(sizeof(int64_t) * (n + 1));
  FEMINT_CHECK(mx->rowptr, ctx, FEMINT_ENOMEM, "Maxwell pattern: out of memory");
  starpu_data_handle_t h_dof, h_rowptr, h_colind;
  starpu_vector_data_register(&h_dof, STARPU_MAIN_RAM, (uintptr_t)mx->space->cell_dof,
                              (uint32_t)((int64_t)m->ncell * mx->re->nsh), sizeof(int64_t));
  starpu_vector_data_register(&mx->h_perm, -1, 0, (uint32_t)(nslot + 1), sizeof(int64_t));
  starpu_vector_data_register(&mx->h_seg, -1, 0, (uint32_t)(nslot + 1), sizeof(int64_t));
  starpu_vector_data_register(&h_rowptr, STARPU_MAIN_RAM, (uintptr_t)mx->rowptr, (uint32_t)(n + 1),
                              sizeof(int64_t));
  starpu_vector_data_register(&h_colind, -1, 0, (uint32_t)(nslot + 1), sizeof(int64_t));
  struct maxwell_pattern_arg arg = {mx, gworker >= 0 ? mx->coo_cl[dev] : NULL, 0, 0, 0, ""};
  struct starpu_task *t = starpu_task_create();
  t->cl = &femint_cl_maxwell_pattern;
  t->where = gworker >= 0 ? STARPU_OPENCL : STARPU_CPU;
  if (gworker >= 0) {
    t->execute_on_a_specific_worker = 1;
    t->workerid = (unsigned)gworker;
  }
  t->handles[0] = h_dof;
  t->handles[1] = mx->h_perm;
  t->handles[2] = mx->h_seg;
  t->handles[3] = h_rowptr;
  t->handles[4] = h_colind;
  t->cl_arg = &arg;
  t->synchronous = 1;
  int err = starpu_task_submit(t);
  if (err) err = femint_seterr(ctx, FEMINT_ERUNTIME, "Maxwell pattern: task submission failed (%d)", err);
  else if (arg.status) err = femint_seterr(ctx, arg.status, "%s", arg.msg);
  if (!err) {
    mx->nvalid = arg.nvalid;
    mx->nnz = arg.nnz;
    mx->colind = malloc(sizeof(int64_t) * (arg.nnz + 1));
    if (!mx->colind) err = femint_seterr(ctx, FEMINT_ENOMEM, "Maxwell pattern: out of memory");
  }
  if (!err) {
    /* Only the nnz columns come back: the buffer was sized for every slot. */
    uint32_t part[2] = {(uint32_t)arg.nnz + 1, (uint32_t)(nslot - arg.nnz)};
    struct starpu_data_filter f = {.filter_func = starpu_vector_filter_list, .nchildren = 2,
                                   .filter_arg_ptr = part};
    starpu_data_partition(h_colind, &f);
    starpu_data_handle_t used = starpu_data_get_sub_data(h_colind, 1, 0);
    starpu_data_acquire(used, STARPU_R);
    memcpy(mx->colind, (void *)starpu_data_get_local_ptr(used), sizeof(int64_t) * arg.nnz);
    starpu_data_release(used);
    /* gathered where the whole buffer is valid: nothing moves */
    starpu_data_unpartition(h_colind, gworker >= 0 ? starpu_worker_get_memory_node((unsigned)gworker)
                                                   : STARPU_MAIN_RAM);
    starpu_data_acquire(h_rowptr, STARPU_R);
    starpu_data_release(h_rowptr);
  }
  starpu_data_unregister(h_dof);
  starpu_data_unregister(h_rowptr);
  starpu_data_unregister_no_coherency(h_colind);
  if (err) {
    starpu_data_unregister_no_coherency(mx->h_perm);
    starpu_data_unregister_no_coherency(mx->h_seg);
    mx->h_perm = mx->h_seg = NULL;
    free(mx->rowptr);
    free(mx->colind);
    mx->rowptr = mx->colind = NULL;
    return err;
  }
  mx->built = 1;
  mx->built_on_device = gworker >= 0;
  return 0;
}

/* Nodes [ncell][nnode][3] and coefficients [ncell][18] (eps, nu) in the precision. */
static int pack_inputs(femint_context_t ctx, const struct femint_maxwell *mx, int ncv,
                       const double *eps, const double *mu, int single, void *nodes, void *coef)
{
  const struct tet_mesh *m = mx->mesh->m;
  const int nn = 3 * m->nnode;
  struct tet_coef k = {{0}, {0}};
  static const double unit[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  for (int c = 0; c < m->ncell; c++) {
    if (c == 0 || ncv > 1) {
      const int v = ncv > 1 ? c : 0;
      if (tet_coef_tensor(eps + 9 * v, mu ? mu + 9 * v : unit, &k))
        return femint_seterr(ctx, FEMINT_EINVAL, "Maxwell assembly: cell %d: %s", c,
                             femint_thread_error());
    }
    double X[30];
    tet_mesh_cell_nodes(m, c, X);
    for (int i = 0; i < nn; i++) {
      if (single) ((float *)nodes)[(size_t)c * nn + i] = (float)X[i];
      else ((double *)nodes)[(size_t)c * nn + i] = X[i];
    }
    for (int i = 0; i < MAXWELL_NCOEF; i++) {
      const double v = i < 9 ? k.eps[i] : k.nu[i - 9];
      if (single) ((float *)coef)[(size_t)c * MAXWELL_NCOEF + i] = (float)v;
      else ((double *)coef)[(size_t)c * MAXWELL_NCOEF + i] = v;
    }
  }
  return 0;
}

/* A vector of n REALs registered on node (allocated there), partitioned by the lengths len. */
static starpu_data_handle_t partitioned(unsigned node, uintptr_t ptr, size_t n, size_t rs,
                                        int nbatch, uint32_t *len)
{
  starpu_data_handle_t h;
  starpu_vector_data_register(&h, (int)node, ptr, (uint32_t)n, rs);
  struct starpu_data_filter f = {.filter_func = starpu_vector_filter_list,
                                 .nchildren = (unsigned)nbatch,
                                 .filter_arg_ptr = len};
  starpu_data_partition(h, &f);
  return h;
}

static int new_matrix(femint_context_t ctx, const struct femint_maxwell *mx, femint_matrix_t *A)
{
  const int64_t n = mx->space->ndof, nnz = mx->nnz;
  struct femint_matrix *M = calloc(1, sizeof *M);
  if (M) {
    M->csr.nrows = n;
    M->csr.rowptr = malloc(sizeof(int64_t) * (n + 1));
    M->csr.colind = malloc(sizeof(int64_t) * (nnz + 1));
    M->csr.values = malloc(sizeof(double) * (nnz + 1));
  }
  if (!M || !M->csr.rowptr || !M->csr.colind || !M->csr.values) {
    femint_matrix_destroy(&M);
    return femint_seterr(ctx, FEMINT_ENOMEM, "Maxwell assembly: out of memory for the matrices");
  }
  /* Large copies by all cores (the first touch of the new pages included). */
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r <= n; r++) M->csr.rowptr[r] = mx->rowptr[r];
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < nnz; k++) M->csr.colind[k] = mx->colind[k];
  *A = M;
  return 0;
}

static int check_args(femint_context_t ctx, femint_maxwell_t mx, int ncv, const double *eps,
                      const struct femint_maxwell_options *o, femint_matrix_t *T,
                      femint_matrix_t *S)
{
  FEMINT_CHECK(ctx && mx && T && S, ctx, FEMINT_EINVAL, "maxwell_assemble: NULL argument");
  FEMINT_CHECK(eps, ctx, FEMINT_EINVAL, "maxwell_assemble: NULL eps_r");
  const int ncell = mx->mesh->m->ncell;
  FEMINT_CHECK(ncv == 1 || ncv == ncell, ctx, FEMINT_EINVAL,
               "maxwell_assemble: %d coefficient sets for %d cells (1 or one per cell)", ncv, ncell);
  FEMINT_CHECK(o->precision == FEMINT_DOUBLE || o->precision == FEMINT_SINGLE, ctx, FEMINT_EINVAL,
               "maxwell_assemble: precision %d", o->precision);
  FEMINT_CHECK(o->where >= FEMINT_WHERE_ANY && o->where <= FEMINT_WHERE_OPENCL, ctx,
               FEMINT_EINVAL, "maxwell_assemble: where = %d", o->where);
  FEMINT_CHECK(o->max_batch >= 0, ctx, FEMINT_EINVAL, "maxwell_assemble: max_batch = %d",
               o->max_batch);
  return 0;
}

/* Submit t, to be waited for and destroyed by the caller (*slot = t), or destroy it. */
static int submit(femint_context_t ctx, struct starpu_task *t, struct starpu_task **slot)
{
  t->destroy = 0;
  t->detach = 0;
  const int r = starpu_task_submit(t);
  if (r) {
    starpu_task_destroy(t);
    return femint_seterr(ctx, FEMINT_ERUNTIME, "Maxwell assembly: task submission failed (%d)", r);
  }
  *slot = t;
  return 0;
}

/* Wait for the integration tasks and collect their errors. */
static int finish_tasks(femint_context_t ctx, struct starpu_task **tasks, int ntask,
                        const struct maxwell_batch *b)
{
  int err = 0;
  for (int i = 0; i < ntask; i++) {
    if (!tasks[i]) continue;
    const int r = starpu_task_wait(tasks[i]);
    starpu_task_destroy(tasks[i]);
    if (r && !err) err = femint_seterr(ctx, FEMINT_ERUNTIME, "Maxwell assembly: a task failed (%d)", r);
    tasks[i] = NULL;
    if (b[i].status && !err) err = femint_seterr(ctx, b[i].status, "%s", b[i].msg);
  }
  return err;
}

int femint_maxwell_assemble(femint_context_t ctx, femint_maxwell_t mx, int ncv, const double *eps,
                            const double *mu, const struct femint_maxwell_options *opt,
                            femint_matrix_t *T, femint_matrix_t *S,
                            struct femint_maxwell_stats *stats)
{
  const double t0 = femint_now();
  struct femint_maxwell_options o = opt ? *opt : (struct femint_maxwell_options){0};
  if (T) *T = NULL;
  if (S) *S = NULL;
  FEMINT_CALL(check_args(ctx, mx, ncv, eps, &o, T, S));
  struct femint_maxwell_stats st;
  memset(&st, 0, sizeof st);
  const struct tet_mesh *m = mx->mesh->m;
  const int single = o.precision == FEMINT_SINGLE, nsh = mx->re->nsh, nn = 3 * m->nnode;
  const size_t rs = single ? sizeof(float) : sizeof(double), n2 = (size_t)nsh * nsh;

  /* Where: the first OpenCL device gathers the COO values and sums them when it may be used. */
  const int dev = o.where != FEMINT_WHERE_CPU ? femint_context_first_device(ctx) : -1;
  const int usable = dev >= 0 && (!single ? ctx->cl_dev[dev].fp64 : 1);
  FEMINT_CHECK(o.where != FEMINT_WHERE_OPENCL || usable, ctx, FEMINT_EINVAL,
               "maxwell_assemble: OpenCL only, but no OpenCL worker can run it%s",
               dev >= 0 ? " (the device has no double precision)" : "");
  const int gworker = usable ? starpu_worker_get_by_devid(STARPU_OPENCL_WORKER, dev) : -1;
  const unsigned gnode = gworker >= 0 ? starpu_worker_get_memory_node((unsigned)gworker)
                                      : STARPU_MAIN_RAM;
  uint32_t where = o.where == FEMINT_WHERE_CPU || !usable ? STARPU_CPU
                   : o.where == FEMINT_WHERE_OPENCL      ? STARPU_OPENCL
                                                         : STARPU_CPU | STARPU_OPENCL;

  FEMINT_CHECK(ctx->ncpu > 0 || gworker >= 0, ctx, FEMINT_ENODEV,
               "maxwell_assemble: no worker may run it (no CPU worker, no usable OpenCL one)");
  /* The COO kernels count with the programs, not with the pattern they build. */
  const double tc = femint_now();
  if (!mx->built && gworker >= 0) FEMINT_CALL(coo_kernels(ctx, mx, dev));
  st.t_programs = femint_now() - tc;
  if (!mx->built) {
    const double tp = femint_now();
    FEMINT_CALL(build_pattern(ctx, mx, dev, gworker));
    st.pattern_built = 1;
    st.t_pattern = femint_now() - tp;
  }
  starpu_data_handle_t h_tab;
  FEMINT_CALL(maxwell_tables(mx, o.precision, &h_tab));

  /* Batches: contiguous runs of cells. */
  const int per = batch_cells(mx, ctx->nworker, o.max_batch, rs);
  const int nbatch = (m->ncell + per - 1) / per; /* a mesh has cells */
  struct maxwell_batch *b = calloc((size_t)2 * nbatch, sizeof *b);
  uint32_t *len = malloc(sizeof *len * 3 * (size_t)nbatch);
  struct starpu_task **tasks = calloc((size_t)2 * nbatch, sizeof *tasks);
  void *nodes = NULL, *coef = NULL;
  int err = !b || !len || !tasks ? femint_seterr(ctx, FEMINT_ENOMEM, "Maxwell assembly: out of memory") : 0;
  if (!err) err = femint_host_alloc(ctx, (size_t)m->ncell * nn * rs + 64, &nodes);
  if (!err) err = femint_host_alloc(ctx, (size_t)m->ncell * MAXWELL_NCOEF * rs + 64, &coef);
  struct cl_program_entry *prog[3][FEMINT_MAX_CL_DEVICES] = {{NULL}};
  const double tb = femint_now();
  if (!err && usable) err = build_programs(ctx, mx, o.precision, prog);
  st.t_programs += femint_now() - tb;
  if (err) goto out;
  struct maxwell_sum_arg sum[2];
  memset(sum, 0, sizeof sum);
  for (int which = 0; which < 2; which++) {
    sum[which].mx = mx;
    sum[which].precision = o.precision;
    sum[which].program = prog[2];
  }

  const double tk = femint_now();
  err = pack_inputs(ctx, mx, ncv, eps, mu, single, nodes, coef);
  if (err) goto out;
  st.t_pack = femint_now() - tk;

  /* The partitions: lengths of the nodes, the coefficients and the COO values of each batch. */
  for (int i = 0; i < nbatch; i++) {
    const int nc = i < nbatch - 1 ? per : m->ncell - per * (nbatch - 1);
    len[i] = (uint32_t)(nc * nn);
    len[nbatch + i] = (uint32_t)(nc * MAXWELL_NCOEF);
    len[2 * nbatch + i] = (uint32_t)(nc * n2);
    for (int which = 0; which < 2; which++) {
      struct maxwell_batch *x = &b[2 * i + which];
      x->program = prog[which];
      x->mx = mx;
      x->which = which;
      x->precision = o.precision;
      x->ncell = nc;
    }
  }
  const size_t coo_bytes = (size_t)mx->nslot * rs + 64;
  uintptr_t coo_mem[2] = {0, 0};
  starpu_data_handle_t h_nodes = NULL, h_coef = NULL, h_coo[2] = {NULL, NULL}, h_val[2] = {NULL, NULL};
  void *val[2] = {NULL, NULL};
  /* The matrices; their values come through pinned memory (a transfer into pageable memory is
   * many times slower). */
  const double tm = femint_now();
  err = new_matrix(ctx, mx, T);
  if (!err) err = new_matrix(ctx, mx, S);
  st.t_pack += femint_now() - tm;
  if (err) goto release;
  for (int which = 0; which < 2 && !err; which++) {
    coo_mem[which] = starpu_malloc_on_node(gnode, coo_bytes);
    if (femint_host_alloc(ctx, rs * (mx->nnz + 1), &val[which])) val[which] = NULL;
    if (!coo_mem[which] || !val[which])
      err = femint_seterr(ctx, FEMINT_ENOMEM,
                          "Maxwell assembly: out of memory for %lld COO values on node %u",
                          (long long)mx->nslot, gnode);
  }
  if (err) goto release;
  h_nodes = partitioned(STARPU_MAIN_RAM, (uintptr_t)nodes, (size_t)m->ncell * nn, rs, nbatch, len);
  h_coef = partitioned(STARPU_MAIN_RAM, (uintptr_t)coef, (size_t)m->ncell * MAXWELL_NCOEF, rs,
                       nbatch, len + nbatch);
  for (int which = 0; which < 2; which++) {
    h_coo[which] = partitioned(gnode, coo_mem[which], (size_t)mx->nslot, rs, nbatch, len + 2 * nbatch);
    starpu_vector_data_register(&h_val[which], STARPU_MAIN_RAM, (uintptr_t)val[which],
                                (uint32_t)(mx->nnz + 1), rs);
  }

  /* Integration: the T and S tasks of each batch. */
  const double ti = femint_now();
  for (int i = 0; i < nbatch && !err; i++)
    for (int which = 0; which < 2 && !err; which++) {
      struct starpu_task *t = starpu_task_create();
      t->cl = &femint_cl_maxwell_integrate;
      t->handles[0] = h_tab;
      t->handles[1] = starpu_data_get_sub_data(h_nodes, 1, i);
      t->handles[2] = starpu_data_get_sub_data(h_coef, 1, i);
      t->handles[3] = starpu_data_get_sub_data(h_coo[which], 1, i);
      t->cl_arg = &b[2 * i + which];
      t->where = where;
      err = submit(ctx, t, &tasks[2 * i + which]);
    }
  if (o.phases || err) {
    int e2 = finish_tasks(ctx, tasks, 2 * nbatch, b);
    if (!err) err = e2;
  }
  st.t_integrate = femint_now() - ti;

  /* Sums where the COO values are gathered. */
  const double ts = femint_now();
  struct starpu_task *sums[2] = {NULL, NULL};
  for (int which = 0; which < 2; which++) {
    starpu_data_unpartition(h_coo[which], gnode);
    if (err) continue;
    struct starpu_task *t = starpu_task_create();
    t->cl = &femint_cl_maxwell_sum;
    t->handles[0] = mx->h_perm;
    t->handles[1] = mx->h_seg;
    t->handles[2] = h_coo[which];
    t->handles[3] = h_val[which];
    t->cl_arg = &sum[which];
    t->where = gworker >= 0 ? STARPU_OPENCL : STARPU_CPU;
    if (gworker >= 0) {
      t->execute_on_a_specific_worker = 1;
      t->workerid = (unsigned)gworker;
    }
    err = submit(ctx, t, &sums[which]);
  }
  if (!o.phases) {
    int e2 = finish_tasks(ctx, tasks, 2 * nbatch, b);
    if (!err) err = e2;
  }
  for (int which = 0; which < 2; which++)
    if (sums[which]) {
      const int r = starpu_task_wait(sums[which]);
      starpu_task_destroy(sums[which]);
      if (r && !err) err = femint_seterr(ctx, FEMINT_ERUNTIME, "Maxwell assembly: a sum task failed (%d)", r);
      if (sum[which].status && !err) err = femint_seterr(ctx, sum[which].status, "%s", sum[which].msg);
    }
  st.t_sum = femint_now() - ts;
  if (!o.phases) {
    /* T's sums overlapped S's integration: the two phases are reported together as integration */
    st.t_integrate += st.t_sum;
    st.t_sum = 0;
  }

  /* The CSR values to the host. */
  const double td = femint_now();
  for (int which = 0; which < 2 && !err; which++) {
    starpu_data_acquire(h_val[which], STARPU_R);
    double *dst = (which ? *S : *T)->csr.values;
    const float *fs = val[which];
    const double *ds = val[which];
#pragma omp parallel for schedule(static)
    for (int64_t u = 0; u < mx->nnz; u++) dst[u] = single ? fs[u] : ds[u];
    starpu_data_release(h_val[which]);
  }
  st.t_download = femint_now() - td;
  for (int i = 0; i < 2 * nbatch; i++) {
    st.tasks_cpu += b[i].ran_on == 1;
    st.tasks_opencl += b[i].ran_on == 2;
  }

release:
  if (h_nodes) {
    starpu_data_unpartition(h_nodes, STARPU_MAIN_RAM);
    starpu_data_unregister(h_nodes);
  }
  if (h_coef) {
    starpu_data_unpartition(h_coef, STARPU_MAIN_RAM);
    starpu_data_unregister(h_coef);
  }
  for (int which = 0; which < 2; which++) {
    if (h_coo[which]) starpu_data_unregister_no_coherency(h_coo[which]);
    if (coo_mem[which]) starpu_free_on_node(gnode, coo_mem[which], coo_bytes);
    if (h_val[which]) starpu_data_unregister_no_coherency(h_val[which]);
    if (val[which]) femint_host_free(ctx, val[which]);
  }
out:
  if (nodes) femint_host_free(ctx, nodes);
  if (coef) femint_host_free(ctx, coef);
  free(b);
  free(len);
  free(tasks);
  if (err) {
    femint_matrix_destroy(T);
    femint_matrix_destroy(S);
    return err;
  }
  st.ncell = m->ncell;
  st.nbatch = nbatch;
  st.ndof = mx->space->ndof;
  st.nnz = mx->nnz;
  st.nslot = mx->nslot;
  st.pattern_on_device = mx->built_on_device;
  st.t_total = femint_now() - t0;
  if (stats) *stats = st;
  return 0;
}
