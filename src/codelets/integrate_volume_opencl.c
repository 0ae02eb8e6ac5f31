/* Host side of the OpenCL volume integration kernel: device queries, the planning of work-group
 * size and parts of seed 000 section 4.2, the -D build options, building with the log reported,
 * and the enqueue. Plain OpenCL; the StarPU codelet calls these functions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codelets/volume_opencl.h"
#include "host/error.h"
#include "host/host.h"
#include "scheduler/kernels.h"

/* Work-groups per compute unit that volume_cl_launch_shape aims at. */
#define VOLUME_CL_GROUPS_PER_CU 8
/* Largest work-group on GPUs: seed 000 (section 5.3) runs 512 threads on NVIDIA because of the
 * kernel's register use; other devices take up to 1024. */
#define VOLUME_CL_GPU_MAX_WG 512
#define VOLUME_CL_MAX_WG 1024

int femint_cl_device_query(cl_device_id dev, struct femint_cl_device *info)
{
  cl_int err;
  cl_ulong fp64cfg = 0;
  memset(info, 0, sizeof *info);
#define QUERY(param, var)                                                                       \
  do {                                                                                          \
    err = clGetDeviceInfo(dev, (param), sizeof(var), &(var), NULL);                             \
    if (err != CL_SUCCESS)                                                                      \
      return femint_seterr(NULL, FEMINT_EOPENCL, "clGetDeviceInfo(%s) failed with %d", #param,  \
                           (int)err);                                                           \
  } while (0)
  QUERY(CL_DEVICE_GLOBAL_MEM_SIZE, info->global_mem);
  QUERY(CL_DEVICE_MAX_MEM_ALLOC_SIZE, info->max_alloc);
  QUERY(CL_DEVICE_LOCAL_MEM_SIZE, info->local_mem);
  QUERY(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, info->const_mem);
  QUERY(CL_DEVICE_MAX_WORK_GROUP_SIZE, info->max_wg);
  QUERY(CL_DEVICE_MAX_COMPUTE_UNITS, info->compute_units);
  QUERY(CL_DEVICE_MAX_CLOCK_FREQUENCY, info->clock_mhz);
  QUERY(CL_DEVICE_TYPE, info->type);
#undef QUERY
  /* CL_DEVICE_DOUBLE_FP_CONFIG is 0 without double precision; older platforms may not know the
   * query, in which case the extension list decides. */
  err = clGetDeviceInfo(dev, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64cfg, &fp64cfg, NULL);
  if (err == CL_SUCCESS) {
    info->fp64 = fp64cfg != 0;
  } else {
    char ext[4096] = "";
    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
    info->fp64 = strstr(ext, "cl_khr_fp64") != NULL;
  }
  if (clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof info->name - 1, info->name, NULL) != CL_SUCCESS)
    snprintf(info->name, sizeof info->name, "unknown");
  if (clGetDeviceInfo(dev, CL_DEVICE_VENDOR, sizeof info->vendor - 1, info->vendor, NULL) !=
      CL_SUCCESS)
    snprintf(info->vendor, sizeof info->vendor, "unknown");
  /* CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE needs a built kernel; the seed's multiples of 64
   * hold on GPUs, a CPU runs any size well, and 32 suits the remaining accelerators. */
  if (info->type & CL_DEVICE_TYPE_GPU)
    info->pref_multiple = 64;
  else if (info->type & CL_DEVICE_TYPE_CPU)
    info->pref_multiple = 1;
  else
    info->pref_multiple = 32;
  return 0;
}

/* The number of coefficients per cell that a form kind takes, or -1. */
static int form_ncoef(int form_kind, int ne)
{
  switch (form_kind) {
  case FORM_GENERIC: return ne * ne * 16;
  case FORM_ELASTICITY: return ne == 3 ? 2 : -1;
  case FORM_LAPLACE:
  case FORM_MASS: return 1;
  }
  return -1;
}

