/* Example: a distributed finite element code with MPI and PETSc, femint integrating on each rank.
 *
 * 3D linear elasticity (E = 1, nu = 0.3) on a box of prisms or on the prisms of a Gmsh file, with
 * the manufactured solution u = (1, -2, 1.5) sin(pi x) sin(pi y) sin(pi z): it vanishes on the
 * boundary of any box whose sides are whole numbers (the unit cube, the [0,2]x[0,1]x[0,1] of
 * tests/data/prisms.msh), so homogeneous Dirichlet conditions on every boundary DOF hold, and the
 * body force f = -div sigma(u) is known. What it teaches:
 *   - every rank builds the same mesh and space and takes a run of cells; the DOFs it owns are a
 *     contiguous range (femint_space_dof_range), PETSc's ownership range;
 *   - femint_integrate with the rank's cells (femint_assemble_options.cells) hands the element
 *     matrices to a function that adds them, orientation signs applied, into a MATMPIAIJ with
 *     MatSetValues(ADD_VALUES) (negative DOFs, modes the minimum rule drops, are skipped by
 *     PETSc), while femint's load tasks integrate the body force of the same cells;
 *   - Dirichlet rows and columns from femint_space_boundary_dofs (MatZeroRowsColumns);
 *   - CG + GAMG with the 6 rigid-body modes as near null space: hierarchical bases represent
 *     linear fields by their vertex modes, so femint_space_interpolate_linear gives them exactly;
 *   - the L2 error from the rank's cells (femint_space_l2_error), with the ghost values of the
 *     solution brought by a VecScatter.
 *
 * Usage: mpirun -n R petsc_elasticity [-n N] [-mesh FILE.msh] [-order P] [-weak] [-perturb F]
 *                                       [-where any|cpu|opencl] [-timing] [PETSc options]
 *   -n N       the box has N x N x N hexahedra of 2 prisms each on the unit cube (4)
 *   -mesh F    the prisms of a Gmsh file instead (read whole by every rank)
 *   -order P   polynomial order 1..7 (2)
 *   -weak      N x N x N*R hexahedra on [0,1]x[0,1]x[0,R]: the same cells on each rank
 *   -perturb F move the interior box vertices at random by up to F times the spacing (0)
 *   -where W   where femint integrates: any worker, CPU workers only (no OpenCL device), OpenCL
 *   -timing    print each rank's assembly times
 *   -repeat K  assemble K times and report the fastest (the first run builds the OpenCL programs
 *              and calibrates StarPU's performance models) (1)
 *   -no_solve  stop after the assembly (for timing it) */
#include <femint.h>
#include <math.h>
#include <petscksp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A femint call inside a function that returns a PetscErrorCode. */
#define FEMINT_TRY(ctx, call)                                                                 \
  do {                                                                                        \
    int femint_e_ = (call);                                                                   \
    PetscCheck(femint_e_ == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "%s: %s (%s)", #call,          \
               femint_error_name(femint_e_), femint_last_error(ctx));                         \
  } while (0)

#define NRIGID 6

static const double amplitude[3] = {1, -2, 1.5};

struct material {
  double young, poisson, lambda, mu;
};

/* One rank's share: its run of cells and the DOFs it owns. */
struct part {
  int rank, size;
  int cell_begin, ncell, *cells;
  int64_t ndof, dof_begin, dof_end;
};

/* The exact displacement u = amplitude * s, s = sin(pi x) sin(pi y) sin(pi z). */
static void exact(const double x[3], const double n[3], int tag, void *user, double *u)
{
  const double s = sin(M_PI * x[0]) * sin(M_PI * x[1]) * sin(M_PI * x[2]);
  for (int k = 0; k < 3; k++) u[k] = amplitude[k] * s;
}

/* f = -div sigma(u) = -mu lap u - (lambda + mu) grad div u, with lap u = -3 pi^2 u and
 * (grad div u)_j = sum_i amplitude_i d_i d_j s. Called on femint's worker threads. */
