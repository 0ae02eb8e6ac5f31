/* Test: matrix-free linear elasticity on hexahedra (femint_operator_apply with the elasticity form,
 * sum factorization): y = A x with A assembled by femint_operator_assemble, Young's modulus and
 * Poisson ratio per cell, orders 1..8, on CPU workers and OpenCL; on the Gauss-Lobatto rule
 * against the element matrices of that rule summed by hand; the six rigid motions in the kernel;
 * the geometry per cell gives the stored data's y; the diagonal is the assembled matrix's; CG
 * (plain and Jacobi) on every kind of worker with the same iterations; a manufactured solution
 * converges at rate p + 1 in L2. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "host/host.h"
#include "host/refel_hex.h"

static const char *const where_name[3] = {"any worker", "CPU", "OpenCL"};

static double norm(const double *a, int64_t n)
{
  double s = 0;
  for (int64_t i = 0; i < n; i++) s += a[i] * a[i];
  return sqrt(s);
}

/* y = A x by femint_operator_apply (twice: *same says whether the bits agree), and A x with A
 * assembled: their relative difference. */
static double compare(femint_context_t ctx, femint_space_t s, femint_form_t f,
                      const struct femint_operator_options *o, const double *x, double *y,
                      int *same)
{
  femint_operator_t op;
  TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, o, &op));
  const int64_t n = femint_space_num_dofs(s);
  double *y2 = malloc(n * sizeof *y2), *z = malloc(n * sizeof *z);
  TAP_CALL(ctx, femint_operator_apply(op, 0, x, y, NULL));
  TAP_CALL(ctx, femint_operator_apply(op, 0, x, y2, NULL));
  *same = memcmp(y, y2, n * sizeof *y) == 0;
  femint_matrix_t A;
  TAP_CALL(ctx, femint_operator_assemble(op, &A, NULL));
  femint_matrix_mult(A, x, z);
  const double d = tap_reldiff(y, z, (size_t)n);
  femint_matrix_destroy(&A);
  femint_operator_destroy(&op);
  free(y2);
  free(z);
  return d;
}

static void check_products(femint_context_t ctx)
{
  femint_mesh_t m;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, 3, 2, 2, 1.5, 1.0, 1.2, 0.35, 12, &m));
  const int ncell = femint_mesh_num_cells(m);
  double E[12], nu[12];
  for (int c = 0; c < ncell; c++) E[c] = 0.5 + drand48(), nu[c] = 0.45 * drand48();
  femint_form_t f;
  TAP_CALL(ctx, femint_form_create_elasticity(ctx, ncell, E, nu, &f));
  for (int p = 1; p <= 8; p++) {
    femint_space_t s;
    TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 3, NULL, p, &s));
    const int64_t n = femint_space_num_dofs(s);
    double *x = malloc(n * sizeof *x), *y[2] = {malloc(n * sizeof *x), malloc(n * sizeof *x)};
    for (int64_t i = 0; i < n; i++) x[i] = drand48() - 0.5;
    for (int w = 0; w < 2; w++) {
      if (w == 1 && (p == 2 || p == 5 || p == 6)) continue; /* OpenCL on PoCL: a few orders */
      const struct femint_operator_options o = {.where = w ? FEMINT_WHERE_OPENCL
                                                           : FEMINT_WHERE_CPU};
      int same;
      const double d = compare(ctx, s, f, &o, x, y[w], &same);
      tap_ok(d < 1e-12 && same,
             "elasticity, p = %d, %s: apply = A x (rel. diff %.1e), the same bits twice", p,
             w ? "OpenCL" : "CPU", d);
    }
    free(x);
    free(y[0]);
    free(y[1]);
    femint_space_destroy(&s);
  }
  femint_form_destroy(&f);
  femint_mesh_destroy(&m);
}

/* The element matrix of elasticity on a rule, by hand: A[(i,c),(j,e)] = sum_q w det J (lambda
 * d_c phi_i d_e phi_j + mu (delta_ce grad phi_i . grad phi_j + d_e phi_i d_c phi_j)), times x. */
