/* Test: residuals of pointwise forms (femint_operator_residual, seed 002) on Lagrange triangles
 * and tetrahedra of orders 1-3. For each gallery form (Poisson with an auxiliary field, per-cell
 * values or none; elasticity; the p-Laplacian; Bratu) on random perturbed meshes with random u
 * and aux, the residual of the CPU workers (the source compiled at run time) and of the OpenCL
 * workers (the source inlined in the kernel) equal a plain loop over cells and points written
 * here (1e-12; single precision 1e-5); the same with the caller's compiled functions; a linear residual equals A u with
 * A from femint_operator_assemble; two evaluations agree bit for bit; the Jacobian from g0..g3
 * (the OpenCL kernel's) equals central differences of the residual and the CPU workers' to
 * rounding, in single precision to 1e-5; a source that does not
 * compile is an error naming its line, and the other misuses are named. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "host/host.h"
#include "host/refel_simplex.h"

enum { POISSON_FIELD, POISSON_CELL, POISSON_NONE, ELASTICITY, PLAPLACE, BRATU, WITH_X, NCASE };
static const char *const case_names[NCASE] = {"poisson (aux field)", "poisson (aux per cell)",
                                              "poisson", "elasticity", "plaplace", "bratu",
                                              "coefficients of x"};


static int which; /* the case the plain functions compute */

/* The gallery's functions, written again in plain C (the reference). */
static void ref_f0(int dim, const double *u, const double *du, const double *a, const double *da,
                   const double *x, const double *k, double *f)
{
  (void)du, (void)a, (void)da;
  switch (which) {
  case WITH_X: f[0] = u[0] * (1 + x[0]) - x[dim - 1] * x[1]; break;
  case ELASTICITY:
    for (int c = 0; c < dim; c++) f[c] = 0;
    break;
  case PLAPLACE: f[0] = -k[1]; break;
  case BRATU: f[0] = -k[0] * exp(u[0]); break;
  default: f[0] = which == POISSON_NONE ? 0 : -k[0];
  }
}

static void ref_f1(int dim, const double *u, const double *du, const double *a, const double *da,
                   const double *x, const double *k, double *f)
{
  (void)u, (void)da;
  if (which == WITH_X) {
    for (int d = 0; d < dim; d++) f[d] = (1 + x[d] * x[d]) * du[d];
    return;
  }
  if (which == ELASTICITY) {
    double tr = 0;
    for (int d = 0; d < dim; d++) tr += du[d * dim + d];
    for (int c = 0; c < dim; c++)
      for (int d = 0; d < dim; d++)
        f[c * dim + d] = k[1] * (du[c * dim + d] + du[d * dim + c]) + (c == d) * k[0] * tr;
    return;
  }
  double s = which == PLAPLACE ? k[2] * k[2] : 0, c = 1;
  for (int d = 0; d < dim; d++) s += du[d] * du[d];
  if (which == PLAPLACE) c = pow(s, 0.5 * (k[0] - 2));
  if (which == POISSON_FIELD || which == POISSON_CELL) c = a[0];
  for (int d = 0; d < dim; d++) f[d] = c * du[d];
}

/* The plain residual: every cell, every point of the element's rule, in double. */
static void plain_residual(femint_space_t s, int nc, int na, const double *u, const double *aux,
                           const double *acell, const double *k, double *F)
{
  const femint_mesh_t m = s->mesh;
  const int shape = m->topo->shape, dim = m->topo->dim, p = s->order[0];
  struct refel *re;
  TAP_CALL(NULL, refel_lagrange_create(shape, p, &re));
  const int nsh = re->nsh;
  memset(F, 0, (size_t)s->nmode * nc * sizeof *F);
  for (int c = 0; c < m->ncell; c++) {
    double X[3 * MESH_MAX_NODES];
    const int nnode = mesh_cell_nodes(m, c, X);
    const int64_t *g = &s->cell_mode[s->cell_off[c]];
    for (int q = 0; q < re->nq; q++) {
      double J[9], K[9], x[3] = {0, 0, 0}, val[4 * 20];
      double det = geom_map(shape, nnode, X, &re->xq[dim * q], x, J);
      if (dim == 2) K[0] = J[3] / det, K[1] = -J[1] / det, K[2] = -J[2] / det, K[3] = J[0] / det;
      else det = geom_inverse3(J, K);
      const double w = re->wq[q] * fabs(det);
      refel_lagrange_eval(shape, p, &re->xq[dim * q], val);
      double grad[20][3], uu[3] = {0}, du[9] = {0}, a[3] = {0}, da[9] = {0}, f0[3], f1[9];
      for (int i = 0; i < nsh; i++)
        for (int d = 0; d < dim; d++) {
          grad[i][d] = 0;
          for (int j = 0; j < dim; j++) grad[i][d] += K[dim * j + d] * val[(1 + j) * nsh + i];
        }
      for (int i = 0; i < nsh; i++)
        for (int e = 0; e < nc; e++) {
          const double v = g[i] >= 0 ? u[g[i] * nc + e] : 0;
          uu[e] += val[i] * v;
          for (int d = 0; d < dim; d++) du[e * dim + d] += grad[i][d] * v;
        }
      if (aux)
        for (int i = 0; i < nsh; i++)
          for (int e = 0; e < na; e++) {
            a[e] += val[i] * aux[g[i] * na + e];
            for (int d = 0; d < dim; d++) da[e * dim + d] += grad[i][d] * aux[g[i] * na + e];
          }
      if (acell) a[0] = acell[c];
      ref_f0(dim, uu, du, a, da, x, k, f0);
      ref_f1(dim, uu, du, a, da, x, k, f1);
      for (int i = 0; i < nsh; i++)
        for (int e = 0; e < nc && g[i] >= 0; e++) {
          double r = val[i] * f0[e];
          for (int d = 0; d < dim; d++) r += grad[i][d] * f1[e * dim + d];
          F[g[i] * nc + e] += w * r;
        }
    }
  }
  refel_destroy(&re);
}

