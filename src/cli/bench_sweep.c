/* femint bench's kernel sweep: the stages of integrating and assembling one order on one device,
 * per element, for each order, kernel variant and precision (seed 000's Tables 5-7), as a table,
 * CSV, JSON and a gnuplot chart. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

/* One measurement. */
struct row {
  int order, variant, precision; /* variant -1: the CPU codelet */
  long cells;                    /* asked for */
  int rc;
  char error[256];
  struct femint_bench_result r;
};

static const int default_cells[8] = {0,     200000, 100000, 40000,
                                                        20000, 8000,   4000,   2000};

/* How many cells to ask for: the default of the order, capped so that the element matrices of
 * one measurement take at most 2 GiB and an eighth of the memory. */
static long cells_for(const struct bench_options *b, int order, int precision)
{
  if (b->cells > 0) return b->cells;
  if (order < 1 || order > 7) return 2000;
  struct femint_refel_info info;
  if (femint_refel_info(b->s.shape, FEMINT_H1, order, &info)) return default_cells[order];
  double n = (double)cli_problem_components(b->s.problem, b->s.shape) * info.nsh;
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

static int write_csv(const char *path, const struct bench_options *b, const struct row *rows, int n,
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
            precision_text(w->precision), cli_problem_names[b->s.problem], b->symmetric,
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

static void print_json(const struct bench_options *b, const struct row *rows, int n, int device)
{
  struct cli_json j = {0};
  cli_json_open(&j, NULL, '[');
  for (int i = 0; i < n; i++) {
    const struct row *w = &rows[i];
    const struct femint_bench_result *r = &w->r;
    const int gpu = w->variant >= 0, ok = w->rc == 0;
    cli_json_open(&j, NULL, '{');
    cli_json_int(&j, "order", w->order);
    cli_json_str(&j, "variant", variant_text(w->variant));
    cli_json_str(&j, "precision", precision_text(w->precision));
    cli_json_str(&j, "problem", cli_problem_names[b->s.problem]);
    cli_json_str(&j, "element", cli_shape_name(b->s.shape));
    cli_json_bool(&j, "symmetric", b->symmetric);
    cli_json_int(&j, "device", gpu ? device : -1);
    cli_json_int(&j, "cells", ok ? (long)r->ncell : w->cells);
    cli_json_str(&j, "status", ok ? "ok" : femint_error_name(w->rc));
    if (!ok) {
      cli_json_str(&j, "error", w->error);
      cli_json_close(&j, '}');
      continue;
    }
    const char *names[] = {"prep_us", "alloc_us", "in_us", "kernel_us", "out_us", "assemble_us"};
    const double t[6] = {r->t_prep, r->t_alloc, r->t_in, r->t_kernel, r->t_out, r->t_assemble};
    for (int k = 0; k < 6; k++) cli_json_num(&j, names[k], 1e6 * t[k]);
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
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) cli_json_num(&j, f[k].name, f[k].x);
    cli_json_close(&j, '}');
  }
  cli_json_close(&j, ']');
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
  cli_append(&s, &len, &cap, "$data << EOD\n");
  for (int v = -1; v <= FEMINT_VARIANT_GEMM; v++)
    for (int pr = 0; pr < 2 && nseries < 16; pr++) {
      int any = 0;
      for (int i = 0; i < n; i++) {
        const struct row *w = &rows[i];
        if (w->variant != v || w->precision != pr || w->rc || !(w->r.t_kernel > 0)) continue;
        cli_append(&s, &len, &cap, "%d %.6g %.6g\n", w->order,
                   gflops(w->r.flops_seed, w->r.t_kernel), 1e6 * w->r.t_kernel);
        any = 1, npoints++;
        pmin = w->order < pmin ? w->order : pmin;
        pmax = w->order > pmax ? w->order : pmax;
      }
      if (!any) continue;
      cli_append(&s, &len, &cap, "\n\n");
      colour[nseries] = v + 2;
      snprintf(series[nseries++], sizeof series[0], "%s %s", variant_text(v), precision_text(pr));
    }
  cli_append(&s, &len, &cap, "EOD\n");
  if (npoints == 0) {
    free(s);
    fprintf(stderr, "femint: warning: no measurement succeeded: no chart '%s'\n", png);
    return 0;
  }
  char title[300], text[300];
  snprintf(title, sizeof title, "femint bench: %s", device_name);
  cli_gnuplot_text(text, sizeof text, title);
  cli_gnuplot_png(&s, &len, &cap, 1400, 600, png);
  cli_append(&s, &len, &cap,
             "set multiplot layout 1,2 title \"%s\"\n"
             "set logscale y\nset grid\nset xtics 1\nset xrange [%g:%g]\n"
             "set xlabel \"order p\"\nset key outside right top vertical font \",9\"\n",
             text, pmin - 0.5, pmax + 0.5);
  for (int panel = 0; panel < 2; panel++) {
    cli_append(&s, &len, &cap, "set ylabel \"%s\"\nplot ",
               panel ? "kernel time per element [us]" : "GFLOP/s (seed 000's count)");
    for (int k = 0; k < nseries; k++) {
      const int single = strstr(series[k], "single") != NULL;
      cli_append(&s, &len, &cap,
                 "%s$data index %d using 1:%d with linespoints lw 2 pt %d dt %d lc %d "
                 "title \"%s\"",
                 k ? ", \\\n     " : "", k, panel ? 3 : 2, single ? 6 : 7, single ? 2 : 1,
                 colour[k], series[k]);
    }
    cli_append(&s, &len, &cap, "\n");
  }
  cli_append(&s, &len, &cap, "unset multiplot\nset output\n");
  const int rc = s ? cli_gnuplot(s) : -1;
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

int cli_bench_sweep(const struct bench_options *b)
{
  femint_context_t ctx = NULL;
  femint_form_t form = NULL;
  struct row *rows = NULL;
  int ncpu = 0, nocl = 0, team = 0, rc, status = EXIT_RUNTIME, nrow = 0;
  struct femint_init_options iopt = {.nopencl = -1, .quiet = !b->verbose};
  if (cli_init(&iopt, &ctx)) return EXIT_RUNTIME;
  if ((rc = femint_context_workers(ctx, &ncpu, &nocl, &team)) != 0 ||
      (rc = cli_form_create(ctx, b->s.problem, b->s.shape, &form)) != 0) {
    status = cli_fail_runtime(ctx, rc);
    goto done;
  }
  int device = (int)b->device, nvariants = b->variants.n;
  const int cpu = !b->no_cpu, nprec = b->precision == BENCH_BOTH ? 2 : 1;
  const int precs[2] = {b->precision == BENCH_SINGLE ? FEMINT_SINGLE : FEMINT_DOUBLE,
                        FEMINT_SINGLE};
  if (device >= 0 && device >= nocl) {
    cli_fail("--device %d: StarPU found %d OpenCL device%s", device, nocl, nocl == 1 ? "" : "s");
    goto done;
  }
  if (device < 0 && nocl > 0) device = 0;
  if (device < 0 && nvariants > 0) {
    if (!cpu) {
      cli_fail("no OpenCL device to measure (without a GPU, STARPU_OPENCL_ON_CPUS=1 uses PoCL's "
               "CPU device)");
      goto done;
    }
    if (!b->quiet) fprintf(stderr, "femint: no OpenCL device: only the CPU rows\n");
    nvariants = 0;
  }
  const int per_order = (cpu + nvariants) * nprec, total = b->s.orders.n * per_order;
  if (!(rows = calloc(total > 0 ? total : 1, sizeof *rows))) {
    cli_fail("out of memory");
    goto done;
  }
  char dname[256];
  device_name(ctx, ncpu + nocl, device, dname, sizeof dname);
  int nok = 0;
  for (int io = 0; io < b->s.orders.n; io++)
    for (int iv = cpu ? -1 : 0; iv < nvariants; iv++)
      for (int ip = 0; ip < nprec; ip++) {
        struct row *w = &rows[nrow++];
        w->order = b->s.orders.p[io];
        w->variant = iv < 0 ? -1 : b->variants.v[iv];
        w->precision = precs[ip];
        w->cells = cells_for(b, w->order, w->precision);
        struct femint_bench_options opt = {.form = form, .order = w->order,
                                           .precision = w->precision,
                                           .variant = w->variant < 0 ? 0 : w->variant,
                                           .symmetric = b->symmetric, .ncell = (int)w->cells,
                                           .device = w->variant < 0 ? -1 : device,
                                           .repeat = (int)b->repeat, .shape = b->s.shape};
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
    char problem[256];
    cli_problem_text(&b->s, problem, sizeof problem);
    printf("femint bench: %s, %s%s, %s; CPU rows: the CPU codelet, one OpenMP team on every "
           "core\n",
           cli_shape_plural(b->s.shape), problem, b->symmetric ? " (symmetric storage)" : "",
           dname);
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

