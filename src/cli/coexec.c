/* femint bench --coexec: how well CPU and OpenCL workers share an assembly. The task stage on CPU
 * workers only, OpenCL workers only and every worker (each after calibration) gives the efficiency
 * T_ideal / T_both, with T_ideal = 1/(1/T_cpu + 1/T_gpu). */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define MEASURED_RUNS 3

enum { MODE_CPU, MODE_GPU, MODE_BOTH, NMODE };
static const char *const mode_names[NMODE] = {"cpu", "opencl", "any"};
static const int mode_where[NMODE] = {FEMINT_WHERE_CPU, FEMINT_WHERE_OPENCL, FEMINT_WHERE_ANY};

struct mode_result {
  int runs;          /* calibration runs */
  int calibrating;   /* batches still placed uncalibrated in the last calibration run */
  double t_best;     /* best task stage of the measured runs */
  struct femint_stats best;
};

/* One assembly (the matrix is dropped), or with no_assembly one integration of every element
 * matrix into host memory. */
static int assemble_once(femint_context_t ctx, femint_space_t space, femint_form_t form,
                         int precision, int where, int no_assembly, const char *timeline,
                         struct femint_stats *st)
{
  femint_matrix_t A = NULL;
  struct femint_assemble_options opt = {.precision = precision, .where = where,
                                        .timeline = timeline};
  memset(st, 0, sizeof *st);
  if (no_assembly) return femint_integrate(ctx, space, form, &opt, NULL, NULL, st);
  int rc = femint_assemble(ctx, space, form, &opt, &A, st);
  femint_matrix_destroy(&A);
  return rc;
}

static int run_mode(femint_context_t ctx, femint_space_t space, femint_form_t form,
                    const struct cli_bench *b, int mode, const char *csv, const char *part,
                    struct mode_result *m)
{
  struct femint_stats st;
  int rc;
  const int precision = b->precs[0];
  do {
    if ((rc = assemble_once(ctx, space, form, precision, mode_where[mode], b->no_assembly, NULL,
                             &st)) != 0)
      return rc;
    m->runs++;
    m->calibrating = st.calibrating;
    if (!b->quiet)
      fprintf(stderr, "femint bench: %s: calibration run %d: %.4g s, %d of %d batches placed "
                      "uncalibrated\n",
              mode_names[mode], m->runs, st.t_tasks, st.calibrating, st.nbatch);
  } while (st.calibrating > 0 && m->runs < b->runs);
  m->t_best = INFINITY;
  for (int r = 0; r < MEASURED_RUNS; r++) {
    const char *tl = mode == MODE_BOTH && csv ? part : NULL;
    if ((rc = assemble_once(ctx, space, form, precision, mode_where[mode], b->no_assembly, tl,
                             &st)) != 0)
      return rc;
    if (!b->quiet)
      fprintf(stderr, "femint bench: %s: run %d of %d: task stage %.4g s\n", mode_names[mode],
              r + 1, MEASURED_RUNS, st.t_tasks);
    if (st.t_tasks < m->t_best) {
      m->t_best = st.t_tasks;
      m->best = st;
      if (tl && rename(part, csv) != 0) {
        fprintf(stderr, "femint: cannot write the timeline '%s': %s\n", csv, strerror(errno));
        return 1;
      }
    }
  }
  return 0;
}

static void print_orders(const struct cli_bench *b)
{
  for (int i = 0; i < b->norders; i++) printf("%s%d", i ? "," : "", b->orders[i]);
}

