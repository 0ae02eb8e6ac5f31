/* The choice of the fastest kernel variant of the H1 volume integration per (device, order,
 * form, precision, storage), measured once and kept next to StarPU's performance models, and the
 * plan of a kernel in words. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plan.h"

/* The file of measured choices: $STARPU_HOME/.starpu/femint-variants (StarPU's models are in
 * $STARPU_HOME/.starpu/sampling). */
static void cache_path(char *buf, size_t len)
{
  const char *home = getenv("STARPU_HOME");
  if (!home || !*home) home = getenv("HOME");
  snprintf(buf, len, "%s/.starpu/femint-variants", home && *home ? home : ".");
}

static void cache_key(const struct femint_cl_device *dev, const struct group *g, char *buf,
                      size_t len)
{
  snprintf(buf, len, "%s|p%d|%s|ne%d|%s|%s", dev->name, g->order, form_kind_name(g->kind), g->ne,
           g->precision == FEMINT_SINGLE ? "single" : "double", g->symmetric ? "upper" : "full");
  for (char *c = buf; *c; c++)
    if (*c == ' ') *c = '_';
}

static int cache_lookup(const char *key)
{
  char path[4096], line[1024], k[512], name[64];
  cache_path(path, sizeof path);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  int found = -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "%511s %63s", k, name) == 2 && !strcmp(k, key))
      found = femint_variant_parse(name); /* the last line of a key counts */
  fclose(f);
  return found;
}

static void cache_store(const char *key, int variant, double seconds)
{
  char path[4096];
  cache_path(path, sizeof path);
  char *slash = strrchr(path, '/');
  if (slash) {
    *slash = 0;
    mkdir(path, 0755);
    *slash = '/';
  }
  FILE *f = fopen(path, "a");
  if (!f) return; /* no cache: the choice is measured again next time */
  fprintf(f, "%s %s %.3e\n", key, femint_variant_name(variant), seconds);
  fclose(f);
}

/* Time every variant of a group on device dev with about 16 MiB of synthetic output (the
 * reference prism's vertices or Jacobian terms repeated, as each variant takes them); the
 * fastest wins. */
