/* Test: the matrix-free verbs and the residual split over two OpenCL devices (PoCL's CPU device twice,
 * femint_operator_options.devices = 2; each device owns a range of the DOFs; each cell that
 * touches it is applied there or, applied by the other device, its element vector's values at
 * the range come from there; the ghosts exchanged through main memory) give the results of one device:
 * femint_operator_apply and femint_operator_apply_vector the same bits (each DOF's places summed
 * in plan order by its owner), the diagonal the same bits, CG the same iterations and the
 * solution to rounding (the dot products are summed per device); for BP5 (Laplace on the
 * Gauss-Lobatto nodes, boundary DOFs removed) with and without Jacobi, the mass (BP1) and
 * elasticity (3 components); both devices run apply tasks; with the CPU workers beside them
 * (which dmda may give every task) the results to rounding; a solve and an application again on the same operator reuse the
 * split; an operator over a subset of the cells too; each cell applied once where that moves
 * fewer values (BP5 at p = 4 and elasticity at p = 3 on a tall box), every part's cells in
 * single precision (the element vectors of floats are not exchanged) and with 4 components
 * (more than the loaded values' sum takes), the bits of one device each way; the residual of pointwise forms on
 * tetrahedra (an auxiliary field, 3 components) the bits of one device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "scheduler/operator.h"

/* An operator of form f with devices k (where OpenCL unless any is set). */
static femint_operator_t make_op(femint_context_t ctx, femint_space_t s, femint_form_t f, int k,
                                 int any, int rule, const int *cells, int ncells)
{
  const struct femint_operator_options o = {.where = any ? FEMINT_WHERE_ANY : FEMINT_WHERE_OPENCL,
                                            .devices = k, .apply_rule = rule, .cells = cells,
                                            .ncells = ncells};
  femint_operator_t op;
  TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, &o, &op));
  return op;
}

static double reldiff(const double *a, const double *b, int64_t n)
{
  double d = 0, m = 0;
  for (int64_t i = 0; i < n; i++) {
    d = fmax(d, fabs(a[i] - b[i]));
    m = fmax(m, fabs(a[i]));
  }
  return m > 0 ? d / m : d;
}

/* Form f on space s (ncell cells) applied on 2 devices gives the bits of 1 device; once: each
 * cell applied by one device (else every device applies all the cells that touch its DOFs). */
static void compare_cells(femint_context_t ctx, const char *name, femint_space_t s,
                          femint_form_t f, int64_t ncell, int once)
{
  const int64_t n = femint_space_num_dofs(s);
  femint_operator_t one = make_op(ctx, s, f, 1, 0, 0, NULL, 0);
  femint_operator_t two = make_op(ctx, s, f, 2, 0, 0, NULL, 0);
  double *x = malloc(n * sizeof *x), *y1 = malloc(n * sizeof *y1), *y2 = malloc(n * sizeof *y2);
  for (int64_t i = 0; i < n; i++) x[i] = drand48() - 0.5;
  TAP_CALL(ctx, femint_operator_apply(one, 0, x, y1, NULL));
  TAP_CALL(ctx, femint_operator_apply(two, 0, x, y2, NULL));
  int64_t applied, moved, ghosts;
  apply_split_traffic(two->split, &applied, &moved, &ghosts);
  tap_ok(memcmp(y1, y2, n * sizeof *y1) == 0 && (once ? applied == ncell : applied > ncell),
         "%s on 2 devices: the bits of 1 device, %s (%lld cells applied, %lld values cross the "
         "bus, %lld ghosts)",
         name, once ? "each cell applied once" : "every device applies all its cells",
         (long long)applied, (long long)moved, (long long)ghosts);
  femint_operator_destroy(&one);
  femint_operator_destroy(&two);
  free(x);
  free(y1);
  free(y2);
}

/* The OpenCL workers that ran apply tasks in st. */
static int devices_busy(const struct femint_stats *st)
{
  int n = 0;
  for (int w = 0; w < st->nworker; w++) n += st->worker_is_opencl[w] && st->worker_tasks_integrate[w] > 0;
  return n;
}

/* The apply tasks in st. */
static int apply_tasks(const struct femint_stats *st)
{
  int n = 0;
  for (int w = 0; w < st->nworker; w++) n += st->worker_tasks_integrate[w];
  return n;
}

