/* Host side of the OpenCL volume integration kernels: device queries, the planning of each variant
 * (work-group size, parts and blocks per thread of seed 000 section 4.2; tiles of the GEMM
 * variant), the -D build options, building with the log reported, the enqueue, flop counts and the
 * plan in words. Plain OpenCL; the StarPU codelet calls these functions. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codelets/volume_opencl.h"
#include "host/error.h"
#include "host/host.h"
#include "kernels.h"

/* Work-groups per compute unit that volume_cl_launch_shape aims at. */
#define VOLUME_CL_GROUPS_PER_CU 8
/* Largest work-group on GPUs: seed 000 (section 5.3) runs 512 threads on NVIDIA because of the
 * kernel's register use; other devices take up to 1024. */
#define VOLUME_CL_GPU_MAX_WG 512
#define VOLUME_CL_MAX_WG 1024
/* SHM: at most this many blocks per thread (their indices are kept in registers). */
#define VOLUME_CL_MAX_BPT 8
/* GEMM: the largest quadrature chunk; full storage of symmetric forms in several parts computes
 * all pairs (no mirrored writes) up to this many shape functions; one part (the whole matrix) at
 * most this many work-items per element. */
#define VOLUME_CL_GEMM_QCHUNK 16
#define VOLUME_CL_GEMM_MIRROR_NSH 20
#define VOLUME_CL_GEMM_ONE_BLOCK 512

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

static const char *const variant_names[] = {"auto",      "reg_nojac", "reg_jac",
                                             "shm_nojac", "shm_jac",   "gemm"};
static const char *const kernel_names[] = {
    NULL, "femint_volume_reg_nojac", "femint_volume_reg_jac", "femint_volume_shm_nojac",
    "femint_volume_shm_jac", "femint_volume_gemm"};

const char *femint_variant_name(int variant)
{
  return variant >= FEMINT_VARIANT_AUTO && variant <= FEMINT_VARIANT_GEMM ? variant_names[variant]
                                                                           : NULL;
}

int femint_variant_parse(const char *name)
{
  for (int v = FEMINT_VARIANT_AUTO; name && v <= FEMINT_VARIANT_GEMM; v++)
    if (!strcmp(name, variant_names[v])) return v;
  return -1;
}

int volume_variant_jac(int variant)
{
  return variant == FEMINT_VARIANT_REG_JAC || variant == FEMINT_VARIANT_SHM_JAC;
}

const char *volume_cl_kernel_name(int variant)
{
  return variant > FEMINT_VARIANT_AUTO && variant <= FEMINT_VARIANT_GEMM ? kernel_names[variant]
                                                                          : NULL;
}

/* The number of coefficients per cell that a form kind takes in a dimension, or -1. */
static int form_ncoef(int form_kind, int ne, int dim)
{
  switch (form_kind) {
  case FORM_GENERIC: return ne * ne * (dim + 1) * (dim + 1);
  case FORM_ELASTICITY: return ne == dim ? 2 : -1;
  case FORM_LAPLACE:
  case FORM_MASS: return 1;
  }
  return -1;
}

static size_t real_size(const struct volume_cl_config *cfg)
{
  return cfg->precision == FEMINT_DOUBLE ? sizeof(cl_double) : sizeof(cl_float);
}

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

/* (idof, jdof) blocks that the REG and SHM kernels compute: all, or the upper half. */
static size_t reg_blocks(const struct volume_cl_config *cfg)
{
  const size_t nsh = (size_t)cfg->nsh;
  return cfg->symmetric ? nsh * (nsh + 1) / 2 : nsh * nsh;
}

/* Accumulators of a block in the REG and SHM kernels (BLOCK_NACC of kernels/common.clh). */
static int reg_nacc(const struct volume_cl_config *cfg)
{
  return cfg->form_kind == FORM_LAPLACE || cfg->form_kind == FORM_MASS ? 1 : cfg->ne * cfg->ne;
}

/* Local memory of the REG and SHM kernels apart from the SHM accumulators. */
static size_t reg_local_bytes(const struct volume_cl_config *cfg)
{
  size_t n = 8 * (size_t)cfg->nsh + volume_cl_nterms(cfg) + (size_t)cfg->ncoef;
  if (volume_variant_jac(cfg->variant)) n += 18;
  return n * real_size(cfg);
}

/* REG and SHM: the work-group size, parts and blocks per thread, with work-groups of at most cap
 * work-items. */
