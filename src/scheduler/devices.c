/* The OpenCL devices of a context: their properties for the codelets, the first one driven, and
 * the cache of built programs (one per device, kernel and options). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
