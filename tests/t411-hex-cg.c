/* Test: vectors, the matrix-free diagonal and conjugate gradients on hexahedra
 * (femint_vector_t, femint_operator_apply_vector, femint_operator_diagonal, femint_operator_cg):
 * the vector's get/restore rules; apply on vectors equals apply on arrays bit for bit; the
 * diagonal equals the assembled matrix's; 1^T M 1 is the volume and the stiffness of a constant
 * vanishes; CG solves to the residual it reports, with and without Jacobi, on CPU workers, on
 * OpenCL and on both (the same iterations, the same solution to rounding); BP1 (mass) and BP3,
 * BP5 (Laplace, Dirichlet) converge at rate p + 1 in L2 under refinement and BP3 and BP5 agree
 * to the quadrature error; what is wrong is refused by name. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "host/load.h"
#include "host/refel_hex.h"

static const char *const where_name[3] = {"any worker", "CPU", "OpenCL"};

/* The operator of one form (kind 0 mass, 1 Laplace) with the given options. */
static femint_operator_t make_op(femint_context_t ctx, femint_space_t s, femint_form_t *f,
                                 int kind, double coef, int where, int rule)
{
  const int nc = femint_space_num_components(s);
  if (kind == 0) TAP_CALL(ctx, femint_form_create_mass(ctx, nc, 1, &coef, f));
  else TAP_CALL(ctx, femint_form_create_laplace(ctx, nc, 1, &coef, f));
  const struct femint_operator_options o = {.where = where, .apply_rule = rule};
  femint_operator_t op;
  TAP_CALL(ctx, femint_operator_create(ctx, s, 1, f, &o, &op));
  return op;
}

static double norm(const double *a, int64_t n)
{
  double s = 0;
  for (int64_t i = 0; i < n; i++) s += a[i] * a[i];
  return sqrt(s);
}

