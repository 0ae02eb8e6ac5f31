/* femint run and femint bench with --element tet: the Maxwell matrices T and S of H(curl)
 * tetrahedra (seed 004), their verification, and per-phase times like the seed's Table 2. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char cli_maxwell_run_usage[] =
  "Usage: femint run --element tet [OPTIONS]\n"
  "\n"
  "Builds a box of cubes cut into 6 tetrahedra each (curved by --curved), the H(curl) space of\n"
  "one order with perfect electric conductor walls, assembles the mass matrix T and the\n"
  "curl-curl matrix S on every worker (COO, then CSR on the device that gathers the COO data)\n"
  "and verifies them (symmetry, positive diagonal of T, discrete gradients in the kernel of S).\n"
  "\n"
  "Options:\n"
  "  --space hcurl            the space (the only one for tetrahedra)\n"
  "  --problem maxwell        T (eps_r) and S (1/mu_r) (the only problem for tetrahedra)\n"
  "  --order P                1, 2 or 3: 6, 20 or 45 functions per cell (default 3)\n"
  "  --mesh box:NX,NY,NZ      NX*NY*NZ unit cubes (default box:4,4,4)\n"
  "  --mesh gmsh:FILE         the 4- or 10-node tetrahedra of a Gmsh MSH file (a FILE ending in\n"
  "                           .msh needs no prefix); boundary faces keep their physical tags\n"
  "  --curved A               quadratic (10-node) cells moved by A sin(pi x) sin(pi y) sin(pi z)\n"
  "                           (1, 1, 1) over the box, 0 <= A < 0.5 (default 0: straight)\n"
  "  --pec all|none           PEC walls on every boundary face or none (default all)\n"
  "  --eps X, --mu X          relative permittivity and permeability (default 1)\n"
  "  --precision single|double  (default double)\n"
  "  --where any|cpu|opencl   workers that may integrate (default any)\n"
  "  --batch N                most cells per task; 0 chooses (default 0)\n"
  "  --phases                 wait for each phase before the next (per-phase times)\n"
  "  --output PREFIX          write PREFIX-T.mtx and PREFIX-S.mtx (Matrix Market)\n"
  "  --json, --quiet, --verbose, --help\n";

struct maxwell_cli {
  int order, nx, ny, nz, pec, phases, json, quiet, verbose;
  double curved, eps, mu;
  struct femint_maxwell_options opt;
  const char *output, *file;
  int runs, bench;
};

int cli_is_tet(int argc, char **argv)
{
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--element=tet") == 0) return 1;
    if (strcmp(argv[i], "--element") == 0 && i + 1 < argc && strcmp(argv[i + 1], "tet") == 0)
      return 1;
  }
  return 0;
}

static int parse(int argc, char **argv, struct maxwell_cli *o, const char *usage)
{
  static const char *const with_value[] = {"--element", "--space", "--problem", "--order",
                                           "--mesh", "--curved", "--pec", "--eps", "--mu",
                                           "--precision", "--where", "--batch", "--output",
                                           "--runs", NULL};
  static const char *const flags[] = {"--json", "--quiet", "--verbose", "--phases", NULL};
  static const char *const pec_names[] = {"all", "none"};
  char name[32];
  const char *v;
  long n;
  int c;
  for (int i = 2; i < argc; i++) {
    if (cli_next_option(argc, argv, &i, name, sizeof name, &v, with_value, flags))
      return EXIT_USAGE;
    if (strcmp(name, "--help") == 0) {
      fputs(usage, stdout);
      return -1;
    } else if (strcmp(name, "--json") == 0) {
      o->json = 1;
    } else if (strcmp(name, "--quiet") == 0) {
      o->quiet = 1;
    } else if (strcmp(name, "--verbose") == 0) {
      o->verbose = 1;
    } else if (strcmp(name, "--phases") == 0) {
      o->opt.phases = 1;
    } else if (strcmp(name, "--element") == 0) {
      if (strcmp(v, "tet") != 0) return cli_fail_usage("--element: expected tet, got '%s'", v);
    } else if (strcmp(name, "--space") == 0) {
      if (strcmp(v, "hcurl") != 0)
        return cli_fail_usage("--space: tetrahedra have the H(curl) space (hcurl), not '%s'", v);
    } else if (strcmp(name, "--problem") == 0) {
      if (strcmp(v, "maxwell") != 0)
        return cli_fail_usage("--problem: tetrahedra solve maxwell, not '%s'", v);
    } else if (strcmp(name, "--order") == 0) {
      if (cli_parse_count(v, &n) || n < 1 || n > 3)
        return cli_fail_usage("--order: H(curl) tetrahedra have orders 1, 2 and 3, not '%s'", v);
      o->order = (int)n;
    } else if (strcmp(name, "--mesh") == 0) {
      struct cli_mesh m;
      if (cli_parse_mesh(v, &m)) return EXIT_USAGE;
      if (m.kind != CLI_MESH_BOX && m.kind != CLI_MESH_GMSH)
        return cli_fail_usage("--mesh: tetrahedra come from box:NX,NY,NZ or gmsh:FILE, not '%s'",
                              v);
      o->nx = m.nx, o->ny = m.ny, o->nz = m.nz;
      o->file = m.kind == CLI_MESH_GMSH ? m.file : NULL;
    } else if (strcmp(name, "--curved") == 0) {
      if (cli_parse_real(v, &o->curved) || !(o->curved >= 0 && o->curved < 0.5))
        return cli_fail_usage("--curved: expected an amplitude in [0, 0.5), got '%s'", v);
    } else if (strcmp(name, "--pec") == 0) {
      if ((c = cli_parse_choice("--pec", v, pec_names, 2)) < 0) return EXIT_USAGE;
      o->pec = c == 0;
    } else if (strcmp(name, "--eps") == 0 || strcmp(name, "--mu") == 0) {
      double x;
      if (cli_parse_real(v, &x) || !(x > 0 && isfinite(x)))
        return cli_fail_usage("%s: expected a positive number, got '%s'", name, v);
      *(name[2] == 'e' ? &o->eps : &o->mu) = x;
    } else if (strcmp(name, "--precision") == 0) {
      if ((c = cli_parse_choice("--precision", v, cli_precision_names, 2)) < 0) return EXIT_USAGE;
      o->opt.precision = c == 0 ? FEMINT_DOUBLE : FEMINT_SINGLE;
    } else if (strcmp(name, "--where") == 0) {
      if ((c = cli_parse_choice("--where", v, cli_where_names, 3)) < 0) return EXIT_USAGE;
      o->opt.where = c == 0 ? FEMINT_WHERE_ANY : c == 1 ? FEMINT_WHERE_CPU : FEMINT_WHERE_OPENCL;
    } else if (strcmp(name, "--batch") == 0) {
      if (cli_parse_count(v, &n) || n > 1 << 30)
        return cli_fail_usage("--batch: expected a number of cells (0 chooses), got '%s'", v);
      o->opt.max_batch = (int)n;
    } else if (strcmp(name, "--runs") == 0 && o->bench) {
      if (cli_parse_count(v, &n) || n < 1 || n > 100)
        return cli_fail_usage("--runs: expected 1..100, got '%s'", v);
      o->runs = (int)n;
    } else if (strcmp(name, "--output") == 0 && !o->bench) {
      o->output = v;
    } else {
      return cli_fail_usage("unknown option '%s' for tetrahedra", name);
    }
  }
  if (o->file && o->curved > 0)
    return cli_fail_usage("--curved: for box meshes; a Gmsh file brings its own 10-node cells");
  if (!o->file && (long)o->nx * o->ny * o->nz * 6 > CLI_MAX_CELLS)
    return cli_fail_usage("--mesh: %ld cells is too many", (long)o->nx * o->ny * o->nz * 6);
  return 0;
}

/* The mesh, the space, and the context of a run. */
static int setup(const struct maxwell_cli *o, femint_context_t *ctx, femint_tet_mesh_t *mesh,
                 femint_maxwell_t *mx)
{
  struct femint_init_options iopt = {.nopencl = o->opt.where == FEMINT_WHERE_CPU ? 0 : -1,
                                     .quiet = !o->verbose};
  /* A file is read before StarPU starts, so that a bad one fails fast. */
  if (o->file && femint_tet_mesh_read_gmsh(NULL, o->file, mesh)) return cli_fail_runtime(NULL, 0);
  if (cli_init(&iopt, ctx)) {
    femint_tet_mesh_destroy(mesh);
    return EXIT_RUNTIME;
  }
  int rc = o->file ? 0
                   : femint_tet_mesh_create_box(*ctx, o->nx, o->ny, o->nz, o->nx, o->ny, o->nz,
                                                mesh);
  if (!rc && o->curved > 0) rc = femint_tet_mesh_warp(*mesh, o->curved);
  if (!rc) rc = femint_maxwell_create(*ctx, *mesh, o->order, o->pec ? ~0u : 0u, mx);
  return rc ? cli_fail_runtime(*ctx, rc) : 0;
}

