/* Host buffers that cross the bus at the pinned rate. StarPU 1.3 pins memory for CUDA only, so for
 * an OpenCL GPU femint obtains host memory by mapping OpenCL buffers created with
 * CL_MEM_ALLOC_HOST_PTR, which GPU drivers back with page-locked memory. Freed buffers are kept
 * for reuse; without a GPU the memory comes from malloc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host/sparse.h"
#include "scheduler.h"

double femint_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

struct hostmem_block {
  void *ptr;
  size_t bytes;
  cl_mem mem; /* NULL: from malloc */
  int in_use;
  struct hostmem_block *next;
};

/* The OpenCL context and queue that own the pinned buffers: those of the first GPU driven. */
static int pinned_device(femint_context_t ctx)
{
  for (int d = 0; d < ctx->ncl_dev; d++)
    if (ctx->cl_driven[d] &&
        (ctx->cl_dev[d].type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)))
      return d;
  return -1;
}

static int hostmem_new(femint_context_t ctx, size_t bytes, struct hostmem_block *b)
{
  int dev = getenv("FEMINT_NO_PINNED") ? -1 : pinned_device(ctx);
  pthread_mutex_lock(&ctx->lock); /* the parts of a split assembly allocate from their threads */
  if (dev >= 0 && !ctx->pin_queue) {
    cl_device_id id;
    cl_int err;
    starpu_opencl_get_context(dev, &ctx->pin_context);
    starpu_opencl_get_device(dev, &id);
    ctx->pin_queue = clCreateCommandQueue(ctx->pin_context, id, 0, &err);
    if (err != CL_SUCCESS) ctx->pin_queue = NULL;
  }
  pthread_mutex_unlock(&ctx->lock);
  if (dev >= 0 && ctx->pin_queue) {
    cl_int err;
    b->mem = clCreateBuffer(ctx->pin_context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes,
                            NULL, &err);
    if (err == CL_SUCCESS) {
      b->ptr = clEnqueueMapBuffer(ctx->pin_queue, b->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                  bytes, 0, NULL, NULL, &err);
      if (err == CL_SUCCESS) {
        b->bytes = bytes;
        return 0;
      }
      clReleaseMemObject(b->mem);
    }
    b->mem = NULL; /* fall back to ordinary memory */
  }
  b->ptr = malloc(bytes);
  b->bytes = bytes;
  return b->ptr ? 0 : FEMINT_ENOMEM;
}

/* A new block of the pool, in use or free; NULL: out of memory. */
static struct hostmem_block *hostmem_add(femint_context_t ctx, size_t bytes, int in_use)
{
  struct hostmem_block *b = calloc(1, sizeof *b);
  if (!b || hostmem_new(ctx, bytes, b)) {
    free(b);
    return NULL;
  }
  b->in_use = in_use;
  pthread_mutex_lock(&ctx->lock);
  b->next = ctx->hostmem;
  ctx->hostmem = b;
  pthread_mutex_unlock(&ctx->lock);
  return b;
}

/* Pinning takes the driver's time and locks: a fresh process pinned its bounce buffers when its
 * first assembly's columns came back, and the calls around it waited (8 ms on the H200). Pinned
 * here while the caller reads its mesh and makes its spaces, they wait in the pool. */
static void *hostmem_warm_run(void *arg)
{
  femint_context_t ctx = arg;
  /* the columns' and the values' ways back may overlap */
  for (int i = 0; i < 2; i++)
    if (!hostmem_add(ctx, FEMINT_BOUNCE_BYTES, 0)) break;
  return NULL;
}

void femint_host_warm(femint_context_t ctx)
{
  if (getenv("FEMINT_NO_PINNED") || pinned_device(ctx) < 0) return;
  ctx->warming = pthread_create(&ctx->warm_thread, NULL, hostmem_warm_run, ctx) == 0;
}

void femint_host_warm_join(femint_context_t ctx)
{
  if (ctx->warming) pthread_join(ctx->warm_thread, NULL);
  ctx->warming = 0;
}

uintptr_t femint_node_alloc(unsigned node, size_t bytes, int *plain)
{
  *plain = 0;
  uintptr_t p = starpu_malloc_on_node(node, bytes);
  if (p || node != STARPU_MAIN_RAM) return p;
  *plain = 1; /* StarPU's allocator may pin or count, and refuse where memory is there */
  return (uintptr_t)huge_alloc(bytes);
}

void femint_node_free(unsigned node, uintptr_t p, size_t bytes, int plain)
{
  if (!p) return;
  if (plain) free((void *)p);
  else starpu_free_on_node(node, p, bytes);
}

