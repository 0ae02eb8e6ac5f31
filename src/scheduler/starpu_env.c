/* What femint checks before StarPU reads its environment, since StarPU aborts the process on what
 * it cannot use: a numeric variable that is not a non-negative integer (STARPU_NCPU=abc), and a
 * folder for its performance models that cannot be made or written (STARPU_HOME at a file, a
 * read-only or full file system, where StarPU aborts at its start or, after the whole run, while
 * it saves its models). A bad number is an error naming the variable; a models' folder that
 * cannot be used is replaced, with a warning, by a private temporary one, removed by
 * femint_finalize (the run is then uncalibrated). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "scheduler.h"

/* The variables StarPU 1.3 reads as integers (starpu_get_env_number), which abort on anything but
 * a non-negative integer. */
static const char *const numeric[] = {
    "STARPU_NCPU", "STARPU_NCPUS", "STARPU_RESERVE_NCPU", "STARPU_NCUDA", "STARPU_NOPENCL",
    "STARPU_NMIC", "STARPU_NMPI_MS", "STARPU_NWORKER_PER_CUDA", "STARPU_OPENCL_ON_CPUS",
    "STARPU_OPENCL_ONLY_ON_CPUS", "STARPU_WORKERS_NOBIND", "STARPU_SILENT", "STARPU_CALIBRATE",
    "STARPU_CALIBRATE_MINIMUM", "STARPU_PREFETCH", "STARPU_WORKER_STATS", "STARPU_BUS_STATS",
    "STARPU_PROFILING", "STARPU_MAX_WORKERSIZE", "STARPU_MIN_WORKERSIZE",
    "STARPU_SINGLE_COMBINED_WORKER", "STARPU_DISABLE_ASYNCHRONOUS_COPY",
    "STARPU_DISABLE_ASYNCHRONOUS_CUDA_COPY", "STARPU_DISABLE_ASYNCHRONOUS_OPENCL_COPY",
    "STARPU_DISABLE_PINNING", "STARPU_LIMIT_CPU_MEM", "STARPU_LIMIT_OPENCL_MEM",
    "STARPU_LIMIT_CUDA_MEM", "STARPU_LIMIT_MAX_SUBMITTED_TASKS",
    "STARPU_LIMIT_MIN_SUBMITTED_TASKS", "STARPU_MINIMUM_AVAILABLE_MEM",
    "STARPU_TARGET_AVAILABLE_MEM", "STARPU_MINIMUM_CLEAN_BUFFERS", "STARPU_TARGET_CLEAN_BUFFERS",
    "STARPU_WATCHDOG_TIMEOUT", "STARPU_WATCHDOG_CRASH", "STARPU_MAIN_THREAD_BIND",
    "STARPU_MAIN_THREAD_CPUID", "STARPU_MEMORY_STATS", "STARPU_ENABLE_STATS", "STARPU_STATS",
    "STARPU_HISTORY_MAX_ERROR", "STARPU_RAND_SEED", "STARPU_GENERATE_TRACE",
    "STARPU_MAX_MEMORY_USE", "STARPU_USE_NUMA", NULL};

int starpu_env_check(void)
{
  for (int i = 0; numeric[i]; i++) {
    const char *v = getenv(numeric[i]);
    if (!v) continue;
    char *end;
    errno = 0;
    const long x = strtol(v, &end, 10);
    FEMINT_CHECK(!*end && errno == 0 && x >= 0 && x <= 0x7fffffff, NULL, FEMINT_EINVAL,
                 "femint_init: the environment variable %s='%s' is not a non-negative integer "
                 "(StarPU would abort on it)",
                 numeric[i], v);
  }
  return 0;
}

/* mkdir -p; 0 or an errno. */
static int make_path(char *path)
{
  for (char *s = path + 1;; s++) {
    if (*s != '/' && *s) continue;
    const char c = *s;
    *s = 0;
    const int r = mkdir(path, 0755);
    const int e = errno;
    struct stat st;
    const int isdir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
    *s = c;
    if (r != 0 && e != EEXIST) return e;
    if (r != 0 && !isdir) return ENOTDIR;
    if (!c) return 0;
  }
}

/* Whether the folder takes a new file; 0 or an errno. */
static int writable(const char *dir)
{
  char probe[4200];
  snprintf(probe, sizeof probe, "%s/.femint-probe-%ld", dir, (long)getpid());
  const int fd = open(probe, O_CREAT | O_EXCL | O_WRONLY, 0600);
  if (fd < 0) return errno;
  const int ok = write(fd, "femint\n", 7) == 7;
  const int e = errno;
  close(fd);
  unlink(probe);
  return ok ? 0 : e ? e : EIO;
}

int starpu_home_check(char **private_home)
{
  *private_home = NULL;
  const char *model_dir = getenv("STARPU_PERF_MODEL_DIR");
  const char *home = getenv("STARPU_HOME") ? getenv("STARPU_HOME") : getenv("HOME");
  char dir[4096];
  if (model_dir && *model_dir) snprintf(dir, sizeof dir, "%s", model_dir);
  else snprintf(dir, sizeof dir, "%s/.starpu/sampling", home && *home ? home : ".");
  int e = make_path(dir);
  if (!e) e = writable(dir);
  struct statvfs fs;
  const int full = !e && statvfs(dir, &fs) == 0 && (double)fs.f_bavail * fs.f_frsize < 1 << 20;
  if (!e && !full) return 0;
  const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  char *fresh = malloc(strlen(tmp) + 32);
  FEMINT_CHECK(fresh, NULL, FEMINT_ENOMEM, "femint_init: out of memory");
  sprintf(fresh, "%s/femint-starpu-XXXXXX", tmp);
  if (!mkdtemp(fresh)) {
    const int e2 = errno;
    free(fresh);
    return femint_seterr(NULL, FEMINT_EIO,
                         "femint_init: StarPU cannot keep its models in %s (%s), nor in a "
                         "temporary folder under %s (%s)",
                         dir, full ? "less than 1 MiB free" : strerror(e), tmp, strerror(e2));
  }
  fprintf(stderr,
          "femint: warning: StarPU cannot keep its performance models in %s (%s); this run "
          "keeps them in %s, removed at the end (uncalibrated: set STARPU_HOME to a writable "
          "folder)\n",
          dir, full ? "less than 1 MiB free" : strerror(e), fresh);
  setenv("STARPU_HOME", fresh, 1);
  unsetenv("STARPU_PERF_MODEL_DIR");
  *private_home = fresh;
  return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void)st, (void)flag, (void)ftw;
  remove(path);
  return 0;
}

void starpu_home_remove(char **private_home)
{
  if (!*private_home) return;
  nftw(*private_home, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  free(*private_home);
  *private_home = NULL;
}
