/* Test: the OpenCL kernels of the H(curl) tetrahedron reproduce the host: T_e and S_e of batches
 * of curved cells by the pipeline's tet_matrix kernel (orders 1-3, double and single) and the
 * COO -> CSR steps after the sort. */
#include "codelets/volume_opencl.h"
#include "host/maxwell.h"
#include "host/mesh_tet.h"
#include "opencl_common.h"
#include "scheduler/kernels.h"
#include "tet_common.h"

static cl_kernel build(struct cl_env *env, const char *file, const char *name, const char *opts,
                       cl_program *prog)
{
  char *src = femint_kernel_text(file);
  cl_int err = CL_SUCCESS;
  cl_kernel k = NULL;
  if (src && femint_cl_build(env->ctx, env->dev, src, opts, prog) == 0)
    k = clCreateKernel(*prog, name, &err);
  else
    tap_diag("%s", femint_thread_error());
  free(src);
  return err == CL_SUCCESS ? k : NULL;
}

/* An argument of a kernel: its size and where its value is. */
struct karg {
  size_t size;
  const void *value;
};
#define KARG(x) ((struct karg){sizeof(x), &(x)})

/* Set the arguments of k and enqueue it on `global` work-items in groups of `local` (0: the
 * implementation's choice); 1 when that succeeded. */
static int launch_wg(struct cl_env *env, cl_kernel k, size_t global, size_t local, int nargs,
                     const struct karg *a)
{
  for (int i = 0; i < nargs; i++)
    if (clSetKernelArg(k, (cl_uint)i, a[i].size, a[i].value) != CL_SUCCESS) return 0;
  return clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, local ? &local : NULL, 0, NULL,
                                NULL) == CL_SUCCESS;
}

static int launch(struct cl_env *env, cl_kernel k, size_t global, int nargs, const struct karg *a)
{
  return launch_wg(env, k, global, 0, nargs, a);
}

static void download(struct cl_env *env, cl_mem m, size_t n, int single, double *out)
{
  const size_t rs = single ? sizeof(float) : sizeof(double);
  void *host = malloc(n * rs);
  clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, n * rs, host, 0, NULL, NULL);
  for (size_t i = 0; i < n; i++) out[i] = single ? ((float *)host)[i] : ((double *)host)[i];
  free(host);
}

/* T_e and S_e of ncell random curved cells by tet_matrix (its T and S builds) against
 * tet_element_reference: the largest relative Frobenius difference of a cell, or -1 on an OpenCL
 * failure. */
static double batch_case(struct cl_env *env, int p, int single, int ncell)
{
  struct refel_tet *re = NULL;
  TAP_CALL(NULL, refel_tet_create(p, &re));
  const int n = re->nsh, wg = maxwell_wg_size(n);
  const size_t n2 = (size_t)n * n, ntab = maxwell_table_size(re, 10);
  double *tab = malloc(sizeof(double) * ntab), *nodes = malloc(sizeof(double) * ncell * 30);
  double *coef = malloc(sizeof(double) * ncell * MAXWELL_NCOEF);
  double *ref[2] = {malloc(sizeof(double) * ncell * n2), malloc(sizeof(double) * ncell * n2)};
  double *M = malloc(sizeof(double) * ncell * n2);
  maxwell_table_fill(re, 10, tab);
  for (int c = 0; c < ncell; c++) {
    double X[12], *X10 = nodes + 30 * c, e[9] = {0}, m[9] = {0};
    random_affine_tet(1, 0.2, X);
    affine_nodes10(X, X10);
    for (int k = 12; k < 30; k++) X10[k] += 0.05 * (2 * drand48() - 1);
    for (int d = 0; d < 3; d++) {
      e[4 * d] = 1 + drand48();
      m[4 * d] = 1 + drand48();
    }
    e[1] = e[3] = 0.2;
    struct tet_coef k;
    TAP_CALL(NULL, tet_coef_tensor(e, m, &k));
    memcpy(coef + MAXWELL_NCOEF * c, k.eps, sizeof k.eps);
    memcpy(coef + MAXWELL_NCOEF * c + 9, k.nu, sizeof k.nu);
    TAP_CALL(NULL, tet_element_reference(re, 10, X10, &k, ref[0] + c * n2, ref[1] + c * n2));
  }
  const size_t rs = single ? sizeof(float) : sizeof(double), nout = (size_t)ncell * n2;
  cl_int e1, e2, e3, e4 = CL_SUCCESS;
  cl_mem dtab = upload(env, tab, ntab, single, &e1);
  cl_mem dnodes = upload(env, nodes, (size_t)ncell * 30, single, &e2);
  cl_mem dcoef = upload(env, coef, (size_t)ncell * MAXWELL_NCOEF, single, &e3);
  cl_mem dM = clCreateBuffer(env->ctx, CL_MEM_WRITE_ONLY, nout * rs, NULL, &e4);
  double worst = e1 == CL_SUCCESS && e2 == CL_SUCCESS && e3 == CL_SUCCESS && e4 == CL_SUCCESS ? 0 : -1;
  for (int which = 0; which < 2 && worst >= 0; which++) {
    char opts[256];
    snprintf(opts, sizeof opts, "-DNSH=%d -DNQ=%d -DNNODE=10 -DWHICH=%d -DWG_SIZE=%d %s", n,
             re->nq, which, wg, single ? "-DREAL=float" : "-DREAL=double -DFEMINT_FP64");
    cl_program prog = NULL;
    cl_kernel k = build(env, "tet_maxwell.cl", "tet_matrix", opts, &prog);
    const cl_int nc = ncell;
    const cl_long zero = 0;
    const struct karg a[] = {KARG(nc),   KARG(dtab), KARG(dnodes), KARG(zero),
                             KARG(dcoef), KARG(zero), KARG(dM),     KARG(zero)};
    if (k && launch_wg(env, k, (size_t)wg * ncell, (size_t)wg, 8, a)) {
      download(env, dM, nout, single, M);
      for (int c = 0; c < ncell; c++)
        worst = fmax(worst, tap_reldiff(M + c * n2, ref[which] + c * n2, n2));
    } else {
      worst = -1;
    }
    if (k) clReleaseKernel(k);
    if (prog) clReleaseProgram(prog);
  }
  clReleaseMemObject(dtab);
  clReleaseMemObject(dnodes);
  clReleaseMemObject(dcoef);
  clReleaseMemObject(dM);
  free(tab);
  free(nodes);
  free(coef);
  free(ref[0]);
  free(ref[1]);
  free(M);
  refel_tet_destroy(&re);
  return worst;
}

