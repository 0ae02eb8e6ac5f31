/* The OpenCL devices of a context: their properties for the codelets, the first one driven, and
 * the cache of built programs (one per device, kernel and options). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "scheduler.h"

const struct femint_cl_device *femint_cl_dev(femint_context_t ctx, int dev)
{
  return &ctx->cl_dev[dev];
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
  /* a program is the same for the same device, kernel, options and source text (the text is
   * the caller's for a pointwise form, or an edited copy under FEMINT_KERNEL_DIR) */
  size_t klen = strlen(kernel_name) + strlen(options) + 48;
  char *key = malloc(klen);
  FEMINT_CHECK(key, ctx, FEMINT_ENOMEM, "out of memory");
  snprintf(key, klen, "%d|%s|%s|%016llx", dev, kernel_name, options,
           (unsigned long long)hash_bytes(HASH_START, source, strlen(source)));
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
  int err = program_cache_build(ctx, clctx, id, source, options, &e->program, &e->cached);
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

void devices_release(femint_context_t ctx)
{
  for (struct cl_program_entry *e = ctx->programs, *next; e; e = next) {
    next = e->next;
    if (e->kernel) clReleaseKernel(e->kernel);
    if (e->program) clReleaseProgram(e->program);
    free(e->key);
    free(e);
  }
  ctx->programs = NULL;
}

int devices_env(femint_context_t ctx)
{
  ctx->fault_dev = -1;
  const char *dir = getenv("FEMINT_KERNEL_DIR");
  struct stat st;
  FEMINT_CHECK(!dir || !*dir || (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)), NULL,
               FEMINT_EINVAL,
               "femint_init: FEMINT_KERNEL_DIR='%s' is not a folder (it holds edited copies of "
               "the kernels/*.cl files; unset it to use the built-in kernels)",
               dir);
  const char *mem = getenv("FEMINT_DEVICE_MEMORY");
  if (mem && *mem) {
    char *e;
    const double bytes = strtod(mem, &e);
    FEMINT_CHECK(!*e && bytes >= 1 && bytes < 1e18, NULL, FEMINT_EINVAL,
                 "femint_init: FEMINT_DEVICE_MEMORY='%s' is not a number of bytes (1 or more)",
                 mem);
    ctx->device_memory = bytes;
  }
  const char *fault = getenv("FEMINT_FAULT_DEVICE");
  if (!fault || !*fault) return 0;
  char *end;
  const long dev = strtol(fault, &end, 10);
  FEMINT_CHECK(!*end && dev >= 0 && dev < FEMINT_MAX_CL_DEVICES, NULL, FEMINT_EINVAL,
               "femint_init: FEMINT_FAULT_DEVICE='%s' is not an OpenCL device number (0..%d)",
               fault, FEMINT_MAX_CL_DEVICES - 1);
  ctx->fault_dev = (int)dev;
  return 0;
}

cl_int femint_cl_outcome(femint_context_t ctx, int dev, cl_int err)
{
  if (err == CL_SUCCESS && dev == ctx->fault_dev) err = CL_OUT_OF_RESOURCES;
  if (err != CL_SUCCESS) __atomic_store_n(&ctx->cl_failed[dev], 1, __ATOMIC_RELAXED);
  return err;
}

int femint_cl_status(femint_context_t ctx, int dev, int err)
{
  if (!err && femint_cl_outcome(ctx, dev, CL_SUCCESS) != CL_SUCCESS)
    err = femint_seterr(NULL, FEMINT_EOPENCL, "the launch failed (FEMINT_FAULT_DEVICE=%d)", dev);
  else if (err)
    femint_cl_outcome(ctx, dev, CL_OUT_OF_RESOURCES);
  return err;
}

int devices_leave_out(femint_context_t ctx, const char *who, const char *why)
{
  int lost = 0;
  for (int dev = 0; dev < ctx->ncl_dev; dev++) {
    if (!__atomic_load_n(&ctx->cl_failed[dev], __ATOMIC_RELAXED) || !ctx->cl_driven[dev])
      continue;
    ctx->cl_driven[dev] = 0;
    lost++;
    fprintf(stderr,
            "femint: warning: %s: OpenCL device %d (%s) failed (%s); it takes no more work in "
            "this process\n",
            who, dev, ctx->cl_dev[dev].name, why);
  }
  if (!lost) return 0;
  ctx->nlost += lost;
  memset(ctx->alive, 0, sizeof ctx->alive);
  for (int w = 0; w < ctx->nworker; w++)
    if (starpu_worker_get_type(w) == STARPU_CPU_WORKER ||
        ctx->cl_driven[starpu_worker_get_devid(w)])
      ctx->alive[w / 32] |= UINT32_C(1) << (w % 32);
  return lost;
}

void devices_restrict(femint_context_t ctx, struct starpu_task *t)
{
  if (!ctx->nlost) return;
  if (!t->workerids_len) {
    t->workerids = ctx->alive;
    t->workerids_len = (unsigned)(ctx->nworker + 31) / 32;
    return;
  }
  for (unsigned i = 0; i < t->workerids_len; i++) t->workerids[i] &= ctx->alive[i];
}
