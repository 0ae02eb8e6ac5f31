/* The COO pattern of an operator (its first assembly; operator_coo.c has the verb): the entries
 * of every cell's element matrix laid out in plan order, one task on the gathering node that
 * sorts them into the CSR structure and the permutation of the sums (perm and seg stay there),
 * the row pointers and then the columns back to main memory (the columns on a thread of their
 * own while the integration runs), the first assembly's values allocated, and the blocks of rows
 * of the sums. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codelets/kernels.h"
#include "operator.h"

/* The DOF code of every local row of every cell of the plan (2 * DOF + 1 for a mode of sign -1,
 * -1 for none), the value offset of every cell (the element matrices of all forms are laid out
 * alike), and the groups of the pattern task; the batches learn their offsets. */
static int coo_layout(struct femint_operator *op, int64_t **cdof, int64_t *ncode,
                      int64_t **voff, struct pattern_group **pg, int64_t *nentry)
{
  const struct plan *p = op->plan;
  const struct femint_space *s = op->space;
  const int ne = s->ncomp;
  *ncode = 0;
  for (int k = 0; k < p->ncell; k++)
    *ncode += (s->cell_off[p->cells[k] + 1] - s->cell_off[p->cells[k]]) * ne;
  *cdof = malloc(((size_t)*ncode + 1) * sizeof **cdof);
  *voff = malloc(((size_t)p->ncell + 1) * sizeof **voff);
  *pg = calloc((size_t)p->ngroup + 1, sizeof **pg);
  if (!*cdof || !*voff || !*pg) return FEMINT_ENOMEM;
  int64_t code = 0, value = 0, entry = 0;
  int k = 0;
  for (int j = 0; j < p->nbatch; j++) {
    const struct batch *b0 = &p->batches[j];
    const struct group *g = b0->g;
    struct pattern_group *grp = &(*pg)[g - p->groups];
    if (grp->n == 0)
      *grp = (struct pattern_group){0, code, entry, value, (int64_t)g->out_size, g->n};
    for (int f = 0; f < p->nform; f++) p->batches[f * p->nbatch + j].voff = value;
    for (int c = 0; c < b0->ncell; c++, k++) {
      const int cell = p->cells[k];
      const int64_t off = s->cell_off[cell];
      for (int64_t l = off; l < s->cell_off[cell + 1]; l++)
        for (int a = 0; a < ne; a++)
          (*cdof)[code++] = s->cell_mode[l] < 0 ? -1
                                                : 2 * (s->cell_mode[l] * ne + a) +
                                                      (s->cell_sign[l] < 0);
      (*voff)[k] = value;
      value += (int64_t)g->out_size;
      entry += (int64_t)g->n * g->n;
      grp->ncell++;
    }
  }
  op->nvalue = value;
  *nentry = entry;
  return 0;
}

/* The first pattern's CSR columns on their way from the device to main memory, on a thread of
 * their own while the caller's thread goes on with the integration (coo_columns_join waits). */
struct coo_columns_job {
  pthread_t th;
  femint_context_t ctx;
  int dev, err;
  unsigned node;
  starpu_data_handle_t h_colind, sub;
  int64_t *colind, used, nentry;
  char msg[256]; /* the thread's message of err */
};

static void *coo_columns_run(void *arg)
{
  struct coo_columns_job *j = arg;
  j->err = download_bounced(j->ctx, j->dev, j->node, j->sub, j->colind,
                            (size_t)j->used * sizeof *j->colind, "COO assembly");
  if (j->err) snprintf(j->msg, sizeof j->msg, "%s", femint_thread_error());
  huge_trim(j->colind, (size_t)j->used * sizeof *j->colind,
            ((size_t)j->nentry + 1) * sizeof *j->colind);
  return NULL;
}

/* The columns in main memory: the handle given back and the job freed; its error, if any,
 * becomes the context's. */
