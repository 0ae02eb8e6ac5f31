/* femint_operator_residual: F(u) of a pointwise form (seed 002). The first call makes what does
 * not change: the geometry of the operator's cells at the quadrature points (w |det J|, K, x),
 * registered per chunk of consecutive cells with their DOFs and element vectors (ev_sum.c); the
 * first call of a form compiles its functions (the CPU's from the source with the configured
 * compiler, pointwise_cc.c, unless the caller gave them; an OpenCL program per device with the
 * source inlined in kernels/residual.cl). Each call submits a residual task per chunk (CPU team
 * or OpenCL device) and one task that sums the element residuals into F on the vectors' home, in
 * plan order: deterministic whatever the workers. The OpenCL residual tasks write each value at
 * its place in the DOF order of the sum (ev_sum_sort), so that the sum reads every DOF's values
 * one after the other (on the H200, the P1 tetrahedra of box:96,96,96: 0.09 ms instead of 0.58 ms
 * gathered from the cells); CPU tasks, and all of them when the residuals go to a caller's
 * function (femint_operator_residual_cells), write cell by cell. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "residual.h"

static const char who[] = "femint_operator_residual";

static void unregister_all(starpu_data_handle_t *h, int n)
{
  for (int i = 0; h && i < n; i++)
    if (h[i]) starpu_data_unregister(h[i]);
  free(h);
}

void operator_residual_release(struct femint_operator *op)
{
  struct op_residual *r = op->residual;
  if (!r) return;
  const int nb = r->es ? r->es->nchunk : 0;
  operator_jacobian_release(op);
  for (int f = 0; r->rf && f < op->nform; f++) {
    for (int d = 0; d < FEMINT_MAX_CL_DEVICES; d++)
      if (r->rf[f].jkernel[d]) clReleaseKernel(r->rf[f].jkernel[d]);
    unregister_all(r->rf[f].h_acell, nb);
    free(r->rf[f].acell);
    free(r->rf[f].args);
    if (r->rf[f].dl) dlclose(r->rf[f].dl);
  }
  free(r->rf);
  unregister_all(r->h_geo, nb);
  unregister_all(r->h_adofs, nb);
  if (r->h_none) starpu_data_unregister(r->h_none);
  free(r->geo);
  free(r->geo_first);
  free(r->adofs);
  for (int d = 0; d < FEMINT_MAX_CL_DEVICES; d++) vec_kernels_destroy(&r->vk[d]);
  ev_sum_destroy(op->ctx, &r->es);
  free(r);
  op->residual = NULL;
}

/* Where value i of plan cell k's geometry is kept in geo: a chunk of affine cells keeps every
 * cell's |det J| and K, then every cell's J and x0, so that a form that does not use x reads
 * its cells' first values at consecutive addresses; in blocks of r->lanes cells, value i of a
 * block's cells side by side (the CPU loop's SIMD lanes read them where they are). */
static size_t geo_at(const struct op_residual *r, const struct ev_sum *e, int k, size_t i)
{
  const int c = k / e->size;
  return r->geo_first[c] + pw_geo_at(r->affine, r->re->dim, r->lanes, r->per,
                                     (size_t)e->ncell[c], (size_t)(k % e->size), i);
}

/* The blocks' spare lanes past each chunk's last cell: copies of that cell (the CPU loop computes
 * them and writes nothing). */
static void geo_pad(const struct op_residual *r, const struct ev_sum *e)
{
  for (int c = 0; c < e->nchunk; c++) {
    const int n = e->ncell[c], last = e->first[c] + n - 1;
    for (int k = n; k < (int)pw_padded((size_t)n, r->lanes); k++)
      for (size_t i = 0; i < r->per; i++) {
        const size_t to = r->geo_first[c] + pw_geo_at(r->affine, r->re->dim, r->lanes, r->per,
                                                      (size_t)n, (size_t)k, i);
        memcpy(r->geo + to * r->rs, r->geo + geo_at(r, e, last, i) * r->rs, r->rs);
      }
  }
}

/* Whether OpenCL workers may take the residual's tasks (else the CPU workers alone). */
static int opencl_may_run(const struct femint_operator *op)
{
  return op->plan->opt.where != FEMINT_WHERE_CPU && op->ctx->nopencl > 0;
}

