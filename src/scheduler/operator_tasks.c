/* What the verbs of an operator share: the buffers and StarPU handles of the batches, their
 * integration tasks (the H1 or the H(curl) codelet), submission, the statistics gathered from
 * StarPU's task profiling, the timeline of the tasks, where the vector verbs run and what a
 * failed OpenCL build leaves to the CPU. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codelets/vector_ops.h"
#include "operator.h"

static size_t align64(size_t n) { return (n + 63) & ~(size_t)63; }

/* Bytes of the host buffers of a batch. */
static size_t batch_bytes(const struct batch *b, int mats)
{
  const struct group *g = b->g;
  return align64((size_t)b->ncell * g->geo_size * g->real_size) +
         align64((size_t)b->ncell * g->ncoef * g->real_size) +
         (mats ? align64((size_t)b->ncell * g->out_size * g->real_size) : 0);
}

/* An eighth of the physical memory. */
static size_t arena_limit(void)
{
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? (size_t)pages * (size_t)size / 8 : (size_t)1 << 30;
}

int batch_buffers(femint_context_t ctx, struct plan *p, int mats)
{
  return batch_buffers_plans(ctx, &p, 1, mats);
}

int batch_buffers_plans(femint_context_t ctx, struct plan *const *p, int np, int mats)
{
  size_t total = 0;
  int n = 0;
  for (int q = 0; q < np; q++)
    for (int i = 0; i < p[q]->nform * p[q]->nbatch; i++, n++)
      total += batch_bytes(&p[q]->batches[i], mats);
  void *base;
  if (total > arena_limit() || femint_host_arena(ctx, total, &base)) return 4 * ctx->nworker + 4;
  char *at = base;
  for (int q = 0; q < np; q++)
    for (int i = 0; i < p[q]->nform * p[q]->nbatch; i++) {
      struct batch *b = &p[q]->batches[i];
      const struct group *g = b->g;
      b->in_arena = 1;
      b->geo = at;
      at += align64((size_t)b->ncell * g->geo_size * g->real_size);
      b->coef = at;
      at += align64((size_t)b->ncell * g->ncoef * g->real_size);
      b->mats = mats ? at : NULL;
      at += mats ? align64((size_t)b->ncell * g->out_size * g->real_size) : 0;
    }
  return n;
}

void batch_register(struct batch *b, int mats)
{
  const struct group *g = b->g;
  starpu_vector_data_register(&b->h_geo, STARPU_MAIN_RAM, (uintptr_t)b->geo,
                              (uint32_t)((size_t)b->ncell * g->geo_size), g->real_size);
  starpu_vector_data_register(&b->h_coef, STARPU_MAIN_RAM, (uintptr_t)b->coef,
                              (uint32_t)((size_t)b->ncell * g->ncoef), g->real_size);
  if (mats)
    starpu_vector_data_register(&b->h_mats, STARPU_MAIN_RAM, (uintptr_t)b->mats,
                                (uint32_t)((size_t)b->ncell * g->out_size), g->real_size);
  b->registered = 1;
}

void batch_release(femint_context_t ctx, struct batch *b)
{
  if (b->registered) {
    starpu_data_unregister(b->h_geo);
    starpu_data_unregister(b->h_coef);
    if (b->h_mats) starpu_data_unregister(b->h_mats);
    b->h_geo = b->h_coef = b->h_mats = NULL;
    b->registered = 0;
  }
  if (!b->in_arena) {
    femint_host_free(ctx, b->geo);
    femint_host_free(ctx, b->coef);
    femint_host_free(ctx, b->mats);
  }
  b->geo = b->coef = b->mats = NULL;
}

/* Callback of an integration task into a batch's own element matrices: once a device has written
 * them, start their copy to main memory now, while the assembly task still waits for its row
 * blocks, instead of when it is scheduled. */
static void fetch_output(void *arg)
{
  const struct batch *b = arg;
  int w = starpu_worker_get_id();
  if (w >= 0 && starpu_worker_get_type(w) != STARPU_CPU_WORKER)
    starpu_data_prefetch_on_node(b->h_mats, STARPU_MAIN_RAM, 1);
}