static void body_force(const double x[3], const double n[3], int tag, void *user, double *f)
{
  const struct material *m = user;
  double sn[3], cs[3], H[3][3];
  for (int i = 0; i < 3; i++) sn[i] = sin(M_PI * x[i]), cs[i] = cos(M_PI * x[i]);
  const double s = sn[0] * sn[1] * sn[2];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      H[i][j] = i == j ? -M_PI * M_PI * s
                       : M_PI * M_PI * cs[i] * cs[j] * sn[3 - i - j]; /* the third direction */
  for (int j = 0; j < 3; j++) {
    double graddiv = 0;
    for (int i = 0; i < 3; i++) graddiv += amplitude[i] * H[i][j];
    f[j] = 3 * M_PI * M_PI * m->mu * amplitude[j] * s - (m->lambda + m->mu) * graddiv;
  }
}

/* What the element function needs: the matrix, a buffer for one signed element matrix, and the
 * first PETSc error (femint_integrate stops when the function returns non-zero). */
struct sink {
  Mat A;
  PetscScalar *Ae;
  PetscInt *rows;
  int *order; /* local rows by ascending DOF */
  PetscErrorCode perr;
  double t_set, c_set; /* wall and CPU seconds spent in here (signs and MatSetValues) */
};

/* Entry (i, j) of element matrix k of a batch, in either precision and storage. */
static double batch_entry(const struct femint_element_batch *b, int k, int i, int j)
{
  const int n = b->n;
  size_t at;
  if (!b->symmetric) {
    at = (size_t)k * n * n + (size_t)i * n + j;
  } else {
    const int r = i < j ? i : j, c = i < j ? j : i;
    at = (size_t)k * n * (n + 1) / 2 + (size_t)r * n - (size_t)r * (r - 1) / 2 + (c - r);
  }
  return b->precision == FEMINT_SINGLE ? ((const float *)b->mats)[at]
                                       : ((const double *)b->mats)[at];
}

