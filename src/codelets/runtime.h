/* What the codelets ask of the runtime that runs them: a CPU worker's team and its binding, an
 * OpenCL device's properties, and the built programs they launch. The scheduler implements it
 * (scheduler/runtime.c, scheduler/devices.c); the codelets know nothing else of the context. */
#ifndef FEMINT_CODELETS_RUNTIME_H
#define FEMINT_CODELETS_RUNTIME_H

#include "femint.h"
#include "volume_opencl.h"

#define FEMINT_MAX_CL_DEVICES 16

/* A built OpenCL program and its kernel on one OpenCL device, under a key (device, kernel,
 * options). Only that device's worker thread uses the kernel object. */
struct cl_program_entry {
  char *key;
  cl_program program;
  cl_kernel kernel;
  int cached; /* loaded from femint's cache folder, not compiled */
  struct cl_program_entry *next;
};

/* Run on a CPU worker's thread at the start of a codelet: the team size of this worker, with the
 * team's threads bound to the worker's cores (binding happens once per thread). */
int femint_team_enter(femint_context_t ctx);
/* Threads for a parallel loop of the calling thread that runs while devices work: the cores less
 * the OpenCL drivers' (one thread more starves a driver, and its device waits). */
int femint_host_threads(femint_context_t ctx);
/* Bind the calling thread, rank `rank` of worker workerid's team, to its core (once). */
void femint_team_bind_thread(femint_context_t ctx, int workerid, int rank);
/* The properties of OpenCL device dev (StarPU's numbering). */
const struct femint_cl_device *femint_cl_dev(femint_context_t ctx, int dev);
/* After an OpenCL launch (or allocation, or copy) on device dev that gave err: err, or
 * CL_OUT_OF_RESOURCES when FEMINT_FAULT_DEVICE names dev (a lost device, injected); an error
 * marks the device failed, for the verb to leave it out and do the work again without it. */
cl_int femint_cl_outcome(femint_context_t ctx, int dev, cl_int err);
/* The same for a femint error code (the message in the thread's error). */
int femint_cl_status(femint_context_t ctx, int dev, int err);

#endif
