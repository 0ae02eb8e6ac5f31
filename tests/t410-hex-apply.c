/* Test: matrix-free application on hexahedra (femint_operator_apply) equals the assembled matrix
 * times the vector: mass and Laplace, 1 and 3 components, coefficients per cell, orders 1..8 on
 * a perturbed box and on curved cells, on CPU workers and on OpenCL, and on a subset of the cells
 * on every worker; on
 * one kind of worker the result is the same bit for bit from call to call; the element operators
 * alone (femint_operator_apply_kernel) are the element matrices; what it does not take is
 * refused by name, and a folded cell is named wherever its quadrature data are made. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "host/host.h"
#include "host/refel_hex.h"

/* y = A x by femint_operator_apply and by the assembled matrix of the same operator. */
static double compare(femint_context_t ctx, femint_space_t s, femint_form_t f,
                      const struct femint_operator_options *o, int *same)
{
  femint_operator_t op;
  TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, o, &op));
  const int64_t n = femint_space_num_dofs(s);
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *y2 = malloc(n * sizeof *y2);
  double *z = malloc(n * sizeof *z);
  for (int64_t i = 0; i < n; i++) x[i] = drand48() - 0.5;
  TAP_CALL(ctx, femint_operator_apply(op, 0, x, y, NULL));
  TAP_CALL(ctx, femint_operator_apply(op, 0, x, y2, NULL));
  *same = memcmp(y, y2, n * sizeof *y) == 0;
  femint_matrix_t A;
  TAP_CALL(ctx, femint_operator_assemble(op, &A, NULL));
  femint_matrix_mult(A, x, z);
  double d = 0, s2 = 0;
  for (int64_t i = 0; i < n; i++) d += (y[i] - z[i]) * (y[i] - z[i]), s2 += z[i] * z[i];
  femint_matrix_destroy(&A);
  femint_operator_destroy(&op);
  free(x);
  free(y);
  free(y2);
  free(z);
  return sqrt(d / s2);
}

static void check_products(femint_context_t ctx)
{
  femint_mesh_t m;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, 3, 2, 2, 1.5, 1.0, 1.2, 0.35, 11, &m));
  const int ncell = femint_mesh_num_cells(m);
  double coef[12];
  for (int c = 0; c < ncell; c++) coef[c] = 0.5 + drand48();
  static const int orders[] = {1, 2, 3, 5, 6, 7, 8};
  static const char *const names[2] = {"mass", "laplace"};
  for (int oi = 0; oi < 7; oi++)
    for (int kind = 0; kind < 2; kind++)
      for (int nc = 1; nc <= 3; nc += 2) {
        const int p = orders[oi];
        if (p >= 6 && nc == 3) continue;
        femint_space_t s;
        femint_form_t f;
        TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, nc, NULL, p, &s));
        if (kind == 0) TAP_CALL(ctx, femint_form_create_mass(ctx, nc, ncell, coef, &f));
        else TAP_CALL(ctx, femint_form_create_laplace(ctx, nc, ncell, coef, &f));
        for (int w = 0; w < 2; w++) {
          if (w == 1 && (p == 2 || p == 6)) continue; /* OpenCL on PoCL: a few orders */
          const struct femint_operator_options o = {.where = w ? FEMINT_WHERE_OPENCL
                                                               : FEMINT_WHERE_CPU};
          int same;
          const double d = compare(ctx, s, f, &o, &same);
          tap_ok(d < 1e-12 && same,
                 "%s, %d component%s, p = %d, %s: apply = A x (rel. diff %.1e), the same bits "
                 "twice",
                 names[kind], nc, nc > 1 ? "s" : "", p, w ? "OpenCL" : "CPU", d);
        }
        femint_form_destroy(&f);
        femint_space_destroy(&s);
      }
  /* a subset of the cells, with many small batches on every worker */
  femint_space_t s;
  femint_form_t f;
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, NULL, 4, &s));
  TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, ncell, coef, &f));
  const int subset[5] = {7, 1, 10, 4, 2};
  struct femint_operator_options o = {.cells = subset, .ncells = 5, .max_batch = 2};
  int same;
  const double d = compare(ctx, s, f, &o, &same);
  /* every worker: the chunks may run on either kind, whose kernels round differently */
  tap_ok(d < 1e-12, "laplace on 5 of the 12 cells, batches of 2, every worker: apply = A x (%.1e)",
         d);
  o.where = FEMINT_WHERE_CPU;
  const double d2 = compare(ctx, s, f, &o, &same);
  tap_ok(d2 < 1e-12 && same,
         "the same on CPU workers: apply = A x (%.1e), the same bits twice", d2);
  femint_form_destroy(&f);
  femint_space_destroy(&s);
  femint_mesh_destroy(&m);
}