static void hand_product(const struct femint_mesh *m, femint_space_t s, const struct refel *re,
                         double lambda, double mu, const double *x, double *y)
{
  const int nsh = re->nsh;
  double *grad = malloc(3 * (size_t)nsh * sizeof *grad), *ye = malloc(3 * (size_t)nsh * sizeof *ye);
  for (int c = 0; c < m->ncell; c++) {
    double X[24];
    femint_mesh_cell_coords((femint_mesh_t)m, c, X);
    const int64_t *gm = &s->cell_mode[s->cell_off[c]];
    memset(ye, 0, 3 * (size_t)nsh * sizeof *ye);
    for (int q = 0; q < re->nq; q++) {
      double J[9], K[9];
      geom_hex_jacobian(8, X, &re->xq[3 * q], J);
      const double w = re->wq[q] * geom_inverse3(J, K);
      double H[9] = {0}; /* du_c/dx_d of x at the point */
      for (int i = 0; i < nsh; i++)
        for (int d = 0; d < 3; d++) {
          double g = 0;
          for (int e = 0; e < 3; e++) g += K[3 * e + d] * re->phi[((size_t)q * 4 + 1 + e) * nsh + i];
          grad[3 * i + d] = g;
          for (int cc = 0; cc < 3; cc++) H[3 * cc + d] += x[gm[i] * 3 + cc] * g;
        }
      const double tr = H[0] + H[4] + H[8];
      for (int i = 0; i < nsh; i++)
        for (int cc = 0; cc < 3; cc++) {
          double v = lambda * tr * grad[3 * i + cc];
          for (int d = 0; d < 3; d++) v += mu * (H[3 * cc + d] + H[3 * d + cc]) * grad[3 * i + d];
          ye[3 * i + cc] += w * v;
        }
    }
    for (int i = 0; i < nsh; i++)
      for (int cc = 0; cc < 3; cc++) y[gm[i] * 3 + cc] += ye[3 * i + cc];
  }
  free(grad);
  free(ye);
}

