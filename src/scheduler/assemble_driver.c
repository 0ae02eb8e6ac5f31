/* femint_assemble, femint_integrate and the load vectors: pack each batch, submit its integration
 * task and its assembly task asynchronously (and the load tasks beside them), hand element
 * matrices to the caller as batches finish, wait, and gather the per-worker statistics from
 * StarPU's task profiling. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan.h"

/* Cells or boundary faces per load task. */
#define LOAD_BATCH 64

/* Load tasks: body forces over the cells (every cell, or the ncell of a subset), tractions over
 * their tagged boundary faces (or the faces whose tag is in tags). */
struct load_plan {
  int n;
  struct load_batch *b;
  int *faces, *cells;
  struct starpu_task **tasks;
};

static void load_plan_free(struct load_plan *lp)
{
  free(lp->b);
  free(lp->faces);
  free(lp->cells);
  free(lp->tasks);
  memset(lp, 0, sizeof *lp);
}

static int tag_selected(int tag, int ntag, const int *tags)
{
  if (tag <= 0) return 0;
  if (ntag == 0) return 1;
  for (int i = 0; i < ntag; i++)
    if (tags[i] == tag) return 1;
  return 0;
}

/* Mark the cells of a subset (cells NULL: every cell). */
static unsigned char *subset_marks(const struct femint_mesh *mesh, int ncell, const int *cells)
{
  unsigned char *in = calloc((size_t)mesh->ncell + 1, 1);
  if (!in) return NULL;
  for (int k = 0; k < (cells ? ncell : mesh->ncell); k++) in[cells ? cells[k] : k] = 1;
  return in;
}

static int load_submit(femint_context_t ctx, const struct femint_space *s, femint_field_fn body,
                       femint_field_fn traction, void *user, int ntag, const int *tags,
                       int nsel, const int *sel, starpu_data_handle_t h_rhs,
                       struct load_plan *lp)
{
  const struct femint_mesh *mesh = s->mesh;
  memset(lp, 0, sizeof *lp);
  if (!sel) nsel = mesh->ncell;
  int ncell = body ? nsel : 0, nface = 0;
  lp->cells = malloc((size_t)(ncell + 1) * sizeof *lp->cells);
  lp->faces = malloc((size_t)(mesh->nbface + 1) * sizeof *lp->faces);
  int nb = (ncell + LOAD_BATCH - 1) / LOAD_BATCH + (mesh->nbface + LOAD_BATCH - 1) / LOAD_BATCH;
  lp->b = calloc((size_t)nb + 1, sizeof *lp->b);
  lp->tasks = calloc((size_t)nb + 1, sizeof *lp->tasks);
  unsigned char *in = traction ? subset_marks(mesh, nsel, sel) : NULL;
  if (!lp->cells || !lp->faces || !lp->b || !lp->tasks || (traction && !in)) {
    free(in);
    load_plan_free(lp);
    return femint_seterr(ctx, FEMINT_ENOMEM, "load vector: out of memory");
  }
  for (int c = 0; c < ncell; c++) lp->cells[c] = sel ? sel[c] : c;
  if (traction)
    for (int k = 0; k < mesh->nbface; k++)
      if (in[mesh->bface[3 * k]] && tag_selected(mesh->bface[3 * k + 2], ntag, tags))
        lp->faces[nface++] = k;
  free(in);
  for (int k = 0; k < ncell; k += LOAD_BATCH)
    lp->b[lp->n++] = (struct load_batch){.ctx = ctx, .space = s, .body = body, .user = user,
                                         .ncell = ncell - k < LOAD_BATCH ? ncell - k : LOAD_BATCH,
                                         .cells = lp->cells + k};
  for (int k = 0; k < nface; k += LOAD_BATCH)
    lp->b[lp->n++] = (struct load_batch){.ctx = ctx, .space = s, .traction = traction,
                                         .user = user,
                                         .nface = nface - k < LOAD_BATCH ? nface - k : LOAD_BATCH,
                                         .faces = lp->faces + k};
  for (int i = 0; i < lp->n; i++) {
    struct starpu_task *t = starpu_task_create();
    t->cl = &femint_cl_integrate_load;
    t->handles[0] = h_rhs;
    t->cl_arg = &lp->b[i];
    t->destroy = 0;
    t->detach = 0;
    int ret = starpu_task_submit(t);
    if (ret) {
      starpu_task_destroy(t);
      return femint_seterr(ctx, FEMINT_ERUNTIME, "load vector: task submission failed (%d)", ret);
    }
    lp->tasks[i] = t;
  }
  return 0;
}

