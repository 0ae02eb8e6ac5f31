/* Helpers shared by the quadrilateral tests: the reference square's topology as refel_quad.h
 * documents it, random points, and the discrete L2 projection on a quadrilateral basis. */
#ifndef FEMINT_TEST_QUAD_COMMON_H
#define FEMINT_TEST_QUAD_COMMON_H

#include <math.h>
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

/* A mesh of the unit square, nx x ny curved quadrilaterals: interior vertices moved by up to
 * 0.2 h, every edge bent by moving its midpoint node along the chord's normal by up to amp * h
 * (the same for both cells of the edge). Returns femint_mesh_create's status. */
static inline int test_curved_square(femint_context_t ctx, int nx, int ny, double amp,
                                     uint64_t *st, femint_mesh_t *mesh)
{
  const int nv = (nx + 1) * (ny + 1), nh = nx * (ny + 1), ned = nh + (nx + 1) * ny;
  const double h = 1.0 / (nx > ny ? nx : ny);
  double *x = malloc(2 * sizeof *x * nv), *off = malloc(sizeof *off * ned);
  double *mid = malloc(8 * sizeof *mid * nx * ny);
  int *cells = malloc(4 * sizeof *cells * nx * ny);
  for (int j = 0; j <= ny; j++)
    for (int i = 0; i <= nx; i++) {
      const int v = j * (nx + 1) + i, inner = i > 0 && i < nx && j > 0 && j < ny;
      x[2 * v] = (double)i / nx + (inner ? 0.4 * h * (test_rand(st) - 0.5) : 0);
      x[2 * v + 1] = (double)j / ny + (inner ? 0.4 * h * (test_rand(st) - 0.5) : 0);
    }
  for (int e = 0; e < ned; e++) off[e] = 2 * amp * h * (test_rand(st) - 0.5);
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++) {
      const int c = j * nx + i, v00 = j * (nx + 1) + i;
      const int q[4] = {v00, v00 + 1, v00 + nx + 2, v00 + nx + 1};
      const int e[4] = {j * nx + i, nh + j * (nx + 1) + i + 1, (j + 1) * nx + i,
                        nh + j * (nx + 1) + i};
      for (int k = 0; k < 4; k++) {
        cells[4 * c + k] = q[k];
        /* the normal of the edge's chord from its lower to its higher vertex, so that both
         * cells bend it the same way */
        int a = q[k], b = q[(k + 1) % 4];
        if (a > b) a = q[(k + 1) % 4], b = q[k];
        const double dx = x[2 * b] - x[2 * a], dy = x[2 * b + 1] - x[2 * a + 1];
        const double len = hypot(dx, dy);
        mid[8 * c + 2 * k] = 0.5 * (x[2 * a] + x[2 * b]) - off[e[k]] * dy / len;
        mid[8 * c + 2 * k + 1] = 0.5 * (x[2 * a + 1] + x[2 * b + 1]) + off[e[k]] * dx / len;
      }
    }
  int err = femint_mesh_create(ctx, FEMINT_QUAD, nv, x, nx * ny, cells, mid, mesh);
  free(x);
  free(off);
  free(mid);
  free(cells);
  return err;
}

#endif
