/* The kernel variants of the volume integration: their names, and the choice of the fastest one
 * per (device, order, precision), measured once and kept next to StarPU's performance models. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scheduler.h"

static const char *const variant_names[] = {"auto", "reg_nojac", "reg_jac", "shm_nojac", "shm_jac",
                                            "gemm"};

const char *femint_variant_name(int variant)
{
  return variant >= 0 && variant <= FEMINT_VARIANT_GEMM ? variant_names[variant] : NULL;
}

int femint_variant_parse(const char *name)
{
  for (int v = 0; name && v <= FEMINT_VARIANT_GEMM; v++)
    if (!strcmp(name, variant_names[v])) return v;
  return -1;
}

int femint_plan_describe(femint_context_t ctx, femint_form_t form, int order, int precision,
                         int variant, int symmetric, int device, char *buf, size_t len)
{
  FEMINT_CHECK(ctx && form && buf && len > 0, ctx, FEMINT_EINVAL, "plan: NULL argument");
  FEMINT_CHECK(device >= 0 && device < ctx->ncl_dev, ctx, FEMINT_ENODEV,
               "plan: OpenCL device %d does not exist (%d found)", device, ctx->ncl_dev);
  FEMINT_CHECK(variant == FEMINT_VARIANT_AUTO || variant == FEMINT_VARIANT_REG_NOJAC, ctx,
               FEMINT_ENOTSUP, "plan: variant %s is not available in this build",
               femint_variant_name(variant) ? femint_variant_name(variant) : "?");
  FEMINT_CHECK(!symmetric, ctx, FEMINT_ENOTSUP, "plan: symmetric storage is not available yet");
  const struct refel *re;
  FEMINT_CALL(femint_context_refel(ctx, order, &re));
  const struct femint_cl_device *dev = &ctx->cl_dev[device];
  struct volume_cl_config cfg;
  int err = volume_cl_configure(dev, re->nsh, re->nq, form->ne, form->ncoef, form->kind, precision,
                                VARIANT_REG_NOJAC, 0, &cfg);
  if (err) return femint_seterr(ctx, err, "plan: %s", femint_thread_error());
  const size_t rs = precision == FEMINT_SINGLE ? sizeof(float) : sizeof(double);
  const size_t n = (size_t)re->nsh * form->ne;
  const double out = (double)n * n * rs, in = (double)re->nq * GEOM_NTERMS * rs + form->ncoef * rs;
  /* elements of one launch: the output fits the largest allocation and half the memory */
  double fit = fmin((double)dev->max_alloc / out, 0.5 * (double)dev->global_mem / (out + in));
  int ncell = fit > 1e6 ? 1000000 : (int)fit;
  size_t global, local;
  int per_group;
  volume_cl_launch_shape(dev, &cfg, ncell, &global, &local, &per_group);
  snprintf(buf, len,
           "device: %s\n"
           "variant: reg_nojac\n"
           "precision: %s\n"
           "shape functions: %d\n"
           "quadrature points: %d\n"
           "blocks of the element matrix: %d\n"
           "work-group size: %zu\n"
           "parts of the element matrix: %d\n"
           "blocks per thread: 1\n"
           "local memory per work-group [B]: %zu\n"
           "elements per kernel launch: %d\n"
           "work-groups per launch: %zu\n"
           "elements per work-group: %d\n"
           "input data per launch [MB]: %.2f\n"
           "output data per launch [MB]: %.2f\n",
           dev->name, precision == FEMINT_SINGLE ? "single" : "double", re->nsh, re->nq,
           re->nsh * re->nsh, cfg.wg_size, cfg.nparts, cfg.local_bytes, ncell, global / local,
           per_group, ncell * in / 1e6, ncell * out / 1e6);
  return 0;
}
