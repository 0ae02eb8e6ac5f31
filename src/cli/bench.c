/* femint bench: the stages of integrating and assembling one order on one device, per element,
 * for each order, kernel variant and precision (seed 000's Tables 5-7), as a table, CSV, JSON and
 * a gnuplot chart. With --coexec, coexec.c measures how well CPU and OpenCL workers share work. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define ALL_VARIANTS 5
#define DEFAULT_BUS_GBS 55.0

const char cli_bench_usage[] =
  "Usage: femint bench [OPTIONS]\n"
  "       femint bench --coexec [--mesh box:NX,NY,NZ] [--order LIST] [--precision P] [--runs N]\n"
  "                    [--no-assembly] [--timeline FILE.png]\n"
  "\n"
  "Times the stages of integrating a box of prisms of one order on one OpenCL device, one stage\n"
  "after the other, divided by the number of elements: input preparation, device allocation,\n"
  "transfer in, kernel, transfer out, assembly into the CSR matrix (seed 000's Tables 5-7), for\n"
  "each order, kernel variant and precision, and the CPU codelet (one OpenMP team on every core)\n"
  "as its own row. A variant that cannot run (no fp64, too little local memory) is a row that\n"
  "says why; the sweep goes on.\n"
  "\n"
  "Options:\n"
  "  --order LIST             orders P, P1-P2 or P1,P2,... (default 1-7)\n"
  "  --variant LIST|all       OpenCL kernels: reg_nojac, reg_jac, shm_nojac, shm_jac, gemm,\n"
  "                           auto (the fastest measured), comma-separated, or all (default)\n"
  "  --no-cpu                 no row for the CPU codelet\n"
  "  --precision single|double|both  (default both)\n"
  "  --device N               OpenCL device, StarPU's numbering (default 0, when there is one)\n"
  "  --cells N                about N elements per measurement (default: by order, from 200000\n"
  "                           at p=1 to 2000 at p=7, fewer where the element matrices would\n"
  "                           not fit in memory)\n"
  "  --problem elasticity|laplace|mass  (default elasticity)\n"
  "  --symmetric              element matrices travel as their upper half\n"
  "  --repeat N               kernel launches, the best counts (default 3)\n"
  "  --bus-gbs X              bus rate for the bus-bound time, GB/s (default 55)\n"
  "  --csv FILE               write every field of every row as CSV\n"
  "  --plot FILE.png          GFLOP/s and kernel time per element against p (gnuplot)\n"
  "  --json                   print the rows as a JSON array instead of the table\n"
  "  --quiet                  no progress lines on stderr\n"
  "  --verbose                let StarPU print its own messages\n"
  "\n"
  "Co-execution (--coexec): assembles linear elasticity on the mesh with integration on the CPU\n"
  "workers only, the OpenCL workers only, and on every worker; each mode first runs until\n"
  "StarPU's performance models are calibrated (at most --runs N times, default 12), then the\n"
  "task stage is timed (best of 3): T_cpu, T_gpu, T_both. T_ideal = 1/(1/T_cpu + 1/T_gpu) and\n"
  "the efficiency T_ideal/T_both, with each worker's busy time.\n"
  "  --mesh box:NX,NY,NZ | gmsh:FILE  (default box:16,16,8)\n"
  "  --order LIST             orders cycled over the cells (default 1-4)\n"
  "  --precision single|double  (default double)\n"
  "  --runs N                 most calibration runs per mode (default 12)\n"
  "  --no-assembly            time the integration alone (femint_integrate: the element matrices\n"
  "                           reach host memory and are not assembled)\n"
  "  --timeline FILE.png      Gantt chart of the best co-execution run (its tasks in FILE.csv)\n"
  "  --json                   print the result as one JSON object\n"
  "\n"
  "Columns: times per element in microseconds (total: the six stages); Mflop: flops per element\n"
  "as seed 000 counts them and as the kernel performs them; GF/s: those counts over the kernel\n"
  "time; %peak: actual GF/s over the device's peak (when known); bus B: bytes per element over\n"
  "the bus (in + out); bus_us: that at --bus-gbs; GB/s in/out: rates of the transfers;\n"
  "max_err: relative difference of sampled element matrices from the CPU's.\n"
  "Exit status: 0 when at least one measurement succeeded.\n";

/* One measurement. */
struct row {
  int order, variant, precision; /* variant -1: the CPU codelet */
  long cells;                    /* asked for */
  int rc;
  char error[256];
  struct femint_bench_result r;
};