/* The chunks, the cells' DOFs and geometry. */
static int residual_setup(struct femint_operator *op)
{
  const struct plan *p = op->plan;
  const struct femint_space *s = op->space;
  const struct femint_mesh *m = s->mesh;
  femint_context_t ctx = op->ctx;
  struct op_residual *r = calloc(1, sizeof *r);
  FEMINT_CHECK(r, ctx, FEMINT_ENOMEM, "%s: out of memory", who);
  op->residual = r;
  const int shape = m->topo->shape, dim = m->topo->dim;
  FEMINT_CALL(femint_context_refel(ctx, shape, FEMINT_H1, s->order[0], &r->re));
  r->single = p->opt.precision == FEMINT_SINGLE;
  r->rs = r->single ? sizeof(float) : sizeof(double);
  FEMINT_CALL(femint_context_phi(ctx, shape, s->order[0], p->opt.precision, &r->h_phi));
  /* straight simplices keep their geometry once per cell (a mesh's cells are all straight or
   * all curved) */
  r->affine = (shape == FEMINT_TRI || shape == FEMINT_TET) && mesh_nnode(m) == dim + 1;
  const size_t per = r->per = r->affine ? (size_t)pw_affine_size(dim)
                                        : (size_t)r->re->nq * pw_geo_size(dim);
  FEMINT_CALL(ev_sum_create(op, who, r->re->nsh, NULL, per * r->rs,
                            p->opt.where == FEMINT_WHERE_OPENCL || operator_gpu_alone(op), 0,
                            r->single, &r->es));
  FEMINT_CALL(ev_sum_sort(ctx, r->es, who));
  const struct ev_sum *e = r->es;
  /* the CPU loop reads its blocks' geometry where it is kept when no OpenCL worker reads it */
  r->lanes = opencl_may_run(op) ? 1 : PW_LANES;
  r->rf = calloc((size_t)op->nform, sizeof *r->rf);
  r->geo_first = malloc(((size_t)e->nchunk + 1) * sizeof *r->geo_first);
  r->h_geo = calloc((size_t)e->nchunk + 1, sizeof *r->h_geo);
  FEMINT_CHECK(r->rf && r->geo_first && r->h_geo, ctx, FEMINT_ENOMEM, "%s: out of memory", who);
  r->geo_first[0] = 0;
  for (int i = 0; i < e->nchunk; i++)
    r->geo_first[i + 1] = r->geo_first[i] + pw_padded((size_t)e->ncell[i], r->lanes) * per;
  r->geo = malloc((r->geo_first[e->nchunk] + 1) * r->rs);
  FEMINT_CHECK(r->geo, ctx, FEMINT_ENOMEM, "%s: out of memory", who);
  int bad = -1, oom = 0;
#pragma omp parallel reduction(| : oom)
  {
    double *g = malloc(per * sizeof *g); /* made in double, kept in the precision */
    oom = !g;
#pragma omp for schedule(static)
    for (int k = 0; k < p->ncell; k++) {
      double X[3 * MESH_MAX_NODES];
      const int nnode = mesh_cell_nodes(m, p->cells[k], X);
      if (!g) continue;
      if (r->affine ? pw_geometry_affine(r->re, nnode, X, g) : pw_geometry(r->re, nnode, X, g))
#pragma omp critical
        bad = p->cells[k];
      for (size_t i = 0; i < per; i++) {
        const size_t at = geo_at(r, e, k, i);
        if (r->single) ((float *)r->geo)[at] = (float)g[i];
        else ((double *)r->geo)[at] = g[i];
      }
    }
    free(g);
  }
  FEMINT_CHECK(!oom, ctx, FEMINT_ENOMEM, "%s: out of memory", who);
  FEMINT_CHECK(bad < 0, ctx, FEMINT_EJACOBIAN, "%s: cell %d has a degenerate Jacobian", who, bad);
  geo_pad(r, e);
  for (int i = 0; i < e->nchunk; i++)
    starpu_vector_data_register(&r->h_geo[i], STARPU_MAIN_RAM,
                                (uintptr_t)(r->geo + r->geo_first[i] * r->rs),
                                (uint32_t)(r->geo_first[i + 1] - r->geo_first[i]), r->rs);
  starpu_vector_data_register(&r->h_none, STARPU_MAIN_RAM, (uintptr_t)&r->none, 1, sizeof(double));
  return 0;
}

