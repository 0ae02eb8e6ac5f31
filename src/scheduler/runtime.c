/* The runtime of a femint context: StarPU started with the node's cores divided by hwloc (one core
 * per OpenCL device's driver worker, the rest in groups, each group one CPU worker running an
 * OpenMP team), the OpenCL devices' properties, built programs, and the reference elements. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "host/refel_quad.h"
#include "host/refel_tet.h"
#include "scheduler.h"

double femint_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

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

/* The process's cpuset: its binding, within the PUs the system lets it use. */
static void process_cpuset(hwloc_topology_t topo, hwloc_cpuset_t set)
{
  hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(topo);
  if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) != 0) hwloc_bitmap_copy(set, allowed);
  else hwloc_bitmap_and(set, set, allowed);
}

/* The cores (PUs where hwloc finds no cores) that hold PUs of set, each cut down to set. */
static int list_cores(hwloc_topology_t topo, hwloc_const_cpuset_t set, hwloc_cpuset_t *cores,
                      int max)
{
  hwloc_obj_type_t type =
      hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  int n = 0;
  for (hwloc_obj_t o = hwloc_get_next_obj_by_type(topo, type, NULL); o && n < max;
       o = hwloc_get_next_obj_by_type(topo, type, o))
    if (hwloc_bitmap_intersects(o->cpuset, set)) {
      cores[n] = hwloc_bitmap_alloc();
      hwloc_bitmap_and(cores[n++], o->cpuset, set);
    }
  return n;
}

/* How the cores are shared: a group of cores per CPU worker, a core per OpenCL driver. */
struct division {
  int ncpu, nopencl;
  hwloc_cpuset_t group[STARPU_NMAXWORKERS];
  int group_size[STARPU_NMAXWORKERS];
  hwloc_cpuset_t driver[STARPU_NMAXWORKERS];
  int taken[STARPU_NMAXWORKERS]; /* a group (then a driver core) given to a worker */
};

/* The drivers take the last cores, one each; the CPU workers divide the others into contiguous
 * groups whose sizes differ by one at most. With no more cores than drivers, the drivers share
 * the cores round robin and the CPU workers have them all; with more CPU workers than cores
 * (STARPU_NCPU), groups of one core go round. */
static void divide_cores(hwloc_cpuset_t *cores, int ncores, int ncpu, int nopencl,
                         struct division *d)
{
  int ncpu_cores = ncores > nopencl ? ncores - nopencl : ncores;
  d->ncpu = ncpu;
  d->nopencl = nopencl;
  for (int j = 0; j < nopencl; j++)
    d->driver[j] = hwloc_bitmap_dup(
        cores[ncores > nopencl ? ncpu_cores + j : ncores - 1 - j % ncores]);
  for (int k = 0, first = 0; k < ncpu; k++) {
    int size = ncpu_cores / ncpu + (k < ncpu_cores % ncpu);
    if (size < 1) size = 1;
    d->group_size[k] = size;
    d->group[k] = hwloc_bitmap_alloc();
    for (int i = 0; i < size; i++)
      hwloc_bitmap_or(d->group[k], d->group[k], cores[(first + i) % ncpu_cores]);
    first += size;
  }
  memset(d->taken, 0, sizeof d->taken);
}

static void division_free(struct division *d)
{
  for (int k = 0; k < d->ncpu; k++) hwloc_bitmap_free(d->group[k]);
  for (int j = 0; j < d->nopencl; j++) hwloc_bitmap_free(d->driver[j]);
  d->ncpu = d->nopencl = 0;
}

/* StarPU's number of a PU: its logical index in the topology (StarPU loads the same one). */
static unsigned bindid_of(hwloc_topology_t topo, hwloc_const_cpuset_t set)
{
  hwloc_obj_t pu = hwloc_get_next_obj_inside_cpuset_by_type(topo, set, HWLOC_OBJ_PU, NULL);
  return pu ? pu->logical_index : 0;
}

/* StarPU 1.3 takes the entries of workers_bindid in turn, CPU workers first, then the OpenCL
 * drivers: every entry is a PU of the cpuset, so no worker is bound outside it. */
