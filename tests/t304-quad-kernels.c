/* Test: the quadrilateral element matrices that the pipeline computes (femint_operator_integrate:
 * packing, the CPU codelet and the OpenCL GEMM kernel, in double and single precision, full and
 * upper-half storage) agree with the plain reference of reference_quad.c on random curved 8-node
 * elements, for plane stress, plane strain, Laplace, mass and generic forms with per-cell
 * coefficients. */
#include <math.h>

#include "host/mesh.h"
#include "quad_common.h"

enum { NX = 3, NY = 2, NCELL = NX * NY };

struct collect {
  int n, symmetric, precision, seen[NCELL];
  double *mats; /* [NCELL][n*n or n(n+1)/2] in double */
};

static int collect(const struct femint_element_batch *b, void *user)
{
  struct collect *c = user;
  const size_t per = c->symmetric ? (size_t)c->n * (c->n + 1) / 2 : (size_t)c->n * c->n;
  if (b->n != c->n || b->symmetric != c->symmetric || b->precision != c->precision) return 1;
  for (int k = 0; k < b->ncell; k++) {
    c->seen[b->cells[k]]++;
    for (size_t i = 0; i < per; i++)
      c->mats[(size_t)b->cells[k] * per + i] =
          b->precision == FEMINT_SINGLE ? ((const float *)b->mats)[k * per + i]
                                        : ((const double *)b->mats)[k * per + i];
  }
  return 0;
}

enum kind { PLANE_STRESS, PLANE_STRAIN, LAPLACE, MASS, GENERIC, NKIND };
static const char *kind_name[NKIND] = {"plane stress", "plane strain", "laplace", "mass",
                                       "generic"};

struct form_case {
  int kind, ne;
  double E[NCELL], nu[NCELL], k[NCELL];
  double gen[NCELL][2 * 2 * 16]; /* generic: c[2][2][4][4], z entries 0 */
};

static int make_form(femint_context_t ctx, const struct form_case *fc, femint_form_t *f)
{
  switch (fc->kind) {
  case PLANE_STRESS:
  case PLANE_STRAIN:
    return femint_form_create_plane_elasticity(
        ctx, fc->kind == PLANE_STRESS ? FEMINT_PLANE_STRESS : FEMINT_PLANE_STRAIN, NCELL, fc->E,
        fc->nu, f);
  case LAPLACE: return femint_form_create_laplace(ctx, fc->ne, NCELL, fc->k, f);
  case MASS: return femint_form_create_mass(ctx, fc->ne, NCELL, fc->k, f);
  default: return femint_form_create_generic(ctx, 2, NCELL, &fc->gen[0][0], f);
  }
}

/* The reference's coefficients c[ne][ne][3][3] of a cell. */
static void ref_coef(const struct form_case *fc, int cell, double *c)
{
  switch (fc->kind) {
  case PLANE_STRESS: quad_coef_elasticity(QUAD_PLANE_STRESS, fc->E[cell], fc->nu[cell], c); break;
  case PLANE_STRAIN: quad_coef_elasticity(QUAD_PLANE_STRAIN, fc->E[cell], fc->nu[cell], c); break;
  case LAPLACE: quad_coef_laplace(fc->ne, fc->k[cell], c); break;
  case MASS: quad_coef_mass(fc->ne, fc->k[cell], c); break;
  default:
    for (int e = 0; e < 4; e++)
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) c[(e * 3 + i) * 3 + j] = fc->gen[cell][(e * 4 + i) * 4 + j];
  }
}

/* The largest relative Frobenius difference over the cells between the pipeline's matrices and
 * the reference's; -1 when the pipeline failed or missed a cell. */
static double run_case(femint_context_t ctx, femint_mesh_t mesh, const struct form_case *fc,
                       int p, int precision, int symmetric, int where)
{
  femint_space_t s;
  femint_form_t f;
  femint_operator_t op;
  if (femint_space_create(ctx, mesh, FEMINT_H1, fc->ne, NULL, p, &s)) return -1;
  if (make_form(ctx, fc, &f)) {
    femint_space_destroy(&s);
    return -1;
  }
  const struct femint_operator_options opt = {.precision = precision, .symmetric = symmetric,
                                              .where = where};
  if (femint_operator_create(ctx, s, 1, &f, &opt, &op)) {
    tap_diag("femint_operator_create: %s", femint_last_error(ctx));
    femint_form_destroy(&f);
    femint_space_destroy(&s);
    return -1;
  }
  const int n = refel_quad_nsh(p) * fc->ne;
  const size_t per = symmetric ? (size_t)n * (n + 1) / 2 : (size_t)n * n;
  struct collect col = {n, symmetric, precision, {0}, malloc(NCELL * per * sizeof(double))};
  double worst = -1;
  if (!femint_operator_integrate(op, collect, &col, NULL)) {
    struct refel *re;
    refel_quad_create(p, &re);
    double *A = malloc(per * sizeof *A), c[2 * 2 * 9], X[16];
    worst = 0;
    for (int cell = 0; cell < NCELL; cell++) {
      const int nnode = mesh_cell_nodes(mesh, cell, X);
      ref_coef(fc, cell, c);
      integrate_quad_reference(re, nnode, X, fc->ne, c, symmetric, A);
      double d = 0, a = 0;
      for (size_t i = 0; i < per; i++) {
        const double x = col.mats[cell * per + i] - A[i];
        d += x * x;
        a += A[i] * A[i];
      }
      worst = col.seen[cell] == 1 ? fmax(worst, sqrt(d / a)) : INFINITY;
    }
    free(A);
    refel_destroy(&re);
  } else {
    tap_diag("femint_operator_integrate: %s", femint_last_error(ctx));
  }
  free(col.mats);
  femint_operator_destroy(&op);
  femint_form_destroy(&f);
  femint_space_destroy(&s);
  return worst;
}

