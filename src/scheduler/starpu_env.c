/* What femint checks before StarPU reads its environment, since StarPU aborts the process on what
 * it cannot use: a numeric variable that is not a non-negative integer (STARPU_NCPU=abc), and a
 * folder for its performance models that cannot be made or written (STARPU_HOME at a file, a
 * read-only or full file system, where StarPU aborts at its start or, after the whole run, while
 * it saves its models). A bad number is an error naming the variable; a models' folder that
 * cannot be used is replaced, with a warning, by a private temporary one, removed by
 * femint_finalize (the run is then uncalibrated). A model file of femint's codelets that StarPU
 * could not parse (cut short by a process killed while StarPU saved it, a full disk) would make
 * StarPU abort when it loads it: such a file is moved aside with a warning. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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

int femint_make_path(char *path)
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

/* The folder of StarPU's performance models: $STARPU_PERF_MODEL_DIR, else
 * $STARPU_HOME/.starpu/sampling ($HOME when STARPU_HOME is not set), then sub. */
static void models_dir(char *dir, size_t len, const char *sub)
{
  const char *model_dir = getenv("STARPU_PERF_MODEL_DIR");
  const char *home = getenv("STARPU_HOME") ? getenv("STARPU_HOME") : getenv("HOME");
  if (model_dir && *model_dir) snprintf(dir, len, "%s%s", model_dir, sub);
  else snprintf(dir, len, "%s/.starpu/sampling%s", home && *home ? home : ".", sub);
}

int starpu_home_check(char **private_home)
{
  *private_home = NULL;
  char dir[4096];
  models_dir(dir, sizeof dir, "");
  int e = femint_make_path(dir);
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

/* ---- femint's performance-model files ---- */

/* The next number of a model file, skipping its comment lines: 1, or 0 at its end or at what is
 * not a number (a hexadecimal hash when hex). */
static int model_token(FILE *f, int hex, double *x)
{
  int c;
  for (;;) {
    while ((c = getc(f)) == ' ' || c == '\t' || c == '\n' || c == '\r') {
    }
    if (c != '#') break;
    while ((c = getc(f)) != '\n' && c != EOF) {
    }
  }
  if (c == EOF) return 0;
  char tok[64];
  int n = 0;
  for (; c != EOF && c != ' ' && c != '\t' && c != '\n' && c != '\r'; c = getc(f))
    if (n < (int)sizeof tok - 1) tok[n++] = (char)c;
  tok[n] = '\0';
  char *end;
  if (hex) {
    *x = (double)strtoul(tok, &end, 16);
  } else {
    *x = strtod(tok, &end);
  }
  return n > 0 && !*end;
}

/* Whether a model file of StarPU 1.3 (format 45) holds everything its counts announce: the
 * combinations of devices, each one's implementations, each implementation's regression lines
 * and history entries. Another format, or a multiple regression model, is left to StarPU. */
static int model_whole(FILE *f)
{
  double x, ncomb, ndev, nimpl, nentry;
#define NUM(v) \
  if (!model_token(f, 0, &(v))) return 0
  NUM(x);
  if (x != 45) return 1;
  NUM(ncomb);
  for (int c = 0; c < ncomb && c < 1024; c++) {
    NUM(ndev);
    for (int d = 0; d < 3 * ndev && d < 3 * 64; d++) NUM(x); /* type, id, cores */
    NUM(nimpl);
    for (int i = 0; i < nimpl && i < 64; i++) {
      NUM(nentry);
      for (int k = 0; k < 9 + 3; k++) NUM(x); /* the linear and non-linear regressions */
      NUM(x);
      if (x != 0) return 1; /* multiple regression: not femint's */
      for (long e = 0; e < nentry; e++) {
        if (!model_token(f, 1, &x)) return 0; /* the footprint */
        for (int k = 0; k < 7; k++) NUM(x);     /* size, flops, mean, dev, sum, sum2, n */
      }
    }
  }
#undef NUM
  return 1;
}

/* The rows of numbers of one of StarPU's bus files (what follows '#' on a line is a comment):
 * their count (at most max kept in first, the first number of each) and the numbers in each
 * when all have as many, else -1; -1 rows when the file cannot be read, does not end with a
 * newline, or holds what is not a number. */
static int bus_rows(const char *path, double *first, int max, int *ncol)
{
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[4096];
  int rows = 0, ok = 1;
  *ncol = 0;
  while (ok && fgets(line, sizeof line, f)) {
    const size_t len = strlen(line);
    ok = len > 0 && line[len - 1] == '\n';
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    int n = 0;
    for (char *tok = strtok(line, " \t\r\n"); ok && tok; tok = strtok(NULL, " \t\r\n"), n++) {
      char *end;
      const double x = strtod(tok, &end);
      ok = !*end;
      if (n == 0 && rows < max) first[rows] = x;
    }
    if (!ok || n == 0) continue;
    *ncol = rows == 0 ? n : *ncol == n ? n : -1;
    rows++;
  }
  ok &= !ferror(f);
  fclose(f);
  return ok ? rows : -1;
}

/* Whether StarPU 1.3's bus calibration of one host (files prefix.config, .affinity, .bandwidth,
 * .latency) is whole: the configuration's counts (CPUs, NUMA nodes, CUDA, OpenCL, MIC and MPI
 * devices), a row of the affinity per GPU, and square matrices of bandwidths and latencies. */
static int bus_whole(const char *prefix)
{
  char path[4400];
  double count[8] = {0}, x[1];
  int ncol;
  snprintf(path, sizeof path, "%s.config", prefix);
  if (bus_rows(path, count, 8, &ncol) < 6 || ncol != 1) return 0;
  snprintf(path, sizeof path, "%s.affinity", prefix);
  const int gpus = (int)(count[2] + count[3]);
  if (access(path, F_OK) == 0 && gpus > 0 && bus_rows(path, x, 0, &ncol) != gpus) return 0;
  static const char *const square[] = {"bandwidth", "latency"};
  for (int i = 0; i < 2; i++) {
    snprintf(path, sizeof path, "%s.%s", prefix, square[i]);
    if (access(path, F_OK) != 0) continue;
    const int rows = bus_rows(path, x, 0, &ncol);
    if (rows <= 0 || ncol != rows) return 0;
  }
  return 1;
}

/* Move aside, with one warning, the bus calibration of a host that is not whole (a process
 * killed while StarPU wrote it, or one reading it while another wrote): StarPU aborts on it, and
 * measures the bus again without it. */
static void bus_check(void)
{
  static const char *const ext[] = {"config", "affinity", "bandwidth", "latency", "platform.xml",
                                    "platform.v4.xml"};
  char dir[3800];
  models_dir(dir, sizeof dir, "/bus");
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    const size_t n = strlen(e->d_name);
    if (n <= 7 || strcmp(e->d_name + n - 7, ".config") != 0) continue;
    char prefix[4100], from[4200], to[4300];
    snprintf(prefix, sizeof prefix, "%s/%.*s", dir, (int)(n - 7), e->d_name);
    if (bus_whole(prefix)) continue;
    int moved = 1;
    for (int i = 0; i < 6; i++) {
      snprintf(from, sizeof from, "%s.%s", prefix, ext[i]);
      snprintf(to, sizeof to, "%s.damaged", from);
      if (access(from, F_OK) == 0 && rename(from, to) != 0) moved = 0;
    }
    fprintf(stderr,
            "femint: warning: StarPU's bus calibration %s.* is damaged (it ends early or holds "
            "what is not a number)%s\n",
            prefix,
            moved ? "; moved aside to *.damaged (StarPU measures the bus again)"
                  : ", and cannot be moved aside");
  }
  closedir(d);
}

