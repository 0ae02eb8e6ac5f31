/* Internal interfaces of the runtime (StarPU + hwloc + OpenCL programs) and of the plan that turns
 * cells into batches and batches into tasks. */
#ifndef FEMINT_SCHEDULER_H
#define FEMINT_SCHEDULER_H

#include <CL/cl.h>
#include <hwloc.h>
#include <pthread.h>
#include <starpu.h>

#include "codelets/volume_opencl.h"

struct group;
#include "host/host.h"

#define FEMINT_MAX_CL_DEVICES 16
/* Shapes are enum femint_shape values, below FEMINT_NSHAPE. */
#define FEMINT_NSHAPE 3

/* A built OpenCL program and its kernel on one OpenCL device, under a key (device, kernel,
 * options). Only that device's worker thread uses the kernel object. */
struct cl_program_entry {
  char *key;
  cl_program program;
  cl_kernel kernel;
  struct cl_program_entry *next;
};

struct femint_context {
  char errmsg[8192];
  /* workers */
  int nworker;                        /* StarPU workers */
  int ncpu, nopencl;                  /* CPU workers (OpenMP teams) and OpenCL workers */
  int team_size[STARPU_NMAXWORKERS];  /* threads of each CPU worker's team (by StarPU id) */
  hwloc_cpuset_t team_set[STARPU_NMAXWORKERS];  /* PUs of each worker: a CPU worker's team, an
                                                   OpenCL worker's driver core */
  hwloc_cpuset_t bound_set[STARPU_NMAXWORKERS]; /* PUs its threads were bound to at start-up */
  hwloc_topology_t topo;
  hwloc_cpuset_t cpuset;              /* the process's cpuset, inside which workers are bound */
  int cores;                          /* cores in the process's cpuset */
  int local_rank;                     /* the local rank that chose the OpenCL device, or -1 */
  const char *local_rank_source;      /* "option" or the environment variable read */
  /* OpenCL devices, by StarPU OpenCL devid; below ncl_dev, a device may be one that no worker
   * drives (another one was chosen): its properties are known, it builds no program */
  int ncl_dev;
  int cl_driven[FEMINT_MAX_CL_DEVICES];
  struct femint_cl_device cl_dev[FEMINT_MAX_CL_DEVICES];
  struct cl_program_entry *programs;
  /* reference elements by shape and order and their registered tabulations (phi in double and
   * single) */
  struct refel *refel[FEMINT_NSHAPE][FEMINT_MAX_ORDER + 1];
  starpu_data_handle_t phi_handle[FEMINT_NSHAPE][FEMINT_MAX_ORDER + 1][2];
  void *quad[FEMINT_NSHAPE][FEMINT_MAX_ORDER + 1][2]; /* [nq][4] points and weights, REAL */
  starpu_data_handle_t quad_handle[FEMINT_NSHAPE][FEMINT_MAX_ORDER + 1][2];
  /* host memory for batches (hostmem.c): pinned through the first GPU's OpenCL context */
  struct hostmem_block *hostmem;
  struct hostmem_block *arena;  /* one block for all batches of an assembly, kept for the next */
  cl_context pin_context;
  cl_command_queue pin_queue;
  pthread_mutex_t lock;
};

/* The reference element of a shape and order, built on first use and kept by the context. */
int femint_context_refel(femint_context_t ctx, int shape, int order, const struct refel **re);
/* The StarPU handle of the tabulated phi of a shape and order in a precision (registered once). */
int femint_context_phi(femint_context_t ctx, int shape, int order, int precision,
                       starpu_data_handle_t *h);
/* The StarPU handle of the quadrature ([nq][4]: xi1, xi2, xi3 (0 in 2D), w) of a shape and order
 * in a precision. */
int femint_context_quad(femint_context_t ctx, int shape, int order, int precision,
                        starpu_data_handle_t *h);
/* The kernel variant for a group: the requested one, $FEMINT_VARIANT, or the fastest measured on
 * the group's first OpenCL device (measured once, kept in $STARPU_HOME/.starpu). */
int femint_variant_choose(femint_context_t ctx, const struct group *g, int requested, int *variant);
/* The first OpenCL device that a worker drives, or -1. */
int femint_context_first_device(femint_context_t ctx);
/* Build (once) the program of `source` with `options` on OpenCL device dev, and its kernel (an
 * entry without them on a device no worker drives). */
int femint_context_program(femint_context_t ctx, int dev, const char *source, const char *options,
                           const char *kernel_name, struct cl_program_entry **entry);
/* Run on a CPU worker's thread at the start of a codelet: the team size of this worker, with the
 * team's threads bound to the worker's cores (binding happens once per thread). */
int femint_team_enter(femint_context_t ctx);
void femint_team_bind_thread(femint_context_t ctx, int workerid, int rank);

double femint_now(void);

/* Host memory for batch buffers, pinned when there is an OpenCL GPU (reused after free). */
int femint_host_alloc(femint_context_t ctx, size_t bytes, void **ptr);
void femint_host_free(femint_context_t ctx, void *ptr);
void femint_host_release_all(femint_context_t ctx);
/* One block of at least `bytes` (pinned like femint_host_alloc's), kept by the context and grown
 * when a larger one is asked for: the batches of one assembly take slices of it. */
int femint_host_arena(femint_context_t ctx, size_t bytes, void **base);
/* Whether femint_host_alloc gives pinned memory. */
int femint_host_pinned(femint_context_t ctx);

#endif
