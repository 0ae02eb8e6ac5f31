/* femint_operator_apply: y = A x without A (hexahedra, sum factorization). The first call of a
 * form computes the quadrature data of the operator's cells (or their geometry,
 * options.apply_geometry) and keeps them, registered per chunk of consecutive cells, with the
 * cells' DOFs in tensor order, the 1D tables, the element vectors, the transpose of the DOF map
 * per chunk and the OpenCL programs; each application
 * then submits one apply task per chunk (CPU team or OpenCL device) and one task that sums the
 * chunks' element vectors into y on the solve's home (the first device with the kernels, else
 * the CPU workers), where y stays: each DOF the sum of its places in plan order, one after the
 * other, whatever the chunks and workers. */
#include <stdlib.h>
#include <string.h>

#include "codelets/kernels.h"
#include "codelets/vector_ops.h"
#include "host/refel_hex.h"
#include "operator.h"

/* About how many work-items a work-group of the OpenCL kernel has (cells of M x M each). */
#define APPLY_WG 128

/* Arrays of reals (the quadrature data, the tables, the element vectors) hold floats or doubles
 * (options.precision): rs bytes each, read and written through real_at and real_put
 * (codelets/codelets.h). */
struct op_apply {
  struct hex_tensor *tensor;
  int np, nc, single;
  size_t rs;
  struct ev_sum *es;               /* the element vectors [plan cell][ncomp][P^3], the cells'
                                      DOFs in tensor order, the chunks and their transposes */
  struct femint_vector *vx, *vy;   /* x and y of femint_operator_apply (host arrays) */
  char *tab;                       /* B[Q][P], D[Q][P], the points xq[Q], the weights w[Q] */
  starpu_data_handle_t h_tab;
  /* by kind, and [1] for the kernel alone (element vectors in, femint_operator_apply_kernel):
   * whether the OpenCL programs were tried, the programs, their cells per work-group */
  int programs_built[2][HEX_APPLY_KINDS];
  struct cl_program_entry *prog[2][HEX_APPLY_KINDS][FEMINT_MAX_CL_DEVICES];
  int ne[HEX_APPLY_KINDS][FEMINT_MAX_CL_DEVICES];
  char *ev_in;                     /* the element vectors the kernel alone reads (pinned) */
  starpu_data_handle_t *h_ev_in;   /* [nchunk] */
  char **qd;                       /* [nform] quadrature data (or geometry) of the plan's cells
                                      made by the host, or NULL (made on the device, or not yet) */
  char *made;                      /* [nform] whether h_qd holds form f's data */
  starpu_data_handle_t *h_qd;      /* [nform * nchunk] */
  cl_kernel qk[HEX_APPLY_KINDS][FEMINT_MAX_CL_DEVICES]; /* hex_qdata of prog[0], or NULL */
  struct apply_arg *args;          /* [nchunk] */
  /* the home of the vectors: an OpenCL worker or -1 (the CPU workers), and the vector kernels
   * of each device */
  int home, home_chosen;
  struct worker_mask mask;         /* the workers of the apply tasks */
  struct vec_kernels *vk[FEMINT_MAX_CL_DEVICES];
};

void operator_apply_release(struct femint_operator *op)
{
  struct op_apply *a = op->apply;
  apply_split_release(op);
  if (!a) return;
  const int nb = a->es ? a->es->nchunk : 0;
  for (int i = 0; a->h_qd && i < op->nform * nb; i++)
    if (a->h_qd[i]) starpu_data_unregister(a->h_qd[i]);
  for (int i = 0; a->h_ev_in && i < nb; i++)
    if (a->h_ev_in[i]) starpu_data_unregister(a->h_ev_in[i]);
  free(a->h_ev_in);
  femint_host_free(op->ctx, a->ev_in);
  if (a->h_tab) starpu_data_unregister(a->h_tab);
  free(a->tab);
  for (int f = 0; a->qd && f < op->nform; f++) free(a->qd[f]);
  for (int k = 0; k < HEX_APPLY_KINDS; k++)
    for (int d = 0; d < FEMINT_MAX_CL_DEVICES; d++)
      if (a->qk[k][d]) clReleaseKernel(a->qk[k][d]);
  hex_tensor_destroy(&a->tensor);
  free(a->qd);
  free(a->made);
  free(a->h_qd);
  femint_vector_destroy(&a->vx);
  femint_vector_destroy(&a->vy);
  for (int d = 0; d < FEMINT_MAX_CL_DEVICES; d++) vec_kernels_destroy(&a->vk[d]);
  ev_sum_destroy(op->ctx, &a->es);
  free(a->args);
  free(a);
  op->apply = NULL;
}

/* Values per cell of the data the kernels read: the quadrature data at every point, or the
 * cell's geometry (options.apply_geometry). */
