/* The operator object (femint_operator_t) and what its verbs share: the plan, the kept sparsity
 * pattern of each assembly path, the task helpers and the statistics. */
#ifndef FEMINT_SCHEDULER_OPERATOR_H
#define FEMINT_SCHEDULER_OPERATOR_H

#include "codelets/vector_ops.h"
#include "host/sparse.h"
#include "plan.h"

/* The CSR values of a pattern in n blocks of rows, each summed by a task of its own that reads
 * only the parts of the element matrices (batches, chunks) whose cells touch its rows. */
struct sum_blocks {
  int n;               /* 0: no values */
  int64_t *nz;         /* [n + 1] the blocks' first values */
  int *dep_off, *dep;  /* [n + 1], [dep_off[n]]: the parts each block reads, ascending */
  int64_t *part_voff;  /* [nparts] each part's first value in the element matrices */
};

/* The workers a verb's tasks may run on, StarPU's bitmap (starpu_task.workerids); len 0: any. */
struct worker_mask {
  uint32_t bits[(STARPU_NMAXWORKERS + 31) / 32];
  unsigned len;
};

struct femint_operator {
  femint_context_t ctx;
  struct femint_space *space;
  int generation;                 /* the space's when the operator was made */
  int nform;
  const struct femint_form **forms;
  int *cells;                     /* a copy of the options' cells (or NULL) */
  char *timeline;                 /* a copy of the options' timeline path (or NULL) */
  struct plan *plan;
  int assembly;                   /* FEMINT_ASSEMBLY_ROWS or FEMINT_ASSEMBLY_COO */
  /* the CSR structure the matrices share, made by the first assembly */
  struct csr_shape *shape;
  /* ROWS: its row blocks */
  struct rows rows;
  /* COO: where the element matrices are gathered and summed (an OpenCL device, or main memory
   * with dev -1), the kept permutation there, and the layout of the element matrices */
  int coo_dev, coo_worker;
  unsigned coo_node;
  int coo_calls;                  /* COO assemblies done on the pattern kept */
  /* the workers of the integration tasks: by rows (output to main memory), for the COO sums */
  struct worker_mask rows_mask, coo_mask;
  /* COO over several devices (operator_coo_split.c): the parts, each an operator of the cells
   * that touch its rows, summing the rows of the scalar modes mlo..mhi - 1 on its device */
  int64_t mlo, mhi;               /* 0, nmode: every row */
  int is_part;                    /* this operator is a part of another */
  int gpu_alone;                  /* a part on a GPU: its device integrates every batch it can */
  int npart;                      /* parts made (0: none) */
  struct femint_operator **part;  /* [npart] */
  int64_t nvalue;                 /* values of one form's element matrices */
  int64_t ncontrib, nnz;
  starpu_data_handle_t h_perm, h_seg;
  struct sum_blocks sums;         /* the blocks of the CSR values summed task by task */
  struct coo_columns_job *columns; /* the first pattern's columns under way (operator_coo.c) */
  double **first_values;           /* [nform] the first assembly's values, made with the pattern */
  struct shape_dev *sdev;          /* the structure on the device, for matrix_on_device */
  struct coo_cl *coo_cl[FEMINT_MAX_CL_DEVICES];
  struct cl_program_entry *sum_prog[FEMINT_MAX_CL_DEVICES];
  /* matrix-free application: what the first femint_operator_apply made (operator_apply.c) */
  struct op_apply *apply;
  /* the apply over several devices (apply_split.c): its parts, or NULL */
  struct apply_split *split;
  int split_tried;                /* whether the split was made or found impossible */
  int split_all_cells;            /* its parts apply all their cells (each cell once did not
                                     fit the chunks: apply_split_prepare) */
  /* a part of a split apply: its vectors hold its own modes mlo..mhi - 1, then the nghost
   * modes of its cells outside them (ghost[], ascending); NULL: the space's numbering */
  int64_t *ghost, nghost;
  int64_t *ghost_order;           /* NULL: ghost[] ascending; else the places of ghost[] in
                                     ascending order (each owner's still after the other's, those
                                     its applied cells read first: apply_split.c) */
  /* a part of a split apply whose cells are each applied once (apply_split.c): [plan ncell], 0
   * where this part applies plan cell k, else 1 + the part that does (the values of its element
   * vector at this part's modes come from there); NULL: every cell applied here */
  char *remote;
  /* residuals: what the first femint_operator_residual made (operator_residual.c) */
  struct op_residual *residual;
  int nlost_seen;                 /* the context's devices left out when the above were made */
};

