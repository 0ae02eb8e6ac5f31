/* Test: H1 Lagrange spaces on triangles and tetrahedra and their element matrices through the
 * operator. The space: DOF counts and conformity (every global DOF seen from every cell that holds
 * it lies at one physical point) on perturbed and curved meshes, whatever the vertex order the
 * cells were given in. The element matrices of Laplace, mass (2 components) and elasticity (plane
 * strain on triangles, 3D on tetrahedra), orders 1..3, straight and curved, on the CPU
 * (femint_operator_element_matrix) and on OpenCL (femint_operator_integrate), against a plain
 * quadrature written here (straight cells: a rule of higher degree, exact for both). Assembled:
 * 1^T M 1 = the measure, constants in the kernel of the Laplacian, rigid motions in the kernel of
 * elasticity, linear fields interpolated exactly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "host/host.h"
#include "host/refel_simplex.h"

static const char *name(int shape) { return shape == FEMINT_TRI ? "triangles" : "tetrahedra"; }

/* A perturbed box whose cells are given with their vertices rotated (cell c by c steps), and
 * curved by femint_mesh_warp when warp is set. */
static femint_mesh_t box(femint_context_t ctx, int shape, int warp)
{
  const int dim = shape == FEMINT_TRI ? 2 : 3, nv = dim + 1;
  femint_mesh_t b, m;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, shape, 3, 2, dim == 3 ? 2 : 1, 1.5, 1.0, 0.8, 0.3,
                                       11, &b));
  const int nvert = femint_mesh_num_vertices(b), nc = femint_mesh_num_cells(b);
  double *x = malloc(3 * (size_t)nvert * sizeof *x), *xy = malloc(3 * (size_t)nvert * sizeof *xy);
  int *cells = malloc((size_t)nv * nc * sizeof *cells);
  for (int v = 0; v < nvert; v++) {
    femint_mesh_vertex_coords(b, v, &x[3 * v]);
    for (int d = 0; d < dim; d++) xy[dim * v + d] = x[3 * v + d];
  }
  for (int c = 0; c < nc; c++)
    for (int a = 0; a < nv; a++) cells[nv * c + a] = b->cells[nv * c + (a + c) % nv];
  TAP_CALL(ctx, femint_mesh_create(ctx, shape, nvert, xy, nc, cells, NULL, &m));
  if (warp) TAP_CALL(ctx, femint_mesh_warp(m, 0.08));
  femint_mesh_destroy(&b);
  free(x);
  free(xy);
  free(cells);
  return m;
}

/* Every cell's nodes, mapped: a global DOF must land at one physical point. */
static void check_conformity(femint_context_t ctx, int shape, int warp)
{
  femint_mesh_t m = box(ctx, shape, warp);
  const int dim = m->topo->dim;
  for (int p = 1; p <= LAGRANGE_MAX_ORDER; p++) {
    femint_space_t s;
    TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, NULL, p, &s));
    const int nsh = refel_lagrange_nsh(shape, p);
    double xi[60], *at = malloc(3 * (size_t)s->nmode * sizeof *at), worst = 0;
    char *seen = calloc((size_t)s->nmode, 1);
    TAP_CALL(ctx, refel_lagrange_nodes(shape, p, xi));
    for (int c = 0; c < m->ncell; c++) {
      double X[3 * MESH_MAX_NODES], J[9];
      const int nnode = mesh_cell_nodes(m, c, X);
      for (int i = 0; i < nsh; i++) {
        const int64_t g = s->cell_mode[s->cell_off[c] + i];
        double x[3] = {0, 0, 0};
        geom_map(shape, nnode, X, &xi[dim * i], x, J);
        if (!seen[g]) memcpy(&at[3 * g], x, sizeof x), seen[g] = 1;
        for (int d = 0; d < 3; d++) worst = fmax(worst, fabs(at[3 * g + d] - x[d]));
      }
    }
    int all = 1;
    for (int64_t g = 0; g < s->nmode; g++) all &= seen[g];
    /* the nodes of P_p on the box's cut blocks are the points of the box's lattice refined p
     * times */
    const int64_t want = (int64_t)(3 * p + 1) * (2 * p + 1) * (dim == 3 ? 2 * p + 1 : 1);
    tap_ok(s->nmode == want && all && worst < 1e-13,
           "%s%s, p = %d: %lld DOFs (%lld), every shared node at one point (largest gap %.1e)",
           warp ? "curved " : "", name(shape), p, (long long)s->nmode, (long long)want, worst);
    free(at);
    free(seen);
    femint_space_destroy(&s);
  }
  femint_mesh_destroy(&m);
}