static const int default_cells[FEMINT_MAX_ORDER + 1] = {0,     200000, 100000, 40000,
                                                        20000, 8000,   4000,   2000};

/* --variant: names of femint_variant_parse, comma-separated, or all. */
static int parse_variants(const char *text, struct cli_bench *b)
{
  b->nvariants = 0;
  if (strcmp(text, "all") == 0) {
    for (int v = FEMINT_VARIANT_REG_NOJAC; v <= FEMINT_VARIANT_GEMM; v++)
      b->variants[b->nvariants++] = v;
    return 0;
  }
  const char *s = text;
  for (;;) {
    size_t n = strcspn(s, ",");
    char name[32];
    int v = -1;
    if (n < sizeof name) {
      memcpy(name, s, n);
      name[n] = '\0';
      v = femint_variant_parse(name);
    }
    if (v < 0)
      return cli_fail_usage("--variant: unknown variant '%.*s' (expected reg_nojac, reg_jac, "
                            "shm_nojac, shm_jac, gemm, auto, a comma-separated list, or all)",
                            (int)(n < 64 ? n : 64), s);
    int dup = 0;
    for (int k = 0; k < b->nvariants; k++) dup |= b->variants[k] == v;
    if (!dup) {
      if (b->nvariants == (int)(sizeof b->variants / sizeof b->variants[0]))
        return cli_fail_usage("--variant: too many variants in '%s'", text);
      b->variants[b->nvariants++] = v;
    }
    if (s[n] == '\0') return 0;
    s += n + 1;
  }
}

static int parse_positive(const char *option, const char *v, long max, long *out)
{
  if (cli_parse_count(v, out) || *out < 1 || *out > max)
    return cli_fail_usage("%s: expected an integer in 1..%ld, got '%s'", option, max, v);
  return 0;
}

/* Options that belong to one mode only, by name, as given on the command line. */
static const char *const sweep_only[] = {"--variant", "--no-cpu", "--device", "--cells",
                                         "--problem", "--symmetric", "--repeat", "--bus-gbs",
                                         "--csv", "--plot", NULL};
static const char *const coexec_only[] = {"--mesh", "--runs", "--timeline", "--no-assembly",
                                          NULL};