static int plan_blocks(const struct femint_cl_device *dev, size_t cap, struct volume_cl_config *cfg)
{
  const size_t rs = real_size(cfg), fixed = reg_local_bytes(cfg);
  FEMINT_CHECK(fixed <= dev->local_mem, NULL, FEMINT_ENOTSUP,
               "volume kernel: %zu bytes of local memory needed (nsh = %d, %s), device %s has %llu",
               fixed, cfg->nsh, cfg->precision == FEMINT_DOUBLE ? "double" : "single", dev->name,
               (unsigned long long)dev->local_mem);
  size_t mult = dev->pref_multiple ? dev->pref_multiple : 1;
  if (cap > dev->max_wg) cap = dev->max_wg;
  if (cap < mult) mult = 1;
  size_t wg_max = cap / mult * mult;
  FEMINT_CHECK(wg_max >= 1, NULL, FEMINT_ENOTSUP, "volume kernel: device %s allows no work-group",
               dev->name);
  const size_t nblocks = reg_blocks(cfg);
  size_t bpt = 1;
  if (cfg->variant == FEMINT_VARIANT_SHM_NOJAC || cfg->variant == FEMINT_VARIANT_SHM_JAC) {
    /* Seed 000, section 4.2: the part fills the local memory, which gives the blocks per thread;
     * fewer threads when not even one block each fits. */
    const size_t per_block = (size_t)reg_nacc(cfg) * rs;
    const size_t avail = (size_t)dev->local_mem - fixed;
    while (wg_max > 1 && avail / (wg_max * per_block) < 1)
      wg_max = wg_max / 2 >= mult ? wg_max / 2 / mult * mult : wg_max / 2;
    bpt = avail / (wg_max * per_block);
    FEMINT_CHECK(bpt >= 1, NULL, FEMINT_ENOTSUP,
                 "volume kernel: no block fits the local memory of device %s", dev->name);
    if (bpt > VOLUME_CL_MAX_BPT) bpt = VOLUME_CL_MAX_BPT;
    if (bpt > ceil_div(nblocks, wg_max)) bpt = ceil_div(nblocks, wg_max);
  }
  /* As few parts as the largest work-group allows (each part repeats the reads of phi and the
   * Jacobian terms), then the smallest multiple of mult that still gives that number of parts,
   * so that the last part leaves as few threads idle as possible. */
  const size_t nparts = ceil_div(nblocks, wg_max * bpt);
  const size_t per_part = ceil_div(nblocks, nparts);
  size_t wg = ceil_div(ceil_div(per_part, bpt), mult) * mult;
  if (wg > wg_max) wg = wg_max;
  cfg->wg_size = wg;
  cfg->blocks_per_thread = (int)bpt;
  cfg->nparts = (int)ceil_div(nblocks, wg * bpt);
  cfg->local_bytes = fixed;
  if (cfg->variant == FEMINT_VARIANT_SHM_NOJAC || cfg->variant == FEMINT_VARIANT_SHM_JAC)
    cfg->local_bytes += wg * bpt * (size_t)reg_nacc(cfg) * rs;
  return 0;
}

/* GEMM: derivatives used and multiply-adds per (i, j) pair and point (kernels/volume_gemm.cl). */
static int gemm_nd(int form_kind, int dim)
{
  return form_kind == FORM_MASS ? 1 : form_kind == FORM_GENERIC ? dim + 1 : dim;
}
static int gemm_npair(int form_kind, int dim)
{
  const int nd = gemm_nd(form_kind, dim);
  return form_kind == FORM_ELASTICITY || form_kind == FORM_GENERIC ? nd * nd : 1;
}
static int gemm_fma(int form_kind, int dim)
{
  return form_kind == FORM_LAPLACE ? dim : gemm_npair(form_kind, dim);
}

/* GEMM: blocks of 16 x 16 tiles, or 8 x 8 when these pad the matrix noticeably less. */
static int gemm_default_block(int nsh, int tile)
{
  const int ntr = (nsh + tile - 1) / tile;
  const int pad16 = (ntr + 15) / 16 * 16, pad8 = (ntr + 7) / 8 * 8;
  return pad16 * 100 <= pad8 * 105 ? 16 : 8;
}