static size_t apply_per_cell(const struct femint_operator *op, int kind)
{
  const struct hex_tensor *t = op->apply->tensor;
  return op->plan->opt.apply_geometry ? HEX_GEO_SIZE
                                      : (size_t)t->Q * t->Q * t->Q * hex_qdata_size(kind);
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
  a->single = p->opt.precision == FEMINT_SINGLE;
  a->rs = a->single ? sizeof(float) : sizeof(double);
  /* a cell's bytes: its quadrature data (or geometry); the element vectors and DOFs count too */
  const size_t per_data =
      apply_per_cell(op, s->ncomp == 3 ? HEX_APPLY_ELASTICITY : HEX_APPLY_LAPLACE) * a->rs;
  const int only_cl = p->opt.where == FEMINT_WHERE_OPENCL || operator_gpu_alone(op);
  FEMINT_CALL(ev_sum_create(op, "femint_operator_apply", a->np, a->tensor->t2f, per_data, only_cl,
                            1, a->single, &a->es));
  const int nb = a->es->nchunk;
  a->qd = calloc((size_t)op->nform, sizeof *a->qd);
  a->made = calloc((size_t)op->nform, 1);
  a->h_qd = calloc((size_t)op->nform * nb + 1, sizeof *a->h_qd);
  a->args = calloc((size_t)nb + 1, sizeof *a->args);
  a->tab = malloc((2 * (size_t)a->tensor->Q * a->tensor->P + 2 * a->tensor->Q) * a->rs);
  FEMINT_CHECK(a->qd && a->made && a->h_qd && a->args && a->tab, ctx, FEMINT_ENOMEM,
               "femint_operator_apply: out of memory for %d cells", p->ncell);
  const size_t qp = (size_t)a->tensor->Q * a->tensor->P;
  const size_t Q = (size_t)a->tensor->Q;
  for (size_t i = 0; i < qp; i++) {
    real_put(a->tab, i, a->tensor->B[i], a->single);
    real_put(a->tab, qp + i, a->tensor->D[i], a->single);
  }
  for (size_t i = 0; i < Q; i++) {
    real_put(a->tab, 2 * qp + i, a->tensor->xq[i], a->single);
    real_put(a->tab, 2 * qp + Q + i, a->tensor->w[i], a->single);
  }
  starpu_vector_data_register(&a->h_tab, STARPU_MAIN_RAM, (uintptr_t)a->tab,
                              (uint32_t)(2 * qp + 2 * Q), a->rs);
  return 0;
}

/* The error of a cell with det J <= 0 at a quadrature point, wherever its data were made. */
static int jacobian_error(const struct femint_operator *op, int cell)
{
  return femint_seterr(op->ctx, FEMINT_EJACOBIAN,
                       "femint_operator_apply: cell %d has a non-positive Jacobian at a "
                       "quadrature point",
                       cell);
}

/* The quadrature data (or the geometry) of form f on every cell of the plan made by the host's
 * threads, registered per chunk in main memory; every point's Jacobian checked. */
static int form_data_host(struct femint_operator *op, int f, int kind)
{
  struct op_apply *a = op->apply;
  const struct plan *p = op->plan;
  const struct femint_mesh *m = op->space->mesh;
  const size_t per = apply_per_cell(op, kind);
  const size_t nqd = (size_t)a->tensor->Q * a->tensor->Q * a->tensor->Q * hex_qdata_size(kind);
  const int geo = p->opt.apply_geometry;
  FEMINT_CHECK(!geo || mesh_nnode(m) == HEX_NV, op->ctx, FEMINT_ENOTSUP,
               "femint_operator_apply: options.apply_geometry = 1 makes the quadrature data from "
               "the 8 vertices of trilinear cells; this mesh's cells are curved (use 0)");
  const double t0 = femint_now();
  a->qd[f] = malloc(((size_t)p->ncell * per + 1) * a->rs);
  FEMINT_CHECK(a->qd[f], op->ctx, FEMINT_ENOMEM, "femint_operator_apply: out of memory");
  int bad = -1, oom = 0;
  /* StarPU's idle workers, which poll for tasks, are paused meanwhile: they leave the cores to
   * this loop */
  femint_host_quiet(1);
#pragma omp parallel reduction(| : oom)
  {
    /* each cell's data made in double (d), then stored in the operator's precision */
    double *d = malloc((per + (geo ? nqd : 0)) * sizeof *d);
    oom = !d;
#pragma omp for schedule(static)
    for (int k = 0; k < p->ncell; k++) {
      if (!d) continue;
      double X[3 * MESH_MAX_NODES];
      const int c = p->cells[k];
      const int nnode = mesh_cell_nodes(m, c, X);
      int err = 0;
      if (geo) {
        hex_geo(X, form_coef(op->forms[f], c), hex_ncoef(kind), d);
        err = hex_qdata_geo(a->tensor, kind, d, d + per);
      } else {
        err = hex_qdata(a->tensor, kind, nnode, X, form_coef(op->forms[f], c), d);
      }
      for (size_t i = 0; i < per; i++) real_put(a->qd[f], (size_t)k * per + i, d[i], a->single);
      if (err)
#pragma omp critical
        bad = c;
    }
    free(d);
  }
  femint_host_quiet(0);
  if (oom) {
    free(a->qd[f]);
    a->qd[f] = NULL;
    return femint_seterr(op->ctx, FEMINT_ENOMEM, "femint_operator_apply: out of memory");
  }
  if (bad >= 0) {
    free(a->qd[f]);
    a->qd[f] = NULL;
    return jacobian_error(op, bad);
  }
  const struct ev_sum *e = a->es;
  for (int i = 0; i < e->nchunk; i++)
    starpu_vector_data_register(&a->h_qd[f * e->nchunk + i], STARPU_MAIN_RAM,
                                (uintptr_t)(a->qd[f] + (size_t)e->first[i] * per * a->rs),
                                (uint32_t)((size_t)e->ncell[i] * per), a->rs);
  a->made[f] = 1;
  femint_trace("femint_operator_apply: the %s of form %d on %d cells made by the host (%.3f s)",
               geo ? "geometry" : "quadrature data", f, p->ncell, femint_now() - t0);
  return 0;
}

