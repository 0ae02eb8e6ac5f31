/* Example: a distributed finite element code with MPI and PETSc, femint integrating on each rank.
 *
 * 3D linear elasticity (E = 1, nu = 0.3) on a box of prisms or on the prisms of a Gmsh file, with
 * the manufactured solution u = (1, -2, 1.5) sin(pi x) sin(pi y) sin(pi z): it vanishes on the
 * boundary of any box whose sides are whole numbers (the unit cube, the [0,2]x[0,1]x[0,1] of
 * tests/data/prisms.msh), so homogeneous Dirichlet conditions on every boundary DOF hold, and the
 * body force f = -div sigma(u) is known. What it teaches:
 *   - every rank builds the same mesh and space and takes a run of cells; the DOFs it owns are a
 *     contiguous range (femint_space_dof_range), PETSc's ownership range;
 *   - an operator on the rank's cells (femint_operator_options.cells), made once: each
 *     femint_operator_integrate hands the element matrices to a function that puts them,
 *     orientation signs applied, in their places of the COO values of a MATMPIAIJ
 *     (MatSetPreallocationCOO once with the rank's (row, column) pairs, MatSetValuesCOO at each
 *     assembly: PETSc sums the duplicates and sends the rows of other ranks), or with -setvalues
 *     adds them by MatSetValues(ADD_VALUES); rows of negative DOFs (modes the minimum rule
 *     drops) are left out; femint_operator_load integrates the body force of the same cells;
 *   - Dirichlet rows and columns from femint_space_boundary_dofs (MatZeroRowsColumns);
 *   - CG + GAMG with the 6 rigid-body modes as near null space: hierarchical bases represent
 *     linear fields by their vertex modes, so femint_space_interpolate_linear gives them exactly;
 *   - the L2 error from the rank's cells (femint_space_l2_error), with the ghost values of the
 *     solution brought by a VecScatter;
 *   - with -distributed, a truly distributed mesh: each rank builds only its part (its slab of
 *     the box through femint_mesh_create_part, with the box's vertex numbers as global ids, or
 *     its partition of a partitioned Gmsh file through femint_mesh_read_gmsh_part), names its
 *     DOFs by femint_space_dof_keys, numbers them across the ranks with MPI (number_dofs in
 *     petsc_parts.c) and gives the numbers to femint (femint_space_set_global_dofs), whose
 *     element batches then carry them; Dirichlet conditions go on the faces of tag > 0, the
 *     rank's share of the boundary.
 *
 * Usage: mpirun -n R petsc_elasticity [-n N] [-mesh FILE.msh] [-order P] [-weak] [-perturb F]
 *                                       [-distributed] [-where any|cpu|opencl] [-timing]
 *                                       [PETSc options]
 *   -n N       the box has N x N x N hexahedra of 2 prisms each on the unit cube (4)
 *   -mesh F    the prisms of a Gmsh file instead (read whole by every rank)
 *   -order P   polynomial order 1..7 (2)
 *   -weak      N x N x N*R hexahedra on [0,1]x[0,1]x[0,R]: the same cells on each rank
 *   -perturb F move the interior box vertices at random by up to F times the spacing (0)
 *   -distributed  each rank builds its part only: the run of the box's cells it would integrate
 *              (unperturbed), or with -mesh partition rank + 1 of a file partitioned in R parts
 *   -where W   where femint integrates: any worker, CPU workers only (no OpenCL device), OpenCL
 *   -timing    print each rank's assembly times
 *   -repeat K  assemble K times and report the fastest (the first run calibrates StarPU's
 *              performance models; the operator built the OpenCL programs before) (1)
 *   -no_solve  stop after the assembly (for timing it)
 *   -setvalues insert element matrices with MatSetValues (into a matrix preallocated by
 *              MATPREALLOCATOR) instead of the COO interface (MatSetPreallocationCOO once,
 *              MatSetValuesCOO at each assembly) */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "petsc_common.h"

#define NRIGID 6

static const double amplitude[3] = {1, -2, 1.5};

