/* Internal interfaces of the scheduler: the context (StarPU, the division of the cores by hwloc,
 * the OpenCL devices and their program cache, the reference tables, host memory), and what its
 * files share. */
#ifndef FEMINT_SCHEDULER_H
#define FEMINT_SCHEDULER_H

#include <CL/cl.h>
#include <hwloc.h>
#include <pthread.h>
#include <starpu.h>

#include "codelets/codelets.h"
#include "host/error.h"
#include "host/host.h"

/* Shapes are enum femint_shape values, below FEMINT_NSHAPE. */
#define FEMINT_NSHAPE 6

/* A reference table in one precision, registered with StarPU (H(curl): hcurl_table_fill; the
 * geometry of H1 cells: geom_table_fill). */
struct ref_table {
  void *data;
  starpu_data_handle_t h;
};

struct femint_context {
  struct femint_errbuf err; /* first: the host layer records messages there */
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
  char *private_home;                 /* a temporary STARPU_HOME femint made, or NULL */
  /* OpenCL devices, by StarPU OpenCL devid; below ncl_dev, a device may be one that no worker
   * drives (another one was chosen): its properties are known, it builds no program */
  int ncl_dev;
  int cl_driven[FEMINT_MAX_CL_DEVICES];
  struct femint_cl_device cl_dev[FEMINT_MAX_CL_DEVICES];
  /* devices that failed: cl_failed is set by a codelet whose launch, allocation or copy failed
   * (or by FEMINT_FAULT_DEVICE, which names a device whose launches all fail, as a lost one's do);
   * device_leave_out then clears cl_driven, counts it in nlost and keeps in alive the workers
   * still usable, to which every later task is restricted */
  int cl_failed[FEMINT_MAX_CL_DEVICES];
  int fault_dev;
  double device_memory;               /* FEMINT_DEVICE_MEMORY: the bytes of a device that the COO
                                         assembly counts on (0: each device's own) */
  int nlost;
  uint32_t alive[(STARPU_NMAXWORKERS + 31) / 32];
  struct cl_program_entry *programs;
  /* reference elements by shape and order, and their registered tables (tables.c): H1 phi and
   * quadrature in double and single, H(curl) tables by geometric nodes (straight, curved) */
  struct refel *refel[FEMINT_NSHAPE][2][FEMINT_MAX_ORDER + 1]; /* [shape][family - 1][order] */
  starpu_data_handle_t phi_handle[FEMINT_NSHAPE][FEMINT_MAX_ORDER + 1][2];
  void *quad[FEMINT_NSHAPE][FEMINT_MAX_ORDER + 1][2]; /* [nq][4] points and weights, REAL */
  starpu_data_handle_t quad_handle[FEMINT_NSHAPE][FEMINT_MAX_ORDER + 1][2];
  struct ref_table hcurl[FEMINT_MAX_ORDER + 1][2][2]; /* [order][curved][precision] */
  struct ref_table geom[FEMINT_NSHAPE][FEMINT_MAX_ORDER + 1][2][2]; /* [..][curved][precision] */
  /* host memory for batches (hostmem.c): pinned through the first GPU's OpenCL context */
  struct hostmem_block *hostmem;
  struct hostmem_block *arena;  /* one block for all batches of a verb, kept for the next */
  struct lent_matrix *lent;     /* matrices whose values are blocks of hostmem */
  cl_context pin_context;
  cl_command_queue pin_queue;
  pthread_t warm_thread; /* pinning the bounce buffers ahead (femint_host_warm) */
  struct matrix_dev *dev_matrices; /* matrices whose values are on a device (matrix_device.c) */
  struct shape_dev *shape_devs;    /* structures copied to a device for them */
  int warming;
  pthread_mutex_t lock;
};

/* ---- cores.c: the division of the process's cores among the workers ---- */