/* GEMM: the derived sizes of given tiles; 0 or an error when they do not fit the device. */
static int plan_gemm_tiles(const struct femint_cl_device *dev, struct volume_cl_config *cfg,
                           int tile, int block, int qchunk, int elems, int half, int stage)
{
  const size_t rs = real_size(cfg);
  const int ntr = (cfg->nsh + tile - 1) / tile;
  if (block >= ntr) block = ntr;
  const int nb = (ntr + block - 1) / block;
  const int wpe = nb == 1 && half ? ntr * (ntr + 1) / 2 : block * block;
  const int nd = gemm_nd(cfg->form_kind, cfg->dim);
  size_t cap = dev->max_wg < VOLUME_CL_MAX_WG ? dev->max_wg : VOLUME_CL_MAX_WG;
  FEMINT_CHECK((size_t)wpe <= cap, NULL, FEMINT_ENOTSUP,
               "volume kernel: %d work-items per element exceed the work-groups of device %s", wpe,
               dev->name);
  if (elems <= 0) {
    /* Several elements when one takes few work-items: about 256 work-items, in as nearly full
     * warps of 32 as possible. */
    elems = 1;
    double best = -1;
    for (int e = 1; (size_t)(e * wpe) <= cap && e * wpe <= 512; e++) {
      const int n = e * wpe;
      double eff = (double)n / (double)(ceil_div((size_t)n, 32) * 32);
      if (n < 128) eff *= 0.5 + 0.5 * n / 128.0;
      if (eff > best + 1e-9) {
        best = eff;
        elems = e;
      }
    }
  }
  if ((size_t)(elems * wpe) > cap) elems = (int)(cap / (size_t)wpe);
  /* One part: as many elements' matrices as half the local memory holds are gathered there and
   * written out in consecutive words (stage < 0: the default, 0: none, else at most stage). */
  const int nparts = half ? nb * (nb + 1) / 2 : nb * nb;
  int sg = 0;
  if (nparts == 1 && stage != 0) {
    const size_t fit = (size_t)dev->local_mem / 2 / (volume_cl_out_size(cfg) * rs);
    sg = fit < (size_t)elems ? (int)fit : elems;
    if (stage > 0 && stage < sg) sg = stage;
  }
  const int rw = block * tile;
  /* The quadrature chunk: a divisor of nq, as large as the other half allows. */
  const size_t stage_bytes = (size_t)sg * volume_cl_out_size(cfg) * rs;
  const size_t budget = (size_t)dev->local_mem / 2 + stage_bytes;
  const size_t fixed = (size_t)elems * cfg->ncoef * rs + stage_bytes;
  size_t per_q = ((size_t)elems * (2 * (size_t)nd * rw + volume_cl_nterms(cfg))) * rs;
  int qc = 0;
  for (int c = 1; c <= cfg->nq && c <= qchunk; c++)
    if (cfg->nq % c == 0 && fixed + per_q * (size_t)c <= budget) qc = c;
  if (!qc && cfg->nq > 0 && fixed + per_q <= (size_t)dev->local_mem) qc = 1;
  FEMINT_CHECK(qc >= 1, NULL, FEMINT_ENOTSUP,
               "volume kernel: the GEMM tiles (%d, %d) need %zu bytes of local memory, device %s "
               "has %llu",
               tile, block, fixed + per_q, dev->name, (unsigned long long)dev->local_mem);
  cfg->tile = tile;
  cfg->block = block;
  cfg->elems = elems;
  cfg->wpe = wpe;
  cfg->qchunk = qc;
  cfg->half = half;
  cfg->stage = sg;
  cfg->nparts = nparts;
  cfg->blocks_per_thread = 1;
  cfg->wg_size = (size_t)elems * (size_t)wpe;
  cfg->local_bytes = fixed + per_q * (size_t)qc;
  return 0;
}

/* Whether the GEMM kernel of several parts computes the upper half only: always for symmetric
 * storage, never for the generic form; for full storage of the symmetric forms from p = 3 on (on
 * the H200 the mirrored, uncoalesced writes of p = 1, 2 cost more than the products they save). */
static int gemm_default_half(const struct volume_cl_config *cfg)
{
  if (cfg->symmetric) return 1;
  if (cfg->form_kind == FORM_GENERIC) return 0;
  return cfg->nsh > VOLUME_CL_GEMM_MIRROR_NSH;
}

/* GEMM defaults, from the H200 measurements of tools/gpu/kernel-timing (elasticity): tiles of
 * 1 x 1 pairs up to nsh = 80 (p <= 4: more work-groups, less padding), 2 x 2 beyond (twice as
 * large for the Laplace and mass forms, which accumulate one value per pair); one block of the
 * whole matrix, its upper half computed and mirrored in local memory, when it takes at most
 * VOLUME_CL_GEMM_ONE_BLOCK work-items and an element's matrix fits half the local memory (p = 2
 * prisms: 2.2-2.8x faster than parts of 8 x 8); else blocks of 16 x 16 tiles, or 8 x 8 when they
 * pad the matrix less; chunks of up to 16 points. */
