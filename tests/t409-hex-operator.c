/* Test: the H1 Lagrange space on hexahedra and its element matrices through the operator.
 * The space: DOF counts, and conformity whatever the orientation of the cells (every shared
 * node seen from every cell that holds it lies at the same physical point). The element
 * matrices of Laplace, mass and elasticity on random perturbed boxes, orders 1..8, on the CPU
 * (femint_operator_element_matrix) and on OpenCL (femint_operator_integrate), against a plain
 * quadrature written here from refel_hex_eval and the trilinear map; the assembled matrices:
 * 1^T M 1 = volume, constants in the kernel of the Laplacian, rigid motions in the kernel of
 * elasticity; one order per space. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "host/host.h"
#include "host/refel_hex.h"

/* Cubes of a 3 x 2 x 2 box given in vertex orders turned by one of the 24 rotations of the cube
 * (cell c by rotation (5 c) mod 24): the rotations are the compositions of quarter turns. */
static void rotate(int r, const int *in, int *out)
{
  static const int qz[8] = {1, 2, 3, 0, 5, 6, 7, 4}; /* quarter turn about z */
  static const int qx[8] = {3, 2, 6, 7, 0, 1, 5, 4}; /* quarter turn about x */
  int cur[8], tmp[8];
  memcpy(cur, in, sizeof cur);
  for (int k = 0; k < r % 4; k++) {
    for (int a = 0; a < 8; a++) tmp[a] = cur[qz[a]];
    memcpy(cur, tmp, sizeof cur);
  }
  for (int k = 0; k < r / 4 % 4; k++) {
    for (int a = 0; a < 8; a++) tmp[a] = cur[qx[a]];
    memcpy(cur, tmp, sizeof cur);
  }
  if (r >= 16) { /* the last 8: a quarter turn about y first */
    static const int qy[8] = {4, 0, 3, 7, 5, 1, 2, 6};
    for (int a = 0; a < 8; a++) tmp[a] = cur[qy[a]];
    memcpy(cur, tmp, sizeof cur);
  }
  memcpy(out, cur, sizeof cur);
}

static femint_mesh_t rotated_box(femint_context_t ctx)
{
  femint_mesh_t box;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, 3, 2, 2, 3, 2, 2, 0.3, 5, &box));
  const int nv = femint_mesh_num_vertices(box), nc = femint_mesh_num_cells(box);
  double *x = malloc(3 * (size_t)nv * sizeof *x);
  int *cells = malloc(8 * (size_t)nc * sizeof *cells);
  for (int v = 0; v < nv; v++) femint_mesh_vertex_coords(box, v, &x[3 * v]);
  for (int c = 0; c < nc; c++) rotate(5 * c % 24, &box->cells[8 * c], &cells[8 * c]);
  femint_mesh_t m;
  const int err = femint_mesh_create(ctx, FEMINT_HEX, nv, x, nc, cells, NULL, &m);
  tap_ok(err == 0, "a perturbed box with its cells in 12 different rotations: %s",
         err ? femint_thread_error() : "valid");
  femint_mesh_destroy(&box);
  free(x);
  free(cells);
  return err ? NULL : m;
}