/* BP5 and BP6 (the Laplacian on the Gauss-Lobatto nodes, options.apply_rule = 1) against the
 * element matrices of the same rule summed by hand: the values and gradients of the element
 * tabulated on that rule (refel_hex_create_rule), the map's Jacobian per point. */
static void check_lobatto(femint_context_t ctx)
{
  femint_mesh_t m;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, 2, 2, 2, 1.0, 1.1, 0.9, 0.3, 4, &m));
  for (int p = 1; p <= 7; p += 2)
    for (int nc = 1; nc <= 3; nc += 2) {
      if (p == 7 && nc == 3) continue;
      femint_space_t s;
      femint_form_t f;
      const double kappa = 1.7;
      TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, nc, NULL, p, &s));
      TAP_CALL(ctx, femint_form_create_laplace(ctx, nc, 1, &kappa, &f));
      struct refel *re;
      TAP_CALL(ctx, refel_hex_create_rule(p, p + 1, 1, &re));
      const int64_t n = femint_space_num_dofs(s);
      const int nsh = re->nsh;
      double *x = malloc(n * sizeof *x), *ref = calloc(n, sizeof *ref), *y = malloc(n * sizeof *y);
      double *A = malloc((size_t)nsh * nsh * sizeof *A), *grad = malloc(3 * (size_t)nsh * sizeof *grad);
      for (int64_t i = 0; i < n; i++) x[i] = drand48() - 0.5;
      for (int c = 0; c < m->ncell; c++) {
        double X[24];
        femint_mesh_cell_coords(m, c, X);
        memset(A, 0, (size_t)nsh * nsh * sizeof *A);
        for (int q = 0; q < re->nq; q++) {
          double J[9], K[9];
          geom_hex_jacobian(8, X, &re->xq[3 * q], J);
          const double w = kappa * re->wq[q] * geom_inverse3(J, K);
          for (int i = 0; i < nsh; i++)
            for (int d = 0; d < 3; d++) {
              double g = 0;
              for (int e = 0; e < 3; e++) g += K[3 * e + d] * re->phi[((size_t)q * 4 + 1 + e) * nsh + i];
              grad[3 * i + d] = g;
            }
          for (int i = 0; i < nsh; i++)
            for (int j = 0; j < nsh; j++)
              A[(size_t)i * nsh + j] += w * (grad[3 * i] * grad[3 * j] + grad[3 * i + 1] * grad[3 * j + 1] +
                                             grad[3 * i + 2] * grad[3 * j + 2]);
        }
        const int64_t *gm = &s->cell_mode[s->cell_off[c]];
        for (int i = 0; i < nsh; i++)
          for (int j = 0; j < nsh; j++)
            for (int k = 0; k < nc; k++) ref[gm[i] * nc + k] += A[(size_t)i * nsh + j] * x[gm[j] * nc + k];
      }
      for (int w = 0; w < 2; w++) {
        struct femint_operator_options o = {.apply_rule = 1,
                                            .where = w ? FEMINT_WHERE_OPENCL : FEMINT_WHERE_CPU};
        femint_operator_t op;
        TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, &o, &op));
        TAP_CALL(ctx, femint_operator_apply(op, 0, x, y, NULL));
        const double d = tap_reldiff(y, ref, (size_t)n);
        tap_ok(d < 1e-12, "bp%d, p = %d, %s: apply on the Gauss-Lobatto nodes = the element "
               "matrices of that rule summed (rel. diff %.1e)",
               nc == 1 ? 5 : 6, p, w ? "OpenCL" : "CPU", d);
        femint_operator_destroy(&op);
      }
      free(x);
      free(ref);
      free(y);
      free(A);
      free(grad);
      refel_destroy(&re);
      femint_form_destroy(&f);
      femint_space_destroy(&s);
    }
  femint_space_t s;
  femint_form_t f;
  const double one = 1;
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, NULL, 2, &s));
  TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, 1, &one, &f));
  struct femint_operator_options bad = {.apply_rule = 2};
  femint_operator_t op;
  const int e = femint_operator_create(ctx, s, 1, &f, &bad, &op);
  tap_ok(e == FEMINT_EINVAL && strstr(femint_last_error(NULL), "apply_rule = 2"),
         "apply_rule = 2 refused: %s", femint_last_error(NULL));
  bad = (struct femint_operator_options){.devices = -1};
  const int ed = femint_operator_create(ctx, s, 1, &f, &bad, &op);
  tap_ok(ed == FEMINT_EINVAL && strstr(femint_last_error(NULL), "devices = -1"),
         "devices = -1 refused: %s", femint_last_error(NULL));
  /* coefficients that single precision cannot hold: refused in single, taken in double */
  const double big = 1e39, tiny = 1e-45;
  for (int k = 0; k < 2; k++) {
    femint_form_t g;
    TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, 1, k ? &tiny : &big, &g));
    const struct femint_operator_options single = {.precision = FEMINT_SINGLE};
    const int es = femint_operator_create(ctx, s, 1, &g, &single, &op);
    char msg[300];
    snprintf(msg, sizeof msg, "%s", femint_last_error(NULL));
    const int eo = femint_operator_create(ctx, s, 1, &g, NULL, &op);
    femint_operator_destroy(&op);
    femint_form_destroy(&g);
    tap_ok(es == FEMINT_EINVAL && strstr(msg, "single precision cannot hold") && eo == 0,
           "kappa = %g: refused in single precision (%s), taken in double", k ? tiny : big, msg);
  }
  femint_form_destroy(&f);
  femint_space_destroy(&s);
  femint_mesh_destroy(&m);
}

