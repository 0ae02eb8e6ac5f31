/* The runtime of a femint context: StarPU started with the node's cores divided by hwloc (one core
 * per OpenCL device's driver worker, the rest in groups, each group one CPU worker running an
 * OpenMP team), the OpenCL devices' properties, built programs, and the reference elements. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "scheduler.h"

double femint_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* OpenCL devices that StarPU will drive: GPUs and accelerators, and CPUs with
 * STARPU_OPENCL_ON_CPUS=1; at most STARPU_NOPENCL / the requested number. */
static int count_opencl_devices(int requested)
{
  cl_uint nplat = 0;
  cl_platform_id plat[16];
  if (requested == 0 || clGetPlatformIDs(16, plat, &nplat) != CL_SUCCESS) return 0;
  const char *on_cpus = getenv("STARPU_OPENCL_ON_CPUS");
  const char *only_cpus = getenv("STARPU_OPENCL_ONLY_ON_CPUS");
  cl_device_type type = CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR;
  if (on_cpus && atoi(on_cpus) > 0) type |= CL_DEVICE_TYPE_CPU;
  if (only_cpus && atoi(only_cpus) > 0) type = CL_DEVICE_TYPE_CPU;
  int n = 0;
  for (cl_uint p = 0; p < nplat && p < 16; p++) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(plat[p], type, 0, NULL, &nd) == CL_SUCCESS) n += nd;
  }
  const char *env = getenv("STARPU_NOPENCL");
  if (env && atoi(env) >= 0 && atoi(env) < n) n = atoi(env);
  if (requested > 0 && requested < n) n = requested;
  if (n > STARPU_MAXOPENCLDEVS) n = STARPU_MAXOPENCLDEVS;
  return n;
}

/* Cores (hwloc objects of type core, or PUs where there are no cores) in the process's cpuset. */
static int list_cores(hwloc_topology_t topo, hwloc_obj_t *cores, int max)
{
  hwloc_cpuset_t allowed = hwloc_bitmap_alloc();
  if (hwloc_get_cpubind(topo, allowed, HWLOC_CPUBIND_PROCESS) != 0)
    hwloc_bitmap_copy(allowed, hwloc_topology_get_allowed_cpuset(topo));
  hwloc_obj_type_t type =
      hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  int n = 0;
  for (hwloc_obj_t o = hwloc_get_next_obj_by_type(topo, type, NULL); o && n < max;
       o = hwloc_get_next_obj_by_type(topo, type, o))
    if (hwloc_bitmap_intersects(o->cpuset, allowed)) cores[n++] = o;
  hwloc_bitmap_free(allowed);
  return n;
}

/* Divide the cores left by the OpenCL driver workers into one contiguous group per CPU worker. */
static void divide_cores(femint_context_t ctx, hwloc_obj_t *cores, int ncores)
{
  int rest = ncores - ctx->nopencl;
  if (rest < ctx->ncpu) rest = ctx->ncpu < ncores ? ncores : ctx->ncpu;
  if (rest > ncores) rest = ncores;
  int k = 0, first = 0;
  for (int w = 0; w < ctx->nworker; w++) {
    if (starpu_worker_get_type(w) != STARPU_CPU_WORKER) continue;
    int size = rest / ctx->ncpu + (k < rest % ctx->ncpu);
    if (size < 1) size = 1;
    ctx->team_size[w] = size;
    ctx->team_set[w] = hwloc_bitmap_alloc();
    for (int i = 0; i < size; i++)
      hwloc_bitmap_or(ctx->team_set[w], ctx->team_set[w], cores[(first + i) % ncores]->cpuset);
    first += size;
    k++;
  }
}

int femint_init(const struct femint_init_options *opt, femint_context_t *out)
{
  static const struct femint_init_options defaults = {0, -1, 0};
  FEMINT_CHECK(out, NULL, FEMINT_EINVAL, "femint_init: the output pointer is NULL");
  *out = NULL;
  if (!opt) opt = &defaults;
  femint_context_t ctx = calloc(1, sizeof *ctx);
  if (!ctx) return femint_seterr(NULL, FEMINT_ENOMEM, "femint_init: out of memory");
  pthread_mutex_init(&ctx->lock, NULL);
  if (hwloc_topology_init(&ctx->topo) || hwloc_topology_load(ctx->topo)) {
    free(ctx);
    return femint_seterr(NULL, FEMINT_ERUNTIME, "femint_init: hwloc cannot read the topology");
  }
  hwloc_obj_t cores[1024];
  int ncores = list_cores(ctx->topo, cores, 1024);
  if (ncores < 1) ncores = 1;
  ctx->cores = ncores;

  struct starpu_conf conf;
  starpu_conf_init(&conf);
  int nopencl = count_opencl_devices(opt->nopencl);
  if (!getenv("STARPU_NOPENCL")) conf.nopencl = nopencl;
  if (!getenv("STARPU_NCPU") && !getenv("STARPU_NCPUS")) {
    int n = opt->ncpu_workers > 0 ? opt->ncpu_workers : ncores - nopencl;
    if (n < 1) n = 1;
    if (n > STARPU_MAXCPUS) n = STARPU_MAXCPUS;
    conf.ncpus = n;
  }
  if (!getenv("STARPU_SCHED")) conf.sched_policy_name = "dmda";
  /* StarPU calibrates the bus on first use; it must not stop at a missing model. */
  if (opt->quiet && !getenv("STARPU_SILENT")) setenv("STARPU_SILENT", "1", 0);
  int ret = starpu_init(&conf);
  if (ret != 0) {
    hwloc_topology_destroy(ctx->topo);
    free(ctx);
    return femint_seterr(NULL, FEMINT_ERUNTIME, "femint_init: starpu_init failed (%d)", ret);
  }
  starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
  ctx->nworker = starpu_worker_get_count();
  ctx->ncpu = starpu_cpu_worker_get_count();
  ctx->nopencl = starpu_opencl_worker_get_count();
  if (ctx->ncpu > 0) divide_cores(ctx, cores, ncores);
  for (int w = 0; w < ctx->nworker; w++) {
    if (starpu_worker_get_type(w) != STARPU_OPENCL_WORKER) continue;
    int dev = starpu_worker_get_devid(w);
    if (dev < 0 || dev >= FEMINT_MAX_CL_DEVICES) continue;
    cl_device_id id;
    starpu_opencl_get_device(dev, &id);
    femint_cl_device_query(id, &ctx->cl_dev[dev]);
    if (dev + 1 > ctx->ncl_dev) ctx->ncl_dev = dev + 1;
  }
  *out = ctx;
  return 0;
}

