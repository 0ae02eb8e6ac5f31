/* The summary of femint run, for people (one line per topic, as doc/cli.md lists them) and as one
 * JSON object with the same fields for every element. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <math.h>
#include <string.h>

#include "run.h"

static const char *const mesh_types[] = {"none", "box", "gmsh", "rect", "annulus"};

static const char *precision_text(int precision)
{
  return precision == FEMINT_SINGLE ? "single" : "double";
}

/* The mesh line: what it is, its cells and vertices, and how it was moved or curved. */
static void mesh_line(const struct run_options *o, const struct run_result *r, char *buf,
                      size_t len)
{
  const struct cli_setup *s = &o->s;
  const struct cli_mesh *m = &s->mesh;
  const char *cells = cli_shape_plural(s->shape);
  size_t n;
  switch (m->kind) {
  case CLI_MESH_RECT:
    n = snprintf(buf, len, "rectangle [0,%d]x[0,%d]: %d %s, %d vertices", m->nx, m->ny, r->ncell,
                 cells, r->nvert);
    break;
  case CLI_MESH_ANNULUS:
    n = snprintf(buf, len, "quarter annulus 1 <= r <= 2: %d x %d curved 8-node %s, %d vertices, "
                 "area %.10g", m->nx, m->ny, cells, r->nvert, r->volume);
    break;
  case CLI_MESH_GMSH:
    n = snprintf(buf, len, "gmsh file %s: %d %s%s, %d vertices, volume %.10g", m->file, r->ncell,
                 r->nodes > cli_shape_vertices(s->shape) ? "curved " : "", cells, r->nvert,
                 r->volume);
    break;
  default:
    n = snprintf(buf, len, "box [0,%d]x[0,%d]x[0,%d]: %d %s, %d vertices", m->nx, m->ny, m->nz,
                 r->ncell, cells, r->nvert);
  }
  if (n < len && (m->kind == CLI_MESH_BOX || m->kind == CLI_MESH_RECT) && s->perturb > 0)
    n += snprintf(buf + n, len - n, ", interior vertices moved by up to %g x spacing (seed %ld)",
                  s->perturb, s->seed);
  if (n < len && s->curved > 0)
    snprintf(buf + n, len - n, ", curved (%d nodes per cell) by the amplitude %g", r->nodes,
             s->curved);
}

/* The assembly line: the path taken and where the sums ran. */
static void assembly_line(const struct run_options *o, const struct femint_stats *st, char *buf,
                          size_t len)
{
  size_t n;
  if (st->assembly == FEMINT_ASSEMBLY_COO)
    n = snprintf(buf, len, "coo %s: %lld element matrix entries summed into each matrix%s",
                 st->on_device ? "on an OpenCL device" : "in main memory",
                 (long long)st->ncontrib,
                 st->on_device ? " (only the CSR values came back)" : "");
  else
    n = snprintf(buf, len, "rows: assembly tasks on CPU workers add the element matrices into "
                 "row blocks");
  if (n < len)
    n += snprintf(buf + n, len - n, " (--assembly %s)", cli_assembly_names[o->assembly]);
  if (n < len && st->pattern_built) snprintf(buf + n, len - n, "; the pattern built by this call");
}

