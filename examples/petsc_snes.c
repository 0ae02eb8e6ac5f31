/* Example: a nonlinear problem through PETSc's SNES with femint's residual and Jacobian on each
 * rank's cells.
 *
 * Bratu's equation -laplace u - lambda exp(u) = f on the unit square in 2 N^2 triangles (or the
 * triangles of a Gmsh file), u = 0 on the boundary, f made so that u = sin(pi x) sin(pi y)
 * solves it; the Lagrange space of order P. The physics is written once as pointwise functions
 * (f0, f1 and their derivatives g0, g3) in a text that is C and OpenCL C (femint_pointwise.h).
 * What it teaches:
 *   - every rank builds the same mesh and space and takes a run of cells; the DOFs it owns are a
 *     contiguous range (femint_space_dof_range), the layout of PETSc's vectors and matrix;
 *   - with -distributed, each rank builds only its part instead (its run of the square's
 *     triangles through femint_mesh_create_part, with the box's vertex numbers as global ids, or
 *     its partition of a partitioned Gmsh file), removes the DOFs of its share of the boundary
 *     (the faces of tag > 0: those between parts have tag 0), numbers its DOFs across the ranks
 *     by their keys and gives the numbers to femint (make_dist_part in petsc_parts.c); femint's
 *     residual and Jacobian stay in the numbering of the rank's space, which the example maps
 *     to the global one;
 *   - FormFunction: a VecScatter brings the values of the DOFs the rank's cells meet,
 *     femint_operator_residual evaluates the rank's share of F (on its CPU and OpenCL workers),
 *     and the same scatter in reverse adds the shares (ADD_VALUES);
 *   - FormJacobian: femint_operator_jacobian assembles the rank's cells' Jacobian, whose rows
 *     go to PETSc's matrix with MatSetValues (ADD_VALUES, rows and columns in global numbers)
 *     and meet there;
 *   - Newton converges quadratically, in the same steps and to the same solution on any number
 *     of ranks, replicated or distributed.
 *
 * Usage: mpirun -n R petsc_snes [-n N] [-order P] [-lambda L] [-perturb F] [-mesh FILE.msh]
 *                               [-distributed] [-where any|cpu|opencl]
 *                               [PETSc options, e.g. -snes_monitor]
 *   -n N          2 N^2 triangles (8)
 *   -order P      1..3 (2)
 *   -lambda L     0 <= L <= 3 (1)
 *   -perturb F    move the interior vertices of the square by up to F times the spacing, F in
 *                 [0, 0.5) (0.1; 0 with -distributed, which builds the square unperturbed)
 *   -mesh F       the triangles of a Gmsh file instead (read whole by every rank)
 *   -distributed  each rank builds its part only: its run of the square's triangles, or with
 *                 -mesh partition rank + 1 of a file partitioned in R parts, whose boundary lines
 *                 carry physical tags (untagged ones are not Dirichlet there)
 *   -where W      where femint evaluates the residual: any worker, CPU workers only, OpenCL */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <petscsnes.h>

#include "petsc_common.h"

static const char physics[] =
    "/* -laplace u - k0 exp(u) = f, f from u* = sin(pi x) sin(pi y) */\n"
    "FEMINT_POINTWISE void f0(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *f)\n"
    "{\n"
    "  const REAL pi = 3.14159265358979323846, s = sin(pi * x[0]) * sin(pi * x[1]);\n"
    "  f[0] = -k[0] * exp(u[0]) - (2 * pi * pi * s - k[0] * exp(s));\n"
    "}\n"
    "FEMINT_POINTWISE void f1(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *f)\n"
    "{\n"
    "  f[0] = du[0];\n"
    "  f[1] = du[1];\n"
    "}\n"
    "FEMINT_POINTWISE void g0(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *g)\n"
    "{\n"
    "  g[0] = -k[0] * exp(u[0]);\n"
    "}\n"
    "FEMINT_POINTWISE void g3(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *g)\n"
    "{\n"
    "  g[0] = g[3] = 1;\n"
    "  g[1] = g[2] = 0;\n"
    "}\n";

struct problem {
  femint_space_t space;
  femint_operator_t op;
  femint_vector_t vu, vF;
  struct part pt;
  struct local loc;   /* the values of the DOFs the rank's cells meet */
};

static void exact(const double x[3], const double n[3], int tag, void *user, double *u)
{
  (void)n, (void)tag, (void)user;
  u[0] = sin(M_PI * x[0]) * sin(M_PI * x[1]);
}