/* Whether the OpenCL kernel takes a cell per work-item: as asked, else unless batches were
 * asked for (on the H200 it was 1.2-6.8 times faster than the transposed kernel for every form,
 * order and precision measured, P3 elasticity on tetrahedra included: doc/performance.md). */
static int kernel_cellwise(const struct femint_operator *op)
{
  const struct femint_operator_options *o = &op->plan->opt;
  if (o->residual_kernel) return o->residual_kernel == FEMINT_RESIDUAL_CELLWISE;
  return !o->residual_cells && !o->residual_batches;
}

/* Cells per batch of the OpenCL kernel on a device: enough (cell, point) pairs and (cell,
 * component, function) triples for the work-group, within its local memory (a cell per
 * work-item: the work-group's); 0 when even one cell (or the tables) does not fit. */
static int kernel_batch(const struct femint_operator *op, const struct pointwise *pw, int dev,
                        int cellwise)
{
  const struct refel *re = op->residual->re;
  const int dim = re->dim, nsh = re->nsh, nq = re->nq, nc = pw->ncomp;
  const int nas = pw->naux > 0 ? pw->naux : 1;
  const int per_item = nq < nsh * nc ? nq : nsh * nc, asked = op->plan->opt.residual_cells;
  int nb = asked > 0 ? asked : RESIDUAL_WG / per_item > 1 ? RESIDUAL_WG / per_item : 1;
  const size_t rs = op->residual->rs;
  const size_t fixed = (size_t)nq * (dim + 1) * nsh * rs;
  if (cellwise) return fixed <= op->ctx->cl_dev[dev].local_mem ? RESIDUAL_WG : 0;
  const size_t cell = ((size_t)nsh * nc + (size_t)nsh * nas + (size_t)nq * nc +
                       (size_t)nq * nc * dim) * rs;
  const size_t have = op->ctx->cl_dev[dev].local_mem;
  if (asked > 0) return fixed + nb * cell <= have ? nb : -1; /* as asked, or not at all */
  while (nb > 1 && fixed + nb * cell > have) nb--;
  return fixed + nb * cell <= have ? nb : 0;
}

/* The OpenCL programs of a pointwise form: the prelude, the constants, the caller's text, then
 * kernels/residual.cl, built on every driven device with double precision that can hold a
 * batch. A build that fails is reported on stderr and leaves the CPU workers the work (unless
 * the operator is for OpenCL workers only: then it is the error). */
