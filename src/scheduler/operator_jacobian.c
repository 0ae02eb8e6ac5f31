/* femint_operator_jacobian: the Jacobian of a pointwise form's residual at u, assembled. Its
 * first call builds the CSR structure of the operator's cells and the permutation that sums the
 * element matrices' entries (host/pattern.c), and chooses where the element matrices are
 * gathered: on the device that is the home of the residual's vectors (the sum there, and only the
 * CSR values come back), else in main memory (the sum by a CPU worker's team). Each call submits a
 * Jacobian task per chunk of the residual (codelets/residual.c: the caller's g0..g3 on a CPU team
 * or in the OpenCL kernel jacobian of the form's program), each into its part of the element
 * matrices, then the sum into the CSR values in plan order: the same matrix whatever the
 * workers. */
#include <stdlib.h>
#include <string.h>

#include "residual.h"

static const char who[] = "femint_operator_jacobian";

void operator_jacobian_release(struct femint_operator *op)
{
  struct op_jacobian *j = op->residual ? op->residual->jac : NULL;
  if (!j) return;
  if (j->h_mats) starpu_data_unregister_no_coherency(j->h_mats);
  femint_node_free(j->node, j->mats, j->bytes, j->mats_plain);
  if (j->h_perm) starpu_data_unregister_no_coherency(j->h_perm);
  if (j->h_seg) starpu_data_unregister_no_coherency(j->h_seg);
  pattern_free(&j->pat);
  csr_shape_unref(&j->shape);
  sum_blocks_free(&j->sums);
  free(j->len);
  free(j);
  op->residual->jac = NULL;
}

