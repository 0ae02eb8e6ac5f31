/* femint bench for an operator's phases (tetrahedra, or --operator): the OpenCL programs and the
 * sparsity pattern of the first assembly, then packing, integration, the assembly or COO sums
 * and the download of the best later assembly, on the CPU workers alone and on every worker, each
 * phase waited for before the next (seed 004's Table 2 for the Maxwell matrices). */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <stdio.h>
#include <string.h>

#include "bench.h"

#define MAX_RUNS 1000

struct phase_row {
  const char *where;
  struct femint_stats first, best;
  double total[MAX_RUNS]; /* each later assembly's whole time, packing included */
  int ntotal;
};

/* The median of the later assemblies' whole times (0 without any). */
static double total_median(struct phase_row *row)
{
  double *t = row->total;
  const int n = row->ntotal;
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && t[j - 1] > t[j]; j--) {
      const double x = t[j];
      t[j] = t[j - 1];
      t[j - 1] = x;
    }
  return n == 0 ? 0 : n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* The time of a later assembly without packing: integration, sums and download. */
static double generation(const struct femint_stats *st)
{
  return st->t_total - st->t_pack;
}

static int bench_where(femint_context_t ctx, const struct bench_options *b, femint_space_t space,
                       const femint_form_t *forms, int nform, int where, struct phase_row *row)
{
  femint_operator_t op = NULL;
  struct femint_operator_options opt = {
    .precision = b->precision, .where = where, .max_batch = (int)b->batch,
    .variant = b->variants.n ? b->variants.v[0] : FEMINT_VARIANT_AUTO,
    .symmetric = b->symmetric, .assembly = b->assembly, .phases = !b->overlap,
    .devices = (int)b->devices, .matrix_on_device = b->on_device};
  int rc = femint_operator_create(ctx, space, nform, forms, &opt, &op);
  for (int r = 0; r <= b->runs && !rc; r++) {
    femint_matrix_t A[CLI_MAX_FORMS] = {NULL};
    struct femint_stats st;
    rc = femint_operator_assemble(op, A, &st);
    for (int f = 0; f < CLI_MAX_FORMS; f++) femint_matrix_destroy(&A[f]);
    if (rc) break;
    if (!b->quiet)
      fprintf(stderr, "femint bench: %s: %s run: %.4g s\n", row->where,
              r ? "later" : "first", st.t_total);
    if (r == 0) row->first = st;
    else if (r == 1 || generation(&st) < generation(&row->best)) row->best = st;
    if (r > 0 && row->ntotal < MAX_RUNS) row->total[row->ntotal++] = st.t_total;
  }
  femint_operator_destroy(&op);
  return rc;
}

static void print_json(const struct bench_options *b, int ncell, int nodes,
                       struct phase_row *rows, int nrow)
{
  const struct cli_setup *s = &b->s;
  struct cli_json j = {0};
  cli_json_open(&j, NULL, '{');
  cli_json_str(&j, "femint", PACKAGE_VERSION);
  cli_json_str(&j, "element", cli_shape_name(s->shape));
  cli_json_str(&j, "space", cli_family_name(s->family));
  cli_json_str(&j, "problem", cli_problem_names[s->problem]);
  cli_json_int(&j, "order", s->orders.p[0]);
  cli_json_open(&j, "orders", '[');
  for (int i = 0; i < s->orders.n; i++) cli_json_int(&j, NULL, s->orders.p[i]);
  cli_json_close(&j, ']');
  cli_json_int(&j, "cells", ncell);
  cli_json_int(&j, "nodes", nodes);
  cli_json_str(&j, "precision", b->precision == FEMINT_SINGLE ? "single" : "double");
  cli_json_int(&j, "runs", b->runs);
  cli_json_open(&j, "rows", '[');
  for (int k = 0; k < nrow; k++) {
    const struct femint_stats *f = &rows[k].first, *st = &rows[k].best;
    cli_json_open(&j, NULL, '{');
    cli_json_str(&j, "where", rows[k].where);
    cli_json_int(&j, "dofs", st->ndof);
    cli_json_int(&j, "nnz", st->nnz);
    cli_json_str(&j, "assembly", st->assembly == FEMINT_ASSEMBLY_COO ? "coo" : "rows");
    cli_json_bool(&j, "on_device", st->on_device);
    cli_json_bool(&j, "values_on_device", st->values_on_device);
    cli_json_int(&j, "tasks_cpu", st->tasks_cpu);
    cli_json_int(&j, "tasks_opencl", st->tasks_opencl);
    cli_json_num(&j, "programs_s", f->t_programs);
    cli_json_num(&j, "pattern_s", f->t_pattern);
    cli_json_num(&j, "pack_s", st->t_pack);
    cli_json_num(&j, "integrate_s", st->t_integrate);
    cli_json_num(&j, "sum_s", st->t_sum);
    cli_json_num(&j, "download_s", st->t_download);
    cli_json_num(&j, "generation_s", generation(st));
    cli_json_num(&j, "total_median_s", total_median(&rows[k]));
    cli_json_num(&j, "first_total_s", f->t_total);
    cli_json_close(&j, '}');
  }
  cli_json_close(&j, ']');
  cli_json_close(&j, '}');
}

