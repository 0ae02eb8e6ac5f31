/* Test: the OpenCL REG_NOJAC volume kernel reproduces Algorithm 1's element matrices on distorted prisms for orders 1-7 and every form kind, in double and single precision. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codelets/volume_opencl.h"
#include "host/host.h"
#include "opencl_common.h"
#include "tap.h"

/* Single precision is checked for these orders only, to keep the number of builds modest. */
static const int single_orders[] = {1, 2, 4, 7};

/* Build the kernel of cfg. */
static int build_kernel(struct cl_env *env, const struct volume_cl_config *cfg, cl_program *prog,
                        cl_kernel *k)
{
  char opts[512];
  cl_int err;
  if (volume_cl_options(cfg, opts, sizeof opts)) return -1;
  if (femint_cl_build(env->ctx, env->dev, env->src, opts, prog)) {
    tap_diag("%s", femint_thread_error());
    return -1;
  }
  *k = clCreateKernel(*prog, volume_cl_kernel_name(cfg->variant), &err);
  if (err == CL_SUCCESS) return 0;
  clReleaseProgram(*prog);
  return -1;
}

/* Integrate ncell cells of one order and form in one precision and compare with Algorithm 1.
 * With off > 0 the kernel writes into a larger output buffer, from REAL off on, as a batch
 * writes its part of a vector of several batches: *untouched (when not NULL) says whether the
 * REALs before and after that part kept their initial contents. Returns the largest relative
 * Frobenius difference, or -1 on an OpenCL failure. */
static double run_case(struct cl_env *env, const struct refel *re, const struct form_case *fc,
                       int single, int ncell, const double *jac, const double *coef,
                       const double *aref, int few_groups, int *epg_out, size_t off,
                       int *untouched)
{
  const int nsh = re->nsh, n = nsh * fc->ne;
  const int ncoef = fc->kind == FORM_GENERIC ? fc->ne * fc->ne * 16
                    : fc->kind == FORM_ELASTICITY ? 2 : 1;
  struct volume_cl_config cfg;
  if (volume_cl_configure(&env->info, 3, nsh, re->nq, fc->ne, ncoef, fc->kind,
                          single ? FEMINT_SINGLE : FEMINT_DOUBLE, FEMINT_VARIANT_REG_NOJAC, 0,
                          &cfg)) {
    tap_diag("%s", femint_thread_error());
    return -1;
  }
  cl_program prog;
  cl_kernel k;
  if (build_kernel(env, &cfg, &prog, &k)) return -1;

  /* With one compute unit in the planning, the cells are shared among 8 work-groups at most, so
   * that work-groups integrate several cells and the last one fewer. */
  struct femint_cl_device shape_dev = env->info;
  if (few_groups) shape_dev.compute_units = 1;
  size_t global, local;
  volume_cl_launch_shape(&shape_dev, &cfg, ncell, &global, &local, epg_out);

  const size_t rs = single ? sizeof(float) : sizeof(double);
  const size_t nout = (size_t)ncell * n * n;
  /* The whole buffer: the batch's part from off, and as many REALs again after it. */
  const size_t nbuf = off ? off + nout + off : nout;
  cl_int e1, e2, e3, e4 = CL_SUCCESS;
  cl_mem djac = upload(env, jac, (size_t)ncell * re->nq * GEOM_NTERMS, single, &e1);
  cl_mem dcoef = upload(env, coef, (size_t)ncell * ncoef, single, &e2);
  cl_mem dphi = upload(env, re->phi, (size_t)re->nq * 4 * nsh, single, &e3);
  double worst = -1;
  void *out = malloc(nbuf * rs);
  /* A recognizable initial content: -(i + 1) at REAL i. */
  for (size_t i = 0; out && i < nbuf; i++) {
    if (single)
      ((float *)out)[i] = -(float)(i + 1);
    else
      ((double *)out)[i] = -(double)(i + 1);
  }
  cl_mem dout = clCreateBuffer(env->ctx, off ? CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR
                                             : CL_MEM_WRITE_ONLY,
                               nbuf * rs, off ? out : NULL, &e4);
  if (e1 == CL_SUCCESS && e2 == CL_SUCCESS && e3 == CL_SUCCESS && e4 == CL_SUCCESS && out) {
    cl_event ev;
    cl_int err = volume_cl_enqueue(env->queue, k, &cfg, &shape_dev, ncell, djac, dcoef, dphi, NULL,
                                   dout, off, &ev);
    /* A device that cannot run the planned work-group size gets a smaller one. */
    while ((err == CL_OUT_OF_RESOURCES || err == CL_INVALID_WORK_GROUP_SIZE) &&
           volume_cl_replan(&env->info, &cfg) == 0) {
      tap_diag("enqueue failed with %d: work-group size lowered to %zu", (int)err, cfg.wg_size);
      clReleaseKernel(k);
      clReleaseProgram(prog);
      if (build_kernel(env, &cfg, &prog, &k)) {
        k = NULL;
        prog = NULL;
        err = CL_BUILD_PROGRAM_FAILURE;
        break;
      }
      volume_cl_launch_shape(&shape_dev, &cfg, ncell, &global, &local, epg_out);
      err = volume_cl_enqueue(env->queue, k, &cfg, &shape_dev, ncell, djac, dcoef, dphi, NULL,
                              dout, off, &ev);
    }
    if (err == CL_SUCCESS) {
      err = clEnqueueReadBuffer(env->queue, dout, CL_TRUE, 0, nbuf * rs, out, 1, &ev, NULL);
      clReleaseEvent(ev);
    }
    if (err == CL_SUCCESS) {
      double *a = malloc((size_t)n * n * sizeof *a);
      worst = 0;
      if (untouched) {
        *untouched = 1;
        for (size_t i = 0; i < nbuf; i++)
          if (i < off || i >= off + nout)
            *untouched = *untouched && (single ? ((float *)out)[i] == -(float)(i + 1)
                                               : ((double *)out)[i] == -(double)(i + 1));
      }
      for (int c = 0; c < ncell; c++) {
        for (size_t i = 0; i < (size_t)n * n; i++)
          a[i] = single ? ((float *)out)[off + (size_t)c * n * n + i]
                        : ((double *)out)[off + (size_t)c * n * n + i];
        double d = tap_reldiff(a, aref + (size_t)c * n * n, (size_t)n * n);
        if (isnan(d)) {
          worst = d;
          break;
        }
        if (d > worst) worst = d;
      }
      free(a);
    } else {
      tap_diag("enqueue or read failed with %d", (int)err);
    }
  }
  free(out);
  clReleaseMemObject(djac);
  clReleaseMemObject(dcoef);
  clReleaseMemObject(dphi);
  clReleaseMemObject(dout);
  if (k) clReleaseKernel(k);
  if (prog) clReleaseProgram(prog);
  tap_diag("p=%d %s %s: wg %zu, %d parts, %d cells, %d per group, %zu local bytes", re->order,
           form_kind_name(fc->kind), single ? "single" : "double", cfg.wg_size, cfg.nparts,
           ncell, *epg_out, cfg.local_bytes);
  return worst;
}

