/* femint residual: the residual of a pointwise form (seed 002) on Lagrange triangles or
 * tetrahedra: a gallery form or the caller's C file, an auxiliary field, per-cell values or none;
 * evaluated on every worker kind allowed and checked (the CPU and OpenCL residuals agree, two
 * evaluations agree bit for bit, and where f0 is constant the residual sums to its integral);
 * with --bench, the median of --runs evaluations against the device's copy rate. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *const aux_names[] = {"none", "field", "cell", NULL};
static const char *const precision_names[] = {"double", "single", NULL};
static const char *const kernel_names[] = {"auto", "transposed", "cellwise", NULL};
static const char *const simplex_names[] = {"tri", "tet", NULL};
static const int simplex_values[] = {FEMINT_TRI, FEMINT_TET};

struct residual_options {
  int shape, aux, where, bench, json, verbose, single, kernel, table2, jacobian;
  long order, runs, components, batch, batches, devices; /* order: the one being run */
  struct cli_orders orders;
  struct cli_mesh mesh;
  double perturb, curved;
  const char *pointwise, *constants, *csv, *plot;
};

#define F(member) offsetof(struct residual_options, member)
static const struct cli_option options[] = {
  {CLI_OPT("--element", CLI_CHOICE, F(shape),
           "tri (2D triangles) or tet (tetrahedra), with Lagrange functions (default tri)", NULL),
   .choices = simplex_names, .values = simplex_values},
  {CLI_OPT("--order", CLI_ORDERS, F(orders),
           "the orders, 1..3: one, a list P1,P2 or a range P1-P2, each run in turn on the same "
           "mesh (default 1)", "P")},
  {CLI_OPT("--mesh", CLI_MESH, F(mesh),
           "rect:NX,NY (tri), box:NX,NY,NZ (tet: unit cubes cut into 6), or a Gmsh FILE.msh "
           "(default rect:256,256 or box:24,24,24)",
           "rect:NX,NY|box:NX,NY,NZ|FILE")},
  {CLI_OPT("--perturb", CLI_REAL, F(perturb),
           "generated meshes: interior vertices moved by up to F times the spacing (default 0.2)",
           "F"), .lo = 0, .hi = 0.5, .flags = CLI_HI_OPEN},
  {CLI_OPT("--curved", CLI_REAL, F(curved),
           "generated meshes: curved 6- or 10-node cells moved by A sin(pi x/lx)... (default 0)",
           "A"), .lo = 0, .hi = 0.5, .flags = CLI_HI_OPEN},
  {CLI_OPT("--pointwise", CLI_PATH, F(pointwise),
           "gallery:poisson, gallery:elasticity, gallery:plaplace, gallery:bratu, or a C file "
           "that defines f0 and f1 (include/femint_pointwise.h) (default gallery:poisson)",
           "gallery:NAME|FILE.c")},
  {CLI_OPT("--components", CLI_INT, F(components),
           "a FILE's components, 1..3 (default 1; the gallery's elasticity has the dimension's)",
           "N"), .min = 1, .max = 3},
  {CLI_OPT("--constants", CLI_PATH, F(constants),
           "the constants k, comma separated (default poisson 1; elasticity lambda, mu of E = 1, "
           "nu = 0.3; plaplace 3,1,0.1; bratu 1; a FILE none)",
           "K1,K2,...")},
  {CLI_OPT("--aux", CLI_CHOICE, F(aux),
           "the auxiliary field a: none, field (1 + x/4 in the solution's space) or cell (one "
           "value per cell) (default none)",
           NULL), .choices = aux_names},
  {CLI_OPT("--precision", CLI_CHOICE, F(single),
           "double (default) or single: the geometry, tables and element residuals in floats, the "
           "OpenCL kernel computing in floats (u and F stay double)",
           NULL), .choices = precision_names},
  {CLI_OPT("--where", CLI_CHOICE, F(where),
           "the workers of the residual tasks: any, cpu or opencl (default any)", NULL),
   .choices = cli_where_names},
  {CLI_OPT("--devices", CLI_INT, F(devices), CLI_DEVICES_HELP, "N"), .min = 0, .max = 64},
  {CLI_OPT("--batch", CLI_INT, F(batch),
           "the OpenCL kernel's cells per batch, seed 002's blocks x block size (default: enough "
           "(cell, point) pairs for a work-group of 128)", "N"), .min = 1, .max = 4096},
  {CLI_OPT("--batches", CLI_INT, F(batches),
           "the OpenCL kernel's batches per work-group, one after the other (default 1)", "N"),
   .min = 1, .max = 4096},
  {CLI_OPT("--kernel", CLI_CHOICE, F(kernel),
           "the OpenCL kernel: transposed (seed 002's thread transposition, in batches), cellwise "
           "(a cell per work-item) or auto (cellwise, unless --batch or --batches is given) "
           "(default auto)", NULL), .choices = kernel_names},
  {CLI_OPT("--bench", CLI_FLAG, F(bench),
           "time --runs evaluations after the first and report the median against the copy rate",
           NULL)},
  {CLI_OPT("--runs", CLI_INT, F(runs), "--bench: evaluations timed (default 10)", "N"),
   .min = 1, .max = 10000},
  {CLI_OPT("--jacobian", CLI_FLAG, F(jacobian),
           "also assemble the Jacobian at u from g0..g3 (femint_operator_jacobian) and check J v "
           "against central differences of the residual (with --bench: its median time too)",
           NULL)},
  {CLI_OPT("--table2", CLI_FLAG, F(table2),
           "with --bench: seed 002's Table 2 after the run, the transposed kernel timed with 16, "
           "32, 64 and 128 cells per batch (those that fit) x 1, 4 and 16 batches per work-group",
           NULL)},
  {CLI_OPT("--plot", CLI_PATH, F(plot),
           "with --table2: draw FILE.png with gnuplot, the fraction of the copy rate against the "
           "cells per batch, one line per batches per work-group, the cell-per-work-item kernel "
           "as a level", "FILE.png"), .flags = CLI_WRITABLE},
  {CLI_OPT("--json", CLI_FLAG, F(json), "one JSON object", NULL)},
  {CLI_OPT("--csv", CLI_PATH, F(csv), "also write the fields as a CSV header and row", "FILE"),
   .flags = CLI_WRITABLE},
  {CLI_OPT("--verbose", CLI_FLAG, F(verbose), "let StarPU print its own messages", NULL)},
};
static const struct cli_section sections[] = {
    {NULL, options, sizeof options / sizeof options[0], 0}};