/* CPU seconds of the process (every thread) and of the calling thread. */
static double clock_seconds(clockid_t id)
{
  struct timespec ts;
  clock_gettime(id, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
static double cpu_seconds(void) { return clock_seconds(CLOCK_PROCESS_CPUTIME_ID); }
static double thread_cpu_seconds(void) { return clock_seconds(CLOCK_THREAD_CPUTIME_ID); }

/* The local rows of a cell that carry a DOF (dofs[i] >= 0), by ascending DOF: PETSc finds the
 * columns of a row fastest when they come in increasing order. Returns how many. */
static int sorted_rows(int n, const int64_t *dofs, int *order)
{
  int m = 0;
  for (int i = 0; i < n; i++) {
    if (dofs[i] < 0) continue;
    int at = m++;
    for (; at > 0 && dofs[order[at - 1]] > dofs[i]; at--) order[at] = order[at - 1];
    order[at] = i;
  }
  return m;
}

/* femint_integrate's function: add each element matrix, signs applied, to the PETSc matrix. */
static int add_batch(const struct femint_element_batch *b, void *user)
{
  struct sink *s = user;
  const int n = b->n;
  const double t0 = MPI_Wtime(), c0 = thread_cpu_seconds();
  for (int k = 0; k < b->ncell; k++) {
    const int64_t *dofs = b->dofs + (size_t)k * n;
    const int *sg = b->signs + (size_t)k * n;
    const int m = sorted_rows(n, dofs, s->order);
    for (int a = 0; a < m; a++) {
      const int i = s->order[a];
      s->rows[a] = (PetscInt)dofs[i];
      for (int c = 0; c < m; c++) {
        const int j = s->order[c];
        s->Ae[(size_t)a * m + c] = sg[i] * sg[j] * batch_entry(b, k, i, j);
      }
    }
    s->perr = MatSetValues(s->A, m, s->rows, m, s->rows, s->Ae, ADD_VALUES);
    if (s->perr) return 1;
  }
  s->t_set += MPI_Wtime() - t0;
  s->c_set += thread_cpu_seconds() - c0;
  return 0;
}

/* The local DOFs of a cell as PETSc indices (-1 for dropped modes); returns how many. */
static PetscErrorCode cell_rows(femint_space_t space, int cell, int64_t *dofs, PetscInt *rows,
                                int *n)
{
  const int nc = femint_space_num_components(space), p = femint_space_cell_order(space, cell);
  *n = (p + 1) * (p + 1) * (p + 2) / 2 * nc; /* shape functions of a prism of order p */
  FEMINT_TRY(NULL, femint_space_cell_dofs(space, cell, dofs, NULL));
  for (int i = 0; i < *n; i++) rows[i] = (PetscInt)dofs[i];
  return 0;
}

/* A MATMPIAIJ preallocated exactly from the DOFs of the rank's cells (PETSc's preallocator
 * sends the entries of rows owned by other ranks to them), block size 3. */
static PetscErrorCode create_matrix(femint_space_t space, const struct part *pt, Mat *A)
{
  const PetscInt nlocal = (PetscInt)(pt->dof_end - pt->dof_begin), N = (PetscInt)pt->ndof;
  const int nmax = 288 * 3;
  Mat P;
  int64_t *dofs;
  PetscInt *rows;
  PetscScalar *zeros;
  PetscCall(PetscMalloc1(nmax, &dofs));
  PetscCall(PetscMalloc1(nmax, &rows));
  PetscCall(PetscCalloc1((size_t)nmax * nmax, &zeros));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &P));
  PetscCall(MatSetSizes(P, nlocal, nlocal, N, N));
  PetscCall(MatSetBlockSize(P, 3));
  PetscCall(MatSetType(P, MATPREALLOCATOR));
  PetscCall(MatSetUp(P));
  for (int k = 0; k < pt->ncell; k++) {
    int n;
    PetscCall(cell_rows(space, pt->cells[k], dofs, rows, &n));
    PetscCall(MatSetValues(P, n, rows, n, rows, zeros, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, nlocal, nlocal, N, N));
  PetscCall(MatSetBlockSize(*A, 3));
  PetscCall(MatSetType(*A, MATMPIAIJ));
  PetscCall(MatPreallocatorPreallocate(P, PETSC_TRUE, *A));
  PetscCall(MatDestroy(&P));
  PetscCall(PetscFree(zeros));
  PetscCall(PetscFree(rows));
  PetscCall(PetscFree(dofs));
  return 0;
}

/* The DOFs the rank's cells meet (owned and ghost), ascending. */
static PetscErrorCode cell_dof_list(femint_space_t space, const struct part *pt, PetscInt *n,
                                    PetscInt **list)
{
  char *met;
  int64_t dofs[288 * 3];
  PetscInt rows[288 * 3];
  PetscCall(PetscCalloc1(pt->ndof, &met));
  for (int k = 0; k < pt->ncell; k++) {
    int nr;
    PetscCall(cell_rows(space, pt->cells[k], dofs, rows, &nr));
    for (int i = 0; i < nr; i++)
      if (rows[i] >= 0) met[rows[i]] = 1;
  }
  *n = 0;
  for (int64_t d = 0; d < pt->ndof; d++) *n += met[d];
  PetscCall(PetscMalloc1(*n + 1, list));
  *n = 0;
  for (int64_t d = 0; d < pt->ndof; d++)
    if (met[d]) (*list)[(*n)++] = (PetscInt)d;
  PetscCall(PetscFree(met));
  return 0;
}

/* Seconds of one assembly on one rank. */
struct times {
  double integrate; /* femint_integrate, the element function included */
  double set;       /* of which in the element function (signs, MatSetValues) */
  double set_cpu;   /* the CPU seconds of the element function */
  double assembly;  /* MatAssemblyBegin/End: the entries of other ranks' rows travel */
  double cpu;       /* CPU seconds of the whole process (every thread) over both: the work
                       done, whatever else runs on the cores */
};



/* Integrate the rank's cells: the element matrices into A and the body force into b (femint's
 * load vector is a whole-length array on each rank; the entries of the DOFs its cells meet are
 * added to b). */
static PetscErrorCode assemble(femint_context_t ctx, femint_space_t space, femint_form_t form,
                               const struct part *pt, struct material *mat, int where, Mat A,
                               Vec b, struct times *t)
{
  struct sink s = {.A = A};
  double *rhs;
  PetscInt nmet, *met;
  PetscCall(PetscMalloc1((size_t)288 * 3 * 288 * 3, &s.Ae));
  PetscCall(PetscMalloc1(288 * 3, &s.rows));
  PetscCall(PetscMalloc1(288 * 3, &s.order));
  PetscCall(PetscCalloc1(pt->ndof, &rhs));
  struct femint_assemble_options opt = {.where = where, .rhs = rhs, .body = body_force,
                                        .user = mat, .cells = pt->cells, .ncells = pt->ncell};
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  double t0 = MPI_Wtime(), c0 = cpu_seconds();
  int err = femint_integrate(ctx, space, form, &opt, add_batch, &s, NULL);
  PetscCall(s.perr);
  FEMINT_TRY(ctx, err);
  double t1 = MPI_Wtime();
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  t->integrate = t1 - t0;
  t->set = s.t_set;
  t->set_cpu = s.c_set;
  t->assembly = MPI_Wtime() - t1;
  t->cpu = cpu_seconds() - c0;
  PetscCall(cell_dof_list(space, pt, &nmet, &met));
  for (PetscInt i = 0; i < nmet; i++) PetscCall(VecSetValue(b, met[i], rhs[met[i]], ADD_VALUES));
  PetscCall(VecAssemblyBegin(b));
  PetscCall(VecAssemblyEnd(b));
  PetscCall(PetscFree(met));
  PetscCall(PetscFree(rhs));
  PetscCall(PetscFree(s.order));
  PetscCall(PetscFree(s.rows));
  PetscCall(PetscFree(s.Ae));
  return 0;
}

/* Homogeneous Dirichlet conditions on every boundary DOF the rank owns: rows and columns zeroed,
 * 1 on the diagonal, 0 in b (MatZeroRowsColumns keeps A symmetric for CG). */
static PetscErrorCode apply_dirichlet(femint_space_t space, const struct part *pt, Mat A, Vec b,
                                      Vec x)
{
  int64_t n, *all;
  PetscInt *rows, nrows = 0;
  FEMINT_TRY(NULL, femint_space_boundary_dofs(space, 0, NULL, &n, NULL));
  PetscCall(PetscMalloc1(n + 1, &all));
  PetscCall(PetscMalloc1(n + 1, &rows));
  FEMINT_TRY(NULL, femint_space_boundary_dofs(space, 0, NULL, &n, all));
  for (int64_t i = 0; i < n; i++)
    if (all[i] >= pt->dof_begin && all[i] < pt->dof_end) rows[nrows++] = (PetscInt)all[i];
  PetscCall(VecSet(x, 0));
  PetscCall(MatZeroRowsColumns(A, nrows, rows, 1.0, x, b));
  PetscCall(PetscFree(rows));
  PetscCall(PetscFree(all));
  return 0;
}

/* The 3 translations and 3 rotations, interpolated exactly, orthonormalized (modified
 * Gram-Schmidt), as A's near null space for GAMG. */
static PetscErrorCode set_rigid_modes(femint_space_t space, const struct part *pt, Mat A)
{
  Vec r[NRIGID];
  double *full;
  MatNullSpace nsp;
  PetscCall(PetscMalloc1(pt->ndof, &full));
  for (int m = 0; m < NRIGID; m++) {
    double a[3] = {0, 0, 0}, B[9] = {0};
    if (m < 3) {
      a[m] = 1; /* translation along axis m */
    } else {
      const int i = (m - 2) % 3, j = (m - 1) % 3; /* rotation in the (i, j) plane */
      B[3 * i + j] = -1, B[3 * j + i] = 1;
    }
    FEMINT_TRY(NULL, femint_space_interpolate_linear(space, a, m < 3 ? NULL : B, full));
    PetscScalar *v;
    PetscCall(MatCreateVecs(A, &r[m], NULL));
    PetscCall(VecGetArray(r[m], &v));
    for (int64_t d = pt->dof_begin; d < pt->dof_end; d++) v[d - pt->dof_begin] = full[d];
    PetscCall(VecRestoreArray(r[m], &v));
    for (int k = 0; k < m; k++) {
      PetscScalar dot;
      PetscCall(VecDot(r[m], r[k], &dot));
      PetscCall(VecAXPY(r[m], -dot, r[k]));
    }
    PetscCall(VecNormalize(r[m], NULL));
  }
  PetscCall(MatNullSpaceCreate(PETSC_COMM_WORLD, PETSC_FALSE, NRIGID, r, &nsp));
  PetscCall(MatSetNearNullSpace(A, nsp));
  PetscCall(MatNullSpaceDestroy(&nsp));
  for (int m = 0; m < NRIGID; m++) PetscCall(VecDestroy(&r[m]));
  PetscCall(PetscFree(full));
  return 0;
}

/* The squared L2 error and the squared L2 norm of u over the rank's cells: the values of the
 * solution at the DOFs those cells meet (some owned by other ranks) are gathered by a
 * VecScatter into a whole-length array, the layout femint_space_l2_error reads. */
static PetscErrorCode local_errors(femint_space_t space, const struct part *pt, Vec x,
                                   double *err2, double *norm2)
{
  PetscInt n, *list;
  IS is;
  Vec xl;
  VecScatter sc;
  double *full;
  const PetscScalar *v;
  PetscCall(cell_dof_list(space, pt, &n, &list));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, n, list, PETSC_COPY_VALUES, &is));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, n, &xl));
  PetscCall(VecScatterCreate(x, is, xl, NULL, &sc));
  PetscCall(VecScatterBegin(sc, x, xl, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, x, xl, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(PetscCalloc1(pt->ndof, &full));
  PetscCall(VecGetArrayRead(xl, &v));
  for (PetscInt i = 0; i < n; i++) full[list[i]] = v[i];
  PetscCall(VecRestoreArrayRead(xl, &v));
  FEMINT_TRY(NULL, femint_space_l2_error(space, full, pt->ncell, pt->cells, exact, NULL, err2));
  memset(full, 0, (size_t)pt->ndof * sizeof *full);
  FEMINT_TRY(NULL, femint_space_l2_error(space, full, pt->ncell, pt->cells, exact, NULL, norm2));
  PetscCall(PetscFree(full));
  PetscCall(VecScatterDestroy(&sc));
  PetscCall(VecDestroy(&xl));
  PetscCall(ISDestroy(&is));
  PetscCall(PetscFree(list));
  return 0;
}

/* A checksum that depends on where each value sits: sum of x_i (1 + (i mod 7) / 7). */
static PetscErrorCode checksum(Vec x, double *sum)
{
  Vec w;
  PetscInt lo, hi;
  PetscScalar *v;
  PetscCall(VecDuplicate(x, &w));
  PetscCall(VecGetOwnershipRange(w, &lo, &hi));
  PetscCall(VecGetArray(w, &v));
  for (PetscInt i = lo; i < hi; i++) v[i - lo] = 1 + (i % 7) / 7.0;
  PetscCall(VecRestoreArray(w, &v));
  PetscCall(VecDot(x, w, sum));
  PetscCall(VecDestroy(&w));
  return 0;
}

/* The rank's run of cells (an even share, in mesh order) and the DOFs it owns. */
static PetscErrorCode make_part(femint_space_t space, int ncell_mesh, struct part *pt)
{
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &pt->rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &pt->size));
  pt->cell_begin = (int)((int64_t)pt->rank * ncell_mesh / pt->size);
  const int cell_end = (int)((int64_t)(pt->rank + 1) * ncell_mesh / pt->size);
  pt->ncell = cell_end - pt->cell_begin;
  PetscCall(PetscMalloc1(pt->ncell + 1, &pt->cells));
  for (int k = 0; k < pt->ncell; k++) pt->cells[k] = pt->cell_begin + k;
  pt->ndof = femint_space_num_dofs(space);
  PetscCheck(pt->ndof < PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "%lld DOFs need PETSc with 64-bit indices", (long long)pt->ndof);
  FEMINT_TRY(NULL, femint_space_dof_range(space, pt->cell_begin, cell_end, &pt->dof_begin,
                                          &pt->dof_end));
  return 0;
}

