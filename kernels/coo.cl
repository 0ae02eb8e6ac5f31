/* COO to CSR on an OpenCL device (host-side twin: src/host/pattern.c): the rows, columns and
 * values of the entries of the element matrices of a plan's cells, keys row * n + col (n^2 for an
 * entry left out), a stable LSD radix sort of (key, value) pairs, head flags, a multi-level
 * exclusive scan, the scatter of the distinct pairs, the row pointers, and the segmented sum of
 * any value array through the pattern. A value v with the sign -1 travels as ~v (negative).
 *
 * The sort takes digits of up to PASS_BITS (8) bits, as many bits a pass as the keys need spread
 * evenly over the fewest passes (34-bit keys: 5 passes of 7 bits). A pass is a count kernel (the
 * digits of each tile, counted with local atomics, to hist[digit * ngroups + group]), the device
 * scan of hist, and a scatter kernel, which sorts its tile stably by the digit in local memory and
 * writes each digit's run of the tile out in consecutive words from its scanned offset. The tile's
 * local sort is a sequence of counting passes of 4 bits: each work-item counts the digits of its
 * RADIX_IPT keys (16 * WG counters, digit-major) and the counters are scanned in their linear
 * order, which puts every key after all the tile's keys of smaller digits and after its own
 * digit's keys of earlier work-items (8-bit counters per work-item would take 256 * WG of them,
 * more local memory than devices have at useful work-group sizes). Only the digits of n^2 are
 * sorted. Both sorts are stable and start from slot order, so they give the same permutation.
 *
 * The scan is work-efficient and multi-level: coo_scan_block scans tiles of SCAN_IPT values per
 * work-item (Blelloch's up- and down-sweep over the work-items in local memory) and writes each
 * tile's total, the host scans those totals the same way (recursively, until one tile is left),
 * and coo_scan_add adds them back. It serves the histograms of the sort and the head flags; the
 * host twin scans sequentially.
 *
 * The kernels that take counts by value (coo_heads, coo_segments, coo_rowptr) serve a host that
 * knows them; the device build runs coo_heads and coo_segments on all sorted keys, the left-out
 * ones included (they make one more pair at the end), and coo_finish and coo_rowptr_counted take
 * nvalid and nnz from device memory, so that nothing is read back before the pattern is done.
 *
 * Compiled with -DWG=<work-group size, a power of two, at least 16> -DRADIX_IPT=<keys per
 * work-item of the sort> -DSCAN_IPT=<values per work-item of the scan> (defaults below) and
 * -DREAL=float|double (-DFEMINT_FP64), and -DVAL=double (with -DFEMINT_FP64) for sums of floats
 * written as doubles (default: REAL). OpenCL 1.2 only: local memory, barriers and one 32-bit
 * global atomic_min (the first bad slot) and 32-bit local atomic_inc; no 64-bit atomics, no
 * subgroups. */
#ifdef FEMINT_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#ifndef VAL
#define VAL REAL
#endif

/* Defaults for a host that runs only the kernels without local memory. */
#ifndef WG
#define WG 64
#endif
#ifndef RADIX_IPT
#define RADIX_IPT 8
#endif
#ifndef SCAN_IPT
#define SCAN_IPT 8
#endif

#define RADIX_BITS 4
#define RADIX (1 << RADIX_BITS)
/* The most bits of a pass (its digits' counts per group) and the type that holds a digit. */
#ifndef PASS_BITS
#define PASS_BITS 8
#endif
#if PASS_BITS > 8
#define DIGIT ushort
#else
#define DIGIT uchar
#endif
#define RADIX_TILE (WG * RADIX_IPT)
/* Counter i of the ranking in local memory, one word of padding every 32: work-item t reads the
 * counters 16 t .. 16 t + 15, which would otherwise fall on two of 32 banks. */
#define CNT(i) ((i) + ((i) >> 5))
#define CNT_SIZE CNT(RADIX * WG)
#define SCAN_TILE (WG * SCAN_IPT)

/* Rows, columns and values of the entries of ncell cells of one group, one work-item per entry:
 * the k-th cell of the group has the n DOF codes cdof[dof_base + k n ..] (2 * DOF, plus 1 for a
 * mode of sign -1; -1 for none) and its n x n matrix starts at value value_base + k * per_cell,
 * stored full or as its packed upper half (symmetric); entry (r, s) goes to
 * row/col/val[entry_base + k n^2 + r n + s], both -1 where either DOF is missing. */
