/* The StarPU codelets of femint and what they work on: groups of cells of one order and form,
 * their batches (the unit of an integration task and of an assembly task), the row blocks of the
 * assembly of CSR values, the sparsity pattern and sums of assembly through coordinates, and the
 * load vectors. */
#ifndef FEMINT_CODELETS_H
#define FEMINT_CODELETS_H

#include <starpu.h>

#include "coo_opencl.h"
#include "host/host.h"
#include "host/pattern.h"
#include "host/pointwise.h"
#include "runtime.h"

/* What the integration tasks of the cells of one order share for one form. */
struct group {
  femint_context_t ctx;
  int shape, family, dim;              /* enum femint_shape, enum femint_family, dimension */
  int order, iform;                    /* the cells' order; which of the operator's forms */
  int nterms;                          /* H1: Jacobian terms per point, 1 + dim^2 */
  int nnode;                           /* geometric nodes per cell */
  int kind, ne, ncoef, precision, nsh, n; /* n = nsh * ne; ncoef as packed (a generic form:
                                             ne * ne * (dim+1)^2) */
  int variant;                         /* H1: enum femint_variant of the OpenCL kernel */
  int symmetric;                       /* element matrices as their packed upper half */
  int geo_coords;                      /* H1: batches carry the cells' geometric nodes, relative
                                          to the first (JAC variants, GEMM), not Jacobian terms
                                          (group_set_variant) */
  size_t geo_size, out_size;           /* REALs per cell of the geometry input and the output */
  size_t real_size;                    /* sizeof(float) or sizeof(double) */
  const struct refel *re;
  const struct femint_form *form;
  const struct femint_space *space;
  /* the reference tables the kernels read: H1 phi and the quadrature; H(curl) one table
   * (hcurl_table_fill) and no second */
  starpu_data_handle_t h_tab[2];
  struct volume_cl_config cl_cfg[FEMINT_MAX_CL_DEVICES];      /* H1 */
  struct cl_program_entry *program[FEMINT_MAX_CL_DEVICES];    /* NULL: not for OpenCL */
  double flops_seed_per_cell;          /* seed 000's count */
  double flops_per_cell;               /* what the CPU codelet actually does */
};

/* The CSR structure of an operator's matrices cut into row blocks: an assembly task holds only
 * the blocks its cells touch, so that tasks of distant regions of the mesh assemble at the same
 * time. */
struct rows {
  int64_t nrows;
  const int64_t *rowptr, *colind;
  int nblock;
  int64_t *block_row;   /* [nblock + 1] first row of each block */
  int *row_block;       /* [nrows] block of each row */
};

/* Cells of one group that are neighbours: the unit of one integration task and one assembly
 * task. */
struct batch {
  femint_context_t ctx;
  const struct group *g;
  int ncell;
  const int *cells;
  int64_t voff;             /* COO: its first value in its form's vector of element matrices */
  void *geo, *coef;         /* packed inputs, REAL of the group's precision */
  void *mats;               /* the element matrices in host memory (not with COO) */
  starpu_data_handle_t h_geo, h_coef, h_mats;
  int registered;           /* h_geo and h_coef (and h_mats, own) are registered with StarPU */
  int in_arena;             /* geo, coef and mats are slices of the context's arena */
  /* ROWS assembly: the row blocks this batch writes */
  const struct rows *rows;
  int nblk;
  int *blk;
  int ran_on;               /* the integration task ran on a CPU worker (1) or an OpenCL one (2) */
  /* an error inside a codelet is recorded here and reported after the tasks */
  int status;
  char msg[256];
};

extern struct starpu_codelet femint_cl_integrate_volume; /* H1 */
extern struct starpu_codelet femint_cl_integrate_hcurl;  /* H(curl) */
extern struct starpu_codelet femint_cl_assemble;
extern struct starpu_codelet femint_cl_pattern;
extern struct starpu_codelet femint_cl_sum;
extern struct starpu_codelet femint_cl_spmv;
extern struct starpu_codelet femint_cl_integrate_load;
extern struct starpu_codelet femint_cl_residual;
extern struct starpu_codelet femint_cl_jacobian;
extern struct starpu_codelet femint_cl_apply;
extern struct starpu_codelet femint_cl_qdata;