/* The plain element matrix on the rule (xq, wq, nq): the functions from refel_lagrange_eval, the
 * physical gradients through J^-T, |det J|; kind 0 Laplace, 1 mass (ne 2), 2 elasticity (ne =
 * dim; lambda, mu). */
static void plain_matrix(int shape, int p, int kind, int nnode, const double *X, int nq,
                         const double *xq, const double *wq, double lambda, double mu, double *A)
{
  const int dim = shape == FEMINT_TRI ? 2 : 3, nsh = refel_lagrange_nsh(shape, p);
  const int ne = kind == 0 ? 1 : kind == 1 ? 2 : dim, n = nsh * ne;
  double val[4 * 20], grad[3 * 20];
  memset(A, 0, (size_t)n * n * sizeof *A);
  for (int q = 0; q < nq; q++) {
    double J[9], K[9];
    const double det = geom_map(shape, nnode, X, &xq[dim * q], NULL, J);
    if (dim == 2) { /* K = J^-1 */
      K[0] = J[3] / det, K[1] = -J[1] / det, K[2] = -J[2] / det, K[3] = J[0] / det;
    } else {
      geom_inverse3(J, K);
    }
    const double w = wq[q] * fabs(det);
    refel_lagrange_eval(shape, p, &xq[dim * q], val);
    for (int i = 0; i < nsh; i++)
      for (int d = 0; d < dim; d++) {
        double s = 0;
        for (int j = 0; j < dim; j++) s += K[dim * j + d] * val[(1 + j) * nsh + i];
        grad[dim * i + d] = s;
      }
    for (int i = 0; i < nsh; i++)
      for (int j = 0; j < nsh; j++) {
        const double *gi = &grad[dim * i], *gj = &grad[dim * j];
        double dot = 0;
        for (int d = 0; d < dim; d++) dot += gi[d] * gj[d];
        if (kind == 0) {
          A[i * n + j] += w * dot;
        } else if (kind == 1) {
          for (int e = 0; e < 2; e++) A[(i * 2 + e) * n + j * 2 + e] += w * val[i] * val[j];
        } else {
          for (int e = 0; e < dim; e++)
            for (int f = 0; f < dim; f++)
              A[(i * dim + e) * n + j * dim + f] +=
                  w * (lambda * gi[e] * gj[f] + mu * gi[f] * gj[e] + (e == f) * mu * dot);
        }
      }
  }
}

struct compare {
  femint_mesh_t mesh;
  int shape, kind, p, nq;
  const double *xq, *wq;
  double lambda, mu, worst;
  int seen;
};

/* femint_operator_integrate's function: every element matrix against the plain one. */
static int compare_batch(const struct femint_element_batch *b, void *user)
{
  struct compare *c = user;
  double *A = malloc((size_t)b->n * b->n * sizeof *A), X[3 * MESH_MAX_NODES];
  for (int k = 0; k < b->ncell; k++) {
    const int nnode = mesh_cell_nodes(c->mesh, b->cells[k], X);
    plain_matrix(c->shape, c->p, c->kind, nnode, X, c->nq, c->xq, c->wq, c->lambda, c->mu, A);
    c->worst = fmax(c->worst, tap_reldiff((const double *)b->mats + (size_t)k * b->n * b->n, A,
                                          (size_t)b->n * b->n));
    c->seen++;
  }
  free(A);
  return 0;
}

