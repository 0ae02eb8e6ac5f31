/* Helpers of the OpenCL kernel tests: random distorted prisms and coefficients, the OpenCL
 * environment, and uploads in either precision. */
#ifndef FEMINT_TEST_OPENCL_COMMON_H
#define FEMINT_TEST_OPENCL_COMMON_H

#include <stdint.h>
#include <stdlib.h>

#include "codelets/volume_opencl.h"
#include "host/host.h"

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
static void random_prism(const struct refel *re, double *X, double *t)
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
static void random_coef(int kind, int ne, double *k)
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
static cl_mem upload(struct cl_env *env, const double *x, size_t n, int single, cl_int *err)
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

#endif