static int residual_programs(struct femint_operator *op, int f)
{
  const struct pointwise *pw = op->forms[f]->pw;
  struct residual_form *rf = &op->residual->rf[f];
  femint_context_t ctx = op->ctx;
  const struct refel *re = op->residual->re;
  if (!pw->source || !opencl_may_run(op)) return 0;
  FEMINT_CHECK(pw_defines(pw->source, "f0") || pw_defines(pw->source, "f1"), ctx, FEMINT_EBUILD,
               "%s defines neither f0 nor f1 (FEMINT_POINTWISE void f0(...) { ... })", pw->name);
  char *kernel = femint_kernel_text("residual.cl");
  FEMINT_CHECK(kernel, ctx, FEMINT_ENOMEM, "the OpenCL source of the residual kernel is missing");
  const int single = op->residual->single;
  const int npre = pw_prelude(NULL, 0, pw, re->dim, 1, single);
  const size_t nxqw = (size_t)re->nq * (re->dim + 1); /* the rule: xi and w of each point */
  const size_t len = (size_t)npre + 64 + 26 * (PW_MAX_CONST + nxqw) + strlen(pw->source) +
                     strlen(kernel) + 64;
  char *text = malloc(len);
  if (!text) {
    free(kernel);
    return femint_seterr(ctx, FEMINT_ENOMEM, "%s: out of memory", who);
  }
  size_t at = (size_t)snprintf(text, len, "#define FEMINT_K {");
  for (int i = 0; i < (pw->nconst ? pw->nconst : 1); i++)
    at += (size_t)snprintf(text + at, len - at, "%s%.17g", i ? ", " : "", pw->nconst ? pw->k[i] : 0.0);
  at += (size_t)snprintf(text + at, len - at, "}\n#define FEMINT_XQW {");
  for (size_t i = 0; i < nxqw; i++) {
    const size_t q = i / (size_t)(re->dim + 1), j = i % (size_t)(re->dim + 1);
    at += (size_t)snprintf(text + at, len - at, "%s%.17g", i ? ", " : "",
                           j < (size_t)re->dim ? re->xq[re->dim * q + j] : re->wq[q]);
  }
  at += (size_t)snprintf(text + at, len - at, "}\n");
  at += (size_t)pw_prelude(text + at, len - at, pw, re->dim, 1, single);
  snprintf(text + at, len - at, "%s\n%s", pw->source, kernel);
  free(kernel);
  int err = 0;
  rf->cellwise = kernel_cellwise(op);
  for (int dev = 0; dev < ctx->ncl_dev && !err; dev++) {
    if (!ctx->cl_driven[dev] || !ctx->cl_dev[dev].fp64) continue;
    rf->nb[dev] = kernel_batch(op, pw, dev, rf->cellwise);
    if (rf->nb[dev] < 0) {
      err = femint_seterr(ctx, FEMINT_EINVAL,
                          "%s: options.residual_cells = %d: the batch does not fit the %llu bytes "
                          "of local memory of OpenCL device %d",
                          who, op->plan->opt.residual_cells,
                          (unsigned long long)ctx->cl_dev[dev].local_mem, dev);
      break;
    }
    if (!rf->nb[dev]) continue;
    char options[400];
    snprintf(options, sizeof options,
             "-DDIM=%d -DNC=%d -DNA=%d -DAUX=%d -DNSH=%d -DNQ=%d -DNB=%d -DWG=%d -DNCONST=%d "
             "-DFEMINT_FP64 -DHAS_F0=%d -DHAS_F1=%d -DAFFINE=%d -DCELLWISE=%d -DHAS_G0=%d "
             "-DHAS_G1=%d -DHAS_G2=%d -DHAS_G3=%d",
             re->dim, pw->ncomp, pw->naux, pw->aux, re->nsh, re->nq, rf->nb[dev], RESIDUAL_WG,
             pw->nconst, pw_defines(pw->source, "f0"), pw_defines(pw->source, "f1"),
             op->residual->affine, rf->cellwise, pw_defines(pw->source, "g0"),
             pw_defines(pw->source, "g1"), pw_defines(pw->source, "g2"),
             pw_defines(pw->source, "g3"));
    err = operator_build_failed(
        op, femint_context_program(ctx, dev, text, options, "residual", &rf->prog[dev]), pw->name);
    if (!err && pw_defines_g(pw->source) && rf->prog[dev] && rf->prog[dev]->kernel && !rf->jkernel[dev]) {
      cl_int cerr; /* the Jacobian's, of the same program (a source without g0..g3 has none) */
      rf->jkernel[dev] = clCreateKernel(rf->prog[dev]->program, "jacobian", &cerr);
      if (cerr != CL_SUCCESS)
        fprintf(stderr, "femint: warning: %s: the Jacobian's kernel on OpenCL device %d: error "
                        "%d; the CPU workers take its work\n", pw->name, dev, cerr);
    }
  }
  free(text);
  return err;
}