static void print_json(const struct cli_bench *b, int ncell, const struct mode_result *m,
                       double t_ideal, char names[][CLI_NAME_LEN])
{
  const struct femint_stats *st = &m[MODE_BOTH].best;
  if (b->mesh.file) {
    printf("{\"mesh\":{\"type\":\"gmsh\",\"file\":");
    cli_json_string(b->mesh.file);
    putchar('}');
  } else {
    printf("{\"mesh\":{\"type\":\"box\",\"nx\":%d,\"ny\":%d,\"nz\":%d}", b->mesh.nx, b->mesh.ny,
           b->mesh.nz);
  }
  printf(",\"cells\":%d,\"orders\":[", ncell);
  print_orders(b);
  printf("],\"problem\":\"elasticity\",\"precision\":\"%s\",\"stage\":\"%s\","
         "\"max_calibration_runs\":%ld,\"calibration\":{",
         b->precs[0] == FEMINT_SINGLE ? "single" : "double",
         b->no_assembly ? "integrate" : "assemble", b->runs);
  for (int k = 0; k < NMODE; k++)
    printf("%s\"%s\":{\"runs\":%d,\"calibrating\":%d}", k ? "," : "", mode_names[k], m[k].runs,
           m[k].calibrating);
  printf("},\"t_cpu_s\":");
  cli_json_number(m[MODE_CPU].t_best);
  printf(",\"t_gpu_s\":");
  cli_json_number(m[MODE_GPU].t_best);
  printf(",\"t_both_s\":");
  cli_json_number(m[MODE_BOTH].t_best);
  printf(",\"t_ideal_s\":");
  cli_json_number(t_ideal);
  printf(",\"efficiency\":");
  cli_json_number(t_ideal / m[MODE_BOTH].t_best);
  printf(",\"flops_seed\":");
  cli_json_number(st->flops_seed);
  printf(",\"workers\":[");
  cli_json_workers(st, names);
  printf("],\"timeline\":");
  if (b->timeline) cli_json_string(b->timeline);
  else fputs("null", stdout);
  printf("}\n");
}

static void print_human(const struct cli_bench *b, int ncell, int ncpu, int nocl, int team,
                        const struct mode_result *m, double t_ideal, char names[][CLI_NAME_LEN],
                        const char *csv)
{
  const struct femint_stats *st = &m[MODE_BOTH].best;
  printf("femint bench --coexec: prisms, linear elasticity (E = 1, nu = 0.3), %s precision\n",
         b->precs[0] == FEMINT_SINGLE ? "single" : "double");
  if (b->mesh.file) printf("mesh          gmsh file %s: %d prisms\n", b->mesh.file, ncell);
  else
    printf("mesh          box %dx%dx%d: %d prisms\n", b->mesh.nx, b->mesh.ny, b->mesh.nz, ncell);
  printf("orders        ");
  print_orders(b);
  printf(" cycling over the cells\n");
  printf("stage         %s\n", b->no_assembly
                                 ? "integration alone: element matrices into host memory "
                                   "(femint_integrate)"
                                 : "integration and assembly into the CSR matrix "
                                   "(femint_assemble)");
  printf("workers       %d CPU worker%s (OpenMP teams of up to %d thread%s), %d OpenCL worker%s\n",
         ncpu, ncpu == 1 ? "" : "s", team, team == 1 ? "" : "s", nocl, nocl == 1 ? "" : "s");
  printf("calibration   runs per mode until no batch is placed uncalibrated (at most %ld): "
         "cpu %d, opencl %d, any %d\n",
         b->runs, m[MODE_CPU].runs, m[MODE_GPU].runs, m[MODE_BOTH].runs);
  for (int k = 0; k < NMODE; k++)
    if (m[k].calibrating)
      printf("              %s: %d batches were still calibrating after %d runs; the times may "
             "improve on the next run\n",
             mode_names[k], m[k].calibrating, m[k].runs);
  printf("T_cpu         %10.4g s   task stage, integration on the CPU workers (best of %d)\n",
         m[MODE_CPU].t_best, MEASURED_RUNS);
  printf("T_gpu         %10.4g s   task stage, integration on the OpenCL workers\n",
         m[MODE_GPU].t_best);
  printf("T_both        %10.4g s   task stage, integration on every worker\n",
         m[MODE_BOTH].t_best);
  printf("T_ideal       %10.4g s   1/(1/T_cpu + 1/T_gpu)\n", t_ideal);
  printf("efficiency    %10.3f     T_ideal / T_both\n", t_ideal / m[MODE_BOTH].t_best);
  printf("workers       in the best run on every worker: integrate + assemble tasks, busy "
         "time, share of T_both\n");
  for (int w = 0; w < st->nworker; w++)
    printf("  %-50s %5d + %-5d %9.4f s %5.1f%%\n", names[w], st->worker_tasks_integrate[w],
           st->worker_tasks_assemble[w], st->worker_busy[w],
           st->t_tasks > 0 ? 100 * st->worker_busy[w] / st->t_tasks : 0.0);
  if (b->timeline) printf("timeline      %s (tasks in %s)\n", b->timeline, csv);
}