/* The planning of volume_cl_configure with work-groups of at most cap threads. */
static int plan(const struct femint_cl_device *dev, size_t cap, int nsh, int nq, int ne, int ncoef,
                int form_kind, int precision, struct volume_cl_config *cfg)
{
  FEMINT_CHECK(nsh > 0 && nq > 0 && ne >= 1 && ne <= 5, NULL, FEMINT_EINVAL,
               "volume kernel: invalid sizes nsh = %d, nq = %d, ne = %d", nsh, nq, ne);
  FEMINT_CHECK(form_kind >= FORM_GENERIC && form_kind <= FORM_MASS, NULL, FEMINT_EINVAL,
               "volume kernel: unknown form kind %d", form_kind);
  FEMINT_CHECK(ncoef == form_ncoef(form_kind, ne), NULL, FEMINT_EINVAL,
               "volume kernel: a %s form with ne = %d cannot have %d coefficients",
               form_kind_name(form_kind), ne, ncoef);
  FEMINT_CHECK(precision == FEMINT_DOUBLE || precision == FEMINT_SINGLE, NULL, FEMINT_EINVAL,
               "volume kernel: invalid precision %d", precision);
  FEMINT_CHECK(precision == FEMINT_SINGLE || dev->fp64, NULL, FEMINT_ENOTSUP,
               "volume kernel: device %s has no double precision (cl_khr_fp64)", dev->name);

  const size_t rs = precision == FEMINT_DOUBLE ? sizeof(cl_double) : sizeof(cl_float);
  const size_t local_bytes = (8 * (size_t)nsh + 10 + (size_t)ncoef) * rs;
  FEMINT_CHECK(local_bytes <= dev->local_mem, NULL, FEMINT_ENOTSUP,
               "volume kernel: %zu bytes of local memory needed (nsh = %d, %s), device %s has %llu",
               local_bytes, nsh, precision == FEMINT_DOUBLE ? "double" : "single", dev->name,
               (unsigned long long)dev->local_mem);

  size_t mult = dev->pref_multiple ? dev->pref_multiple : 1;
  if (cap > dev->max_wg) cap = dev->max_wg;
  if (cap < mult) mult = 1;
  const size_t wg_max = cap / mult * mult;
  FEMINT_CHECK(wg_max >= 1, NULL, FEMINT_ENOTSUP, "volume kernel: device %s allows no work-group",
               dev->name);

  /* As few parts as the largest work-group allows (each part repeats the reads of phi and the
   * Jacobian terms), then the smallest multiple of mult that still gives that number of parts,
   * so that the last part leaves as few threads idle as possible. */
  const size_t nblocks = (size_t)nsh * nsh;
  const size_t nparts = (nblocks + wg_max - 1) / wg_max;
  const size_t per_part = (nblocks + nparts - 1) / nparts;
  size_t wg = (per_part + mult - 1) / mult * mult;
  if (wg > wg_max) wg = wg_max;

  cfg->nsh = nsh;
  cfg->nq = nq;
  cfg->ne = ne;
  cfg->ncoef = ncoef;
  cfg->form_kind = form_kind;
  cfg->precision = precision;
  cfg->wg_size = wg;
  cfg->nparts = (int)((nblocks + wg - 1) / wg);
  cfg->local_bytes = local_bytes;
  return 0;
}

int volume_cl_configure(const struct femint_cl_device *dev, int nsh, int nq, int ne, int ncoef,
                        int form_kind, int precision, struct volume_cl_config *cfg)
{
  size_t cap = (dev->type & CL_DEVICE_TYPE_GPU) ? VOLUME_CL_GPU_MAX_WG : VOLUME_CL_MAX_WG;
  return plan(dev, cap, nsh, nq, ne, ncoef, form_kind, precision, cfg);
}

int volume_cl_replan(const struct femint_cl_device *dev, struct volume_cl_config *cfg)
{
  FEMINT_CHECK(cfg->wg_size > 1, NULL, FEMINT_ENOTSUP,
               "volume kernel: device %s cannot run the kernel with any work-group size",
               dev->name);
  struct volume_cl_config c2;
  FEMINT_CALL(plan(dev, cfg->wg_size / 2, cfg->nsh, cfg->nq, cfg->ne, cfg->ncoef, cfg->form_kind,
                   cfg->precision, &c2));
  *cfg = c2;
  return 0;
}

