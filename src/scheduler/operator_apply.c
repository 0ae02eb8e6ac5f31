/* femint_operator_apply: y = A x without A (hexahedra, sum factorization). The first call of a
 * form computes the quadrature data of the operator's cells and keeps them, registered per
 * chunk of consecutive cells, with the cells' DOFs in tensor order, the 1D tables, the element
 * vectors, the transpose of the DOF map and the OpenCL programs; each call then stages x, submits
 * one apply task per chunk (CPU team or OpenCL device) and sums the element vectors into y in a
 * fixed order. */
#include <stdlib.h>
#include <string.h>

#include "codelets/kernels.h"
#include "host/refel_hex.h"
#include "operator.h"

/* Work-items per cell of the OpenCL kernel. */
#define APPLY_WG 128

struct op_apply {
  struct hex_tensor *tensor;
  int np, nc;
  double *ev;                      /* element vectors: [plan cell][ncomp][P^3] (pinned) */
  double *xs;                      /* x staged in pinned memory, registered once as h_x */
  starpu_data_handle_t h_x;
  int64_t *dofs;                   /* [plan cell][P^3] the scalar mode of each node, tensor order */
  double *tab;                     /* B[Q][P] then D[Q][P] */
  /* the tasks' chunks of consecutive plan cells (coarser than the plan's batches, which are cut
   * for element matrices): chunk i has ncell[i] cells from plan cell first[i] */
  int nchunk;
  int *first, *ncell;
  starpu_data_handle_t h_tab, *h_dofs; /* [nchunk] */
  int programs_built[2];           /* by kind: the OpenCL programs were tried */
  struct cl_program_entry *prog[2][FEMINT_MAX_CL_DEVICES];
  int64_t *occ_ptr, *occ;          /* for each scalar mode, its places in ev (component 0) */
  double **qd;                     /* [nform] quadrature data of the plan's cells, or NULL */
  starpu_data_handle_t *h_qd, *h_ev; /* [nform * nchunk], [nchunk] */
  struct apply_arg *args;          /* [nchunk] */
};

void operator_apply_release(struct femint_operator *op)
{
  struct op_apply *a = op->apply;
  if (!a) return;
  const int nb = a->nchunk;
  for (int i = 0; a->h_qd && i < op->nform * nb; i++)
    if (a->h_qd[i]) starpu_data_unregister(a->h_qd[i]);
  for (int i = 0; a->h_ev && i < nb; i++)
    if (a->h_ev[i]) starpu_data_unregister(a->h_ev[i]);
  for (int i = 0; a->h_dofs && i < nb; i++)
    if (a->h_dofs[i]) starpu_data_unregister(a->h_dofs[i]);
  if (a->h_tab) starpu_data_unregister(a->h_tab);
  free(a->h_dofs);
  free(a->first);
  free(a->ncell);
  free(a->dofs);
  free(a->tab);
  for (int f = 0; a->qd && f < op->nform; f++) free(a->qd[f]);
  hex_tensor_destroy(&a->tensor);
  free(a->qd);
  free(a->h_qd);
  free(a->h_ev);
  if (a->h_x) starpu_data_unregister(a->h_x);
  femint_host_free(op->ctx, a->ev);
  femint_host_free(op->ctx, a->xs);
  free(a->occ_ptr);
  free(a->occ);
  free(a->args);
  free(a);
  op->apply = NULL;
}

