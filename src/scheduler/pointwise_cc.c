/* A caller's pointwise source compiled for the CPU workers at run time: the prelude and the text
 * into a C file, the configured compiler (FEMINT_CC overrides it) into a shared object cached by
 * the hash of the text and the compiler under $FEMINT_CACHE_DIR (default $XDG_CACHE_HOME/femint
 * or ~/.cache/femint), loaded with dlopen. A compile error is returned with the compiler's
 * message, which names the caller's text and line (the prelude's #line). */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "codelets/kernels.h"
#include "host/pointwise.h"
#include "operator.h"

#ifndef FEMINT_RUNTIME_CC
#define FEMINT_RUNTIME_CC "cc"
#endif

extern char **environ;

/* Run the compiler: cc (split at spaces) with FLAGS -shared -o so src -lm, its messages into err.
 * The object is made for this machine's processor (its SIMD width: the loop over cells runs in
 * lanes) and may inline the caller's functions. Returns the exit status (-1 when it could not
 * run). */
#define FLAGS "-O3", "-march=native", "-fopenmp-simd", "-fno-semantic-interposition", "-fPIC"
static int run_cc(const char *cc, const char *so, const char *src, const char *err)
{
  char words[512], *argv[40];
  int n = 0;
  snprintf(words, sizeof words, "%s", cc);
  for (char *w = strtok(words, " \t"); w && n < 30; w = strtok(NULL, " \t")) argv[n++] = w;
  const char *rest[] = {FLAGS, "-shared", "-o", so, src, "-lm", NULL};
  for (int i = 0; rest[i]; i++) argv[n++] = (char *)rest[i];
  argv[n] = NULL;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid;
  int st = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (st != 0) return -1;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) continue;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The compiler's first error line (FILE:LINE: error: ...), or its first line, for the error. */
static void read_messages(const char *path, char *buf, size_t len)
{
  FILE *f = fopen(path, "r");
  char line[1024];
  buf[0] = 0;
  while (f && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (!buf[0] || strstr(line, "error")) snprintf(buf, len, "%s", line);
    if (strstr(line, "error")) break;
  }
  if (f) fclose(f);
}

/* What names this machine's processor for -march=native: the model and flags lines of
 * /proc/cpuinfo (empty where there is none). */
static void cpu_identity(char *buf, size_t len)
{
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[4096];
  size_t at = 0;
  buf[0] = 0;
  while (f && fgets(line, sizeof line, f) && line[0] != '\n') {
    const size_t n = strlen(line);
    if ((!strncmp(line, "model name", 10) || !strncmp(line, "flags", 5) ||
         !strncmp(line, "Features", 8) || !strncmp(line, "CPU part", 8)) && at + n < len) {
      memcpy(buf + at, line, n + 1);
      at += n;
    }
  }
  if (f) fclose(f);
}

static int compile(femint_context_t ctx, const struct pointwise *pw, const char *cc,
                   const char *text, const char *so)
{
  char src[4300], tmp[4300], err[4300];
  snprintf(src, sizeof src, "%s.%ld.c", so, (long)getpid());
  snprintf(tmp, sizeof tmp, "%s.%ld.tmp", so, (long)getpid());
  snprintf(err, sizeof err, "%s.%ld.err", so, (long)getpid());
  FILE *f = fopen(src, "w");
  FEMINT_CHECK(f, ctx, FEMINT_EIO, "%s: cannot write %s: %s", pw->name, src, strerror(errno));
  const int wrote = fputs(text, f) >= 0;
  FEMINT_CHECK(fclose(f) == 0 && wrote, ctx, FEMINT_EIO, "%s: cannot write %s", pw->name, src);
  const int st = run_cc(cc, tmp, src, err);
  int rc = 0;
  if (st != 0) {
    char msg[2048];
    read_messages(err, msg, sizeof msg);
    rc = femint_seterr(ctx, FEMINT_EBUILD, "%s does not compile for the CPU workers (%s%s)%s%s",
                       pw->name, cc, st < 0 ? " could not run: set FEMINT_CC" : "",
                       msg[0] ? ": " : "", msg);
  } else if (rename(tmp, so) != 0) {
    rc = femint_seterr(ctx, FEMINT_EIO, "%s: cannot move the compiled object to %s: %s",
                       pw->name, so, strerror(errno));
  }
  unlink(src);
  unlink(err);
  unlink(tmp);
  return rc;
}

