/* Test: OpenCL programs kept on disk (scheduler/program_cache.c). In a fresh cache folder a
 * program is compiled and its binary kept; built again it comes from the file and its kernel
 * computes what the compiled one does; another source text or other options make another file;
 * another device makes another key; a file altered in the middle, cut short or of another key is
 * reported in one warning, the program built again and the file replaced, so that the next build
 * loads it. */
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "scheduler/scheduler.h"

static const char source[] =
    "__kernel void fill(__global float *x) { x[get_global_id(0)] = VALUE + get_global_id(0); }\n";

static char dir[64];

static int count_files(void)
{
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));)
    n += !strncmp(e->d_name, "cl-", 3) && strstr(e->d_name, ".bin") && !strstr(e->d_name, "part");
  if (d) closedir(d);
  return n;
}

/* The path of the cache file of (src, options) on the device. */
static void file_of(cl_device_id id, const char *src, const char *options, char *path,
                    size_t len)
{
  char device[1024];
  program_cache_device(id, device, sizeof device);
  snprintf(path, len, "%s/cl-%016llx.bin", dir,
           (unsigned long long)program_cache_key(src, options, device));
}

/* Build, with stderr in a file; the warnings' text in warn. */
static int build(cl_context c, cl_device_id id, const char *opts, cl_program *p, int *cached,
                 char *warn, size_t wlen)
{
  char log[] = "/tmp/femint-t307-log-XXXXXX";
  const int fd = mkstemp(log), saved = dup(STDERR_FILENO);
  fflush(stderr);
  dup2(fd, STDERR_FILENO);
  const int err = program_cache_build(NULL, c, id, source, opts, p, cached);
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  close(fd);
  FILE *f = fopen(log, "r");
  size_t k = f ? fread(warn, 1, wlen - 1, f) : 0;
  warn[k] = '\0';
  if (f) fclose(f);
  unlink(log);
  return err;
}

/* Whether the program's kernel writes VALUE + i (the value of opts) into 64 floats. */
static int runs_right(cl_context c, cl_device_id id, cl_program p, float value)
{
  cl_int e;
  cl_kernel k = clCreateKernel(p, "fill", &e);
  cl_command_queue q = clCreateCommandQueue(c, id, 0, &e);
  cl_mem m = clCreateBuffer(c, CL_MEM_READ_WRITE, 64 * sizeof(float), NULL, &e);
  float x[64] = {0};
  size_t g = 64;
  int ok = clSetKernelArg(k, 0, sizeof m, &m) == CL_SUCCESS &&
           clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL) == CL_SUCCESS &&
           clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof x, x, 0, NULL, NULL) == CL_SUCCESS;
  for (int i = 0; ok && i < 64; i++) ok = x[i] == value + (float)i;
  clReleaseMemObject(m);
  clReleaseCommandQueue(q);
  clReleaseKernel(k);
  return ok;
}

int main(void)
{
  snprintf(dir, sizeof dir, "/tmp/femint-t307-XXXXXX");
  if (!mkdtemp(dir)) tap_skip_all("cannot make a temporary folder");
  setenv("FEMINT_CACHE_DIR", dir, 1);
  unsetenv("FEMINT_PROGRAM_CACHE");
  femint_context_t ctx = test_init();
  int ncpu = 0, nopencl = 0;
  femint_context_workers(ctx, &ncpu, &nopencl, NULL);
  if (nopencl == 0) {
    femint_finalize(&ctx);
    tap_skip_all("no OpenCL worker");
  }
  const int dev = femint_context_first_device(ctx);
  cl_context c;
  cl_device_id id;
  starpu_opencl_get_context(dev, &c);
  starpu_opencl_get_device(dev, &id);
  cl_program p;
  int cached = -1;
  char warn[2048], path[256];

  int err = build(c, id, "-DVALUE=2.0f", &p, &cached, warn, sizeof warn);
  tap_ok(!err && cached == 0 && count_files() == 1 && runs_right(c, id, p, 2),
         "a fresh folder: compiled, runs, its binary kept (%d file)", count_files());
  if (!err) clReleaseProgram(p);
  err = build(c, id, "-DVALUE=2.0f", &p, &cached, warn, sizeof warn);
  tap_ok(!err && cached == 1 && runs_right(c, id, p, 2) && !*warn,
         "built again: loaded from the file, and its kernel computes the same");
  if (!err) clReleaseProgram(p);
  err = build(c, id, "-DVALUE=5.0f", &p, &cached, warn, sizeof warn);
  tap_ok(!err && cached == 0 && count_files() == 2 && runs_right(c, id, p, 5),
         "other options: compiled, another file");
  if (!err) clReleaseProgram(p);
  tap_ok(program_cache_key(source, "-DX", "device A") !=
                 program_cache_key(source, "-DX", "device B") &&
             program_cache_key(source, "-DX", "A") != program_cache_key("other", "-DX", "A"),
         "another device or another source text: another key");

  /* damage: bytes altered in the middle, the file cut short, another key's file */
  file_of(id, source, "-DVALUE=2.0f", path, sizeof path);
  struct stat sb;
  const long size = stat(path, &sb) == 0 ? (long)sb.st_size : 0;
  const char *how[] = {"altered in the middle", "cut short", "another program's"};
  for (int d = 0; d < 3; d++) {
    if (d == 0) {
      FILE *f = fopen(path, "r+b");
      if (f && fseek(f, size / 2, SEEK_SET) == 0) fputs("damage", f);
      if (f) fclose(f);
    } else if (d == 1) {
      if (truncate(path, size / 3)) tap_diag("truncate failed");
    } else {
      char other[256];
      file_of(id, source, "-DVALUE=5.0f", other, sizeof other);
      char cmd[600];
      snprintf(cmd, sizeof cmd, "cp '%s' '%s'", other, path);
      if (system(cmd)) tap_diag("cp failed");
    }
    err = build(c, id, "-DVALUE=2.0f", &p, &cached, warn, sizeof warn);
    const int warned = strstr(warn, "warning: the cached OpenCL program") && strstr(warn, path) &&
                       strstr(warn, "built again");
    if (!err) clReleaseProgram(p);
    int again = -1;
    const int err2 = build(c, id, "-DVALUE=2.0f", &p, &again, warn, sizeof warn);
    tap_ok(!err && cached == 0 && warned && !err2 && again == 1 && runs_right(c, id, p, 2),
           "a file %s: one warning naming it, built again, and the next build loads the new file",
           how[d]);
    if (!err2) clReleaseProgram(p);
  }

  /* FEMINT_PROGRAM_CACHE=0: nothing read or written */
  setenv("FEMINT_PROGRAM_CACHE", "0", 1);
  const int before = count_files();
  err = build(c, id, "-DVALUE=7.0f", &p, &cached, warn, sizeof warn);
  tap_ok(!err && cached == 0 && count_files() == before, "FEMINT_PROGRAM_CACHE=0: no file");
  if (!err) clReleaseProgram(p);
  unsetenv("FEMINT_PROGRAM_CACHE");

  femint_finalize(&ctx);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) tap_diag("could not remove %s", dir);
  return tap_done();
}