static void print_human(const struct bench_options *b, int ncell, int nodes,
                        struct phase_row *rows, int nrow)
{
  const struct cli_setup *s = &b->s;
  char problem[256], orders[256];
  cli_problem_text(s, problem, sizeof problem);
  cli_orders_text(&s->orders, orders, sizeof orders);
  printf("femint bench: the operator's phases, %s, order%s %s, %d %s %s (%d nodes), %s\n",
         problem, s->orders.n > 1 ? "s" : "", orders, ncell,
         nodes > cli_shape_vertices(s->shape) ? "curved" : "straight",
         cli_shape_plural(s->shape), nodes, b->precision == FEMINT_SINGLE ? "single" : "double");
  printf("%-11s %9s %10s %9s %10s %10s %9s %9s %9s %9s %10s %10s %9s\n", "workers", "DOFs",
         "nnz", "assembly", "programs_s", "pattern_s", "pack_s", "integr_s", "sum_s", "down_s",
         "gen_s", "t_med_s", "tasks");
  for (int k = 0; k < nrow; k++) {
    const struct femint_stats *f = &rows[k].first, *st = &rows[k].best;
    char tasks[32], assembly[16];
    snprintf(tasks, sizeof tasks, "%d/%d", st->tasks_cpu, st->tasks_opencl);
    snprintf(assembly, sizeof assembly, "%s%s",
             st->assembly == FEMINT_ASSEMBLY_COO ? "coo" : "rows", st->on_device ? "/dev" : "");
    printf("%-11s %9lld %10lld %9s %10.4f %10.4f %9.4f %9.4f %9.4f %9.4f %10.4f %10.4f %9s\n",
           rows[k].where, (long long)st->ndof, (long long)st->nnz, assembly, f->t_programs,
           f->t_pattern, st->t_pack, st->t_integrate, st->t_sum, st->t_download,
           generation(st), total_median(&rows[k]), tasks);
  }
  printf("(programs and pattern: the first run; the others: the best of %ld later runs, the "
         "pattern kept; gen: integration, sums and download; t_med: the median of the later "
         "runs' whole time, packing included; assembly: coo/dev when the sums ran on an OpenCL "
         "device; tasks: integration tasks on CPU/OpenCL)\n",
         b->runs);
}

int cli_bench_phases(const struct bench_options *b)
{
  femint_context_t ctx = NULL;
  femint_mesh_t mesh = NULL;
  femint_space_t space = NULL;
  femint_form_t forms[CLI_MAX_FORMS] = {NULL};
  struct phase_row rows[2] = {{.where = "cpu"}, {.where = "cpu+opencl"}};
  int count[FEMINT_MAX_ORDER + 1], nform = 0, nrow = 0, nocl = 0, rc;
  int64_t removed;
  if (cli_setup_read(&b->s, &mesh)) return EXIT_RUNTIME;
  struct femint_init_options iopt = {.nopencl = -1, .quiet = !b->verbose};
  if (cli_init(&iopt, &ctx)) {
    femint_mesh_destroy(&mesh);
    return EXIT_RUNTIME;
  }
  int status = EXIT_RUNTIME;
  if ((rc = femint_context_workers(ctx, NULL, &nocl, NULL)) != 0 ||
      (rc = cli_setup_mesh(ctx, &b->s, &mesh)) != 0 ||
      (rc = cli_setup_space(ctx, &b->s, mesh, count, &removed, &space)) != 0 ||
      (rc = cli_setup_forms(ctx, &b->s, forms, &nform)) != 0)
    goto fail;
  for (int k = b->no_cpu && nocl > 0; k < 2; k++) {
    if (k == 1 && nocl == 0) break;
    rows[nrow] = rows[k];
    if ((rc = bench_where(ctx, b, space, forms, nform, k ? FEMINT_WHERE_ANY : FEMINT_WHERE_CPU,
                          &rows[nrow])) != 0)
      goto fail;
    nrow++;
  }
  const int ncell = femint_mesh_num_cells(mesh), nodes = femint_mesh_num_nodes(mesh);
  if (b->json) print_json(b, ncell, nodes, rows, nrow);
  else print_human(b, ncell, nodes, rows, nrow);
  status = 0;
  goto done;
fail:
  cli_fail_runtime(ctx, rc);
done:
  for (int f = 0; f < CLI_MAX_FORMS; f++) femint_form_destroy(&forms[f]);
  femint_space_destroy(&space);
  femint_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  return status;
}