/* The vector's rules, apply on vectors, the diagonal, volume and constants. */
static void check_vectors(femint_context_t ctx)
{
  femint_mesh_t m;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, 3, 2, 2, 1.5, 1.0, 1.2, 0.3, 3, &m));
  femint_space_t s, s2;
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, NULL, 3, &s));
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, NULL, 2, &s2));
  const int64_t n = femint_space_num_dofs(s);
  femint_vector_t x, y, w;
  TAP_CALL(ctx, femint_vector_create(s, &x));
  TAP_CALL(ctx, femint_vector_create(s, &y));
  TAP_CALL(ctx, femint_vector_create(s2, &w));
  double *a, *b;
  tap_ok(femint_vector_size(x) == n && femint_vector_size(NULL) == -1, "a vector has num_dofs values");
  TAP_CALL(ctx, femint_vector_get_array(x, FEMINT_READ, &a));
  int zero = 1;
  for (int64_t i = 0; i < n; i++) zero &= a[i] == 0;
  tap_ok(zero, "a new vector is zero");
  tap_ok(femint_vector_get_array(x, FEMINT_READ, &b) == FEMINT_ESTATE &&
             strstr(femint_last_error(ctx), "already lent"),
         "lending twice is refused: %s", femint_last_error(ctx));
  double *other = malloc(n * sizeof *other);
  tap_ok(femint_vector_restore_array(x, &other) == FEMINT_ESTATE,
         "restoring an array the vector did not lend is refused");
  TAP_CALL(ctx, femint_vector_restore_array(x, &a));
  tap_ok(a == NULL && femint_vector_get_array(x, 7, &a) == FEMINT_EINVAL &&
             strstr(femint_last_error(ctx), "mode 7"),
         "a bad mode is refused: %s", femint_last_error(ctx));
  for (int64_t i = 0; i < n; i++) other[i] = drand48() - 0.5;
  TAP_CALL(ctx, femint_vector_set_values(x, other));
  double *back = malloc(n * sizeof *back), *ya = malloc(n * sizeof *ya);
  TAP_CALL(ctx, femint_vector_get_values(x, back));
  tap_ok(memcmp(back, other, n * sizeof *back) == 0, "set and get values give the values back");
  for (int where = 1; where <= 2; where++) {
    femint_form_t f;
    femint_operator_t op = make_op(ctx, s, &f, 1, 1.3, where, 0);
    TAP_CALL(ctx, femint_operator_apply_vector(op, 0, x, y, NULL));
    TAP_CALL(ctx, femint_vector_get_values(y, back));
    TAP_CALL(ctx, femint_operator_apply(op, 0, other, ya, NULL));
    tap_ok(memcmp(back, ya, n * sizeof *ya) == 0,
           "%s: apply on vectors gives the bits of apply on arrays", where_name[where]);
    tap_ok(femint_operator_apply_vector(op, 0, x, w, NULL) == FEMINT_EINVAL &&
               strstr(femint_last_error(ctx), "y has"),
           "%s: a vector of another space is refused: %s", where_name[where],
           femint_last_error(ctx));
    tap_ok(femint_operator_apply_vector(op, 0, x, x, NULL) == FEMINT_EINVAL,
           "x == y is refused");
    TAP_CALL(ctx, femint_vector_get_array(y, FEMINT_READ, &a));
    tap_ok(femint_operator_apply_vector(op, 0, x, y, NULL) == FEMINT_ESTATE &&
               strstr(femint_last_error(ctx), "lent"),
           "a lent vector is refused: %s", femint_last_error(ctx));
    TAP_CALL(ctx, femint_vector_restore_array(y, &a));
    femint_operator_destroy(&op);
    femint_form_destroy(&f);
  }
  /* the diagonal against the assembled matrix's, the volume, constants */
  for (int kind = 0; kind < 2; kind++)
    for (int nc = 1; nc <= 3; nc += 2)
      for (int where = 1; where <= 2; where++) {
        femint_space_t sc;
        TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, nc, NULL, 3, &sc));
        const int64_t nn = femint_space_num_dofs(sc);
        femint_form_t f;
        femint_operator_t op = make_op(ctx, sc, &f, kind, 1.0, where, 0);
        double *dv = test_diagonal(ctx, op, sc), *ones = malloc(nn * sizeof *ones);
        double *r = malloc(nn * sizeof *r);
        femint_matrix_t A;
        TAP_CALL(ctx, femint_operator_assemble(op, &A, NULL));
        int64_t nr;
        const int64_t *rp, *ci;
        const double *val;
        femint_matrix_csr(A, &nr, &rp, &ci, &val);
        double dd = 0, dn = 0;
        for (int64_t i = 0; i < nr; i++)
          for (int64_t k = rp[i]; k < rp[i + 1]; k++)
            if (ci[k] == i) dd = fmax(dd, fabs(val[k] - dv[i])), dn = fmax(dn, fabs(val[k]));
        tap_ok(dd < 1e-13 * dn, "%s, %d component%s, %s: the diagonal is the matrix's (%.1e)",
               kind ? "laplace" : "mass", nc, nc > 1 ? "s" : "", where_name[where], dd / dn);
        for (int64_t i = 0; i < nn; i++) ones[i] = 1;
        TAP_CALL(ctx, femint_operator_apply(op, 0, ones, r, NULL));
        double sum = 0;
        for (int64_t i = 0; i < nn; i++) sum += r[i];
        if (kind == 0)
          tap_ok(fabs(sum - nc * 1.8) < 1e-12,
                 "mass, %d component%s, %s: 1^T M 1 = %d x the volume 1.8 (%.15g)", nc,
                 nc > 1 ? "s" : "", where_name[where], nc, sum);
        else
          tap_ok(norm(r, nn) < 1e-12, "laplace, %d component%s, %s: A 1 = 0 (|A 1| = %.1e)", nc,
                 nc > 1 ? "s" : "", where_name[where], norm(r, nn));
        femint_matrix_destroy(&A);
        free(dv);
        free(ones);
        free(r);
        femint_operator_destroy(&op);
        femint_form_destroy(&f);
        femint_space_destroy(&sc);
      }
  free(other);
  free(back);
  free(ya);
  femint_vector_destroy(&x);
  femint_vector_destroy(&y);
  femint_vector_destroy(&w);
  tap_ok(x == NULL && femint_vector_destroy(&x) == 0, "destroying NULL is harmless");
  femint_space_destroy(&s2);
  femint_space_destroy(&s);
  femint_mesh_destroy(&m);
}