static uint32_t apply_where(const struct femint_operator *op, int kind, int evec);

/* The handles of a form's data made on a device, and its device data, dropped. */
static void form_data_drop(struct op_apply *a, int f)
{
  for (int i = 0; i < a->es->nchunk; i++) {
    starpu_data_handle_t *h = &a->h_qd[f * a->es->nchunk + i];
    if (*h) starpu_data_unregister_no_coherency(*h);
    *h = NULL;
  }
}

/* Form f's quadrature data made by the OpenCL device that applies the form, from each cell's
 * geometry (26 values, hex_geo; curved cells 83, hex_geo_curved) and the rule
 * (kernels/hex_apply.cl, hex_qdata), and registered there alone: 26 or 83 values a cell cross
 * the bus instead of Q^3 x 1, 6 or 11. */
static int form_data_device(struct femint_operator *op, int f, int kind)
{
  struct op_apply *a = op->apply;
  const struct plan *p = op->plan;
  const struct femint_mesh *m = op->space->mesh;
  const struct ev_sum *e = a->es;
  const int nb = e->nchunk, Q = a->tensor->Q;
  const int curved = mesh_nnode(m) != HEX_NV;
  const size_t per = apply_per_cell(op, kind), G = curved ? HEX_GEO_CURVED_SIZE : HEX_GEO_SIZE;
  const double t0 = femint_now();
  double *geo = malloc(((size_t)p->ncell * G + 2 * (size_t)Q) * sizeof *geo);
  int *bad = calloc((size_t)nb + 1, sizeof *bad);
  struct qdata_arg *args = calloc((size_t)nb + 1, sizeof *args);
  starpu_data_handle_t *h = calloc(2 * (size_t)nb + 1, sizeof *h); /* geo, bad per chunk */
  struct starpu_task **tasks = calloc((size_t)nb + 1, sizeof *tasks);
  if (!geo || !bad || !args || !h || !tasks) {
    free(geo), free(bad), free(args), free(h), free(tasks);
    return femint_seterr(op->ctx, FEMINT_ENOMEM, "femint_operator_apply: out of memory");
  }
  double *rule = geo + (size_t)p->ncell * G;
  memcpy(rule, a->tensor->xq, (size_t)Q * sizeof *rule);
  memcpy(rule + Q, a->tensor->w, (size_t)Q * sizeof *rule);
  femint_host_quiet(1);
#pragma omp parallel for schedule(static)
  for (int k = 0; k < p->ncell; k++) {
    double X[3 * MESH_MAX_NODES];
    const int c = p->cells[k];
    const int nnode = mesh_cell_nodes(m, c, X);
    const double *coef = form_coef(op->forms[f], c);
    if (curved) hex_geo_curved(nnode, X, coef, hex_ncoef(kind), geo + (size_t)k * G);
    else hex_geo(X, coef, hex_ncoef(kind), geo + (size_t)k * G);
  }
  femint_host_quiet(0);
  starpu_data_handle_t h_rule;
  starpu_vector_data_register(&h_rule, STARPU_MAIN_RAM, (uintptr_t)rule, (uint32_t)(2 * Q),
                              sizeof *rule);
  const int dev = starpu_worker_get_devid(a->home);
  int err = 0;
  for (int i = 0; i < nb && !err; i++) {
    starpu_vector_data_register(&h[2 * i], STARPU_MAIN_RAM,
                                (uintptr_t)(geo + (size_t)e->first[i] * G),
                                (uint32_t)((size_t)e->ncell[i] * G), sizeof *geo);
    starpu_vector_data_register(&a->h_qd[f * nb + i], -1, 0,
                                (uint32_t)((size_t)e->ncell[i] * per), a->rs);
    starpu_vector_data_register(&h[2 * i + 1], STARPU_MAIN_RAM, (uintptr_t)&bad[i], 1,
                                sizeof *bad);
    args[i] = (struct qdata_arg){
        .ctx = op->ctx, .ncell = e->ncell[i], .nq3 = Q * Q * Q, .curved = curved};
    args[i].kernel[dev] = a->qk[kind][dev];
    struct starpu_task *t = starpu_task_create();
    t->cl = &femint_cl_qdata;
    t->cl_arg = &args[i];
    t->execute_on_a_specific_worker = 1;
    t->workerid = (unsigned)a->home;
    t->handles[0] = h_rule;
    t->handles[1] = h[2 * i];
    t->handles[2] = a->h_qd[f * nb + i];
    t->handles[3] = h[2 * i + 1];
    err = task_submit(op->ctx, t, &tasks[i], "femint_operator_apply");
  }
  for (int i = 0; i < nb; i++) {
    if (!tasks[i]) continue;
    if (starpu_task_wait(tasks[i]) && !err)
      err = femint_seterr(op->ctx, FEMINT_ERUNTIME, "femint_operator_apply: a task failed");
    starpu_task_destroy(tasks[i]);
  }
  for (int i = 0; i < nb && !err; i++)
    if (args[i].status)
      err = femint_seterr(op->ctx, args[i].status, "femint_operator_apply: %s", args[i].msg);
  int cell = -1;
  for (int i = 0; i < nb; i++) {
    if (!h[2 * i + 1]) continue;
    if (!err && cell < 0) { /* the flag back from the device */
      starpu_data_acquire(h[2 * i + 1], STARPU_R);
      if (bad[i] > 0) cell = p->cells[e->first[i] + bad[i] - 1];
      starpu_data_release(h[2 * i + 1]);
    }
    starpu_data_unregister_no_coherency(h[2 * i + 1]);
    starpu_data_unregister_no_coherency(h[2 * i]);
  }
  starpu_data_unregister_no_coherency(h_rule);
  free(geo), free(bad), free(args), free(h), free(tasks);
  if (!err && cell >= 0) err = jacobian_error(op, cell);
  if (err) {
    form_data_drop(a, f);
    return err;
  }
  a->made[f] = 1;
  femint_trace("femint_operator_apply: the quadrature data of form %d on %d %scells made on "
               "OpenCL device %d (%.3f s)",
               f, p->ncell, curved ? "curved " : "", dev, femint_now() - t0);
  return 0;
}