int femint_host_alloc(femint_context_t ctx, size_t bytes, void **ptr)
{
  if (bytes == 0) bytes = 1;
  pthread_mutex_lock(&ctx->lock);
  struct hostmem_block *best = NULL;
  for (struct hostmem_block *b = ctx->hostmem; b; b = b->next)
    if (!b->in_use && b->bytes >= bytes && b->bytes <= 2 * bytes && (!best || b->bytes < best->bytes))
      best = b;
  if (best) {
    best->in_use = 1;
    *ptr = best->ptr;
    pthread_mutex_unlock(&ctx->lock);
    return 0;
  }
  pthread_mutex_unlock(&ctx->lock);
  struct hostmem_block *b = hostmem_add(ctx, bytes, 1);
  FEMINT_CHECK(b, ctx, FEMINT_ENOMEM, "cannot allocate %zu bytes of host memory", bytes);
  *ptr = b->ptr;
  return 0;
}

void femint_host_free(femint_context_t ctx, void *ptr)
{
  if (!ptr) return;
  pthread_mutex_lock(&ctx->lock);
  for (struct hostmem_block *b = ctx->hostmem; b; b = b->next)
    if (b->ptr == ptr) b->in_use = 0;
  pthread_mutex_unlock(&ctx->lock);
}

/* A matrix lent a block: the context's list, so that its values survive the context. */
struct lent_matrix {
  femint_matrix_t A;
  struct lent_matrix *next;
};

/* femint_matrix_destroy of a lent matrix: the block back to the pool. */
static void matrix_give_back(void *owner, struct femint_matrix *A)
{
  femint_context_t ctx = owner;
  pthread_mutex_lock(&ctx->lock);
  for (struct lent_matrix **l = &ctx->lent; *l; l = &(*l)->next)
    if ((*l)->A == A) {
      struct lent_matrix *gone = *l;
      *l = gone->next;
      free(gone);
      break;
    }
  pthread_mutex_unlock(&ctx->lock);
  femint_host_free(ctx, A->values);
}

int femint_host_matrix(femint_context_t ctx, struct csr_shape *shape, femint_matrix_t *A)
{
  void *values;
  struct lent_matrix *l = malloc(sizeof *l);
  FEMINT_CHECK(l, ctx, FEMINT_ENOMEM, "out of memory for a matrix of %lld non-zeros",
               (long long)shape->nnz);
  int err = femint_host_alloc(ctx, ((size_t)shape->nnz + 1) * sizeof(double), &values);
  if (!err) {
    err = matrix_create_lent(ctx, shape, values, matrix_give_back, ctx, A);
    if (err) femint_host_free(ctx, values);
  }
  if (err) {
    free(l);
    return err;
  }
  l->A = *A;
  pthread_mutex_lock(&ctx->lock);
  l->next = ctx->lent;
  ctx->lent = l;
  pthread_mutex_unlock(&ctx->lock);
  return 0;
}

/* The values of the matrices still lent, copied to ordinary memory before the pool goes away
 * (out of memory: the matrix is left without values, and says so). */
static void lent_release(femint_context_t ctx)
{
  for (struct lent_matrix *l = ctx->lent, *next; l; l = next) {
    next = l->next;
    struct femint_matrix *A = l->A;
    const size_t bytes = ((size_t)A->shape->nnz + 1) * sizeof(double);
    double *v = huge_alloc(bytes);
    if (v) memcpy(v, A->values, bytes);
    else
      fprintf(stderr,
              "femint: warning: femint_finalize: no memory to copy the values of a matrix of %lld "
              "non-zeros out of the context's pinned memory; the matrix has none now\n",
              (long long)A->shape->nnz);
    A->values = v;
    A->give_back = NULL;
    A->owner = NULL;
    free(l);
  }
  ctx->lent = NULL;
}

int femint_host_arena(femint_context_t ctx, size_t bytes, void **base)
{
  struct hostmem_block *a = ctx->arena;
  if (a && a->bytes >= bytes) {
    *base = a->ptr;
    return 0;
  }
  if (a) { /* grow: give the old one back and take a larger one */
    a->next = ctx->hostmem, ctx->hostmem = a, a->in_use = 0;
    ctx->arena = NULL;
  }
  a = calloc(1, sizeof *a);
  if (!a || hostmem_new(ctx, bytes + bytes / 4, a)) {
    free(a);
    return femint_seterr(ctx, FEMINT_ENOMEM, "cannot allocate %zu bytes of host memory", bytes);
  }
  ctx->arena = a;
  *base = a->ptr;
  return 0;
}

void femint_host_release_all(femint_context_t ctx)
{
  femint_host_warm_join(ctx);
  lent_release(ctx);
  if (ctx->arena) {
    ctx->arena->next = ctx->hostmem;
    ctx->hostmem = ctx->arena;
    ctx->arena = NULL;
  }
  for (struct hostmem_block *b = ctx->hostmem, *next; b; b = next) {
    next = b->next;
    if (b->mem) {
      clEnqueueUnmapMemObject(ctx->pin_queue, b->mem, b->ptr, 0, NULL, NULL);
      clFinish(ctx->pin_queue);
      clReleaseMemObject(b->mem);
    } else {
      free(b->ptr);
    }
    free(b);
  }
  ctx->hostmem = NULL;
  if (ctx->pin_queue) clReleaseCommandQueue(ctx->pin_queue);
  ctx->pin_queue = NULL;
}

int femint_host_pinned(femint_context_t ctx) { return pinned_device(ctx) >= 0; }
