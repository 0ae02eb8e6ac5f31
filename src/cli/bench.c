/* femint bench: the option table and the choice of a mode: the sweep of the H1 kernel's stages
 * per element (bench_sweep.c), co-execution of CPU and OpenCL workers (bench_coexec.c), or the
 * phases of an operator's assembly (bench_phases.c). */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <math.h>
#include <string.h>

#include "bench.h"

static const char *const precision_names[] = {"double", "single", "both", NULL};

/* --variant LIST|all: names of femint_variant_parse, comma-separated, or all (the five). */
static int parse_variants(const char *option, const char *text, void *dest)
{
  struct bench_variants *vs = dest;
  vs->n = 0;
  if (strcmp(text, "all") == 0) {
    for (int v = FEMINT_VARIANT_REG_NOJAC; v <= FEMINT_VARIANT_GEMM; v++) vs->v[vs->n++] = v;
    return 0;
  }
  for (const char *s = text;;) {
    const size_t n = strcspn(s, ",");
    char name[32];
    int v = -1;
    if (n < sizeof name) {
      memcpy(name, s, n);
      name[n] = '\0';
      v = femint_variant_parse(name);
    }
    if (v < 0)
      return cli_fail_usage("%s: unknown variant '%.*s' in '%s' (expected reg_nojac, reg_jac, "
                            "shm_nojac, shm_jac, gemm, auto, a comma-separated list, or all)",
                            option, (int)(n < 64 ? n : 64), s, text);
    int dup = 0;
    for (int k = 0; k < vs->n; k++) dup |= vs->v[k] == v;
    if (!dup) {
      if (vs->n == (int)(sizeof vs->v / sizeof vs->v[0]))
        return cli_fail_usage("%s: too many variants in '%s'", option, text);
      vs->v[vs->n++] = v;
    }
    if (s[n] == '\0') return 0;
    s += n + 1;
  }
}

#define B(member) offsetof(struct bench_options, member)
static const struct cli_option common_options[] = {
  {CLI_OPT("--precision", CLI_CHOICE, B(precision),
           "precision of integration; both (the sweep only) measures each (default: both in the "
           "sweep, double otherwise)", NULL),
   .choices = precision_names},
  {CLI_OPT("--symmetric", CLI_FLAG, B(symmetric),
           "sweep and phases: element matrices travel as their upper half", NULL)},
  {CLI_OPT("--runs", CLI_INT, B(runs),
           "co-execution: the most calibration runs per mode (default 12); phases: the later "
           "runs, of which the best counts (default 3)", "N"),
   .min = 1, .max = 1000},
  {CLI_OPT("--devices", CLI_INT, B(devices),
           "co-execution and phases: " CLI_DEVICES_HELP, "N"),
   .min = 0, .max = 64},
  {CLI_OPT("--json", CLI_FLAG, B(json),
           "print the result as JSON (the sweep: an array of rows) instead of the table", NULL)},
  {CLI_OPT("--quiet", CLI_FLAG, B(quiet), "no progress lines on stderr", NULL)},
  {CLI_OPT("--verbose", CLI_FLAG, B(verbose), "let StarPU print its own messages", NULL)},
};

static const struct cli_option sweep_options[] = {
  {CLI_OPT("--variant", CLI_CUSTOM, B(variants),
           "OpenCL kernels: reg_nojac, reg_jac, shm_nojac, shm_jac, gemm, auto (the fastest "
           "measured), comma-separated, or all (default all; quad: gemm, its only kernel); the "
           "phases take one (default auto)", "LIST|all"),
   .parse = parse_variants},
  {CLI_OPT("--no-cpu", CLI_FLAG, B(no_cpu),
           "no row for the CPU codelet (--operator: none for the CPU workers alone)", NULL)},
  {CLI_OPT("--device", CLI_INT, B(device),
           "OpenCL device, StarPU's numbering (default 0, when there is one)", "N"),
   .min = 0, .max = 255},
  {CLI_OPT("--cells", CLI_INT, B(cells),
           "about N elements per measurement (default: by order, from 200000 at p=1 to 2000 at "
           "p=7, fewer where the element matrices would not fit in memory)", "N"),
   .min = 1, .max = CLI_MAX_CELLS},
  {CLI_OPT("--repeat", CLI_INT, B(repeat), "kernel launches, the best counts (default 3)", "N"),
   .min = 1, .max = 1000},
  {CLI_OPT("--bus-gbs", CLI_REAL, B(bus_gbs),
           "bus rate for the bus-bound time, GB/s (default 55)", "X"),
   .lo = 0, .hi = INFINITY, .flags = CLI_LO_OPEN},
  {CLI_OPT("--csv", CLI_PATH, B(csv), "write every field of every row as CSV", "FILE"),
   .flags = CLI_WRITABLE},
  {CLI_OPT("--plot", CLI_PATH, B(plot),
           "GFLOP/s and kernel time per element against p (gnuplot)", "FILE.png"),
   .flags = CLI_WRITABLE},
};

