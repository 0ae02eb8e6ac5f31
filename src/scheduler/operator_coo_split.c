/* femint_operator_assemble through coordinates over several OpenCL devices: the rows are split
 * into ranges of scalar modes, one per device, balanced by the entries of element matrices they
 * receive. A part is an operator of its own over the cells that touch its rows (a cell on the
 * border of two ranges is integrated by both devices); its pattern keeps the entries of its rows
 * alone, so that its device sums exactly the CSR values of those rows, which are one slice of the
 * whole matrix's, and they come back straight into their place. Nothing crosses between the
 * devices, each uses its own bus, and the host adds nothing. */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operator.h"

int operator_part_device(const struct femint_operator *op, int d, int fp64)
{
  femint_context_t ctx = op->ctx;
  const struct plan *p = op->plan;
  return ctx->cl_driven[d] && ((p->opt.precision == FEMINT_SINGLE && !fp64) || ctx->cl_dev[d].fp64) &&
         (p->opt.devices > 0 || !(ctx->cl_dev[d].type & CL_DEVICE_TYPE_CPU));
}

int operator_coo_parts(const struct femint_operator *op)
{
  femint_context_t ctx = op->ctx;
  const int k = op->plan->opt.devices;
  if (op->is_part || op->assembly != FEMINT_ASSEMBLY_COO || op->coo_dev < 0 || k == 1) return 0;
  int n = 0;
  for (int d = 0; d < ctx->ncl_dev && (k == 0 || d < k); d++) n += operator_part_device(op, d, 0);
  return n;
}

void operator_coo_split_release(struct femint_operator *op)
{
  if (!op->part) return;
  for (int d = 0; d < op->npart; d++) femint_operator_destroy(&op->part[d]);
  free(op->part);
  op->part = NULL;
  op->npart = 0;
  csr_shape_unref(&op->shape);
}

int operator_split_modes(const struct femint_operator *op, int np, int64_t *bound)
{
  const struct femint_space *s = op->space;
  const struct plan *p = op->plan;
  const int64_t nm = s->nmode;
  double *w = calloc((size_t)nm + 1, sizeof *w);
  FEMINT_CHECK(w, op->ctx, FEMINT_ENOMEM, "COO assembly over devices: out of memory");
  double total = 0;
  for (int k = 0; k < p->ncell; k++) {
    const int c = p->cells[k];
    const int64_t off = s->cell_off[c], nsh = s->cell_off[c + 1] - off;
    for (int64_t l = off; l < off + nsh; l++)
      if (s->cell_mode[l] >= 0) {
        w[s->cell_mode[l]] += (double)nsh;
        total += (double)nsh;
      }
  }
  double sum = 0;
  int d = 1;
  bound[0] = 0;
  for (int64_t m = 0; m < nm && d < np; m++) {
    sum += w[m];
    while (d < np && sum >= total * d / np) bound[d++] = m + 1;
  }
  while (d < np) bound[d++] = nm;
  bound[np] = nm;
  free(w);
  return 0;
}

