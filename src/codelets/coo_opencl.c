/* COO -> CSR on an OpenCL device: the host side of kernels/coo.cl (building the program, the
 * work-group size, the scratch buffers and the sequence of kernels). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coo_opencl.h"
#include "host/error.h"
#include "kernels.h"
#include "volume_opencl.h"

/* Keys per work-item of a radix pass and values per work-item of a scan block (coo.cl). */
#ifndef RADIX_IPT
#define RADIX_IPT 16
#endif
/* The largest work-group of the kernels (smaller where the local memory of a pass asks). With
 * 70 million keys on an H200, 16 keys a work-item in groups of 128 sorted in 12 ms, 8 in groups
 * of 256 in 14 ms, 8 in groups of 64 in 16 ms (tools/gpu/pattern-timing.c). */
#ifndef RADIX_WG
#define RADIX_WG 128
#endif
#define SCAN_IPT 8
#define RADIX_BITS 4
#define RADIX (1 << RADIX_BITS)
/* The most bits of a pass of the sort (coo.cl's PASS_BITS) and the bytes of a digit there. */
#ifndef PASS_BITS
#define PASS_BITS 8
#endif
#define DIGIT_BYTES (PASS_BITS > 8 ? 2 : 1)
/* Levels of the scan: enough for 2^64 values with tiles of 16 * 8 values and more. */
#define SCAN_LEVELS 16

static int cl_fail(const char *call, const char *what, cl_int e)
{
  return femint_seterr(NULL, FEMINT_EOPENCL, "COO on the device: %s(%s) failed with %d", call, what,
                       (int)e);
}

/* Run expr (a cl_int); on failure record the call and go to done with err set. */
#define CL_GO(call, what, expr)                                                                 \
  do {                                                                                          \
    const cl_int cl_e_ = (expr);                                                                \
    if (cl_e_ != CL_SUCCESS) {                                                                  \
      err = cl_fail((call), (what), cl_e_);                                                     \
      goto done;                                                                                \
    }                                                                                           \
  } while (0)

/* Set the arguments of kern and enqueue it on `global` work-items rounded up to whole groups of
 * local (every kernel checks its range: left to itself, an implementation may take groups of one
 * work-item for a prime global size); nothing when global is 0. */
static int run(cl_command_queue q, cl_kernel kern, size_t global, size_t local, int nargs,
               const struct karg *a)
{
  return femint_cl_run(q, kern, global, local, nargs, a, "COO on the device");
}

/* A device buffer of count values of size bytes each (at least one). */
static int buffer(cl_context ctx, size_t count, size_t size, const char *what, cl_mem *m)
{
  cl_int e;
  *m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (count ? count : 1) * size, NULL, &e);
  if (e != CL_SUCCESS) {
    *m = NULL;
    return cl_fail("clCreateBuffer", what, e);
  }
  return 0;
}

static void release(cl_mem *m)
{
  if (*m) clReleaseMemObject(*m);
  *m = NULL;
}

/* The kernels of coo.cl and where struct coo_cl keeps them. */
#define COO_KERNELS(X)                                                                          \
  X(indices, "coo_indices")                                                                     \
  X(keys, "coo_keys")                                                                           \
  X(radix_count, "coo_radix_count")                                                             \
  X(radix_scatter, "coo_radix_scatter")                                                         \
  X(scan_block, "coo_scan_block")                                                               \
  X(scan_add, "coo_scan_add")                                                                   \
  X(heads, "coo_heads")                                                                         \
  X(segments, "coo_segments")                                                                   \
  X(finish, "coo_finish")                                                                       \
  X(rowptr, "coo_rowptr_counted")                                                               \
  X(sum, "coo_sum")

/* Release the program and the kernels of k, keeping its context. */
static void release_program(struct coo_cl *k)
{
#define COO_RELEASE(field, name)                                                                \
  if (k->field) clReleaseKernel(k->field);                                                      \
  k->field = NULL;
  COO_KERNELS(COO_RELEASE)
#undef COO_RELEASE
  if (k->prog) clReleaseProgram(k->prog);
  k->prog = NULL;
}

void coo_cl_destroy(struct coo_cl *k)
{
  release_program(k);
  if (k->ctx) clReleaseContext(k->ctx);
  memset(k, 0, sizeof *k);
}