int cli_coexec(const struct cli_bench *b)
{
  femint_context_t ctx = NULL;
  femint_mesh_t mesh = NULL;
  femint_space_t space = NULL;
  femint_form_t form = NULL;
  int *orders = NULL, rc = 0, status = EXIT_RUNTIME, ncpu = 0, nocl = 0, team = 0;
  char *csv = NULL, *part = NULL;
  static char names[FEMINT_MAX_WORKERS][CLI_NAME_LEN];
  struct mode_result m[NMODE];
  memset(m, 0, sizeof m);
  if (b->mesh.file && (rc = femint_mesh_read_gmsh(NULL, b->mesh.file, &mesh)) != 0)
    return cli_fail_runtime(NULL, rc);
  struct femint_init_options iopt = {.nopencl = -1, .quiet = !b->verbose};
  if (cli_init(&iopt, &ctx)) {
    femint_mesh_destroy(&mesh);
    return EXIT_RUNTIME;
  }
  if ((rc = femint_context_workers(ctx, &ncpu, &nocl, &team)) != 0) goto fail;
  if (ncpu < 1 || nocl < 1) {
    fprintf(stderr, "femint: --coexec needs CPU and OpenCL workers, StarPU found %d and %d "
                    "(without a GPU, STARPU_OPENCL_ON_CPUS=1 uses PoCL's CPU device)\n",
            ncpu, nocl);
    goto done;
  }
  if (!mesh && (rc = femint_mesh_create_box(ctx, b->mesh.nx, b->mesh.ny, b->mesh.nz, b->mesh.nx,
                                            b->mesh.ny, b->mesh.nz, 0.2, 1, &mesh)) != 0)
    goto fail;
  const int ncell = femint_mesh_num_cells(mesh);
  if (!(orders = malloc((ncell > 0 ? ncell : 1) * sizeof *orders))) {
    fprintf(stderr, "femint: out of memory (%d cells)\n", ncell);
    goto done;
  }
  for (int c = 0; c < ncell; c++) orders[c] = b->orders[c % b->norders];
  if ((rc = femint_space_create(ctx, mesh, 3, orders, 0, &space)) != 0 ||
      (rc = cli_form_create(ctx, PROBLEM_ELASTICITY, FEMINT_PRISM, &form)) != 0)
    goto fail;
  if (b->timeline) {
    csv = cli_timeline_csv(b->timeline);
    part = csv ? malloc(strlen(csv) + 6) : NULL;
    if (!part) {
      fprintf(stderr, "femint: out of memory\n");
      goto done;
    }
    sprintf(part, "%s.part", csv);
  }
  for (int k = 0; k < NMODE; k++) {
    if ((rc = run_mode(ctx, space, form, b, k, csv, part, &m[k])) != 0) {
      if (rc > 0) goto done;
      goto fail;
    }
  }
  const double t_ideal = 1 / (1 / m[MODE_CPU].t_best + 1 / m[MODE_GPU].t_best);
  struct femint_stats *st = &m[MODE_BOTH].best;
  if (st->nworker < 0) st->nworker = 0;
  if (st->nworker > FEMINT_MAX_WORKERS) st->nworker = FEMINT_MAX_WORKERS;
  for (int w = 0; w < st->nworker; w++)
    if (femint_context_worker_name(ctx, w, names[w], sizeof names[w]) != 0 || !names[w][0])
      snprintf(names[w], sizeof names[w], "worker %d", w);
  status = 0;
  if (b->timeline) {
    char title[128];
    snprintf(title, sizeof title,
             "femint bench --coexec: best run on every worker, T_both = %.4g s",
             m[MODE_BOTH].t_best);
    status = cli_timeline_plot(ctx, csv, b->timeline, title);
  }
  if (b->json) print_json(b, ncell, m, t_ideal, names);
  else print_human(b, ncell, ncpu, nocl, team, m, t_ideal, names, csv);
  goto done;
fail:
  cli_fail_runtime(ctx, rc);
done:
  if (part) unlink(part);
  free(part);
  free(csv);
  free(orders);
  femint_form_destroy(&form);
  femint_space_destroy(&space);
  femint_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  return status;
}
