/* Test: the COO -> CSR pattern built entirely on an OpenCL device (coo_cl_build) and its sums
 * equal the host's coo_pattern_build and coo_pattern_sum, on random slots and on a tetrahedral
 * space. */
#include <time.h>

#include "codelets/coo_opencl.h"
#include "host/mesh_tet.h"
#include "opencl_common.h"

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* A device buffer of count values of size bytes (at least one), a copy of host unless NULL. */
static cl_mem buffer(struct cl_env *env, size_t count, size_t size, const void *host)
{
  cl_int err;
  cl_mem m = clCreateBuffer(env->ctx, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0),
                            (count ? count : 1) * size, (void *)host, &err);
  if (err != CL_SUCCESS) {
    printf("Bail out! clCreateBuffer of %zu bytes failed with %d\n", count * size, (int)err);
    exit(1);
  }
  return m;
}

static void download(struct cl_env *env, cl_mem m, size_t bytes, void *host)
{
  if (bytes && clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, bytes, host, 0, NULL, NULL)) {
    printf("Bail out! clEnqueueReadBuffer failed\n");
    exit(1);
  }
}

/* The device's pattern of the slots in (drow, dcol) as a struct coo_pattern (perm holds all
 * nslot slots, as the host's); the error of coo_cl_build, with p zeroed on error. */
static int device_pattern(struct cl_env *env, const struct coo_cl *k, int64_t n, int64_t nslot,
                          cl_mem drow, cl_mem dcol, struct coo_pattern *p)
{
  memset(p, 0, sizeof *p);
  cl_mem dperm = buffer(env, nslot, 8, NULL), dseg = buffer(env, nslot + 1, 8, NULL);
  cl_mem drowptr = buffer(env, n + 1, 8, NULL), dcolind = buffer(env, nslot, 8, NULL);
  int64_t nvalid = -1, nnz = -1;
  const int err = coo_cl_build(k, env->queue, n, nslot, drow, dcol, dperm, dseg, drowptr, dcolind,
                               &nvalid, &nnz);
  if (!err) {
    p->n = n;
    p->nslot = nslot;
    p->nvalid = nvalid;
    p->nnz = nnz;
    p->perm = malloc(sizeof(int64_t) * (nslot + 1));
    p->seg = malloc(sizeof(int64_t) * (nnz + 1));
    p->rowptr = malloc(sizeof(int64_t) * (n + 1));
    p->colind = malloc(sizeof(int64_t) * (nnz + 1));
    download(env, dperm, sizeof(int64_t) * nslot, p->perm);
    download(env, dseg, sizeof(int64_t) * (nnz + 1), p->seg);
    download(env, drowptr, sizeof(int64_t) * (n + 1), p->rowptr);
    download(env, dcolind, sizeof(int64_t) * nnz, p->colind);
  }
  clReleaseMemObject(dperm);
  clReleaseMemObject(dseg);
  clReleaseMemObject(drowptr);
  clReleaseMemObject(dcolind);
  return err;
}

/* 1 when a and b are the same pattern bit for bit; else 0 and what differs first. */
static int same_pattern(const struct coo_pattern *a, const struct coo_pattern *b)
{
  if (a->n != b->n || a->nslot != b->nslot || a->nvalid != b->nvalid || a->nnz != b->nnz) {
    tap_diag("n %lld/%lld, nslot %lld/%lld, nvalid %lld/%lld, nnz %lld/%lld", (long long)a->n,
             (long long)b->n, (long long)a->nslot, (long long)b->nslot, (long long)a->nvalid,
             (long long)b->nvalid, (long long)a->nnz, (long long)b->nnz);
    return 0;
  }
  const struct {
    const char *name;
    const int64_t *x, *y;
    int64_t len;
  } arr[] = {{"perm", a->perm, b->perm, a->nslot},
             {"seg", a->seg, b->seg, a->nnz + 1},
             {"rowptr", a->rowptr, b->rowptr, a->n + 1},
             {"colind", a->colind, b->colind, a->nnz}};
  for (size_t i = 0; i < sizeof arr / sizeof *arr; i++)
    for (int64_t j = 0; j < arr[i].len; j++)
      if (arr[i].x[j] != arr[i].y[j]) {
        tap_diag("%s[%lld]: %lld and %lld", arr[i].name, (long long)j, (long long)arr[i].x[j],
                 (long long)arr[i].y[j]);
        return 0;
      }
  return 1;
}

/* nslot random slots of n rows: pairs drawn from a pool of about nslot / 4 (duplicates), a
 * fifth of the slots without a row, a column or both. */