/* The host's name in StarPU's file names: $STARPU_HOSTNAME, else the system's up to its first
 * dot. */
static void starpu_host(char *name, size_t len)
{
  const char *env = getenv("STARPU_HOSTNAME");
  if (env && *env) snprintf(name, len, "%s", env);
  else if (gethostname(name, len) != 0) snprintf(name, len, "unknown");
  name[len - 1] = 0;
  name[strcspn(name, ".")] = 0;
}

int starpu_models_lock(int writing)
{
  char dir[4096], path[4700];
  models_dir(dir, sizeof dir, "");
  femint_make_path(dir); /* as StarPU would make it; where it cannot, open says so */
  snprintf(path, sizeof path, "%s/femint.lock", dir);
  const int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  if (!writing) { /* reading, unless this host's bus calibration is still to be written */
    char host[256], bus[4500];
    starpu_host(host, sizeof host);
    models_dir(dir, sizeof dir, "/bus");
    snprintf(bus, sizeof bus, "%s/%s", dir, host);
    while (flock(fd, LOCK_SH) != 0 && errno == EINTR) continue;
    snprintf(path, sizeof path, "%s.config", bus);
    if (access(path, F_OK) == 0 && bus_whole(bus)) return fd;
    flock(fd, LOCK_UN);
  }
  while (flock(fd, LOCK_EX) != 0 && errno == EINTR) continue;
  return fd;
}

void starpu_models_unlock(int fd)
{
  if (fd < 0) return;
  flock(fd, LOCK_UN);
  close(fd);
}

void starpu_models_check(void)
{
  bus_check();
  char dir[4096];
  models_dir(dir, sizeof dir, "/codelets/45");
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    const size_t n = strlen(e->d_name);
    if (strncmp(e->d_name, "femint_", 7) != 0 || n < 4 || strcmp(e->d_name + n - 3, ".vm") != 0)
      continue;
    char path[4400], aside[4500];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    /* StarPU also needs the last line's end */
    const int whole = model_whole(f) && fseek(f, -1, SEEK_END) == 0 && getc(f) == '\n';
    fclose(f);
    if (whole) continue;
    snprintf(aside, sizeof aside, "%s.damaged", path);
    const int moved = rename(path, aside) == 0;
    fprintf(stderr,
            "femint: warning: StarPU's performance model %s is damaged (it ends early or holds "
            "what is not a number)%s%s%s\n",
            path, moved ? "; moved aside to " : ", and cannot be moved aside: ",
            moved ? aside : strerror(errno), moved ? " (StarPU calibrates it again)" : "");
  }
  closedir(d);
}
