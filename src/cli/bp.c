/* femint bp: the CEED bake-off problems on hexahedra (seed 001), matrix-free: for each order,
 * the DOFs, the first application (which computes the quadrature data and builds the OpenCL
 * programs), the median application on vectors that stay where the tasks run, and the median
 * conjugate gradient solve (DOFs x iterations per second, the bake-off's metric). */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* bp1: scalar mass, bp2: 3-component mass, bp3: scalar Laplace, bp4: 3-component Laplace, on
 * p + 2 Gauss points per direction; bp5, bp6: bp3 and bp4 on the p + 1 Gauss-Lobatto nodes;
 * elasticity: 3D linear elasticity (E = 1, nu = 0.3) on the Gauss points, clamped. */
static const char *const bp_names[] = {"bp1", "bp2", "bp3", "bp4",
                                       "bp5", "bp6", "elasticity", NULL};
/* the same measured by the element kernel alone (--kernel-only) */
static const char *const bk_names[] = {"bk1", "bk2", "bk3", "bk4",
                                       "bk5", "bk6", "elasticity-kernel"};
enum { BP_ELASTICITY = 6 };
static int bp_ncomp(int problem) { return problem == BP_ELASTICITY || problem % 2 ? 3 : 1; }
static int bp_lobatto(int problem) { return problem == 4 || problem == 5; }
static const char *const geometry_names[] = {"stored", "vertices", NULL};
static const char *const precision_names[] = {"double", "single", NULL};

struct bp_options {
  int problem, where, json, verbose, jacobi, geometry, kernel_only, single;
  struct cli_orders orders;
  struct cli_mesh mesh;
  long runs, solves, iterations, devices;
  double rtol, dofs;
  const char *csv, *plot, *timeline;
  char *timeline_csv;            /* --timeline's FILE.csv */
};

/* The problem's name as measured: bpN, or bkN for the kernel alone. */
static const char *bp_label(const struct bp_options *o)
{
  return o->kernel_only ? bk_names[o->problem] : bp_names[o->problem];
}