const struct cli_command cli_residual_cmd = {
  "residual",
  "the residual of pointwise functions on triangles or tetrahedra (seed 002), checked or timed",
  "[--element tri|tet] [--order P|LIST] [--mesh M] [--pointwise gallery:NAME|FILE.c] [--aux A] "
  "[--constants K] [--where W] [--kernel K] [--jacobian] [--bench [--runs N] [--table2 "
  "[--plot FILE.png]]] "
  "[--json] [--csv FILE]",
  "Builds the mesh and the Lagrange space, the pointwise form (femint_form_create_pointwise) and "
  "u = 1 + x/2 - y/3 (every component), and evaluates F(u) with femint_operator_residual. Checks: "
  "the residuals of the CPU and the OpenCL workers agree (1e-12 relative), two evaluations give "
  "the same bits, and for the gallery's poisson, plaplace and elasticity (whose f0 is constant) "
  "the sum of F over the DOFs of each component is the integral of f0. With --bench: the median "
  "time of --runs evaluations, the bytes they move (the cells' values, DOFs and geometry in, "
  "their residuals out and summed), GB/s, GFLOP/s and the fraction of the device's copy rate. With --jacobian: the Jacobian at u "
  "times a random v against central differences of the residual (1e-6 relative; 1e-4 single), "
  "and with --bench its median time.",
  sections,
  1,
  NULL,
};

/* The gallery's default constants: E = 1, nu = 0.3 give lambda and mu. */
static int default_constants(const char *name, double *k)
{
  if (!strcmp(name, "elasticity")) {
    k[0] = 0.3 / (1.3 * 0.4);
    k[1] = 1 / 2.6;
    return 2;
  }
  if (!strcmp(name, "plaplace")) {
    k[0] = 3, k[1] = 1, k[2] = 0.1;
    return 3;
  }
  k[0] = 1;
  return !strcmp(name, "poisson") || !strcmp(name, "bratu") ? 1 : 0;
}

static int parse_constants(const char *text, double *k)
{
  int n = 0;
  for (const char *s = text; *s && n < 16;) {
    char *end;
    errno = 0;
    k[n] = strtod(s, &end);
    if (end == s || errno || !isfinite(k[n]) || (*end && *end != ','))
      return cli_fail_usage("--constants %s: not a list of numbers", text);
    n++;
    s = *end ? end + 1 : end;
  }
  return -n;
}

/* The source text of --pointwise: the gallery's, or the file's (malloc'd into *owned). */
static int read_source(const char *what, const char **text, char **owned)
{
  *owned = NULL;
  if (!strncmp(what, "gallery:", 8)) {
    *text = femint_pointwise_gallery(what + 8);
    if (!*text)
      return cli_fail_usage("--pointwise %s: the gallery has poisson, elasticity, plaplace and "
                            "bratu",
                            what);
    return 0;
  }
  FILE *f = fopen(what, "rb");
  if (!f) return cli_fail("--pointwise %s: cannot read it (%s)", what, strerror(errno));
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  while (buf && (n += fread(buf + n, 1, cap - n, f)) == cap && cap < (1u << 24)) {
    char *more = realloc(buf, 2 * cap + 1);
    if (!more) free(buf);
    buf = more;
    cap *= 2;
  }
  fclose(f);
  if (!buf) return cli_fail("--pointwise %s: out of memory", what);
  buf[n] = 0;
  *text = *owned = buf;
  return 0;
}

/* |a - b| / |b| in the 2-norm (|a - b| when b = 0). */
static double rel_diff(int64_t n, const double *a, const double *b)
{
  double d = 0, m = 0;
  for (int64_t i = 0; i < n; i++) d += (a[i] - b[i]) * (a[i] - b[i]), m += b[i] * b[i];
  return m > 0 ? sqrt(d / m) : sqrt(d);
}

/* u = 1 + x/2 - y/3 in every component. */
static int interpolate(femint_space_t s, double *u)
{
  const double a[3] = {1, 1, 1}, b[9] = {0.5, -1.0 / 3, 0, 0.5, -1.0 / 3, 0, 0.5, -1.0 / 3, 0};
  return femint_space_interpolate_linear(s, a, b, u);
}