int operator_part_make(struct femint_operator *op, int nparts, int64_t mlo, int64_t mhi, int dev,
                     struct femint_operator **part)
{
  femint_context_t ctx = op->ctx;
  const struct femint_space *s = op->space;
  const struct plan *p = op->plan;
  int *cells = malloc(((size_t)p->ncell + 1) * sizeof *cells), n = 0;
  FEMINT_CHECK(cells, ctx, FEMINT_ENOMEM, "COO assembly over devices: out of memory");
  for (int k = 0; k < p->ncell; k++) {
    const int c = p->cells[k];
    for (int64_t l = s->cell_off[c]; l < s->cell_off[c + 1]; l++)
      if (s->cell_mode[l] >= mlo && s->cell_mode[l] < mhi) {
        cells[n++] = c;
        break;
      }
  }
  struct femint_operator_options o = p->opt;
  o.cells = cells;
  o.ncells = n;
  o.devices = 0;
  o.assembly = FEMINT_ASSEMBLY_COO;
  o.timeline = NULL;
  /* the batches cut for the workers that take them: the device and a share of the CPU
   * workers, so that the parts together make about as many tasks as one device would */
  const int nw = 1 + (o.where != FEMINT_WHERE_OPENCL ? ctx->ncpu / nparts : 0);
  struct femint_operator *q = NULL;
  int err = operator_create(ctx, op->space, op->nform, (const femint_form_t *)op->forms, &o, nw,
                            &q);
  free(cells);
  if (err) return err;
  q->is_part = 1;
  /* Measured on 4 H200 (performance-parallel.md): beside several GPUs the CPU workers' batches
   * end after the GPUs' (a fresh Maxwell box 26^3 on 4: integration 0.089 s with them, 0.038 s
   * without), so that the GPUs of a split take every batch their programs can. */
  q->gpu_alone = !(ctx->cl_dev[dev].type & CL_DEVICE_TYPE_CPU);
  q->mlo = mlo;
  q->mhi = mhi;
  q->coo_dev = dev;
  q->coo_worker = starpu_worker_get_by_devid(STARPU_OPENCL_WORKER, dev);
  q->coo_node = starpu_worker_get_memory_node((unsigned)q->coo_worker);
  q->nlost_seen = ctx->nlost;
  worker_mask_make(ctx, 0, q->coo_worker, &q->coo_mask);
  *part = q;
  return 0;
}

/* Where the parts' columns go (struct coo_columns): each part's pattern, once its device has
 * sorted, says how many columns it has and waits for the others; the last one makes the whole's
 * columns, and each part's go after those of the parts before it (their rows come first). */
struct columns {
  struct coo_columns base;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int np, arrived, failed;
  const struct femint_operator *const *part; /* [np] */
  int64_t nnz[FEMINT_MAX_CL_DEVICES];
  int done[FEMINT_MAX_CL_DEVICES];
  int64_t *colind, total;
};

/* Part d's count (-1: it failed), the whole's columns made by the last to arrive; called with
 * the lock held. */
static void columns_arrive(struct columns *c, int d, int64_t nnz)
{
  c->done[d] = 1;
  c->nnz[d] = nnz;
  c->failed |= nnz < 0;
  if (++c->arrived == c->np) {
    c->total = 0;
    for (int e = 0; e < c->np; e++) c->total += c->nnz[e] > 0 ? c->nnz[e] : 0;
    if (!c->failed) c->colind = huge_alloc(((size_t)c->total + 1) * sizeof *c->colind);
    c->failed |= !c->colind;
    pthread_cond_broadcast(&c->cond);
  }
}

static int64_t *columns_place(struct coo_columns *base, const struct femint_operator *q,
                              int64_t nnz)
{
  struct columns *c = (struct columns *)base;
  int d = 0;
  while (d < c->np && c->part[d] != q) d++;
  pthread_mutex_lock(&c->lock);
  columns_arrive(c, d, nnz);
  while (c->arrived < c->np) pthread_cond_wait(&c->cond, &c->lock);
  int64_t off = 0;
  for (int e = 0; e < d; e++) off += c->nnz[e];
  int64_t *at = c->failed ? NULL : c->colind + off;
  pthread_mutex_unlock(&c->lock);
  return at;
}

/* The whole's CSR structure from its parts' row pointers (each part its own rows) and the
 * columns they brought into place, into op->shape. */
