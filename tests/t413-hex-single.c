/* Test: matrix-free operators on hexahedra in single precision (femint_operator_options.precision
 * = FEMINT_SINGLE: the quadrature data, tables and element vectors in floats, the OpenCL kernels
 * computing in floats, the vectors and CG in double): y = A x within 1e-5 of the double
 * operator's for the mass, the Laplacian on both rules and elasticity, orders 1..8, on CPU
 * workers and OpenCL (where the float arithmetic shows: not the double's bits), with the geometry
 * made at each point too; the diagonal and the element operators alone likewise; a CG solve
 * gives the double's solution to 1e-5. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const char *const names[4] = {"mass", "laplace", "laplace on Gauss-Lobatto", "elasticity"};

static femint_form_t make_form(femint_context_t ctx, int kind, int ncell, const double *coef)
{
  femint_form_t f;
  const double nu[12] = {0.3, 0.25, 0.2, 0.33, 0.3, 0.28, 0.31, 0.22, 0.3, 0.26, 0.29, 0.3};
  if (kind == 0) TAP_CALL(ctx, femint_form_create_mass(ctx, 1, ncell, coef, &f));
  else if (kind < 3) TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, ncell, coef, &f));
  else TAP_CALL(ctx, femint_form_create_elasticity(ctx, ncell, coef, nu, &f));
  return f;
}

/* y = A x of form f with the options, precision and geometry given. */
static void apply(femint_context_t ctx, femint_space_t s, femint_form_t f, int rule, int where,
                  int precision, int geo, const double *x, double *y, double *diag)
{
  const struct femint_operator_options o = {.where = where, .apply_rule = rule,
                                            .precision = precision, .apply_geometry = geo};
  femint_operator_t op;
  TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, &o, &op));
  TAP_CALL(ctx, femint_operator_apply(op, 0, x, y, NULL));
  if (diag) {
    double *d = test_diagonal(ctx, op, s);
    memcpy(diag, d, (size_t)femint_space_num_dofs(s) * sizeof *d);
    free(d);
  }
  femint_operator_destroy(&op);
}

static void check_products(femint_context_t ctx)
{
  femint_mesh_t m;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, 3, 2, 2, 1.5, 1.0, 1.2, 0.35, 21, &m));
  double coef[12];
  for (int c = 0; c < 12; c++) coef[c] = 0.5 + drand48();
  for (int kind = 0; kind < 4; kind++)
    for (int p = 1; p <= 8; p++) {
      const int nc = kind == 3 ? 3 : 1, rule = kind == 2;
      if (kind == 3 && p > 6) continue;
      femint_space_t s;
      TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, nc, NULL, p, &s));
      femint_form_t f = make_form(ctx, kind, 12, coef);
      const int64_t n = femint_space_num_dofs(s);
      double *x = malloc(n * sizeof *x), *yd = malloc(n * sizeof *x), *ys = malloc(n * sizeof *x);
      double *dd = malloc(n * sizeof *x), *ds = malloc(n * sizeof *x);
      for (int64_t i = 0; i < n; i++) x[i] = drand48() - 0.5;
      apply(ctx, s, f, rule, FEMINT_WHERE_CPU, FEMINT_DOUBLE, 0, x, yd, dd);
      for (int w = 0; w < 2; w++) {
        if (w == 1 && p != 1 && p != 3 && p != 5 && p != 8) continue; /* OpenCL: a few orders */
        apply(ctx, s, f, rule, w ? FEMINT_WHERE_OPENCL : FEMINT_WHERE_CPU, FEMINT_SINGLE, 0, x,
              ys, w ? NULL : ds);
        const double d = tap_reldiff(ys, yd, (size_t)n);
        /* on OpenCL the arithmetic is in floats: the result is not the double's */
        tap_ok(d < 1e-5 && (w == 0 || d > 1e-10),
               "%s, p = %d, %s, single: y within %.1e of the double operator's", names[kind], p,
               w ? "OpenCL" : "CPU", d);
        if (w == 0) {
          const double dg = tap_reldiff(ds, dd, (size_t)n);
          tap_ok(dg < 1e-6, "%s, p = %d: the single operator's diagonal within %.1e",
                 names[kind], p, dg);
        }
      }
      if (p == 3 && kind != 2) { /* the geometry made at each point, in floats on OpenCL */
        apply(ctx, s, f, rule, FEMINT_WHERE_OPENCL, FEMINT_SINGLE, 1, x, ys, NULL);
        const double d = tap_reldiff(ys, yd, (size_t)n);
        tap_ok(d < 1e-5, "%s, p = 3, OpenCL, single, geometry per cell: within %.1e",
               names[kind], d);
      }
      free(x);
      free(yd);
      free(ys);
      free(dd);
      free(ds);
      femint_form_destroy(&f);
      femint_space_destroy(&s);
    }
  femint_mesh_destroy(&m);
}

/* The element operators alone and a CG solve, single against double. */
static void check_kernel_and_cg(femint_context_t ctx)
{
  femint_mesh_t m;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, 3, 3, 3, 1, 1, 1, 0.2, 3, &m));
  femint_space_t s;
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, NULL, 3, &s));
  TAP_CALL(ctx, femint_space_remove_boundary_dofs(s, 0, NULL));
  const double one = 1;
  femint_form_t f;
  TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, 1, &one, &f));
  const int64_t n = femint_space_num_dofs(s), ne = 27 * 64;
  double *ue = malloc(ne * sizeof *ue), *v[2], *u[2], *b = malloc(n * sizeof *b);
  for (int64_t i = 0; i < ne; i++) ue[i] = drand48() - 0.5;
  for (int64_t i = 0; i < n; i++) b[i] = sin((double)i);
  struct femint_cg_result r[2];
  for (int k = 0; k < 2; k++) {
    const struct femint_operator_options o = {.where = FEMINT_WHERE_OPENCL,
                                              .precision = k ? FEMINT_SINGLE : FEMINT_DOUBLE};
    femint_operator_t op;
    TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, &o, &op));
    v[k] = malloc(ne * sizeof *v[k]);
    u[k] = malloc(n * sizeof *u[k]);
    TAP_CALL(ctx, femint_operator_apply_kernel(op, 0, ue, v[k], 1, NULL, NULL));
    const struct femint_cg_options co = {.rtol = 1e-6};
    test_matfree_cg(ctx, op, s, b, &co, &r[k], u[k]);
    femint_operator_destroy(&op);
  }
  const double dk = tap_reldiff(v[1], v[0], (size_t)ne), du = tap_reldiff(u[1], u[0], (size_t)n);
  tap_ok(dk < 1e-5 && dk > 1e-10, "the element operators alone on OpenCL, single: within %.1e",
         dk);
  tap_ok(r[1].converged && abs(r[1].iterations - r[0].iterations) <= 2 && du < 1e-5,
         "CG to 1e-6 with the single operator: %d iterations (double %d), the solution within "
         "%.1e", r[1].iterations, r[0].iterations, du);
  for (int k = 0; k < 2; k++) {
    free(v[k]);
    free(u[k]);
  }
  free(ue);
  free(b);
  femint_form_destroy(&f);
  femint_space_destroy(&s);
  femint_mesh_destroy(&m);
}

int main(void)
{
  srand48(413);
  test_fresh_dmda("t413");
  femint_context_t ctx = test_init();
  check_products(ctx);
  check_kernel_and_cg(ctx);
  femint_finalize(&ctx);
  test_fresh_dmda_remove();
  return tap_done();
}
