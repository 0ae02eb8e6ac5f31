/* Test: every OpenCL volume kernel variant (REG/SHM x JAC/NOJAC, GEMM mapping the cells from their vertices or reading Jacobian terms) reproduces Algorithm 1's element matrices on distorted prisms for orders 1-7, every form kind, single and double precision, full and symmetric storage. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codelets/volume_opencl.h"
#include "host/host.h"
#include "opencl_common.h"
#include "tap.h"

/* The variants are FEMINT_VARIANT_REG_NOJAC (1) .. FEMINT_VARIANT_GEMM; arrays indexed by variant
 * leave index 0 (automatic) unused. */
#define VFIRST FEMINT_VARIANT_REG_NOJAC
#define VEND (FEMINT_VARIANT_GEMM + 1)

/* The inputs of one order: ncell cells, their vertices, Jacobian terms, the quadrature and the
 * geometry table of GEMM (geom_table_fill). */
struct order_case {
  const struct refel *re;
  int ncell;
  const double *X, *jac, *quad, *gtab;
};

/* Integrate the cells of one order and form with one variant, precision and storage, and
 * compare with the reference (full matrices aref). With off > 0 the kernel writes into a larger
 * output buffer from REAL off on, as a batch writes its part of a vector of several batches:
 * *untouched (when not NULL) says whether the REALs before and after that part kept their
 * initial contents. GEMM maps the cells from their vertices, or with terms = 1 reads the Jacobian
 * terms; got (when not NULL) receives the matrices as computed. Returns the largest relative
 * Frobenius difference over the cells, or -1 on a failure. */