static int parts_merge(struct femint_operator *op, struct columns *cols)
{
  femint_context_t ctx = op->ctx;
  const int64_t ne = op->space->ncomp, n = op->space->nmode * ne;
  int64_t *rowptr = calloc((size_t)n + 1, sizeof *rowptr), nnz = 0, ncontrib = 0;
  FEMINT_CHECK(rowptr, ctx, FEMINT_ENOMEM, "COO assembly over devices: out of memory");
  for (int d = 0; d < op->npart; d++) {
    const struct femint_operator *q = op->part[d];
    const int64_t *rp = q->shape->rowptr, lo = q->mlo * ne, hi = q->mhi * ne;
    if (rp[lo] != 0 || rp[hi] != q->nnz || rp[n] != q->nnz || cols->nnz[d] != q->nnz) {
      free(rowptr);
      return femint_seterr(ctx, FEMINT_ERUNTIME,
                           "COO assembly over devices: part %d (rows %lld..%lld) has values "
                           "outside its rows",
                           d, (long long)lo, (long long)hi - 1);
    }
    for (int64_t r = lo; r < hi; r++) rowptr[r + 1] = rp[r + 1] - rp[r];
    nnz += q->nnz;
    ncontrib += q->ncontrib;
  }
  for (int64_t r = 0; r < n; r++) rowptr[r + 1] += rowptr[r];
  for (int d = 0; d < op->npart; d++) csr_shape_unref(&op->part[d]->shape);
  op->shape = csr_shape_new(n, nnz, rowptr, cols->colind);
  cols->colind = NULL; /* the shape's now, or freed with rowptr by csr_shape_new */
  FEMINT_CHECK(op->shape, ctx, FEMINT_ENOMEM, "COO assembly over devices: out of memory");
  op->nnz = nnz;
  op->ncontrib = ncontrib;
  return 0;
}

/* fn(arg + i size) for i < n, each on a thread of its own (the calling thread takes i = 0, and
 * any for which no thread could be made), so that the devices work at once; the OpenMP teams of
 * their copies share the cores. */
struct on_thread {
  void *(*fn)(void *);
  void *arg;
  int team;
};

static void *on_thread(void *arg)
{
  const struct on_thread *o = arg;
  const int saved = omp_get_max_threads();
  omp_set_num_threads(o->team);
  o->fn(o->arg);
  omp_set_num_threads(saved);
  return NULL;
}

static void on_threads(int n, void *(*fn)(void *), void (*unstarted)(void *), void *arg,
                       size_t size)
{
  pthread_t th[FEMINT_MAX_CL_DEVICES];
  struct on_thread o[FEMINT_MAX_CL_DEVICES];
  int started[FEMINT_MAX_CL_DEVICES] = {0};
  const int team = n > 0 && omp_get_max_threads() / n > 1 ? omp_get_max_threads() / n : 1;
  for (int i = 0; i < n; i++) o[i] = (struct on_thread){fn, (char *)arg + (size_t)i * size, team};
  for (int i = 1; i < n; i++) started[i] = pthread_create(&th[i], NULL, on_thread, &o[i]) == 0;
  /* one for which no thread could be made: unstarted(its arg) when the others wait for it (it
   * then does not run), else it runs on the calling thread after the first */
  for (int i = 1; i < n; i++)
    if (!started[i] && unstarted) unstarted(o[i].arg);
  for (int i = 0; i < n; i++)
    if (i == 0 || (!started[i] && !unstarted)) on_thread(&o[i]);
  for (int i = 1; i < n; i++)
    if (started[i]) pthread_join(th[i], NULL);
}

/* A part's pattern (a thread's function); a part that fails before its columns are placed
 * says so, so that the others do not wait for it. */
struct part_ready {
  struct femint_operator *q;
  struct columns *cols;
  int d;
  struct femint_stats st;
  int err;
  char msg[256]; /* the thread's message of err */
};

static void *part_ready(void *arg)
{
  struct part_ready *r = arg;
  r->err = coo_call_ready(r->q, &r->st, &r->cols->base);
  if (r->err) snprintf(r->msg, sizeof r->msg, "%s", femint_thread_error());
  if (!r->cols->done[r->d]) columns_place(&r->cols->base, r->q, -1);
  return NULL;
}

/* A part without a thread: the others are told not to wait for its columns. */
static void part_unready(void *arg)
{
  struct part_ready *r = arg;
  r->err = FEMINT_ERUNTIME;
  snprintf(r->msg, sizeof r->msg, "COO assembly over devices: no thread for part %d", r->d);
  pthread_mutex_lock(&r->cols->lock);
  columns_arrive(r->cols, r->d, -1);
  pthread_mutex_unlock(&r->cols->lock);
}

