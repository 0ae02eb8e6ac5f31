/* The femint command: integrates and assembles a weak form on a perturbed box of prisms or a Gmsh
 * mesh on every CPU and OpenCL worker and verifies the matrix (run), prints reference-element
 * sizes (refel) and the workers StarPU found (info); bench.c and plan.c hold the other commands.
 * It uses only the public header include/femint.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity */
#endif
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct run_options {
  int shape; /* enum femint_shape */
  struct cli_mesh mesh;
  int mesh_given;
  double perturb;
  unsigned seed;
  int norders;
  int orders[CLI_MAX_ORDERS];
  int problem;
  int precision;
  int where;
  int max_batch;
  int variant, symmetric;
  const char *output;
  const char *timeline; /* a Gantt chart PNG; its CSV goes next to it */
  int json, quiet, verbose;
};

/* One verification: pass is value < tolerance, or value > tolerance when above is set. */
struct check {
  char name[64];
  double value, tolerance;
  int above, pass;
};

static const char usage_text[] =
  "Usage: femint COMMAND [OPTIONS]\n"
  "\n"
  "Finite element numerical integration and assembly on CPU and OpenCL workers (StarPU).\n"
  "\n"
  "Commands:\n"
  "  run      integrate and assemble a form on a box of prisms or a Gmsh mesh, verify the\n"
  "           matrix\n"
  "  refel    sizes of the reference element: shape functions, quadrature points, degree\n"
  "  info     the CPU and OpenCL workers StarPU found\n"
  "  bench    time the stages of integration per element for each order and kernel variant\n"
  "           (seed 000's Tables 5-7), or measure co-execution efficiency (--coexec)\n"
  "  plan     how the kernel of an order is laid out on an OpenCL device (seed 000's Tables\n"
  "           3-4)\n"
  "  help     this text ('femint COMMAND --help' describes a command)\n"
  "\n"
  "Options: --help, --version. Exit status: 0 success, 1 run-time failure or failed\n"
  "verification, 2 bad usage.\n";

static const char run_usage_text[] =
  "Usage: femint run [OPTIONS]\n"
  "\n"
  "Builds a box of hexahedra cut into prisms, with interior vertices moved at random, or reads a\n"
  "prism mesh from a Gmsh file (or, with --element quad, a rectangle of quadrilaterals or a\n"
  "curved annulus sector), then a space of hierarchical H1 fields of mixed orders,\n"
  "integrates the weak form on every worker, assembles a CSR matrix and verifies it (symmetry,\n"
  "null space or volume, positive diagonal).\n"
  "\n"
  "Options:\n"
  "  --element prism|quad|tet element shape: 3D prisms (seed 000) or 2D quadrilaterals with\n"
  "                           Lobatto bases (seed 003) (default prism); tet: the Maxwell\n"
  "                           matrices of H(curl) tetrahedra (seed 004), whose options\n"
  "                           'femint run --element tet --help' lists\n"
  "  --order P | P1-P2 | P1,P2,...\n"
  "                           orders 1..7; cell c gets the (c mod n)-th order of the list\n"
  "                           (default 1-4)\n"
  "  --mesh box:NX,NY,NZ | gmsh:FILE\n"
  "                           NX*NY*NZ unit hexahedra, 2 prisms each (default box:6,6,4),\n"
  "                           or the 6-node prisms of a Gmsh MSH file (2.2, 4.1 ASCII or binary);\n"
  "                           a FILE ending in .msh needs no gmsh: prefix;\n"
  "  --mesh rect:NX,NY | annulus:NR,NT\n"
  "                           quad: NX*NY unit squares (default rect:16,16), or a quarter of\n"
  "                           the annulus 1 <= r <= 2 in NR x NT curved 8-node cells (its\n"
  "                           verification needs orders >= 2: a curved edge of order 1 does\n"
  "                           not hold a rotation)\n"
  "  --perturb F              box: move interior vertices by up to F times the spacing,\n"
  "                           0 <= F < 0.5 (default 0.2)\n"
  "  --seed N                 box: seed of the perturbation (default 1)\n"
  "  --problem NAME           elasticity (E = 1, nu = 0.3; plane stress on quadrilaterals),\n"
  "                           laplace or mass (default elasticity)\n"
  "  --precision single|double  precision of integration; assembly is double (default double)\n"
  "  --where any|cpu|opencl   workers that may integrate (default any)\n"
  "  --batch N                most cells per batch; 0 chooses (default 0)\n"
  "  --variant NAME           OpenCL kernel: auto (fastest measured), reg_nojac, reg_jac,\n"
  "                           shm_nojac, shm_jac or gemm (default auto)\n"
  "  --symmetric              element matrices travel as their upper half (not for generic forms)\n"
  "  --output FILE.mtx        write the matrix in Matrix Market format\n"
  "  --timeline FILE.png      draw the tasks on each worker as a Gantt chart (gnuplot); the\n"
  "                           tasks go to FILE.csv: worker,kind,codelet,order,cells,\n"
  "                           start_s,end_s,batch,ready_s (ready: when its inputs were\n"
  "                           produced and it went to the scheduler)\n"
  "  --json                   print the summary as one JSON object\n"
  "  --quiet                  print nothing but errors (the exit status tells the result)\n"
  "  --verbose                let StarPU print its own messages (calibration, warnings)\n"
  "  --help                   this text\n";