/* Value i of an array of reals (floats when single, else doubles), and storing one: the
 * matrix-free path's quadrature data, tables and element vectors (options.precision). */
static inline double real_at(const void *base, size_t i, int single)
{
  return single ? ((const float *)base)[i] : ((const double *)base)[i];
}
static inline void real_put(void *base, size_t i, double v, int single)
{
  if (single) ((float *)base)[i] = (float)v;
  else ((double *)base)[i] = v;
}

/* Kernel arguments from first on: the task's first n vector handles, each as its device buffer,
 * then the element where its data start in it (a cl_long). */
static inline cl_int cl_set_vectors(cl_kernel k, cl_uint first, void *buffers[], int n)
{
  cl_int err = CL_SUCCESS;
  for (int i = 0; i < n && err == CL_SUCCESS; i++) {
    const cl_mem m = (cl_mem)STARPU_VECTOR_GET_DEV_HANDLE(buffers[i]);
    const cl_long off =
        (cl_long)(STARPU_VECTOR_GET_OFFSET(buffers[i]) / STARPU_VECTOR_GET_ELEMSIZE(buffers[i]));
    err = clSetKernelArg(k, first + 2 * (cl_uint)i, sizeof m, &m);
    if (err == CL_SUCCESS) err = clSetKernelArg(k, first + 2 * (cl_uint)i + 1, sizeof off, &off);
  }
  return err;
}

/* An apply task (femint_cl_apply): a chunk of consecutive cells, the tables of their order and
 * rule, the form's kind (enum hex_apply_kind). */
struct hex_tensor;
struct apply_arg {
  femint_context_t ctx;
  const struct hex_tensor *tensor;
  int kind, ncomp, ncell;
  struct cl_program_entry *const *program; /* [FEMINT_MAX_CL_DEVICES] hex_apply, or NULL */
  const int *ne;                   /* [FEMINT_MAX_CL_DEVICES] cells per work-group */
  int geo;                         /* qd holds each cell's geometry (hex_geo), not its points' */
  int evec;                        /* buffer 0 holds the chunk's element vectors (the kernel
                                      alone), not x */
  int single;                      /* the quadrature data, tables and element vectors are floats
                                      (the CPU computes in double from them) */
  int *counts;                     /* NULL, or tasks run counted: [0] CPU, [1] OpenCL */
  int status;
  char msg[128];
};
/* A task of femint_cl_qdata: the quadrature data of a chunk of ncell trilinear cells made on the
 * OpenCL device that applies them (kernels/hex_apply.cl, hex_qdata: nq3 points a cell). */
struct qdata_arg {
  femint_context_t ctx;
  int ncell, nq3, curved;                  /* curved: the 83 values of hex_geo_curved a cell */
  cl_kernel kernel[FEMINT_MAX_CL_DEVICES]; /* hex_qdata of the apply program, or NULL */
  int status;
  char msg[128];
};
/* The body of the apply codelet with a team of nthreads: ev[ncell][ncomp][P^3] = A_e x of each
 * cell (tensor order), dofs[ncell][P^3] the scalar mode of each node (-1: none), qd the cells'
 * quadrature data one after the other; x doubles (evec: element vectors of reals), qd and ev
 * reals (floats when a->single). */
void apply_batch(const struct apply_arg *a, const void *x, const int64_t *dofs, const void *qd,
                 void *ev, int workerid, int nthreads);

