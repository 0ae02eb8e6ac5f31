/* Test: the COO -> CSR pattern built entirely on an OpenCL device (coo_cl_build), its scan and its
 * signed sums equal a plain reference on random slots, and coo_cl_indices with coo_cl_build give
 * pattern_build's pattern of prism and tetrahedral spaces, whose sums are pattern_value's. The
 * double-precision kernels are built through the cache of binaries on disk, as the operator builds
 * them: in a fresh cache folder compiled and kept, then loaded, and the loaded program runs every
 * case. */
#include <unistd.h>

#include "codelets/coo_opencl.h"
#include "host/pattern.h"
#include "opencl_common.h"
#include "scheduler/scheduler.h"

/* A coo_cl_builder through the scheduler's cache of binaries, counting builds and loads. */
struct cache_count {
  int builds, loaded;
};

static int build_cached(void *arg, cl_context ctx, cl_device_id dev, const char *src,
                        const char *options, cl_program *prog)
{
  struct cache_count *n = arg;
  int cached = 0;
  const int err = program_cache_build(NULL, ctx, dev, src, options, prog, &cached);
  n->builds++;
  n->loaded += cached;
  return err;
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

/* The device's pattern of the slots in (drow, dcol) with the payload dval (NULL: the slot
 * numbers) as a struct coo_ref (perm holds all nslot slots, as the reference's); the error of
 * coo_cl_build, with p zeroed on error. When dperm_out is not NULL, it receives the device's
 * perm and seg buffers (the caller releases them), for sums. */
static int device_pattern(struct cl_env *env, const struct coo_cl *k, int64_t n, int64_t nslot,
                          cl_mem drow, cl_mem dcol, cl_mem dval, struct coo_ref *p,
                          cl_mem *dperm_out, cl_mem *dseg_out)
{
  memset(p, 0, sizeof *p);
  cl_mem dperm = buffer(env, nslot, 8, NULL), dseg = buffer(env, nslot + 1, 8, NULL);
  cl_mem drowptr = buffer(env, n + 1, 8, NULL), dcolind = buffer(env, nslot, 8, NULL);
  /* coo_cl_build sorts in place of the rows, columns and values: copies, the callers' kept */
  cl_mem in[3] = {drow, dcol, dval}, copy[3] = {NULL, NULL, NULL};
  for (int i = 0; i < 3; i++)
    if (in[i]) {
      copy[i] = buffer(env, nslot + 1, 8, NULL);
      if (nslot > 0)
        clEnqueueCopyBuffer(env->queue, in[i], copy[i], 0, 0, sizeof(int64_t) * (size_t)nslot, 0,
                            NULL, NULL);
    }
  int64_t nvalid = -1, nnz = -1;
  const int err = coo_cl_build(k, env->queue, n, nslot, copy[0], copy[1], copy[2], dperm, dseg,
                               drowptr, dcolind, &nvalid, &nnz);
  for (int i = 0; i < 3; i++)
    if (copy[i]) clReleaseMemObject(copy[i]);
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
  if (dperm_out && !err) {
    *dperm_out = dperm;
    *dseg_out = dseg;
  } else {
    clReleaseMemObject(dperm);
    clReleaseMemObject(dseg);
  }
  clReleaseMemObject(drowptr);
  clReleaseMemObject(dcolind);
  return err;
}

/* 1 when the arrays of a pattern are the same bit for bit; else 0 and what differs first. */
static int same_arrays(int64_t nperm, int64_t nnz, int64_t n, const int64_t *perm_a,
                       const int64_t *perm_b, const int64_t *seg_a, const int64_t *seg_b,
                       const int64_t *rowptr_a, const int64_t *rowptr_b, const int64_t *colind_a,
                       const int64_t *colind_b)
{
  const struct {
    const char *name;
    const int64_t *x, *y;
    int64_t len;
  } arr[] = {{"perm", perm_a, perm_b, nperm},
             {"seg", seg_a, seg_b, nnz + 1},
             {"rowptr", rowptr_a, rowptr_b, n + 1},
             {"colind", colind_a, colind_b, nnz}};
  for (size_t i = 0; i < sizeof arr / sizeof *arr; i++)
    for (int64_t j = 0; j < arr[i].len; j++)
      if (arr[i].x[j] != arr[i].y[j]) {
        tap_diag("%s[%lld]: %lld and %lld", arr[i].name, (long long)j, (long long)arr[i].x[j],
                 (long long)arr[i].y[j]);
        return 0;
      }
  return 1;
}

/* 1 when a and b are the same pattern bit for bit; else 0 and what differs first. */
static int same_pattern(const struct coo_ref *a, const struct coo_ref *b)
{
  if (a->n != b->n || a->nslot != b->nslot || a->nvalid != b->nvalid || a->nnz != b->nnz) {
    tap_diag("n %lld/%lld, nslot %lld/%lld, nvalid %lld/%lld, nnz %lld/%lld", (long long)a->n,
             (long long)b->n, (long long)a->nslot, (long long)b->nslot, (long long)a->nvalid,
             (long long)b->nvalid, (long long)a->nnz, (long long)b->nnz);
    return 0;
  }
  return same_arrays(a->nslot, a->nnz, a->n, a->perm, b->perm, a->seg, b->seg, a->rowptr,
                     b->rowptr, a->colind, b->colind);
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

/* The device's signed sums (coo_cl_sum, in the precision of k) of nvalue random values through
 * the device pattern (dperm, dseg; nnz pairs) against pattern_value through the reference's
 * (perm, seg): 1 when within 1e-15 relative (1e-6 in single precision). */
static int sums_equal(struct cl_env *env, const struct coo_cl *k, int64_t nvalue, int64_t nnz,
                      const int64_t *perm, const int64_t *seg, cl_mem dperm, cl_mem dseg)
{
  const size_t rs = k->single ? sizeof(float) : sizeof(double);
  double *ref = malloc(sizeof *ref * (nnz + 1)), *val = malloc(sizeof *val * (nnz + 1));
  void *coo = malloc(rs * (nvalue + 1)), *val_r = malloc(rs * (nnz + 1));
  for (int64_t s = 0; s < nvalue; s++) {
    const double x = 2 * drand48() - 1;
    if (k->single)
      ((float *)coo)[s] = (float)x;
    else
      ((double *)coo)[s] = x;
  }
  for (int64_t u = 0; u < nnz; u++) ref[u] = pattern_value(perm, seg, u, coo, k->single);
  cl_mem dcoo = buffer(env, nvalue, rs, coo), dval = buffer(env, nnz, rs, NULL);
  int ok = coo_cl_sum(k, env->queue, nnz, dperm, dseg, dcoo, dval) == 0;
  download(env, dval, rs * nnz, val_r);
  for (int64_t u = 0; u < nnz; u++) val[u] = k->single ? ((float *)val_r)[u] : ((double *)val_r)[u];
  const double d = nnz ? tap_reldiff(val, ref, (size_t)nnz) : 0, tol = k->single ? 1e-6 : 1e-15;
  if (!(d <= tol)) tap_diag("sums differ by %.3g", d);
  clReleaseMemObject(dcoo);
  clReleaseMemObject(dval);
  free(ref);
  free(val);
  free(coo);
  free(val_r);
  return ok && d <= tol;
}

/* The device pattern and sums of nslot random slots against the reference: 1 when equal. With
 * payload, the slots carry random value numbers, a third of them with the sign -1 (~v), which
 * perm must carry in the stable order and the sums must honour; else perm holds slot numbers. */
static int random_case(struct cl_env *env, const struct coo_cl *k, int64_t n, int64_t nslot,
                       int payload)
{
  int64_t *row = malloc(sizeof *row * (nslot + 1)), *col = malloc(sizeof *col * (nslot + 1));
  int64_t *val = payload ? malloc(sizeof *val * (nslot + 1)) : NULL;
  const int64_t nvalue = nslot + 1;
  random_coo(n, nslot, row, col);
  for (int64_t s = 0; payload && s < nslot; s++) {
    const int64_t v = (int64_t)(drand48() * nvalue);
    val[s] = drand48() < 1.0 / 3 ? ~v : v;
  }
  struct coo_ref hp, dp;
  coo_ref_build(n, nslot, row, col, val, &hp);
  cl_mem drow = buffer(env, nslot, 8, row), dcol = buffer(env, nslot, 8, col);
  cl_mem dval = payload ? buffer(env, nslot, 8, val) : NULL, dperm = NULL, dseg = NULL;
  const int err = device_pattern(env, k, n, nslot, drow, dcol, dval, &dp, &dperm, &dseg);
  int ok = err == 0 && same_pattern(&dp, &hp);
  if (err) tap_diag("coo_cl_build: %s", femint_thread_error());
  if (ok) ok = sums_equal(env, k, nvalue, hp.nnz, hp.perm, hp.seg, dperm, dseg);
  if (dperm) clReleaseMemObject(dperm);
  if (dseg) clReleaseMemObject(dseg);
  if (dval) clReleaseMemObject(dval);
  clReleaseMemObject(drow);
  clReleaseMemObject(dcol);
  coo_ref_free(&hp);
  coo_ref_free(&dp);
  free(row);
  free(col);
  free(val);
  return ok;
}

static void test_random(struct cl_env *env, const struct coo_cl *k)
{
  const int64_t tile = (int64_t)k->tile;
  const struct {
    int64_t n, nslot;
  } cases[] = {{5, 0}, {0, 7}, {1, 1}, {3, 2}, {1, 100}, {37, 3 * tile + 17}, {1000, 5 * tile - 1}};
  int ok = 1;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    for (int payload = 0; payload <= 1; payload++) {
      const int c = random_case(env, k, cases[i].n, cases[i].nslot, payload);
      if (!c)
        tap_diag("n = %lld, %lld slots, payload %d", (long long)cases[i].n,
                 (long long)cases[i].nslot, payload);
      ok = ok && c;
    }
  tap_ok(ok,
         "pattern and signed sums of 0, 7 (no rows), 1, 2, 100 (one row), 3 tiles + 17 (2 passes "
         "of 6 bits) and 5 tiles - 1 (3 passes of 7 bits) random slots (tile %lld), with slot "
         "numbers and with a payload, equal the plain reference",
         (long long)tile);
  ok = random_case(env, k, 30000, 1000000, 0) && random_case(env, k, 30000, 1000000, 1);
  tap_ok(ok, "the same for 10^6 slots of 30000 rows (4 passes of 8 bits), both payloads");
  ok = random_case(env, k, 500000, 300000, 0) && random_case(env, k, 500000, 300000, 1);
  tap_ok(ok,
         "the same for 3 10^5 slots of 500000 rows (n^2 of 38 bits, 5 passes of 8 bits), both "
         "payloads");
}

/* The device scan against the plain one, in place and not, up to three levels of blocks. */
static void test_scan(struct cl_env *env, const struct coo_cl *k)
{
  const int64_t tile = (int64_t)k->wg * 8; /* SCAN_IPT */
  const int64_t sizes[] = {0, 1, 2, tile - 1, tile, tile + 1, 3 * tile + 5, tile * tile + 3};
  int ok = 1;
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    const int64_t m = sizes[i];
    int64_t *in = malloc(sizeof *in * (m + 1)), *ref = malloc(sizeof *ref * (m + 1));
    int64_t *out = malloc(sizeof *out * (m + 1));
    for (int64_t j = 0; j < m; j++) in[j] = (int64_t)(drand48() * 1000) - 100;
    in[m] = 0;
    scan_plain(m, in, ref);
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
  tap_ok(ok, "device scan of 0 .. tile^2 + 3 values (tile %lld) equals the plain scan",
         (long long)tile);
}

/* A test that can fail: a corrupted pattern, and the pattern of a changed input, differ from the
 * reference; a column >= n is refused. */
static void test_detects(struct cl_env *env, const struct coo_cl *k)
{
  const int64_t n = 50, nslot = 4000;
  int64_t *row = malloc(sizeof *row * nslot), *col = malloc(sizeof *col * nslot);
  random_coo(n, nslot, row, col);
  struct coo_ref hp, dp;
  coo_ref_build(n, nslot, row, col, NULL, &hp);
  cl_mem drow = buffer(env, nslot, 8, row), dcol = buffer(env, nslot, 8, col);
  TAP_CALL(NULL, device_pattern(env, k, n, nslot, drow, dcol, NULL, &dp, NULL, NULL));
  /* Two sorted entries of different pairs swapped: no longer in order. */
  int64_t a = 0;
  while (row[dp.perm[a]] == row[dp.perm[a + 1]] && col[dp.perm[a]] == col[dp.perm[a + 1]]) a++;
  const int64_t t = dp.perm[a];
  dp.perm[a] = dp.perm[a + 1];
  dp.perm[a + 1] = t;
  tap_diag("expected: a difference in perm");
  const int swapped = same_pattern(&dp, &hp);
  coo_ref_free(&dp);
  /* One valid slot moved to another column. */
  int64_t s = 0;
  while (row[s] < 0 || col[s] < 0) s++;
  col[s] = (col[s] + 1) % n;
  clEnqueueWriteBuffer(env->queue, dcol, CL_TRUE, 0, sizeof *col * nslot, col, 0, NULL, NULL);
  TAP_CALL(NULL, device_pattern(env, k, n, nslot, drow, dcol, NULL, &dp, NULL, NULL));
  tap_diag("expected: a difference");
  const int changed = same_pattern(&dp, &hp);
  coo_ref_free(&dp);
  col[s] = n;
  clEnqueueWriteBuffer(env->queue, dcol, CL_TRUE, 0, sizeof *col * nslot, col, 0, NULL, NULL);
  const int err = device_pattern(env, k, n, nslot, drow, dcol, NULL, &dp, NULL, NULL);
  tap_ok(!swapped && !changed && err == FEMINT_EINVAL,
         "detected: two sorted entries swapped, one slot moved, a column >= n (%s)",
         femint_thread_error());
  /* No queue: the first OpenCL call fails, and says so. */
  int64_t nvalid, nnz;
  const int err2 = coo_cl_build(k, NULL, n, nslot, drow, dcol, NULL, drow, drow, drow, drow,
                                &nvalid, &nnz);
  tap_ok(err2 == FEMINT_EOPENCL && strstr(femint_thread_error(), "clEnqueueWriteBuffer"),
         "without a queue: FEMINT_EOPENCL (%s)", femint_thread_error());
  clReleaseMemObject(drow);
  clReleaseMemObject(dcol);
  coo_ref_free(&hp);
  free(row);
  free(col);
}

/* The entries of two groups of cells of different sizes with random DOF codes (2 DOF + 1 for a
 * sign -1, -1 for none), in full and symmetric storage, the values of the second group after a
 * gap: coo_cl_indices writes the rows, columns and signed value numbers of a plain loop (the value
 * numbers compared where both DOFs exist, the only entries that count). */
static void test_indices(struct cl_env *env, const struct coo_cl *k)
{
  const int ncell[2] = {5, 3}, nrow[2] = {7, 12};
  const int64_t ndof = 40, sentinel = -77;
  int ok = 1;
  for (int sym = 0; sym <= 1; sym++) {
    /* full storage: every row; symmetric: the rows 10..29 alone (a device's part) */
    const int64_t rlo = sym ? 10 : 0, rhi = sym ? 30 : ndof;
    int64_t ncode = 0, nentry = 0;
    for (int g = 0; g < 2; g++) {
      ncode += (int64_t)ncell[g] * nrow[g];
      nentry += (int64_t)ncell[g] * nrow[g] * nrow[g];
    }
    int64_t *cdof = malloc(sizeof *cdof * ncode), *out[3], *ref[3];
    for (int i = 0; i < 3; i++) {
      out[i] = malloc(sizeof(int64_t) * nentry);
      ref[i] = malloc(sizeof(int64_t) * nentry);
      for (int64_t e = 0; e < nentry; e++) out[i][e] = sentinel;
    }
    for (int64_t c = 0; c < ncode; c++)
      cdof[c] = drand48() < 0.2 ? -1 : 2 * (int64_t)(drand48() * ndof) + (drand48() < 0.5);
    cl_mem dcdof = buffer(env, ncode, 8, cdof), dout[3];
    for (int i = 0; i < 3; i++) dout[i] = buffer(env, nentry, 8, out[i]);
    int64_t code = 0, entry = 0, value = 11;
    for (int g = 0; g < 2; g++) {
      const int n = nrow[g];
      const int64_t per = sym ? (int64_t)n * (n + 1) / 2 : (int64_t)n * n;
      ok = ok && coo_cl_indices(k, env->queue, ncell[g], n, sym, code, entry, value, per, rlo,
                                rhi, dcdof, dout[0], dout[1], dout[2]) == 0;
      for (int c = 0; c < ncell[g]; c++)
        for (int r = 0; r < n; r++)
          for (int s = 0; s < n; s++) {
            const int64_t a = cdof[code + (int64_t)c * n + r], b = cdof[code + (int64_t)c * n + s];
            const int64_t e = entry + ((int64_t)c * n + r) * n + s;
            const int64_t v = value + c * per + pattern_entry(n, r, s, sym);
            const int both = a >= 0 && b >= 0 && a / 2 >= rlo && a / 2 < rhi;
            ref[0][e] = both ? a / 2 : -1;
            ref[1][e] = both ? b / 2 : -1;
            ref[2][e] = a % 2 != b % 2 ? ~v : v;
          }
      code += (int64_t)ncell[g] * n;
      entry += (int64_t)ncell[g] * n * n;
      value += ncell[g] * per + 5;
    }
    for (int i = 0; i < 3; i++) download(env, dout[i], sizeof(int64_t) * nentry, out[i]);
    for (int64_t e = 0; e < nentry; e++) {
      const int same = out[0][e] == ref[0][e] && out[1][e] == ref[1][e] &&
                       (ref[0][e] < 0 || out[2][e] == ref[2][e]);
      if (!same && ok)
        tap_diag("%s entry %lld: (%lld, %lld, %lld), expected (%lld, %lld, %lld)",
                 sym ? "symmetric" : "full", (long long)e, (long long)out[0][e],
                 (long long)out[1][e], (long long)out[2][e], (long long)ref[0][e],
                 (long long)ref[1][e], (long long)ref[2][e]);
      ok = ok && same;
    }
    clReleaseMemObject(dcdof);
    for (int i = 0; i < 3; i++) {
      clReleaseMemObject(dout[i]);
      free(out[i]);
      free(ref[i]);
    }
    free(cdof);
  }
  tap_ok(ok,
         "coo_cl_indices, groups of 5 cells of 7 rows and 3 of 12 with random DOF codes (signs, "
         "missing DOFs), full and symmetric storage: the rows, columns and signed value numbers "
         "of a plain loop");
}

/* A group of the layout below: a run of cells of one order. */
struct layout_group {
  int64_t ncell, dof_base, entry_base, value_base, per_cell;
  int n;
};

/* The COO layout of a space as an operator lays it out: the cells in mesh order, their DOF codes
 * cdof (2 DOF + 1 for a sign -1, -1 for none) one after the other, voff[k] the first value of
 * cell k (n_k^2 values each, or n_k (n_k + 1) / 2 when symmetric), one group per run of cells of
 * equal order. */
struct layout {
  int ncell, ngroup;
  int64_t ncode, nentry, nvalue;
  int64_t *cdof, *voff;
  struct layout_group *group;
};

static void layout_make(femint_mesh_t mesh, femint_space_t s, int symmetric, struct layout *L)
{
  const int ncell = femint_mesh_num_cells(mesh), ne = femint_space_num_components(s);
  const int shape = femint_mesh_shape(mesh), family = femint_space_family(s);
  memset(L, 0, sizeof *L);
  L->ncell = ncell;
  L->voff = malloc(sizeof *L->voff * (ncell + 1));
  L->group = calloc((size_t)ncell, sizeof *L->group);
  int64_t ncode = 0;
  for (int c = 0; c < ncell; c++)
    ncode += refel_nsh(shape, family, femint_space_cell_order(s, c)) * ne;
  L->cdof = malloc(sizeof *L->cdof * (ncode + 1));
  int64_t dofs[3 * 288];
  int signs[3 * 288];
  for (int c = 0; c < ncell; c++) {
    const int p = femint_space_cell_order(s, c), n = refel_nsh(shape, family, p) * ne;
    const int64_t per = symmetric ? (int64_t)n * (n + 1) / 2 : (int64_t)n * n;
    if (c == 0 || p != femint_space_cell_order(s, c - 1))
      L->group[L->ngroup++] =
          (struct layout_group){0, L->ncode, L->nentry, L->nvalue, per, n};
    L->group[L->ngroup - 1].ncell++;
    TAP_CALL(NULL, femint_space_cell_dofs(s, c, dofs, signs));
    for (int i = 0; i < n; i++)
      L->cdof[L->ncode++] = dofs[i] < 0 ? -1 : 2 * dofs[i] + (signs[i] < 0);
    L->voff[c] = L->nvalue;
    L->nvalue += per;
    L->nentry += (int64_t)n * n;
  }
  L->voff[ncell] = L->nvalue;
}

static void layout_free(struct layout *L)
{
  free(L->cdof);
  free(L->voff);
  free(L->group);
}

/* The pattern of a space from coo_cl_indices (group by group) and coo_cl_build against
 * pattern_build's, in one storage: *pattern_ok when perm, seg, rowptr and colind are the same bit
 * for bit, *sums_ok when coo_cl_sum of random values equals pattern_value in double (k) and
 * single (k1) precision. */
static void space_case(struct cl_env *env, const struct coo_cl *k, const struct coo_cl *k1,
                       femint_mesh_t mesh, femint_space_t s, int symmetric, int part,
                       int *pattern_ok, int *sums_ok)
{
  struct layout L;
  layout_make(mesh, s, symmetric, &L);
  const int64_t n = femint_space_num_dofs(s), nm = s->nmode;
  /* part: the rows of the middle third of the scalar modes alone (a device's part) */
  const int64_t mlo = part ? nm / 3 : 0, mhi = part ? 2 * nm / 3 : nm;
  cl_mem dcdof = buffer(env, L.ncode, 8, L.cdof), drow = buffer(env, L.nentry, 8, NULL);
  cl_mem dcol = buffer(env, L.nentry, 8, NULL), dval = buffer(env, L.nentry, 8, NULL);
  int ok = 1;
  for (int g = 0; g < L.ngroup; g++) {
    const struct layout_group *G = &L.group[g];
    ok = ok && coo_cl_indices(k, env->queue, G->ncell, G->n, symmetric, G->dof_base,
                              G->entry_base, G->value_base, G->per_cell, mlo * s->ncomp,
                              mhi * s->ncomp, dcdof, drow, dcol, dval) == 0;
  }
  struct coo_ref dp;
  struct pattern hp;
  cl_mem dperm = NULL, dseg = NULL;
  ok = ok && device_pattern(env, k, n, L.nentry, drow, dcol, dval, &dp, &dperm, &dseg) == 0;
  TAP_CALL(NULL, pattern_build_rows(NULL, s, 0, NULL, symmetric, L.voff, mlo, mhi, &hp));
  if (part) { /* the part's rows and none other */
    const int64_t lo = hp.rowptr[mlo * s->ncomp], hi = hp.rowptr[mhi * s->ncomp];
    if (lo != 0 || hi != hp.nnz || hi == 0) {
      tap_diag("the part's rows hold values %lld..%lld of %lld", (long long)lo, (long long)hi,
               (long long)hp.nnz);
      ok = 0;
    }
  }
  if (ok && (dp.nvalid != hp.ncontrib || dp.nnz != hp.nnz)) {
    tap_diag("%lld contributions and %lld pairs, expected %lld and %lld", (long long)dp.nvalid,
             (long long)dp.nnz, (long long)hp.ncontrib, (long long)hp.nnz);
    ok = 0;
  }
  ok = ok && same_arrays(hp.ncontrib, hp.nnz, n, dp.perm, hp.perm, dp.seg, hp.seg, dp.rowptr,
                         hp.rowptr, dp.colind, hp.colind);
  int64_t nneg = 0;
  for (int64_t j = 0; j < hp.ncontrib; j++) nneg += hp.perm[j] < 0;
  tap_diag("%lld DOFs, %lld entries, %lld contributions (%lld of sign -1), %lld non-zeros, %d "
           "groups (%s)",
           (long long)n, (long long)L.nentry, (long long)hp.ncontrib, (long long)nneg,
           (long long)hp.nnz, L.ngroup, symmetric ? "symmetric" : "full");
  *pattern_ok = *pattern_ok && ok;
  *sums_ok = *sums_ok && ok && sums_equal(env, k, L.nvalue, hp.nnz, hp.perm, hp.seg, dperm, dseg) &&
             sums_equal(env, k1, L.nvalue, hp.nnz, hp.perm, hp.seg, dperm, dseg);
  if (dperm) clReleaseMemObject(dperm);
  if (dseg) clReleaseMemObject(dseg);
  clReleaseMemObject(dcdof);
  clReleaseMemObject(drow);
  clReleaseMemObject(dcol);
  clReleaseMemObject(dval);
  coo_ref_free(&dp);
  pattern_free(&hp);
  layout_free(&L);
}

/* Real spaces: prisms of orders 1..4 in runs of 5 cells with 3 components and the DOFs of the
 * face x = 0 removed (minimum rule, signs of odd edge modes, missing DOFs); tetrahedra of H(curl)
 * order 2 with every boundary DOF removed. */
static void test_spaces(struct cl_env *env, const struct coo_cl *k, const struct coo_cl *k1)
{
  for (int shape = 0; shape < 2; shape++) {
    femint_mesh_t m;
    femint_space_t s;
    const char *what;
    if (shape == 0) {
      TAP_CALL(NULL, femint_mesh_create_box(NULL, FEMINT_PRISM, 3, 2, 2, 1, 0.8, 0.7, 0.2, 5, &m));
      const int ncell = femint_mesh_num_cells(m), tag = 1;
      int *orders = malloc(sizeof *orders * ncell);
      for (int c = 0; c < ncell; c++) orders[c] = 1 + c / 5 % 4;
      TAP_CALL(NULL, femint_space_create(NULL, m, FEMINT_H1, 3, orders, 0, &s));
      TAP_CALL(NULL, femint_space_remove_boundary_dofs(s, 1, &tag));
      free(orders);
      what = "H1 space of 3 components on 24 prisms of orders 1..4 in runs, the face x = 0 "
             "removed";
    } else {
      TAP_CALL(NULL, femint_mesh_create_box(NULL, FEMINT_TET, 2, 2, 2, 1, 0.8, 0.7, 0, 1, &m));
      TAP_CALL(NULL, femint_space_create(NULL, m, FEMINT_HCURL, 1, NULL, 2, &s));
      TAP_CALL(NULL, femint_space_remove_boundary_dofs(s, 0, NULL));
      what = "H(curl) space of order 2 on 48 tetrahedra, the boundary DOFs removed";
    }
    int pattern_ok = 1, sums_ok = 1;
    for (int sym = 0; sym <= 1; sym++)
      for (int part = 0; part <= 1; part++)
        space_case(env, k, k1, m, s, sym, part, &pattern_ok, &sums_ok);
    tap_ok(pattern_ok,
           "%s, full and symmetric storage, every row and a third of them: coo_cl_indices by "
           "groups and coo_cl_build give pattern_build_rows's perm, seg, rowptr and colind bit "
           "for bit",
           what);
    tap_ok(sums_ok, "%s: coo_cl_sum equals pattern_value in double (1e-15) and single (1e-6)",
           what);
    femint_space_destroy(&s);
    femint_mesh_destroy(&m);
  }
}

int main(void)
{
  srand48(306);
  struct cl_env env = {0};
  if (cl_env_open(&env)) return 1;
  if (!env.info.fp64) tap_skip_all("the OpenCL device has no fp64");
  struct coo_cl k, k0, k1;
  char dir[] = "/tmp/femint-t306-XXXXXX";
  if (!mkdtemp(dir)) tap_skip_all("cannot create a temporary cache folder");
  setenv("FEMINT_CACHE_DIR", dir, 1);
  setenv("FEMINT_PROGRAM_CACHE", "1", 1);
  struct cache_count first = {0, 0}, again = {0, 0};
  TAP_CALL(NULL, coo_cl_create_with(env.ctx, env.dev, 0, build_cached, &first, &k0));
  coo_cl_destroy(&k0);
  TAP_CALL(NULL, coo_cl_create_with(env.ctx, env.dev, 0, build_cached, &again, &k));
  tap_ok(first.builds > 0 && first.loaded == 0 && again.builds > 0 &&
             again.loaded == again.builds,
         "coo.cl through the cache: compiled in a fresh folder (%d builds), loaded after (%d of "
         "%d)",
         first.builds, again.loaded, again.builds);
  TAP_CALL(NULL, coo_cl_create(env.ctx, env.dev, 1, &k1));
  tap_diag("coo.cl: work-groups of %zu", k.wg);
  test_scan(&env, &k);
  test_random(&env, &k);
  test_detects(&env, &k);
  test_indices(&env, &k);
  test_spaces(&env, &k, &k1);
  tap_ok(random_case(&env, &k1, 700, 50000, 0) && random_case(&env, &k1, 700, 50000, 1),
         "single precision: pattern of 50000 random slots, with slot numbers and with a payload, "
         "and float sums within 1e-6");
  coo_cl_destroy(&k);
  coo_cl_destroy(&k1);
  char cmd[64];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) tap_diag("could not remove %s", dir);
  clReleaseCommandQueue(env.queue);
  clReleaseContext(env.ctx);
  return tap_done();
}