static void set_bindids(hwloc_topology_t topo, const struct division *d, struct starpu_conf *conf)
{
  int n = 0;
  for (int k = 0; k < d->ncpu; k++) conf->workers_bindid[n++] = bindid_of(topo, d->group[k]);
  for (int j = 0; j < d->nopencl && n < STARPU_NMAXWORKERS; j++)
    conf->workers_bindid[n++] = bindid_of(topo, d->driver[j]);
  for (int i = n; i < STARPU_NMAXWORKERS; i++)
    conf->workers_bindid[i] = conf->workers_bindid[i % n];
  conf->use_explicit_workers_bindid = 1;
}

/* The group (CPU worker) or driver core (OpenCL worker) of worker w: the one StarPU bound it to,
 * or else the next one not given yet; -1 when there is none. */
static int take_set(hwloc_topology_t topo, struct division *d, int w, int cpu)
{
  int n = cpu ? d->ncpu : d->nopencl, base = cpu ? 0 : d->ncpu, pick = -1;
  hwloc_cpuset_t *sets = cpu ? d->group : d->driver;
  int bindid = starpu_worker_get_bindid(w);
  for (int i = 0; i < n && pick < 0; i++)
    if (!d->taken[base + i] && bindid >= 0 && bindid_of(topo, sets[i]) == (unsigned)bindid)
      pick = i;
  for (int i = 0; i < n && pick < 0; i++)
    if (!d->taken[base + i]) pick = i;
  if (pick >= 0) d->taken[base + pick] = 1;
  return pick;
}

/* Whether the user set StarPU's own binding (femint then leaves it to StarPU). */
static int starpu_binds_itself(void)
{
  static const char *const vars[] = {"STARPU_WORKERS_CPUID", "STARPU_WORKERS_COREID",
                                     "STARPU_WORKERS_GETBIND", "STARPU_WORKERS_NOBIND", NULL};
  for (int i = 0; vars[i]; i++)
    if (getenv(vars[i])) return 1;
  return 0;
}

/* Run on every worker once StarPU has started: binds an OpenCL driver to its core and the
 * threads of a CPU worker's team to theirs, then reads where each thread is bound. */