static void check_matrices(femint_context_t ctx, int shape, int warp)
{
  femint_mesh_t m = box(ctx, shape, warp);
  const int dim = m->topo->dim;
  const double E = 1.7, nu = 0.3, lambda = E * nu / ((1 + nu) * (1 - 2 * nu)),
               mu = E / (2 * (1 + nu));
  static const char *const kinds[3] = {"laplace", "mass", "elasticity"};
  for (int p = 1; p <= LAGRANGE_MAX_ORDER; p++) {
    /* straight cells: a rule two degrees higher than the element's (both exact); curved: the
     * element's own */
    struct refel *re;
    TAP_CALL(ctx, refel_lagrange_create_degree(shape, p, warp ? 2 * p : 2 * p + 2, &re));
    for (int kind = 0; kind < 3; kind++) {
      femint_space_t s;
      femint_form_t f;
      const int ne = kind == 0 ? 1 : kind == 1 ? 2 : dim;
      TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, ne, NULL, p, &s));
      const double one = 1;
      if (kind == 0) TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, 1, &one, &f));
      else if (kind == 1) TAP_CALL(ctx, femint_form_create_mass(ctx, 2, 1, &one, &f));
      else if (dim == 2)
        TAP_CALL(ctx, femint_form_create_plane_elasticity(ctx, FEMINT_PLANE_STRAIN, 1, &E, &nu, &f));
      else TAP_CALL(ctx, femint_form_create_elasticity(ctx, 1, &E, &nu, &f));
      for (int where = 0; where < 2; where++) {
        struct femint_operator_options o = {.where = where ? FEMINT_WHERE_OPENCL : FEMINT_WHERE_CPU};
        femint_operator_t op;
        TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, &o, &op));
        struct compare cmp = {m, shape, kind, p, re->nq, re->xq, re->wq, lambda, mu, 0, 0};
        TAP_CALL(ctx, femint_operator_integrate(op, compare_batch, &cmp, NULL));
        if (where == 0) { /* and one cell through the CPU reference path */
          const int n = re->nsh * ne;
          double *A = malloc((size_t)n * n * sizeof *A), *B = malloc((size_t)n * n * sizeof *B);
          double X[3 * MESH_MAX_NODES];
          TAP_CALL(ctx, femint_operator_element_matrix(op, 0, 5, A));
          const int nnode = mesh_cell_nodes(m, 5, X);
          plain_matrix(shape, p, kind, nnode, X, re->nq, re->xq, re->wq, lambda, mu, B);
          cmp.worst = fmax(cmp.worst, tap_reldiff(A, B, (size_t)n * n));
          free(A);
          free(B);
        }
        tap_ok(cmp.seen == m->ncell && cmp.worst < 1e-12,
               "%s%s, %s, p = %d, %s: the %d element matrices equal the plain ones (rel. diff "
               "%.1e)",
               warp ? "curved " : "", name(shape), kinds[kind], p, where ? "OpenCL" : "CPU",
               cmp.seen, cmp.worst);
        femint_operator_destroy(&op);
      }
      femint_form_destroy(&f);
      femint_space_destroy(&s);
    }
    refel_destroy(&re);
  }
  femint_mesh_destroy(&m);
}