/* A vector of a space's DOFs (femint_vector_t): main memory registered with StarPU. */
struct femint_vector {
  femint_context_t ctx;
  const struct femint_space *space;
  int64_t n;
  double *a;                      /* n values (pinned where there is a GPU) */
  starpu_data_handle_t h;
  int lent;                       /* the mode femint_vector_get_array lent it in, or 0 */
  int nparts;                     /* h's planned parts (0: none): vector_parts */
  starpu_data_handle_t *parts;
};

/* matrix_device.c: a structure's row pointers and columns registered for a device (one
 * reference; NULL: out of memory), and let go; a matrix given values left on device dev (node,
 * its worker) in h_val, registered over its values in main memory (the matrix holds a reference
 * to sd); matrix_device_release_all (scheduler.h) ends them with the context. */
struct shape_dev *shape_dev_get(femint_context_t ctx, const struct csr_shape *s);
void shape_dev_unref(struct shape_dev **sd);
int matrix_device_adopt(femint_context_t ctx, struct femint_matrix *A, struct shape_dev *sd,
                        starpu_data_handle_t h_val, int dev, int worker, unsigned node);

/* vector.c: h planned once as nparts parts of whole DOFs (every component of a DOF in one part):
 * part i holds the DOFs nmode i / nparts .. nmode (i + 1) / nparts - 1, so that several CPU tasks
 * may each write one (ev_sum_submit). 0, or FEMINT_ENOMEM; the plan is the vector's until it is
 * destroyed. */
int vector_parts(struct femint_vector *v, int nparts);
/* The first DOF of part i of nmode DOFs in nparts parts (i = nparts: nmode). */
static inline int64_t vector_part_first(int64_t nmode, int i, int nparts)
{
  return nmode * i / nparts;
}
/* A vector of n values of the space (not its DOFs: a part's of a split, struct apply_split). */
int vector_create_n(const struct femint_space *space, int64_t n, struct femint_vector **v);
/* whether v is a vector of the operator's space, not lent (errors name who and name). */
int vector_check(const struct femint_operator *op, const struct femint_vector *v, const char *who,
                 const char *name);

/* ---- operator_tasks.c: what the verbs share ---- */

/* Register a batch's inputs (and its own element matrices when mats is set) with StarPU. */
void batch_register(struct batch *b, int mats);
/* Unregister the data of a batch whose tasks are done and give its own buffers back. */
void batch_release(femint_context_t ctx, struct batch *b);
/* Give the input buffers (and element matrices when mats is set) of every batch of every form
 * slices of one block kept by the context (pinned where there is a GPU) when they fit in an
 * eighth of the memory. Returns how many batches may be in flight: all of them, or, when the
 * buffers are allocated per batch, a window whose buffers are reused once a batch is retired. */
int batch_buffers(femint_context_t ctx, struct plan *p, int mats);
/* The same for the batches of n plans at once (the parts of a split assembly). */
int batch_buffers_plans(femint_context_t ctx, struct plan *const *p, int n, int mats);
/* The integration task of a packed and registered batch into out (its element matrices). */
struct starpu_task *integration_task(const struct plan *p, struct batch *b,
                                     starpu_data_handle_t out, uint32_t *where);
/* Submit t, to be waited for and destroyed by the caller (*slot = t), or detached (slot NULL:
 * StarPU destroys it when done); a task that cannot be submitted is destroyed. */
int task_submit(femint_context_t ctx, struct starpu_task *t, struct starpu_task **slot,
                const char *what);
