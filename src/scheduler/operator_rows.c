/* The verbs of an operator whose element matrices come to main memory batch by batch:
 * femint_operator_assemble by rows (integration tasks on any worker, then assembly tasks on CPU
 * workers into the row blocks of the matrices that each batch touches) and
 * femint_operator_integrate (the element matrices handed to the caller's function as batches
 * finish, on the calling thread). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/pattern.h"
#include "operator.h"

/* Cut the rows into about nblock blocks of equal non-zeros (whole scalar modes each) and list
 * the blocks each batch writes (shared by the batches of every form). */
static int row_blocks(struct femint_operator *op, int nblock)
{
  struct rows *c = &op->rows;
  const struct plan *p = op->plan;
  const struct femint_space *s = op->space;
  const int ne = s->ncomp;
  if (nblock < 1) nblock = 1;
  c->block_row = malloc((size_t)(nblock + 2) * sizeof *c->block_row);
  c->row_block = malloc((size_t)(c->nrows > 0 ? c->nrows : 1) * sizeof *c->row_block);
  unsigned char *mark = calloc((size_t)nblock, 1);
  if (!c->block_row || !c->row_block || !mark) {
    free(mark);
    return FEMINT_ENOMEM;
  }
  c->nblock = rows_cut(c->rowptr, c->nrows, ne, nblock, c->block_row, c->row_block);
  for (int i = 0; i < p->nbatch; i++) {
    struct batch *b = &p->batches[i];
    memset(mark, 0, (size_t)c->nblock);
    int n = 0;
    for (int j = 0; j < b->ncell; j++)
      for (int64_t l = s->cell_off[b->cells[j]]; l < s->cell_off[b->cells[j] + 1]; l++)
        if (s->cell_mode[l] >= 0 && !mark[c->row_block[s->cell_mode[l] * ne]]) {
          mark[c->row_block[s->cell_mode[l] * ne]] = 1;
          n++;
        }
    if (!(b->blk = malloc((size_t)(n ? n : 1) * sizeof *b->blk))) {
      free(mark);
      return FEMINT_ENOMEM;
    }
    b->nblk = 0;
    for (int k2 = 0; k2 < c->nblock; k2++)
      if (mark[k2]) b->blk[b->nblk++] = k2;
    for (int f = 0; f < p->nform; f++) {
      struct batch *bf = &p->batches[f * p->nbatch + i];
      bf->blk = b->blk;
      bf->nblk = b->nblk;
      bf->rows = c;
    }
  }
  free(mark);
  return 0;
}

/* The CSR structure and its row blocks, at the first assembly. */
static int rows_prepare(struct femint_operator *op, struct femint_stats *st)
{
  if (op->shape) return 0;
  const double t0 = femint_now();
  const struct plan *p = op->plan;
  struct pattern pat;
  FEMINT_CALL(pattern_build(op->ctx, op->space, p->ncell, p->cells, 0, NULL, &pat));
  op->shape = csr_shape_new(pat.n, pat.nnz, pat.rowptr, pat.colind);
  FEMINT_CHECK(op->shape, op->ctx, FEMINT_ENOMEM, "femint_operator_assemble: out of memory");
  op->rows = (struct rows){.nrows = pat.n, .rowptr = pat.rowptr, .colind = pat.colind};
  const int nw = op->ctx->nworker > 0 ? op->ctx->nworker : 1;
  FEMINT_CHECK(!row_blocks(op, 8 * nw), op->ctx, FEMINT_ENOMEM,
               "femint_operator_assemble: out of memory for the row blocks");
  st->pattern_built = 1;
  st->t_pattern = femint_now() - t0;
  return 0;
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
};

static int blocks_register(femint_context_t ctx, const struct rows *c, double *values,
                           starpu_arbiter_t arbiter, struct blocks *bl)
{
  FEMINT_CALL(starpu_size_check(ctx, c->rowptr[c->nrows], "femint_operator_assemble",
                                "non-zeros in a matrix"));
  bl->h = malloc((size_t)c->nblock * sizeof *bl->h);
  bl->len = malloc((size_t)c->nblock * sizeof *bl->len);
  if (!bl->h || !bl->len) {
    free(bl->h), free(bl->len);
    bl->h = NULL, bl->len = NULL;
    return femint_seterr(ctx, FEMINT_ENOMEM, "femint_operator_assemble: out of memory");
  }
  starpu_vector_data_register(&bl->values, STARPU_MAIN_RAM, (uintptr_t)values,
                              (uint32_t)c->rowptr[c->nrows], sizeof(double));
  for (int k = 0; k < c->nblock; k++)
    bl->len[k] = (uint32_t)(c->rowptr[c->block_row[k + 1]] - c->rowptr[c->block_row[k]]);
  struct starpu_data_filter filter = {.filter_func = starpu_vector_filter_list,
                                      .nchildren = (unsigned)c->nblock,
                                      .filter_arg_ptr = bl->len};
  starpu_data_partition(bl->values, &filter);
  for (int k = 0; k < c->nblock; k++) {
    bl->h[k] = starpu_data_get_sub_data(bl->values, 1, k);
    starpu_data_assign_arbiter(bl->h[k], arbiter);
  }
  return 0;
}