/* Wait for the load tasks, check their status and free them. */
static int load_finish(femint_context_t ctx, struct load_plan *lp)
{
  int err = 0;
  for (int i = 0; i < lp->n; i++) {
    if (!lp->tasks[i]) continue;
    if (starpu_task_wait(lp->tasks[i]) && !err)
      err = femint_seterr(ctx, FEMINT_ERUNTIME, "load vector: waiting for a task failed");
    starpu_task_destroy(lp->tasks[i]);
    if (lp->b[i].status && !err) err = femint_seterr(ctx, lp->b[i].status, "%s", lp->b[i].msg);
  }
  load_plan_free(lp);
  return err;
}

/* Whether every worker that may run the task (where: STARPU_CPU, STARPU_OPENCL or both) has a
 * history for it. */
static int model_calibrated(femint_context_t ctx, struct starpu_task *t, uint32_t where)
{
  for (int w = 0; w < ctx->nworker; w++) {
    uint32_t kind = starpu_worker_get_type(w) == STARPU_CPU_WORKER ? STARPU_CPU : STARPU_OPENCL;
    if (!(where & kind)) continue;
    struct starpu_perfmodel_arch *arch = starpu_worker_get_perf_archtype(w, 0);
    if (isnan(starpu_task_expected_length(t, arch, 0))) return 0;
  }
  return 1;
}

/* Unregister the data of a batch whose tasks are done and give its buffers back. */
static void release_batch(femint_context_t ctx, struct batch *b)
{
  if (b->registered) {
    starpu_data_unregister(b->h_jac);
    starpu_data_unregister(b->h_coef);
    starpu_data_unregister(b->h_mats);
    b->registered = 0;
  }
  if (!b->in_arena) {
    femint_host_free(ctx, b->jac);
    femint_host_free(ctx, b->coef);
    femint_host_free(ctx, b->mats);
  }
  b->jac = b->coef = b->mats = NULL;
}

/* Callback of an integration task: once a device has written the element matrices, start their
 * copy to main memory now, while the assembly task still waits for its row blocks, instead of
 * when it is scheduled. */
static void fetch_output(void *arg)
{
  const struct batch *b = arg;
  int w = starpu_worker_get_id();
  if (w >= 0 && starpu_worker_get_type(w) != STARPU_CPU_WORKER)
    starpu_data_prefetch_on_node(b->h_mats, STARPU_MAIN_RAM, 1);
}

static size_t align64(size_t n) { return (n + 63) & ~(size_t)63; }

/* Bytes of the host buffers of a batch. */
static size_t batch_bytes(const struct batch *b)
{
  const struct group *g = b->g;
  return align64((size_t)b->ncell * g->geo_size * g->real_size) +
         align64((size_t)b->ncell * g->ncoef * g->real_size) +
         align64((size_t)b->ncell * g->out_size * g->real_size);
}

/* An eighth of the physical memory. */
static size_t arena_limit(void)
{
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? (size_t)pages * (size_t)size / 8 : (size_t)1 << 30;
}

