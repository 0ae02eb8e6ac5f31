/* Example: the CEED bake-off problems through PETSc, femint applying the operator matrix-free on
 * each rank.
 *
 * BP1..BP6 and linear elasticity on the unit cube in N x N x N hexahedra (the interior vertices
 * perturbed), the H1 Lagrange space of order P on Gauss-Lobatto nodes, solved by PETSc's KSPCG
 * with a MATSHELL whose MatMult is femint's operator: nothing is assembled. What it teaches:
 *   - every rank builds the same mesh and space and takes a run of cells; the DOFs it owns are a
 *     contiguous range (femint_space_dof_range), the shell matrix's ownership range;
 *   - an operator on the rank's cells (femint_operator_options.cells, .apply_rule for BP5 and
 *     BP6), applied to the values of the DOFs its cells meet: a VecScatter brings them (owned and
 *     ghost) from the global vector, femint_operator_apply sums the rank's element vectors, and
 *     the same scatter in reverse adds them into y (ADD_VALUES), where the ranks' shares of
 *     interface DOFs meet;
 *   - each rank drives one OpenCL device, its rank on the node modulo the devices (start_femint,
 *     FEMINT_DEVICE_BY_LOCAL_RANK), so that R ranks on a node of R GPUs use every GPU;
 *   - MatGetDiagonal from femint_operator_diagonal the same way, so that -pc_type jacobi works;
 *   - the right-hand side from femint_operator_load and the L2 error from femint_space_l2_error
 *     over the rank's cells.
 * The Laplacian and elasticity have their boundary DOFs removed (homogeneous Dirichlet); the
 * solution is u = sin(pi x) sin(pi y) sin(pi z) in every component (elasticity: times (1, 2, -1))
 * and the mass problems solve its L2 projection. The iterations and the error do not depend on
 * the number of ranks, up to rounding.
 *
 * Usage: mpirun -n R petsc_bps [-problem bp1..bp6|elasticity] [-n N] [-order P] [-perturb F]
 *                              [-where any|cpu|opencl] [PETSc options, e.g. -ksp_rtol, -pc_type]
 *   -problem   bp1, bp2 (mass, 1 and 3 components), bp3, bp4 (Laplace, Gauss points), bp5, bp6
 *              (Laplace on the Gauss-Lobatto nodes), elasticity (E = 1, nu = 0.3) (bp3)
 *   -n N       N x N x N hexahedra (4); -order P: 1..10 (3); -perturb F: interior vertices moved
 *              by up to F times the spacing (0.1)
 *   -where W   where femint applies: any worker, CPU workers only, OpenCL devices only */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "petsc_common.h"

static const char *const names[] = {"bp1", "bp2", "bp3", "bp4", "bp5", "bp6", "elasticity"};
enum { ELASTICITY = 6 };
static const double LAMBDA = 0.3 / (1.3 * 0.4), MU = 1 / 2.6; /* E = 1, nu = 0.3 */

struct bp {
  int problem, nc;
  femint_space_t space;
  femint_operator_t op;
  struct part pt;
  struct local loc;   /* the values of the DOFs the rank's cells meet */
};

static double s3(const double x[3])
{
  return sin(M_PI * x[0]) * sin(M_PI * x[1]) * sin(M_PI * x[2]);
}

/* The solution in every component (elasticity: (1, 2, -1) times it). */
static void exact(const double x[3], const double n[3], int tag, void *user, double *u)
{
  const struct bp *b = user;
  static const double a[3] = {1, 2, -1};
  for (int c = 0; c < b->nc; c++) u[c] = (b->problem == ELASTICITY ? a[c] : 1) * s3(x);
}

/* The right-hand side's function: u for the mass, -lap u, or -div sigma(u). */
static void body(const double x[3], const double n[3], int tag, void *user, double *f)
{
  const struct bp *b = user;
  exact(x, n, tag, user, f);
  if (b->problem < 2) return;
  if (b->problem != ELASTICITY) {
    for (int c = 0; c < b->nc; c++) f[c] *= 3 * M_PI * M_PI;
    return;
  }
  static const double a[3] = {1, 2, -1};
  double sn[3], cs[3];
  for (int d = 0; d < 3; d++) sn[d] = sin(M_PI * x[d]), cs[d] = cos(M_PI * x[d]);
  for (int j = 0; j < 3; j++) { /* mu 3 pi^2 u_j - (lambda + mu) d_j div u */
    double g = 0;
    for (int c = 0; c < 3; c++)
      g += a[c] * (c == j ? -M_PI * M_PI * s3(x) : M_PI * M_PI * cs[j] * cs[c] * sn[3 - j - c]);
    f[j] = 3 * M_PI * M_PI * MU * a[j] * s3(x) - (LAMBDA + MU) * g;
  }
}

static PetscErrorCode mult(Mat A, Vec x, Vec y)
{
  struct bp *b;
  PetscCall(MatShellGetContext(A, &b));
  PetscCall(local_gather(&b->loc, x));
  FEMINT_TRY(NULL, femint_operator_apply(b->op, 0, b->loc.xf, b->loc.yf, NULL));
  PetscCall(local_scatter_add(&b->loc, y));
  return 0;
}

static PetscErrorCode diagonal(Mat A, Vec d)
{
  struct bp *b;
  femint_vector_t v;
  PetscCall(MatShellGetContext(A, &b));
  FEMINT_TRY(NULL, femint_vector_create(b->space, &v));
  int err = femint_operator_diagonal(b->op, 0, v);
  if (!err) err = femint_vector_get_values(v, b->loc.yf);
  femint_vector_destroy(&v);
  FEMINT_TRY(NULL, err);
  PetscCall(local_scatter_add(&b->loc, d));
  return 0;
}

