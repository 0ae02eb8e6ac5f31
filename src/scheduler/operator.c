/* The operator object: its creation (the options checked, the forms and cells kept, the plan, the
 * assembly path chosen), its verbs' entry points and state checks, the load vectors and single
 * element matrices. The paths themselves: operator_rows.c and operator_coo.c. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/load.h"
#include "host/refel_hex.h"
#include "operator.h"

/* Cells or boundary faces per load task. */
#define LOAD_BATCH 256

static int check_options(femint_context_t ctx, const struct femint_operator_options *opt)
{
  static const char who[] = "femint_operator_create";
  FEMINT_CHECK(opt->precision == FEMINT_DOUBLE || opt->precision == FEMINT_SINGLE, ctx,
               FEMINT_EINVAL, "%s: precision %d is neither FEMINT_DOUBLE nor FEMINT_SINGLE", who,
               opt->precision);
  FEMINT_CHECK(opt->variant >= FEMINT_VARIANT_AUTO && opt->variant <= FEMINT_VARIANT_GEMM, ctx,
               FEMINT_EINVAL, "%s: variant = %d is not a femint_variant value", who, opt->variant);
  FEMINT_CHECK(opt->where >= FEMINT_WHERE_ANY && opt->where <= FEMINT_WHERE_OPENCL, ctx,
               FEMINT_EINVAL, "%s: where = %d is not a femint_where value", who, opt->where);
  FEMINT_CHECK(opt->apply_rule == 0 || opt->apply_rule == 1, ctx, FEMINT_EINVAL,
               "%s: apply_rule = %d (0: Gauss, 1: Gauss-Lobatto)", who, opt->apply_rule);
  FEMINT_CHECK(opt->apply_geometry == 0 || opt->apply_geometry == 1, ctx, FEMINT_EINVAL,
               "%s: apply_geometry = %d (0: stored per point, 1: from the vertices)", who,
               opt->apply_geometry);
  FEMINT_CHECK(opt->residual_cells >= 0 && opt->residual_cells <= 4096 &&
                   opt->residual_batches >= 0 && opt->residual_batches <= 4096,
               ctx, FEMINT_EINVAL,
               "%s: residual_cells = %d, residual_batches = %d (0 for the default, or 1..4096)",
               who, opt->residual_cells, opt->residual_batches);
  FEMINT_CHECK(opt->residual_kernel >= FEMINT_RESIDUAL_AUTO &&
                   opt->residual_kernel <= FEMINT_RESIDUAL_CELLWISE,
               ctx, FEMINT_EINVAL, "%s: residual_kernel = %d is not a femint_residual_kernel value",
               who, opt->residual_kernel);
  FEMINT_CHECK(opt->residual_kernel != FEMINT_RESIDUAL_CELLWISE ||
                   (opt->residual_cells == 0 && opt->residual_batches == 0),
               ctx, FEMINT_EINVAL,
               "%s: residual_cells = %d, residual_batches = %d are the transposed kernel's; the "
               "kernel of a cell per work-item (residual_kernel = FEMINT_RESIDUAL_CELLWISE) "
               "takes neither",
               who, opt->residual_cells, opt->residual_batches);
  FEMINT_CHECK(opt->assembly >= FEMINT_ASSEMBLY_AUTO && opt->assembly <= FEMINT_ASSEMBLY_COO, ctx,
               FEMINT_EINVAL, "%s: assembly = %d is not a femint_assembly value", who,
               opt->assembly);
  FEMINT_CHECK(opt->devices >= 0, ctx, FEMINT_EINVAL,
               "%s: devices = %d (0 lets femint choose, k > 0 the first k OpenCL devices)", who,
               opt->devices);
  FEMINT_CHECK(opt->max_batch >= 0, ctx, FEMINT_EINVAL, "%s: max_batch = %d", who, opt->max_batch);
  FEMINT_CHECK(opt->symmetric == 0 || opt->symmetric == 1, ctx, FEMINT_EINVAL,
               "%s: symmetric = %d (0 or 1)", who, opt->symmetric);
  FEMINT_CHECK(opt->reproducible == 0 || opt->reproducible == 1, ctx, FEMINT_EINVAL,
               "%s: reproducible = %d (0 or 1)", who, opt->reproducible);
  FEMINT_CHECK(opt->where != FEMINT_WHERE_OPENCL || ctx->nopencl > 0, ctx, FEMINT_ENODEV,
               "%s: integration on OpenCL was requested but StarPU has no OpenCL worker (without "
               "a GPU, set STARPU_OPENCL_ON_CPUS=1 to use a CPU OpenCL device)",
               who);
  FEMINT_CHECK(opt->where != FEMINT_WHERE_CPU || ctx->ncpu > 0, ctx, FEMINT_ENODEV,
               "%s: integration on CPU was requested but StarPU has no CPU worker", who);
  return 0;
}

