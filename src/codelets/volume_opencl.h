/* Host side of the OpenCL volume integration kernel (kernels/volume_reg_nojac.cl): device
 * queries, the launch planning of seed 000 section 4.2, program building and the enqueue. */
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

/* The compile-time parameters of one kernel build. */
struct volume_cl_config {
  int nsh, nq, ne, ncoef, form_kind;
  int precision;      /* FEMINT_DOUBLE (0) or FEMINT_SINGLE (1) */
  size_t wg_size;     /* threads per work-group, one (idof, jdof) block each */
  int nparts;         /* parts of the element matrix: ceil(nsh * nsh / wg_size) */
  size_t local_bytes; /* local memory the kernel declares */
};

/* Plan a kernel for a device: the work-group size (a multiple of dev->pref_multiple, as large as
 * the device and the number of blocks allow) and the number of parts. Returns 0, FEMINT_EINVAL
 * for inconsistent sizes, or FEMINT_ENOTSUP when the device lacks double precision or local
 * memory (message through femint_seterr(NULL, ...)). */
int volume_cl_configure(const struct femint_cl_device *dev, int nsh, int nq, int ne, int ncoef,
                        int form_kind, int precision, struct volume_cl_config *cfg);

/* Plan again with work-groups of at most half the current size, after an enqueue failed with
 * CL_OUT_OF_RESOURCES or CL_INVALID_WORK_GROUP_SIZE; build again with the new options. The kernel
 * declares reqd_work_group_size(WG_SIZE), so compilers fit registers to the size and this should
 * be rare; CL_KERNEL_WORK_GROUP_SIZE is no guide (NVIDIA reports 256 for kernels that run with
 * 1024). Returns 0, or FEMINT_ENOTSUP when the size cannot go lower. */
int volume_cl_replan(const struct femint_cl_device *dev, struct volume_cl_config *cfg);

/* The build options (-D parameters) of a configuration. Returns 0 or FEMINT_EINVAL if len is too
 * small. */
int volume_cl_options(const struct volume_cl_config *cfg, char *buf, size_t len);

/* The program text: kernels/common.clh followed by kernels/volume_reg_nojac.cl. NULL when out of
 * memory or a file is missing. The caller frees. */
char *volume_cl_source(void);

/* The name of the kernel in volume_cl_source(). */
#define VOLUME_CL_KERNEL_NAME "femint_volume_reg_nojac"

/* Build a program for one device. On failure returns FEMINT_EOPENCL with the build log in the
 * thread's error message (femint_thread_error()) and *prog = NULL. */
int femint_cl_build(cl_context ctx, cl_device_id dev, const char *src, const char *options,
                    cl_program *prog);

/* Launch shape for ncell cells: as few cells per work-group as keep about 8 work-groups per
 * compute unit; *global = ngroups * cfg->wg_size. */
void volume_cl_launch_shape(const struct femint_cl_device *dev, const struct volume_cl_config *cfg,
                            int ncell, size_t *global, size_t *local, int *elems_per_group);

/* Set the arguments and enqueue the kernel on ncell cells (no clFinish). jac holds
 * ncell*nq*10 REALs, coef ncell*ncoef, phi nq*4*nsh, out ncell*(nsh*ne)^2. With ncell == 0 a
 * marker is enqueued so that *ev is still valid. Returns CL_SUCCESS or the OpenCL error. */
cl_int volume_cl_enqueue(cl_command_queue q, cl_kernel k, const struct volume_cl_config *cfg,
                         const struct femint_cl_device *dev, int ncell, cl_mem jac, cl_mem coef,
                         cl_mem phi, cl_mem out, cl_event *ev);

#endif
