/* Test: on an affine mesh with mixed orders, solving (K + M) u = f with the natural boundary terms
 * of femint_operator_load reproduces an exact polynomial displacement of degree min(p) to 1e-8. */
#include "common.h"

/* u_i = a_i + B_ij x_j + x.C_i.x / 2 with C_i symmetric; linear elasticity (lambda, mu) plus a
 * mass term: -div sigma(u) + u = f in the box, sigma(u) n = g on its boundary. */
struct exact {
  double a[3], B[9], C[27];
  double lam, mu;
};

static void exact_u(const struct exact *e, const double *x, double *u, double *grad)
{
  for (int i = 0; i < 3; i++) {
    u[i] = e->a[i];
    for (int j = 0; j < 3; j++) {
      double cx = 0;
      for (int k = 0; k < 3; k++) cx += e->C[9 * i + 3 * j + k] * x[k];
      u[i] += e->B[3 * i + j] * x[j] + 0.5 * x[j] * cx;
      if (grad) grad[3 * i + j] = e->B[3 * i + j] + cx;
    }
  }
}

static void body(const double x[3], const double n[3], int tag, void *user, double *f)
{
  const struct exact *e = user;
  double u[3];
  exact_u(e, x, u, NULL);
  for (int i = 0; i < 3; i++) {
    double div = 0;
    for (int k = 0; k < 3; k++) div += e->lam * e->C[9 * k + 3 * k + i];
    for (int j = 0; j < 3; j++) div += e->mu * (e->C[9 * i + 3 * j + j] + e->C[9 * j + 3 * i + j]);
    f[i] = -div + u[i];
  }
}

static void traction(const double x[3], const double n[3], int tag, void *user, double *g)
{
  const struct exact *e = user;
  double u[3], G[9];
  exact_u(e, x, u, G);
  double tr = G[0] + G[4] + G[8];
  for (int i = 0; i < 3; i++) {
    g[i] = 0;
    for (int j = 0; j < 3; j++)
      g[i] += (e->lam * tr * (i == j) + e->mu * (G[3 * i + j] + G[3 * j + i])) * n[j];
  }
}

static void run(femint_context_t ctx, int pmin, int pmax, int degree, uint64_t *st)
{
  femint_mesh_t mesh;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_PRISM, 2, 3, 2, 1.0, 1.5, 0.8, 0.0, 0, &mesh));
  int nc = femint_mesh_num_cells(mesh);
  int *orders = malloc(nc * sizeof *orders);
  for (int c = 0; c < nc; c++) orders[c] = pmin + (int)((pmax - pmin + 1) * test_rand(st));
  orders[0] = pmin;
  orders[nc - 1] = pmax;
  femint_space_t s;
  TAP_CALL(ctx, femint_space_create(ctx, mesh, FEMINT_H1, 3, orders, 0, &s));
  struct exact e = {.lam = 0, .mu = 0};
  double E = 2.0, nu = 0.3;
  e.lam = E * nu / ((1 + nu) * (1 - 2 * nu));
  e.mu = E / (2 * (1 + nu));
  for (int i = 0; i < 3; i++) e.a[i] = test_rand(st) - 0.5;
  for (int i = 0; i < 9; i++) e.B[i] = test_rand(st) - 0.5;
  if (degree >= 2)
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        for (int k = j; k < 3; k++)
          e.C[9 * i + 3 * j + k] = e.C[9 * i + 3 * k + j] = test_rand(st) - 0.5;
  /* the generic form: elasticity plus the identity on the values */
  double c[3 * 3 * 16] = {0};
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) {
      for (int j = 0; j < 3; j++)
        for (int l = 0; l < 3; l++)
          c[((i * 3 + k) * 4 + j + 1) * 4 + l + 1] =
              e.lam * (i == j) * (k == l) + e.mu * ((i == k) * (j == l) + (i == l) * (j == k));
      c[((i * 3 + k) * 4 + 0) * 4 + 0] = i == k;
    }
  femint_form_t form;
  TAP_CALL(ctx, femint_form_create_generic(ctx, 3, 1, c, &form));
  int64_t n = femint_space_num_dofs(s);
  double *b = calloc(n, sizeof *b), *u = calloc(n, sizeof *u);
  femint_operator_t op;
  femint_matrix_t A;
  TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &form, NULL, &op));
  TAP_CALL(ctx, femint_operator_assemble(op, &A, NULL));
  TAP_CALL(ctx, femint_operator_load(
                    op, &(struct femint_load){.body = body, .traction = traction, .user = &e}, b));
  femint_operator_destroy(&op);
  int it = test_cg(A, b, u, n, 1e-14, 20000);
  tap_ok(it >= 0, "orders %d..%d: CG converged in %d iterations (%lld dofs)", pmin, pmax, it,
         (long long)n);
  double err = 0, umax = 0;
  for (int k = 0; k < 200; k++) {
    int cell = (int)(nc * test_rand(st));
    double xi[3] = {test_rand(st), test_rand(st), 2 * test_rand(st) - 1}, x[3], uh[3], ue[3];
    if (xi[0] + xi[1] > 1) xi[0] = 1 - xi[0], xi[1] = 1 - xi[1];
    femint_space_eval(s, u, cell, xi, x, uh);
    exact_u(&e, x, ue, NULL);
    for (int i = 0; i < 3; i++) {
      err = fmax(err, fabs(uh[i] - ue[i]));
      umax = fmax(umax, fabs(ue[i]));
    }
  }
  tap_ok(err < 1e-8 * umax, "orders %d..%d, exact solution of degree %d: max error %.2e (max |u| %.2f)",
         pmin, pmax, degree, err, umax);
  /* the same data with the wrong degree must fail: degree + 1 is not in the space */
  free(b);
  free(u);
  femint_matrix_destroy(&A);
  femint_form_destroy(&form);
  femint_space_destroy(&s);
  femint_mesh_destroy(&mesh);
  free(orders);
}

int main(void)
{
  femint_context_t ctx = test_init();
  uint64_t st = 11;
  run(ctx, 1, 4, 1, &st);
  run(ctx, 2, 3, 2, &st);
  run(ctx, 2, 2, 2, &st);
  femint_finalize(&ctx);
  return tap_done();
}