static int measure(femint_context_t ctx, int dev, const struct group *g, int *best, double *tbest)
{
  const struct femint_cl_device *d = &ctx->cl_dev[dev];
  const int single = g->precision == FEMINT_SINGLE, nq = g->re->nq;
  const size_t rs = g->real_size;
  cl_context clctx;
  cl_device_id id;
  cl_int cerr;
  starpu_opencl_get_context(dev, &clctx);
  starpu_opencl_get_device(dev, &id);
  cl_command_queue q = clCreateCommandQueue(clctx, id, CL_QUEUE_PROFILING_ENABLE, &cerr);
  if (!q) return femint_seterr(ctx, FEMINT_EOPENCL, "variant measurement: no queue (%d)", cerr);
  int ncell = (int)(16.0 * 1024 * 1024 / ((double)g->out_size * rs));
  if (ncell < 64) ncell = 64;
  static const double X[18] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1};
  double *t = malloc((size_t)nq * GEOM_NTERMS * sizeof *t);
  size_t ngeo = (size_t)nq * GEOM_NTERMS > 18 ? (size_t)nq * GEOM_NTERMS : 18;
  char *host = malloc((size_t)ncell * (ngeo + g->ncoef) * rs);
  int bad, err = 0;
  if (!t || !host || geom_prism_terms(g->re, X, t, &bad)) err = FEMINT_ENOMEM;
  /* GEMM maps the cells from their vertices with the geometry table */
  const void *tab = NULL;
  starpu_data_handle_t htab;
  if (!err && femint_context_geom_table(ctx, g->shape, g->order, g->nnode, g->precision, &htab,
                                        &tab))
    err = FEMINT_ENOMEM;
  const size_t ntab = geom_table_size(g->re, g->nnode);
  *best = -1;
  *tbest = INFINITY;
  for (int v = FEMINT_VARIANT_REG_NOJAC; v <= FEMINT_VARIANT_GEMM && !err; v++) {
    struct volume_cl_config cfg;
    if (group_cl_configure(d, g, v, &cfg)) continue; /* not for this device or form */
    int nc = ncell < volume_cl_max_cells(d, &cfg) ? ncell : volume_cl_max_cells(d, &cfg);
    size_t gs = volume_cl_geo_size(&cfg);
    const double *geo = volume_variant_jac(v) || cfg.geo_nodes ? X : t;
    const double *coef = form_coef(g->form, 0);
    for (int k = 0; k < nc; k++) {
      for (size_t i = 0; i < gs; i++) {
        if (single) ((float *)host)[k * gs + i] = (float)geo[i];
        else ((double *)host)[k * gs + i] = geo[i];
      }
      for (int i = 0; i < g->ncoef; i++) {
        size_t o = (size_t)nc * gs + (size_t)k * g->ncoef + i;
        if (single) ((float *)host)[o] = (float)coef[i];
        else ((double *)host)[o] = coef[i];
      }
    }
    char options[1024];
    char *src = volume_cl_source(v);
    cl_program prog = NULL;
    volume_cl_options(&cfg, options, sizeof options);
    if (!src || femint_cl_build(clctx, id, src, options, &prog)) {
      free(src);
      continue;
    }
    free(src);
    cl_kernel kern = clCreateKernel(prog, volume_cl_kernel_name(v), &cerr);
    const void *phi = single ? (const void *)g->re->phi_f : (const void *)g->re->phi;
    size_t nphi = (size_t)nq * 4 * g->nsh;
    cl_mem mg = clCreateBuffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (size_t)nc * gs * rs,
                               host, &cerr);
    cl_mem mc = clCreateBuffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               (size_t)nc * g->ncoef * rs, host + (size_t)nc * gs * rs, &cerr);
    cl_mem mp = clCreateBuffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nphi * rs,
                               (void *)phi, &cerr);
    cl_mem mq = cfg.geo_nodes ? clCreateBuffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                               ntab * rs, (void *)tab, &cerr)
                              : clCreateBuffer(clctx, CL_MEM_READ_ONLY, (size_t)nq * 4 * rs, NULL,
                                               &cerr);
    cl_mem mo = clCreateBuffer(clctx, CL_MEM_WRITE_ONLY, (size_t)nc * volume_cl_out_size(&cfg) * rs,
                               NULL, &cerr);
    if (kern && mg && mc && mp && mq && mo) {
      /* points and weights for the JAC variants */
      float qf[4 * 336];
      double qd[4 * 336];
      for (int i = 0; i < nq; i++)
        for (int c = 0; c < 4; c++)
          qd[4 * i + c] = c < 3 ? g->re->xq[3 * i + c] : g->re->wq[i], qf[4 * i + c] = (float)qd[4 * i + c];
      if (!cfg.geo_nodes)
        clEnqueueWriteBuffer(q, mq, CL_TRUE, 0, (size_t)nq * 4 * rs,
                             single ? (void *)qf : (void *)qd, 0, NULL, NULL);
      double tv = INFINITY;
      for (int r = 0; r < 3; r++) {
        cl_event ev = NULL;
        if (volume_cl_enqueue(q, kern, &cfg, d, nc, mg, mc, mp, mq, mo, 0, &ev) != CL_SUCCESS) break;
        clWaitForEvents(1, &ev);
        cl_ulong a = 0, e = 0;
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL);
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof e, &e, NULL);
        clReleaseEvent(ev);
        if (r > 0) tv = fmin(tv, 1e-9 * (double)(e - a) / nc); /* the first run warms up */
      }
      if (tv < *tbest) *tbest = tv, *best = v;
    }
    cl_mem all[5] = {mg, mc, mp, mq, mo};
    for (int i = 0; i < 5; i++)
      if (all[i]) clReleaseMemObject(all[i]);
    if (kern) clReleaseKernel(kern);
    clReleaseProgram(prog);
  }
  clReleaseCommandQueue(q);
  free(t);
  free(host);
  if (err) return femint_seterr(ctx, err, "variant measurement: out of memory");
  return 0;
}