/* What the matrix-free path does not take. */
static void check_errors(femint_context_t ctx)
{
  femint_mesh_t hex, prism;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, 2, 1, 1, 2, 1, 1, 0, 0, &hex));
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_PRISM, 2, 1, 1, 2, 1, 1, 0, 0, &prism));
  femint_space_t sh, sp, s3;
  TAP_CALL(ctx, femint_space_create(ctx, hex, FEMINT_H1, 1, NULL, 2, &sh));
  TAP_CALL(ctx, femint_space_create(ctx, prism, FEMINT_H1, 1, NULL, 2, &sp));
  TAP_CALL(ctx, femint_space_create(ctx, hex, FEMINT_H1, 3, NULL, 2, &s3));
  femint_form_t lap, el;
  const double one = 1, gen[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, 1, &one, &lap));
  TAP_CALL(ctx, femint_form_create_generic(ctx, 1, 1, gen, &el));
  double x[200] = {0}, y[200];
  femint_operator_t op;
  TAP_CALL(ctx, femint_operator_create(ctx, sp, 1, &lap, NULL, &op));
  tap_ok(femint_operator_apply(op, 0, x, y, NULL) == FEMINT_ENOTSUP &&
             strstr(femint_last_error(NULL), "prisms"),
         "prisms refused: %s", femint_last_error(NULL));
  femint_operator_destroy(&op);
  TAP_CALL(ctx, femint_operator_create(ctx, sh, 1, &el, NULL, &op));
  tap_ok(femint_operator_apply(op, 0, x, y, NULL) == FEMINT_ENOTSUP &&
             strstr(femint_last_error(NULL), "generic"),
         "the generic form refused: %s", femint_last_error(NULL));
  femint_operator_destroy(&op);
  TAP_CALL(ctx, femint_operator_create(ctx, sh, 1, &lap, NULL, &op));
  const int e1 = femint_operator_apply(op, 1, x, y, NULL);
  tap_ok(e1 == FEMINT_EINVAL && strstr(femint_last_error(NULL), "form 1"), "form 1 of 1 refused: %s",
         femint_last_error(NULL));
  const int e2 = femint_operator_apply(op, 0, x, x, NULL);
  tap_ok(e2 == FEMINT_EINVAL && strstr(femint_last_error(NULL), "same array"),
         "x == y refused: %s", femint_last_error(NULL));
  femint_operator_destroy(&op);
  femint_form_destroy(&lap);
  femint_form_destroy(&el);
  femint_space_destroy(&sh);
  femint_space_destroy(&sp);
  femint_space_destroy(&s3);
  femint_mesh_destroy(&hex);
  femint_mesh_destroy(&prism);
}

