/* Test: for every shape (prisms of mixed orders with 3 components, straight and curved
 * quadrilaterals of mixed orders, curved tetrahedra in H(curl)) and every form, the assembly paths
 * and options agree: rows and COO give the same matrices, full and upper-half storage too (H1),
 * single precision the double matrices to single accuracy, CPU-only the OpenCL-only ones; and the
 * matrices of the parts of a cell partition (femint_operator_options.cells) add up to the whole;
 * from the third COO assembly on a device on, the matrices are lent memory of the context's,
 * reused and kept past the context's end. */
#include <stdlib.h>

#include "common.h"

#define MAX_FORMS 6

/* A mesh, a space on it and forms of the space's family and components; the first nsym forms
 * are symmetric (upper-half storage is tried on them, H1 only). */
struct shape_case {
  char name[64];
  femint_mesh_t mesh;
  femint_space_t space;
  int nform, nsym;
  femint_form_t forms[MAX_FORMS];
  const char *form_name[MAX_FORMS];
};

/* Random coefficients of the generic form with ne components, the z derivatives left out in 2D. */
static void generic_coefficients(int ne, int dim, uint64_t *rng, double *c)
{
  for (int i = 0; i < ne * ne * 16; i++) {
    const int jd = i % 4, id = i / 4 % 4;
    c[i] = id > dim || jd > dim ? 0 : test_rand(rng) - 0.5;
  }
}

static void case_prisms(femint_context_t ctx, uint64_t *rng, struct shape_case *k)
{
  snprintf(k->name, sizeof k->name, "prisms, orders 1..3, 3 components");
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_PRISM, 3, 2, 2, 1, 0.9, 1.1, 0.2, 9, &k->mesh));
  const int nc = femint_mesh_num_cells(k->mesh);
  int *orders = malloc(sizeof *orders * nc);
  double *E = malloc(sizeof *E * nc), *nu = malloc(sizeof *nu * nc), c[3 * 3 * 16];
  for (int i = 0; i < nc; i++) {
    orders[i] = 1 + (i * 7 / 3) % 3;
    E[i] = 1 + test_rand(rng);
    nu[i] = 0.1 + 0.3 * test_rand(rng);
  }
  TAP_CALL(ctx, femint_space_create(ctx, k->mesh, FEMINT_H1, 3, orders, 0, &k->space));
  TAP_CALL(ctx, femint_space_remove_boundary_dofs(k->space, 1, (const int[]){1}));
  const double one = 1, rho = 1.3;
  generic_coefficients(3, 3, rng, c);
  TAP_CALL(ctx, femint_form_create_elasticity(ctx, nc, E, nu, &k->forms[0]));
  TAP_CALL(ctx, femint_form_create_laplace(ctx, 3, 1, &one, &k->forms[1]));
  TAP_CALL(ctx, femint_form_create_mass(ctx, 3, 1, &rho, &k->forms[2]));
  TAP_CALL(ctx, femint_form_create_generic(ctx, 3, 1, c, &k->forms[3]));
  k->nform = 4;
  k->nsym = 3;
  k->form_name[0] = "elasticity", k->form_name[1] = "laplace", k->form_name[2] = "mass";
  k->form_name[3] = "generic";
  free(orders);
  free(E);
  free(nu);
}

static void case_quads(femint_context_t ctx, uint64_t *rng, double warp, struct shape_case *k)
{
  snprintf(k->name, sizeof k->name, "%s quadrilaterals, orders 1..5, 2 components",
           warp > 0 ? "curved" : "straight");
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_QUAD, 4, 3, 1, 1.2, 1, 1, 0.2, 4, &k->mesh));
  if (warp > 0) TAP_CALL(ctx, femint_mesh_warp(k->mesh, warp));
  const int nc = femint_mesh_num_cells(k->mesh);
  int *orders = malloc(sizeof *orders * nc);
  for (int i = 0; i < nc; i++) orders[i] = 1 + (i * 5 / 3) % 5;
  TAP_CALL(ctx, femint_space_create(ctx, k->mesh, FEMINT_H1, 2, orders, 0, &k->space));
  const double E = 2, nu = 0.3, one = 1, rho = 0.7;
  double c[2 * 2 * 16];
  generic_coefficients(2, 2, rng, c);
  TAP_CALL(ctx, femint_form_create_plane_elasticity(ctx, FEMINT_PLANE_STRESS, 1, &E, &nu,
                                                    &k->forms[0]));
  TAP_CALL(ctx, femint_form_create_plane_elasticity(ctx, FEMINT_PLANE_STRAIN, 1, &E, &nu,
                                                    &k->forms[1]));
  TAP_CALL(ctx, femint_form_create_laplace(ctx, 2, 1, &one, &k->forms[2]));
  TAP_CALL(ctx, femint_form_create_mass(ctx, 2, 1, &rho, &k->forms[3]));
  TAP_CALL(ctx, femint_form_create_generic(ctx, 2, 1, c, &k->forms[4]));
  k->nform = 5;
  k->nsym = 4;
  k->form_name[0] = "plane stress", k->form_name[1] = "plane strain";
  k->form_name[2] = "laplace", k->form_name[3] = "mass", k->form_name[4] = "generic";
  free(orders);
}