/* The tables, the element vectors and the transpose of the DOF map over the plan's cells. */
static int apply_setup(struct femint_operator *op)
{
  const struct plan *p = op->plan;
  const struct femint_space *s = op->space;
  femint_context_t ctx = op->ctx;
  struct op_apply *a = calloc(1, sizeof *a);
  FEMINT_CHECK(a, ctx, FEMINT_ENOMEM, "femint_operator_apply: out of memory");
  op->apply = a;
  const int order = s->order[0], lobatto = p->opt.apply_rule == 1;
  int err = hex_tensor_create(order, lobatto ? order + 1 : order + 2, lobatto, &a->tensor);
  if (err) return femint_seterr(ctx, err, "femint_operator_apply: %s", femint_thread_error());
  a->np = a->tensor->P * a->tensor->P * a->tensor->P;
  a->nc = s->ncomp;
  const int np = a->np;
  /* about four chunks per worker, none over 64 MiB of quadrature data */
  const size_t per = (size_t)a->tensor->Q * a->tensor->Q * a->tensor->Q * 6 * sizeof(double);
  const int nw = ctx->nworker > 0 ? ctx->nworker : 1;
  int size = (p->ncell + 4 * nw - 1) / (4 * nw);
  if ((size_t)size * per > ((size_t)64 << 20)) size = (int)(((size_t)64 << 20) / per);
  if (size < 1) size = 1;
  const int nb = a->nchunk = p->ncell ? (p->ncell + size - 1) / size : 0;
  a->first = malloc(((size_t)nb + 1) * sizeof *a->first);
  a->ncell = malloc(((size_t)nb + 1) * sizeof *a->ncell);
  FEMINT_CHECK(a->first && a->ncell, ctx, FEMINT_ENOMEM, "femint_operator_apply: out of memory");
  for (int i = 0; i < nb; i++) {
    a->first[i] = i * size;
    a->ncell[i] = i == nb - 1 ? p->ncell - i * size : size;
  }
  a->qd = calloc((size_t)op->nform, sizeof *a->qd);
  a->h_qd = calloc((size_t)op->nform * nb + 1, sizeof *a->h_qd);
  a->h_ev = calloc((size_t)nb + 1, sizeof *a->h_ev);
  a->args = calloc((size_t)nb + 1, sizeof *a->args);
  /* the element vectors and the staged x in pinned memory (where there is a GPU), so that they
   * cross the bus at its full rate */
  const int64_t ndof = s->nmode * a->nc;
  if (femint_host_alloc(ctx, ((size_t)p->ncell * a->nc * np + 1) * sizeof *a->ev, (void **)&a->ev))
    a->ev = NULL;
  if (femint_host_alloc(ctx, ((size_t)ndof + 1) * sizeof *a->xs, (void **)&a->xs)) a->xs = NULL;
  a->occ_ptr = calloc((size_t)s->nmode + 1, sizeof *a->occ_ptr);
  a->occ = malloc(((size_t)p->ncell * np + 1) * sizeof *a->occ);
  a->dofs = malloc(((size_t)p->ncell * np + 1) * sizeof *a->dofs);
  a->h_dofs = calloc((size_t)nb + 1, sizeof *a->h_dofs);
  a->tab = malloc(2 * (size_t)a->tensor->Q * a->tensor->P * sizeof *a->tab);
  FEMINT_CHECK(a->qd && a->h_qd && a->h_ev && a->args && a->ev && a->xs && a->occ_ptr && a->occ &&
                   a->dofs && a->h_dofs && a->tab,
               ctx,
               FEMINT_ENOMEM, "femint_operator_apply: out of memory for %d cells", p->ncell);
  /* the places of each mode in ev, cell after cell in plan order (so that the sums are in a
   * fixed order) */
  for (int k = 0; k < p->ncell; k++) {
    const int64_t *gm = &s->cell_mode[s->cell_off[p->cells[k]]];
    for (int n = 0; n < np; n++) {
      const int64_t g = a->dofs[(size_t)k * np + n] = gm[a->tensor->t2f[n]];
      if (g >= 0) a->occ_ptr[g + 1]++;
    }
  }
  for (int64_t g = 0; g < s->nmode; g++) a->occ_ptr[g + 1] += a->occ_ptr[g];
  int64_t *fill = malloc(((size_t)s->nmode + 1) * sizeof *fill);
  FEMINT_CHECK(fill, ctx, FEMINT_ENOMEM, "femint_operator_apply: out of memory");
  memcpy(fill, a->occ_ptr, (size_t)s->nmode * sizeof *fill);
  for (int k = 0; k < p->ncell; k++)
    for (int n = 0; n < np; n++) {
      const int64_t g = a->dofs[(size_t)k * np + n];
      if (g >= 0) a->occ[fill[g]++] = (int64_t)k * a->nc * np + n;
    }
  free(fill);
  for (int i = 0; i < nb; i++) {
    starpu_vector_data_register(&a->h_ev[i], STARPU_MAIN_RAM,
                                (uintptr_t)(a->ev + (size_t)a->first[i] * a->nc * np),
                                (uint32_t)((size_t)a->ncell[i] * a->nc * np), sizeof(double));
    starpu_vector_data_register(&a->h_dofs[i], STARPU_MAIN_RAM,
                                (uintptr_t)(a->dofs + (size_t)a->first[i] * np),
                                (uint32_t)((size_t)a->ncell[i] * np), sizeof(int64_t));
  }
  starpu_vector_data_register(&a->h_x, STARPU_MAIN_RAM, (uintptr_t)a->xs,
                              (uint32_t)(ndof ? ndof : 1), sizeof(double));
  const size_t qp = (size_t)a->tensor->Q * a->tensor->P;
  memcpy(a->tab, a->tensor->B, qp * sizeof *a->tab);
  memcpy(a->tab + qp, a->tensor->D, qp * sizeof *a->tab);
  starpu_vector_data_register(&a->h_tab, STARPU_MAIN_RAM, (uintptr_t)a->tab, (uint32_t)(2 * qp),
                              sizeof(double));
  return 0;
}