int pw_compile_cpu(femint_context_t ctx, const struct pointwise *pw, int dim, void **dl,
                   femint_pointwise_fn *f0, femint_pointwise_fn *f1, femint_pointwise_fn *g,
                   pw_cells_fn *cells)
{
  *dl = NULL;
  const char *env = getenv("FEMINT_CC");
  const char *cc = env && *env ? env : FEMINT_RUNTIME_CC;
  /* the prelude, the caller's text, which of f0 and f1 it defines, then the loop over cells that
   * calls them inline */
  char *kernel = femint_kernel_text("residual_cpu.c");
  FEMINT_CHECK(kernel, ctx, FEMINT_ENOMEM, "the CPU residual's source is missing");
  const int nprelude = pw_prelude(NULL, 0, pw, dim, 0, 0);
  const size_t len = (size_t)nprelude + strlen(pw->source) + strlen(kernel) + 128;
  char *text = malloc(len), dir[4096], so[4200];
  if (!text) free(kernel);
  FEMINT_CHECK(text, ctx, FEMINT_ENOMEM, "%s: out of memory", pw->name);
  pw_prelude(text, len, pw, dim, 0, 0);
  strcat(text, pw->source);
  const size_t at = strlen(text);
  snprintf(text + at, len - at,
           "\n#define FEMINT_HAS_F0 %d\n#define FEMINT_HAS_F1 %d\n#define FEMINT_LANES %d\n",
           pw_defines(pw->source, "f0"), pw_defines(pw->source, "f1"), PW_LANES);
  strcat(text, kernel);
  free(kernel);
  int rc = femint_cache_dir(ctx, dir, sizeof dir);
  /* keyed by the text, the compiler and the processor (a cache shared by several machines) */
  char cpu[2048];
  cpu_identity(cpu, sizeof cpu);
  uint64_t h = hash_bytes(hash_bytes(HASH_START, text, strlen(text)), cc, strlen(cc));
  h = hash_bytes(h, cpu, strlen(cpu));
  snprintf(so, sizeof so, "%s/pw-%016llx.so", dir, (unsigned long long)h);
  /* a cached object that does not load (cut short, another machine's) is compiled again */
  for (int attempt = 0; attempt < 2 && !rc && !*dl; attempt++) {
    if (attempt || access(so, R_OK) != 0) rc = compile(ctx, pw, cc, text, so);
    if (!rc) *dl = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!rc && !*dl && attempt)
      rc = femint_seterr(ctx, FEMINT_EBUILD, "%s: the compiled object %s does not load: %s",
                         pw->name, so, dlerror());
  }
  free(text);
  if (rc) return rc;
  /* either may be missing (that term is then 0) */
  *f0 = (femint_pointwise_fn)dlsym(*dl, "f0");
  *f1 = (femint_pointwise_fn)dlsym(*dl, "f1");
  static const char *const gname[4] = {"g0", "g1", "g2", "g3"};
  for (int k = 0; k < 4; k++) g[k] = (femint_pointwise_fn)dlsym(*dl, gname[k]);
  *cells = (pw_cells_fn)dlsym(*dl, "femint_residual_cells");
  if (!*f0 && !*f1) {
    dlclose(*dl);
    *dl = NULL;
    return femint_seterr(ctx, FEMINT_EBUILD, "%s defines neither f0 nor f1", pw->name);
  }
  return 0;
}