__kernel void coo_indices(long ncell, int n, int symmetric, long dof_base, long entry_base,
                          long value_base, long per_cell, long rlo, long rhi,
                          __global const long *cdof, __global long *row, __global long *col,
                          __global long *val)
{
  const long nn = (long)n * n, e = (long)get_global_id(0);
  if (e >= ncell * nn) return;
  const long c = e / nn;
  int r = (int)(e / n % n), s = (int)(e % n);
  const long a = cdof[dof_base + c * n + r], b = cdof[dof_base + c * n + s];
  /* rows rlo..rhi - 1 alone: the part of the matrix one device sums */
  const int both = a >= 0 && b >= 0 && (a >> 1) >= rlo && (a >> 1) < rhi;
  row[entry_base + e] = both ? a >> 1 : -1;
  col[entry_base + e] = both ? b >> 1 : -1;
  if (symmetric && r > s) {
    const int t = r;
    r = s;
    s = t;
  }
  const long at = symmetric ? (long)r * n - (long)r * (r - 1) / 2 + (s - r) : (long)r * n + s;
  const long v = value_base + c * per_cell + at;
  val[entry_base + e] = ((a ^ b) & 1) ? ~v : v;
}

/* key = row * n + col for an entry with both, n^2 otherwise; slot[k] = val[k], or k when there
 * are no values (has_val 0). A row or column >= n is an error: the entry is left out and the
 * smallest such entry (up to INT_MAX) goes to *bad, which the host set to INT_MAX. key and slot
 * may be row and col, or val and another buffer: entry k is read before it is written. */
__kernel void coo_keys(long n, long m, __global const long *row, __global const long *col,
                       int has_val, __global const long *val, __global ulong *key,
                       __global long *slot, __global int *bad)
{
  const long k = get_global_id(0);
  if (k >= m) return;
  const long r = row[k], c = col[k], v = has_val ? val[k] : k;
  if (r >= n || c >= n) atomic_min(bad, (int)min(k, (long)INT_MAX));
  const int valid = r >= 0 && c >= 0 && r < n && c < n;
  key[k] = valid ? (ulong)r * (ulong)n + (ulong)c : (ulong)n * (ulong)n;
  slot[k] = v;
}

/* Exclusive scan of a[0..WG) in local memory by the WG work-items of a group (Blelloch: an
 * up-sweep and a down-sweep, 2 WG additions); returns the total. Called by every work-item. */