/* options.apply_geometry = 1 (the quadrature data made at each point from the cell's geometry)
 * gives the stored data's y, on CPU workers and OpenCL, for both rules; and its diagonal. */
static void check_geometry(femint_context_t ctx)
{
  femint_mesh_t m;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, 3, 2, 2, 1.2, 1.0, 0.8, 0.3, 9, &m));
  double coef[12];
  for (int c = 0; c < 12; c++) coef[c] = 0.5 + drand48();
  for (int p = 3; p <= 5; p += 2)
    for (int kind = 0; kind < 2; kind++)
      for (int rule = 0; rule < 2; rule++) {
        femint_space_t s;
        femint_form_t f;
        TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, NULL, p, &s));
        if (kind == 0) TAP_CALL(ctx, femint_form_create_mass(ctx, 1, 12, coef, &f));
        else TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, 12, coef, &f));
        const int64_t n = femint_space_num_dofs(s);
        double *x = malloc(n * sizeof *x), *y[2][2], *dg[2];
        for (int64_t i = 0; i < n; i++) x[i] = drand48() - 0.5;
        for (int geo = 0; geo < 2; geo++) {
          for (int w = 0; w < 2; w++) {
            struct femint_operator_options o = {.apply_rule = rule, .apply_geometry = geo,
                                                .where = w ? FEMINT_WHERE_OPENCL : FEMINT_WHERE_CPU};
            femint_operator_t op;
            TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, &o, &op));
            y[geo][w] = malloc(n * sizeof *y[geo][w]);
            TAP_CALL(ctx, femint_operator_apply(op, 0, x, y[geo][w], NULL));
            if (w == 0) dg[geo] = test_diagonal(ctx, op, s);
            femint_operator_destroy(&op);
          }
        }
        for (int w = 0; w < 2; w++) {
          const double d = tap_reldiff(y[1][w], y[0][w], (size_t)n);
          tap_ok(d < 1e-13, "%s, %s, p = %d, %s: the geometry per cell gives the stored data's y "
                 "(%.1e)", kind ? "laplace" : "mass", rule ? "Gauss-Lobatto" : "Gauss", p,
                 w ? "OpenCL" : "CPU", d);
        }
        const double dd = tap_reldiff(dg[1], dg[0], (size_t)n);
        tap_ok(dd < 1e-13, "%s, %s, p = %d: and the same diagonal (%.1e)", kind ? "laplace" : "mass",
               rule ? "Gauss-Lobatto" : "Gauss", p, dd);
        for (int g = 0; g < 2; g++) {
          free(y[g][0]);
          free(y[g][1]);
          free(dg[g]);
        }
        free(x);
        femint_form_destroy(&f);
        femint_space_destroy(&s);
      }
  femint_mesh_destroy(&m);
}

/* Curved cells (a warped box: 20-node serendipity maps): apply = A x for the mass, the Laplacian
 * and elasticity on CPU workers and OpenCL, and the geometry variant refused by name. */
static void check_curved(femint_context_t ctx)
{
  femint_mesh_t m;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, 3, 2, 2, 1.5, 1.0, 1.2, 0.25, 13, &m));
  TAP_CALL(ctx, femint_mesh_warp(m, 0.07));
  const double E = 1.3, nu = 0.3, one = 1;
  static const char *const names[3] = {"mass", "laplace", "elasticity"};
  for (int kind = 0; kind < 3; kind++)
    for (int p = 2; p <= 4; p += 2) {
      const int nc = kind == 2 ? 3 : 1;
      femint_space_t s;
      femint_form_t f;
      TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, nc, NULL, p, &s));
      if (kind == 0) TAP_CALL(ctx, femint_form_create_mass(ctx, 1, 1, &one, &f));
      else if (kind == 1) TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, 1, &one, &f));
      else TAP_CALL(ctx, femint_form_create_elasticity(ctx, 1, &E, &nu, &f));
      for (int w = 0; w < 2; w++) {
        const struct femint_operator_options o = {.where = w ? FEMINT_WHERE_OPENCL
                                                             : FEMINT_WHERE_CPU};
        int same;
        const double d = compare(ctx, s, f, &o, &same);
        tap_ok(d < 1e-12 && same, "curved cells, %s, p = %d, %s: apply = A x (%.1e)", names[kind],
               p, w ? "OpenCL" : "CPU", d);
      }
      if (kind == 1 && p == 2) {
        const struct femint_operator_options geo = {.apply_geometry = 1};
        femint_operator_t op;
        double x[2000] = {0}, y[2000];
        TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, &geo, &op));
        const int e = femint_operator_apply(op, 0, x, y, NULL);
        tap_ok(e == FEMINT_ENOTSUP && strstr(femint_last_error(NULL), "curved"),
               "apply_geometry = 1 on curved cells refused: %s", femint_last_error(NULL));
        femint_operator_destroy(&op);
      }
      femint_form_destroy(&f);
      femint_space_destroy(&s);
    }
  femint_mesh_destroy(&m);
}