/* Build the program for work-groups of wg and make its kernels; *fit is the largest work-group
 * all of them accept (every kernel runs in groups of wg). */
static int build(cl_device_id dev, const char *src, size_t wg, coo_cl_builder builder,
                 void *arg, struct coo_cl *k, size_t *fit)
{
  char opts[256];
  snprintf(opts, sizeof opts, "-DWG=%zu -DRADIX_IPT=%d -DSCAN_IPT=%d -DPASS_BITS=%d %s", wg,
           RADIX_IPT, SCAN_IPT, PASS_BITS,
           k->single ? "-DREAL=float" : "-DREAL=double -DFEMINT_FP64");
  FEMINT_CALL(builder ? builder(arg, k->ctx, dev, src, opts, &k->prog)
                      : femint_cl_build(k->ctx, dev, src, opts, &k->prog));
  cl_int e;
#define COO_CREATE(field, name)                                                                 \
  k->field = clCreateKernel(k->prog, name, &e);                                                 \
  if (e != CL_SUCCESS) {                                                                        \
    k->field = NULL;                                                                            \
    return cl_fail("clCreateKernel", name, e);                                                  \
  }
  COO_KERNELS(COO_CREATE)
#undef COO_CREATE
#define COO_LIST(field, name) k->field,
  const cl_kernel all[] = {COO_KERNELS(COO_LIST)};
#undef COO_LIST
  *fit = wg;
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
    size_t w = 0;
    char name[64];
    e = clGetKernelWorkGroupInfo(all[i], dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof w, &w, NULL);
    if (e != CL_SUCCESS)
      return cl_fail("clGetKernelWorkGroupInfo", femint_cl_kernel_name(all[i], name, sizeof name), e);
    if (w < *fit) *fit = w;
  }
  return 0;
}

int coo_cl_create(cl_context ctx, cl_device_id dev, int single, struct coo_cl *k)
{
  return coo_cl_create_with(ctx, dev, single, NULL, NULL, k);
}

int coo_cl_create_with(cl_context ctx, cl_device_id dev, int single, coo_cl_builder builder,
                       void *arg, struct coo_cl *k)
{
  memset(k, 0, sizeof *k);
  struct femint_cl_device info;
  FEMINT_CALL(femint_cl_device_query(dev, &info));
  FEMINT_CHECK(single || info.fp64, NULL, FEMINT_ENOTSUP,
               "COO on the device: %s has no double precision", info.name);
  /* Local memory of a scatter pass: RADIX counters per work-item and a word of padding every
   * 32, a partial sum per work-item, the offsets of the digits of a pass, the tile's keys (a word
   * of padding per work-item), their indices in the tile and their digits. */
  size_t wg = RADIX_WG;
  while (wg > info.max_wg ||
         (RADIX * wg * 33 / 32) * sizeof(cl_uint) + wg * sizeof(cl_long) +
                 ((size_t)1 << PASS_BITS) * sizeof(cl_long) +
                 wg * (RADIX_IPT + 1) * sizeof(cl_ulong) +
                 wg * RADIX_IPT * (sizeof(cl_ushort) + DIGIT_BYTES) >
             info.local_mem)
    wg /= 2;
  char *src = femint_kernel_text("coo.cl");
  FEMINT_CHECK(src, NULL, FEMINT_ENOMEM, "COO on the device: no text of coo.cl");
  clRetainContext(ctx);
  k->ctx = ctx;
  k->single = single;
  int err = 0;
  for (;;) {
    /* The radix kernels write the RADIX counts of a group with its first RADIX work-items. */
    if (wg < RADIX) {
      err = femint_seterr(NULL, FEMINT_ENOTSUP,
                          "COO on the device: %s runs work-groups of fewer than %d work-items only",
                          info.name, RADIX);
      break;
    }
    size_t fit = 0;
    err = build(dev, src, wg, builder, arg, k, &fit);
    if (err || fit >= wg) break;
    /* A kernel cannot run groups this large: build again with the largest power of two it
     * can. */
    release_program(k);
    while (wg > fit) wg /= 2;
  }
  free(src);
  if (err) {
    coo_cl_destroy(k);
    return err;
  }
  k->wg = wg;
  k->tile = wg * RADIX_IPT;
  return 0;
}