static const struct cli_option coexec_options[] = {
  {CLI_OPT("--coexec", CLI_FLAG, B(coexec),
           "measure co-execution: assemble linear elasticity on the prisms of --mesh (default "
           "box:16,16,8) with integration on the CPU workers, the OpenCL workers and every worker",
           NULL)},
  {CLI_OPT("--no-assembly", CLI_FLAG, B(no_assembly),
           "time the integration alone: the element matrices reach main memory and are not "
           "assembled", NULL)},
  {CLI_OPT("--timeline", CLI_PATH, B(timeline),
           "Gantt chart of the median co-execution run (its tasks in FILE.csv)", "FILE.png")},
};

static const struct cli_option phases_options[] = {
  {CLI_OPT("--operator", CLI_FLAG, B(phases_bench),
           "time the phases of the operator's assembly for prism and quad too (tet: always)",
           NULL)},
  {CLI_OPT("--batch", CLI_INT, B(batch), "most cells per batch; 0 chooses (default 0)", "N"),
   .min = 0, .max = 1L << 30},
  {CLI_OPT("--assembly", CLI_CHOICE, B(assembly),
           "rows, coo or auto, as for femint run (default auto; --coexec takes it too)", NULL),
   .choices = cli_assembly_names},
  {CLI_OPT("--overlap", CLI_FLAG, B(overlap),
           "the phases are not waited for: each later assembly runs as an application's does "
           "(integration, sums and download overlapping; the phase times are then those of "
           "the steps that wait), so that total_median_s is its whole time",
           NULL)},
  {CLI_OPT("--on-device", CLI_FLAG, B(on_device),
           "the matrices' values stay on the device that sums them (the operator option "
           "matrix_on_device): nothing comes back",
           NULL)},
};

static const struct cli_section sections[] = {
  {"Mesh, space and problem (the sweep takes --element, --order and --problem)",
   cli_setup_options, CLI_SETUP_NOPTIONS, offsetof(struct bench_options, s)},
  {"Every mode", common_options, sizeof common_options / sizeof common_options[0], 0},
  {"Kernel sweep (the default for prism and quad)", sweep_options,
   sizeof sweep_options / sizeof sweep_options[0], 0},
  {"Co-execution (--coexec, prisms)", coexec_options,
   sizeof coexec_options / sizeof coexec_options[0], 0},
  {"Operator phases (--operator; the default for tet)", phases_options,
   sizeof phases_options / sizeof phases_options[0], 0},
};

const struct cli_command cli_bench_cmd = {
  "bench",
  "time the stages of the H1 kernels per element (seed 000's Tables 5-7), co-execution "
  "(--coexec), or the phases of an operator (tet, --operator)",
  "[OPTIONS]",
  "Kernel sweep (prism, quad): times the stages of integrating about --cells cells of one order "
  "on one OpenCL device, one stage after the other, divided by the number of elements: input "
  "preparation, device allocation, transfer in, kernel, transfer out, assembly into the CSR "
  "matrix (seed 000's Tables 5-7), for each order, kernel variant and precision, and the CPU "
  "codelet (one OpenMP team on every core) as its own row. A variant that cannot run (no fp64, "
  "too little local memory) is a row that says why; the sweep goes on.\n\n"
  "Co-execution (--coexec): assembles linear elasticity with integration on the CPU workers "
  "only, the OpenCL workers only, and every worker; each mode first runs until StarPU's "
  "performance models are calibrated (at most --runs times), then the task stage is timed (best "
  "of 3): T_cpu, T_gpu, T_both. T_ideal = 1/(1/T_cpu + 1/T_gpu) and the efficiency T_ideal / "
  "T_both, with each worker's busy time.\n\n"
  "Operator phases (--element tet, or --operator): makes the operator of femint run on the CPU "
  "workers alone, then on every worker, and times its phases, each waited for before the next: "
  "the OpenCL programs and the sparsity pattern of the first assembly, then packing, "
  "integration, the assembly or COO sums and the download of the best of --runs later "
  "assemblies (seed 004's Table 2).",
  sections,
  sizeof sections / sizeof sections[0],
  "Columns of the sweep: times per element in microseconds (total: the six stages); Mflop: flops "
  "per element as seed 000 counts them and as the kernel performs them; GF/s: those counts over "
  "the kernel time; %peak: actual GF/s over the device's peak (when known); bus B: bytes per "
  "element over the bus (in + out); bus_us: that at --bus-gbs; GB/s in/out: rates of the "
  "transfers; max_err: relative difference of sampled element matrices from the CPU's. Exit "
  "status of the sweep: 0 when at least one measurement succeeded.",
};

enum { MODE_SWEEP, MODE_COEXEC, MODE_PHASES };

