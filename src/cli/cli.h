/* What the files of the femint command share: errors, value parsers, the mesh, space and forms of
 * a run (setup.c), verification, JSON and charts. Names start with cli_ so as not to clash with
 * the internal names of the library, which the program carries in itself (static linking). */
#ifndef FEMINT_CLI_H
#define FEMINT_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "femint.h"
#include "options.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

/* Exit statuses: 1 for run-time failures (and failed verification), 2 for usage errors. */
enum { EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

#define CLI_MAX_ORDERS 64
#define CLI_MAX_CELLS (1L << 26)
/* The most forms of one problem (maxwell has two: T and S). */
#define CLI_MAX_FORMS 2

/* ---- Values of options ---- */

struct cli_orders {
  int n; /* 0: not given */
  int p[CLI_MAX_ORDERS];
};

/* A box of nx*ny*nz hexahedral blocks (cut into prisms or tetrahedra), a Gmsh file, or for
 * quadrilaterals a rectangle of nx*ny cells or a quarter annulus of nx (radially) x ny curved
 * cells. CLI_MESH_NONE: not given. */
enum cli_mesh_kind { CLI_MESH_NONE, CLI_MESH_BOX, CLI_MESH_GMSH, CLI_MESH_RECT, CLI_MESH_ANNULUS };
struct cli_mesh {
  int kind;
  int nx, ny, nz;
  const char *file;
};

/* "femint: MESSAGE" on stderr; returns EXIT_USAGE. */
int cli_fail_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "femint: " and the last error of ctx (or the text of rc) on stderr; returns EXIT_RUNTIME. */
int cli_fail_runtime(femint_context_t ctx, int rc);
/* "femint: MESSAGE" on stderr; returns EXIT_RUNTIME. */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* femint_init with a message on failure; returns 0 or EXIT_RUNTIME. */
int cli_init(const struct femint_init_options *opt, femint_context_t *ctx);
double cli_now(void);
/* The median of v[n] (sorted in place). */
double cli_median(double *v, long n);
/* The OpenCL device of the first OpenCL worker (unless where is FEMINT_WHERE_CPU), else -1: the
 * device femint_bench_copy measures for a command's roofline. */
int cli_copy_device(femint_context_t ctx, int where);
/* The bytes femint_bench_copy copies for a kernel that moves `moved` bytes. */
size_t cli_copy_bytes(double moved);

/* Value parsers; those that take the option's name print a usage message on failure. */
int cli_parse_digits(const char **p, long *v);
int cli_parse_count(const char *s, long *v);
int cli_parse_real(const char *s, double *v);
int cli_parse_orders(const char *option, const char *text, struct cli_orders *orders);
int cli_parse_mesh(const char *option, const char *text, struct cli_mesh *m);
/* The index of text among names (NULL after the last), or -1 after a usage message. */
int cli_parse_choice(const char *option, const char *text, const char *const *names);
/* names joined as "a, b or c" into buf. */
void cli_join_names(const char *const *names, char *buf, size_t len);
/* Whether path can be created or overwritten, without touching it; a usage message naming the
 * option and the file otherwise. */
int cli_check_writable(const char *option, const char *path);
/* --timeline FILE.png: the chart and the CSV beside it can be written. */
int cli_check_timeline(const char *option, const char *png);

/* The mesh as given on the command line ("box:6,6,4", "gmsh:FILE") into buf. */
void cli_mesh_text(const struct cli_mesh *m, char *buf, size_t len);
/* "1,2,3" into buf. */
void cli_orders_text(const struct cli_orders *o, char *buf, size_t len);

/* Shared names of choices (NULL after the last). */
extern const char *const cli_where_names[];     /* any, cpu, opencl: enum femint_where */
extern const char *const cli_precision_names[]; /* double, single: enum femint_precision */
extern const char *const cli_variant_names[];   /* auto ... gemm: enum femint_variant */
extern const char *const cli_assembly_names[];  /* auto, rows, coo: enum femint_assembly */
extern const char *const cli_element_names[];   /* prism, quad, tet, hex, tri, with
                                                   cli_element_values */
extern const int cli_element_values[];          /* enum femint_shape */

/* ---- The mesh, space and forms of a run (setup.c) ---- */

enum cli_problem { PROBLEM_ELASTICITY, PROBLEM_LAPLACE, PROBLEM_MASS, PROBLEM_MAXWELL };
extern const char *const cli_problem_names[];

/* The options that say what is integrated: element, mesh, space, problem, orders. Fields left
 * at their "not given" values are set by cli_setup_resolve. */
struct cli_setup {
  int shape;                /* --element: enum femint_shape */
  struct cli_mesh mesh;     /* --mesh; CLI_MESH_NONE: by element */
  double perturb;           /* --perturb; < 0: by element */
  long seed;                /* --seed; < 0: 1 */
  double curved;            /* --curved amplitude; 0: straight cells */
  int family;               /* --space: FEMINT_H1 or FEMINT_HCURL; 0: by element */
  int problem;              /* --problem: enum cli_problem; < 0: by element */
  struct cli_orders orders; /* --order; n = 0: by element */
  int pec;                  /* --pec: 1 all, 0 none; < 0: all */
  double eps, mu;           /* --eps, --mu; 0: 1 */
};
/* The values of a struct cli_setup before parsing. */
#define CLI_SETUP_INIT                                                                       \
  {                                                                                          \
    .shape = FEMINT_PRISM, .perturb = -1, .seed = -1, .problem = -1, .pec = -1               \
  }
#define CLI_SETUP_NOPTIONS 11
extern const struct cli_option cli_setup_options[];

/* Defaults by element and checks of the combination (a usage error names both options). */
int cli_setup_resolve(struct cli_setup *s);
/* Reads the Gmsh file of --mesh before the runtime starts (nothing for generated meshes) and
 * checks that its cells are of the element's shape; 0 or EXIT_RUNTIME after a message. */
int cli_setup_read(const struct cli_setup *s, femint_mesh_t *mesh);
/* Makes the mesh unless read (femint_mesh_create_box, _create_annulus) and curves it. */
int cli_setup_mesh(femint_context_t ctx, const struct cli_setup *s, femint_mesh_t *mesh);
/* The space of the problem: H1 with orders cycled over the cells (count[p] cells of order p),
 * or H(curl) of one order with the DOFs of its PEC walls removed (*removed of them). */
int cli_setup_space(femint_context_t ctx, const struct cli_setup *s, femint_mesh_t mesh,
                    int count[FEMINT_MAX_ORDER + 1], int64_t *removed, femint_space_t *space);
/* The forms of the problem with unit coefficients (maxwell: T with eps, S with mu). */
int cli_setup_forms(femint_context_t ctx, const struct cli_setup *s,
                    femint_form_t forms[CLI_MAX_FORMS], int *nform);
int cli_setup_nforms(const struct cli_setup *s);
/* The form of an H1 problem on a shape (elasticity: E = 1, nu = 0.3, plane stress in 2D). */
int cli_form_create(femint_context_t ctx, int problem, int shape, femint_form_t *form);
int cli_problem_components(int problem, int shape);
/* Short names of the forms of a problem ("T", "S"), for file names. */
const char *cli_form_letter(const struct cli_setup *s, int form);
/* The name of a form ("elasticity", "hcurl_mass", "curlcurl"). */
const char *cli_form_name(const struct cli_setup *s, int form);
/* The problem in words ("linear elasticity (E = 1, nu = 0.3)"). */
void cli_problem_text(const struct cli_setup *s, char *buf, size_t len);
const char *cli_shape_name(int shape);   /* "prism" */
const char *cli_shape_plural(int shape); /* "prisms" */
int cli_shape_dim(int shape);             /* 2 for quad and tri, else 3 */
int cli_shape_vertices(int shape);        /* 6 for prisms, ... */
const char *cli_family_name(int family); /* "h1", "hcurl" */
/* The files written by --output: PATH for one form, PREFIX-T.mtx and PREFIX-S.mtx for two. */
void cli_output_path(const struct cli_setup *s, const char *output, int form, char *buf,
                     size_t len);

/* ---- Verification (verify.c) ---- */

/* One check: pass is value < tolerance, or value > tolerance when above is set. */
struct cli_check {
  char name[64];
  double value, tolerance;
  int above, pass;
};
#define CLI_MAX_CHECKS 16
/* The help of --devices (femint run, bp and residual: femint_operator_options.devices). */
#define CLI_DEVICES_HELP \
  "OpenCL devices the tasks may use: 0 lets femint choose (every device where the results go to " \
  "main memory, every GPU for the COO assembly, the first alone where the apply and residual " \
  "sum on a device); N, the first N; the COO assembly, the apply, CG and the residual split " \
  "the rows or DOFs among their devices (default 0)"
/* H1 (one form A): symmetry, null space (rigid modes, constants) or 1^T M 1 = volume, positive
 * diagonal. H(curl) (A[0] = T, A[1] = S): symmetry of both, positive diagonal of T, S applied to
 * discrete gradients of random vertex values. Returns 0, a negative femint code, or EXIT_RUNTIME
 * after a message. */
int cli_verify(const struct cli_setup *s, femint_mesh_t mesh, femint_space_t space,
               femint_matrix_t *A, int precision, double volume, const double centre[3],
               struct cli_check *checks, int *nchecks);
/* The element matrices of 8 cells spread over the mesh, made by the workers the run may use (its
 * OpenCL devices, where it has them) with the run's options, against femint's CPU codelet in
 * double: a check appended to checks. Returns 0 or a negative femint code. */
int cli_verify_cells(femint_context_t ctx, femint_space_t space, int ncell, int nform,
                     const femint_form_t *forms, const struct femint_operator_options *opt,
                     struct cli_check *checks, int *nchecks);

/* ---- JSON (json.c) ---- */

/* A JSON writer on stdout that puts the commas: key is NULL inside arrays. */
struct cli_json {
  int depth;
  int count[16];
};
void cli_json_open(struct cli_json *j, const char *key, char bracket); /* '{' or '[' */
void cli_json_close(struct cli_json *j, char bracket);                 /* a newline at depth 0 */
void cli_json_str(struct cli_json *j, const char *key, const char *s); /* NULL: null */
void cli_json_num(struct cli_json *j, const char *key, double x);      /* not finite: null */
void cli_json_int(struct cli_json *j, const char *key, long long x);
void cli_json_bool(struct cli_json *j, const char *key, int b);
void cli_json_null(struct cli_json *j, const char *key);
/* A string with JSON's escapes, quotes included. */
void cli_json_string(const char *s);

/* Room for a worker's name (femint_context_worker_name). */
#define CLI_NAME_LEN 160
/* The names of the workers of stats (st->nworker clamped to 0..FEMINT_MAX_WORKERS). */
void cli_worker_names(femint_context_t ctx, struct femint_stats *st,
                      char names[][CLI_NAME_LEN]);
/* The workers of a verb as a JSON array: name, kind, tasks, busy time. */
void cli_json_workers(struct cli_json *j, const char *key, const struct femint_stats *st,
                      char names[][CLI_NAME_LEN]);

/* The function spaces' names (--space) and their femint_family values. */
extern const char *const cli_space_names[];
extern const int cli_space_values[];

/* ---- gnuplot (chart.c) ---- */

/* Whether an executable gnuplot is on the PATH. */
int cli_have_gnuplot(void);
/* Runs gnuplot on a script; 0 on success, otherwise -1 after a message on stderr. */
int cli_gnuplot(const char *script);
/* Appends to a growing string *s (len used, cap allocated); *s becomes NULL after a failure and
 * stays NULL. */
void cli_append(char **s, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* src for a double-quoted gnuplot literal into dst: backslashes, quotes and newlines become
 * spaces. */
void cli_gnuplot_text(char *dst, size_t len, const char *src);
/* Appends the start of a script that draws a width x height PNG into png (pngcairo where gnuplot
 * has it, else png; no enhanced text). */
void cli_gnuplot_png(char **s, size_t *len, size_t *cap, int width, int height, const char *png);
/* The timeline CSV that goes with a chart: FILE.png gives FILE.csv, anything else FILE.csv
 * appended. Returns a malloc'ed string or NULL. */
char *cli_timeline_csv(const char *png);
/* Draws the Gantt chart of a timeline CSV (worker,kind,codelet,order,cells,start_s,end_s,...) as
 * a PNG, one row per worker, integration tasks in one colour and the others (assembly, sums) in
 * another. Returns 0, EXIT_RUNTIME after a message, or 0 after a warning without gnuplot. */
int cli_timeline_plot(femint_context_t ctx, const char *csv, const char *png, const char *title);

/* ---- Commands ---- */

int cli_run_command(int argc, char **argv);
int cli_bench_command(int argc, char **argv);
int cli_refel_command(int argc, char **argv);
int cli_info_command(int argc, char **argv);
int cli_plan_command(int argc, char **argv);
int cli_bp_command(int argc, char **argv);
int cli_residual_command(int argc, char **argv);
extern const struct cli_command cli_run_cmd, cli_bench_cmd, cli_refel_cmd, cli_info_cmd,
  cli_plan_cmd, cli_bp_cmd, cli_residual_cmd;

#endif