/* |b - A x| / |b| by femint_operator_apply. */
static double true_residual(femint_context_t ctx, femint_operator_t op, const double *b,
                            const double *x, int64_t n)
{
  double *r = malloc(n * sizeof *r);
  TAP_CALL(ctx, femint_operator_apply(op, 0, x, r, NULL));
  for (int64_t i = 0; i < n; i++) r[i] = b[i] - r[i];
  const double v = norm(r, n) / norm(b, n);
  free(r);
  return v;
}

/* CG: the residual it reports is true; CPU, OpenCL and both agree; Jacobi; the errors. */
static void check_cg(femint_context_t ctx)
{
  femint_mesh_t m;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, 3, 3, 2, 1.0, 1.0, 0.7, 0.3, 5, &m));
  femint_space_t s;
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, NULL, 3, &s));
  TAP_CALL(ctx, femint_space_remove_boundary_dofs(s, 0, NULL));
  const int64_t n = femint_space_num_dofs(s);
  double *b = malloc(n * sizeof *b), *sol[3][2];
  for (int64_t i = 0; i < n; i++) b[i] = drand48() - 0.5;
  int its[3][2];
  for (int where = 0; where < 3; where++)
    for (int jac = 0; jac < 2; jac++) {
      femint_form_t f;
      femint_operator_t op = make_op(ctx, s, &f, 1, 2.0, where, 0);
      femint_vector_t vb, vx;
      TAP_CALL(ctx, femint_vector_create(s, &vb));
      TAP_CALL(ctx, femint_vector_create(s, &vx));
      TAP_CALL(ctx, femint_vector_set_values(vb, b));
      const struct femint_cg_options o = {.rtol = 1e-10, .jacobi = jac};
      struct femint_cg_result r;
      TAP_CALL(ctx, femint_operator_cg(op, 0, vb, vx, &o, &r));
      sol[where][jac] = malloc(n * sizeof *sol[where][jac]);
      TAP_CALL(ctx, femint_vector_get_values(vx, sol[where][jac]));
      its[where][jac] = r.iterations;
      const double tr = true_residual(ctx, op, b, sol[where][jac], n);
      tap_ok(r.converged && r.rnorm <= 1e-10 * r.bnorm && tr < 2e-10 &&
                 fabs(r.bnorm - norm(b, n)) < 1e-12 * r.bnorm,
             "laplace p = 3, %s%s: CG converged in %d iterations to %.1e, the true residual "
             "%.1e (tasks: %d CPU, %d OpenCL)",
             where_name[where], jac ? ", Jacobi" : "", r.iterations, r.rnorm / r.bnorm, tr,
             r.tasks_cpu, r.tasks_opencl);
      if (where == 2) tap_ok(r.tasks_cpu == 0 && r.tasks_opencl > 3 * r.iterations,
                             "OpenCL only: every task of the solve ran on the device");
      if (where == 1) tap_ok(r.tasks_opencl == 0, "CPU only: no task ran on the device");
      /* a second solve from the solution: converged at once */
      TAP_CALL(ctx, femint_operator_cg(op, 0, vb, vx, &o, &r));
      tap_ok(r.iterations == 0 && r.converged, "%s%s: from the solution, no iteration",
             where_name[where], jac ? ", Jacobi" : "");
      femint_vector_destroy(&vb);
      femint_vector_destroy(&vx);
      femint_operator_destroy(&op);
      femint_form_destroy(&f);
    }
  for (int jac = 0; jac < 2; jac++) {
    double d = 0, dn = 0;
    for (int w = 1; w < 3; w++)
      for (int64_t i = 0; i < n; i++)
        d = fmax(d, fabs(sol[w][jac][i] - sol[0][jac][i])), dn = fmax(dn, fabs(sol[0][jac][i]));
    tap_ok(abs(its[1][jac] - its[0][jac]) <= 1 && abs(its[2][jac] - its[0][jac]) <= 1 &&
               d < 1e-8 * dn,
           "%s: any worker, CPU and OpenCL take %d, %d, %d iterations to the same solution "
           "(%.1e)",
           jac ? "Jacobi" : "plain CG", its[0][jac], its[1][jac], its[2][jac], d / dn);
  }
  tap_ok(its[1][1] < its[1][0], "Jacobi takes fewer iterations on the perturbed box (%d < %d)",
         its[1][1], its[1][0]);
  for (int w = 0; w < 3; w++)
    for (int j = 0; j < 2; j++) free(sol[w][j]);
  /* fixed iterations; errors */
  femint_form_t f;
  femint_operator_t op = make_op(ctx, s, &f, 1, 2.0, 1, 0);
  femint_vector_t vb, vx;
  TAP_CALL(ctx, femint_vector_create(s, &vb));
  TAP_CALL(ctx, femint_vector_create(s, &vx));
  TAP_CALL(ctx, femint_vector_set_values(vb, b));
  struct femint_cg_options o = {.max_it = 7, .fixed = 1};
  struct femint_cg_result r;
  TAP_CALL(ctx, femint_operator_cg(op, 0, vb, vx, &o, &r));
  tap_ok(r.iterations == 7, "fixed: 7 iterations done (%d)", r.iterations);
  o = (struct femint_cg_options){.rtol = 2};
  tap_ok(femint_operator_cg(op, 0, vb, vx, &o, &r) == FEMINT_EINVAL &&
             strstr(femint_last_error(ctx), "rtol 2"),
         "rtol 2 is refused: %s", femint_last_error(ctx));
  tap_ok(femint_operator_cg(op, 0, vb, vb, NULL, &r) == FEMINT_EINVAL,
         "b == x is refused: %s", femint_last_error(ctx));
  tap_ok(femint_operator_cg(op, 1, vb, vx, NULL, &r) == FEMINT_EINVAL &&
             strstr(femint_last_error(ctx), "form 1"),
         "a form the operator does not have is refused: %s", femint_last_error(ctx));
  femint_operator_destroy(&op);
  femint_form_destroy(&f);
  /* the mass of cell 0 alone and b on a DOF outside it: A b = 0, a direction with p^T A p = 0 */
  {
    const double one = 1.0;
    TAP_CALL(ctx, femint_form_create_mass(ctx, 1, 1, &one, &f));
    const int cell0 = 0;
    const struct femint_operator_options oc = {.where = 1, .cells = &cell0, .ncells = 1};
    TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, &oc, &op));
    int64_t dofs[64];
    const int nl = femint_space_cell_size(s, 0);
    TAP_CALL(ctx, femint_space_cell_dofs(s, 0, dofs, NULL));
    int64_t j = n - 1;
    for (int l = 0; l < nl; l++) j = dofs[l] == j ? j - 1 : j;
    double *e = calloc(n, sizeof *e);
    e[j] = 1;
    TAP_CALL(ctx, femint_vector_set_values(vb, e));
    memset(e, 0, n * sizeof *e);
    TAP_CALL(ctx, femint_vector_set_values(vx, e));
    tap_ok(nl <= 64 && femint_operator_cg(op, 0, vb, vx, NULL, &r) == FEMINT_ESOLVE &&
               strstr(femint_last_error(ctx), "p^T A p = 0 at iteration 1") &&
               strstr(femint_last_error(ctx), "not positive definite"),
           "a direction the operator does not see: FEMINT_ESOLVE (%s)", femint_last_error(ctx));
    TAP_CALL(ctx, femint_vector_set_values(vx, e)); /* x is not defined after the failure */
    free(e);
    femint_operator_destroy(&op);
    femint_form_destroy(&f);
  }
  op = make_op(ctx, s, &f, 1, 1.0, 1, 0);
  b[n / 2] = NAN;
  TAP_CALL(ctx, femint_vector_set_values(vb, b));
  tap_ok(femint_operator_cg(op, 0, vb, vx, NULL, &r) == FEMINT_EINVAL &&
             strstr(femint_last_error(ctx), "b holds values that are not finite"),
         "a b that is not finite is refused: %s", femint_last_error(ctx));
  femint_operator_destroy(&op);
  femint_form_destroy(&f);
  memset(b, 0, n * sizeof *b);
  TAP_CALL(ctx, femint_vector_set_values(vb, b));
  op = make_op(ctx, s, &f, 1, 1.0, 1, 0);
  TAP_CALL(ctx, femint_operator_cg(op, 0, vb, vx, NULL, &r));
  double *xv = malloc(n * sizeof *xv);
  TAP_CALL(ctx, femint_vector_get_values(vx, xv));
  tap_ok(r.converged && r.iterations == 0 && norm(xv, n) == 0, "b = 0: x = 0 at once");
  free(xv);
  femint_operator_destroy(&op);
  femint_form_destroy(&f);
  femint_vector_destroy(&vb);
  femint_vector_destroy(&vx);
  free(b);
  femint_space_destroy(&s);
  femint_mesh_destroy(&m);
}