struct residual_result {
  int64_t ndof;
  int ncell, nsh, nq;
  double t_first, t_run, sum_err, cross, bytes, flops, copy_rate;
  double paired; /* --bench: the median of each evaluation's fraction of a copy right after it */
  int same;
  double jac_first, jac_run, jac_err; /* --jacobian (jac_err -1: not run) */
  int64_t jac_nnz;
};

static struct femint_operator_options operator_options(const struct residual_options *ro, int where)
{
  return (struct femint_operator_options){.where = where, .precision = ro->single,
                                          .residual_cells = (int)ro->batch,
                                          .residual_batches = (int)ro->batches,
                                          .residual_kernel = ro->kernel,
                                          .devices = (int)ro->devices};
}

/* With --bench, each timed evaluation is followed by a copy of `bytes` on device `dev` (-1: the
 * CPU workers): the copy rate of a shared machine drifts, and an evaluation against the copy
 * just after it cancels the drift. `moved` is the evaluation's bytes. */
struct pairing {
  int dev;
  size_t bytes;
  double moved;
};

/* One evaluation path: the operator on workers `where`, F into out; the first time in *t_first,
 * then runs more timed (median into *t_run; with pair, the median of their fractions of the copy
 * after each into *paired). */
static int evaluate(femint_context_t ctx, femint_space_t s, femint_form_t f,
                    const struct residual_options *ro, int where, femint_vector_t vu,
                    femint_vector_t va, long runs, double *out, double *t_first, double *t_run,
                    int *same, const struct pairing *pair, double *paired)
{
  const int single = ro->single;
  const struct femint_operator_options o = operator_options(ro, where);
  femint_operator_t op = NULL;
  femint_vector_t vF = NULL;
  double *t = calloc(2 * (size_t)runs + 1, sizeof *t), *again = NULL, *frac = t + runs;
  int rc = t ? femint_operator_create(ctx, s, 1, &f, &o, &op) : FEMINT_ENOMEM;
  if (!rc) rc = femint_vector_create(s, &vF);
  double t0 = cli_now();
  if (!rc) rc = femint_operator_residual(op, 0, vu, va, vF);
  if (t_first) *t_first = cli_now() - t0;
  for (long r = 0; r < runs && !rc; r++) {
    t0 = cli_now();
    rc = femint_operator_residual(op, 0, vu, va, vF);
    t[r] = cli_now() - t0;
    if (!rc && r == 0) rc = femint_vector_get_values(vF, out);
    double rate = 0;
    if (!rc && pair) rc = femint_bench_copy(ctx, pair->dev, pair->bytes, &rate);
    if (!rc && pair) frac[r] = rate > 0 && t[r] > 0 ? pair->moved / t[r] / rate : 0;
  }
  if (!rc && runs == 0) rc = femint_vector_get_values(vF, out);
  if (!rc && same) { /* once more: the same bits */
    again = malloc((size_t)femint_space_num_dofs(s) * sizeof *again);
    rc = again ? femint_operator_residual(op, 0, vu, va, vF) : FEMINT_ENOMEM;
    if (!rc) rc = femint_vector_get_values(vF, again);
    /* the same bits on one kind of worker; with both, a chunk may run on either kind, whose
     * arithmetic differs in rounding */
    const int64_t n = femint_space_num_dofs(s);
    if (!rc) *same = !memcmp(again, out, (size_t)n * sizeof *again) ? 2
                     : rel_diff(n, again, out) <= (single ? 1e-4 : 1e-12);
  }
  if (!rc && paired && pair && runs > 0) *paired = cli_median(frac, runs);
  if (t_run && runs > 0) *t_run = cli_median(t, runs);
  free(again);
  free(t);
  femint_vector_destroy(&vF);
  femint_operator_destroy(&op);
  return rc;
}

/* --jacobian: J at u on the workers asked (the first time, then with --bench the median of
 * --runs), J v for a random v against central differences of the residual in double (h = 1e-6)
 * at u +- h v; vu holds u again after. */
