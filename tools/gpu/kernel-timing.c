/* Kernel timing of the volume integration variants on one OpenCL device (no StarPU): for each order
 * and precision, the elasticity element matrices of thousands of distorted prisms per launch,
 * timed with profiling events; GFLOP/s by seed 000's count (63 nq nsh^2) and by the flops the
 * kernel performs; GEMM checked against REG_NOJAC. A sweep of GEMM tiles with `sweep`.
 * Build by hand after `make`, in the build directory (SRC the repository root; SRC=. where the
 * build is made in the repository itself):
 *   mkdir -p tools/gpu && gcc -O2 -std=gnu11 -I$SRC/include -I$SRC/src -I. \
 *     -DCL_TARGET_OPENCL_VERSION=120 -DCL_USE_DEPRECATED_OPENCL_1_2_APIS \
 *     $SRC/tools/gpu/kernel-timing.c src/.libs/libfemint_core.a -lOpenCL -lm -fopenmp \
 *     -o tools/gpu/kernel-timing
 * Usage: [KT_BYTES=output bytes per launch] [KT_MIN_CELLS=n] kernel-timing [sweep] [PMIN PMAX]
 * (one table line per kernel). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codelets/volume_opencl.h"
#include "host/host.h"

/* Seed 000, Table 6: the best GTX580 kernel time per element [us] for p = 2..7 (single). */
static const double gtx580_best[8] = {0, 0, 1.21, 17.80, 80.07, 439.9, 1932, 6199};

static uint64_t rng = 0x243f6a8885a308d3ull;
static double urand(double a, double b)
{
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return a + (b - a) * (double)((rng * 0x2545f4914f6cdd1dull) >> 11) * 0x1.0p-53;
}

struct env {
  cl_context ctx;
  cl_command_queue q;
  cl_device_id dev;
  struct femint_cl_device info;
};

static cl_mem upload(struct env *e, const double *x, size_t n, int single)
{
  size_t rs = single ? 4 : 8;
  void *h = malloc(n * rs);
  for (size_t i = 0; i < n; i++)
    if (single)
      ((float *)h)[i] = (float)x[i];
    else
      ((double *)h)[i] = x[i];
  cl_int err;
  cl_mem m = clCreateBuffer(e->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * rs, h, &err);
  free(h);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "clCreateBuffer(%zu bytes) failed with %d\n", n * rs, err);
    exit(1);
  }
  return m;
}

/* Inputs of one order and precision, for ncell cells (NDIST distinct prisms repeated). */
#define NDIST 64
struct inputs {
  int ncell;
  cl_mem jac, X, coef, phi, quad;
};

static void make_inputs(struct env *e, const struct refel *re, int ncell, int single,
                        struct inputs *in)
{
  static const double ref[6][3] = {{0, 0, -1}, {1, 0, -1}, {0, 1, -1},
                                   {0, 0, 1},  {1, 0, 1},  {0, 1, 1}};
  const int nq = re->nq;
  double *X = malloc((size_t)ncell * 18 * sizeof *X);
  double *jac = malloc((size_t)ncell * nq * 10 * sizeof *jac);
  double *coef = malloc((size_t)ncell * 2 * sizeof *coef);
  double *quad = malloc((size_t)nq * 4 * sizeof *quad);
  for (int c = 0; c < NDIST && c < ncell; c++) {
    for (;;) {
      for (int a = 0; a < 6; a++)
        for (int i = 0; i < 3; i++) X[18 * c + 3 * a + i] = ref[a][i] + urand(-0.15, 0.15);
      int bad;
      if (geom_prism_terms(re, X + 18 * c, jac + (size_t)c * nq * 10, &bad) == 0) break;
    }
    coef[2 * c] = urand(0.5, 2);
    coef[2 * c + 1] = urand(0.5, 2);
  }
  for (int c = NDIST; c < ncell; c++) {
    memcpy(X + 18 * c, X + 18 * (c % NDIST), 18 * sizeof *X);
    memcpy(jac + (size_t)c * nq * 10, jac + (size_t)(c % NDIST) * nq * 10, nq * 10 * sizeof *jac);
    coef[2 * c] = coef[2 * (c % NDIST)];
    coef[2 * c + 1] = coef[2 * (c % NDIST) + 1];
  }
  for (int q = 0; q < nq; q++) {
    for (int i = 0; i < 3; i++) quad[4 * q + i] = re->xq[3 * q + i];
    quad[4 * q + 3] = re->wq[q];
  }
  in->ncell = ncell;
  in->jac = upload(e, jac, (size_t)ncell * nq * 10, single);
  in->X = upload(e, X, (size_t)ncell * 18, single);
  in->coef = upload(e, coef, (size_t)ncell * 2, single);
  in->phi = upload(e, re->phi, (size_t)nq * 4 * re->nsh, single);
  in->quad = upload(e, quad, (size_t)nq * 4, single);
  free(X);
  free(jac);
  free(coef);
  free(quad);
}

