/* v = A_e u on HEX_LANES hexahedra at once by sum factorization (seed 001): the CPU's kernel.
 * Every value is a vector of HEX_LANES doubles, one per cell (libCEED's "blocked" layout), so
 * that each operation works on whole SIMD registers.
 *
 * Gradients go through the quadrature points: u is interpolated there (B along each index), then
 * differentiated by Dq, the derivatives of the Lagrange polynomials through the Q points at the
 * points. That is exact, u being of degree P - 1 <= Q - 1 along each line, and costs 3 Q^4
 * products per component instead of the 3 x 3 contractions of D and B. On Gauss-Lobatto nodes
 * collocated with the points (bp5) B is the identity and is skipped. The transpose goes back the
 * same way. A rule of fewer points than nodes takes D and B (Dq would not be exact).
 *
 * Each order with Q = P or P + 1 (the rules the operator makes) has its own copy with the sizes
 * known to the compiler, so that a line's values stay in registers and the products along it are
 * unrolled; other rules take the copy of any size. Compiled for AVX-512, AVX2 and the baseline,
 * chosen at run time. */
#include <string.h>

#include "refel_hex.h"

/* lanes are passed by value only between inlined functions; the copy of any size reads only the
 * l values of x it loaded */
#pragma GCC diagnostic ignored "-Wpsabi"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define L HEX_LANES
typedef double lane __attribute__((vector_size(L * sizeof(double)), aligned(sizeof(double))));
#define INLINE static inline __attribute__((always_inline))
#define CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#define MAXN HEX_TENSOR_MAX_Q

/* Along one index of an array [nout][l][nin] of lanes: out[o][k][r] (+)= sum_c M[k][c]
 * in[o][c][r], M m x l row-major. A line's l values are loaded once into registers; each output
 * is a chain of l multiply-adds, independent of the next one's. */
INLINE void contract(const double *restrict M, int m, int l, int nout, int nin,
                     const lane *restrict in, lane *restrict out, int add)
{
  for (int o = 0; o < nout; o++)
    for (int r = 0; r < nin; r++) {
      const lane *x0 = in + (size_t)o * l * nin + r;
      lane *y = out + (size_t)o * m * nin + r, x[MAXN];
#pragma GCC unroll 16
      for (int c = 0; c < l; c++) x[c] = x0[(size_t)c * nin];
      for (int k = 0; k < m; k++) {
        const double *row = M + (size_t)k * l;
        lane s = add ? y[(size_t)k * nin] : (lane){0};
#pragma GCC unroll 16
        for (int c = 0; c < l; c++) s += row[c] * x[c];
        y[(size_t)k * nin] = s;
      }
    }
}

/* An array of n1 x n2 x n3 lanes along its first, middle or last index, to m values there. */
INLINE void along_i(const double *M, int m, int n1, int n2, int n3, const lane *in, lane *out,
                    int add)
{
  contract(M, m, n1, 1, n2 * n3, in, out, add);
}

INLINE void along_j(const double *M, int m, int n1, int n2, int n3, const lane *in, lane *out,
                    int add)
{
  contract(M, m, n2, n1, n3, in, out, add);
}

INLINE void along_k(const double *M, int m, int n1, int n2, int n3, const lane *in, lane *out,
                    int add)
{
  contract(M, m, n3, n1 * n2, 1, in, out, add);
}

/* From the P^3 nodes to the Q^3 points with the tables Mi, Mj, Mk (Q x P): out[Q^3]. */
INLINE void to_points(int P, int Q, const double *Mi, const double *Mj, const double *Mk,
                      const lane *u, lane *out, lane *s1, lane *s2)
{
  along_k(Mk, Q, P, P, P, u, s1, 0);  /* [P][P][Q] */
  along_j(Mj, Q, P, P, Q, s1, s2, 0); /* [P][Q][Q] */
  along_i(Mi, Q, P, Q, Q, s2, out, 0);
}

/* From the points back to the nodes with the tables Mi, Mj, Mk (P x Q): v[P^3] (+)= ... */
INLINE void to_nodes(int P, int Q, const double *Mi, const double *Mj, const double *Mk,
                     const lane *w, lane *v, lane *s1, lane *s2, int add)
{
  along_i(Mi, P, Q, Q, Q, w, s2, 0);  /* [P][Q][Q] */
  along_j(Mj, P, P, Q, Q, s2, s1, 0); /* [P][P][Q] */
  along_k(Mk, P, P, P, Q, s1, v, add);
}

