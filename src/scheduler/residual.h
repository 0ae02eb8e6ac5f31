/* What femint_operator_residual keeps (operator_residual.c) and femint_operator_jacobian adds
 * (operator_jacobian.c): the chunks of the operator's cells with their DOFs, geometry and
 * auxiliary modes, each form's functions, programs and task arguments, and the Jacobian's
 * pattern and element matrices. Never installed. */
#ifndef FEMINT_SCHEDULER_RESIDUAL_H
#define FEMINT_SCHEDULER_RESIDUAL_H

#include "codelets/codelets.h"
#include "codelets/kernels.h"
#include "host/pattern.h"
#include "host/pointwise.h"
#include "host/sparse.h"
#include "operator.h"

struct residual_form {
  int ready;                       /* the functions and programs were made */
  void *dl;                        /* the compiled source (dlclose) */
  femint_pointwise_fn f0, f1;      /* the CPU's (NULL: that term is 0) */
  femint_pointwise_fn g[4];        /* g0..g3 for the Jacobian (NULL: that term is 0) */
  pw_cells_fn cells;               /* the compiled loop over cells (NULL: none) */
  int cpu;                         /* the CPU workers can evaluate it */
  struct cl_program_entry *prog[FEMINT_MAX_CL_DEVICES];
  cl_kernel jkernel[FEMINT_MAX_CL_DEVICES]; /* the Jacobian's kernel of each program */
  int nb[FEMINT_MAX_CL_DEVICES];   /* cells per batch of a work-group */
  int cellwise;                    /* the kernel of a cell per work-item (not the transposed) */
  double *acell;                   /* per-cell auxiliary values in plan order */
  starpu_data_handle_t *h_acell;   /* [nchunk] */
  struct residual_arg *args;       /* [nchunk] */
};

/* The Jacobian's (its first call): its CSR structure and the permutation that sums the element
 * matrices' entries, which are gathered on one node (the home device, or main memory) and summed
 * there. */
struct op_jacobian {
  struct pattern pat;
  struct csr_shape *shape;
  starpu_data_handle_t h_perm, h_seg;
  unsigned node;                   /* where the element matrices are gathered */
  int worker;                      /* the OpenCL worker that sums them, or -1: a CPU worker */
  uintptr_t mats;                  /* [plan cell][n][n] reals on node */
  int mats_plain;                  /* mats is ordinary memory (femint_node_alloc) */
  size_t bytes;
  starpu_data_handle_t h_mats;     /* partitioned by chunks while they are integrated */
  uint32_t *len;                   /* [nchunk] values per chunk */
  struct cl_program_entry *sum_prog[FEMINT_MAX_CL_DEVICES];
  struct sum_arg sum;
  struct sum_blocks sums;          /* the blocks of the CSR values, each summed by a task */
  int calls;                       /* Jacobians assembled */
};

struct op_residual {
  struct ev_sum *es;               /* element residuals [plan cell][nc][nsh], DOFs, chunks */
  struct op_jacobian *jac;         /* NULL before the first Jacobian */
  const struct refel *re;
  int single;                      /* options.precision FEMINT_SINGLE: geo, phi, ev floats */
  size_t rs;                       /* their bytes */
  int affine;                      /* every cell a straight simplex: geo holds each cell's
                                      geometry once (pw_geometry_affine), not per point */
  size_t per;                      /* geo's values per cell */
  int lanes;                       /* the cells of geo's blocks (pw_geo_at): PW_LANES when only
                                      CPU workers read it, else 1 */
  char *geo;                       /* per chunk, [cell][per] reals: [nq][pw_geo_size]; affine,
                                      [cell][pw_affine_head] then the rest (geo_at); the cells
                                      in blocks of lanes, each chunk padded to whole blocks */
  size_t *geo_first;               /* [nchunk + 1] where each chunk's geometry starts (reals) */
  starpu_data_handle_t *h_geo;     /* [nchunk] */
  starpu_data_handle_t h_phi;      /* the context's table (double) */
  double none;                     /* a placeholder for absent buffers */
  starpu_data_handle_t h_none;
  const struct femint_space *aux_space; /* the space adofs were made for, and its generation */
  int aux_gen;
  int64_t *adofs;                  /* [plan cell][nsh] the auxiliary field's modes */
  starpu_data_handle_t *h_adofs;   /* [nchunk] */
  struct residual_form *rf;        /* [nform] */
  int home, home_chosen;
  struct worker_mask mask;         /* the workers of the residual tasks */
  struct vec_kernels *vk[FEMINT_MAX_CL_DEVICES];
};

/* The form, the vectors and the spaces the residual and the Jacobian take (F may be NULL). */
int residual_check(const struct femint_operator *op, const char *who, int form,
                   const struct femint_vector *u, const struct femint_vector *aux,
                   const struct femint_vector *F);
/* What they need and the first call makes: the chunks and the geometry, the form's functions
 * and programs, the auxiliary field's modes. */
int residual_prepare(femint_operator_t op, int form, femint_vector_t aux);
/* The workers of form's tasks (jacobian: of its Jacobian's), as a StarPU where, and the home of
 * the vectors chosen by the first call; FEMINT_ENODEV when none can. */
int residual_where(femint_operator_t op, int form, int jacobian, const char *name,
                   uint32_t *where);
/* The handles of the first six buffers of chunk i's residual and Jacobian tasks. */
void residual_handles(const struct femint_operator *op, int form, const struct femint_vector *u,
                      const struct femint_vector *aux, int i, starpu_data_handle_t *h);
void operator_jacobian_release(struct femint_operator *op);

#endif