int coo_cl_indices(const struct coo_cl *k, cl_command_queue q, int64_t ncell, int n,
                   int symmetric, int64_t dof_base, int64_t entry_base, int64_t value_base,
                   int64_t per_cell, int64_t rlo, int64_t rhi, cl_mem cdof, cl_mem row,
                   cl_mem col, cl_mem val)
{
  FEMINT_CHECK(ncell >= 0 && n >= 1 && dof_base >= 0 && entry_base >= 0 && value_base >= 0, NULL,
               FEMINT_EINVAL, "COO on the device: %lld cells of %d rows", (long long)ncell, n);
  const cl_long nc = ncell, db = dof_base, eb = entry_base, vb = value_base, pc = per_cell;
  const cl_long lo = rlo, hi = rhi;
  const cl_int nn = n, sym = symmetric;
  const struct karg a[] = {KARG(nc), KARG(nn),   KARG(sym), KARG(db),  KARG(eb),  KARG(vb),
                           KARG(pc), KARG(lo),   KARG(hi),  KARG(cdof), KARG(row), KARG(col),
                           KARG(val)};
  return run(q, k->indices, (size_t)(ncell * n * n), k->wg, 13, a);
}

int coo_cl_sum(const struct coo_cl *k, cl_command_queue q, int64_t nnz, cl_mem perm, cl_mem seg,
               cl_mem coo, cl_mem val)
{
  FEMINT_CHECK(nnz >= 0, NULL, FEMINT_EINVAL, "COO on the device: %lld pairs", (long long)nnz);
  const cl_long nz = nnz, zero = 0;
  const struct karg a[] = {KARG(nz),  KARG(zero), KARG(perm), KARG(seg),
                           KARG(coo), KARG(zero), KARG(val),  KARG(zero)};
  return run(q, k->sum, (size_t)nnz, k->wg, 8, a);
}

/* The block totals of each level of a scan of up to m values: level l holds ceil(m_l / tile) + 1
 * values, m_0 = m and m_{l+1} the blocks of level l, down to a single block. */
struct scan_scratch {
  cl_mem level[SCAN_LEVELS];
};

static int scan_scratch_create(const struct coo_cl *k, int64_t m, struct scan_scratch *s)
{
  memset(s, 0, sizeof *s);
  const int64_t tile = (int64_t)k->wg * SCAN_IPT;
  for (int l = 0; l < SCAN_LEVELS; l++) {
    const int64_t blocks = m > 0 ? (m + tile - 1) / tile : 1;
    const int err =
        buffer(k->ctx, (size_t)blocks + 1, sizeof(cl_long), "scan blocks", &s->level[l]);
    if (err) return err;
    if (blocks == 1) break;
    m = blocks;
  }
  return 0;
}

static void scan_scratch_destroy(struct scan_scratch *s)
{
  for (int l = 0; l < SCAN_LEVELS; l++) release(&s->level[l]);
}

/* The scan of m > 0 values at level l of the scratch: the blocks, the scan of their totals one
 * level down when there are several, and the totals added back. */
static int scan_level(const struct coo_cl *k, cl_command_queue q, int64_t m, cl_mem in, cl_mem out,
                      const struct scan_scratch *s, int l)
{
  const int64_t tile = (int64_t)k->wg * SCAN_IPT, blocks = (m + tile - 1) / tile;
  const cl_long mm = m;
  const cl_mem sums = s->level[l];
  const struct karg ab[] = {KARG(mm), KARG(in), KARG(out), KARG(sums)};
  FEMINT_CALL(run(q, k->scan_block, (size_t)blocks * k->wg, k->wg, 4, ab));
  if (blocks == 1) return 0;
  FEMINT_CALL(scan_level(k, q, blocks, sums, sums, s, l + 1));
  const struct karg aa[] = {KARG(mm), KARG(out), KARG(sums)};
  return run(q, k->scan_add, (size_t)blocks * k->wg, k->wg, 3, aa);
}

static const cl_long zero = 0;