struct starpu_task *integration_task(const struct plan *p, struct batch *b,
                                     starpu_data_handle_t out, uint32_t *where)
{
  const struct group *g = b->g;
  struct starpu_task *t = starpu_task_create();
  if (g->family == FEMINT_HCURL) {
    t->cl = &femint_cl_integrate_hcurl;
    t->handles[0] = g->h_tab[0];
    t->handles[1] = b->h_geo;
    t->handles[2] = b->h_coef;
    t->handles[3] = out;
  } else {
    t->cl = &femint_cl_integrate_volume;
    t->handles[0] = b->h_geo;
    t->handles[1] = b->h_coef;
    t->handles[2] = g->h_tab[0];
    t->handles[3] = g->h_tab[1];
    t->handles[4] = out;
  }
  t->cl_arg = b;
  if (out == b->h_mats) {
    t->callback_func = fetch_output;
    t->callback_arg = b;
  }
  t->flops = g->flops_seed_per_cell * b->ncell;
  t->destroy = 0;
  t->detach = 0;
  const int dev = femint_context_first_device(p->ctx);
  *where = STARPU_CPU | STARPU_OPENCL;
  if (!p->cl_usable || dev < 0 || !g->program[dev])
    t->where = *where = STARPU_CPU;
  else if (p->opt.where == FEMINT_WHERE_OPENCL)
    t->where = *where = STARPU_OPENCL;
  return t;
}

/* ---- timelines ---- */

/* One task's row of a timeline. */
struct tl_row {
  int worker, order, cells, batch;
  char codelet[24];
  double ready, start, end; /* microseconds */
};

static const char *const vec_names[] = {"vector_sum", "vector_dot", "vector_cg_start",
                                        "vector_cg_step", "vector_move"};
_Static_assert(sizeof vec_names / sizeof *vec_names == VEC_NOP, "a name per vector operation");

/* Task t's row from its profiling (no batch); 0 when it ran on no worker. */
static int tl_row_of(const struct starpu_task *t, struct tl_row *r)
{
  const struct starpu_profiling_task_info *pi = t->profiling_info;
  if (!pi || pi->workerid < 0) return 0;
  *r = (struct tl_row){.worker = pi->workerid, .batch = -1};
  const struct vec_arg *v = t->cl == &femint_cl_vec ? t->cl_arg : NULL;
  const char *name = v && v->op >= 0 && v->op < VEC_NOP ? vec_names[v->op]
                                                         : t->cl->name + strlen("femint_");
  if (!strncmp(name, "integrate", strlen("integrate"))) name = "integrate";
  snprintf(r->codelet, sizeof r->codelet, "%s", name);
  r->ready = starpu_timing_timespec_to_us((struct timespec *)&pi->push_end_time);
  r->start = starpu_timing_timespec_to_us((struct timespec *)&pi->start_time);
  r->end = starpu_timing_timespec_to_us((struct timespec *)&pi->end_time);
  return 1;
}

/* The rows as CSV (worker, kind, codelet, order, cells, start and end in seconds from the first
 * start, batch, ready time). */
static int tl_write(femint_context_t ctx, const char *path, const struct tl_row *row, size_t n)
{
  FILE *f = fopen(path, "w");
  FEMINT_CHECK(f, ctx, FEMINT_EIO, "cannot write the timeline '%s': %s", path, strerror(errno));
  double t0 = INFINITY;
  for (size_t i = 0; i < n; i++) t0 = fmin(t0, row[i].start);
  fprintf(f, "worker,kind,codelet,order,cells,start_s,end_s,batch,ready_s\n");
  for (size_t i = 0; i < n; i++) {
    const struct tl_row *r = &row[i];
    fprintf(f, "%d,%s,%s,%d,%d,%.6f,%.6f,%d,%.6f\n", r->worker,
            starpu_worker_get_type(r->worker) == STARPU_OPENCL_WORKER ? "opencl" : "cpu",
            r->codelet, r->order, r->cells, 1e-6 * (r->start - t0), 1e-6 * (r->end - t0),
            r->batch, 1e-6 * (r->ready - t0));
  }
  int bad = ferror(f);
  bad |= fclose(f) != 0;
  FEMINT_CHECK(!bad, ctx, FEMINT_EIO, "cannot write the timeline '%s': %s", path, strerror(errno));
  return 0;
}

/* The rows of the open recording of tasks that are not kept (a solve's: tasks submitted while
 * it is open add theirs when they end; StarPU's one runtime per process makes it one per
 * process too). */
static struct {
  pthread_mutex_t lock;
  int open;
  struct tl_row *row;
  size_t n, cap;
} tl = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* A recorded task's end (its callback, the task its argument). */
static void tl_record(void *arg)
{
  struct tl_row r;
  if (!tl_row_of(arg, &r)) return;
  pthread_mutex_lock(&tl.lock);
  if (!tl.open) { /* a task submitted as the recording closed */
    pthread_mutex_unlock(&tl.lock);
    return;
  }
  if (tl.n == tl.cap) {
    const size_t cap = tl.cap ? 2 * tl.cap : 4096;
    struct tl_row *row = realloc(tl.row, cap * sizeof *row);
    if (row) {
      tl.row = row;
      tl.cap = cap;
    }
  }
  if (tl.n < tl.cap) tl.row[tl.n++] = r; /* out of memory: the row is lost, not the solve */
  pthread_mutex_unlock(&tl.lock);
}

