/* Timing of the device COO pattern (coo_cl_build: keys, radix sort, heads, scan, segments, row
 * pointers) on one OpenCL device, without StarPU: entries shaped like an assembly's (cells of nl
 * DOFs drawn in a window that moves along the rows, every pair of a cell an entry), median of 5
 * builds (the rows and columns, the sort's scratch, copied in before each, untimed), against a
 * device-to-device copy of two arrays of 8 bytes a slot (what a sort pass reads and writes).
 * Build by hand after `make`, in the build directory (SRC the repository root):
 *   mkdir -p tools/gpu && gcc -O2 -std=gnu11 -I$SRC/include -I$SRC/src -I. \
 *     -DCL_TARGET_OPENCL_VERSION=120 -DCL_USE_DEPRECATED_OPENCL_1_2_APIS \
 *     $SRC/tools/gpu/pattern-timing.c src/.libs/libfemint_core.a -lOpenCL -lm -fopenmp \
 *     -o tools/gpu/pattern-timing
 * Usage: pattern-timing [ROWS [ENTRIES [DOFS-PER-CELL]]] (default 106539 rows, 7 10^7 entries, 60
 * DOFs a cell: the prisms of box 16x16x8, orders 1-4, of `femint run`). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codelets/coo_opencl.h"
#include "host/error.h"

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static cl_mem upload(cl_context ctx, cl_command_queue q, const void *h, size_t bytes)
{
  cl_int e;
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes ? bytes : 8, NULL, &e);
  if (e == CL_SUCCESS && h) e = clEnqueueWriteBuffer(q, m, CL_TRUE, 0, bytes, h, 0, NULL, NULL);
  if (e != CL_SUCCESS) {
    fprintf(stderr, "pattern-timing: buffer of %zu bytes: error %d\n", bytes, (int)e);
    exit(1);
  }
  return m;
}

int main(int argc, char **argv)
{
  const int64_t n = argc > 1 ? atoll(argv[1]) : 106539;
  const int64_t want = argc > 2 ? atoll(argv[2]) : 70000000;
  const int nl = argc > 3 ? atoi(argv[3]) : 60;
  const int64_t ncell = want / ((int64_t)nl * nl), m = ncell * nl * nl, window = 3 * nl;
  if (n < window || ncell < 1) {
    fprintf(stderr, "pattern-timing: %lld rows are fewer than a window of %lld\n", (long long)n,
            (long long)window);
    return 1;
  }
  int64_t *row = malloc(sizeof *row * (size_t)m), *col = malloc(sizeof *col * (size_t)m);
  int64_t *dof = malloc(sizeof *dof * (size_t)nl);
  uint64_t r = 0x9e3779b97f4a7c15ull;
  for (int64_t c = 0; c < ncell; c++) {
    const int64_t base = c * (n - window) / ncell;
    for (int i = 0; i < nl; i++) {
      r ^= r << 13, r ^= r >> 7, r ^= r << 17;
      dof[i] = base + (int64_t)(r % (uint64_t)window);
    }
    for (int i = 0; i < nl; i++)
      for (int j = 0; j < nl; j++) {
        row[(c * nl + i) * nl + j] = dof[i];
        col[(c * nl + i) * nl + j] = dof[j];
      }
  }
  cl_platform_id plats[8];
  cl_uint np = 0;
  cl_device_id dev;
  clGetPlatformIDs(8, plats, &np);
  int found = 0;
  for (cl_uint i = 0; i < np && !found; i++)
    found = clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) == CL_SUCCESS;
  for (cl_uint i = 0; i < np && !found; i++)
    found = clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 1, &dev, NULL) == CL_SUCCESS;
  if (!found) {
    fprintf(stderr, "pattern-timing: no OpenCL device\n");
    return 1;
  }
  cl_int e;
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
  cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &e);
  struct coo_cl k;
  if (coo_cl_create(ctx, dev, 0, &k)) {
    fprintf(stderr, "pattern-timing: %s\n", femint_thread_error());
    return 1;
  }
  const size_t b = sizeof(int64_t) * (size_t)m;
  cl_mem hrow = upload(ctx, q, row, b), hcol = upload(ctx, q, col, b);
  cl_mem drow = upload(ctx, q, NULL, b + 8), dcol = upload(ctx, q, NULL, b);
  cl_mem perm = upload(ctx, q, NULL, b), seg = upload(ctx, q, NULL, b + 8);
  cl_mem rowptr = upload(ctx, q, NULL, sizeof(int64_t) * (size_t)(n + 1));
  cl_mem colind = upload(ctx, q, NULL, b);
  double t[5], tc[5], first = 0;
  int64_t nvalid = 0, nnz = 0;
  for (int rep = 0; rep < 6; rep++) {
    /* the sort's scratch: the rows and columns each time */
    clEnqueueCopyBuffer(q, hrow, drow, 0, 0, b, 0, NULL, NULL);
    clEnqueueCopyBuffer(q, hcol, dcol, 0, 0, b, 0, NULL, NULL);
    clFinish(q);
    const double t0 = now();
    if (coo_cl_build(&k, q, n, m, drow, dcol, NULL, perm, seg, rowptr, colind, &nvalid, &nnz)) {
      fprintf(stderr, "pattern-timing: %s\n", femint_thread_error());
      return 1;
    }
    clFinish(q);
    const double t1 = now();
    /* a pass's bytes: keys and slots read twice (count, scatter) and written once */
    clEnqueueCopyBuffer(q, hrow, perm, 0, 0, b, 0, NULL, NULL);
    clEnqueueCopyBuffer(q, hcol, colind, 0, 0, b, 0, NULL, NULL);
    clFinish(q);
    if (rep > 0) t[rep - 1] = t1 - t0, tc[rep - 1] = now() - t1;
    else first = t1 - t0;
  }
  qsort(t, 5, sizeof *t, cmp);
  qsort(tc, 5, sizeof *tc, cmp);
  int bits = 0;
  for (uint64_t top = (uint64_t)n * (uint64_t)n; top; top >>= 1) bits++;
  printf("work-group %zu: ", k.wg);
  printf("rows %lld, entries %lld (%lld cells of %d), key bits %d, pairs %lld: pattern %.2f ms "
         "(median of 5; the first %.2f ms), copy of 2 x %.0f MB %.3f ms (%.0f GB/s)\n",
         (long long)n, (long long)m, (long long)ncell, nl, bits, (long long)nnz, 1e3 * t[2],
         1e3 * first,
         b / 1e6, 1e3 * tc[2], 2 * 2 * b / tc[2] / 1e9);
  clReleaseMemObject(hrow), clReleaseMemObject(hcol);
  clReleaseMemObject(drow), clReleaseMemObject(dcol), clReleaseMemObject(perm);
  clReleaseMemObject(seg), clReleaseMemObject(rowptr), clReleaseMemObject(colind);
  coo_cl_destroy(&k);
  clReleaseCommandQueue(q), clReleaseContext(ctx);
  free(row), free(col), free(dof);
  return 0;
}
