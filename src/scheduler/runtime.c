/* The runtime of a femint context: StarPU started with the process's cores divided by hwloc
 * (cores.c) and the OpenCL devices chosen, the context's lifetime and the queries of its
 * workers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler.h"

/* The OpenCL devices StarPU drives: GPUs and accelerators, and CPUs with STARPU_OPENCL_ON_CPUS=1
 * (only CPUs with STARPU_OPENCL_ONLY_ON_CPUS=1). */
static cl_device_type opencl_device_type(void)
{
  const char *on_cpus = getenv("STARPU_OPENCL_ON_CPUS");
  const char *only_cpus = getenv("STARPU_OPENCL_ONLY_ON_CPUS");
  cl_device_type type = CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR;
  if (on_cpus && atoi(on_cpus) > 0) type |= CL_DEVICE_TYPE_CPU;
  if (only_cpus && atoi(only_cpus) > 0) type = CL_DEVICE_TYPE_CPU;
  return type;
}

/* The OpenCL devices StarPU finds, numbered as StarPU numbers them (platform after platform). */
static int count_opencl_devices(void)
{
  cl_uint nplat = 0;
  cl_platform_id plat[16];
  if (clGetPlatformIDs(16, plat, &nplat) != CL_SUCCESS) return 0;
  int n = 0;
  for (cl_uint p = 0; p < nplat && p < 16; p++) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(plat[p], opencl_device_type(), 0, NULL, &nd) == CL_SUCCESS) n += nd;
  }
  return n < STARPU_MAXOPENCLDEVS ? n : STARPU_MAXOPENCLDEVS;
}

/* Launchers' variables that hold a process's rank among the processes of its node. */
static const char *const local_rank_vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                              "MV2_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", NULL};

/* The local rank of the options or of the first launcher variable set. */
static int local_rank(const struct femint_init_options *opt, int *rank, const char **source)
{
  FEMINT_CHECK(opt->local_rank >= FEMINT_LOCAL_RANK_FROM_ENV, NULL, FEMINT_EINVAL,
               "femint_init: local_rank %d is negative (FEMINT_LOCAL_RANK_FROM_ENV is %d)",
               opt->local_rank, FEMINT_LOCAL_RANK_FROM_ENV);
  if (opt->local_rank >= 0) {
    *rank = opt->local_rank;
    *source = "option";
    return 0;
  }
  for (int i = 0; local_rank_vars[i]; i++) {
    const char *v = getenv(local_rank_vars[i]);
    if (!v || !*v) continue;
    char *end;
    long r = strtol(v, &end, 10);
    FEMINT_CHECK(*end == 0 && r >= 0 && r <= 1 << 20, NULL, FEMINT_EINVAL,
                 "femint_init: %s='%s' is not a local rank", local_rank_vars[i], v);
    *rank = (int)r;
    *source = local_rank_vars[i];
    return 0;
  }
  return femint_seterr(NULL, FEMINT_EINVAL,
                       "femint_init: the OpenCL device goes by the local rank, but none of "
                       "OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, MV2_COMM_WORLD_LOCAL_RANK, "
                       "SLURM_LOCALID is set: give local_rank");
}

/* How many OpenCL devices StarPU is to drive (*n) and, when one is chosen, which (*chosen, or
 * -1): the local rank, if it decided, goes to ctx. */
static int choose_opencl_devices(femint_context_t ctx, const struct femint_init_options *opt,
                                 int *n, int *chosen)
{
  const char *env = getenv("STARPU_NOPENCL");
  *n = 0;
  *chosen = -1;
  FEMINT_CHECK(opt->device_select >= FEMINT_DEVICE_ALL &&
                   opt->device_select <= FEMINT_DEVICE_BY_LOCAL_RANK,
               NULL, FEMINT_EINVAL, "femint_init: device_select %d is not a femint_device_select",
               opt->device_select);
  if (opt->nopencl == 0 || (env && atoi(env) == 0)) return 0;
  int found = count_opencl_devices();
  if (opt->device_select == FEMINT_DEVICE_ALL) {
    *n = found;
    if (env && atoi(env) > 0 && atoi(env) < *n) *n = atoi(env);
    if (opt->nopencl > 0 && opt->nopencl < *n) *n = opt->nopencl;
    return 0;
  }
  if (opt->device_select == FEMINT_DEVICE_INDEX) {
    FEMINT_CHECK(found > 0, NULL, FEMINT_ENODEV,
                 "femint_init: OpenCL device %d was asked for, but there is no OpenCL device (GPUs "
                 "and accelerators; CPUs with STARPU_OPENCL_ON_CPUS=1)",
                 opt->opencl_device);
    FEMINT_CHECK(opt->opencl_device >= 0 && opt->opencl_device < found, NULL, FEMINT_ENODEV,
                 "femint_init: OpenCL device %d does not exist (%d found: 0..%d)",
                 opt->opencl_device, found, found - 1);
    *chosen = opt->opencl_device;
  } else {
    FEMINT_CALL(local_rank(opt, &ctx->local_rank, &ctx->local_rank_source));
    if (found == 0) return 0; /* a node without devices: CPU workers only */
    *chosen = ctx->local_rank % found;
  }
  *n = 1;
  return 0;
}