/* The pattern, the node of the element matrices and their memory (first call). */
static int jacobian_setup(struct femint_operator *op)
{
  femint_context_t ctx = op->ctx;
  struct op_residual *r = op->residual;
  const struct plan *p = op->plan;
  const struct ev_sum *e = r->es;
  struct op_jacobian *j = r->jac = calloc(1, sizeof *r->jac);
  FEMINT_CHECK(j, ctx, FEMINT_ENOMEM, "%s: out of memory", who);
  j->worker = -1;
  j->node = STARPU_MAIN_RAM;
  const int64_t n = (int64_t)r->re->nsh * op->space->ncomp, nvalue = (int64_t)p->ncell * n * n;
  FEMINT_CHECK(nvalue < (int64_t)UINT32_MAX, ctx, FEMINT_ENOTSUP,
               "%s: %lld element matrix values (%d cells of %lld rows) are more than one StarPU "
               "vector holds (2^32); split the cells over several operators",
               who, (long long)nvalue, p->ncell, (long long)n);
  j->len = malloc(((size_t)e->nchunk + 1) * sizeof *j->len);
  FEMINT_CHECK(j->len, ctx, FEMINT_ENOMEM, "%s: out of memory", who);
  int64_t *voff = malloc(((size_t)p->ncell + 1) * sizeof *voff);
  FEMINT_CHECK(voff, ctx, FEMINT_ENOMEM, "%s: out of memory", who);
  for (int k = 0; k <= p->ncell; k++) voff[k] = (int64_t)k * n * n;
  const int err = pattern_build(ctx, op->space, p->ncell, p->cells, 0, voff, &j->pat);
  free(voff);
  if (err) return femint_seterr(ctx, err, "%s: out of memory for the pattern", who);
  j->shape = csr_shape_new(j->pat.n, j->pat.nnz, j->pat.rowptr, j->pat.colind);
  j->pat.rowptr = j->pat.colind = NULL; /* the shape's now */
  FEMINT_CHECK(j->shape, ctx, FEMINT_ENOMEM, "%s: out of memory", who);
  starpu_vector_data_register(&j->h_perm, STARPU_MAIN_RAM, (uintptr_t)j->pat.perm,
                              (uint32_t)(j->pat.ncontrib + 1), sizeof(int64_t));
  starpu_vector_data_register(&j->h_seg, STARPU_MAIN_RAM, (uintptr_t)j->pat.seg,
                              (uint32_t)(j->pat.nnz + 1), sizeof(int64_t));
  /* on the vectors' home device when it sums in double, else in main memory */
  const int dev = r->home >= 0 ? starpu_worker_get_devid(r->home) : -1;
  if (dev >= 0 && ctx->cl_dev[dev].fp64) {
    /* a sum that does not build there leaves it to a CPU worker (unless OpenCL alone) */
    const int err = coo_sum_program(ctx, dev, r->single ? FEMINT_SINGLE : FEMINT_DOUBLE,
                                    &j->sum_prog[dev]);
    FEMINT_CALL(operator_build_failed(op, err, "the Jacobian's sum"));
    if (!err) {
      j->worker = r->home;
      j->node = starpu_worker_get_memory_node((unsigned)r->home);
    }
  }
  FEMINT_CHECK(j->worker >= 0 || ctx->ncpu > 0, ctx, FEMINT_ENODEV,
               "%s: no worker can sum the element matrices (no CPU worker, no OpenCL device "
               "with double precision)",
               who);
  j->bytes = (size_t)nvalue * r->rs + 64;
  j->mats = femint_node_alloc(j->node, j->bytes, &j->mats_plain);
  FEMINT_CHECK(j->mats, ctx, FEMINT_ENOMEM,
               "%s: out of memory for %lld element matrix values on node %u", who,
               (long long)nvalue, j->node);
  if (nvalue > 0) /* (an operator of no cells has none) */
    starpu_vector_data_register(&j->h_mats, (int)j->node, j->mats, (uint32_t)nvalue, r->rs);
  for (int i = 0; i < e->nchunk; i++) j->len[i] = (uint32_t)((int64_t)e->ncell[i] * n * n);
  /* the blocks of the sums */
  int64_t *cvoff = malloc(((size_t)e->nchunk + 1) * sizeof *cvoff);
  FEMINT_CHECK(cvoff, ctx, FEMINT_ENOMEM, "%s: out of memory", who);
  for (int i = 0; i < e->nchunk; i++) cvoff[i] = (int64_t)e->first[i] * n * n;
  const int berr = sum_blocks_make(op->space, p->cells, e->nchunk, e->first, e->ncell, cvoff,
                                   j->shape->rowptr, sum_block_count(j->pat.nnz, e->nchunk),
                                   &j->sums);
  free(cvoff);
  FEMINT_CHECK(!berr, ctx, FEMINT_ENOMEM, "%s: out of memory for the blocks of the sum", who);
  j->sum = (struct sum_arg){.ctx = ctx, .nnz = j->pat.nnz,
                            .precision = r->single ? FEMINT_SINGLE : FEMINT_DOUBLE,
                            .out_double = 1, .program = j->sum_prog};
  return 0;
}