static const char refel_usage_text[] =
  "Usage: femint refel [--element prism|quad|tet] [--order P] [--json]\n"
  "\n"
  "Prints the number of shape functions N_sh, of quadrature points N_Q, the exactness degree of\n"
  "the quadrature and its triangle and line points; without --order, a table for p = 1..7\n"
  "(1..3 for the H(curl) tetrahedron, whose N_sh counts vector functions and whose rule is a\n"
  "symmetric one).\n"
  "A quadrilateral's N_sh is per displacement component (seed 003's matrices of plane\n"
  "elasticity have 2 N_sh rows); its degree is per variable (Gauss rule of p+1 points).\n";

static const char info_usage_text[] =
  "Usage: femint info [--opencl-device N | --local-rank N|env] [--json] [--quiet]\n"
  "\n"
  "Starts StarPU and lists the CPU workers (OpenMP teams) and OpenCL workers it found, with the\n"
  "process's cpuset and where each worker is bound: the PUs femint gave it (a CPU worker's team,\n"
  "an OpenCL worker's driver core) and those its threads were found bound to. PUs are numbered\n"
  "as taskset numbers them. Run under taskset or an MPI launcher's binding, each process keeps\n"
  "to its own cpuset.\n"
  "\n"
  "Options:\n"
  "  --opencl-device N        drive only OpenCL device N (0-based, StarPU's numbering)\n"
  "  --local-rank N|env       drive only device N modulo the number of devices, N being the\n"
  "                           process's rank on its node; env reads it from\n"
  "                           OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID,\n"
  "                           MV2_COMM_WORLD_LOCAL_RANK or SLURM_LOCALID\n"
  "  --json                   print one JSON object, with the binding of every thread of the\n"
  "                           process (Linux)\n"
  "  --quiet                  StarPU prints no warnings\n"
  "  --help                   this text\n";

/* ---- Verification ---- */

struct entry {
  int64_t col;
  double val;
};

static int entry_cmp(const void *a, const void *b)
{
  int64_t x = ((const struct entry *)a)->col, y = ((const struct entry *)b)->col;
  return (x > y) - (x < y);
}

/* The value at (i, j) of rows sorted by column, 0 when not stored. */
static int find_entry(const int64_t *rowptr, const struct entry *e, int64_t i, int64_t j,
                      double *v)
{
  int64_t lo = rowptr[i], hi = rowptr[i + 1];
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (e[mid].col < j) lo = mid + 1;
    else hi = mid;
  }
  if (lo < rowptr[i + 1] && e[lo].col == j) {
    *v = e[lo].val;
    return 1;
  }
  *v = 0;
  return 0;
}

static void add_check(struct check *c, int *n, const char *name, double value, double tol,
                      int above)
{
  struct check *k = &c[(*n)++];
  snprintf(k->name, sizeof k->name, "%s", name);
  k->value = value;
  k->tolerance = tol;
  k->above = above;
  k->pass = above ? value > tol : value < tol;
}

/* Fills checks (at most 8): symmetry, null space (rotations about centre) or volume, positive
 * diagonal. Returns 0, 1 when out of memory, or a (negative) femint error code. */
static int verify(femint_space_t space, femint_matrix_t A, const struct run_options *o,
                  double volume, const double *centre, struct check *checks, int *nchecks)
{
  int64_t n;
  const int64_t *rowptr, *colind;
  const double *values;
  int rc = femint_matrix_csr(A, &n, &rowptr, &colind, &values);
  if (rc) return rc;
  const double tol = o->precision == FEMINT_SINGLE ? 1e-5 : 1e-12;
  const int64_t nnz = rowptr[n];
  struct entry *e = malloc((nnz ? nnz : 1) * sizeof *e);
  double *r = malloc((n ? n : 1) * sizeof *r), *Ar = malloc((n ? n : 1) * sizeof *Ar);
  if (!e || !r || !Ar) {
    rc = 1;
    goto done;
  }
  double norm2 = 0, asym2 = 0, dmin = INFINITY;
  for (int64_t i = 0; i < n; i++) {
    for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) {
      e[k].col = colind[k], e[k].val = values[k];
      norm2 += values[k] * values[k];
    }
    qsort(e + rowptr[i], (size_t)(rowptr[i + 1] - rowptr[i]), sizeof *e, entry_cmp);
  }
  for (int64_t i = 0; i < n; i++) {
    double d;
    find_entry(rowptr, e, i, i, &d);
    if (d < dmin) dmin = d;
    for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) {
      double t;
      int64_t j = e[k].col;
      int stored = j >= 0 && j < n && find_entry(rowptr, e, j, i, &t);
      double diff = e[k].val - t;
      asym2 += stored ? diff * diff : 2 * e[k].val * e[k].val;
    }
  }
  const double normA = sqrt(norm2);
  add_check(checks, nchecks, "symmetry", normA > 0 ? sqrt(asym2) / normA : INFINITY, tol, 0);

  const int ncomp = femint_space_num_components(space);
  const char *axis = "xyz";
  char name[64];
  if (o->problem == PROBLEM_ELASTICITY) {
    for (int m = 0; m < 6; m++) {
      /* in 2D: the translations along x and y and the rotation about z */
      if (o->shape == FEMINT_QUAD && (m == 2 || m == 3 || m == 4)) continue;
      double a[3] = {0, 0, 0}, b[9] = {0};
      if (m < 3) {
        a[m] = 1;
      } else {
        /* u = e_k x (x - centre): B is the cross-product matrix of e_k, a = -B centre. */
        int k = m - 3, i = (k + 1) % 3, j = (k + 2) % 3;
        b[3 * j + i] = 1, b[3 * i + j] = -1;
        a[j] = -centre[i], a[i] = centre[j];
      }
      if ((rc = femint_space_interpolate_linear(space, a, b, r)) != 0) goto done;
      if ((rc = femint_matrix_mult(A, r, Ar)) != 0) goto done;
      double nr = 0, nAr = 0;
      for (int64_t i = 0; i < n; i++) nr += r[i] * r[i], nAr += Ar[i] * Ar[i];
      snprintf(name, sizeof name, "null space: %s %c", m < 3 ? "translation" : "rotation",
               axis[m % 3]);
      add_check(checks, nchecks, name, sqrt(nAr) / (normA * sqrt(nr)), tol, 0);
    }
  } else if (o->problem == PROBLEM_LAPLACE) {
    double a[5] = {1, 1, 1, 1, 1}, b[15] = {0};
    if ((rc = femint_space_interpolate_linear(space, a, b, r)) != 0) goto done;
    if ((rc = femint_matrix_mult(A, r, Ar)) != 0) goto done;
    double nr = 0, nAr = 0;
    for (int64_t i = 0; i < n; i++) nr += r[i] * r[i], nAr += Ar[i] * Ar[i];
    add_check(checks, nchecks, "null space: constant", sqrt(nAr) / (normA * sqrt(nr)), tol, 0);
  } else {
    for (int c = 0; c < ncomp && c < 3; c++) {
      double a[5] = {0}, b[15] = {0}, s = 0;
      a[c] = 1;
      if ((rc = femint_space_interpolate_linear(space, a, b, r)) != 0) goto done;
      if ((rc = femint_matrix_mult(A, r, Ar)) != 0) goto done;
      for (int64_t i = 0; i < n; i++) s += r[i] * Ar[i];
      snprintf(name, sizeof name, "volume: 1^T M 1 (component %c)", axis[c]);
      add_check(checks, nchecks, name, fabs(s - volume) / volume, tol, 0);
    }
  }
  add_check(checks, nchecks, "positive diagonal", n > 0 ? dmin : 0, 0, 1);
