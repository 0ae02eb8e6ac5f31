/* The plan of an operator: groups of cells by order (one group per order and form), batches of
 * neighbouring cells sized from the element matrix, the OpenCL programs of each group, and the
 * packing of a batch's inputs.
 *
 * Batches are runs of consecutive cells of a group, not colour classes: the DOFs are numbered in
 * the order the cells meet them, so a run of cells writes a few narrow ranges of rows, i.e. a few
 * row blocks, and the assemblies of batches that share no block run at the same time (StarPU's
 * commute access on the blocks). Inside a batch the threads of the team split the rows
 * (assemble.c), so cells of one batch may share DOFs. A colouring would make every batch a set
 * of cells spread over the whole mesh, touching every block, and serialize the assemblies. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codelets/kernels.h"
#include "host/mesh.h"
#include "host/pointwise.h"
#include "host/refel_quad.h"
#include "host/refel_tet.h"
#include "plan.h"

/* Whether a generic form has coefficients of z derivatives (index 3), which a 2D element has not. */
static int generic_uses_z(const struct femint_form *form)
{
  for (int v = 0; v < form->nvalues; v++)
    for (int k = 0; k < form->ncoef; k++) {
      const int d = k % 16;
      if ((d / 4 == 3 || d % 4 == 3) && form->coef[(size_t)v * form->ncoef + k] != 0) return 1;
    }
  return 0;
}

/* The OpenCL programs of an H1 group: the variant chosen, configured for every device. */
static int h1_programs(femint_context_t ctx, struct group *g, int variant)
{
  int chosen;
  FEMINT_CALL(femint_variant_choose(ctx, g, variant, &chosen));
  FEMINT_CALL(group_set_variant(ctx, g, chosen));
  char options[1024];
  char *source = volume_cl_source(g->variant);
  FEMINT_CHECK(source, ctx, FEMINT_EOPENCL, "the OpenCL source of the volume kernel is missing");
  int err = 0;
  for (int dev = 0; dev < ctx->ncl_dev && !err; dev++) {
    err = group_cl_configure(&ctx->cl_dev[dev], g, g->variant, &g->cl_cfg[dev]);
    if (err) {
      err = femint_seterr(ctx, err, "order %d, variant %s on OpenCL device %d (%s): %s", g->order,
                          femint_variant_name(g->variant), dev, ctx->cl_dev[dev].name,
                          femint_thread_error());
      break;
    }
    volume_cl_options(&g->cl_cfg[dev], options, sizeof options);
    err = femint_context_program(ctx, dev, source, options, volume_cl_kernel_name(g->variant),
                                 &g->program[dev]);
  }
  free(source);
  return err;
}

/* The OpenCL programs of an H(curl) group: the batch kernel of its form on every driven device
 * that has the precision (the CPU workers take the batches elsewhere). */
static int hcurl_programs(femint_context_t ctx, struct group *g)
{
  char *source = femint_kernel_text("hcurl.cl");
  FEMINT_CHECK(source, ctx, FEMINT_ENOMEM, "the OpenCL source of the H(curl) kernel is missing");
  const char *real =
      g->precision == FEMINT_SINGLE ? "-DREAL=float" : "-DREAL=double -DFEMINT_FP64";
  int err = 0;
  for (int dev = 0; dev < ctx->ncl_dev && !err; dev++) {
    if (!ctx->cl_driven[dev] || (g->precision == FEMINT_DOUBLE && !ctx->cl_dev[dev].fp64))
      continue;
    char options[256];
    snprintf(options, sizeof options,
             "-DNSH=%d -DNQ=%d -DNNODE=%d -DWHICH=%d -DSYMMETRIC=%d -DWG_SIZE=%d %s", g->nsh,
             g->re->nq, g->nnode, g->kind == FORM_CURLCURL, g->symmetric, hcurl_wg_size(g->nsh),
             real);
    err = femint_context_program(ctx, dev, source, options, "hcurl_matrix", &g->program[dev]);
  }
  free(source);
  return err;
}

