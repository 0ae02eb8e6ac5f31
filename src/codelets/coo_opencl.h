/* Host side of kernels/coo.cl: the CSR pattern of COO slots built entirely on an OpenCL device
 * (keys, a stable LSD radix sort, head flags, multi-level scans, segments and row pointers) and
 * the segmented sums of value arrays through it. Free of StarPU: any in-order command queue. */
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
  size_t wg;  /* work-items of a group of every kernel: a power of two, 16 to 256 */
  int single; /* 1: coo_cl_sum adds floats, 0: doubles */
};

/* Build coo.cl for dev (values in float when single, else double: FEMINT_ENOTSUP when the device
 * has no fp64). The work-group size is the largest power of two <= 256 that the device and every
 * kernel accept and whose local memory fits. Returns 0, FEMINT_EOPENCL (the call, its error code,
 * or the build log in the message), FEMINT_ENOTSUP, FEMINT_ENOMEM; on error k is zeroed. The
 * kernels of k keep their arguments between calls: one thread at a time uses a coo_cl (one per
 * device worker). */
int coo_cl_create(cl_context ctx, cl_device_id dev, int single, struct coo_cl *k);
/* Release everything of k and zero it; a zeroed k is left alone. */
void coo_cl_destroy(struct coo_cl *k);

/* The following only enqueue on q, which must be in order (each step reads the previous one's
 * output), and return once the work is queued, except coo_cl_build, which waits for its end.
 * Buffers hold cl_long (int64_t) unless said otherwise. They return 0, FEMINT_EINVAL (an argument,
 * named) or FEMINT_EOPENCL (the OpenCL call and its error code). */

/* Rows and columns of the slots of cells first..first+ncell-1 of a space with nsh functions per
 * cell: slot c*nsh*nsh + i*nsh + j (c the global cell) holds (cell_dof[c][i], cell_dof[c][j]),
 * both -1 when either is -1 (a removed DOF). cell_dof holds [first + ncell][nsh]; row and col
 * (first + ncell) * nsh^2 values, of which those of the batch are written. */
int coo_cl_indices(const struct coo_cl *k, cl_command_queue q, int64_t first, int64_t ncell,
                   int nsh, cl_mem cell_dof, cl_mem row, cl_mem col);

/* The pattern of the slots (row[s], col[s]), s < nslot, on the device; a negative row or column
 * leaves the slot out. The outputs, allocated by the caller (at least one value each): perm[nslot]
 * the slots in (row, column) order, the nvalid valid ones first, then the others in slot order;
 * seg[nslot + 1] whose first nnz + 1 values are the first sorted entry of each distinct pair and
 * seg[nnz] = nvalid; rowptr[n + 1]; colind[nslot] whose first nnz values are the columns. The
 * same values as coo_pattern_build. Scratch buffers (24 bytes a slot and a little more) are made
 * and released inside; *nvalid and *nnz are read back at the end, the only wait. FEMINT_EINVAL
 * also for a row or column >= n (the first such slot named), as coo_pattern_build. */
int coo_cl_build(const struct coo_cl *k, cl_command_queue q, int64_t n, int64_t nslot, cl_mem row,
                 cl_mem col, cl_mem perm, cl_mem seg, cl_mem rowptr, cl_mem colind,
                 int64_t *nvalid, int64_t *nnz);

/* val[u] = the sum of coo[s] over the slots s of pair u (u < nnz), in sorted order as
 * coo_pattern_sum; coo and val hold floats or doubles as k->single says. */
int coo_cl_sum(const struct coo_cl *k, cl_command_queue q, int64_t nnz, cl_mem perm, cl_mem seg,
               cl_mem coo, cl_mem val);

/* The exclusive scan out[i] = in[0] + ... + in[i-1] (i < m) and out[m] = the total of m >= 0
 * values on the device, in and out possibly the same buffer (of m + 1 values then); scratch made
 * and released inside. */
int coo_cl_scan(const struct coo_cl *k, cl_command_queue q, int64_t m, cl_mem in, cl_mem out);

#endif