#define F(member) offsetof(struct bp_options, member)
static const struct cli_option options[] = {
  {CLI_OPT("--problem", CLI_CHOICE, F(problem),
           "bp1 (mass), bp2 (mass, 3 components), bp3 (Laplace), bp4 (Laplace, 3 components), on "
           "p + 2 Gauss points per direction; bp5, bp6: bp3 and bp4 on the p + 1 Gauss-Lobatto "
           "nodes (default bp3); elasticity: linear elasticity (E = 1, nu = 0.3) on the Gauss "
           "points. The boundary DOFs of the Laplacian and elasticity are removed (Dirichlet)",
           NULL), .choices = bp_names},
  {CLI_OPT("--order", CLI_ORDERS, F(orders),
           "orders 1..10, a list of P and P1-P2, each measured on its own (default 1-6)",
           "P|P1-P2|P1,P2,...")},
  {CLI_OPT("--mesh", CLI_MESH, F(mesh),
           "box:NX,NY,NZ, the unit cube in NX*NY*NZ hexahedra, interior vertices moved by up to "
           "0.2 times the spacing (default box:8,8,8)",
           "box:NX,NY,NZ")},
  {CLI_OPT("--dofs", CLI_REAL, F(dofs),
           "instead of --mesh, a box of n^3 cells for each order p, n the nearest integer to "
           "N^(1/3) / p: about N DOFs at every order (at least 1 cell)",
           "N"), .lo = 1, .hi = 1e10},
  {CLI_OPT("--where", CLI_CHOICE, F(where),
           "the workers of the apply tasks: any, cpu or opencl (default any)", NULL),
   .choices = cli_where_names},
  {CLI_OPT("--devices", CLI_INT, F(devices), CLI_DEVICES_HELP, "N"), .min = 0, .max = 64},
  {CLI_OPT("--runs", CLI_INT, F(runs),
           "applications after the first; the median counts (default 5)", "N"), .min = 1,
   .max = 1000},
  {CLI_OPT("--solves", CLI_INT, F(solves),
           "conjugate gradient solves; the median counts (default 3; 0: none)", "N"), .min = 0,
   .max = 100},
  {CLI_OPT("--rtol", CLI_REAL, F(rtol),
           "the solves stop at |r| <= RTOL |b| (default 1e-8)", "RTOL"), .lo = 0, .hi = 1,
   .flags = CLI_LO_OPEN | CLI_HI_OPEN},
  {CLI_OPT("--iterations", CLI_INT, F(iterations),
           "each solve does exactly N iterations instead (0: to --rtol)", "N"), .min = 0,
   .max = 100000},
  {CLI_OPT("--jacobi", CLI_FLAG, F(jacobi), "precondition by the operator's diagonal", NULL)},
  {CLI_OPT("--kernel-only", CLI_FLAG, F(kernel_only),
           "time the element kernel alone (CEED's BK1-BK6: element vectors in and out, no gather "
           "or sum; femint_operator_apply_kernel) in place of the applications, and no solves",
           NULL)},
  {CLI_OPT("--precision", CLI_CHOICE, F(single),
           "double (default), or single: the operator's quadrature data, tables and element "
           "vectors in floats and its OpenCL kernels computing in floats (the vectors and CG stay "
           "double)",
           NULL), .choices = precision_names},
  {CLI_OPT("--geometry", CLI_CHOICE, F(geometry),
           "stored: the quadrature data kept per point (default); vertices: made again at each "
           "point from 26 values per cell (options.apply_geometry)",
           NULL), .choices = geometry_names},
  {CLI_OPT("--json", CLI_FLAG, F(json), "an array of one JSON object per order", NULL)},
  {CLI_OPT("--plot", CLI_PATH, F(plot),
           "also draw FILE.png with gnuplot: the roofline (GFLOP/s against flops per byte, one "
           "point per order, and the measured copy rate's line) and DOFs per second against DOFs",
           "FILE.png")},
  {CLI_OPT("--csv", CLI_PATH, F(csv), "also write a row per order (every field) as CSV, each row "
           "as soon as it is measured", "FILE")},
  {CLI_OPT("--timeline", CLI_PATH, F(timeline),
           "draw the tasks of the last CG solve on each worker as a Gantt chart (gnuplot); the "
           "tasks go to FILE.csv as femint run's (codelet apply, vector_sum, vector_dot, "
           "vector_cg_step, vector_move: the ghosts' packs and loads over several devices)",
           "FILE.png")},
  {CLI_OPT("--verbose", CLI_FLAG, F(verbose), "let StarPU print its own messages", NULL)},
};
static const struct cli_section sections[] = {
    {NULL, options, sizeof options / sizeof options[0], 0}};

const struct cli_command cli_bp_cmd = {
  "bp",
  "the CEED bake-off problems on hexahedra, matrix-free (seed 001): applications and conjugate "
  "gradient solves, DOFs (x iterations) per second",
  "[--problem bp1|...|bp6|elasticity] [--order LIST] [--mesh box:NX,NY,NZ | --dofs N] "
  "[--where W] [--runs N] [--solves N] [--rtol R | --iterations N] [--jacobi] [--precision P] "
  "[--geometry G] [--kernel-only] [--json] [--csv FILE] [--plot FILE.png]",
  "Builds the box of hexahedra, the H1 Lagrange space of each order on Gauss-Lobatto-Legendre "
  "nodes (the boundary DOFs removed but for the mass) and the mass, Laplace or elasticity "
  "operator. Times the "
  "first femint_operator_apply_vector (it computes the quadrature data and builds the OpenCL "
  "programs), the median of --runs later ones on vectors that stay where the tasks run (a "
  "device's memory), and the median of --solves femint_operator_cg solves of A x = b (b the "
  "load of a smooth function, x from zero) to --rtol or for --iterations. Reports DOFs x "
  "applications per second and DOFs x iterations per second of the solves.",
  sections,
  1,
  NULL,
};