int group_init(femint_context_t ctx, const struct femint_space *space,
               const struct femint_form *form, int order, int precision, int variant,
               int symmetric, int use_opencl, struct group *g)
{
  memset(g, 0, sizeof *g);
  const int shape = space                          ? space->mesh->topo->shape
                    : form->family == FEMINT_HCURL ? FEMINT_TET
                    : form->dim == 2               ? FEMINT_QUAD
                                                   : FEMINT_PRISM;
  FEMINT_CHECK(!space || space->family == form->family, ctx, FEMINT_EINVAL,
               "the %s form is for %s spaces but the space is %s", form_kind_name(form->kind),
               form->family == FEMINT_H1 ? "H1" : "H(curl)",
               space && space->family == FEMINT_H1 ? "H1" : "H(curl)");
  FEMINT_CALL(femint_context_refel(ctx, shape, form->family, order, &g->re));
  FEMINT_CHECK(!symmetric || form_symmetric(form), ctx, FEMINT_ENOTSUP,
               "symmetric storage needs a symmetric form (elasticity, laplace, mass or the H(curl) "
               "forms), not the generic one");
  g->ctx = ctx;
  g->shape = shape;
  g->family = form->family;
  g->dim = g->re->dim;
  FEMINT_CHECK(!form->dim || form->dim == g->dim, ctx, FEMINT_EINVAL,
               "the %s form is made for %dD but the mesh is %dD (%s)", form_kind_name(form->kind),
               form->dim, g->dim,
               g->dim == 2 ? "2D meshes take femint_form_create_plane_elasticity"
                           : "3D meshes take femint_form_create_elasticity");
  FEMINT_CHECK(g->dim == 3 || form->kind != FORM_GENERIC || !generic_uses_z(form), ctx,
               FEMINT_EINVAL, "the generic form has coefficients of z derivatives (index 3) but the "
               "mesh is 2D");
  g->order = order;
  g->kind = form->kind;
  g->ne = form->ne;
  g->precision = precision;
  g->symmetric = symmetric;
  g->nsh = g->re->nsh;
  g->n = g->nsh * g->ne;
  g->form = form;
  g->space = space;
  g->real_size = precision == FEMINT_SINGLE ? sizeof(float) : sizeof(double);
  g->out_size = symmetric ? (size_t)g->n * (g->n + 1) / 2 : (size_t)g->n * g->n;
  const double blocks = (double)g->nsh * g->nsh * g->re->nq;
  g->flops_seed_per_cell = blocks * form_flops_per_block(form);
  if (form->family == FEMINT_HCURL) {
    g->nnode = space ? mesh_nnode(space->mesh) : TET_NV;
    g->ncoef = 9;
    g->geo_size = 3 * (size_t)g->nnode;
    /* the CPU codelet: the rows R_q F_q of every point (3 nq x nsh), then their Gram matrix */
    g->flops_per_cell = 2.0 * 3 * g->re->nq * g->nsh * 3 + (double)g->nsh * g->nsh * 3 * g->re->nq;
    FEMINT_CALL(femint_context_hcurl_tables(ctx, order, g->nnode, precision, &g->h_tab[0]));
    return use_opencl ? hcurl_programs(ctx, g) : 0;
  }
  g->nterms = 1 + g->dim * g->dim;
  g->nnode = space ? mesh_nnode(space->mesh) : topo_of(shape)->nv;
  /* the generic coefficients travel as c[ne][ne][dim+1][dim+1] */
  g->ncoef = form->kind == FORM_GENERIC ? form->ne * form->ne * (g->dim + 1) * (g->dim + 1)
                                        : form->ncoef;
  g->flops_per_cell = volume_cpu_flops(g);
  FEMINT_CALL(femint_context_phi(ctx, shape, order, precision, &g->h_tab[0]));
  FEMINT_CALL(group_set_variant(ctx, g, FEMINT_VARIANT_GEMM));
  /* a pointwise form has no element matrices: its residual makes its own programs */
  return use_opencl && form->kind != FORM_POINTWISE ? h1_programs(ctx, g, variant) : 0;
}

int group_set_variant(femint_context_t ctx, struct group *g, int variant)
{
  g->variant = variant;
  g->geo_coords = variant != FEMINT_VARIANT_REG_NOJAC && variant != FEMINT_VARIANT_SHM_NOJAC;
  if (variant == FEMINT_VARIANT_GEMM) {
    g->geo_size = (size_t)g->nnode * g->dim;
    return femint_context_geom_table(ctx, g->shape, g->order, g->nnode, g->precision,
                                     &g->h_tab[1], NULL);
  }
  g->geo_size = g->geo_coords ? 18 : (size_t)g->re->nq * g->nterms;
  return femint_context_quad(ctx, g->shape, g->order, g->precision, &g->h_tab[1]);
}