static void free_inputs(struct inputs *in)
{
  clReleaseMemObject(in->jac);
  clReleaseMemObject(in->X);
  clReleaseMemObject(in->coef);
  clReleaseMemObject(in->phi);
  clReleaseMemObject(in->quad);
}

/* Build, run once, then time `reps` launches; the best time per cell [s], or -1. The first
 * ncheck cells' matrices are read back into check (REALs) when check is not NULL. */
static double time_kernel(struct env *e, const struct volume_cl_config *cfg, struct inputs *in,
                          cl_mem out, int reps, void *check, int ncheck)
{
  char opts[512];
  char *src = volume_cl_source(cfg->variant);
  cl_program prog;
  cl_int err;
  volume_cl_options(cfg, opts, sizeof opts);
  if (femint_cl_build(e->ctx, e->dev, src, opts, &prog)) {
    fprintf(stderr, "%s\n", femint_thread_error());
    free(src);
    return -1;
  }
  free(src);
  cl_kernel k = clCreateKernel(prog, volume_cl_kernel_name(cfg->variant), &err);
  double best = -1;
  cl_mem geo = volume_variant_jac(cfg->variant) ? in->X : in->jac;
  for (int r = 0; r <= reps; r++) {
    cl_event ev;
    err = volume_cl_enqueue(e->q, k, cfg, &e->info, in->ncell, geo, in->coef, in->phi, in->quad,
                            out, 0, &ev);
    if (err != CL_SUCCESS) {
      fprintf(stderr, "enqueue failed with %d (%s)\n", err, opts);
      break;
    }
    clWaitForEvents(1, &ev);
    cl_ulong t0, t1;
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
    clReleaseEvent(ev);
    double t = (double)(t1 - t0) * 1e-9 / in->ncell;
    if (r > 0 && (best < 0 || t < best)) best = t;
  }
  if (check && best > 0) {
    size_t bytes = (size_t)ncheck * volume_cl_out_size(cfg) *
                   (cfg->precision == FEMINT_DOUBLE ? 8 : 4);
    clEnqueueReadBuffer(e->q, out, CL_TRUE, 0, bytes, check, 0, NULL, NULL);
  }
  clReleaseKernel(k);
  clReleaseProgram(prog);
  return best;
}

static double reldiff(const void *a, const void *b, size_t n, int single)
{
  double d = 0, s = 0;
  for (size_t i = 0; i < n; i++) {
    double x = single ? ((const float *)a)[i] : ((const double *)a)[i];
    double y = single ? ((const float *)b)[i] : ((const double *)b)[i];
    d += (x - y) * (x - y);
    s += y * y;
  }
  return s > 0 ? sqrt(d / s) : sqrt(d);
}

static void report(const struct volume_cl_config *cfg, int p, const char *label, double t,
                   double diff)
{
  if (t <= 0) {
    printf("p=%d %-6s %-26s failed\n", p, cfg->precision == FEMINT_DOUBLE ? "double" : "single",
           label);
    return;
  }
  const double us = t * 1e6;
  printf("p=%d %-6s %-26s %10.4f us/elem  seed %8.1f GF/s  actual %8.1f GF/s  x%-7.1f wg %4zu "
         "parts %4d%s",
         p, cfg->precision == FEMINT_DOUBLE ? "double" : "single", label, us,
         volume_cl_flops_seed(cfg) / t * 1e-9, volume_cl_flops(cfg) / t * 1e-9,
         p >= 2 ? gtx580_best[p] / us : 0.0, cfg->wg_size, cfg->nparts,
         cfg->variant == FEMINT_VARIANT_GEMM ? "" : "\n");
  if (cfg->variant == FEMINT_VARIANT_GEMM)
    printf(" T%d B%d E%d Q%d H%d S%d  diff %.2g\n", cfg->tile, cfg->block, cfg->elems,
           cfg->qchunk, cfg->half, cfg->stage, diff);
  fflush(stdout);
}