/* y = A x on one and two devices (and again on two), the vector verb and the diagonal: the same
 * bits (to rounding with the CPU workers too); a CG solve on both. */
static void compare(femint_context_t ctx, const char *name, femint_space_t s, femint_form_t f,
                    int rule, int any, const int *cells, int ncells, int jacobi)
{
  const int64_t n = femint_space_num_dofs(s);
  femint_operator_t one = make_op(ctx, s, f, 1, 0, rule, cells, ncells);
  femint_operator_t two = make_op(ctx, s, f, 2, any, rule, cells, ncells);
  double *x = malloc(n * sizeof *x), *y1 = malloc(n * sizeof *y1), *y2 = malloc(n * sizeof *y2);
  double *y3 = malloc(n * sizeof *y3);
  for (int64_t i = 0; i < n; i++) x[i] = drand48() - 0.5;
  struct femint_stats st;
  TAP_CALL(ctx, femint_operator_apply(one, 0, x, y1, NULL));
  TAP_CALL(ctx, femint_operator_apply(two, 0, x, y2, &st));
  TAP_CALL(ctx, femint_operator_apply(two, 0, x, y3, NULL));
  const double tol = any ? 1e-13 : 0;
  const double dapply = fmax(reldiff(y1, y2, n), reldiff(y1, y3, n));
  tap_ok(dapply <= tol && (any || devices_busy(&st) == 2),
         "%s: apply on 2 devices%s gives y of 1 device (difference %.2g), twice; devices with "
         "apply tasks: %d",
         name, any ? " and the CPU workers" : "", dapply, devices_busy(&st));
  femint_vector_t vx, vy;
  TAP_CALL(ctx, femint_vector_create(s, &vx));
  TAP_CALL(ctx, femint_vector_create(s, &vy));
  TAP_CALL(ctx, femint_vector_set_values(vx, x));
  TAP_CALL(ctx, femint_operator_apply_vector(two, 0, vx, vy, NULL));
  TAP_CALL(ctx, femint_vector_get_values(vy, y2));
  tap_ok(reldiff(y1, y2, n) <= tol, "%s: apply_vector on 2 devices gives y of 1 device", name);
  TAP_CALL(ctx, femint_operator_diagonal(one, 0, vy));
  TAP_CALL(ctx, femint_vector_get_values(vy, y1));
  TAP_CALL(ctx, femint_operator_diagonal(two, 0, vy));
  TAP_CALL(ctx, femint_vector_get_values(vy, y2));
  /* (with the CPU workers the host makes the quadrature data, the device alone makes them
   * itself: the same to rounding) */
  const double ddiag = reldiff(y1, y2, n);
  tap_ok(ddiag <= tol, "%s: the diagonal on 2 devices is that of 1 (difference %.2g)", name, ddiag);
  /* CG from a nonzero guess, twice on the split operator (the second reuses it) */
  const struct femint_cg_options o = {.rtol = 1e-10, .jacobi = jacobi};
  struct femint_cg_result r1, r2, r3;
  for (int64_t i = 0; i < n; i++) y1[i] = y2[i] = y3[i] = 0.01 * x[(i * 7) % n];
  TAP_CALL(ctx, femint_vector_set_values(vx, x));
  TAP_CALL(ctx, femint_vector_set_values(vy, y1));
  TAP_CALL(ctx, femint_operator_cg(one, 0, vx, vy, &o, &r1));
  TAP_CALL(ctx, femint_vector_get_values(vy, y1));
  for (int k = 0; k < 2; k++) {
    TAP_CALL(ctx, femint_vector_set_values(vy, y3));
    TAP_CALL(ctx, femint_operator_cg(two, 0, vx, vy, &o, k ? &r3 : &r2));
  }
  TAP_CALL(ctx, femint_vector_get_values(vy, y2));
  /* the true residual of the split's solution, by the one-device operator */
  TAP_CALL(ctx, femint_operator_apply(one, 0, y2, y3, NULL));
  double rr = 0, bb = 0;
  for (int64_t i = 0; i < n; i++) {
    rr += (x[i] - y3[i]) * (x[i] - y3[i]);
    bb += x[i] * x[i];
  }
  const double dsol = reldiff(y1, y2, n), rel = sqrt(rr / bb);
  tap_ok(r1.converged && r2.converged && abs(r1.iterations - r2.iterations) <= 1 &&
             (any || (r2.iterations == r3.iterations && r2.rnorm == r3.rnorm)) && dsol < 1e-8 &&
             rel < 2e-10 && r2.tasks_opencl > 0,
         "%s: CG%s on 2 devices: %d iterations (1 device %d), the solution of 1 device to %.2g, "
         "|b - A x| / |b| = %.2g, tasks %d CPU + %d OpenCL; the same again",
         name, jacobi ? " with Jacobi" : "", r2.iterations, r1.iterations, dsol, rel, r2.tasks_cpu,
         r2.tasks_opencl);
  femint_vector_destroy(&vx);
  femint_vector_destroy(&vy);
  femint_operator_destroy(&one);
  femint_operator_destroy(&two);
  free(x);
  free(y1);
  free(y2);
  free(y3);
}