/* femint on this rank: one OpenCL device per rank of the node (local rank modulo the devices),
 * CPU workers on the cores of the rank's binding. */
static PetscErrorCode start_femint(int where, femint_context_t *ctx)
{
  MPI_Comm node;
  int local;
  PetscCallMPI(MPI_Comm_split_type(PETSC_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                                   &node));
  PetscCallMPI(MPI_Comm_rank(node, &local));
  PetscCallMPI(MPI_Comm_free(&node));
  struct femint_init_options o = {.nopencl = where == FEMINT_WHERE_CPU ? 0 : -1, .quiet = 1,
                                  .device_select = FEMINT_DEVICE_BY_LOCAL_RANK,
                                  .local_rank = local};
  PetscCheck(femint_init(&o, ctx) == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "femint_init: %s",
             femint_init_error());
  return 0;
}

struct settings {
  PetscInt n, order, repeat;
  PetscBool weak, timing, no_solve;
  PetscReal perturb;
  char mesh[PETSC_MAX_PATH_LEN];
  int where;
};

static PetscErrorCode read_settings(struct settings *st)
{
  char where[16] = "any";
  PetscBool has_mesh = PETSC_FALSE;
  st->n = 4, st->order = 2, st->repeat = 1, st->perturb = 0;
  st->weak = st->timing = st->no_solve = PETSC_FALSE;
  st->mesh[0] = '\0';
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &st->n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-order", &st->order, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-weak", &st->weak, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-timing", &st->timing, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeat", &st->repeat, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-no_solve", &st->no_solve, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-perturb", &st->perturb, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mesh", st->mesh, sizeof st->mesh, &has_mesh));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-where", where, sizeof where, NULL));
  st->where = !strcmp(where, "cpu") ? FEMINT_WHERE_CPU
              : !strcmp(where, "opencl") ? FEMINT_WHERE_OPENCL
              : !strcmp(where, "any") ? FEMINT_WHERE_ANY : -1;
  PetscCheck(st->where >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG,
             "-where %s: expected any, cpu or opencl", where);
  PetscCheck(st->n >= 1 && st->repeat >= 1 && st->order >= 1 && st->order <= FEMINT_MAX_ORDER,
             PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE,
             "-n %d -repeat %d -order %d: need n >= 1, repeat >= 1 and order 1..%d", (int)st->n,
             (int)st->repeat, (int)st->order, FEMINT_MAX_ORDER);
  return 0;
}

