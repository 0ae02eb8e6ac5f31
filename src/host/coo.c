/* COO to CSR with duplicates summed: keys, a stable LSD radix sort of (key, slot) pairs, head
 * flags, prefix sums and a segmented reduction. Each function below is one data-parallel step
 * (the loop body is the work-item), so that the OpenCL version (kernels/coo.cl, driven by
 * src/codelets/coo_opencl.c) follows it kernel by kernel, except where it says otherwise: the
 * device sorts 4-bit digits (twice the passes of the 8-bit ones here; both sorts are stable, so
 * the permutation is the same), scans with a multi-level work-efficient scan where scan_exclusive
 * is sequential, and flags the heads of all the sorted keys, the left-out ones included, then
 * takes off the extra pair they make, instead of searching for nvalid first. */
#include <stdlib.h>
#include <string.h>

#include "coo.h"
#include "error.h"

#define RADIX_BITS 8
#define RADIX (1 << RADIX_BITS)

void scan_exclusive(int64_t n, const int64_t *in, int64_t *out)
{
  /* Sequential here; the device scans tiles (Blelloch), then their totals, and adds them back. */
  int64_t s = 0;
  for (int64_t k = 0; k < n; k++) {
    const int64_t v = in[k];
    out[k] = s;
    s += v;
  }
  out[n] = s;
}

/* key = row * n + col for a slot with both, n^2 (after every valid key) otherwise. */
static void coo_keys(int64_t n, int64_t nslot, const int64_t *row, const int64_t *col,
                     uint64_t *key, int64_t *slot)
{
  for (int64_t k = 0; k < nslot; k++) {
    const int valid = row[k] >= 0 && col[k] >= 0;
    key[k] = valid ? (uint64_t)row[k] * (uint64_t)n + (uint64_t)col[k] : (uint64_t)n * n;
    slot[k] = k;
  }
}

/* One pass of the radix sort on digit `shift`: histogram, exclusive scan of the counts, stable
 * scatter (a device does the histogram per work-group and scans over (digit, group)). */
static void radix_pass(int64_t m, int shift, const uint64_t *key, const int64_t *slot,
                       uint64_t *key_out, int64_t *slot_out)
{
  int64_t count[RADIX + 1] = {0}, start[RADIX + 1];
  for (int64_t k = 0; k < m; k++) count[(key[k] >> shift) & (RADIX - 1)]++;
  scan_exclusive(RADIX, count, start);
  for (int64_t k = 0; k < m; k++) {
    const int64_t at = start[(key[k] >> shift) & (RADIX - 1)]++;
    key_out[at] = key[k];
    slot_out[at] = slot[k];
  }
}

/* Head flags of the sorted valid keys: 1 where a new (row, column) pair starts. */
static void coo_heads(int64_t nvalid, const uint64_t *key, int64_t *flag)
{
  for (int64_t k = 0; k < nvalid; k++) flag[k] = k == 0 || key[k] != key[k - 1];
}

/* Each head k writes its pair u = pos[k]: seg[u] = k and the column. */
static void coo_segments(int64_t n, int64_t nvalid, const uint64_t *key, const int64_t *flag,
                         const int64_t *pos, int64_t *seg, int64_t *colind)
{
  for (int64_t k = 0; k < nvalid; k++)
    if (flag[k]) {
      seg[pos[k]] = k;
      colind[pos[k]] = (int64_t)(key[k] % (uint64_t)n);
    }
}

/* Row pointers: pair u fills rowptr for the rows after its predecessor's up to its own (empty
 * rows included); the last pair closes the remaining rows. */
static void coo_rowptr(int64_t n, int64_t nnz, const uint64_t *key, const int64_t *seg,
                       int64_t *rowptr)
{
  for (int64_t u = 0; u <= nnz; u++) {
    const int64_t r = u < nnz ? (int64_t)(key[seg[u]] / (uint64_t)n) : n;
    const int64_t prev = u > 0 ? (int64_t)(key[seg[u - 1]] / (uint64_t)n) : -1;
    for (int64_t rr = prev + 1; rr <= r; rr++) rowptr[rr] = u;
  }
}