/* Whether every worker that may run the task (where) has a history for it. */
int model_calibrated(femint_context_t ctx, struct starpu_task *t, uint32_t where);
/* Add a finished task to the statistics (per worker: tasks and busy time). */
void stats_task(struct femint_stats *st, struct starpu_task *t, int integrate);
/* The statistics that do not depend on the path: cells, batches, groups, workers, flops. */
void stats_plan(const struct femint_operator *op, struct femint_stats *st);
/* With every kind of worker allowed, a driven OpenCL device that is not itself a CPU takes the
 * tasks of the vector verbs (apply, residual) alone, in one chunk: the CPU workers are 20 to 50
 * times slower on these memory-bound kernels and the chunks they would need cost the device more
 * than they give (doc/performance.md). A CPU-type device (PoCL) shares with the CPU workers. */
int operator_gpu_alone(const struct femint_operator *op);
/* After a verb's first run ended with err: leave out the devices that failed in it (a warning
 * each), forget what the operator kept on them, and say whether to run the verb again (1: a
 * device failed and other workers may take the work). Verbs whose results reach the caller only
 * whole (a matrix, a vector) run again from the start; femint_operator_integrate goes on from
 * the first batch it did not deliver. */
int operator_retry(struct femint_operator *op, int err, const char *who);
/* Before a verb: forget what the operator kept on devices left out since it was made (the COO
 * pattern on its device, the homes of apply and residual) and make its masks again. */
void operator_devices_refresh(struct femint_operator *op);
/* After a device's OpenCL build of what (err its error, the build log in the message): 0 with a
 * warning on stderr when the CPU workers may take the work (the device is left out), else err. */
int operator_build_failed(const struct femint_operator *op, int err, const char *what);
/* The tasks as CSV rows (worker, kind, codelet, order, cells, start and end in seconds from the
 * first start, batch, ready time): tasks[2 * i] integrates batch i (of every form), tasks[2 * i +
 * 1] assembles it (NULL where there is none), and the tasks after 2 * nform * nbatch (sums) have
 * no batch (-1). */
int timeline_write(femint_context_t ctx, const char *path, const struct plan *p,
                   struct starpu_task **tasks, int ntask);
/* The timeline of a verb whose tasks are not kept (CG): the tasks submitted between
 * timeline_open and timeline_close (which waits for every task) written to path as
 * timeline_write's rows (order, cells 0, batch -1). */
void timeline_open(void);
int timeline_close(femint_context_t ctx, const char *path);

/* ---- the paths of femint_operator_assemble and femint_operator_integrate ---- */

/* operator_rows.c: integration tasks into per-batch element matrices, then assembly tasks on
 * the row blocks of the matrices (A set), or the element matrices to fn (A NULL), from the
 * *done-th batch (of every form, in plan order) on; *done counts the batches delivered to fn. */
int operator_rows(struct femint_operator *op, femint_matrix_t *A, femint_element_fn fn,
                  void *user, int *done, struct femint_stats *st);
/* operator_coo.c: integration tasks into each form's vector of element matrices on the
 * gathering node, then the sums on the kept pattern. */
int operator_coo(struct femint_operator *op, femint_matrix_t *A, struct femint_stats *st);
/* Free the COO pattern of an operator. */
void operator_coo_release(struct femint_operator *op);
/* From now on the operator's COO pattern and sums are in main memory, made by a CPU worker (its
 * device was lost, or is too small): what it kept on devices, parts included, is freed. */
void operator_coo_to_host(struct femint_operator *op);

/* One COO assembly of an operator in flight, in steps, so that the parts of a split assembly
 * run side by side: coo_call_begin (the pattern on the first call, the element matrices' and
 * values' memory), coo_call_pack, coo_call_integrate for k < nb (the integration tasks of batch-form k),
 * coo_call_integrated, coo_call_sums, then coo_call_end (the waits, the values to the host,
 * statistics, and everything freed, also after an error, which it returns). */
struct coo_run;
struct coo_call {
  struct femint_operator *op;
  femint_matrix_t *A;       /* the nform matrices made, or NULL with into */
  double *const *into;      /* a part: [nform] where its CSR values go (its slice of the whole's) */
  int whole_calls;          /* a part: the assemblies its whole has done */
  struct femint_stats *st;
  int err;                  /* the first error of the steps after coo_call_begin */
  int nb;                   /* batch-forms: the integration tasks */
  int out_double, lend, bounced, waited;
  int packed, pack_err;     /* every batch's inputs packed while the first pattern was made */
  int keep;                 /* the values stay on the device (options.matrix_on_device) */
  int64_t one_nz[2];        /* the one block of kept values (one.nz) */
  struct sum_blocks one;
  size_t rs, vs, coo_bytes;
  double ti, ts;
  struct starpu_task **tasks;
  struct coo_run *run;
  uint32_t *len;
};
/* Where the CSR columns of a part of a split assembly go: place() is called by the part's pattern
 * with its number of columns (-1 after an error) once its device has sorted, and returns where
 * its first column goes in the whole's columns (NULL: the pattern fails). */