/* Every cell's nodes, mapped: a global DOF must land at one physical point. */
static void check_conformity(femint_context_t ctx, femint_mesh_t m)
{
  for (int p = 1; p <= 6; p++) {
    femint_space_t s;
    TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, NULL, p, &s));
    const int nsh = (p + 1) * (p + 1) * (p + 1);
    double *xi = malloc(3 * (size_t)nsh * sizeof *xi), *at = malloc(3 * (size_t)s->nmode * sizeof *at);
    char *seen = calloc((size_t)s->nmode, 1);
    TAP_CALL(ctx, refel_hex_nodes(p, xi));
    double worst = 0;
    for (int c = 0; c < m->ncell; c++) {
      double X[24], J[9];
      femint_mesh_cell_coords(m, c, X);
      for (int i = 0; i < nsh; i++) {
        const int64_t g = s->cell_mode[s->cell_off[c] + i];
        double x[3];
        geom_map(FEMINT_HEX, 8, X, &xi[3 * i], x, J);
        if (!seen[g]) {
          memcpy(&at[3 * g], x, sizeof x);
          seen[g] = 1;
        }
        for (int d = 0; d < 3; d++) worst = fmax(worst, fabs(at[3 * g + d] - x[d]));
      }
    }
    int all = 1;
    for (int64_t g = 0; g < s->nmode; g++) all &= seen[g];
    /* a conforming Q_p space on the 3 x 2 x 2 box has (3p+1)(2p+1)^2 nodes */
    const int64_t want = (int64_t)(3 * p + 1) * (2 * p + 1) * (2 * p + 1);
    tap_ok(s->nmode == want && all && worst < 1e-13,
           "p = %d: %lld DOFs (%lld), every shared node at one point (largest gap %.1e)", p,
           (long long)s->nmode, (long long)want, worst);
    free(xi);
    free(at);
    free(seen);
    femint_space_destroy(&s);
  }
  femint_space_t s;
  int orders[12] = {2, 3};
  tap_ok(femint_space_create(ctx, m, FEMINT_H1, 1, orders, 0, &s) == FEMINT_ENOTSUP,
         "mixed orders refused: %s", femint_thread_error());
  tap_ok(femint_space_create(ctx, m, FEMINT_H1, 1, NULL, 11, &s) == FEMINT_EORDER,
         "order 11 refused: %s", femint_thread_error());
}

/* The plain element matrix: Gauss points p + 2 per direction, the values and gradients of the
 * functions from refel_hex_eval, the physical gradients through J^-T; forms: 0 Laplace, 1 mass
 * (ncomp 3), 2 elasticity (lambda, mu). */
static void plain_matrix(int kind, int p, const double *X, double lambda, double mu, double *A)
{
  const int nsh = (p + 1) * (p + 1) * (p + 1), ne = kind == 0 ? 1 : 3, n = nsh * ne, nl = p + 2;
  double gx[16], gw[16], *val = malloc(4 * (size_t)nsh * sizeof *val);
  double *grad = malloc(3 * (size_t)nsh * sizeof *grad);
  quad_gauss_legendre(nl, gx, gw);
  memset(A, 0, (size_t)n * n * sizeof *A);
  for (int a = 0; a < nl; a++)
    for (int b = 0; b < nl; b++)
      for (int c = 0; c < nl; c++) {
        const double xi[3] = {gx[a], gx[b], gx[c]};
        double J[9], K[9];
        geom_hex_jacobian(8, X, xi, J);
        const double w = gw[a] * gw[b] * gw[c] * geom_inverse3(J, K);
        refel_hex_eval(p, xi, val);
        for (int i = 0; i < nsh; i++)
          for (int d = 0; d < 3; d++) {
            double s = 0;
            for (int j = 0; j < 3; j++) s += K[3 * j + d] * val[(1 + j) * nsh + i];
            grad[3 * i + d] = s;
          }
        for (int i = 0; i < nsh; i++)
          for (int j = 0; j < nsh; j++) {
            const double *gi = &grad[3 * i], *gj = &grad[3 * j];
            if (kind == 0) {
              A[i * n + j] += w * (gi[0] * gj[0] + gi[1] * gj[1] + gi[2] * gj[2]);
            } else if (kind == 1) {
              for (int e = 0; e < 3; e++) A[(i * 3 + e) * n + j * 3 + e] += w * val[i] * val[j];
            } else {
              const double dot = gi[0] * gj[0] + gi[1] * gj[1] + gi[2] * gj[2];
              for (int e = 0; e < 3; e++)
                for (int f = 0; f < 3; f++)
                  A[(i * 3 + e) * n + j * 3 + f] += w * (lambda * gi[e] * gj[f] +
                                                         mu * gi[f] * gj[e] + (e == f) * mu * dot);
            }
          }
      }
  free(val);
  free(grad);
}

struct compare {
  femint_mesh_t mesh;
  int kind, p;
  double lambda, mu, worst;
  int seen;
};

