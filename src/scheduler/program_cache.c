/* OpenCL programs kept on disk: the binary of each build, under the hash of its source text, its
 * build options and the device (name, vendor, device and driver versions), in femint's cache
 * folder. A later process loads the binary instead of compiling the source (a driver may compile
 * for seconds: 4 s for the prism kernels of orders 1-4 on the H200 before its own cache had
 * them). A file that is damaged or that the driver refuses is reported in one warning, and the
 * program is built again and the file replaced. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/host.h"
#include "scheduler.h"

/* The file: magic, key, size and hash of the binary, then the binary. */
static const char magic[8] = {'F', 'E', 'M', 'I', 'N', 'T', 'C', '1'};
struct header {
  char magic[8];
  uint64_t key, size, hash;
};

int femint_cache_dir(femint_context_t ctx, char *dir, size_t len)
{
  const char *env = getenv("FEMINT_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"),
             *home = getenv("HOME");
  if (env && *env) snprintf(dir, len, "%s", env);
  else if (xdg && *xdg) snprintf(dir, len, "%s/femint", xdg);
  else snprintf(dir, len, "%s/.cache/femint", home && *home ? home : "/tmp");
  const int e = femint_make_path(dir);
  FEMINT_CHECK(!e, ctx, FEMINT_EIO,
               "femint's cache folder %s cannot be made: %s (set FEMINT_CACHE_DIR)", dir,
               strerror(e));
  return 0;
}

uint64_t program_cache_key(const char *source, const char *options, const char *device)
{
  uint64_t h = hash_bytes(HASH_START, source, strlen(source) + 1);
  h = hash_bytes(h, options, strlen(options) + 1);
  return hash_bytes(h, device, strlen(device) + 1);
}

void program_cache_device(cl_device_id id, char *buf, size_t len)
{
  static const cl_device_info what[] = {CL_DEVICE_NAME, CL_DEVICE_VENDOR, CL_DEVICE_VERSION,
                                        CL_DRIVER_VERSION};
  size_t at = 0;
  buf[0] = '\0';
  for (int i = 0; i < 4 && at + 2 < len; i++) {
    size_t n = 0;
    if (clGetDeviceInfo(id, what[i], len - at - 2, buf + at, &n) != CL_SUCCESS || n == 0) n = 1;
    at += n - 1;
    buf[at++] = '|';
    buf[at] = '\0';
  }
}

/* The binary of a cached file: NULL when there is none (*damaged 0) or when it is not whole or
 * not this key's (*damaged 1, why in the text). */
static unsigned char *cache_read(const char *path, uint64_t key, size_t *size, int *damaged,
                                 const char **why)
{
  *damaged = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  *damaged = 1;
  struct header h;
  unsigned char *bin = NULL;
  if (fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, magic, sizeof magic) != 0) {
    *why = "not a program file of femint";
  } else if (h.key != key) {
    *why = "another program's";
  } else if (h.size == 0 || h.size > ((uint64_t)1 << 30) || !(bin = malloc(h.size))) {
    *why = "a size out of range";
  } else if (fread(bin, 1, h.size, f) != h.size || hash_bytes(HASH_START, bin, h.size) != h.hash) {
    *why = "cut short or altered";
    free(bin);
    bin = NULL;
  } else {
    *damaged = 0;
    *size = h.size;
  }
  fclose(f);
  return bin;
}

/* Write the program's binary to path (a temporary file renamed over it); quietly nothing when
 * the driver gives none or the folder cannot be written. */
static void cache_write(const char *path, uint64_t key, cl_program prog)
{
  size_t size = 0;
  if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS ||
      size == 0)
    return;
  unsigned char *bin = malloc(size);
  if (!bin) return;
  char tmp[4200];
  /* of this process and thread: the threads of a split assembly may write the same program */
  static int serial;
  snprintf(tmp, sizeof tmp, "%s.part-%ld-%d", path, (long)getpid(),
           __atomic_add_fetch(&serial, 1, __ATOMIC_RELAXED));
  FILE *f = NULL;
  if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS &&
      (f = fopen(tmp, "wb"))) {
    struct header h = {.key = key, .size = size, .hash = hash_bytes(HASH_START, bin, size)};
    memcpy(h.magic, magic, sizeof magic);
    int bad = fwrite(&h, sizeof h, 1, f) != 1 || fwrite(bin, 1, size, f) != size;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) remove(tmp);
  }
  free(bin);
}

int program_cache_build(femint_context_t ctx, cl_context clctx, cl_device_id id,
                        const char *source, const char *options, cl_program *prog, int *cached)
{
  *cached = 0;
  char dir[4000], device[1024], path[4100];
  const char *off = getenv("FEMINT_PROGRAM_CACHE");
  if ((off && strcmp(off, "0") == 0) || femint_cache_dir(NULL, dir, sizeof dir) != 0)
    return femint_cl_build(clctx, id, source, options, prog);
  program_cache_device(id, device, sizeof device);
  const uint64_t key = program_cache_key(source, options, device);
  snprintf(path, sizeof path, "%s/cl-%016llx.bin", dir, (unsigned long long)key);
  size_t size = 0;
  int damaged;
  const char *why = "";
  unsigned char *bin = cache_read(path, key, &size, &damaged, &why);
  if (bin) {
    const unsigned char *b = bin;
    cl_int st, e;
    cl_program p = clCreateProgramWithBinary(clctx, 1, &id, &size, &b, &st, &e);
    if (e == CL_SUCCESS && st == CL_SUCCESS &&
        clBuildProgram(p, 1, &id, options, NULL, NULL) == CL_SUCCESS) {
      free(bin);
      *prog = p;
      *cached = 1;
      femint_trace("OpenCL program from %s", path);
      return 0;
    }
    if (p) clReleaseProgram(p);
    damaged = 1;
    why = "refused by the driver";
  }
  free(bin);
  if (damaged)
    fprintf(stderr,
            "femint: warning: the cached OpenCL program %s is damaged (%s); it is built again\n",
            path, why);
  FEMINT_CALL(femint_cl_build(clctx, id, source, options, prog));
  cache_write(path, key, *prog);
  return 0;
}