static int plan_gemm(const struct femint_cl_device *dev, struct volume_cl_config *cfg)
{
  int tile = cfg->nsh <= 80 ? 1 : 2;
  if (cfg->form_kind == FORM_LAPLACE || cfg->form_kind == FORM_MASS) tile *= 2;
  const int ntr = (cfg->nsh + tile - 1) / tile;
  struct volume_cl_config one = *cfg;
  if (plan_gemm_tiles(dev, &one, tile, ntr, VOLUME_CL_GEMM_QCHUNK, 0,
                      cfg->form_kind != FORM_GENERIC, -1) == 0 &&
      one.wpe <= VOLUME_CL_GEMM_ONE_BLOCK && one.stage > 0) {
    *cfg = one;
    return 0;
  }
  return plan_gemm_tiles(dev, cfg, tile, gemm_default_block(cfg->nsh, tile),
                         VOLUME_CL_GEMM_QCHUNK, 0, gemm_default_half(cfg), -1);
}

int volume_cl_configure(const struct femint_cl_device *dev, int dim, int nsh, int nq, int ne,
                        int ncoef, int form_kind, int precision, int variant, int symmetric,
                        struct volume_cl_config *cfg)
{
  FEMINT_CHECK(dim == 2 || dim == 3, NULL, FEMINT_EINVAL, "volume kernel: dimension %d", dim);
  FEMINT_CHECK(nsh > 0 && nq > 0 && ne >= 1 && ne <= 5, NULL, FEMINT_EINVAL,
               "volume kernel: invalid sizes nsh = %d, nq = %d, ne = %d", nsh, nq, ne);
  FEMINT_CHECK(form_kind >= FORM_GENERIC && form_kind <= FORM_MASS, NULL, FEMINT_EINVAL,
               "volume kernel: unknown form kind %d", form_kind);
  FEMINT_CHECK(ncoef == form_ncoef(form_kind, ne, dim), NULL, FEMINT_EINVAL,
               "volume kernel: a %s form with ne = %d in %dD cannot have %d coefficients",
               form_kind_name(form_kind), ne, dim, ncoef);
  FEMINT_CHECK(precision == FEMINT_DOUBLE || precision == FEMINT_SINGLE, NULL, FEMINT_EINVAL,
               "volume kernel: invalid precision %d", precision);
  FEMINT_CHECK(variant > FEMINT_VARIANT_AUTO && variant <= FEMINT_VARIANT_GEMM, NULL, FEMINT_EINVAL,
               "volume kernel: unknown variant %d", variant);
  FEMINT_CHECK(symmetric == 0 || symmetric == 1, NULL, FEMINT_EINVAL,
               "volume kernel: symmetric must be 0 or 1, not %d", symmetric);
  FEMINT_CHECK(!symmetric || form_kind != FORM_GENERIC, NULL, FEMINT_ENOTSUP,
               "volume kernel: symmetric storage needs a symmetric form, not the generic one");
  FEMINT_CHECK(precision == FEMINT_SINGLE || dev->fp64, NULL, FEMINT_ENOTSUP,
               "volume kernel: device %s has no double precision (cl_khr_fp64)", dev->name);
  FEMINT_CHECK(dim == 3 || variant == FEMINT_VARIANT_GEMM, NULL, FEMINT_ENOTSUP,
               "volume kernel: the %s variant is for prisms; 2D elements have the gemm variant",
               femint_variant_name(variant));
  struct volume_cl_config c;
  memset(&c, 0, sizeof c);
  c.dim = dim;
  c.nsh = nsh;
  c.nq = nq;
  c.ne = ne;
  c.ncoef = ncoef;
  c.form_kind = form_kind;
  c.precision = precision;
  c.variant = variant;
  c.symmetric = symmetric;
  c.blocks_per_thread = 1;
  if (variant == FEMINT_VARIANT_GEMM) {
    FEMINT_CALL(plan_gemm(dev, &c));
  } else {
    size_t cap = (dev->type & CL_DEVICE_TYPE_GPU) ? VOLUME_CL_GPU_MAX_WG : VOLUME_CL_MAX_WG;
    FEMINT_CALL(plan_blocks(dev, cap, &c));
  }
  *cfg = c;
  return 0;
}

