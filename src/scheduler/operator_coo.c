/* femint_operator_assemble through coordinates (seed 004), for every shape and family:
 *
 *   pattern (first call)   the entries of every cell's element matrix, sorted into the CSR
 *                          pattern the matrices share and the permutation that sums them (on the
 *                          gathering node: the first usable OpenCL device, or a CPU team); perm
 *                          and seg stay there for the later calls (operator_coo_pattern.c)
 *   integrate (per batch)  each form's element matrices of the batch into its part of the form's
 *                          vector of element matrices, which lives on the gathering node and is
 *                          partitioned into the batches' parts while they integrate, on any
 *                          worker
 *   sum (per form)         the CSR values as segmented sums of the vector on its node, by
 *                          blocks of rows for a large matrix (sum_blocks.c: a block's task reads
 *                          the batches of its rows, its values come back while later batches
 *                          integrate), else in one task once the vector is gathered by
 *                          unpartitioning: only the CSR values come back from a device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codelets/kernels.h"
#include "operator.h"

/* coo_cl_create's programs through the cache of binaries on disk (a fresh process compiled the
 * pattern's program, 5.5 ms on the H200). */
static int coo_build_cached(void *arg, cl_context cctx, cl_device_id dev, const char *src,
                            const char *options, cl_program *prog)
{
  int cached;
  return program_cache_build(arg, cctx, dev, src, options, prog, &cached);
}

/* The COO kernels of the gathering device and its sum program of a precision. */
static int coo_programs(struct femint_operator *op, int precision)
{
  femint_context_t ctx = op->ctx;
  const int dev = op->coo_dev;
  if (!op->coo_cl[dev]) {
    struct coo_cl *k = calloc(1, sizeof *k);
    FEMINT_CHECK(k, ctx, FEMINT_ENOMEM, "COO assembly: out of memory");
    cl_context cctx;
    cl_device_id cdev;
    starpu_opencl_get_context(dev, &cctx);
    starpu_opencl_get_device(dev, &cdev);
    const int err =
        coo_cl_create_with(cctx, cdev, !ctx->cl_dev[dev].fp64, coo_build_cached, ctx, k);
    if (err) {
      free(k);
      return femint_seterr(ctx, err, "%s", femint_thread_error());
    }
    op->coo_cl[dev] = k;
  }
  return coo_sum_program(ctx, dev, precision, &op->sum_prog[dev]);
}

int coo_sum_program(femint_context_t ctx, int dev, int precision, struct cl_program_entry **entry)
{
  char *coo = femint_kernel_text("coo.cl");
  FEMINT_CHECK(coo, ctx, FEMINT_ENOMEM, "COO assembly: out of memory");
  /* the sums in double wherever the device has it (of floats too): the matrices' own type */
  const char *real = precision == FEMINT_DOUBLE     ? "-DREAL=double -DFEMINT_FP64"
                     : ctx->cl_dev[dev].fp64 ? "-DREAL=float -DVAL=double -DFEMINT_FP64"
                                             : "-DREAL=float";
  const int err = femint_context_program(ctx, dev, coo, real, "coo_sum", entry);
  free(coo);
  return err;
}

/* A vector of n REALs allocated on node and registered there, partitioned by the lengths len. */
static starpu_data_handle_t partitioned(unsigned node, uintptr_t ptr, size_t n, size_t rs,
                                        int nbatch, uint32_t *len)
{
  starpu_data_handle_t h;
  starpu_vector_data_register(&h, (int)node, ptr, (uint32_t)n, rs);
  struct starpu_data_filter f = {.filter_func = starpu_vector_filter_list,
                                 .nchildren = (unsigned)nbatch,
                                 .filter_arg_ptr = len};
  if (nbatch > 0) starpu_data_partition(h, &f);
  return h;
}

/* The per-form state of a call: the form's vector of element matrices on the gathering node, its
 * CSR values (in place, or floats of a device without fp64), and their handles. */
struct coo_run {
  uintptr_t coo_mem;
  int coo_plain; /* coo_mem is ordinary memory (femint_node_alloc) */
  starpu_data_handle_t h_coo;
  void *val;
  struct sum_arg sum;
  struct sum_call sc; /* the sums of the call, block by block */
};

/* The inputs of every batch packed by the calling thread's team before the tasks are submitted, in
 * a first call while the pattern is made (in a fresh process of the prisms of box 16x16x8, orders
 * 1-4, about 10 ms on the H200's host, as long as the device's sort): one thread packing each
 * batch as its task went kept the device waiting at low orders (prisms of order 2: 3.3 ms for
 * 32768 cells, a third of the values' download). */