static double urand(unsigned *st) { return (*st = *st * 1103515245u + 12345u) / 4294967296.0; }

/* One case on one mesh and order: CPU, OpenCL and the caller's functions against the plain sum. */
static void check_case(femint_context_t ctx, femint_mesh_t m, int p, int kase)
{
  const int dim = m->topo->dim, nc = kase == ELASTICITY ? dim : 1;
  const int na = kase == POISSON_FIELD || kase == POISSON_CELL;
  femint_space_t s, sa = NULL;
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, nc, NULL, p, &s));
  if (kase == POISSON_FIELD) TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, NULL, p, &sa));
  const int64_t n = femint_space_num_dofs(s);
  double *u = malloc(n * sizeof *u), *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
  double *aux = sa ? malloc(femint_space_num_dofs(sa) * sizeof *aux) : NULL;
  double *acell = kase == POISSON_CELL ? malloc(m->ncell * sizeof *acell) : NULL;
  unsigned st = 17u * (unsigned)kase + (unsigned)p;
  for (int64_t i = 0; i < n; i++) u[i] = urand(&st) - 0.5;
  for (int64_t i = 0; aux && i < femint_space_num_dofs(sa); i++) aux[i] = 1 + urand(&st);
  for (int c = 0; acell && c < m->ncell; c++) acell[c] = 1 + urand(&st);
  const double consts[NCASE][3] = {{2.5}, {-1.5}, {0}, {0.8, 1.3}, {3, 0.7, 0.1}, {0.9}, {0}};
  static const char *gallery[NCASE] = {"poisson", "poisson",  "poisson", "elasticity",
                                       "plaplace", "bratu", "with_x"};
  const int nconst[NCASE] = {1, 1, 0, 2, 3, 1, 0};
  which = kase;
  plain_residual(s, nc, 1, u, aux, acell, consts[kase], want);
  for (int variant = 0; variant < 5; variant++) {
    /* 0: the source on CPU workers, 1: on OpenCL workers, 2: the caller's functions; 3, 4: the
     * source on CPU and OpenCL workers in single precision */
    const int single = variant >= 3, on_cl = variant == 1 || variant == 4;
    /* single precision on three of the cases (each is a program to build on PoCL) */
    if (single && kase != POISSON_FIELD && kase != ELASTICITY && kase != BRATU) continue;
    const char *text =
        kase == WITH_X ? test_pointwise_with_x() : femint_pointwise_gallery(gallery[kase]);
    struct femint_pointwise pw = {.source = variant != 2 ? text : NULL,
                                  .name = gallery[kase], .ncomp = nc,
                                  .aux = kase == POISSON_FIELD  ? FEMINT_AUX_FIELD
                                         : kase == POISSON_CELL ? FEMINT_AUX_CELL
                                                                : FEMINT_AUX_NONE,
                                  .naux = na, .ncell_aux = acell ? m->ncell : 0, .aux_cell = acell,
                                  .nconst = nconst[kase], .constants = consts[kase],
                                  .f0 = variant == 2 ? ref_f0 : NULL,
                                  .f1 = variant == 2 ? ref_f1 : NULL};
    femint_form_t f;
    TAP_CALL(ctx, femint_form_create_pointwise(ctx, &pw, &f));
    /* both OpenCL kernels, taking turns over the cases and orders (and the other in single) */
    const int cellwise = ((kase + p) % 2 == 0) == (variant == 1);
    struct femint_operator_options o = {.where = on_cl ? FEMINT_WHERE_OPENCL : FEMINT_WHERE_CPU,
                                        .precision = single ? FEMINT_SINGLE : FEMINT_DOUBLE,
                                        .residual_kernel = !on_cl      ? FEMINT_RESIDUAL_AUTO
                                                           : cellwise ? FEMINT_RESIDUAL_CELLWISE
                                                                      : FEMINT_RESIDUAL_TRANSPOSED};
    femint_operator_t op;
    TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, &o, &op));
    femint_vector_t vu, vF, va = NULL;
    TAP_CALL(ctx, femint_vector_create(s, &vu));
    TAP_CALL(ctx, femint_vector_create(s, &vF));
    TAP_CALL(ctx, femint_vector_set_values(vu, u));
    if (sa) {
      TAP_CALL(ctx, femint_vector_create(sa, &va));
      TAP_CALL(ctx, femint_vector_set_values(va, aux));
    }
    const int rc = femint_operator_residual(op, 0, vu, va, vF);
    TAP_CALL(ctx, rc);
    TAP_CALL(ctx, femint_vector_get_values(vF, got));
    const double diff = tap_reldiff(got, want, (size_t)n);
    /* again: the same bits */
    double *again = malloc(n * sizeof *again);
    TAP_CALL(ctx, femint_operator_residual(op, 0, vu, va, vF));
    TAP_CALL(ctx, femint_vector_get_values(vF, again));
    const int same = memcmp(again, got, n * sizeof *got) == 0;
    static const char *const how[5] = {"CPU (compiled source)", "OpenCL", "CPU (caller's functions)",
                                       "CPU, single", "OpenCL, single"};
    const char *kernel = !on_cl ? "" : cellwise ? " (a cell per work-item)" : " (transposed)";
    tap_ok(diff < (single ? 1e-5 : 1e-12) && same,
           "%s p = %d, %s, %s%s: residual = the plain sum (rel. diff %.1e)%s", m->topo->plural, p,
           case_names[kase], how[variant], kernel, diff,
           same ? ", the same bits twice" : ", NOT the same twice");
    free(again);
    femint_vector_destroy(&vu);
    femint_vector_destroy(&vF);
    femint_vector_destroy(&va);
    femint_operator_destroy(&op);
    femint_form_destroy(&f);
  }
  free(u), free(want), free(got), free(aux), free(acell);
  femint_space_destroy(&s);
  femint_space_destroy(&sa);
}