static void random_coo(int64_t n, int64_t nslot, int64_t *row, int64_t *col)
{
  const int64_t npool = nslot / 4 + 1;
  int64_t *pool = malloc(sizeof *pool * 2 * npool);
  for (int64_t i = 0; i < 2 * npool; i++) pool[i] = (int64_t)(drand48() * n);
  for (int64_t k = 0; k < nslot; k++) {
    const int64_t i = (int64_t)(drand48() * npool);
    const double u = drand48();
    row[k] = u < 0.1 || u > 0.95 || n == 0 ? -1 : pool[2 * i];
    col[k] = u < 0.2 || n == 0 ? -1 : pool[2 * i + 1];
  }
  free(pool);
}

/* The device's sums of random values through dp (in the precision of k) against coo_pattern_sum
 * through hp: 1 when within 1e-15 relative (1e-6 in single precision). */
static int sums_equal(struct cl_env *env, const struct coo_cl *k, const struct coo_pattern *hp,
                      const struct coo_pattern *dp)
{
  const int64_t nslot = hp->nslot, nnz = hp->nnz;
  const size_t rs = k->single ? sizeof(float) : sizeof(double);
  double *coo = malloc(sizeof *coo * (nslot + 1)), *ref = malloc(sizeof *ref * (nnz + 1));
  double *val = malloc(sizeof *val * (nnz + 1));
  void *coo_r = malloc(rs * (nslot + 1)), *val_r = malloc(rs * (nnz + 1));
  for (int64_t s = 0; s < nslot; s++) {
    coo[s] = 2 * drand48() - 1;
    if (k->single) ((float *)coo_r)[s] = (float)coo[s];
    else ((double *)coo_r)[s] = coo[s];
  }
  coo_pattern_sum(hp, coo, ref);
  cl_mem dperm = buffer(env, nslot, 8, dp->perm), dseg = buffer(env, nnz + 1, 8, dp->seg);
  cl_mem dcoo = buffer(env, nslot, rs, coo_r), dval = buffer(env, nnz, rs, NULL);
  int ok = coo_cl_sum(k, env->queue, nnz, dperm, dseg, dcoo, dval) == 0;
  download(env, dval, rs * nnz, val_r);
  for (int64_t u = 0; u < nnz; u++) val[u] = k->single ? ((float *)val_r)[u] : ((double *)val_r)[u];
  const double d = tap_reldiff(val, ref, (size_t)nnz), tol = k->single ? 1e-6 : 1e-15;
  if (!(d <= tol)) tap_diag("sums differ by %.3g", d);
  clReleaseMemObject(dperm);
  clReleaseMemObject(dseg);
  clReleaseMemObject(dcoo);
  clReleaseMemObject(dval);
  free(coo);
  free(ref);
  free(val);
  free(coo_r);
  free(val_r);
  return ok && d <= tol;
}

struct timing {
  double host, device; /* seconds of coo_pattern_build and coo_cl_build */
};

/* The device pattern and double sums of nslot random slots against the host's: 1 when equal. */
static int random_case(struct cl_env *env, const struct coo_cl *k, int64_t n, int64_t nslot,
                       struct timing *t)
{
  int64_t *row = malloc(sizeof *row * (nslot + 1)), *col = malloc(sizeof *col * (nslot + 1));
  random_coo(n, nslot, row, col);
  struct coo_pattern hp, dp;
  double t0 = now();
  TAP_CALL(NULL, coo_pattern_build(n, nslot, row, col, &hp));
  double t1 = now();
  cl_mem drow = buffer(env, nslot, 8, row), dcol = buffer(env, nslot, 8, col);
  clFinish(env->queue);
  double t2 = now();
  const int err = device_pattern(env, k, n, nslot, drow, dcol, &dp);
  double t3 = now();
  if (t) *t = (struct timing){t1 - t0, t3 - t2};
  int ok = err == 0 && same_pattern(&dp, &hp);
  if (err) tap_diag("coo_cl_build: %s", femint_thread_error());
  if (ok) ok = sums_equal(env, k, &hp, &dp);
  clReleaseMemObject(drow);
  clReleaseMemObject(dcol);
  coo_pattern_free(&hp);
  coo_pattern_free(&dp);
  free(row);
  free(col);
  return ok;
}