static void bind_worker(void *arg)
{
  femint_context_t ctx = arg;
  int w = starpu_worker_get_id(), ok = 1;
  hwloc_cpuset_t bound = hwloc_bitmap_alloc();
  if (starpu_worker_get_type(w) == STARPU_CPU_WORKER) {
#pragma omp parallel num_threads(ctx->team_size[w] > 0 ? ctx->team_size[w] : 1)
    {
      hwloc_cpuset_t mine = hwloc_bitmap_alloc();
      femint_team_bind_thread(ctx, w, omp_get_thread_num());
      int r = hwloc_get_cpubind(ctx->topo, mine, HWLOC_CPUBIND_THREAD);
#pragma omp critical(femint_bind_worker)
      {
        if (r != 0) ok = 0;
        else hwloc_bitmap_or(bound, bound, mine);
      }
      hwloc_bitmap_free(mine);
    }
  } else {
    if (ctx->team_set[w] && !starpu_binds_itself())
      hwloc_set_cpubind(ctx->topo, ctx->team_set[w], HWLOC_CPUBIND_THREAD);
    ok = hwloc_get_cpubind(ctx->topo, bound, HWLOC_CPUBIND_THREAD) == 0;
  }
  if (ok) ctx->bound_set[w] = bound;
  else hwloc_bitmap_free(bound);
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
  pthread_mutex_destroy(&ctx->lock);
  free(ctx);
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
  int err = 0, ncores = 0;
  if (!ctx || !cores) {
    free(ctx);
    free(cores);
    return femint_seterr(NULL, FEMINT_ENOMEM, "femint_init: out of memory");
  }
  pthread_mutex_init(&ctx->lock, NULL);
  ctx->local_rank = -1;
  if (hwloc_topology_init(&ctx->topo) || hwloc_topology_load(ctx->topo)) {
    err = femint_seterr(NULL, FEMINT_ERUNTIME, "femint_init: hwloc cannot read the topology");
    goto fail;
  }
  ctx->cpuset = hwloc_bitmap_alloc();
  process_cpuset(ctx->topo, ctx->cpuset);
  ncores = list_cores(ctx->topo, ctx->cpuset, cores, MAX_CORES);
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
  divide_cores(cores, ncores, ncpu, nopencl, &d);
  if (!starpu_binds_itself() && ncpu + nopencl > 0) set_bindids(ctx->topo, &d, &conf);
  if (!getenv("STARPU_SCHED")) conf.sched_policy_name = "dmda";
  /* StarPU calibrates the bus on first use; it must not stop at a missing model. */
  if (opt->quiet && !getenv("STARPU_SILENT")) setenv("STARPU_SILENT", "1", 0);
  int ret = starpu_init(&conf);
  if (ret != 0) {
    err = femint_seterr(NULL, FEMINT_ERUNTIME, "femint_init: starpu_init failed (%d)", ret);
    goto fail;
  }
  starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
  ctx->nworker = starpu_worker_get_count();
  ctx->ncpu = starpu_cpu_worker_get_count();
  ctx->nopencl = starpu_opencl_worker_get_count();
  if (ctx->ncpu != d.ncpu || ctx->nopencl != d.nopencl) { /* StarPU made other numbers */
    division_free(&d);
    divide_cores(cores, ncores, ctx->ncpu, ctx->nopencl, &d);
  }
  for (int w = 0; w < ctx->nworker && w < STARPU_NMAXWORKERS; w++) {
    int cpu = starpu_worker_get_type(w) == STARPU_CPU_WORKER;
    if (!cpu && starpu_worker_get_type(w) != STARPU_OPENCL_WORKER) continue;
    int dev = cpu ? -1 : starpu_worker_get_devid(w);
    if (dev >= 0 && dev < FEMINT_MAX_CL_DEVICES) {
      ctx->cl_driven[dev] = 1;
      if (dev + 1 > ctx->ncl_dev) ctx->ncl_dev = dev + 1;
    }
    int k = take_set(ctx->topo, &d, w, cpu);
    if (k < 0) continue;
    ctx->team_set[w] = hwloc_bitmap_dup(cpu ? d.group[k] : d.driver[k]);
    if (cpu) ctx->team_size[w] = d.group_size[k];
  }
  /* The devices below the last one driven are known too: femint numbers devices as StarPU
   * does, and code that loops over them finds each one's properties. */
  for (int dev = 0; dev < ctx->ncl_dev; dev++) {
    cl_device_id id;
    starpu_opencl_get_device(dev, &id);
    femint_cl_device_query(id, &ctx->cl_dev[dev]);
  }
  starpu_execute_on_each_worker_ex(bind_worker, ctx, STARPU_CPU | STARPU_OPENCL,
                                   "femint_bind_worker");
  division_free(&d);
  for (int i = 0; i < ncores; i++) hwloc_bitmap_free(cores[i]);
  free(cores);
  *out = ctx;
  return 0;
fail:
  division_free(&d);
  for (int i = 0; i < ncores; i++) hwloc_bitmap_free(cores[i]);
  free(cores);
  context_free(ctx);
  return err;
}