struct coo_columns {
  int64_t *(*place)(struct coo_columns *c, const struct femint_operator *part, int64_t nnz);
};
/* The COO kernels on the operator's device and its pattern (built by the first call; cols NULL,
 * or for a part, where its columns go). */
int coo_call_ready(struct femint_operator *op, struct femint_stats *st, struct coo_columns *cols);
/* operator_coo_pattern.c: the pattern of op's first call (cols: a part's, as coo_call_ready),
 * busy(busy_arg) called on the calling thread while the gathering node sorts; the columns of a
 * whole's under way on a thread of their own until coo_columns_join (0, or their error); the
 * values of the first call's matrices (op->first_values) until taken or freed. */
int coo_pattern_make(struct femint_operator *op, struct femint_stats *st, struct coo_columns *cols,
                     void (*busy)(void *), void *busy_arg);
int coo_columns_join(struct femint_operator *op);
void coo_first_values_free(struct femint_operator *op);
/* coo_call_ready, busy(busy_arg) called on the calling thread while a first pattern is made. */
int coo_call_ready_busy(struct femint_operator *op, struct femint_stats *st,
                        struct coo_columns *cols, void (*busy)(void *), void *busy_arg);
int coo_call_begin(struct coo_call *c);
/* With options.phases, the inputs of every batch, before the tasks (else each as it goes). */
int coo_call_pack(struct coo_call *c);
int coo_call_integrate(struct coo_call *c, int k);
void coo_call_integrated(struct coo_call *c);
int coo_call_sums(struct coo_call *c);
/* Wait for the tasks of c (coo_call_end does, if not done), its first error into c->err. */
void coo_call_wait(struct coo_call *c);
int coo_call_end(struct coo_call *c);

/* femint_operator_create with the batches cut for nworker workers (0: every worker). */
int operator_create(femint_context_t ctx, femint_space_t space, int nform,
                    const femint_form_t *forms, const struct femint_operator_options *opt,
                    int nworker, femint_operator_t *out);
/* operator_coo_split.c: how many devices the COO assembly is split over (0 or 1: not split): of
 * the first `devices` devices (0: every GPU), those that are driven and take the precision. */
int operator_coo_parts(const struct femint_operator *op);
/* The COO assembly of an operator split over devices: each device integrates the cells of its
 * rows and sums them; the values come back into their place in the whole's matrices. */
int operator_coo_split(struct femint_operator *op, femint_matrix_t *A, struct femint_stats *st);
/* Free the parts of a split operator. */
void operator_coo_split_release(struct femint_operator *op);
/* The program of the COO sum (kernels/coo.cl) of element matrices of a precision on device dev
 * (the sums in double where it has it). */
int coo_sum_program(femint_context_t ctx, int dev, int precision, struct cl_program_entry **entry);
/* sum_blocks.c. The rows [0, nrows) (whole scalar modes of ne components) cut into at most
 * nblock blocks of about equal non-zeros: block_row[0..n] their first rows (block_row[n] =
 * nrows), row_block[r] the block of row r; returns n >= 1. */
int rows_cut(const int64_t *rowptr, int64_t nrows, int ne, int nblock, int64_t *block_row,
             int *row_block);
/* Blocks of the rows of rowptr (of space s; at most nblock) for the element matrices of nparts
 * parts, part j the part_ncell[j] cells of cells from part_first[j], its values from
 * part_voff[j]. FEMINT_ENOMEM. */
int sum_blocks_make(const struct femint_space *s, const int *cells, int nparts,
                    const int *part_first, const int *part_ncell, const int64_t *part_voff,
                    const int64_t *rowptr, int nblock, struct sum_blocks *sb);