done:
  free(e);
  free(r);
  free(Ar);
  return rc;
}

/* ---- femint run ---- */

static int run_parse(int argc, char **argv, struct run_options *o)
{
  static const char *const with_value[] = {"--element", "--order", "--mesh", "--perturb",
                                           "--seed", "--problem", "--precision", "--where",
                                           "--batch", "--output", "--timeline", "--variant", NULL};
  static const char *const flags[] = {"--json", "--quiet", "--verbose", "--symmetric", NULL};
  char name[32];
  const char *v;
  long n;
  int c;
  for (int i = 2; i < argc; i++) {
    if (cli_next_option(argc, argv, &i, name, sizeof name, &v, with_value, flags))
      return EXIT_USAGE;
    if (strcmp(name, "--help") == 0) {
      fputs(run_usage_text, stdout);
      return -1;
    } else if (strcmp(name, "--json") == 0) {
      o->json = 1;
    } else if (strcmp(name, "--quiet") == 0) {
      o->quiet = 1;
    } else if (strcmp(name, "--verbose") == 0) {
      o->verbose = 1;
    } else if (strcmp(name, "--element") == 0) {
      if (cli_parse_element(v, &o->shape)) return EXIT_USAGE;
    } else if (strcmp(name, "--order") == 0) {
      if (cli_parse_orders(v, o->orders, &o->norders)) return EXIT_USAGE;
    } else if (strcmp(name, "--mesh") == 0) {
      if (cli_parse_mesh(v, &o->mesh)) return EXIT_USAGE;
      o->mesh_given = 1;
    } else if (strcmp(name, "--perturb") == 0) {
      if (cli_parse_real(v, &o->perturb))
        return cli_fail_usage("--perturb: expected a number, got '%s'", v);
      if (!(o->perturb >= 0 && o->perturb < 0.5))
        return cli_fail_usage("--perturb: %s is outside [0, 0.5)", v);
    } else if (strcmp(name, "--seed") == 0) {
      if (cli_parse_count(v, &n) || n > (long)UINT_MAX)
        return cli_fail_usage("--seed: expected an integer in 0..%u, got '%s'", UINT_MAX, v);
      o->seed = (unsigned)n;
    } else if (strcmp(name, "--variant") == 0) {
      if ((o->variant = femint_variant_parse(v)) < 0)
        return cli_fail_usage("--variant: expected auto, reg_nojac, reg_jac, shm_nojac, shm_jac or "
                              "gemm, got '%s'", v);
    } else if (strcmp(name, "--symmetric") == 0) {
      o->symmetric = 1;
    } else if (strcmp(name, "--batch") == 0) {
      if (cli_parse_count(v, &n) || n > INT_MAX)
        return cli_fail_usage("--batch: expected a number of cells (0 chooses), got '%s'", v);
      o->max_batch = (int)n;
    } else if (strcmp(name, "--problem") == 0) {
      if ((c = cli_parse_choice("--problem", v, cli_problem_names, 3)) < 0) return EXIT_USAGE;
      o->problem = c;
    } else if (strcmp(name, "--precision") == 0) {
      if ((c = cli_parse_choice("--precision", v, cli_precision_names, 2)) < 0) return EXIT_USAGE;
      o->precision = c == 0 ? FEMINT_DOUBLE : FEMINT_SINGLE;
    } else if (strcmp(name, "--where") == 0) {
      if ((c = cli_parse_choice("--where", v, cli_where_names, 3)) < 0) return EXIT_USAGE;
      o->where = c == 0 ? FEMINT_WHERE_ANY : c == 1 ? FEMINT_WHERE_CPU : FEMINT_WHERE_OPENCL;
    } else if (strcmp(name, "--output") == 0) {
      o->output = v;
    } else if (strcmp(name, "--timeline") == 0) {
      o->timeline = v;
    } else {
      return cli_fail_usage("unknown option '%s'", name);
    }
  }
  if (cli_mesh_match(&o->mesh, o->shape, o->mesh_given)) return EXIT_USAGE;
  if (o->output && cli_check_writable(o->output)) return EXIT_USAGE;
  if (o->timeline) {
    char *csv = cli_timeline_csv(o->timeline);
    int bad = !csv || cli_check_writable(o->timeline) || cli_check_writable(csv);
    free(csv);
    if (bad) return EXIT_USAGE;
  }
  return 0;
}

