/* Test: femint_integrate hands every cell's element matrix to the caller's function, on the
 * calling thread, with global DOFs and signs that reproduce the assembled operator (y = A x
 * computed from the batches equals femint_assemble's A x), in both precisions and both storages,
 * on every worker kind; a function that returns non-zero stops the work with FEMINT_ECALLBACK. */
#include <pthread.h>
#include <stdlib.h>

#include "common.h"

struct sink {
  pthread_t caller;
  int wrong_thread, calls, stop_after;
  int *seen;   /* [ncell] times each cell was handed over */
  const double *x;
  double *y;   /* y += A_e x over the batches */
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
  for (int k = 0; k < b->ncell; k++) {
    s->seen[b->cells[k]]++;
    const int64_t *dofs = b->dofs + (size_t)k * b->n;
    const int *sg = b->signs + (size_t)k * b->n;
    for (int i = 0; i < b->n; i++) {
      if (dofs[i] < 0) continue;
      double acc = 0;
      for (int j = 0; j < b->n; j++)
        if (dofs[j] >= 0) acc += sg[i] * sg[j] * entry(b, k, i, j) * s->x[dofs[j]];
      s->y[dofs[i]] += acc;
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
  TAP_CALL(ctx, femint_mesh_create_box(ctx, 3, 3, 2, 1, 1.2, 0.8, 0.25, 3, &mesh));
  const int nc = femint_mesh_num_cells(mesh);
  int *orders = malloc(nc * sizeof *orders);
  for (int c = 0; c < nc; c++) orders[c] = 1 + (c * 5 / 3) % 4;
  femint_space_t space;
  TAP_CALL(ctx, femint_space_create(ctx, mesh, 3, orders, 0, &space));
  double E = 3, nu = 0.27;
  femint_form_t form;
  TAP_CALL(ctx, femint_form_create_elasticity(ctx, 1, &E, &nu, &form));
  const int64_t ndof = femint_space_num_dofs(space);
  double *x = malloc(ndof * sizeof *x), *y = malloc(ndof * sizeof *y), *ya = malloc(ndof * sizeof *ya);
  uint64_t seed = 11;
  for (int64_t i = 0; i < ndof; i++) x[i] = test_rand(&seed) - 0.5;
  struct sink s = {.caller = pthread_self(), .seen = malloc(nc * sizeof *s.seen), .x = x, .y = y};

  static const char *const where_name[] = {"any", "cpu", "opencl"};
  for (int where = FEMINT_WHERE_ANY; where <= FEMINT_WHERE_OPENCL; where++) {
    if (where == FEMINT_WHERE_OPENCL && nocl == 0) {
      tap_diag("opencl: no OpenCL worker (STARPU_OPENCL_ON_CPUS=1 gives PoCL's CPU device)");
      continue;
    }
    for (int prec = 0; prec < 2; prec++)
      for (int sym = 0; sym < 2; sym++) {
        struct femint_assemble_options opt = {
            .precision = prec ? FEMINT_SINGLE : FEMINT_DOUBLE, .where = where, .max_batch = 5,
            .symmetric = sym};
        femint_matrix_t A;
        TAP_CALL(ctx, femint_assemble(ctx, space, form, &opt, &A, NULL));
        femint_matrix_mult(A, x, ya);
        femint_matrix_destroy(&A);
        memset(y, 0, ndof * sizeof *y);
        memset(s.seen, 0, nc * sizeof *s.seen);
        s.calls = s.wrong_thread = 0;
        s.stop_after = -1;
        struct femint_stats st;
        TAP_CALL(ctx, femint_integrate(ctx, space, form, &opt, take, &s, &st));
        int bad = 0;
        for (int c = 0; c < nc; c++) bad += s.seen[c] != 1;
        double d = tap_reldiff(y, ya, (size_t)ndof), tol = prec ? 1e-5 : 1e-12;
        tap_ok(bad == 0 && s.calls == st.nbatch && s.wrong_thread == 0 && d < tol,
               "%s, %s, %s: every cell once (%d wrong) in %d calls for %d batches, on the "
               "caller's thread (%d not); y from the batches vs A x: %.2e < %g",
               where_name[where], prec ? "single" : "double", sym ? "upper half" : "full", bad,
               s.calls, st.nbatch, s.wrong_thread, d, tol);
      }
  }

  /* A function that stops after its second batch. */
  struct femint_assemble_options opt = {.max_batch = 4};
  s.calls = 0;
  s.stop_after = 2;
  int rc = femint_integrate(ctx, space, form, &opt, take, &s, NULL);
  tap_ok(rc == FEMINT_ECALLBACK && s.calls == 2 &&
             strstr(femint_last_error(ctx), "returned 7") != NULL,
         "a function that returns 7 stops the work after 2 calls: %s (%s)",
         femint_error_name(rc), femint_last_error(ctx));

  /* No function: integration alone. */
  struct femint_stats st;
  rc = femint_integrate(ctx, space, form, &opt, NULL, NULL, &st);
  tap_ok(rc == 0 && st.ntask == st.nbatch && st.nnz == 0 && st.ndof == ndof,
         "no function: %d integration tasks for %d batches, no matrix (nnz %lld), %lld DOFs",
         st.ntask, st.nbatch, (long long)st.nnz, (long long)st.ndof);
  rc = femint_integrate(ctx, space, NULL, &opt, NULL, NULL, NULL);
  tap_ok(rc == FEMINT_EINVAL, "a NULL form is refused: %s", femint_last_error(ctx));

  free(s.seen);
  free(x), free(y), free(ya);
  free(orders);
  femint_form_destroy(&form);
  femint_space_destroy(&space);
  femint_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  return tap_done();
}