void sum_blocks_free(struct sum_blocks *sb);
/* How many blocks nnz values over nparts parts are cut into: one per FEMINT_SUM_BLOCK values
 * (default 2^23, 64 MB of doubles), 1 to 16, no more than the parts (fewer, larger blocks cost
 * less per value; the prisms of order 2, 55 M values, came back fastest in 4-8 blocks). */
int sum_block_count(int64_t nnz, int nparts);
/* One call's sums of a matrix's values: each block's values (vs bytes each, in val) a handle in
 * main memory. */
struct sum_call {
  int n;
  size_t vs;
  void *val;
  starpu_data_handle_t *h;
  struct sum_arg *arg;
};
/* The sum tasks of every block (into slots[b]; arguments as proto), reading perm, seg and the
 * children of parts (partitioned by parts; one block: parts gathered on its node first, which
 * waits for them) on worker (-1: a CPU worker). */
int sum_call_submit(femint_context_t ctx, struct sum_call *sc, const struct sum_blocks *sb,
                    const struct sum_arg *proto, starpu_data_handle_t perm,
                    starpu_data_handle_t seg, starpu_data_handle_t parts, unsigned node,
                    void *val, size_t vs, int worker, struct starpu_task **slots,
                    const char *who);
/* Summed on device dev (memory node `node`): each block's values into main memory as its task
 * ends, on a queue of the calling thread's: straight into pinned memory (pinned), else through
 * two small pinned buffers (download_bounced). */
int sum_call_download(femint_context_t ctx, struct sum_call *sc, int dev, unsigned node,
                      const struct sum_blocks *sb, int pinned, const char *who);
/* Unregister the blocks, their tasks done (in_memory: summed by CPU workers, their values made
 * valid in main memory first). */
void sum_call_end(struct sum_call *sc, int in_memory);
/* n bytes of h's copy on device dev (memory node `node`) into ordinary host memory through two
 * small pinned buffers, the calling thread's team copying one while the device fills the other
 * (about 20 GB/s on the H200, where StarPU's own copy to pageable memory reaches 7): the CSR
 * columns and values of the first assemblies, before their memory is lent pinned. FEMINT_EOPENCL
 * (its message begins with what), FEMINT_ENOMEM. */
int download_bounced(femint_context_t ctx, int dev, unsigned node, starpu_data_handle_t h,
                     void *host, size_t n, const char *what);
/* operator_apply.c: y = A x for one form, matrix-free (hexahedra); st gets the tasks and the
 * time. */
int operator_apply(struct femint_operator *op, int form, const double *x, double *y,
                   struct femint_stats *st);
/* operator_apply.c: the element kernel alone (femint_operator_apply_kernel), runs passes after a
 * first; st gets the last one's tasks. */
int operator_apply_kernel(struct femint_operator *op, int form, const double *ue, double *ve,
                          int runs, double *seconds, struct femint_stats *st);
/* ---- ev_sum.c: element vectors over chunks of the plan's cells, and their sum ---- */

struct ev_sum {
  int nc, np, single;              /* components, values per cell and component, floats */
  int64_t nown;                    /* the modes summed: the space's, or a split part's own */
  size_t rs;                       /* bytes of a value */
  int nchunk, size;                /* chunks of consecutive plan cells, size at most: without
                                      border, size each but the last (the residual's geometry
                                      counts on it) */
  int *first, *ncell;              /* chunk i: ncell[i] cells from plan cell first[i] */
  char *border;                    /* NULL, or [nchunk] (a split part's chunks cut where its
                                      cells start or stop reading ghosts): 1 where chunk i has
                                      such cells, 0 where none (applied before they arrive) */
  char *ev;                        /* [plan cell][nc][np] (pinned), or NULL: the tasks that
                                      write and read them are on OpenCL devices alone, where
                                      they live (ev_chunk_host reads them back) */
  int64_t *dofs;                   /* [plan cell][np] the scalar mode of each local value, or -1 */
  int64_t *occ_ptr, *occ;          /* for each scalar mode, its places in ev (component 0) */
  int32_t *map;                    /* the transpose per chunk (struct ev_map, ev_chunk_map) */
  int64_t *nu;                     /* the DOFs of each chunk */
  int64_t *map_start;              /* [nchunk + 1] where each chunk's map starts in map */
  starpu_data_handle_t *h_ev, *h_dofs, *h_map; /* [nchunk] */
  int32_t *slot;                   /* after ev_sum_sort, [plan cell][np] the place of each
                                      local value in its chunk, or -1 (no DOF): a writer may put
                                      value c of place o (the places of the chunk's DOFs one
                                      after the other, as in map) at ev[o nc + c]; else the
                                      element vectors are [cell][nc][np] */
  starpu_data_handle_t *h_slot;    /* [nchunk] */
  int *chunk_sorted;               /* NULL before ev_sum_sort, else [nchunk] how the last writer
                                      of each chunk wrote it (1: place order), what the sum
                                      reads */
  int64_t *span;                   /* [2 ceil(nown / EV_SPAN)]: vec_arg's span */
  struct vec_arg sum_arg;          /* the sum as one task */
  int nparts;                      /* on the CPU workers: parts of y summed by tasks of their own */
  struct vec_arg *part_arg;        /* [nparts] (NULL: one task) */
};
/* The element vectors of the operator's cells, np values per component: value n of cell c is its
 * local function local[n] (NULL: n); per_cell the bytes a cell's other data take (the chunks'
 * sizes follow the larger); only_cl: the OpenCL workers take the tasks (a chunk per device);
 * borders: a part of a split cuts its chunks where its cells start or stop reading ghosts (the
 * border[] flags), when that makes few chunks. */