static const char *problem_text(int problem, int shape)
{
  if (shape == FEMINT_QUAD)
    return problem == PROBLEM_ELASTICITY ? "plane stress elasticity (E = 1, nu = 0.3)"
           : problem == PROBLEM_LAPLACE  ? "Laplacian (kappa = 1)"
                                         : "mass matrix (rho = 1, 2 components)";
  return problem == PROBLEM_ELASTICITY ? "linear elasticity (E = 1, nu = 0.3)"
         : problem == PROBLEM_LAPLACE  ? "Laplacian (kappa = 1)"
                                       : "mass matrix (rho = 1, 3 components)";
}

/* The mesh in words: "box", "gmsh", "rect" or "annulus". */
static const char *mesh_type(const struct cli_mesh *m)
{
  static const char *const names[] = {"box", "gmsh", "rect", "annulus"};
  return names[m->kind];
}

static void print_orders(const struct run_options *o, const char *sep)
{
  for (int i = 0; i < o->norders; i++) printf("%s%d", i ? sep : "", o->orders[i]);
}

static void print_json(const struct run_options *o, int nvert, double volume,
                       const struct femint_stats *st, char names[][CLI_NAME_LEN],
                       const struct check *checks, int nchecks, int pass, double t_init)
{
  printf("{\"femint\":");
  cli_json_string(PACKAGE_VERSION);
  if (o->mesh.file) {
    printf(",\"element\":\"prism\",\"mesh\":{\"type\":\"gmsh\",\"file\":");
    cli_json_string(o->mesh.file);
    printf(",\"cells\":%d,\"vertices\":%d,\"volume\":", st->ncell, nvert);
    cli_json_number(volume);
    printf("}");
  } else if (o->shape == FEMINT_QUAD) {
    printf(",\"element\":\"quad\",\"mesh\":{\"type\":\"%s\",\"n1\":%d,\"n2\":%d,"
           "\"area\":",
           mesh_type(&o->mesh), o->mesh.nx, o->mesh.ny);
    cli_json_number(volume);
    printf(",\"perturb\":");
    cli_json_number(o->mesh.kind == CLI_MESH_RECT ? o->perturb : 0);
    printf(",\"seed\":%u}", o->seed);
  } else {
    printf(",\"element\":\"prism\",\"mesh\":{\"type\":\"box\",\"nx\":%d,\"ny\":%d,"
           "\"nz\":%d,\"perturb\":",
           o->mesh.nx, o->mesh.ny, o->mesh.nz);
    cli_json_number(o->perturb);
    printf(",\"seed\":%u}", o->seed);
  }
  printf(",\"orders\":[");
  print_orders(o, ",");
  printf("],\"problem\":\"%s\",\"precision\":\"%s\",\"where\":\"%s\",\"max_batch\":%d,",
         cli_problem_names[o->problem], o->precision == FEMINT_SINGLE ? "single" : "double",
         cli_where_names[o->where], o->max_batch);
  printf("\"elements\":%d,\"vertices\":%d,\"dofs\":%lld,\"nnz\":%lld,\"batches\":%d,"
         "\"groups\":%d,\"row_blocks\":%d,\"blocks_per_batch\":%.2f,\"tasks\":%d,"
         "\"workers\":[",
         st->ncell, nvert, (long long)st->ndof, (long long)st->nnz, st->nbatch, st->ngroup,
         st->nblock, st->blocks_per_batch, st->ntask);
  cli_json_workers(st, names);
  printf("],\"stages\":{\"init_s\":");
  cli_json_number(t_init);
  printf(",\"plan_s\":");
  cli_json_number(st->t_plan);
  printf(",\"pack_s\":");
  cli_json_number(st->t_pack);
  printf(",\"tasks_s\":");
  cli_json_number(st->t_tasks);
  printf(",\"total_s\":");
  cli_json_number(st->t_total);
  printf("},\"flops_seed\":");
  cli_json_number(st->flops_seed);
  printf(",\"gflops\":");
  cli_json_number(st->t_tasks > 0 ? st->flops_seed / st->t_tasks * 1e-9 : NAN);
  printf(",\"calibrating_batches\":%d", st->calibrating);
  printf(",\"output\":");
  if (o->output) cli_json_string(o->output);
  else fputs("null", stdout);
  printf(",\"timeline\":");
  if (o->timeline) cli_json_string(o->timeline);
  else fputs("null", stdout);
  printf(",\"verification\":[");
  for (int k = 0; k < nchecks; k++) {
    printf("%s{\"name\":", k ? "," : "");
    cli_json_string(checks[k].name);
    printf(",\"value\":");
    cli_json_number(checks[k].value);
    printf(",\"tolerance\":");
    cli_json_number(checks[k].tolerance);
    printf(",\"condition\":\"%s\",\"pass\":%s}", checks[k].above ? ">" : "<",
           checks[k].pass ? "true" : "false");
  }
  printf("],\"pass\":%s}\n", pass ? "true" : "false");
}

