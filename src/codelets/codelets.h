/* The StarPU codelets of femint and the batch they work on. */
#ifndef FEMINT_CODELETS_H
#define FEMINT_CODELETS_H

#include <starpu.h>

#include "host/host.h"
#include "scheduler/scheduler.h"

/* Cells of one (shape, order, form) group that share no DOF: the unit of one integration task
 * and one assembly task. */
struct batch {
  femint_context_t ctx;
  const struct group *g;
  int ncell;
  const int *cells;
  void *jac, *coef;         /* packed inputs, REAL of the group's precision (femint_host_alloc) */
  void *mats;               /* the element matrices in host memory (femint_host_alloc) */
  starpu_data_handle_t h_jac, h_coef, h_mats;
  int registered;           /* the three handles are registered with StarPU */
  int in_arena;             /* jac, coef and mats are slices of the context's arena */
  /* assembly: the global CSR and the row blocks this batch writes */
  const struct csr *csr;
  int nblk;
  int *blk;
  /* an error inside a codelet is recorded here and reported after the tasks */
  int status;
  char msg[256];
};

/* What all batches of a group share. */
struct group {
  int shape, dim;                      /* enum femint_shape and its dimension */
  int nterms;                          /* Jacobian terms per point: 1 + dim^2 */
  int order, kind, ne, ncoef, precision, nsh, n; /* n = nsh * ne; ncoef as packed (a generic
                                                     form: ne * ne * (dim+1)^2) */
  int variant;                         /* enum volume_variant of the OpenCL kernel */
  int symmetric;                       /* element matrices as their packed upper half */
  int geo_coords;                      /* batches carry vertex coordinates (JAC variants), not
                                          Jacobian terms */
  size_t geo_size, out_size;           /* REALs per cell of the geometry input and the output */
  const struct refel *re;
  const struct femint_form *form;
  const struct femint_space *space;
  size_t real_size;                    /* sizeof(float) or sizeof(double) */
  starpu_data_handle_t h_phi, h_quad;
  struct volume_cl_config cl_cfg[FEMINT_MAX_CL_DEVICES];
  struct cl_program_entry *program[FEMINT_MAX_CL_DEVICES]; /* NULL: not for OpenCL */
  double flops_seed_per_cell;          /* seed 000's count */
  double flops_per_cell;               /* what the CPU codelet actually does */
};

/* The global CSR pattern and values (values registered as one vector handle). */
struct csr {
  int64_t nrows;
  int64_t *rowptr, *colind;
  double *values;
  /* Row blocks: assembly tasks hold only the blocks their cells touch, so that tasks of distant
   * regions of the mesh assemble at the same time. */
  int nblock;
  int64_t *block_row;   /* [nblock + 1] first row of each block */
  int *row_block;       /* [nrows] block of each row */
};

extern struct starpu_codelet femint_cl_integrate_volume;
extern struct starpu_codelet femint_cl_assemble;
extern struct starpu_codelet femint_cl_integrate_load;

/* Integrate a batch with a team of nthreads (the body of the CPU codelet) into mats (REAL);
 * workerid >= 0 binds the team to that worker's cores. */
void integrate_volume_batch_cpu(const struct batch *b, const void *jac, const void *coef,
                                const void *phi, void *mats, int workerid, int nthreads);
/* Flops the CPU codelet performs per cell of a group (the basis, the product, the combination). */
double volume_cpu_flops(const struct group *g);
/* Scatter a batch of element matrices (REAL) into the CSR values. block_base[k] points to the
 * values of row block k, shifted so that it is indexed by the global position in the CSR arrays
 * (every block the batch touches must be there). */
void assemble_batch(const struct batch *b, const void *mats, double *const *block_base,
                    int workerid, int nthreads);
/* The performance-model footprint of a batch task: shape, order, form, components, precision
 * and number of cells. */
uint32_t batch_footprint(struct starpu_task *task);

/* A batch of load integrals: cells for body forces, boundary faces for tractions. */
struct load_batch {
  femint_context_t ctx;
  const struct femint_space *space;
  femint_field_fn body, traction;
  void *user;
  int ncell;
  const int *cells;
  int nface;
  const int *faces;   /* indices into mesh->bface */
  int status;
  char msg[256];
};

#endif