/* The same mesh on every rank: the box, or the whole Gmsh file. */
static PetscErrorCode make_mesh(femint_context_t ctx, const struct settings *st, int size,
                                femint_mesh_t *mesh, char *what, size_t len)
{
  if (st->mesh[0]) {
    FEMINT_TRY(ctx, femint_mesh_read_gmsh(ctx, st->mesh, mesh));
    snprintf(what, len, "gmsh %s (%d prisms)", st->mesh, femint_mesh_num_cells(*mesh));
    return 0;
  }
  const int n = (int)st->n, nz = st->weak ? n * size : n;
  FEMINT_TRY(ctx, femint_mesh_create_box(ctx, n, n, nz, 1, 1, st->weak ? size : 1,
                                         st->perturb, 1, mesh));
  snprintf(what, len, "box %dx%dx%d on [0,1]x[0,1]x[0,%d] (%d prisms)", n, n, nz,
           st->weak ? size : 1, femint_mesh_num_cells(*mesh));
  return 0;
}

/* Solve, report, and print what the tests compare: the L2 error and a norm and checksum of the
 * solution with enough digits. */
static PetscErrorCode solve_and_report(femint_space_t space, const struct part *pt, Mat A, Vec b,
                                       Vec x)
{
  KSP ksp;
  PC pc;
  PetscInt its;
  KSPConvergedReason reason;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCGAMG));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 1000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solve: CG + GAMG, %d iterations, %s\n", (int)its,
                        KSPConvergedReasons[reason]));
  double local[2], sum[2], norm, check;
  PetscCall(local_errors(space, pt, x, &local[0], &local[1]));
  PetscCallMPI(MPI_Allreduce(local, sum, 2, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(VecNorm(x, NORM_2, &norm));
  PetscCall(checksum(x, &check));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "L2 error: %.12e (relative %.6e)\n", sqrt(sum[0]),
                        sqrt(sum[0] / sum[1])));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solution: norm %.15e checksum %.15e\n", norm, check));
  PetscCall(KSPDestroy(&ksp));
  PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "the solver did not converge");
  return 0;
}

