/* Test: a cell subset in femint_operator_options: the matrices and load vectors of the parts of
 * a partition add up to those of the whole mesh (femint_operator_assemble, _integrate and _load,
 * runs of cells and scattered cells), the element matrices of the listed cells only are handed
 * over, an empty subset integrates nothing, and bad lists are refused with the culprit named. */
#include <stdlib.h>

#include "common.h"

/* A body force and a traction that vary in space. */
static void body(const double x[3], const double n[3], int tag, void *user, double *v)
{
  v[0] = 1 + x[0], v[1] = x[1] * x[2], v[2] = -2 + x[0] * x[1];
}

static void traction(const double x[3], const double n[3], int tag, void *user, double *v)
{
  for (int k = 0; k < 3; k++) v[k] = tag * n[k] + x[k];
}

/* The load of the body force and the traction on every tagged face. */
static const struct femint_load load = {.body = body, .traction = traction};

/* Sum over the parts of y = A_part x (femint_operator_assemble) and of their load vectors. */
static void assemble_parts(femint_context_t ctx, femint_space_t space, femint_form_t form,
                           int nparts, int *const *parts, const int *sizes, const double *x,
                           double *y, double *rhs, int64_t *nnz_sum)
{
  const int64_t ndof = femint_space_num_dofs(space);
  double *yp = malloc((size_t)ndof * sizeof *yp);
  memset(y, 0, (size_t)ndof * sizeof *y);
  memset(rhs, 0, (size_t)ndof * sizeof *rhs);
  *nnz_sum = 0;
  for (int r = 0; r < nparts; r++) {
    struct femint_operator_options opt = {.max_batch = 7, .cells = parts[r], .ncells = sizes[r]};
    femint_operator_t op;
    femint_matrix_t A;
    struct femint_stats st;
    TAP_CALL(ctx, femint_operator_create(ctx, space, 1, &form, &opt, &op));
    TAP_CALL(ctx, femint_operator_assemble(op, &A, &st));
    TAP_CALL(ctx, femint_operator_load(op, &load, rhs));
    femint_operator_destroy(&op);
    femint_matrix_mult(A, x, yp);
    for (int64_t i = 0; i < ndof; i++) y[i] += yp[i];
    *nnz_sum += st.nnz;
    femint_matrix_destroy(&A);
  }
  free(yp);
}