void cli_run_print_human(const struct run_options *o, const struct run_result *r)
{
  const struct femint_stats *st = &r->st;
  const struct cli_setup *s = &o->s;
  const int nform = cli_setup_nforms(s);
  char text[1024];
  cli_problem_text(s, text, sizeof text);
  printf("femint run: %s, %s, %s precision, integration on %s workers\n",
         cli_shape_plural(s->shape), text, precision_text(o->precision),
         cli_where_names[o->where]);
  mesh_line(o, r, text, sizeof text);
  printf("mesh          %s\n", text);
  cli_orders_text(&s->orders, text, sizeof text);
  printf("orders        %s %s:", text,
         s->orders.n > 1 ? "cycling over the cells" : "on every cell");
  for (int p = 1; p <= FEMINT_MAX_ORDER; p++)
    if (r->count[p]) printf(" p=%d %d cells", p, r->count[p]);
  printf("\n");
  printf("DOFs          %lld", (long long)st->ndof);
  if (s->family == FEMINT_HCURL)
    printf(" (H(curl); PEC walls: %s, %lld DOFs removed)", s->pec ? "all" : "none",
           (long long)r->removed);
  printf("\n");
  printf("non-zeros     %lld (%.1f per row)%s\n", (long long)st->nnz,
         st->ndof > 0 ? (double)st->nnz / st->ndof : 0.0,
         nform > 1 ? " in each of T and S, which share their pattern" : "");
  printf("plan          %d groups (shape, order, form), %d batches, %d tasks", st->ngroup,
         st->nbatch, st->ntask);
  if (st->assembly == FEMINT_ASSEMBLY_ROWS)
    printf("; %d row blocks, %.1f written per batch", st->nblock, st->blocks_per_batch);
  printf("\n");
  assembly_line(o, st, text, sizeof text);
  printf("assembly      %s\n", text);
  printf("workers       tasks (integrate + assemble) and busy time:\n");
  for (int w = 0; w < st->nworker; w++)
    printf("  %-44s %5d + %-5d %9.4f s\n", r->names[w], st->worker_tasks_integrate[w],
           st->worker_tasks_assemble[w], st->worker_busy[w]);
  printf("stages        startup %.3f s (StarPU) and plan %.4f s (the operator), not in total;",
         r->t_init, r->t_plan);
  const char *phase[] = {"programs", "pattern", "pack", "integrate", "sum", "download"};
  const double t[] = {st->t_programs, st->t_pattern,  st->t_pack,
                      st->t_integrate, st->t_sum, st->t_download};
  for (int k = 0; k < 6; k++)
    if (t[k] > 0) printf(" %s %.4f s,", phase[k], t[k]);
  printf(" tasks %.4f s, total %.4f s\n", st->t_tasks, st->t_total);
  printf("flops         %.4g (seed 000's count), %.3f GFLOP/s over the task stage\n",
         st->flops_seed, st->t_tasks > 0 ? st->flops_seed / st->t_tasks * 1e-9 : 0.0);
  if (st->calibrating)
    printf("calibration   %d of %d batches ran while their performance model was being calibrated\n"
           "              (dmda placed them to measure each worker); later runs place them by the\n"
           "              models kept in $STARPU_HOME (default ~/.starpu)\n",
           st->calibrating, st->nbatch);
  if (o->output && nform == 1) printf("output        %s (Matrix Market)\n", o->output);
  if (o->output && nform == 2)
    printf("output        %s-T.mtx and %s-S.mtx (Matrix Market)\n", o->output, o->output);
  if (o->timeline) printf("timeline      %s (Gantt chart of the tasks)\n", o->timeline);
  printf("verification\n");
  for (int k = 0; k < r->nchecks; k++) {
    const struct cli_check *c = &r->checks[k];
    printf("  %-34s %10.3e %s %-6g %s\n", c->name, c->value, c->above ? ">" : "<", c->tolerance,
           c->pass ? "PASS" : "FAIL");
  }
  printf("result        %s\n", r->pass ? "PASS" : "FAIL");
}

static void json_mesh(struct cli_json *j, const struct run_options *o, const struct run_result *r)
{
  const struct cli_setup *s = &o->s;
  const struct cli_mesh *m = &s->mesh;
  const int gmsh = m->kind == CLI_MESH_GMSH, quad = cli_shape_dim(s->shape) == 2;
  cli_json_open(j, "mesh", '{');
  cli_json_str(j, "type", mesh_types[m->kind]);
  cli_json_str(j, "file", gmsh ? m->file : NULL);
  const char *keys[] = {"nx", "ny", "nz", "n1", "n2"};
  const int values[] = {m->nx, m->ny, m->nz, m->nx, m->ny};
  for (int k = 0; k < 5; k++) {
    if (gmsh || (k == 2 && quad)) cli_json_null(j, keys[k]);
    else cli_json_int(j, keys[k], values[k]);
  }
  cli_json_int(j, "cells", r->ncell);
  cli_json_int(j, "vertices", r->nvert);
  cli_json_int(j, "nodes", r->nodes);
  cli_json_num(j, "volume", r->volume);
  cli_json_num(j, "area", quad ? r->volume : NAN);
  cli_json_num(j, "perturb", s->perturb);
  cli_json_int(j, "seed", s->seed);
  cli_json_num(j, "curved", s->curved);
  cli_json_close(j, '}');
}