/* femint_operator_residual_cells's function: the batches summed by DOF (and counted). */
struct sum_cells {
  double *F;
  int cells, stop_after, calls;
};
static int sum_cells(const struct femint_residual_batch *b, void *user)
{
  struct sum_cells *s = user;
  for (int k = 0; k < b->ncell; k++)
    for (int i = 0; i < b->n; i++)
      if (b->dofs[k * b->n + i] >= 0) s->F[b->dofs[k * b->n + i]] += b->r[k * b->n + i];
  s->cells += b->ncell;
  return ++s->calls == s->stop_after;
}

/* F = the residual of form 0 at u (no auxiliary field), through the vectors vu and vF. */
static void residual_at(femint_context_t ctx, femint_operator_t op, const double *u,
                        femint_vector_t vu, femint_vector_t vF, double *F)
{
  TAP_CALL(ctx, femint_vector_set_values(vu, u));
  TAP_CALL(ctx, femint_operator_residual(op, 0, vu, NULL, vF));
  TAP_CALL(ctx, femint_vector_get_values(vF, F));
}

static void constant_body(const double x[3], const double nrm[3], int tag, void *user, double *v)
{
  (void)x, (void)nrm, (void)tag;
  v[0] = *(const double *)user;
}

/* Poisson without source term or coefficient is linear: F = A u with A the assembled Laplacian. */
static void check_linear(femint_context_t ctx, femint_mesh_t m)
{
  femint_space_t s;
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, NULL, 2, &s));
  const int64_t n = femint_space_num_dofs(s);
  femint_form_t lap, pwf;
  const double one = 1;
  TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, 1, &one, &lap));
  struct femint_pointwise pw = {.source = femint_pointwise_gallery("poisson"), .ncomp = 1};
  TAP_CALL(ctx, femint_form_create_pointwise(ctx, &pw, &pwf));
  femint_matrix_t A;
  TAP_CALL(ctx, test_assemble(ctx, s, 1, &lap, NULL, &A, NULL));
  double *u = malloc(n * sizeof *u), *Au = malloc(n * sizeof *Au), *F = malloc(n * sizeof *F);
  unsigned st = 5;
  for (int64_t i = 0; i < n; i++) u[i] = urand(&st);
  femint_matrix_mult(A, u, Au);
  femint_operator_t op;
  TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &pwf, NULL, &op));
  femint_vector_t vu, vF;
  TAP_CALL(ctx, femint_vector_create(s, &vu));
  TAP_CALL(ctx, femint_vector_create(s, &vF));
  residual_at(ctx, op, u, vu, vF, F);
  const double diff = tap_reldiff(F, Au, (size_t)n);
  tap_ok(diff < 1e-12, "%s: the residual of -laplace u = 0 is A u with the assembled A (%.1e)",
         m->topo->plural, diff);
  /* with a source term f = 2.5: F = A u - b, b the load of f (femint_operator_load) */
  const double f_src = 2.5;
  struct femint_pointwise pws = {.source = femint_pointwise_gallery("poisson"), .ncomp = 1,
                                 .nconst = 1, .constants = &f_src};
  femint_form_t sf;
  femint_operator_t ops;
  TAP_CALL(ctx, femint_form_create_pointwise(ctx, &pws, &sf));
  TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &sf, NULL, &ops));
  TAP_CALL(ctx, femint_operator_residual(ops, 0, vu, NULL, vF));
  TAP_CALL(ctx, femint_vector_get_values(vF, F));
  double *b = calloc(n, sizeof *b);
  const struct femint_load load = {.body = constant_body, .user = (void *)&f_src};
  TAP_CALL(ctx, femint_operator_load(ops, &load, b));
  for (int64_t i = 0; i < n; i++) Au[i] -= b[i];
  const double ds = tap_reldiff(F, Au, (size_t)n);
  tap_ok(ds < 1e-12, "%s: with a source term, the residual is A u - b (b the load) (%.1e)",
         m->topo->plural, ds);
  free(b);
  /* the element residuals handed over batch by batch, summed here: F again */
  struct sum_cells sc = {calloc(n, sizeof(double)), 0, -1, 0};
  TAP_CALL(ctx, femint_operator_residual_cells(ops, 0, vu, NULL, sum_cells, &sc));
  TAP_CALL(ctx, femint_operator_residual(ops, 0, vu, NULL, vF));
  TAP_CALL(ctx, femint_vector_get_values(vF, F));
  const double dc = tap_reldiff(sc.F, F, (size_t)n);
  const int all_cells = sc.cells;
  sc.stop_after = 1;
  sc.calls = 0;
  const int rcs = femint_operator_residual_cells(ops, 0, vu, NULL, sum_cells, &sc);
  tap_ok(dc < 1e-14 && all_cells == m->ncell && rcs == FEMINT_ECALLBACK && sc.calls == 1,
         "%s: the element residuals handed to the caller sum to F (%.1e) over the %d cells; a "
         "function that stops ends it (%s)",
         m->topo->plural, dc, m->ncell, femint_error_name(rcs));
  /* the same from OpenCL workers alone, whose element residuals live on the device */
  int nopencl = 0;
  femint_context_workers(ctx, NULL, &nopencl, NULL);
  if (nopencl > 0) {
    const struct femint_operator_options ocl = {.where = FEMINT_WHERE_OPENCL};
    femint_operator_t opc;
    TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &sf, &ocl, &opc));
    struct sum_cells sd = {calloc(n, sizeof(double)), 0, -1, 0};
    TAP_CALL(ctx, femint_operator_residual_cells(opc, 0, vu, NULL, sum_cells, &sd));
    const double dd = tap_reldiff(sd.F, F, (size_t)n);
    tap_ok(dd < 1e-13 && sd.cells == m->ncell,
           "%s, OpenCL alone: the element residuals handed to the caller sum to F (%.1e)",
           m->topo->plural, dd);
    free(sd.F);
    femint_operator_destroy(&opc);
  }
  free(sc.F);
  femint_operator_destroy(&ops);
  femint_form_destroy(&sf);
  femint_matrix_t B = NULL;
  int rc = femint_operator_assemble(op, &B, NULL);
  tap_ok(rc == FEMINT_ENOTSUP && !B, "assembling a pointwise form is refused: %s",
         femint_last_error(ctx));
  rc = femint_operator_residual(op, 0, vu, vu, vF);
  tap_ok(rc == FEMINT_EINVAL, "an auxiliary field for a form without one is refused: %s",
         femint_last_error(ctx));
  rc = femint_operator_residual(op, 0, vu, NULL, vu);
  tap_ok(rc == FEMINT_EINVAL, "u and F the same vector is refused: %s", femint_last_error(ctx));
  femint_vector_destroy(&vu);
  femint_vector_destroy(&vF);
  femint_operator_destroy(&op);
  /* a source that does not compile names its line */
  struct femint_pointwise bad = {.source = "FEMINT_POINTWISE void f0(int dim, const REAL *u,\n"
                                           "  const REAL *du, const REAL *a, const REAL *da,\n"
                                           "  const REAL *x, const REAL *k, REAL *f) { f[0] = u[0] }\n",
                                 .name = "broken.c", .ncomp = 1};
  femint_form_t bf;
  TAP_CALL(ctx, femint_form_create_pointwise(ctx, &bad, &bf));
  struct femint_operator_options cpu = {.where = FEMINT_WHERE_CPU};
  TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &bf, &cpu, &op));
  TAP_CALL(ctx, femint_vector_create(s, &vu));
  TAP_CALL(ctx, femint_vector_create(s, &vF));
  rc = femint_operator_residual(op, 0, vu, NULL, vF);
  tap_ok(rc == FEMINT_EBUILD && strstr(femint_last_error(ctx), "broken.c:3"),
         "a source that does not compile: %s, \"%.160s\"", femint_error_name(rc),
         femint_last_error(ctx));
  femint_operator_destroy(&op);
  femint_form_destroy(&bf);
  /* f0 alone: F_i = integral of phi_i u, the mass matrix times u, on either kind of worker */
  struct femint_pointwise mass = bad;
  mass.source = "/* the mass: f(u) = u */\n"
                "FEMINT_POINTWISE void f0(int dim, const REAL *u, const REAL *du, const REAL *a,"
                " const REAL *da, const REAL *x, const REAL *k, REAL *f) { f[0] = u[0]; }\n";
  mass.name = "mass.c";
  femint_form_t mf;
  femint_matrix_t M;
  TAP_CALL(ctx, femint_form_create_mass(ctx, 1, 1, &one, &mf));
  TAP_CALL(ctx, test_assemble(ctx, s, 1, &mf, NULL, &M, NULL));
  femint_matrix_mult(M, u, Au);
  TAP_CALL(ctx, femint_vector_set_values(vu, u));
  TAP_CALL(ctx, femint_form_create_pointwise(ctx, &mass, &bf));
  /* every kind of worker too: chunks written by CPU workers (cell by cell) and by the OpenCL
   * device (in the sum's place order) summed together, three times */
  for (int where = FEMINT_WHERE_ANY; where <= FEMINT_WHERE_OPENCL; where++) {
    struct femint_operator_options wo = {.where = where};
    TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &bf, &wo, &op));
    double dm = 0;
    for (int k = 0; k < (where == FEMINT_WHERE_ANY ? 3 : 1); k++) {
      TAP_CALL(ctx, femint_operator_residual(op, 0, vu, NULL, vF));
      TAP_CALL(ctx, femint_vector_get_values(vF, F));
      const double d = tap_reldiff(F, Au, (size_t)n);
      dm = d > dm ? d : dm;
    }
    tap_ok(dm < 1e-12, "a source with f0 alone (f = u) on %s workers: F = M u (%.1e)",
           where == FEMINT_WHERE_CPU ? "CPU" : where == FEMINT_WHERE_ANY ? "all" : "OpenCL", dm);
    if (where == FEMINT_WHERE_CPU) {
      femint_matrix_t Jm = NULL;
      rc = femint_operator_jacobian(op, 0, vu, NULL, &Jm);
      tap_ok(rc == FEMINT_EINVAL && !Jm, "the Jacobian of a source without g0..g3: %s",
             femint_last_error(ctx));
    }
    femint_operator_destroy(&op);
  }
  femint_form_destroy(&bf);
  femint_form_destroy(&mf);
  femint_matrix_destroy(&M);
  /* a compiler that cannot run, and a cache folder that cannot be made, are named */
  const char *cache = getenv("FEMINT_CACHE_DIR");
  char saved[256];
  snprintf(saved, sizeof saved, "%s", cache ? cache : "");
  struct femint_pointwise plap = {.source = femint_pointwise_gallery("poisson"), .name = "lap.c",
                                 .ncomp = 1};
  for (int k = 0; k < 2; k++) {
    if (k == 0) setenv("FEMINT_CC", "/nonexistent/cc", 1);
    else setenv("FEMINT_CACHE_DIR", "/proc/femint-cache", 1);
    TAP_CALL(ctx, femint_form_create_pointwise(ctx, &plap, &bf));
    TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &bf, &cpu, &op));
    rc = femint_operator_residual(op, 0, vu, NULL, vF);
    const char *msg = femint_last_error(ctx);
    tap_ok(k == 0 ? rc == FEMINT_EBUILD && strstr(msg, "/nonexistent/cc could not run")
                  : rc == FEMINT_EIO && strstr(msg, "/proc/femint-cache"),
           "%s: %s, \"%s\"", k == 0 ? "FEMINT_CC that does not run" : "a cache folder that cannot be made",
           femint_error_name(rc), msg);
    femint_operator_destroy(&op);
    femint_form_destroy(&bf);
    unsetenv("FEMINT_CC");
    setenv("FEMINT_CACHE_DIR", saved, 1);
  }
  /* an OpenCL build that fails (a broken kernel in FEMINT_KERNEL_DIR) leaves the work to the
   * CPU workers, with a warning on stderr: the residual is still A u */
  char dir[64] = "/tmp/femint-t415-kernels-XXXXXX";
  if (mkdtemp(dir)) {
    char path[128];
    snprintf(path, sizeof path, "%s/residual.cl", dir);
    FILE *kf = fopen(path, "w");
    if (kf) fputs("this is not OpenCL C\n", kf), fclose(kf);
    setenv("FEMINT_KERNEL_DIR", dir, 1);
    TAP_CALL(ctx, femint_form_create_pointwise(ctx, &pw, &bf));
    TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &bf, NULL, &op));
    TAP_CALL(ctx, femint_vector_set_values(vu, u));
    rc = femint_operator_residual(op, 0, vu, NULL, vF);
    if (!rc) rc = femint_vector_get_values(vF, F);
    femint_matrix_mult(A, u, Au);
    const double df = rc ? 1 : tap_reldiff(F, Au, (size_t)n);
    tap_ok(rc == 0 && df < 1e-12,
           "a kernel that does not build: the CPU workers compute the residual (%s, %.1e)",
           femint_error_name(rc), df);
    femint_operator_destroy(&op);
    femint_form_destroy(&bf);
    unsetenv("FEMINT_KERNEL_DIR");
    unlink(path);
    rmdir(dir);
  }
  struct femint_pointwise wrong = {.ncomp = 1};
  rc = femint_form_create_pointwise(ctx, &wrong, &bf);
  tap_ok(rc == FEMINT_EINVAL && !bf, "a form with neither source nor functions: %s",
         femint_last_error(ctx));
  wrong = (struct femint_pointwise){.source = "x", .ncomp = 1, .aux = FEMINT_AUX_CELL, .naux = 1};
  rc = femint_form_create_pointwise(ctx, &wrong, &bf);
  tap_ok(rc == FEMINT_EINVAL, "per-cell auxiliary values missing: %s", femint_last_error(ctx));
  /* the kernel's options */
  struct femint_operator_options ko = {.residual_kernel = 3};
  rc = femint_operator_create(ctx, s, 1, &pwf, &ko, &op);
  tap_ok(rc == FEMINT_EINVAL && strstr(femint_last_error(ctx), "residual_kernel = 3"),
         "residual_kernel = 3 is refused: %s", femint_last_error(ctx));
  ko = (struct femint_operator_options){.residual_kernel = FEMINT_RESIDUAL_CELLWISE,
                                        .residual_cells = 8};
  rc = femint_operator_create(ctx, s, 1, &pwf, &ko, &op);
  tap_ok(rc == FEMINT_EINVAL && strstr(femint_last_error(ctx), "residual_cells = 8"),
         "batches asked of the kernel of a cell per work-item are refused: %s",
         femint_last_error(ctx));
  femint_vector_destroy(&vu);
  femint_vector_destroy(&vF);
  free(u), free(Au), free(F);
  femint_matrix_destroy(&A);
  femint_form_destroy(&lap);
  femint_form_destroy(&pwf);
  femint_space_destroy(&s);
}