static void coo_call_pack_ahead(void *arg)
{
  struct coo_call *c = arg;
  struct plan *p = c->op->plan;
  const double tp = femint_now();
  const int nb = p->nform * p->nbatch;
  int err = 0;
  batch_buffers(c->op->ctx, p, 0);
#pragma omp parallel for num_threads(femint_host_threads(c->op->ctx)) schedule(dynamic)
  for (int i = 0; i < nb; i++)
    if (!__atomic_load_n(&err, __ATOMIC_RELAXED)) {
      const int e = plan_pack_batch(p, &p->batches[i]);
      if (e) __atomic_store_n(&err, e, __ATOMIC_RELAXED);
    }
  c->pack_err = err;
  c->packed = 1;
  c->st->t_pack += femint_now() - tp;
  femint_trace("COO assembly: %d batches packed", nb);
}

int coo_call_ready(struct femint_operator *op, struct femint_stats *st, struct coo_columns *cols)
{
  return coo_call_ready_busy(op, st, cols, NULL, NULL);
}

int coo_call_ready_busy(struct femint_operator *op, struct femint_stats *st,
                        struct coo_columns *cols, void (*busy)(void *), void *busy_arg)
{
  if (op->coo_dev >= 0) {
    const double tc = femint_now();
    FEMINT_CALL(coo_programs(op, op->plan->opt.precision));
    st->t_programs += femint_now() - tc;
    femint_trace("COO assembly: programs built");
  }
  if (!op->h_perm) FEMINT_CALL(coo_pattern_make(op, st, cols, busy, busy_arg));
  femint_trace("COO assembly: pattern ready");
  return 0;
}