static int coo_columns_finish(struct coo_columns_job *j)
{
  femint_trace("COO pattern: %lld columns in main memory", (long long)j->used - 1);
  /* gathered where the whole buffer is valid: nothing moves */
  starpu_data_unpartition(j->h_colind, j->node);
  starpu_data_unregister_no_coherency(j->h_colind);
  const int err = j->err ? femint_seterr(j->ctx, j->err, "%s", j->msg) : 0;
  free(j);
  return err;
}

int coo_columns_join(struct femint_operator *op)
{
  struct coo_columns_job *j = op->columns;
  if (!j) return 0;
  op->columns = NULL;
  pthread_join(j->th, NULL);
  return coo_columns_finish(j);
}

/* The blocks of rows whose values are summed by a task each (sum_blocks.c). */
static int coo_sum_blocks(struct femint_operator *op)
{
  const struct plan *p = op->plan;
  int *first = malloc(((size_t)p->nbatch + 1) * sizeof *first);
  int *ncell = malloc(((size_t)p->nbatch + 1) * sizeof *ncell);
  int64_t *voff = malloc(((size_t)p->nbatch + 1) * sizeof *voff);
  int err = first && ncell && voff ? 0 : FEMINT_ENOMEM;
  for (int j = 0, k = 0; j < p->nbatch && !err; k += p->batches[j++].ncell) {
    first[j] = k;
    ncell[j] = p->batches[j].ncell;
    voff[j] = p->batches[j].voff;
  }
  if (!err)
    err = sum_blocks_make(op->space, p->cells, p->nbatch, first, ncell, voff, op->shape->rowptr,
                          sum_block_count(op->nnz, p->nbatch), &op->sums);
  free(first);
  free(ncell);
  free(voff);
  return err;
}

/* The pattern (first call): one task on the gathering node, then the CSR structure to the host:
 * the operator's shape, or for a part of a split assembly (cols set) its row pointers alone, its
 * columns going where cols places them (in the whole's). */