/* J v for the Jacobian at u of an operator of the form on workers where (single: in single
 * precision). */
static void jacobian_times(femint_context_t ctx, femint_space_t s, femint_form_t f, int where,
                           int single, femint_vector_t vu, femint_vector_t va, const double *v,
                           double *Jv)
{
  struct femint_operator_options o = {.where = where,
                                      .precision = single ? FEMINT_SINGLE : FEMINT_DOUBLE};
  femint_operator_t op;
  femint_matrix_t J;
  TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, &o, &op));
  TAP_CALL(ctx, femint_operator_jacobian(op, 0, vu, va, &J));
  femint_matrix_mult(J, v, Jv);
  femint_matrix_destroy(&J);
  femint_operator_destroy(&op);
}

/* A form with all four pointwise derivatives: f0 = u du_0 + u^3, f1 = (1 + u^2) grad u. */
static const char every_g[] =
    "FEMINT_POINTWISE void f0(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *f)\n"
    "{ f[0] = u[0] * du[0] + u[0] * u[0] * u[0]; }\n"
    "FEMINT_POINTWISE void g0(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *g)\n"
    "{ g[0] = du[0] + 3 * u[0] * u[0]; }\n"
    "FEMINT_POINTWISE void g1(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *g)\n"
    "{ for (int d = 0; d < dim; d++) g[d] = d == 0 ? u[0] : 0; }\n"
    "FEMINT_POINTWISE void f1(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *f)\n"
    "{ for (int d = 0; d < dim; d++) f[d] = (1 + u[0] * u[0]) * du[d]; }\n"
    "FEMINT_POINTWISE void g2(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *g)\n"
    "{ for (int d = 0; d < dim; d++) g[d] = 2 * u[0] * du[d]; }\n"
    "FEMINT_POINTWISE void g3(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
    "                         const REAL *da, const REAL *x, const REAL *k, REAL *g)\n"
    "{ for (int d = 0; d < dim * dim; d++) g[d] = d % (dim + 1) == 0 ? 1 + u[0] * u[0] : 0; }\n";