int volume_cl_set_gemm(const struct femint_cl_device *dev, struct volume_cl_config *cfg, int tile,
                       int block, int qchunk, int elems, int half, int stage)
{
  FEMINT_CHECK(cfg->variant == FEMINT_VARIANT_GEMM, NULL, FEMINT_EINVAL,
               "volume kernel: tiles belong to the GEMM variant, not %s",
               femint_variant_name(cfg->variant));
  FEMINT_CHECK(tile >= 0 && tile <= 8 && block >= 0 && qchunk >= 0 && elems >= 0 && half >= -1 &&
                   half <= 1 && stage >= -1,
               NULL, FEMINT_EINVAL, "volume kernel: invalid GEMM tiles (%d, %d, %d, %d, %d, %d)",
               tile, block, qchunk, elems, half, stage);
  if (half < 0) half = gemm_default_half(cfg);
  FEMINT_CHECK((half || !cfg->symmetric) && (!half || cfg->form_kind != FORM_GENERIC), NULL,
               FEMINT_EINVAL, "volume kernel: half = %d with %s storage of a %s form", half,
               cfg->symmetric ? "symmetric" : "full", form_kind_name(cfg->form_kind));
  struct volume_cl_config c = *cfg;
  if (!tile) tile = cfg->tile;
  FEMINT_CALL(plan_gemm_tiles(dev, &c, tile, block ? block : gemm_default_block(cfg->nsh, tile),
                              qchunk ? qchunk : VOLUME_CL_GEMM_QCHUNK, elems, half, stage));
  *cfg = c;
  return 0;
}

int volume_cl_replan(const struct femint_cl_device *dev, struct volume_cl_config *cfg)
{
  FEMINT_CHECK(cfg->wg_size > 1, NULL, FEMINT_ENOTSUP,
               "volume kernel: device %s cannot run the kernel with any work-group size",
               dev->name);
  struct volume_cl_config c = *cfg;
  if (cfg->variant == FEMINT_VARIANT_GEMM) {
    /* Fewer elements at a time, then smaller blocks. */
    if (cfg->elems > 1)
      FEMINT_CALL(plan_gemm_tiles(dev, &c, cfg->tile, cfg->block, cfg->qchunk, cfg->elems / 2,
                                  cfg->half, cfg->stage ? -1 : 0));
    else
      FEMINT_CALL(plan_gemm_tiles(dev, &c, cfg->tile, cfg->block / 2 > 0 ? cfg->block / 2 : 1,
                                  cfg->qchunk, 1, cfg->half, cfg->stage ? -1 : 0));
    FEMINT_CHECK(c.wg_size < cfg->wg_size, NULL, FEMINT_ENOTSUP,
                 "volume kernel: device %s cannot run the kernel with any work-group size",
                 dev->name);
  } else {
    FEMINT_CALL(plan_blocks(dev, cfg->wg_size / 2, &c));
  }
  *cfg = c;
  return 0;
}

int volume_cl_options(const struct volume_cl_config *cfg, char *buf, size_t len)
{
  /* No -cl-mad-enable or -cl-fast-relaxed-math: FP_CONTRACT is on by default in OpenCL C, so
   * the compiler already fuses multiply-adds where the device has an exact FMA. */
  int n = snprintf(buf, len,
                   "-DDIM=%d -DNSH=%d -DNQ=%d -DNE=%d -DNCOEF=%d -DFORM_KIND=%d -DSYMMETRIC=%d "
                   "-DWG_SIZE=%zu -DNPARTS=%d -DREAL=%s%s",
                   cfg->dim, cfg->nsh, cfg->nq, cfg->ne, cfg->ncoef, cfg->form_kind, cfg->symmetric,
                   cfg->wg_size, cfg->nparts, cfg->precision == FEMINT_DOUBLE ? "double" : "float",
                   cfg->precision == FEMINT_DOUBLE ? " -DFEMINT_FP64" : "");
  if (n >= 0 && (size_t)n < len) {
    int m;
    if (cfg->variant == FEMINT_VARIANT_GEMM)
      m = snprintf(buf + n, len - (size_t)n,
                   " -DTILE=%d -DBLK=%d -DELEMS=%d -DWPE=%d -DQC=%d -DHALF=%d -DSTAGE=%d "
                   "-DGEO_NODES=%d",
                   cfg->tile, cfg->block, cfg->elems, cfg->wpe, cfg->qchunk, cfg->half, cfg->stage,
                   cfg->geo_nodes);
    else
      m = snprintf(buf + n, len - (size_t)n, " -DGEO_JAC=%d -DBPT=%d",
                   volume_variant_jac(cfg->variant), cfg->blocks_per_thread);
    n = m < 0 ? m : n + m;
  }
  FEMINT_CHECK(n >= 0 && (size_t)n < len, NULL, FEMINT_EINVAL,
               "volume kernel: %zu bytes are too few for the build options", len);
  return 0;
}

