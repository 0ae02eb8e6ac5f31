/* femint bp: the CEED bake-off problems on hexahedra (seed 001), matrix-free through
 * femint_operator_apply: for each order, the DOFs, the first application (which computes the
 * quadrature data) and the median of the later ones, and the DOFs per second. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* bp1: scalar mass, bp2: 3-component mass, bp3: scalar Laplace, bp4: 3-component Laplace, on
 * p + 2 Gauss points per direction; bp5, bp6: bp3 and bp4 on the p + 1 Gauss-Lobatto nodes. */
static const char *const bp_names[] = {"bp1", "bp2", "bp3", "bp4", "bp5", "bp6", NULL};

struct bp_options {
  int problem, where, json, verbose;
  struct cli_orders orders;
  struct cli_mesh mesh;
  long runs;
};

#define F(member) offsetof(struct bp_options, member)
static const struct cli_option options[] = {
  {CLI_OPT("--problem", CLI_CHOICE, F(problem),
           "bp1 (mass), bp2 (mass, 3 components), bp3 (Laplace), bp4 (Laplace, 3 components), on "
           "p + 2 Gauss points per direction; bp5, bp6: bp3 and bp4 on the p + 1 Gauss-Lobatto "
           "nodes (default bp3)",
           NULL), .choices = bp_names},
  {CLI_OPT("--order", CLI_ORDERS, F(orders),
           "orders 1..10, a list of P and P1-P2, each measured on its own (default 1-6)",
           "P|P1-P2|P1,P2,...")},
  {CLI_OPT("--mesh", CLI_MESH, F(mesh),
           "box:NX,NY,NZ, the unit cube in NX*NY*NZ hexahedra, interior vertices moved by up to "
           "0.2 times the spacing (default box:8,8,8)",
           "box:NX,NY,NZ")},
  {CLI_OPT("--where", CLI_CHOICE, F(where),
           "the workers of the apply tasks: any, cpu or opencl (default any)", NULL),
   .choices = cli_where_names},
  {CLI_OPT("--runs", CLI_INT, F(runs), "applications after the first; the median counts (default 5)",
           "N"), .min = 1, .max = 1000},
  {CLI_OPT("--json", CLI_FLAG, F(json), "an array of one JSON object per order", NULL)},
  {CLI_OPT("--verbose", CLI_FLAG, F(verbose), "let StarPU print its own messages", NULL)},
};
static const struct cli_section sections[] = {{NULL, options, 7, 0}};

const struct cli_command cli_bp_cmd = {
  "bp",
  "the CEED bake-off problems on hexahedra, matrix-free (seed 001): DOFs per second of y = A x",
  "[--problem bp1|...|bp6] [--order LIST] [--mesh box:NX,NY,NZ] [--where W] [--runs N] "
  "[--json]",
  "Builds the box of hexahedra, the H1 Lagrange space of each order on Gauss-Lobatto-Legendre "
  "nodes and the mass or Laplace operator, and times femint_operator_apply: the first "
  "application (it computes the quadrature data and builds the OpenCL programs) and the median "
  "of --runs later ones, with x, the element vectors and y crossing the bus on every call. "
  "Reports DOFs x applications per second. The conjugate gradient solve of the bake-off "
  "(DOFs x iterations per second) and the kernel-only rates come with vectors that stay on a "
  "device.",
  sections,
  1,
  NULL,
};