/* The Jacobian from g0..g3: J v against central differences of the residual, for every gallery
 * form and one with all four derivatives, from the OpenCL kernel; the CPU workers' (every kind
 * of worker's for Poisson) the same to rounding, and in single precision to 1e-5 (elasticity);
 * Poisson's at another u the same bits (linear). Poisson and the p-Laplacian at order 2,
 * elasticity and Bratu (g0) at order 1, which the CPU sums over the points first on straight
 * cells, the form of every derivative at both. */
static void check_jacobian(femint_context_t ctx, femint_mesh_t m)
{
  const int dim = m->topo->dim;
  static const char *names[6] = {"poisson", "elasticity", "plaplace", "bratu", "every_g.c",
                                 "every_g.c"};
  const double consts[6][3] = {{1}, {0.8, 1.3}, {3, 0.7, 0.1}, {0.9}, {0}, {0}};
  const int nconst[6] = {1, 2, 3, 1, 0, 0}, order[6] = {2, 1, 2, 1, 1, 2};
  for (int g = 0; g < 6; g++) {
    const int nc = g == 1 ? dim : 1, field = g == 0, p = order[g];
    femint_space_t s, sa = NULL;
    TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, nc, NULL, p, &s));
    if (field) TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, NULL, p, &sa));
    const int64_t n = femint_space_num_dofs(s);
    double *u = malloc(n * sizeof *u), *v = malloc(n * sizeof *v), *w = malloc(n * sizeof *w);
    double *Jv = malloc(n * sizeof *Jv), *Fp = malloc(n * sizeof *Fp), *Fm = malloc(n * sizeof *Fm);
    unsigned st = 99u + (unsigned)g;
    for (int64_t i = 0; i < n; i++) u[i] = 0.5 * (urand(&st) - 0.5), v[i] = urand(&st) - 0.5;
    struct femint_pointwise pw = {.source = g < 4 ? femint_pointwise_gallery(names[g]) : every_g,
                                  .name = names[g],
                                  .ncomp = nc, .aux = field ? FEMINT_AUX_FIELD : FEMINT_AUX_NONE,
                                  .naux = field, .nconst = nconst[g], .constants = consts[g]};
    femint_form_t f;
    femint_operator_t op;
    struct femint_operator_options o = {.where = FEMINT_WHERE_OPENCL};
    TAP_CALL(ctx, femint_form_create_pointwise(ctx, &pw, &f));
    TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, &o, &op));
    femint_vector_t vu, vF, va = NULL;
    TAP_CALL(ctx, femint_vector_create(s, &vu));
    TAP_CALL(ctx, femint_vector_create(s, &vF));
    if (sa) {
      double *a = malloc(femint_space_num_dofs(sa) * sizeof *a);
      for (int64_t i = 0; i < femint_space_num_dofs(sa); i++) a[i] = 1 + urand(&st);
      TAP_CALL(ctx, femint_vector_create(sa, &va));
      TAP_CALL(ctx, femint_vector_set_values(va, a));
      free(a);
    }
    TAP_CALL(ctx, femint_vector_set_values(vu, u));
    femint_matrix_t J;
    TAP_CALL(ctx, femint_operator_jacobian(op, 0, vu, va, &J));
    femint_matrix_mult(J, v, Jv);
    /* the CPU workers' (every kind's for Poisson) */
    jacobian_times(ctx, s, f, g == 0 ? FEMINT_WHERE_ANY : FEMINT_WHERE_CPU, 0, vu, va, v, w);
    double d = tap_reldiff(w, Jv, (size_t)n);
    tap_ok(d < 1e-13, "%s, %s, p = %d: the Jacobian of the %s workers = the OpenCL kernel's (%.1e)",
           m->topo->plural, names[g], p, g == 0 ? "CPU and OpenCL" : "CPU", d);
    if (g == 1)
      for (int where = FEMINT_WHERE_CPU; where <= FEMINT_WHERE_OPENCL;
           where += FEMINT_WHERE_OPENCL - FEMINT_WHERE_CPU) {
        jacobian_times(ctx, s, f, where, 1, vu, va, v, w);
        d = tap_reldiff(w, Jv, (size_t)n);
        tap_ok(d < 1e-5, "%s, elasticity: the Jacobian in single precision, %s (%.1e)",
               m->topo->plural, where == FEMINT_WHERE_CPU ? "CPU" : "OpenCL", d);
      }
    const double h = 1e-6;
    for (int sign = 1; sign >= -1; sign -= 2) {
      for (int64_t i = 0; i < n; i++) w[i] = u[i] + sign * h * v[i];
      TAP_CALL(ctx, femint_vector_set_values(vu, w));
      TAP_CALL(ctx, femint_operator_residual(op, 0, vu, va, vF));
      TAP_CALL(ctx, femint_vector_get_values(vF, sign > 0 ? Fp : Fm));
    }
    for (int64_t i = 0; i < n; i++) Fp[i] = (Fp[i] - Fm[i]) / (2 * h);
    d = tap_reldiff(Jv, Fp, (size_t)n);
    tap_ok(d < 1e-7, "%s, %s: the Jacobian from g0..g3 times v = central differences of the "
           "residual (%.1e)", m->topo->plural, names[g], d);
    if (g == 0) { /* linear in u: J is the Laplacian with the coefficient field */
      femint_matrix_t J2;
      TAP_CALL(ctx, femint_operator_jacobian(op, 0, vu, va, &J2));
      femint_matrix_mult(J2, v, w);
      const double d2 = tap_reldiff(w, Jv, (size_t)n);
      tap_ok(d2 == 0, "%s, poisson: the Jacobian at another u is the same (linear), bit for bit",
             m->topo->plural);
      /* the third on a device: its values in memory the context lends */
      femint_matrix_t J3;
      TAP_CALL(ctx, femint_operator_jacobian(op, 0, vu, va, &J3));
      const double *v2, *v3;
      int64_t nr;
      const int64_t *rp;
      TAP_CALL(ctx, femint_matrix_csr(J2, &nr, &rp, NULL, &v2));
      TAP_CALL(ctx, femint_matrix_csr(J3, NULL, NULL, NULL, &v3));
      tap_ok(!memcmp(v2, v3, (size_t)rp[nr] * sizeof *v2),
             "%s, poisson: a third Jacobian, the same bits", m->topo->plural);
      /* the CPU workers' sums in blocks where their chunks are several (FEMINT_SUM_BLOCK = 100:
       * 16 blocks from 1600 values, no more than the chunks; a task each, as their chunks end) */
      double *w1 = malloc(n * sizeof *w1);
      jacobian_times(ctx, s, f, FEMINT_WHERE_CPU, 0, vu, va, v, w1);
      setenv("FEMINT_SUM_BLOCK", "100", 1);
      jacobian_times(ctx, s, f, FEMINT_WHERE_CPU, 0, vu, va, v, w);
      unsetenv("FEMINT_SUM_BLOCK");
      tap_ok(!memcmp(w, w1, (size_t)n * sizeof *w),
             "%s, poisson: the CPU workers' Jacobian summed in blocks (FEMINT_SUM_BLOCK = 100), "
             "the same bits",
             m->topo->plural);
      free(w1);
      femint_matrix_destroy(&J3);
      femint_matrix_destroy(&J2);
    }
    femint_matrix_destroy(&J);
    femint_vector_destroy(&vu);
    femint_vector_destroy(&vF);
    femint_vector_destroy(&va);
    femint_operator_destroy(&op);
    femint_form_destroy(&f);
    femint_space_destroy(&s);
    femint_space_destroy(&sa);
    free(u), free(v), free(w), free(Jv), free(Fp), free(Fm);
  }
}