struct check {
  const char *name;
  double value, tol;
  int pass;
};

/* Symmetry of T and S, the positive diagonal of T, and S G phi = 0 for random vertex values. */
static int verify(femint_tet_mesh_t mesh, femint_maxwell_t mx, femint_matrix_t T,
                  femint_matrix_t S, struct check *c)
{
  int64_t n;
  const int64_t *rp, *ci;
  const double *tv, *sv;
  femint_matrix_csr(T, &n, &rp, &ci, &tv);
  femint_matrix_csr(S, NULL, NULL, NULL, &sv);
  const int nv = femint_tet_mesh_num_vertices(mesh);
  double *phi = malloc(sizeof *phi * (nv + 1)), *u = malloc(sizeof *u * (n + 1)),
         *y = malloc(sizeof *y * (n + 1));
  if (!phi || !u || !y) {
    free(phi), free(u), free(y);
    fprintf(stderr, "femint: out of memory while verifying\n");
    return EXIT_RUNTIME;
  }
  double asym = 0, tmax = 0, smax = 0, dmin = INFINITY;
  for (int64_t r = 0; r < n; r++)
    for (int64_t k = rp[r]; k < rp[r + 1]; k++) {
      const int64_t col = ci[k];
      tmax = fmax(tmax, fabs(tv[k]));
      smax = fmax(smax, fabs(sv[k]));
      if (col == r) dmin = fmin(dmin, tv[k]);
      /* the transposed entry, by bisection in row col */
      int64_t lo = rp[col], hi = rp[col + 1];
      while (lo < hi) {
        const int64_t mid = (lo + hi) / 2;
        if (ci[mid] < r) lo = mid + 1;
        else hi = mid;
      }
      if (lo == rp[col + 1] || ci[lo] != r) asym = INFINITY;
      else asym = fmax(asym, fmax(fabs(tv[k] - tv[lo]), fabs(sv[k] - sv[lo])));
    }
  uint64_t s = 88172645463325252ull;
  for (int v = 0; v < nv; v++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    phi[v] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
  }
  femint_maxwell_gradient(mx, phi, u);
  femint_matrix_mult(S, u, y);
  double su = 0, un = 0;
  for (int64_t i = 0; i < n; i++) su = fmax(su, fabs(y[i])), un = fmax(un, fabs(u[i]));
  free(phi), free(u), free(y);
  const double scale = fmax(tmax, smax);
  c[0] = (struct check){"symmetry", asym / scale, 1e-12, asym <= 1e-12 * scale};
  c[1] = (struct check){"min_diag_T", dmin / tmax, 0, n == 0 || dmin > 0};
  c[2] = (struct check){"gradients_S", un > 0 ? su / (smax * un) : 0, 1e-10,
                        un > 0 ? su <= 1e-10 * smax * un : 1};
  return 0;
}