/* Random symmetric positive definite 3 x 3 tensors, one per cell. */
static void random_tensors(int n, uint64_t *rng, double *A)
{
  for (int c = 0; c < n; c++) {
    double L[9] = {0};
    for (int i = 0; i < 3; i++)
      for (int j = 0; j <= i; j++)
        L[3 * i + j] = i == j ? 1 + test_rand(rng) : 0.3 * (test_rand(rng) - 0.5);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        double s = 0;
        for (int q = 0; q < 3; q++) s += L[3 * i + q] * L[3 * j + q];
        A[9 * c + 3 * i + j] = s;
      }
  }
}

static void case_tets(femint_context_t ctx, uint64_t *rng, struct shape_case *k)
{
  snprintf(k->name, sizeof k->name, "curved tetrahedra, H(curl) of order 2");
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_TET, 2, 2, 2, 1, 1.1, 0.9, 0, 1, &k->mesh));
  TAP_CALL(ctx, femint_mesh_warp(k->mesh, 0.06));
  const int nc = femint_mesh_num_cells(k->mesh);
  TAP_CALL(ctx, femint_space_create(ctx, k->mesh, FEMINT_HCURL, 1, NULL, 2, &k->space));
  TAP_CALL(ctx, femint_space_remove_boundary_dofs(k->space, 2, (const int[]){1, 4}));
  double *eps = malloc(sizeof *eps * 9 * nc), *mu = malloc(sizeof *mu * 9 * nc);
  random_tensors(nc, rng, eps);
  random_tensors(nc, rng, mu);
  TAP_CALL(ctx, femint_form_create_hcurl_mass(ctx, nc, 1, eps, &k->forms[0]));
  TAP_CALL(ctx, femint_form_create_curlcurl(ctx, nc, 1, mu, &k->forms[1]));
  k->nform = 2;
  k->nsym = 0;
  k->form_name[0] = "hcurl_mass", k->form_name[1] = "curlcurl";
  free(eps);
  free(mu);
}

static void case_free(struct shape_case *k)
{
  for (int f = 0; f < k->nform; f++) femint_form_destroy(&k->forms[f]);
  femint_space_destroy(&k->space);
  femint_mesh_destroy(&k->mesh);
}

/* The matrices of nform forms (from first) with these options. */
static void assemble(femint_context_t ctx, const struct shape_case *k, int first, int nform,
                     struct femint_operator_options o, femint_matrix_t *A,
                     struct femint_stats *st)
{
  o.max_batch = 5;
  TAP_CALL(ctx, test_assemble(ctx, k->space, nform, k->forms + first, &o, A, st));
}

/* The largest relative difference of the matrices B[0..n) from A[first..first+n); writes the form
 * that differs most into *worst. */
static double compare(const struct shape_case *k, femint_matrix_t *A, int first, femint_matrix_t *B,
                      int n, const char **worst)
{
  double d = 0;
  *worst = "none";
  for (int f = 0; f < n; f++) {
    const double e = test_matrix_reldiff(B[f], A[first + f]);
    if (e >= d) d = e, *worst = k->form_name[first + f];
  }
  return d;
}

static void destroy_all(femint_matrix_t *A, int n)
{
  for (int f = 0; f < n; f++) femint_matrix_destroy(&A[f]);
}

/* y = sum over the parts (cells c with c mod 3 = r, listed backwards) of A_part x, against A x:
 * the largest relative difference over the forms. */