/* u = sin(pi x) sin(pi y) sin(pi z) on the unit cube; f = 3 pi^2 u for -lap u = f. */
static void exact(const double x[3], const double nrm[3], int tag, void *user, double *v)
{
  const double scale = user ? *(const double *)user : 1.0;
  v[0] = scale * sin(M_PI * x[0]) * sin(M_PI * x[1]) * sin(M_PI * x[2]);
}

/* The L2 error of the CG solution of BP1 (mass: the L2 projection of u), BP3 or BP5 (Laplace:
 * u from f, Dirichlet) on an nx^3 box of order p; *uh (if set) gets the solution. */
static double solve_bp(femint_context_t ctx, int bp, int p, int nx, double **uh, femint_space_t *sp,
                       femint_mesh_t *mp)
{
  femint_mesh_t m;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, nx, nx, nx, 1, 1, 1, 0.1, 7, &m));
  femint_space_t s;
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, NULL, p, &s));
  if (bp != 1) TAP_CALL(ctx, femint_space_remove_boundary_dofs(s, 0, NULL));
  femint_form_t f;
  femint_operator_t op = make_op(ctx, s, &f, bp != 1, 1.0, 0, bp == 5);
  const int64_t n = femint_space_num_dofs(s);
  double *rhs = calloc(n, sizeof *rhs), *u = malloc(n * sizeof *u);
  double scale = bp == 1 ? 1.0 : 3 * M_PI * M_PI;
  const struct femint_load load = {.body = exact, .user = &scale};
  TAP_CALL(ctx, femint_operator_load(op, &load, rhs));
  static int loads_checked;
  if (nx >= 12 && !loads_checked++) { /* several tasks, whose cells' vectors add in order */
    double *again = calloc(n, sizeof *again);
    TAP_CALL(ctx, femint_operator_load(op, &load, again));
    tap_ok(memcmp(rhs, again, (size_t)n * sizeof *rhs) == 0,
           "the load of %d^3 cells (several tasks) twice: the same bits", nx);
    /* the first cells one operator each, their loads added in cell order: each cell's vector is
     * the one it makes among others (the cells go through the points 8 at a time) */
    const int ncheck = 20;
    double *whole = calloc(n, sizeof *whole), *sum = calloc(n, sizeof *sum);
    int cells[20];
    for (int c = 0; c < ncheck; c++) cells[c] = c;
    const struct femint_operator_options part = {.cells = cells, .ncells = ncheck};
    femint_operator_t op_part;
    femint_form_t f_part;
    TAP_CALL(ctx, femint_form_create_mass(ctx, 1, 1, &scale, &f_part));
    TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f_part, &part, &op_part));
    TAP_CALL(ctx, femint_operator_load(op_part, &load, whole));
    femint_operator_destroy(&op_part);
    for (int c = 0; c < ncheck; c++) {
      const struct femint_operator_options one = {.cells = &cells[c], .ncells = 1};
      TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f_part, &one, &op_part));
      memset(again, 0, (size_t)n * sizeof *again);
      TAP_CALL(ctx, femint_operator_load(op_part, &load, again));
      for (int64_t i = 0; i < n; i++) sum[i] += again[i];
      femint_operator_destroy(&op_part);
    }
    femint_form_destroy(&f_part);
    tap_ok(memcmp(whole, sum, (size_t)n * sizeof *sum) == 0,
           "the load of %d cells = their loads one by one, added in order, bit for bit", ncheck);
    free(whole);
    free(sum);
    free(again);
  }
  const struct femint_cg_options o = {.rtol = 1e-12, .jacobi = 1};
  struct femint_cg_result r;
  test_matfree_cg(ctx, op, s, rhs, &o, &r, u);
  double e2;
  TAP_CALL(ctx, femint_space_l2_error(s, u, 0, NULL, exact, NULL, &e2));
  femint_operator_destroy(&op);
  femint_form_destroy(&f);
  free(rhs);
  if (uh) {
    *uh = u;
    *sp = s;
    *mp = m;
  } else {
    free(u);
    femint_space_destroy(&s);
    femint_mesh_destroy(&m);
  }
  return sqrt(e2);
}