/* The tasks of an assembly as CSV rows, times in seconds from the first task's start. */
static int write_timeline(femint_context_t ctx, const char *path, const struct plan *p,
                          struct starpu_task **tasks)
{
  FILE *f = fopen(path, "w");
  FEMINT_CHECK(f, ctx, FEMINT_EIO, "cannot write the timeline '%s': %s", path, strerror(errno));
  double t0 = INFINITY;
  for (int i = 0; i < 2 * p->nbatch; i++)
    if (tasks[i] && tasks[i]->profiling_info)
      t0 = fmin(t0, starpu_timing_timespec_to_us(&tasks[i]->profiling_info->start_time));
  fprintf(f, "worker,kind,codelet,order,cells,start_s,end_s,batch,ready_s\n");
  for (int i = 0; i < 2 * p->nbatch; i++) {
    const struct starpu_profiling_task_info *pi = tasks[i] ? tasks[i]->profiling_info : NULL;
    if (!pi || pi->workerid < 0) continue;
    const struct batch *b = &p->batches[i / 2];
    fprintf(f, "%d,%s,%s,%d,%d,%.6f,%.6f,%d,%.6f\n", pi->workerid,
            starpu_worker_get_type(pi->workerid) == STARPU_OPENCL_WORKER ? "opencl" : "cpu",
            i % 2 ? "assemble" : "integrate", b->g->order, b->ncell,
            1e-6 * (starpu_timing_timespec_to_us((struct timespec *)&pi->start_time) - t0),
            1e-6 * (starpu_timing_timespec_to_us((struct timespec *)&pi->end_time) - t0), i / 2,
            1e-6 * (starpu_timing_timespec_to_us((struct timespec *)&pi->push_end_time) - t0));
  }
  int bad = ferror(f);
  bad |= fclose(f) != 0;
  FEMINT_CHECK(!bad, ctx, FEMINT_EIO, "cannot write the timeline '%s': %s", path, strerror(errno));
  return 0;
}

static void record_task(struct femint_stats *st, struct starpu_task *t, int integrate)
{
  if (!st || !t || !t->profiling_info) return;
  int w = t->profiling_info->workerid;
  if (w < 0 || w >= FEMINT_MAX_WORKERS) return;
  if (integrate)
    st->worker_tasks_integrate[w]++;
  else
    st->worker_tasks_assemble[w]++;
  st->worker_busy[w] +=
      1e-6 * starpu_timing_timespec_delay_us(&t->profiling_info->start_time,
                                             &t->profiling_info->end_time);
}

/* The row blocks of the CSR values as StarPU handles: an assembly task holds the blocks its batch
 * writes, in commuting read-write mode. One arbiter manages all the blocks, so that a task takes
 * all its blocks at once when they are all free; without it, StarPU takes a task's blocks one
 * after the other and a task waiting for its third block holds its first two, which chains the
 * assemblies one behind the other even when most of them share no block. */
struct blocks {
  starpu_data_handle_t values;
  starpu_data_handle_t *h;
  uint32_t *len;
  starpu_arbiter_t arbiter;
};

static int blocks_register(femint_context_t ctx, struct csr *c, struct blocks *bl)
{
  bl->h = malloc((size_t)c->nblock * sizeof *bl->h);
  bl->len = malloc((size_t)c->nblock * sizeof *bl->len);
  if (!bl->h || !bl->len) {
    free(bl->h), free(bl->len);
    bl->h = NULL, bl->len = NULL;
    return femint_seterr(ctx, FEMINT_ENOMEM, "femint_assemble: out of memory");
  }
  starpu_vector_data_register(&bl->values, STARPU_MAIN_RAM, (uintptr_t)c->values,
                              (uint32_t)c->rowptr[c->nrows], sizeof(double));
  for (int k = 0; k < c->nblock; k++)
    bl->len[k] = (uint32_t)(c->rowptr[c->block_row[k + 1]] - c->rowptr[c->block_row[k]]);
  struct starpu_data_filter filter = {.filter_func = starpu_vector_filter_list,
                                      .nchildren = (unsigned)c->nblock,
                                      .filter_arg_ptr = bl->len};
  starpu_data_partition(bl->values, &filter);
  bl->arbiter = starpu_arbiter_create();
  for (int k = 0; k < c->nblock; k++) {
    bl->h[k] = starpu_data_get_sub_data(bl->values, 1, k);
    starpu_data_assign_arbiter(bl->h[k], bl->arbiter);
  }
  return 0;
}

static void blocks_unregister(struct blocks *bl)
{
  if (!bl->h) return;
  starpu_data_unpartition(bl->values, STARPU_MAIN_RAM);
  starpu_data_unregister(bl->values);
  starpu_arbiter_destroy(bl->arbiter);
  free(bl->h);
  free(bl->len);
  bl->h = NULL;
}

/* Give the batch buffers slices of one block kept by the context (pinned where there is a GPU)
 * when they fit in an eighth of the memory: pinning is slow, so once, not per batch. Returns how
 * many batches may be in flight: all of them, or, when the buffers are allocated per batch, a
 * window whose buffers are reused once a batch is retired (this bounds the memory of large
 * meshes). */