/* How the cores are shared: a group of cores per CPU worker, a core per OpenCL driver. */
struct division {
  int ncpu, nopencl;
  hwloc_cpuset_t group[STARPU_NMAXWORKERS];
  int group_size[STARPU_NMAXWORKERS];
  hwloc_cpuset_t driver[STARPU_NMAXWORKERS];
  int taken[STARPU_NMAXWORKERS]; /* a group (then a driver core) given to a worker */
};
/* The process's cpuset: its binding, within the PUs the system lets it use. */
void cores_process_cpuset(hwloc_topology_t topo, hwloc_cpuset_t set);
/* The cores (PUs where hwloc finds no cores) that hold PUs of set, each cut down to set. */
int cores_list(hwloc_topology_t topo, hwloc_const_cpuset_t set, hwloc_cpuset_t *cores, int max);
/* Divide ncores cores among ncpu CPU workers and nopencl drivers. */
void cores_divide(hwloc_cpuset_t *cores, int ncores, int ncpu, int nopencl, struct division *d);
void cores_division_free(struct division *d);
/* StarPU's binding of the workers to the groups and driver cores (conf->workers_bindid). */
void cores_set_bindids(hwloc_topology_t topo, const struct division *d, struct starpu_conf *conf);
/* Give worker w (a CPU worker when cpu is set) its group or driver core: ctx->team_set and
 * team_size. */
void cores_give(femint_context_t ctx, struct division *d, int w, int cpu);
/* Whether the user set StarPU's own binding (femint then leaves it to StarPU). */
int cores_starpu_binds_itself(void);
/* Bind every worker's threads and record where they are (ctx->bound_set), on the workers. */
void cores_bind_workers(femint_context_t ctx);

/* ---- devices.c: the OpenCL devices and the program cache ---- */

/* The first OpenCL device that a worker drives, or -1. */
int femint_context_first_device(femint_context_t ctx);
/* At femint_init: FEMINT_KERNEL_DIR must be a folder, FEMINT_FAULT_DEVICE a device number
 * (ctx->fault_dev, else -1), FEMINT_DEVICE_MEMORY a number of bytes (ctx->device_memory).
 * FEMINT_EINVAL naming the variable. */
int devices_env(femint_context_t ctx);
/* Leave out of all later work the devices a codelet found failed (ctx->cl_failed), each with a
 * warning naming who and why; returns how many. */
int devices_leave_out(femint_context_t ctx, const char *who, const char *why);
/* Restrict task t to the workers left when devices were left out (its own mask, if any, is
 * cut down in place: masks outlive their tasks, and a device left out stays out). */
void devices_restrict(femint_context_t ctx, struct starpu_task *t);

/* starpu_env.c: before StarPU starts. FEMINT_EINVAL naming a StarPU variable that is not the
 * non-negative integer StarPU takes (it would abort). */
int starpu_env_check(void);
/* Where StarPU's models cannot be kept (the folder cannot be made or written, or under 1 MiB
 * free), a private temporary STARPU_HOME (*private_home) with a warning; FEMINT_EIO when none
 * can be made either. */
int starpu_home_check(char **private_home);
/* Remove the private STARPU_HOME and free its name. */
void starpu_home_remove(char **private_home);
/* Move aside, with a warning, the model files of femint's codelets and the bus calibrations
 * that StarPU could not parse (it aborts on them). */
void starpu_models_check(void);
/* mkdir -p of path (restored as given); 0 or an errno (ENOTDIR where a part is not a folder). */
int femint_make_path(char *path);
/* A lock on StarPU's folder of models, shared by the processes that use it (an MPI job's ranks
 * on one node, runs started together): StarPU reads and writes its files with no lock, and
 * aborts on one another process is writing. writing 0: shared while this host's bus
 * calibration is whole (starting reads it), else exclusive (starting measures the bus and
 * writes it); 1: exclusive (finalizing writes the models). The descriptor, or -1 where the
 * folder cannot hold the lock (then none is taken). */
int starpu_models_lock(int writing);
void starpu_models_unlock(int fd);
/* Build (once per device, kernel, options and source text) the program of `source` with
 * `options` on OpenCL device dev, and its kernel (an entry without them on a device no worker
 * drives). */
int femint_context_program(femint_context_t ctx, int dev, const char *source, const char *options,
                           const char *kernel_name, struct cl_program_entry **entry);
/* Release every program of the cache. */
void devices_release(femint_context_t ctx);

/* ---- program_cache.c: OpenCL programs kept on disk ---- */

/* femint's cache folder ($FEMINT_CACHE_DIR, else $XDG_CACHE_HOME/femint or ~/.cache/femint),
 * made if missing. FEMINT_EIO naming it. */
int femint_cache_dir(femint_context_t ctx, char *dir, size_t len);
/* The text of a device in the key: name, vendor, device and driver versions. */
void program_cache_device(cl_device_id id, char *buf, size_t len);
/* The key of a program: its source, its options and the text of the device. */
uint64_t program_cache_key(const char *source, const char *options, const char *device);
/* Build source with options for device id: from the binary in the cache folder when one of this
 * key is there (*cached 1), else from the source, then kept there (unless FEMINT_PROGRAM_CACHE=0).
 * A damaged file, or one the driver refuses, gives one warning and is replaced. 0 or
 * FEMINT_EOPENCL with the build log. */