/* Form f's data: made by the device that applies the form where it can (stored data, every
 * apply task on OpenCL devices), else by the host; if the device fails, by the host (the
 * failure is the device's: the apply reports it). */
static int apply_form_data(struct femint_operator *op, int f, int kind)
{
  const struct op_apply *a = op->apply;
  const int dev = a->home >= 0 ? starpu_worker_get_devid(a->home) : -1;
  if (dev >= 0 && a->qk[kind][dev] && !op->plan->opt.apply_geometry &&
      apply_where(op, kind, 0) == STARPU_OPENCL) {
    const int err = form_data_device(op, f, kind);
    if (err != FEMINT_EOPENCL && err != FEMINT_ERUNTIME) return err;
  }
  return form_data_host(op, f, kind);
}

/* The local memory the OpenCL kernel of a kind takes for ne cells per work-group
 * (kernels/hex_apply.cl: SA_SIZE, SB_SIZE and the tables). */
static size_t kernel_local_bytes(const struct hex_tensor *t, int kind, int ne)
{
  const size_t P = (size_t)t->P, Q = (size_t)t->Q, QS = Q | 1, PS = P | 1;
  const size_t rule = 2 * Q + (size_t)ne * HEX_GEO_SIZE; /* points, weights, geometry */
  if (kind == HEX_APPLY_LAPLACE && t->lobatto) /* KIND 2: D, and u and two terms per cell */
    return 8 * (rule + P * PS + (size_t)ne * 3 * P * ((P * PS) | 1));
  const size_t nf = kind == HEX_APPLY_MASS ? 1 : 2, ng = kind == HEX_APPLY_MASS ? 1 : 3;
  /* elasticity (KIND 3) has the Laplacian's stages, one component after the other */
  const size_t f1 = P * ((P * QS) | 1), b1 = Q * ((P * PS) | 1);
  const size_t f2 = P * ((Q * QS) | 1), b2 = Q * ((Q * PS) | 1);
  return 8 * (rule + 2 * Q * PS + (size_t)ne * (nf * (f1 > b1 ? f1 : b1) + ng * (f2 > b2 ? f2 : b2)));
}

/* The OpenCL programs of a kind on every driven device with fp64 and enough local memory, that
 * gather x (evec 0) or read element vectors (evec 1: the kernel alone); the devices without one
 * leave the tasks to the CPU workers. */