/* femint_operator_integrate's function: every element matrix against the plain one. */
static int compare_batch(const struct femint_element_batch *b, void *user)
{
  struct compare *c = user;
  double *A = malloc((size_t)b->n * b->n * sizeof *A), X[24];
  for (int k = 0; k < b->ncell; k++) {
    femint_mesh_cell_coords(c->mesh, b->cells[k], X);
    plain_matrix(c->kind, c->p, X, c->lambda, c->mu, A);
    double d = 0, s = 0;
    for (size_t e = 0; e < (size_t)b->n * b->n; e++) {
      const double v = b->precision == FEMINT_SINGLE
                           ? ((const float *)b->mats)[(size_t)k * b->n * b->n + e]
                           : ((const double *)b->mats)[(size_t)k * b->n * b->n + e];
      d += (v - A[e]) * (v - A[e]);
      s += A[e] * A[e];
    }
    c->worst = fmax(c->worst, sqrt(d / s));
    c->seen++;
  }
  free(A);
  return 0;
}

static void check_matrices(femint_context_t ctx)
{
  femint_mesh_t m;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, 2, 2, 1, 1.0, 1.3, 0.7, 0.35, 3, &m));
  const double E = 1, nu = 0.3, lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
  static const char *const names[3] = {"laplace", "mass", "elasticity"};
  static const int orders[] = {1, 2, 4, 8};
  for (int oi = 0; oi < 4; oi++)
    for (int kind = 0; kind < 3; kind++) {
      const int p = orders[oi];
      if (p == 8 && kind != 0) continue; /* the 2187-row matrices of p = 8 take long on PoCL */
      femint_space_t s;
      femint_form_t f;
      TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, kind == 0 ? 1 : 3, NULL, p, &s));
      const double one = 1;
      if (kind == 0) TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, 1, &one, &f));
      else if (kind == 1) TAP_CALL(ctx, femint_form_create_mass(ctx, 3, 1, &one, &f));
      else TAP_CALL(ctx, femint_form_create_elasticity(ctx, 1, &E, &nu, &f));
      for (int where = 0; where < 2; where++) {
        struct femint_operator_options o = {.where = where ? FEMINT_WHERE_OPENCL : FEMINT_WHERE_CPU};
        femint_operator_t op;
        TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, &o, &op));
        struct compare cmp = {m, kind, p, lambda, mu, 0, 0};
        TAP_CALL(ctx, femint_operator_integrate(op, compare_batch, &cmp, NULL));
        if (where == 0) { /* and the single cell of the CPU reference path */
          const int n = (p + 1) * (p + 1) * (p + 1) * (kind == 0 ? 1 : 3);
          double *A = malloc((size_t)n * n * sizeof *A), *B = malloc((size_t)n * n * sizeof *B), X[24];
          TAP_CALL(ctx, femint_operator_element_matrix(op, 0, 3, A));
          femint_mesh_cell_coords(m, 3, X);
          plain_matrix(kind, p, X, lambda, mu, B);
          cmp.worst = fmax(cmp.worst, tap_reldiff(A, B, (size_t)n * n));
          free(A);
          free(B);
        }
        tap_ok(cmp.seen == 4 && cmp.worst < 1e-12,
               "%s, p = %d, %s: the 4 element matrices equal the plain ones (rel. diff %.1e)",
               names[kind], p, where ? "OpenCL" : "CPU", cmp.worst);
        femint_operator_destroy(&op);
      }
      femint_form_destroy(&f);
      femint_space_destroy(&s);
    }
  femint_mesh_destroy(&m);
}

/* Assembled: the mass of a constant is the volume, the Laplacian and elasticity kill constants
 * and rigid motions. */