/* The residual of a gallery form on tetrahedra of order p on one and two devices (OpenCL
 * workers, the same kernels): the same bits (each DOF's places summed in plan order by its
 * owner), twice. */
static void check_residual(femint_context_t ctx, femint_mesh_t m, int p, const char *name,
                           int field)
{
  const int nc = strcmp(name, "elasticity") == 0 ? 3 : 1;
  femint_space_t s, sa = NULL;
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, nc, NULL, p, &s));
  if (field) TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, NULL, p, &sa));
  const double k[2] = {0.8, 1.3};
  struct femint_pointwise pw = {.source = femint_pointwise_gallery(name), .name = name,
                                .ncomp = nc, .aux = field ? FEMINT_AUX_FIELD : FEMINT_AUX_NONE,
                                .naux = field, .nconst = nc == 3 ? 2 : 1, .constants = k};
  femint_form_t f;
  TAP_CALL(ctx, femint_form_create_pointwise(ctx, &pw, &f));
  const int64_t n = femint_space_num_dofs(s);
  double *u = malloc(n * sizeof *u), *F[3];
  for (int64_t i = 0; i < n; i++) u[i] = drand48() - 0.5;
  femint_vector_t vu, vF, va = NULL;
  TAP_CALL(ctx, femint_vector_create(s, &vu));
  TAP_CALL(ctx, femint_vector_create(s, &vF));
  TAP_CALL(ctx, femint_vector_set_values(vu, u));
  if (sa) {
    const int64_t na = femint_space_num_dofs(sa);
    double *a = malloc(na * sizeof *a);
    for (int64_t i = 0; i < na; i++) a[i] = 1 + drand48();
    TAP_CALL(ctx, femint_vector_create(sa, &va));
    TAP_CALL(ctx, femint_vector_set_values(va, a));
    free(a);
  }
  for (int run = 0; run < 3; run++) {
    femint_operator_t op = make_op(ctx, s, f, run ? 2 : 1, 0, 0, NULL, 0);
    F[run] = malloc(n * sizeof *F[run]);
    TAP_CALL(ctx, femint_operator_residual(op, 0, vu, va, vF));
    TAP_CALL(ctx, femint_vector_get_values(vF, F[run]));
    femint_operator_destroy(&op);
  }
  double norm = 0;
  for (int64_t i = 0; i < n; i++) norm += F[0][i] * F[0][i];
  tap_ok(norm > 0 && memcmp(F[0], F[1], n * sizeof *F[0]) == 0 &&
             memcmp(F[0], F[2], n * sizeof *F[0]) == 0,
         "residual of %s%s, tetrahedra of order %d: 2 devices give the bits of 1 device, twice",
         name, field ? " (aux field)" : "", p);
  for (int run = 0; run < 3; run++) free(F[run]);
  free(u);
  femint_vector_destroy(&vu);
  femint_vector_destroy(&vF);
  femint_vector_destroy(&va);
  femint_form_destroy(&f);
  femint_space_destroy(&s);
  femint_space_destroy(&sa);
}