/* The functions, programs, per-cell auxiliary values and task arguments of a form. */
static int residual_form_prepare(struct femint_operator *op, int f)
{
  struct op_residual *r = op->residual;
  struct residual_form *rf = &r->rf[f];
  const struct pointwise *pw = op->forms[f]->pw;
  const struct plan *p = op->plan;
  const struct ev_sum *e = r->es;
  femint_context_t ctx = op->ctx;
  const int dim = op->space->mesh->topo->dim;
  if (pw->f0 || pw->f1) {
    rf->f0 = pw->f0;
    rf->f1 = pw->f1;
    memcpy(rf->g, pw->g, sizeof rf->g);
    rf->cpu = 1;
  } else if (p->opt.where != FEMINT_WHERE_OPENCL && ctx->ncpu > 0) {
    FEMINT_CALL(pw_compile_cpu(ctx, pw, dim, &rf->dl, &rf->f0, &rf->f1, rf->g, &rf->cells));
    rf->cpu = 1;
  }
  FEMINT_CALL(residual_programs(op, f));
  rf->args = calloc((size_t)e->nchunk + 1, sizeof *rf->args);
  FEMINT_CHECK(rf->args, ctx, FEMINT_ENOMEM, "%s: out of memory", who);
  if (pw->aux == FEMINT_AUX_CELL) {
    rf->acell = malloc(((size_t)p->ncell * pw->naux + 1) * sizeof *rf->acell);
    rf->h_acell = calloc((size_t)e->nchunk + 1, sizeof *rf->h_acell);
    FEMINT_CHECK(rf->acell && rf->h_acell, ctx, FEMINT_ENOMEM, "%s: out of memory", who);
    for (int k = 0; k < p->ncell; k++)
      memcpy(rf->acell + (size_t)k * pw->naux, pw->aux_cell + (size_t)p->cells[k] * pw->naux,
             (size_t)pw->naux * sizeof *rf->acell);
    for (int i = 0; i < e->nchunk; i++)
      starpu_vector_data_register(&rf->h_acell[i], STARPU_MAIN_RAM,
                                  (uintptr_t)(rf->acell + (size_t)e->first[i] * pw->naux),
                                  (uint32_t)((size_t)e->ncell[i] * pw->naux), sizeof(double));
  }
  for (int i = 0; i < e->nchunk; i++)
    rf->args[i] = (struct residual_arg){.ctx = ctx, .re = r->re, .dim = dim, .nc = pw->ncomp,
                                        .na = pw->naux, .aux = pw->aux, .ncell = e->ncell[i],
                                        .single = r->single, .affine = r->affine,
                                        .lanes = r->lanes,
                                        .k = pw->k, .f0 = rf->f0,
                                        .f1 = rf->f1, .cells = rf->cells,
                                        .g = rf->g, .jkernel = rf->jkernel,
                                        .program = rf->prog, .nb = rf->nb,
                                        .cellwise = rf->cellwise,
                                        .nbatch = p->opt.residual_batches > 0
                                                      ? p->opt.residual_batches
                                                      : 1};
  rf->ready = 1;
  return 0;
}

/* The auxiliary field's modes per plan cell, for its space (made again when it changes). */
static int residual_aux_dofs(struct femint_operator *op, const struct femint_space *as)
{
  struct op_residual *r = op->residual;
  if (r->aux_space == as && r->aux_gen == as->generation) return 0;
  const struct plan *p = op->plan;
  const struct ev_sum *e = r->es;
  const int nsh = r->re->nsh;
  unregister_all(r->h_adofs, e->nchunk);
  r->h_adofs = calloc((size_t)e->nchunk + 1, sizeof *r->h_adofs);
  free(r->adofs);
  r->adofs = malloc(((size_t)p->ncell * nsh + 1) * sizeof *r->adofs);
  r->aux_space = NULL;
  FEMINT_CHECK(r->h_adofs && r->adofs, op->ctx, FEMINT_ENOMEM, "%s: out of memory", who);
  for (int k = 0; k < p->ncell; k++)
    memcpy(r->adofs + (size_t)k * nsh, &as->cell_mode[as->cell_off[p->cells[k]]],
           (size_t)nsh * sizeof *r->adofs);
  for (int i = 0; i < e->nchunk; i++)
    starpu_vector_data_register(&r->h_adofs[i], STARPU_MAIN_RAM,
                                (uintptr_t)(r->adofs + (size_t)e->first[i] * nsh),
                                (uint32_t)((size_t)e->ncell[i] * nsh), sizeof(int64_t));
  r->aux_space = as;
  r->aux_gen = as->generation;
  return 0;
}