/* The parts, over the first devices that operator_coo_parts counts, and their patterns. */
static int parts_make(struct femint_operator *op, int np, struct femint_stats *st)
{
  femint_context_t ctx = op->ctx;
  int64_t bound[FEMINT_MAX_CL_DEVICES + 1];
  int dev[FEMINT_MAX_CL_DEVICES], n = 0;
  for (int d = 0; d < ctx->ncl_dev && n < np; d++)
    if (operator_part_device(op, d, 0)) dev[n++] = d;
  FEMINT_CALL(operator_split_modes(op, n, bound));
  op->part = calloc((size_t)n, sizeof *op->part);
  FEMINT_CHECK(op->part, ctx, FEMINT_ENOMEM, "COO assembly over devices: out of memory");
  int err = 0;
  const double t0 = femint_now();
  for (int d = 0; d < n && !err; d++) {
    if (bound[d] == bound[d + 1]) continue; /* no rows: the device has nothing to do */
    struct femint_operator **q = &op->part[op->npart];
    err = operator_part_make(op, n, bound[d], bound[d + 1], dev[d], q);
    if (!err && (*q)->plan->ncell == 0) { /* no cell touches its rows: they are empty */
      femint_operator_destroy(q);
      continue;
    }
    if (!err) op->npart++;
  }
  struct columns cols = {.base = {columns_place},
                         .lock = PTHREAD_MUTEX_INITIALIZER,
                         .cond = PTHREAD_COND_INITIALIZER,
                         .np = op->npart,
                         .part = (const struct femint_operator *const *)op->part};
  struct part_ready r[FEMINT_MAX_CL_DEVICES];
  memset(r, 0, sizeof r);
  for (int d = 0; d < op->npart; d++)
    r[d] = (struct part_ready){.q = op->part[d], .cols = &cols, .d = d};
  if (!err) on_threads(op->npart, part_ready, part_unready, r, sizeof *r);
  /* the first part that failed of itself, not for want of another's columns */
  for (int d = 0; d < op->npart; d++)
    if (r[d].err && cols.nnz[d] < 0 && !err) err = femint_seterr(ctx, r[d].err, "%s", r[d].msg);
  for (int d = 0; d < op->npart && !err; d++)
    if (r[d].err) err = femint_seterr(ctx, r[d].err, "%s", r[d].msg);
  for (int d = 0; d < op->npart; d++)
    st->t_programs = st->t_programs > r[d].st.t_programs ? st->t_programs : r[d].st.t_programs;
  if (!err) err = parts_merge(op, &cols);
  free(cols.colind);
  st->pattern_built = 1;
  st->t_pattern = femint_now() - t0 - st->t_programs;
  femint_trace("COO assembly over %d devices: parts and patterns made", op->npart);
  if (err) operator_coo_split_release(op);
  return err;
}

/* Add a part's statistics to the whole's: tasks, per worker, and the times of the steps (the
 * parts ran side by side: the longest). */
static void stats_add(struct femint_stats *st, const struct femint_stats *q)
{
  st->ntask += q->ntask;
  st->calibrating += q->calibrating;
  st->tasks_cpu += q->tasks_cpu;
  st->tasks_opencl += q->tasks_opencl;
  st->t_programs += q->t_programs;
#define MAX_OF(x) st->x = st->x > q->x ? st->x : q->x
  MAX_OF(t_pack);
  MAX_OF(t_integrate);
  MAX_OF(t_sum);
  MAX_OF(t_download);
  MAX_OF(t_tasks);
#undef MAX_OF
  for (int w = 0; w < FEMINT_MAX_WORKERS; w++) {
    st->worker_tasks_integrate[w] += q->worker_tasks_integrate[w];
    st->worker_tasks_assemble[w] += q->worker_tasks_assemble[w];
    st->worker_busy[w] += q->worker_busy[w];
  }
}

/* A part's call with the message of its first error, kept from the thread that met it (the
 * context's message is every thread's). */
struct part_call {
  struct coo_call c;
  char msg[256];
};

static void part_error(struct part_call *p)
{
  if (p->c.err && !p->msg[0]) snprintf(p->msg, sizeof p->msg, "%s", femint_thread_error());
}

/* The integration tasks of a part, and its end (threads' functions). */
static void *part_submit(void *arg)
{
  struct part_call *p = arg;
  struct coo_call *c = &p->c;
  if (!c->err) c->err = coo_call_pack(c);
  for (int k = 0; !c->err && k < c->nb; k++) c->err = coo_call_integrate(c, k);
  part_error(p);
  return NULL;
}