static int is_single_order(int p)
{
  for (size_t i = 0; i < sizeof single_orders / sizeof *single_orders; i++)
    if (single_orders[i] == p) return 1;
  return 0;
}

int main(void)
{
  struct cl_env env;
  if (cl_env_open(&env)) return 1;
  env.src = volume_cl_source(FEMINT_VARIANT_REG_NOJAC);
  if (!env.src) {
    printf("Bail out! the kernel sources are not embedded\n");
    return 1;
  }
  const clock_t start = clock();

  /* Refusals of the planning and a build error reported with its log. */
  struct femint_cl_device small = env.info;
  struct volume_cl_config cfg;
  small.local_mem = 1024;
  tap_ok(volume_cl_configure(&small, 3, 288, 336, 3, 2, FORM_ELASTICITY, FEMINT_SINGLE,
                             FEMINT_VARIANT_REG_NOJAC, 0, &cfg) == FEMINT_ENOTSUP,
         "a kernel that needs more local memory than the device has is refused");
  small = env.info;
  small.fp64 = 0;
  tap_ok(volume_cl_configure(&small, 3, 6, 6, 1, 1, FORM_LAPLACE, FEMINT_DOUBLE,
                             FEMINT_VARIANT_REG_NOJAC, 0, &cfg) == FEMINT_ENOTSUP,
         "double precision on a device without fp64 is refused");
  tap_ok(volume_cl_configure(&env.info, 3, 6, 6, 2, 1, FORM_ELASTICITY, FEMINT_SINGLE,
                             FEMINT_VARIANT_REG_NOJAC, 0, &cfg) == FEMINT_EINVAL,
         "elasticity with two components is refused");
  {
    cl_program prog;
    int rc = femint_cl_build(env.ctx, env.dev, env.src,
                             "-DNSH=6 -DNQ=6 -DNE=1 -DNCOEF=1 -DFORM_KIND=2 -DWG_SIZE=8 "
                             "-DNPARTS=1 -DGEO_JAC=0 -DREAL=float",
                             &prog);
    const char *msg = femint_thread_error();
    const char *log = strstr(msg, "build log:");
    tap_ok(rc == FEMINT_EOPENCL && prog == NULL && log && strstr(log, "must cover"),
           "a build error returns FEMINT_EOPENCL with the build log");
    if (rc != FEMINT_EOPENCL || !log || !strstr(log, "must cover")) tap_diag("message: %s", msg);
  }

  int epg_seen = 1;
  for (int p = 1; p <= 7; p++) {
    struct refel *re;
    if (refel_prism_create(p, &re)) {
      printf("Bail out! refel_prism_create(%d): %s\n", p, femint_thread_error());
      return 1;
    }
    /* Algorithm 1 costs nsh^2 nq 16 ne^2 per cell: fewer cells at high orders. */
    const int ncell = p <= 3 ? 11 : p <= 5 ? 2 : 1;
    const int nsh = re->nsh;
    double *X = malloc((size_t)ncell * 18 * sizeof *X);
    double *jac = malloc((size_t)ncell * re->nq * GEOM_NTERMS * sizeof *jac);
    for (int c = 0; c < ncell; c++)
      random_prism(re, X + 18 * c, jac + (size_t)c * re->nq * GEOM_NTERMS);
    for (size_t f = 0; f < sizeof forms / sizeof *forms; f++) {
      const struct form_case *fc = &forms[f];
      const int n = nsh * fc->ne;
      const int ncoef = fc->kind == FORM_GENERIC ? fc->ne * fc->ne * 16
                        : fc->kind == FORM_ELASTICITY ? 2 : 1;
      double *coef = malloc((size_t)ncell * ncoef * sizeof *coef);
      double *cfull = malloc((size_t)fc->ne * fc->ne * 16 * sizeof *cfull);
      double *aref = malloc((size_t)ncell * n * n * sizeof *aref);
      for (int c = 0; c < ncell; c++) random_coef(fc->kind, fc->ne, coef + (size_t)c * ncoef);
      struct femint_form form = {.kind = fc->kind, .ne = fc->ne, .ncoef = ncoef, .nvalues = ncell,
                                 .coef = coef};
      for (int c = 0; c < ncell; c++) {
        form_expand(&form, c, cfull);
        if (integrate_volume_reference(re, fc->ne, cfull, X + 18 * c, aref + (size_t)c * n * n)) {
          printf("Bail out! integrate_volume_reference: %s\n", femint_thread_error());
          return 1;
        }
      }
      for (int single = 0; single <= 1; single++) {
        if (!single && !env.info.fp64) continue;
        if (single && !is_single_order(p)) continue;
        const double tol = single ? 1e-4 : 1e-12;
        int epg;
        double d =
            run_case(&env, re, fc, single, ncell, jac, coef, aref, p <= 3, &epg, 0, NULL);
        if (epg > epg_seen) epg_seen = epg;
        tap_ok(d >= 0 && d < tol, "p=%d %s (ne=%d) %s: relative difference %.3g < %g", p,
               form_kind_name(fc->kind), fc->ne, single ? "single" : "double", d, tol);
      }
      /* A batch that writes its part of a larger vector: at p = 2, elasticity, from an odd
       * offset (REALs) that is not a multiple of the element matrix size. */
      if (p == 2 && fc->kind == FORM_ELASTICITY) {
        const int single = !env.info.fp64;
        const double tol = single ? 1e-4 : 1e-12;
        const size_t off = 3 * (size_t)n * n + 7;
        int epg, untouched = 0;
        double d = run_case(&env, re, fc, single, ncell, jac, coef, aref, 1, &epg, off,
                            &untouched);
        tap_ok(d >= 0 && d < tol && untouched,
               "p=%d %s %s into a larger buffer from REAL %zu: relative difference %.3g < %g, "
               "the rest of the buffer untouched (%d)",
               p, form_kind_name(fc->kind), single ? "single" : "double", off, d, tol, untouched);
      }
      free(coef);
      free(cfull);
      free(aref);
    }
    free(X);
    free(jac);
    refel_destroy(&re);
  }
  tap_ok(epg_seen > 1, "work-groups integrated up to %d cells each", epg_seen);
  tap_diag("CPU time %.1f s", (double)(clock() - start) / CLOCKS_PER_SEC);

  free(env.src);
  clReleaseCommandQueue(env.queue);
  clReleaseContext(env.ctx);
  return tap_done();
}