struct material {
  double young, poisson, lambda, mu;
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

struct coo;

/* What the element function needs: the matrix, a buffer for one signed element matrix, and the
 * first PETSc error (femint_operator_integrate stops when the function returns non-zero). */
struct sink {
  Mat A;
  PetscScalar *Ae;
  PetscInt *rows;
  int *order; /* local rows by ascending DOF */
  const struct coo *coo; /* not NULL: the entries go to the COO values instead */
  PetscErrorCode perr;
  double t_set, c_set; /* wall and CPU seconds spent in here (signs, COO values or MatSetValues) */
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

/* The COO form of the matrix (PETSc's MatSetPreallocationCOO / MatSetValuesCOO): the rank's
 * cells' entries (row, column) given once, each cell's n_k^2 entries (its rows with a DOF, in
 * local order, squared) from off[k]; every assembly only fills v in the same places and PETSc
 * sums the duplicates and sends other ranks' rows. No search of the sparse structure per entry,
 * which is what MatSetValues spends its time on. */
struct coo {
  PetscCount n;
  PetscCount *off; /* [ncell of the part] */
  int *pos;        /* [cells of the mesh] the part's index of a cell, -1 if not the rank's */
  PetscScalar *v;  /* [n] */
};

/* An element batch into the COO values: each cell's signed matrix at its place. */
static void batch_to_coo(const struct femint_element_batch *b, const struct coo *coo)
{
  const int n = b->n;
  for (int k = 0; k < b->ncell; k++) {
    const int64_t *dofs = b->dofs + (size_t)k * n;
    const int *sg = b->signs + (size_t)k * n;
    PetscScalar *v = coo->v + coo->off[coo->pos[b->cells[k]]];
    for (int i = 0; i < n; i++) {
      if (dofs[i] < 0) continue;
      for (int j = 0; j < n; j++)
        if (dofs[j] >= 0) *v++ = sg[i] * sg[j] * batch_entry(b, k, i, j);
    }
  }
}

/* femint_operator_integrate's function: add each element matrix, signs applied, to the PETSc
 * matrix (or to its COO values). */
static int add_batch(const struct femint_element_batch *b, void *user)
{
  struct sink *s = user;
  const int n = b->n;
  const double t0 = MPI_Wtime(), c0 = thread_cpu_seconds();
  if (s->coo) {
    batch_to_coo(b, s->coo);
    s->t_set += MPI_Wtime() - t0;
    s->c_set += thread_cpu_seconds() - c0;
    return 0;
  }
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

/* The DOFs of a cell as global PETSc indices (-1 for dropped modes); returns how many. */
static PetscErrorCode cell_rows(femint_space_t space, const struct part *pt, int cell,
                                int64_t *dofs, PetscInt *rows, int *n)
{
  *n = femint_space_cell_size(space, cell);
  FEMINT_TRY(NULL, *n < 0 ? *n : 0);
  FEMINT_TRY(NULL, femint_space_cell_dofs(space, cell, dofs, NULL));
  for (int i = 0; i < *n; i++) rows[i] = to_global(pt, dofs[i]);
  return 0;
}

/* A MATMPIAIJ preallocated exactly from the DOFs of the rank's cells (PETSc's preallocator
 * sends the entries of rows owned by other ranks to them), block size 3. */
static PetscErrorCode create_matrix(femint_space_t space, const struct part *pt, Mat *A)
{
  const PetscInt nlocal = (PetscInt)(pt->dof_end - pt->dof_begin), N = (PetscInt)pt->ndof;
  const int nmax = NMAX;
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
    PetscCall(cell_rows(space, pt, pt->cells[k], dofs, rows, &n));
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

/* A MATMPIAIJ with the COO entries of the rank's cells (see struct coo), block size 3. */
static PetscErrorCode create_matrix_coo(femint_space_t space, const struct part *pt, int ncell_mesh,
                                        Mat *A, struct coo *coo)
{
  const PetscInt nlocal = (PetscInt)(pt->dof_end - pt->dof_begin), N = (PetscInt)pt->ndof;
  int64_t dofs[NMAX];
  PetscInt rows[NMAX], *ci, *cj;
  PetscCall(PetscMalloc1(pt->ncell + 1, &coo->off));
  PetscCall(PetscMalloc1(ncell_mesh + 1, &coo->pos));
  for (int c = 0; c < ncell_mesh; c++) coo->pos[c] = -1;
  coo->n = 0;
  for (int k = 0; k < pt->ncell; k++) {
    int n, m = 0;
    PetscCall(cell_rows(space, pt, pt->cells[k], dofs, rows, &n));
    for (int i = 0; i < n; i++) m += rows[i] >= 0;
    coo->pos[pt->cells[k]] = k;
    coo->off[k] = coo->n;
    coo->n += (PetscCount)m * m;
  }
  PetscCall(PetscMalloc1(coo->n + 1, &ci));
  PetscCall(PetscMalloc1(coo->n + 1, &cj));
  PetscCall(PetscMalloc1(coo->n + 1, &coo->v));
  for (int k = 0; k < pt->ncell; k++) {
    int n;
    PetscCall(cell_rows(space, pt, pt->cells[k], dofs, rows, &n));
    PetscCount at = coo->off[k];
    for (int i = 0; i < n; i++) {
      if (rows[i] < 0) continue;
      for (int j = 0; j < n; j++)
        if (rows[j] >= 0) ci[at] = rows[i], cj[at++] = rows[j];
    }
  }
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, nlocal, nlocal, N, N));
  PetscCall(MatSetBlockSize(*A, 3));
  PetscCall(MatSetType(*A, MATMPIAIJ));
  PetscCall(MatSetPreallocationCOO(*A, coo->n, ci, cj));
  PetscCall(PetscFree(ci));
  PetscCall(PetscFree(cj));
  return 0;
}

/* The global DOFs the rank's cells meet (owned and ghost), ascending. */
static PetscErrorCode cell_dof_list(femint_space_t space, const struct part *pt, PetscInt *n,
                                    PetscInt **list)
{
  int64_t dofs[NMAX];
  PetscInt rows[NMAX], room = 0, m = 0;
  for (int k = 0; k < pt->ncell; k++) {
    const int n = femint_space_cell_size(space, pt->cells[k]);
    FEMINT_TRY(NULL, n < 0 ? n : 0);
    room += n;
  }
  PetscCall(PetscMalloc1(room + 1, list));
  for (int k = 0; k < pt->ncell; k++) {
    int nr;
    PetscCall(cell_rows(space, pt, pt->cells[k], dofs, rows, &nr));
    for (int i = 0; i < nr; i++)
      if (rows[i] >= 0) (*list)[m++] = rows[i];
  }
  PetscCall(PetscSortRemoveDupsInt(&m, *list));
  *n = m;
  return 0;
}

/* Seconds of one assembly on one rank. */
struct times {
  double integrate; /* femint_operator_integrate, the element function included */
  double set;       /* of which in the element function (signs, MatSetValues) */
  double set_cpu;   /* the CPU seconds of the element function */
  double assembly;  /* PETSc's assembly: MatSetValuesCOO (the COO interface), MatAssemblyBegin/End;
                       the entries of other ranks' rows travel */
  double cpu;       /* CPU seconds of the whole process (every thread) over both: the work
                       done, whatever else runs on the cores */
  double load;      /* femint_operator_load, the body force (not part of the matrix's times) */
};

/* Integrate the rank's cells (the operator's): the element matrices into A and the body force
 * into b (femint's load vector is an array over the DOFs of the rank's space, zero outside its
 * cells; its entries are added to b at their global numbers). */
static PetscErrorCode assemble(femint_context_t ctx, femint_operator_t op, const struct part *pt,
                               struct material *mat, const struct coo *coo, Mat A, Vec b,
                               struct times *t)
{
  struct sink s = {.A = A, .coo = coo};
  double *rhs;
  PetscCall(PetscMalloc1((size_t)NMAX * NMAX, &s.Ae));
  PetscCall(PetscMalloc1(NMAX, &s.rows));
  PetscCall(PetscMalloc1(NMAX, &s.order));
  PetscCall(PetscCalloc1(pt->nlocal, &rhs));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  double t0 = MPI_Wtime(), c0 = cpu_seconds();
  int err = femint_operator_integrate(op, add_batch, &s, NULL);
  PetscCall(s.perr);
  FEMINT_TRY(ctx, err);
  double t1 = MPI_Wtime();
  if (coo) PetscCall(MatSetValuesCOO(A, coo->v, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  t->integrate = t1 - t0;
  t->set = s.t_set;
  t->set_cpu = s.c_set;
  t->assembly = MPI_Wtime() - t1;
  t->cpu = cpu_seconds() - c0;
  t1 = MPI_Wtime();
  const struct femint_load load = {.body = body_force, .user = mat};
  FEMINT_TRY(ctx, femint_operator_load(op, &load, rhs));
  t->load = MPI_Wtime() - t1;
  for (int64_t d = 0; d < pt->nlocal; d++)
    if (rhs[d] != 0) PetscCall(VecSetValue(b, to_global(pt, d), rhs[d], ADD_VALUES));
  PetscCall(VecAssemblyBegin(b));
  PetscCall(VecAssemblyEnd(b));
  PetscCall(PetscFree(rhs));
  PetscCall(PetscFree(s.order));
  PetscCall(PetscFree(s.rows));
  PetscCall(PetscFree(s.Ae));
  return 0;
}

/* Homogeneous Dirichlet conditions on the boundary DOFs: rows and columns zeroed, 1 on the
 * diagonal, 0 in b (MatZeroRowsColumns keeps A symmetric for CG). Replicated, each rank lists the
 * boundary DOFs it owns. Distributed, a rank knows the DOFs on its share of the boundary (the
 * faces of tag > 0: the faces between parts have tag 0), not whether the DOFs it owns that lie
 * on the boundary through another rank's faces are there: it lists all it knows, and PETSc sends
 * the rows to their owners. */
static PetscErrorCode apply_dirichlet(femint_space_t space, const struct part *pt, Mat A, Vec b,
                                      Vec x)
{
  const int ntag = pt->global ? -1 : 0;
  int64_t n, *all;
  PetscInt *rows, nrows = 0;
  FEMINT_TRY(NULL, femint_space_boundary_dofs(space, ntag, NULL, &n, NULL));
  PetscCall(PetscMalloc1(n + 1, &all));
  PetscCall(PetscMalloc1(n + 1, &rows));
  FEMINT_TRY(NULL, femint_space_boundary_dofs(space, ntag, NULL, &n, all));
  for (int64_t i = 0; i < n; i++) {
    const PetscInt g = to_global(pt, all[i]);
    if (pt->global || (g >= pt->dof_begin && g < pt->dof_end)) rows[nrows++] = g;
  }
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
  PetscCall(PetscMalloc1(pt->nlocal, &full));
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
    for (int64_t d = 0; d < pt->nlocal; d++) {
      const PetscInt g = to_global(pt, d);
      if (g >= pt->dof_begin && g < pt->dof_end) v[g - pt->dof_begin] = full[d];
    }
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
 * VecScatter into an array over the DOFs of the rank's space, the layout femint_space_l2_error
 * reads. */
static PetscErrorCode local_errors(femint_space_t space, const struct part *pt, Vec x,
                                   double *err2, double *norm2)
{
  PetscInt n = 0, *list;
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
  PetscCall(PetscCalloc1(pt->nlocal, &full));
  PetscCall(VecGetArrayRead(xl, &v));
  for (int64_t d = 0; d < pt->nlocal; d++) {
    PetscInt at;
    PetscCall(PetscFindInt(to_global(pt, d), n, list, &at));
    if (at >= 0) full[d] = v[at];
  }
  PetscCall(VecRestoreArrayRead(xl, &v));
  FEMINT_TRY(NULL, femint_space_l2_error(space, full, pt->ncell, pt->cells, exact, NULL, err2));
  memset(full, 0, (size_t)pt->nlocal * sizeof *full);
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

static PetscErrorCode read_settings(struct settings *st)
{
  PetscBool has_mesh = PETSC_FALSE;
  st->shape = FEMINT_PRISM;
  st->n = 4, st->order = 2, st->repeat = 1, st->perturb = 0;
  st->weak = st->timing = st->no_solve = st->distributed = st->setvalues = PETSC_FALSE;
  st->mesh[0] = '\0';
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &st->n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-order", &st->order, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-weak", &st->weak, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-timing", &st->timing, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeat", &st->repeat, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-no_solve", &st->no_solve, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-distributed", &st->distributed, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-setvalues", &st->setvalues, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-perturb", &st->perturb, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mesh", st->mesh, sizeof st->mesh, &has_mesh));
  PetscCall(get_where(&st->where));
  PetscCheck(st->n >= 1 && st->repeat >= 1 && st->order >= 1 && st->order <= FEMINT_MAX_ORDER,
             PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE,
             "-n %d -repeat %d -order %d: need n >= 1, repeat >= 1 and order 1..%d", (int)st->n,
             (int)st->repeat, (int)st->order, FEMINT_MAX_ORDER);
  PetscCheck(!st->distributed || st->perturb == 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP,
             "-distributed builds the box unperturbed (its perturbation is made on the whole)");
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
  double mine[7] = {t->integrate, t->set, t->assembly, t->integrate + t->assembly, t->cpu,
                    t->set_cpu, t->load},
         top[7];
  PetscCallMPI(MPI_Allreduce(mine, top, 7, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
  if (each) {
    PetscCall(PetscSynchronizedPrintf(
        PETSC_COMM_WORLD,
        "rank %d: %d cells, DOFs [%lld, %lld), femint_operator_integrate %.4f s (of which the "
        "element function %.4f s, CPU %.4f s), PETSc assembly %.4f s, CPU time %.4f s, "
        "femint_operator_load %.4f s\n",
        pt->rank, pt->ncell, (long long)pt->dof_begin, (long long)pt->dof_end, t->integrate,
        t->set, t->set_cpu, t->assembly, t->cpu, t->load));
    PetscCall(PetscSynchronizedFlush(PETSC_COMM_WORLD, PETSC_STDOUT));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "assembly: femint_operator_integrate %.4f s (of which the element "
                        "function %.4f s, CPU %.4f s), PETSc assembly %.4f s, total %.4f s, CPU "
                        "time %.4f s (largest over the ranks%s); the load vector: "
                        "femint_operator_load %.4f s\n",
                        top[0], top[1], top[5], top[2], top[3], top[4],
                        repeat > 1 ? ", best run" : "", top[6]));
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
  femint_operator_t op;
  char what[PETSC_MAX_PATH_LEN + 64];
  Mat A;
  Vec x, b;
  struct times best = {0};
  int size;
  PetscCall(read_settings(&st));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(start_femint(st.where, &ctx));
  if (st.distributed) {
    int rank;
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    PetscCall(make_mesh_part(ctx, &st, rank, size, &mesh, what, sizeof what));
  } else {
    PetscCall(make_mesh(ctx, &st, size, &mesh, what, sizeof what));
  }
  FEMINT_TRY(ctx, femint_space_create(ctx, mesh, FEMINT_H1, 3, NULL, (int)st.order, &space));
  FEMINT_TRY(ctx, femint_form_create_elasticity(ctx, 1, &mat.young, &mat.poisson, &form));
  if (st.distributed) PetscCall(make_dist_part(space, femint_mesh_num_cells(mesh), &pt));
  else PetscCall(make_part(space, femint_mesh_num_cells(mesh), &pt));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "mesh: %s\norder %d, %lld DOFs, %d ranks%s\n", what,
                        (int)st.order, (long long)pt.ndof, size,
                        st.distributed ? ", each with its part" : ""));
  struct coo coo = {0};
  if (st.setvalues) PetscCall(create_matrix(space, &pt, &A));
  else PetscCall(create_matrix_coo(space, &pt, femint_mesh_num_cells(mesh), &A, &coo));
  PetscCall(MatCreateVecs(A, &x, &b));
  /* The operator plans the rank's cells once, for every assembly. */
  const struct femint_operator_options opt = {.where = st.where, .cells = pt.cells,
                                              .ncells = pt.ncell};
  FEMINT_TRY(ctx, femint_operator_create(ctx, space, 1, &form, &opt, &op));
  for (int r = 0; r < st.repeat; r++) {
    struct times t = {0};
    PetscCall(MatZeroEntries(A));
    PetscCall(VecSet(b, 0));
    PetscCall(assemble(ctx, op, &pt, &mat, st.setvalues ? NULL : &coo, A, b, &t));
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
  PetscCall(PetscFree(coo.off));
  PetscCall(PetscFree(coo.pos));
  PetscCall(PetscFree(coo.v));
  PetscCall(PetscFree(pt.cells));
  PetscCall(PetscFree(pt.global));
  femint_operator_destroy(&op);
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
