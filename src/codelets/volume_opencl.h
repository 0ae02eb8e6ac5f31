/* Host side of the OpenCL volume integration kernels: device queries, the kernel variants (seed
 * 000's REG/SHM x JAC/NOJAC and the GEMM variant), their launch planning (seed 000 section 4.2),
 * program building and the enqueue. */
#ifndef FEMINT_CODELETS_VOLUME_OPENCL_H
#define FEMINT_CODELETS_VOLUME_OPENCL_H

#include <stddef.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

/* What the planning needs to know about a device. */
struct femint_cl_device {
  cl_ulong global_mem, max_alloc, local_mem, const_mem;
  size_t max_wg;        /* CL_DEVICE_MAX_WORK_GROUP_SIZE */
  size_t pref_multiple; /* work-group sizes are multiples of this: 64 on GPUs, 1 on CPUs, else 32 */
  cl_uint compute_units, clock_mhz;
  int fp64;             /* 1 if the device supports double precision */
  char name[128], vendor[64];
  cl_device_type type;
};

/* Fill info from the device's properties. Returns 0 or FEMINT_EOPENCL. */
int femint_cl_device_query(cl_device_id dev, struct femint_cl_device *info);

/* The kernel variants are enum femint_variant (femint.h): REG_* and SHM_* are seed 000's
 * Algorithms 3 and 4 (element matrix blocks accumulated in registers or in local memory, with the
 * Jacobian terms read (NOJAC) or computed on the device from the vertices (JAC)); GEMM forms the
 * element matrix from small dense products with register tiling (kernels/volume_gemm.cl). */

/* 1 if the variant computes the Jacobian terms from the vertices (geo = X[ncell][18]). */
int volume_variant_jac(int variant);

/* Index of entry (r, c), r <= c, of an n x n matrix whose upper half is packed row by row (the
 * symmetric storage of the element matrices: n(n+1)/2 values). */
static inline size_t volume_packed_index(int n, int r, int c)
{
  return (size_t)r * (size_t)n - (size_t)r * (size_t)(r - 1) / 2 + (size_t)(c - r);
}

/* The compile-time parameters and the plan of one kernel build. */
struct volume_cl_config {
  int dim;            /* 3: prisms; 2: quadrilaterals (GEMM variant only) */
  int nsh, nq, ne, ncoef, form_kind;
  int precision;      /* FEMINT_DOUBLE (0) or FEMINT_SINGLE (1) */
  int variant;        /* enum femint_variant (not AUTO) */
  int symmetric;      /* 1: the upper half of each element matrix, packed (volume_packed_index) */
  size_t wg_size;     /* work-items per work-group */
  int nparts;         /* parts of the element matrix, integrated one after the other (REG, SHM)
                         or by different work-groups (GEMM) */
  int blocks_per_thread; /* SHM: (idof, jdof) blocks per work-item in a part; 1 otherwise */
  /* GEMM: tiles of tile x tile (i, j) pairs per work-item, blocks of block x block tiles per
   * part, elems elements at a time in a work-group (wpe work-items each), qchunk quadrature
   * points per local-memory chunk, half = 1 when only the upper half is computed (symmetric
   * forms), and mirrored in full storage. */
  int tile, block, elems, wpe, qchunk, half;
  /* GEMM with one part: the elements whose matrices the work-group gathers in local memory
   * before writing them out in consecutive words (0: each work-item writes its entries) */
  int stage;
  /* GEMM: the geometric nodes per cell from which the kernel maps the cells at its points (geo =
   * X[ncell][geo_nodes][dim], quad = geom_table_fill's table); 0: it reads Jacobian terms */
  int geo_nodes;
  size_t local_bytes; /* local memory the kernel declares */
};

/* Plan a kernel of a variant for a device: work-group size (a multiple of dev->pref_multiple as
 * the seed does, for REG and SHM), parts, blocks per thread (SHM: the part fills the local
 * memory), tiles (GEMM). Returns 0, FEMINT_EINVAL for inconsistent sizes or an unknown variant,
 * or FEMINT_ENOTSUP when the device lacks double precision or local memory, symmetric storage
 * is asked of the generic form, or a variant other than GEMM in 2D (message through
 * femint_seterr(NULL, ...)). dim is 3 for prisms, 2 for quadrilaterals. */
int volume_cl_configure(const struct femint_cl_device *dev, int dim, int nsh, int nq, int ne,
                        int ncoef, int form_kind, int precision, int variant, int symmetric,
                        struct volume_cl_config *cfg);

/* Plan the GEMM variant again with given tiles, for tuning: tile side, block side in tiles,
 * largest quadrature chunk, elements per work-group (0: the planned tile, the default block and
 * chunk, elements from the work-group size), half (1: upper half only and mirrored, 0: all
 * pairs, -1: the default), stage (elements gathered in local memory with one part: -1 as many as
 * fit, 0 none, else at most that many). Returns 0, or FEMINT_EINVAL (also for half = 0 with
 * symmetric storage or half = 1 with the generic form) / FEMINT_ENOTSUP as volume_cl_configure. */
int volume_cl_set_gemm(const struct femint_cl_device *dev, struct volume_cl_config *cfg, int tile,
                       int block, int qchunk, int elems, int half, int stage);

/* Make the GEMM kernel map its cells from nnode geometric nodes each (0: read Jacobian terms, as
 * volume_cl_configure plans it). Returns 0, or FEMINT_EINVAL for another variant or more nodes
 * than a cell has (MESH_MAX_NODES). */