static int batch_buffers(femint_context_t ctx, struct plan *p)
{
  size_t total = 0;
  for (int i = 0; i < p->nbatch; i++) total += batch_bytes(&p->batches[i]);
  void *base;
  if (total > arena_limit() || femint_host_arena(ctx, total, &base)) return 4 * ctx->nworker + 4;
  char *at = base;
  for (int i = 0; i < p->nbatch; i++) {
    struct batch *b = &p->batches[i];
    const struct group *g = b->g;
    b->in_arena = 1;
    b->jac = at;
    at += align64((size_t)b->ncell * g->geo_size * g->real_size);
    b->coef = at;
    at += align64((size_t)b->ncell * g->ncoef * g->real_size);
    b->mats = at;
    at += align64((size_t)b->ncell * g->out_size * g->real_size);
  }
  return p->nbatch;
}

/* The integration task of a packed batch (its handles registered). */
static struct starpu_task *integration_task(const struct plan *p, struct batch *b,
                                            uint32_t *where)
{
  const struct group *g = b->g;
  struct starpu_task *t = starpu_task_create();
  t->cl = &femint_cl_integrate_volume;
  t->handles[0] = b->h_jac;
  t->handles[1] = b->h_coef;
  t->handles[2] = g->h_phi;
  t->handles[3] = g->h_quad;
  t->handles[4] = b->h_mats;
  t->cl_arg = b;
  t->callback_func = fetch_output;
  t->callback_arg = b;
  t->flops = g->flops_seed_per_cell * b->ncell;
  t->destroy = 0;
  t->detach = 0;
  *where = STARPU_CPU | STARPU_OPENCL;
  if (!p->cl_usable || !g->program[0])
    t->where = *where = STARPU_CPU;
  else if (p->opt.where == FEMINT_WHERE_OPENCL)
    t->where = *where = STARPU_OPENCL;
  return t;
}

/* The assembly task of a batch: its element matrices (read) and the row blocks it writes. */
static struct starpu_task *assembly_task(struct batch *b, const struct blocks *bl)
{
  /* StarPU frees a task's dyn_handles and dyn_modes (and what it adds) with the task */
  starpu_data_handle_t *th = malloc((size_t)(1 + b->nblk) * sizeof *th);
  enum starpu_data_access_mode *tm = malloc((size_t)(1 + b->nblk) * sizeof *tm);
  struct starpu_task *t = th && tm ? starpu_task_create() : NULL;
  if (!t) {
    free(th), free(tm);
    return NULL;
  }
  th[0] = b->h_mats;
  tm[0] = STARPU_R;
  for (int k = 0; k < b->nblk; k++) {
    th[1 + k] = bl->h[b->blk[k]];
    tm[1 + k] = STARPU_RW | STARPU_COMMUTE;
  }
  t->cl = &femint_cl_assemble;
  t->nbuffers = 1 + b->nblk;
  t->dyn_handles = th;
  t->dyn_modes = tm;
  t->cl_arg = b;
  t->destroy = 0;
  t->detach = 0;
  return t;
}

/* Hand the element matrices of an integrated batch to the caller's function, on this thread. */
static int deliver(femint_context_t ctx, const struct plan *p, struct batch *b,
                   femint_element_fn fn, void *user)
{
  const struct group *g = b->g;
  const int n = g->n;
  int64_t *dofs = malloc((size_t)b->ncell * n * sizeof *dofs);
  int *signs = malloc((size_t)b->ncell * n * sizeof *signs);
  if (!dofs || !signs) {
    free(dofs), free(signs);
    return femint_seterr(ctx, FEMINT_ENOMEM, "femint_integrate: out of memory");
  }
  int err = 0;
  const int64_t *global = p->space->global_dof;
  for (int k = 0; k < b->ncell && !err; k++)
    err = femint_space_cell_dofs((femint_space_t)p->space, b->cells[k], dofs + (size_t)k * n,
                                 signs + (size_t)k * n);
  if (global)
    for (size_t i = 0; i < (size_t)b->ncell * n; i++)
      if (dofs[i] >= 0) dofs[i] = global[dofs[i]];
  if (!err && starpu_data_acquire(b->h_mats, STARPU_R)) {
    err = femint_seterr(ctx, FEMINT_ERUNTIME, "femint_integrate: the element matrices of a batch "
                                              "of order %d could not be brought to memory",
                        g->order);
  } else if (!err) {
    const struct femint_element_batch eb = {
        .ncell = b->ncell, .cells = b->cells, .order = g->order, .n = n,
        .precision = g->precision, .symmetric = g->symmetric, .mats = b->mats, .dofs = dofs,
        .signs = signs};
    int rc = fn(&eb, user);
    starpu_data_release(b->h_mats);
    if (rc)
      err = femint_seterr(ctx, FEMINT_ECALLBACK,
                          "femint_integrate: the element function returned %d for a batch of %d "
                          "cells of order %d (first cell %d)",
                          rc, b->ncell, g->order, b->cells[0]);
  }
  free(dofs);
  free(signs);
  return err;
}