int main(int argc, char **argv)
{
  int sweep = 0, a = 1;
  if (argc > 1 && !strcmp(argv[1], "sweep")) sweep = 1, a = 2;
  const int pmin = argc > a ? atoi(argv[a]) : 1, pmax = argc > a + 1 ? atoi(argv[a + 1]) : 7;
  struct env e;
  cl_platform_id plats[8];
  cl_uint np = 0;
  clGetPlatformIDs(8, plats, &np);
  int found = 0;
  for (cl_uint i = 0; i < np && !found; i++)
    found = clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 1, &e.dev, NULL) == CL_SUCCESS;
  for (cl_uint i = 0; i < np && !found; i++)
    found = clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 1, &e.dev, NULL) == CL_SUCCESS;
  if (!found) {
    fprintf(stderr, "no OpenCL device\n");
    return 1;
  }
  cl_int err;
  e.ctx = clCreateContext(NULL, 1, &e.dev, NULL, NULL, &err);
  e.q = clCreateCommandQueue(e.ctx, e.dev, CL_QUEUE_PROFILING_ENABLE, &err);
  femint_cl_device_query(e.dev, &e.info);
  printf("# %s, %u CUs, %llu local bytes, max alloc %.1f GiB\n", e.info.name,
         e.info.compute_units, (unsigned long long)e.info.local_mem,
         (double)e.info.max_alloc / (1 << 30));
  /* Output of about this many bytes per launch, between these numbers of cells. */
  const double out_target = getenv("KT_BYTES") ? atof(getenv("KT_BYTES")) : 4e9;
  const int min_cells = getenv("KT_MIN_CELLS") ? atoi(getenv("KT_MIN_CELLS")) : 1000;
  for (int p = pmin; p <= pmax; p++) {
    struct refel *re;
    refel_prism_create(p, &re);
    for (int single = 1; single >= 0; single--) {
      if (!single && !e.info.fp64) continue;
      const int prec = single ? FEMINT_SINGLE : FEMINT_DOUBLE;
      struct volume_cl_config cfg;
      volume_cl_configure(&e.info, 3, re->nsh, re->nq, 3, 2, FORM_ELASTICITY, prec,
                          FEMINT_VARIANT_GEMM, 0, &cfg);
      double out_bytes = (double)volume_cl_out_size(&cfg) * (single ? 4 : 8);
      int ncell = (int)(out_target / out_bytes);
      if (ncell > 200000) ncell = 200000;
      if (ncell < min_cells) ncell = min_cells;
      struct inputs in;
      make_inputs(&e, re, ncell, single, &in);
      cl_mem out = clCreateBuffer(e.ctx, CL_MEM_READ_WRITE, (size_t)(ncell * out_bytes), NULL,
                                  &err);
      if (err != CL_SUCCESS) {
        fprintf(stderr, "output of %d cells: %d\n", ncell, err);
        return 1;
      }
      const int ncheck = 2;
      const size_t per = volume_cl_out_size(&cfg);
      void *ref = malloc(ncheck * per * 8), *got = malloc(ncheck * per * 8);
      printf("# p=%d %s: %d cells per launch, %.2f GB of output\n", p,
             single ? "single" : "double", ncell, ncell * out_bytes * 1e-9);
      for (int v = FEMINT_VARIANT_REG_NOJAC; v <= FEMINT_VARIANT_GEMM; v++) {
        struct volume_cl_config c;
        if (volume_cl_configure(&e.info, 3, re->nsh, re->nq, 3, 2, FORM_ELASTICITY, prec, v, 0,
                                &c)) {
          printf("p=%d %s %s: %s\n", p, single ? "single" : "double", femint_variant_name(v),
                 femint_thread_error());
          continue;
        }
        /* The seed variants at high orders are slow: fewer repetitions. */
        const int gemm = v == FEMINT_VARIANT_GEMM;
        double t = time_kernel(&e, &c, &in, out, gemm ? 5 : 2,
                               v == FEMINT_VARIANT_REG_NOJAC ? ref : gemm ? got : NULL, ncheck);
        report(&c, p, femint_variant_name(v), t,
               gemm ? reldiff(got, ref, ncheck * per, single) : 0);
      }
      /* GEMM, symmetric storage. */
      {
        struct volume_cl_config c;
        volume_cl_configure(&e.info, 3, re->nsh, re->nq, 3, 2, FORM_ELASTICITY, prec,
                            FEMINT_VARIANT_GEMM, 1, &c);
        double t = time_kernel(&e, &c, &in, out, 5, NULL, 0);
        report(&c, p, "gemm symmetric", t, 0);
      }
      if (sweep) {
        /* Tiles, blocks, half and staging around the defaults (all pairs only at the lower
         * orders). */
        static const int tiles[] = {1, 2, 3}, blocks[] = {8, 16, 64};
        int done[72][6], ndone = 0;
        for (int half = 1; half >= 0; half--)
          for (int stage = -1; stage <= 0; stage++)
            for (size_t ti = 0; ti < 3; ti++)
              for (size_t bi = 0; bi < 3; bi++) {
                struct volume_cl_config c = cfg;
                if (!half && re->nsh > 80) continue;
                if (volume_cl_set_gemm(&e.info, &c, tiles[ti], blocks[bi], 0, 0, half, stage))
                  continue;
                /* Same plan as one already timed: skip. */
                const int key[6] = {c.tile, c.block, c.qchunk, c.elems, c.half, c.stage};
                int seen = 0;
                for (int k = 0; k < ndone; k++) seen = seen || !memcmp(done[k], key, sizeof key);
                if (seen || ndone == 72) continue;
                memcpy(done[ndone++], key, sizeof key);
                double t = time_kernel(&e, &c, &in, out, 3, got, ncheck);
                report(&c, p, "gemm sweep", t, reldiff(got, ref, ncheck * per, single));
              }
      }
      free(ref);
      free(got);
      clReleaseMemObject(out);
      free_inputs(&in);
    }
    refel_destroy(&re);
  }
  return 0;
}