static void print_human(const struct run_options *o, int nvert, double volume, const int *count,
                        const struct femint_stats *st, char names[][CLI_NAME_LEN],
                        const struct check *checks, int nchecks, int pass, double t_init)
{
  printf("femint run: %s, %s, %s precision, integration on %s workers\n",
         o->shape == FEMINT_QUAD ? "quadrilaterals" : "prisms", problem_text(o->problem, o->shape),
         o->precision == FEMINT_SINGLE ? "single" : "double", cli_where_names[o->where]);
  if (o->mesh.kind == CLI_MESH_RECT)
    printf("mesh          rectangle [0,%d]x[0,%d]: %d quadrilaterals, %d vertices, interior "
           "vertices moved by up to %g x spacing (seed %u)\n",
           o->mesh.nx, o->mesh.ny, st->ncell, nvert, o->perturb, o->seed);
  else if (o->mesh.kind == CLI_MESH_ANNULUS)
    printf("mesh          quarter annulus 1 <= r <= 2: %d x %d curved 8-node quadrilaterals, %d "
           "vertices, area %.10g\n",
           o->mesh.nx, o->mesh.ny, nvert, volume);
  else if (o->mesh.file)
    printf("mesh          gmsh file %s: %d prisms, %d vertices, volume %.10g\n", o->mesh.file,
           st->ncell, nvert, volume);
  else
    printf("mesh          box [0,%d]x[0,%d]x[0,%d]: %d prisms, %d vertices, interior vertices "
           "moved by up to %g x spacing (seed %u)\n",
           o->mesh.nx, o->mesh.ny, o->mesh.nz, st->ncell, nvert, o->perturb, o->seed);
  printf("orders        ");
  print_orders(o, ",");
  printf(" cycling over the cells:");
  for (int p = 1; p <= FEMINT_MAX_ORDER; p++)
    if (count[p]) printf(" p=%d %d cells", p, count[p]);
  printf("\n");
  printf("DOFs          %lld\n", (long long)st->ndof);
  printf("non-zeros     %lld (%.1f per row)\n", (long long)st->nnz,
         st->ndof > 0 ? (double)st->nnz / st->ndof : 0.0);
  printf("plan          %d groups (shape, order, form), %d batches, %d tasks; %d row blocks, "
         "%.1f written per batch\n",
         st->ngroup, st->nbatch, st->ntask, st->nblock, st->blocks_per_batch);
  printf("workers       tasks (integrate + assemble) and busy time:\n");
  for (int w = 0; w < st->nworker; w++)
    printf("  %-44s %5d + %-5d %9.4f s\n", names[w], st->worker_tasks_integrate[w],
           st->worker_tasks_assemble[w], st->worker_busy[w]);
  printf("stages        startup %.3f s (StarPU, not in total); plan %.4f s, pack %.4f s, "
         "tasks %.4f s, total %.4f s\n",
         t_init, st->t_plan, st->t_pack, st->t_tasks, st->t_total);
  printf("flops         %.4g (seed 000's count), %.3f GFLOP/s over the task stage\n",
         st->flops_seed, st->t_tasks > 0 ? st->flops_seed / st->t_tasks * 1e-9 : 0.0);
  if (st->calibrating)
    printf("calibration   %d of %d batches ran while their performance model was being calibrated\n"
           "              (dmda placed them to measure each worker); later runs place them by the\n"
           "              models kept in $STARPU_HOME (default ~/.starpu)\n",
           st->calibrating, st->nbatch);
  if (o->output) printf("output        %s (Matrix Market)\n", o->output);
  if (o->timeline) printf("timeline      %s (Gantt chart of the tasks)\n", o->timeline);
  printf("verification\n");
  for (int k = 0; k < nchecks; k++)
    printf("  %-34s %10.3e %s %-6g %s\n", checks[k].name, checks[k].value,
           checks[k].above ? ">" : "<", checks[k].tolerance, checks[k].pass ? "PASS" : "FAIL");
  printf("result        %s\n", pass ? "PASS" : "FAIL");
}

/* The volume of a mesh and the centre of its bounding box. */
static int mesh_geometry(femint_mesh_t mesh, double *volume, double *centre)
{
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  int rc = femint_mesh_volume(mesh, volume);
  for (int v = 0; !rc && v < femint_mesh_num_vertices(mesh); v++) {
    double x[3];
    if ((rc = femint_mesh_vertex_coords(mesh, v, x)) != 0) break;
    for (int i = 0; i < 3; i++) lo[i] = fmin(lo[i], x[i]), hi[i] = fmax(hi[i], x[i]);
  }
  for (int i = 0; i < 3; i++) centre[i] = 0.5 * (lo[i] + hi[i]);
  return rc;
}