/* In single precision every coefficient must be a float that is not zero by underflow nor
 * infinite: 1e39 or 1e-45 would give matrices of inf or zeros. */
static int check_single(femint_context_t ctx, int nform, const femint_form_t *forms)
{
  for (int f = 0; f < nform; f++) {
    const struct femint_form *fm = forms[f];
    if (!fm || !fm->coef) continue;
    for (int c = 0; c < fm->nvalues; c++)
      for (int k = 0; k < fm->ncoef; k++) {
        const double v = fabs(fm->coef[(size_t)c * fm->ncoef + k]);
        if (v == 0 || (v >= FLT_MIN && v <= FLT_MAX)) continue;
        char cell[32] = "every cell";
        if (fm->nvalues > 1) snprintf(cell, sizeof cell, "cell %d", c);
        return femint_seterr(ctx, FEMINT_EINVAL,
                             "femint_operator_create: form %d (%s), %s: coefficient %d is %g, "
                             "which single precision cannot hold (its magnitude must lie in "
                             "[%g, %g])",
                             f, form_kind_name(fm->kind), cell, k, v, (double)FLT_MIN,
                             (double)FLT_MAX);
      }
  }
  return 0;
}

/* The assembly path and, through coordinates, the node that gathers the element matrices: the
 * first OpenCL device when one may be used in the precision, else main memory. */
static int choose_path(struct femint_operator *op, const struct femint_operator_options *opt)
{
  femint_context_t ctx = op->ctx;
  const int dev = opt->where != FEMINT_WHERE_CPU ? femint_context_first_device(ctx) : -1;
  const int usable = dev >= 0 && (opt->precision == FEMINT_SINGLE || ctx->cl_dev[dev].fp64);
  FEMINT_CHECK(opt->where != FEMINT_WHERE_OPENCL || usable, ctx, FEMINT_EINVAL,
               "femint_operator_create: OpenCL only, but no OpenCL worker can run it%s",
               dev >= 0 ? " (the device has no double precision)" : "");
  /* AUTO: as measured on the H200 (doc/performance.md), the sums on a GPU win every assembly,
   * the first included (prisms 16x16x8, orders 1-4: a fresh femint run 0.12 s against 0.25 s by
   * rows, later assemblies 0.018 s against 0.029 s); on a device that is itself a CPU (PoCL), the
   * row blocks of the CPU workers, except for H(curl), whose two forms share one pattern. */
  const int gpu = usable && !(ctx->cl_dev[dev].type & CL_DEVICE_TYPE_CPU);
  op->assembly = opt->assembly == FEMINT_ASSEMBLY_AUTO
                     ? (gpu || (usable && op->space->family == FEMINT_HCURL)
                            ? FEMINT_ASSEMBLY_COO
                            : FEMINT_ASSEMBLY_ROWS)
                     : opt->assembly;
  op->coo_dev = op->assembly == FEMINT_ASSEMBLY_COO && usable ? dev : -1;
  op->coo_worker = op->coo_dev >= 0 ? starpu_worker_get_by_devid(STARPU_OPENCL_WORKER, dev) : -1;
  op->coo_node = op->coo_worker >= 0 ? starpu_worker_get_memory_node((unsigned)op->coo_worker)
                                     : STARPU_MAIN_RAM;
  return 0;
}