static int apply_programs(struct femint_operator *op, int kind, int evec)
{
  struct op_apply *a = op->apply;
  femint_context_t ctx = op->ctx;
  a->programs_built[evec][kind] = 1;
  if (op->plan->opt.where == FEMINT_WHERE_CPU) return 0;
  char *source = femint_kernel_text("hex_apply.cl");
  FEMINT_CHECK(source, ctx, FEMINT_ENOMEM, "the OpenCL source of the apply kernel is missing");
  const int m = a->tensor->P > a->tensor->Q ? a->tensor->P : a->tensor->Q;
  int err = 0;
  for (int dev = 0; dev < ctx->ncl_dev && !err; dev++) {
    const struct femint_cl_device *d = &ctx->cl_dev[dev];
    /* as many cells per work-group as make about APPLY_WG work-items and fit */
    int ne = APPLY_WG / (m * m) > 1 ? APPLY_WG / (m * m) : 1;
    while (ne > 1 && (kernel_local_bytes(a->tensor, kind, ne) + 1024 > d->local_mem ||
                      (size_t)(m * m * ne) > d->max_wg))
      ne--;
    if (!ctx->cl_driven[dev] || !d->fp64 || (op->ghost && dev != op->coo_dev) ||
        kernel_local_bytes(a->tensor, kind, ne) + 1024 > d->local_mem || d->max_wg < (size_t)(m * m))
      continue;
    a->ne[kind][dev] = ne;
    char options[192];
    /* the Laplacian on the Gauss-Lobatto nodes: the collocated kernel (KIND 2); elasticity 3 */
    const int kernel_kind = kind == HEX_APPLY_ELASTICITY                ? 3
                            : kind == HEX_APPLY_LAPLACE && a->tensor->lobatto ? 2
                                                                              : kind;
    snprintf(options, sizeof options,
             "-DP=%d -DQ=%d -DNC=%d -DKIND=%d -DNE=%d -DGEO=%d -DEVEC=%d -DREAL=%s -DFEMINT_FP64",
             a->tensor->P, a->tensor->Q, a->nc, kernel_kind, ne, op->plan->opt.apply_geometry, evec,
             a->single ? "float" : "double");
    err = operator_build_failed(op,
                                femint_context_program(ctx, dev, source, options, "hex_apply",
                                                       &a->prog[evec][kind][dev]),
                                "the matrix-free apply kernel");
    /* the program's kernel that makes the quadrature data (none: the host makes them) */
    const struct cl_program_entry *pe = a->prog[evec][kind][dev];
    if (!err && !evec && pe && pe->kernel) {
      cl_int cerr;
      a->qk[kind][dev] = clCreateKernel(pe->program, "hex_qdata", &cerr);
      if (cerr != CL_SUCCESS) a->qk[kind][dev] = NULL;
    }
  }
  free(source);
  return err;
}

/* Where the apply tasks of a kind may run: CPU workers, and the devices with a program; with
 * every worker allowed, a GPU with a program alone (operator_gpu_alone). */
static uint32_t apply_where(const struct femint_operator *op, int kind, int evec)
{
  const struct op_apply *a = op->apply;
  uint32_t where = op->plan->opt.where == FEMINT_WHERE_OPENCL ? 0 : STARPU_CPU;
  int gpu = 0;
  for (int dev = 0; dev < op->ctx->ncl_dev; dev++)
    if (a->prog[evec][kind][dev]) {
      where |= STARPU_OPENCL;
      gpu |= !(op->ctx->cl_dev[dev].type & CL_DEVICE_TYPE_CPU);
    }
  return gpu && operator_gpu_alone(op) ? STARPU_OPENCL : where;
}

/* What the matrix-free path takes: hexahedra, a mass, Laplace or elasticity form (3
 * components). */
int apply_check(const struct femint_operator *op, int form, int *kind)
{
  static const char who[] = "femint_operator_apply";
  femint_context_t ctx = op->ctx;
  FEMINT_CALL(operator_check_state(op, who));
  FEMINT_CHECK(form >= 0 && form < op->nform, ctx, FEMINT_EINVAL,
               "%s: form %d of an operator of %d form%s", who, form, op->nform,
               op->nform == 1 ? "" : "s");
  FEMINT_CHECK(op->space->mesh->topo->shape == FEMINT_HEX, ctx, FEMINT_ENOTSUP,
               "%s: matrix-free application is for hexahedra; the mesh holds %s (assemble with "
               "femint_operator_assemble)",
               who, op->space->mesh->topo->plural);
  const int k = op->forms[form]->kind;
  FEMINT_CHECK(k == FORM_MASS || k == FORM_LAPLACE || (k == FORM_ELASTICITY && op->space->ncomp == 3),
               ctx, FEMINT_ENOTSUP,
               "%s: the %s form has no matrix-free kernel (mass, laplace and 3D elasticity have)",
               who, form_kind_name(k));
  FEMINT_CHECK(op->ctx->ncpu > 0, ctx, FEMINT_ENODEV, "%s: no CPU worker (its tasks run there)",
               who);
  *kind = k == FORM_MASS ? HEX_APPLY_MASS : k == FORM_LAPLACE ? HEX_APPLY_LAPLACE : HEX_APPLY_ELASTICITY;
  return 0;
}

/* The home of the vectors: the first device that runs the apply kernel of the kind and builds
 * the vector kernels, else the CPU workers (ev_home_choose). */
static int apply_choose_home(struct femint_operator *op, int kind)
{
  struct op_apply *a = op->apply;
  int usable[FEMINT_MAX_CL_DEVICES] = {0};
  for (int dev = 0; dev < op->ctx->ncl_dev; dev++)
    usable[dev] = a->prog[0][kind][dev] && a->prog[0][kind][dev]->kernel;
  a->home_chosen = 1;
  FEMINT_CALL(ev_home_choose(op, usable, a->vk, &a->home));
  worker_mask_make(op->ctx, op->plan->opt.devices, a->home, &a->mask);
  return 0;
}