int ev_sum_create(struct femint_operator *op, const char *who, int np, const int *local,
                  size_t per_cell, int only_cl, int borders, int single, struct ev_sum **e);
/* With borders and op->remote set, the chunks are also cut where cells applied by another part
 * start or stop (border[] 2 + that part: their values come from it, loaded in place order,
 * chunk_sorted). What chunk_layout makes of plan cell k: 0 (reads no ghost), 1, or 2 + the part that
 * applies it; the runs of equal kinds over the plan, their first cells start[] and kinds, how
 * many (BORDER_RUNS + 1 for more than BORDER_RUNS, the first BORDER_RUNS filled); the map of
 * chunk i, in one buffer of 32-bit words (the DOFs two each, then ptr and pos), registered per
 * chunk. */
#define BORDER_RUNS 5
int ev_cell_kind(const struct femint_operator *op, int k);
int ev_runs(const struct femint_operator *op, int *start, char *kind);
struct ev_map {
  const int64_t *udof;             /* [nu] the chunk's DOFs, ascending (0 .. nu - 1 where nu is
                                      every DOF summed) */
  const int32_t *ptr, *pos;        /* [nu + 1] the ranges of each one's places; the places
                                      (component 0) in the chunk's element vectors */
};
struct ev_map ev_chunk_map(const struct ev_sum *e, int i);
/* Chunk i's element vectors in main memory, while the caller holds h_ev[i] acquired. */
const void *ev_chunk_host(const struct ev_sum *e, int i);
void ev_sum_destroy(femint_context_t ctx, struct ev_sum **e);
/* Let the element vectors be written in place order: the slots of every cell's
 * values, registered per chunk. A writer that scatters through them sets its chunk's
 * chunk_sorted, and the sum reads that chunk's values of each DOF one after the other instead of
 * gathering them from the cells. Up to EV_SORTED_MAX_NC components (more: cell by cell). */
int ev_sum_sort(femint_context_t ctx, struct ev_sum *e, const char *who);
/* Submit y = the sum of the element vectors (y written whole) on worker home with the vector
 * kernels vk, or with home -1 on the CPU workers, a part of y each (vector_parts); the task that
 * ends the sum into *slot (NULL: detached). */
int ev_sum_submit(struct femint_operator *op, struct ev_sum *e, struct femint_vector *y,
                  struct vec_kernels *const *vk, int home, int *counts,
                  struct starpu_task **slot, const char *who);
/* The first failure of the last sum's tasks: 0, or its status with its message in *msg. */
int ev_sum_status(const struct ev_sum *e, const char **msg);

/* The workers of tasks whose output is gathered on the worker home (-1: on main memory): the CPU
 * workers and the OpenCL workers of the devices that k (the option `devices`) allows: the first
 * k; with k = 0, home alone, or every device where home is -1. */
