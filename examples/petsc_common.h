/* What the PETSc examples (petsc_elasticity, petsc_snes, petsc_bps) share with petsc_parts.c: the
 * settings of the command line, a rank's share of the mesh and the DOFs, the functions that make
 * them, and the values of the DOFs a rank's cells meet. */
#ifndef FEMINT_EXAMPLE_PETSC_COMMON_H
#define FEMINT_EXAMPLE_PETSC_COMMON_H

#include <femint.h>
#include <petscksp.h>

/* A femint call inside a function that returns a PetscErrorCode. */
#define FEMINT_TRY(ctx, call)                                                                 \
  do {                                                                                        \
    int femint_e_ = (call);                                                                   \
    PetscCheck(femint_e_ == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "%s: %s (%s)", #call,          \
               femint_error_name(femint_e_), femint_last_error(ctx));                         \
  } while (0)

/* The most rows of an element matrix: 288 shape functions of a prism of order 7, 3 components. */
#define NMAX (288 * 3)

struct settings {
  int shape; /* of the box and of a Gmsh file's cells: FEMINT_PRISM or FEMINT_TRI */
  PetscInt n, order, repeat;
  PetscBool weak, timing, no_solve, distributed, setvalues;
  PetscReal perturb;
  char mesh[PETSC_MAX_PATH_LEN];
  int where;
};

/* One rank's share: its run of cells and the DOFs it owns. Replicated, the space is the whole
 * one and its numbering the global one (global NULL); distributed, the space is the rank's part
 * (nlocal DOFs) and global[] numbers its DOFs across the ranks. */
struct part {
  int rank, size;
  int cell_begin, ncell, *cells;
  int64_t ndof, dof_begin, dof_end;
  int64_t nlocal, *global;
};

/* The global number of DOF d of the rank's space (-1 stays -1). */
static inline PetscInt to_global(const struct part *pt, int64_t d)
{
  return (PetscInt)(d < 0 ? -1 : pt->global ? pt->global[d] : d);
}

/* The same mesh on every rank: the box (prisms: N x N x N blocks, N*R along z with -weak;
 * triangles: N x N), or the whole Gmsh file; what describes it. */
PetscErrorCode make_mesh(femint_context_t ctx, const struct settings *st, int size,
                         femint_mesh_t *mesh, char *what, size_t len);
/* The rank's part of the mesh: its run of the cells of the box (unperturbed), or its partition of
 * a partitioned Gmsh file. */
PetscErrorCode make_mesh_part(femint_context_t ctx, const struct settings *st, int rank, int size,
                              femint_mesh_t *mesh, char *what, size_t len);
/* Replicated: the rank's run of cells (an even share, in mesh order) and the DOFs it owns. */
PetscErrorCode make_part(femint_space_t space, int ncell_mesh, struct part *pt);
/* Distributed: every cell of the rank's part, the DOFs numbered across the ranks by their keys
 * and given to femint (femint_space_set_global_dofs). */
PetscErrorCode make_dist_part(femint_space_t space, int ncell, struct part *pt);

/* The option -where (any, cpu or opencl; default any) as enum femint_where, or an error naming it. */
PetscErrorCode get_where(int *where);
/* femint on this rank: one OpenCL device per rank of the node (the node's local rank modulo the
 * devices; none with FEMINT_WHERE_CPU), CPU workers on the cores of the rank's binding. */
PetscErrorCode start_femint(int where, femint_context_t *ctx);

/* The values at the DOFs a rank's cells meet (owned and ghost: their global numbers ascending in
 * list, their DOFs of the rank's space in dof) and one VecScatter between them and a global
 * vector: gather brings x's values into xf (an array over the nlocal DOFs of the rank's space,
 * what femint takes), scatter_add sums every rank's yf into y. */
struct local {
  PetscInt nl, *list, *dof;
  VecScatter sc;
  Vec xl, yl;
  double *xf, *yf;
};
PetscErrorCode local_setup(femint_space_t space, const struct part *pt, Vec x, struct local *l);
PetscErrorCode local_gather(struct local *l, Vec x);
PetscErrorCode local_scatter_add(struct local *l, Vec y);
PetscErrorCode local_destroy(struct local *l);

#endif
