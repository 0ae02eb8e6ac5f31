/* Test: the OpenCL kernels of the H(curl) tetrahedron reproduce the host: T_e and S_e of batches
 * of straight and curved cells by the pipeline's hcurl_matrix kernel (orders 1-3, double and
 * single) and by the CPU codelet's hcurl_cell_matrix, and the COO -> CSR steps after the sort. */
#include "codelets/codelets.h"
#include "codelets/kernels.h"
#include "host/pattern.h"
#include "opencl_common.h"
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

/* Set the arguments (struct karg, KARG: codelets/volume_opencl.h) of k and enqueue it on `global` work-items in groups of `local` (0: the
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

/* The largest relative Frobenius differences over the cells of a batch from the reference. */
struct batch_result {
  double cl, cpu; /* hcurl_matrix; hcurl_cell_matrix (the CPU codelet's); -1 on a failure */
};

/* T_e and S_e of ncell random cells with nnode nodes (4: straight, 10: curved) and tensor eps
 * and mu, by hcurl_matrix (builds WHICH = 0, the mass form with coef = eps, and WHICH = 1, the
 * curl-curl form with coef = nu = mu^-1, on tables from hcurl_table_fill) and by
 * hcurl_cell_matrix, against tet_element_reference. */
static struct batch_result batch_case(struct cl_env *env, int p, int single, int ncell, int nnode)
{
  struct refel *re = NULL;
  TAP_CALL(NULL, refel_tet_create(p, &re));
  const int n = re->nsh, wg = hcurl_wg_size(n), nx = 3 * nnode;
  const size_t n2 = (size_t)n * n, ntab = hcurl_table_size(re, nnode);
  double *tab = malloc(sizeof(double) * ntab), *nodes = malloc(sizeof(double) * ncell * nx);
  /* coef[0]: eps of every cell, coef[1]: nu */
  double *coef[2] = {malloc(sizeof(double) * ncell * 9), malloc(sizeof(double) * ncell * 9)};
  double *ref[2] = {malloc(sizeof(double) * ncell * n2), malloc(sizeof(double) * ncell * n2)};
  double *M = malloc(sizeof(double) * ncell * n2);
  double *scratch = malloc(sizeof(double) * hcurl_cell_scratch(re));
  void *Mc = malloc(sizeof(double) * n2);
  hcurl_table_fill(re, nnode, tab);
  for (int c = 0; c < ncell; c++) {
    double X[12], X10[30], e[9] = {0}, m[9] = {0};
    random_affine_tet(1, 0.2, X);
    affine_nodes10(X, X10);
    for (int k = 12; k < 30; k++) X10[k] += 0.05 * (2 * drand48() - 1);
    memcpy(nodes + (size_t)nx * c, nnode == 10 ? X10 : X, sizeof(double) * nx);
    for (int d = 0; d < 3; d++) {
      e[4 * d] = 1 + drand48();
      m[4 * d] = 1 + drand48();
    }
    e[1] = e[3] = 0.2;
    struct tet_coef k;
    TAP_CALL(NULL, tet_coef_tensor(e, m, &k));
    memcpy(coef[0] + 9 * c, k.eps, sizeof k.eps);
    memcpy(coef[1] + 9 * c, k.nu, sizeof k.nu);
    TAP_CALL(NULL, tet_element_reference(re, nnode, nodes + (size_t)nx * c, &k, ref[0] + c * n2,
                                         ref[1] + c * n2));
  }
  struct batch_result r = {0, 0};
  /* The CPU codelet's element matrices. */
  for (int which = 0; which < 2; which++)
    for (int c = 0; c < ncell; c++) {
      hcurl_cell_matrix(re, which ? FORM_CURLCURL : FORM_HCURL_MASS, nnode,
                        nodes + (size_t)nx * c, coef[which] + 9 * c, scratch, single, 0, Mc);
      for (size_t i = 0; i < n2; i++)
        M[i] = single ? ((float *)Mc)[i] : ((double *)Mc)[i];
      r.cpu = fmax(r.cpu, tap_reldiff(M, ref[which] + c * n2, n2));
    }
  const size_t rs = single ? sizeof(float) : sizeof(double), nout = (size_t)ncell * n2;
  cl_int e1, e2, e3 = CL_SUCCESS;
  cl_mem dtab = upload(env, tab, ntab, single, &e1);
  cl_mem dnodes = upload(env, nodes, (size_t)ncell * nx, single, &e2);
  cl_mem dM = clCreateBuffer(env->ctx, CL_MEM_WRITE_ONLY, nout * rs, NULL, &e3);
  if (e1 != CL_SUCCESS || e2 != CL_SUCCESS || e3 != CL_SUCCESS) r.cl = -1;
  for (int which = 0; which < 2 && r.cl >= 0; which++) {
    char opts[256];
    snprintf(opts, sizeof opts, "-DNSH=%d -DNQ=%d -DNNODE=%d -DWHICH=%d -DWG_SIZE=%d %s", n,
             re->nq, nnode, which, wg, single ? "-DREAL=float" : "-DREAL=double -DFEMINT_FP64");
    cl_int e4;
    cl_mem dcoef = upload(env, coef[which], (size_t)ncell * 9, single, &e4);
    cl_program prog = NULL;
    cl_kernel k = e4 == CL_SUCCESS ? build(env, "hcurl.cl", "hcurl_matrix", opts, &prog) : NULL;
    const cl_int nc = ncell;
    const cl_long zero = 0;
    const struct karg a[] = {KARG(nc),    KARG(dtab), KARG(dnodes), KARG(zero),
                             KARG(dcoef), KARG(zero), KARG(dM),     KARG(zero)};
    if (k && launch_wg(env, k, (size_t)wg * ncell, (size_t)wg, 8, a)) {
      download(env, dM, nout, single, M);
      for (int c = 0; c < ncell; c++)
        r.cl = fmax(r.cl, tap_reldiff(M + c * n2, ref[which] + c * n2, n2));
    } else {
      r.cl = -1;
    }
    if (k) clReleaseKernel(k);
    if (prog) clReleaseProgram(prog);
    if (dcoef) clReleaseMemObject(dcoef);
  }
  clReleaseMemObject(dtab);
  clReleaseMemObject(dnodes);
  clReleaseMemObject(dM);
  free(tab);
  free(nodes);
  free(coef[0]);
  free(coef[1]);
  free(ref[0]);
  free(ref[1]);
  free(M);
  free(scratch);
  free(Mc);
  refel_destroy(&re);
  return r;
}