/* The quadrature data of form f on every cell of the plan, registered per chunk. */
static int apply_form_data(struct femint_operator *op, int f, int kind)
{
  struct op_apply *a = op->apply;
  const struct plan *p = op->plan;
  const struct femint_mesh *m = op->space->mesh;
  const size_t per = (size_t)a->tensor->Q * a->tensor->Q * a->tensor->Q * hex_qdata_size(kind);
  a->qd[f] = malloc(((size_t)p->ncell * per + 1) * sizeof *a->qd[f]);
  FEMINT_CHECK(a->qd[f], op->ctx, FEMINT_ENOMEM, "femint_operator_apply: out of memory");
  int bad = -1;
#pragma omp parallel for schedule(static)
  for (int k = 0; k < p->ncell; k++) {
    double X[3 * MESH_MAX_NODES];
    const int c = p->cells[k];
    mesh_cell_nodes(m, c, X);
    if (hex_qdata(a->tensor, kind, X, form_coef(op->forms[f], c)[0], a->qd[f] + k * per))
#pragma omp critical
      bad = c;
  }
  if (bad >= 0) {
    free(a->qd[f]);
    a->qd[f] = NULL;
    return femint_seterr(op->ctx, FEMINT_EJACOBIAN,
                         "femint_operator_apply: cell %d has a non-positive Jacobian at a "
                         "quadrature point",
                         bad);
  }
  for (int i = 0; i < a->nchunk; i++)
    starpu_vector_data_register(&a->h_qd[f * a->nchunk + i], STARPU_MAIN_RAM,
                                (uintptr_t)(a->qd[f] + (size_t)a->first[i] * per),
                                (uint32_t)((size_t)a->ncell[i] * per), sizeof(double));
  return 0;
}

/* The local memory the OpenCL kernel of a kind takes (kernels/hex_apply.cl). */
static size_t kernel_local_bytes(const struct hex_tensor *t, int kind)
{
  const size_t P = (size_t)t->P, Q = (size_t)t->Q, m = P > Q ? P : Q;
  return 8 * (2 * P * P * P + 2 * m * m * m + (kind == HEX_APPLY_MASS ? 1 : 3) * Q * Q * Q);
}

