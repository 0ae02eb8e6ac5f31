/* The plan of an operator: its cells grouped by order and cut into batches of neighbouring cells,
 * the same groups and batches for each of its forms, and what the tasks of a group share (the
 * kernel, the OpenCL programs, the reference tables). */
#ifndef FEMINT_SCHEDULER_PLAN_H
#define FEMINT_SCHEDULER_PLAN_H

#include "scheduler.h"

struct plan {
  femint_context_t ctx;
  const struct femint_space *space;
  int nform;
  const struct femint_form *const *forms;
  struct femint_operator_options opt;
  int ngroup, nbatch;   /* per form */
  struct group *groups; /* [nform][ngroup]: the groups of form f from f * ngroup */
  struct batch *batches;/* [nform][nbatch]: the batches of form f from f * nbatch, batch i of
                           every form over the same cells */
  int ncell;            /* cells integrated: the mesh's, or those of opt.cells */
  int *cells;           /* those cells, ordered by group and batch; batches point into it */
  int cl_usable;        /* OpenCL workers may take integration tasks */
};

/* Group and batch the cells of opt (every cell when opt->cells is NULL) for the forms, and
 * build the OpenCL programs of the groups. The forms must suit the space (checked, named).
 * Batches are cut for nworker workers (0: every worker of the context). */
int plan_create(femint_context_t ctx, const struct femint_space *space, int nform,
                const struct femint_form *const *forms, const struct femint_operator_options *opt,
                int nworker, struct plan **plan);
void plan_destroy(struct plan **plan);
/* The inputs of a batch in its group's precision (b->geo, b->coef; allocated unless the batch
 * is in the arena): H1, the Jacobian terms at the points of the rule or (JAC variants) the
 * vertex coordinates; H(curl), the geometric nodes; and the coefficients of the form. */
int plan_pack_batch(const struct plan *plan, struct batch *b);
/* The Jacobian terms of a cell at the points of an H1 group's rule, t[nq][nterms] (det J * w_q,
 * then dxi_j / dx_i at 1 + dim*j + i); FEMINT_EJACOBIAN (named) where det J <= 0. */
int group_cell_terms(const struct group *g, int cell, double *t);
/* The coefficients of a cell as the group's codelets take them (g->ncoef values): the form's, or
 * for a generic form in 2D its c[ne][ne][4][4] cut to c[ne][ne][3][3]. */
void group_coef(const struct group *g, int cell, double *c);
/* Give an H1 group its kernel variant and what its batches carry for it: the Jacobian terms of
 * every point (the NOJAC variants) or the cells' geometric nodes relative to their first (the JAC
 * variants: a prism's 6 vertices; GEMM: any cell's nodes, which the kernel and the CPU codelet
 * map at the points), and the table the kernel reads with them (the quadrature, or the geometry
 * table of the nodes). */
int group_set_variant(femint_context_t ctx, struct group *g, int variant);
/* The kernel of an H1 group in a variant, planned for a device as the group's batches run it
 * (GEMM mapping the cells from the group's nodes). Returns 0 or volume_cl_configure's errors. */
int group_cl_configure(const struct femint_cl_device *dev, const struct group *g, int variant,
                       struct volume_cl_config *cfg);
/* Fill a group of one order and form (the plan's, and single element matrices and the
 * benchmark's). space NULL: a group without cells (the shape from the form: 2D forms on
 * quadrilaterals, H(curl) forms on tetrahedra, else prisms). use_opencl: choose the variant and
 * build the programs. */
int group_init(femint_context_t ctx, const struct femint_space *space,
               const struct femint_form *form, int order, int precision, int variant,
               int symmetric, int use_opencl, struct group *g);

#endif