/* Compiled -laplace u (f1 = grad u) and its g3, for a form whose source has no g0..g3. */
static void lap_f1(int dim, const double *u, const double *du, const double *a, const double *da,
                   const double *x, const double *k, double *f)
{
  (void)u, (void)a, (void)da, (void)x, (void)k;
  for (int d = 0; d < dim; d++) f[d] = du[d];
}
static void lap_g3(int dim, const double *u, const double *du, const double *a, const double *da,
                   const double *x, const double *k, double *g)
{
  (void)u, (void)du, (void)a, (void)da, (void)x, (void)k;
  for (int d = 0; d < dim * dim; d++) g[d] = d % (dim + 1) == 0 ? 1 : 0;
}

/* An operator of no cells: F = 0 and a Jacobian of no entries. Compiled g0..g3 beside a source
 * without them: the CPU workers assemble the Jacobian (every kind of worker: the same), an
 * operator for OpenCL workers alone has none that can (FEMINT_ENODEV, named). */
static void check_edges(femint_context_t ctx, femint_mesh_t m)
{
  femint_space_t s;
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, NULL, 1, &s));
  const int64_t n = femint_space_num_dofs(s);
  double *u = malloc(n * sizeof *u), *y = malloc(n * sizeof *y), *z = malloc(n * sizeof *z);
  unsigned st = 7;
  for (int64_t i = 0; i < n; i++) u[i] = urand(&st);
  static const char text[] =
      "FEMINT_POINTWISE void f1(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
      "                         const REAL *da, const REAL *x, const REAL *k, REAL *f)\n"
      "{\n  for (int d = 0; d < dim; d++) f[d] = du[d];\n}\n";
  struct femint_pointwise pw = {.source = text, .name = "laplace.c", .ncomp = 1, .f1 = lap_f1,
                                .g = {NULL, NULL, NULL, lap_g3}};
  femint_form_t f;
  TAP_CALL(ctx, femint_form_create_pointwise(ctx, &pw, &f));
  femint_vector_t vu, vF;
  TAP_CALL(ctx, femint_vector_create(s, &vu));
  TAP_CALL(ctx, femint_vector_create(s, &vF));
  TAP_CALL(ctx, femint_vector_set_values(vu, u));
  int none = 0;
  struct femint_operator_options o = {.cells = &none, .ncells = 0};
  femint_operator_t op;
  femint_matrix_t J;
  TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, &o, &op));
  TAP_CALL(ctx, femint_operator_residual(op, 0, vu, NULL, vF));
  TAP_CALL(ctx, femint_vector_get_values(vF, y));
  TAP_CALL(ctx, femint_operator_jacobian(op, 0, vu, NULL, &J));
  femint_matrix_mult(J, u, z);
  double big = 0;
  for (int64_t i = 0; i < n; i++) big = fmax(big, fabs(y[i]) + fabs(z[i]));
  tap_ok(big == 0, "%s, no cells: F = 0 and J = 0", m->topo->plural);
  femint_matrix_destroy(&J);
  femint_operator_destroy(&op);
  for (int where = FEMINT_WHERE_ANY; where <= FEMINT_WHERE_CPU; where++) {
    o = (struct femint_operator_options){.where = where};
    TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, &o, &op));
    TAP_CALL(ctx, femint_operator_jacobian(op, 0, vu, NULL, &J));
    femint_matrix_mult(J, u, where == FEMINT_WHERE_ANY ? y : z);
    femint_matrix_destroy(&J);
    femint_operator_destroy(&op);
  }
  double norm = 0;
  for (int64_t i = 0; i < n; i++) norm += z[i] * z[i];
  tap_ok(norm > 0 && tap_reldiff(y, z, (size_t)n) == 0,
         "%s, compiled g3 beside a source without g0..g3: every worker's Jacobian is the CPU's",
         m->topo->plural);
  o = (struct femint_operator_options){.where = FEMINT_WHERE_OPENCL};
  if (femint_operator_create(ctx, s, 1, &f, &o, &op) == 0) {
    const int rc = femint_operator_jacobian(op, 0, vu, NULL, &J);
    tap_ok(rc == FEMINT_ENODEV && !J && strstr(femint_last_error(ctx), "Jacobian of laplace.c"),
           "%s, OpenCL workers alone and g0..g3 compiled only: %s", m->topo->plural,
           femint_last_error(ctx));
    femint_operator_destroy(&op);
  } else {
    tap_diag("no OpenCL worker: the operator for OpenCL workers alone is not made");
  }
  femint_vector_destroy(&vu);
  femint_vector_destroy(&vF);
  femint_form_destroy(&f);
  femint_space_destroy(&s);
  free(u), free(y), free(z);
}

