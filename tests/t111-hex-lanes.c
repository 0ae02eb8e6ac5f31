/* Test: the CPU's sum factorization on 8 cells in SIMD lanes (hex_apply_lanes) equals a plain
 * sum over the quadrature points and the functions, built from the 1D tables B and D alone, for
 * the mass, the Laplacian and elasticity with random data, on the rules of every kind of copy of
 * the kernel: Gauss-Lobatto collocated (Q = P), Gauss with Q = P + 1 (each order's own copy),
 * Gauss-Lobatto with Q = P + 1 (not collocated), and the copy of any size (Q = P - 1, where the
 * gradients take D and B, and Q = P + 3). The quadrature data made at each point from a trilinear
 * cell's geometry gives what the stored data gives. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/refel_hex.h"
#include "tap.h"

#define L HEX_LANES

static double rnd(void) { return 2 * drand48() - 1; }

/* v[c][n] of lane z: the plain sum over the points of the rule (tables B, D: Q x P). */
static void reference(const struct hex_tensor *t, int kind, const double *qd, const double *u,
                      int z, double *v)
{
  const int P = t->P, Q = t->Q, np = P * P * P, nc = kind == HEX_APPLY_ELASTICITY ? 3 : 1;
  const size_t nd = hex_qdata_size(kind);
  memset(v, 0, (size_t)nc * np * sizeof *v);
  double *phi = malloc(4 * (size_t)np * sizeof *phi);
  for (int i = 0, q = 0; i < Q; i++)
    for (int j = 0; j < Q; j++)
      for (int k = 0; k < Q; k++, q++) {
        for (int a = 0, n = 0; a < P; a++)
          for (int b = 0; b < P; b++)
            for (int c = 0; c < P; c++, n++) {
              const double Bi = t->B[i * P + a], Bj = t->B[j * P + b], Bk = t->B[k * P + c];
              phi[4 * n] = Bi * Bj * Bk;
              phi[4 * n + 1] = t->D[i * P + a] * Bj * Bk;
              phi[4 * n + 2] = Bi * t->D[j * P + b] * Bk;
              phi[4 * n + 3] = Bi * Bj * t->D[k * P + c];
            }
        double uq[3] = {0}, g[3][3] = {{0}}, f[3][3] = {{0}}, s = 0;
        for (int c = 0; c < nc; c++)
          for (int n = 0; n < np; n++) {
            const double un = u[((size_t)c * np + n) * L + z];
            uq[c] += phi[4 * n] * un;
            for (int d = 0; d < 3; d++) g[c][d] += phi[4 * n + 1 + d] * un;
          }
        const double *D = qd + nd * q;
        if (kind == HEX_APPLY_MASS) {
          s = D[0] * uq[0];
        } else if (kind == HEX_APPLY_LAPLACE) {
          const double G[3][3] = {{D[0], D[1], D[2]}, {D[1], D[3], D[4]}, {D[2], D[4], D[5]}};
          for (int d = 0; d < 3; d++)
            f[0][d] = G[d][0] * g[0][0] + G[d][1] * g[0][1] + G[d][2] * g[0][2];
        } else { /* H = du/dx through K, sigma, then back through K */
          double H[3][3], S[3][3];
          for (int c = 0; c < 3; c++)
            for (int x = 0; x < 3; x++)
              H[c][x] = g[c][0] * D[x] + g[c][1] * D[3 + x] + g[c][2] * D[6 + x];
          const double lt = D[9] * (H[0][0] + H[1][1] + H[2][2]);
          for (int c = 0; c < 3; c++)
            for (int x = 0; x < 3; x++) S[c][x] = D[10] * (H[c][x] + H[x][c]) + (c == x ? lt : 0);
          for (int c = 0; c < 3; c++)
            for (int d = 0; d < 3; d++)
              f[c][d] = S[c][0] * D[3 * d] + S[c][1] * D[3 * d + 1] + S[c][2] * D[3 * d + 2];
        }
        for (int c = 0; c < nc; c++)
          for (int n = 0; n < np; n++)
            v[(size_t)c * np + n] += kind == HEX_APPLY_MASS
                                         ? phi[4 * n] * s
                                         : phi[4 * n + 1] * f[c][0] + phi[4 * n + 2] * f[c][1] +
                                               phi[4 * n + 3] * f[c][2];
      }
  free(phi);
}

/* Random quadrature data of a kind: positive weights, G symmetric positive definite. */
static void random_qdata(int kind, int nq, double *qd)
{
  for (int q = 0; q < nq; q++) {
    if (kind == HEX_APPLY_MASS) {
      qd[q] = 0.5 + drand48();
    } else if (kind == HEX_APPLY_LAPLACE) {
      double M[9], *G = qd + 6 * (size_t)q;
      for (int e = 0; e < 9; e++) M[e] = rnd() + (e % 4 == 0 ? 2 : 0);
      for (int n = 0, r = 0; r < 3; r++)
        for (int c = r; c < 3; c++, n++)
          G[n] = M[3 * r] * M[3 * c] + M[3 * r + 1] * M[3 * c + 1] + M[3 * r + 2] * M[3 * c + 2];
    } else {
      double *K = qd + 11 * (size_t)q;
      for (int e = 0; e < 9; e++) K[e] = rnd() + (e % 4 == 0 ? 2 : 0);
      K[9] = 0.5 + drand48(), K[10] = 0.5 + drand48();
    }
  }
}

static const char *kind_name[] = {"mass", "Laplace", "elasticity"};

/* One order, rule and kind: the lanes against the plain sums, the largest difference relative
 * to the largest value. */