/* The values of one component at the points: u itself where collocated. */
INLINE const lane *at_points(const struct hex_tensor *t, int P, int Q, int colloc, const lane *u,
                             lane *uq, lane *s1, lane *s2)
{
  if (colloc) return u;
  to_points(P, Q, t->B, t->B, t->B, u, uq, s1, s2);
  return uq;
}

/* The reference gradient g[d] = du/dxi_d at the points of one component (w: Q^3 scratch). */
INLINE void gradient(const struct hex_tensor *t, int P, int Q, int colloc, const lane *u, lane *w,
                     lane *const g[3], lane *s1, lane *s2)
{
  if (Q < P) {
    to_points(P, Q, t->D, t->B, t->B, u, g[0], s1, s2);
    to_points(P, Q, t->B, t->D, t->B, u, g[1], s1, s2);
    to_points(P, Q, t->B, t->B, t->D, u, g[2], s1, s2);
    return;
  }
  const lane *uq = at_points(t, P, Q, colloc, u, w, s1, s2);
  along_i(t->Dq, Q, Q, Q, Q, uq, g[0], 0);
  along_j(t->Dq, Q, Q, Q, Q, uq, g[1], 0);
  along_k(t->Dq, Q, Q, Q, Q, uq, g[2], 0);
}

/* v = the transpose of gradient applied to g (w: Q^3 scratch, unless collocated). */
INLINE void divergence(const struct hex_tensor *t, int P, int Q, int colloc, lane *const g[3],
                       lane *w, lane *v, lane *s1, lane *s2)
{
  if (Q < P) {
    to_nodes(P, Q, t->Dt, t->Bt, t->Bt, g[0], v, s1, s2, 0);
    to_nodes(P, Q, t->Bt, t->Dt, t->Bt, g[1], v, s1, s2, 1);
    to_nodes(P, Q, t->Bt, t->Bt, t->Dt, g[2], v, s1, s2, 1);
    return;
  }
  lane *s = colloc ? v : w;
  along_i(t->Dqt, Q, Q, Q, Q, g[0], s, 0);
  along_j(t->Dqt, Q, Q, Q, Q, g[1], s, 1);
  along_k(t->Dqt, Q, Q, Q, Q, g[2], s, 1);
  if (!colloc) to_nodes(P, Q, t->Bt, t->Bt, t->Bt, w, v, s1, s2, 0);
}

/* The lanes' values qd[z][i]. */
INLINE lane gather(const double *const *qd, size_t i)
{
  lane g;
  for (int z = 0; z < L; z++) g[z] = qd[z][i];
  return g;
}

/* The quadrature data of the lanes' cells at point q = (i, j, k) (hex_qdata_size(kind) values,
 * as hex_qdata stores them): gathered from qd, or made from the cells' trilinear geometry in
 * lanes, cg[HEX_GEO_SIZE] (hex_geo: the monomials' coefficients, then the coefficients of the
 * form), with K = adj(J) / det J. */
