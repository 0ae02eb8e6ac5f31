/* femint_bench_kernel: the stages of integrating a batch of one order on one device, timed one
 * after the other like the rows of seed 000's Tables 5-7: input preparation, device allocation,
 * transfer in, kernel, transfer out and assembly, with flop counts and the bus rates reached. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "host/pattern.h"
#include "host/sparse.h"
#include "plan.h"

#define CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV 0x4000
#define CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV 0x4001

/* Peak GFLOP/s of an NVIDIA device from its compute capability (FP32 and FP64 lanes per
 * multiprocessor, without tensor cores); 0 when unknown. */
static double peak_gflops(cl_device_id id, const struct femint_cl_device *dev, int precision)
{
  cl_uint major = 0, minor = 0;
  if (clGetDeviceInfo(id, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof major, &major, NULL) ||
      clGetDeviceInfo(id, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, sizeof minor, &minor, NULL))
    return 0;
  int fp32 = 0, fp64 = 0;
  if (major == 7) fp32 = 64, fp64 = minor == 0 ? 32 : 2;
  else if (major == 8) fp32 = minor == 0 ? 64 : 128, fp64 = minor == 0 ? 32 : 2;
  else if (major == 9) fp32 = 128, fp64 = 64;
  else if (major >= 10) fp32 = 128, fp64 = 64;
  double lanes = precision == FEMINT_SINGLE ? fp32 : fp64;
  return lanes * 2.0 * dev->compute_units * dev->clock_mhz * 1e-3;
}

/* The tabulated reference functions in the group's precision. */
static const void *precision_phi(const struct group *g)
{
  return g->precision == FEMINT_SINGLE ? (const void *)g->re->phi_f : (const void *)g->re->phi;
}

static double event_seconds(cl_event ev)
{
  cl_ulong a = 0, b = 0;
  clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL);
  clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL);
  return 1e-9 * (double)(b - a);
}

/* A box of about ncell prisms. */
static void box_for(int ncell, int *nx, int *ny, int *nz)
{
  int n = (int)ceil(cbrt(ncell / 2.0));
  *nx = *ny = n;
  *nz = (ncell + 2 * n * n - 1) / (2 * n * n);
  if (*nz < 1) *nz = 1;
}

struct bench_buffers {
  cl_mem geo, coef, phi, quad, out;
};

static void release_buffers(struct bench_buffers *m)
{
  cl_mem *all[] = {&m->geo, &m->coef, &m->phi, &m->quad, &m->out};
  for (int i = 0; i < 5; i++)
    if (*all[i]) clReleaseMemObject(*all[i]), *all[i] = NULL;
}