/* The right-hand side's function: sin(pi x) sin(pi y) sin(pi z) in every component. */
static void bp_body(const double x[3], const double n[3], int tag, void *user, double *v)
{
  const int nc = *(const int *)user;
  const double pi = 3.14159265358979323846;
  for (int c = 0; c < nc; c++) v[c] = sin(pi * x[0]) * sin(pi * x[1]) * sin(pi * x[2]);
}

struct bp_result {
  int p;
  int64_t ndof;
  double flops; /* of one application (or pass of the kernel alone), by sum factorization */
  double t_first, t_apply, t_busy, t_solve;
  int iterations, converged, tasks_cpu, tasks_opencl;
  double rel_residual; /* |b - A x| / |b| at the end of the last solve */
  double bytes, copy_rate; /* what an application moves at the least; the copy rate of that */
};

/* The bytes an application of order p moves at the least, as femint does it: the quadrature data
 * or geometry and the element vectors written and read by the sum (in the operator's
 * precision), the cells' DOFs, the sum's maps (two per DOF, one per node), x read, y zeroed and
 * written (8 bytes each). */
static double bp_bytes(const struct bp_options *o, int ncell, int p, int64_t ndof)
{
  const int nc = bp_ncomp(o->problem), stiff = o->problem >= 2;
  const double P = p + 1, Q = bp_lobatto(o->problem) ? p + 1 : p + 2;
  const double nodes = (double)ncell * P * P * P;
  const double per_point = o->problem == BP_ELASTICITY ? 11 : stiff ? 6 : 1;
  const double data = o->geometry ? 26.0 * ncell : (double)ncell * Q * Q * Q * per_point;
  const double rs = o->single ? 4 : 8;
  if (o->kernel_only) return rs * (data + 2 * nc * nodes); /* element vectors in and out */
  return rs * (data + 2 * nc * nodes) +
         8 * (nodes + (2.0 * (double)ndof / nc + nodes) + 3.0 * (double)ndof);
}

/* Where the copy rate is measured: the first OpenCL worker's device, or the CPU cores (-1). */
int cli_copy_device(femint_context_t ctx, int where)
{
  int ncpu = 0, nopencl = 0;
  femint_context_workers(ctx, &ncpu, &nopencl, NULL);
  for (int w = 0; where != FEMINT_WHERE_CPU && w < ncpu + nopencl; w++) {
    struct femint_worker_binding b;
    if (femint_context_worker_binding(ctx, w, &b) == 0 && b.kind == FEMINT_WHERE_OPENCL &&
        !b.failed)
      return b.opencl_device;
  }
  return -1;
}

/* The applications of one order on vectors (or, --kernel-only, passes of the element kernel
 * alone): the first, then the median of o->runs. */
static int bp_apply(const struct bp_options *o, femint_operator_t op, femint_vector_t x,
                    femint_vector_t y, struct bp_result *r)
{
  double *t = malloc((size_t)o->runs * sizeof *t), *busy = malloc((size_t)o->runs * sizeof *busy);
  int rc = t && busy ? 0 : FEMINT_ENOMEM;
  for (long k = -1; !rc && k < o->runs; k++) {
    struct femint_stats st;
    const double t0 = cli_now();
    double pass = 0;
    rc = o->kernel_only ? femint_operator_apply_kernel(op, 0, NULL, NULL, 1, &pass, &st)
                        : femint_operator_apply_vector(op, 0, x, y, &st);
    if (k < 0) {
      r->t_first = cli_now() - t0;
      continue;
    }
    t[k] = o->kernel_only ? pass : cli_now() - t0;
    /* the tasks: the busiest worker's time in them */
    busy[k] = 0;
    for (int w = 0; w < st.nworker && w < FEMINT_MAX_WORKERS; w++)
      if (st.worker_busy[w] > busy[k]) busy[k] = st.worker_busy[w];
  }
  if (!rc) {
    r->t_apply = cli_median(t, o->runs);
    r->t_busy = cli_median(busy, o->runs);
  }
  free(t);
  free(busy);
  return rc;
}