/* Wait for the tasks of batch i (the assembly task is NULL without assembly), hand its element
 * matrices to fn (when there is one and no error so far), and give its data back. */
static int finish_batch(femint_context_t ctx, const struct plan *p, int i,
                        struct starpu_task **tasks, femint_element_fn fn, void *user, int err)
{
  for (int k = 2 * i; k < 2 * i + 2; k++)
    if (tasks[k] && tasks[k]->status != STARPU_TASK_INIT && starpu_task_wait(tasks[k]) && !err)
      err = femint_seterr(ctx, FEMINT_ERUNTIME, "waiting for a task failed");
  if (!err && fn) err = deliver(ctx, p, &p->batches[i], fn, user);
  release_batch(ctx, &p->batches[i]);
  return err;
}

/* femint_assemble (matrix != NULL: integration and assembly tasks) and femint_integrate (element
 * matrices to fn, or dropped when fn is NULL). */
static int run(femint_context_t ctx, femint_space_t space, femint_form_t form,
               const struct femint_assemble_options *opt, femint_matrix_t *matrix,
               femint_element_fn fn, void *user, struct femint_stats *stats)
{
  const char *who = matrix ? "femint_assemble" : "femint_integrate";
  const int assemble = matrix != NULL, ntask_batch = assemble ? 2 : 1;
  double t0 = femint_now();
  struct plan *p = NULL;
  FEMINT_CALL(plan_create(ctx, space, form, opt, assemble, &p));
  struct femint_stats st = {0};
  st.t_plan = femint_now() - t0;
  struct starpu_task **tasks = calloc((size_t)2 * p->nbatch + 1, sizeof *tasks);
  struct femint_matrix *A = assemble ? calloc(1, sizeof *A) : NULL;
  struct blocks bl = {0};
  if (!tasks || (assemble && !A)) {
    free(tasks);
    free(A);
    plan_destroy(&p);
    return femint_seterr(ctx, FEMINT_ENOMEM, "%s: out of memory", who);
  }
  int err = assemble ? blocks_register(ctx, &p->csr, &bl) : 0;
  starpu_data_handle_t h_rhs = NULL;
  struct load_plan lp = {0};
  double t1 = femint_now();
  if (!err && opt->rhs && (opt->body || opt->traction)) {
    starpu_vector_data_register(&h_rhs, STARPU_MAIN_RAM, (uintptr_t)opt->rhs,
                                (uint32_t)(space->nmode * space->ncomp), sizeof(double));
    err = load_submit(ctx, space, opt->body, opt->traction, opt->user, 0, NULL, opt->ncells,
                      opt->cells, h_rhs, &lp);
  }
  const int window = batch_buffers(ctx, p);
  int retired = 0;
  for (int i = 0; i < p->nbatch && !err; i++) {
    struct batch *b = &p->batches[i];
    const struct group *g = b->g;
    while (i - retired >= window && !err)
      err = finish_batch(ctx, p, retired++, tasks, fn, user, err);
    double tp = femint_now();
    if (!err) err = plan_pack_batch(p, b);
    if (!err && !b->in_arena)
      err = femint_host_alloc(ctx, (size_t)b->ncell * g->out_size * g->real_size, &b->mats);
    st.t_pack += femint_now() - tp;
    if (err) break;
    starpu_vector_data_register(&b->h_jac, STARPU_MAIN_RAM, (uintptr_t)b->jac,
                                (uint32_t)((size_t)b->ncell * g->geo_size), g->real_size);
    starpu_vector_data_register(&b->h_coef, STARPU_MAIN_RAM, (uintptr_t)b->coef,
                                (uint32_t)((size_t)b->ncell * g->ncoef), g->real_size);
    starpu_vector_data_register(&b->h_mats, STARPU_MAIN_RAM, (uintptr_t)b->mats,
                                (uint32_t)((size_t)b->ncell * g->out_size), g->real_size);
    b->registered = 1;
    uint32_t where;
    struct starpu_task *ti = integration_task(p, b, &where), *ta = NULL;
    if (assemble && !(ta = assembly_task(b, &bl))) {
      starpu_task_destroy(ti);
      err = femint_seterr(ctx, FEMINT_ENOMEM, "%s: out of memory", who);
      break;
    }
    tasks[2 * i] = ti;
    tasks[2 * i + 1] = ta;
    st.calibrating += !model_calibrated(ctx, ti, where);
    int ret = starpu_task_submit(ti);
    if (!ret && ta) ret = starpu_task_submit(ta);
    if (ret)
      err = femint_seterr(ctx, ret == -ENODEV ? FEMINT_ENODEV : FEMINT_ERUNTIME,
                          "task submission failed for a batch of order %d (%d%s)", g->order, ret,
                          ret == -ENODEV ? ": no worker can run it" : "");
  }
  /* Wait for what was submitted, even after an error, before anything is freed. */
  for (; retired < p->nbatch; retired++)
    err = finish_batch(ctx, p, retired, tasks, fn, user, err);
  int lerr = lp.n ? load_finish(ctx, &lp) : 0;
  if (!err) err = lerr;
  st.t_tasks = femint_now() - t1;
  blocks_unregister(&bl);
  if (h_rhs) starpu_data_unregister(h_rhs);
  st.nworker = ctx->nworker < FEMINT_MAX_WORKERS ? ctx->nworker : FEMINT_MAX_WORKERS;
  for (int w = 0; w < st.nworker; w++)
    st.worker_is_opencl[w] = starpu_worker_get_type(w) == STARPU_OPENCL_WORKER;
  double nblk = 0;
  for (int i = 0; i < p->nbatch; i++) {
    struct batch *b = &p->batches[i];
    record_task(&st, tasks[2 * i], 1);
    record_task(&st, tasks[2 * i + 1], 0);
    if (b->status && !err) err = femint_seterr(ctx, b->status, "%s", b->msg);
    st.flops_seed += b->g->flops_seed_per_cell * b->ncell;
    nblk += b->nblk;
  }
  if (opt->timeline && !err) err = write_timeline(ctx, opt->timeline, p, tasks);
  for (int i = 0; i < 2 * p->nbatch; i++)
    if (tasks[i]) starpu_task_destroy(tasks[i]);
  free(tasks);
  st.ncell = p->ncell;
  st.nbatch = p->nbatch;
  st.ntask = ntask_batch * p->nbatch + lp.n;
  st.ngroup = p->ngroup;
  st.nblock = p->csr.nblock;
  st.blocks_per_batch = p->nbatch > 0 ? nblk / p->nbatch : 0;
  st.ndof = space->nmode * space->ncomp;
  st.nnz = assemble ? p->csr.rowptr[p->csr.nrows] : 0;
  if (assemble && !err) {
    A->csr = p->csr;
    memset(&p->csr, 0, sizeof p->csr);
    *matrix = A;
  } else {
    free(A);
  }
  plan_destroy(&p);
  st.t_total = femint_now() - t0;
  if (stats) *stats = st;
  return err;
}