/* Lagrange hexahedra take the same verbs: -laplace u is A u, its Jacobian is A. */
static void check_hex(femint_context_t ctx, int order)
{
  femint_mesh_t m;
  femint_space_t s;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, 3, 2, 2, 1, 1, 1, 0.2, 1, &m));
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, NULL, order, &s));
  const double one = 1;
  femint_form_t lap, pwf;
  TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, 1, &one, &lap));
  struct femint_pointwise pw = {.source = femint_pointwise_gallery("poisson"), .ncomp = 1};
  TAP_CALL(ctx, femint_form_create_pointwise(ctx, &pw, &pwf));
  femint_matrix_t A, J;
  TAP_CALL(ctx, test_assemble(ctx, s, 1, &lap, NULL, &A, NULL));
  femint_operator_t op;
  TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &pwf, NULL, &op));
  const int64_t n = femint_space_num_dofs(s);
  double *u = malloc(n * sizeof *u), *Au = malloc(n * sizeof *Au), *F = malloc(n * sizeof *F);
  unsigned st = 3;
  for (int64_t i = 0; i < n; i++) u[i] = urand(&st) - 0.5;
  femint_matrix_mult(A, u, Au);
  femint_vector_t vu, vF;
  TAP_CALL(ctx, femint_vector_create(s, &vu));
  TAP_CALL(ctx, femint_vector_create(s, &vF));
  residual_at(ctx, op, u, vu, vF, F);
  const double dr = tap_reldiff(F, Au, (size_t)n);
  TAP_CALL(ctx, femint_operator_jacobian(op, 0, vu, NULL, &J));
  femint_matrix_mult(J, u, F);
  const double dj = tap_reldiff(F, Au, (size_t)n);
  tap_ok(dr < 1e-12 && dj < 1e-12,
         "hexahedra, p = %d: the residual of -laplace u is A u (%.1e), its Jacobian A (%.1e)",
         order, dr, dj);
  free(u), free(Au), free(F);
  femint_vector_destroy(&vu);
  femint_vector_destroy(&vF);
  femint_matrix_destroy(&A);
  femint_matrix_destroy(&J);
  femint_operator_destroy(&op);
  femint_form_destroy(&lap);
  femint_form_destroy(&pwf);
  femint_space_destroy(&s);
  femint_mesh_destroy(&m);
}