/* Assembled: the measure, the kernels of the Laplacian and of elasticity, linear fields. */
static void check_assembled(femint_context_t ctx, int shape)
{
  femint_mesh_t m = box(ctx, shape, 0);
  const int dim = m->topo->dim, p = 3;
  const double measure = dim == 2 ? 1.5 : 1.5 * 0.8;
  femint_space_t s1, sv;
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, NULL, p, &s1));
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, dim, NULL, p, &sv));
  femint_form_t lap, mass, el;
  const double one = 1, young = 2.5, poisson = 0.25;
  TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, 1, &one, &lap));
  TAP_CALL(ctx, femint_form_create_mass(ctx, 1, 1, &one, &mass));
  if (dim == 2)
    TAP_CALL(ctx, femint_form_create_plane_elasticity(ctx, FEMINT_PLANE_STRESS, 1, &young, &poisson, &el));
  else TAP_CALL(ctx, femint_form_create_elasticity(ctx, 1, &young, &poisson, &el));
  femint_matrix_t LM[2], K;
  const femint_form_t two[2] = {lap, mass};
  TAP_CALL(ctx, test_assemble(ctx, s1, 2, two, NULL, LM, NULL));
  TAP_CALL(ctx, test_assemble(ctx, sv, 1, &el, NULL, &K, NULL));
  const int64_t n1 = femint_space_num_dofs(s1), nv = femint_space_num_dofs(sv);
  double *u = malloc(nv * sizeof *u), *y = malloc(nv * sizeof *y);
  for (int64_t i = 0; i < n1; i++) u[i] = 1;
  femint_matrix_mult(LM[1], u, y);
  double vol = 0, lap_norm = 0;
  for (int64_t i = 0; i < n1; i++) vol += y[i];
  femint_matrix_mult(LM[0], u, y);
  for (int64_t i = 0; i < n1; i++) lap_norm = fmax(lap_norm, fabs(y[i]));
  tap_ok(fabs(vol - measure) < 1e-13 && lap_norm < 1e-12,
         "%s: 1^T M 1 = %.15g (the measure %g), |L 1| = %.1e", name(shape), vol, measure,
         lap_norm);
  double worst = 0;
  const int nrigid = dim == 2 ? 3 : 6;
  for (int r = 0; r < nrigid; r++) {
    double a[3] = {0, 0, 0}, b[9] = {0};
    if (r < dim) {
      a[r] = 1;
    } else { /* rotation about axis r - dim (2D: about z) */
      const int ax = dim == 2 ? 2 : r - 3, i = (ax + 1) % 3, j = (ax + 2) % 3;
      b[3 * i + j] = -1, b[3 * j + i] = 1; /* b is [ncomp][3] */
    }
    TAP_CALL(ctx, femint_space_interpolate_linear(sv, a, b, u));
    femint_matrix_mult(K, u, y);
    double ny = 0, nu2 = 0;
    for (int64_t i = 0; i < nv; i++) ny = fmax(ny, fabs(y[i])), nu2 = fmax(nu2, fabs(u[i]));
    worst = fmax(worst, ny / nu2);
  }
  tap_ok(worst < 1e-12, "%s: elasticity |K r| / |r| <= %.1e for the %d rigid motions",
         name(shape), worst, nrigid);
  const double a[3] = {0.3, -1, 2}, b[9] = {1, 2, 3, -1, 0.5, 0, 0.25, 4, -2};
  TAP_CALL(ctx, femint_space_interpolate_linear(sv, a, b, u));
  double err = 0;
  for (int c = 0; c < m->ncell; c++) {
    const double xi[3] = {0.21, 0.17, 0.33};
    double x[3], val[3];
    TAP_CALL(ctx, femint_space_eval(sv, u, c, xi, x, val));
    for (int k = 0; k < dim; k++) {
      double e = a[k];
      for (int d = 0; d < dim; d++) e += b[3 * k + d] * x[d];
      err = fmax(err, fabs(val[k] - e));
    }
  }
  tap_ok(err < 1e-13, "%s: a linear field interpolated and evaluated inside every cell: error %.1e",
         name(shape), err);
  femint_space_t bad;
  int orders[48] = {2, 3};
  tap_ok(femint_space_create(ctx, m, FEMINT_H1, 1, orders, 0, &bad) == FEMINT_ENOTSUP &&
             femint_space_create(ctx, m, FEMINT_H1, 1, NULL, 4, &bad) == FEMINT_EORDER,
         "%s: mixed orders and order 4 are refused: %s", name(shape), femint_thread_error());
  free(u);
  free(y);
  femint_matrix_destroy(&LM[0]);
  femint_matrix_destroy(&LM[1]);
  femint_matrix_destroy(&K);
  femint_form_destroy(&lap);
  femint_form_destroy(&mass);
  femint_form_destroy(&el);
  femint_space_destroy(&s1);
  femint_space_destroy(&sv);
  femint_mesh_destroy(&m);
}

int main(void)
{
  test_fresh_dmda("t414");
  femint_context_t ctx = test_init();
  for (int shape = FEMINT_TET; shape <= FEMINT_TRI; shape += FEMINT_TRI - FEMINT_TET) {
    for (int warp = 0; warp < 2; warp++) {
      check_conformity(ctx, shape, warp);
      check_matrices(ctx, shape, warp);
    }
    check_assembled(ctx, shape);
  }
  femint_finalize(&ctx);
  test_fresh_dmda_remove();
  return tap_done();
}