void worker_mask_make(femint_context_t ctx, int k, int home, struct worker_mask *m);
/* Restrict t to the workers of m (a mask that outlives the task). */
void worker_mask_set(struct starpu_task *t, const struct worker_mask *m);
/* FEMINT_ENOTSUP, naming who and what, when n values do not fit a StarPU vector (32-bit sizes). */
int starpu_size_check(femint_context_t ctx, int64_t n, const char *who, const char *what);
/* How many devices the tasks of a verb whose output is gathered on a device use. */
int operator_gather_devices(const struct femint_operator *op);

/* operator_coo_split.c: what the verbs split over devices share. Whether device d may take a
 * part: driven, of double precision where the operator's is or fp64 is set, and (when femint
 * chooses, the option devices 0) a GPU: a device that is itself a CPU shares the host with the
 * CPU workers. */
int operator_part_device(const struct femint_operator *op, int d, int fp64);
/* The first scalar mode of each of np ranges (bound[np] = nmode), each receiving about as many
 * entries of element matrices (a mode of a cell of n rows receives n per component). */
int operator_split_modes(const struct femint_operator *op, int np, int64_t *bound);
/* A part of nparts: an operator of the plan's cells (in plan order) that have a mode in mlo ..
 * mhi - 1, on device dev (its coo_dev and coo_worker). */
int operator_part_make(struct femint_operator *op, int nparts, int64_t mlo, int64_t mhi, int dev,
                       struct femint_operator **part);

/* apply_split.c: femint_operator_apply and femint_operator_cg over several devices. */
struct apply_split;
/* The parts of the operator over its devices (made on the first call; the verb's checks
 * first), or NULL when the verbs run on one device. */
int operator_split(struct femint_operator *op, struct apply_split **sp);
/* The split of the operator for form (checked, *kind its kind) into *sp, made on the first call:
 * NULL when the verbs run on one device (one device allowed or able, op a part, or a part's
 * device without the vector kernels: a warning). */
int apply_split_prepare(struct femint_operator *op, int form, int *kind, struct apply_split **sp);
void apply_split_release(struct femint_operator *op);
/* y = A x of host arrays of the space's values (st may be NULL). */
int apply_split_run(struct apply_split *sp, int form, int kind, const double *x, double *y,
                    struct femint_stats *st);
/* The parts, and part d's operator. */
int apply_split_nparts(const struct apply_split *sp);
/* The cells the parts apply, the values that cross the bus per application (ghosts and element
 * vectors' values), and the parts' ghosts (values), what every cell applied by each part that
 * has it would move. */
void apply_split_traffic(const struct apply_split *sp, int64_t *applied, int64_t *moved,
                         int64_t *ghosts);
struct femint_operator *apply_split_part(const struct apply_split *sp, int d);
/* Vectors of the parts (v[d]: part d's own modes, then its ghosts), made where v[d] is NULL. */
int apply_split_vectors(struct apply_split *sp, struct femint_vector **v);
/* The split's own vectors of an input and an output (made on the first call, kept until the
 * split goes): the verbs with host arrays stage their values there. */
int apply_split_io(struct apply_split *sp, struct femint_vector ***x, struct femint_vector ***y);
/* The values of the parts' vectors from a host array of the space's (own modes and ghosts), or
 * the own modes' back into one. */
int apply_split_scatter(struct apply_split *sp, const double *x, struct femint_vector **v);
int apply_split_gather(struct apply_split *sp, struct femint_vector **v, double *x);
/* Submit y = A v over the parts: v's ghosts from their owners (packs[part] the packing tasks,
 * NULL where none, for the caller to wait for and destroy), each part's cells that read no
 * ghost applied while they come, then the others, the values of cells applied by another part
 * from there, and the sum into y[part]; the apply and sum tasks detached, or (kept set) kept in
 * kept[*nkept ..] (room for every part's chunks and sum), *nkept counting them. */
int apply_split_submit(struct apply_split *sp, int form, int kind, struct femint_vector **v,
                       struct femint_vector **y, struct starpu_task **packs, int *counts,
                       struct starpu_task **kept, int *nkept);
/* The first error the parts' apply tasks and the exchange recorded (its message naming who). */
int apply_split_status(struct apply_split *sp, const char *who);