static int jacobian_run(femint_context_t ctx, femint_space_t s, femint_form_t f,
                        const struct residual_options *ro, femint_vector_t vu, femint_vector_t va,
                        const double *u, struct residual_result *r)
{
  const int64_t n = femint_space_num_dofs(s);
  const long runs = ro->bench ? ro->runs : 0;
  struct femint_operator_options o = operator_options(ro, ro->where), od = o;
  od.precision = FEMINT_DOUBLE;
  femint_operator_t op = NULL, opd = NULL;
  femint_vector_t vF = NULL;
  femint_matrix_t J = NULL;
  double *v = malloc((size_t)(n + 1) * sizeof *v), *w = malloc((size_t)(n + 1) * sizeof *w);
  double *Jv = malloc((size_t)(n + 1) * sizeof *Jv), *Fp = malloc((size_t)(n + 1) * sizeof *Fp);
  double *Fm = malloc((size_t)(n + 1) * sizeof *Fm), *t = calloc((size_t)runs + 1, sizeof *t);
  int rc = v && w && Jv && Fp && Fm && t ? 0 : FEMINT_ENOMEM;
  if (!rc) rc = femint_operator_create(ctx, s, 1, &f, &o, &op);
  if (!rc) rc = femint_operator_create(ctx, s, 1, &f, &od, &opd);
  if (!rc) rc = femint_vector_create(s, &vF);
  double t0 = cli_now();
  if (!rc) rc = femint_operator_jacobian(op, 0, vu, va, &J);
  r->jac_first = cli_now() - t0;
  for (long k = 0; k < runs && !rc; k++) {
    femint_matrix_destroy(&J);
    t0 = cli_now();
    rc = femint_operator_jacobian(op, 0, vu, va, &J);
    t[k] = cli_now() - t0;
  }
  if (runs > 0) r->jac_run = cli_median(t, runs);
  unsigned st = 12345u;
  for (int64_t i = 0; i < n; i++) {
    st = st * 1664525u + 1013904223u;
    v[i] = (double)(st >> 8) / 16777216.0 - 0.5;
  }
  if (!rc) {
    int64_t nr;
    const int64_t *rowptr, *colind;
    const double *val;
    rc = femint_matrix_csr(J, &nr, &rowptr, &colind, &val);
    if (!rc) r->jac_nnz = rowptr[nr];
    if (!rc) rc = femint_matrix_mult(J, v, Jv);
  }
  const double h = 1e-6;
  for (int sign = 1; sign >= -1 && !rc; sign -= 2) {
    for (int64_t i = 0; i < n; i++) w[i] = u[i] + sign * h * v[i];
    rc = femint_vector_set_values(vu, w);
    if (!rc) rc = femint_operator_residual(opd, 0, vu, va, vF);
    if (!rc) rc = femint_vector_get_values(vF, sign > 0 ? Fp : Fm);
  }
  if (!rc) rc = femint_vector_set_values(vu, u);
  for (int64_t i = 0; i < n && !rc; i++) Fp[i] = (Fp[i] - Fm[i]) / (2 * h);
  if (!rc) r->jac_err = rel_diff(n, Jv, Fp);
  free(v), free(w), free(Jv), free(Fp), free(Fm), free(t);
  femint_matrix_destroy(&J);
  femint_vector_destroy(&vF);
  femint_operator_destroy(&op);
  femint_operator_destroy(&opd);
  return rc;
}

/* The bytes an evaluation moves and the flops it does (the seed's model): per cell the values
 * of u (and a) at its functions, its DOFs, its geometry (|det J| and K: once for a straight
 * cell, at every point of a curved one), its residual written (by a device at its places in the
 * sum's order, through 4-byte slots; by the CPU workers cell by cell, gathered by the sum through
 * 8-byte places), then read again by the sum, and F written once. The geometry kept also holds x (a straight cell's J and a
 * point), which a form that uses x reads too: not counted, so that its fraction is a lower
 * bound. */
static void bench_model(const struct residual_options *o, int dim, int nc, int nsh, int nq,
                        int affine, int ncell, int64_t ndof, double *bytes, double *flops)
{
  const double na = o->aux == 1 ? 1 : 0, rs = o->single ? 4 : 8;
  const double ng = (affine ? 1 : nq) * (1 + dim * dim);
  /* u, a and the DOFs are 8 bytes, the slots 4 (the places 8); the geometry and the residuals
   * (written, read by the sum) the precision's */
  const double place = o->where == FEMINT_WHERE_CPU ? 8 : 4;
  const double per_cell = 8.0 * (nsh * nc + nsh + (o->aux == 1 ? nsh * (na + 1) : o->aux == 2 ? 1 : 0)) +
                          place * nsh + rs * (ng + 2.0 * nc * nsh);
  *bytes = ncell * per_cell + 8.0 * (double)ndof;
  /* per point: u and its reference gradient (and a's), K applied twice; per function and
   * point: the test against f0 and f1 */
  const double per_point = 2.0 * nsh * (nc + na) * (1 + dim) + 4.0 * dim * dim * nc;
  *flops = (double)ncell * nq * (per_point + 2.0 * nsh * nc * (1 + dim));
}

/* One row of the CSV: the run's options and results. */
static void csv_row(FILE *csv, const struct residual_options *o, const char *name, int nc,
                   const struct residual_result *r, int pass)
{
  const double t = o->bench ? r->t_run : 0;
  fprintf(csv, "%s,%s,%s,%s,%ld,%ld,%ld,%d,%d,%lld,%.6g,%.6g,%.6g,%.6g,%.6g,%.4g,%d,%s\n",
          cli_shape_name(o->shape), name, aux_names[o->aux], precision_names[o->single], o->order,
          o->batch, o->batches ? o->batches : 1, nc, r->ncell, (long long)r->ndof, r->t_first, t,
          r->bytes, t > 0 ? r->bytes / t * 1e-9 : 0, t > 0 ? r->flops / t * 1e-9 : 0,
          t > 0 && r->copy_rate > 0 ? r->bytes / t / r->copy_rate : 0, pass,
          kernel_names[o->kernel]);
}