int coo_pattern_build(int64_t n, int64_t nslot, const int64_t *row, const int64_t *col,
                      struct coo_pattern *p)
{
  memset(p, 0, sizeof *p);
  FEMINT_CHECK(n >= 0 && n < ((int64_t)1 << 31) && nslot >= 0, NULL, FEMINT_EINVAL,
               "COO assembly: %lld rows (at most 2^31 - 1) and %lld slots", (long long)n,
               (long long)nslot);
  for (int64_t k = 0; k < nslot; k++)
    FEMINT_CHECK(row[k] < n && col[k] < n, NULL, FEMINT_EINVAL,
                 "COO assembly: slot %lld has (row, column) = (%lld, %lld) outside %lld rows",
                 (long long)k, (long long)row[k], (long long)col[k], (long long)n);
  int err = FEMINT_ENOMEM;
  uint64_t *key = malloc(sizeof *key * (nslot + 1)), *key2 = malloc(sizeof *key2 * (nslot + 1));
  int64_t *slot = malloc(sizeof *slot * (nslot + 1)), *slot2 = malloc(sizeof *slot2 * (nslot + 1));
  int64_t *flag = malloc(sizeof *flag * (nslot + 1)), *pos = malloc(sizeof *pos * (nslot + 1));
  p->rowptr = malloc(sizeof *p->rowptr * (n + 1));
  if (!key || !key2 || !slot || !slot2 || !flag || !pos || !p->rowptr) goto done;

  coo_keys(n, nslot, row, col, key, slot);
  /* Only the digits that n^2 (the largest key) uses. */
  int passes = 0;
  for (uint64_t top = (uint64_t)n * n; top; top >>= RADIX_BITS) passes++;
  for (int pass = 0; pass < passes; pass++) {
    radix_pass(nslot, pass * RADIX_BITS, key, slot, key2, slot2);
    uint64_t *tk = key;
    key = key2;
    key2 = tk;
    int64_t *ts = slot;
    slot = slot2;
    slot2 = ts;
  }
  /* The invalid slots sort last: nvalid is where they start. */
  int64_t nvalid = nslot;
  while (nvalid > 0 && key[nvalid - 1] == (uint64_t)n * n) nvalid--;
  coo_heads(nvalid, key, flag);
  scan_exclusive(nvalid, flag, pos);
  p->n = n;
  p->nslot = nslot;
  p->nvalid = nvalid;
  p->nnz = pos[nvalid];
  p->seg = malloc(sizeof *p->seg * (p->nnz + 1));
  p->colind = malloc(sizeof *p->colind * (p->nnz + 1));
  if (!p->seg || !p->colind) goto done;
  coo_segments(n, nvalid, key, flag, pos, p->seg, p->colind);
  p->seg[p->nnz] = nvalid;
  coo_rowptr(n, p->nnz, key, p->seg, p->rowptr);
  /* The slots in sorted order are the permutation the reductions read through. */
  p->perm = slot;
  slot = NULL;
  err = 0;

done:
  free(key);
  free(key2);
  free(slot);
  free(slot2);
  free(flag);
  free(pos);
  if (err) {
    coo_pattern_free(p);
    return femint_seterr(NULL, err, "COO assembly: out of memory for %lld slots", (long long)nslot);
  }
  return 0;
}

void coo_pattern_sum(const struct coo_pattern *p, const double *coo, double *val)
{
  /* One work-item per distinct pair: no atomics, and the same order of additions every time. */
  for (int64_t u = 0; u < p->nnz; u++) {
    double s = 0;
    for (int64_t k = p->seg[u]; k < p->seg[u + 1]; k++) s += coo[p->perm[k]];
    val[u] = s;
  }
}

void coo_pattern_free(struct coo_pattern *p)
{
  free(p->perm);
  free(p->seg);
  free(p->rowptr);
  free(p->colind);
  memset(p, 0, sizeof *p);
}
