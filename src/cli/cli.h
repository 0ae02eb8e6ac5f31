/* What the files of the femint command share: option parsing, usage errors, JSON output, the
 * standard weak forms, and charts drawn with gnuplot. Names start with cli_ because the program
 * is linked statically with the library, whose internal names must not clash with these. */
#ifndef FEMINT_CLI_H
#define FEMINT_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "femint.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

/* Exit statuses: 1 for run-time failures (and failed verification), 2 for usage errors. */
enum { EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

#define CLI_MAX_ORDERS 64
#define CLI_MAX_CELLS (1L << 26)

enum cli_problem { PROBLEM_ELASTICITY, PROBLEM_LAPLACE, PROBLEM_MASS };
extern const char *const cli_problem_names[3];
extern const char *const cli_where_names[3];
extern const char *const cli_precision_names[2];

/* A box of nx*ny*nz hexahedra cut into prisms, a Gmsh file (file), or for quadrilaterals a
 * rectangle of nx*ny cells or a quarter annulus of nx (radially) x ny curved cells. */
enum cli_mesh_kind { CLI_MESH_BOX, CLI_MESH_GMSH, CLI_MESH_RECT, CLI_MESH_ANNULUS };
struct cli_mesh {
  int kind;
  int nx, ny, nz;
  const char *file;
};

/* "femint: MESSAGE" on stderr; returns EXIT_USAGE. */
int cli_fail_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "femint: " and the last error of ctx (or the text of rc) on stderr; returns EXIT_RUNTIME. */
int cli_fail_runtime(femint_context_t ctx, int rc);
/* femint_init with a message on failure; returns 0 or EXIT_RUNTIME. */
int cli_init(const struct femint_init_options *opt, femint_context_t *ctx);
double cli_now(void);

int cli_parse_digits(const char **p, long *v);
int cli_parse_count(const char *s, long *v);
int cli_parse_real(const char *s, double *v);
int cli_check_order(long p);
/* --order: a comma-separated list of orders P and ranges P1-P2 into orders[CLI_MAX_ORDERS]. */
int cli_parse_orders(const char *text, int *orders, int *norders);
/* --mesh box:NX,NY,NZ | gmsh:FILE | FILE.msh | rect:NX,NY | annulus:NR,NT. */
int cli_parse_mesh(const char *text, struct cli_mesh *m);
/* The shape of the cells of a --mesh: FEMINT_QUAD for rect and annulus, else FEMINT_PRISM. */
int cli_mesh_shape(const struct cli_mesh *m);
/* Makes the mesh agree with --element: without --mesh (given 0), quadrilaterals default to
 * rect:16,16; a --mesh of the other shape is a usage error. */
int cli_mesh_match(struct cli_mesh *m, int shape, int given);
/* Builds or reads the mesh (box and rect: interior vertices moved by perturb x spacing). */
int cli_mesh_create(femint_context_t ctx, const struct cli_mesh *m, double perturb,
                    unsigned seed, femint_mesh_t *mesh);
/* The index of text in names[n], or -1 after a usage message naming the option. */
int cli_parse_choice(const char *option, const char *text, const char *const *names, int n);
/* --element prism|quad into *shape (enum femint_shape). */
int cli_parse_element(const char *text, int *shape);
/* Whether path can be created or overwritten, without touching it; a message on failure. */
int cli_check_writable(const char *path);
/* Splits argv[*i] ("--name", "--name=value"), checks that the option is known (--help always
 * is) and takes the value of an option that needs one from the next argument. Returns 0, or
 * EXIT_USAGE after a message. */
int cli_next_option(int argc, char **argv, int *i, char *name, size_t len, const char **value,
                    const char *const *with_value, const char *const *flags);

void cli_json_string(const char *s);
void cli_json_number(double x);

/* Room for a worker's name (femint_context_worker_name). */
#define CLI_NAME_LEN 160
/* The workers of an assembly as the members of a JSON array: name, kind, tasks, busy time. */
void cli_json_workers(const struct femint_stats *st, char names[][CLI_NAME_LEN]);

/* The form of a problem with unit coefficients (elasticity: E = 1, nu = 0.3; plane stress on
 * quadrilaterals). */
int cli_form_create(femint_context_t ctx, int problem, int shape, femint_form_t *form);
/* Components of the space of a problem on a shape. */
int cli_problem_components(int problem, int shape);

/* Whether an executable gnuplot is on the PATH. */
int cli_have_gnuplot(void);
/* Runs gnuplot on a script; 0 on success, otherwise -1 after a message on stderr. */
int cli_gnuplot(const char *script);
/* The timeline CSV that goes with a chart: FILE.png gives FILE.csv, anything else FILE.csv
 * appended. Returns a malloc'ed string or NULL. */
char *cli_timeline_csv(const char *png);
/* Draws the Gantt chart of a timeline CSV (worker,kind,codelet,order,cells,start_s,end_s) as a
 * PNG, one row per worker named by femint_context_worker_name. Returns 0, EXIT_RUNTIME after a
 * message, or 0 after a warning when gnuplot is missing. */
int cli_timeline_plot(femint_context_t ctx, const char *csv, const char *png, const char *title);

/* The options of femint bench (bench.c); --coexec runs cli_coexec (coexec.c). */
struct cli_bench {
  int shape;                  /* enum femint_shape */
  int norders, orders[CLI_MAX_ORDERS];
  int nvariants, variants[8]; /* OpenCL variants to measure */
  int cpu;                    /* 1: a row for the CPU codelet too */
  int nprec, precs[2];        /* FEMINT_DOUBLE, FEMINT_SINGLE */
  long device;                /* -1: the first OpenCL device, if any */
  long cells;                 /* 0: from the order */
  int problem, symmetric;
  long repeat;
  double bus_gbs;
  const char *csv, *plot;
  int coexec;
  int no_assembly;            /* --coexec times femint_integrate, not femint_assemble */
  struct cli_mesh mesh;
  long runs;
  const char *timeline;
  int json, quiet, verbose;
};
int cli_coexec(const struct cli_bench *b);

/* The commands of bench.c and plan.c, and their help. */
int cli_bench_command(int argc, char **argv);
int cli_plan_command(int argc, char **argv);
extern const char cli_bench_usage[];
/* femint run and bench with --element tet (maxwell.c); cli_is_tet tells them apart. */
int cli_is_tet(int argc, char **argv);
int cli_maxwell_run(int argc, char **argv);
int cli_maxwell_bench(int argc, char **argv);
extern const char cli_maxwell_run_usage[];
extern const char cli_maxwell_bench_usage[];
extern const char cli_plan_usage[];

#endif