static PetscErrorCode run(void)
{
  char problem[32] = "bp3", where[16] = "any";
  PetscInt n = 4, order = 3;
  PetscReal perturb = 0.1;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-problem", problem, sizeof problem, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-where", where, sizeof where, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-order", &order, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-perturb", &perturb, NULL));
  struct bp b = {.problem = -1};
  for (int i = 0; i < 7; i++)
    if (!strcmp(problem, names[i])) b.problem = i;
  int w;
  PetscCall(get_where(&w));
  PetscCheck(b.problem >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG,
             "-problem %s: expected bp1..bp6 or elasticity", problem);
  PetscCheck(n >= 1 && order >= 1 && order <= 10 && perturb >= 0 && perturb < 0.5,
             PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE,
             "-n %d -order %d -perturb %g: need n >= 1, order 1..10, perturb in [0, 0.5)", (int)n,
             (int)order, (double)perturb);
  b.nc = b.problem == ELASTICITY || b.problem % 2 ? 3 : 1;
  const int stiff = b.problem >= 2;
  femint_context_t ctx;
  PetscCall(start_femint(w, &ctx));
  femint_mesh_t mesh;
  femint_form_t form;
  const double one = 1, E = 1, nu = 0.3;
  FEMINT_TRY(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, (int)n, (int)n, (int)n, 1, 1, 1,
                                         perturb, 1, &mesh));
  FEMINT_TRY(ctx, femint_space_create(ctx, mesh, FEMINT_H1, b.nc, NULL, (int)order, &b.space));
  if (stiff) FEMINT_TRY(ctx, femint_space_remove_boundary_dofs(b.space, 0, NULL));
  FEMINT_TRY(ctx, b.problem == ELASTICITY ? femint_form_create_elasticity(ctx, 1, &E, &nu, &form)
                  : stiff                 ? femint_form_create_laplace(ctx, b.nc, 1, &one, &form)
                                          : femint_form_create_mass(ctx, b.nc, 1, &one, &form));
  /* the shell matrix's layout: the DOFs the rank owns */
  const int ncell = femint_mesh_num_cells(mesh);
  Vec x, rhs;
  PetscCall(make_part(b.space, ncell, &b.pt));
  PetscCall(VecCreateMPI(PETSC_COMM_WORLD, (PetscInt)(b.pt.dof_end - b.pt.dof_begin),
                         (PetscInt)b.pt.ndof, &x));
  PetscCall(local_setup(b.space, &b.pt, x, &b.loc));
  const struct femint_operator_options opt = {.where = w, .cells = b.pt.cells,
                                              .ncells = b.pt.ncell,
                                              .apply_rule = b.problem == 4 || b.problem == 5};
  FEMINT_TRY(ctx, femint_operator_create(ctx, b.space, 1, &form, &opt, &b.op));
  PetscCall(VecDuplicate(x, &rhs));
  Mat A;
  const PetscInt nown = (PetscInt)(b.pt.dof_end - b.pt.dof_begin);
  PetscCall(MatCreateShell(PETSC_COMM_WORLD, nown, nown, (PetscInt)b.pt.ndof, (PetscInt)b.pt.ndof,
                           &b, &A));
  PetscCall(MatShellSetOperation(A, MATOP_MULT, (void (*)(void))mult));
  PetscCall(MatShellSetOperation(A, MATOP_GET_DIAGONAL, (void (*)(void))diagonal));
  PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
  /* b: the rank's cells' load, summed like A x */
  const struct femint_load load = {.body = body, .user = &b};
  memset(b.loc.yf, 0, (size_t)b.pt.ndof * sizeof *b.loc.yf);
  FEMINT_TRY(ctx, femint_operator_load(b.op, &load, b.loc.yf));
  PetscCall(local_scatter_add(&b.loc, rhs));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%s: %d^3 hexahedra, order %d, %lld DOFs, %d rank%s, matrix-free (femint "
                        "on %s workers)\n", names[b.problem], (int)n, (int)order,
                        (long long)b.pt.ndof, b.pt.size, b.pt.size > 1 ? "s" : "", where));
  KSP ksp;
  PC pc;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCNONE));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 10000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(MatMult(A, rhs, x)); /* once before timing: femint makes the quadrature data */
  PetscCall(VecSet(x, 0));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  const double t0 = MPI_Wtime();
  PetscCall(KSPSolve(ksp, rhs, x));
  const double t = MPI_Wtime() - t0;
  PetscInt its;
  KSPConvergedReason reason;
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  /* the L2 error over the rank's cells, summed */
  double mine[2], all[2];
  PetscCall(local_gather(&b.loc, x));
  for (int k = 0; k < 2; k++) { /* the error, then the norm of the solution */
    if (k) memset(b.loc.xf, 0, (size_t)b.pt.ndof * sizeof *b.loc.xf);
    FEMINT_TRY(ctx, femint_space_l2_error(b.space, b.loc.xf, b.pt.ncell, b.pt.cells, exact, &b,
                                          &mine[k]));
  }
  PetscCallMPI(MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "solve: CG, %d iterations, %s, %.4f s, %.4g DOF-iterations/s\n", (int)its,
                        KSPConvergedReasons[reason], t, (double)b.pt.ndof * its / t));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "L2 error: %.12e (relative %.6e)\n", sqrt(all[0]),
                        sqrt(all[0] / all[1])));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&rhs));
  PetscCall(local_destroy(&b.loc));
  PetscCall(PetscFree(b.pt.cells));
  femint_operator_destroy(&b.op);
  femint_form_destroy(&form);
  femint_space_destroy(&b.space);
  femint_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "the solver did not converge");
  return 0;
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(run());
  PetscCall(PetscFinalize());
  return 0;
}
