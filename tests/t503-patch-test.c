/* Test: the patch test on perturbed meshes: for linear fields, K u equals the boundary term of
 * femint_operator_load (Laplace: flux grad u . n; elasticity: traction sigma(u) n) in every row. */
#include "common.h"

struct linear {
  double a[3], b[9], lam, mu;
  int elasticity;
};

static void flux(const double x[3], const double n[3], int tag, void *user, double *g)
{
  const struct linear *l = user;
  if (!l->elasticity) {
    g[0] = l->b[0] * n[0] + l->b[1] * n[1] + l->b[2] * n[2];
    return;
  }
  double tr = l->b[0] + l->b[4] + l->b[8];
  for (int i = 0; i < 3; i++) {
    g[i] = 0;
    for (int j = 0; j < 3; j++)
      g[i] += (l->lam * tr * (i == j) + l->mu * (l->b[3 * i + j] + l->b[3 * j + i])) * n[j];
  }
}

int main(void)
{
  femint_context_t ctx = test_init();
  femint_mesh_t mesh;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_PRISM, 3, 2, 3, 1.2, 1.0, 0.9, 0.3, 17, &mesh));
  int nc = femint_mesh_num_cells(mesh);
  int *orders = malloc(nc * sizeof *orders);
  uint64_t st = 3;
  for (int c = 0; c < nc; c++) orders[c] = 1 + (int)(3 * test_rand(&st));
  for (int el = 0; el < 2; el++) {
    int ne = el ? 3 : 1;
    struct linear l = {.elasticity = el};
    double E = 1.5, nu = 0.28, one = 1;
    l.lam = E * nu / ((1 + nu) * (1 - 2 * nu));
    l.mu = E / (2 * (1 + nu));
    for (int i = 0; i < 3; i++) l.a[i] = test_rand(&st);
    for (int i = 0; i < 9; i++) l.b[i] = test_rand(&st) - 0.5;
    femint_space_t s;
    TAP_CALL(ctx, femint_space_create(ctx, mesh, FEMINT_H1, ne, orders, 0, &s));
    femint_form_t f;
    if (el) TAP_CALL(ctx, femint_form_create_elasticity(ctx, 1, &E, &nu, &f));
    else TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, 1, &one, &f));
    femint_operator_t op;
    femint_matrix_t K;
    TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, NULL, &op));
    TAP_CALL(ctx, femint_operator_assemble(op, &K, NULL));
    int64_t n = femint_space_num_dofs(s);
    double *u = malloc(n * sizeof *u), *y = malloc(n * sizeof *y), *b = calloc(n, sizeof *b);
    femint_space_interpolate_linear(s, l.a, l.b, u);
    femint_matrix_mult(K, u, y);
    TAP_CALL(ctx, femint_operator_load(op, &(struct femint_load){.traction = flux, .user = &l}, b));
    double r = 0, nu2 = 0, nb = 0;
    for (int64_t i = 0; i < n; i++) {
      r += (y[i] - b[i]) * (y[i] - b[i]);
      nu2 += u[i] * u[i];
      nb += b[i] * b[i];
    }
    double rel = sqrt(r) / (test_matrix_norm(K) * sqrt(nu2));
    tap_ok(rel < 1e-12, "%s patch test on a perturbed mesh, orders 1..3: ||K u - b|| / (||K|| ||u||) = %.2e",
           el ? "elasticity" : "Laplace", rel);
    tap_ok(nb > 1e-6, "the boundary term is not trivially zero (||b|| = %.3g)", sqrt(nb));
    free(u);
    free(y);
    free(b);
    femint_matrix_destroy(&K);
    femint_operator_destroy(&op);
    femint_form_destroy(&f);
    femint_space_destroy(&s);
  }
  free(orders);
  femint_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  return tap_done();
}