int femint_variant_choose(femint_context_t ctx, const struct group *g, int requested, int *variant)
{
  if (g->shape != FEMINT_PRISM) {
    FEMINT_CHECK(requested == FEMINT_VARIANT_AUTO || requested == FEMINT_VARIANT_GEMM, ctx,
                 FEMINT_ENOTSUP,
                 "the %s kernel variant is for prisms; the other shapes have the gemm variant",
                 femint_variant_name(requested));
    *variant = FEMINT_VARIANT_GEMM;
    return 0;
  }
  if (requested != FEMINT_VARIANT_AUTO) {
    *variant = requested;
    return 0;
  }
  const char *env = getenv("FEMINT_VARIANT");
  if (env && *env) {
    int v = femint_variant_parse(env);
    FEMINT_CHECK(v >= 0, ctx, FEMINT_EINVAL,
                 "FEMINT_VARIANT='%s' is not a variant (reg_nojac, reg_jac, shm_nojac, shm_jac, "
                 "gemm)", env);
    *variant = v;
    return 0;
  }
  *variant = FEMINT_VARIANT_GEMM; /* the default before any measurement, and on CPU OpenCL devices */
  const int dev = femint_context_first_device(ctx);
  if (dev < 0 || !(ctx->cl_dev[dev].type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)))
    return 0;
  char key[512];
  cache_key(&ctx->cl_dev[dev], g, key, sizeof key);
  int v = cache_lookup(key);
  if (v >= 0) {
    *variant = v;
    return 0;
  }
  double t;
  FEMINT_CALL(measure(ctx, dev, g, &v, &t));
  if (v >= 0) {
    *variant = v;
    cache_store(key, v, t);
  }
  return 0;
}

int femint_plan_describe(femint_context_t ctx, femint_form_t form, int order, int precision,
                         int variant, int symmetric, int device, char *buf, size_t len)
{
  FEMINT_CHECK(ctx && form && buf && len > 0, ctx, FEMINT_EINVAL, "plan: NULL argument");
  FEMINT_CHECK(device >= 0 && device < ctx->ncl_dev, ctx, FEMINT_ENODEV,
               "plan: OpenCL device %d does not exist (%d found)", device, ctx->ncl_dev);
  FEMINT_CHECK(variant >= FEMINT_VARIANT_AUTO && variant <= FEMINT_VARIANT_GEMM, ctx,
               FEMINT_EINVAL, "plan: %d is not a variant", variant);
  struct group g;
  FEMINT_CALL(group_init(ctx, NULL, form, order, precision, variant, symmetric, 0, &g));
  FEMINT_CALL(femint_variant_choose(ctx, &g, variant, &g.variant));
  const struct femint_cl_device *dev = &ctx->cl_dev[device];
  struct volume_cl_config cfg;
  int err = group_cl_configure(dev, &g, g.variant, &cfg);
  if (err) return femint_seterr(ctx, err, "plan: %s", femint_thread_error());
  int n = snprintf(buf, len, "device: %s\nprecision: %s\nshape functions: %d\n"
                             "quadrature points: %d\n",
                   dev->name, precision == FEMINT_SINGLE ? "single" : "double", g.nsh, g.re->nq);
  if (n < 0 || (size_t)n >= len) return femint_seterr(ctx, FEMINT_EINVAL, "plan: buffer too small");
  err = volume_cl_describe(dev, &cfg, volume_cl_max_cells(dev, &cfg), buf + n, len - n);
  return err ? femint_seterr(ctx, err, "plan: buffer too small") : 0;
}