int coo_cl_scan(const struct coo_cl *k, cl_command_queue q, int64_t m, cl_mem in, cl_mem out)
{
  FEMINT_CHECK(m >= 0, NULL, FEMINT_EINVAL, "COO on the device: a scan of %lld values",
               (long long)m);
  if (m == 0) {
    const cl_int e =
        clEnqueueWriteBuffer(q, out, CL_FALSE, 0, sizeof zero, &zero, 0, NULL, NULL);
    return e == CL_SUCCESS ? 0 : cl_fail("clEnqueueWriteBuffer", "scan total", e);
  }
  struct scan_scratch s;
  int err = scan_scratch_create(k, m, &s);
  if (!err) err = scan_level(k, q, m, in, out, &s, 0);
  scan_scratch_destroy(&s);
  return err;
}

/* The LSD radix sort of the keys of m > 0 slots, passes of bits each, in place of the slots'
 * rows, columns and values: the (key, slot) pairs are made in (row, col) or (kv, perm), so that
 * after the passes they end in (kv, perm). kv is val, or a scratch buffer where there are no
 * values. */
static int radix_sort(const struct coo_cl *k, cl_command_queue q, int64_t n, int64_t m,
                      int passes, int bits, cl_mem row, cl_mem col, cl_mem val, cl_mem kv,
                      cl_mem perm, cl_mem hist, cl_mem bad, const struct scan_scratch *s)
{
  const cl_long nn = n, mm = m;
  const cl_int has_val = val != NULL;
  cl_mem kin = passes % 2 ? row : kv, sin = passes % 2 ? col : perm;
  cl_mem kout = passes % 2 ? kv : row, sout = passes % 2 ? perm : col;
  const cl_mem vin = val ? val : row; /* not read without values */
  const struct karg ak[] = {KARG(nn), KARG(mm), KARG(row), KARG(col), KARG(has_val),
                            KARG(vin), KARG(kin), KARG(sin), KARG(bad)};
  FEMINT_CALL(run(q, k->keys, (size_t)m, k->wg, 9, ak));
  const int64_t tile = (int64_t)k->tile, groups = (m + tile - 1) / tile;
  for (int pass = 0; pass < passes; pass++) {
    const cl_int shift = pass * bits, nb = bits;
    const struct karg ac[] = {KARG(mm), KARG(shift), KARG(nb), KARG(kin), KARG(hist)};
    FEMINT_CALL(run(q, k->radix_count, (size_t)groups * k->wg, k->wg, 5, ac));
    FEMINT_CALL(scan_level(k, q, ((int64_t)1 << bits) * groups, hist, hist, s, 0));
    const struct karg as[] = {KARG(mm),  KARG(shift), KARG(nb),  KARG(kin),
                              KARG(sin), KARG(hist),  KARG(kout), KARG(sout)};
    FEMINT_CALL(run(q, k->radix_scatter, (size_t)groups * k->wg, k->wg, 8, as));
    cl_mem t = kin;
    kin = kout;
    kout = t;
    t = sin;
    sin = sout;
    sout = t;
  }
  return 0;
}