/* An element matrix of the mesh's first cell through femint_operator_element_matrix against the
 * reference, and the plane stress lambda* against seed 003's material matrix directly. */
static void check_element_matrix(femint_context_t ctx, femint_mesh_t mesh)
{
  const double E = 3.0, nu = 0.27;
  femint_space_t s;
  femint_form_t f;
  femint_operator_t op;
  TAP_CALL(ctx, femint_space_create(ctx, mesh, FEMINT_H1, 2, NULL, 4, &s));
  TAP_CALL(ctx, femint_form_create_plane_elasticity(ctx, FEMINT_PLANE_STRESS, 1, &E, &nu, &f));
  TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, NULL, &op));
  const int n = 2 * refel_quad_nsh(4);
  double *A = malloc(sizeof *A * n * n), *R = malloc(sizeof *R * n * n), c[36], X[16];
  TAP_CALL(ctx, femint_operator_element_matrix(op, 0, 0, A));
  struct refel *re;
  refel_quad_create(4, &re);
  quad_coef_elasticity(QUAD_PLANE_STRESS, E, nu, c);
  integrate_quad_reference(re, mesh_cell_nodes(mesh, 0, X), X, 2, c, QUAD_STORE_FULL, R);
  double d = 0, a = 0;
  for (int i = 0; i < n * n; i++) {
    d += (A[i] - R[i]) * (A[i] - R[i]);
    a += R[i] * R[i];
  }
  tap_ok(sqrt(d / a) < 1e-13,
         "femint_operator_element_matrix of a curved quadrilateral, p = 4: rel. difference "
         "%.2e from the reference",
         sqrt(d / a));
  refel_destroy(&re);
  free(A);
  free(R);
  femint_operator_destroy(&op);
  femint_form_destroy(&f);
  femint_space_destroy(&s);
}

int main(void)
{
  femint_context_t ctx = test_init();
  uint64_t st = 21;
  femint_mesh_t mesh;
  TAP_CALL(ctx, test_curved_square(ctx, NX, NY, 0.15, &st, &mesh));
  int ncpu = 0, has_cl = 0;
  femint_context_workers(ctx, &ncpu, &has_cl, NULL);
  struct form_case fc[NKIND];
  for (int k = 0; k < NKIND; k++) {
    fc[k].kind = k;
    fc[k].ne = k == LAPLACE ? 1 : 2;
    for (int c = 0; c < NCELL; c++) {
      fc[k].E[c] = 1 + test_rand(&st);
      fc[k].nu[c] = 0.45 * test_rand(&st);
      fc[k].k[c] = 0.5 + test_rand(&st);
      for (int i = 0; i < 64; i++) {
        const int d = i % 16;
        fc[k].gen[c][i] = d / 4 == 3 || d % 4 == 3 ? 0 : test_rand(&st) - 0.5;
      }
    }
  }
  for (int where = FEMINT_WHERE_CPU; where <= FEMINT_WHERE_OPENCL; where++) {
    const char *wn = where == FEMINT_WHERE_CPU ? "CPU" : "OpenCL";
    if (where == FEMINT_WHERE_OPENCL && !has_cl) {
      tap_diag("no OpenCL worker: the OpenCL cases are left out");
      continue;
    }
    for (int k = 0; k < NKIND; k++)
      for (int p = 1; p <= 7; p++) {
        /* OpenCL builds a program per case: plane stress in double with full storage at every
         * order, the other combinations at p = 1, 4, 7; the other forms at p = 3 */
        const int few = k == PLANE_STRESS ? p == 1 || p == 4 || p == 7 : p == 3;
        if (where == FEMINT_WHERE_OPENCL && k != PLANE_STRESS && !few) continue;
        for (int prec = FEMINT_DOUBLE; prec <= FEMINT_SINGLE; prec++)
          for (int sym = 0; sym <= (k == GENERIC ? 0 : 1); sym++) {
            if (where == FEMINT_WHERE_OPENCL && (prec || sym) && !few) continue;
            const double tol = prec == FEMINT_DOUBLE ? 1e-12 : 1e-4;
            const double d = run_case(ctx, mesh, &fc[k], p, prec, sym, where);
            tap_ok(d >= 0 && d < tol, "%s %s p=%d %s %s: rel. difference %.2e < %g", wn,
                   kind_name[k], p, prec == FEMINT_DOUBLE ? "double" : "single",
                   sym ? "upper half" : "full", d, tol);
          }
      }
  }
  check_element_matrix(ctx, mesh);
  femint_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  return tap_done();
}
