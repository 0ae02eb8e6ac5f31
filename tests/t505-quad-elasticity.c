/* Test: assembled quadrilateral operators. Polynomial reproduction on an affine mesh with mixed
 * orders (plane elasticity plus a mass term, with the Neumann terms of the load integration);
 * the patch test for linear fields on the curved annulus (Laplace and plane strain); the three
 * rigid-body modes of plane stress elasticity on curved elements, and no other null vector. */
#include <math.h>

#include "common.h"
#include "host/host.h"

/* u_i = a_i + B_ij x_j + x.C_i.x / 2 (C_i symmetric) in 2D; -div sigma(u) + u = f, sigma n = g. */
struct exact {
  double a[2], B[4], C[8];
  double lam, mu;
};

static void exact_u(const struct exact *e, const double *x, double *u, double *grad)
{
  for (int i = 0; i < 2; i++) {
    u[i] = e->a[i];
    for (int j = 0; j < 2; j++) {
      const double cx = e->C[4 * i + 2 * j] * x[0] + e->C[4 * i + 2 * j + 1] * x[1];
      u[i] += e->B[2 * i + j] * x[j] + 0.5 * x[j] * cx;
      if (grad) grad[2 * i + j] = e->B[2 * i + j] + cx;
    }
  }
}

static void body(const double x[3], const double n[3], int tag, void *user, double *f)
{
  const struct exact *e = user;
  double u[2];
  exact_u(e, x, u, NULL);
  for (int i = 0; i < 2; i++) {
    double div = 0;
    for (int k = 0; k < 2; k++) div += e->lam * e->C[4 * k + 2 * k + i];
    for (int j = 0; j < 2; j++) div += e->mu * (e->C[4 * i + 2 * j + j] + e->C[4 * j + 2 * i + j]);
    f[i] = -div + u[i];
  }
}

static void traction(const double x[3], const double n[3], int tag, void *user, double *g)
{
  const struct exact *e = user;
  double u[2], G[4];
  exact_u(e, x, u, G);
  const double tr = G[0] + G[3];
  for (int i = 0; i < 2; i++) {
    g[i] = 0;
    for (int j = 0; j < 2; j++)
      g[i] += (e->lam * tr * (i == j) + e->mu * (G[2 * i + j] + G[2 * j + i])) * n[j];
  }
}

/* A grid of nx x ny parallelograms: the unit square's grid under x -> A x + b. */
static int affine_mesh(femint_context_t ctx, int nx, int ny, femint_mesh_t *m)
{
  const double A[4] = {1.3, 0.4, -0.2, 0.9}, b[2] = {0.3, -0.1};
  const int nv = (nx + 1) * (ny + 1);
  double *x = malloc(2 * sizeof *x * nv);
  int *cells = malloc(4 * sizeof *cells * nx * ny);
  for (int j = 0; j <= ny; j++)
    for (int i = 0; i <= nx; i++) {
      const int v = j * (nx + 1) + i;
      const double s = (double)i / nx, t = (double)j / ny;
      x[2 * v] = A[0] * s + A[1] * t + b[0];
      x[2 * v + 1] = A[2] * s + A[3] * t + b[1];
    }
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++) {
      const int c = j * nx + i, v = j * (nx + 1) + i;
      cells[4 * c] = v, cells[4 * c + 1] = v + 1, cells[4 * c + 2] = v + nx + 2;
      cells[4 * c + 3] = v + nx + 1;
    }
  int err = femint_mesh_create(ctx, FEMINT_QUAD, nv, x, nx * ny, cells, NULL, m);
  free(x);
  free(cells);
  return err;
}