static void print_stats(const struct maxwell_cli *o, femint_tet_mesh_t mesh,
                        const struct femint_maxwell_stats *st, const struct check *c, int nc,
                        int pass, double t_init)
{
  const char *prec = o->opt.precision == FEMINT_SINGLE ? "single" : "double";
  if (o->json) {
    printf("{\"femint\":");
    cli_json_string(PACKAGE_VERSION);
    printf(",\"element\":\"tet\",\"space\":\"hcurl\",\"problem\":\"maxwell\",\"order\":%d,"
           "\"mesh\":{\"type\":\"%s\",\"nx\":%d,\"ny\":%d,\"nz\":%d,\"nodes\":%d,\"cells\":%d},"
           "\"precision\":\"%s\",\"dofs\":%lld,\"nnz\":%lld,\"coo_slots\":%lld,\"batches\":%d,"
           "\"tasks_cpu\":%d,\"tasks_opencl\":%d,\"times_s\":{\"init\":",
           o->order, o->file ? "gmsh" : "box", o->nx, o->ny, o->nz,
           femint_tet_mesh_num_nodes(mesh), st->ncell, prec,
           (long long)st->ndof, (long long)st->nnz, (long long)st->nslot, st->nbatch,
           st->tasks_cpu, st->tasks_opencl);
    const double t[] = {t_init,         st->t_programs, st->t_pattern, st->t_pack,
                        st->t_integrate, st->t_sum,     st->t_download, st->t_total};
    const char *names[] = {"init", "kernels", "pattern", "pack", "integrate", "sum", "download",
                           "total"};
    for (int k = 0; k < 8; k++) {
      if (k) printf(",\"%s\":", names[k]);
      cli_json_number(t[k]);
    }
    printf("},\"checks\":[");
    for (int k = 0; k < nc; k++) {
      printf("%s{\"name\":\"%s\",\"value\":", k ? "," : "", c[k].name);
      cli_json_number(c[k].value);
      printf(",\"pass\":%s}", c[k].pass ? "true" : "false");
    }
    printf("],\"pass\":%s}\n", pass ? "true" : "false");
    return;
  }
  if (o->quiet) return;
  printf("femint %s: Maxwell matrices of H(curl) tetrahedra\n", PACKAGE_VERSION);
  if (o->file) printf("  mesh       %s: ", o->file);
  else printf("  mesh       box %dx%dx%d: ", o->nx, o->ny, o->nz);
  printf("%d %s tetrahedra (%d nodes)\n", st->ncell,
         femint_tet_mesh_num_nodes(mesh) == 10 ? "curved" : "straight",
         femint_tet_mesh_num_nodes(mesh));
  printf("  space      order %d, %lld DOFs (PEC walls: %s)\n", o->order, (long long)st->ndof,
         o->pec ? "all" : "none");
  printf("  matrices   T and S: %lld non-zeros each, from %lld COO triplets\n",
         (long long)st->nnz, (long long)st->nslot);
  printf("  tasks      %d batches, %d integration tasks on CPU, %d on OpenCL, %s\n", st->nbatch,
         st->tasks_cpu, st->tasks_opencl, prec);
  printf("  time [s]   init %.3f  kernels %.3f  pattern %.3f  pack %.3f  integrate %.3f  "
         "sum %.3f  download %.3f  total %.3f\n",
         t_init, st->t_programs, st->t_pattern, st->t_pack, st->t_integrate, st->t_sum,
         st->t_download, st->t_total);
  for (int k = 0; k < nc; k++)
    printf("  check      %-12s %.3e  %s\n", c[k].name, c[k].value, c[k].pass ? "ok" : "FAILED");
  printf("  result     %s\n", pass ? "verified" : "FAILED");
}

