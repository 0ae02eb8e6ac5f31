/* Host side of kernels/coo.cl: the CSR pattern of the entries of element matrices built entirely
 * on an OpenCL device (keys, a stable LSD radix sort, head flags, multi-level scans, segments and
 * row pointers; the same as host/pattern.c's) and the segmented sums of value arrays through it.
 * Free of StarPU: any in-order command queue. */
#ifndef FEMINT_CODELETS_COO_OPENCL_H
#define FEMINT_CODELETS_COO_OPENCL_H

#include <stdint.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

/* The kernels of coo.cl built for one device and one precision of the values. */
struct coo_cl {
  cl_context ctx; /* retained; the scratch buffers of coo_cl_build are made in it */
  cl_program prog;
  cl_kernel indices, keys, radix_count, radix_scatter, scan_block, scan_add, heads, segments,
      finish, rowptr, sum;
  size_t wg;  /* work-items of a group of every kernel: a power of two, 16 to 128 */
  size_t tile; /* keys a group of the sort orders in local memory (wg times a constant) */
  int single;  /* 1: coo_cl_sum adds floats, 0: doubles */
};

/* Build coo.cl for dev (values in float when single, else double: FEMINT_ENOTSUP when the device
 * has no fp64). The work-group size is the largest power of two <= 128 that the device and every
 * kernel accept and whose local memory fits. Returns 0, FEMINT_EOPENCL (the call, its error code,
 * or the build log in the message), FEMINT_ENOTSUP, FEMINT_ENOMEM; on error k is zeroed. The
 * kernels of k keep their arguments between calls: one thread at a time uses a coo_cl (one per
 * device worker). */
int coo_cl_create(cl_context ctx, cl_device_id dev, int single, struct coo_cl *k);
/* How a program is built from source with options: 0 or FEMINT_EOPENCL, as femint_cl_build (the
 * scheduler's keeps the binaries on disk). */
typedef int (*coo_cl_builder)(void *arg, cl_context ctx, cl_device_id dev, const char *src,
                              const char *options, cl_program *prog);
/* coo_cl_create with the programs built by build(arg, ...) (NULL: femint_cl_build). */
int coo_cl_create_with(cl_context ctx, cl_device_id dev, int single, coo_cl_builder build,
                       void *arg, struct coo_cl *k);
/* Release everything of k and zero it; a zeroed k is left alone. */
void coo_cl_destroy(struct coo_cl *k);

/* The following only enqueue on q, which must be in order (each step reads the previous one's
 * output), and return once the work is queued, except coo_cl_build, which waits for its end.
 * Buffers hold cl_long (int64_t) unless said otherwise. They return 0, FEMINT_EINVAL (an argument,
 * named) or FEMINT_EOPENCL (the OpenCL call and its error code). */

/* Rows, columns and values of the entries of the ncell cells of one group of a plan (coo.cl's
 * coo_indices): the cells' DOF codes cdof (2 * DOF + 1 for a mode of sign -1, -1 for none) from
 * dof_base, n per cell; their entries written from entry_base, n^2 per cell; their matrices in the
 * value array from value_base, per_cell values each, full or packed upper halves (symmetric).
 * Entries of rows outside rlo..rhi - 1 are left out (rows 0..n - 1: the whole matrix). */
int coo_cl_indices(const struct coo_cl *k, cl_command_queue q, int64_t ncell, int n,
                   int symmetric, int64_t dof_base, int64_t entry_base, int64_t value_base,
                   int64_t per_cell, int64_t rlo, int64_t rhi, cl_mem cdof, cl_mem row,
                   cl_mem col, cl_mem val);

/* The pattern of the entries (row[s], col[s]), s < nslot, on the device; a negative row or column
 * leaves the entry out. val (NULL: the entry numbers s) is what perm carries. The outputs,
 * allocated by the caller (at least one value each): perm[nslot] the values of the entries in
 * (row, column) order, stable (ties in entry order), the nvalid valid ones first;
 * seg[nslot + 1] whose first nnz + 1 values are the first sorted entry of each distinct pair and
 * seg[nnz] = nvalid; rowptr[n + 1]; colind[nslot] whose first nnz values are the columns. The
 * same values as coo_pattern_build. row (nslot + 1 values), col and val are the sort's scratch
 * and hold nothing of use after; the histograms (up to a byte a slot) and, without val, the keys
 * (8 bytes a slot) are made and released inside; *nvalid and *nnz are read back at the end, the
 * only wait. FEMINT_EINVAL also for a row or column >= n (the first such slot
 * named), as coo_pattern_build. */
int coo_cl_build(const struct coo_cl *k, cl_command_queue q, int64_t n, int64_t nslot, cl_mem row,
                 cl_mem col, cl_mem val, cl_mem perm, cl_mem seg, cl_mem rowptr, cl_mem colind,
                 int64_t *nvalid, int64_t *nnz);

/* val[u] = the signed sum of the values coo[v] of pair u (u < nnz), in sorted order as
 * pattern_value; coo and val hold floats or doubles as k->single says. */
int coo_cl_sum(const struct coo_cl *k, cl_command_queue q, int64_t nnz, cl_mem perm, cl_mem seg,
               cl_mem coo, cl_mem val);

/* The exclusive scan out[i] = in[0] + ... + in[i-1] (i < m) and out[m] = the total of m >= 0
 * values on the device, in and out possibly the same buffer (of m + 1 values then); scratch made
 * and released inside. */
int coo_cl_scan(const struct coo_cl *k, cl_command_queue q, int64_t m, cl_mem in, cl_mem out);

#endif