/* The solves of one order: the median time of o->solves, the iterations of the last. */
static int bp_solve(const struct bp_options *o, femint_operator_t op, femint_vector_t b,
                    femint_vector_t x, struct bp_result *r)
{
  if (o->solves == 0) return 0;
  double *t = malloc((size_t)o->solves * sizeof *t), *zero = calloc((size_t)r->ndof + 1, sizeof *zero);
  int rc = t && zero ? 0 : FEMINT_ENOMEM;
  const struct femint_cg_options cg = {.rtol = o->rtol, .max_it = (int)o->iterations,
                                       .fixed = o->iterations > 0, .jacobi = o->jacobi};
  for (long k = 0; !rc && k < o->solves; k++) {
    struct femint_cg_result res;
    rc = femint_vector_set_values(x, zero);
    if (!rc) rc = femint_operator_cg(op, 0, b, x, &cg, &res);
    t[k] = res.t_solve;
    r->iterations = res.iterations;
    r->converged = res.converged;
    r->rel_residual = res.bnorm > 0 ? res.rnorm / res.bnorm : res.rnorm;
    r->tasks_cpu = res.tasks_cpu;
    r->tasks_opencl = res.tasks_opencl;
  }
  if (!rc) r->t_solve = cli_median(t, o->solves);
  free(t);
  free(zero);
  return rc;
}

/* The floating-point operations of one application of order p by sum factorization, as the
 * kernels do it (a multiply-add counts 2): per cell and component, the contractions forward
 * and back and the work at the points (elasticity: the three components together). */
static double bp_flops(const struct bp_options *o, int ncell, int p)
{
  const double P = p + 1, Q = bp_lobatto(o->problem) ? P : p + 2;
  double per; /* per cell */
  if (o->problem < 2) { /* the mass: B three times each way */
    per = bp_ncomp(o->problem) * (4 * (P * P * P * Q + P * P * Q * Q + P * Q * Q * Q) + Q * Q * Q);
  } else if (bp_lobatto(o->problem)) { /* collocated: three derivatives each way */
    per = bp_ncomp(o->problem) * (12 * P * P * P * P + 15 * P * P * P);
  } else { /* gradients through B and D: 2, 3 and 3 tables forward, 3, 3 and 2 back */
    const double way = 2 * P * P * P * Q + 3 * P * P * Q * Q + 3 * P * Q * Q * Q;
    per = o->problem == BP_ELASTICITY ? 3 * 4 * way + 123 * Q * Q * Q
                                      : bp_ncomp(o->problem) * (4 * way + 15 * Q * Q * Q);
  }
  return per * ncell;
}

/* --plot: the roofline and the throughput of the orders measured, drawn by gnuplot (a warning
 * and no chart without it). */