int residual_check(const struct femint_operator *op, const char *who, int form,
                          const struct femint_vector *u, const struct femint_vector *aux,
                          const struct femint_vector *F)
{
  femint_context_t ctx = op->ctx;
  FEMINT_CALL(operator_check_state(op, who));
  FEMINT_CHECK(form >= 0 && form < op->nform, ctx, FEMINT_EINVAL, "%s: form %d of an operator of %d",
               who, form, op->nform);
  const struct pointwise *pw = op->forms[form]->pw;
  FEMINT_CHECK(pw, ctx, FEMINT_EINVAL, "%s: form %d is %s, not pointwise", who, form,
               form_kind_name(op->forms[form]->kind));
  const struct femint_space *s = op->space;
  FEMINT_CHECK(refel_nodal(s->mesh->topo->shape, s->family), ctx, FEMINT_ENOTSUP,
               "%s: residuals are for Lagrange spaces (triangles, tetrahedra, hexahedra); the "
               "mesh holds %s",
               who, s->mesh->topo->plural);
  FEMINT_CALL(vector_check(op, u, who, "u"));
  if (F) FEMINT_CALL(vector_check(op, F, who, "F"));
  FEMINT_CHECK(u != F, ctx, FEMINT_EINVAL, "%s: u and F are the same vector", who);
  FEMINT_CHECK((pw->aux == FEMINT_AUX_FIELD) == (aux != NULL), ctx, FEMINT_EINVAL,
               "%s: aux is %s, but the form %s", who, aux ? "given" : "NULL",
               pw->aux == FEMINT_AUX_FIELD ? "takes an auxiliary field" : "takes no auxiliary field");
  if (!aux) return 0;
  const struct femint_space *as = aux->space;
  FEMINT_CHECK(as->mesh == s->mesh && as->family == FEMINT_H1 && as->order[0] == s->order[0] &&
                   as->ncomp == pw->naux,
               ctx, FEMINT_EINVAL,
               "%s: aux belongs to a space of %d components and order %d%s; the form's auxiliary "
               "field takes %d components of order %d on the operator's mesh",
               who, as->ncomp, as->order[0], as->mesh == s->mesh ? "" : " on another mesh",
               pw->naux, s->order[0]);
  FEMINT_CHECK(!aux->lent && aux != F, ctx, FEMINT_EINVAL, "%s: aux is lent or is F", who);
  return 0;
}

int residual_prepare(femint_operator_t op, int form, femint_vector_t aux)
{
  if (!op->residual || !op->residual->rf[form].ready) {
    /* the first call's work on this thread (the geometry, the compilations): StarPU's idle
     * workers are paused meanwhile (as for the apply) */
    femint_host_quiet(1);
    const int setup = op->residual ? 0 : residual_setup(op);
    int err = setup;
    if (!err && !op->residual->rf[form].ready) err = residual_form_prepare(op, form);
    femint_host_quiet(0);
    if (setup) operator_residual_release(op);
    if (err) return err;
  }
  return aux ? residual_aux_dofs(op, aux->space) : 0;
}

int residual_where(femint_operator_t op, int form, int jacobian, const char *name,
                   uint32_t *where)
{
  femint_context_t ctx = op->ctx;
  struct op_residual *r = op->residual;
  const struct residual_form *rf = &r->rf[form];
  const struct pointwise *pw = op->forms[form]->pw;
  const int cpu = rf->cpu && (!jacobian || rf->g[0] || rf->g[1] || rf->g[2] || rf->g[3]);
  *where = cpu && op->plan->opt.where != FEMINT_WHERE_OPENCL ? STARPU_CPU : 0;
  int usable[FEMINT_MAX_CL_DEVICES] = {0}, gpu = 0;
  for (int dev = 0; dev < ctx->ncl_dev; dev++)
    if ((usable[dev] = jacobian ? rf->jkernel[dev] != NULL : rf->prog[dev] && rf->prog[dev]->kernel)) {
      *where |= STARPU_OPENCL;
      gpu |= !(ctx->cl_dev[dev].type & CL_DEVICE_TYPE_CPU);
    }
  if (gpu && operator_gpu_alone(op)) *where = STARPU_OPENCL;
  FEMINT_CHECK(*where, ctx, FEMINT_ENODEV, "%s: no worker can evaluate %s%s (%s)", name,
               jacobian ? "the Jacobian of " : "", pw->name,
               jacobian && !pw_defines_g(pw->source) ? "its source defines none of g0..g3, which the OpenCL "
                                       "workers need; compiled ones serve the CPU workers"
               : jacobian && op->plan->opt.where != FEMINT_WHERE_OPENCL
                   ? "the CPU workers have none of g0..g3 compiled, and no OpenCL device built "
                     "the source's"
                   : "OpenCL only, and no device built it in double precision");
  if (!r->home_chosen) {
    FEMINT_CALL(ev_home_choose(op, usable, r->vk, &r->home));
    worker_mask_make(ctx, op->plan->opt.devices, r->home, &r->mask);
    r->home_chosen = 1;
  }
  return 0;
}

void residual_handles(const struct femint_operator *op, int form, const struct femint_vector *u,
                      const struct femint_vector *aux, int i, starpu_data_handle_t *h)
{
  const struct op_residual *r = op->residual;
  const struct pointwise *pw = op->forms[form]->pw;
  h[0] = u->h;
  h[1] = r->es->h_dofs[i];
  h[2] = r->h_geo[i];
  h[3] = r->h_phi;
  h[4] = aux ? aux->h : pw->aux == FEMINT_AUX_CELL ? r->rf[form].h_acell[i] : r->h_none;
  h[5] = aux ? r->h_adofs[i] : r->h_none;
}