void timeline_open(void)
{
  pthread_mutex_lock(&tl.lock);
  tl.n = 0;
  __atomic_store_n(&tl.open, 1, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&tl.lock);
}

int timeline_close(femint_context_t ctx, const char *path)
{
  starpu_task_wait_for_all(); /* the detached tasks' rows */
  pthread_mutex_lock(&tl.lock);
  __atomic_store_n(&tl.open, 0, __ATOMIC_RELEASE);
  struct tl_row *row = tl.row;
  const size_t n = tl.n;
  tl.row = NULL;
  tl.n = tl.cap = 0;
  pthread_mutex_unlock(&tl.lock);
  const int err = tl_write(ctx, path, row, n);
  free(row);
  return err;
}

int task_submit(femint_context_t ctx, struct starpu_task *t, struct starpu_task **slot,
                const char *what)
{
  /* without a slot, the task is detached: StarPU destroys it when it is done */
  t->destroy = slot == NULL;
  t->detach = slot == NULL;
  if (__atomic_load_n(&tl.open, __ATOMIC_ACQUIRE) && !t->callback_func) {
    t->callback_func = tl_record;
    t->callback_arg = t;
  }
  devices_restrict(ctx, t);
  const int r = starpu_task_submit(t);
  if (r) {
    if (slot) starpu_task_destroy(t);
    return femint_seterr(ctx, r == -ENODEV ? FEMINT_ENODEV : FEMINT_ERUNTIME,
                         "%s: task submission failed (%d%s)", what, r,
                         r == -ENODEV ? ": no worker can run it" : "");
  }
  if (slot) *slot = t;
  return 0;
}

int model_calibrated(femint_context_t ctx, struct starpu_task *t, uint32_t where)
{
  for (int w = 0; w < ctx->nworker; w++) {
    uint32_t kind = starpu_worker_get_type(w) == STARPU_CPU_WORKER ? STARPU_CPU : STARPU_OPENCL;
    if (!(where & kind)) continue;
    if (t->workerids_len && !(t->workerids[w / 32] >> (w % 32) & 1)) continue;
    struct starpu_perfmodel_arch *arch = starpu_worker_get_perf_archtype(w, 0);
    if (isnan(starpu_task_expected_length(t, arch, 0))) return 0;
  }
  return 1;
}

void stats_task(struct femint_stats *st, struct starpu_task *t, int integrate)
{
  if (!t || !t->profiling_info) return;
  int w = t->profiling_info->workerid;
  if (w < 0 || w >= FEMINT_MAX_WORKERS) return;
  if (integrate) {
    st->worker_tasks_integrate[w]++;
    if (starpu_worker_get_type(w) == STARPU_CPU_WORKER) st->tasks_cpu++;
    else st->tasks_opencl++;
  } else {
    st->worker_tasks_assemble[w]++;
  }
  st->worker_busy[w] +=
      1e-6 * starpu_timing_timespec_delay_us(&t->profiling_info->start_time,
                                             &t->profiling_info->end_time);
}

void stats_plan(const struct femint_operator *op, struct femint_stats *st)
{
  const struct plan *p = op->plan;
  femint_context_t ctx = op->ctx;
  st->nform = p->nform;
  st->ncell = p->ncell;
  st->nbatch = p->nbatch * p->nform;
  st->ngroup = p->ngroup * p->nform;
  st->ndof = op->space->nmode * op->space->ncomp;
  st->nworker = ctx->nworker < FEMINT_MAX_WORKERS ? ctx->nworker : FEMINT_MAX_WORKERS;
  for (int w = 0; w < st->nworker; w++)
    st->worker_is_opencl[w] = starpu_worker_get_type(w) == STARPU_OPENCL_WORKER;
  for (int i = 0; i < p->nform * p->nbatch; i++)
    st->flops_seed += p->batches[i].g->flops_seed_per_cell * p->batches[i].ncell;
}