static int bp_plot(const struct bp_options *o, const char *what, const struct bp_result *r, int n)
{
  if (!cli_have_gnuplot()) {
    fprintf(stderr, "femint: warning: gnuplot is not on the PATH: no chart '%s'\n", o->plot);
    return 0;
  }
  size_t cap = 4096 + (size_t)n * 200, len = 0;
  char *s = malloc(cap);
  if (!s) return EXIT_RUNTIME;
  double copy = 0, lo = INFINITY, hi = 0;
  cli_append(&s, &len, &cap, "$data << EOD\n");
  for (int k = 0; k < n; k++) {
    const double ai = r[k].flops / r[k].bytes;
    const double rate = r[k].t_solve > 0 ? r[k].ndof * (double)r[k].iterations / r[k].t_solve : 0;
    cli_append(&s, &len, &cap, "%.6g %.6g %d %lld %.6g %.6g\n", ai,
               1e-9 * r[k].flops / r[k].t_apply, r[k].p, (long long)r[k].ndof,
               r[k].ndof / r[k].t_apply, rate);
    copy = fmax(copy, r[k].copy_rate);
    lo = fmin(lo, ai);
    hi = fmax(hi, ai);
  }
  char title[512], text[512];
  snprintf(title, sizeof title, "femint bp: %s", what);
  cli_gnuplot_text(text, sizeof text, title);
  cli_append(&s, &len, &cap, "EOD\n");
  cli_gnuplot_png(&s, &len, &cap, 1400, 600, o->plot);
  cli_append(
      &s, &len, &cap,
      "set multiplot layout 1,2 title \"%s\"\nset logscale xy\nset grid\nset key top left\n"
      "set xrange [%g:%g]\nset xlabel \"arithmetic intensity [flop/byte]\"\n"
      "set ylabel \"GFLOP/s\"\nplot $data using 1:2 with linespoints lw 2 pt 7 title \"%s\", "
      "$data using 1:2:(sprintf(\"p=%%d\", $3)) with labels offset 1.5,0.5 notitle, "
      "%g * x with lines dt 2 lw 2 title \"copy rate %.0f GB/s\"\n"
      "set autoscale x\nset xlabel \"DOFs\"\nset ylabel \"DOFs (x iterations) per second\"\n"
      "plot $data using 4:5 with linespoints lw 2 pt 7 title \"%s DOFs/s\"%s\n"
      "unset multiplot\nset output\n",
      text, lo / 2, hi * 2, bp_label(o), 1e-9 * copy, 1e-9 * copy,
      o->kernel_only ? "kernel alone," : "application,",
      o->kernel_only || o->solves == 0
          ? ""
          : ", $data using 4:6 with linespoints lw 2 pt 5 title \"CG DOF-iterations/s\"");
  const int rc = s ? cli_gnuplot(s) : -1;
  free(s);
  return rc ? EXIT_RUNTIME : 0;
}

/* The CSV columns, and one order's row. */
static const char csv_header[] =
    "problem,geometry,order,cells,dofs,first_s,apply_s,tasks_s,dofs_per_s,solve_s,iterations,"
    "converged,dof_iterations_per_s,solve_tasks_cpu,solve_tasks_opencl,apply_bytes,"
    "apply_bytes_per_s,copy_bytes_per_s,copy_fraction,precision\n";
static void csv_row(FILE *f, const struct bp_options *o, int p, int ncell, const struct bp_result *r,
                    double rate)
{
  fprintf(f, "%s,%s,%d,%d,%lld,%.6g,%.6g,%.6g,%.6g,%.6g,%d,%d,%.6g,%d,%d,%.6g,%.6g,%.6g,%.4f,%s\n",
          bp_label(o), geometry_names[o->geometry], p, ncell, (long long)r->ndof,
          r->t_first, r->t_apply, r->t_busy, r->ndof / r->t_apply, r->t_solve, r->iterations,
          r->converged, rate, r->tasks_cpu, r->tasks_opencl, r->bytes, r->bytes / r->t_apply,
          r->copy_rate, r->bytes / r->t_apply / r->copy_rate, precision_names[o->single]);
  fflush(f);
}

