/* Test: Newton's method on a nonlinear problem with femint's residual and Jacobian. The Bratu
 * equation -laplace u - lambda exp(u) = f on the unit square (triangles, orders 1 and 2) and the
 * unit cube (tetrahedra, order 1), u = 0 on the boundary (its DOFs removed), f made so that
 * u = sin(pi x) sin(pi y) (sin(pi z)) solves it, written by the caller as a source with f0, f1,
 * g0 and g3. Newton (the Jacobian's systems by conjugate gradients, to 1e-14) converges
 * quadratically, and the L2 error of the solution falls at rate p + 1 under refinement. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const char bratu_mms[] =
    "/* -laplace u - k0 exp(u) = f, f from u* = prod sin(pi x_d) */\n"
    "FEMINT_POINTWISE void f0(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *f)\n"
    "{\n"
    "  const REAL pi = 3.14159265358979323846;\n"
    "  REAL s = 1;\n"
    "  for (int d = 0; d < dim; d++) s *= sin(pi * x[d]);\n"
    "  f[0] = -k[0] * exp(u[0]) - (dim * pi * pi * s - k[0] * exp(s));\n"
    "}\n"
    "FEMINT_POINTWISE void f1(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *f)\n"
    "{\n"
    "  for (int d = 0; d < dim; d++) f[d] = du[d];\n"
    "}\n"
    "FEMINT_POINTWISE void g0(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *g)\n"
    "{\n"
    "  g[0] = -k[0] * exp(u[0]);\n"
    "}\n"
    "FEMINT_POINTWISE void g3(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *g)\n"
    "{\n"
    "  for (int d = 0; d < dim * dim; d++) g[d] = d % (dim + 1) == 0 ? 1 : 0;\n"
    "}\n";

static void exact(const double x[3], const double n[3], int tag, void *user, double *v)
{
  (void)n, (void)tag;
  const int dim = *(const int *)user;
  v[0] = 1;
  for (int d = 0; d < dim; d++) v[0] *= sin(M_PI * x[d]);
}

static double norm(int64_t n, const double *x)
{
  double s = 0;
  for (int64_t i = 0; i < n; i++) s += x[i] * x[i];
  return sqrt(s);
}

/* x = A^-1 b by conjugate gradients (A symmetric positive definite), to |r| <= 1e-14 |b|. */
static int cg(femint_matrix_t A, int64_t n, const double *b, double *x)
{
  double *r = malloc(n * sizeof *r), *p = malloc(n * sizeof *p), *q = malloc(n * sizeof *q);
  memset(x, 0, n * sizeof *x);
  memcpy(r, b, n * sizeof *r);
  memcpy(p, b, n * sizeof *p);
  double rr = norm(n, r) * norm(n, r);
  const double stop = 1e-28 * rr;
  int it = 0;
  for (; it < 5000 && rr > stop; it++) {
    femint_matrix_mult(A, p, q);
    double pq = 0;
    for (int64_t i = 0; i < n; i++) pq += p[i] * q[i];
    const double alpha = rr / pq;
    double rr2 = 0;
    for (int64_t i = 0; i < n; i++) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
      rr2 += r[i] * r[i];
    }
    for (int64_t i = 0; i < n; i++) p[i] = r[i] + rr2 / rr * p[i];
    rr = rr2;
  }
  free(r), free(p), free(q);
  return it;
}