/* Each rank's assembly times, and the largest over the ranks. */
static PetscErrorCode report_times(const struct part *pt, PetscBool each, PetscInt repeat,
                                   const struct times *t)
{
  double mine[6] = {t->integrate, t->set, t->assembly, t->integrate + t->assembly, t->cpu,
                    t->set_cpu},
         top[6];
  PetscCallMPI(MPI_Allreduce(mine, top, 6, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
  if (each) {
    PetscCall(PetscSynchronizedPrintf(
        PETSC_COMM_WORLD,
        "rank %d: %d cells, DOFs [%lld, %lld), femint_integrate %.4f s (of which MatSetValues "
        "%.4f s, CPU %.4f s), MatAssembly %.4f s, CPU time %.4f s\n",
        pt->rank, pt->ncell, (long long)pt->dof_begin, (long long)pt->dof_end, t->integrate,
        t->set, t->set_cpu, t->assembly, t->cpu));
    PetscCall(PetscSynchronizedFlush(PETSC_COMM_WORLD, PETSC_STDOUT));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "assembly: femint_integrate %.4f s (of which MatSetValues %.4f s, CPU "
                        "%.4f s), MatAssembly %.4f s, total %.4f s, CPU time %.4f s (largest "
                        "over the ranks%s)\n",
                        top[0], top[1], top[5], top[2], top[3], top[4],
                        repeat > 1 ? ", best run" : ""));
  return 0;
}

static PetscErrorCode run(void)
{
  struct settings st;
  struct part pt = {0};
  struct material mat = {.young = 1, .poisson = 0.3};
  mat.lambda = mat.young * mat.poisson / ((1 + mat.poisson) * (1 - 2 * mat.poisson));
  mat.mu = mat.young / (2 * (1 + mat.poisson));
  femint_context_t ctx;
  femint_mesh_t mesh;
  femint_space_t space;
  femint_form_t form;
  char what[PETSC_MAX_PATH_LEN + 64];
  Mat A;
  Vec x, b;
  struct times best = {0};
  int size;
  PetscCall(read_settings(&st));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(start_femint(st.where, &ctx));
  PetscCall(make_mesh(ctx, &st, size, &mesh, what, sizeof what));
  FEMINT_TRY(ctx, femint_space_create(ctx, mesh, 3, NULL, (int)st.order, &space));
  FEMINT_TRY(ctx, femint_form_create_elasticity(ctx, 1, &mat.young, &mat.poisson, &form));
  PetscCall(make_part(space, femint_mesh_num_cells(mesh), &pt));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "mesh: %s\norder %d, %lld DOFs, %d ranks\n", what,
                        (int)st.order, (long long)pt.ndof, size));
  PetscCall(create_matrix(space, &pt, &A));
  PetscCall(MatCreateVecs(A, &x, &b));
  for (int r = 0; r < st.repeat; r++) {
    struct times t = {0};
    PetscCall(MatZeroEntries(A));
    PetscCall(VecSet(b, 0));
    PetscCall(assemble(ctx, space, form, &pt, &mat, st.where, A, b, &t));
    if (r == 0 || t.integrate + t.assembly < best.integrate + best.assembly) best = t;
  }
  PetscCall(report_times(&pt, st.timing, st.repeat, &best));
  if (!st.no_solve) {
    PetscCall(apply_dirichlet(space, &pt, A, b, x));
    PetscCall(set_rigid_modes(space, &pt, A));
    PetscCall(solve_and_report(space, &pt, A, b, x));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFree(pt.cells));
  femint_form_destroy(&form);
  femint_space_destroy(&space);
  femint_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  return 0;
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(run());
  PetscCall(PetscFinalize());
  return 0;
}