/* The kernel file of a variant. */
static const char *variant_file(int variant)
{
  switch (variant) {
  case FEMINT_VARIANT_REG_NOJAC:
  case FEMINT_VARIANT_REG_JAC: return "volume_reg.cl";
  case FEMINT_VARIANT_SHM_NOJAC:
  case FEMINT_VARIANT_SHM_JAC: return "volume_shm.cl";
  case FEMINT_VARIANT_GEMM: return "volume_gemm.cl";
  }
  return NULL;
}

char *volume_cl_source(int variant)
{
  const char *file = variant_file(variant);
  if (!file) return NULL;
  char *common = femint_kernel_text("common.clh");
  char *kernel = femint_kernel_text(file);
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

const char *femint_cl_kernel_name(cl_kernel kern, char *buf, size_t len)
{
  if (clGetKernelInfo(kern, CL_KERNEL_FUNCTION_NAME, len, buf, NULL) != CL_SUCCESS)
    snprintf(buf, len, "a kernel");
  return buf;
}

int femint_cl_run(cl_command_queue q, cl_kernel kern, size_t global, size_t local, int nargs,
                  const struct karg *a, const char *who)
{
  if (global == 0) return 0;
  char name[64];
  for (int i = 0; i < nargs; i++) {
    const cl_int e = clSetKernelArg(kern, (cl_uint)i, a[i].size, a[i].value);
    if (e != CL_SUCCESS)
      return femint_seterr(NULL, FEMINT_EOPENCL, "%s: clSetKernelArg(%s) failed with %d", who,
                           femint_cl_kernel_name(kern, name, sizeof name), (int)e);
  }
  global = (global + local - 1) / local * local;
  const cl_int e = clEnqueueNDRangeKernel(q, kern, 1, NULL, &global, &local, 0, NULL, NULL);
  if (e != CL_SUCCESS)
    return femint_seterr(NULL, FEMINT_EOPENCL, "%s: clEnqueueNDRangeKernel(%s) failed with %d",
                         who, femint_cl_kernel_name(kern, name, sizeof name), (int)e);
  return 0;
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
  const size_t n = ncell > 0 ? (size_t)ncell : 0;
  size_t epg, ngroups;
  if (cfg->variant == FEMINT_VARIANT_GEMM) {
    /* Work-groups of one part and cfg->elems elements, each part its own work-group, unless
     * there are far more than enough of them. */
    const size_t e = cfg->elems > 0 ? (size_t)cfg->elems : 1, nparts = (size_t)cfg->nparts;
    const size_t chunks = ceil_div(n, e), per_part = ceil_div(4 * target, nparts);
    const size_t r = chunks > per_part ? ceil_div(chunks, per_part) : 1;
    epg = r * e;
    ngroups = ceil_div(n, epg) * nparts;
  } else {
    epg = n > target ? ceil_div(n, target) : 1;
    ngroups = ceil_div(n, epg);
  }
  *elems_per_group = (int)epg;
  *local = cfg->wg_size;
  *global = ngroups * cfg->wg_size;
}

cl_int volume_cl_enqueue(cl_command_queue q, cl_kernel k, const struct volume_cl_config *cfg,
                         const struct femint_cl_device *dev, int ncell, cl_mem geo, cl_mem coef,
                         cl_mem phi, cl_mem quad, cl_mem out, size_t out_off, cl_event *ev)
{
  size_t global, local;
  int epg;
  cl_int err;
  if (ncell <= 0) return clEnqueueMarkerWithWaitList(q, 0, NULL, ev);
  volume_cl_launch_shape(dev, cfg, ncell, &global, &local, &epg);
  const cl_mem mems[5] = {geo, coef, phi, quad, out};
  if ((err = clSetKernelArg(k, 0, sizeof(cl_int), &(cl_int){ncell})) != CL_SUCCESS) return err;
  if ((err = clSetKernelArg(k, 1, sizeof(cl_int), &(cl_int){epg})) != CL_SUCCESS) return err;
  for (int i = 0; i < 5; i++)
    if ((err = clSetKernelArg(k, (cl_uint)(2 + i), sizeof(cl_mem), &mems[i])) != CL_SUCCESS)
      return err;
  if ((err = clSetKernelArg(k, 7, sizeof(cl_long), &(cl_long){(cl_long)out_off})) != CL_SUCCESS)
    return err;
  return clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, ev);
}