static PetscErrorCode form_function(SNES snes, Vec x, Vec f, void *ctx)
{
  struct problem *b = ctx;
  (void)snes;
  PetscCall(local_gather(&b->loc, x));
  FEMINT_TRY(NULL, femint_vector_set_values(b->vu, b->loc.xf));
  FEMINT_TRY(NULL, femint_operator_residual(b->op, 0, b->vu, NULL, b->vF));
  FEMINT_TRY(NULL, femint_vector_get_values(b->vF, b->loc.yf));
  PetscCall(local_scatter_add(&b->loc, f));
  return 0;
}

static PetscErrorCode form_jacobian(SNES snes, Vec x, Mat J, Mat P, void *ctx)
{
  struct problem *b = ctx;
  const struct local *l = &b->loc;
  (void)snes, (void)J;
  PetscCall(local_gather(&b->loc, x));
  FEMINT_TRY(NULL, femint_vector_set_values(b->vu, b->loc.xf));
  femint_matrix_t A;
  FEMINT_TRY(NULL, femint_operator_jacobian(b->op, 0, b->vu, NULL, &A));
  int64_t n;
  const int64_t *rowptr, *colind;
  const double *val;
  FEMINT_TRY(NULL, femint_matrix_csr(A, &n, &rowptr, &colind, &val));
  PetscInt most = 0, *cols;
  for (PetscInt i = 0; i < l->nl; i++)
    most = PetscMax(most, (PetscInt)(rowptr[l->dof[i] + 1] - rowptr[l->dof[i]]));
  PetscCall(PetscMalloc1(most + 1, &cols));
  PetscCall(MatZeroEntries(P));
  /* the rows of the rank's cells: row dof[i] of the rank's space is global row list[i] */
  for (PetscInt i = 0; i < l->nl; i++) {
    const PetscInt r = l->dof[i], cnt = (PetscInt)(rowptr[r + 1] - rowptr[r]);
    for (PetscInt k = 0; k < cnt; k++) cols[k] = to_global(&b->pt, colind[rowptr[r] + k]);
    PetscCall(MatSetValues(P, 1, &l->list[i], cnt, cols, val + rowptr[r], ADD_VALUES));
  }
  PetscCall(PetscFree(cols));
  femint_matrix_destroy(&A);
  PetscCall(MatAssemblyBegin(P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(P, MAT_FINAL_ASSEMBLY));
  return 0;
}

/* The command line: the box, the file or the part of either, and the problem. */
static PetscErrorCode read_settings(struct settings *st, PetscReal *lambda)
{
  PetscBool perturbed = PETSC_FALSE;
  *st = (struct settings){.shape = FEMINT_TRI, .n = 8, .order = 2, .repeat = 1};
  *lambda = 1;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mesh", st->mesh, sizeof st->mesh, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &st->n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-order", &st->order, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-lambda", lambda, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-distributed", &st->distributed, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-perturb", &st->perturb, &perturbed));
  PetscCall(get_where(&st->where));
  PetscCheck(st->n >= 1 && st->order >= 1 && st->order <= 3 && *lambda >= 0 && *lambda <= 3,
             PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE,
             "-n %d -order %d -lambda %g: need n >= 1, order 1..3, lambda in [0, 3]", (int)st->n,
             (int)st->order, (double)*lambda);
  PetscCheck(st->perturb >= 0 && st->perturb < 0.5, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE,
             "-perturb %g: need 0 <= F < 0.5", (double)st->perturb);
  PetscCheck(!st->distributed || st->perturb == 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP,
             "-perturb %g with -distributed: the distributed square is unperturbed (its "
             "perturbation is made on the whole)", (double)st->perturb);
  if (!perturbed && !st->distributed) st->perturb = 0.1;
  return 0;
}

static PetscErrorCode run(void)
{
  char where[16] = "any", what[PETSC_MAX_PATH_LEN + 64];
  struct settings st;
  PetscReal lambda;
  int size, rank;
  PetscCall(read_settings(&st, &lambda));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-where", where, sizeof where, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  femint_context_t ctx;
  PetscCall(start_femint(st.where, &ctx));
  struct problem b = {0};
  femint_mesh_t mesh;
  if (st.distributed) PetscCall(make_mesh_part(ctx, &st, rank, size, &mesh, what, sizeof what));
  else PetscCall(make_mesh(ctx, &st, size, &mesh, what, sizeof what));
  FEMINT_TRY(ctx, femint_space_create(ctx, mesh, FEMINT_H1, 1, NULL, (int)st.order, &b.space));
  /* u = 0 on the boundary: its DOFs leave the space, before the DOFs are numbered. A part
   * removes the faces of tag > 0 only, not the faces between parts (tag 0). */
  FEMINT_TRY(ctx, femint_space_remove_boundary_dofs(b.space, st.distributed ? -1 : 0, NULL));
  const double k0 = lambda;
  const struct femint_pointwise pw = {.source = physics, .name = "bratu (petsc_snes.c)",
                                      .ncomp = 1, .nconst = 1, .constants = &k0};
  femint_form_t form;
  FEMINT_TRY(ctx, femint_form_create_pointwise(ctx, &pw, &form));
  const int ncell = femint_mesh_num_cells(mesh);
  int ncell_all = ncell;
  Vec x, r;
  if (st.distributed) {
    PetscCall(make_dist_part(b.space, ncell, &b.pt));
    PetscCallMPI(MPI_Allreduce(&ncell, &ncell_all, 1, MPI_INT, MPI_SUM, PETSC_COMM_WORLD));
  } else {
    PetscCall(make_part(b.space, ncell, &b.pt));
  }
  const PetscInt nown = (PetscInt)(b.pt.dof_end - b.pt.dof_begin);
  PetscCall(VecCreateMPI(PETSC_COMM_WORLD, nown, (PetscInt)b.pt.ndof, &x));
  PetscCall(VecDuplicate(x, &r));
  PetscCall(local_setup(b.space, &b.pt, x, &b.loc));
  const struct femint_operator_options opt = {.where = st.where, .cells = b.pt.cells,
                                              .ncells = b.pt.ncell};
  FEMINT_TRY(ctx, femint_operator_create(ctx, b.space, 1, &form, &opt, &b.op));
  FEMINT_TRY(ctx, femint_vector_create(b.space, &b.vu));
  FEMINT_TRY(ctx, femint_vector_create(b.space, &b.vF));
  Mat J;
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, nown, nown, (PetscInt)b.pt.ndof, (PetscInt)b.pt.ndof,
                         64, NULL, 64, NULL, &J));
  PetscCall(MatSetOption(J, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  SNES snes;
  KSP ksp;
  PC pc;
  PetscCall(SNESCreate(PETSC_COMM_WORLD, &snes));
  PetscCall(SNESSetFunction(snes, r, form_function, &b));
  PetscCall(SNESSetJacobian(snes, J, J, form_jacobian, &b));
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(ksp, 1e-12, PETSC_DEFAULT, PETSC_DEFAULT, 10000));
  PetscCall(SNESSetTolerances(snes, 1e-30, 1e-11, PETSC_DEFAULT, 20, PETSC_DEFAULT));
  PetscReal hist[32];
  PetscInt hits[32];
  PetscCall(SNESSetConvergenceHistory(snes, hist, hits, 32, PETSC_TRUE));
  PetscCall(SNESSetFromOptions(snes));
  if (!st.mesh[0] && st.perturb > 0)
    snprintf(what + strlen(what), sizeof what - strlen(what), ", perturbed by %g",
             (double)st.perturb);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "bratu (lambda %g): %d triangles, order %d, %lld DOFs, %d rank%s, femint "
                        "on %s workers; mesh %s: %s\n",
                        (double)lambda, ncell_all, (int)st.order, (long long)b.pt.ndof, size,
                        size > 1 ? "s" : "", where,
                        st.distributed ? "distributed (each rank builds its part)" : "replicated",
                        what));
  PetscCall(VecSet(x, 0));
  PetscCall(SNESSolve(snes, NULL, x));
  PetscInt its, nh;
  SNESConvergedReason reason;
  PetscCall(SNESGetIterationNumber(snes, &its));
  PetscCall(SNESGetConvergedReason(snes, &reason));
  PetscCall(SNESGetConvergenceHistory(snes, NULL, NULL, &nh));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "newton: %d steps, %s, |F|/|F0|:", (int)its,
                        SNESConvergedReasons[reason]));
  for (PetscInt k = 0; k < nh; k++)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, " %.3e", (double)(hist[k] / hist[0])));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
  /* the L2 error over the rank's cells (the values of the rank's space), summed */
  double mine, all;
  PetscCall(local_gather(&b.loc, x));
  FEMINT_TRY(ctx, femint_space_l2_error(b.space, b.loc.xf, b.pt.ncell, b.pt.cells, exact, NULL,
                                        &mine));
  PetscCallMPI(MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "L2 error: %.12e\n", sqrt(all)));
  PetscCall(SNESDestroy(&snes));
  PetscCall(MatDestroy(&J));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&r));
  PetscCall(local_destroy(&b.loc));
  PetscCall(PetscFree(b.pt.cells));
  PetscCall(PetscFree(b.pt.global));
  femint_vector_destroy(&b.vu);
  femint_vector_destroy(&b.vF);
  femint_operator_destroy(&b.op);
  femint_form_destroy(&form);
  femint_space_destroy(&b.space);
  femint_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "Newton did not converge");
  return 0;
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(run());
  PetscCall(PetscFinalize());
  return 0;
}