/* Frees what femint_init has built so far. */
static void context_free(femint_context_t ctx)
{
  for (int w = 0; w < STARPU_NMAXWORKERS; w++) {
    if (ctx->team_set[w]) hwloc_bitmap_free(ctx->team_set[w]);
    if (ctx->bound_set[w]) hwloc_bitmap_free(ctx->bound_set[w]);
  }
  if (ctx->cpuset) hwloc_bitmap_free(ctx->cpuset);
  if (ctx->topo) hwloc_topology_destroy(ctx->topo);
  starpu_home_remove(&ctx->private_home);
  pthread_mutex_destroy(&ctx->lock);
  free(ctx);
}

/* femint_host_quiet while StarPU runs: its workers paused from the first of nested or
 * concurrent calls to the last (StarPU's own depth is not counted atomically). */
static pthread_mutex_t quiet_lock = PTHREAD_MUTEX_INITIALIZER;
static int quiet_depth;

static void runtime_quiet(int on)
{
  pthread_mutex_lock(&quiet_lock);
  if (on && quiet_depth++ == 0) starpu_pause();
  else if (!on && quiet_depth > 0 && --quiet_depth == 0) starpu_resume();
  pthread_mutex_unlock(&quiet_lock);
}

int femint_init(const struct femint_init_options *opt, femint_context_t *out)
{
  static const struct femint_init_options defaults = {.nopencl = -1};
  enum { MAX_CORES = 1024 };
  FEMINT_CHECK(out, NULL, FEMINT_EINVAL, "femint_init: the output pointer is NULL");
  *out = NULL;
  if (!opt) opt = &defaults;
  femint_context_t ctx = calloc(1, sizeof *ctx);
  hwloc_cpuset_t *cores = calloc(MAX_CORES, sizeof *cores);
  struct division d = {0};
  int err = 0, ncores = 0, models_lock = -1;
  if (!ctx || !cores) {
    free(ctx);
    free(cores);
    return femint_seterr(NULL, FEMINT_ENOMEM, "femint_init: out of memory");
  }
  pthread_mutex_init(&ctx->lock, NULL);
  ctx->local_rank = -1;
  femint_trace("femint_init");
  if ((err = starpu_env_check()) != 0 || (err = devices_env(ctx)) != 0 ||
      (err = starpu_home_check(&ctx->private_home)) != 0)
    goto fail;
  /* until StarPU has read its files (or measured the bus and written them), no other process
   * on this home writes them */
  models_lock = starpu_models_lock(0);
  starpu_models_check();
  if (hwloc_topology_init(&ctx->topo) || hwloc_topology_load(ctx->topo)) {
    err = femint_seterr(NULL, FEMINT_ERUNTIME, "femint_init: hwloc cannot read the topology");
    goto fail;
  }
  ctx->cpuset = hwloc_bitmap_alloc();
  cores_process_cpuset(ctx->topo, ctx->cpuset);
  ncores = cores_list(ctx->topo, ctx->cpuset, cores, MAX_CORES);
  if (ncores < 1) {
    char set[256] = "";
    hwloc_bitmap_list_snprintf(set, sizeof set, ctx->cpuset);
    err = femint_seterr(NULL, FEMINT_ERUNTIME,
                        "femint_init: the process's cpuset (PUs '%s') holds no PU the system lets "
                        "it use",
                        set);
    goto fail;
  }
  ctx->cores = ncores;

  struct starpu_conf conf;
  starpu_conf_init(&conf);
  int nopencl, chosen;
  if ((err = choose_opencl_devices(ctx, opt, &nopencl, &chosen)) != 0) goto fail;
  if (chosen >= 0) {
    conf.nopencl = 1;
    conf.use_explicit_workers_opencl_gpuid = 1;
    conf.workers_opencl_gpuid[0] = (unsigned)chosen;
  } else if (!getenv("STARPU_NOPENCL")) {
    conf.nopencl = nopencl;
  }
  /* At most one CPU worker per core left by the drivers (one when they take every core). */
  int ncpu = ncores > nopencl ? ncores - nopencl : 1;
  const char *env_ncpu = getenv("STARPU_NCPU") ? getenv("STARPU_NCPU") : getenv("STARPU_NCPUS");
  if (env_ncpu) {
    ncpu = atoi(env_ncpu);
  } else {
    if (opt->ncpu_workers > 0 && opt->ncpu_workers < ncpu) ncpu = opt->ncpu_workers;
    if (ncpu > STARPU_MAXCPUS) ncpu = STARPU_MAXCPUS;
    conf.ncpus = ncpu;
  }
  if (ncpu < 0 || ncpu > STARPU_MAXCPUS) ncpu = STARPU_MAXCPUS;
  cores_divide(cores, ncores, ncpu, nopencl, &d);
  if (!cores_starpu_binds_itself() && ncpu + nopencl > 0) cores_set_bindids(ctx->topo, &d, &conf);
  if (!getenv("STARPU_SCHED")) conf.sched_policy_name = "dmda";
  /* StarPU writes data whose only copy is on a device back to main memory ahead of need, to keep
   * 5-10% of the device's buffers clean (STARPU_MINIMUM_CLEAN_BUFFERS, _TARGET_); it does so on a
   * driver's thread, whose device then waits: the first COO assembly of the tetrahedral box 17^3
   * spent 1.2 s of its 1.3 s integration writing the pattern's permutation back (0.03 s without).
   * femint keeps on a device what it will use there; StarPU still evicts when memory runs out. */
  setenv("STARPU_MINIMUM_CLEAN_BUFFERS", "0", 0);
  setenv("STARPU_TARGET_CLEAN_BUFFERS", "0", 0);
  /* StarPU calibrates the bus on first use; it must not stop at a missing model. */
  if (opt->quiet && !getenv("STARPU_SILENT")) setenv("STARPU_SILENT", "1", 0);
  femint_trace("starpu_init");
  int ret = starpu_init(&conf);
  starpu_models_unlock(models_lock);
  models_lock = -1;
  femint_trace("starpu_init done");
  if (ret != 0) {
    err = femint_seterr(NULL, FEMINT_ERUNTIME, "femint_init: starpu_init failed (%d)", ret);
    goto fail;
  }
  starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
  ctx->nworker = starpu_worker_get_count();
  ctx->ncpu = starpu_cpu_worker_get_count();
  ctx->nopencl = starpu_opencl_worker_get_count();
  if (ctx->ncpu != d.ncpu || ctx->nopencl != d.nopencl) { /* StarPU made other numbers */
    cores_division_free(&d);
    cores_divide(cores, ncores, ctx->ncpu, ctx->nopencl, &d);
  }
  for (int w = 0; w < ctx->nworker && w < STARPU_NMAXWORKERS; w++) {
    int cpu = starpu_worker_get_type(w) == STARPU_CPU_WORKER;
    if (!cpu && starpu_worker_get_type(w) != STARPU_OPENCL_WORKER) continue;
    int dev = cpu ? -1 : starpu_worker_get_devid(w);
    if (dev >= 0 && dev < FEMINT_MAX_CL_DEVICES) {
      ctx->cl_driven[dev] = 1;
      if (dev + 1 > ctx->ncl_dev) ctx->ncl_dev = dev + 1;
    }
    cores_give(ctx, &d, w, cpu);
  }
  /* The devices below the last one driven are known too: femint numbers devices as StarPU
   * does, and code that loops over them finds each one's properties. */
  for (int dev = 0; dev < ctx->ncl_dev; dev++) {
    cl_device_id id;
    starpu_opencl_get_device(dev, &id);
    femint_cl_device_query(id, &ctx->cl_dev[dev]);
  }
  cores_bind_workers(ctx);
  femint_host_quiet_hook(runtime_quiet);
  femint_host_warm(ctx);
  femint_trace("femint_init done: workers bound");
  cores_division_free(&d);
  for (int i = 0; i < ncores; i++) hwloc_bitmap_free(cores[i]);
  free(cores);
  *out = ctx;
  return 0;
fail:
  starpu_models_unlock(models_lock);
  cores_division_free(&d);
  for (int i = 0; i < ncores; i++) hwloc_bitmap_free(cores[i]);
  free(cores);
  context_free(ctx);
  return err;
}