int coo_call_begin(struct coo_call *c)
{
  struct femint_operator *op = c->op;
  femint_context_t ctx = op->ctx;
  struct femint_stats *st = c->st;
  struct plan *p = op->plan;
  const int nform = p->nform, single = p->opt.precision == FEMINT_SINGLE;
  c->nb = nform * p->nbatch;
  c->rs = single ? sizeof(float) : sizeof(double);
  const int ahead = !p->opt.phases && !c->into;
  const int perr = coo_call_ready_busy(op, st, NULL, ahead ? coo_call_pack_ahead : NULL, c);
  if (!perr && ahead && !c->packed) coo_call_pack_ahead(c); /* the pattern was there */
  if (perr || c->pack_err) {
    /* a batch's own buffers (no arena) freed; the first error (the context's message) */
    for (int i = 0; c->packed && i < c->nb; i++) batch_release(ctx, &p->batches[i]);
    c->packed = 0;
    return perr ? perr : c->pack_err;
  }
  c->tasks = calloc((size_t)2 * c->nb + (size_t)nform * op->sums.n + 1, sizeof *c->tasks);
  c->run = calloc((size_t)nform, sizeof *c->run);
  c->len = malloc(((size_t)p->nbatch + 1) * sizeof *c->len);
  FEMINT_CHECK(c->tasks && c->run && c->len, ctx, FEMINT_ENOMEM, "COO assembly: out of memory");
  for (int j = 0; j < p->nbatch; j++)
    c->len[j] = (uint32_t)((size_t)p->batches[j].ncell * p->batches[j].g->out_size);
  int err = 0;
  const double tm = femint_now();
  c->coo_bytes = (size_t)op->nvalue * c->rs + 64;
  /* Where the sums write the CSR values. In double (every CPU, every device with fp64), straight
   * into the matrices. From a device, the first two assemblies bring them into ordinary memory
   * first touched by every thread (download_bounced, about 20 GB/s on the H200): pinning the
   * matrices would cost more than the copy saves (0.3 s for the 690 MB of the tetrahedral box
   * 17^3, about 15 assemblies' worth). From the third on, an operator that is assembled again
   * and again lends its matrices pinned memory of the context's, pinned once and reused after
   * femint_matrix_destroy (the copy at the pinned rate, 55 GB/s, and nothing after it). A device
   * without fp64 sums floats into pinned memory, converted after. A part of a split assembly
   * writes into its slice of its whole's matrices, which chose. */
  c->out_double = op->coo_dev < 0 || ctx->cl_dev[op->coo_dev].fp64;
  /* Kept on the device (options.matrix_on_device): summed in one block there, left there. */
  c->keep = !c->into && p->opt.matrix_on_device && op->coo_worker >= 0 && c->out_double &&
            op->sums.n > 0;
  if (c->keep && !op->sdev && !(op->sdev = shape_dev_get(ctx, op->shape)))
    return femint_seterr(ctx, FEMINT_ENOMEM, "COO assembly: out of memory");
  if (c->keep) {
    c->one_nz[1] = op->nnz;
    c->one = (struct sum_blocks){.n = 1, .nz = c->one_nz};
  }
  const int calls = c->into ? c->whole_calls : op->coo_calls;
  c->lend = !c->keep && c->out_double && op->coo_dev >= 0 && calls >= 2;
  c->bounced = !c->keep && c->out_double && op->coo_dev >= 0 && !c->lend;
  c->vs = c->out_double ? sizeof(double) : sizeof(float);
  for (int f = 0; f < nform && !err; f++) {
    struct coo_run *r = &c->run[f];
    double *v = !c->into && !c->lend && op->first_values ? op->first_values[f] : NULL;
    if (v && !(err = matrix_create_lent(ctx, op->shape, v, NULL, NULL, &c->A[f])))
      op->first_values[f] = NULL; /* the matrix's */
    else if (!c->into)
      err = c->lend ? femint_host_matrix(ctx, op->shape, &c->A[f])
                    : matrix_create(ctx, op->shape, 0, &c->A[f]);
    femint_trace("COO assembly: form %d: its matrix", f);
    if (!err) {
      r->coo_mem = femint_node_alloc(op->coo_node, c->coo_bytes, &r->coo_plain);
      femint_trace("COO assembly: form %d: its element matrices' memory on node %u", f,
                   op->coo_node);
      if (c->out_double) r->val = c->into ? c->into[f] : c->A[f]->values;
      else if (femint_host_alloc(ctx, c->vs * (size_t)(op->nnz + 1), &r->val)) r->val = NULL;
      if (!r->coo_mem || !r->val)
        err = femint_seterr(ctx, FEMINT_ENOMEM,
                            "COO assembly: out of memory for %lld element matrix values on node "
                            "%u",
                            (long long)op->nvalue, op->coo_node);
    }
    if (err) break;
    r->h_coo = partitioned(op->coo_node, r->coo_mem, (size_t)op->nvalue, c->rs, p->nbatch,
                           c->len);
    r->sum = (struct sum_arg){.ctx = ctx, .nnz = op->nnz, .precision = p->opt.precision,
                              .out_double = c->out_double, .program = op->sum_prog};
  }
  coo_first_values_free(op);
  st->t_pack += femint_now() - tm;
  femint_trace("COO assembly: %d forms of %lld element matrix values allocated and registered",
               nform, (long long)op->nvalue);
  if (err) return err;

  /* Integration (coo_call_integrate): the tasks of each batch, the forms of a batch together;
   * the inputs packed as the tasks go (with phases, all of them before, so that the integration
   * is timed alone). */
  if (!c->into && !c->packed) batch_buffers(ctx, p, 0);
  c->ti = femint_now();
  return 0;
}

int coo_call_pack(struct coo_call *c)
{
  struct plan *p = c->op->plan;
  int err = 0;
  const double tp = femint_now();
  for (int i = 0; p->opt.phases && !c->packed && i < c->nb && !err; i++)
    err = plan_pack_batch(p, &p->batches[i]);
  c->st->t_pack += femint_now() - tp;
  c->ti = femint_now();
  return err;
}

/* Whether dmda would place a batch on a CPU worker only to calibrate the CPU workers' model of its
 * task: the batch's element matrices are summed on a device, the CPU workers' model of the task is
 * not calibrated, and the device's is, or the device is not a CPU (a GPU is worth calibrating
 * first: its first samples cost little). Such a batch stays on the device: the sums wait for the
 * slowest batch, and a batch integrated by a CPU team must then cross the bus to them (on the
 * H200 one such batch of prisms of order 3 or 4 made a later assembly 1.5x longer, and a fresh
 * process gave a fifth of its batches to CPU teams). Batches go to the CPU workers where dmda
 * chooses them from calibrated models, or where STARPU_CALIBRATE asks StarPU to calibrate. */