static double run_case(struct cl_env *env, char *const *src, const struct order_case *oc,
                       const struct form_case *fc, int variant, int terms, int single,
                       int symmetric, const double *coef, const double *aref, int few_groups,
                       int *epg_out, size_t off, int *untouched, double *got)
{
  const struct refel *re = oc->re;
  const int nsh = re->nsh, n = nsh * fc->ne, ncell = oc->ncell;
  const int ncoef = fc->kind == FORM_GENERIC ? fc->ne * fc->ne * 16
                    : fc->kind == FORM_ELASTICITY ? 2 : 1;
  struct volume_cl_config cfg;
  if (volume_cl_configure(&env->info, 3, nsh, re->nq, fc->ne, ncoef, fc->kind,
                          single ? FEMINT_SINGLE : FEMINT_DOUBLE, variant, symmetric, &cfg) ||
      (variant == FEMINT_VARIANT_GEMM && !terms && volume_cl_set_nodes(&cfg, PRISM_NV))) {
    tap_diag("%s", femint_thread_error());
    return -1;
  }
  char opts[512];
  cl_program prog = NULL;
  cl_kernel k = NULL;
  cl_int err;
  if (volume_cl_options(&cfg, opts, sizeof opts)) return -1;
  if (femint_cl_build(env->ctx, env->dev, src[variant], opts, &prog)) {
    tap_diag("%s", femint_thread_error());
    return -1;
  }
  k = clCreateKernel(prog, volume_cl_kernel_name(variant), &err);
  if (err != CL_SUCCESS) {
    clReleaseProgram(prog);
    return -1;
  }
  /* With one compute unit in the planning, work-groups integrate several cells. */
  struct femint_cl_device shape_dev = env->info;
  if (few_groups) shape_dev.compute_units = 1;
  size_t global, local;
  volume_cl_launch_shape(&shape_dev, &cfg, ncell, &global, &local, epg_out);

  const size_t rs = single ? sizeof(float) : sizeof(double);
  const size_t per = volume_cl_out_size(&cfg), nout = (size_t)ncell * per;
  /* The whole buffer: the batch's part from off, and as many REALs again after it. */
  const size_t nbuf = off ? off + nout + off : nout;
  const int jac = volume_variant_jac(variant) || cfg.geo_nodes;
  cl_int e1, e2, e3, e4, e5 = CL_SUCCESS;
  cl_mem dgeo = jac ? upload(env, oc->X, (size_t)ncell * 18, single, &e1)
                    : upload(env, oc->jac, (size_t)ncell * re->nq * GEOM_NTERMS, single, &e1);
  cl_mem dcoef = upload(env, coef, (size_t)ncell * ncoef, single, &e2);
  cl_mem dphi = upload(env, re->phi, (size_t)re->nq * 4 * nsh, single, &e3);
  cl_mem dquad = cfg.geo_nodes ? upload(env, oc->gtab, geom_table_size(re, PRISM_NV), single, &e4)
                               : upload(env, oc->quad, (size_t)re->nq * 4, single, &e4);
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
                               nbuf * rs, off ? out : NULL, &e5);
  double *a = malloc(per * sizeof *a), *b = malloc(per * sizeof *b);
  if (e1 == CL_SUCCESS && e2 == CL_SUCCESS && e3 == CL_SUCCESS && e4 == CL_SUCCESS &&
      e5 == CL_SUCCESS && out && a && b) {
    cl_event ev;
    err = volume_cl_enqueue(env->queue, k, &cfg, &shape_dev, ncell, dgeo, dcoef, dphi, dquad,
                            dout, off, &ev);
    if (err == CL_SUCCESS) {
      err = clEnqueueReadBuffer(env->queue, dout, CL_TRUE, 0, nbuf * rs, out, 1, &ev, NULL);
      clReleaseEvent(ev);
    }
    if (err == CL_SUCCESS) {
      worst = 0;
      if (untouched) {
        *untouched = 1;
        for (size_t i = 0; i < nbuf; i++)
          if (i < off || i >= off + nout)
            *untouched = *untouched && (single ? ((float *)out)[i] == -(float)(i + 1)
                                               : ((double *)out)[i] == -(double)(i + 1));
      }
      for (int c = 0; c < ncell; c++) {
        const double *A = aref + (size_t)c * n * n;
        const size_t at = off + (size_t)c * per;
        for (size_t i = 0; i < per; i++)
          a[i] = single ? ((float *)out)[at + i] : ((double *)out)[at + i];
        if (got) memcpy(got + (size_t)c * per, a, per * sizeof *a);
        if (symmetric) {
          for (int r = 0; r < n; r++)
            for (int s = r; s < n; s++) b[volume_packed_index(n, r, s)] = A[(size_t)r * n + s];
        } else {
          memcpy(b, A, per * sizeof *b);
        }
        double d = tap_reldiff(a, b, per);
        if (isnan(d)) {
          worst = d;
          break;
        }
        if (d > worst) worst = d;
      }
    } else {
      tap_diag("enqueue or read failed with %d", (int)err);
    }
  }
  free(out);
  free(a);
  free(b);
  clReleaseMemObject(dgeo);
  clReleaseMemObject(dcoef);
  clReleaseMemObject(dphi);
  clReleaseMemObject(dquad);
  clReleaseMemObject(dout);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  if (worst < 0 || worst >= (single ? 1e-4 : 1e-12)) tap_diag("options: %s", opts);
  return worst;
}

/* Whether a case runs. With `all` every case does; by default (PoCL builds a program in about a
 * second, too slow for all 504) each (variant, precision, storage, form) runs at one order of 1-4
 * in turn, and GEMM and REG_NOJAC also at one of 5-7. */
static int wanted(int all, int v, int single, int sym, int f, int p)
{
  if (all) return 1;
  const int combo = (((v - VFIRST) * 2 + single) * 2 + sym) * 4 + f;
  if (p == 1 + combo % 4) return 1;
  return (v == FEMINT_VARIANT_GEMM || v == FEMINT_VARIANT_REG_NOJAC) && p == 5 + combo % 3;
}