static void reproduction(femint_context_t ctx, int pmin, int pmax, int degree, uint64_t *st)
{
  femint_mesh_t mesh;
  TAP_CALL(ctx, affine_mesh(ctx, 4, 3, &mesh));
  /* the boundary edges must carry tags for the traction: tag them all */
  int nb = femint_mesh_num_boundary_faces(mesh), nc = femint_mesh_num_cells(mesh);
  int *orders = malloc(nc * sizeof *orders);
  for (int c = 0; c < nc; c++) orders[c] = pmin + (int)((pmax - pmin + 1) * test_rand(st));
  orders[0] = pmin;
  orders[nc - 1] = pmax;
  femint_space_t s;
  TAP_CALL(ctx, femint_space_create(ctx, mesh, FEMINT_H1, 2, orders, 0, &s));
  struct exact e;
  memset(&e, 0, sizeof e);
  const double E = 2.0, nu = 0.3;
  e.lam = E * nu / ((1 + nu) * (1 - 2 * nu));
  e.mu = E / (2 * (1 + nu));
  for (int i = 0; i < 2; i++) e.a[i] = test_rand(st) - 0.5;
  for (int i = 0; i < 4; i++) e.B[i] = test_rand(st) - 0.5;
  if (degree >= 2)
    for (int i = 0; i < 2; i++) {
      e.C[4 * i] = test_rand(st) - 0.5;
      e.C[4 * i + 3] = test_rand(st) - 0.5;
      e.C[4 * i + 1] = e.C[4 * i + 2] = test_rand(st) - 0.5;
    }
  /* plane strain elasticity plus the identity on the values, as a generic form */
  double c[2 * 2 * 16] = {0};
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < 2; k++) {
      for (int j = 0; j < 2; j++)
        for (int l = 0; l < 2; l++)
          c[((i * 2 + k) * 4 + j + 1) * 4 + l + 1] =
              e.lam * (i == j) * (k == l) + e.mu * ((i == k) * (j == l) + (i == l) * (j == k));
      c[((i * 2 + k) * 4 + 0) * 4 + 0] = i == k;
    }
  femint_form_t form;
  TAP_CALL(ctx, femint_form_create_generic(ctx, 2, 1, c, &form));
  int64_t n = femint_space_num_dofs(s);
  double *b = calloc(n, sizeof *b), *u = calloc(n, sizeof *u);
  femint_operator_t op;
  femint_matrix_t A;
  struct femint_mesh *mm = mesh; /* every boundary edge gets tag 1 */
  for (int k = 0; k < nb; k++) mm->bface[3 * k + 2] = 1;
  TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &form, NULL, &op));
  TAP_CALL(ctx, femint_operator_assemble(op, &A, NULL));
  TAP_CALL(ctx, femint_operator_load(
                    op, &(struct femint_load){.body = body, .traction = traction, .user = &e}, b));
  femint_operator_destroy(&op);
  int it = test_cg(A, b, u, n, 1e-14, 20000);
  tap_ok(it >= 0, "orders %d..%d: CG converged in %d iterations (%lld DOFs)", pmin, pmax, it,
         (long long)n);
  double err = 0, umax = 0;
  for (int k = 0; k < 200; k++) {
    int cell = (int)(nc * test_rand(st));
    double xi[2] = {2 * test_rand(st) - 1, 2 * test_rand(st) - 1}, x[3], uh[2], ue[2];
    femint_space_eval(s, u, cell, xi, x, uh);
    exact_u(&e, x, ue, NULL);
    for (int i = 0; i < 2; i++) {
      err = fmax(err, fabs(uh[i] - ue[i]));
      umax = fmax(umax, fabs(ue[i]));
    }
  }
  tap_ok(err < 1e-8 * umax,
         "affine quadrilaterals, orders %d..%d, exact solution of degree %d: max error %.2e (max "
         "|u| %.2f)",
         pmin, pmax, degree, err, umax);
  free(b);
  free(u);
  femint_matrix_destroy(&A);
  femint_form_destroy(&form);
  femint_space_destroy(&s);
  femint_mesh_destroy(&mesh);
  free(orders);
}

struct linear {
  double a[2], b[6], lam, mu;
  int elasticity;
};