static int coo_cpu_to_calibrate(const struct femint_operator *op, const struct batch *b,
                                struct starpu_task *t, uint32_t where)
{
  const char *cal = getenv("STARPU_CALIBRATE");
  if (op->coo_dev < 0 || !(where & STARPU_CPU) || !(where & STARPU_OPENCL) ||
      !b->g->program[op->coo_dev] || (cal && atoi(cal) > 0))
    return 0;
  const int gpu = !(op->ctx->cl_dev[op->coo_dev].type & CL_DEVICE_TYPE_CPU);
  return !model_calibrated(op->ctx, t, STARPU_CPU) &&
         (gpu || model_calibrated(op->ctx, t, STARPU_OPENCL));
}

int coo_call_integrate(struct coo_call *c, int k)
{
  struct femint_operator *op = c->op;
  struct plan *p = op->plan;
  const int nform = p->nform, f = k % nform, j = k / nform, i = f * p->nbatch + j;
  struct batch *b = &p->batches[i];
  if (!p->opt.phases && !c->packed) {
    const double tk = femint_now();
    const int err = plan_pack_batch(p, b);
    c->st->t_pack += femint_now() - tk;
    if (err) return err;
  }
  batch_register(b, 0);
  uint32_t where;
  struct starpu_task *t =
      integration_task(p, b, starpu_data_get_sub_data(c->run[f].h_coo, 1, j), &where);
  if (op->gpu_alone && (where & STARPU_OPENCL) && b->g->program[op->coo_dev])
    t->where = where = STARPU_OPENCL;
  worker_mask_set(t, &op->coo_mask);
  if (coo_cpu_to_calibrate(op, b, t, where)) t->where = where = STARPU_OPENCL;
  c->st->calibrating += !model_calibrated(op->ctx, t, where);
  return task_submit(op->ctx, t, &c->tasks[2 * i], "integration");
}

void coo_call_integrated(struct coo_call *c)
{
  const struct plan *p = c->op->plan;
  /* The pages of the matrices that the values come back to through the bounce buffers, first
   * touched by the threads while the device integrates (before the tasks, it held them up). */
  for (int f = 0; f < p->nform && c->bounced && !c->into && c->A[f] && !c->err; f++) {
    double *v = c->A[f]->values;
#pragma omp parallel for num_threads(femint_host_threads(c->op->ctx)) schedule(static)
    for (int64_t u = 0; u < c->op->nnz; u++) v[u] = 0;
  }
  if (p->opt.phases || c->err) {
    for (int i = 0; i < c->nb; i++)
      if (c->tasks[2 * i] && starpu_task_wait(c->tasks[2 * i]) && !c->err)
        c->err = femint_seterr(c->op->ctx, FEMINT_ERUNTIME, "COO assembly: a task failed");
  }
  c->st->t_integrate = femint_now() - c->ti;
  femint_trace("COO assembly: %d integration tasks submitted%s (packing in all %.4f s)", c->nb,
               p->opt.phases ? " and done" : "", c->st->t_pack);
}

int coo_call_sums(struct coo_call *c)
{
  struct femint_operator *op = c->op;
  const struct plan *p = op->plan;
  /* The sums where the element matrices are gathered, block by block as their batches are
   * integrated (coo_call_end brings each block's values from a device as soon as it is
   * summed). */
  c->ts = femint_now();
  if (!c->run) return c->err;
  for (int f = 0; f < p->nform && !c->err; f++) {
    struct coo_run *r = &c->run[f];
    if (!r->h_coo) continue;
    c->err = sum_call_submit(op->ctx, &r->sc, c->keep ? &c->one : &op->sums, &r->sum,
                             op->h_perm, op->h_seg,
                             r->h_coo, op->coo_node, r->val, c->vs, op->coo_worker,
                             &c->tasks[2 * c->nb + f * op->sums.n], "COO sum");
  }
  return c->err;
}

void coo_call_wait(struct coo_call *c)
{
  femint_context_t ctx = c->op->ctx;
  const struct plan *p = c->op->plan;
  const int nform = p->nform, nb = c->nb, ntask = 2 * nb + nform * c->op->sums.n;
  if (!c->tasks || c->waited) return;
  c->waited = 1;
  for (int i = 0; i < ntask; i++)
    if (c->tasks[i] && starpu_task_wait(c->tasks[i]) && !c->err)
      c->err = femint_seterr(ctx, FEMINT_ERUNTIME, "COO assembly: a task failed");
  for (int f = 0; f < nform && !c->err; f++)
    for (int b = 0; b < c->run[f].sc.n && !c->err; b++)
      if (c->run[f].sc.arg[b].status)
        c->err = femint_seterr(ctx, c->run[f].sc.arg[b].status, "%s", c->run[f].sc.arg[b].msg);
  c->st->t_sum = femint_now() - c->ts;
  femint_trace("COO assembly: sums done");
  if (!p->opt.phases) {
    /* a form's sums overlapped the other forms' integration: reported together */
    c->st->t_integrate += c->st->t_sum;
    c->st->t_sum = 0;
  }
}