struct residual_arg {
  femint_context_t ctx;
  const struct refel *re;          /* the element and its rule (phi) */
  int dim, nc, na, aux, ncell;     /* aux: enum femint_aux */
  int single;                      /* the geometry and element vectors are floats (the CPU
                                      computes in double from them) */
  int affine;                      /* the geometry once per cell (pw_geometry_affine) */
  int lanes;                       /* the geometry's cells in blocks of lanes (pw_geo_at) */
  const double *k;                 /* the form's constants */
  femint_pointwise_fn f0, f1;      /* the CPU's functions */
  pw_cells_fn cells;               /* or the loop over cells compiled with them (NULL: none) */
  const femint_pointwise_fn *g;    /* [4] the CPU's g0..g3 for the Jacobian (NULL: that term 0) */
  const cl_kernel *jkernel;        /* [FEMINT_MAX_CL_DEVICES] the Jacobian's kernel, or NULL */
  struct cl_program_entry *const *program; /* [FEMINT_MAX_CL_DEVICES] residual, or NULL */
  const int *nb;                   /* [FEMINT_MAX_CL_DEVICES] cells per batch of a work-group */
  int nbatch;                      /* batches per work-group */
  int cellwise;                    /* the kernel takes a cell per work-item (nb = its size) */
  int sorted;                      /* the OpenCL kernel writes the residuals to their slots
                                      (struct ev_sum's sorted; the CPU cell by cell) */
  int *wrote_sorted;               /* NULL, or set to what the task did: 1 to the slots, 0 cell by
                                      cell (struct ev_sum's chunk_sorted) */
  int *counts;                     /* NULL, or tasks run counted: [0] CPU, [1] OpenCL */
  int status;
  char msg[128];
};
/* The body of the residual codelet with a team of nthreads: ev[ncell][nc][nsh] = each cell's
 * residual from u (doubles) at dofs[ncell][nsh] (-1: 0), its geometry geo[ncell][nq][...]
 * (pw_geometry; with a->affine geo[ncell][pw_affine_size], pw_geometry_affine) and its
 * auxiliary values: a field aux at adofs[ncell][nsh], or aux[ncell][na] per cell; geo and ev
 * reals (floats when a->single); an affine run keeps its cells' |det J| and K, then their J and
 * x0 (pw_affine_head), the cells in blocks of a->lanes (pw_geo_at). 0 or FEMINT_ENOMEM. */
int residual_batch(const struct residual_arg *a, const double *u, const int64_t *dofs,
                   const void *geo, const double *aux, const int64_t *adofs, void *ev,
                   int workerid, int nthreads);
/* The work-group size of the residual kernel. */
#define RESIDUAL_WG 128
/* Rows of a Jacobian's element matrix (nr of them, nc components) per work-item of its OpenCL
 * kernel: a function's nc rows, which share the pointwise derivatives at each point, when their
 * nc nr sums fit the registers; else one (kernels/residual.cl's JROWS). */
#define JACOBIAN_ROWS(nc, nr) ((nc) * (nr) <= 64 ? (nc) : 1)

/* Integrate an H1 batch with a team of nthreads (the body of the CPU codelet) into mats (REAL);
 * geo is what the batch carries (the Jacobian terms, or the cells' nodes when g->geo_coords,
 * mapped here cell by cell); workerid >= 0 binds the team to that worker's cores. */
void integrate_volume_batch_cpu(const struct batch *b, const void *geo, const void *coef,
                                const void *phi, void *mats, int workerid, int nthreads);
/* Flops the CPU codelet performs per cell of a group (the basis, the product, the combination). */
double volume_cpu_flops(const struct group *g);
/* Integrate an H(curl) batch with a team of nthreads (the body of the CPU codelet). */
void integrate_hcurl_batch_cpu(struct batch *b, const void *nodes, const void *coef, void *mats,
                               int workerid, int nthreads);
/* The work-group size of the H(curl) batch kernel for nsh functions (one work-group per cell). */
int hcurl_wg_size(int nsh);
/* Scatter a batch of element matrices (REAL) into the CSR values. block_base[k] points to the
 * values of row block k, shifted so that it is indexed by the global position in the CSR arrays
 * (every block the batch touches must be there). */