int femint_operator_create(femint_context_t ctx, femint_space_t space, int nform,
                           const femint_form_t *forms, const struct femint_operator_options *opt,
                           femint_operator_t *out)
{
  return operator_create(ctx, space, nform, forms, opt, 0, out);
}

int operator_create(femint_context_t ctx, femint_space_t space, int nform,
                    const femint_form_t *forms, const struct femint_operator_options *opt,
                    int nworker, femint_operator_t *out)
{
  static const struct femint_operator_options defaults = {0};
  FEMINT_CHECK(ctx, NULL, FEMINT_EINVAL, "femint_operator_create: NULL context");
  FEMINT_CHECK(out, ctx, FEMINT_EINVAL, "femint_operator_create: op (output) is NULL");
  *out = NULL;
  FEMINT_CHECK(space, ctx, FEMINT_EINVAL, "femint_operator_create: NULL space");
  FEMINT_CHECK(nform >= 1 && forms, ctx, FEMINT_EINVAL,
               "femint_operator_create: %d forms%s (at least one)", nform,
               forms ? "" : " and a NULL array");
  if (!opt) opt = &defaults;
  FEMINT_CALL(check_options(ctx, opt));
  if (opt->precision == FEMINT_SINGLE) FEMINT_CALL(check_single(ctx, nform, forms));
  struct femint_operator *op = calloc(1, sizeof *op);
  FEMINT_CHECK(op, ctx, FEMINT_ENOMEM, "femint_operator_create: out of memory");
  op->ctx = ctx;
  op->space = space;
  op->generation = space->generation;
  op->mhi = space->nmode;
  op->nform = nform;
  op->forms = malloc((size_t)nform * sizeof *op->forms);
  const int ncells = opt->cells && opt->ncells > 0 ? opt->ncells : 0;
  op->cells = opt->cells ? malloc(((size_t)ncells + 1) * sizeof *op->cells) : NULL;
  op->timeline = opt->timeline ? strdup(opt->timeline) : NULL;
  int err = 0;
  if (!op->forms || (opt->cells && !op->cells) || (opt->timeline && !op->timeline))
    err = femint_seterr(ctx, FEMINT_ENOMEM, "femint_operator_create: out of memory");
  if (!err) {
    memcpy(op->forms, forms, (size_t)nform * sizeof *op->forms);
    if (op->cells) memcpy(op->cells, opt->cells, (size_t)ncells * sizeof *op->cells);
    struct femint_operator_options o = *opt;
    if (op->cells) o.cells = op->cells;
    o.timeline = NULL; /* each verb takes it from the caller's options below */
    femint_trace("femint_operator_create");
    err = choose_path(op, &o);
    if (!err) err = plan_create(ctx, space, nform, op->forms, &o, nworker, &op->plan);
    femint_trace("femint_operator_create: plan made (programs built)");
    if (!err) {
      op->plan->opt.timeline = op->timeline;
      worker_mask_make(ctx, o.devices, -1, &op->rows_mask);
      worker_mask_make(ctx, o.devices, op->coo_worker, &op->coo_mask);
    }
  }
  if (err) {
    femint_operator_destroy(&op);
    return err;
  }
  *out = op;
  return 0;
}

int femint_operator_destroy(femint_operator_t *op)
{
  if (!op || !*op) return 0;
  struct femint_operator *o = *op;
  operator_coo_split_release(o);
  operator_coo_release(o);
  operator_apply_release(o);
  operator_residual_release(o);
  csr_shape_unref(&o->shape);
  free(o->rows.block_row);
  free(o->rows.row_block);
  plan_destroy(&o->plan);
  free(o->forms);
  free(o->cells);
  free(o->timeline);
  free(o->ghost);
  free(o->remote);
  free(o->ghost_order);
  free(o);
  *op = NULL;
  return 0;
}

/* The space must still have the DOFs the operator was made for. */
int operator_check_state(const struct femint_operator *op, const char *who)
{
  FEMINT_CHECK(op->space->generation == op->generation, op->ctx, FEMINT_ESTATE,
               "%s: DOFs of the space were removed after the operator was made (make the operator "
               "again)",
               who);
  return 0;
}