static int write_outputs(femint_context_t ctx, const char *prefix, femint_matrix_t T,
                         femint_matrix_t S)
{
  const size_t len = strlen(prefix) + 8;
  char *path = malloc(len);
  int rc = path ? 0 : FEMINT_ENOMEM;
  for (int which = 0; which < 2 && !rc; which++) {
    snprintf(path, len, "%s-%c.mtx", prefix, which ? 'S' : 'T');
    rc = femint_matrix_write_mm(ctx, which ? S : T, path);
  }
  free(path);
  return rc;
}

int cli_maxwell_run(int argc, char **argv)
{
  struct maxwell_cli o = {.order = 3, .nx = 4, .ny = 4, .nz = 4, .pec = 1, .eps = 1, .mu = 1};
  int status = parse(argc, argv, &o, cli_maxwell_run_usage);
  if (status) return status < 0 ? 0 : status;
  if (o.output) {
    char path[4096];
    snprintf(path, sizeof path, "%s-T.mtx", o.output);
    if (cli_check_writable(path)) return EXIT_USAGE;
  }
  femint_context_t ctx = NULL;
  femint_tet_mesh_t mesh = NULL;
  femint_maxwell_t mx = NULL;
  femint_matrix_t T = NULL, S = NULL;
  const double t0 = cli_now();
  status = setup(&o, &ctx, &mesh, &mx);
  const double t_init = cli_now() - t0;
  struct femint_maxwell_stats st;
  struct check c[3] = {{0}};
  if (!status) {
    const double eps[9] = {o.eps, 0, 0, 0, o.eps, 0, 0, 0, o.eps};
    const double mu[9] = {o.mu, 0, 0, 0, o.mu, 0, 0, 0, o.mu};
    int rc = femint_maxwell_assemble(ctx, mx, 1, eps, mu, &o.opt, &T, &S, &st);
    if (!rc && o.output) rc = write_outputs(ctx, o.output, T, S);
    status = rc ? cli_fail_runtime(ctx, rc) : verify(mesh, mx, T, S, c);
  }
  if (!status) {
    int pass = 1;
    for (int k = 0; k < 3; k++) pass &= c[k].pass;
    print_stats(&o, mesh, &st, c, 3, pass, t_init);
    if (o.quiet && !pass)
      for (int k = 0; k < 3; k++)
        if (!c[k].pass)
          fprintf(stderr, "femint: verification failed: %s = %.3e\n", c[k].name, c[k].value);
    status = pass ? 0 : EXIT_RUNTIME;
  }
  femint_matrix_destroy(&T);
  femint_matrix_destroy(&S);
  femint_maxwell_destroy(&mx);
  femint_tet_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  return status;
}