static int run_command(int argc, char **argv)
{
  struct run_options o = {.shape = FEMINT_PRISM, .mesh = {CLI_MESH_BOX, 6, 6, 4, NULL},
                          .perturb = 0.2, .seed = 1, .norders = 4,
                          .orders = {1, 2, 3, 4}, .problem = PROBLEM_ELASTICITY,
                          .precision = FEMINT_DOUBLE, .where = FEMINT_WHERE_ANY};
  int status = run_parse(argc, argv, &o);
  if (status) return status < 0 ? 0 : status;

  femint_context_t ctx = NULL;
  femint_mesh_t mesh = NULL;
  femint_space_t space = NULL;
  femint_form_t form = NULL;
  femint_matrix_t A = NULL;
  int *orders = NULL, count[FEMINT_MAX_ORDER + 1] = {0}, rc, nchecks = 0;
  char *timeline_csv = NULL;
  struct check checks[8];
  struct femint_stats st;
  static char names[FEMINT_MAX_WORKERS][CLI_NAME_LEN];
  struct femint_init_options iopt = {.ncpu_workers = 0,
                                     .nopencl = o.where == FEMINT_WHERE_CPU ? 0 : -1,
                                     .quiet = !o.verbose};
  /* A file is read before StarPU starts, so that a bad one fails fast; its errors are kept on
   * the thread (no context). */
  if (o.mesh.file && (rc = femint_mesh_read_gmsh(NULL, o.mesh.file, &mesh)) != 0) {
    const char *msg = femint_last_error(NULL);
    fprintf(stderr, "femint: %s\n", msg && *msg ? msg : femint_strerror(rc));
    return EXIT_RUNTIME;
  }
  double t0 = cli_now();
  if (cli_init(&iopt, &ctx)) {
    femint_mesh_destroy(&mesh);
    return EXIT_RUNTIME;
  }
  double t_init = cli_now() - t0;
  status = EXIT_RUNTIME;
  const struct cli_mesh *m = &o.mesh;
  double volume = (double)m->nx * m->ny * m->nz,
         centre[3] = {0.5 * m->nx, 0.5 * m->ny, 0.5 * m->nz};
  if (!mesh && (rc = cli_mesh_create(ctx, m, o.perturb, o.seed, &mesh)) != 0) goto fail;
  if ((o.mesh.file || o.shape == FEMINT_QUAD) && (rc = mesh_geometry(mesh, &volume, centre)) != 0)
    goto fail;
  const int ncell = femint_mesh_num_cells(mesh), nvert = femint_mesh_num_vertices(mesh);
  if (!(orders = malloc((ncell > 0 ? ncell : 1) * sizeof *orders))) {
    fprintf(stderr, "femint: out of memory (%d cells)\n", ncell);
    goto done;
  }
  for (int c = 0; c < ncell; c++) count[orders[c] = o.orders[c % o.norders]]++;
  if ((rc = femint_space_create(ctx, mesh, cli_problem_components(o.problem, o.shape), orders, 0,
                                &space)) != 0)
    goto fail;
  if ((rc = cli_form_create(ctx, o.problem, o.shape, &form)) != 0) goto fail;
  if (o.timeline && !(timeline_csv = cli_timeline_csv(o.timeline))) {
    fprintf(stderr, "femint: out of memory\n");
    goto done;
  }
  struct femint_assemble_options aopt = {.precision = o.precision, .where = o.where,
                                         .max_batch = o.max_batch, .timeline = timeline_csv,
                                         .variant = o.variant, .symmetric = o.symmetric};
  memset(&st, 0, sizeof st);
  if ((rc = femint_assemble(ctx, space, form, &aopt, &A, &st)) != 0) goto fail;
  if (o.timeline &&
      cli_timeline_plot(ctx, timeline_csv, o.timeline, "femint run: tasks per worker"))
    goto done;
  if (o.output && (rc = femint_matrix_write_mm(ctx, A, o.output)) != 0) goto fail;
  if ((rc = verify(space, A, &o, volume, centre, checks, &nchecks)) != 0) {
    if (rc > 0) {
      fprintf(stderr, "femint: out of memory while verifying the matrix\n");
      goto done;
    }
    goto fail;
  }
  st.ncell = ncell;
  if (st.nworker < 0) st.nworker = 0;
  if (st.nworker > FEMINT_MAX_WORKERS) st.nworker = FEMINT_MAX_WORKERS;
  for (int w = 0; w < st.nworker; w++)
    if (femint_context_worker_name(ctx, w, names[w], sizeof names[w]) != 0 || !names[w][0])
      snprintf(names[w], sizeof names[w], "worker %d", w);
  int pass = 1;
  for (int k = 0; k < nchecks; k++) pass &= checks[k].pass;
  if (o.json) print_json(&o, nvert, volume, &st, names, checks, nchecks, pass, t_init);
  else if (!o.quiet)
    print_human(&o, nvert, volume, count, &st, names, checks, nchecks, pass, t_init);
  else
    for (int k = 0; k < nchecks; k++)
      if (!checks[k].pass)
        fprintf(stderr, "femint: verification failed: %s = %.3e, not %s %g\n", checks[k].name,
                checks[k].value, checks[k].above ? ">" : "<", checks[k].tolerance);
  status = pass ? 0 : EXIT_RUNTIME;
  goto done;
fail:
  cli_fail_runtime(ctx, rc);
done:
  femint_matrix_destroy(&A);
  femint_form_destroy(&form);
  femint_space_destroy(&space);
  femint_mesh_destroy(&mesh);
  free(orders);
  free(timeline_csv);
  femint_finalize(&ctx);
  return status;
}

/* ---- femint refel ---- */