int femint_finalize(femint_context_t *pctx)
{
  if (!pctx || !*pctx) return 0;
  femint_context_t ctx = *pctx;
  starpu_task_wait_for_all();
  femint_host_release_all(ctx);
  for (int p = 0; p <= FEMINT_MAX_ORDER; p++) {
    for (int k = 0; k < 2; k++)
      if (ctx->phi_handle[p][k]) starpu_data_unregister(ctx->phi_handle[p][k]);
    for (int k = 0; k < 2; k++) {
      if (ctx->quad_handle[p][k]) starpu_data_unregister(ctx->quad_handle[p][k]);
      free(ctx->quad[p][k]);
    }
    refel_destroy(&ctx->refel[p]);
  }
  for (struct cl_program_entry *e = ctx->programs, *next; e; e = next) {
    next = e->next;
    if (e->kernel) clReleaseKernel(e->kernel);
    if (e->program) clReleaseProgram(e->program);
    free(e->key);
    free(e);
  }
  starpu_shutdown();
  for (int w = 0; w < STARPU_NMAXWORKERS; w++)
    if (ctx->team_set[w]) hwloc_bitmap_free(ctx->team_set[w]);
  hwloc_topology_destroy(ctx->topo);
  pthread_mutex_destroy(&ctx->lock);
  free(ctx);
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

int femint_refel_info(int shape, int order, struct femint_refel_info *info)
{
  FEMINT_CHECK(shape == FEMINT_PRISM, NULL, FEMINT_ENOTSUP,
               "refel: element shape %d is not supported (only the prism)", shape);
  FEMINT_CHECK(order >= 1 && order <= FEMINT_MAX_ORDER, NULL, FEMINT_EORDER,
               "refel: order %d is outside 1..%d", order, FEMINT_MAX_ORDER);
  FEMINT_CHECK(info, NULL, FEMINT_EINVAL, "refel: NULL output");
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

int femint_context_refel(femint_context_t ctx, int order, const struct refel **re)
{
  FEMINT_CHECK(order >= 1 && order <= FEMINT_MAX_ORDER, ctx, FEMINT_EORDER,
               "order %d is outside 1..%d", order, FEMINT_MAX_ORDER);
  int err = 0;
  pthread_mutex_lock(&ctx->lock);
  if (!ctx->refel[order]) err = refel_prism_create(order, &ctx->refel[order]);
  pthread_mutex_unlock(&ctx->lock);
  if (err) return femint_seterr(ctx, err, "%s", femint_thread_error());
  *re = ctx->refel[order];
  return 0;
}

int femint_context_phi(femint_context_t ctx, int order, int precision, starpu_data_handle_t *h)
{
  const struct refel *re;
  FEMINT_CALL(femint_context_refel(ctx, order, &re));
  int k = precision == FEMINT_SINGLE;
  pthread_mutex_lock(&ctx->lock);
  if (!ctx->phi_handle[order][k]) {
    size_t n = (size_t)re->nq * 4 * re->nsh;
    if (k)
      starpu_vector_data_register(&ctx->phi_handle[order][k], STARPU_MAIN_RAM,
                                  (uintptr_t)re->phi_f, n, sizeof(float));
    else
      starpu_vector_data_register(&ctx->phi_handle[order][k], STARPU_MAIN_RAM,
                                  (uintptr_t)re->phi, n, sizeof(double));
  }
  *h = ctx->phi_handle[order][k];
  pthread_mutex_unlock(&ctx->lock);
  return 0;
}

int femint_context_quad(femint_context_t ctx, int order, int precision, starpu_data_handle_t *h)
{
  const struct refel *re;
  FEMINT_CALL(femint_context_refel(ctx, order, &re));
  const int k = precision == FEMINT_SINGLE;
  int err = 0;
  pthread_mutex_lock(&ctx->lock);
  if (!ctx->quad_handle[order][k]) {
    size_t rs = k ? sizeof(float) : sizeof(double);
    void *q = malloc((size_t)re->nq * 4 * rs);
    if (!q) {
      err = FEMINT_ENOMEM;
    } else {
      for (int i = 0; i < re->nq; i++)
        for (int c = 0; c < 4; c++) {
          double v = c < 3 ? re->xq[3 * i + c] : re->wq[i];
          if (k) ((float *)q)[4 * i + c] = (float)v;
          else ((double *)q)[4 * i + c] = v;
        }
      ctx->quad[order][k] = q;
      starpu_vector_data_register(&ctx->quad_handle[order][k], STARPU_MAIN_RAM, (uintptr_t)q,
                                  (uint32_t)re->nq * 4, rs);
    }
  }
  *h = ctx->quad_handle[order][k];
  pthread_mutex_unlock(&ctx->lock);
  return err ? femint_seterr(ctx, err, "quadrature of order %d: out of memory", order) : 0;
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
