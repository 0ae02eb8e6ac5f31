/* femint bench --coexec: how well CPU and OpenCL workers share an assembly. The task stage of an
 * operator that integrates on CPU workers only, OpenCL workers only and every worker (each after
 * calibration) gives the efficiency T_ideal / T_both, with T_ideal = 1/(1/T_cpu + 1/T_gpu). */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define MEASURED_RUNS 5

enum { MODE_CPU, MODE_GPU, MODE_BOTH, NMODE };
static const char *const mode_names[NMODE] = {"cpu", "opencl", "any"};
static const int mode_where[NMODE] = {FEMINT_WHERE_CPU, FEMINT_WHERE_OPENCL, FEMINT_WHERE_ANY};

struct mode_result {
  int runs;        /* calibration runs */
  int calibrating; /* batches still placed uncalibrated in the last calibration run */
  double t_best;   /* the median task stage of the measured runs */
  struct femint_stats best; /* the statistics of that run */
};

/* One assembly (the matrix is dropped), or with no_assembly one integration of every element
 * matrix into main memory. */
static int verb_once(femint_operator_t op, int no_assembly, struct femint_stats *st)
{
  femint_matrix_t A = NULL;
  memset(st, 0, sizeof *st);
  if (no_assembly) return femint_operator_integrate(op, NULL, NULL, st);
  int rc = femint_operator_assemble(op, &A, st);
  femint_matrix_destroy(&A);
  return rc;
}

/* Calibration runs, then the measured ones, of an operator integrating on the workers of mode;
 * m gets the median run. The timeline of each run on every worker goes to part, kept as
 * part.N; the median run's becomes csv. Returns 0, a negative femint code, or EXIT_RUNTIME
 * after a message. */
static int run_mode(femint_context_t ctx, femint_space_t space, femint_form_t form,
                    const struct bench_options *b, int mode, const char *csv, const char *part,
                    struct mode_result *m)
{
  struct femint_stats st;
  static struct femint_stats runs[MEASURED_RUNS];
  char kept[MEASURED_RUNS][4200];
  int order[MEASURED_RUNS], done = 0;
  femint_operator_t op = NULL;
  const char *timeline = mode == MODE_BOTH && csv ? part : NULL;
  struct femint_operator_options opt = {.precision = b->precision, .where = mode_where[mode],
                                        .assembly = b->assembly, .timeline = timeline,
                                        .devices = (int)b->devices};
  int rc = femint_operator_create(ctx, space, 1, &form, &opt, &op);
  do {
    if (rc || (rc = verb_once(op, b->no_assembly, &st)) != 0) goto done;
    m->runs++;
    m->calibrating = st.calibrating;
    if (!b->quiet)
      fprintf(stderr, "femint bench: %s: calibration run %d: %.4g s, %d of %d batches placed "
                      "uncalibrated\n",
              mode_names[mode], m->runs, st.t_tasks, st.calibrating, st.nbatch);
  } while (st.calibrating > 0 && m->runs < b->runs);
  for (int r = 0; r < MEASURED_RUNS; r++) {
    if ((rc = verb_once(op, b->no_assembly, &runs[r])) != 0) goto done;
    done++;
    if (!b->quiet)
      fprintf(stderr, "femint bench: %s: run %d of %d: task stage %.4g s\n", mode_names[mode],
              r + 1, MEASURED_RUNS, runs[r].t_tasks);
    snprintf(kept[r], sizeof kept[r], "%s.%d", part ? part : "", r);
    if (timeline && rename(part, kept[r]) != 0) {
      rc = cli_fail("cannot write the timeline '%s': %s", kept[r], strerror(errno));
      goto done;
    }
  }
  /* the runs by task stage; the middle one is the median */
  for (int r = 0; r < MEASURED_RUNS; r++) order[r] = r;
  for (int r = 1; r < MEASURED_RUNS; r++)
    for (int q = r; q > 0 && runs[order[q]].t_tasks < runs[order[q - 1]].t_tasks; q--) {
      const int t = order[q];
      order[q] = order[q - 1], order[q - 1] = t;
    }
  const int mid = order[MEASURED_RUNS / 2];
  m->t_best = runs[mid].t_tasks;
  m->best = runs[mid];
  if (timeline && rename(kept[mid], csv) != 0)
    rc = cli_fail("cannot write the timeline '%s': %s", csv, strerror(errno));
done:
  for (int r = 0; timeline && r < done; r++) remove(kept[r]);
  femint_operator_destroy(&op);
  return rc;
}