/* The OpenCL programs of a kind on every driven device with fp64 and enough local memory; the
 * devices without one leave the tasks to the CPU workers. */
static int apply_programs(struct femint_operator *op, int kind)
{
  struct op_apply *a = op->apply;
  femint_context_t ctx = op->ctx;
  a->programs_built[kind] = 1;
  if (op->plan->opt.where == FEMINT_WHERE_CPU) return 0;
  char *source = femint_kernel_text("hex_apply.cl");
  FEMINT_CHECK(source, ctx, FEMINT_ENOMEM, "the OpenCL source of the apply kernel is missing");
  const size_t bytes = kernel_local_bytes(a->tensor, kind);
  int err = 0;
  for (int dev = 0; dev < ctx->ncl_dev && !err; dev++) {
    const struct femint_cl_device *d = &ctx->cl_dev[dev];
    if (!ctx->cl_driven[dev] || !d->fp64 || bytes + 1024 > d->local_mem || d->max_wg < APPLY_WG)
      continue;
    char options[160];
    snprintf(options, sizeof options, "-DP=%d -DQ=%d -DNC=%d -DKIND=%d -DWG_SIZE=%d -DFEMINT_FP64",
             a->tensor->P, a->tensor->Q, a->nc, kind, APPLY_WG);
    err = femint_context_program(ctx, dev, source, options, "hex_apply", &a->prog[kind][dev]);
  }
  free(source);
  return err;
}

/* Where the apply tasks of a kind may run: CPU workers, and the devices with a program. */
static uint32_t apply_where(const struct femint_operator *op, int kind)
{
  const struct op_apply *a = op->apply;
  uint32_t where = op->plan->opt.where == FEMINT_WHERE_OPENCL ? 0 : STARPU_CPU;
  for (int dev = 0; dev < op->ctx->ncl_dev; dev++)
    if (a->prog[kind][dev]) where |= STARPU_OPENCL;
  return where;
}

/* What the matrix-free path takes: hexahedra, a mass or Laplace form, double precision. */
static int apply_check(const struct femint_operator *op, int form, const double *x,
                       const double *y, int *kind)
{
  static const char who[] = "femint_operator_apply";
  femint_context_t ctx = op->ctx;
  FEMINT_CHECK(form >= 0 && form < op->nform, ctx, FEMINT_EINVAL,
               "%s: form %d of an operator of %d form%s", who, form, op->nform,
               op->nform == 1 ? "" : "s");
  FEMINT_CHECK(x && y, ctx, FEMINT_EINVAL, "%s: x or y is NULL", who);
  FEMINT_CHECK(x != y, ctx, FEMINT_EINVAL, "%s: x and y are the same array", who);
  FEMINT_CHECK(op->space->mesh->topo->shape == FEMINT_HEX, ctx, FEMINT_ENOTSUP,
               "%s: matrix-free application is for hexahedra; the mesh holds %s (assemble with "
               "femint_operator_assemble)",
               who, op->space->mesh->topo->plural);
  const int k = op->forms[form]->kind;
  FEMINT_CHECK(k == FORM_MASS || k == FORM_LAPLACE, ctx, FEMINT_ENOTSUP,
               "%s: the %s form has no matrix-free kernel (mass and laplace have)", who,
               form_kind_name(k));
  FEMINT_CHECK(op->plan->opt.precision == FEMINT_DOUBLE, ctx, FEMINT_ENOTSUP,
               "%s: matrix-free application runs in double precision", who);
  FEMINT_CHECK(op->ctx->ncpu > 0, ctx, FEMINT_ENODEV, "%s: no CPU worker (its tasks run there)",
               who);
  *kind = k == FORM_MASS ? HEX_APPLY_MASS : HEX_APPLY_LAPLACE;
  return 0;
}

