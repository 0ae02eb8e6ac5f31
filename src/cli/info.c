/* femint info: starts StarPU and lists the process's cpuset, the CPU workers (OpenMP teams) and
 * OpenCL workers it found, where each is bound, and the binding of every thread. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity */
#endif
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <dirent.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct info_options {
  long device;    /* --opencl-device; -1: not given */
  int local_rank; /* --local-rank: a rank or FEMINT_LOCAL_RANK_FROM_ENV; -2: not given */
  int json, quiet;
};

/* --local-rank N|env. */
static int parse_local_rank(const char *option, const char *text, void *dest)
{
  long n;
  if (strcmp(text, "env") == 0) {
    *(int *)dest = FEMINT_LOCAL_RANK_FROM_ENV;
    return 0;
  }
  if (cli_parse_count(text, &n) || n > INT_MAX)
    return cli_fail_usage("%s: expected a rank (0, 1, ...) or env, got '%s'", option, text);
  *(int *)dest = (int)n;
  return 0;
}

#define F(member) offsetof(struct info_options, member)
static const struct cli_option options[] = {
  {CLI_OPT("--opencl-device", CLI_INT, F(device),
           "drive only OpenCL device N (0-based, StarPU's numbering)", "N"),
   .min = 0, .max = INT_MAX},
  {CLI_OPT("--local-rank", CLI_CUSTOM, F(local_rank),
           "drive only device N modulo the number of devices, N being the process's rank on its "
           "node; env reads it from OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, "
           "MV2_COMM_WORLD_LOCAL_RANK or SLURM_LOCALID", "N|env"),
   .parse = parse_local_rank},
  {CLI_OPT("--json", CLI_FLAG, F(json),
           "print one JSON object, with the binding of every thread of the process (Linux)", NULL)},
  {CLI_OPT("--quiet", CLI_FLAG, F(quiet), "StarPU prints no warnings", NULL)},
};
static const struct cli_section sections[] = {
    {NULL, options, sizeof options / sizeof options[0], 0}};

const struct cli_command cli_info_cmd = {
  "info",
  "the CPU and OpenCL workers StarPU found and where they are bound",
  "[--opencl-device N | --local-rank N|env] [--json] [--quiet]",
  "Starts StarPU and lists the CPU workers (OpenMP teams) and OpenCL workers it found, with the "
  "process's cpuset and where each worker is bound: the PUs femint gave it (a CPU worker's team, "
  "an OpenCL worker's driver core) and those its threads were found bound to. PUs are numbered as "
  "taskset numbers them. Run under taskset or an MPI launcher's binding, each process keeps to "
  "its own cpuset.",
  sections,
  1,
  NULL,
};

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

int cli_info_command(int argc, char **argv)
{
  struct info_options o = {.device = -1, .local_rank = -2};
  struct cli_args args;
  int status = cli_parse(&cli_info_cmd, argc, argv, &o, &args);
  if (status) return status < 0 ? 0 : status;
  if (o.device >= 0 && o.local_rank != -2)
    return cli_fail_usage("--opencl-device %ld and --local-rank %s exclude each other", o.device,
                          cli_given(&args, "--local-rank"));
  struct femint_init_options iopt = {.nopencl = -1, .quiet = o.quiet || o.json};
  if (o.device >= 0) {
    iopt.device_select = FEMINT_DEVICE_INDEX;
    iopt.opencl_device = (int)o.device;
  } else if (o.local_rank != -2) {
    iopt.device_select = FEMINT_DEVICE_BY_LOCAL_RANK;
    iopt.local_rank = o.local_rank;
  }
  femint_context_t ctx = NULL;
  int ncpu = 0, nocl = 0, team = 0, ncores = 0, rank = -1, rc;
  const char *rank_source = NULL;
  char cpuset[256];
  if (cli_init(&iopt, &ctx)) return EXIT_RUNTIME;
  if ((rc = femint_context_workers(ctx, &ncpu, &nocl, &team)) != 0 ||
      (rc = femint_context_cpuset(ctx, cpuset, sizeof cpuset, &ncores)) != 0 ||
      (rc = femint_context_local_rank(ctx, &rank, &rank_source)) != 0) {
    cli_fail_runtime(ctx, rc);
    femint_finalize(&ctx);
    return EXIT_RUNTIME;
  }
  struct cli_json j = {0};
  if (o.json) {
    cli_json_open(&j, NULL, '{');
    cli_json_str(&j, "femint", PACKAGE_VERSION);
    cli_json_str(&j, "cpuset", cpuset);
    cli_json_int(&j, "cores", ncores);
    if (rank >= 0) cli_json_int(&j, "local_rank", rank);
    else cli_json_null(&j, "local_rank");
    cli_json_str(&j, "local_rank_source", rank >= 0 ? (rank_source ? rank_source : "") : NULL);
    cli_json_int(&j, "cpu_workers", ncpu);
    cli_json_int(&j, "opencl_workers", nocl);
    cli_json_int(&j, "team_size", team);
    cli_json_open(&j, "workers", '[');
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
    const int cpu = b.kind == FEMINT_WHERE_CPU;
    if (o.json) {
      cli_json_open(&j, NULL, '{');
      cli_json_int(&j, "id", w);
      cli_json_str(&j, "name", buf);
      cli_json_str(&j, "kind", cpu ? "cpu" : "opencl");
      if (cpu) cli_json_int(&j, "team_size", b.team_size);
      else cli_json_int(&j, "device", b.opencl_device);
      cli_json_str(&j, "pus", b.pus);
      cli_json_str(&j, "bound", b.bound);
      cli_json_close(&j, '}');
    } else {
      printf("  %2d  %s\n", w, buf);
      printf("        %s on PUs %s, bound to %s\n", cpu ? "team" : "driver", b.pus,
             b.bound[0] ? b.bound : "(unknown)");
    }
  }
  enum { MAX_THREADS = 1024 };
  int *tids = malloc(MAX_THREADS * sizeof *tids);
  char(*pus)[256] = malloc(MAX_THREADS * sizeof *pus);
  const int nthread = tids && pus ? process_threads(tids, pus, MAX_THREADS) : 0;
  if (o.json) {
    cli_json_close(&j, ']');
    cli_json_open(&j, "threads", '[');
    for (int t = 0; t < nthread; t++) {
      cli_json_open(&j, NULL, '{');
      cli_json_int(&j, "tid", tids[t]);
      cli_json_str(&j, "pus", pus[t]);
      cli_json_close(&j, '}');
    }
    cli_json_close(&j, ']');
    cli_json_close(&j, '}');
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