INLINE void point_data(const struct hex_tensor *t, int kind, const double *const *qd,
                       const lane *cg, int i, int j, int k, int q, lane *d)
{
  const int nd = kind == HEX_APPLY_MASS ? 1 : kind == HEX_APPLY_LAPLACE ? 6 : 11;
  if (!cg) {
    for (int e = 0; e < nd; e++) d[e] = gather(qd, (size_t)nd * q + e);
    return;
  }
  const double a = t->xq[i], b = t->xq[j], e = t->xq[k], w = t->w[i] * t->w[j] * t->w[k];
  lane J[9], A[9]; /* J[3 x + d] = dX_x / dxi_d; A = adj(J) */
  for (int x = 0; x < 3; x++) {
    J[3 * x] = cg[3 + x] + cg[12 + x] * b + cg[15 + x] * e + cg[21 + x] * (b * e);
    J[3 * x + 1] = cg[6 + x] + cg[12 + x] * a + cg[18 + x] * e + cg[21 + x] * (a * e);
    J[3 * x + 2] = cg[9 + x] + cg[15 + x] * a + cg[18 + x] * b + cg[21 + x] * (a * b);
  }
  A[0] = J[4] * J[8] - J[5] * J[7], A[1] = J[2] * J[7] - J[1] * J[8];
  A[2] = J[1] * J[5] - J[2] * J[4], A[3] = J[5] * J[6] - J[3] * J[8];
  A[4] = J[0] * J[8] - J[2] * J[6], A[5] = J[2] * J[3] - J[0] * J[5];
  A[6] = J[3] * J[7] - J[4] * J[6], A[7] = J[1] * J[6] - J[0] * J[7];
  A[8] = J[0] * J[4] - J[1] * J[3];
  const lane det = J[0] * A[0] + J[1] * A[3] + J[2] * A[6];
  if (kind == HEX_APPLY_MASS) {
    d[0] = cg[24] * w * det;
    return;
  }
  if (kind == HEX_APPLY_ELASTICITY) {
    const lane r = 1 / det;
    for (int n = 0; n < 9; n++) d[n] = A[n] * r;
    d[9] = cg[24] * w * det;
    d[10] = cg[25] * w * det;
    return;
  }
  /* coef w det K K^T = coef w / det A A^T */
  const lane f = cg[24] * w / det;
  for (int n = 0, r = 0; r < 3; r++)
    for (int c = r; c < 3; c++, n++)
      d[n] = f * (A[3 * r] * A[3 * c] + A[3 * r + 1] * A[3 * c + 1] + A[3 * r + 2] * A[3 * c + 2]);
}

/* Elasticity at the points: from the reference gradients g[3 c + d] = du_c/dxi_d to the fluxes
 * g[3 c + d] = w det J sum_x sigma_cx dxi_d/dx_x, sigma = lambda tr(eps) I + 2 mu eps. */
INLINE void elastic_points(const struct hex_tensor *t, int Q, const double *const *qd,
                           const lane *cg, lane *const g[9])
{
  for (int i = 0, q = 0; i < Q; i++)
    for (int j = 0; j < Q; j++)
      for (int k = 0; k < Q; k++, q++) {
        lane K[11], H[9], S[9]; /* H[3 c + x] = du_c/dx_x */
        point_data(t, HEX_APPLY_ELASTICITY, qd, cg, i, j, k, q, K);
        for (int c = 0; c < 3; c++)
          for (int x = 0; x < 3; x++)
            H[3 * c + x] =
                g[3 * c][q] * K[x] + g[3 * c + 1][q] * K[3 + x] + g[3 * c + 2][q] * K[6 + x];
        const lane lt = K[9] * (H[0] + H[4] + H[8]), mu = K[10];
        for (int c = 0; c < 3; c++)
          for (int x = 0; x < 3; x++) S[3 * c + x] = mu * (H[3 * c + x] + H[3 * x + c]);
        S[0] += lt, S[4] += lt, S[8] += lt;
        for (int c = 0; c < 3; c++)
          for (int d = 0; d < 3; d++)
            g[3 * c + d][q] =
                S[3 * c] * K[3 * d] + S[3 * c + 1] * K[3 * d + 1] + S[3 * c + 2] * K[3 * d + 2];
      }
}

/* G (6 values per point: g00 g01 g02 g11 g12 g22) times the gradient, in place. */
INLINE void laplace_points(const struct hex_tensor *t, int Q, const double *const *qd,
                           const lane *cg, lane *const g[3])
{
  for (int i = 0, q = 0; i < Q; i++)
    for (int j = 0; j < Q; j++)
      for (int k = 0; k < Q; k++, q++) {
        lane G[6];
        point_data(t, HEX_APPLY_LAPLACE, qd, cg, i, j, k, q, G);
        const lane a = g[0][q], b = g[1][q], c = g[2][q];
        g[0][q] = G[0] * a + G[1] * b + G[2] * c;
        g[1][q] = G[1] * a + G[3] * b + G[4] * c;
        g[2][q] = G[2] * a + G[4] * b + G[5] * c;
      }
}