int operator_apply(struct femint_operator *op, int form, const double *x, double *y,
                   struct femint_stats *st)
{
  int kind = HEX_APPLY_MASS;
  FEMINT_CALL(apply_check(op, form, x, y, &kind));
  femint_context_t ctx = op->ctx;
  const double t0 = femint_now();
  if (!op->apply) {
    const int err = apply_setup(op);
    if (err) {
      operator_apply_release(op);
      return err;
    }
  }
  struct op_apply *a = op->apply;
  if (!a->qd[form]) FEMINT_CALL(apply_form_data(op, form, kind));
  if (!a->programs_built[kind]) FEMINT_CALL(apply_programs(op, kind));
  const uint32_t where = apply_where(op, kind);
  FEMINT_CHECK(where, ctx, FEMINT_ENOTSUP,
               "femint_operator_apply: OpenCL only, but no device can run the kernel of order %d "
               "(it needs double precision and %zu bytes of local memory)",
               a->tensor->p, kernel_local_bytes(a->tensor, kind));
  const int64_t ndof = op->space->nmode * a->nc;
  /* x into the staging buffer (its copies on devices become stale with the write) */
  if (starpu_data_acquire(a->h_x, STARPU_W))
    return femint_seterr(ctx, FEMINT_ERUNTIME, "femint_operator_apply: cannot stage x");
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < ndof; i++) a->xs[i] = x[i];
  starpu_data_release(a->h_x);
  const int nb = a->nchunk;
  struct starpu_task **tasks = calloc((size_t)nb + 1, sizeof *tasks);
  int err = tasks ? 0 : femint_seterr(ctx, FEMINT_ENOMEM, "femint_operator_apply: out of memory");
  for (int i = 0; i < nb && !err; i++) {
    a->args[i] = (struct apply_arg){ctx, a->tensor, kind, a->nc, a->ncell[i], a->prog[kind],
                                    APPLY_WG, 0, ""};
    struct starpu_task *t = starpu_task_create();
    t->cl = &femint_cl_apply;
    t->cl_arg = &a->args[i];
    t->where = where;
    t->handles[0] = a->h_x;
    t->handles[1] = a->h_dofs[i];
    t->handles[2] = a->h_qd[form * nb + i];
    t->handles[3] = a->h_tab;
    t->handles[4] = a->h_ev[i];
    t->detach = 0;
    err = task_submit(ctx, t, &tasks[i], "femint_operator_apply");
  }
  for (int i = 0; i < nb; i++) {
    if (!tasks[i]) continue;
    if (starpu_task_wait(tasks[i]) && !err)
      err = femint_seterr(ctx, FEMINT_ERUNTIME, "femint_operator_apply: a task failed");
    if (st) stats_task(st, tasks[i], 1);
    starpu_task_destroy(tasks[i]);
    if (!err && a->args[i].status)
      err = femint_seterr(ctx, a->args[i].status, "femint_operator_apply: %s", a->args[i].msg);
  }
  free(tasks);
  /* the element vectors of the chunks that ran on a device come back to main memory */
  for (int i = 0; i < nb && !err; i++)
    if (starpu_data_acquire(a->h_ev[i], STARPU_R) == 0) starpu_data_release(a->h_ev[i]);
    else err = femint_seterr(ctx, FEMINT_ERUNTIME, "femint_operator_apply: cannot read back chunk %d", i);
  if (err) return err;
  /* y: each DOF the sum of its places in the element vectors, in plan order */
  const int nc = a->nc, np = a->np;
#pragma omp parallel for schedule(static)
  for (int64_t g = 0; g < op->space->nmode; g++)
    for (int c = 0; c < nc; c++) {
      double sum = 0;
      for (int64_t o = a->occ_ptr[g]; o < a->occ_ptr[g + 1]; o++) sum += a->ev[a->occ[o] + (int64_t)c * np];
      y[g * nc + c] = sum;
    }
  if (st) st->t_total = femint_now() - t0;
  return 0;
}