static void flux(const double x[3], const double n[3], int tag, void *user, double *g)
{
  const struct linear *l = user;
  if (!l->elasticity) {
    g[0] = l->b[0] * n[0] + l->b[1] * n[1];
    return;
  }
  const double tr = l->b[0] + l->b[4];
  for (int i = 0; i < 2; i++) {
    g[i] = 0;
    for (int j = 0; j < 2; j++)
      g[i] += (l->lam * tr * (i == j) + l->mu * (l->b[3 * i + j] + l->b[3 * j + i])) * n[j];
  }
}

static void linear_field(const double x[3], const double n[3], int tag, void *user, double *v)
{
  const struct linear *l = user;
  for (int i = 0; i < (l->elasticity ? 2 : 1); i++)
    v[i] = l->a[i] + l->b[3 * i] * x[0] + l->b[3 * i + 1] * x[1];
}

/* K u = b for linear u on curved cells of orders 2..4, b the boundary term: every row. */
static void patch_test(femint_context_t ctx, uint64_t *st)
{
  femint_mesh_t mesh;
  TAP_CALL(ctx, femint_mesh_create_annulus(ctx, 3, 4, 0.5, 1.2, 2.0, &mesh));
  const int nc = femint_mesh_num_cells(mesh);
  int orders[12];
  for (int c = 0; c < nc; c++) orders[c] = 2 + (int)(3 * test_rand(st));
  for (int el = 0; el < 2; el++) {
    struct linear l = {.elasticity = el};
    const double E = 1.5, nu = 0.28, one = 1;
    l.lam = E * nu / ((1 + nu) * (1 - 2 * nu)); /* plane strain */
    l.mu = E / (2 * (1 + nu));
    for (int i = 0; i < 2; i++) l.a[i] = test_rand(st);
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++) l.b[3 * i + j] = test_rand(st) - 0.5;
    femint_space_t s;
    femint_form_t f;
    TAP_CALL(ctx, femint_space_create(ctx, mesh, FEMINT_H1, el ? 2 : 1, orders, 0, &s));
    if (el)
      TAP_CALL(ctx, femint_form_create_plane_elasticity(ctx, FEMINT_PLANE_STRAIN, 1, &E, &nu, &f));
    else TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, 1, &one, &f));
    femint_operator_t op;
    femint_matrix_t K;
    TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, NULL, &op));
    TAP_CALL(ctx, femint_operator_assemble(op, &K, NULL));
    const int64_t n = femint_space_num_dofs(s);
    double *u = malloc(n * sizeof *u), *y = malloc(n * sizeof *y), *b = calloc(n, sizeof *b);
    femint_space_interpolate_linear(s, l.a, l.b, u);
    femint_matrix_mult(K, u, y);
    TAP_CALL(ctx, femint_operator_load(op, &(struct femint_load){.traction = flux, .user = &l}, b));
    femint_operator_destroy(&op);
    double r = 0, nu2 = 0, nb = 0;
    for (int64_t i = 0; i < n; i++) {
      r += (y[i] - b[i]) * (y[i] - b[i]);
      nu2 += u[i] * u[i];
      nb += b[i] * b[i];
    }
    const double rel = sqrt(r) / (test_matrix_norm(K) * sqrt(nu2));
    tap_ok(rel < 1e-12, "%s patch test on the curved annulus, orders 2..4: ||K u - b|| / (||K|| "
                        "||u||) = %.2e (||b|| = %.3g)",
           el ? "plane strain" : "Laplace", rel, sqrt(nb));
    /* the interpolant is exact: a point inside a curved cell has the linear field's value */
    double xi[2] = {0.3, -0.6}, x[3], uh[2], worst = 0;
    for (int c = 0; c < nc; c++) {
      femint_space_eval(s, u, c, xi, x, uh);
      for (int i = 0; i < (el ? 2 : 1); i++)
        worst = fmax(worst, fabs(uh[i] - (l.a[i] + l.b[3 * i] * x[0] + l.b[3 * i + 1] * x[1])));
    }
    double e2 = -1;
    femint_space_l2_error(s, u, 0, NULL, linear_field, &l, &e2);
    tap_ok(e2 >= 0 && sqrt(e2) < 1e-13, "%s: femint_space_l2_error of the interpolant %.1e",
           el ? "plane strain" : "Laplace", sqrt(e2));
    tap_ok(worst < 1e-13, "%s: the linear field is in the space of the curved cells (max error "
                          "%.1e)",
           el ? "plane strain" : "Laplace", worst);
    free(u);
    free(y);
    free(b);
    femint_matrix_destroy(&K);
    femint_form_destroy(&f);
    femint_space_destroy(&s);
  }
  femint_mesh_destroy(&mesh);
}