int group_cl_configure(const struct femint_cl_device *dev, const struct group *g, int variant,
                       struct volume_cl_config *cfg)
{
  FEMINT_CALL(volume_cl_configure(dev, g->dim, g->nsh, g->re->nq, g->ne, g->ncoef, g->kind,
                                  g->precision, variant, g->symmetric, cfg));
  return variant == FEMINT_VARIANT_GEMM ? volume_cl_set_nodes(cfg, g->nnode) : 0;
}

/* Cells per batch: H1, about 32 MiB of element matrices; H(curl), about 8 MiB and at least 16
 * cells (the sizes that measured best on the H200); in both at least four batches per worker
 * (of nw workers). */
static int batch_size(int nw, const struct group *g, int ncell_group, int max_batch)
{
  if (max_batch > 0) return max_batch;
  const double bytes = (double)g->out_size * g->real_size;
  const double target = g->family == FEMINT_HCURL ? 8.0 * 1024 * 1024 : 32.0 * 1024 * 1024;
  int by_bytes = (int)(target / bytes);
  if (nw < 1) nw = 1;
  int spread = (ncell_group + 4 * nw - 1) / (4 * nw);
  int size = by_bytes < spread ? by_bytes : spread;
  if (g->family == FEMINT_HCURL && size < 16) size = 16;
  return size < 1 ? 1 : size;
}

/* The cell subset of the options: every listed cell inside the mesh, none twice. */
static int check_cells(femint_context_t ctx, const struct femint_mesh *mesh,
                       const struct femint_operator_options *opt)
{
  static const char who[] = "femint_operator_options";
  if (!opt->cells) return 0;
  FEMINT_CHECK(opt->ncells >= 0 && opt->ncells <= mesh->ncell, ctx, FEMINT_EINVAL,
               "%s: ncells = %d with a cell list (must be 0..%d, the cells of the mesh)", who,
               opt->ncells, mesh->ncell);
  unsigned char *seen = calloc((size_t)mesh->ncell + 1, 1);
  FEMINT_CHECK(seen, ctx, FEMINT_ENOMEM, "%s: out of memory checking the cell list", who);
  int err = 0;
  for (int k = 0; k < opt->ncells && !err; k++) {
    int c = opt->cells[k];
    if (c < 0 || c >= mesh->ncell)
      err = femint_seterr(ctx, FEMINT_EINVAL, "%s: cells[%d] = %d is outside [0, %d)", who, k,
                          c, mesh->ncell);
    else if (seen[c]++)
      err = femint_seterr(ctx, FEMINT_EINVAL, "%s: cell %d is listed twice (cells[%d])", who, c,
                          k);
  }
  free(seen);
  return err;
}

/* The forms against the space: each of its family and components, coefficients for one or every
 * cell, all symmetric when stored as upper halves. */
static int check_forms(femint_context_t ctx, const struct femint_space *space, int nform,
                       const struct femint_form *const *forms)
{
  const int ncell = space->mesh->ncell;
  for (int f = 0; f < nform; f++) {
    const struct femint_form *form = forms[f];
    FEMINT_CHECK(form, ctx, FEMINT_EINVAL, "femint_operator_create: forms[%d] is NULL", f);
    FEMINT_CHECK(form->family == space->family, ctx, FEMINT_EINVAL,
                 "femint_operator_create: forms[%d] (%s) is for %s spaces but the space is %s", f,
                 form_kind_name(form->kind), form->family == FEMINT_H1 ? "H1" : "H(curl)",
                 space->family == FEMINT_H1 ? "H1" : "H(curl)");
    FEMINT_CHECK(form->ne == space->ncomp, ctx, FEMINT_EINVAL,
                 "femint_operator_create: forms[%d] (%s) has %d components but the space has %d",
                 f,
                 form_kind_name(form->kind), form->ne, space->ncomp);
    FEMINT_CHECK(form->kind != FORM_POINTWISE || form->pw->aux != FEMINT_AUX_CELL ||
                     form->pw->ncell_aux == ncell,
                 ctx, FEMINT_EINVAL,
                 "femint_operator_create: forms[%d] (%s) has auxiliary values for %d cells but "
                 "the mesh has %d",
                 f, form->pw ? form->pw->name : "", form->pw ? form->pw->ncell_aux : 0, ncell);
    FEMINT_CHECK(form->nvalues == 1 || form->nvalues == ncell, ctx, FEMINT_EINVAL,
                 "femint_operator_create: forms[%d] (%s) has coefficients for %d cells but the "
                 "mesh has %d",
                 f,
                 form_kind_name(form->kind), form->nvalues, ncell);
  }
  return 0;
}