int apply_prepare(struct femint_operator *op, int form, int *kind)
{
  FEMINT_CALL(apply_check(op, form, kind));
  if (!op->apply || !op->apply->programs_built[0][*kind]) {
    /* the first call's work on this thread: StarPU's idle workers, which poll for tasks, are
     * paused meanwhile, so that they leave it the cores (nothing here waits for a task) */
    femint_host_quiet(1);
    const int setup = op->apply ? 0 : apply_setup(op);
    int err = setup;
    if (!err && !op->apply->programs_built[0][*kind]) err = apply_programs(op, *kind, 0);
    femint_host_quiet(0);
    if (setup) operator_apply_release(op);
    if (err) return err;
  }
  struct op_apply *a = op->apply;
  FEMINT_CHECK(apply_where(op, *kind, 0), op->ctx, FEMINT_ENOTSUP,
               "femint_operator_apply: OpenCL only, but no device can run the kernel of order %d "
               "(it needs double precision and %zu bytes of local memory)",
               a->tensor->p, kernel_local_bytes(a->tensor, *kind, 1));
  if (!a->home_chosen) FEMINT_CALL(apply_choose_home(op, *kind));
  /* the data once the home is known: the device that applies the form may make them */
  if (!a->made[form]) FEMINT_CALL(apply_form_data(op, form, *kind));
  return 0;
}

int apply_home(const struct femint_operator *op) { return op->apply->home; }

int apply_nchunk(const struct femint_operator *op) { return op->apply->es->nchunk; }

const struct ev_sum *apply_ev(const struct femint_operator *op) { return op->apply->es; }

struct vec_kernels *const *apply_vec_kernels(const struct femint_operator *op)
{
  return op->apply->vk;
}

/* A task on the home: a device's worker, or any CPU worker. */
void apply_task_home(const struct femint_operator *op, struct starpu_task *t)
{
  if (op->apply->home >= 0) {
    t->execute_on_a_specific_worker = 1;
    t->workerid = (unsigned)op->apply->home;
  } else {
    t->where = STARPU_CPU;
  }
}

int apply_submit_chunks(struct femint_operator *op, int form, int kind, starpu_data_handle_t x,
                        int which, struct starpu_task **tasks, int *counts)
{
  struct op_apply *a = op->apply;
  femint_context_t ctx = op->ctx;
  /* x NULL: the kernel alone, from the element vectors ev_in */
  const int evec = x == NULL;
  const uint32_t where = apply_where(op, kind, evec);
  const struct ev_sum *e = a->es;
  const int nb = e->nchunk;
  int n = 0, err = 0;
  for (int i = 0; i < nb && !err; i++) {
    /* a chunk whose cells are not known to read no ghost counts as reading them; one of cells
     * another part applies (2 + it) is loaded from there */
    const int reads = e->border ? e->border[i] : 1;
    if (reads >= 2 || (which == APPLY_INSIDE && reads) || (which == APPLY_BORDER && !reads))
      continue;
    /* set once per kind and counter: earlier tasks of a solve may still read them */
    if (!a->args[i].ctx || a->args[i].kind != kind || a->args[i].counts != counts ||
        a->args[i].evec != evec)
      a->args[i] = (struct apply_arg){ctx, a->tensor, kind, a->nc, e->ncell[i],
                                      a->prog[evec][kind], a->ne[kind],
                                      op->plan->opt.apply_geometry, evec, a->single, counts, 0,
                                      ""};
    struct starpu_task *t = starpu_task_create();
    t->cl = &femint_cl_apply;
    t->cl_arg = &a->args[i];
    t->where = where;
    worker_mask_set(t, &a->mask);
    t->handles[0] = evec ? a->h_ev_in[i] : x;
    t->handles[1] = e->h_dofs[i];
    t->handles[2] = a->h_qd[form * nb + i];
    t->handles[3] = a->h_tab;
    t->handles[4] = e->h_ev[i];
    err = task_submit(ctx, t, tasks ? &tasks[n] : NULL, "femint_operator_apply");
    if (!err) n++;
  }
  return err ? err : n;
}

int apply_sum(struct femint_operator *op, struct femint_vector *y, struct starpu_task **slot,
              int *counts)
{
  const struct op_apply *a = op->apply;
  return ev_sum_submit(op, a->es, y, a->vk, a->home, counts, slot, "femint_operator_apply");
}

int apply_submit(struct femint_operator *op, int form, int kind, starpu_data_handle_t x,
                 struct femint_vector *y, struct starpu_task **tasks, int *counts)
{
  const int n = apply_submit_chunks(op, form, kind, x, APPLY_ALL, tasks, counts);
  if (n < 0 || !x) return n;
  const int err = apply_sum(op, y, tasks ? &tasks[n] : NULL, counts);
  return err ? err : n + 1;
}