/* Submit the element residuals of every chunk, and (F set) their sum into F: tasks[0 ..
 * nchunk], to be waited for by residual_finish. */
static int residual_submit(femint_operator_t op, int form, femint_vector_t u, femint_vector_t aux,
                           femint_vector_t F, const char *name, struct starpu_task ***out)
{
  femint_context_t ctx = op->ctx;
  *out = NULL;
  FEMINT_CALL(residual_prepare(op, form, aux));
  struct op_residual *r = op->residual;
  struct residual_form *rf = &r->rf[form];
  uint32_t where;
  FEMINT_CALL(residual_where(op, form, 0, name, &where));
  const struct ev_sum *e = r->es;
  struct starpu_task **tasks = *out = calloc((size_t)e->nchunk + 1, sizeof *tasks);
  FEMINT_CHECK(tasks, ctx, FEMINT_ENOMEM, "%s: out of memory", name);
  int err = 0;
  for (int i = 0; i < e->nchunk && !err; i++) {
    rf->args[i].status = 0;
    rf->args[i].sorted = F && e->chunk_sorted; /* to their places for the sum, else cell by cell */
    rf->args[i].wrote_sorted = e->chunk_sorted ? &e->chunk_sorted[i] : NULL;
    struct starpu_task *t = starpu_task_create();
    t->cl = &femint_cl_residual;
    t->cl_arg = &rf->args[i];
    t->where = where;
    worker_mask_set(t, &r->mask);
    residual_handles(op, form, u, aux, i, t->handles);
    t->handles[6] = e->h_ev[i];
    t->handles[7] = rf->args[i].sorted ? e->h_slot[i] : r->h_none;
    err = task_submit(ctx, t, &tasks[i], name);
  }
  if (!err && F) err = ev_sum_submit(op, r->es, F, r->vk, r->home, NULL, &tasks[e->nchunk], name);
  return err;
}

/* Wait for the tasks residual_submit made (and free them); the first error. */
static int residual_finish(femint_operator_t op, int form, int sum, struct starpu_task **tasks,
                           int err, const char *name)
{
  femint_context_t ctx = op->ctx;
  if (!tasks) return err;
  const struct ev_sum *e = op->residual->es;
  const struct residual_form *rf = &op->residual->rf[form];
  for (int i = 0; i <= e->nchunk; i++) {
    if (!tasks[i]) continue;
    if (starpu_task_wait(tasks[i]) && !err)
      err = femint_seterr(ctx, FEMINT_ERUNTIME, "%s: a task failed", name);
    starpu_task_destroy(tasks[i]);
  }
  free(tasks);
  for (int i = 0; i < e->nchunk && !err; i++)
    if (rf->args[i].status) err = femint_seterr(ctx, rf->args[i].status, "%s: %s", name, rf->args[i].msg);
  const char *msg;
  const int st = sum && !err ? ev_sum_status(e, &msg) : 0;
  if (st) err = femint_seterr(ctx, st, "%s: %s", name, msg);
  return err;
}

/* Over several devices (options.devices >= 2, struct apply_split): each part evaluates the
 * residual of its own DOFs from u's values at its cells (its own and its ghosts), through main
 * memory; the parts' tasks run at once. */
static int residual_split(struct apply_split *sp, int form, femint_vector_t u, femint_vector_t aux,
                          femint_vector_t F)
{
  const int np = apply_split_nparts(sp);
  struct femint_vector **vu, **vf;
  struct starpu_task **tasks[FEMINT_MAX_CL_DEVICES] = {0};
  int err = apply_split_io(sp, &vu, &vf);
  double *a;
  if (!err && !(err = femint_vector_get_array(u, FEMINT_READ, &a))) {
    err = apply_split_scatter(sp, a, vu);
    femint_vector_restore_array(u, &a);
  }
  int done = 0;
  for (; done < np && !err; done++)
    err = residual_submit(apply_split_part(sp, done), form, vu[done], aux, vf[done], who,
                          &tasks[done]);
  for (int d = 0; d < done; d++)
    err = residual_finish(apply_split_part(sp, d), form, 1, tasks[d], err, who);
  if (!err && !(err = femint_vector_get_array(F, FEMINT_WRITE, &a))) {
    err = apply_split_gather(sp, vf, a);
    femint_vector_restore_array(F, &a);
  }
  return err;
}