static void check_convergence(femint_context_t ctx)
{
  static const int bps[3] = {1, 3, 5};
  for (int i = 0; i < 3; i++)
    for (int p = 1; p <= 3; p++) {
      const int n0 = p == 3 ? 3 : 6;
      const double e0 = solve_bp(ctx, bps[i], p, n0, NULL, NULL, NULL);
      const double e1 = solve_bp(ctx, bps[i], p, 2 * n0, NULL, NULL, NULL);
      const double rate = log2(e0 / e1);
      tap_ok(rate > p + 1 - 0.35, "BP%d, p = %d: L2 error %.2e -> %.2e from %d^3 to %d^3 cells, rate %.2f (p + 1 = %d)",
             bps[i], p, e0, e1, n0, 2 * n0, rate, p + 1);
    }
  /* BP3 and BP5 on the same space: the same solution to the quadrature error */
  for (int p = 2; p <= 3; p++) {
    double *u3, *u5, prev = 0;
    for (int nx = 2; nx <= 4; nx += 2) {
      femint_space_t s3, s5;
      femint_mesh_t m3, m5;
      const double e3 = solve_bp(ctx, 3, p, nx, &u3, &s3, &m3);
      solve_bp(ctx, 5, p, nx, &u5, &s5, &m5);
      const int64_t n = femint_space_num_dofs(s3);
      for (int64_t k = 0; k < n; k++) u5[k] -= u3[k];
      double d2;
      TAP_CALL(ctx, femint_space_l2_error(s3, u5, 0, NULL, NULL, NULL, &d2));
      tap_ok(sqrt(d2) < e3, "p = %d, %d^3 cells: |u_BP5 - u_BP3| = %.2e below the error %.2e", p,
             nx, sqrt(d2), e3);
      if (prev > 0)
        tap_ok(log2(prev / sqrt(d2)) > p + 1 - 0.5, "p = %d: the difference falls at rate %.2f",
               p, log2(prev / sqrt(d2)));
      prev = sqrt(d2);
      free(u3);
      free(u5);
      femint_space_destroy(&s3);
      femint_space_destroy(&s5);
      femint_mesh_destroy(&m3);
      femint_mesh_destroy(&m5);
    }
  }
}