/* FEMINT_ENOTSUP, naming who, when a form of the operator has no element matrices. */
static int check_matrix_forms(const struct femint_operator *op, const char *who)
{
  for (int f = 0; f < op->nform; f++)
    FEMINT_CHECK(op->forms[f]->kind != FORM_POINTWISE, op->ctx, FEMINT_ENOTSUP,
                 "%s: form %d is pointwise (a residual, femint_operator_residual): it has no "
                 "element matrices",
                 who, f);
  return 0;
}

static int assemble_once(struct femint_operator *op, femint_matrix_t *A, struct femint_stats *st)
{
  int first = 0;
  return op->assembly == FEMINT_ASSEMBLY_COO ? operator_coo(op, A, st)
                                             : operator_rows(op, A, NULL, NULL, &first, st);
}

int femint_operator_assemble(femint_operator_t op, femint_matrix_t *A, struct femint_stats *stats)
{
  FEMINT_CHECK(op, NULL, FEMINT_EINVAL, "femint_operator_assemble: NULL operator");
  femint_context_t ctx = op->ctx;
  FEMINT_CHECK(A, ctx, FEMINT_EINVAL, "femint_operator_assemble: NULL matrix array");
  for (int f = 0; f < op->nform; f++) A[f] = NULL;
  FEMINT_CALL(operator_check_state(op, "femint_operator_assemble"));
  FEMINT_CALL(check_matrix_forms(op, "femint_operator_assemble"));
  FEMINT_CHECK(!op->space->global_dof, ctx, FEMINT_ESTATE,
               "femint_operator_assemble: the space has global DOF numbers "
               "(femint_space_set_global_dofs); its element matrices go to the caller's matrix "
               "through femint_operator_integrate");
  FEMINT_CHECK(op->assembly == FEMINT_ASSEMBLY_COO ? op->coo_dev >= 0 || ctx->ncpu > 0
                                                   : ctx->ncpu > 0,
               ctx, FEMINT_ENODEV,
               "femint_operator_assemble: the assembly needs a CPU worker and StarPU has none "
               "(STARPU_NCPU=0?)");
  const double t0 = femint_now();
  struct femint_stats st;
  memset(&st, 0, sizeof st);
  stats_plan(op, &st);
  operator_devices_refresh(op);
  int err = assemble_once(op, A, &st);
  if (operator_retry(op, err, "femint_operator_assemble")) err = assemble_once(op, A, &st);
  st.t_total = femint_now() - t0;
  if (stats) *stats = st;
  return err;
}

int femint_operator_integrate(femint_operator_t op, femint_element_fn fn, void *user,
                              struct femint_stats *stats)
{
  FEMINT_CHECK(op, NULL, FEMINT_EINVAL, "femint_operator_integrate: NULL operator");
  FEMINT_CALL(operator_check_state(op, "femint_operator_integrate"));
  FEMINT_CALL(check_matrix_forms(op, "femint_operator_integrate"));
  const double t0 = femint_now();
  struct femint_stats st;
  memset(&st, 0, sizeof st);
  stats_plan(op, &st);
  operator_devices_refresh(op);
  int done = 0, err = operator_rows(op, NULL, fn, user, &done, &st);
  if (operator_retry(op, err, "femint_operator_integrate"))
    err = operator_rows(op, NULL, fn, user, &done, &st);
  st.t_total = femint_now() - t0;
  if (stats) *stats = st;
  return err;
}

int femint_operator_apply(femint_operator_t op, int form, const double *x, double *y,
                          struct femint_stats *stats)
{
  FEMINT_CHECK(op, NULL, FEMINT_EINVAL, "femint_operator_apply: NULL operator");
  struct femint_stats st;
  memset(&st, 0, sizeof st);
  stats_plan(op, &st);
  operator_devices_refresh(op);
  int err = operator_apply(op, form, x, y, &st);
  if (operator_retry(op, err, "femint_operator_apply")) err = operator_apply(op, form, x, y, &st);
  if (stats) *stats = st;
  return err;
}