int volume_cl_options(const struct volume_cl_config *cfg, char *buf, size_t len)
{
  /* No -cl-mad-enable or -cl-fast-relaxed-math: FP_CONTRACT is on by default in OpenCL C, so
   * the compiler already fuses multiply-adds where the device has an exact FMA. */
  int n = snprintf(buf, len,
                   "-DNSH=%d -DNQ=%d -DNE=%d -DNCOEF=%d -DFORM_KIND=%d -DWG_SIZE=%zu -DNPARTS=%d "
                   "-DREAL=%s%s",
                   cfg->nsh, cfg->nq, cfg->ne, cfg->ncoef, cfg->form_kind, cfg->wg_size,
                   cfg->nparts, cfg->precision == FEMINT_DOUBLE ? "double" : "float",
                   cfg->precision == FEMINT_DOUBLE ? " -DFEMINT_FP64" : "");
  FEMINT_CHECK(n >= 0 && (size_t)n < len, NULL, FEMINT_EINVAL,
               "volume kernel: %zu bytes are too few for the build options", len);
  return 0;
}

char *volume_cl_source(void)
{
  char *common = femint_kernel_text("common.clh");
  char *kernel = femint_kernel_text("volume_reg_nojac.cl");
  char *src = NULL;
  if (common && kernel) {
    size_t a = strlen(common), b = strlen(kernel);
    src = malloc(a + b + 2);
    if (src) {
      memcpy(src, common, a);
      src[a] = '\n';
      memcpy(src + a + 1, kernel, b + 1);
    }
  }
  free(common);
  free(kernel);
  return src;
}

int femint_cl_build(cl_context ctx, cl_device_id dev, const char *src, const char *options,
                    cl_program *prog)
{
  cl_int err;
  *prog = NULL;
  cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  if (err != CL_SUCCESS)
    return femint_seterr(NULL, FEMINT_EOPENCL, "clCreateProgramWithSource failed with %d",
                         (int)err);
  err = clBuildProgram(p, 1, &dev, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    size_t n = 0;
    char *log = NULL;
    if (clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) == CL_SUCCESS && n > 0 &&
        (log = malloc(n + 1))) {
      if (clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL) != CL_SUCCESS) n = 0;
      log[n] = '\0';
    }
    int code = femint_seterr(NULL, FEMINT_EOPENCL,
                             "OpenCL build failed with %d (options \"%s\"); build log:\n%s",
                             (int)err, options ? options : "", log ? log : "(none)");
    free(log);
    clReleaseProgram(p);
    return code;
  }
  *prog = p;
  return 0;
}

void volume_cl_launch_shape(const struct femint_cl_device *dev, const struct volume_cl_config *cfg,
                            int ncell, size_t *global, size_t *local, int *elems_per_group)
{
  size_t target = (size_t)dev->compute_units * VOLUME_CL_GROUPS_PER_CU;
  if (target < 1) target = 1;
  size_t n = ncell > 0 ? (size_t)ncell : 0;
  size_t epg = n > target ? (n + target - 1) / target : 1;
  size_t ngroups = (n + epg - 1) / epg;
  *elems_per_group = (int)epg;
  *local = cfg->wg_size;
  *global = ngroups * cfg->wg_size;
}

cl_int volume_cl_enqueue(cl_command_queue q, cl_kernel k, const struct volume_cl_config *cfg,
                         const struct femint_cl_device *dev, int ncell, cl_mem jac, cl_mem coef,
                         cl_mem phi, cl_mem out, cl_event *ev)
{
  size_t global, local;
  int epg;
  cl_int err;
  if (ncell <= 0) return clEnqueueMarkerWithWaitList(q, 0, NULL, ev);
  volume_cl_launch_shape(dev, cfg, ncell, &global, &local, &epg);
  if ((err = clSetKernelArg(k, 0, sizeof(cl_int), &(cl_int){ncell})) != CL_SUCCESS) return err;
  if ((err = clSetKernelArg(k, 1, sizeof(cl_int), &(cl_int){epg})) != CL_SUCCESS) return err;
  if ((err = clSetKernelArg(k, 2, sizeof(cl_mem), &jac)) != CL_SUCCESS) return err;
  if ((err = clSetKernelArg(k, 3, sizeof(cl_mem), &coef)) != CL_SUCCESS) return err;
  if ((err = clSetKernelArg(k, 4, sizeof(cl_mem), &phi)) != CL_SUCCESS) return err;
  if ((err = clSetKernelArg(k, 5, sizeof(cl_mem), &out)) != CL_SUCCESS) return err;
  return clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, ev);
}