int plan_create(femint_context_t ctx, const struct femint_space *space, int nform,
                const struct femint_form *const *forms, const struct femint_operator_options *opt,
                int nworker, struct plan **out)
{
  const struct femint_mesh *mesh = space->mesh;
  const int ncell = mesh->ncell, pmax = refel_max_order(mesh->topo->shape, space->family);
  FEMINT_CALL(check_forms(ctx, space, nform, forms));
  FEMINT_CALL(check_cells(ctx, mesh, opt));
  /* The k-th cell to integrate: the k-th of the list, or cell k of the mesh. */
  const int nsel = opt->cells ? opt->ncells : ncell;
#define SELECTED(k) (opt->cells ? opt->cells[k] : (k))
  struct plan *p = calloc(1, sizeof *p);
  FEMINT_CHECK(p, ctx, FEMINT_ENOMEM, "plan: out of memory");
  p->ctx = ctx;
  p->space = space;
  p->nform = nform;
  p->forms = forms;
  p->opt = *opt;
  p->cl_usable = opt->where != FEMINT_WHERE_CPU && ctx->nopencl > 0;
  int err = FEMINT_ENOMEM;
  int count[FEMINT_MAX_ORDER + 1] = {0}, ngroup = 0;
  for (int k = 0; k < nsel; k++) count[space->order[SELECTED(k)]]++;
  for (int order = 1; order <= pmax; order++) ngroup += count[order] > 0;
  p->ncell = nsel;
  p->groups = calloc((size_t)nform * (ngroup + 1), sizeof *p->groups);
  p->cells = malloc(((size_t)nsel + 1) * sizeof *p->cells);
  p->batches = calloc((size_t)nform * (nsel + 1), sizeof *p->batches);
  if (!p->groups || !p->cells || !p->batches) goto fail;
  p->ngroup = ngroup;
  int pos = 0, i = 0;
  for (int order = 1; order <= pmax; order++) {
    if (!count[order]) continue;
    for (int f = 0; f < nform; f++) {
      struct group *g = &p->groups[f * ngroup + i];
      err = group_init(ctx, space, forms[f], order, opt->precision, opt->variant, opt->symmetric,
                       p->cl_usable, g);
      /* a device without fp64, or a program that does not build: the CPU workers integrate */
      const int no_fp64 = err == FEMINT_ENOTSUP, no_build = err == FEMINT_EOPENCL && ctx->ncpu > 0;
      if ((no_fp64 || no_build) && opt->where == FEMINT_WHERE_ANY && !opt->symmetric) {
        if (no_build)
          fprintf(stderr, "femint: warning: %s\nfemint: warning: the CPU workers integrate the "
                          "cells of order %d\n",
                  femint_last_error(ctx), order);
        err = group_init(ctx, space, forms[f], order, opt->precision, opt->variant, 0, 0, g);
      }
      if (err) goto fail;
      g->iform = f;
    }
    const struct group *g0 = &p->groups[i];
    const int nw = nworker > 0 ? nworker : ctx->nworker;
    const int start = pos, size = batch_size(nw, g0, count[order], opt->max_batch);
    for (int k = 0; k < nsel; k++)
      if (space->order[SELECTED(k)] == order) p->cells[pos++] = SELECTED(k);
    for (int b0 = start; b0 < pos; b0 += size) {
      struct batch *b = &p->batches[p->nbatch++];
      b->ctx = ctx;
      b->g = g0;
      b->cells = p->cells + b0;
      b->ncell = pos - b0 < size ? pos - b0 : size;
    }
    i++;
  }
#undef SELECTED
  /* the same batches for every form, with the form's group of their order */
  for (int f = 1; f < nform; f++)
    for (int j = 0; j < p->nbatch; j++) {
      struct batch *b = &p->batches[f * p->nbatch + j];
      *b = p->batches[j];
      b->g = &p->groups[f * ngroup + (p->batches[j].g - p->groups)];
    }
  *out = p;
  return 0;
fail:
  plan_destroy(&p);
  return err == FEMINT_ENOMEM ? femint_seterr(ctx, err, "plan: out of memory") : err;
}

