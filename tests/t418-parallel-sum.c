/* Test: the sum of the element vectors in parts, one task a CPU worker (two CPU workers, no
 * OpenCL): the matrix-free apply and the residual of a space of more than 8192 DOFs equal the
 * assembled A x, give the same bits twice, on vectors used by several operators and verbs, and
 * CG converges to the residual it reports. */
#include <math.h>
#include <stdlib.h>

#include "common.h"

static void fill(double *a, int64_t n, unsigned seed)
{
  for (int64_t i = 0; i < n; i++) {
    seed = seed * 1103515245u + 12345u;
    a[i] = (seed >> 8) / 16777216.0 - 0.5;
  }
}

/* y = A x with A assembled from form f on s. */
static void assembled(femint_context_t ctx, femint_space_t s, femint_form_t f, const double *x,
                      double *y)
{
  femint_matrix_t A;
  TAP_CALL(ctx, test_assemble(ctx, s, 1, &f, NULL, &A, NULL));
  femint_matrix_mult(A, x, y);
  femint_matrix_destroy(&A);
}

/* The apply on hexahedra of order 2 (9,261 DOFs), and CG on it. */
static void check_apply(femint_context_t ctx)
{
  femint_mesh_t m;
  femint_space_t s;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, 10, 10, 10, 1, 1, 1, 0.2, 5, &m));
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, NULL, 2, &s));
  const int64_t n = femint_space_num_dofs(s);
  const double one = 1;
  femint_form_t mass, lap;
  TAP_CALL(ctx, femint_form_create_mass(ctx, 1, 1, &one, &mass));
  TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, 1, &one, &lap));
  const struct femint_operator_options o = {.where = FEMINT_WHERE_CPU};
  femint_operator_t op;
  const femint_form_t forms[2] = {mass, lap};
  TAP_CALL(ctx, femint_operator_create(ctx, s, 2, forms, &o, &op));
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *y2 = malloc(n * sizeof *y2);
  double *ref = malloc(n * sizeof *ref);
  fill(x, n, 7);
  femint_vector_t vx, vy;
  TAP_CALL(ctx, femint_vector_create(s, &vx));
  TAP_CALL(ctx, femint_vector_create(s, &vy));
  TAP_CALL(ctx, femint_vector_set_values(vx, x));
  for (int f = 0; f < 2; f++) {
    assembled(ctx, s, forms[f], x, ref);
    TAP_CALL(ctx, femint_operator_apply_vector(op, f, vx, vy, NULL));
    TAP_CALL(ctx, femint_vector_get_values(vy, y));
    TAP_CALL(ctx, femint_operator_apply_vector(op, f, vx, vy, NULL));
    TAP_CALL(ctx, femint_vector_get_values(vy, y2));
    const double d = tap_reldiff(y, ref, (size_t)n);
    tap_ok(d < 1e-12 && !memcmp(y, y2, n * sizeof *y),
           "hexahedra p = 2, %lld DOFs, %s: the apply summed in parts is A x (%.1e), the same "
           "bits twice",
           (long long)n, f ? "Laplace" : "mass", d);
  }
  /* CG on the mass matrix (positive definite without boundary conditions) */
  femint_vector_t vb;
  TAP_CALL(ctx, femint_vector_create(s, &vb));
  TAP_CALL(ctx, femint_vector_set_values(vb, ref)); /* ref: the Laplacian's A x, any b */
  TAP_CALL(ctx, femint_vector_set_values(vx, y2 /* any start */));
  const struct femint_cg_options co = {.rtol = 1e-10, .max_it = 500};
  struct femint_cg_result res;
  TAP_CALL(ctx, femint_operator_cg(op, 0, vb, vx, &co, &res));
  TAP_CALL(ctx, femint_vector_get_values(vx, x));
  assembled(ctx, s, mass, x, y);
  const double r = tap_reldiff(y, ref, (size_t)n);
  tap_ok(res.converged && r < 1e-8, "CG with the sums in parts: converged in %d iterations, "
                                     "|b - M x| / |b| = %.1e", res.iterations, r);
  free(x), free(y), free(y2), free(ref);
  femint_vector_destroy(&vx);
  femint_vector_destroy(&vy);
  femint_vector_destroy(&vb);
  femint_operator_destroy(&op);
  femint_form_destroy(&mass);
  femint_form_destroy(&lap);
  femint_space_destroy(&s);
  femint_mesh_destroy(&m);
}

/* The residual of -laplace u = 0 on triangles of order 1 (10,201 DOFs) is A u. */
static void check_residual(femint_context_t ctx)
{
  femint_mesh_t m;
  femint_space_t s;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_TRI, 100, 100, 1, 1, 1, 1, 0.2, 3, &m));
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, NULL, 1, &s));
  const int64_t n = femint_space_num_dofs(s);
  const double one = 1;
  femint_form_t lap, pwf;
  TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, 1, &one, &lap));
  struct femint_pointwise pw = {.source = femint_pointwise_gallery("poisson"), .ncomp = 1};
  TAP_CALL(ctx, femint_form_create_pointwise(ctx, &pw, &pwf));
  const struct femint_operator_options o = {.where = FEMINT_WHERE_CPU};
  femint_operator_t op;
  TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &pwf, &o, &op));
  double *u = malloc(n * sizeof *u), *F = malloc(n * sizeof *F), *F2 = malloc(n * sizeof *F2);
  double *ref = malloc(n * sizeof *ref);
  fill(u, n, 11);
  assembled(ctx, s, lap, u, ref);
  femint_vector_t vu, vF;
  TAP_CALL(ctx, femint_vector_create(s, &vu));
  TAP_CALL(ctx, femint_vector_create(s, &vF));
  TAP_CALL(ctx, femint_vector_set_values(vu, u));
  TAP_CALL(ctx, femint_operator_residual(op, 0, vu, NULL, vF));
  TAP_CALL(ctx, femint_vector_get_values(vF, F));
  TAP_CALL(ctx, femint_operator_residual(op, 0, vu, NULL, vF));
  TAP_CALL(ctx, femint_vector_get_values(vF, F2));
  const double d = tap_reldiff(F, ref, (size_t)n);
  tap_ok(d < 1e-12 && !memcmp(F, F2, n * sizeof *F),
         "triangles p = 1, %lld DOFs: the residual summed in parts is A u (%.1e), the same bits "
         "twice",
         (long long)n, d);
  free(u), free(F), free(F2), free(ref);
  femint_vector_destroy(&vu);
  femint_vector_destroy(&vF);
  femint_operator_destroy(&op);
  femint_form_destroy(&lap);
  femint_form_destroy(&pwf);
  femint_space_destroy(&s);
  femint_mesh_destroy(&m);
}

int main(void)
{
  test_fresh_dmda("t418");
  test_private_cache();
  struct femint_init_options opt = {.ncpu_workers = 2, .nopencl = 0, .quiet = 1};
  femint_context_t ctx = NULL;
  if (femint_init(&opt, &ctx)) {
    printf("Bail out! femint_init: %s\n", femint_init_error());
    return 1;
  }
  int ncpu = 0;
  femint_context_workers(ctx, &ncpu, NULL, NULL);
  if (ncpu < 2) {
    femint_finalize(&ctx);
    test_fresh_dmda_remove();
    tap_skip_all("one core: the sums are not split");
  }
  check_apply(ctx);
  check_residual(ctx);
  femint_finalize(&ctx);
  test_fresh_dmda_remove();
  return tap_done();
}