int volume_cl_set_nodes(struct volume_cl_config *cfg, int nnode)
{
  FEMINT_CHECK(nnode == 0 || cfg->variant == FEMINT_VARIANT_GEMM, NULL, FEMINT_EINVAL,
               "volume kernel: only the gemm variant maps cells from their nodes, not %s",
               femint_variant_name(cfg->variant));
  FEMINT_CHECK(nnode >= 0 && nnode <= MESH_MAX_NODES, NULL, FEMINT_EINVAL,
               "volume kernel: %d geometric nodes per cell (0..%d)", nnode, MESH_MAX_NODES);
  cfg->geo_nodes = nnode;
  return 0;
}

size_t volume_cl_geo_size(const struct volume_cl_config *cfg)
{
  if (volume_variant_jac(cfg->variant)) return 18;
  if (cfg->geo_nodes) return (size_t)cfg->geo_nodes * cfg->dim;
  return (size_t)cfg->nq * volume_cl_nterms(cfg);
}

/* REALs of the quadrature input: the points of the JAC variants, the geometry table of GEMM with
 * nodes, none else. */
static size_t quad_size(const struct volume_cl_config *cfg)
{
  if (volume_variant_jac(cfg->variant)) return (size_t)cfg->nq * 4;
  return cfg->geo_nodes ? (size_t)cfg->nq * (1 + (size_t)cfg->geo_nodes * cfg->dim) : 0;
}

int volume_cl_nterms(const struct volume_cl_config *cfg)
{
  return 1 + cfg->dim * cfg->dim;
}

size_t volume_cl_out_size(const struct volume_cl_config *cfg)
{
  const size_t n = (size_t)cfg->nsh * (size_t)cfg->ne;
  return cfg->symmetric ? n * (n + 1) / 2 : n * n;
}

/* Flops of one block update by one point in the REG and SHM kernels (BLOCK_UPDATE of
 * kernels/common.clh). */
static double block_flops(const struct volume_cl_config *cfg)
{
  switch (cfg->form_kind) {
  case FORM_ELASTICITY: return 53;
  case FORM_LAPLACE: return 8;
  case FORM_MASS: return 4;
  default: return 20 + 33.0 * cfg->ne * cfg->ne;
  }
}

/* Flops of the Jacobian terms at one point from the vertices (femint_prism_jac_terms). */
#define JAC_TERMS_FLOPS 170.0

double volume_cl_flops(const struct volume_cl_config *cfg)
{
  const double nsh = cfg->nsh, nq = cfg->nq, nparts = cfg->nparts;
  if (cfg->variant != FEMINT_VARIANT_GEMM) {
    /* Each part computes the physical derivatives again (none for the mass form) and, in the
     * JAC variants, the Jacobian terms. */
    double per_point = (cfg->form_kind == FORM_MASS ? 0 : 15 * nsh) +
                       (volume_variant_jac(cfg->variant) ? JAC_TERMS_FLOPS : 0);
    return nq * ((double)reg_blocks(cfg) * block_flops(cfg) + nparts * per_point);
  }
  /* Every work-item of a part does its multiply-adds, on padding and below the diagonal too. */
  const double t = cfg->tile, rw = (double)cfg->block * cfg->tile;
  const double products = nparts * cfg->wpe * nq * t * t * 2.0 * gemm_fma(cfg->form_kind, cfg->dim);
  /* Scaled derivatives: sqrt(W) times each Jacobian term, then 3 x 3 multiply-adds per row or
   * column of a part (the value alone for mass). */
  const int nd = gemm_nd(cfg->form_kind, cfg->dim), dim = cfg->dim;
  /* a value: 1 product; dim derivatives: dim * dim multiply-adds (+1 for the generic value) */
  const double per_value = nd == 1 ? 1 : 2.0 * dim * dim + (nd > dim);
  double ndiag = cfg->half ? ceil_div((size_t)(cfg->nsh + cfg->tile - 1) / cfg->tile,
                                      (size_t)cfg->block)
                           : 0;
  const double rows = (2 * nparts - ndiag) * rw;
  /* with nodes, each part maps the points again: J (dim^2 multiply-adds per node), det J, the
   * inverse and its scaling (about 10 dim^2 flops) */
  const double map = cfg->geo_nodes ? 2.0 * cfg->geo_nodes * dim * dim + 10.0 * dim * dim : 0;
  const double derivs = nq * (rows * per_value + nparts * (volume_cl_nterms(cfg) + map));
  /* Combination of the S values into the element matrix, per (i, j) pair written. */
  const double pairs = cfg->half ? nsh * (nsh + 1) / 2 : nsh * nsh;
  const double ne = cfg->ne;
  const double combine = cfg->form_kind == FORM_ELASTICITY ? dim + 1 + dim * dim * 4
                         : cfg->form_kind == FORM_GENERIC  ? ne * ne * 2.0 * nd * nd
                                                           : 1;
  return products + derivs + pairs * combine;
}