int femint_assemble(femint_context_t ctx, femint_space_t space, femint_form_t form,
                    const struct femint_assemble_options *opt, femint_matrix_t *matrix,
                    struct femint_stats *stats)
{
  static const struct femint_assemble_options defaults = {0};
  FEMINT_CHECK(ctx, NULL, FEMINT_EINVAL, "femint_assemble: NULL context");
  FEMINT_CHECK(space && form && matrix, ctx, FEMINT_EINVAL,
               "femint_assemble: NULL space, form or matrix pointer");
  *matrix = NULL;
  FEMINT_CHECK(!space->global_dof, ctx, FEMINT_ESTATE,
               "femint_assemble: the space has global DOF numbers (femint_space_set_global_dofs); "
               "its element matrices go to the caller's matrix through femint_integrate");
  return run(ctx, space, form, opt ? opt : &defaults, matrix, NULL, NULL, stats);
}

int femint_integrate(femint_context_t ctx, femint_space_t space, femint_form_t form,
                     const struct femint_assemble_options *opt, femint_element_fn fn, void *user,
                     struct femint_stats *stats)
{
  static const struct femint_assemble_options defaults = {0};
  FEMINT_CHECK(ctx, NULL, FEMINT_EINVAL, "femint_integrate: NULL context");
  FEMINT_CHECK(space && form, ctx, FEMINT_EINVAL, "femint_integrate: NULL space or form");
  if (!opt) opt = &defaults;
  FEMINT_CHECK(!opt->rhs || (!opt->body && !opt->traction) || fn, ctx, FEMINT_EINVAL,
               "femint_integrate: a load vector without an element function");
  return run(ctx, space, form, opt, NULL, fn, user, stats);
}

