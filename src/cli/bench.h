/* femint bench: its options, shared by bench.c (the table and the choice of a mode) and the files
 * of its three modes: the kernel sweep, co-execution and the operator's phases. */
#ifndef FEMINT_CLI_BENCH_H
#define FEMINT_CLI_BENCH_H

#include "cli.h"

/* Precisions of --precision: one, or both in the kernel sweep. */
enum { BENCH_DOUBLE = FEMINT_DOUBLE, BENCH_SINGLE = FEMINT_SINGLE, BENCH_BOTH = 2 };

struct bench_variants {
  int n; /* 0: not given */
  int v[8];
};

struct bench_options {
  struct cli_setup s;
  int precision; /* BENCH_DOUBLE, BENCH_SINGLE or BENCH_BOTH */
  int symmetric;
  long runs; /* 0: by mode */
  long devices; /* femint_operator_options.devices (co-execution and phases) */
  int json, quiet, verbose;
  /* the kernel sweep */
  struct bench_variants variants;
  int no_cpu;
  long device; /* -1: the first OpenCL device, if any */
  long cells;  /* 0: by order */
  long repeat;
  double bus_gbs;
  const char *csv, *plot;
  /* co-execution */
  int coexec, no_assembly;
  const char *timeline;
  /* the operator's phases */
  int phases_bench; /* --operator */
  int overlap;      /* --operator --overlap: the phases not waited for */
  int on_device;    /* --operator --on-device: the values left on the device */
  long batch;
  int assembly;
};

int cli_bench_sweep(const struct bench_options *b);
int cli_bench_coexec(const struct bench_options *b);
int cli_bench_phases(const struct bench_options *b);

#endif