static void blocks_unregister(struct blocks *bl)
{
  if (!bl->h) return;
  starpu_data_unpartition(bl->values, STARPU_MAIN_RAM);
  starpu_data_unregister(bl->values);
  free(bl->h);
  free(bl->len);
  bl->h = NULL;
}

/* The assembly task of a batch: its element matrices (read) and the row blocks it writes, in
 * any order of the batches (commute), or in the order of submission (the plan's) for a result
 * that is the same to the bit from run to run. */
static struct starpu_task *assembly_task(struct batch *b, const struct blocks *bl, int commute)
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
    tm[1 + k] = commute ? STARPU_RW | STARPU_COMMUTE : STARPU_RW;
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
    return femint_seterr(ctx, FEMINT_ENOMEM, "femint_operator_integrate: out of memory");
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
    err = femint_seterr(ctx, FEMINT_ERUNTIME,
                        "femint_operator_integrate: the element matrices of a batch of order %d "
                        "could not be brought to memory",
                        g->order);
  } else if (!err) {
    const struct femint_element_batch eb = {
        .form = g->iform, .ncell = b->ncell, .cells = b->cells, .order = g->order, .n = n,
        .precision = g->precision, .symmetric = g->symmetric, .mats = b->mats, .dofs = dofs,
        .signs = signs};
    int rc = fn(&eb, user);
    starpu_data_release(b->h_mats);
    if (rc)
      err = femint_seterr(ctx, FEMINT_ECALLBACK,
                          "femint_operator_integrate: the element function returned %d for a "
                          "batch of %d cells of order %d (form %d, first cell %d)",
                          rc, b->ncell, g->order, g->iform, b->cells[0]);
  }
  free(dofs);
  free(signs);
  return err;
}

/* Wait for the tasks of sequence k (the batch of form k % nform of the batch index k / nform;
 * the assembly task is NULL without assembly), hand its element matrices to fn (when there is one
 * and no error so far), and give its data back. */
static int finish_one(femint_context_t ctx, const struct plan *p, int k, struct starpu_task **tasks,
                      femint_element_fn fn, void *user, int *done, int err)
{
  const int i = (k % p->nform) * p->nbatch + k / p->nform;
  const struct batch *b = &p->batches[i];
  for (int t = 2 * i; t < 2 * i + 2; t++)
    if (tasks[t] && tasks[t]->status != STARPU_TASK_INIT && starpu_task_wait(tasks[t]) && !err)
      err = femint_seterr(ctx, FEMINT_ERUNTIME, "waiting for a task failed");
  if (!err && b->status) err = femint_seterr(ctx, b->status, "%s", b->msg);
  if (!err && fn && !(err = deliver(ctx, p, &p->batches[i], fn, user))) ++*done;
  batch_release(ctx, &p->batches[i]);
  return err;
}

/* A batch's inputs, and its own element matrices when they are not in the arena. */
static int pack_one(femint_context_t ctx, const struct plan *p, struct batch *b)
{
  const struct group *g = b->g;
  FEMINT_CALL(plan_pack_batch(p, b));
  if (b->in_arena) return 0;
  return femint_host_alloc(ctx, (size_t)b->ncell * g->out_size * g->real_size, &b->mats);
}

/* Submit the assembly task of batch i into its form's row blocks. */
static int submit_assembly(femint_context_t ctx, struct batch *b, const struct blocks *bl,
                           int commute, struct starpu_task **slot)
{
  struct starpu_task *ta = assembly_task(b, bl, commute);
  FEMINT_CHECK(ta, ctx, FEMINT_ENOMEM, "femint_operator_assemble: out of memory");
  return task_submit(ctx, ta, slot, "assembly");
}