static int refel_command(int argc, char **argv)
{
  static const char *const with_value[] = {"--element", "--order", NULL};
  static const char *const flags[] = {"--json", NULL};
  char name[32];
  const char *v;
  long order = 0;
  int json = 0, shape = FEMINT_PRISM;
  for (int i = 2; i < argc; i++) {
    if (cli_next_option(argc, argv, &i, name, sizeof name, &v, with_value, flags))
      return EXIT_USAGE;
    if (strcmp(name, "--help") == 0) {
      fputs(refel_usage_text, stdout);
      return 0;
    } else if (strcmp(name, "--json") == 0) {
      json = 1;
    } else if (strcmp(name, "--element") == 0) {
      if (cli_parse_element(v, &shape)) return EXIT_USAGE;
    } else if (strcmp(name, "--order") == 0) {
      if (cli_parse_count(v, &order))
        return cli_fail_usage("--order: expected an order 1..%d, got '%s'", FEMINT_MAX_ORDER, v);
      if (cli_check_order(order)) return EXIT_USAGE;
    } else {
      return cli_fail_usage("unknown option '%s'", name);
    }
  }
  const int pmax = shape == FEMINT_TET ? 3 : FEMINT_MAX_ORDER;
  if (order > pmax) return cli_fail_usage("--order: tetrahedra have orders 1..3, not %ld", order);
  int first = order ? (int)order : 1, last = order ? (int)order : pmax;
  if (json && !order) putchar('[');
  if (!json) printf("%5s %6s %6s %7s %11s %12s\n", "order", "N_sh", "N_Q", "degree",
                    "tri_points", "line_points");
  for (int p = first; p <= last; p++) {
    struct femint_refel_info r;
    int rc = femint_refel_info(shape, p, &r);
    const char *ename = shape == FEMINT_QUAD ? "quad" : shape == FEMINT_TET ? "tet" : "prism";
    if (rc) {
      fprintf(stderr, "femint: %s of order %d: %s\n", ename, p, femint_strerror(rc));
      return EXIT_RUNTIME;
    }
    if (json)
      printf("%s{\"element\":\"%s\",\"order\":%d,\"nsh\":%d,\"nq\":%d,\"degree\":%d,"
             "\"tri_points\":%d,\"line_points\":%d}",
             p > first ? "," : "", ename, p, r.nsh, r.nq, r.degree, r.tri_points, r.line_points);
    else
      printf("%5d %6d %6d %7d %11d %12d\n", p, r.nsh, r.nq, r.degree, r.tri_points,
             r.line_points);
  }
  if (json) printf("%s\n", order ? "" : "]");
  return 0;
}

/* ---- femint info ---- */

/* --opencl-device N and --local-rank N|env into the options of femint_init. Returns 1 when name
 * is neither, 0 when it was taken, EXIT_USAGE after a message. */
static int parse_device_option(const char *name, const char *v, struct femint_init_options *iopt)
{
  long n;
  int device = strcmp(name, "--opencl-device") == 0;
  if (!device && strcmp(name, "--local-rank") != 0) return 1;
  if (iopt->device_select != FEMINT_DEVICE_ALL)
    return cli_fail_usage("--opencl-device and --local-rank exclude each other");
  if (!device && strcmp(v, "env") == 0) {
    iopt->device_select = FEMINT_DEVICE_BY_LOCAL_RANK;
    iopt->local_rank = FEMINT_LOCAL_RANK_FROM_ENV;
    return 0;
  }
  if (cli_parse_count(v, &n) || n > INT_MAX)
    return cli_fail_usage("%s: expected %s, got '%s'", name,
                          device ? "a device number (0, 1, ...)" : "a rank (0, 1, ...) or env", v);
  iopt->device_select = device ? FEMINT_DEVICE_INDEX : FEMINT_DEVICE_BY_LOCAL_RANK;
  if (device) iopt->opencl_device = (int)n;
  else iopt->local_rank = (int)n;
  return 0;
}

/* The threads of this process (tids) and the PUs each may run on, listed as taskset lists them
 * (Linux; elsewhere none). Returns how many. */
static int process_threads(int *tids, char (*pus)[256], int max)
{
  int n = 0;
#ifdef __linux__
  DIR *dir = opendir("/proc/self/task");
  struct dirent *e;
  while (dir && (e = readdir(dir)) && n < max) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    cpu_set_t set;
    CPU_ZERO(&set);
    int tid = atoi(e->d_name);
    if (sched_getaffinity(tid, sizeof set, &set) != 0) continue;
    size_t len = 0;
    pus[n][0] = 0;
    for (int c = 0; c < CPU_SETSIZE && len + 16 < sizeof pus[n]; c++) {
      if (!CPU_ISSET(c, &set)) continue;
      int last = c;
      while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) last++;
      len += snprintf(pus[n] + len, sizeof pus[n] - len, len ? ",%d" : "%d", c);
      if (last > c) len += snprintf(pus[n] + len, sizeof pus[n] - len, "-%d", last);
      c = last;
    }
    tids[n++] = tid;
  }
  if (dir) closedir(dir);
#else
  (void)tids, (void)pus, (void)max;
#endif
  return n;
}