int main(int argc, char **argv)
{
  /* Arguments: `all` for every case, then the highest order (7). */
  const int all = argc > 1 && !strcmp(argv[1], "all");
  const int pmax = argc > 2 ? atoi(argv[2]) : 7;
  struct cl_env env;
  if (cl_env_open(&env)) return 1;
  char *src[VEND] = {NULL};
  for (int v = VFIRST; v < VEND; v++)
    if (!(src[v] = volume_cl_source(v))) {
      printf("Bail out! the kernel sources of %s are not embedded\n", femint_variant_name(v));
      return 1;
    }
  const clock_t start = clock();

  /* Names, the packed index and the refusals of the planning. */
  int names_ok = femint_variant_parse("nonsense") == -1 && volume_cl_source(VEND) == NULL &&
                 volume_cl_source(FEMINT_VARIANT_AUTO) == NULL &&
                 femint_variant_parse(femint_variant_name(FEMINT_VARIANT_AUTO)) ==
                     FEMINT_VARIANT_AUTO;
  for (int v = VFIRST; v < VEND; v++)
    names_ok = names_ok && femint_variant_parse(femint_variant_name(v)) == v &&
               volume_cl_kernel_name(v) != NULL;
  tap_ok(names_ok, "variant names parse back and every variant but auto has a kernel");
  {
    int packed_ok = 1;
    size_t expect = 0;
    for (int r = 0; r < 7; r++)
      for (int c = r; c < 7; c++) packed_ok = packed_ok && volume_packed_index(7, r, c) == expect++;
    tap_ok(packed_ok && expect == 28, "the packed index runs over the upper half row by row");
  }
  struct volume_cl_config cfg;
  for (int v = VFIRST; v < VEND; v++)
    tap_ok(volume_cl_configure(&env.info, 3, 18, 18, 2, 64, FORM_GENERIC, FEMINT_SINGLE, v, 1,
                               &cfg) == FEMINT_ENOTSUP,
           "%s: symmetric storage of the generic form is refused", femint_variant_name(v));
  tap_ok(volume_cl_configure(&env.info, 3, 18, 18, 1, 1, FORM_LAPLACE, FEMINT_SINGLE, VEND, 0,
                             &cfg) == FEMINT_EINVAL &&
             volume_cl_configure(&env.info, 3, 18, 18, 1, 1, FORM_LAPLACE, FEMINT_SINGLE,
                                 FEMINT_VARIANT_AUTO, 0, &cfg) == FEMINT_EINVAL,
         "an unknown variant, and auto (not a kernel), are refused");
  tap_ok(volume_cl_configure(&env.info, 3, 18, 18, 1, 1, FORM_LAPLACE, FEMINT_SINGLE,
                             FEMINT_VARIANT_REG_JAC, 0, &cfg) == 0 &&
             volume_cl_set_nodes(&cfg, PRISM_NV) == FEMINT_EINVAL &&
             volume_cl_configure(&env.info, 3, 18, 18, 1, 1, FORM_LAPLACE, FEMINT_SINGLE,
                                 FEMINT_VARIANT_GEMM, 0, &cfg) == 0 &&
             volume_cl_set_nodes(&cfg, MESH_MAX_NODES + 1) == FEMINT_EINVAL &&
             volume_cl_set_nodes(&cfg, PRISM_NV) == 0 && volume_cl_geo_size(&cfg) == 18,
         "only gemm maps cells from their nodes, of at most %d nodes", MESH_MAX_NODES);
  {
    char text[2048];
    int ok = volume_cl_configure(&env.info, 3, 40, 48, 3, 2, FORM_ELASTICITY, FEMINT_SINGLE,
                                 FEMINT_VARIANT_SHM_NOJAC, 0, &cfg) == 0 &&
             volume_cl_describe(&env.info, &cfg, 100000, text, sizeof text) == 0 &&
             strstr(text, "blocks per thread") && strstr(text, "output data [MB]");
    tap_ok(ok, "the plan is described");
    if (ok) tap_diag("%s", text);
  }

  int epg_seen[VEND] = {0};
  for (int p = 1; p <= pmax && p <= 7; p++) {
    struct refel *re;
    if (refel_prism_create(p, &re)) {
      printf("Bail out! refel_prism_create(%d): %s\n", p, femint_thread_error());
      return 1;
    }
    /* Algorithm 1 costs nsh^2 nq 16 ne^2 per cell: fewer cells at high orders. Low orders take
     * enough cells for several per work-group and a last work-group not full. */
    const int ncell = p == 1 ? 37 : p == 2 ? 13 : p == 3 ? 3 : p == 4 ? 2 : 1;
    const int nsh = re->nsh;
    double *X = malloc((size_t)ncell * 18 * sizeof *X);
    double *jac = malloc((size_t)ncell * re->nq * GEOM_NTERMS * sizeof *jac);
    double *quad = malloc((size_t)re->nq * 4 * sizeof *quad);
    for (int q = 0; q < re->nq; q++) {
      for (int i = 0; i < 3; i++) quad[4 * q + i] = re->xq[3 * q + i];
      quad[4 * q + 3] = re->wq[q];
    }
    for (int c = 0; c < ncell; c++)
      random_prism(re, X + 18 * c, jac + (size_t)c * re->nq * GEOM_NTERMS);
    double *gtab = malloc(geom_table_size(re, PRISM_NV) * sizeof *gtab);
    geom_table_fill(re, PRISM_NV, gtab);
    const struct order_case oc = {re, ncell, X, jac, quad, gtab};
    for (size_t f = 0; f < sizeof forms / sizeof *forms; f++) {
      const struct form_case *fc = &forms[f];
      int any = 0;
      for (int v = VFIRST; v < VEND; v++)
        for (int k = 0; k < 4; k++) any = any || wanted(all, v, k / 2, k % 2, (int)f, p);
      const int offset_case = p == 2 && fc->kind == FORM_ELASTICITY;
      if (!any && !offset_case && p > 2) continue;
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
      for (int v = VFIRST; v < VEND; v++)
        for (int single = 0; single <= 1; single++)
          for (int sym = 0; sym <= (fc->kind == FORM_GENERIC ? 0 : 1); sym++) {
            if ((!single && !env.info.fp64) || !wanted(all, v, single, sym, (int)f, p)) continue;
            const double tol = single ? 1e-4 : 1e-12;
            int epg = 0;
            double d = run_case(&env, src, &oc, fc, v, 0, single, sym, coef, aref, p <= 2, &epg,
                                0, NULL, NULL);
            if (epg > epg_seen[v]) epg_seen[v] = epg;
            tap_ok(d >= 0 && d < tol, "p=%d %s (ne=%d) %s %s %s: relative difference %.3g < %g",
                   p, form_kind_name(fc->kind), fc->ne,
                   v == FEMINT_VARIANT_GEMM ? "gemm (vertices)" : femint_variant_name(v),
                   single ? "single" : "double", sym ? "symmetric" : "full", d, tol);
          }
      /* Every variant writes a batch's part of a larger vector: at p = 2, elasticity, in the
       * storage each variant gets by turns, from an odd offset (REALs) that is not a multiple of
       * the element matrix size; GEMM here reads the Jacobian terms (above, it maps the cells). */
      /* The geometry mapped on the device against the host's: GEMM from the vertices and from
       * the host's Jacobian terms, the same kernel otherwise, agree to rounding (double,
       * elasticity, two orders). */
      if ((p == 2 || p == 5) && fc->kind == FORM_ELASTICITY && env.info.fp64) {
        double *ag = malloc((size_t)ncell * n * n * sizeof *ag);
        int epg = 0;
        /* the terms-reading GEMM's matrices serve as the reference of the vertex-mapping one */
        const double dt = ag ? run_case(&env, src, &oc, fc, FEMINT_VARIANT_GEMM, 1, 0, 0, coef,
                                        aref, 0, &epg, 0, NULL, ag)
                             : -1;
        const double dg = dt >= 0 ? run_case(&env, src, &oc, fc, FEMINT_VARIANT_GEMM, 0, 0, 0,
                                             coef, ag, 0, &epg, 0, NULL, NULL)
                                  : -1;
        tap_ok(dt >= 0 && dt < 1e-12 && dg >= 0 && dg < 1e-14,
               "p=%d elasticity gemm double: the cells mapped on the device give the matrices of "
               "the host's Jacobian terms to %.2g < 1e-14 (both against Algorithm 1: %.2g)",
               p, dg, dt);
        free(ag);
      }
      /* With the local memory of a GPU (48 KiB), GEMM plans p = 1, 2 as one part whose
       * matrices are gathered in local memory, fewer at a time than the work-group holds where
       * they are large (elasticity, double), then written out: every form, both storages. */
      if (p <= 2) {
        const cl_ulong local_mem = env.info.local_mem;
        env.info.local_mem = 48 * 1024;
        for (int single = !env.info.fp64; single <= 1; single++)
          for (int sym = 0; sym <= (fc->kind == FORM_GENERIC ? 0 : 1); sym++) {
            struct volume_cl_config c = {0};
            const int planned =
                volume_cl_configure(&env.info, 3, nsh, re->nq, fc->ne, ncoef, fc->kind,
                                    single ? FEMINT_SINGLE : FEMINT_DOUBLE, FEMINT_VARIANT_GEMM,
                                    sym, &c) == 0 &&
                c.nparts == 1 && c.stage > 0 && c.local_bytes <= env.info.local_mem;
            int epg = 0;
            const double d = run_case(&env, src, &oc, fc, FEMINT_VARIANT_GEMM, 0, single, sym,
                                      coef, aref, 1, &epg, 0, NULL, NULL);
            const double tol = single ? 1e-4 : 1e-12;
            tap_ok(planned && d >= 0 && d < tol,
                   "p=%d %s (ne=%d) gemm %s %s in 48 KiB of local memory: one part, %d of %d "
                   "matrices gathered at a time, relative difference %.3g < %g",
                   p, form_kind_name(fc->kind), fc->ne, single ? "single" : "double",
                   sym ? "symmetric" : "full", c.stage, c.elems, d, tol);
          }
        env.info.local_mem = local_mem;
      }
      if (offset_case)
        for (int v = VFIRST; v < VEND; v++) {
          const int single = !env.info.fp64, sym = v % 2;
          const double tol = single ? 1e-4 : 1e-12;
          const size_t off = 3 * (size_t)n * n + 7;
          int epg = 0, untouched = 0;
          double d = run_case(&env, src, &oc, fc, v, 1, single, sym, coef, aref, 1, &epg, off,
                              &untouched, NULL);
          tap_ok(d >= 0 && d < tol && untouched,
                 "p=%d %s %s %s %s into a larger buffer from REAL %zu: relative difference %.3g "
                 "< %g, the rest of the buffer untouched (%d)",
                 p, form_kind_name(fc->kind),
                 v == FEMINT_VARIANT_GEMM ? "gemm (terms)" : femint_variant_name(v),
                 single ? "single" : "double", sym ? "symmetric" : "full", off, d, tol,
                 untouched);
        }
      free(coef);
      free(cfull);
      free(aref);
    }
    free(X);
    free(jac);
    free(quad);
    free(gtab);
    refel_destroy(&re);
  }
  for (int v = VFIRST; v < VEND; v++)
    tap_ok(epg_seen[v] > 1, "%s: work-groups integrated up to %d cells each",
           femint_variant_name(v), epg_seen[v]);
  tap_diag("CPU time %.1f s", (double)(clock() - start) / CLOCKS_PER_SEC);

  for (int v = VFIRST; v < VEND; v++) free(src[v]);
  clReleaseCommandQueue(env.queue);
  clReleaseContext(env.ctx);
  return tap_done();
}