int apply_status(struct femint_operator *op, const char *who)
{
  struct op_apply *a = op->apply;
  const struct ev_sum *e = a->es;
  for (int i = 0; i < e->nchunk; i++)
    if (a->args[i].status) return femint_seterr(op->ctx, a->args[i].status, "%s: %s", who, a->args[i].msg);
  const char *msg;
  const int st = ev_sum_status(e, &msg);
  if (st) return femint_seterr(op->ctx, st, "%s: %s", who, msg);
  return 0;
}

/* Submit y = A x, wait for its tasks and count them in st. */
int apply_wait(struct femint_operator *op, int form, int kind, starpu_data_handle_t x,
               struct femint_vector *y, struct femint_stats *st)
{
  femint_context_t ctx = op->ctx;
  struct starpu_task **tasks = calloc((size_t)op->apply->es->nchunk + 1, sizeof *tasks);
  FEMINT_CHECK(tasks, ctx, FEMINT_ENOMEM, "femint_operator_apply: out of memory");
  const int n = apply_submit(op, form, kind, x, y, tasks, NULL);
  int err = n < 0 ? n : 0;
  for (int i = 0; i < op->apply->es->nchunk + 1; i++) {
    if (!tasks[i]) continue;
    if (starpu_task_wait(tasks[i]) && !err)
      err = femint_seterr(ctx, FEMINT_ERUNTIME, "femint_operator_apply: a task failed");
    if (st) stats_task(st, tasks[i], tasks[i]->cl == &femint_cl_apply);
    starpu_task_destroy(tasks[i]);
  }
  free(tasks);
  if (!err) err = apply_status(op, "femint_operator_apply");
  return err;
}

int operator_apply(struct femint_operator *op, int form, const double *x, double *y,
                   struct femint_stats *st)
{
  FEMINT_CHECK(x && y, op->ctx, FEMINT_EINVAL, "femint_operator_apply: x or y is NULL");
  FEMINT_CHECK(x != y, op->ctx, FEMINT_EINVAL, "femint_operator_apply: x and y are the same array");
  const double t0 = femint_now();
  int kind;
  struct apply_split *sp;
  FEMINT_CALL(apply_split_prepare(op, form, &kind, &sp));
  if (sp) {
    FEMINT_CALL(apply_split_run(sp, form, kind, x, y, st));
    if (st) st->t_total = femint_now() - t0;
    return 0;
  }
  FEMINT_CALL(apply_prepare(op, form, &kind));
  struct op_apply *a = op->apply;
  if (!a->vx) FEMINT_CALL(femint_vector_create(op->space, &a->vx));
  if (!a->vy) FEMINT_CALL(femint_vector_create(op->space, &a->vy));
  FEMINT_CALL(femint_vector_set_values(a->vx, x));
  FEMINT_CALL(apply_wait(op, form, kind, a->vx->h, a->vy, st));
  FEMINT_CALL(femint_vector_get_values(a->vy, y));
  if (st) st->t_total = femint_now() - t0;
  return 0;
}

/* Copy element vectors between the caller's layout, ue[k][f * nc + c] (function f of the
 * element's order), and the kernels', [k][c][n] (node n in tensor order), through the chunks'
 * handles h (in main memory while acquired); to_ev: into them (W), else out of them (R). */
static void ev_copy(struct femint_operator *op, starpu_data_handle_t *h, double *ue, int to_ev)
{
  const struct op_apply *a = op->apply;
  const struct ev_sum *es = a->es;
  const int nc = a->nc, np = a->np;
  for (int i = 0; i < es->nchunk; i++) {
    starpu_data_acquire(h[i], to_ev ? STARPU_W : STARPU_R);
    char *ev = (char *)starpu_vector_get_local_ptr(h[i]);
    for (int k = es->first[i]; k < es->first[i] + es->ncell[i]; k++)
      for (int c = 0; c < nc; c++)
        for (int n = 0; n < np; n++) {
          const size_t e = ((size_t)(k - es->first[i]) * nc + c) * np + n;
          double *u = &ue[((size_t)k * np + a->tensor->t2f[n]) * nc + c];
          if (to_ev) real_put(ev, e, *u, a->single);
          else *u = real_at(ev, e, a->single);
        }
    starpu_data_release(h[i]);
  }
}