int main(void)
{
  test_fresh_dmda("t415");
  test_private_cache();
  femint_context_t ctx = test_init();
  for (int shape = FEMINT_TET; shape <= FEMINT_TRI; shape += FEMINT_TRI - FEMINT_TET) {
    femint_mesh_t m;
    const int dim = shape == FEMINT_TRI ? 2 : 3;
    TAP_CALL(ctx, femint_mesh_create_box(ctx, shape, 3, 2, dim == 3 ? 2 : 1, 1.5, 1, 0.8, 0.3, 3, &m));
    for (int p = 1; p <= LAGRANGE_MAX_ORDER; p++)
      for (int kase = 0; kase < NCASE; kase++) check_case(ctx, m, p, kase);
    check_linear(ctx, m);
    check_jacobian(ctx, m);
    check_edges(ctx, m);
    femint_mesh_destroy(&m);
    /* curved cells keep their geometry per point (straight ones once per cell) */
    TAP_CALL(ctx, femint_mesh_create_box(ctx, shape, 3, 2, dim == 3 ? 2 : 1, 1.5, 1, 0.8, 0.3, 3, &m));
    TAP_CALL(ctx, femint_mesh_warp(m, 0.05));
    for (int kase = 0; kase < NCASE; kase++) check_case(ctx, m, 2, kase);
    check_jacobian(ctx, m);
    femint_mesh_destroy(&m);
  }
  for (int order = 1; order <= 2; order++) check_hex(ctx, order);
  femint_finalize(&ctx);
  test_fresh_dmda_remove();
  return tap_done();
}