static void test_random(struct cl_env *env, const struct coo_cl *k)
{
  const int64_t tile = (int64_t)k->wg * 8;
  const struct {
    int64_t n, nslot;
  } cases[] = {{5, 0}, {0, 7}, {1, 1}, {3, 2}, {1, 100}, {37, 3 * tile + 17}, {1000, 5 * tile - 1}};
  int ok = 1;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const int c = random_case(env, k, cases[i].n, cases[i].nslot, NULL);
    if (!c) tap_diag("n = %lld, %lld slots", (long long)cases[i].n, (long long)cases[i].nslot);
    ok = ok && c;
  }
  tap_ok(ok,
         "pattern and sums of 0, 7 (no rows), 1, 2, 100 (one row), 3 tiles + 17 and 5 tiles - 1 "
         "random slots (tile %lld) equal the host's",
         (long long)tile);
  struct timing t;
  ok = random_case(env, k, 30000, 1000000, &t);
  tap_ok(ok,
         "the same for 10^6 slots of 30000 rows (8 passes of 4 bits): host %.3f s, device %.3f s",
         t.host, t.device);
  ok = random_case(env, k, 500000, 300000, &t);
  tap_ok(ok,
         "the same for 3 10^5 slots of 500000 rows (n^2 of 38 bits, 10 passes of 4 bits): host "
         "%.3f s, device %.3f s",
         t.host, t.device);
}

/* The device scan against scan_exclusive, in place and not, up to three levels of blocks. */
static void test_scan(struct cl_env *env, const struct coo_cl *k)
{
  const int64_t tile = (int64_t)k->wg * 8;
  const int64_t sizes[] = {0, 1, 2, tile - 1, tile, tile + 1, 3 * tile + 5, tile * tile + 3};
  int ok = 1;
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    const int64_t m = sizes[i];
    int64_t *in = malloc(sizeof *in * (m + 1)), *ref = malloc(sizeof *ref * (m + 1));
    int64_t *out = malloc(sizeof *out * (m + 1));
    for (int64_t j = 0; j < m; j++) in[j] = (int64_t)(drand48() * 1000) - 100;
    in[m] = 0;
    scan_exclusive(m, in, ref);
    for (int inplace = 0; inplace < 2; inplace++) {
      cl_mem din = buffer(env, m + 1, 8, in), dout = inplace ? din : buffer(env, m + 1, 8, NULL);
      const int err = coo_cl_scan(k, env->queue, m, din, dout);
      download(env, dout, sizeof *out * (m + 1), out);
      const int same = !err && !memcmp(out, ref, sizeof *out * (m + 1));
      if (!same) tap_diag("scan of %lld values (in place %d) differs", (long long)m, inplace);
      ok = ok && same;
      if (!inplace) clReleaseMemObject(dout);
      clReleaseMemObject(din);
    }
    free(in);
    free(ref);
    free(out);
  }
  tap_ok(ok, "device scan of 0 .. tile^2 + 3 values (tile %lld) equals scan_exclusive",
         (long long)tile);
}

/* A test that can fail: a corrupted pattern, and the pattern of a changed input, differ from the
 * host's; a row >= n is refused. */
static void test_detects(struct cl_env *env, const struct coo_cl *k)
{
  const int64_t n = 50, nslot = 4000;
  int64_t *row = malloc(sizeof *row * nslot), *col = malloc(sizeof *col * nslot);
  random_coo(n, nslot, row, col);
  struct coo_pattern hp, dp;
  TAP_CALL(NULL, coo_pattern_build(n, nslot, row, col, &hp));
  cl_mem drow = buffer(env, nslot, 8, row), dcol = buffer(env, nslot, 8, col);
  TAP_CALL(NULL, device_pattern(env, k, n, nslot, drow, dcol, &dp));
  /* Two sorted entries of different pairs swapped: no longer in order. */
  int64_t a = 0;
  while (row[dp.perm[a]] == row[dp.perm[a + 1]] && col[dp.perm[a]] == col[dp.perm[a + 1]]) a++;
  const int64_t t = dp.perm[a];
  dp.perm[a] = dp.perm[a + 1];
  dp.perm[a + 1] = t;
  tap_diag("expected: a difference in perm");
  const int swapped = same_pattern(&dp, &hp);
  coo_pattern_free(&dp);
  /* One valid slot moved to another column. */
  int64_t s = 0;
  while (row[s] < 0 || col[s] < 0) s++;
  col[s] = (col[s] + 1) % n;
  clEnqueueWriteBuffer(env->queue, dcol, CL_TRUE, 0, sizeof *col * nslot, col, 0, NULL, NULL);
  TAP_CALL(NULL, device_pattern(env, k, n, nslot, drow, dcol, &dp));
  tap_diag("expected: a difference");
  const int changed = same_pattern(&dp, &hp);
  coo_pattern_free(&dp);
  col[s] = n;
  clEnqueueWriteBuffer(env->queue, dcol, CL_TRUE, 0, sizeof *col * nslot, col, 0, NULL, NULL);
  const int err = device_pattern(env, k, n, nslot, drow, dcol, &dp);
  tap_ok(!swapped && !changed && err == FEMINT_EINVAL,
         "detected: two sorted entries swapped, one slot moved, a column >= n (%s)",
         femint_thread_error());
  /* No queue: the first OpenCL call fails, and says so. */
  int64_t nvalid, nnz;
  const int err2 =
      coo_cl_build(k, NULL, n, nslot, drow, dcol, drow, drow, drow, drow, &nvalid, &nnz);
  tap_ok(err2 == FEMINT_EOPENCL && strstr(femint_thread_error(), "clEnqueueWriteBuffer"),
         "without a queue: FEMINT_EOPENCL (%s)", femint_thread_error());
  clReleaseMemObject(drow);
  clReleaseMemObject(dcol);
  coo_pattern_free(&hp);
  free(row);
  free(col);
}