static void json_orders(struct cli_json *j, const struct cli_orders *o)
{
  cli_json_open(j, "orders", '[');
  for (int i = 0; i < o->n; i++) cli_json_int(j, NULL, o->p[i]);
  cli_json_close(j, ']');
}

static void print_json(const struct bench_options *b, int ncell, const struct mode_result *m,
                       double t_ideal, char names[][CLI_NAME_LEN])
{
  const struct femint_stats *st = &m[MODE_BOTH].best;
  const struct cli_mesh *mesh = &b->s.mesh;
  struct cli_json j = {0};
  cli_json_open(&j, NULL, '{');
  cli_json_open(&j, "mesh", '{');
  if (mesh->kind == CLI_MESH_GMSH) {
    cli_json_str(&j, "type", "gmsh");
    cli_json_str(&j, "file", mesh->file);
  } else {
    cli_json_str(&j, "type", "box");
    cli_json_int(&j, "nx", mesh->nx);
    cli_json_int(&j, "ny", mesh->ny);
    cli_json_int(&j, "nz", mesh->nz);
  }
  cli_json_close(&j, '}');
  cli_json_int(&j, "cells", ncell);
  json_orders(&j, &b->s.orders);
  cli_json_str(&j, "problem", "elasticity");
  cli_json_str(&j, "precision", b->precision == FEMINT_SINGLE ? "single" : "double");
  cli_json_str(&j, "stage", b->no_assembly ? "integrate" : "assemble");
  if (!b->no_assembly)
    cli_json_str(&j, "assembly",
                 m[MODE_BOTH].best.assembly == FEMINT_ASSEMBLY_COO ? "coo" : "rows");
  cli_json_int(&j, "max_calibration_runs", b->runs);
  cli_json_open(&j, "calibration", '{');
  for (int k = 0; k < NMODE; k++) {
    cli_json_open(&j, mode_names[k], '{');
    cli_json_int(&j, "runs", m[k].runs);
    cli_json_int(&j, "calibrating", m[k].calibrating);
    cli_json_close(&j, '}');
  }
  cli_json_close(&j, '}');
  cli_json_num(&j, "t_cpu_s", m[MODE_CPU].t_best);
  cli_json_num(&j, "t_gpu_s", m[MODE_GPU].t_best);
  cli_json_num(&j, "t_both_s", m[MODE_BOTH].t_best);
  cli_json_num(&j, "t_ideal_s", t_ideal);
  cli_json_num(&j, "efficiency", t_ideal / m[MODE_BOTH].t_best);
  cli_json_num(&j, "flops_seed", st->flops_seed);
  cli_json_str(&j, "assembly", st->assembly == FEMINT_ASSEMBLY_COO    ? "coo"
                               : st->assembly == FEMINT_ASSEMBLY_ROWS ? "rows"
                                                                      : NULL);
  cli_json_workers(&j, "workers", st, names);
  cli_json_str(&j, "timeline", b->timeline);
  cli_json_close(&j, '}');
}

