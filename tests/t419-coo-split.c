/* Test: the COO assembly split over two OpenCL devices (PoCL's CPU device twice,
 * femint_operator_options.devices = 2) gives the matrices of one device: the same CSR structure
 * bit for bit and the values to rounding, for prisms of mixed orders with 3 components (double,
 * single, upper halves), curved H(curl) tetrahedra (two forms) and a subset of the cells with
 * every kind of worker; on the
 * first, second (values through the bounce buffers) and third and fourth assemblies (values into
 * lent pinned memory); both devices integrate (each its part) and sum (FEMINT_SUM_BLOCK: the
 * tetrahedra's rows in several blocks, a task each, also with the CPU workers integrating; the
 * prisms' mixed orders in one);
 * an operator of no cells gives empty matrices. */
#include <stdlib.h>

#include "common.h"

#define NCALL 4

/* Assemble nform forms NCALL times with devices = 1 and 2; whether every call of the split
 * operator gave the one-device matrices (structure bit for bit, values to tol relative to the
 * largest), and the tasks of each OpenCL worker in its last call (integration, sums). */
static int split_case(femint_context_t ctx, femint_space_t s, int nform, const femint_form_t *forms,
                      struct femint_operator_options opt, double tol, int *tasks, double *worst)
{
  femint_operator_t one = NULL, two = NULL;
  opt.devices = 1;
  TAP_CALL(ctx, femint_operator_create(ctx, s, nform, forms, &opt, &one));
  opt.devices = 2;
  TAP_CALL(ctx, femint_operator_create(ctx, s, nform, forms, &opt, &two));
  int ok = 1;
  *worst = 0;
  struct femint_stats st;
  for (int call = 0; call < NCALL; call++) {
    femint_matrix_t A[2] = {NULL, NULL}, B[2] = {NULL, NULL};
    TAP_CALL(ctx, femint_operator_assemble(one, A, NULL));
    TAP_CALL(ctx, femint_operator_assemble(two, B, &st));
    for (int f = 0; f < nform; f++) {
      const double d = test_matrix_reldiff(A[f], B[f]);
      if (d > *worst) *worst = d;
      if (!(d <= tol)) {
        tap_diag("call %d, form %d: relative difference %.3g", call + 1, f, d);
        ok = 0;
      }
      femint_matrix_destroy(&A[f]);
      femint_matrix_destroy(&B[f]);
    }
  }
  for (int k = 0; k < 4; k++) tasks[k] = 0;
  for (int w = 0, dev = 0; w < st.nworker; w++)
    if (st.worker_is_opencl[w] && dev < 2) {
      tasks[2 * dev] = st.worker_tasks_integrate[w];
      tasks[2 * dev + 1] = st.worker_tasks_assemble[w];
      dev++;
    }
  femint_operator_destroy(&one);
  femint_operator_destroy(&two);
  return ok;
}

static int both_busy(const int *tasks, int nform)
{
  return tasks[0] > 0 && tasks[2] > 0 && tasks[1] >= nform && tasks[1] % nform == 0 &&
         tasks[3] >= nform && tasks[3] % nform == 0;
}