int femint_element_matrix(femint_context_t ctx, femint_space_t space, femint_form_t form,
                          int cell, double *Ae)
{
  FEMINT_CHECK(ctx && space && form && Ae, ctx, FEMINT_EINVAL, "element_matrix: NULL argument");
  FEMINT_CHECK(cell >= 0 && cell < space->mesh->ncell, ctx, FEMINT_EINVAL,
               "element_matrix: cell %d is outside 0..%d", cell, space->mesh->ncell - 1);
  FEMINT_CHECK(form->ne == space->ncomp, ctx, FEMINT_EINVAL,
               "element_matrix: the form has %d components but the space has %d", form->ne,
               space->ncomp);
  struct plan p = {.ctx = ctx, .space = space, .form = form};
  struct group g;
  FEMINT_CALL(group_init(ctx, space, form, space->order[cell], FEMINT_DOUBLE, 0, 0, 0, &g));
  struct batch b = {.ctx = ctx, .g = &g, .ncell = 1, .cells = &cell};
  int err = plan_pack_batch(&p, &b);
  if (!err) integrate_volume_batch_cpu(&b, b.jac, b.coef, g.re->phi, Ae, -1, 1);
  if (!err && b.status) err = femint_seterr(ctx, b.status, "%s", b.msg);
  femint_host_free(ctx, b.jac);
  femint_host_free(ctx, b.coef);
  return err;
}

static int load_vector(femint_context_t ctx, femint_space_t space, femint_field_fn body,
                       femint_field_fn traction, void *user, int ntag, const int *tags, double *b)
{
  FEMINT_CHECK(ctx && space && b, ctx, FEMINT_EINVAL, "load vector: NULL argument");
  FEMINT_CHECK(body || traction, ctx, FEMINT_EINVAL, "load vector: NULL function");
  FEMINT_CHECK(ntag >= 0 && (ntag == 0 || tags), ctx, FEMINT_EINVAL, "load vector: bad tags");
  FEMINT_CHECK(ctx->ncpu > 0, ctx, FEMINT_ENODEV, "load vector: StarPU has no CPU worker");
  starpu_data_handle_t h;
  starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t)b,
                              (uint32_t)(space->nmode * space->ncomp), sizeof(double));
  struct load_plan lp;
  int err = load_submit(ctx, space, body, traction, user, ntag, tags, 0, NULL, h, &lp);
  int lerr = load_finish(ctx, &lp);
  starpu_data_unregister(h);
  return err ? err : lerr;
}

int femint_load_volume(femint_context_t ctx, femint_space_t space, femint_field_fn f, void *user,
                       double *b)
{
  return load_vector(ctx, space, f, NULL, user, 0, NULL, b);
}

int femint_load_boundary(femint_context_t ctx, femint_space_t space, int ntag, const int *tags,
                         femint_field_fn g, void *user, double *b)
{
  return load_vector(ctx, space, NULL, g, user, ntag, tags, b);
}
