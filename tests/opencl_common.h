/* Helpers of the OpenCL kernel tests: random distorted prisms and coefficients, the OpenCL
 * environment, uploads in either precision, and a plain reference of the COO -> CSR pattern. */
#ifndef FEMINT_TEST_OPENCL_COMMON_H
#define FEMINT_TEST_OPENCL_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codelets/volume_opencl.h"
#include "host/host.h"
#include "tap.h"

struct form_case {
  int kind, ne;
};
static const struct form_case forms[] = {
    {FORM_ELASTICITY, 3}, {FORM_LAPLACE, 1}, {FORM_MASS, 2}, {FORM_GENERIC, 2}};

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
/* A uniform number in [a, b) (xorshift64*). */
static double urand(double a, double b)
{
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return a + (b - a) * (double)((rng_state * 0x2545f4914f6cdd1dull) >> 11) * 0x1.0p-53;
}

/* A prism whose vertices are the reference ones moved at random, then scaled and shifted into a
 * box; Jacobian terms t[nq][10]. Draws again until every Jacobian is positive. */
static inline void random_prism(const struct refel *re, double *X, double *t)
{
  static const double ref[6][3] = {{0, 0, -1}, {1, 0, -1}, {0, 1, -1},
                                   {0, 0, 1},  {1, 0, 1},  {0, 1, 1}};
  for (;;) {
    const double scale[3] = {urand(0.5, 2), urand(0.5, 2), urand(0.25, 1)};
    const double shift[3] = {urand(-1, 1), urand(-1, 1), urand(-1, 1)};
    for (int a = 0; a < 6; a++)
      for (int i = 0; i < 3; i++)
        X[3 * a + i] = shift[i] + scale[i] * (ref[a][i] + urand(-0.2, 0.2));
    int bad;
    if (geom_prism_terms(re, X, t, &bad) == 0) return;
  }
}

/* Random coefficients of a form kind for one cell. */
static inline void random_coef(int kind, int ne, double *k)
{
  switch (kind) {
  case FORM_ELASTICITY:
    k[0] = urand(0.5, 2);
    k[1] = urand(0.5, 2);
    break;
  case FORM_LAPLACE:
  case FORM_MASS: k[0] = urand(0.5, 2); break;
  default:
    for (int i = 0; i < ne * ne * 16; i++) k[i] = urand(-1, 1);
  }
}

struct cl_env {
  cl_context ctx;
  cl_command_queue queue;
  cl_device_id dev;
  struct femint_cl_device info;
  char *src;
};

/* A device buffer holding n doubles, converted to float when single. */
static inline cl_mem upload(struct cl_env *env, const double *x, size_t n, int single,
                            cl_int *err)
{
  size_t rs = single ? sizeof(float) : sizeof(double);
  void *host = malloc(n * rs);
  for (size_t i = 0; i < n; i++) {
    if (single)
      ((float *)host)[i] = (float)x[i];
    else
      ((double *)host)[i] = x[i];
  }
  cl_mem m = clCreateBuffer(env->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * rs, host, err);
  free(host);
  return m;
}

/* The first device of the first platform that has one. */
static inline int first_device(cl_platform_id *plat, cl_device_id *dev)
{
  cl_platform_id plats[16];
  cl_uint np = 0;
  if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS) return -1;
  for (cl_uint i = 0; i < np && i < 16; i++) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 1, dev, &nd) == CL_SUCCESS && nd > 0) {
      *plat = plats[i];
      return 0;
    }
  }
  return -1;
}

/* The OpenCL environment of a test on the first device: skips the whole test when there is no
 * usable device; 1 (after a bail-out line) when the device cannot be queried. */