static void test_batches(struct cl_env *env)
{
  for (int nnode = 10; nnode >= 4; nnode -= 6) {
    double wd = 0, ws = 0, cd = 0, cs = 0;
    for (int p = 1; p <= 3; p++) {
      const struct batch_result d = batch_case(env, p, 0, 17, nnode),
                                s = batch_case(env, p, 1, 17, nnode);
      if (d.cl < 0 || s.cl < 0) wd = INFINITY;
      wd = fmax(wd, d.cl);
      ws = fmax(ws, s.cl);
      cd = fmax(cd, d.cpu);
      cs = fmax(cs, s.cpu);
    }
    const char *cells = nnode == 10 ? "curved (10-node)" : "straight (4-node)";
    tap_ok(wd < 1e-12,
           "hcurl_matrix (hcurl.cl), p = 1..3, 17 %s cells with tensor eps and mu: T_e (WHICH 0) "
           "and S_e (WHICH 1) in double equal tet_element_reference (%.2g)",
           cells, wd);
    tap_ok(ws < 1e-5, "the same in single precision, %s cells (%.2g)", cells, ws);
    tap_ok(cd < 1e-12 && cs < 1e-5,
           "hcurl_cell_matrix (the CPU codelet's), %s cells: the same in double (%.2g) and single "
           "(%.2g)",
           cells, cd, cs);
  }
}