void cli_run_print_json(const struct run_options *o, const struct run_result *r)
{
  const struct femint_stats *st = &r->st;
  const struct cli_setup *s = &o->s;
  const int nform = cli_setup_nforms(s), maxwell = s->problem == PROBLEM_MAXWELL;
  struct cli_json j = {0};
  cli_json_open(&j, NULL, '{');
  cli_json_str(&j, "femint", PACKAGE_VERSION);
  cli_json_str(&j, "element", cli_shape_name(s->shape));
  cli_json_str(&j, "space", cli_family_name(s->family));
  json_mesh(&j, o, r);
  cli_json_open(&j, "orders", '[');
  for (int i = 0; i < s->orders.n; i++) cli_json_int(&j, NULL, s->orders.p[i]);
  cli_json_close(&j, ']');
  cli_json_str(&j, "problem", cli_problem_names[s->problem]);
  cli_json_open(&j, "forms", '[');
  for (int f = 0; f < nform; f++) cli_json_str(&j, NULL, cli_form_name(s, f));
  cli_json_close(&j, ']');
  if (maxwell) cli_json_str(&j, "pec", s->pec ? "all" : "none");
  else cli_json_null(&j, "pec");
  cli_json_num(&j, "eps", maxwell ? s->eps : NAN);
  cli_json_num(&j, "mu", maxwell ? s->mu : NAN);
  cli_json_str(&j, "precision", precision_text(o->precision));
  cli_json_str(&j, "where", cli_where_names[o->where]);
  cli_json_int(&j, "max_batch", o->batch);
  cli_json_str(&j, "variant", cli_variant_names[o->variant]);
  cli_json_bool(&j, "symmetric", o->symmetric);
  cli_json_str(&j, "assembly_option", cli_assembly_names[o->assembly]);
  cli_json_str(&j, "assembly", st->assembly == FEMINT_ASSEMBLY_COO ? "coo" : "rows");
  cli_json_bool(&j, "on_device", st->on_device);
  cli_json_bool(&j, "phases", o->phases);
  cli_json_bool(&j, "reproducible", o->reproducible);
  cli_json_int(&j, "elements", r->ncell);
  cli_json_int(&j, "vertices", r->nvert);
  cli_json_int(&j, "dofs", st->ndof);
  cli_json_int(&j, "removed_dofs", r->removed);
  cli_json_int(&j, "nnz", st->nnz);
  cli_json_int(&j, "ncontrib", st->ncontrib);
  cli_json_int(&j, "batches", st->nbatch);
  cli_json_int(&j, "groups", st->ngroup);
  cli_json_int(&j, "row_blocks", st->nblock);
  cli_json_num(&j, "blocks_per_batch", st->blocks_per_batch);
  cli_json_int(&j, "tasks", st->ntask);
  cli_json_int(&j, "tasks_cpu", st->tasks_cpu);
  cli_json_int(&j, "tasks_opencl", st->tasks_opencl);
  cli_json_workers(&j, "workers", st, r->names);
  cli_json_open(&j, "stages", '{');
  const char *keys[] = {"init_s",      "plan_s", "programs_s", "pattern_s", "pack_s",
                        "integrate_s", "sum_s",  "download_s", "tasks_s",   "total_s"};
  const double t[] = {r->t_init,       r->t_plan, st->t_programs, st->t_pattern, st->t_pack,
                      st->t_integrate, st->t_sum, st->t_download, st->t_tasks,   st->t_total};
  for (int k = 0; k < 10; k++) cli_json_num(&j, keys[k], t[k]);
  cli_json_close(&j, '}');
  cli_json_bool(&j, "pattern_built", st->pattern_built);
  cli_json_num(&j, "flops_seed", st->flops_seed);
  cli_json_num(&j, "gflops", st->t_tasks > 0 ? st->flops_seed / st->t_tasks * 1e-9 : NAN);
  cli_json_int(&j, "calibrating_batches", st->calibrating);
  cli_json_str(&j, "output", o->output);
  cli_json_open(&j, "outputs", '[');
  for (int f = 0; o->output && f < nform; f++) {
    char path[4096];
    cli_output_path(s, o->output, f, path, sizeof path);
    cli_json_str(&j, NULL, path);
  }
  cli_json_close(&j, ']');
  cli_json_str(&j, "timeline", o->timeline);
  cli_json_open(&j, "verification", '[');
  for (int k = 0; k < r->nchecks; k++) {
    const struct cli_check *c = &r->checks[k];
    cli_json_open(&j, NULL, '{');
    cli_json_str(&j, "name", c->name);
    cli_json_num(&j, "value", c->value);
    cli_json_num(&j, "tolerance", c->tolerance);
    cli_json_str(&j, "condition", c->above ? ">" : "<");
    cli_json_bool(&j, "pass", c->pass);
    cli_json_close(&j, '}');
  }
  cli_json_close(&j, ']');
  cli_json_bool(&j, "pass", r->pass);
  cli_json_close(&j, '}');
}