/* The options of each mode beyond those of every mode, and how a message names the mode. */
static const char *const mode_options[3][19] = {
  {"--problem", "--variant", "--no-cpu", "--device", "--cells", "--symmetric", "--repeat",
   "--bus-gbs", "--csv", "--plot"},
  {"--coexec", "--mesh", "--perturb", "--seed", "--runs", "--no-assembly", "--timeline",
   "--assembly", "--devices"},
  {"--operator", "--mesh", "--perturb", "--seed", "--curved", "--space", "--problem", "--pec",
   "--eps", "--mu", "--batch", "--variant", "--symmetric", "--assembly", "--runs", "--devices",
   "--overlap", "--on-device", "--no-cpu"},
};
static const char *const every_mode[] = {"--element", "--order", "--precision", "--json",
                                         "--quiet", "--verbose"};
static const char *const mode_text[3] = {
  "the kernel sweep (the default for prism and quad)", "the co-execution bench (--coexec)",
  "the operator phases bench (--operator, the default for tet)"};

static int check_mode(const struct cli_args *args, int mode)
{
  for (int k = 0; k < args->ngiven; k++) {
    int ok = 0;
    for (size_t i = 0; i < sizeof every_mode / sizeof every_mode[0]; i++)
      ok |= strcmp(args->name[k], every_mode[i]) == 0;
    for (size_t i = 0; i < sizeof mode_options[mode] / sizeof *mode_options[mode] &&
                       mode_options[mode][i];
         i++)
      ok |= strcmp(args->name[k], mode_options[mode][i]) == 0;
    if (!ok) return cli_fail_usage("%s does not apply to %s", args->name[k], mode_text[mode]);
  }
  return 0;
}

/* The mode, its defaults and the checks that need every option. */
static int bench_check(struct bench_options *b, const struct cli_args *args, int *mode)
{
  if (b->coexec && b->phases_bench)
    return cli_fail_usage("--coexec and --operator exclude each other");
  *mode = b->coexec                                         ? MODE_COEXEC
          : b->phases_bench || b->s.shape == FEMINT_TET || b->s.shape == FEMINT_HEX ? MODE_PHASES
                                                          : MODE_SWEEP;
  int rc = check_mode(args, *mode);
  if (rc) return rc;
  if (*mode != MODE_SWEEP && b->precision == BENCH_BOTH)
    return cli_fail_usage("--precision both: %s takes single or double", mode_text[*mode]);
  if (*mode == MODE_COEXEC) {
    if (b->s.shape != FEMINT_PRISM)
      return cli_fail_usage("--element %s: --coexec measures prisms", cli_shape_name(b->s.shape));
    if (b->s.mesh.kind == CLI_MESH_NONE)
      b->s.mesh = (struct cli_mesh){CLI_MESH_BOX, 16, 16, 8, NULL};
    if (!b->runs) b->runs = 12;
    if (b->timeline && cli_check_timeline("--timeline", b->timeline)) return EXIT_USAGE;
  }
  if (*mode == MODE_PHASES) {
    if (!b->runs) b->runs = 3;
    if (b->variants.n > 1)
      return cli_fail_usage("--variant %s: %s takes one variant", cli_given(args, "--variant"),
                            mode_text[*mode]);
    if (b->variants.n == 1 && b->s.shape == FEMINT_TET && b->variants.v[0] != 0)
      return cli_fail_usage("--variant %s: the variants are those of the H1 kernel; --element "
                            "tet has one kernel",
                            cli_given(args, "--variant"));
  }
  if (*mode == MODE_SWEEP) {
    if (b->s.orders.n == 0) b->s.orders = (struct cli_orders){7, {1, 2, 3, 4, 5, 6, 7}};
    const int pmax = femint_refel_max_order(b->s.shape, FEMINT_H1);
    for (int k = 0; k < b->s.orders.n; k++)
      if (b->s.orders.p[k] > pmax)
        return cli_fail_usage("--order %d: the %s element has orders 1..%d", b->s.orders.p[k],
                              cli_shape_name(b->s.shape), pmax);
    if (b->variants.n == 0) parse_variants("--variant", b->s.shape == FEMINT_QUAD ? "gemm" : "all",
                                           &b->variants);
    for (int k = 0; k < b->variants.n && b->s.shape == FEMINT_QUAD; k++)
      if (b->variants.v[k] != FEMINT_VARIANT_GEMM)
        return cli_fail_usage("--variant %s: quadrilaterals have the gemm kernel only",
                              cli_given(args, "--variant"));
  }
  return cli_setup_resolve(&b->s);
}

int cli_bench_command(int argc, char **argv)
{
  struct bench_options b = {.s = CLI_SETUP_INIT, .precision = BENCH_BOTH, .device = -1,
                            .repeat = 3, .bus_gbs = 55.0};
  struct cli_args args;
  int mode, status = cli_parse(&cli_bench_cmd, argc, argv, &b, &args);
  if (status) return status < 0 ? 0 : status;
  if (!cli_given(&args, "--precision") && (b.coexec || b.phases_bench || b.s.shape == FEMINT_TET))
    b.precision = BENCH_DOUBLE;
  if ((status = bench_check(&b, &args, &mode)) != 0) return status;
  if (mode == MODE_COEXEC) return cli_bench_coexec(&b);
  return mode == MODE_PHASES ? cli_bench_phases(&b) : cli_bench_sweep(&b);
}