/* femint_operator_apply_kernel: the element operators alone give ve = A_e ue with the element
 * matrices of femint_operator_element_matrix, for the mass, the Laplacian and elasticity (the
 * collocated Laplacian: summed, femint_operator_apply's y), on CPU workers and OpenCL; a subset of the cells in the
 * order given; bad runs refused. */
static void check_kernel_alone(femint_context_t ctx)
{
  femint_mesh_t m;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, 3, 2, 2, 1.3, 1.0, 0.9, 0.3, 5, &m));
  const int p = 3, nsh = 64, cells[4] = {9, 2, 5, 0};
  const double E = 1.5, nu = 0.28, kappa = 1.3;
  static const char *const names[4] = {"mass", "laplace", "laplace on Gauss-Lobatto", "elasticity"};
  for (int kind = 0; kind < 4; kind++)
    for (int w = 0; w < 2; w++) {
      const int nc = kind == 3 ? 3 : 1, n = nsh * nc;
      femint_space_t s;
      femint_form_t f;
      TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, nc, NULL, p, &s));
      if (kind == 0) TAP_CALL(ctx, femint_form_create_mass(ctx, 1, 1, &kappa, &f));
      else if (kind < 3) TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, 1, &kappa, &f));
      else TAP_CALL(ctx, femint_form_create_elasticity(ctx, 1, &E, &nu, &f));
      const struct femint_operator_options o = {
          .where = w ? FEMINT_WHERE_OPENCL : FEMINT_WHERE_CPU, .apply_rule = kind == 2,
          .cells = cells, .ncells = 4};
      femint_operator_t op;
      TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, &o, &op));
      double *ue = malloc(4 * (size_t)n * sizeof *ue), *ve = malloc(4 * (size_t)n * sizeof *ve);
      double *ref = calloc(4 * (size_t)n, sizeof *ref), *A = malloc((size_t)n * n * sizeof *A);
      for (int i = 0; i < 4 * n; i++) ue[i] = drand48() - 0.5;
      double sec = -1;
      TAP_CALL(ctx, femint_operator_apply_kernel(op, 0, ue, ve, 3, &sec, NULL));
      for (int k = 0; k < 4; k++) {
        TAP_CALL(ctx, femint_operator_element_matrix(op, 0, cells[k], A));
        for (int i = 0; i < n; i++)
          for (int j = 0; j < n; j++) ref[k * n + i] += A[(size_t)i * n + j] * ue[k * n + j];
      }
      /* the Gauss-Lobatto rule has no element matrices of its own: there the gathered values
       * of a global x, whose element vectors summed give femint_operator_apply's y */
      double d = tap_reldiff(ve, ref, 4 * (size_t)n);
      if (kind == 2) {
        const int64_t nd = femint_space_num_dofs(s);
        double *x = malloc(nd * sizeof *x), *y = malloc(nd * sizeof *y), *z = calloc(nd, sizeof *z);
        int64_t dofs[64];
        for (int64_t i = 0; i < nd; i++) x[i] = drand48() - 0.5;
        for (int k = 0; k < 4; k++) {
          TAP_CALL(ctx, femint_space_cell_dofs(s, cells[k], dofs, NULL));
          for (int i = 0; i < n; i++) ue[k * n + i] = x[dofs[i]];
        }
        TAP_CALL(ctx, femint_operator_apply_kernel(op, 0, ue, ve, 1, NULL, NULL));
        for (int k = 0; k < 4; k++) {
          TAP_CALL(ctx, femint_space_cell_dofs(s, cells[k], dofs, NULL));
          for (int i = 0; i < n; i++) z[dofs[i]] += ve[k * n + i];
        }
        TAP_CALL(ctx, femint_operator_apply(op, 0, x, y, NULL));
        d = tap_reldiff(z, y, (size_t)nd);
        free(x);
        free(y);
        free(z);
      }
      tap_ok(d < 1e-12 && sec > 0, "%s, %s: the kernel alone gives A_e u_e on 4 of the cells "
             "(%.1e), %.2g s a pass", names[kind], w ? "OpenCL" : "CPU", d, sec);
      if (kind == 0 && w == 0) {
        const int e = femint_operator_apply_kernel(op, 0, NULL, NULL, 0, NULL, NULL);
        tap_ok(e == FEMINT_EINVAL && strstr(femint_last_error(NULL), "runs"),
               "runs = 0 refused: %s", femint_last_error(NULL));
      }
      free(ue);
      free(ve);
      free(ref);
      free(A);
      femint_operator_destroy(&op);
      femint_form_destroy(&f);
      femint_space_destroy(&s);
    }
  femint_mesh_destroy(&m);
}