static void report(const struct residual_options *o, const char *name, int dim, int nc,
                   const struct residual_result *r, int pass, FILE *csv, struct cli_json *jp)
{
  const double gbs = o->bench ? r->bytes / r->t_run * 1e-9 : 0;
  const double gfl = o->bench ? r->flops / r->t_run * 1e-9 : 0;
  const double frac = o->bench && r->copy_rate > 0 ? r->bytes / r->t_run / r->copy_rate : 0;
  if (o->json) {
    struct cli_json j0 = {0}, *const j = jp ? jp : &j0;
    cli_json_open(j, NULL, '{');
    cli_json_str(j, "element", cli_shape_name(o->shape));
    cli_json_str(j, "pointwise", name);
    cli_json_str(j, "aux", aux_names[o->aux]);
    cli_json_str(j, "precision", precision_names[o->single]);
    cli_json_int(j, "order", (int)o->order);
    cli_json_str(j, "kernel", kernel_names[o->kernel]);
    cli_json_int(j, "dim", dim);
    cli_json_int(j, "components", nc);
    cli_json_int(j, "cells", r->ncell);
    cli_json_int(j, "dofs", r->ndof);
    cli_json_num(j, "first_s", r->t_first);
    cli_json_num(j, "cpu_opencl_difference", r->cross);
    cli_json_num(j, "sum_error", r->sum_err);
    cli_json_int(j, "same_bits", r->same);
    cli_json_num(j, "residual_s", o->bench ? r->t_run : NAN);
    cli_json_num(j, "bytes", r->bytes);
    cli_json_num(j, "gb_per_s", o->bench ? gbs : NAN);
    cli_json_num(j, "gflops_per_s", o->bench ? gfl : NAN);
    cli_json_num(j, "copy_bytes_per_s", o->bench ? r->copy_rate : NAN);
    cli_json_num(j, "copy_fraction", o->bench ? frac : NAN);
    cli_json_num(j, "copy_fraction_paired", o->bench ? r->paired : NAN);
    if (o->jacobian) {
      cli_json_num(j, "jacobian_first_s", r->jac_first);
      cli_json_num(j, "jacobian_s", o->bench ? r->jac_run : NAN);
      cli_json_int(j, "jacobian_nonzeros", r->jac_nnz);
      cli_json_num(j, "jacobian_fd_difference", r->jac_err);
    }
    cli_json_int(j, "pass", pass);
    cli_json_close(j, '}');
  } else {
    printf("femint residual: %s on %d %s of order %ld, %d component%s, aux %s, %s: %lld DOFs\n",
           name, r->ncell, cli_shape_plural(o->shape), o->order, nc, nc > 1 ? "s" : "",
           aux_names[o->aux], precision_names[o->single], (long long)r->ndof);
    printf("first         %.4f s (geometry, compilation, programs)\n", r->t_first);
    const char *tol = o->single ? "1e-4" : "1e-12";
    if (r->cross >= 0) printf("cpu vs opencl %.3e (relative, 2-norm, < %s)\n", r->cross, tol);
    if (r->sum_err >= 0)
      printf("sum of F      %.3e from the integral of f0 (relative, < %s)\n", r->sum_err, tol);
    printf("repeatable    %s\n", r->same == 2   ? "the same bits twice"
                                   : r->same ? "to 1e-12 (chunks ran on either kind of worker)"
                                             : "NO");
    if (o->bench)
      printf("bench         median %.6f s of %ld: %.3g cells/s, %.1f GB/s, %.1f GFLOP/s, %.2f of the "
             "copy rate (%.1f GB/s); against a copy after each: %.2f\n",
             r->t_run, o->runs, r->ncell / r->t_run, gbs, gfl, frac, r->copy_rate * 1e-9,
             r->paired);
    if (o->jacobian) {
      printf("jacobian      %lld nonzeros, first %.4f s; J v against central differences %.3e "
             "(relative, < %s)\n",
             (long long)r->jac_nnz, r->jac_first, r->jac_err, o->single ? "1e-4" : "1e-6");
      if (o->bench)
        printf("jacobian      median %.6f s of %ld: %.3g cells/s, %.1f M nonzeros/s\n", r->jac_run,
               o->runs, r->ncell / r->jac_run, r->jac_nnz / r->jac_run * 1e-6);
    }
    printf("result        %s\n", pass ? "PASS" : "FAIL");
  }
  if (csv) csv_row(csv, o, name, nc, r, pass);
}

/* --plot: the fraction of the copy rate of Table 2's rows against the cells per batch, one line
 * per batches per work-group, and the cell-per-work-item kernel's level (a warning and no chart
 * without gnuplot). */
static int table2_plot(const struct residual_options *o, const char *name, const double *frac,
                       const int *batch, int nbatch, const int *per, int nper, double level)
{
  if (!cli_have_gnuplot()) {
    fprintf(stderr, "femint: warning: gnuplot is not on the PATH: no chart '%s'\n", o->plot);
    return 0;
  }
  size_t len = 0, cap = 4096;
  char *s = malloc(cap), title[256], text[256];
  cli_append(&s, &len, &cap, "$data << EOD\n");
  for (int b = 0; b < nbatch; b++) {
    cli_append(&s, &len, &cap, "%d", batch[b]);
    for (int k = 0; k < nper; k++) cli_append(&s, &len, &cap, " %.4g", frac[b * nper + k]);
    cli_append(&s, &len, &cap, "\n");
  }
  cli_append(&s, &len, &cap, "EOD\n");
  cli_gnuplot_png(&s, &len, &cap, 900, 550, o->plot);
  snprintf(title, sizeof title, "femint residual: %s, %s of order %ld, aux %s, %s", name,
           cli_shape_plural(o->shape), o->order, aux_names[o->aux], precision_names[o->single]);
  cli_gnuplot_text(text, sizeof text, title);
  cli_append(&s, &len, &cap,
             "set title \"%s\"\nset logscale x 2\nset grid\nset key bottom right\n"
             "set yrange [0:1.05]\nset xlabel \"cells per batch (transposed kernel)\"\n"
             "set ylabel \"fraction of the copy rate\"\nset datafile missing \"nan\"\nplot ",
             text);
  for (int k = 0; k < nper; k++)
    cli_append(&s, &len, &cap,
               "$data using 1:%d with linespoints lw 2 pt 7 title \"%d batch%s per work-group\", ",
               k + 2, per[k], per[k] > 1 ? "es" : "");
  cli_append(&s, &len, &cap, "%.4g with lines dt 2 lw 2 title \"%s (%.2f)\"\nset output\n", level,
             o->kernel == FEMINT_RESIDUAL_TRANSPOSED ? "transposed, default batch"
                                                     : "a cell per work-item",
             level);
  const int rc = s ? cli_gnuplot(s) : -1;
  free(s);
  return rc ? EXIT_RUNTIME : 0;
}