/* Every batch's inputs on the device before its values come back from there: a transfer to the
 * device waited behind the copies of the values (the H200's OpenCL driver ran them one after the
 * other), which held up each later integration. */
static void coo_inputs_ahead(struct coo_call *c)
{
  const struct femint_operator *op = c->op;
  const struct plan *p = op->plan;
  const int node = (int)op->coo_node;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < c->nb; i++) {
      const struct batch *b = &p->batches[i];
      const starpu_data_handle_t h[2] = {b->h_geo, b->h_coef};
      for (int k = 0; b->registered && k < 2; k++)
        if (!pass) {
          starpu_data_prefetch_on_node(h[k], (unsigned)node, 1);
        } else {
          starpu_data_acquire_on_node(h[k], node, STARPU_R);
          starpu_data_release_on_node(h[k], node);
        }
    }
  femint_trace("COO assembly: the batches' inputs on the device");
}

int coo_call_end(struct coo_call *c)
{
  struct femint_operator *op = c->op;
  femint_context_t ctx = op->ctx;
  struct femint_stats *st = c->st;
  struct plan *p = op->plan;
  const int nform = p->nform, nb = c->nb;
  /* The values from a device, block by block as it sums them (with phases, once every sum is
   * done, so that the download is timed alone), then the waits; the CSR columns of a first
   * assembly; the values in main memory. */
  if (p->opt.phases) coo_call_wait(c);
  const double td = femint_now();
  if (c->run && !c->err && op->coo_worker >= 0 && op->sums.n > 1) coo_inputs_ahead(c);
  for (int f = 0; c->run && f < nform && !c->err && op->coo_worker >= 0 && !c->keep; f++)
    c->err = sum_call_download(ctx, &c->run[f].sc, op->coo_dev, op->coo_node, &op->sums,
                               !c->bounced, "COO assembly");
  coo_call_wait(c);
  int err = c->err;
  const int cerr = coo_columns_join(op);
  if (!err) err = cerr;
  for (int f = 0; c->run && f < nform; f++) {
    struct coo_run *r = &c->run[f];
    if (r->h_coo && starpu_data_get_nb_children(r->h_coo) > 0)
      starpu_data_unpartition(r->h_coo, op->coo_node);
    if (c->keep && !err && r->sc.h && r->sc.h[0]) { /* the matrix's now, on the device */
      err = matrix_device_adopt(ctx, c->A[f], op->sdev, r->sc.h[0], op->coo_dev, op->coo_worker,
                                op->coo_node);
      if (!err) r->sc.h[0] = NULL;
    }
    sum_call_end(&r->sc, !err && op->coo_worker < 0);
    double *dst = c->into ? c->into[f] : c->A[f]->values;
    const float *fs = r->val;
    if (!c->out_double && !err && fs) {
#pragma omp parallel for schedule(static)
      for (int64_t u = 0; u < op->nnz; u++) dst[u] = fs[u];
    }
  }
  st->t_download = femint_now() - td;
  femint_trace("COO assembly: values downloaded");
  if (c->tasks) st->t_tasks = femint_now() - c->ti;

  for (int i = 0; c->tasks && i < nb; i++) {
    struct batch *b = &p->batches[i];
    stats_task(st, c->tasks[2 * i], 1);
    if (b->status && !err) err = femint_seterr(ctx, b->status, "%s", b->msg);
    b->status = 0;
    batch_release(ctx, b);
  }
  const int ntask = 2 * nb + nform * op->sums.n;
  for (int i = 2 * nb; c->tasks && i < ntask; i++) stats_task(st, c->tasks[i], 0);
  if (p->opt.timeline && c->tasks && !err)
    err = timeline_write(ctx, p->opt.timeline, p, c->tasks, ntask);
  for (int i = 0; c->tasks && i < ntask; i++)
    if (c->tasks[i]) {
      st->ntask++;
      starpu_task_destroy(c->tasks[i]);
    }
  for (int f = 0; c->run && f < nform; f++) {
    struct coo_run *r = &c->run[f];
    if (r->h_coo) starpu_data_unregister_no_coherency(r->h_coo);
    femint_node_free(op->coo_node, r->coo_mem, c->coo_bytes, r->coo_plain);
    if (r->val && !c->out_double) femint_host_free(ctx, r->val);
  }
  free(c->run);
  free(c->len);
  free(c->tasks);
  c->run = NULL;
  c->len = NULL;
  c->tasks = NULL;
  if (!err) op->coo_calls++;
  st->assembly = FEMINT_ASSEMBLY_COO;
  st->on_device = op->coo_dev >= 0;
  st->values_on_device = c->keep && !err;
  st->ncontrib = op->ncontrib;
  st->nnz = op->nnz;
  if (err && !c->into)
    for (int f = 0; f < nform; f++) femint_matrix_destroy(&c->A[f]);
  return err;
}