int coo_pattern_make(struct femint_operator *op, struct femint_stats *st, struct coo_columns *cols,
                     void (*busy)(void *), void *busy_arg)
{
  femint_context_t ctx = op->ctx;
  const struct plan *p = op->plan;
  const int64_t n = op->space->nmode * op->space->ncomp;
  int64_t *cdof = NULL, *voff = NULL, nentry = 0, ncode = 0;
  struct pattern_group *pg = NULL;
  int64_t *rowptr = malloc(((size_t)n + 1) * sizeof *rowptr), *colind = NULL;
  int err = rowptr ? coo_layout(op, &cdof, &ncode, &voff, &pg, &nentry) : FEMINT_ENOMEM;
  /* the columns come back into their final place: a buffer of every entry (the sort's), of which
   * the first nnz are touched (the rest, in huge pages, never takes memory) */
  if (err)
    err = femint_seterr(ctx, err, "COO assembly: out of memory for the layout of %d cells",
                        p->ncell);
  else if (nentry >= UINT32_MAX)
    err = femint_seterr(ctx, FEMINT_EINVAL,
                        "COO assembly: %lld entries of element matrices (at most 2^32 - 1 in one "
                        "assembly)",
                        (long long)nentry);
  else if (!cols && !(colind = huge_alloc(((size_t)nentry + 1) * sizeof *colind)))
    err = femint_seterr(ctx, FEMINT_ENOMEM, "COO pattern: out of memory for %lld columns",
                        (long long)nentry);
  if (err) {
    free(rowptr);
    free(cdof);
    free(voff);
    free(pg);
    return err;
  }
  starpu_data_handle_t h_dof, h_rowptr, h_colind;
  starpu_vector_data_register(&h_dof, STARPU_MAIN_RAM, (uintptr_t)cdof, (uint32_t)(ncode + 1),
                              sizeof(int64_t));
  starpu_vector_data_register(&op->h_perm, -1, 0, (uint32_t)(nentry + 1), sizeof(int64_t));
  starpu_vector_data_register(&op->h_seg, -1, 0, (uint32_t)(nentry + 1), sizeof(int64_t));
  starpu_vector_data_register(&h_rowptr, STARPU_MAIN_RAM, (uintptr_t)rowptr, (uint32_t)(n + 1),
                              sizeof(int64_t));
  /* a part's columns stay on its device until their place in the whole's is known */
  starpu_vector_data_register(&h_colind, cols ? -1 : STARPU_MAIN_RAM, (uintptr_t)colind,
                              (uint32_t)(nentry + 1), sizeof(int64_t));
  struct pattern_arg arg = {.ctx = ctx,
                            .space = op->space,
                            .ncell = p->ncell,
                            .cells = p->cells,
                            .voff = voff,
                            .symmetric = p->opt.symmetric,
                            .ngroup = p->ngroup,
                            .groups = pg,
                            .nentry = nentry,
                            .mlo = op->mlo,
                            .mhi = op->mhi,
                            .coo_cl = op->coo_cl};
  struct starpu_task *t = starpu_task_create();
  t->cl = &femint_cl_pattern;
  t->where = op->coo_worker >= 0 ? STARPU_OPENCL : STARPU_CPU;
  if (op->coo_worker >= 0) {
    t->execute_on_a_specific_worker = 1;
    t->workerid = (unsigned)op->coo_worker;
  }
  t->handles[0] = h_dof;
  t->handles[1] = op->h_perm;
  t->handles[2] = op->h_seg;
  t->handles[3] = h_rowptr;
  t->handles[4] = h_colind;
  t->cl_arg = &arg;
  const double t0 = femint_now();
  femint_trace("COO pattern: %lld entries, task submitted", (long long)nentry);
  struct starpu_task *slot = NULL;
  err = task_submit(ctx, t, &slot, "COO pattern");
  if (!err && busy) busy(busy_arg); /* the caller's work while the pattern is made */
  /* while a device sorts, the threads map the pages the columns will come back to, from the
   * first (only nnz of the nentry + 1 are used, nnz not yet known), until the task ends */
  if (!err && op->coo_dev >= 0 && !cols) {
    const int64_t chunk = (int64_t)1 << 20;
    for (int64_t k0 = 0; k0 <= nentry && !__atomic_load_n(&arg.done, __ATOMIC_ACQUIRE);
         k0 += chunk) {
      const int64_t k1 = k0 + chunk < nentry + 1 ? k0 + chunk : nentry + 1;
#pragma omp parallel for num_threads(femint_host_threads(ctx)) schedule(static)
      for (int64_t k = k0; k < k1; k++) colind[k] = 0;
    }
  }
  if (slot && starpu_task_wait(slot) && !err)
    err = femint_seterr(ctx, FEMINT_ERUNTIME, "COO pattern: the task failed");
  if (slot) starpu_task_destroy(slot);
  femint_trace("COO pattern: task done");
  if (!err && arg.status) err = femint_seterr(ctx, arg.status, "%s", arg.msg);
  int64_t *place = NULL;
  if (cols) { /* every part waits there for the others' counts */
    place = cols->place(cols, op, err ? -1 : arg.nnz);
    if (!place && !err) /* another part failed (its message is the context's) */
      err = femint_seterr(NULL, FEMINT_ENOMEM, "COO pattern: no place for the columns");
  }
  if (!err) {
    /* The row pointers first: the columns' transfer, once under way, would hold them up. */
    starpu_data_acquire(h_rowptr, STARPU_R);
    starpu_data_release(h_rowptr);
    femint_trace("COO pattern: row pointers in main memory");
    /* The first assembly's values, allocated before the columns' page faults begin (an allocation
     * waited for them: 4.7 ms for the 144 MB of the fresh prisms of box 16x16x8 on the H200). */
    if (!cols && op->coo_dev >= 0)
      op->first_values = calloc((size_t)p->nform, sizeof *op->first_values);
    for (int f = 0; op->first_values && f < p->nform; f++)
      op->first_values[f] = values_alloc(arg.nnz, 0);
    /* Only the columns come back: the buffer was sized for every entry. A whole's take one value
     * more; a part's go to their place in the whole's, known once the others have counted. */
    const int64_t used = cols ? arg.nnz : arg.nnz + 1;
    int64_t *dst = cols ? place : colind;
    if (used > 0) {
      uint32_t part[2] = {(uint32_t)used, (uint32_t)(nentry + 1 - used)};
      struct starpu_data_filter f = {.filter_func = starpu_vector_filter_list, .nchildren = 2,
                                     .filter_arg_ptr = part};
      starpu_data_partition(h_colind, &f);
      starpu_data_handle_t sub = starpu_data_get_sub_data(h_colind, 1, 0);
      /* a whole's columns from a device come back while the integration runs (here, when no
       * thread can be made) */
      struct coo_columns_job *j = op->coo_dev >= 0 && !cols ? malloc(sizeof *j) : NULL;
      if (j) {
        *j = (struct coo_columns_job){.ctx = ctx, .dev = op->coo_dev, .node = op->coo_node,
                                      .h_colind = h_colind, .sub = sub, .colind = colind,
                                      .used = used, .nentry = nentry};
        h_colind = NULL; /* the job's now */
        if (pthread_create(&j->th, NULL, coo_columns_run, j) == 0) {
          op->columns = j;
        } else {
          coo_columns_run(j);
          err = coo_columns_finish(j);
        }
      } else if (op->coo_dev >= 0) {
        err = download_bounced(ctx, op->coo_dev, op->coo_node, sub, dst,
                               (size_t)used * sizeof *dst, "COO assembly");
      } else {
        starpu_data_acquire(sub, STARPU_R); /* into colind */
        starpu_data_release(sub);
      }
      if (h_colind) {
        if (!cols)
          huge_trim(colind, (size_t)used * sizeof *colind, ((size_t)nentry + 1) * sizeof *colind);
        femint_trace("COO pattern: %lld columns in main memory", (long long)arg.nnz);
        /* gathered where the whole buffer is valid: nothing moves */
        starpu_data_unpartition(h_colind, op->coo_node);
      }
    }
  }
  starpu_data_unregister(h_dof);
  starpu_data_unregister(h_rowptr);
  if (h_colind) starpu_data_unregister_no_coherency(h_colind);
  free(cdof);
  free(voff);
  free(pg);
  femint_trace("COO pattern: handles unregistered");
  /* a part's shape holds its row pointers alone, for the whole's */
  if (!err && !(op->shape = csr_shape_new(n, arg.nnz, rowptr, colind))) {
    rowptr = colind = NULL; /* csr_shape_new freed them */
    err = femint_seterr(ctx, FEMINT_ENOMEM, "COO pattern: out of memory");
  }
  if (err) {
    coo_columns_join(op); /* before its buffer goes */
    if (!op->shape) {
      free(rowptr);
      free(colind);
    }
    operator_coo_release(op);
    return err;
  }
  op->ncontrib = arg.ncontrib;
  op->nnz = arg.nnz;
  if ((err = coo_sum_blocks(op))) {
    operator_coo_release(op);
    return femint_seterr(ctx, err, "COO pattern: out of memory for the blocks of the sums");
  }
  st->pattern_built = 1;
  st->t_pattern = femint_now() - t0;
  return 0;
}

void coo_first_values_free(struct femint_operator *op)
{
  for (int f = 0; op->first_values && f < op->plan->nform; f++) free(op->first_values[f]);
  free(op->first_values);
  op->first_values = NULL;
}

void operator_coo_release(struct femint_operator *op)
{
  coo_columns_join(op);
  coo_first_values_free(op);
  op->coo_calls = 0;
  if (op->h_perm) starpu_data_unregister_no_coherency(op->h_perm);
  if (op->h_seg) starpu_data_unregister_no_coherency(op->h_seg);
  op->h_perm = op->h_seg = NULL;
  sum_blocks_free(&op->sums);
  shape_dev_unref(&op->sdev);
  for (int d = 0; d < FEMINT_MAX_CL_DEVICES; d++)
    if (op->coo_cl[d]) {
      coo_cl_destroy(op->coo_cl[d]);
      free(op->coo_cl[d]);
      op->coo_cl[d] = NULL;
    }
}