int femint_operator_element_matrix(femint_operator_t op, int form, int cell, double *Ae)
{
  FEMINT_CHECK(op, NULL, FEMINT_EINVAL, "femint_operator_element_matrix: NULL operator");
  femint_context_t ctx = op->ctx;
  const struct femint_space *space = op->space;
  FEMINT_CHECK(Ae, ctx, FEMINT_EINVAL, "femint_operator_element_matrix: A is NULL");
  FEMINT_CHECK(form >= 0 && form < op->nform, ctx, FEMINT_EINVAL,
               "femint_operator_element_matrix: form %d is outside 0..%d", form, op->nform - 1);
  FEMINT_CHECK(cell >= 0 && cell < space->mesh->ncell, ctx, FEMINT_EINVAL,
               "femint_operator_element_matrix: cell %d is outside 0..%d", cell,
               space->mesh->ncell - 1);
  FEMINT_CALL(operator_check_state(op, "femint_operator_element_matrix"));
  FEMINT_CALL(check_matrix_forms(op, "femint_operator_element_matrix"));
  struct group g;
  FEMINT_CALL(group_init(ctx, space, op->forms[form], space->order[cell], FEMINT_DOUBLE, 0, 0, 0,
                         &g));
  struct batch b = {.ctx = ctx, .g = &g, .ncell = 1, .cells = &cell};
  int err = plan_pack_batch(op->plan, &b);
  if (!err && g.family == FEMINT_HCURL) integrate_hcurl_batch_cpu(&b, b.geo, b.coef, Ae, -1, 1);
  else if (!err) integrate_volume_batch_cpu(&b, b.geo, b.coef, g.re->phi, Ae, -1, 1);
  if (!err && b.status) err = femint_seterr(ctx, b.status, "%s", b.msg);
  femint_host_free(ctx, b.geo);
  femint_host_free(ctx, b.coef);
  return err;
}

/* ---- load vectors ---- */

static int tag_selected(int tag, int ntag, const int *tags)
{
  if (tag <= 0) return 0;
  if (ntag == 0) return 1;
  for (int i = 0; i < ntag; i++)
    if (tags[i] == tag) return 1;
  return 0;
}

/* The task of load batch b, its items' places and vectors' array allocated first. */
static int load_submit(femint_context_t ctx, struct load_batch *b, struct starpu_task **slot)
{
  const int n = b->ncell + b->nface;
  b->at = malloc(((size_t)n + 1) * sizeof *b->at);
  FEMINT_CHECK(b->at, ctx, FEMINT_ENOMEM, "femint_operator_load: out of memory");
  b->at[0] = 0;
  for (int k = 0; k < n; k++) b->at[k + 1] = b->at[k] + load_size(b->space, load_item_cell(b, k));
  b->ev = malloc((b->at[n] + 1) * sizeof *b->ev);
  FEMINT_CHECK(b->ev, ctx, FEMINT_ENOMEM, "femint_operator_load: out of memory");
  struct starpu_task *t = starpu_task_create();
  t->cl = &femint_cl_integrate_load;
  t->cl_arg = b;
  return task_submit(ctx, t, slot, "load vector");
}

/* rhs += the vectors of batch b's cells and faces, in order. */
static void load_batch_add(const struct load_batch *b, double *rhs)
{
  for (int k = 0; k < b->ncell + b->nface; k++)
    load_add(b->space, load_item_cell(b, k), b->ev + b->at[k], rhs);
}

