/* femint run: its options and what a run made and measured, shared by run.c (the command) and
 * run_report.c (the human and JSON summaries). */
#ifndef FEMINT_CLI_RUN_H
#define FEMINT_CLI_RUN_H

#include "cli.h"

struct run_options {
  struct cli_setup s;
  int precision, where, variant, symmetric, assembly, phases, reproducible;
  long batch, devices;
  const char *output;   /* FILE.mtx, or the PREFIX of PREFIX-T.mtx and PREFIX-S.mtx */
  const char *timeline; /* a Gantt chart PNG; its CSV goes next to it */
  int json, quiet, verbose;
};

struct run_result {
  int ncell, nvert, nodes; /* nodes: geometric nodes per cell */
  int count[FEMINT_MAX_ORDER + 1];
  int64_t removed; /* DOFs of the PEC walls */
  double volume;
  double t_init, t_plan; /* StarPU's start; femint_operator_create */
  struct femint_stats st;
  struct cli_check checks[CLI_MAX_CHECKS];
  int nchecks, pass;
  char (*names)[CLI_NAME_LEN]; /* of the workers */
};

void cli_run_print_human(const struct run_options *o, const struct run_result *r);
void cli_run_print_json(const struct run_options *o, const struct run_result *r);

#endif