static long scan_local(__local long *a)
{
  const uint lid = get_local_id(0);
  for (uint d = 1; d < WG; d <<= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint i = (lid + 1) * 2 * d - 1;
    if (i < WG) a[i] += a[i - d];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const long total = a[WG - 1];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) a[WG - 1] = 0;
  for (uint d = WG / 2; d >= 1; d >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint i = (lid + 1) * 2 * d - 1;
    if (i < WG) {
      const long t = a[i - d];
      a[i - d] = a[i];
      a[i] += t;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  return total;
}

/* The tile's keys in local memory, the RADIX_IPT consecutive ones of a work-item padded by a word
 * so that the work-items of a warp read different banks. */
#define LK(i) ((i) + (i) / RADIX_IPT)
#define LK_SIZE LK(RADIX_TILE)

/* The digit of nb bits of k at shift. */
static uint digit(ulong k, int shift, int nb)
{
  return (uint)(k >> shift) & ((1u << nb) - 1u);
}

/* One stable counting pass over the tile in local memory on the digit of nb <= RADIX_BITS bits at
 * shift: work-item t owns the keys at t * RADIX_IPT + e (e < RADIX_IPT) and their tile indices
 * li, counts their digits in cnt (RADIX counters per work-item, digit-major), scans the counters
 * in their linear order, which puts every key after all the tile's keys of smaller digits and
 * after its own digit's keys of earlier work-items, and moves keys and indices to their places. */
static void rank_local(int shift, int nb, __local ulong *lk, __local ushort *li,
                       __local uint *cnt, __local long *part)
{
  const uint lid = get_local_id(0);
  ulong kv[RADIX_IPT];
  ushort iv[RADIX_IPT];
  uchar dig[RADIX_IPT];
  for (int e = 0; e < RADIX_IPT; e++) {
    const int p = (int)lid * RADIX_IPT + e;
    kv[e] = lk[LK(p)];
    iv[e] = li[p];
    dig[e] = (uchar)digit(kv[e], shift, nb);
  }
  for (int d = 0; d < RADIX; d++) cnt[CNT(d * WG + lid)] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int e = 0; e < RADIX_IPT; e++) cnt[CNT(dig[e] * WG + lid)]++;
  barrier(CLK_LOCAL_MEM_FENCE);
  /* Work-item t scans the counters t * RADIX .. t * RADIX + RADIX - 1 of the linear order. */
  uint s = 0;
  for (int j = 0; j < RADIX; j++) {
    const uint i = CNT(lid * RADIX + j), v = cnt[i];
    cnt[i] = s;
    s += v;
  }
  part[lid] = s;
  scan_local(part);
  const uint add = (uint)part[lid];
  for (int j = 0; j < RADIX; j++) cnt[CNT(lid * RADIX + j)] += add;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int e = 0; e < RADIX_IPT; e++) {
    const uint d = dig[e];
    uint before = 0;
    for (int f = 0; f < e; f++) before += dig[f] == d;
    const int at = (int)(cnt[CNT(d * WG + lid)] + before);
    lk[LK(at)] = kv[e];
    li[at] = iv[e];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

/* The number of keys of each digit of bits (<= PASS_BITS) at shift in the tile of each group:
 * hist[d * ngroups + group]. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
coo_radix_count(long m, int shift, int bits, __global const ulong *key, __global long *hist)
{
  __local uint bins[1 << PASS_BITS];
  const uint lid = get_local_id(0), g = get_group_id(0), ngroups = get_num_groups(0);
  const int nbins = 1 << bits;
  for (int d = (int)lid; d < nbins; d += WG) bins[d] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  const long tile0 = (long)g * RADIX_TILE;
  for (int e = 0; e < RADIX_IPT; e++) {
    const long i = tile0 + e * WG + lid;
    if (i < m) atomic_inc(&bins[digit(key[i], shift, bits)]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int d = (int)lid; d < nbins; d += WG) hist[(long)d * ngroups + g] = bins[d];
}

/* One pass on the digit of bits (<= PASS_BITS) at shift: (key, slot) to their place (key_out,
 * slot_out), hist holding the exclusive scan of the counts of coo_radix_count. The tile is put in
 * order by the digit in local memory by stable counting passes of RADIX_BITS bits from the lowest,
 * keys with their tile indices, and written out from there: each digit's run of the tile goes to
 * consecutive words; then the slots the same way. Past the m keys the tile holds keys of all
 * ones, which stay last. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
coo_radix_scatter(long m, int shift, int bits, __global const ulong *key,
                  __global const long *slot, __global const long *hist, __global ulong *key_out,
                  __global long *slot_out)
{
  __local uint cnt[CNT_SIZE];
  __local long part[WG];
  __local long offset[1 << PASS_BITS];
  __local ulong lk[LK_SIZE];
  __local ushort li[RADIX_TILE];
  __local DIGIT ld[RADIX_TILE];
  const uint lid = get_local_id(0), g = get_group_id(0), ngroups = get_num_groups(0);
  const long tile0 = (long)g * RADIX_TILE;
  const int tile = (int)min((long)RADIX_TILE, m - tile0);
  for (int e = 0; e < RADIX_IPT; e++) {
    const int i = e * WG + (int)lid;
    lk[LK(i)] = i < tile ? key[tile0 + i] : ~(ulong)0;
    li[i] = (ushort)i;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int sub = 0; sub < bits; sub += RADIX_BITS)
    rank_local(shift + sub, min(RADIX_BITS, bits - sub), lk, li, cnt, part);
  /* The first key of each digit's run: where the group's keys of that digit go, less its place
   * in the tile. */
  for (int i = (int)lid; i < tile; i += WG) {
    const uint d = digit(lk[LK(i)], shift, bits);
    ld[i] = (DIGIT)d;
    if (i == 0 || d != digit(lk[LK(i - 1)], shift, bits))
      offset[d] = hist[(long)d * ngroups + g] - i;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = (int)lid; i < tile; i += WG) key_out[offset[ld[i]] + i] = lk[LK(i)];
  /* The slots through lk, read in consecutive words. */
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int e = 0; e < RADIX_IPT; e++) {
    const int i = e * WG + (int)lid;
    if (i < tile) lk[LK(i)] = (ulong)slot[tile0 + i];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = (int)lid; i < tile; i += WG) slot_out[offset[ld[i]] + i] = (long)lk[LK(li[i])];
}