int femint_operator_load(femint_operator_t op, const struct femint_load *load, double *rhs)
{
  static const char who[] = "femint_operator_load";
  FEMINT_CHECK(op, NULL, FEMINT_EINVAL, "%s: NULL operator", who);
  femint_context_t ctx = op->ctx;
  FEMINT_CHECK(load && rhs, ctx, FEMINT_EINVAL, "%s: NULL load or rhs", who);
  FEMINT_CHECK(load->body || load->traction, ctx, FEMINT_EINVAL,
               "%s: neither a body force nor a traction", who);
  FEMINT_CHECK(load->ntag >= 0 && (load->ntag == 0 || load->tags), ctx, FEMINT_EINVAL,
               "%s: ntag = %d with %s tags", who, load->ntag, load->tags ? "a list of" : "no");
  FEMINT_CHECK(ctx->ncpu > 0, ctx, FEMINT_ENODEV, "%s: StarPU has no CPU worker", who);
  FEMINT_CALL(operator_check_state(op, who));
  const struct femint_space *s = op->space;
  FEMINT_CALL(starpu_size_check(ctx, s->nmode * s->ncomp, who, "DOFs"));
  femint_trace("%s", who);
  const struct femint_mesh *mesh = s->mesh;
  const struct plan *p = op->plan;
  const struct refel *re[FEMINT_MAX_ORDER + 1] = {NULL};
  struct hex_tensor *ht[FEMINT_MAX_ORDER + 1] = {NULL};
  int err = 0;
  for (int c = 0; c < mesh->ncell && !err; c++)
    if (!re[s->order[c]]) {
      err = femint_context_refel(ctx, mesh->topo->shape, s->family, s->order[c], &re[s->order[c]]);
      if (!err && load->body && (err = load_hex_tables(re[s->order[c]], &ht[s->order[c]])))
        err = femint_seterr(ctx, err, "%s: %s", who, femint_thread_error());
    }
  const int ncell = load->body ? p->ncell : 0;
  int nface = 0, n = 0;
  int *faces = malloc(((size_t)mesh->nbface + 1) * sizeof *faces);
  unsigned char *in = calloc((size_t)mesh->ncell + 1, 1);
  const int nb = (ncell + LOAD_BATCH - 1) / LOAD_BATCH + (mesh->nbface + LOAD_BATCH - 1) / LOAD_BATCH;
  struct load_batch *b = calloc((size_t)nb + 1, sizeof *b);
  struct starpu_task **tasks = calloc((size_t)nb + 1, sizeof *tasks);
  if (!err && (!faces || !in || !b || !tasks))
    err = femint_seterr(ctx, FEMINT_ENOMEM, "%s: out of memory", who);
  if (err) goto done;
  /* the tractions on the tagged boundary faces of the operator's cells */
  for (int k = 0; k < p->ncell; k++) in[p->cells[k]] = 1;
  for (int k = 0; load->traction && k < mesh->nbface; k++)
    if (in[mesh->bface[3 * k]] && tag_selected(mesh->bface[3 * k + 2], load->ntag, load->tags))
      faces[nface++] = k;
  for (int k = 0; k < ncell; k += LOAD_BATCH)
    b[n++] = (struct load_batch){.ctx = ctx, .space = s, .re = re,
                                 .ht = (const struct hex_tensor *const *)ht, .body = load->body,
                                 .user = load->user,
                                 .ncell = ncell - k < LOAD_BATCH ? ncell - k : LOAD_BATCH,
                                 .cells = p->cells + k};
  for (int k = 0; k < nface; k += LOAD_BATCH)
    b[n++] = (struct load_batch){.ctx = ctx, .space = s, .re = re, .traction = load->traction,
                                 .user = load->user,
                                 .nface = nface - k < LOAD_BATCH ? nface - k : LOAD_BATCH,
                                 .faces = faces + k};
  /* the batches in flight at most (each holds its vectors until they are added) */
  const int window = 4 * ctx->ncpu + 2;
  for (int i = 0, next = 0; i < n; i++) {
    for (; next < n && next < i + window && !err; next++)
      err = load_submit(ctx, &b[next], &tasks[next]);
    if (tasks[i]) {
      if (starpu_task_wait(tasks[i])) {
        /* not waited for: every task is, so that none still writes into a batch's vectors
         * when they are freed */
        starpu_task_wait_for_all();
        if (!err) err = femint_seterr(ctx, FEMINT_ERUNTIME, "%s: waiting for a task failed", who);
      }
      starpu_task_destroy(tasks[i]);
      if (b[i].status && !err) err = femint_seterr(ctx, b[i].status, "%s", b[i].msg);
    }
    if (!err) load_batch_add(&b[i], rhs);
    free(b[i].ev);
    free(b[i].at);
    b[i].ev = NULL;
    b[i].at = NULL;
  }
  femint_trace("%s done", who);
done:
  for (int o = 0; o <= FEMINT_MAX_ORDER; o++) hex_tensor_destroy(&ht[o]);
  free(faces);
  free(in);
  free(b);
  free(tasks);
  return err;
}