static int bench_parse(int argc, char **argv, struct cli_bench *b)
{
  static const char *const with_value[] = {
    "--order", "--variant", "--precision", "--device", "--cells", "--problem", "--repeat",
    "--bus-gbs", "--csv", "--plot", "--mesh", "--runs", "--timeline", "--element", NULL};
  static const char *const flags[] = {"--no-cpu", "--symmetric", "--coexec", "--json",
                                      "--quiet", "--verbose", "--no-assembly", NULL};
  static const char *const precisions[] = {"double", "single", "both"};
  const char *given[32];
  int ngiven = 0, c, orders_set = 0, precision_both = 0, variants_set = 0;
  char name[32];
  const char *v;
  for (int i = 2; i < argc; i++) {
    if (cli_next_option(argc, argv, &i, name, sizeof name, &v, with_value, flags))
      return EXIT_USAGE;
    for (int k = 0; sweep_only[k]; k++)
      if (strcmp(name, sweep_only[k]) == 0 && ngiven < 32) given[ngiven++] = sweep_only[k];
    for (int k = 0; coexec_only[k]; k++)
      if (strcmp(name, coexec_only[k]) == 0 && ngiven < 32) given[ngiven++] = coexec_only[k];
    if (strcmp(name, "--help") == 0) {
      fputs(cli_bench_usage, stdout);
      return -1;
    } else if (strcmp(name, "--order") == 0) {
      if (cli_parse_orders(v, b->orders, &b->norders)) return EXIT_USAGE;
      orders_set = 1;
    } else if (strcmp(name, "--element") == 0) {
      if (cli_parse_element(v, &b->shape)) return EXIT_USAGE;
      if (b->shape == FEMINT_TET) /* femint bench --element tet has options of its own */
        return cli_fail_usage("--element tet: see 'femint bench --element tet --help'");
    } else if (strcmp(name, "--variant") == 0) {
      if (parse_variants(v, b)) return EXIT_USAGE;
      variants_set = 1;
    } else if (strcmp(name, "--no-cpu") == 0) {
      b->cpu = 0;
    } else if (strcmp(name, "--precision") == 0) {
      if ((c = cli_parse_choice("--precision", v, precisions, 3)) < 0) return EXIT_USAGE;
      precision_both = c == 2;
      b->nprec = c == 2 ? 2 : 1;
      b->precs[0] = c == 1 ? FEMINT_SINGLE : FEMINT_DOUBLE;
      b->precs[1] = FEMINT_SINGLE;
    } else if (strcmp(name, "--device") == 0) {
      if (cli_parse_count(v, &b->device) || b->device > 255)
        return cli_fail_usage("--device: expected an OpenCL device number 0..255, got '%s'", v);
    } else if (strcmp(name, "--cells") == 0) {
      if (parse_positive("--cells", v, CLI_MAX_CELLS, &b->cells)) return EXIT_USAGE;
    } else if (strcmp(name, "--problem") == 0) {
      if ((c = cli_parse_choice("--problem", v, cli_problem_names, 3)) < 0) return EXIT_USAGE;
      b->problem = c;
    } else if (strcmp(name, "--symmetric") == 0) {
      b->symmetric = 1;
    } else if (strcmp(name, "--repeat") == 0) {
      if (parse_positive("--repeat", v, 1000, &b->repeat)) return EXIT_USAGE;
    } else if (strcmp(name, "--bus-gbs") == 0) {
      if (cli_parse_real(v, &b->bus_gbs) || !(b->bus_gbs > 0))
        return cli_fail_usage("--bus-gbs: expected a positive rate in GB/s, got '%s'", v);
    } else if (strcmp(name, "--csv") == 0) {
      b->csv = v;
    } else if (strcmp(name, "--plot") == 0) {
      b->plot = v;
    } else if (strcmp(name, "--mesh") == 0) {
      if (cli_parse_mesh(v, &b->mesh)) return EXIT_USAGE;
    } else if (strcmp(name, "--runs") == 0) {
      if (parse_positive("--runs", v, 1000, &b->runs)) return EXIT_USAGE;
    } else if (strcmp(name, "--timeline") == 0) {
      b->timeline = v;
    } else if (strcmp(name, "--coexec") == 0) {
      b->coexec = 1;
    } else if (strcmp(name, "--no-assembly") == 0) {
      b->no_assembly = 1;
    } else if (strcmp(name, "--json") == 0) {
      b->json = 1;
    } else if (strcmp(name, "--quiet") == 0) {
      b->quiet = 1;
    } else if (strcmp(name, "--verbose") == 0) {
      b->verbose = 1;
    } else {
      return cli_fail_usage("unknown option '%s'", name);
    }
  }
  for (int k = 0; k < ngiven; k++) {
    int coexec_opt = 0;
    for (int j = 0; coexec_only[j]; j++) coexec_opt |= strcmp(given[k], coexec_only[j]) == 0;
    if (coexec_opt != b->coexec)
      return cli_fail_usage("%s %s", given[k], coexec_opt ? "applies only with --coexec"
                                                           : "does not apply to --coexec");
  }
  if (b->shape == FEMINT_QUAD) {
    if (b->coexec) return cli_fail_usage("--coexec measures prisms; --element quad has the sweep");
    /* quadrilaterals have the GEMM kernel only */
    if (!variants_set) parse_variants("gemm", b);
    for (int k = 0; k < b->nvariants; k++)
      if (b->variants[k] != FEMINT_VARIANT_GEMM)
        return cli_fail_usage("--variant: quadrilaterals have the gemm kernel only");
  }
  if (b->coexec) {
    if (precision_both) return cli_fail_usage("--precision: --coexec takes single or double");
    if (!orders_set) b->norders = 4;
    if (b->timeline) {
      char *csv = cli_timeline_csv(b->timeline);
      int bad = !csv || cli_check_writable(b->timeline) || cli_check_writable(csv);
      free(csv);
      if (bad) return EXIT_USAGE;
    }
  }
  if (b->csv && cli_check_writable(b->csv)) return EXIT_USAGE;
  if (b->plot && cli_check_writable(b->plot)) return EXIT_USAGE;
  return 0;
}