int operator_apply_kernel(struct femint_operator *op, int form, const double *ue, double *ve,
                          int runs, double *seconds, struct femint_stats *st)
{
  static const char who[] = "femint_operator_apply_kernel";
  FEMINT_CHECK(runs >= 1, op->ctx, FEMINT_EINVAL, "%s: runs = %d, must be >= 1", who, runs);
  int kind;
  FEMINT_CALL(apply_prepare(op, form, &kind));
  struct op_apply *a = op->apply;
  if (!a->programs_built[1][kind]) FEMINT_CALL(apply_programs(op, kind, 1));
  if (!a->ev_in) { /* element vectors of any values: the kernel does the same work on all */
    const size_t n = (size_t)op->plan->ncell * a->nc * a->np;
    a->h_ev_in = calloc((size_t)a->es->nchunk + 1, sizeof *a->h_ev_in);
    if (!a->h_ev_in || femint_host_alloc(op->ctx, (n + 1) * a->rs, (void **)&a->ev_in)) {
      free(a->h_ev_in);
      a->h_ev_in = NULL;
      a->ev_in = NULL;
      return femint_seterr(op->ctx, FEMINT_ENOMEM, "%s: out of memory", who);
    }
    for (size_t i = 0; i < n; i++) real_put(a->ev_in, i, (double)(i % 1000) * 1e-3 - 0.5, a->single);
    for (int i = 0; i < a->es->nchunk; i++)
      starpu_vector_data_register(
          &a->h_ev_in[i], STARPU_MAIN_RAM,
          (uintptr_t)(a->ev_in + (size_t)a->es->first[i] * a->nc * a->np * a->rs),
          (uint32_t)((size_t)a->es->ncell[i] * a->nc * a->np), a->rs);
  }
  if (ue) ev_copy(op, a->h_ev_in, (double *)ue, 1);
  double *t = malloc((size_t)runs * sizeof *t);
  FEMINT_CHECK(t, op->ctx, FEMINT_ENOMEM, "%s: out of memory", who);
  int err = 0;
  /* a first pass brings the data where the tasks run */
  for (int r = -1; r < runs && !err; r++) {
    const double t0 = femint_now();
    err = apply_wait(op, form, kind, NULL, NULL, r == runs - 1 ? st : NULL);
    if (r >= 0) t[r] = femint_now() - t0;
  }
  if (!err && seconds) *seconds = femint_median(t, runs);
  free(t);
  if (!err && ve) ev_copy(op, a->es->h_ev, ve, 0);
  return err;
}

int apply_diagonal(struct femint_operator *op, int form, int kind, double *d)
{
  struct op_apply *a = op->apply;
  const struct plan *p = op->plan;
  const int np = a->np, nc = a->nc, geo = p->opt.apply_geometry;
  const size_t per = apply_per_cell(op, kind);
  const size_t nqd = (size_t)a->tensor->Q * a->tensor->Q * a->tensor->Q * hex_qdata_size(kind);
  const size_t nscratch = hex_diagonal_scratch(a->tensor) + nqd + per;
  /* values per node of a cell's diagonal: one for every component, or one each (elasticity) */
  const int nd = kind == HEX_APPLY_ELASTICITY ? nc : 1;
  double *de = malloc(((size_t)p->ncell * nd * np + 1) * sizeof *de);
  FEMINT_CHECK(de, op->ctx, FEMINT_ENOMEM, "femint_operator_diagonal: out of memory");
  /* the data in main memory, chunk by chunk (those made on a device are fetched from it) */
  const struct ev_sum *es = a->es;
  const char **base = calloc((size_t)es->nchunk + 1, sizeof *base);
  if (!base) {
    free(de);
    return femint_seterr(op->ctx, FEMINT_ENOMEM, "femint_operator_diagonal: out of memory");
  }
  for (int i = 0; i < es->nchunk; i++) {
    starpu_data_handle_t h = a->h_qd[form * es->nchunk + i];
    starpu_data_acquire(h, STARPU_R);
    base[i] = (const char *)starpu_vector_get_local_ptr(h);
  }
  int oom = 0;
#pragma omp parallel reduction(| : oom)
  {
    double *scratch = malloc(nscratch * sizeof *scratch);
    oom = !scratch;
    for (int i = 0; i < es->nchunk; i++)
#pragma omp for schedule(static)
      for (int k = es->first[i]; k < es->first[i] + es->ncell[i]; k++) {
        if (!scratch) continue;
        /* the cell's data in double; with the geometry, the quadrature data made again from it
         * (checked at setup) */
        double *q = scratch + hex_diagonal_scratch(a->tensor), *qk = q + per;
        const size_t k0 = (size_t)(k - es->first[i]) * per;
        for (size_t j = 0; j < per; j++) q[j] = real_at(base[i], k0 + j, a->single);
        if (geo) {
          hex_qdata_geo(a->tensor, kind, q, qk);
          q = qk;
        }
        hex_diagonal(a->tensor, kind, q, de + (size_t)k * nd * np, scratch);
      }
    free(scratch);
  }
  for (int i = 0; i < es->nchunk; i++) starpu_data_release(a->h_qd[form * es->nchunk + i]);
  free(base);
  if (oom) {
    free(de);
    return femint_seterr(op->ctx, FEMINT_ENOMEM, "femint_operator_diagonal: out of memory");
  }
  /* occ holds k nc np + n for node n of plan cell k */
#pragma omp parallel for schedule(static)
  for (int64_t g = 0; g < a->es->nown; g++)
    for (int c = 0; c < nc; c++) {
      double sum = 0;
      for (int64_t o = a->es->occ_ptr[g]; o < a->es->occ_ptr[g + 1]; o++) {
        const int64_t at = a->es->occ[o];
        sum += de[(at / (nc * np) * nd + (nd > 1 ? c : 0)) * np + at % (nc * np)];
      }
      d[g * nc + c] = sum;
    }
  free(de);
  return 0;
}
