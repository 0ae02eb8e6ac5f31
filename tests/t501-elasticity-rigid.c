/* Test: assembled operators on perturbed meshes with mixed orders have the properties a wrong code
 * cannot have: symmetry, the 6 rigid-body modes in the null space of elasticity, constants in
 * the null space of the Laplacian, 1^T M 1 = volume for the mass matrix. */
#include "common.h"

static double null_residual(femint_matrix_t A, femint_space_t s, const double *a, const double *b)
{
  int64_t n = femint_space_num_dofs(s);
  double *r = malloc(n * sizeof *r), *y = malloc(n * sizeof *y);
  femint_space_interpolate_linear(s, a, b, r);
  femint_matrix_mult(A, r, y);
  double ny = 0, nr = 0;
  for (int64_t i = 0; i < n; i++) {
    ny += y[i] * y[i];
    nr += r[i] * r[i];
  }
  free(r);
  free(y);
  return sqrt(ny) / (test_matrix_norm(A) * sqrt(nr));
}

static double asymmetry(femint_matrix_t A)
{
  int64_t n;
  const int64_t *rp, *ci;
  const double *v;
  femint_matrix_csr(A, &n, &rp, &ci, &v);
  double d = 0;
  for (int64_t r = 0; r < n; r++)
    for (int64_t p = rp[r]; p < rp[r + 1]; p++) {
      int64_t c = ci[p], lo = rp[c], hi = rp[c + 1] - 1;
      while (lo < hi) { /* find (c, r) */
        int64_t mid = (lo + hi) / 2;
        if (ci[mid] < r) lo = mid + 1; else hi = mid;
      }
      double t = ci[lo] == r ? v[lo] : 0;
      d += (v[p] - t) * (v[p] - t);
    }
  return sqrt(d) / test_matrix_norm(A);
}

int main(void)
{
  femint_context_t ctx = test_init();
  femint_mesh_t mesh;
  const double L[3] = {1.0, 0.8, 1.3};
  TAP_CALL(ctx,
           femint_mesh_create_box(ctx, FEMINT_PRISM, 3, 3, 2, L[0], L[1], L[2], 0.25, 3, &mesh));
  int nc = femint_mesh_num_cells(mesh);
  int *orders = malloc(nc * sizeof *orders);
  uint64_t st = 5;
  for (int c = 0; c < nc; c++) orders[c] = 1 + (int)(4 * test_rand(&st));
  for (int prec = 0; prec < 2; prec++) {
    double tol = prec ? 1e-5 : 1e-12;
    const char *pn = prec ? "single" : "double";
    struct femint_operator_options opt = {.precision = prec};
    femint_space_t s3, s1;
    TAP_CALL(ctx, femint_space_create(ctx, mesh, FEMINT_H1, 3, orders, 0, &s3));
    TAP_CALL(ctx, femint_space_create(ctx, mesh, FEMINT_H1, 1, orders, 0, &s1));
    double E = 3, nu = 0.35, one = 1, rho = 2;
    femint_form_t fe, fl, fm;
    TAP_CALL(ctx, femint_form_create_elasticity(ctx, 1, &E, &nu, &fe));
    TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, 1, &one, &fl));
    TAP_CALL(ctx, femint_form_create_mass(ctx, 3, 1, &rho, &fm));
    femint_matrix_t K, Lap, M;
    TAP_CALL(ctx, test_assemble(ctx, s3, 1, &fe, &opt, &K, NULL));
    TAP_CALL(ctx, test_assemble(ctx, s1, 1, &fl, &opt, &Lap, NULL));
    TAP_CALL(ctx, test_assemble(ctx, s3, 1, &fm, &opt, &M, NULL));
    double worst = 0;
    for (int m = 0; m < 6; m++) {
      double a[3] = {0}, b[9] = {0};
      if (m < 3) a[m] = 1;
      else { /* rotation about axis m-3: u = e x x */
        int i = (m - 3 + 1) % 3, j = (m - 3 + 2) % 3;
        b[3 * i + j] = -1;
        b[3 * j + i] = 1;
      }
      double r = null_residual(K, s3, a, b);
      if (r > worst) worst = r;
    }
    tap_ok(worst < tol, "%s: elasticity, 6 rigid-body modes: max ||K r||/(||K|| ||r||) = %.2e", pn,
           worst);
    double a1 = 1, b1[3] = {0};
    double rl = null_residual(Lap, s1, &a1, b1);
    tap_ok(rl < tol, "%s: Laplacian, constant: %.2e", pn, rl);
    /* a non-rigid linear field must not be in the null space: the check can fail */
    double a0[3] = {0}, bs[9] = {1, 0, 0, 0, 0, 0, 0, 0, 0};
    double rs = null_residual(K, s3, a0, bs);
    tap_ok(rs > 1e-3, "%s: a stretch is not in the null space (%.2e)", pn, rs);
    double as = asymmetry(K), al = asymmetry(Lap), am = asymmetry(M);
    tap_ok(as < tol && al < tol && am < tol, "%s: symmetric: %.1e %.1e %.1e", pn, as, al, am);
    /* 1^T M 1 per component = rho * volume */
    int64_t n = femint_space_num_dofs(s3);
    double *u = malloc(n * sizeof *u), *y = malloc(n * sizeof *y);
    double ac[3] = {1, 0, 0}, bz[9] = {0};
    femint_space_interpolate_linear(s3, ac, bz, u);
    femint_matrix_mult(M, u, y);
    double mass = 0;
    for (int64_t i = 0; i < n; i++) mass += u[i] * y[i];
    double vol = L[0] * L[1] * L[2] * rho;
    tap_ok(fabs(mass - vol) < tol * vol, "%s: 1^T M 1 = %.15g, rho * volume = %.15g", pn, mass, vol);
    free(u);
    free(y);
    femint_matrix_destroy(&K);
    femint_matrix_destroy(&Lap);
    femint_matrix_destroy(&M);
    femint_form_destroy(&fe);
    femint_form_destroy(&fl);
    femint_form_destroy(&fm);
    femint_space_destroy(&s3);
    femint_space_destroy(&s1);
  }
  free(orders);
  femint_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  return tap_done();
}
