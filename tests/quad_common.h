/* Helpers shared by the quadrilateral tests: the reference square's topology as refel_quad.h
 * documents it, random points, and the discrete L2 projection on a quadrilateral basis. */
#ifndef FEMINT_TEST_QUAD_COMMON_H
#define FEMINT_TEST_QUAD_COMMON_H

#include <stdlib.h>
#include <string.h>

#include "host/refel_quad.h"
#include "common.h"

#define NSH_MAX 38
#define N_MAX (2 * NSH_MAX)

/* Local copies of the reference square's topology as refel_quad.h documents it. */
static const double vert_xi[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
static const int edge_vert[4][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
static const double mid_xi[4][2] = {{0, -1}, {1, 0}, {0, 1}, {-1, 0}};
/* The 8 nodes of the reference square itself. */
static const double ref_nodes[16] = {-1, -1, 1, -1, 1, 1, -1, 1, 0, -1, 1, 0, 0, 1, -1, 0};

static inline void random_point(double *xi)
{
  xi[0] = 2 * drand48() - 1;
  xi[1] = 2 * drand48() - 1;
}

static inline double ipow(double x, int k)
{
  double r = 1;
  for (int i = 0; i < k; i++) r *= x;
  return r;
}

/* The reference mass matrix of re from its tabulation, factored; NULL if not SPD. */
static inline double *mass_factor(const struct refel *re, double *rmin)
{
  int n = re->nsh;
  double *M = malloc(sizeof(double) * n * n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int q = 0; q < re->nq; q++) {
        const double *ph = re->phi + (size_t)q * 3 * n;
        s += re->wq[q] * ph[i] * ph[j];
      }
      M[i * n + j] = s;
    }
  *rmin = cholesky(n, M);
  if (*rmin <= 0) {
    free(M);
    return NULL;
  }
  return M;
}

/* Coefficients of the discrete L2 projection of f(xi) (a callback) on the basis of re. */
typedef double (*ref_fn)(const double *xi, const void *data);
static inline void project(const struct refel *re, const double *L, ref_fn f, const void *data,
                           double *coef)
{
  int n = re->nsh;
  memset(coef, 0, sizeof(double) * n);
  for (int q = 0; q < re->nq; q++) {
    double fq = f(re->xq + 2 * q, data);
    for (int i = 0; i < n; i++) coef[i] += re->wq[q] * re->phi[(size_t)q * 3 * n + i] * fq;
  }
  cholesky_solve(n, L, coef);
}

#endif
