/* The plan of one assembly: cells grouped by (shape, order, form), cut into batches of
 * neighbouring cells; the CSR pattern the batches assemble into, in row blocks. */
#ifndef FEMINT_SCHEDULER_PLAN_H
#define FEMINT_SCHEDULER_PLAN_H

#include "codelets/codelets.h"
#include "host/sparse.h"

struct plan {
  femint_context_t ctx;
  const struct femint_space *space;
  const struct femint_form *form;
  struct femint_assemble_options opt;
  int ngroup;
  struct group *groups;
  int nbatch;
  struct batch *batches;
  int ncell;        /* cells integrated: the mesh's, or those of opt.cells */
  int *cells;       /* those cells, ordered by group and batch; batches point into it */
  int cl_usable;    /* OpenCL workers may take integration tasks */
  struct csr csr;
};

/* Group and batch the cells; build the OpenCL programs of the groups; with pattern,
 * build the CSR pattern too. */
int plan_create(femint_context_t ctx, const struct femint_space *space,
                const struct femint_form *form, const struct femint_assemble_options *opt,
                int pattern, struct plan **plan);
void plan_destroy(struct plan **plan);
/* Geometry (Jacobian terms, or vertex coordinates for JAC variants) and coefficients of a batch in
 * its group's precision (b->jac, b->coef). */
int plan_pack_batch(struct plan *plan, struct batch *b);
/* The Jacobian terms of a cell at the points of the group's rule, t[nq][nterms] (det J * w_q, then
 * dxi_j / dx_i at 1 + dim*j + i); FEMINT_EJACOBIAN (named) where det J <= 0. */
int group_cell_terms(const struct group *g, int cell, double *t);
/* The coefficients of a cell as the group's codelets take them (g->ncoef values): the form's, or
 * for a generic form in 2D its c[ne][ne][4][4] cut to c[ne][ne][3][3]. */
void group_coef(const struct group *g, int cell, double *c);
/* Fill a group for an order (used by the plan and for single element matrices). space NULL: a
 * group without cells (the shape from the form: 2D forms on quadrilaterals, else prisms). */
int group_init(femint_context_t ctx, const struct femint_space *space,
               const struct femint_form *form, int order, int precision, int variant,
               int symmetric, int use_opencl, struct group *g);

#endif