/* Both rules against the hand sums; the rigid motions; the geometry variant; the diagonal. */
static void check_rules(femint_context_t ctx)
{
  femint_mesh_t m;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, 2, 2, 2, 1.0, 1.1, 0.9, 0.3, 4, &m));
  const double E = 2.5, nu = 0.3, lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
  femint_form_t f;
  TAP_CALL(ctx, femint_form_create_elasticity(ctx, 1, &E, &nu, &f));
  for (int p = 2; p <= 5; p += 3)
    for (int rule = 0; rule < 2; rule++) {
      femint_space_t s;
      TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 3, NULL, p, &s));
      const int64_t n = femint_space_num_dofs(s);
      struct refel *re;
      TAP_CALL(ctx, rule ? refel_hex_create_rule(p, p + 1, 1, &re) : refel_hex_create(p, &re));
      double *x = malloc(n * sizeof *x), *ref = calloc(n, sizeof *ref), *y = malloc(n * sizeof *y);
      double *yg = malloc(n * sizeof *yg), *r = malloc(n * sizeof *r), *dg[2];
      for (int64_t i = 0; i < n; i++) x[i] = drand48() - 0.5;
      hand_product(m, s, re, lambda, mu, x, ref);
      const char *rn = rule ? "Gauss-Lobatto" : "Gauss";
      for (int w = 0; w < 2; w++) {
        for (int geo = 0; geo < 2; geo++) {
          struct femint_operator_options o = {.apply_rule = rule, .apply_geometry = geo,
                                              .where = w ? FEMINT_WHERE_OPENCL : FEMINT_WHERE_CPU};
          femint_operator_t op;
          TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, &o, &op));
          TAP_CALL(ctx, femint_operator_apply(op, 0, x, geo ? yg : y, NULL));
          if (w == 0) dg[geo] = test_diagonal(ctx, op, s);
          if (w == 0 && geo == 0) {
            /* the six rigid motions: translations and rotations about the axes */
            double worst = 0;
            for (int k = 0; k < 6; k++) {
              double *rm = malloc(n * sizeof *rm), ta[3] = {0, 0, 0}, tb[9] = {0};
              if (k < 3) ta[k] = 1;
              else { /* a rotation about axis k - 3 */
                const int i = (k - 3 + 1) % 3, j = (k - 3 + 2) % 3;
                tb[3 * i + j] = -1, tb[3 * j + i] = 1;
              }
              TAP_CALL(ctx, femint_space_interpolate_linear(s, ta, tb, rm));
              TAP_CALL(ctx, femint_operator_apply(op, 0, rm, r, NULL));
              worst = fmax(worst, norm(r, n) / norm(rm, n));
              free(rm);
            }
            tap_ok(worst < 1e-12, "p = %d, %s: |A r| / |r| = %.1e for the six rigid motions", p,
                   rn, worst);
          }
          femint_operator_destroy(&op);
        }
        const double d = tap_reldiff(y, ref, (size_t)n), dgeo = tap_reldiff(yg, y, (size_t)n);
        tap_ok(d < 1e-12, "p = %d, %s, %s: apply = the element matrices of that rule summed by "
               "hand (%.1e)", p, rn, w ? "OpenCL" : "CPU", d);
        tap_ok(dgeo < 1e-13, "p = %d, %s, %s: the geometry per cell gives the stored data's y "
               "(%.1e)", p, rn, w ? "OpenCL" : "CPU", dgeo);
      }
      /* the diagonal against the hand product with unit vectors would take n products: the
       * assembled matrix's (Gauss), or e_i^T A e_i on a sample of DOFs (both rules) */
      double dd = 0, dn = 0;
      for (int64_t i = 0; i < n; i += n / 40 + 1) {
        double *e = calloc(n, sizeof *e), *ae = calloc(n, sizeof *ae);
        e[i] = 1;
        hand_product(m, s, re, lambda, mu, e, ae);
        dd = fmax(dd, fabs(ae[i] - dg[0][i]));
        dn = fmax(dn, fabs(ae[i]));
        free(e);
        free(ae);
      }
      tap_ok(dd < 1e-13 * dn, "p = %d, %s: the diagonal is e_i^T A e_i on 40 DOFs (%.1e)", p, rn,
             dd / dn);
      const double ddg = tap_reldiff(dg[1], dg[0], (size_t)n);
      tap_ok(ddg < 1e-13, "p = %d, %s: the geometry gives the same diagonal (%.1e)", p, rn, ddg);
      free(dg[0]);
      free(dg[1]);
      free(x);
      free(ref);
      free(y);
      free(yg);
      free(r);
      refel_destroy(&re);
      femint_space_destroy(&s);
    }
  femint_form_destroy(&f);
  femint_mesh_destroy(&m);
}

/* The manufactured displacement u = (1, 2, -1) s, s = sin(pi x) sin(pi y) sin(pi z), on the unit
 * cube (zero on its boundary), and its body force f = -div sigma(u) = mu 3 pi^2 u - (lambda +
 * mu) grad div u. */
static const double amp[3] = {1, 2, -1}, LAMBDA = 1.2, MU = 0.8;
static void exact(const double x[3], const double nrm[3], int tag, void *user, double *v)
{
  const double s = sin(M_PI * x[0]) * sin(M_PI * x[1]) * sin(M_PI * x[2]);
  for (int c = 0; c < 3; c++) v[c] = amp[c] * s;
}
static void body(const double x[3], const double nrm[3], int tag, void *user, double *v)
{
  double sn[3], cs[3];
  for (int d = 0; d < 3; d++) sn[d] = sin(M_PI * x[d]), cs[d] = cos(M_PI * x[d]);
  const double s = sn[0] * sn[1] * sn[2];
  for (int j = 0; j < 3; j++) {
    double gd = 0; /* d_j div u = sum_c amp_c d_j d_c s */
    for (int c = 0; c < 3; c++) {
      const int k = 3 - j - c;
      const double djc = c == j ? -M_PI * M_PI * s : M_PI * M_PI * cs[j] * cs[c] * sn[k];
      gd += amp[c] * djc;
    }
    v[j] = 3 * M_PI * M_PI * MU * amp[j] * s - (LAMBDA + MU) * gd;
  }
}