INLINE void apply_body(const struct hex_tensor *t, int kind, int geo, const double *const *qd,
                       const lane *u, lane *v, lane *scratch, const int P, const int Q)
{
  const int nq = Q * Q * Q, m = P > Q ? P : Q, np = P * P * P;
  const int colloc = t->lobatto && Q == P;
  lane *s1 = scratch, *s2 = s1 + m * m * m, *w = s2 + m * m * m, *g = w + nq;
  lane cgv[HEX_GEO_SIZE], *cg = geo ? cgv : NULL;
  for (int n = 0; geo && n < HEX_GEO_SIZE; n++) cgv[n] = gather(qd, n);
  if (kind == HEX_APPLY_MASS) {
    const lane *uq = at_points(t, P, Q, colloc, u, w, s1, s2);
    lane *wq = colloc ? v : w;
    for (int i = 0, q = 0; i < Q; i++)
      for (int j = 0; j < Q; j++)
        for (int k = 0; k < Q; k++, q++) {
          lane d;
          point_data(t, kind, qd, cg, i, j, k, q, &d);
          wq[q] = d * uq[q];
        }
    if (!colloc) to_nodes(P, Q, t->Bt, t->Bt, t->Bt, w, v, s1, s2, 0);
    return;
  }
  if (kind == HEX_APPLY_ELASTICITY) {
    lane *gc[9];
    for (int f = 0; f < 9; f++) gc[f] = g + (size_t)f * nq;
    for (int c = 0; c < 3; c++) gradient(t, P, Q, colloc, u + c * np, w, gc + 3 * c, s1, s2);
    elastic_points(t, Q, qd, cg, gc);
    for (int c = 0; c < 3; c++) divergence(t, P, Q, colloc, gc + 3 * c, w, v + c * np, s1, s2);
    return;
  }
  lane *const g3[3] = {g, g + nq, g + 2 * nq};
  gradient(t, P, Q, colloc, u, w, g3, s1, s2);
  laplace_points(t, Q, qd, cg, g3);
  divergence(t, P, Q, colloc, g3, w, v, s1, s2);
}

#define ARGS                                                                                   \
  const struct hex_tensor *t, int kind, int geo, const double *const *qd, const lane *u,       \
      lane *v, lane *scratch
#define FIXED(P, Q)                                                                            \
  CLONES static void apply_##P##_##Q(ARGS)                                                     \
  {                                                                                            \
    if (geo) apply_body(t, kind, 1, qd, u, v, scratch, P, Q);                                  \
    else apply_body(t, kind, 0, qd, u, v, scratch, P, Q);                                      \
  }
FIXED(2, 2) FIXED(2, 3) FIXED(3, 3) FIXED(3, 4) FIXED(4, 4) FIXED(4, 5) FIXED(5, 5) FIXED(5, 6)
FIXED(6, 6) FIXED(6, 7) FIXED(7, 7) FIXED(7, 8) FIXED(8, 8) FIXED(8, 9) FIXED(9, 9) FIXED(9, 10)
FIXED(10, 10) FIXED(10, 11) FIXED(11, 11) FIXED(11, 12)

CLONES static void apply_any(ARGS) { apply_body(t, kind, geo, qd, u, v, scratch, t->P, t->Q); }

size_t hex_apply_lanes_scratch(const struct hex_tensor *t, int kind)
{
  const size_t P = (size_t)t->P, Q = (size_t)t->Q, m = P > Q ? P : Q;
  return L * (2 * m * m * m + (kind == HEX_APPLY_ELASTICITY ? 10 : 4) * Q * Q * Q);
}

void hex_apply_lanes(const struct hex_tensor *t, int kind, int geo, const double *const *qd,
                     const double *u, double *v, double *scratch)
{
  const lane *lu = (const lane *)u;
  lane *lv = (lane *)v, *ls = (lane *)scratch;
#define CASE(P, Q)                                                                             \
  case (P) * 32 + (Q): apply_##P##_##Q(t, kind, geo, qd, lu, lv, ls); return;
  switch (t->P * 32 + t->Q) {
    CASE(2, 2) CASE(2, 3) CASE(3, 3) CASE(3, 4) CASE(4, 4) CASE(4, 5) CASE(5, 5) CASE(5, 6)
    CASE(6, 6) CASE(6, 7) CASE(7, 7) CASE(7, 8) CASE(8, 8) CASE(8, 9) CASE(9, 9) CASE(9, 10)
    CASE(10, 10) CASE(10, 11) CASE(11, 11) CASE(11, 12)
  default: apply_any(t, kind, geo, qd, lu, lv, ls);
  }
#undef CASE
}
