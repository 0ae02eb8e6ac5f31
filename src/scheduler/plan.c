/* The plan of one assembly: groups of cells by (order, form), batches of neighbouring cells
 * sized from the element matrix, the OpenCL programs of each group, and the CSR pattern cut into
 * row blocks.
 *
 * Batches are runs of consecutive cells of a group, not colour classes: the DOFs are numbered
 * by vertex, edge, face and cell, in mesh order, so a run of cells writes a few narrow ranges of
 * rows, i.e. a few row blocks, and the assemblies of batches that share no block run at the same
 * time (StarPU's commute access on the blocks). Inside a batch the threads of the team split the
 * rows (assemble.c), so cells of one batch may share DOFs. A colouring would make every batch a
 * set of cells spread over the whole mesh, touching every block, and serialize the assemblies. */
#include <stdlib.h>
#include <string.h>

#include "host/mesh.h"
#include "host/refel_quad.h"
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

int group_init(femint_context_t ctx, const struct femint_space *space,
               const struct femint_form *form, int order, int precision, int variant,
               int symmetric, int use_opencl, struct group *g)
{
  memset(g, 0, sizeof *g);
  const int shape = space ? space->mesh->topo->shape : form->dim == 2 ? FEMINT_QUAD : FEMINT_PRISM;
  FEMINT_CALL(femint_context_refel(ctx, shape, order, &g->re));
  FEMINT_CHECK(!symmetric || form->kind != FORM_GENERIC, ctx, FEMINT_ENOTSUP,
               "symmetric storage needs a symmetric form (elasticity, laplace or mass), not the "
               "generic one");
  g->shape = shape;
  g->dim = g->re->dim;
  FEMINT_CHECK(!form->dim || form->dim == g->dim, ctx, FEMINT_EINVAL,
               "the %s form is made for %dD but the mesh is %dD (%s)", form_kind_name(form->kind),
               form->dim, g->dim,
               g->dim == 2 ? "quadrilaterals take femint_form_create_plane_elasticity"
                           : "prisms take femint_form_create_elasticity");
  FEMINT_CHECK(g->dim == 3 || form->kind != FORM_GENERIC || !generic_uses_z(form), ctx,
               FEMINT_EINVAL, "the generic form has coefficients of z derivatives (index 3) but the "
               "mesh is 2D");
  g->nterms = 1 + g->dim * g->dim;
  g->order = order;
  g->kind = form->kind;
  g->ne = form->ne;
  /* the generic coefficients travel as c[ne][ne][dim+1][dim+1] */
  g->ncoef = form->kind == FORM_GENERIC ? form->ne * form->ne * (g->dim + 1) * (g->dim + 1)
                                        : form->ncoef;
  g->precision = precision;
  g->symmetric = symmetric;
  g->nsh = g->re->nsh;
  g->n = g->nsh * g->ne;
  g->form = form;
  g->space = space;
  g->real_size = precision == FEMINT_SINGLE ? sizeof(float) : sizeof(double);
  g->out_size = symmetric ? (size_t)g->n * (g->n + 1) / 2 : (size_t)g->n * g->n;
  double blocks = (double)g->nsh * g->nsh * g->re->nq;
  g->flops_seed_per_cell = blocks * form_flops_per_block(form);
  g->flops_per_cell = volume_cpu_flops(g);
  FEMINT_CALL(femint_context_phi(ctx, shape, order, precision, &g->h_phi));
  FEMINT_CALL(femint_context_quad(ctx, shape, order, precision, &g->h_quad));
  g->variant = VARIANT_GEMM;
  if (use_opencl) FEMINT_CALL(femint_variant_choose(ctx, g, variant, &g->variant));
  g->geo_coords = volume_variant_jac(g->variant);
  g->geo_size = g->geo_coords ? 18 : (size_t)g->re->nq * g->nterms;
  if (!use_opencl) return 0;
  char options[1024];
  char *source = volume_cl_source(g->variant);
  FEMINT_CHECK(source, ctx, FEMINT_EOPENCL, "the OpenCL source of the volume kernel is missing");
  int err = 0;
  for (int dev = 0; dev < ctx->ncl_dev && !err; dev++) {
    err = volume_cl_configure(&ctx->cl_dev[dev], g->dim, g->nsh, g->re->nq, g->ne, g->ncoef, g->kind,
                              precision, g->variant, symmetric, &g->cl_cfg[dev]);
    if (err) {
      err = femint_seterr(ctx, err, "order %d, variant %s on OpenCL device %d (%s): %s", order,
                          volume_variant_name(g->variant), dev, ctx->cl_dev[dev].name,
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

/* Cells per batch: about 32 MiB of element matrices, and at least four batches per worker. */
static int batch_size(const struct femint_context *ctx, const struct group *g, int ncell_group,
                      int max_batch)
{
  if (max_batch > 0) return max_batch;
  double bytes = (double)g->out_size * g->real_size;
  int by_bytes = (int)(32.0 * 1024 * 1024 / bytes);
  int nw = ctx->nworker > 0 ? ctx->nworker : 1;
  int spread = (ncell_group + 4 * nw - 1) / (4 * nw);
  int size = by_bytes < spread ? by_bytes : spread;
  return size < 1 ? 1 : size;
}

/* Cut the rows into about nblock blocks of equal non-zeros (whole scalar modes each) and list
 * the blocks each batch writes. */
static int plan_row_blocks(struct plan *p, int nblock)
{
  struct csr *c = &p->csr;
  const int ne = p->space->ncomp;
  const int64_t nnz = c->rowptr[c->nrows];
  if (nblock > c->nrows / ne) nblock = (int)(c->nrows / ne);
  if (nblock < 1) nblock = 1;
  c->block_row = malloc((size_t)(nblock + 1) * sizeof *c->block_row);
  c->row_block = malloc((size_t)(c->nrows > 0 ? c->nrows : 1) * sizeof *c->row_block);
  if (!c->block_row || !c->row_block) return FEMINT_ENOMEM;
  int k = 0;
  c->block_row[0] = 0;
  for (int64_t r = 0; r < c->nrows; r += ne) {
    if (k + 1 < nblock && c->rowptr[r] >= (k + 1) * (nnz / nblock) && r > c->block_row[k])
      c->block_row[++k] = r;
    for (int a = 0; a < ne; a++) c->row_block[r + a] = k;
  }
  c->nblock = k + 1;
  c->block_row[c->nblock] = c->nrows;
  unsigned char *mark = calloc((size_t)c->nblock, 1);
  if (!mark) return FEMINT_ENOMEM;
  for (int i = 0; i < p->nbatch; i++) {
    struct batch *b = &p->batches[i];
    memset(mark, 0, (size_t)c->nblock);
    int n = 0;
    for (int j = 0; j < b->ncell; j++) {
      const struct femint_space *s = p->space;
      for (int64_t l = s->cell_off[b->cells[j]]; l < s->cell_off[b->cells[j] + 1]; l++)
        if (s->cell_mode[l] >= 0 && !mark[c->row_block[s->cell_mode[l] * ne]]) {
          mark[c->row_block[s->cell_mode[l] * ne]] = 1;
          n++;
        }
    }
    b->blk = malloc((size_t)n * sizeof *b->blk);
    if (!b->blk) {
      free(mark);
      return FEMINT_ENOMEM;
    }
    for (int k2 = 0; k2 < c->nblock; k2++)
      if (mark[k2]) b->blk[b->nblk++] = k2;
  }
  free(mark);
  return 0;
}

/* The cell subset of the options: every listed cell inside the mesh, none twice. */
static int check_cells(femint_context_t ctx, const struct femint_mesh *mesh,
                       const struct femint_assemble_options *opt)
{
  static const char who[] = "femint_assemble_options";
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

int plan_create(femint_context_t ctx, const struct femint_space *space,
                const struct femint_form *form, const struct femint_assemble_options *opt,
                int pattern, struct plan **out)
{
  const struct femint_mesh *mesh = space->mesh;
  const int ncell = mesh->ncell;
  FEMINT_CHECK(form->ne == space->ncomp, ctx, FEMINT_EINVAL,
               "the form has %d components but the space has %d", form->ne, space->ncomp);
  FEMINT_CHECK(form->nvalues == 1 || form->nvalues == ncell, ctx, FEMINT_EINVAL,
               "the form has coefficients for %d cells but the mesh has %d", form->nvalues,
               ncell);
  FEMINT_CHECK(opt->precision == FEMINT_DOUBLE || opt->precision == FEMINT_SINGLE, ctx,
               FEMINT_EINVAL, "precision %d is neither FEMINT_DOUBLE nor FEMINT_SINGLE",
               opt->precision);
  FEMINT_CHECK(opt->variant >= FEMINT_VARIANT_AUTO && opt->variant <= FEMINT_VARIANT_GEMM, ctx,
               FEMINT_EINVAL, "variant = %d is not a femint_variant value", opt->variant);
  FEMINT_CHECK(opt->where >= FEMINT_WHERE_ANY && opt->where <= FEMINT_WHERE_OPENCL, ctx,
               FEMINT_EINVAL, "where = %d is not a femint_where value", opt->where);
  FEMINT_CHECK(opt->where != FEMINT_WHERE_OPENCL || ctx->nopencl > 0, ctx, FEMINT_ENODEV,
               "integration on OpenCL was requested but StarPU has no OpenCL worker "
               "(without a GPU, set STARPU_OPENCL_ON_CPUS=1 to use a CPU OpenCL device)");
  FEMINT_CHECK(opt->where != FEMINT_WHERE_CPU || ctx->ncpu > 0, ctx, FEMINT_ENODEV,
               "integration on CPU was requested but StarPU has no CPU worker");
  FEMINT_CHECK(ctx->ncpu > 0, ctx, FEMINT_ENODEV,
               "assembly needs a CPU worker and StarPU has none (STARPU_NCPU=0?)");
  FEMINT_CALL(check_cells(ctx, mesh, opt));
  /* The k-th cell to integrate: the k-th of the list, or cell k of the mesh. */
  const int nsel = opt->cells ? opt->ncells : ncell;
#define SELECTED(k) (opt->cells ? opt->cells[k] : (k))
  struct plan *p = calloc(1, sizeof *p);
  FEMINT_CHECK(p, ctx, FEMINT_ENOMEM, "plan: out of memory");
  p->ctx = ctx;
  p->space = space;
  p->form = form;
  p->opt = *opt;
  p->cl_usable = opt->where != FEMINT_WHERE_CPU && ctx->nopencl > 0;
  int err = FEMINT_ENOMEM;
  int count[FEMINT_MAX_ORDER + 1] = {0};
  for (int k = 0; k < nsel; k++) count[space->order[SELECTED(k)]]++;
  p->ncell = nsel;
  p->groups = calloc(FEMINT_MAX_ORDER, sizeof *p->groups);
  p->cells = malloc(((size_t)nsel + 1) * sizeof *p->cells);
  p->batches = calloc((size_t)nsel + 1, sizeof *p->batches);
  if (!p->groups || !p->cells || !p->batches) goto fail;
  int pos = 0;
  for (int order = 1; order <= FEMINT_MAX_ORDER; order++) {
    if (!count[order]) continue;
    struct group *g = &p->groups[p->ngroup];
    err = group_init(ctx, space, form, order, opt->precision, opt->variant, opt->symmetric,
                     p->cl_usable, g);
    if (err == FEMINT_ENOTSUP && opt->where == FEMINT_WHERE_ANY && !opt->symmetric)
      err = group_init(ctx, space, form, order, opt->precision, opt->variant, 0, 0, g); /* no fp64 */
    if (err) goto fail;
    p->ngroup++;
    const int start = pos, size = batch_size(ctx, g, count[order], opt->max_batch);
    for (int k = 0; k < nsel; k++)
      if (space->order[SELECTED(k)] == order) p->cells[pos++] = SELECTED(k);
    for (int b0 = start; b0 < pos; b0 += size) {
      struct batch *b = &p->batches[p->nbatch++];
      b->ctx = ctx;
      b->g = g;
      b->cells = p->cells + b0;
      b->ncell = pos - b0 < size ? pos - b0 : size;
      b->csr = &p->csr;
    }
  }
#undef SELECTED
  err = pattern ? csr_build(ctx, space, p->ncell, p->cells, &p->csr) : 0;
  if (!err && pattern) err = plan_row_blocks(p, 8 * (ctx->nworker > 0 ? ctx->nworker : 1));
  if (err) goto fail;
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
  for (int i = 0; i < p->nbatch; i++) {
    free(p->batches[i].blk);
    if (p->batches[i].in_arena) continue;
    femint_host_free(p->ctx, p->batches[i].jac);
    femint_host_free(p->ctx, p->batches[i].coef);
    femint_host_free(p->ctx, p->batches[i].mats);
  }
  free(p->batches);
  free(p->groups);
  free(p->cells);
  csr_free(&p->csr);
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
  int bad = 0;
  if (g->shape == FEMINT_QUAD) {
    double X[16];
    const int nnode = mesh_quad_nodes(mesh, cell, X);
    if (!geom_quad_terms(g->re, nnode, X, t, &bad)) return 0;
  } else {
    double X[18];
    femint_mesh_cell_coords((femint_mesh_t)mesh, cell, X);
    if (!geom_prism_terms(g->re, X, t, &bad)) return 0;
  }
  const double *xi = g->re->xq + g->dim * bad;
  return femint_seterr(mesh->ctx, FEMINT_EJACOBIAN,
                       "cell %d has a non-positive Jacobian at reference point (%g, %g, %g)", cell,
                       xi[0], xi[1], g->dim == 3 ? xi[2] : 0.0);
}

int plan_pack_batch(struct plan *p, struct batch *b)
{
  const struct group *g = b->g;
  const struct femint_mesh *mesh = p->space->mesh;
  const int single = g->precision == FEMINT_SINGLE;
  if (!b->in_arena) {
    FEMINT_CALL(femint_host_alloc(p->ctx, (size_t)b->ncell * g->geo_size * g->real_size, &b->jac));
    FEMINT_CALL(femint_host_alloc(p->ctx, (size_t)b->ncell * g->ncoef * g->real_size, &b->coef));
  }
  double *t = malloc((g->geo_size > 18 ? g->geo_size : 18) * sizeof *t);
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
    /* JAC variants take the vertices (the mesh checked every Jacobian when it was made) */
    if (g->geo_coords) femint_mesh_cell_coords((femint_mesh_t)mesh, cell, t);
    else if ((err = group_cell_terms(g, cell, t))) break;
    size_t off = (size_t)k * g->geo_size;
    group_coef(g, cell, c);
    if (single) {
      for (size_t i = 0; i < g->geo_size; i++) ((float *)b->jac)[off + i] = (float)t[i];
      for (int i = 0; i < g->ncoef; i++) ((float *)b->coef)[k * g->ncoef + i] = (float)c[i];
    } else {
      memcpy((double *)b->jac + off, t, g->geo_size * sizeof *t);
      memcpy((double *)b->coef + (size_t)k * g->ncoef, c, g->ncoef * sizeof *c);
    }
  }
  free(t);
  free(c);
  return err;
}