/* First level of the exclusive scan of in[0..m): each group scans its tile of SCAN_TILE values
 * (SCAN_IPT consecutive ones per work-item, then scan_local over the work-items) into out, and
 * writes the tile's total to sums[group]; with a single group, out[m] = the total. in and out
 * may be the same buffer. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
coo_scan_block(long m, __global const long *in, __global long *out, __global long *sums)
{
  __local long part[WG];
  const uint lid = get_local_id(0), g = get_group_id(0);
  const long base = (long)g * SCAN_TILE + (long)lid * SCAN_IPT;
  long v[SCAN_IPT], s = 0;
  for (int e = 0; e < SCAN_IPT; e++) {
    v[e] = base + e < m ? in[base + e] : 0;
    s += v[e];
  }
  part[lid] = s;
  const long total = scan_local(part);
  s = part[lid];
  for (int e = 0; e < SCAN_IPT && base + e < m; e++) {
    out[base + e] = s;
    s += v[e];
  }
  if (lid == 0) {
    sums[g] = total;
    if (get_num_groups(0) == 1) out[m] = total;
  }
}

/* Last level: the scanned tile totals sums[0..ngroups] (sums[ngroups] the grand total) added to
 * the tiles of out, out[m] = the grand total. The same groups as coo_scan_block. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
coo_scan_add(long m, __global long *out, __global const long *sums)
{
  const uint lid = get_local_id(0), g = get_group_id(0);
  const long add = sums[g], base = (long)g * SCAN_TILE;
  for (int e = 0; e < SCAN_IPT; e++) {
    const long k = base + (long)e * WG + lid;
    if (k < m) out[k] += add;
  }
  if (g == 0 && lid == 0) out[m] = sums[get_num_groups(0)];
}

__kernel void coo_heads(long nvalid, __global const ulong *key, __global long *flag)
{
  const long k = get_global_id(0);
  if (k < nvalid) flag[k] = k == 0 || key[k] != key[k - 1];
}

/* pos: the exclusive scan of the flags. */
__kernel void coo_segments(long n, long nvalid, __global const ulong *key,
                           __global const long *flag, __global const long *pos,
                           __global long *seg, __global long *colind)
{
  const long k = get_global_id(0);
  if (k < nvalid && flag[k]) {
    seg[pos[k]] = k;
    colind[pos[k]] = (long)(key[k] % (ulong)n);
  }
}

/* After coo_heads and coo_segments ran on all m sorted keys, the left-out slots included (one
 * work-item): those slots, if any, made one more head, the last, whose segment starts at nvalid.
 * Writes counts[0] = nvalid, counts[1] = nnz and seg[nnz] = nvalid. */
__kernel void coo_finish(long m, ulong top, __global const ulong *key, __global const long *pos,
                         __global long *seg, __global long *counts)
{
  if (get_global_id(0) != 0) return;
  const long heads = pos[m], nnz = heads - (m > 0 && key[m - 1] == top);
  const long nvalid = nnz < heads ? seg[nnz] : m;
  seg[nnz] = nvalid;
  counts[0] = nvalid;
  counts[1] = nnz;
}

/* rowptr for pair u (0..nnz): the rows after the previous pair's, up to its own. */
static void rowptr_pair(long n, long nnz, long u, __global const ulong *key,
                        __global const long *seg, __global long *rowptr)
{
  const long r = u < nnz ? (long)(key[seg[u]] / (ulong)n) : n;
  const long prev = u > 0 ? (long)(key[seg[u - 1]] / (ulong)n) : -1;
  for (long rr = prev + 1; rr <= r; rr++) rowptr[rr] = u;
}

/* One work-item per distinct pair u (0..nnz). */
__kernel void coo_rowptr(long n, long nnz, __global const ulong *key, __global const long *seg,
                         __global long *rowptr)
{
  const long u = get_global_id(0);
  if (u <= nnz) rowptr_pair(n, nnz, u, key, seg, rowptr);
}

/* The same with nnz = counts[1] as coo_finish left it, on at least nnz + 1 work-items. */
__kernel void coo_rowptr_counted(long n, __global const long *counts, __global const ulong *key,
                                 __global const long *seg, __global long *rowptr)
{
  const long u = get_global_id(0), nnz = counts[1];
  if (u <= nnz) rowptr_pair(n, nnz, u, key, seg, rowptr);
}

/* val[val_off + u] = the signed sum of coo[coo_off + ...] over the entries of pair u0 + u, u < nnz,
 * in sorted order and in VAL: no atomics, deterministic. A block of rows is summed by giving its
 * first pair u0 and its count nnz; coo_off and val_off place the buffers' offsets. */
__kernel void coo_sum(long nnz, long u0, __global const long *perm, __global const long *seg,
                      __global const REAL *coo, long coo_off, __global VAL *val, long val_off)
{
  const long u = get_global_id(0);
  if (u >= nnz) return;
  VAL s = 0;
  for (long k = seg[u0 + u]; k < seg[u0 + u + 1]; k++) {
    const long p = perm[k];
    s += p < 0 ? -(VAL)coo[coo_off + ~p] : (VAL)coo[coo_off + p];
  }
  val[val_off + u] = s;
}

#ifdef FEMINT_FP64
/* y = A x over the n rows of a CSR matrix of doubles kept on the device, a work-item a row. */
__kernel void csr_spmv(long n, __global const long *rowptr, __global const long *colind,
                       __global const double *val, __global const double *x, __global double *y)
{
  const long r = get_global_id(0);
  if (r >= n) return;
  double s = 0;
  for (long p = rowptr[r]; p < rowptr[r + 1]; p++) s += val[p] * x[colind[p]];
  y[r] = s;
}
#endif