/* femint_bench_copy: a rate on the CPU workers and on the OpenCL device; bad arguments named. */
static void check_copy(femint_context_t ctx)
{
  double cpu = 0, dev = 0;
  TAP_CALL(ctx, femint_bench_copy(ctx, -1, 1 << 22, &cpu));
  TAP_CALL(ctx, femint_bench_copy(ctx, 0, 1 << 22, &dev));
  tap_ok(cpu > 1e8 && dev > 1e8, "copy rates: CPU workers %.3g, OpenCL device 0 %.3g bytes/s", cpu,
         dev);
  tap_ok(femint_bench_copy(ctx, 7, 1 << 20, &cpu) == FEMINT_EINVAL &&
             strstr(femint_last_error(ctx), "device 7"),
         "device 7 is refused: %s", femint_last_error(ctx));
  tap_ok(femint_bench_copy(ctx, -1, 100, &cpu) == FEMINT_EINVAL &&
             strstr(femint_last_error(ctx), "100 bytes"),
         "100 bytes are refused: %s", femint_last_error(ctx));
}

/* A smooth body force of 3 components. */
static void force3(const double x[3], const double nrm[3], int tag, void *user, double *v)
{
  v[0] = sin(x[0]) * cos(2 * x[1]) + x[2];
  v[1] = exp(0.3 * x[0] * x[1]) - x[2] * x[2];
  v[2] = 1 + x[0] * x[1] * x[2];
}