int femint_finalize(femint_context_t *pctx)
{
  if (!pctx || !*pctx) return 0;
  femint_context_t ctx = *pctx;
  femint_host_quiet_hook(NULL);
  pthread_mutex_lock(&quiet_lock);
  if (quiet_depth > 0) starpu_resume(); /* (a quiet stretch left open) */
  quiet_depth = 0;
  pthread_mutex_unlock(&quiet_lock);
  starpu_task_wait_for_all();
  matrix_device_release_all(ctx);
  femint_host_release_all(ctx);
  tables_release(ctx);
  devices_release(ctx);
  const int models_lock = starpu_models_lock(1); /* StarPU writes its models now */
  starpu_shutdown();
  starpu_models_unlock(models_lock);
  context_free(ctx);
  *pctx = NULL;
  return 0;
}

int femint_context_workers(femint_context_t ctx, int *ncpu, int *nopencl, int *team_size)
{
  FEMINT_CHECK(ctx, NULL, FEMINT_EINVAL, "femint_context_workers: NULL context");
  if (ncpu) *ncpu = ctx->ncpu;
  if (nopencl) *nopencl = ctx->nopencl;
  if (team_size) {
    *team_size = 0;
    for (int w = 0; w < ctx->nworker; w++)
      if (ctx->team_size[w] > *team_size) *team_size = ctx->team_size[w];
  }
  return 0;
}