int timeline_write(femint_context_t ctx, const char *path, const struct plan *p,
                   struct starpu_task **tasks, int ntask)
{
  struct tl_row *row = malloc(((size_t)ntask + 1) * sizeof *row);
  FEMINT_CHECK(row, ctx, FEMINT_ENOMEM, "the timeline '%s': out of memory", path);
  const int nb = p->nform * p->nbatch;
  size_t n = 0;
  for (int i = 0; i < ntask; i++) {
    if (!tasks[i] || !tl_row_of(tasks[i], &row[n])) continue;
    /* batch i / 2's integration and assembly tasks, then the sums (no batch) */
    if (i < 2 * nb) {
      const struct batch *b = &p->batches[i / 2];
      row[n].order = b->g->order;
      row[n].cells = b->ncell;
      row[n].batch = i / 2;
    }
    n++;
  }
  const int err = tl_write(ctx, path, row, n);
  free(row);
  return err;
}

int operator_gpu_alone(const struct femint_operator *op)
{
  if (op->plan->opt.where != FEMINT_WHERE_ANY) return 0;
  for (int dev = 0; dev < op->ctx->ncl_dev; dev++)
    if (op->ctx->cl_driven[dev] && !(op->ctx->cl_dev[dev].type & CL_DEVICE_TYPE_CPU)) return 1;
  return 0;
}

void operator_devices_refresh(struct femint_operator *op)
{
  femint_context_t ctx = op->ctx;
  if (op->nlost_seen == ctx->nlost) return;
  op->nlost_seen = ctx->nlost;
  /* a split assembly is split again over the devices left */
  for (int d = 0; d < op->npart; d++)
    if (!ctx->cl_driven[op->part[d]->coo_dev]) {
      operator_coo_split_release(op);
      break;
    }
  if (op->coo_dev >= 0 && !ctx->cl_driven[op->coo_dev]) operator_coo_to_host(op);
  operator_apply_release(op);
  operator_residual_release(op);
  worker_mask_make(ctx, op->plan->opt.devices, -1, &op->rows_mask);
  worker_mask_make(ctx, op->plan->opt.devices, op->coo_worker, &op->coo_mask);
}

int operator_retry(struct femint_operator *op, int err, const char *who)
{
  femint_context_t ctx = op->ctx;
  if (!err || !devices_leave_out(ctx, who, femint_last_error(ctx))) return 0;
  operator_devices_refresh(op);
  const int device = femint_context_first_device(ctx) >= 0;
  if (op->plan->opt.where == FEMINT_WHERE_OPENCL ? !device : !device && ctx->ncpu == 0) return 0;
  fprintf(stderr, "femint: warning: %s: the work is done again on the %s\n", who,
          op->plan->opt.where == FEMINT_WHERE_OPENCL ? "other devices" : "workers left");
  return 1;
}

int operator_build_failed(const struct femint_operator *op, int err, const char *what)
{
  if (!err || op->plan->opt.where == FEMINT_WHERE_OPENCL || op->ctx->ncpu == 0) return err;
  fprintf(stderr, "femint: warning: %s: %s; the CPU workers take its work\n", what,
          femint_thread_error());
  return 0;
}

/* Measured on four H200 of one host (doc/performance.md, "Several GPUs"): StarPU moves data
 * between OpenCL devices through main memory, so that element vectors or matrices summed on one
 * device but made on another cost more in transfers than the other device saves (the residual 8
 * times slower on 2 devices than on 1, the Maxwell COO sums 22 times); results that go to main
 * memory anyway gain from every device. */
int operator_gather_devices(const struct femint_operator *op)
{
  const int k = op->plan->opt.devices, n = op->ctx->nopencl;
  return k == 0 || n < 1 ? 1 : k < n ? k : n;
}

void worker_mask_make(femint_context_t ctx, int k, int home, struct worker_mask *m)
{
  memset(m, 0, sizeof *m);
  if (k == 0 ? home < 0 || ctx->nopencl < 2 : k >= ctx->nopencl) return;
  for (int w = 0; w < ctx->nworker; w++) {
    const int cpu = starpu_worker_get_type(w) == STARPU_CPU_WORKER;
    if (cpu || (k > 0 ? starpu_worker_get_devid(w) < k : w == home))
      m->bits[w / 32] |= UINT32_C(1) << (w % 32);
  }
  m->len = (unsigned)(ctx->nworker + 31) / 32;
}

void worker_mask_set(struct starpu_task *t, const struct worker_mask *m)
{
  if (!m->len) return;
  t->workerids = (uint32_t *)m->bits;
  t->workerids_len = m->len;
}

int starpu_size_check(femint_context_t ctx, int64_t n, const char *who, const char *what)
{
  FEMINT_CHECK(n < (int64_t)UINT32_MAX, ctx, FEMINT_ENOTSUP,
               "%s: %lld %s (StarPU's vectors hold at most 2^32 - 1 values: split the mesh over "
               "ranks)",
               who, (long long)n, what);
  return 0;
}