static double parts_case(femint_context_t ctx, const struct shape_case *k, femint_matrix_t *A,
                         int assembly, uint64_t *rng)
{
  const int nc = femint_mesh_num_cells(k->mesh);
  const int64_t n = femint_space_num_dofs(k->space);
  double *x = malloc(sizeof *x * n), *y = calloc((size_t)n * k->nform, sizeof *y);
  double *yp = malloc(sizeof *yp * n), *ya = malloc(sizeof *ya * n);
  int *cells = malloc(sizeof *cells * nc);
  for (int64_t i = 0; i < n; i++) x[i] = test_rand(rng) - 0.5;
  for (int r = 0; r < 3; r++) {
    int m = 0;
    for (int c = nc - 1; c >= 0; c--)
      if (c % 3 == r) cells[m++] = c;
    femint_matrix_t P[MAX_FORMS];
    assemble(ctx, k, 0, k->nform,
             (struct femint_operator_options){.assembly = assembly, .cells = cells, .ncells = m},
             P, NULL);
    for (int f = 0; f < k->nform; f++) {
      femint_matrix_mult(P[f], x, yp);
      for (int64_t i = 0; i < n; i++) y[f * n + i] += yp[i];
    }
    destroy_all(P, k->nform);
  }
  double d = 0;
  for (int f = 0; f < k->nform; f++) {
    femint_matrix_mult(A[f], x, ya);
    d = fmax(d, tap_reldiff(y + f * n, ya, (size_t)n));
  }
  free(x);
  free(y);
  free(yp);
  free(ya);
  free(cells);
  return d;
}

static void run_case(femint_context_t ctx, int nocl, struct shape_case *k, uint64_t *rng)
{
  const int nf = k->nform;
  femint_matrix_t R[MAX_FORMS], B[MAX_FORMS];
  struct femint_stats st;
  const char *w;
  assemble(ctx, k, 0, nf, (struct femint_operator_options){.assembly = FEMINT_ASSEMBLY_ROWS}, R,
           &st);
  tap_diag("%s: %d cells, %lld DOFs, %lld non-zeros, %d forms", k->name, st.ncell,
           (long long)st.ndof, (long long)st.nnz, nf);

  /* Rows and COO (on the device where there is one, and on a CPU team). */
  assemble(ctx, k, 0, nf, (struct femint_operator_options){.assembly = FEMINT_ASSEMBLY_COO}, B,
           &st);
  double d = compare(k, R, 0, B, nf, &w);
  destroy_all(B, nf);
  assemble(ctx, k, 0, nf,
           (struct femint_operator_options){.assembly = FEMINT_ASSEMBLY_COO,
                                            .where = FEMINT_WHERE_CPU},
           B, NULL);
  const double d2 = compare(k, R, 0, B, nf, &w);
  destroy_all(B, nf);
  tap_ok(d < 1e-14 && d2 < 1e-14 && st.assembly == FEMINT_ASSEMBLY_COO,
         "%s: rows and COO (%s) give the same matrices of every form: %.1e, and COO on a CPU "
         "team %.1e (worst: %s)",
         k->name, st.on_device ? "on the device" : "on a CPU team", d, d2, w);

  /* Upper-half storage of the symmetric forms, by rows and through COO; refused for others. */
  if (k->nsym > 0) {
    double ds = 0;
    for (int as = FEMINT_ASSEMBLY_ROWS; as <= FEMINT_ASSEMBLY_COO; as++) {
      assemble(ctx, k, 0, k->nsym,
               (struct femint_operator_options){.assembly = as, .symmetric = 1}, B, NULL);
      ds = fmax(ds, compare(k, R, 0, B, k->nsym, &w));
      destroy_all(B, k->nsym);
    }
    femint_operator_t op = NULL;
    const int rc = femint_operator_create(ctx, k->space, nf, k->forms,
                                          &(struct femint_operator_options){.symmetric = 1}, &op);
    tap_ok(ds < 1e-14 && rc == FEMINT_ENOTSUP && !op,
           "%s: full and upper-half storage agree for the %d symmetric forms, by rows and "
           "through COO (%.1e, worst: %s); upper halves of the generic form are refused (%s)",
           k->name, k->nsym, ds, w, femint_error_name(rc));
  }

  /* Single precision against double, by rows and through COO. */
  double dsg = 0;
  for (int as = FEMINT_ASSEMBLY_ROWS; as <= FEMINT_ASSEMBLY_COO; as++) {
    assemble(ctx, k, 0, nf,
             (struct femint_operator_options){.assembly = as, .precision = FEMINT_SINGLE}, B,
             NULL);
    dsg = fmax(dsg, compare(k, R, 0, B, nf, &w));
    destroy_all(B, nf);
  }
  tap_ok(dsg < 1e-5, "%s: single precision gives the double matrices to %.1e < 1e-5 (worst: %s)",
         k->name, dsg, w);

  /* CPU workers only against OpenCL workers only. */
  if (nocl > 0) {
    femint_matrix_t C[MAX_FORMS];
    assemble(ctx, k, 0, nf, (struct femint_operator_options){.where = FEMINT_WHERE_CPU}, C, &st);
    const int cpu_tasks = st.tasks_cpu, cpu_ocl = st.tasks_opencl;
    assemble(ctx, k, 0, nf, (struct femint_operator_options){.where = FEMINT_WHERE_OPENCL}, B,
             &st);
    const double dc = compare(k, C, 0, B, nf, &w);
    tap_ok(dc < 1e-12 && cpu_tasks > 0 && cpu_ocl == 0 && st.tasks_cpu == 0 &&
               st.tasks_opencl > 0,
           "%s: CPU workers only (%d tasks) and OpenCL workers only (%d tasks) agree to %.1e < "
           "1e-12 (worst: %s)",
           k->name, cpu_tasks, st.tasks_opencl, dc, w);
    destroy_all(B, nf);
    destroy_all(C, nf);
  } else
    tap_diag("%s: no OpenCL worker, CPU against OpenCL skipped", k->name);

  /* A partition of the cells: the parts' matrices add up to the whole. */
  const double dp = fmax(parts_case(ctx, k, R, FEMINT_ASSEMBLY_ROWS, rng),
                         parts_case(ctx, k, R, FEMINT_ASSEMBLY_COO, rng));
  tap_ok(dp < 1e-13,
         "%s: cells by c mod 3 (options.cells, by rows and through COO): the parts' A x add up to "
         "the whole's of every form (%.1e)",
         k->name, dp);
  destroy_all(R, nf);
}