int operator_rows(struct femint_operator *op, femint_matrix_t *A, femint_element_fn fn,
                  void *user, int *done, struct femint_stats *st)
{
  femint_context_t ctx = op->ctx;
  struct plan *p = op->plan;
  const int assemble = A != NULL, phases = p->opt.phases, nb = p->nform * p->nbatch;
  if (assemble) FEMINT_CALL(rows_prepare(op, st));
  struct starpu_task **tasks = calloc((size_t)2 * nb + 1, sizeof *tasks);
  struct blocks *bl = calloc((size_t)p->nform, sizeof *bl);
  FEMINT_CHECK(tasks && bl, ctx, FEMINT_ENOMEM, "out of memory");
  starpu_arbiter_t arbiter = assemble ? starpu_arbiter_create() : NULL;
  int err = 0;
  const double tk = femint_now();
  for (int f = 0; assemble && f < p->nform && !err; f++) {
    err = matrix_create(ctx, op->shape, 1, &A[f]);
    if (!err) err = blocks_register(ctx, &op->rows, A[f]->values, arbiter, &bl[f]);
  }
  st->t_pack += femint_now() - tk;
  /* With phases every batch stays until its assembly (no window), and the inputs of all are
   * packed before the integration is timed; otherwise each is packed as its tasks go. */
  const int window = phases ? (batch_buffers(ctx, p, 1), nb) : batch_buffers(ctx, p, 1);
  const double tq = femint_now();
  for (int i = 0; phases && i < nb && !err; i++) err = pack_one(ctx, p, &p->batches[i]);
  st->t_pack += femint_now() - tq;
  const double t1 = femint_now();
  femint_trace("rows assembly: matrices and blocks registered");
  const int first = *done;
  int retired = first;
  /* batch index by batch index, the forms of each together */
  for (int k = first; k < nb && !err; k++) {
    const int f = k % p->nform, i = f * p->nbatch + k / p->nform;
    struct batch *b = &p->batches[i];
    while (k - retired >= window && !err)
      err = finish_one(ctx, p, retired++, tasks, fn, user, done, err);
    const double tp = femint_now();
    if (!err && !phases) err = pack_one(ctx, p, b);
    st->t_pack += femint_now() - tp;
    if (err) break;
    batch_register(b, 1);
    uint32_t where;
    struct starpu_task *ti = integration_task(p, b, b->h_mats, &where);
    worker_mask_set(ti, &op->rows_mask);
    st->calibrating += !model_calibrated(ctx, ti, where);
    err = task_submit(ctx, ti, &tasks[2 * i], "integration");
    if (!err && assemble && !phases)
      err = submit_assembly(ctx, b, &bl[f], !p->opt.reproducible, &tasks[2 * i + 1]);
  }
  if (phases) {
    /* integration alone, then assembly alone */
    for (int i = 0; i < nb; i++)
      if (tasks[2 * i] && starpu_task_wait(tasks[2 * i]) && !err)
        err = femint_seterr(ctx, FEMINT_ERUNTIME, "waiting for a task failed");
    st->t_integrate = femint_now() - t1;
    const double ts = femint_now();
    for (int i = 0; assemble && i < nb && !err; i++)
      if (tasks[2 * i])
        err = submit_assembly(ctx, &p->batches[i], &bl[i / p->nbatch], !p->opt.reproducible,
                              &tasks[2 * i + 1]);
    for (int i = 0; i < nb; i++)
      if (tasks[2 * i + 1] && starpu_task_wait(tasks[2 * i + 1]) && !err)
        err = femint_seterr(ctx, FEMINT_ERUNTIME, "waiting for a task failed");
    st->t_sum = femint_now() - ts;
  }
  /* Wait for what was submitted, even after an error, before anything is freed. */
  for (; retired < nb; retired++) err = finish_one(ctx, p, retired, tasks, fn, user, done, err);
  st->t_tasks = femint_now() - t1;
  if (!phases) st->t_integrate = st->t_tasks;
  for (int f = 0; f < p->nform; f++) blocks_unregister(&bl[f]);
  if (arbiter) starpu_arbiter_destroy(arbiter);
  double nblk = 0;
  for (int i = 0; i < nb; i++) {
    struct batch *b = &p->batches[i];
    stats_task(st, tasks[2 * i], 1);
    stats_task(st, tasks[2 * i + 1], 0);
    if (b->status && !err) err = femint_seterr(ctx, b->status, "%s", b->msg);
    b->status = 0;
    nblk += b->nblk;
  }
  femint_trace("rows assembly: %d batches done", nb);
  if (p->opt.timeline && !err) err = timeline_write(ctx, p->opt.timeline, p, tasks, 2 * nb);
  for (int i = 0; i < 2 * nb; i++)
    if (tasks[i]) {
      st->ntask++;
      starpu_task_destroy(tasks[i]);
    }
  free(tasks);
  free(bl);
  if (assemble) {
    st->assembly = FEMINT_ASSEMBLY_ROWS;
    st->nblock = op->rows.nblock;
    st->blocks_per_batch = nb > 0 ? nblk / nb : 0;
    st->nnz = op->shape->nnz;
  }
  if (err && assemble)
    for (int f = 0; f < p->nform; f++) femint_matrix_destroy(&A[f]);
  return err;
}