/* The measurements of one order; 0, or a femint error code. */
static int bp_order(femint_context_t ctx, const struct bp_options *o, femint_mesh_t mesh, int p,
                    struct bp_result *r)
{
  const int nc = bp_ncomp(o->problem), stiff = o->problem >= 2;
  const double one = 1, young = 1, poisson = 0.3;
  femint_space_t space = NULL;
  femint_form_t form = NULL;
  femint_operator_t op = NULL;
  femint_vector_t x = NULL, y = NULL;
  double *rhs = NULL;
  int rc = femint_space_create(ctx, mesh, FEMINT_H1, nc, NULL, p, &space);
  if (!rc && stiff) rc = femint_space_remove_boundary_dofs(space, 0, NULL);
  if (!rc)
    rc = o->problem == BP_ELASTICITY
             ? femint_form_create_elasticity(ctx, 1, &young, &poisson, &form)
         : stiff ? femint_form_create_laplace(ctx, nc, 1, &one, &form)
                 : femint_form_create_mass(ctx, nc, 1, &one, &form);
  struct femint_operator_options opt = {.where = o->where, .devices = (int)o->devices,
                                        .apply_rule = bp_lobatto(o->problem),
                                        .apply_geometry = o->geometry,
                                        .timeline = o->timeline_csv,
                                        .precision = o->single ? FEMINT_SINGLE : FEMINT_DOUBLE};
  if (!rc) rc = femint_operator_create(ctx, space, 1, &form, &opt, &op);
  if (!rc) rc = femint_vector_create(space, &x);
  if (!rc) rc = femint_vector_create(space, &y);
  if (!rc) {
    r->ndof = femint_space_num_dofs(space);
    rhs = calloc((size_t)r->ndof + 1, sizeof *rhs);
    if (!rhs) rc = FEMINT_ENOMEM;
  }
  for (int64_t i = 0; !rc && i < r->ndof; i++) rhs[i] = 1.0 / (double)(i + 1);
  if (!rc) rc = femint_vector_set_values(x, rhs);
  if (!rc) rc = bp_apply(o, op, x, y, r);
  /* b: the load of a smooth function, in y */
  const struct femint_load load = {.body = bp_body, .user = (void *)&nc};
  if (!rc && o->solves > 0 && !o->kernel_only) {
    memset(rhs, 0, (size_t)r->ndof * sizeof *rhs);
    rc = femint_operator_load(op, &load, rhs);
    if (!rc) rc = femint_vector_set_values(y, rhs);
  }
  if (!rc && !o->kernel_only) rc = bp_solve(o, op, y, x, r);
  free(rhs);
  femint_vector_destroy(&x);
  femint_vector_destroy(&y);
  femint_operator_destroy(&op);
  femint_form_destroy(&form);
  femint_space_destroy(&space);
  return rc;
}

/* The edge n of the box of order p with --dofs: n^3 cells of (n p + 1)^3 nodes, about dofs. */
static int bp_box_edge(double dofs, int p)
{
  const long n = lround(cbrt(dofs) / p);
  return n < 1 ? 1 : n > 100000 ? 100000 : (int)n;
}

/* The mesh of order p: --mesh's once, or with --dofs a box of its own (the previous one
 * destroyed). */
static int bp_mesh(femint_context_t ctx, const struct bp_options *o, int p, femint_mesh_t *mesh)
{
  if (*mesh && o->dofs == 0) return 0;
  femint_mesh_destroy(mesh);
  const int n = o->dofs > 0 ? bp_box_edge(o->dofs, p) : 0;
  return femint_mesh_create_box(ctx, FEMINT_HEX, n ? n : o->mesh.nx, n ? n : o->mesh.ny,
                                n ? n : o->mesh.nz, 1, 1, 1, 0.2, 1, mesh);
}