static inline int cl_env_open(struct cl_env *env)
{
  cl_platform_id plat;
  cl_int err;
  if (first_device(&plat, &env->dev)) tap_skip_all("no OpenCL device");
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)plat, 0};
  env->ctx = clCreateContext(props, 1, &env->dev, NULL, NULL, &err);
  if (err != CL_SUCCESS) tap_skip_all("no usable OpenCL context");
  env->queue = clCreateCommandQueue(env->ctx, env->dev, 0, &err);
  if (err != CL_SUCCESS) tap_skip_all("no OpenCL command queue");
  if (femint_cl_device_query(env->dev, &env->info)) {
    printf("Bail out! %s\n", femint_thread_error());
    return 1;
  }
  tap_diag("device %s (%s), %u compute units, %zu max work-group, %llu local bytes, fp64 %d",
           env->info.name, env->info.vendor, env->info.compute_units, env->info.max_wg,
           (unsigned long long)env->info.local_mem, env->info.fp64);
  return 0;
}

/* A plain reference of the COO -> CSR steps of kernels/coo.cl: the slots s < nslot with a row and
 * a column (row[s], col[s] >= 0) sorted by (row, column, slot), the distinct pairs and the rows. */
struct coo_ref {
  int64_t n, nslot, nvalid, nnz;
  int64_t *perm;   /* [nslot] the payload val[s] (NULL: s) of the sorted valid slots, then of the
                      left-out slots in slot order */
  int64_t *seg;    /* [nnz + 1] the first sorted slot of each pair; seg[nnz] = nvalid */
  int64_t *rowptr; /* [n + 1] */
  int64_t *colind; /* [nnz] */
};

struct coo_triplet {
  int64_t row, col, slot;
};

static inline int coo_triplet_cmp(const void *a, const void *b)
{
  const struct coo_triplet *x = a, *y = b;
  if (x->row != y->row) return x->row < y->row ? -1 : 1;
  if (x->col != y->col) return x->col < y->col ? -1 : 1;
  return (x->slot > y->slot) - (x->slot < y->slot);
}

/* The reference pattern of the slots (row, col): rows and columns < n, negative for none. */
static inline void coo_ref_build(int64_t n, int64_t nslot, const int64_t *row, const int64_t *col,
                                 const int64_t *val, struct coo_ref *p)
{
  struct coo_triplet *t = malloc(sizeof *t * (size_t)(nslot + 1));
  p->n = n;
  p->nslot = nslot;
  p->nvalid = 0;
  for (int64_t s = 0; s < nslot; s++)
    if (row[s] >= 0 && col[s] >= 0) t[p->nvalid++] = (struct coo_triplet){row[s], col[s], s};
  qsort(t, (size_t)p->nvalid, sizeof *t, coo_triplet_cmp);
  p->perm = malloc(sizeof *p->perm * (size_t)(nslot + 1));
  p->seg = malloc(sizeof *p->seg * (size_t)(nslot + 1));
  p->colind = malloc(sizeof *p->colind * (size_t)(nslot + 1));
  p->rowptr = calloc((size_t)n + 1, sizeof *p->rowptr);
  int64_t k = 0;
  for (int64_t j = 0; j < p->nvalid; j++) p->perm[k++] = val ? val[t[j].slot] : t[j].slot;
  for (int64_t s = 0; s < nslot; s++)
    if (row[s] < 0 || col[s] < 0) p->perm[k++] = val ? val[s] : s;
  p->nnz = 0;
  for (int64_t j = 0; j < p->nvalid; j++)
    if (j == 0 || t[j].row != t[j - 1].row || t[j].col != t[j - 1].col) {
      p->seg[p->nnz] = j;
      p->colind[p->nnz++] = t[j].col;
      p->rowptr[t[j].row + 1]++;
    }
  p->seg[p->nnz] = p->nvalid;
  for (int64_t r = 0; r < n; r++) p->rowptr[r + 1] += p->rowptr[r];
  free(t);
}

static inline void coo_ref_free(struct coo_ref *p)
{
  free(p->perm);
  free(p->seg);
  free(p->rowptr);
  free(p->colind);
  memset(p, 0, sizeof *p);
}

/* The plain exclusive scan: out[i] = in[0] + ... + in[i-1] for i <= m (out[m] the total). */
static inline void scan_plain(int64_t m, const int64_t *in, int64_t *out)
{
  int64_t s = 0;
  for (int64_t i = 0; i < m; i++) {
    const int64_t v = in[i];
    out[i] = s;
    s += v;
  }
  out[m] = s;
}

#endif