/* The home of a verb's vectors: the first driven OpenCL device with usable[dev] set (with every
 * kind of worker allowed, not a device that is itself a CPU: the CPU workers run the vector
 * operations without a driver's launch costs) whose vector kernels build (into vk[dev]); *home its
 * worker, else -1 (the CPU workers). */
int ev_home_choose(struct femint_operator *op, const int *usable, struct vec_kernels **vk,
                   int *home);

/* operator_residual.c: what femint_operator_residual kept. */
void operator_residual_release(struct femint_operator *op);
/* pointwise_cc.c: a pointwise source compiled for the CPU (dim the mesh's): the shared object
 * (*dl, for dlclose), its f0 and f1, its g0..g3 (g[4]; NULL where the source has none) and the
 * loop over cells with them inline (kernels/residual_cpu.c).
 * FEMINT_EBUILD with the compiler's message, FEMINT_EIO. */
#include "host/pointwise.h"
int pw_compile_cpu(femint_context_t ctx, const struct pointwise *pw, int dim, void **dl,
                   femint_pointwise_fn *f0, femint_pointwise_fn *f1, femint_pointwise_fn *g,
                   pw_cells_fn *cells);

/* operator.c: FEMINT_ESTATE, naming who, when DOFs of the space were removed after the operator
 * was made. */
int operator_check_state(const struct femint_operator *op, const char *who);
/* Free what matrix-free application kept. */
void operator_apply_release(struct femint_operator *op);
/* What femint_operator_apply_vector and femint_operator_cg share (operator_apply.c): check the
 * form (*kind: enum hex_apply_kind) and make what its application needs (the tables, the form's
 * quadrature data, the OpenCL programs). */
int apply_prepare(struct femint_operator *op, int form, int *kind);
/* The checks of apply_prepare alone: a hexahedral mesh, a form with a matrix-free kernel, CPU
 * workers. */
int apply_check(const struct femint_operator *op, int form, int *kind);
/* Of a prepared operator: the vectors' home (an OpenCL worker, or -1), the chunks, their
 * element vectors. */
int apply_home(const struct femint_operator *op);
int apply_nchunk(const struct femint_operator *op);
const struct ev_sum *apply_ev(const struct femint_operator *op);
/* Submit y = A x for a prepared form, without waiting: the apply tasks of the chunks (in
 * tasks[0 .. nchunk) when tasks is set, else detached), then the sum into y on the vectors' home
 * (apply_task_home); counts, when set, counts them by kind of worker ([0] CPU, [1] OpenCL). Returns the
 * number of tasks or a negative error. */
int apply_submit(struct femint_operator *op, int form, int kind, starpu_data_handle_t x,
                 struct femint_vector *y, struct starpu_task **tasks, int *counts);
/* Its parts: the apply tasks of the chunks which (APPLY_ALL; in a part of a split APPLY_INSIDE,
 * those whose cells read no ghost, known by their chunks' border[], or APPLY_BORDER, the others),
 * into tasks as apply_submit, returning their number or a negative error; and the sum into y. */
enum { APPLY_ALL, APPLY_INSIDE, APPLY_BORDER };
int apply_submit_chunks(struct femint_operator *op, int form, int kind, starpu_data_handle_t x,
                        int which, struct starpu_task **tasks, int *counts);
int apply_sum(struct femint_operator *op, struct femint_vector *y, struct starpu_task **slot,
              int *counts);
/* The OpenCL kernels of the vector operations, by device (NULL where none). */
struct vec_kernels *const *apply_vec_kernels(const struct femint_operator *op);
/* Send a task to the vectors' home: the OpenCL worker of the first device with the vector
 * kernels, or the CPU workers. */
void apply_task_home(const struct femint_operator *op, struct starpu_task *t);
/* Submit y = A x, wait for its tasks and count them in st (may be NULL). */
int apply_wait(struct femint_operator *op, int form, int kind, starpu_data_handle_t x,
               struct femint_vector *y, struct femint_stats *st);
/* A chunk's apply-task status: the first error the tasks recorded (0 if none), its message set. */
int apply_status(struct femint_operator *op, const char *who);
/* d (num_dofs values in main memory) = the diagonal of a prepared form. */
int apply_diagonal(struct femint_operator *op, int form, int kind, double *d);

#endif