static cl_mem buffer(struct cl_env *env, size_t bytes, const void *host, cl_int *err)
{
  const size_t sz = bytes ? bytes : 8;
  return clCreateBuffer(env->ctx,
                        host ? CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR : CL_MEM_READ_WRITE, sz,
                        (void *)host, err);
}

/* The device steps after the sort on the sorted keys of a random COO matrix, and its signed sum
 * of a value array, against the plain reference (coo_ref_build) and pattern_value. */
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
  struct coo_ref p;
  coo_ref_build(n, nslot, row, col, NULL, &p);
  /* The sorted keys, as the device sort would leave them, and the sorted slots with a sign -1
   * (~slot) on every third. */
  const cl_long nvalid = p.nvalid, nnz = p.nnz;
  cl_ulong *key = malloc(sizeof *key * nvalid);
  int64_t *sperm = malloc(sizeof *sperm * nvalid);
  for (cl_long k = 0; k < nvalid; k++) {
    key[k] = (cl_ulong)row[p.perm[k]] * (cl_ulong)n + (cl_ulong)col[p.perm[k]];
    sperm[k] = p.perm[k] % 3 == 0 ? ~p.perm[k] : p.perm[k];
  }
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
  cl_mem dperm = buffer(env, sizeof(cl_long) * nvalid, sperm, &e[6]);
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
    scan_plain(nvalid, flag, pos);
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
    /* the sums in two blocks of pairs: [0, h), then [h, nnz) at its place */
    const cl_long h = nnz / 3, rest = nnz - h, zero = 0;
    const struct karg av0[] = {KARG(h),    KARG(zero), KARG(dperm), KARG(dseg),
                               KARG(dcoo), KARG(zero), KARG(dsum),  KARG(zero)};
    const struct karg av1[] = {KARG(rest), KARG(h),    KARG(dperm), KARG(dseg),
                               KARG(dcoo), KARG(zero), KARG(dsum),  KARG(h)};
    ok = ok && launch(env, kv, (size_t)h, 8, av0) && launch(env, kv, (size_t)rest, 8, av1);
    clEnqueueReadBuffer(env->queue, dcol, CL_TRUE, 0, sizeof *colind * nnz, colind, 0, NULL, NULL);
    clEnqueueReadBuffer(env->queue, drow, CL_TRUE, 0, sizeof *rowptr * (n + 1), rowptr, 0, NULL,
                        NULL);
    clEnqueueReadBuffer(env->queue, dsum, CL_TRUE, 0, sizeof *sum * nnz, sum, 0, NULL, NULL);
    for (cl_long u = 0; u < nnz; u++) ref[u] = pattern_value(sperm, p.seg, u, val, 0);
    ok = ok && !memcmp(seg, p.seg, sizeof *seg * (nnz + 1)) &&
         !memcmp(colind, p.colind, sizeof *colind * nnz) &&
         !memcmp(rowptr, p.rowptr, sizeof *rowptr * (n + 1)) &&
         !memcmp(sum, ref, sizeof *sum * nnz);
  }
  tap_ok(ok,
         "coo.cl: head flags, segments, row pointers and the signed segmented sum (in two blocks "
         "of pairs) of 3000 slots (%lld pairs) equal the plain reference and pattern_value bit "
         "for bit",
         (long long)nnz);
  cl_mem all[] = {dkey, dflag, dpos, dseg, dcol, drow, dperm, dcoo, dsum};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    if (all[i]) clReleaseMemObject(all[i]);
  cl_kernel ks_all[] = {kh, ks, kr, kv};
  for (int i = 0; i < 4; i++)
    if (ks_all[i]) clReleaseKernel(ks_all[i]);
  if (prog) clReleaseProgram(prog);
  coo_ref_free(&p);
  free(row);
  free(col);
  free(val);
  free(key);
  free(sperm);
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