static void test_batches(struct cl_env *env)
{
  double wd = 0, ws = 0;
  for (int p = 1; p <= 3; p++) {
    const double d = batch_case(env, p, 0, 17), s = batch_case(env, p, 1, 17);
    if (d < 0 || s < 0) wd = INFINITY;
    wd = fmax(wd, d);
    ws = fmax(ws, s);
  }
  tap_ok(wd < 1e-12,
         "tet_matrix (tet_maxwell.cl), p = 1..3, 17 curved cells with tensor eps and mu: T_e "
         "and S_e in double equal tet_element_reference (%.2g)",
         wd);
  tap_ok(ws < 1e-5, "the same in single precision (%.2g)", ws);
}

static cl_mem buffer(struct cl_env *env, size_t bytes, const void *host, cl_int *err)
{
  const size_t sz = bytes ? bytes : 8;
  return clCreateBuffer(env->ctx,
                        host ? CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR : CL_MEM_READ_WRITE, sz,
                        (void *)host, err);
}

/* The device steps after the sort on the sorted keys of a random COO matrix, and its sum of a
 * value array, against coo_pattern_build and coo_pattern_sum. */
static void test_coo(struct cl_env *env)
{
  const cl_long n = 29, nslot = 3000;
  int64_t *row = malloc(sizeof *row * nslot), *col = malloc(sizeof *col * nslot);
  double *val = malloc(sizeof *val * nslot);
  for (cl_long k = 0; k < nslot; k++) {
    row[k] = k % 5 == 0 ? -1 : (int64_t)(drand48() * n);
    col[k] = (int64_t)(drand48() * n);
    val[k] = 2 * drand48() - 1;
  }
  struct coo_pattern p;
  TAP_CALL(NULL, coo_pattern_build(n, nslot, row, col, &p));
  /* The sorted keys, as the device sort would leave them. */
  const cl_long nvalid = p.nvalid, nnz = p.nnz;
  cl_ulong *key = malloc(sizeof *key * nvalid);
  for (cl_long k = 0; k < nvalid; k++)
    key[k] = (cl_ulong)row[p.perm[k]] * (cl_ulong)n + (cl_ulong)col[p.perm[k]];
  cl_program prog = NULL;
  const char *opts = "-DREAL=double -DFEMINT_FP64";
  cl_kernel kh = build(env, "coo.cl", "coo_heads", opts, &prog);
  cl_kernel ks = kh ? clCreateKernel(prog, "coo_segments", NULL) : NULL;
  cl_kernel kr = kh ? clCreateKernel(prog, "coo_rowptr", NULL) : NULL;
  cl_kernel kv = kh ? clCreateKernel(prog, "coo_sum", NULL) : NULL;
  int ok = kh && ks && kr && kv;
  cl_int e[8] = {0};
  cl_mem dkey = buffer(env, sizeof *key * nvalid, key, &e[0]);
  cl_mem dflag = buffer(env, sizeof(cl_long) * nvalid, NULL, &e[1]);
  cl_mem dpos = buffer(env, sizeof(cl_long) * (nvalid + 1), NULL, &e[2]);
  cl_mem dseg = buffer(env, sizeof(cl_long) * (nnz + 1), NULL, &e[3]);
  cl_mem dcol = buffer(env, sizeof(cl_long) * nnz, NULL, &e[4]);
  cl_mem drow = buffer(env, sizeof(cl_long) * (n + 1), NULL, &e[5]);
  cl_mem dperm = buffer(env, sizeof(cl_long) * nvalid, p.perm, &e[6]);
  cl_mem dcoo = buffer(env, sizeof(double) * nslot, val, &e[7]);
  for (int i = 0; i < 8; i++) ok = ok && e[i] == CL_SUCCESS;
  int64_t *flag = malloc(sizeof *flag * nvalid), *pos = malloc(sizeof *pos * (nvalid + 1));
  int64_t *seg = malloc(sizeof *seg * (nnz + 1)), *colind = malloc(sizeof *colind * nnz);
  int64_t *rowptr = malloc(sizeof *rowptr * (n + 1));
  double *sum = malloc(sizeof *sum * nnz), *ref = malloc(sizeof *ref * nnz);
  cl_mem dsum = buffer(env, sizeof(double) * nnz, NULL, &e[0]);
  ok = ok && e[0] == CL_SUCCESS;
  if (ok) {
    const struct karg ah[] = {KARG(nvalid), KARG(dkey), KARG(dflag)};
    ok = launch(env, kh, (size_t)nvalid, 3, ah);
    clEnqueueReadBuffer(env->queue, dflag, CL_TRUE, 0, sizeof *flag * nvalid, flag, 0, NULL, NULL);
    /* The scan on the host here (a device scan is a kernel of its own). */
    scan_exclusive(nvalid, flag, pos);
    ok = ok && pos[nvalid] == nnz;
    clEnqueueWriteBuffer(env->queue, dpos, CL_TRUE, 0, sizeof *pos * (nvalid + 1), pos, 0, NULL,
                         NULL);
    const struct karg as[] = {KARG(n),    KARG(nvalid), KARG(dkey), KARG(dflag),
                              KARG(dpos), KARG(dseg),   KARG(dcol)};
    ok = ok && launch(env, ks, (size_t)nvalid, 7, as);
    clEnqueueReadBuffer(env->queue, dseg, CL_TRUE, 0, sizeof *seg * nnz, seg, 0, NULL, NULL);
    seg[nnz] = nvalid;
    clEnqueueWriteBuffer(env->queue, dseg, CL_TRUE, 0, sizeof *seg * (nnz + 1), seg, 0, NULL, NULL);
    const struct karg ar[] = {KARG(n), KARG(nnz), KARG(dkey), KARG(dseg), KARG(drow)};
    ok = ok && launch(env, kr, (size_t)nnz + 1, 5, ar);
    const struct karg av[] = {KARG(nnz), KARG(dperm), KARG(dseg), KARG(dcoo), KARG(dsum)};
    ok = ok && launch(env, kv, (size_t)nnz, 5, av);
    clEnqueueReadBuffer(env->queue, dcol, CL_TRUE, 0, sizeof *colind * nnz, colind, 0, NULL, NULL);
    clEnqueueReadBuffer(env->queue, drow, CL_TRUE, 0, sizeof *rowptr * (n + 1), rowptr, 0, NULL,
                        NULL);
    clEnqueueReadBuffer(env->queue, dsum, CL_TRUE, 0, sizeof *sum * nnz, sum, 0, NULL, NULL);
    coo_pattern_sum(&p, val, ref);
    ok = ok && !memcmp(seg, p.seg, sizeof *seg * (nnz + 1)) &&
         !memcmp(colind, p.colind, sizeof *colind * nnz) &&
         !memcmp(rowptr, p.rowptr, sizeof *rowptr * (n + 1)) &&
         !memcmp(sum, ref, sizeof *sum * nnz);
  }
  tap_ok(ok,
         "coo.cl: head flags, segments, row pointers and the segmented sum of 3000 slots "
         "(%lld pairs) equal the host's bit for bit",
         (long long)nnz);
  cl_mem all[] = {dkey, dflag, dpos, dseg, dcol, drow, dperm, dcoo, dsum};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    if (all[i]) clReleaseMemObject(all[i]);
  cl_kernel ks_all[] = {kh, ks, kr, kv};
  for (int i = 0; i < 4; i++)
    if (ks_all[i]) clReleaseKernel(ks_all[i]);
  if (prog) clReleaseProgram(prog);
  coo_pattern_free(&p);
  free(row);
  free(col);
  free(val);
  free(key);
  free(flag);
  free(pos);
  free(seg);
  free(colind);
  free(rowptr);
  free(sum);
  free(ref);
}

int main(void)
{
  srand48(304);
  struct cl_env env = {0};
  if (cl_env_open(&env)) return 1;
  if (!env.info.fp64) tap_skip_all("the OpenCL device has no fp64");
  test_batches(&env);
  test_coo(&env);
  clReleaseCommandQueue(env.queue);
  clReleaseContext(env.ctx);
  return tap_done();
}