static void *part_end(void *arg)
{
  struct part_call *p = arg;
  if (p->c.op) p->c.err = coo_call_end(&p->c);
  part_error(p);
  return NULL;
}

int operator_coo_split(struct femint_operator *op, femint_matrix_t *A, struct femint_stats *st)
{
  femint_context_t ctx = op->ctx;
  const int nform = op->nform;
  if (!op->part) FEMINT_CALL(parts_make(op, operator_coo_parts(op), st));
  const int np = op->npart;
  if (op->plan->opt.timeline && op->coo_calls == 0)
    fprintf(stderr, "femint: warning: femint_operator_assemble: the COO assembly split over %d "
                    "devices writes no timeline to '%s' (devices = 1 keeps one device)\n",
            np, op->plan->opt.timeline);
  struct part_call *p = calloc((size_t)np + 1, sizeof *p);
  struct femint_stats *pst = calloc((size_t)np + 1, sizeof *pst);
  double **into = calloc((size_t)np * nform + 1, sizeof *into);
  struct plan **plans = calloc((size_t)np + 1, sizeof *plans);
  int err = p && pst && into && plans
                ? 0
                : femint_seterr(ctx, FEMINT_ENOMEM, "COO assembly over devices: out of memory");
  /* the whole's matrices, lent pinned memory from the third call as on one device */
  int out_double = 1;
  for (int d = 0; d < np; d++) out_double &= ctx->cl_dev[op->part[d]->coo_dev].fp64;
  const int lend = out_double && op->coo_calls >= 2;
  for (int f = 0; f < nform && !err; f++)
    err = lend ? femint_host_matrix(ctx, op->shape, &A[f])
               : matrix_create(ctx, op->shape, 1, &A[f]);
  const int64_t ne = op->space->ncomp;
  for (int d = 0; d < np && !err; d++) {
    struct femint_operator *q = op->part[d];
    for (int f = 0; f < nform; f++)
      into[d * nform + f] = A[f]->values + op->shape->rowptr[q->mlo * ne];
    plans[d] = q->plan;
    stats_plan(q, &pst[d]);
    p[d].c = (struct coo_call){
        .op = q, .into = into + d * nform, .whole_calls = op->coo_calls, .st = &pst[d]};
  }
  if (!err) batch_buffers_plans(ctx, plans, np, 0);
  for (int d = 0; d < np && !err; d++) {
    p[d].c.err = coo_call_begin(&p[d].c);
    part_error(&p[d]);
  }
  /* each part's batches packed and submitted by a thread of its own (the calling thread takes
   * the first part): the host's work per task does not add up over the devices */
  if (!err) on_threads(np, part_submit, NULL, p, sizeof *p);
  femint_trace("COO assembly over %d devices: integration tasks submitted", np);
  for (int d = 0; d < np && !err; d++)
    if (p[d].c.tasks) {
      coo_call_integrated(&p[d].c);
      coo_call_sums(&p[d].c);
      part_error(&p[d]); /* its message, from this thread */
    }
  /* each part's values on their way as its blocks are summed, each device on its own bus; those
   * that come back through bounce buffers (the first calls) by a thread per part */
  const double td = femint_now();
  if (p && pst) on_threads(np, part_end, NULL, p, sizeof *p);
  for (int d = 0; p && pst && d < np; d++) {
    if (p[d].c.op && p[d].c.err && !err)
      err = femint_seterr(ctx, p[d].c.err, "%s", p[d].msg);
    stats_add(st, &pst[d]);
  }
  st->t_download = femint_now() - td;
  free(p);
  free(pst);
  free(into);
  free(plans);
  if (!err) op->coo_calls++;
  st->assembly = FEMINT_ASSEMBLY_COO;
  st->on_device = 1;
  st->ncontrib = op->ncontrib;
  st->nnz = op->nnz;
  if (err)
    for (int f = 0; f < nform; f++) femint_matrix_destroy(&A[f]);
  femint_trace("COO assembly over %d devices: done", np);
  return err;
}