const char cli_maxwell_bench_usage[] =
  "Usage: femint bench --element tet [OPTIONS]\n"
  "\n"
  "Times the phases of the Maxwell assembly (seed 004's Table 2): the pattern (first run only),\n"
  "packing, integration of T and S, the COO -> CSR sums and the download, waiting for each\n"
  "phase, on the CPU workers alone and with the OpenCL workers; the best of --runs runs after\n"
  "the first.\n"
  "\n"
  "Options: --order P (default 3), --mesh box:NX,NY,NZ (default box:4,4,4), --curved A,\n"
  "  --precision, --batch N, --runs N (default 3), --json, --quiet, --verbose, --help\n";

struct phase_row {
  const char *where;
  struct femint_maxwell_stats first, best;
};

static int bench_where(const struct maxwell_cli *o, femint_context_t ctx, femint_tet_mesh_t mesh,
                       int where, struct phase_row *row)
{
  femint_maxwell_t mx = NULL;
  int rc = femint_maxwell_create(ctx, mesh, o->order, o->pec ? ~0u : 0u, &mx);
  const double eps[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  struct femint_maxwell_options opt = o->opt;
  opt.where = where;
  opt.phases = 1;
  for (int r = 0; r <= o->runs && !rc; r++) {
    femint_matrix_t T = NULL, S = NULL;
    struct femint_maxwell_stats st;
    rc = femint_maxwell_assemble(ctx, mx, 1, eps, NULL, &opt, &T, &S, &st);
    femint_matrix_destroy(&T);
    femint_matrix_destroy(&S);
    if (rc) break;
    if (r == 0) row->first = st;
    else if (r == 1 || st.t_total - st.t_pack < row->best.t_total - row->best.t_pack) row->best = st;
  }
  femint_maxwell_destroy(&mx);
  return rc;
}

int cli_maxwell_bench(int argc, char **argv)
{
  struct maxwell_cli o = {.order = 3, .nx = 4, .ny = 4, .nz = 4, .pec = 1, .eps = 1, .mu = 1,
                          .runs = 3, .bench = 1};
  int status = parse(argc, argv, &o, cli_maxwell_bench_usage);
  if (status) return status < 0 ? 0 : status;
  femint_context_t ctx = NULL;
  femint_tet_mesh_t mesh = NULL;
  femint_maxwell_t mx = NULL;
  status = setup(&o, &ctx, &mesh, &mx);
  femint_maxwell_destroy(&mx);
  struct phase_row rows[2] = {{"cpu", {0}, {0}}, {"cpu+opencl", {0}, {0}}};
  int nrow = 0, nocl = 0;
  if (!status) femint_context_workers(ctx, NULL, &nocl, NULL);
  for (int k = 0; k < 2 && !status; k++) {
    if (k == 1 && nocl == 0) break;
    const int rc = bench_where(&o, ctx, mesh, k ? FEMINT_WHERE_ANY : FEMINT_WHERE_CPU, &rows[k]);
    if (rc) status = cli_fail_runtime(ctx, rc);
    else nrow++;
  }
  if (!status && o.json) {
    printf("{\"femint\":");
    cli_json_string(PACKAGE_VERSION);
    printf(",\"element\":\"tet\",\"order\":%d,\"cells\":%d,\"nodes\":%d,\"precision\":\"%s\","
           "\"rows\":[",
           o.order, femint_tet_mesh_num_cells(mesh), femint_tet_mesh_num_nodes(mesh),
           o.opt.precision == FEMINT_SINGLE ? "single" : "double");
    for (int k = 0; k < nrow; k++) {
      const struct femint_maxwell_stats *b = &rows[k].best;
      printf("%s{\"where\":\"%s\",\"dofs\":%lld,\"nnz\":%lld,\"tasks_cpu\":%d,\"tasks_opencl\":%d,"
             "\"pattern_s\":",
             k ? "," : "", rows[k].where, (long long)b->ndof, (long long)b->nnz, b->tasks_cpu,
             b->tasks_opencl);
      cli_json_number(rows[k].first.t_pattern);
      const double t[] = {b->t_pack, b->t_integrate, b->t_sum, b->t_download,
                          b->t_total - b->t_pack, rows[k].first.t_total};
      const char *names[] = {"pack_s", "integrate_s", "sum_s", "download_s", "generation_s",
                             "first_total_s"};
      for (int i = 0; i < 6; i++) {
        printf(",\"%s\":", names[i]);
        cli_json_number(t[i]);
      }
      printf("}");
    }
    printf("]}\n");
  } else if (!status && !o.quiet) {
    printf("femint bench: Maxwell matrices, order %d, %d %s tetrahedra, %s\n", o.order,
           femint_tet_mesh_num_cells(mesh),
           femint_tet_mesh_num_nodes(mesh) == 10 ? "curved" : "straight",
           o.opt.precision == FEMINT_SINGLE ? "single" : "double");
    printf("%-11s %9s %10s %10s %9s %9s %9s %9s %10s %9s\n", "workers", "DOFs", "nnz",
           "pattern_s", "pack_s", "integr_s", "sum_s", "down_s", "T+S_s", "tasks");
    for (int k = 0; k < nrow; k++) {
      const struct femint_maxwell_stats *b = &rows[k].best;
      char tasks[32];
      snprintf(tasks, sizeof tasks, "%d/%d", b->tasks_cpu, b->tasks_opencl);
      printf("%-11s %9lld %10lld %10.4f %9.4f %9.4f %9.4f %9.4f %10.4f %9s\n", rows[k].where,
             (long long)b->ndof, (long long)b->nnz, rows[k].first.t_pattern, b->t_pack,
             b->t_integrate, b->t_sum, b->t_download, b->t_total - b->t_pack, tasks);
    }
    printf("(T+S: integration, sums and download of a later run, the pattern kept; tasks: "
           "integration tasks on CPU/OpenCL)\n");
  }
  femint_tet_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  return status;
}