static int info_command(int argc, char **argv)
{
  static const char *const with_value[] = {"--opencl-device", "--local-rank", NULL};
  static const char *const flags[] = {"--json", "--quiet", NULL};
  char name[32];
  const char *v;
  int json = 0, quiet = 0, rc;
  struct femint_init_options iopt = {.ncpu_workers = 0, .nopencl = -1};
  for (int i = 2; i < argc; i++) {
    if (cli_next_option(argc, argv, &i, name, sizeof name, &v, with_value, flags))
      return EXIT_USAGE;
    if (strcmp(name, "--help") == 0) {
      fputs(info_usage_text, stdout);
      return 0;
    } else if (strcmp(name, "--json") == 0) {
      json = 1;
    } else if (strcmp(name, "--quiet") == 0) {
      quiet = 1;
    } else if ((rc = parse_device_option(name, v, &iopt)) != 1) {
      if (rc) return rc;
    } else {
      return cli_fail_usage("unknown option '%s'", name);
    }
  }
  femint_context_t ctx = NULL;
  iopt.quiet = quiet || json;
  int ncpu = 0, nocl = 0, team = 0, ncores = 0, rank = -1;
  const char *rank_source = NULL;
  char cpuset[256];
  rc = femint_init(&iopt, &ctx);
  if (rc) {
    const char *msg = femint_init_error();
    fprintf(stderr, "femint: %s\n", msg && *msg ? msg : femint_strerror(rc));
    return EXIT_RUNTIME;
  }
  if ((rc = femint_context_workers(ctx, &ncpu, &nocl, &team)) != 0 ||
      (rc = femint_context_cpuset(ctx, cpuset, sizeof cpuset, &ncores)) != 0 ||
      (rc = femint_context_local_rank(ctx, &rank, &rank_source)) != 0) {
    fprintf(stderr, "femint: %s\n", femint_last_error(ctx));
    femint_finalize(&ctx);
    return EXIT_RUNTIME;
  }
  if (json) {
    printf("{\"femint\":\"%s\",\"cpuset\":", PACKAGE_VERSION);
    cli_json_string(cpuset);
    printf(",\"cores\":%d,\"local_rank\":", ncores);
    if (rank >= 0) {
      printf("%d,\"local_rank_source\":", rank);
      cli_json_string(rank_source ? rank_source : "");
    } else {
      printf("null,\"local_rank_source\":null");
    }
    printf(",\"cpu_workers\":%d,\"opencl_workers\":%d,\"team_size\":%d,\"workers\":[", ncpu, nocl,
           team);
  } else {
    printf("femint %s: %d CPU worker%s (OpenMP teams of %d threads), %d OpenCL worker%s\n",
           PACKAGE_VERSION, ncpu, ncpu == 1 ? "" : "s", team, nocl, nocl == 1 ? "" : "s");
    printf("cpuset: PUs %s (%d core%s)\n", cpuset, ncores, ncores == 1 ? "" : "s");
    if (rank >= 0)
      printf("OpenCL device chosen by local rank %d (%s)\n", rank,
             rank_source ? rank_source : "?");
  }
  for (int w = 0; w < ncpu + nocl; w++) {
    char buf[256];
    struct femint_worker_binding b;
    if (femint_context_worker_name(ctx, w, buf, sizeof buf) != 0) snprintf(buf, sizeof buf, "?");
    if (femint_context_worker_binding(ctx, w, &b) != 0) memset(&b, 0, sizeof b);
    int cpu = b.kind == FEMINT_WHERE_CPU;
    if (json) {
      printf("%s{\"id\":%d,\"name\":", w ? "," : "", w);
      cli_json_string(buf);
      printf(",\"kind\":\"%s\",", cpu ? "cpu" : "opencl");
      if (cpu) printf("\"team_size\":%d,\"pus\":", b.team_size);
      else printf("\"device\":%d,\"pus\":", b.opencl_device);
      cli_json_string(b.pus);
      printf(",\"bound\":");
      cli_json_string(b.bound);
      putchar('}');
    } else {
      printf("  %2d  %s\n", w, buf);
      printf("        %s on PUs %s, bound to %s\n", cpu ? "team" : "driver", b.pus,
             b.bound[0] ? b.bound : "(unknown)");
    }
  }
  enum { MAX_THREADS = 1024 };
  int *tids = malloc(MAX_THREADS * sizeof *tids);
  char(*pus)[256] = malloc(MAX_THREADS * sizeof *pus);
  int nthread = tids && pus ? process_threads(tids, pus, MAX_THREADS) : 0;
  if (json) {
    printf("],\"threads\":[");
    for (int t = 0; t < nthread; t++) {
      printf("%s{\"tid\":%d,\"pus\":", t ? "," : "", tids[t]);
      cli_json_string(pus[t]);
      putchar('}');
    }
    printf("]}\n");
  } else {
    if (nthread > 0) printf("threads: %d, bound to PUs", nthread);
    for (int t = 0; t < nthread; t++) {
      int seen = 0, count = 0;
      for (int u = 0; u < nthread; u++) {
        seen |= u < t && strcmp(pus[u], pus[t]) == 0;
        count += strcmp(pus[u], pus[t]) == 0;
      }
      if (!seen) printf("%s %s (%d)", t ? "," : "", pus[t], count);
    }
    if (nthread > 0) putchar('\n');
    if (nocl == 0)
      printf("No OpenCL worker: without a GPU, STARPU_OPENCL_ON_CPUS=1 uses PoCL's CPU device.\n");
  }
  free(tids);
  free(pus);
  femint_finalize(&ctx);
  return 0;
}

int main(int argc, char **argv)
{
  int status;
  if (argc < 2) {
    fputs(usage_text, stderr);
    return EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "run") == 0) {
    status = cli_is_tet(argc, argv) ? cli_maxwell_run(argc, argv) : run_command(argc, argv);
  } else if (strcmp(cmd, "refel") == 0) {
    status = refel_command(argc, argv);
  } else if (strcmp(cmd, "info") == 0) {
    status = info_command(argc, argv);
  } else if (strcmp(cmd, "bench") == 0) {
    status = cli_is_tet(argc, argv) ? cli_maxwell_bench(argc, argv) : cli_bench_command(argc, argv);
  } else if (strcmp(cmd, "plan") == 0) {
    status = cli_plan_command(argc, argv);
  } else if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
    const char *topic = argc > 2 ? argv[2] : "";
    fputs(strcmp(topic, "run") == 0     ? run_usage_text
          : strcmp(topic, "refel") == 0 ? refel_usage_text
          : strcmp(topic, "info") == 0  ? info_usage_text
          : strcmp(topic, "bench") == 0 ? cli_bench_usage
          : strcmp(topic, "plan") == 0  ? cli_plan_usage
                                        : usage_text,
          stdout);
    status = 0;
  } else if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
    printf("femint %s\n", PACKAGE_VERSION);
    status = 0;
  } else if (cmd[0] == '-') {
    return cli_fail_usage("unknown option '%s' (try 'femint --help')", cmd);
  } else {
    return cli_fail_usage("unknown command '%s' (try 'femint --help')", cmd);
  }
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "femint: cannot write the output: %s\n", strerror(errno));
    return EXIT_RUNTIME;
  }
  return status;
}