static void prisms(femint_context_t ctx)
{
  femint_mesh_t mesh;
  femint_space_t s;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_PRISM, 4, 3, 3, 1, 1, 1, 0.2, 3, &mesh));
  const int nc = femint_mesh_num_cells(mesh);
  int *orders = malloc(sizeof *orders * nc);
  for (int c = 0; c < nc; c++) orders[c] = 1 + (c * 7 / 5) % 3;
  TAP_CALL(ctx, femint_space_create(ctx, mesh, FEMINT_H1, 3, orders, 0, &s));
  TAP_CALL(ctx, femint_space_remove_boundary_dofs(s, 1, (const int[]){1}));
  femint_form_t form;
  const double E = 1.5, nu = 0.3;
  TAP_CALL(ctx, femint_form_create_elasticity(ctx, 1, &E, &nu, &form));
  int tasks[4];
  double worst;
  struct femint_operator_options opt = {.where = FEMINT_WHERE_OPENCL,
                                        .assembly = FEMINT_ASSEMBLY_COO};
  int ok = split_case(ctx, s, 1, &form, opt, 1e-13, tasks, &worst);
  tap_ok(ok && both_busy(tasks, 1),
         "prisms, orders 1..3, elasticity, double: %d calls on 2 devices give the matrix of 1 "
         "(largest difference %.2g), integration and sum tasks per device %d+%d, %d+%d",
         NCALL, worst, tasks[0], tasks[1], tasks[2], tasks[3]);
  opt.precision = FEMINT_SINGLE;
  ok = split_case(ctx, s, 1, &form, opt, 1e-6, tasks, &worst);
  tap_ok(ok && both_busy(tasks, 1),
         "the same in single precision (largest difference %.2g), tasks per device %d+%d, %d+%d",
         worst, tasks[0], tasks[1], tasks[2], tasks[3]);
  opt.precision = FEMINT_DOUBLE;
  opt.symmetric = 1;
  ok = split_case(ctx, s, 1, &form, opt, 1e-13, tasks, &worst);
  tap_ok(ok && both_busy(tasks, 1),
         "the same with upper halves (largest difference %.2g), tasks per device %d+%d, %d+%d",
         worst, tasks[0], tasks[1], tasks[2], tasks[3]);
  /* every third cell, listed backwards */
  opt.symmetric = 0;
  int *cells = malloc(sizeof *cells * nc), n = 0;
  for (int c = nc - 1; c >= 0; c--)
    if (c % 3 != 1) cells[n++] = c;
  opt.cells = cells;
  opt.ncells = n;
  opt.where = FEMINT_WHERE_ANY; /* the CPU workers integrate too, for either device */
  ok = split_case(ctx, s, 1, &form, opt, 1e-13, tasks, &worst);
  tap_ok(ok && tasks[1] >= 1 && tasks[3] >= 1,
         "a subset of %d of the %d cells, listed backwards, every worker (largest difference "
         "%.2g), tasks per device %d+%d, %d+%d",
         n, nc, worst, tasks[0], tasks[1], tasks[2], tasks[3]);
  opt.where = FEMINT_WHERE_OPENCL;
  /* no cells: empty matrices */
  opt.ncells = 0;
  femint_operator_t op;
  femint_matrix_t A = NULL;
  int64_t nrow = 0;
  const int64_t *rowptr = NULL, *col;
  const double *val;
  TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &form, &opt, &op));
  const int err = femint_operator_assemble(op, &A, NULL);
  if (!err) femint_matrix_csr(A, &nrow, &rowptr, &col, &val);
  tap_ok(!err && nrow == femint_space_num_dofs(s) && rowptr[nrow] == 0,
         "an operator of no cells on 2 devices: an empty matrix of %lld rows (%s)",
         (long long)nrow, err ? femint_last_error(ctx) : "no error");
  femint_matrix_destroy(&A);
  femint_operator_destroy(&op);
  free(cells);
  free(orders);
  femint_form_destroy(&form);
  femint_space_destroy(&s);
  femint_mesh_destroy(&mesh);
}

static void tets(femint_context_t ctx)
{
  femint_mesh_t mesh;
  femint_space_t s;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_TET, 3, 3, 2, 1, 1, 1, 0, 1, &mesh));
  TAP_CALL(ctx, femint_mesh_warp(mesh, 0.05));
  TAP_CALL(ctx, femint_space_create(ctx, mesh, FEMINT_HCURL, 1, NULL, 2, &s));
  TAP_CALL(ctx, femint_space_remove_boundary_dofs(s, 0, NULL));
  femint_form_t forms[2];
  const double one = 1, two = 2;
  TAP_CALL(ctx, femint_form_create_hcurl_mass(ctx, 1, 0, &two, &forms[0]));
  TAP_CALL(ctx, femint_form_create_curlcurl(ctx, 1, 0, &one, &forms[1]));
  int tasks[4];
  double worst;
  struct femint_operator_options opt = {.where = FEMINT_WHERE_OPENCL,
                                        .assembly = FEMINT_ASSEMBLY_COO};
  int ok = split_case(ctx, s, 2, forms, opt, 1e-13, tasks, &worst);
  tap_ok(ok && both_busy(tasks, 2) && (tasks[1] > 2 || tasks[3] > 2),
         "curved H(curl) tetrahedra of order 2, T and S: %d calls on 2 devices give the matrices "
         "of 1 (largest difference %.2g), tasks per device %d+%d, %d+%d (sums in blocks)",
         NCALL, worst, tasks[0], tasks[1], tasks[2], tasks[3]);
  /* the CPU workers integrate too: blocks read batches made in main memory and on the device */
  opt.where = FEMINT_WHERE_ANY;
  ok = split_case(ctx, s, 2, forms, opt, 1e-13, tasks, &worst);
  tap_ok(ok && tasks[1] >= 2 && tasks[3] >= 2,
         "the same with every worker (largest difference %.2g), tasks per device %d+%d, %d+%d",
         worst, tasks[0], tasks[1], tasks[2], tasks[3]);
  femint_form_destroy(&forms[0]);
  femint_form_destroy(&forms[1]);
  femint_space_destroy(&s);
  femint_mesh_destroy(&mesh);
}

int main(void)
{
  /* each part's sums in blocks (FEMINT_SUM_BLOCK = 300: 16 blocks from 4800 values) */
  setenv("FEMINT_SUM_BLOCK", "300", 1);
  femint_context_t ctx = test_init_two_devices();
  prisms(ctx);
  tets(ctx);
  femint_finalize(&ctx);
  return tap_done();
}