/* How many cells to ask for: the default of the order, capped so that the element matrices of
 * one measurement take at most 2 GiB and an eighth of the memory. */
static long cells_for(const struct cli_bench *b, int order, int precision)
{
  if (b->cells > 0) return b->cells;
  struct femint_refel_info info;
  if (femint_refel_info(b->shape, order, &info)) return default_cells[order];
  double n = (double)cli_problem_components(b->problem, b->shape) * info.nsh;
  double bytes = n * n * (precision == FEMINT_SINGLE ? 4 : 8);
  double cap = 2.0 * (1 << 30);
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) cap = fmin(cap, (double)pages * page / 8);
  long most = (long)(cap / bytes);
  if (most < 16) most = 16;
  return default_cells[order] < most ? default_cells[order] : most;
}

static const char *variant_text(int variant)
{
  const char *s = variant < 0 ? "cpu" : femint_variant_name(variant);
  return s ? s : "?";
}

static const char *precision_text(int precision)
{
  return precision == FEMINT_SINGLE ? "single" : "double";
}

static double total_us(const struct femint_bench_result *r)
{
  return 1e6 * (r->t_prep + r->t_alloc + r->t_in + r->t_kernel + r->t_out + r->t_assemble);
}

static double gflops(double flops, double t)
{
  return t > 0 ? 1e-9 * flops / t : NAN;
}

static double bus_us(const struct femint_bench_result *r, double gbs)
{
  return 1e6 * (r->bytes_in + r->bytes_out) / (gbs * 1e9);
}

static double pct_peak(const struct femint_bench_result *r)
{
  return r->peak_gflops > 0 ? 100 * gflops(r->flops_actual, r->t_kernel) / r->peak_gflops : NAN;
}

/* ---- output ---- */

static void print_table_header(void)
{
  printf("%2s %-10s %-6s %7s %9s %9s %9s %9s %9s %9s %9s %10s %10s %9s %9s %6s %9s %9s %7s %7s "
         "%9s\n",
         "p", "variant", "prec", "cells", "prep_us", "alloc_us", "in_us", "kernel_us", "out_us",
         "asm_us", "total_us", "Mflop_seed", "Mflop_act", "GF/s_seed", "GF/s_act", "%peak",
         "bus_B", "bus_us", "GB/s_in", "GB/s_out", "max_err");
}

/* A number in a table cell: "-" when not defined. */
static void print_num(int width, int prec, double x)
{
  if (isfinite(x)) printf(" %*.*g", width, prec, x);
  else printf(" %*s", width, "-");
}

static void print_table_row(const struct row *w, double gbs)
{
  const struct femint_bench_result *r = &w->r;
  printf("%2d %-10s %-6s %7ld", w->order, variant_text(w->variant), precision_text(w->precision),
         w->rc ? w->cells : (long)r->ncell);
  if (w->rc) {
    printf("  failed: %s: %s\n", femint_error_name(w->rc), w->error);
    return;
  }
  const int gpu = w->variant >= 0;
  const double us[6] = {r->t_prep, r->t_alloc, r->t_in, r->t_kernel, r->t_out, r->t_assemble};
  for (int k = 0; k < 6; k++)
    print_num(9, 4, gpu || k == 0 || k == 3 || k == 5 ? 1e6 * us[k] : NAN);
  print_num(9, 4, total_us(r));
  print_num(10, 4, 1e-6 * r->flops_seed);
  print_num(10, 4, 1e-6 * r->flops_actual);
  print_num(9, 4, gflops(r->flops_seed, r->t_kernel));
  print_num(9, 4, gflops(r->flops_actual, r->t_kernel));
  print_num(6, 3, pct_peak(r));
  print_num(9, 4, gpu ? r->bytes_in + r->bytes_out : NAN);
  print_num(9, 4, gpu ? bus_us(r, gbs) : NAN);
  print_num(7, 3, gpu ? r->bw_in : NAN);
  print_num(7, 3, gpu ? r->bw_out : NAN);
  print_num(9, 2, gpu ? r->max_error : NAN);
  putchar('\n');
}