/* A cell whose Jacobian is not positive at the quadrature points (folded after the mesh was
 * certified, as memory corruption or a caller's later change would) is named by the apply,
 * whether the host makes the quadrature data (CPU) or the device that applies them (OpenCL):
 * mass, Laplace and elasticity, straight and curved cells. */
static void check_folded(femint_context_t ctx)
{
  static const char *const names[3] = {"mass", "laplace", "elasticity"};
  const double one = 1, E = 1, nu = 0.3;
  for (int curved = 0; curved < 2; curved++) {
    femint_mesh_t m;
    TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, 2, 1, 1, 2, 1, 1, 0, 0, &m));
    if (curved) TAP_CALL(ctx, femint_mesh_warp(m, 0.05));
    int folded = -1;
    for (int c = 0; c < m->ncell; c++)
      for (int v = 0; v < HEX_NV; v++)
        if (m->coords[3 * m->cells[HEX_NV * c + v]] > 1.5) folded = c;
    for (int v = 0; v < m->nvert; v++)
      if (m->coords[3 * v] > 1.5) m->coords[3 * v] = 0.5;
    for (int kind = 0; kind < 3; kind++) {
      femint_space_t s;
      femint_form_t f;
      TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, kind == 2 ? 3 : 1, NULL, 2, &s));
      if (kind == 0) TAP_CALL(ctx, femint_form_create_mass(ctx, 1, 1, &one, &f));
      else if (kind == 1) TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, 1, &one, &f));
      else TAP_CALL(ctx, femint_form_create_elasticity(ctx, 1, &E, &nu, &f));
      const int64_t n = femint_space_num_dofs(s);
      double *x = calloc(n, sizeof *x), *y = calloc(n, sizeof *y);
      char want[64];
      snprintf(want, sizeof want, "cell %d has a non-positive Jacobian", folded);
      for (int w = 0; w < 2; w++) {
        const struct femint_operator_options o = {.where = w ? FEMINT_WHERE_OPENCL
                                                             : FEMINT_WHERE_CPU};
        femint_operator_t op;
        TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, &o, &op));
        const int e = femint_operator_apply(op, 0, x, y, NULL);
        /* and again: nothing was kept of the first call's data */
        const int e2 = femint_operator_apply(op, 0, x, y, NULL);
        tap_ok(e == FEMINT_EJACOBIAN && e2 == e && strstr(femint_last_error(NULL), want),
               "%s%s, %s: the folded cell named (%s)", curved ? "curved, " : "", names[kind],
               w ? "OpenCL" : "CPU", femint_last_error(NULL));
        femint_operator_destroy(&op);
      }
      free(x);
      free(y);
      femint_form_destroy(&f);
      femint_space_destroy(&s);
    }
    femint_mesh_destroy(&m);
  }
}

int main(void)
{
  srand48(410);
  test_fresh_dmda("t410");
  femint_context_t ctx = test_init();
  check_products(ctx);
  check_lobatto(ctx);
  check_geometry(ctx);
  check_kernel_alone(ctx);
  check_curved(ctx);
  check_errors(ctx);
  check_folded(ctx);
  femint_finalize(&ctx);
  test_fresh_dmda_remove();
  return tap_done();
}