double volume_cl_flops_seed(const struct volume_cl_config *cfg)
{
  const double ne = cfg->ne;
  double per_block = cfg->form_kind == FORM_ELASTICITY ? (cfg->dim == 3 ? 63 : 28)
                     : cfg->form_kind == FORM_LAPLACE  ? 7 * ne
                     : cfg->form_kind == FORM_MASS     ? 3 * ne
                                                       : 48 * ne * ne;
  return (double)cfg->nq * cfg->nsh * cfg->nsh * per_block;
}

int volume_cl_max_cells(const struct femint_cl_device *dev, const struct volume_cl_config *cfg)
{
  const double rs = (double)real_size(cfg);
  const double out = (double)volume_cl_out_size(cfg) * rs;
  const double in = ((double)volume_cl_geo_size(cfg) + cfg->ncoef) * rs;
  double n = floor((double)dev->max_alloc / out);
  const double by_mem = floor(0.9 * (double)dev->global_mem / (out + in));
  if (by_mem < n) n = by_mem;
  if (n > INT_MAX) n = INT_MAX;
  return n < 0 ? 0 : (int)n;
}

int volume_cl_describe(const struct femint_cl_device *dev, const struct volume_cl_config *cfg,
                       int ncell, char *buf, size_t len)
{
  const int max_cells = volume_cl_max_cells(dev, cfg);
  const int n = ncell < max_cells ? ncell : max_cells;
  size_t global, local;
  int epg;
  volume_cl_launch_shape(dev, cfg, n, &global, &local, &epg);
  const double rs = (double)real_size(cfg), mb = 1e-6;
  const double in = n * ((double)volume_cl_geo_size(cfg) + cfg->ncoef) * rs +
                    (double)cfg->nq * (cfg->dim + 1) * cfg->nsh * rs + (double)quad_size(cfg) * rs;
  const double out = n * (double)volume_cl_out_size(cfg) * rs;
  int w = snprintf(buf, len,
                   "variant: %s\n"
                   "device: %s\n"
                   "precision: %s\n"
                   "storage: %s\n"
                   "work-group size: %zu\n"
                   "parts of the element matrix: %d\n"
                   "blocks per thread: %d\n",
                   femint_variant_name(cfg->variant), dev->name,
                   cfg->precision == FEMINT_DOUBLE ? "double" : "single",
                   cfg->symmetric ? "symmetric (upper half)" : "full", cfg->wg_size, cfg->nparts,
                   cfg->blocks_per_thread);
  if (w >= 0 && (size_t)w < len && cfg->variant == FEMINT_VARIANT_GEMM) {
    int m = snprintf(buf + w, len - (size_t)w,
                     "tile: %d x %d pairs, blocks of %d x %d tiles, %s\n"
                     "elements at a time per work-group: %d (%d work-items each)\n"
                     "quadrature points per chunk: %d\n"
                     "element matrices gathered in local memory: %d\n",
                     cfg->tile, cfg->tile, cfg->block, cfg->block,
                     cfg->half ? "upper half" : "all pairs", cfg->elems, cfg->wpe, cfg->qchunk,
                     cfg->stage);
    w = m < 0 ? m : w + m;
  }
  if (w >= 0 && (size_t)w < len) {
    int m = snprintf(buf + w, len - (size_t)w,
                     "local memory [B]: %zu\n"
                     "elements per kernel: %d (at most %d)\n"
                     "elements per work-group: %d\n"
                     "work-groups: %zu\n"
                     "input data [MB]: %.2f\n"
                     "output data [MB]: %.2f\n"
                     "flops per element: %.4g (seed count %.4g)\n",
                     cfg->local_bytes, n, max_cells, epg, local ? global / local : 0, in * mb,
                     out * mb, volume_cl_flops(cfg), volume_cl_flops_seed(cfg));
    w = m < 0 ? m : w + m;
  }
  FEMINT_CHECK(w >= 0 && (size_t)w < len, NULL, FEMINT_EINVAL,
               "volume kernel: %zu bytes are too few for the plan", len);
  return 0;
}