/* Solve on an nx^3 box of order p (clamped boundary) with CG on `where`; the L2 error. */
static double solve(femint_context_t ctx, int p, int nx, int where, int jacobi,
                    struct femint_cg_result *res)
{
  femint_mesh_t m;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, nx, nx, nx, 1, 1, 1, 0.1, 7, &m));
  femint_space_t s;
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 3, NULL, p, &s));
  TAP_CALL(ctx, femint_space_remove_boundary_dofs(s, 0, NULL));
  /* E and nu of lambda and mu */
  const double E = MU * (3 * LAMBDA + 2 * MU) / (LAMBDA + MU), nu = LAMBDA / (2 * (LAMBDA + MU));
  femint_form_t f;
  TAP_CALL(ctx, femint_form_create_elasticity(ctx, 1, &E, &nu, &f));
  const struct femint_operator_options o = {.where = where};
  femint_operator_t op;
  TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, &o, &op));
  const int64_t n = femint_space_num_dofs(s);
  double *rhs = calloc(n, sizeof *rhs), *u = malloc(n * sizeof *u);
  const struct femint_load load = {.body = body};
  TAP_CALL(ctx, femint_operator_load(op, &load, rhs));
  const struct femint_cg_options co = {.rtol = 1e-10, .jacobi = jacobi};
  test_matfree_cg(ctx, op, s, rhs, &co, res, u);
  double e2;
  TAP_CALL(ctx, femint_space_l2_error(s, u, 0, NULL, exact, NULL, &e2));
  femint_operator_destroy(&op);
  femint_form_destroy(&f);
  free(rhs);
  free(u);
  femint_space_destroy(&s);
  femint_mesh_destroy(&m);
  return sqrt(e2);
}

static void check_solves(femint_context_t ctx)
{
  struct femint_cg_result r[3], rj;
  double e[3];
  for (int w = 0; w < 3; w++) e[w] = solve(ctx, 2, 3, w, 0, &r[w]);
  for (int w = 0; w < 3; w++)
    tap_ok(r[w].converged && abs(r[w].iterations - r[1].iterations) <= 1 &&
               fabs(e[w] - e[1]) < 1e-6 * e[1],
           "p = 2, 3^3 cells, %s: CG converged in %d iterations (CPU %d), L2 error %.6e (CPU "
           "%.6e)", where_name[w], r[w].iterations, r[1].iterations, e[w], e[1]);
  const double ej = solve(ctx, 2, 3, FEMINT_WHERE_CPU, 1, &rj);
  tap_ok(rj.converged && rj.iterations < r[1].iterations && fabs(ej - e[1]) < 1e-6 * e[1],
         "Jacobi: %d iterations instead of %d, the same solution", rj.iterations, r[1].iterations);
  for (int p = 1; p <= 2; p++) {
    const int n0 = p == 1 ? 4 : 3;
    struct femint_cg_result q;
    const double e0 = solve(ctx, p, n0, FEMINT_WHERE_ANY, 1, &q);
    const double e1 = solve(ctx, p, 2 * n0, FEMINT_WHERE_ANY, 1, &q);
    const double rate = log2(e0 / e1);
    tap_ok(rate > p + 1 - 0.4, "p = %d: L2 error %.2e -> %.2e from %d^3 to %d^3 cells, rate %.2f "
           "(p + 1 = %d)", p, e0, e1, n0, 2 * n0, rate, p + 1);
  }
}

int main(void)
{
  srand48(412);
  test_fresh_dmda("t412");
  femint_context_t ctx = test_init();
  check_products(ctx);
  check_rules(ctx);
  check_solves(ctx);
  femint_finalize(&ctx);
  test_fresh_dmda_remove();
  return tap_done();
}