void plan_destroy(struct plan **pp)
{
  struct plan *p = *pp;
  if (!p) return;
  for (int i = 0; i < p->nform * p->nbatch; i++) {
    struct batch *b = &p->batches[i];
    if (i < p->nbatch) free(b->blk); /* every form's batch i shares the blocks of form 0's */
    if (b->in_arena) continue;
    femint_host_free(p->ctx, b->geo);
    femint_host_free(p->ctx, b->coef);
    femint_host_free(p->ctx, b->mats);
  }
  free(p->batches);
  free(p->groups);
  free(p->cells);
  free(p);
  *pp = NULL;
}

void group_coef(const struct group *g, int cell, double *c)
{
  const double *k = form_coef(g->form, cell);
  if (g->kind != FORM_GENERIC || g->dim == 3) {
    memcpy(c, k, (size_t)g->ncoef * sizeof *c);
    return;
  }
  const int nd = g->dim + 1;
  for (int e = 0; e < g->ne * g->ne; e++)
    for (int i = 0; i < nd; i++)
      for (int j = 0; j < nd; j++) c[(e * nd + i) * nd + j] = k[(e * 4 + i) * 4 + j];
}

int group_cell_terms(const struct group *g, int cell, double *t)
{
  const struct femint_mesh *mesh = g->space->mesh;
  double X[3 * MESH_MAX_NODES];
  const int nnode = mesh_cell_nodes(mesh, cell, X);
  int bad = 0;
  if (!geom_terms(g->re, nnode, X, t, &bad)) return 0;
  const double *xi = g->re->xq + g->dim * bad;
  return femint_seterr(mesh->ctx, FEMINT_EJACOBIAN,
                       "cell %d has a non-positive Jacobian at reference point (%g, %g, %g)", cell,
                       xi[0], xi[1], g->dim == 3 ? xi[2] : 0.0);
}

/* The geometry input of a cell: H(curl), its nodes; H1, its geometric nodes relative to the
 * first (JAC variants and GEMM: the mesh checked every Jacobian when it was made; the Jacobian
 * does not depend on the origin, and small differences keep their digits in single precision) or
 * its Jacobian terms. */
static int cell_geometry(const struct group *g, int cell, double *t)
{
  const struct femint_mesh *mesh = g->space->mesh;
  if (g->family == FEMINT_HCURL) {
    femint_mesh_cell_nodes((femint_mesh_t)mesh, cell, t);
    return 0;
  }
  if (!g->geo_coords) return group_cell_terms(g, cell, t);
  const int nnode = mesh_cell_nodes(mesh, cell, t), dim = g->dim;
  for (int a = nnode - 1; a >= 0; a--)
    for (int i = 0; i < dim; i++) t[dim * a + i] -= t[i];
  return 0;
}

int plan_pack_batch(const struct plan *p, struct batch *b)
{
  const struct group *g = b->g;
  const int single = g->precision == FEMINT_SINGLE;
  if (!b->in_arena) {
    FEMINT_CALL(femint_host_alloc(p->ctx, (size_t)b->ncell * g->geo_size * g->real_size, &b->geo));
    FEMINT_CALL(femint_host_alloc(p->ctx, (size_t)b->ncell * g->ncoef * g->real_size, &b->coef));
  }
  double *t = malloc((g->geo_size > 3 * MESH_MAX_NODES ? g->geo_size : 3 * MESH_MAX_NODES) *
                     sizeof *t);
  double *c = malloc((size_t)g->ncoef * sizeof *c);
  if (!t || !c) {
    free(t);
    free(c);
    return femint_seterr(p->ctx, FEMINT_ENOMEM, "packing a batch of %d cells: out of memory",
                         b->ncell);
  }
  int err = 0;
  for (int k = 0; k < b->ncell && !err; k++) {
    const int cell = b->cells[k];
    if ((err = cell_geometry(g, cell, t))) break;
    const size_t off = (size_t)k * g->geo_size;
    group_coef(g, cell, c);
    if (single) {
      for (size_t i = 0; i < g->geo_size; i++) ((float *)b->geo)[off + i] = (float)t[i];
      for (int i = 0; i < g->ncoef; i++) ((float *)b->coef)[k * g->ncoef + i] = (float)c[i];
    } else {
      memcpy((double *)b->geo + off, t, g->geo_size * sizeof *t);
      memcpy((double *)b->coef + (size_t)k * g->ncoef, c, g->ncoef * sizeof *c);
    }
  }
  free(t);
  free(c);
  return err;
}