/* A CSV field: empty when not defined. */
static void csv_num(FILE *f, double x)
{
  if (isfinite(x)) fprintf(f, ",%.8g", x);
  else fputc(',', f);
}

static void csv_text(FILE *f, const char *s)
{
  fputs(",\"", f);
  for (; *s; s++) fputs(*s == '"' ? "\"\"" : (char[]){*s, 0}, f);
  fputc('"', f);
}

static int write_csv(const char *path, const struct cli_bench *b, const struct row *rows, int n,
                     int device)
{
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "femint: cannot write '%s': %s\n", path, strerror(errno));
    return EXIT_RUNTIME;
  }
  fputs("order,variant,precision,problem,symmetric,device,cells,status,error,prep_us,alloc_us,"
        "in_us,kernel_us,out_us,assemble_us,total_us,flops_seed,flops_actual,gflops_seed,"
        "gflops_actual,peak_gflops,peak_pct,bytes_in,bytes_out,bus_bytes,bus_gbs,bus_bound_us,"
        "bw_in_gbs,bw_out_gbs,max_error\n",
        f);
  for (int i = 0; i < n; i++) {
    const struct row *w = &rows[i];
    const struct femint_bench_result *r = &w->r;
    const int gpu = w->variant >= 0, ok = w->rc == 0;
    fprintf(f, "%d,%s,%s,%s,%d,%d,%ld,%s", w->order, variant_text(w->variant),
            precision_text(w->precision), cli_problem_names[b->problem], b->symmetric,
            gpu ? device : -1, ok ? (long)r->ncell : w->cells,
            ok ? "ok" : femint_error_name(w->rc));
    csv_text(f, ok ? "" : w->error);
    const double t[6] = {r->t_prep, r->t_alloc, r->t_in, r->t_kernel, r->t_out, r->t_assemble};
    for (int k = 0; k < 6; k++) csv_num(f, ok ? 1e6 * t[k] : NAN);
    csv_num(f, ok ? total_us(r) : NAN);
    csv_num(f, ok ? r->flops_seed : NAN);
    csv_num(f, ok ? r->flops_actual : NAN);
    csv_num(f, ok ? gflops(r->flops_seed, r->t_kernel) : NAN);
    csv_num(f, ok ? gflops(r->flops_actual, r->t_kernel) : NAN);
    csv_num(f, ok && r->peak_gflops > 0 ? r->peak_gflops : NAN);
    csv_num(f, ok ? pct_peak(r) : NAN);
    csv_num(f, ok ? r->bytes_in : NAN);
    csv_num(f, ok ? r->bytes_out : NAN);
    csv_num(f, ok ? r->bytes_in + r->bytes_out : NAN);
    csv_num(f, b->bus_gbs);
    csv_num(f, ok ? bus_us(r, b->bus_gbs) : NAN);
    csv_num(f, ok && gpu ? r->bw_in : NAN);
    csv_num(f, ok && gpu ? r->bw_out : NAN);
    csv_num(f, ok && gpu ? r->max_error : NAN);
    fputc('\n', f);
  }
  int bad = ferror(f);
  bad |= fclose(f) != 0;
  if (bad) {
    fprintf(stderr, "femint: cannot write '%s': %s\n", path, strerror(errno));
    return EXIT_RUNTIME;
  }
  return 0;
}