int coo_cl_build(const struct coo_cl *k, cl_command_queue q, int64_t n, int64_t nslot, cl_mem row,
                 cl_mem col, cl_mem val, cl_mem perm, cl_mem seg, cl_mem rowptr, cl_mem colind,
                 int64_t *nvalid, int64_t *nnz)
{
  *nvalid = *nnz = 0;
  FEMINT_CHECK(n >= 0 && n < ((int64_t)1 << 31) && nslot >= 0, NULL, FEMINT_EINVAL,
               "COO assembly on the device: %lld rows (at most 2^31 - 1) and %lld slots",
               (long long)n, (long long)nslot);
  const int64_t m = nslot;
  const cl_ulong top = (cl_ulong)n * (cl_ulong)n;
  /* The bits of the keys (up to top) spread evenly over the fewest passes. */
  int nbits = 0;
  for (cl_ulong t = top; t; t >>= 1) nbits++;
  const int passes = (nbits + PASS_BITS - 1) / PASS_BITS;
  const int bits = passes ? (nbits + passes - 1) / passes : 0;
  const int64_t tile = (int64_t)k->tile, groups = m > 0 ? (m + tile - 1) / tile : 1;
  const int64_t nhist = ((int64_t)1 << bits) * groups, scan_max = m > nhist ? m : nhist;
  cl_mem key = val, own = NULL, hist = NULL;
  cl_mem counts = NULL, bad = NULL;
  struct scan_scratch s = {{NULL}};
  cl_int badv = INT_MAX;
  cl_long cnt[2] = {0, 0};
  int err = 0;

  if ((err = buffer(k->ctx, 1, sizeof(cl_int), "bad slot", &bad)) ||
      (err = buffer(k->ctx, 2, sizeof(cl_long), "counts", &counts)))
    goto done;
  CL_GO("clEnqueueWriteBuffer", "bad slot",
        clEnqueueWriteBuffer(q, bad, CL_FALSE, 0, sizeof badv, &badv, 0, NULL, NULL));
  CL_GO("clEnqueueWriteBuffer", "counts",
        clEnqueueWriteBuffer(q, counts, CL_FALSE, 0, sizeof cnt, cnt, 0, NULL, NULL));
  if (m > 0) {
    /* The keys end in val, or in a buffer of their own without values; row and col serve the
     * sort, then as pair positions (m + 1) and head flags. */
    if ((!val && (err = buffer(k->ctx, (size_t)m, sizeof(cl_ulong), "keys", &own))) ||
        (err = buffer(k->ctx, (size_t)nhist + 1, sizeof(cl_long), "histogram", &hist)) ||
        (err = scan_scratch_create(k, scan_max, &s)))
      goto done;
    if (!val) key = own;
    if ((err = radix_sort(k, q, n, m, passes, bits, row, col, val, key, perm, hist, bad, &s)))
      goto done;
    if (femint_tracing()) { /* the sort's time, waited for */
      clFinish(q);
      femint_trace("COO pattern: %lld keys sorted, %d passes of %d bits", (long long)m, passes,
                   bits);
    }
  }
  if (m == 0 || n == 0) {
    /* Without slots or rows (every slot then left out) the pattern is empty. */
    CL_GO("clEnqueueWriteBuffer", "seg",
          clEnqueueWriteBuffer(q, seg, CL_FALSE, 0, sizeof zero, &zero, 0, NULL, NULL));
    CL_GO("clEnqueueFillBuffer", "rowptr",
          clEnqueueFillBuffer(q, rowptr, &zero, sizeof zero, 0, sizeof zero * (size_t)(n + 1), 0,
                              NULL, NULL));
  } else {
    /* The heads of all m keys: the left-out slots, if any, make one more pair at the end, which
     * coo_finish takes off. */
    const cl_mem flag = col, pos = row;
    const cl_long nn = n, mm = m;
    const struct karg ah[] = {KARG(mm), KARG(key), KARG(flag)};
    if ((err = run(q, k->heads, (size_t)m, k->wg, 3, ah)) ||
        (err = scan_level(k, q, m, flag, pos, &s, 0)))
      goto done;
    const struct karg as[] = {KARG(nn),  KARG(mm),  KARG(key),   KARG(flag),
                              KARG(pos), KARG(seg), KARG(colind)};
    const struct karg af[] = {KARG(mm), KARG(top), KARG(key), KARG(pos), KARG(seg), KARG(counts)};
    const struct karg ar[] = {KARG(nn), KARG(counts), KARG(key), KARG(seg), KARG(rowptr)};
    if ((err = run(q, k->segments, (size_t)m, k->wg, 7, as)) ||
        (err = run(q, k->finish, 1, k->wg, 6, af)) ||
        (err = run(q, k->rowptr, (size_t)m + 1, k->wg, 5, ar)))
      goto done;
  }
  CL_GO("clEnqueueReadBuffer", "bad slot",
        clEnqueueReadBuffer(q, bad, CL_FALSE, 0, sizeof badv, &badv, 0, NULL, NULL));
  CL_GO("clEnqueueReadBuffer", "counts",
        clEnqueueReadBuffer(q, counts, CL_TRUE, 0, sizeof cnt, cnt, 0, NULL, NULL));
  if (badv != INT_MAX)
    err = femint_seterr(NULL, FEMINT_EINVAL,
                        "COO assembly on the device: slot %d has a row or column outside %lld "
                        "rows",
                        (int)badv, (long long)n);
  if (!err) {
    *nvalid = cnt[0];
    *nnz = cnt[1];
    femint_trace("COO pattern: %lld pairs, their segments and rows", (long long)cnt[1]);
  }

done:
  /* Nothing queued may still write into badv or cnt once this returns. */
  if (err) clFinish(q);
  release(&own);
  release(&hist);
  release(&counts);
  release(&bad);
  scan_scratch_destroy(&s);
  return err;
}
