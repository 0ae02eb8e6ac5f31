/* Test: femint_operator_integrate hands every cell's element matrix of each form to the caller's
 * function, on the calling thread, with the form's index, global DOFs and signs that reproduce
 * the assembled operator (y = A x computed from the batches equals femint_operator_assemble's
 * A x, form by form), in both precisions and both storages, on every worker kind; a function
 * that returns non-zero stops the work with FEMINT_ECALLBACK. */
#include <pthread.h>
#include <stdlib.h>

#include "common.h"

struct sink {
  pthread_t caller;
  int wrong_thread, calls, stop_after, bad_form;
  int *seen;   /* [2][ncell] times each cell was handed over for each form */
  int ncell;
  const double *x;
  double *y[2]; /* y[form] += A_e x over the batches */
};

static double entry(const struct femint_element_batch *b, int k, int i, int j)
{
  const int n = b->n;
  size_t per = b->symmetric ? (size_t)n * (n + 1) / 2 : (size_t)n * n, at;
  if (!b->symmetric)
    at = (size_t)i * n + j;
  else {
    int r = i < j ? i : j, c = i < j ? j : i;
    at = (size_t)r * n - (size_t)r * (r - 1) / 2 + (c - r);
  }
  at += (size_t)k * per;
  return b->precision == FEMINT_SINGLE ? ((const float *)b->mats)[at]
                                       : ((const double *)b->mats)[at];
}

static int take(const struct femint_element_batch *b, void *user)
{
  struct sink *s = user;
  s->wrong_thread += !pthread_equal(pthread_self(), s->caller);
  if (b->form < 0 || b->form > 1) {
    s->bad_form++;
    return ++s->calls == s->stop_after ? 7 : 0;
  }
  double *y = s->y[b->form];
  for (int k = 0; k < b->ncell; k++) {
    s->seen[b->form * s->ncell + b->cells[k]]++;
    const int64_t *dofs = b->dofs + (size_t)k * b->n;
    const int *sg = b->signs + (size_t)k * b->n;
    for (int i = 0; i < b->n; i++) {
      if (dofs[i] < 0) continue;
      double acc = 0;
      for (int j = 0; j < b->n; j++)
        if (dofs[j] >= 0) acc += sg[i] * sg[j] * entry(b, k, i, j) * s->x[dofs[j]];
      y[dofs[i]] += acc;
    }
  }
  return ++s->calls == s->stop_after ? 7 : 0;
}