/* --table2: seed 002's Table 2, the transposed kernel timed for each batch size and batches per
 * work-group after the run (level: its fraction of the copy rate); a batch that does not fit the
 * device's local memory is left out. */
static int table2(femint_context_t ctx, femint_space_t s, femint_form_t f,
                  const struct residual_options *o, femint_vector_t vu, femint_vector_t va,
                  const char *name, int nc, const struct residual_result *base, double *F,
                  FILE *csv, double level)
{
  static const int batch[] = {16, 32, 64, 128}, per[] = {1, 4, 16};
  enum { NB = sizeof batch / sizeof *batch, NP = sizeof per / sizeof *per };
  double frac[NB * NP];
  printf("table 2       cells per batch x batches per work-group: fraction of the copy rate\n");
  for (int b = 0; b < NB; b++) {
    printf("  %3d cells  ", batch[b]);
    for (int k = 0; k < NP; k++) {
      struct residual_options t = *o;
      t.kernel = FEMINT_RESIDUAL_TRANSPOSED;
      t.batch = batch[b];
      t.batches = per[k];
      struct residual_result r = *base;
      const int rc = evaluate(ctx, s, f, &t, FEMINT_WHERE_OPENCL, vu, va, o->runs, F, &r.t_first,
                              &r.t_run, &r.same, NULL, NULL);
      if (rc && rc != FEMINT_EINVAL) return cli_fail_runtime(ctx, rc);
      frac[b * NP + k] = rc ? NAN : base->bytes / r.t_run / base->copy_rate;
      printf(rc ? " %2d: (too big)" : " %2d: %.2f", per[k], frac[b * NP + k]);
      if (!rc && csv) csv_row(csv, &t, name, nc, &r, 1);
    }
    printf("\n");
  }
  return o->plot ? table2_plot(o, name, frac, batch, NB, per, NP, level) : 0;
}

/* What the runs of every order share: the mesh, the form, its name and constants, the output. */
struct residual_run {
  femint_context_t ctx;
  femint_mesh_t mesh;
  femint_form_t f;
  const char *name;
  int gallery, nc, nconst, dim;
  const double *k;
  FILE *csv;
  struct cli_json *j; /* the array of the orders' objects (--json with several), or NULL */
};

/* One order: its space (and the field's), u, the evaluations, the checks, the report (and Table
 * 2); 0 when every check passes, else the exit status (a runtime error said on stderr). */