/* The load of hexahedra by sum factorization (load_cells with the rule's 1D tables) against the
 * plain sum over the points (load_cell), on a perturbed box, orders 1..8, 1 and 3 components. */
static void check_load_tensor(femint_context_t ctx)
{
  femint_mesh_t m;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, 2, 2, 2, 1.0, 1.3, 0.8, 0.25, 11, &m));
  double worst = 0;
  int bad = 0;
  for (int p = 1; p <= 8; p++)
    for (int nc = 1; nc <= 3; nc += 2) {
      femint_space_t s;
      TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, nc, NULL, p, &s));
      struct refel *re = NULL;
      struct hex_tensor *t = NULL;
      bad |= refel_hex_create(p, &re) || load_hex_tables(re, &t) || !t;
      const struct refel *re_of[FEMINT_MAX_ORDER + 1] = {NULL};
      const struct hex_tensor *t_of[FEMINT_MAX_ORDER + 1] = {NULL};
      re_of[p] = re;
      t_of[p] = t;
      const size_t n = (size_t)nc * re->nsh;
      double *plain = malloc(n * sizeof *plain), *tensor = malloc(n * sizeof *tensor);
      for (int c = 0; c < femint_mesh_num_cells(m) && !bad; c++) {
        bad |= load_cell(s, re, c, force3, NULL, plain) ||
               load_cells(s, re_of, t_of, &c, 1, force3, NULL, tensor);
        double big = 0, diff = 0;
        for (size_t i = 0; i < n; i++) {
          big = fmax(big, fabs(plain[i]));
          diff = fmax(diff, fabs(plain[i] - tensor[i]));
        }
        worst = fmax(worst, big > 0 ? diff / big : 1);
      }
      free(plain);
      free(tensor);
      hex_tensor_destroy(&t);
      refel_destroy(&re);
      femint_space_destroy(&s);
    }
  femint_mesh_destroy(&m);
  tap_ok(!bad && worst < 1e-13,
         "hexahedra of orders 1-8, 1 and 3 components: the load by sum factorization = the plain "
         "sum over the points (%.1e)", worst);
}

int main(void)
{
  srand48(411);
  test_fresh_dmda("t411");
  femint_context_t ctx = test_init();
  check_vectors(ctx);
  check_cg(ctx);
  check_copy(ctx);
  check_convergence(ctx);
  check_load_tensor(ctx);
  femint_finalize(&ctx);
  test_fresh_dmda_remove();
  return tap_done();
}