int cli_bp_command(int argc, char **argv)
{
  struct bp_options o = {.problem = 2, .runs = 5, .solves = 3, .rtol = 1e-8};
  struct cli_args args;
  int status = cli_parse(&cli_bp_cmd, argc, argv, &o, &args);
  if (status) return status < 0 ? 0 : status;
  if (o.orders.n == 0) o.orders = (struct cli_orders){6, {1, 2, 3, 4, 5, 6}};
  if (o.dofs > 0 && o.mesh.kind != CLI_MESH_NONE)
    return cli_fail_usage("--dofs and --mesh: give one of them (--dofs makes a box per order)");
  if (o.mesh.kind == CLI_MESH_NONE) o.mesh = (struct cli_mesh){CLI_MESH_BOX, 8, 8, 8, NULL};
  char text[300];
  cli_mesh_text(&o.mesh, text, sizeof text);
  if (o.mesh.kind != CLI_MESH_BOX)
    return cli_fail_usage("--mesh %s: femint bp takes box:NX,NY,NZ", text);
  if ((double)o.mesh.nx * o.mesh.ny * o.mesh.nz > (double)CLI_MAX_CELLS)
    return cli_fail_usage("--mesh %s: too many cells (at most %ld)", text, CLI_MAX_CELLS);
  for (int k = 0; o.dofs > 0 && k < o.orders.n; k++) {
    const double n = bp_box_edge(o.dofs, o.orders.p[k]);
    if (n * n * n > (double)CLI_MAX_CELLS)
      return cli_fail_usage("--dofs %g: order %d would take %.0f cells (at most %ld)", o.dofs,
                            o.orders.p[k], n * n * n, CLI_MAX_CELLS);
  }
  /* what the orders run on, for the header and the plot */
  const size_t len = strlen(text);
  if (o.dofs > 0)
    snprintf(text, sizeof text, "boxes of about %g DOFs (n^3 hexahedra, n = %g^(1/3) / p)",
             o.dofs, o.dofs);
  else
    snprintf(text + len, sizeof text - len, " (%.0f hexahedra)",
             (double)o.mesh.nx * o.mesh.ny * o.mesh.nz);
  if (o.timeline && cli_check_timeline("--timeline", o.timeline)) return EXIT_USAGE;
  if (o.timeline && !(o.timeline_csv = cli_timeline_csv(o.timeline)))
    return cli_fail_usage("out of memory");
  FILE *csv = NULL;
  if (o.csv && !(csv = fopen(o.csv, "w"))) {
    free(o.timeline_csv);
    return cli_fail_usage("--csv %s: cannot write it (%s)", o.csv, strerror(errno));
  }
  if (csv) fputs(csv_header, csv);
  femint_context_t ctx = NULL;
  femint_mesh_t mesh = NULL;
  struct femint_init_options iopt = {.nopencl = o.where == FEMINT_WHERE_CPU ? 0 : -1,
                                     .quiet = !o.verbose};
  if (cli_init(&iopt, &ctx)) {
    if (csv) fclose(csv);
    free(o.timeline_csv);
    return EXIT_RUNTIME;
  }
  status = EXIT_RUNTIME;
  const int copy_dev = cli_copy_device(ctx, o.where);
  struct cli_json j = {0};
  if (o.json) cli_json_open(&j, NULL, '[');
  else
    printf("femint bp: %s on %s, %s, geometry %s; %s: median of %ld; solve: median of %ld CG "
           "solves%s, %s; copy rate of %s\n%5s %10s %9s %10s %10s %10s %6s %10s %12s %12s %8s "
           "%8s\n",
           bp_label(&o), text, precision_names[o.single], geometry_names[o.geometry],
           o.kernel_only ? "the element kernel alone" : "apply", o.runs,
           o.kernel_only ? 0 : o.solves, o.jacobi ? " (Jacobi)" : "",
           o.iterations ? "fixed iterations" : "to --rtol",
           copy_dev < 0 ? "the CPU cores" : "the OpenCL device", "order", "DOFs", "first_s",
           "apply_s", "tasks_s", "solve_s", "its", "DOFs/s", "DOF-its/s", "CPU/OpenCL", "GB/s",
           "of_copy");
  struct bp_result all[sizeof o.orders.p / sizeof o.orders.p[0]];
  /* progress on a terminal for sweeps of several orders */
  const int progress = o.orders.n > 1 && isatty(STDERR_FILENO);
  for (int k = 0; k < o.orders.n; k++) {
    const int p = o.orders.p[k];
    struct bp_result r = {.p = p};
    if (progress) fprintf(stderr, "femint bp: order %d (%d of %d)...\n", p, k + 1, o.orders.n);
    int rc = bp_mesh(ctx, &o, p, &mesh);
    if (!rc) rc = bp_order(ctx, &o, mesh, p, &r);
    if (!rc) {
      r.flops = bp_flops(&o, femint_mesh_num_cells(mesh), p);
      r.bytes = bp_bytes(&o, femint_mesh_num_cells(mesh), p, r.ndof);
      /* where it was measured until a device failed (then the CPU cores or another device) */
      rc = femint_bench_copy(ctx, cli_copy_device(ctx, o.where), cli_copy_bytes(r.bytes),
                             &r.copy_rate);
    }
    if (rc) {
      if (o.json) cli_json_close(&j, ']');
      cli_fail_runtime(ctx, rc);
      goto done;
    }
    const double rate = r.t_solve > 0 ? (double)r.ndof * r.iterations / r.t_solve : 0;
    if (csv) csv_row(csv, &o, p, femint_mesh_num_cells(mesh), &r, rate);
    if (o.json) {
      cli_json_open(&j, NULL, '{');
      cli_json_str(&j, "problem", bp_label(&o));
      cli_json_str(&j, "geometry", geometry_names[o.geometry]);
      cli_json_str(&j, "precision", precision_names[o.single]);
      cli_json_int(&j, "order", p);
      cli_json_int(&j, "cells", femint_mesh_num_cells(mesh));
      cli_json_int(&j, "dofs", r.ndof);
      cli_json_num(&j, "first_s", r.t_first);
      cli_json_num(&j, "apply_s", r.t_apply);
      cli_json_num(&j, "tasks_s", r.t_busy);
      cli_json_num(&j, "dofs_per_s", r.ndof / r.t_apply);
      cli_json_num(&j, "apply_flops", r.flops);
      cli_json_num(&j, "gflops_per_s", 1e-9 * r.flops / r.t_apply);
      cli_json_num(&j, "solve_s", r.t_solve);
      cli_json_int(&j, "iterations", r.iterations);
      cli_json_int(&j, "converged", r.converged);
      cli_json_num(&j, "relative_residual", r.rel_residual);
      cli_json_num(&j, "dof_iterations_per_s", rate);
      cli_json_int(&j, "solve_tasks_cpu", r.tasks_cpu);
      cli_json_int(&j, "solve_tasks_opencl", r.tasks_opencl);
      cli_json_num(&j, "apply_bytes", r.bytes);
      cli_json_num(&j, "apply_bytes_per_s", r.bytes / r.t_apply);
      cli_json_num(&j, "copy_bytes_per_s", r.copy_rate);
      cli_json_num(&j, "copy_fraction", r.bytes / r.t_apply / r.copy_rate);
      cli_json_close(&j, '}');
    } else {
      char split[32];
      snprintf(split, sizeof split, "%d/%d", r.tasks_cpu, r.tasks_opencl);
      printf("%5d %10lld %9.4f %10.6f %10.6f %10.4f %6d %10.4g %12.4g %12s %8.1f %8.2f\n", p,
             (long long)r.ndof, r.t_first, r.t_apply, r.t_busy, r.t_solve, r.iterations,
             r.ndof / r.t_apply, rate, split, r.bytes / r.t_apply * 1e-9,
             r.bytes / r.t_apply / r.copy_rate);
    }
    fflush(stdout);
    all[k] = r;
  }
  if (o.json) cli_json_close(&j, ']');
  status = 0;
  if (o.plot) {
    char what[400];
    snprintf(what, sizeof what, "%s on %s, %s, %s", bp_label(&o), text, precision_names[o.single],
             copy_dev < 0 ? "CPU workers" : "OpenCL device");
    status = bp_plot(&o, what, all, o.orders.n);
  }
  if (o.timeline && o.solves > 0 && !o.kernel_only &&
      cli_timeline_plot(ctx, o.timeline_csv, o.timeline, "femint bp: the last CG solve's tasks"))
    status = status ? status : EXIT_RUNTIME;
done:
  if (csv && fclose(csv) != 0 && status == 0)
    status = cli_fail("--csv %s: cannot write it (%s)", o.csv, strerror(errno));
  femint_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  free(o.timeline_csv);
  return status;
}