/* The slots of an order-2 H(curl) space on a box with PEC walls, made on the device in two
 * batches of cells: their pattern is the host assembly's. */
static void test_tet(struct cl_env *env, const struct coo_cl *k)
{
  struct tet_mesh *mesh = NULL;
  struct refel_tet *re = NULL;
  struct tet_space *sp = NULL;
  TAP_CALL(NULL, tet_mesh_create_box(4, 3, 3, 1, 0.8, 0.7, &mesh));
  TAP_CALL(NULL, refel_tet_create(2, &re));
  TAP_CALL(NULL, tet_space_create(mesh, re, TET_PEC_ALL, &sp));
  struct tet_coef coef;
  TAP_CALL(NULL, tet_coef_scalar(1, 1, &coef));
  struct tet_system sys;
  TAP_CALL(NULL, tet_assemble(sp, re, &coef, 1, &sys));
  const int64_t ncell = mesh->ncell, nsh = sp->nsh, nslot = ncell * nsh * nsh;
  cl_mem ddof = buffer(env, ncell * nsh, 8, sp->cell_dof);
  cl_mem drow = buffer(env, nslot, 8, NULL), dcol = buffer(env, nslot, 8, NULL);
  const int64_t half = ncell / 2;
  int ok = coo_cl_indices(k, env->queue, 0, half, (int)nsh, ddof, drow, dcol) == 0 &&
           coo_cl_indices(k, env->queue, half, ncell - half, (int)nsh, ddof, drow, dcol) == 0;
  struct coo_pattern dp;
  ok = ok && device_pattern(env, k, sp->ndof, nslot, drow, dcol, &dp) == 0;
  ok = ok && same_pattern(&dp, &sys.pattern);
  tap_ok(ok,
         "order-2 space on a box of %lld cells with PEC walls: coo_cl_indices in two batches and "
         "coo_cl_build give the host assembly's pattern (%lld DOFs, %lld of %lld slots valid, %lld "
         "non-zeros)",
         (long long)ncell, (long long)sp->ndof, (long long)sys.pattern.nvalid, (long long)nslot,
         (long long)sys.pattern.nnz);
  coo_pattern_free(&dp);
  clReleaseMemObject(ddof);
  clReleaseMemObject(drow);
  clReleaseMemObject(dcol);
  tet_system_free(&sys);
  tet_space_destroy(&sp);
  refel_tet_destroy(&re);
  tet_mesh_destroy(&mesh);
}

int main(void)
{
  srand48(306);
  struct cl_env env = {0};
  if (cl_env_open(&env)) return 1;
  if (!env.info.fp64) tap_skip_all("the OpenCL device has no fp64");
  struct coo_cl k;
  const double t0 = now();
  TAP_CALL(NULL, coo_cl_create(env.ctx, env.dev, 0, &k));
  tap_diag("coo.cl built in %.2f s, work-groups of %zu", now() - t0, k.wg);
  test_scan(&env, &k);
  test_random(&env, &k);
  test_detects(&env, &k);
  test_tet(&env, &k);
  coo_cl_destroy(&k);
  TAP_CALL(NULL, coo_cl_create(env.ctx, env.dev, 1, &k));
  tap_ok(random_case(&env, &k, 700, 50000, NULL),
         "single precision: pattern of 50000 random slots and float sums within 1e-6");
  coo_cl_destroy(&k);
  clReleaseCommandQueue(env.queue);
  clReleaseContext(env.ctx);
  return tap_done();
}