/* The element residuals of every chunk, and (F set) their sum into F (over several devices when
 * the operator is split: F only); waits for the tasks. */
static int residual_once(femint_operator_t op, int form, femint_vector_t u, femint_vector_t aux,
                         femint_vector_t F, const char *name)
{
  struct apply_split *sp = NULL;
  if (F) FEMINT_CALL(operator_split(op, &sp));
  if (sp) return residual_split(sp, form, u, aux, F);
  struct starpu_task **tasks;
  const int err = residual_submit(op, form, u, aux, F, name, &tasks);
  return residual_finish(op, form, F != NULL, tasks, err, name);
}

/* The same, done again without a device that failed. */
static int residual_run(femint_operator_t op, int form, femint_vector_t u, femint_vector_t aux,
                        femint_vector_t F, const char *name)
{
  operator_devices_refresh(op);
  const int err = residual_once(op, form, u, aux, F, name);
  return operator_retry(op, err, name) ? residual_once(op, form, u, aux, F, name) : err;
}

int femint_operator_residual(femint_operator_t op, int form, femint_vector_t u,
                             femint_vector_t aux, femint_vector_t F)
{
  FEMINT_CHECK(op, NULL, FEMINT_EINVAL, "%s: NULL operator", who);
  FEMINT_CALL(residual_check(op, who, form, u, aux, F));
  return residual_run(op, form, u, aux, F, who);
}

int femint_operator_residual_cells(femint_operator_t op, int form, femint_vector_t u,
                                   femint_vector_t aux, femint_residual_fn fn, void *user)
{
  static const char cwho[] = "femint_operator_residual_cells";
  FEMINT_CHECK(op, NULL, FEMINT_EINVAL, "%s: NULL operator", cwho);
  femint_context_t ctx = op->ctx;
  FEMINT_CHECK(fn, ctx, FEMINT_EINVAL, "%s: fn is NULL", cwho);
  FEMINT_CALL(residual_check(op, cwho, form, u, aux, NULL));
  FEMINT_CALL(residual_run(op, form, u, aux, NULL, cwho));
  const struct op_residual *r = op->residual;
  const struct ev_sum *e = r->es;
  const struct femint_space *s = op->space;
  const int nsh = r->re->nsh, nc = s->ncomp, n = nsh * nc;
  double *res = malloc(((size_t)e->size * n + 1) * sizeof *res);
  int64_t *dofs = malloc(((size_t)e->size * n + 1) * sizeof *dofs);
  if (!res || !dofs) {
    free(res);
    free(dofs);
    return femint_seterr(ctx, FEMINT_ENOMEM, "%s: out of memory", cwho);
  }
  int err = 0;
  for (int i = 0; i < e->nchunk && !err; i++) {
    /* the chunk's residuals [cell][nc][nsh] into the element order [cell][nsh][nc] */
    starpu_data_acquire(e->h_ev[i], STARPU_R);
    const void *ev = ev_chunk_host(e, i);
    for (int k = 0; k < e->ncell[i]; k++) {
      const size_t cell = (size_t)e->first[i] + k;
      for (int f = 0; f < nsh; f++) {
        const int64_t m = e->dofs[cell * nsh + f];
        for (int c = 0; c < nc; c++) {
          const size_t at = ((size_t)k * nc + c) * nsh + f;
          res[(size_t)k * n + f * nc + c] = real_at(ev, at, r->single);
          const int64_t d = m < 0 ? -1 : m * nc + c;
          dofs[(size_t)k * n + f * nc + c] = d >= 0 && s->global_dof ? s->global_dof[d] : d;
        }
      }
    }
    starpu_data_release(e->h_ev[i]);
    const struct femint_residual_batch b = {form, e->ncell[i], op->plan->cells + e->first[i], n,
                                            res, dofs};
    if (fn(&b, user)) err = femint_seterr(ctx, FEMINT_ECALLBACK, "%s: the caller's function "
                                                                  "stopped at chunk %d", cwho, i);
  }
  free(res);
  free(dofs);
  return err;
}