static void print_json(const struct cli_bench *b, const struct row *rows, int n, int device)
{
  putchar('[');
  for (int i = 0; i < n; i++) {
    const struct row *w = &rows[i];
    const struct femint_bench_result *r = &w->r;
    const int gpu = w->variant >= 0, ok = w->rc == 0;
    printf("%s{\"order\":%d,\"variant\":\"%s\",\"precision\":\"%s\",\"problem\":\"%s\","
           "\"symmetric\":%s,\"device\":%d,\"cells\":%ld,\"status\":\"%s\"",
           i ? ",\n" : "", w->order, variant_text(w->variant), precision_text(w->precision),
           cli_problem_names[b->problem], b->symmetric ? "true" : "false", gpu ? device : -1,
           ok ? (long)r->ncell : w->cells, ok ? "ok" : femint_error_name(w->rc));
    if (!ok) {
      printf(",\"error\":");
      cli_json_string(w->error);
      putchar('}');
      continue;
    }
    const char *names[] = {"prep_us", "alloc_us", "in_us", "kernel_us", "out_us", "assemble_us"};
    const double t[6] = {r->t_prep, r->t_alloc, r->t_in, r->t_kernel, r->t_out, r->t_assemble};
    for (int k = 0; k < 6; k++) {
      printf(",\"%s\":", names[k]);
      cli_json_number(1e6 * t[k]);
    }
    struct {
      const char *name;
      double x;
    } f[] = {{"total_us", total_us(r)},
             {"flops_seed", r->flops_seed},
             {"flops_actual", r->flops_actual},
             {"gflops_seed", gflops(r->flops_seed, r->t_kernel)},
             {"gflops_actual", gflops(r->flops_actual, r->t_kernel)},
             {"peak_gflops", r->peak_gflops > 0 ? r->peak_gflops : NAN},
             {"peak_pct", pct_peak(r)},
             {"bytes_in", r->bytes_in},
             {"bytes_out", r->bytes_out},
             {"bus_gbs", b->bus_gbs},
             {"bus_bound_us", bus_us(r, b->bus_gbs)},
             {"bw_in_gbs", gpu ? r->bw_in : NAN},
             {"bw_out_gbs", gpu ? r->bw_out : NAN},
             {"max_error", gpu ? r->max_error : NAN}};
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
      printf(",\"%s\":", f[k].name);
      cli_json_number(f[k].x);
    }
    putchar('}');
  }
  printf("]\n");
}

/* Two panels: GFLOP/s (seed count) and kernel time per element against p, one line per variant
 * and precision. */
static int plot_rows(const char *png, const struct row *rows, int n, const char *device_name)
{
  if (!cli_have_gnuplot()) {
    fprintf(stderr, "femint: warning: gnuplot is not on the PATH: no chart '%s'\n", png);
    return 0;
  }
  size_t cap = 4096 + (size_t)n * 160, len = 0;
  char *s = malloc(cap), series[16][24];
  int nseries = 0, npoints = 0, colour[16], pmin = FEMINT_MAX_ORDER, pmax = 1;
  if (!s) return EXIT_RUNTIME;
  len += snprintf(s + len, cap - len, "$data << EOD\n");
  for (int v = -1; v <= FEMINT_VARIANT_GEMM; v++)
    for (int pr = 0; pr < 2 && nseries < 16; pr++) {
      int any = 0;
      for (int i = 0; i < n; i++) {
        const struct row *w = &rows[i];
        if (w->variant != v || w->precision != pr || w->rc || !(w->r.t_kernel > 0)) continue;
        len += snprintf(s + len, cap - len, "%d %.6g %.6g\n", w->order,
                        gflops(w->r.flops_seed, w->r.t_kernel), 1e6 * w->r.t_kernel);
        any = 1, npoints++;
        pmin = w->order < pmin ? w->order : pmin;
        pmax = w->order > pmax ? w->order : pmax;
      }
      if (!any) continue;
      len += snprintf(s + len, cap - len, "\n\n");
      colour[nseries] = v + 2;
      snprintf(series[nseries++], sizeof series[0], "%s %s", variant_text(v), precision_text(pr));
    }
  len += snprintf(s + len, cap - len, "EOD\n");
  if (npoints == 0) {
    free(s);
    fprintf(stderr, "femint: warning: no measurement succeeded: no chart '%s'\n", png);
    return 0;
  }
  char title[300];
  snprintf(title, sizeof title, "femint bench: %s", device_name);
  for (char *c = title; *c; c++)
    if (*c == '"' || *c == '\\') *c = ' ';
  len += snprintf(s + len, cap - len,
                  "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
                  "  set terminal pngcairo size 1400,600 font \",10\"\n"
                  "} else {\n  set terminal png size 1400,600\n}\n"
                  "set termoption noenhanced\n"
                  "set output \"%s\"\n"
                  "set multiplot layout 1,2 title \"%s\"\n"
                  "set logscale y\nset grid\nset xtics 1\nset xrange [%g:%g]\n"
                  "set xlabel \"order p\"\nset key outside right top vertical font \",9\"\n",
                  png, title, pmin - 0.5, pmax + 0.5);
  for (int panel = 0; panel < 2; panel++) {
    len += snprintf(s + len, cap - len, "set ylabel \"%s\"\nplot ",
                    panel ? "kernel time per element [us]" : "GFLOP/s (seed 000's count)");
    for (int k = 0; k < nseries; k++) {
      const int single = strstr(series[k], "single") != NULL;
      len += snprintf(s + len, cap - len,
                      "%s$data index %d using 1:%d with linespoints lw 2 pt %d dt %d lc %d "
                      "title \"%s\"",
                      k ? ", \\\n     " : "", k, panel ? 3 : 2, single ? 6 : 7, single ? 2 : 1,
                      colour[k], series[k]);
    }
    len += snprintf(s + len, cap - len, "\n");
  }
  snprintf(s + len, cap - len, "unset multiplot\nset output\n");
  int rc = cli_gnuplot(s);
  free(s);
  return rc ? EXIT_RUNTIME : 0;
}