void assemble_batch(const struct batch *b, const void *mats, double *const *block_base,
                    int workerid, int nthreads);
/* The performance-model footprint of a batch task: shape, family, order, form, components,
 * precision, number of cells, variant, storage and geometric nodes. */
uint32_t batch_footprint(struct starpu_task *task);

/* The pattern task of assembly through coordinates (femint_cl_pattern): the plan's cells in groups
 * of one order, the DOF codes of the cells (buffer 0: 2 * DOF + 1 for sign -1, -1 for none, n per
 * cell in plan order) and where their element matrices lie in the value vectors. It writes perm,
 * seg, rowptr and colind (buffers 1..4, each sized for every entry) and returns ncontrib and nnz. */
struct pattern_group {
  int64_t ncell, dof_base, entry_base, value_base, per_cell;
  int n;
};
struct pattern_arg {
  femint_context_t ctx;
  const struct femint_space *space;
  int ncell;                 /* the plan's cells, for the CPU implementation */
  const int *cells;
  const int64_t *voff;       /* [ncell] first value of each cell */
  int symmetric;
  int ngroup;
  const struct pattern_group *groups;
  int64_t nentry;            /* sum of n^2 over the cells */
  int64_t mlo, mhi;          /* the rows of the scalar modes mlo..mhi - 1 alone (a device's part
                                of the matrix; 0, nmode: every row) */
  struct coo_cl *const *coo_cl; /* [FEMINT_MAX_CL_DEVICES] the device kernels */
  int64_t ncontrib, nnz;     /* out */
  int status;
  char msg[256];
  int done;                  /* set (atomically) as the codelet ends */
};

/* A sum task (femint_cl_sum) of a block of the CSR values of a form: buffers perm, seg, the
 * block's values, then the parts of the form's element matrices that the block reads
 * (sum_blocks.c). */
struct sum_arg {
  femint_context_t ctx;
  int64_t nnz;                  /* values summed: u0 .. u0 + nnz - 1 of the pattern */
  int64_t u0;
  int64_t voff0;                /* where the first element matrices read (buffer 3) start */
  int precision;                /* of the element matrices */
  int out_double;               /* the CSR values are doubles (else of the precision) */
  struct cl_program_entry *const *program; /* [FEMINT_MAX_CL_DEVICES] coo_sum on each device */
  int status;
  char msg[192];
};

/* y = A x for a CSR matrix of doubles (buffers: rowptr, colind, values, x, y). */
struct spmv_arg {
  femint_context_t ctx;
  int64_t n;                              /* rows (and columns) */
  struct cl_program_entry *const *program; /* [FEMINT_MAX_CL_DEVICES] csr_spmv on each device */
  int status;
  char msg[192];
};

/* A batch of load integrals: cells for body forces, boundary faces for tractions. Its task
 * writes each cell's or face's vector (host/load.h) into ev, one after the other; the caller adds
 * them into the load in order. */
struct load_batch {
  femint_context_t ctx;
  const struct femint_space *space;
  const struct refel *const *re; /* [FEMINT_MAX_ORDER + 1] by order */
  const struct hex_tensor *const *ht; /* [FEMINT_MAX_ORDER + 1] hexahedra's 1D tables, or NULL */
  femint_field_fn body, traction;
  void *user;
  int ncell;
  const int *cells;
  int nface;
  const int *faces;   /* indices into mesh->bface */
  double *ev;         /* the vectors, load_size of each item's cell */
  size_t *at;         /* [ncell + nface + 1] where item k's vector starts in ev */
  int status;
  char msg[256];
};
/* The cell of item k of a load batch: its cells, then its faces' cells. */
static inline int load_item_cell(const struct load_batch *b, int k)
{
  return k < b->ncell ? b->cells[k] : b->space->mesh->bface[3 * b->faces[k - b->ncell]];
}

#endif