/* From the third COO assembly of one operator on a device on, the matrices are lent memory of
 * the context's: every assembly gives the first one's values exactly (the same sums in the same
 * order), a destroyed lent matrix's memory is taken again by the next assembly, and the matrices
 * still alive when the context ends keep their values (copied out by femint_finalize; checked
 * after it by the caller through keep[] and first[]). */
static void lent_case(femint_context_t ctx, const struct shape_case *k, int precision,
                      femint_matrix_t keep[2], femint_matrix_t *first)
{
  femint_operator_t op;
  femint_matrix_t A[5] = {NULL};
  struct femint_stats st[5];
  const struct femint_operator_options o = {.assembly = FEMINT_ASSEMBLY_COO, .max_batch = 5,
                                            .precision = precision, .where = FEMINT_WHERE_OPENCL};
  TAP_CALL(ctx, femint_operator_create(ctx, k->space, 1, k->forms, &o, &op));
  for (int i = 0; i < 4; i++) TAP_CALL(ctx, femint_operator_assemble(op, &A[i], &st[i]));
  const double *v2, *v4;
  TAP_CALL(ctx, femint_matrix_csr(A[2], NULL, NULL, NULL, &v2));
  femint_matrix_destroy(&A[2]);
  TAP_CALL(ctx, femint_operator_assemble(op, &A[4], &st[4]));
  TAP_CALL(ctx, femint_matrix_csr(A[4], NULL, NULL, NULL, &v4));
  double d = 0;
  for (int i = 1; i < 5; i++)
    if (A[i]) d = fmax(d, test_matrix_reldiff(A[i], A[0]));
  tap_ok(st[0].on_device && st[4].on_device && d == 0 && v4 == v2,
         "%s, %s: five COO assemblies on the device give the first one's matrix exactly (%.1e), "
         "the fifth in the memory lent to the destroyed third (%s)",
         k->name, precision == FEMINT_SINGLE ? "single" : "double", d,
         v4 == v2 ? "the same" : "other memory");
  femint_operator_destroy(&op);
  femint_matrix_destroy(&A[1]);
  keep[0] = A[3];
  keep[1] = A[4];
  *first = A[0];
}

