/* COO to CSR, the steps after the sort of (key, slot) pairs (host-side twin: src/host/coo.c):
 * head flags of the sorted keys, the scatter of the distinct pairs once their positions are
 * scanned, the row pointers, and the segmented sum of any value array through the pattern.
 * Keys are row * n + col as unsigned long. Compiled with -DREAL=float|double (-DFEMINT_FP64). */
#ifdef FEMINT_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

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

/* One work-item per distinct pair u (0..nnz): the rows after the previous pair's, up to its own. */
__kernel void coo_rowptr(long n, long nnz, __global const ulong *key, __global const long *seg,
                         __global long *rowptr)
{
  const long u = get_global_id(0);
  if (u > nnz) return;
  const long r = u < nnz ? (long)(key[seg[u]] / (ulong)n) : n;
  const long prev = u > 0 ? (long)(key[seg[u - 1]] / (ulong)n) : -1;
  for (long rr = prev + 1; rr <= r; rr++) rowptr[rr] = u;
}

/* val[u] = the sum of coo over the slots of pair u, in sorted order: no atomics, deterministic. */
__kernel void coo_sum(long nnz, __global const long *perm, __global const long *seg,
                      __global const REAL *coo, __global REAL *val)
{
  const long u = get_global_id(0);
  if (u >= nnz) return;
  REAL s = 0;
  for (long k = seg[u]; k < seg[u + 1]; k++) s += coo[perm[k]];
  val[u] = s;
}