int femint_bench_kernel(femint_context_t ctx, const struct femint_bench_options *opt,
                        struct femint_bench_result *res)
{
  FEMINT_CHECK(ctx && opt && res && opt->form, ctx, FEMINT_EINVAL, "bench: NULL argument");
  const int pmax = refel_max_order(opt->shape ? opt->shape : FEMINT_PRISM, FEMINT_H1);
  FEMINT_CHECK(opt->order >= 1 && opt->order <= pmax, ctx, FEMINT_EORDER,
               "bench: order %d is outside 1..%d", opt->order, pmax);
  const int dev = opt->device;
  FEMINT_CHECK(dev >= -1 && dev < ctx->ncl_dev, ctx, FEMINT_ENODEV,
               "bench: OpenCL device %d does not exist (%d found; -1 is the CPU)", dev,
               ctx->ncl_dev);
  memset(res, 0, sizeof *res);
  const struct femint_form *form = opt->form;
  int nx, ny, nz, err = 0;
  box_for(opt->ncell > 0 ? opt->ncell : 1024, &nx, &ny, &nz);
  femint_mesh_t mesh = NULL;
  femint_space_t space = NULL;
  struct plan *p = NULL;
  void *geo = NULL, *mats = NULL;
  struct pattern pat = {0};
  double *values = NULL;
  int *row_block = NULL;
  struct bench_buffers m = {0};
  cl_command_queue q = NULL;
  cl_program prog = NULL;
  cl_kernel kern = NULL;
  FEMINT_CHECK(opt->shape == 0 || opt->shape == FEMINT_PRISM || opt->shape == FEMINT_QUAD, ctx,
               FEMINT_EINVAL, "bench: unknown shape %d", opt->shape);
  if (opt->shape == FEMINT_QUAD) {
    const int side = (int)ceil(sqrt(opt->ncell > 0 ? opt->ncell : 1024));
    FEMINT_CALL(femint_mesh_create_box(ctx, FEMINT_QUAD, side, side, 1, side, side, 1, 0.2, 1,
                                       &mesh));
  } else {
    FEMINT_CALL(femint_mesh_create_box(ctx, FEMINT_PRISM, nx, ny, nz, nx, ny, nz, 0.2, 1, &mesh));
  }
  /* StarPU's idle workers poll for tasks: pause them while the host stages are timed. */
  femint_host_quiet(1);
  if ((err = femint_space_create(ctx, mesh, FEMINT_H1, form->ne, NULL, opt->order, &space)))
    goto done;
  struct femint_operator_options aopt = {.precision = opt->precision, .where = FEMINT_WHERE_CPU,
                                         .max_batch = 1 << 30, .symmetric = opt->symmetric};
  const struct femint_form *const forms[1] = {form};
  if ((err = plan_create(ctx, space, 1, forms, &aopt, 0, &p))) goto done;
  struct group *g = &p->groups[0];
  const int ncell = mesh->ncell, nq = g->re->nq;
  const size_t rs = g->real_size, out_per = g->out_size;
  res->ncell = ncell;
  res->flops_seed = g->flops_seed_per_cell;
  if (dev >= 0) { /* the variant decides what the batches carry: Jacobian terms or vertices */
    int v;
    if ((err = femint_variant_choose(ctx, g, opt->variant, &v))) goto done;
    if ((err = group_set_variant(ctx, g, v))) goto done;
    res->variant = v;
  }
  /* input preparation: the geometry and coefficients of every cell, batch after batch */
  double t = femint_now();
  for (int i = 0; i < p->nbatch && !err; i++) err = plan_pack_batch(p, &p->batches[i]);
  res->t_prep = (femint_now() - t) / ncell;
  if (err) goto done;
  if ((err = femint_host_alloc(ctx, (size_t)ncell * out_per * rs, &mats))) goto done;
  size_t off = 0;
  if (dev < 0) { /* the CPU codelet with one team on every core */
    res->flops_actual = g->flops_per_cell;
    t = femint_now();
    for (int i = 0; i < p->nbatch; i++) {
      struct batch *b = &p->batches[i];
      integrate_volume_batch_cpu(b, b->geo, b->coef, precision_phi(g), (char *)mats + off * rs, -1,
                                 ctx->cores);
      off += (size_t)b->ncell * out_per;
    }
    res->t_kernel = (femint_now() - t) / ncell;
  } else {
    struct volume_cl_config cfg;
    cl_context clctx;
    cl_device_id id;
    cl_int cerr;
    starpu_opencl_get_context(dev, &clctx);
    starpu_opencl_get_device(dev, &id);
    res->peak_gflops = peak_gflops(id, &ctx->cl_dev[dev], opt->precision);
    if ((err = group_cl_configure(&ctx->cl_dev[dev], g, g->variant, &cfg))) {
      err = femint_seterr(ctx, err, "bench: %s", femint_thread_error());
      goto done;
    }
    char options[1024];
    char *src = volume_cl_source(g->variant);
    volume_cl_options(&cfg, options, sizeof options);
    err = src ? femint_cl_build(clctx, id, src, options, &prog) : FEMINT_EOPENCL;
    free(src);
    if (err) {
      err = femint_seterr(ctx, err, "bench: %s", femint_thread_error());
      goto done;
    }
    kern = clCreateKernel(prog, volume_cl_kernel_name(g->variant), &cerr);
    q = clCreateCommandQueue(clctx, id, CL_QUEUE_PROFILING_ENABLE, &cerr);
    if (!kern || !q) {
      err = femint_seterr(ctx, FEMINT_EOPENCL, "bench: cannot create the kernel or queue (%d)", cerr);
      goto done;
    }
    res->flops_actual = volume_cl_flops(&cfg);
    /* the packed inputs in one pinned buffer */
    size_t ngeo = (size_t)ncell * g->geo_size, ncoef = (size_t)ncell * g->ncoef;
    if ((err = femint_host_alloc(ctx, (ngeo + ncoef) * rs, &geo))) goto done;
    size_t cells = 0;
    for (int i = 0; i < p->nbatch; i++) {
      struct batch *b = &p->batches[i];
      memcpy((char *)geo + cells * g->geo_size * rs, b->geo, (size_t)b->ncell * g->geo_size * rs);
      memcpy((char *)geo + (ngeo + cells * g->ncoef) * rs, b->coef, (size_t)b->ncell * g->ncoef * rs);
      cells += b->ncell;
    }
    size_t nphi = (size_t)nq * 4 * g->nsh;
    /* device allocation, made real by migrating the buffers to the device */
    t = femint_now();
    m.geo = clCreateBuffer(clctx, CL_MEM_READ_ONLY, ngeo * rs, NULL, &cerr);
    m.coef = clCreateBuffer(clctx, CL_MEM_READ_ONLY, ncoef * rs, NULL, &cerr);
    m.phi = clCreateBuffer(clctx, CL_MEM_READ_ONLY, nphi * rs, NULL, &cerr);
    /* the points of the JAC variants, or the geometry table of GEMM */
    const void *tab = p->ctx->quad[g->shape][opt->order][opt->precision == FEMINT_SINGLE];
    size_t ntab = (size_t)nq * 4;
    if (cfg.geo_nodes) {
      if ((err = femint_context_geom_table(ctx, g->shape, g->order, g->nnode, g->precision,
                                           &(starpu_data_handle_t){NULL}, &tab)))
        goto done;
      ntab = geom_table_size(g->re, g->nnode);
    }
    m.quad = clCreateBuffer(clctx, CL_MEM_READ_ONLY | (tab ? CL_MEM_COPY_HOST_PTR : 0), ntab * rs,
                            (void *)tab, &cerr); /* NOJAC: not read */
    m.out = clCreateBuffer(clctx, CL_MEM_WRITE_ONLY, (size_t)ncell * out_per * rs, NULL, &cerr);
    if (!m.geo || !m.coef || !m.phi || !m.quad || !m.out) {
      err = femint_seterr(ctx, FEMINT_EOPENCL, "bench: device allocation of %d cells failed (%d)",
                          ncell, cerr);
      goto done;
    }
    cl_mem all[4] = {m.geo, m.coef, m.phi, m.out};
    clEnqueueMigrateMemObjects(q, 4, all, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0, NULL, NULL);
    clFinish(q);
    res->t_alloc = (femint_now() - t) / ncell;
    /* transfer in */
    cl_event ev[3];
    clEnqueueWriteBuffer(q, m.geo, CL_FALSE, 0, ngeo * rs, geo, 0, NULL, &ev[0]);
    clEnqueueWriteBuffer(q, m.coef, CL_FALSE, 0, ncoef * rs, (char *)geo + ngeo * rs, 0, NULL, &ev[1]);
    clEnqueueWriteBuffer(q, m.phi, CL_FALSE, 0, nphi * rs, precision_phi(g), 0, NULL, &ev[2]);
    clFinish(q);
    double tin = 0;
    for (int k = 0; k < 3; k++) tin += event_seconds(ev[k]), clReleaseEvent(ev[k]);
    /* per element: the element's own inputs (the tabulated functions are sent once per order) */
    res->bytes_in = (double)(ngeo + ncoef) * rs / ncell;
    res->t_in = tin / ncell;
    res->bw_in = (double)(ngeo + ncoef + nphi) * rs / tin * 1e-9;
    /* kernel: the best of a few launches */
    double best = INFINITY;
    for (int r = 0; r < (opt->repeat > 0 ? opt->repeat : 3) && !err; r++) {
      cl_event kev;
      cerr = volume_cl_enqueue(q, kern, &cfg, &ctx->cl_dev[dev], ncell, m.geo, m.coef, m.phi,
                               m.quad, m.out, 0, &kev);
      if (cerr != CL_SUCCESS) {
        err = femint_seterr(ctx, FEMINT_EOPENCL, "bench: kernel launch failed (%d)", cerr);
        break;
      }
      clWaitForEvents(1, &kev);
      best = fmin(best, event_seconds(kev));
      clReleaseEvent(kev);
    }
    if (err) goto done;
    res->t_kernel = best / ncell;
    /* transfer out */
    cl_event oev;
    clEnqueueReadBuffer(q, m.out, CL_FALSE, 0, (size_t)ncell * out_per * rs, mats, 0, NULL, &oev);
    clWaitForEvents(1, &oev);
    double tout = event_seconds(oev);
    clReleaseEvent(oev);
    res->bytes_out = (double)out_per * rs;
    res->t_out = tout / ncell;
    res->bw_out = (double)ncell * out_per * rs / tout * 1e-9;
    /* check a few cells against the CPU codelet in double, from the mesh itself */
    double *ref = malloc(out_per * sizeof *ref), *jd = malloc((size_t)nq * g->nterms * sizeof *jd);
    double *cd = malloc((size_t)g->ncoef * sizeof *cd);
    struct group gd = *g;
    gd.precision = FEMINT_DOUBLE;
    gd.real_size = sizeof(double);
    const struct batch *b0 = &p->batches[0];
    for (int k = 0; ref && jd && cd && k < b0->ncell && k < 4; k++) {
      gd.geo_coords = 0;
      if (group_cell_terms(&gd, b0->cells[k], jd)) break;
      group_coef(&gd, b0->cells[k], cd);
      struct batch one = {.ctx = ctx, .g = &gd, .ncell = 1, .cells = b0->cells + k};
      integrate_volume_batch_cpu(&one, jd, cd, g->re->phi, ref, -1, 1);
      double d = 0, s2 = 0;
      for (size_t i = 0; i < out_per; i++) {
        size_t j = (size_t)k * out_per + i;
        double v = rs == 4 ? ((float *)mats)[j] : ((double *)mats)[j];
        d += (v - ref[i]) * (v - ref[i]);
        s2 += ref[i] * ref[i];
      }
      res->max_error = fmax(res->max_error, sqrt(d / s2));
    }
    free(ref);
    free(cd);
    free(jd);
  }
  /* assembly of the element matrices into the CSR values with one team on every core, the
   * matrix one row block */
  if ((err = pattern_build(ctx, space, 0, NULL, 0, NULL, &pat))) goto done;
  values = values_alloc(pat.nnz, 1);
  row_block = calloc((size_t)pat.n + 1, sizeof *row_block);
  if (!values || !row_block) {
    err = femint_seterr(ctx, FEMINT_ENOMEM, "bench: out of memory");
    goto done;
  }
  int64_t block_row[2] = {0, pat.n};
  const struct rows rows = {pat.n, pat.rowptr, pat.colind, 1, block_row, row_block};
  static int block0 = 0;
  double *base[1] = {values};
  t = femint_now();
  off = 0;
  for (int i = 0; i < p->nbatch; i++) {
    struct batch *b = &p->batches[i];
    b->rows = &rows;
    b->blk = &block0;
    b->nblk = 1;
    assemble_batch(b, (char *)mats + off * rs, base, -1, ctx->cores);
    b->blk = NULL;
    off += (size_t)b->ncell * out_per;
  }
  res->t_assemble = (femint_now() - t) / ncell;
done:
  pattern_free(&pat);
  free(values);
  free(row_block);
  femint_host_quiet(0);
  release_buffers(&m);
  if (kern) clReleaseKernel(kern);
  if (prog) clReleaseProgram(prog);
  if (q) clReleaseCommandQueue(q);
  femint_host_free(ctx, geo);
  femint_host_free(ctx, mats);
  plan_destroy(&p);
  femint_space_destroy(&space);
  femint_mesh_destroy(&mesh);
  return err;
}