static int run_order(const struct residual_run *rr, const struct residual_options *o)
{
  femint_context_t ctx = rr->ctx;
  const femint_mesh_t mesh = rr->mesh;
  const femint_form_t f = rr->f;
  const char *name = rr->name;
  const int gallery = rr->gallery, nc = rr->nc, nconst = rr->nconst, dim = rr->dim;
  const int ncell = femint_mesh_num_cells(mesh);
  const double *k = rr->k;
  FILE *csv = rr->csv;
  femint_space_t s = NULL, sa = NULL;
  femint_vector_t vu = NULL, va = NULL;
  double *u = NULL, *F = NULL, *G = NULL;
  int status = EXIT_RUNTIME;
  int rc = femint_space_create(ctx, mesh, FEMINT_H1, nc, NULL, (int)o->order, &s);
  if (!rc && o->aux == 1) rc = femint_space_create(ctx, mesh, FEMINT_H1, 1, NULL, (int)o->order, &sa);
  const int64_t n = s ? femint_space_num_dofs(s) : 0;
  u = malloc((n + 1) * sizeof *u), F = malloc((n + 1) * sizeof *F), G = malloc((n + 1) * sizeof *G);
  if (!rc && (!u || !F || !G)) rc = FEMINT_ENOMEM;
  if (!rc) rc = interpolate(s, u);
  if (!rc) rc = femint_vector_create(s, &vu);
  if (!rc) rc = femint_vector_set_values(vu, u);
  if (!rc && sa) {
    double *a = malloc((size_t)femint_space_num_dofs(sa) * sizeof *a);
    const double a0[1] = {1}, b0[3] = {0.25, 0, 0};
    rc = a ? femint_space_interpolate_linear(sa, a0, b0, a) : FEMINT_ENOMEM;
    if (!rc) rc = femint_vector_create(sa, &va);
    if (!rc) rc = femint_vector_set_values(va, a);
    free(a);
  }
  struct residual_result r = {.ndof = n, .ncell = ncell, .cross = -1, .sum_err = -1,
                              .jac_err = -1};
  struct femint_refel_info info;
  femint_refel_info(o->shape, FEMINT_H1, (int)o->order, &info);
  bench_model(o, dim, nc, info.nsh, info.nq, femint_mesh_num_nodes(mesh) == dim + 1, ncell, n,
              &r.bytes, &r.flops);
  const struct pairing pair = {cli_copy_device(ctx, o->where), cli_copy_bytes(r.bytes), r.bytes};
  if (!rc)
    rc = evaluate(ctx, s, f, o, o->where, vu, va, o->bench ? o->runs : 0, F, &r.t_first, &r.t_run,
                  &r.same, o->bench ? &pair : NULL, &r.paired);
  if (!rc && o->jacobian) rc = jacobian_run(ctx, s, f, o, vu, va, u, &r);
  int ncpu = 0;
  femint_context_workers(ctx, &ncpu, NULL, NULL);
  /* (an OpenCL device still in service) */
  if (!rc && o->where == FEMINT_WHERE_ANY && ncpu > 0 && cli_copy_device(ctx, o->where) >= 0) {
    /* the two kinds of worker alone */
    rc = evaluate(ctx, s, f, o, FEMINT_WHERE_CPU, vu, va, 0, F, NULL, NULL, NULL, NULL, NULL);
    if (!rc)
      rc = evaluate(ctx, s, f, o, FEMINT_WHERE_OPENCL, vu, va, 0, G, NULL, NULL, NULL, NULL, NULL);
    if (!rc) r.cross = rel_diff(n, G, F);
  }
  /* the sum over each component's DOFs: the integral of a constant f0 (no DOF removed) */
  const double f0 = !gallery ? NAN
                    : !strcmp(name, "poisson")    ? (nconst ? -k[0] : 0)
                    : !strcmp(name, "plaplace")   ? -k[1]
                    : !strcmp(name, "elasticity") ? 0
                                                  : NAN;
  double measure = 0;
  if (!rc && isfinite(f0)) rc = femint_mesh_volume(mesh, &measure);
  if (!rc && isfinite(f0)) {
    double scale = 0;
    r.sum_err = 0;
    for (int64_t i = 0; i < n; i++) scale = fmax(scale, fabs(F[i]));
    for (int c = 0; c < nc; c++) {
      double sum = 0;
      for (int64_t i = c; i < n; i += nc) sum += F[i];
      r.sum_err = fmax(r.sum_err, fabs(sum - f0 * measure) / fmax(scale * n, 1e-300));
    }
  }
  if (rc) {
    cli_fail_runtime(ctx, rc);
    goto done;
  }
  if (o->bench) {
    rc = femint_bench_copy(ctx, cli_copy_device(ctx, o->where), cli_copy_bytes(r.bytes),
                           &r.copy_rate);
    if (rc) {
      cli_fail_runtime(ctx, rc);
      goto done;
    }
  }
  /* on one kind of worker, the same bits */
  const int repeat_ok = r.same == 2 || (r.same && o->where == FEMINT_WHERE_ANY);
  const double tol = o->single ? 1e-4 : 1e-12;
  const int pass = repeat_ok && (r.cross < 0 || r.cross < tol) &&
                   (r.sum_err < 0 || r.sum_err < tol) &&
                   (r.jac_err < 0 || r.jac_err < (o->single ? 1e-4 : 1e-6));
  report(o, name, dim, nc, &r, pass, csv, rr->j);
  status = pass ? 0 : EXIT_RUNTIME;
  if (o->table2 && cli_copy_device(ctx, o->where) < 0) {
    status = cli_fail("--table2: no OpenCL device is in service");
  } else if (o->table2) {
    const int t2 = table2(ctx, s, f, o, vu, va, name, nc, &r, G, csv,
                          r.bytes / r.t_run / r.copy_rate);
    if (t2) status = t2;
  }
done:
  free(u), free(F), free(G);
  femint_vector_destroy(&vu);
  femint_vector_destroy(&va);
  femint_space_destroy(&s);
  femint_space_destroy(&sa);
  return status;
}