/* The name of OpenCL device dev, from the worker names ("OpenCL N (name)"). */
static void device_name(femint_context_t ctx, int nworker, int dev, char *buf, size_t len)
{
  char prefix[32];
  snprintf(buf, len, dev < 0 ? "CPU only" : "OpenCL device %d", dev);
  snprintf(prefix, sizeof prefix, "OpenCL %d ", dev);
  for (int w = 0; dev >= 0 && w < nworker; w++) {
    char name[256];
    if (femint_context_worker_name(ctx, w, name, sizeof name) == 0 &&
        strncmp(name, prefix, strlen(prefix)) == 0) {
      snprintf(buf, len, "%s", name);
      return;
    }
  }
}

static int bench_sweep(const struct cli_bench *b)
{
  femint_context_t ctx = NULL;
  femint_form_t form = NULL;
  struct row *rows = NULL;
  int ncpu = 0, nocl = 0, team = 0, rc, status = EXIT_RUNTIME, nrow = 0;
  struct femint_init_options iopt = {.nopencl = -1, .quiet = !b->verbose};
  if (cli_init(&iopt, &ctx)) return EXIT_RUNTIME;
  if ((rc = femint_context_workers(ctx, &ncpu, &nocl, &team)) != 0 ||
      (rc = cli_form_create(ctx, b->problem, b->shape, &form)) != 0) {
    status = cli_fail_runtime(ctx, rc);
    goto done;
  }
  int device = (int)b->device, nvariants = b->nvariants;
  if (device >= 0 && device >= nocl) {
    fprintf(stderr, "femint: --device %d: StarPU found %d OpenCL device%s\n", device, nocl,
            nocl == 1 ? "" : "s");
    goto done;
  }
  if (device < 0 && nocl > 0) device = 0;
  if (device < 0 && nvariants > 0) {
    if (!b->cpu) {
      fprintf(stderr, "femint: no OpenCL device to measure (without a GPU, "
                      "STARPU_OPENCL_ON_CPUS=1 uses PoCL's CPU device)\n");
      goto done;
    }
    if (!b->quiet) fprintf(stderr, "femint: no OpenCL device: only the CPU rows\n");
    nvariants = 0;
  }
  const int per_order = (b->cpu + nvariants) * b->nprec, total = b->norders * per_order;
  if (!(rows = calloc(total > 0 ? total : 1, sizeof *rows))) {
    fprintf(stderr, "femint: out of memory\n");
    goto done;
  }
  char dname[256];
  device_name(ctx, ncpu + nocl, device, dname, sizeof dname);
  int nok = 0;
  for (int io = 0; io < b->norders; io++)
    for (int iv = b->cpu ? -1 : 0; iv < nvariants; iv++)
      for (int ip = 0; ip < b->nprec; ip++) {
        struct row *w = &rows[nrow++];
        w->order = b->orders[io];
        w->variant = iv < 0 ? -1 : b->variants[iv];
        w->precision = b->precs[ip];
        w->cells = cells_for(b, w->order, w->precision);
        struct femint_bench_options opt = {.form = form, .order = w->order,
                                           .precision = w->precision,
                                           .variant = w->variant < 0 ? 0 : w->variant,
                                           .symmetric = b->symmetric, .ncell = (int)w->cells,
                                           .device = w->variant < 0 ? -1 : device,
                                           .repeat = (int)b->repeat, .shape = b->shape};
        if (!b->quiet)
          fprintf(stderr, "femint bench: [%d/%d] p=%d %s %s, %ld cells ...", nrow, total,
                  w->order, variant_text(w->variant), precision_text(w->precision), w->cells);
        w->rc = femint_bench_kernel(ctx, &opt, &w->r);
        if (w->rc) {
          const char *msg = femint_last_error(ctx);
          snprintf(w->error, sizeof w->error, "%s", msg && *msg ? msg : femint_strerror(w->rc));
          for (char *c = w->error; *c; c++)
            if (*c == '\n' || *c == '\r') *c = ' ';
        } else {
          nok++;
        }
        if (!b->quiet) {
          if (w->rc) fprintf(stderr, " failed: %s\n", w->error);
          else fprintf(stderr, " kernel %.4g us/element, total %.4g us/element\n",
                       1e6 * w->r.t_kernel, total_us(&w->r));
        }
      }
  if (b->json) {
    print_json(b, rows, nrow, device);
  } else {
    printf("femint bench: %s, %s%s, %s; CPU rows: the CPU codelet, one OpenMP team on every "
           "core\n",
           b->shape == FEMINT_QUAD ? "quadrilaterals" : "prisms",
           b->problem == PROBLEM_ELASTICITY ? (b->shape == FEMINT_QUAD ? "plane stress elasticity"
                                                                       : "linear elasticity")
           : b->problem == PROBLEM_LAPLACE  ? "Laplacian"
                                            : "mass matrix",
           b->symmetric ? " (symmetric storage)" : "", dname);
    printf("times per element in microseconds; bus-bound time at %g GB/s\n", b->bus_gbs);
    print_table_header();
    for (int i = 0; i < nrow; i++) print_table_row(&rows[i], b->bus_gbs);
  }
  status = nok > 0 ? 0 : EXIT_RUNTIME;
  if (b->csv && write_csv(b->csv, b, rows, nrow, device)) status = EXIT_RUNTIME;
  if (b->plot && plot_rows(b->plot, rows, nrow, dname)) status = EXIT_RUNTIME;
done:
  free(rows);
  femint_form_destroy(&form);
  femint_finalize(&ctx);
  return status;
}

int cli_bench_command(int argc, char **argv)
{
  struct cli_bench b = {.norders = FEMINT_MAX_ORDER, .orders = {1, 2, 3, 4, 5, 6, 7},
                        .cpu = 1, .nprec = 2, .precs = {FEMINT_DOUBLE, FEMINT_SINGLE},
                        .device = -1, .problem = PROBLEM_ELASTICITY, .bus_gbs = DEFAULT_BUS_GBS,
                        .mesh = {CLI_MESH_BOX, 16, 16, 8, NULL}, .runs = 12,
                        .shape = FEMINT_PRISM};
  parse_variants("all", &b);
  int status = bench_parse(argc, argv, &b);
  if (status) return status < 0 ? 0 : status;
  if (b.coexec) {
    if (b.nprec == 2) b.nprec = 1;
    return cli_coexec(&b);
  }
  return bench_sweep(&b);
}