int main(void)
{
  femint_context_t ctx = test_init();
  femint_mesh_t mesh;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_PRISM, 3, 3, 4, 1, 1, 1, 0.25, 5, &mesh));
  const int nc = femint_mesh_num_cells(mesh);
  int *orders = malloc(nc * sizeof *orders);
  for (int c = 0; c < nc; c++) orders[c] = 1 + (c * 7 / 3) % 3;
  femint_space_t space;
  TAP_CALL(ctx, femint_space_create(ctx, mesh, FEMINT_H1, 3, orders, 0, &space));
  double E = 2, nu = 0.3;
  femint_form_t form;
  TAP_CALL(ctx, femint_form_create_elasticity(ctx, 1, &E, &nu, &form));
  const int64_t ndof = femint_space_num_dofs(space);
  double *x = malloc(ndof * sizeof *x), *y = malloc(ndof * sizeof *y);
  double *ya = malloc(ndof * sizeof *ya), *rhs = malloc(ndof * sizeof *rhs);
  double *rhs_all = calloc(ndof, sizeof *rhs_all);
  uint64_t seed = 3;
  for (int64_t i = 0; i < ndof; i++) x[i] = test_rand(&seed) - 0.5;

  /* The whole mesh. */
  struct femint_operator_options all = {.max_batch = 7};
  femint_operator_t op;
  femint_matrix_t A;
  struct femint_stats st_all;
  TAP_CALL(ctx, femint_operator_create(ctx, space, 1, &form, &all, &op));
  TAP_CALL(ctx, femint_operator_assemble(op, &A, &st_all));
  TAP_CALL(ctx, femint_operator_load(op, &load, rhs_all));
  femint_operator_destroy(&op);
  femint_matrix_mult(A, x, ya);
  femint_matrix_destroy(&A);

  /* Three runs of cells, then the cells scattered by c mod 3 and listed backwards. */
  int *run[3], *mod[3], nrun[3], nmod[3] = {0, 0, 0};
  for (int r = 0; r < 3; r++) {
    int c0 = r * nc / 3, c1 = (r + 1) * nc / 3;
    run[r] = malloc((size_t)(c1 - c0) * sizeof *run[r]);
    nrun[r] = c1 - c0;
    for (int c = c0; c < c1; c++) run[r][c - c0] = c;
    mod[r] = malloc((size_t)nc * sizeof *mod[r]);
  }
  for (int c = nc - 1; c >= 0; c--) mod[c % 3][nmod[c % 3]++] = c;
  int64_t nnz_runs, nnz_mod;
  assemble_parts(ctx, space, form, 3, run, nrun, x, y, rhs, &nnz_runs);
  double dA = tap_reldiff(y, ya, ndof), db = tap_reldiff(rhs, rhs_all, ndof);
  tap_ok(dA < 1e-13 && db < 1e-13 && nnz_runs < 3 * st_all.nnz,
         "3 runs of cells: A x summed over the parts vs the whole %.1e, load vector %.1e; their "
         "patterns hold %lld non-zeros, the whole %lld",
         dA, db, (long long)nnz_runs, (long long)st_all.nnz);
  assemble_parts(ctx, space, form, 3, mod, nmod, x, y, rhs, &nnz_mod);
  dA = tap_reldiff(y, ya, ndof), db = tap_reldiff(rhs, rhs_all, ndof);
  tap_ok(dA < 1e-13 && db < 1e-13, "cells by c mod 3, backwards: A x %.1e, load vector %.1e", dA,
         db);

  /* femint_integrate: the listed cells only, and their element matrices add up. */
  struct test_sink s = {.x = x, .y = y, .seen = calloc(nc, sizeof(int))};
  memset(y, 0, ndof * sizeof *y);
  memset(rhs, 0, ndof * sizeof *rhs);
  int wrong = 0;
  for (int r = 0; r < 3; r++) {
    struct femint_operator_options opt = {.max_batch = 5, .cells = mod[r], .ncells = nmod[r]};
    struct femint_stats st;
    TAP_CALL(ctx, femint_operator_create(ctx, space, 1, &form, &opt, &op));
    TAP_CALL(ctx, femint_operator_integrate(op, test_sink_take, &s, &st));
    TAP_CALL(ctx, femint_operator_load(op, &load, rhs));
    femint_operator_destroy(&op);
    wrong += st.ncell != nmod[r];
    for (int c = 0; c < nc; c++) wrong += s.seen[c] != (c % 3 <= r);
  }
  dA = tap_reldiff(y, ya, ndof), db = tap_reldiff(rhs, rhs_all, ndof);
  tap_ok(wrong == 0 && dA < 1e-13 && db < 1e-13,
         "femint_operator_integrate by parts: each part's cells once and no other (%d wrong), A x "
         "%.1e, "
         "load vector %.1e",
         wrong, dA, db);

  /* An empty subset: nothing integrated, a matrix of empty rows, no load. */
  struct femint_operator_options none = {.cells = run[0], .ncells = 0};
  struct femint_stats st;
  TAP_CALL(ctx, femint_operator_create(ctx, space, 1, &form, &none, &op));
  int rc = femint_operator_assemble(op, &A, &st);
  int64_t nrows = 0;
  const int64_t *rowptr = NULL;
  if (!rc) femint_matrix_csr(A, &nrows, &rowptr, NULL, NULL);
  memset(rhs, 0, ndof * sizeof *rhs);
  int rl = femint_operator_load(op, &load, rhs);
  double rn = 0;
  for (int64_t i = 0; i < ndof; i++) rn += fabs(rhs[i]);
  tap_ok(rc == 0 && st.nbatch == 0 && st.ncell == 0 && nrows == ndof && rowptr[nrows] == 0 &&
             rl == 0 && rn == 0,
         "no cell: %s, %d batches, %lld rows, %lld non-zeros; load %s, |rhs| = %g",
         femint_error_name(rc), st.nbatch, (long long)nrows,
         rowptr ? (long long)rowptr[nrows] : -1LL, femint_error_name(rl), rn);
  femint_matrix_destroy(&A);
  femint_operator_destroy(&op);

  /* Bad lists. */
  int bad[3] = {4, nc, 1};
  struct femint_operator_options opt = {.cells = bad, .ncells = 3};
  rc = femint_operator_create(ctx, space, 1, &form, &opt, &op);
  tap_ok(rc == FEMINT_EINVAL && !op && strstr(femint_last_error(ctx), "cells[1]"),
         "a cell past the mesh is refused: %s", femint_last_error(ctx));
  bad[1] = 4;
  rc = femint_operator_create(ctx, space, 1, &form, &opt, &op);
  tap_ok(rc == FEMINT_EINVAL && !op && strstr(femint_last_error(ctx), "cell 4 is listed twice"),
         "a cell listed twice is refused: %s", femint_last_error(ctx));
  opt.ncells = -1;
  rc = femint_operator_create(ctx, space, 1, &form, &opt, &op);
  tap_ok(rc == FEMINT_EINVAL && !op, "ncells = -1 is refused: %s", femint_last_error(ctx));

  for (int r = 0; r < 3; r++) free(run[r]), free(mod[r]);
  free(s.seen);
  free(x), free(y), free(ya), free(rhs), free(rhs_all);
  free(orders);
  femint_form_destroy(&form);
  femint_space_destroy(&space);
  femint_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  return tap_done();
}