int femint_finalize(femint_context_t *pctx)
{
  if (!pctx || !*pctx) return 0;
  femint_context_t ctx = *pctx;
  starpu_task_wait_for_all();
  femint_host_release_all(ctx);
  for (int sh = 0; sh < FEMINT_NSHAPE; sh++)
    for (int p = 0; p <= FEMINT_MAX_ORDER; p++) {
      for (int k = 0; k < 2; k++)
        if (ctx->phi_handle[sh][p][k]) starpu_data_unregister(ctx->phi_handle[sh][p][k]);
      for (int k = 0; k < 2; k++) {
        if (ctx->quad_handle[sh][p][k]) starpu_data_unregister(ctx->quad_handle[sh][p][k]);
        free(ctx->quad[sh][p][k]);
      }
      refel_destroy(&ctx->refel[sh][p]);
    }
  for (struct cl_program_entry *e = ctx->programs, *next; e; e = next) {
    next = e->next;
    if (e->kernel) clReleaseKernel(e->kernel);
    if (e->program) clReleaseProgram(e->program);
    free(e->key);
    free(e);
  }
  starpu_shutdown();
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

int femint_refel_info(int shape, int order, struct femint_refel_info *info)
{
  FEMINT_CHECK(shape == FEMINT_PRISM || shape == FEMINT_QUAD || shape == FEMINT_TET, NULL,
               FEMINT_ENOTSUP, "refel: element shape %d is not supported (prism %d, quad %d, tet %d)",
               shape, FEMINT_PRISM, FEMINT_QUAD, FEMINT_TET);
  const int pmax = shape == FEMINT_TET ? TET_MAX_ORDER : FEMINT_MAX_ORDER;
  FEMINT_CHECK(order >= 1 && order <= pmax, NULL, FEMINT_EORDER, "refel: order %d is outside 1..%d",
               order, pmax);
  FEMINT_CHECK(info, NULL, FEMINT_EINVAL, "refel: NULL output");
  if (shape == FEMINT_TET) {
    struct refel_tet *re = NULL;
    FEMINT_CALL(refel_tet_create(order, &re));
    *info = (struct femint_refel_info){re->nsh, re->nq, re->degree, 0, 0};
    refel_tet_destroy(&re);
    return 0;
  }
  if (shape == FEMINT_QUAD) { /* seed 003: (p+1)^2 Gauss points, exact to 2p+1 per variable */
    info->nsh = refel_quad_nsh(order);
    info->tri_points = 0;
    info->line_points = order + 1;
    info->nq = (order + 1) * (order + 1);
    info->degree = 2 * order + 1;
    return 0;
  }
  int ntri;
  const double *xy, *w;
  FEMINT_CALL(quad_triangle(2 * order, &ntri, &xy, &w));
  info->nsh = refel_prism_nsh(order);
  info->tri_points = ntri;
  info->line_points = order + 1;
  info->nq = ntri * (order + 1);
  info->degree = 2 * order;
  return 0;
}

int femint_context_refel(femint_context_t ctx, int shape, int order, const struct refel **re)
{
  FEMINT_CHECK(shape == FEMINT_PRISM || shape == FEMINT_QUAD, ctx, FEMINT_EINVAL,
               "unknown element shape %d", shape);
  FEMINT_CHECK(order >= 1 && order <= FEMINT_MAX_ORDER, ctx, FEMINT_EORDER,
               "order %d is outside 1..%d", order, FEMINT_MAX_ORDER);
  int err = 0;
  pthread_mutex_lock(&ctx->lock);
  if (!ctx->refel[shape][order]) err = refel_create(shape, order, &ctx->refel[shape][order]);
  pthread_mutex_unlock(&ctx->lock);
  if (err) return femint_seterr(ctx, err, "%s", femint_thread_error());
  *re = ctx->refel[shape][order];
  return 0;
}

int femint_context_phi(femint_context_t ctx, int shape, int order, int precision,
                       starpu_data_handle_t *h)
{
  const struct refel *re;
  FEMINT_CALL(femint_context_refel(ctx, shape, order, &re));
  int k = precision == FEMINT_SINGLE;
  starpu_data_handle_t *slot = &ctx->phi_handle[shape][order][k];
  pthread_mutex_lock(&ctx->lock);
  if (!*slot) {
    size_t n = (size_t)re->nq * (re->dim + 1) * re->nsh;
    if (k)
      starpu_vector_data_register(slot, STARPU_MAIN_RAM, (uintptr_t)re->phi_f, n, sizeof(float));
    else
      starpu_vector_data_register(slot, STARPU_MAIN_RAM, (uintptr_t)re->phi, n, sizeof(double));
  }
  *h = *slot;
  pthread_mutex_unlock(&ctx->lock);
  return 0;
}

int femint_context_quad(femint_context_t ctx, int shape, int order, int precision,
                        starpu_data_handle_t *h)
{
  const struct refel *re;
  FEMINT_CALL(femint_context_refel(ctx, shape, order, &re));
  const int k = precision == FEMINT_SINGLE, dim = re->dim;
  int err = 0;
  starpu_data_handle_t *slot = &ctx->quad_handle[shape][order][k];
  pthread_mutex_lock(&ctx->lock);
  if (!*slot) {
    size_t rs = k ? sizeof(float) : sizeof(double);
    void *q = malloc((size_t)re->nq * 4 * rs);
    if (!q) {
      err = FEMINT_ENOMEM;
    } else {
      /* [nq][4]: the reference coordinates (zero past the dimension), then the weight */
      for (int i = 0; i < re->nq; i++)
        for (int c = 0; c < 4; c++) {
          double v = c == 3 ? re->wq[i] : c < dim ? re->xq[dim * i + c] : 0;
          if (k) ((float *)q)[4 * i + c] = (float)v;
          else ((double *)q)[4 * i + c] = v;
        }
      ctx->quad[shape][order][k] = q;
      starpu_vector_data_register(slot, STARPU_MAIN_RAM, (uintptr_t)q, (uint32_t)re->nq * 4, rs);
    }
  }
  *h = *slot;
  pthread_mutex_unlock(&ctx->lock);
  return err ? femint_seterr(ctx, err, "quadrature of order %d: out of memory", order) : 0;
}

int femint_context_first_device(femint_context_t ctx)
{
  for (int dev = 0; dev < ctx->ncl_dev; dev++)
    if (ctx->cl_driven[dev]) return dev;
  return -1;
}

int femint_context_program(femint_context_t ctx, int dev, const char *source, const char *options,
                           const char *kernel_name, struct cl_program_entry **entry)
{
  FEMINT_CHECK(dev >= 0 && dev < ctx->ncl_dev, ctx, FEMINT_EINVAL, "no OpenCL device %d", dev);
  size_t klen = strlen(kernel_name) + strlen(options) + 32;
  char *key = malloc(klen);
  FEMINT_CHECK(key, ctx, FEMINT_ENOMEM, "out of memory");
  snprintf(key, klen, "%d|%s|%s", dev, kernel_name, options);
  pthread_mutex_lock(&ctx->lock);
  struct cl_program_entry *e = ctx->programs;
  while (e && strcmp(e->key, key)) e = e->next;
  pthread_mutex_unlock(&ctx->lock);
  if (e) {
    free(key);
    *entry = e;
    return 0;
  }
  e = calloc(1, sizeof *e);
  if (!e) {
    free(key);
    return femint_seterr(ctx, FEMINT_ENOMEM, "out of memory");
  }
  e->key = key;
  if (!ctx->cl_driven[dev]) { /* no worker runs on it: an entry without a program */
    pthread_mutex_lock(&ctx->lock);
    e->next = ctx->programs;
    ctx->programs = e;
    pthread_mutex_unlock(&ctx->lock);
    *entry = e;
    return 0;
  }
  cl_context clctx;
  cl_device_id id;
  starpu_opencl_get_context(dev, &clctx);
  starpu_opencl_get_device(dev, &id);
  int err = femint_cl_build(clctx, id, source, options, &e->program);
  if (err) {
    femint_seterr(ctx, err, "OpenCL device %d (%s): %s", dev, ctx->cl_dev[dev].name,
                  femint_thread_error());
  } else {
    cl_int cerr;
    e->kernel = clCreateKernel(e->program, kernel_name, &cerr);
    if (cerr != CL_SUCCESS)
      err = femint_seterr(ctx, FEMINT_EOPENCL, "OpenCL device %d: clCreateKernel(%s) failed (%d)",
                          dev, kernel_name, cerr);
  }
  if (err) {
    if (e->program) clReleaseProgram(e->program);
    free(e->key);
    free(e);
    return err;
  }
  pthread_mutex_lock(&ctx->lock);
  e->next = ctx->programs;
  ctx->programs = e;
  pthread_mutex_unlock(&ctx->lock);
  *entry = e;
  return 0;
}

/* Each thread of a team is bound to one core of its worker's group, once. */
static _Thread_local int bound_worker = -1;

void femint_team_bind_thread(femint_context_t ctx, int workerid, int rank)
{
  if (bound_worker == workerid || !ctx->team_set[workerid] || getenv("STARPU_WORKERS_NOBIND"))
    return;
  hwloc_cpuset_t set = ctx->team_set[workerid];
  int n = hwloc_bitmap_weight(set), i = 0, id;
  hwloc_bitmap_t one = hwloc_bitmap_alloc();
  hwloc_bitmap_foreach_begin(id, set)
  {
    if (i++ == rank % n) hwloc_bitmap_only(one, id);
  }
  hwloc_bitmap_foreach_end();
  hwloc_set_cpubind(ctx->topo, one, HWLOC_CPUBIND_THREAD);
  hwloc_bitmap_free(one);
  bound_worker = workerid;
}

int femint_team_enter(femint_context_t ctx)
{
  int w = starpu_worker_get_id();
  if (w < 0 || w >= STARPU_NMAXWORKERS || ctx->team_size[w] < 1) return 1;
  return ctx->team_size[w];
}