int main(void)
{
  femint_context_t ctx = test_init_two_devices();
  srand48(5);
  femint_mesh_t m;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, 5, 4, 3, 1.2, 1.0, 0.8, 0.2, 11, &m));
  femint_space_t s1, s3;
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, NULL, 3, &s1));
  TAP_CALL(ctx, femint_space_remove_boundary_dofs(s1, 0, NULL));
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 3, NULL, 2, &s3));
  TAP_CALL(ctx, femint_space_remove_boundary_dofs(s3, 0, NULL));
  const double one = 1.0, E = 2.0, nu = 0.3;
  femint_form_t lap, mass, el;
  TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, 1, &one, &lap));
  TAP_CALL(ctx, femint_form_create_mass(ctx, 1, 1, &one, &mass));
  TAP_CALL(ctx, femint_form_create_elasticity(ctx, 1, &E, &nu, &el));
  compare(ctx, "BP5, p = 3", s1, lap, 1, 0, NULL, 0, 0);
  compare(ctx, "BP5, p = 3", s1, lap, 1, 0, NULL, 0, 1);
  compare(ctx, "BP3, p = 3, 2 devices and the CPU workers", s1, lap, 0, 1, NULL, 0, 1);
  compare(ctx, "BP1, p = 3", s1, mass, 0, 0, NULL, 0, 0);
  compare(ctx, "elasticity, p = 2", s3, el, 0, 0, NULL, 0, 1);
  /* a subset of the cells: the mass on the first 40 (SPD on the DOFs they touch, whose other
   * rows are zero: a solve is not asked) */
  int cells[40];
  for (int i = 0; i < 40; i++) cells[i] = 59 - i;
  femint_operator_t a = make_op(ctx, s1, mass, 1, 0, 0, cells, 40);
  femint_operator_t b = make_op(ctx, s1, mass, 2, 0, 0, cells, 40);
  const int64_t n = femint_space_num_dofs(s1);
  double *x = malloc(n * sizeof *x), *ya = malloc(n * sizeof *ya), *yb = malloc(n * sizeof *yb);
  for (int64_t i = 0; i < n; i++) x[i] = drand48();
  struct femint_stats st;
  TAP_CALL(ctx, femint_operator_apply(a, 0, x, ya, NULL));
  TAP_CALL(ctx, femint_operator_apply(b, 0, x, yb, &st));
  tap_ok(memcmp(ya, yb, n * sizeof *ya) == 0 && devices_busy(&st) == 2,
         "40 of the 60 cells: apply on 2 devices gives y of 1 device, devices busy %d",
         devices_busy(&st));
  femint_operator_destroy(&a);
  femint_operator_destroy(&b);
  free(x);
  free(ya);
  free(yb);
  /* a box of 8 layers: each device's range a slab, whose cells that read no ghost are applied
   * in chunks of their own while the ghosts come (a chunk each side at least: 4 apply tasks) */
  femint_mesh_t tall;
  femint_space_t s2;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, 3, 3, 8, 1.0, 1.0, 2.0, 0.2, 7, &tall));
  TAP_CALL(ctx, femint_space_create(ctx, tall, FEMINT_H1, 1, NULL, 2, &s2));
  TAP_CALL(ctx, femint_space_remove_boundary_dofs(s2, 0, NULL));
  compare(ctx, "BP5, p = 2, 3 x 3 x 8 cells", s2, lap, 1, 0, NULL, 0, 1);
  const int64_t n2 = femint_space_num_dofs(s2);
  double *x2 = calloc(n2, sizeof *x2), *y2 = calloc(n2, sizeof *y2);
  femint_operator_t sl = make_op(ctx, s2, lap, 2, 0, 1, NULL, 0);
  TAP_CALL(ctx, femint_operator_apply(sl, 0, x2, y2, &st));
  tap_ok(apply_tasks(&st) >= 4 && devices_busy(&st) == 2,
         "3 x 3 x 8 cells on 2 devices: the cells that read ghosts apart, %d apply tasks",
         apply_tasks(&st));
  femint_operator_destroy(&sl);
  /* at p = 4 each cell is applied by one device: about a plane of x crosses the bus one way and
   * of the element vectors the other, not the p planes of ghosts of a layer applied by both (on
   * 3 x 3 cells a slab's edges weigh: 1.7 times fewer values; 3.5 on 12^3 cells at p = 7) */
  femint_space_t s4;
  TAP_CALL(ctx, femint_space_create(ctx, tall, FEMINT_H1, 1, NULL, 4, &s4));
  TAP_CALL(ctx, femint_space_remove_boundary_dofs(s4, 0, NULL));
  compare(ctx, "BP5, p = 4, 3 x 3 x 8 cells", s4, lap, 1, 0, NULL, 0, 0);
  const int64_t n4 = femint_space_num_dofs(s4);
  double *x4 = calloc(n4, sizeof *x4), *y4 = calloc(n4, sizeof *y4);
  sl = make_op(ctx, s4, lap, 2, 0, 1, NULL, 0);
  TAP_CALL(ctx, femint_operator_apply(sl, 0, x4, y4, NULL));
  int64_t applied, moved, ghosts;
  apply_split_traffic(sl->split, &applied, &moved, &ghosts);
  tap_ok(applied == 72 && moved < ghosts,
         "3 x 3 x 8 cells, p = 4, on 2 devices: each of the 72 cells applied once (%lld), %lld "
         "values cross the bus per application (%lld ghosts)",
         (long long)applied, (long long)moved, (long long)ghosts);
  femint_operator_destroy(&sl);
  free(x4);
  free(y4);
  femint_space_destroy(&s4);
  /* elasticity (3 components) with each cell applied once; 4 components of Laplace, more than
   * the loaded chunks' sum in place order takes: every device applies all its cells */
  femint_form_t lap4;
  TAP_CALL(ctx, femint_form_create_laplace(ctx, 4, 1, &one, &lap4));
  for (int nc = 3; nc <= 4; nc++) {
    femint_space_t sv;
    TAP_CALL(ctx, femint_space_create(ctx, tall, FEMINT_H1, nc, NULL, nc == 3 ? 3 : 4, &sv));
    TAP_CALL(ctx, femint_space_remove_boundary_dofs(sv, 0, NULL));
    compare_cells(ctx, nc == 3 ? "elasticity, p = 3, 3 x 3 x 8 cells"
                               : "Laplace of 4 components, p = 4, 3 x 3 x 8 cells",
                  sv, nc == 3 ? el : lap4, 72, nc == 3);
    femint_space_destroy(&sv);
  }
  femint_form_destroy(&lap4);
  /* in single precision (element vectors of floats) every part applies all its cells */
  {
    const struct femint_operator_options o1 = {.where = FEMINT_WHERE_OPENCL, .devices = 1,
                                               .apply_rule = 1, .precision = FEMINT_SINGLE};
    struct femint_operator_options o2 = o1;
    o2.devices = 2;
    femint_operator_t f1, f2;
    TAP_CALL(ctx, femint_operator_create(ctx, s2, 1, &lap, &o1, &f1));
    TAP_CALL(ctx, femint_operator_create(ctx, s2, 1, &lap, &o2, &f2));
    double *y3 = calloc(n2, sizeof *y3);
    for (int64_t i = 0; i < n2; i++) x2[i] = drand48() - 0.5;
    TAP_CALL(ctx, femint_operator_apply(f1, 0, x2, y2, NULL));
    TAP_CALL(ctx, femint_operator_apply(f2, 0, x2, y3, NULL));
    apply_split_traffic(f2->split, &applied, &moved, &ghosts);
    tap_ok(memcmp(y2, y3, n2 * sizeof *y2) == 0 && applied > 72 && moved == ghosts,
           "3 x 3 x 8 cells, single precision, on 2 devices: the bits of 1 device, every part "
           "applies all its cells (%lld), its ghosts cross the bus (%lld values)",
           (long long)applied, (long long)moved);
    free(y3);
    femint_operator_destroy(&f1);
    femint_operator_destroy(&f2);
  }
  free(x2);
  free(y2);
  femint_space_destroy(&s2);
  femint_mesh_destroy(&tall);
  femint_mesh_t tets;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_TET, 4, 3, 3, 1, 1, 1, 0.2, 5, &tets));
  check_residual(ctx, tets, 2, "poisson", 1);
  check_residual(ctx, tets, 1, "elasticity", 0);
  femint_mesh_destroy(&tets);
  femint_form_destroy(&lap);
  femint_form_destroy(&mass);
  femint_form_destroy(&el);
  femint_space_destroy(&s1);
  femint_space_destroy(&s3);
  femint_mesh_destroy(&m);
  femint_finalize(&ctx);
  return tap_done();
}