static int cmp_double(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The measurements of one order; 0, or a femint error code. */
static int bp_order(femint_context_t ctx, const struct bp_options *o, femint_mesh_t mesh, int p,
                    double *t_first, double *t_median, double *t_busy, int64_t *ndof)
{
  const int nc = o->problem % 2 ? 3 : 1, laplace = o->problem >= 2;
  const double one = 1;
  femint_space_t space = NULL;
  femint_form_t form = NULL;
  femint_operator_t op = NULL;
  double *x = NULL, *y = NULL, *t = NULL, *busy = NULL;
  int rc = femint_space_create(ctx, mesh, FEMINT_H1, nc, NULL, p, &space);
  if (!rc) rc = laplace ? femint_form_create_laplace(ctx, nc, 1, &one, &form)
                        : femint_form_create_mass(ctx, nc, 1, &one, &form);
  struct femint_operator_options opt = {.where = o->where, .apply_rule = o->problem >= 4};
  if (!rc) rc = femint_operator_create(ctx, space, 1, &form, &opt, &op);
  if (!rc) {
    *ndof = femint_space_num_dofs(space);
    x = malloc((size_t)(*ndof + 1) * sizeof *x);
    y = malloc((size_t)(*ndof + 1) * sizeof *y);
    t = malloc((size_t)o->runs * sizeof *t);
    busy = malloc((size_t)o->runs * sizeof *busy);
    if (!x || !y || !t || !busy) rc = FEMINT_ENOMEM;
  }
  for (int64_t i = 0; !rc && i < *ndof; i++) x[i] = 1.0 / (double)(i + 1);
  for (long k = -1; !rc && k < o->runs; k++) {
    struct femint_stats st;
    const double t0 = cli_now();
    rc = femint_operator_apply(op, 0, x, y, &st);
    if (k < 0) {
      *t_first = cli_now() - t0;
      continue;
    }
    t[k] = cli_now() - t0;
    /* the tasks: the busiest worker's time in them */
    busy[k] = 0;
    for (int w = 0; w < st.nworker && w < FEMINT_MAX_WORKERS; w++)
      if (st.worker_busy[w] > busy[k]) busy[k] = st.worker_busy[w];
  }
  if (!rc) {
    const long r = o->runs;
    qsort(t, (size_t)r, sizeof *t, cmp_double);
    qsort(busy, (size_t)r, sizeof *busy, cmp_double);
    *t_median = r % 2 ? t[r / 2] : 0.5 * (t[r / 2 - 1] + t[r / 2]);
    *t_busy = r % 2 ? busy[r / 2] : 0.5 * (busy[r / 2 - 1] + busy[r / 2]);
  }
  free(x);
  free(y);
  free(t);
  free(busy);
  femint_operator_destroy(&op);
  femint_form_destroy(&form);
  femint_space_destroy(&space);
  return rc;
}

int cli_bp_command(int argc, char **argv)
{
  struct bp_options o = {.problem = 2, .runs = 5};
  struct cli_args args;
  int status = cli_parse(&cli_bp_cmd, argc, argv, &o, &args);
  if (status) return status < 0 ? 0 : status;
  if (o.orders.n == 0) o.orders = (struct cli_orders){6, {1, 2, 3, 4, 5, 6}};
  if (o.mesh.kind == CLI_MESH_NONE) o.mesh = (struct cli_mesh){CLI_MESH_BOX, 8, 8, 8, NULL};
  char text[300];
  cli_mesh_text(&o.mesh, text, sizeof text);
  if (o.mesh.kind != CLI_MESH_BOX)
    return cli_fail_usage("--mesh %s: femint bp takes box:NX,NY,NZ", text);
  if ((double)o.mesh.nx * o.mesh.ny * o.mesh.nz > (double)CLI_MAX_CELLS)
    return cli_fail_usage("--mesh %s: too many cells (at most %ld)", text, CLI_MAX_CELLS);
  femint_context_t ctx = NULL;
  femint_mesh_t mesh = NULL;
  struct femint_init_options iopt = {.nopencl = o.where == FEMINT_WHERE_CPU ? 0 : -1,
                                     .quiet = !o.verbose};
  if (cli_init(&iopt, &ctx)) return EXIT_RUNTIME;
  status = EXIT_RUNTIME;
  int rc = femint_mesh_create_box(ctx, FEMINT_HEX, o.mesh.nx, o.mesh.ny, o.mesh.nz, 1, 1, 1, 0.2,
                                  1, &mesh);
  if (rc) {
    cli_fail_runtime(ctx, rc);
    goto done;
  }
  struct cli_json j = {0};
  if (o.json) cli_json_open(&j, NULL, '[');
  else
    printf("femint bp: %s on %s (%d hexahedra), femint_operator_apply, median of %ld later "
           "runs (tasks_s: the busiest worker's time in the apply tasks)\n%5s %12s %10s %12s "
           "%12s %14s\n",
           bp_names[o.problem], text, femint_mesh_num_cells(mesh), o.runs, "order", "DOFs",
           "first_s", "median_s", "tasks_s", "DOFs/s");
  for (int k = 0; k < o.orders.n; k++) {
    const int p = o.orders.p[k];
    double t_first = 0, t_median = 0, t_busy = 0;
    int64_t ndof = 0;
    rc = bp_order(ctx, &o, mesh, p, &t_first, &t_median, &t_busy, &ndof);
    if (rc) {
      if (o.json) cli_json_close(&j, '[');
      cli_fail_runtime(ctx, rc);
      goto done;
    }
    if (o.json) {
      cli_json_open(&j, NULL, '{');
      cli_json_str(&j, "problem", bp_names[o.problem]);
      cli_json_int(&j, "order", p);
      cli_json_int(&j, "cells", femint_mesh_num_cells(mesh));
      cli_json_int(&j, "dofs", ndof);
      cli_json_num(&j, "first_s", t_first);
      cli_json_num(&j, "median_s", t_median);
      cli_json_num(&j, "tasks_s", t_busy);
      cli_json_num(&j, "dofs_per_s", ndof / t_median);
      cli_json_close(&j, '{');
    } else {
      printf("%5d %12lld %10.4f %12.6f %12.6f %14.4g\n", p, (long long)ndof, t_first, t_median,
             t_busy, ndof / t_median);
    }
    fflush(stdout);
  }
  if (o.json) cli_json_close(&j, '[');
  status = 0;
done:
  femint_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  return status;
}