/* The element matrices of every chunk and their sum into a new matrix; waits for the tasks. */
static int jacobian_once(femint_operator_t op, int form, femint_vector_t u, femint_vector_t aux,
                         femint_matrix_t *J)
{
  femint_context_t ctx = op->ctx;
  FEMINT_CALL(residual_prepare(op, form, aux));
  struct op_residual *r = op->residual;
  struct residual_form *rf = &r->rf[form];
  const struct pointwise *pw = op->forms[form]->pw;
  /* in the source (the OpenCL kernel's) or compiled (the CPU's) */
  const int has_g = pw_defines_g(pw->source) || pw->g[0] || pw->g[1] || pw->g[2] || pw->g[3];
  FEMINT_CHECK(has_g, ctx, FEMINT_EINVAL,
               "%s: %s defines none of g0, g1, g2, g3 (the pointwise derivatives)", who,
               pw->name);
  uint32_t where;
  FEMINT_CALL(residual_where(op, form, 1, who, &where));
  if (!r->jac) {
    const int err = jacobian_setup(op);
    if (err) {
      operator_jacobian_release(op);
      return err;
    }
  }
  struct op_jacobian *j = r->jac;
  const struct ev_sum *e = r->es;
  if (e->nchunk == 0) return matrix_create(ctx, j->shape, 1, J); /* no cells: zeros */
  /* Summed on a device, the values come back as the COO assembly's do (operator_coo.c): through
   * a pinned bounce buffer for the first two, then into pinned memory lent by the context (a
   * Newton solve assembles again and again). */
  const int lend = j->worker >= 0 && j->calls >= 2, bounced = j->worker >= 0 && !lend;
  FEMINT_CALL(lend ? femint_host_matrix(ctx, j->shape, J) : matrix_create(ctx, j->shape, 0, J));
  femint_trace("Jacobian: matrix of %lld values (%s)", (long long)j->pat.nnz,
               lend ? "lent" : bounced ? "bounced" : "host");
  const int ntask = e->nchunk + j->sums.n;
  struct starpu_task **tasks = calloc((size_t)ntask + 1, sizeof *tasks);
  if (!tasks) {
    femint_matrix_destroy(J);
    return femint_seterr(ctx, FEMINT_ENOMEM, "%s: out of memory", who);
  }
  struct starpu_data_filter f = {.filter_func = starpu_vector_filter_list,
                                 .nchildren = (unsigned)e->nchunk, .filter_arg_ptr = j->len};
  starpu_data_partition(j->h_mats, &f);
  int err = 0;
  for (int i = 0; i < e->nchunk && !err; i++) {
    rf->args[i].status = 0;
    struct starpu_task *t = starpu_task_create();
    t->cl = &femint_cl_jacobian;
    t->cl_arg = &rf->args[i];
    t->where = where;
    worker_mask_set(t, &r->mask);
    residual_handles(op, form, u, aux, i, t->handles);
    t->handles[6] = starpu_data_get_sub_data(j->h_mats, 1, i);
    err = task_submit(ctx, t, &tasks[i], who);
  }
  femint_trace("Jacobian: %d tasks submitted", e->nchunk);
  /* the sums block by block as their chunks are done, each block's values from a device as soon
   * as it is summed */
  struct sum_call sc = {0};
  if (!err)
    err = sum_call_submit(ctx, &sc, &j->sums, &j->sum, j->h_perm, j->h_seg, j->h_mats, j->node,
                          (*J)->values, sizeof(double), j->worker, tasks + e->nchunk, who);
  if (!err && j->worker >= 0)
    err = sum_call_download(ctx, &sc, starpu_worker_get_devid(j->worker), j->node, &j->sums,
                            !bounced, who);
  for (int i = 0; i < ntask; i++) {
    if (!tasks[i]) continue;
    if (starpu_task_wait(tasks[i]) && !err)
      err = femint_seterr(ctx, FEMINT_ERUNTIME, "%s: a task failed", who);
    starpu_task_destroy(tasks[i]);
  }
  free(tasks);
  femint_trace("Jacobian: summed");
  if (starpu_data_get_nb_children(j->h_mats) > 0) starpu_data_unpartition(j->h_mats, j->node);
  for (int b = 0; b < sc.n && !err; b++)
    if (sc.arg[b].status) err = femint_seterr(ctx, sc.arg[b].status, "%s: %s", who, sc.arg[b].msg);
  sum_call_end(&sc, !err && j->worker < 0);
  femint_trace("Jacobian: values in main memory");
  for (int i = 0; i < e->nchunk && !err; i++)
    if (rf->args[i].status) err = femint_seterr(ctx, rf->args[i].status, "%s: %s", who, rf->args[i].msg);
  if (err) femint_matrix_destroy(J);
  else j->calls++;
  return err;
}

int femint_operator_jacobian(femint_operator_t op, int form, femint_vector_t u,
                             femint_vector_t aux, femint_matrix_t *J)
{
  FEMINT_CHECK(op, NULL, FEMINT_EINVAL, "%s: NULL operator", who);
  FEMINT_CHECK(J, op->ctx, FEMINT_EINVAL, "%s: J (output) is NULL", who);
  *J = NULL;
  FEMINT_CALL(residual_check(op, who, form, u, aux, NULL));
  operator_devices_refresh(op);
  const int err = jacobian_once(op, form, u, aux, J);
  return operator_retry(op, err, who) ? jacobian_once(op, form, u, aux, J) : err;
}