int volume_cl_set_nodes(struct volume_cl_config *cfg, int nnode);

/* Plan again with work-groups of at most half the current size, after an enqueue failed with
 * CL_OUT_OF_RESOURCES or CL_INVALID_WORK_GROUP_SIZE; build again with the new options. The kernels
 * declare reqd_work_group_size(WG_SIZE), so compilers fit registers to the size and this should be
 * rare; CL_KERNEL_WORK_GROUP_SIZE is no guide (NVIDIA reports 256 for kernels that run with 1024).
 * Returns 0, or FEMINT_ENOTSUP when the size cannot go lower. */
int volume_cl_replan(const struct femint_cl_device *dev, struct volume_cl_config *cfg);

/* The build options (-D parameters) of a configuration. Returns 0 or FEMINT_EINVAL if len is too
 * small. */
int volume_cl_options(const struct volume_cl_config *cfg, char *buf, size_t len);

/* The program text of a variant: kernels/common.clh followed by the variant's file
 * (volume_reg.cl, volume_shm.cl or volume_gemm.cl). NULL when out of memory, the variant is
 * unknown or a file is missing. The caller frees. */
char *volume_cl_source(int variant);

/* The name of the kernel of a variant in volume_cl_source(variant): "femint_volume_<name>". NULL
 * for an unknown variant. */
const char *volume_cl_kernel_name(int variant);

/* Build a program for one device. On failure returns FEMINT_EOPENCL with the build log in the
 * thread's error message (femint_thread_error()) and *prog = NULL. */
int femint_cl_build(cl_context ctx, cl_device_id dev, const char *src, const char *options,
                    cl_program *prog);

/* A kernel argument: its size and where its value is. */
struct karg {
  size_t size;
  const void *value;
};
#define KARG(x) ((struct karg){sizeof(x), &(x)})
/* The function name of a kernel in buf ("a kernel" when it cannot be read). */
const char *femint_cl_kernel_name(cl_kernel kern, char *buf, size_t len);
/* Set the nargs arguments of kern and enqueue it on `global` work-items rounded up to whole
 * groups of local (every kernel checks its range); nothing when global is 0. Returns 0 or
 * FEMINT_EOPENCL with "who: call(kernel) failed with code" in the thread's error. */
int femint_cl_run(cl_command_queue q, cl_kernel kern, size_t global, size_t local, int nargs,
                  const struct karg *a, const char *who);

/* Launch shape for ncell cells: cells per work-group as few as keep about 8 work-groups per
 * compute unit (a multiple of cfg->elems for GEMM, whose work-groups also span the parts);
 * *global = ngroups * cfg->wg_size. */
void volume_cl_launch_shape(const struct femint_cl_device *dev, const struct volume_cl_config *cfg,
                            int ncell, size_t *global, size_t *local, int *elems_per_group);

/* Set the arguments and enqueue the kernel on ncell cells (no clFinish). geo holds the Jacobian
 * terms, ncell*nq*nterms REALs (NOJAC variants, GEMM without nodes), the vertex coordinates,
 * ncell*18 REALs (JAC variants), or the geometric nodes, ncell*geo_nodes*dim REALs (GEMM with
 * nodes); coef ncell*ncoef; phi nq*(dim+1)*nsh; quad nq*4 (xi1, xi2, xi3, w) for the JAC
 * variants, geom_table_fill's table for GEMM with nodes, NULL for the others; out ncell*volume_cl_out_size(cfg) REALs from
 * out_off (REALs: a batch's part of a larger vector). With ncell == 0 a marker is enqueued so
 * that *ev is still valid. Returns CL_SUCCESS or the OpenCL error. */
cl_int volume_cl_enqueue(cl_command_queue q, cl_kernel k, const struct volume_cl_config *cfg,
                         const struct femint_cl_device *dev, int ncell, cl_mem geo, cl_mem coef,
                         cl_mem phi, cl_mem quad, cl_mem out, size_t out_off, cl_event *ev);

/* REALs of input geometry per cell: nq*nterms, 18 (JAC variants) or geo_nodes*dim. */
size_t volume_cl_geo_size(const struct volume_cl_config *cfg);
/* Jacobian terms per point: det J * w and the inverse Jacobian, 1 + dim^2. */
int volume_cl_nterms(const struct volume_cl_config *cfg);
/* REALs of output per cell: n*n, or n(n+1)/2 when symmetric (n = nsh*ne). */
size_t volume_cl_out_size(const struct volume_cl_config *cfg);
/* Floating-point operations the kernel actually performs per cell (2 per multiply-add). */
double volume_cl_flops(const struct volume_cl_config *cfg);
/* Seed 000's count per cell: nq * nsh^2 * (63 for elasticity, as form_flops_per_block else). */
double volume_cl_flops_seed(const struct volume_cl_config *cfg);
/* The most cells one launch can take: the output must fit one allocation and all buffers 90% of
 * the global memory. */
int volume_cl_max_cells(const struct femint_cl_device *dev, const struct volume_cl_config *cfg);

/* The plan of a launch of ncell cells in words, one "name: value" line each, as seed 000's
 * Tables 3-4: variant, work-group size, parts, blocks per thread, tiles, elements per launch (at
 * most volume_cl_max_cells), elements per work-group, local memory, input and output MB. Returns
 * 0, or FEMINT_EINVAL when len is too small (buf then holds a truncated text). */
int volume_cl_describe(const struct femint_cl_device *dev, const struct volume_cl_config *cfg,
                       int ncell, char *buf, size_t len);

#endif