int femint_context_worker_name(femint_context_t ctx, int w, char *buf, size_t len)
{
  FEMINT_CHECK(ctx && buf && len > 0, ctx, FEMINT_EINVAL, "worker_name: NULL argument");
  FEMINT_CHECK(w >= 0 && w < ctx->nworker, ctx, FEMINT_EINVAL,
               "worker_name: worker %d does not exist (%d workers)", w, ctx->nworker);
  if (starpu_worker_get_type(w) == STARPU_CPU_WORKER) {
    char cpus[256] = "";
    if (ctx->team_set[w]) hwloc_bitmap_list_snprintf(cpus, sizeof cpus, ctx->team_set[w]);
    snprintf(buf, len, "CPU %d (OpenMP team of %d on PUs %s)", w, ctx->team_size[w], cpus);
  } else {
    int dev = starpu_worker_get_devid(w);
    snprintf(buf, len, "OpenCL %d (%s)", dev,
             dev >= 0 && dev < FEMINT_MAX_CL_DEVICES ? ctx->cl_dev[dev].name : "?");
  }
  return 0;
}

int femint_context_worker_binding(femint_context_t ctx, int w, struct femint_worker_binding *b)
{
  FEMINT_CHECK(ctx && b, ctx, FEMINT_EINVAL, "worker_binding: NULL argument");
  FEMINT_CHECK(w >= 0 && w < ctx->nworker && w < STARPU_NMAXWORKERS, ctx, FEMINT_EINVAL,
               "worker_binding: worker %d does not exist (%d workers)", w, ctx->nworker);
  memset(b, 0, sizeof *b);
  int cpu = starpu_worker_get_type(w) == STARPU_CPU_WORKER;
  b->kind = cpu ? FEMINT_WHERE_CPU : FEMINT_WHERE_OPENCL;
  b->team_size = cpu ? ctx->team_size[w] : 0;
  b->opencl_device = cpu ? -1 : starpu_worker_get_devid(w);
  b->failed = !cpu && !ctx->cl_driven[b->opencl_device];
  if (ctx->team_set[w]) hwloc_bitmap_list_snprintf(b->pus, sizeof b->pus, ctx->team_set[w]);
  if (ctx->bound_set[w]) hwloc_bitmap_list_snprintf(b->bound, sizeof b->bound, ctx->bound_set[w]);
  return 0;
}

int femint_context_cpuset(femint_context_t ctx, char *buf, size_t len, int *ncores)
{
  FEMINT_CHECK(ctx, NULL, FEMINT_EINVAL, "femint_context_cpuset: NULL context");
  FEMINT_CHECK(!buf || len > 0, ctx, FEMINT_EINVAL, "femint_context_cpuset: empty buffer");
  if (buf) hwloc_bitmap_list_snprintf(buf, len, ctx->cpuset);
  if (ncores) *ncores = ctx->cores;
  return 0;
}

int femint_context_local_rank(femint_context_t ctx, int *rank, const char **source)
{
  FEMINT_CHECK(ctx, NULL, FEMINT_EINVAL, "femint_context_local_rank: NULL context");
  if (rank) *rank = ctx->local_rank;
  if (source) *source = ctx->local_rank < 0 ? NULL : ctx->local_rank_source;
  return 0;
}