/* Device memory that the pattern or one assembly of the operator takes, whichever is more (bytes
 * per entry of the element matrices): the pattern task holds the entries' rows, columns and
 * values, which the sort works in, perm, seg and the columns (48), and the histograms and scans
 * (up to about 1; 50 in all); an assembly perm, seg and, the first, the columns on their
 * way to main memory (24), the element matrices of every form and their CSR values (at most 8
 * each). */
static double coo_device_bytes(const struct femint_operator *op)
{
  const struct plan *p = op->plan;
  double entries = 0, values = 0;
  for (int j = 0; j < p->nbatch; j++) {
    const struct group *g = p->batches[j].g;
    entries += (double)p->batches[j].ncell * g->n * g->n;
    values += (double)p->batches[j].ncell * (double)g->out_size * (double)g->real_size;
  }
  const double pattern = 50 * entries, sums = 24 * entries + p->nform * (values + 8 * entries);
  return pattern > sums ? pattern : sums;
}

/* Before the first COO assembly on devices: when its share (1 / k of the whole over k devices)
 * would not fit in 90% of a device's memory, the assembly goes by rows (auto) or sums in main
 * memory (COO asked for), with a warning, instead of failing there. */
static void coo_fit(struct femint_operator *op)
{
  femint_context_t ctx = op->ctx;
  if (op->h_perm || op->part || op->coo_dev < 0 || ctx->ncpu == 0) return;
  const int parts = operator_coo_parts(op), k = parts > 1 ? parts : 1;
  const double need = coo_device_bytes(op) / k;
  double have = 0;
  for (int d = 0; d < ctx->ncl_dev; d++)
    if (ctx->cl_driven[d] && (have == 0 || ctx->cl_dev[d].global_mem < have))
      have = (double)ctx->cl_dev[d].global_mem;
  if (ctx->device_memory > 0 && ctx->device_memory < have) have = ctx->device_memory;
  if (need <= 0.9 * have) return;
  const int rows = op->plan->opt.assembly == FEMINT_ASSEMBLY_AUTO;
  fprintf(stderr,
          "femint: warning: femint_operator_assemble: the COO pattern and sums would take %.1f "
          "GB of device memory on each of %d device(s) (%.1f GB each): %s\n",
          need / 1e9, k, have / 1e9,
          rows ? "assembled by rows instead" : "summed in main memory instead");
  if (rows) op->assembly = FEMINT_ASSEMBLY_ROWS;
  operator_coo_to_host(op);
}

void operator_coo_to_host(struct femint_operator *op)
{
  operator_coo_split_release(op);
  operator_coo_release(op);
  csr_shape_unref(&op->shape);
  op->coo_dev = op->coo_worker = -1;
  op->coo_node = STARPU_MAIN_RAM;
  worker_mask_make(op->ctx, op->plan->opt.devices, -1, &op->coo_mask);
}

int operator_coo(struct femint_operator *op, femint_matrix_t *A, struct femint_stats *st)
{
  femint_trace("COO assembly: called");
  coo_fit(op);
  if (op->assembly != FEMINT_ASSEMBLY_COO) {
    int first = 0;
    return operator_rows(op, A, NULL, NULL, &first, st);
  }
  if (operator_coo_parts(op) > 1) return operator_coo_split(op, A, st);
  struct coo_call c = {.op = op, .A = A, .st = st};
  c.err = coo_call_begin(&c);
  if (!c.err) c.err = coo_call_pack(&c);
  for (int k = 0; !c.err && k < c.nb; k++) c.err = coo_call_integrate(&c, k);
  if (c.tasks) {
    coo_call_integrated(&c);
    coo_call_sums(&c);
  }
  return coo_call_end(&c);
}