/* The COO sums in blocks (FEMINT_SUM_BLOCK = 200: 16 blocks from 3200 values), each block a
 * task that waits only for the batches touching its rows and whose values leave as soon as it is
 * done: three assemblies of one operator on the device (two through bounce buffers, the third
 * into lent memory) and one on a CPU team give the matrices of one block per form exactly, in
 * more sum tasks where the cells have one order (blocks), in as many where their orders are
 * mixed (each block would wait for the last group: one block). */
static void blocks_case(femint_context_t ctx, const struct shape_case *k, int nocl, int blocks)
{
  const int nf = k->nform;
  femint_matrix_t R[MAX_FORMS], B[MAX_FORMS];
  struct femint_stats st1, st;
  double d = 0;
  int more = 1;
  for (int cpu = nocl > 0 ? 0 : 1; cpu < 2; cpu++) {
    const struct femint_operator_options o = {
        .assembly = FEMINT_ASSEMBLY_COO, .max_batch = 5,
        .where = cpu ? FEMINT_WHERE_CPU : FEMINT_WHERE_OPENCL};
    TAP_CALL(ctx, test_assemble(ctx, k->space, nf, k->forms, &o, R, &st1));
    setenv("FEMINT_SUM_BLOCK", "200", 1);
    femint_operator_t op;
    TAP_CALL(ctx, femint_operator_create(ctx, k->space, nf, k->forms, &o, &op));
    for (int i = 0; i < (cpu ? 1 : 3); i++) {
      TAP_CALL(ctx, femint_operator_assemble(op, B, &st));
      for (int f = 0; f < nf; f++) d = fmax(d, test_matrix_reldiff(B[f], R[f]));
      more &= blocks ? st.ntask >= st1.ntask + nf : st.ntask == st1.ntask;
      destroy_all(B, nf);
    }
    femint_operator_destroy(&op);
    unsetenv("FEMINT_SUM_BLOCK");
    destroy_all(R, nf);
  }
  tap_ok(d == 0 && more,
         "%s: COO sums in blocks (FEMINT_SUM_BLOCK = 200), %sone on a CPU team, give the "
         "matrices of one block exactly (%.1e), in %s tasks (%d against %d)",
         k->name, nocl > 0 ? "three assemblies on the device and " : "", d,
         blocks ? "more" : "as many (mixed orders: one block)", st.ntask, st1.ntask);
}

int main(void)
{
  femint_context_t ctx = test_init();
  int ncpu, nocl;
  femint_context_workers(ctx, &ncpu, &nocl, NULL);
  uint64_t rng = 407;
  struct shape_case k;
  case_prisms(ctx, &rng, &k);
  run_case(ctx, nocl, &k, &rng);
  blocks_case(ctx, &k, nocl, 0);
  femint_matrix_t keep[2][2] = {{NULL}}, first[2] = {NULL};
  for (int s = 0; s < 2 && nocl > 0; s++)
    lent_case(ctx, &k, s ? FEMINT_SINGLE : FEMINT_DOUBLE, keep[s], &first[s]);
  case_free(&k);
  case_quads(ctx, &rng, 0, &k);
  run_case(ctx, nocl, &k, &rng);
  case_free(&k);
  case_quads(ctx, &rng, 0.05, &k);
  run_case(ctx, nocl, &k, &rng);
  case_free(&k);
  case_tets(ctx, &rng, &k);
  run_case(ctx, nocl, &k, &rng);
  blocks_case(ctx, &k, nocl, 1);
  case_free(&k);
  femint_finalize(&ctx);
  /* the lent matrices outlive the context with their values */
  double dk = 0;
  int nkept = 0;
  for (int s = 0; s < 2; s++)
    for (int i = 0; i < 2; i++)
      if (keep[s][i]) {
        const double *v;
        nkept += femint_matrix_csr(keep[s][i], NULL, NULL, NULL, &v) == 0 && v;
        dk = fmax(dk, test_matrix_reldiff(keep[s][i], first[s]));
        femint_matrix_destroy(&keep[s][i]);
      }
  if (nocl > 0)
    tap_ok(nkept == 4 && dk == 0,
           "4 lent matrices outlive the context with their values (%d kept, difference %.1e)",
           nkept, dk);
  for (int s = 0; s < 2; s++) femint_matrix_destroy(&first[s]);
  return tap_done();
}