static void check_assembled(femint_context_t ctx)
{
  femint_mesh_t m;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, 3, 2, 2, 1.5, 1.0, 1.0, 0.3, 9, &m));
  const int p = 3;
  femint_space_t s1, s3;
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, NULL, p, &s1));
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 3, NULL, p, &s3));
  femint_form_t lap, mass, el;
  const double one = 1, young = 2.5, poisson = 0.25;
  TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, 1, &one, &lap));
  TAP_CALL(ctx, femint_form_create_mass(ctx, 1, 1, &one, &mass));
  TAP_CALL(ctx, femint_form_create_elasticity(ctx, 1, &young, &poisson, &el));
  femint_matrix_t L, M, K;
  const femint_form_t two[2] = {lap, mass};
  femint_matrix_t LM[2];
  TAP_CALL(ctx, test_assemble(ctx, s1, 2, two, NULL, LM, NULL));
  L = LM[0], M = LM[1];
  TAP_CALL(ctx, test_assemble(ctx, s3, 1, &el, NULL, &K, NULL));
  const int64_t n1 = femint_space_num_dofs(s1), n3 = femint_space_num_dofs(s3);
  double *u = malloc(n3 * sizeof *u), *y = malloc(n3 * sizeof *y);
  for (int64_t i = 0; i < n1; i++) u[i] = 1;
  femint_matrix_mult(M, u, y);
  double vol = 0, lap_norm = 0;
  for (int64_t i = 0; i < n1; i++) vol += y[i];
  femint_matrix_mult(L, u, y);
  for (int64_t i = 0; i < n1; i++) lap_norm = fmax(lap_norm, fabs(y[i]));
  tap_ok(fabs(vol - 1.5) < 1e-13 && lap_norm < 1e-13,
         "1^T M 1 = %.15g (the volume 1.5), |L 1| = %.1e", vol, lap_norm);
  double worst = 0;
  for (int r = 0; r < 6; r++) {
    double a[3] = {0, 0, 0}, b[9] = {0};
    if (r < 3) a[r] = 1;
    else { /* rotation about axis r - 3 */
      const int i = (r - 3 + 1) % 3, j = (r - 3 + 2) % 3;
      b[3 * i + j] = -1, b[3 * j + i] = 1;
    }
    TAP_CALL(ctx, femint_space_interpolate_linear(s3, a, b, u));
    femint_matrix_mult(K, u, y);
    double ny = 0, nu2 = 0;
    for (int64_t i = 0; i < n3; i++) ny = fmax(ny, fabs(y[i])), nu2 = fmax(nu2, fabs(u[i]));
    worst = fmax(worst, ny / nu2);
  }
  tap_ok(worst < 1e-13, "elasticity: |K r| / |r| <= %.1e for the 6 rigid motions", worst);
  /* the interpolant of a linear field is exact at every point */
  const double a[3] = {0.3, -1, 2}, b[9] = {1, 2, 3, -1, 0.5, 0, 0.25, 4, -2};
  TAP_CALL(ctx, femint_space_interpolate_linear(s3, a, b, u));
  double err = 0;
  for (int c = 0; c < m->ncell; c++) {
    const double xi[3] = {0.31, -0.72, 0.55};
    double x[3], val[3];
    TAP_CALL(ctx, femint_space_eval(s3, u, c, xi, x, val));
    for (int k = 0; k < 3; k++) {
      double e = a[k];
      for (int d = 0; d < 3; d++) e += b[3 * k + d] * x[d];
      err = fmax(err, fabs(val[k] - e));
    }
  }
  tap_ok(err < 1e-13, "a linear field interpolated and evaluated inside every cell: error %.1e",
         err);
  free(u);
  free(y);
  femint_matrix_destroy(&L);
  femint_matrix_destroy(&M);
  femint_matrix_destroy(&K);
  femint_form_destroy(&lap);
  femint_form_destroy(&mass);
  femint_form_destroy(&el);
  femint_space_destroy(&s1);
  femint_space_destroy(&s3);
  femint_mesh_destroy(&m);
}

int main(void)
{
  test_fresh_dmda("t409");
  femint_context_t ctx = test_init();
  femint_mesh_t m = rotated_box(ctx);
  if (m) check_conformity(ctx, m);
  femint_mesh_destroy(&m);
  check_matrices(ctx);
  check_assembled(ctx);
  femint_finalize(&ctx);
  test_fresh_dmda_remove();
  return tap_done();
}