/* Newton from u = 0 on one mesh: the residual norms (res[0..*nit]) and the L2 error. */
static double newton(femint_context_t ctx, int shape, int nx, int p, double *res, int *nit)
{
  const int dim = shape == FEMINT_TRI ? 2 : 3;
  femint_mesh_t m;
  femint_space_t s;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, shape, nx, nx, dim == 3 ? nx : 1, 1, 1, 1, 0.1, 7, &m));
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, NULL, p, &s));
  TAP_CALL(ctx, femint_space_remove_boundary_dofs(s, 0, NULL));
  const double lambda = 1;
  struct femint_pointwise pw = {.source = bratu_mms, .name = "bratu_mms.c", .ncomp = 1,
                                .nconst = 1, .constants = &lambda};
  femint_form_t f;
  femint_operator_t op;
  TAP_CALL(ctx, femint_form_create_pointwise(ctx, &pw, &f));
  TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, NULL, &op));
  const int64_t n = femint_space_num_dofs(s);
  double *u = calloc(n, sizeof *u), *F = malloc(n * sizeof *F), *du = malloc(n * sizeof *du);
  femint_vector_t vu, vF;
  TAP_CALL(ctx, femint_vector_create(s, &vu));
  TAP_CALL(ctx, femint_vector_create(s, &vF));
  *nit = 0;
  for (int it = 0; it < 12; it++) {
    TAP_CALL(ctx, femint_vector_set_values(vu, u));
    TAP_CALL(ctx, femint_operator_residual(op, 0, vu, NULL, vF));
    TAP_CALL(ctx, femint_vector_get_values(vF, F));
    res[it] = norm(n, F);
    *nit = it;
    if (res[it] <= 1e-12 * res[0]) break;
    femint_matrix_t J;
    TAP_CALL(ctx, femint_operator_jacobian(op, 0, vu, NULL, &J));
    for (int64_t i = 0; i < n; i++) F[i] = -F[i];
    cg(J, n, F, du);
    for (int64_t i = 0; i < n; i++) u[i] += du[i];
    femint_matrix_destroy(&J);
  }
  double err2;
  TAP_CALL(ctx, femint_space_l2_error(s, u, 0, NULL, exact, (void *)&dim, &err2));
  free(u), free(F), free(du);
  femint_vector_destroy(&vu);
  femint_vector_destroy(&vF);
  femint_operator_destroy(&op);
  femint_form_destroy(&f);
  femint_space_destroy(&s);
  femint_mesh_destroy(&m);
  return sqrt(err2);
}

static void check(femint_context_t ctx, int shape, int p, int n0, int levels)
{
  double err[4], res[16];
  int nit = 0, quadratic = 0, conv = 1;
  for (int l = 0; l < levels; l++) {
    err[l] = newton(ctx, shape, n0 << l, p, res, &nit);
    conv &= res[nit] <= 1e-12 * res[0];
    /* quadratic: where the residual is still well above rounding, r_{k+1} / r_0 <= (r_k / r_0)^2
     * times a modest constant (at least once) */
    for (int k = 0; k + 1 <= nit; k++)
      if (res[k + 1] > 1e-13 * res[0] && res[k] < 1e-2 * res[0])
        quadratic |= res[k + 1] / res[0] <= 100 * (res[k] / res[0]) * (res[k] / res[0]);
    if (l == levels - 1) {
      char seq[300] = "";
      for (int k = 0, at = 0; k <= nit; k++)
        at += snprintf(seq + at, sizeof seq - (size_t)at, "%s%.1e", k ? " " : "", res[k] / res[0]);
      tap_ok(conv && quadratic && nit <= 8,
             "%s p = %d, %d cells a side: Newton converges quadratically in %d steps "
             "(|F|/|F0|: %s)",
             shape == FEMINT_TRI ? "triangles" : "tetrahedra", p, n0 << l, nit, seq);
    }
  }
  const double rate = log2(err[levels - 2] / err[levels - 1]);
  tap_ok(rate > p + 0.8, "%s p = %d: L2 error %.3e -> %.3e, rate %.2f (p + 1 = %d)",
         shape == FEMINT_TRI ? "triangles" : "tetrahedra", p, err[levels - 2], err[levels - 1],
         rate, p + 1);
}

int main(void)
{
  test_fresh_dmda("t416");
  test_private_cache();
  femint_context_t ctx = test_init();
  check(ctx, FEMINT_TRI, 1, 8, 3);
  check(ctx, FEMINT_TRI, 2, 4, 3);
  check(ctx, FEMINT_TET, 1, 4, 3);
  femint_finalize(&ctx);
  test_fresh_dmda_remove();
  return tap_done();
}