int program_cache_build(femint_context_t ctx, cl_context clctx, cl_device_id id,
                        const char *source, const char *options, cl_program *prog, int *cached);

/* ---- tables.c: reference elements and their tables, kept by the context ---- */

/* The reference element of a shape, family and order, built on first use. */
int femint_context_refel(femint_context_t ctx, int shape, int family, int order,
                         const struct refel **re);
/* The StarPU handle of the tabulated phi of an H1 shape and order in a precision. */
int femint_context_phi(femint_context_t ctx, int shape, int order, int precision,
                       starpu_data_handle_t *h);
/* The StarPU handle of the quadrature ([nq][4]: xi1, xi2, xi3 (0 in 2D), w) of an H1 shape and
 * order in a precision. */
int femint_context_quad(femint_context_t ctx, int shape, int order, int precision,
                        starpu_data_handle_t *h);
/* The StarPU handle of the geometry table (geom_table_fill) of an H1 shape and order for cells of
 * nnode nodes (the shape's vertices, or with one node per edge) in a precision. */
int femint_context_geom_table(femint_context_t ctx, int shape, int order, int nnode, int precision,
                              starpu_data_handle_t *h, const void **data);
/* The StarPU handle of the H(curl) tables of an order for cells of nnode nodes in a precision. */
int femint_context_hcurl_tables(femint_context_t ctx, int order, int nnode, int precision,
                                starpu_data_handle_t *h);
/* Unregister and free every table. */
void tables_release(femint_context_t ctx);

/* ---- variants.c ---- */

/* The kernel variant for an H1 group: the requested one, $FEMINT_VARIANT, or the fastest
 * measured on the first OpenCL device (measured once, kept in $STARPU_HOME/.starpu). */
int femint_variant_choose(femint_context_t ctx, const struct group *g, int requested, int *variant);

/* ---- hostmem.c ---- */

struct csr_shape;

double femint_now(void);
/* The median of n > 0 timings (sorts t; the mean of the middle two for even n; bench_copy.c). */
double femint_median(double *t, int n);

/* matrix_device.c: every matrix's values left on a device brought to main memory, and the
 * structures copied there for them let go, before StarPU stops. */
void matrix_device_release_all(femint_context_t ctx);
/* The pinned buffers through which values come back from a device into ordinary memory: two
 * halves, the device filling one while the threads copy the other. */
#define FEMINT_BOUNCE_BYTES ((size_t)16 << 20)
/* Pin two bounce buffers' worth on a thread of its own, for the pool, while the caller goes on
 * after femint_init (when there is an OpenCL GPU); femint_host_warm_join waits for it. */
void femint_host_warm(femint_context_t ctx);
void femint_host_warm_join(femint_context_t ctx);
/* Host memory for batch buffers, pinned when there is an OpenCL GPU (reused after free). */
int femint_host_alloc(femint_context_t ctx, size_t bytes, void **ptr);
void femint_host_free(femint_context_t ctx, void *ptr);
void femint_host_release_all(femint_context_t ctx);
/* One block of at least `bytes` (pinned like femint_host_alloc's), kept by the context and grown
 * when a larger one is asked for: the batches of one verb take slices of it. */
int femint_host_arena(femint_context_t ctx, size_t bytes, void **base);
/* bytes on StarPU memory node `node` (starpu_malloc_on_node); in main memory, where StarPU's
 * allocator refuses, ordinary memory instead (*plain set; 0 otherwise). 0 when out of memory.
 * femint_node_free gives either back. */
uintptr_t femint_node_alloc(unsigned node, size_t bytes, int *plain);
void femint_node_free(unsigned node, uintptr_t p, size_t bytes, int plain);
/* Whether femint_host_alloc gives pinned memory. */
int femint_host_pinned(femint_context_t ctx);
/* A matrix on a structure whose values (left to be written) are a block of femint_host_alloc's:
 * a device copies into them at the pinned rate. Destroying the matrix gives the block back for
 * reuse; a matrix that outlives the context has its values copied to ordinary memory by
 * femint_host_release_all. FEMINT_ENOMEM. */
int femint_host_matrix(femint_context_t ctx, struct csr_shape *shape, femint_matrix_t *A);

#endif