/* Plane stress on a curved mesh: K annihilates the two translations and the rotation, and its
 * eigenvalues show exactly three zeros. */
static void rigid_modes(femint_context_t ctx)
{
  femint_mesh_t mesh;
  TAP_CALL(ctx, femint_mesh_create_annulus(ctx, 2, 3, 0.6, 1.0, 1.5, &mesh));
  for (int p = 2; p <= 3; p++) {
    femint_space_t s;
    femint_form_t f;
    const double E = 2.0, nu = 0.25;
    TAP_CALL(ctx, femint_space_create(ctx, mesh, FEMINT_H1, 2, NULL, p, &s));
    TAP_CALL(ctx, femint_form_create_plane_elasticity(ctx, FEMINT_PLANE_STRESS, 1, &E, &nu, &f));
    femint_matrix_t K;
    TAP_CALL(ctx, test_assemble(ctx, s, 1, &f, NULL, &K, NULL));
    const int64_t n = femint_space_num_dofs(s);
    double *u = malloc(n * sizeof *u), *y = malloc(n * sizeof *y), worst = 0;
    const double tx[2] = {1, 0}, ty[2] = {0, 1}, rot[6] = {0, -1, 0, 1, 0, 0};
    const double *as[3] = {tx, ty, NULL}, *bs[3] = {NULL, NULL, rot};
    for (int k = 0; k < 3; k++) {
      femint_space_interpolate_linear(s, as[k], bs[k], u);
      femint_matrix_mult(K, u, y);
      double r = 0, un = 0;
      for (int64_t i = 0; i < n; i++) r += y[i] * y[i], un += u[i] * u[i];
      worst = fmax(worst, sqrt(r / un) / test_matrix_norm(K));
    }
    tap_ok(worst < 1e-13, "plane stress, curved cells, p = %d: ||K r|| / (||K|| ||r||) <= %.1e "
                          "for the 2 translations and the rotation",
           p, worst);
    int nd;
    double *D = test_dense(K, &nd), *lambda = malloc(nd * sizeof *lambda);
    test_sym_eigenvalues(nd, D, lambda);
    int zeros = 0;
    for (int i = 0; i < nd; i++) zeros += fabs(lambda[i]) < 1e-10 * lambda[nd - 1];
    tap_ok(zeros == 3, "p = %d: %d of %d eigenvalues of K are zero (3: no spurious mode; lambda_3 "
                       "/ lambda_max = %.2e)",
           p, zeros, nd, lambda[3] / lambda[nd - 1]);
    free(D);
    free(lambda);
    free(u);
    free(y);
    femint_matrix_destroy(&K);
    femint_form_destroy(&f);
    femint_space_destroy(&s);
  }
  femint_mesh_destroy(&mesh);
}

int main(void)
{
  femint_context_t ctx = test_init();
  uint64_t st = 13;
  reproduction(ctx, 1, 4, 1, &st);
  reproduction(ctx, 2, 5, 2, &st);
  reproduction(ctx, 3, 7, 3, &st);
  patch_test(ctx, &st);
  rigid_modes(ctx);
  femint_finalize(&ctx);
  return tap_done();
}