static void print_human(const struct bench_options *b, int ncell, int ncpu, int nocl, int team,
                        const struct mode_result *m, double t_ideal, char names[][CLI_NAME_LEN],
                        const char *csv)
{
  const struct femint_stats *st = &m[MODE_BOTH].best;
  const struct cli_mesh *mesh = &b->s.mesh;
  char orders[256];
  cli_orders_text(&b->s.orders, orders, sizeof orders);
  printf("femint bench --coexec: prisms, linear elasticity (E = 1, nu = 0.3), %s precision\n",
         b->precision == FEMINT_SINGLE ? "single" : "double");
  if (mesh->kind == CLI_MESH_GMSH)
    printf("mesh          gmsh file %s: %d prisms\n", mesh->file, ncell);
  else
    printf("mesh          box %dx%dx%d: %d prisms\n", mesh->nx, mesh->ny, mesh->nz, ncell);
  printf("orders        %s cycling over the cells\n", orders);
  const int coo = st->assembly == FEMINT_ASSEMBLY_COO;
  if (!b->no_assembly)
    printf("assembly      every worker: %s (--assembly %s)\n",
           !coo ? "row blocks on the CPU workers"
           : st->on_device ? "COO sums on the device"
                           : "COO sums in main memory",
           cli_assembly_names[b->assembly]);
  printf("stage         %s\n", b->no_assembly
                                 ? "integration alone: element matrices into main memory "
                                   "(--no-assembly)"
                                 : "integration and assembly into the CSR matrix");
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
  printf("T_cpu         %10.4g s   task stage, integration on the CPU workers (median of %d)\n",
         m[MODE_CPU].t_best, MEASURED_RUNS);
  printf("T_gpu         %10.4g s   task stage, integration on the OpenCL workers\n",
         m[MODE_GPU].t_best);
  printf("T_both        %10.4g s   task stage, integration on every worker\n",
         m[MODE_BOTH].t_best);
  printf("T_ideal       %10.4g s   1/(1/T_cpu + 1/T_gpu)\n", t_ideal);
  printf("efficiency    %10.3f     T_ideal / T_both\n", t_ideal / m[MODE_BOTH].t_best);
  printf("workers       in the median run on every worker: integrate + assemble tasks, busy "
         "time, share of T_both\n");
  for (int w = 0; w < st->nworker; w++)
    printf("  %-50s %5d + %-5d %9.4f s %5.1f%%\n", names[w], st->worker_tasks_integrate[w],
           st->worker_tasks_assemble[w], st->worker_busy[w],
           st->t_tasks > 0 ? 100 * st->worker_busy[w] / st->t_tasks : 0.0);
  if (b->timeline) printf("timeline      %s (tasks in %s)\n", b->timeline, csv);
}

int cli_bench_coexec(const struct bench_options *b)
{
  femint_context_t ctx = NULL;
  femint_mesh_t mesh = NULL;
  femint_space_t space = NULL;
  femint_form_t forms[CLI_MAX_FORMS] = {NULL};
  int count[FEMINT_MAX_ORDER + 1], nform, rc = 0, status = EXIT_RUNTIME, ncpu = 0, nocl = 0,
                                          team = 0;
  int64_t removed;
  char *csv = NULL, *part = NULL;
  static char names[FEMINT_MAX_WORKERS][CLI_NAME_LEN];
  struct mode_result m[NMODE];
  memset(m, 0, sizeof m);
  if (cli_setup_read(&b->s, &mesh)) return EXIT_RUNTIME;
  struct femint_init_options iopt = {.nopencl = -1, .quiet = !b->verbose};
  if (cli_init(&iopt, &ctx)) {
    femint_mesh_destroy(&mesh);
    return EXIT_RUNTIME;
  }
  if ((rc = femint_context_workers(ctx, &ncpu, &nocl, &team)) != 0) goto fail;
  if (ncpu < 1 || nocl < 1) {
    cli_fail("--coexec needs CPU and OpenCL workers, StarPU found %d and %d (without a GPU, "
             "STARPU_OPENCL_ON_CPUS=1 uses PoCL's CPU device)",
             ncpu, nocl);
    goto done;
  }
  if ((rc = cli_setup_mesh(ctx, &b->s, &mesh)) != 0 ||
      (rc = cli_setup_space(ctx, &b->s, mesh, count, &removed, &space)) != 0 ||
      (rc = cli_setup_forms(ctx, &b->s, forms, &nform)) != 0)
    goto fail;
  const int ncell = femint_mesh_num_cells(mesh);
  if (b->timeline) {
    csv = cli_timeline_csv(b->timeline);
    part = csv ? malloc(strlen(csv) + 6) : NULL;
    if (!part) {
      cli_fail("out of memory");
      goto done;
    }
    sprintf(part, "%s.part", csv);
  }
  for (int k = 0; k < NMODE; k++) {
    if ((rc = run_mode(ctx, space, forms[0], b, k, csv, part, &m[k])) != 0) {
      if (rc > 0) goto done;
      goto fail;
    }
  }
  const double t_ideal = 1 / (1 / m[MODE_CPU].t_best + 1 / m[MODE_GPU].t_best);
  cli_worker_names(ctx, &m[MODE_BOTH].best, names);
  status = 0;
  if (b->timeline) {
    char title[128];
    snprintf(title, sizeof title,
             "femint bench --coexec: median run on every worker, T_both = %.4g s",
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
  for (int f = 0; f < CLI_MAX_FORMS; f++) femint_form_destroy(&forms[f]);
  femint_space_destroy(&space);
  femint_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  return status;
}