int main(void)
{
  femint_context_t ctx = test_init();
  int ncpu, nocl;
  femint_context_workers(ctx, &ncpu, &nocl, NULL);
  femint_mesh_t mesh;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_PRISM, 3, 3, 2, 1, 1.2, 0.8, 0.25, 3, &mesh));
  const int nc = femint_mesh_num_cells(mesh);
  int *orders = malloc(nc * sizeof *orders);
  for (int c = 0; c < nc; c++) orders[c] = 1 + (c * 5 / 3) % 4;
  femint_space_t space;
  TAP_CALL(ctx, femint_space_create(ctx, mesh, FEMINT_H1, 3, orders, 0, &space));
  double E = 3, nu = 0.27, rho = 1.7;
  femint_form_t forms[2];
  TAP_CALL(ctx, femint_form_create_elasticity(ctx, 1, &E, &nu, &forms[0]));
  TAP_CALL(ctx, femint_form_create_mass(ctx, 3, 1, &rho, &forms[1]));
  const int64_t ndof = femint_space_num_dofs(space);
  double *x = malloc(ndof * sizeof *x), *ya = malloc(2 * ndof * sizeof *ya);
  double *y = malloc(2 * ndof * sizeof *y);
  uint64_t seed = 11;
  for (int64_t i = 0; i < ndof; i++) x[i] = test_rand(&seed) - 0.5;
  struct sink s = {.caller = pthread_self(), .seen = malloc(2 * nc * sizeof *s.seen), .ncell = nc,
                   .x = x, .y = {y, y + ndof}};

  static const char *const where_name[] = {"any", "cpu", "opencl"};
  for (int where = FEMINT_WHERE_ANY; where <= FEMINT_WHERE_OPENCL; where++) {
    if (where == FEMINT_WHERE_OPENCL && nocl == 0) {
      tap_diag("opencl: no OpenCL worker (STARPU_OPENCL_ON_CPUS=1 gives PoCL's CPU device)");
      continue;
    }
    for (int prec = 0; prec < 2; prec++)
      for (int sym = 0; sym < 2; sym++) {
        struct femint_operator_options opt = {
            .precision = prec ? FEMINT_SINGLE : FEMINT_DOUBLE, .where = where, .max_batch = 5,
            .symmetric = sym};
        femint_operator_t op;
        femint_matrix_t A[2];
        TAP_CALL(ctx, femint_operator_create(ctx, space, 2, forms, &opt, &op));
        TAP_CALL(ctx, femint_operator_assemble(op, A, NULL));
        for (int f = 0; f < 2; f++) {
          femint_matrix_mult(A[f], x, ya + f * ndof);
          femint_matrix_destroy(&A[f]);
        }
        memset(y, 0, 2 * ndof * sizeof *y);
        memset(s.seen, 0, 2 * nc * sizeof *s.seen);
        s.calls = s.wrong_thread = s.bad_form = 0;
        s.stop_after = -1;
        struct femint_stats st;
        TAP_CALL(ctx, femint_operator_integrate(op, take, &s, &st));
        femint_operator_destroy(&op);
        int bad = 0;
        for (int c = 0; c < 2 * nc; c++) bad += s.seen[c] != 1;
        double d0 = tap_reldiff(y, ya, (size_t)ndof), tol = prec ? 1e-5 : 1e-12;
        double d1 = tap_reldiff(y + ndof, ya + ndof, (size_t)ndof);
        tap_ok(bad == 0 && s.bad_form == 0 && s.calls == st.nbatch && s.wrong_thread == 0 &&
                   d0 < tol && d1 < tol,
               "%s, %s, %s: every cell once for each of the 2 forms (%d wrong, %d bad form "
               "indices) in %d calls for %d batches, on the caller's thread (%d not); y from the "
               "batches vs A x: elasticity %.2e, mass %.2e < %g",
               where_name[where], prec ? "single" : "double", sym ? "upper half" : "full", bad,
               s.bad_form, s.calls, st.nbatch, s.wrong_thread, d0, d1, tol);
      }
  }

  /* A function that stops after its second batch. */
  struct femint_operator_options opt = {.max_batch = 4};
  femint_operator_t op;
  TAP_CALL(ctx, femint_operator_create(ctx, space, 1, forms, &opt, &op));
  s.calls = 0;
  s.stop_after = 2;
  int rc = femint_operator_integrate(op, take, &s, NULL);
  tap_ok(rc == FEMINT_ECALLBACK && s.calls == 2 &&
             strstr(femint_last_error(ctx), "returned 7") != NULL,
         "a function that returns 7 stops the work after 2 calls: %s (%s)",
         femint_error_name(rc), femint_last_error(ctx));

  /* No function: integration alone. */
  struct femint_stats st;
  rc = femint_operator_integrate(op, NULL, NULL, &st);
  tap_ok(rc == 0 && st.ntask == st.nbatch && st.nnz == 0 && st.ndof == ndof,
         "no function: %d integration tasks for %d batches, no matrix (nnz %lld), %lld DOFs",
         st.ntask, st.nbatch, (long long)st.nnz, (long long)st.ndof);
  femint_operator_destroy(&op);
  femint_form_t none[1] = {NULL};
  rc = femint_operator_create(ctx, space, 1, none, &opt, &op);
  tap_ok(rc == FEMINT_EINVAL && !op && strstr(femint_last_error(ctx), "forms[0]"),
         "a NULL form is refused: %s", femint_last_error(ctx));

  free(s.seen);
  free(x), free(y), free(ya);
  free(orders);
  femint_form_destroy(&forms[0]);
  femint_form_destroy(&forms[1]);
  femint_space_destroy(&space);
  femint_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  return tap_done();
}