static void check(int p, int nq, int lobatto, int kind, const char *what)
{
  struct hex_tensor *t = NULL;
  if (hex_tensor_create(p, nq, lobatto, &t)) {
    tap_ok(0, "p = %d, %s: hex_tensor_create failed", p, what);
    return;
  }
  const int np = t->P * t->P * t->P, nc = kind == HEX_APPLY_ELASTICITY ? 3 : 1;
  const size_t nqd = (size_t)nq * nq * nq * hex_qdata_size(kind), nv = (size_t)nc * np * L;
  double *qd = malloc(L * nqd * sizeof *qd), *u = malloc(nv * sizeof *u);
  double *v = malloc(nv * sizeof *v), *ref = malloc((size_t)nc * np * sizeof *ref);
  double *scratch = malloc(hex_apply_lanes_scratch(t, kind) * sizeof *scratch);
  const double *q[L];
  for (int z = 0; z < L; z++) {
    random_qdata(kind, nq * nq * nq, qd + z * nqd);
    q[z] = qd + z * nqd;
  }
  for (size_t i = 0; i < nv; i++) u[i] = rnd();
  hex_apply_lanes(t, kind, 0, q, u, v, scratch);
  double diff = 0, big = 0;
  for (int z = 0; z < L; z++) {
    reference(t, kind, q[z], u, z, ref);
    for (int i = 0; i < nc * np; i++) {
      diff = fmax(diff, fabs(v[(size_t)i * L + z] - ref[i]));
      big = fmax(big, fabs(ref[i]));
    }
  }
  tap_ok(big > 0 && diff <= 1e-12 * big,
         "p = %d, %s (Q = %d), %s: lanes vs plain sums %.2e (of %.2e)", p, what, nq,
         kind_name[kind], diff / big, big);
  free(qd);
  free(u);
  free(v);
  free(ref);
  free(scratch);
  hex_tensor_destroy(&t);
}

/* The geometry variant: 8 perturbed trilinear cells, their data made at each point in the lanes
 * against the data hex_qdata_geo stores. */
static void check_geometry(int p, int nq, int lobatto, int kind)
{
  struct hex_tensor *t = NULL;
  if (hex_tensor_create(p, nq, lobatto, &t)) {
    tap_ok(0, "p = %d: hex_tensor_create failed", p);
    return;
  }
  const int np = t->P * t->P * t->P, nc = kind == HEX_APPLY_ELASTICITY ? 3 : 1;
  const size_t nqd = (size_t)nq * nq * nq * hex_qdata_size(kind), nv = (size_t)nc * np * L;
  double *qd = malloc(L * nqd * sizeof *qd), *geo = malloc(L * HEX_GEO_SIZE * sizeof *geo);
  double *u = malloc(nv * sizeof *u), *v0 = malloc(nv * sizeof *v0), *v1 = malloc(nv * sizeof *v1);
  double *scratch = malloc(hex_apply_lanes_scratch(t, kind) * sizeof *scratch);
  const double *q[L], *g[L];
  int bad = 0;
  for (int z = 0; z < L; z++) {
    double X[3 * HEX_NV], coef[2] = {0.5 + drand48(), 0.5 + drand48()};
    for (int a = 0; a < HEX_NV; a++)
      for (int x = 0; x < 3; x++) X[3 * a + x] = (0.5 + z) * hex_vert_xi[a][x] + 0.2 * rnd();
    hex_geo(X, coef, hex_ncoef(kind), geo + z * HEX_GEO_SIZE);
    bad |= hex_qdata_geo(t, kind, geo + z * HEX_GEO_SIZE, qd + z * nqd);
    q[z] = qd + z * nqd;
    g[z] = geo + z * HEX_GEO_SIZE;
  }
  for (size_t i = 0; i < nv; i++) u[i] = rnd();
  hex_apply_lanes(t, kind, 0, q, u, v0, scratch);
  hex_apply_lanes(t, kind, 1, g, u, v1, scratch);
  double diff = 0, big = 0;
  for (size_t i = 0; i < nv; i++) {
    diff = fmax(diff, fabs(v1[i] - v0[i]));
    big = fmax(big, fabs(v0[i]));
  }
  tap_ok(!bad && big > 0 && diff <= 1e-13 * big,
         "p = %d, Q = %d, %s: the data made per point in the lanes gives the stored data's v "
         "(%.2e)", p, nq, kind_name[kind], diff / big);
  free(qd);
  free(geo);
  free(u);
  free(v0);
  free(v1);
  free(scratch);
  hex_tensor_destroy(&t);
}

int main(void)
{
  srand48(111);
  const int orders[] = {1, 2, 3, 5, 8};
  for (int i = 0; i < 5; i++) {
    const int p = orders[i];
    for (int kind = 0; kind < HEX_APPLY_KINDS; kind++) {
      check(p, p + 1, 1, kind, "Gauss-Lobatto collocated");
      check(p, p + 2, 0, kind, "Gauss");
      if (p <= 5) {
        check(p, p + 2, 1, kind, "Gauss-Lobatto, more points than nodes");
        check(p, p + 4, 0, kind, "Gauss, the copy of any size");
        if (p >= 2) check(p, p, 0, kind, "Gauss, fewer points than nodes");
      }
    }
  }
  check(10, 12, 0, HEX_APPLY_MASS, "Gauss, the highest order");
  check(10, 11, 1, HEX_APPLY_LAPLACE, "Gauss-Lobatto collocated, the highest order");
  for (int kind = 0; kind < HEX_APPLY_KINDS; kind++) {
    check_geometry(3, 5, 0, kind);
    check_geometry(4, 5, 1, kind);
  }
  return tap_done();
}
