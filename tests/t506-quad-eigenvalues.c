/* Test: the Laplacian with Neumann conditions on the unit square, 4 x 4 quadrilaterals of order
 * 6: the generalized eigenvalues of K x = lambda M x are pi^2 (m^2 + n^2) (0; pi^2 twice; 2 pi^2;
 * 4 pi^2 twice; 5 pi^2 twice; 8 pi^2; 9 pi^2 twice) to 1e-6, from the assembled matrices (here
 * through the OpenCL worker too) by a dense Cholesky reduction and Jacobi rotations. */
#include <math.h>

#include "common.h"

static double *assemble_dense(femint_context_t ctx, femint_space_t s, femint_form_t f, int where,
                              int *n)
{
  femint_matrix_t A;
  struct femint_operator_options opt = {.where = where};
  if (test_assemble(ctx, s, 1, &f, &opt, &A, NULL)) return NULL;
  double *D = test_dense(A, n);
  femint_matrix_destroy(&A);
  return D;
}

/* C = L^-1 K L^-T for the Cholesky factor L of M (lower triangle of M). */
static void reduce(int n, const double *L, double *K)
{
  for (int pass = 0; pass < 2; pass++) {
    /* columns: K <- L^-1 K, then transpose so that the second pass does K L^-T */
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        double s = K[i * n + j];
        for (int k = 0; k < i; k++) s -= L[i * n + k] * K[k * n + j];
        K[i * n + j] = s / L[i * n + i];
      }
    for (int i = 0; i < n; i++)
      for (int j = i + 1; j < n; j++) {
        const double t = K[i * n + j];
        K[i * n + j] = K[j * n + i];
        K[j * n + i] = t;
      }
  }
}

static void run(femint_context_t ctx, int where, const char *wn)
{
  femint_mesh_t m;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_QUAD, 4, 4, 1, 1.0, 1.0, 1.0, 0.0, 0, &m));
  femint_space_t s;
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, NULL, 6, &s));
  const double one = 1;
  femint_form_t lap, mass;
  TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, 1, &one, &lap));
  TAP_CALL(ctx, femint_form_create_mass(ctx, 1, 1, &one, &mass));
  int n, n2;
  double *K = assemble_dense(ctx, s, lap, where, &n), *M = assemble_dense(ctx, s, mass, where, &n2);
  if (!K || !M || n != n2) {
    tap_ok(0, "%s: assembly failed: %s", wn, femint_last_error(ctx));
    return;
  }
  const double rmin = cholesky(n, M);
  tap_ok(rmin > 0, "%s: the mass matrix is positive definite (%d DOFs, smallest pivot %.2e)", wn,
         n, rmin);
  reduce(n, M, K);
  double *lambda = malloc(n * sizeof *lambda);
  test_sym_eigenvalues(n, K, lambda);
  static const int mn2[] = {0, 1, 1, 2, 4, 4, 5, 5, 8, 9, 9, 10, 10};
  const int nexp = sizeof mn2 / sizeof *mn2;
  double worst = fabs(lambda[0]);
  for (int k = 1; k < nexp; k++) {
    const double exact = M_PI * M_PI * mn2[k];
    worst = fmax(worst, fabs(lambda[k] - exact) / exact);
  }
  tap_ok(worst < 1e-6, "%s: the first %d eigenvalues are pi^2 (m^2 + n^2) to %.2e (|lambda_0| = "
                       "%.1e; lambda_1..4 / pi^2 = %.9f %.9f %.9f %.9f)",
         wn, nexp, worst, fabs(lambda[0]), lambda[1] / (M_PI * M_PI), lambda[2] / (M_PI * M_PI),
         lambda[3] / (M_PI * M_PI), lambda[4] / (M_PI * M_PI));
  tap_ok(lambda[1] > 1e-6, "%s: one zero eigenvalue only (the constants): lambda_1 = %.6f", wn,
         lambda[1]);
  free(lambda);
  free(K);
  free(M);
  femint_form_destroy(&lap);
  femint_form_destroy(&mass);
  femint_space_destroy(&s);
  femint_mesh_destroy(&m);
}

int main(void)
{
  femint_context_t ctx = test_init();
  run(ctx, FEMINT_WHERE_CPU, "CPU");
  int ncpu, nopencl;
  femint_context_workers(ctx, &ncpu, &nopencl, NULL);
  if (nopencl > 0) run(ctx, FEMINT_WHERE_OPENCL, "OpenCL");
  femint_finalize(&ctx);
  return tap_done();
}
