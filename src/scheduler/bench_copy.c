/* femint_bench_copy: the empirical roofline of the matrix-free path, the rate at which a device
 * (or the CPU workers) copies a buffer into another, bytes read plus bytes written per second. */
#include <stdlib.h>
#include <string.h>

#include "codelets/vector_ops.h"
#include "scheduler.h"

#define COPY_RUNS 5

static int cmp_double(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double femint_median(double *t, int n)
{
  qsort(t, (size_t)n, sizeof *t, cmp_double);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* The CPU: one copy task per CPU worker (its OpenMP team), on its share of the bytes, all at
 * once; the pages placed by a first copy. */
static int copy_cpu(femint_context_t ctx, size_t bytes, double *t)
{
  const int nw = ctx->ncpu;
  FEMINT_CHECK(nw > 0, ctx, FEMINT_ENODEV, "femint_bench_copy: no CPU worker");
  char *a = malloc(bytes), *b = malloc(bytes);
  starpu_data_handle_t *h = calloc(2 * (size_t)nw, sizeof *h);
  struct vec_arg *args = calloc((size_t)nw, sizeof *args);
  int err = a && b && h && args ? 0 : femint_seterr(ctx, FEMINT_ENOMEM,
                                                    "femint_bench_copy: out of memory for 2 x %zu bytes", bytes);
  const size_t share = (bytes / (size_t)nw) & ~(size_t)7;
  for (int w = 0; w < nw && !err; w++) {
    const size_t lo = (size_t)w * share, n = w == nw - 1 ? bytes - lo : share;
    memset(a + lo, 1, n);
    starpu_vector_data_register(&h[2 * w], STARPU_MAIN_RAM, (uintptr_t)(a + lo), (uint32_t)n, 1);
    starpu_vector_data_register(&h[2 * w + 1], STARPU_MAIN_RAM, (uintptr_t)(b + lo), (uint32_t)n, 1);
    args[w] = (struct vec_arg){.ctx = ctx, .op = VEC_COPY, .n = (int64_t)n};
  }
  for (int r = -1; r < COPY_RUNS && !err; r++) { /* the first one places the pages */
    struct starpu_task *tasks[STARPU_NMAXWORKERS] = {0};
    const double t0 = femint_now();
    for (int w = 0, k = 0; w < ctx->nworker && k < nw && !err; w++) {
      if (starpu_worker_get_type(w) != STARPU_CPU_WORKER) continue;
      struct starpu_task *task = starpu_task_create();
      task->cl = &femint_cl_vec;
      task->cl_arg = &args[k];
      task->nbuffers = 2;
      task->handles[0] = h[2 * k];
      task->handles[1] = h[2 * k + 1];
      task->modes[0] = STARPU_R;
      task->modes[1] = STARPU_W;
      task->execute_on_a_specific_worker = 1;
      task->workerid = (unsigned)w;
      task->detach = 0;
      task->destroy = 0;
      if (starpu_task_submit(task)) {
        starpu_task_destroy(task);
        err = femint_seterr(ctx, FEMINT_ERUNTIME, "femint_bench_copy: a copy task was refused");
      } else {
        tasks[k++] = task;
      }
    }
    for (int k = 0; k < nw; k++)
      if (tasks[k]) {
        if (starpu_task_wait(tasks[k]) && !err)
          err = femint_seterr(ctx, FEMINT_ERUNTIME, "femint_bench_copy: a copy task failed");
        starpu_task_destroy(tasks[k]);
      }
    if (r >= 0) t[r] = femint_now() - t0;
  }
  for (int i = 0; h && i < 2 * nw; i++)
    if (h[i]) starpu_data_unregister(h[i]);
  free(h);
  free(args);
  free(a);
  free(b);
  return err;
}

/* An OpenCL device: clEnqueueCopyBuffer timed by its events. */
static int copy_device(femint_context_t ctx, int dev, size_t bytes, double *t)
{
  cl_context clctx;
  cl_device_id id;
  starpu_opencl_get_context(dev, &clctx);
  starpu_opencl_get_device(dev, &id);
  cl_int err = CL_SUCCESS;
  cl_command_queue q = clCreateCommandQueue(clctx, id, CL_QUEUE_PROFILING_ENABLE, &err);
  cl_mem a = NULL, b = NULL;
  if (err == CL_SUCCESS) a = clCreateBuffer(clctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (err == CL_SUCCESS) b = clCreateBuffer(clctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
  const char one = 1;
  if (err == CL_SUCCESS) err = clEnqueueFillBuffer(q, a, &one, 1, 0, bytes, 0, NULL, NULL);
  for (int r = -1; r < COPY_RUNS && err == CL_SUCCESS; r++) { /* the first one warms up */
    cl_event ev;
    err = clEnqueueCopyBuffer(q, a, b, 0, 0, bytes, 0, NULL, &ev);
    if (err == CL_SUCCESS) err = clWaitForEvents(1, &ev);
    if (err == CL_SUCCESS && r >= 0) {
      cl_ulong s = 0, e = 0;
      clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof s, &s, NULL);
      clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof e, &e, NULL);
      t[r] = 1e-9 * (double)(e - s);
    }
    if (err == CL_SUCCESS) clReleaseEvent(ev);
  }
  if (a) clReleaseMemObject(a);
  if (b) clReleaseMemObject(b);
  if (q) clReleaseCommandQueue(q);
  if (err != CL_SUCCESS)
    return femint_seterr(ctx, FEMINT_EOPENCL,
                         "femint_bench_copy: copying %zu bytes on OpenCL device %d failed (%d)",
                         bytes, dev, err);
  return 0;
}

int femint_bench_copy(femint_context_t ctx, int device, size_t bytes, double *rate)
{
  FEMINT_CHECK(ctx && rate, ctx, FEMINT_EINVAL, "femint_bench_copy: ctx or rate is NULL");
  FEMINT_CHECK(bytes >= 1024, ctx, FEMINT_EINVAL, "femint_bench_copy: %zu bytes (at least 1024)",
               bytes);
  FEMINT_CHECK(device >= -1 && device < ctx->ncl_dev && (device < 0 || ctx->cl_driven[device]), ctx,
               FEMINT_EINVAL, "femint_bench_copy: device %d (-1: the CPU cores; else one of the %d "
               "OpenCL devices a worker drives)", device, ctx->ncl_dev);
  if (device >= 0)
    FEMINT_CHECK(bytes <= ctx->cl_dev[device].max_alloc && 2 * bytes < ctx->cl_dev[device].global_mem,
                 ctx, FEMINT_EINVAL,
                 "femint_bench_copy: %zu bytes do not fit twice on OpenCL device %d", bytes, device);
  double t[COPY_RUNS];
  FEMINT_CALL(device < 0 ? copy_cpu(ctx, bytes, t) : copy_device(ctx, device, bytes, t));
  const double tm = femint_median(t, COPY_RUNS);
  *rate = tm > 0 ? 2.0 * (double)bytes / tm : 0;
  return 0;
}