int cli_residual_command(int argc, char **argv)
{
  struct residual_options o = {.shape = FEMINT_TRI, .perturb = -1, .runs = 10};
  struct cli_args args;
  int status = cli_parse(&cli_residual_cmd, argc, argv, &o, &args);
  if (status) return status < 0 ? 0 : status;
  const int dim = o.shape == FEMINT_TRI ? 2 : 3;
  if (o.orders.n == 0) o.orders = (struct cli_orders){1, {1}};
  for (int i = 0; i < o.orders.n; i++)
    if (o.orders.p[i] < 1 || o.orders.p[i] > 3)
      return cli_fail_usage("--order %d: the Lagrange %s have orders 1..3", o.orders.p[i],
                            cli_shape_plural(o.shape));
  if (o.table2 && (!o.bench || o.where == FEMINT_WHERE_CPU || o.batch || o.batches || o.json))
    return cli_fail_usage("--table2: with --bench, on an OpenCL device (--where any or opencl), "
                          "without --batch and --batches (it sets them) and without --json (it "
                          "prints a table; --csv writes its rows)");
  if (o.plot && !o.table2) return cli_fail_usage("--plot: draws --table2's rows; add --table2");
  if (o.mesh.kind == CLI_MESH_NONE)
    o.mesh = dim == 2 ? (struct cli_mesh){CLI_MESH_RECT, 256, 256, 1, NULL}
                      : (struct cli_mesh){CLI_MESH_BOX, 24, 24, 24, NULL};
  char text[300];
  cli_mesh_text(&o.mesh, text, sizeof text);
  if (o.mesh.kind == CLI_MESH_BOX && dim == 2 && o.mesh.nz == 1) o.mesh.kind = CLI_MESH_RECT;
  if (o.mesh.kind != CLI_MESH_GMSH && o.mesh.kind != (dim == 2 ? CLI_MESH_RECT : CLI_MESH_BOX))
    return cli_fail_usage("--mesh %s: --element %s takes %s or a Gmsh file", text,
                            cli_shape_name(o.shape), dim == 2 ? "rect:NX,NY" : "box:NX,NY,NZ");
  if (o.mesh.kind == CLI_MESH_GMSH && (o.perturb >= 0 || o.curved > 0))
    return cli_fail_usage("--%s: for generated meshes, not --mesh %s",
                          o.perturb >= 0 ? "perturb" : "curved", text);
  const char *what = o.pointwise ? o.pointwise : "gallery:poisson", *source = NULL;
  const int gallery = !strncmp(what, "gallery:", 8);
  if (gallery && o.components)
    return cli_fail_usage("--components: the gallery's forms know theirs (--pointwise %s)", what);
  char *owned;
  if ((status = read_source(what, &source, &owned))) return status;
  const char *name = gallery ? what + 8 : what;
  const int nc = gallery ? (!strcmp(name, "elasticity") ? dim : 1) : o.components ? (int)o.components : 1;
  double k[16];
  int nconst = gallery ? default_constants(name, k) : 0;
  if (o.constants && (nconst = -parse_constants(o.constants, k)) < 0) {
    free(owned);
    return EXIT_USAGE;
  }
  FILE *csv = o.csv ? fopen(o.csv, "w") : NULL;
  if (o.csv && !csv) {
    free(owned);
    return cli_fail_usage("--csv %s: cannot write it (%s)", o.csv, strerror(errno));
  }
  femint_context_t ctx = NULL;
  femint_mesh_t mesh = NULL;
  femint_form_t f = NULL;
  double *acell = NULL;
  struct femint_init_options iopt = {.nopencl = o.where == FEMINT_WHERE_CPU ? 0 : -1,
                                     .quiet = !o.verbose};
  status = EXIT_RUNTIME;
  if (cli_init(&iopt, &ctx)) goto done;
  struct cli_setup cs = {.shape = o.shape, .mesh = o.mesh, .perturb = o.perturb < 0 ? 0.2 : o.perturb,
                         .seed = 1, .curved = o.curved};
  int rc = cli_setup_mesh(ctx, &cs, &mesh);
  if (!rc && femint_mesh_shape(mesh) != o.shape)
    rc = cli_fail("%s: its cells are %s, not %s", text, cli_shape_plural(femint_mesh_shape(mesh)),
                  cli_shape_plural(o.shape));
  if (rc) {
    if (rc < 0) cli_fail_runtime(ctx, rc);
    goto done;
  }
  const int ncell = femint_mesh_num_cells(mesh);
  acell = malloc(((size_t)ncell + 1) * sizeof *acell);
  if (!acell) rc = FEMINT_ENOMEM;
  for (int c = 0; !rc && c < ncell; c++) acell[c] = 1 + 0.1 * (c % 7);
  struct femint_pointwise pw = {.source = source, .name = name, .ncomp = nc, .aux = o.aux,
                                .naux = o.aux ? 1 : 0, .ncell_aux = o.aux == 2 ? ncell : 0,
                                .aux_cell = o.aux == 2 ? acell : NULL, .nconst = nconst,
                                .constants = k};
  if (!rc) rc = femint_form_create_pointwise(ctx, &pw, &f);
  if (rc) {
    cli_fail_runtime(ctx, rc);
    goto done;
  }
  if (csv)
    fprintf(csv, "element,pointwise,aux,precision,order,batch,batches,components,cells,dofs,"
                 "first_s,residual_s,bytes,gb_per_s,gflops_per_s,copy_fraction,pass,kernel\n");
  struct cli_json j = {0};
  const int many = o.orders.n > 1;
  const struct residual_run rr = {ctx, mesh, f, name, gallery, nc, nconst, dim, k, csv,
                                  o.json && many ? &j : NULL};
  if (o.json && many) cli_json_open(&j, NULL, '[');
  status = 0;
  for (int i = 0; i < o.orders.n; i++) { /* each order in turn; the first failure's status */
    struct residual_options one = o;
    one.order = o.orders.p[i];
    const int st = run_order(&rr, &one);
    if (st && !status) status = st;
  }
  if (o.json && many) cli_json_close(&j, ']');
  fflush(stdout); /* before the runtime stops: what is printed stays printed */
done:
  if (csv && fclose(csv) != 0 && status == 0)
    status = cli_fail("--csv %s: cannot write it (%s)", o.csv, strerror(errno));
  free(acell), free(owned);
  femint_form_destroy(&f);
  femint_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  return status;
}
