/* The matrix-free action of the mass or Laplace form on a batch of hexahedra by sum factorization
 * (seed 001): per cell, the values of x at its P^3 nodes (gathered through dofs, tensor order),
 * interpolated (B) or differentiated (D) to the Q^3 points one direction at a time, multiplied
 * by the quadrature data (mass: w det J; Laplace: the symmetric w det J K K^T), and taken back by
 * the transposes; the result goes to the batch's element vectors ev[cell][NC][P^3].
 * One work-group per cell, WG_SIZE work-items striding over the entries of each stage, the stages
 * in local memory. Compiled with -DP, -DQ, -DNC (components), -DKIND (0 mass, 1 Laplace),
 * -DWG_SIZE and -DFEMINT_FP64 (double only). tab holds B[Q][P] then D[Q][P]. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define NP (P * P * P)
#define NQ3 (Q * Q * Q)
#define M (P > Q ? P : Q)
#define M3 (M * M * M)
#define NQD (KIND == 0 ? 1 : 6)
#define NR ((NP + WG_SIZE - 1) / WG_SIZE) /* nodes per work-item */

/* out[i][j][k] (n1 x n2 x nout) = sum_c T[k][c] in[i][j][c]: along the last index, through
 * T = tab[k * P + c] (to the points) or tab[c * P + k] (back to the nodes, trans). */
static void along_k(__constant const double *T, int nout, int nin, int trans, int n12,
                    __local const double *in, __local double *out, int lid)
{
  for (int e = lid; e < n12 * nout; e += WG_SIZE) {
    const int ij = e / nout, k = e % nout;
    double s = 0;
    for (int c = 0; c < nin; c++) s += (trans ? T[c * P + k] : T[k * P + c]) * in[ij * nin + c];
    out[e] = s;
  }
}

/* out[i][k][j] = sum_b T[k][b] in[i][b][j], in: n1 x nin x n3 */
static void along_j(__constant const double *T, int nout, int nin, int trans, int n1, int n3,
                    __local const double *in, __local double *out, int lid)
{
  for (int e = lid; e < n1 * nout * n3; e += WG_SIZE) {
    const int i = e / (nout * n3), k = e / n3 % nout, j = e % n3;
    double s = 0;
    for (int b = 0; b < nin; b++)
      s += (trans ? T[b * P + k] : T[k * P + b]) * in[(i * nin + b) * n3 + j];
    out[e] = s;
  }
}

/* out[k][r] = sum_a T[k][a] in[a][r], in: nin x n23 */
static void along_i(__constant const double *T, int nout, int nin, int trans, int n23,
                    __local const double *in, __local double *out, int lid)
{
  for (int e = lid; e < nout * n23; e += WG_SIZE) {
    const int k = e / n23, r = e % n23;
    double s = 0;
    for (int a = 0; a < nin; a++) s += (trans ? T[a * P + k] : T[k * P + a]) * in[a * n23 + r];
    out[e] = s;
  }
}

/* uq = (Ti x Tj x Tk) u, from the nodes to the points (s1, s2: scratch). A macro, not a function:
 * barriers inside called functions came out wrong on PoCL 3.1. */
#define TO_POINTS(Ti, Tj, Tk, u, uq)                                                              \
  along_k(Tk, Q, P, 0, P * P, u, s1, lid);                                                       \
  barrier(CLK_LOCAL_MEM_FENCE);                                                                  \
  along_j(Tj, Q, P, 0, P, Q, s1, s2, lid);                                                       \
  barrier(CLK_LOCAL_MEM_FENCE);                                                                  \
  along_i(Ti, Q, P, 0, Q * Q, s2, uq, lid);                                                      \
  barrier(CLK_LOCAL_MEM_FENCE)

/* v += (Ti x Tj x Tk)^T w, from the points back to the nodes: node n = lid + r * WG_SIZE is
 * accumulated in the work-item's v[r], in registers. */
#define FROM_POINTS(Ti, Tj, Tk, w)                                                                \
  along_i(Ti, P, Q, 1, Q * Q, w, s1, lid);                                                       \
  barrier(CLK_LOCAL_MEM_FENCE);                                                                  \
  along_j(Tj, P, Q, 1, P, Q, s1, s2, lid);                                                       \
  barrier(CLK_LOCAL_MEM_FENCE);                                                                  \
  along_k(Tk, P, Q, 1, P * P, s2, s1, lid);                                                      \
  barrier(CLK_LOCAL_MEM_FENCE);                                                                  \
  for (int r = 0; r < NR; r++)                                                                   \
    if (lid + r * WG_SIZE < NP) v[r] += s1[lid + r * WG_SIZE];                                   \
  barrier(CLK_LOCAL_MEM_FENCE)

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void
hex_apply(int ncell, __global const double *x, __global const long *dofs, long dofs_off,
          __global const double *qd, long qd_off, __constant const double *tab,
          __global double *ev, long ev_off)
{
  __local double u[NP], s1[M3], s2[M3], g[(KIND == 0 ? 1 : 3) * NQ3];
  const int cell = get_group_id(0), lid = get_local_id(0);
  if (cell >= ncell) return;
  __constant const double *B = tab, *D = tab + Q * P;
  __global const long *dof = dofs + dofs_off + (size_t)cell * NP;
  __global const double *G = qd + qd_off + (size_t)cell * NQ3 * NQD;
  for (int c = 0; c < NC; c++) {
    double v[NR];
    for (int r = 0; r < NR; r++) v[r] = 0;
    for (int n = lid; n < NP; n += WG_SIZE) {
      const long d = dof[n];
      u[n] = d >= 0 ? x[d * NC + c] : 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#if KIND == 0
    TO_POINTS(B, B, B, u, g);
    for (int q = lid; q < NQ3; q += WG_SIZE) g[q] *= G[q];
    barrier(CLK_LOCAL_MEM_FENCE);
    FROM_POINTS(B, B, B, g);
#else
    TO_POINTS(D, B, B, u, g);
    TO_POINTS(B, D, B, u, g + NQ3);
    TO_POINTS(B, B, D, u, g + 2 * NQ3);
    for (int q = lid; q < NQ3; q += WG_SIZE) {
      __global const double *h = G + 6 * q;
      const double a = g[q], b = g[NQ3 + q], e = g[2 * NQ3 + q];
      g[q] = h[0] * a + h[1] * b + h[2] * e;
      g[NQ3 + q] = h[1] * a + h[3] * b + h[4] * e;
      g[2 * NQ3 + q] = h[2] * a + h[4] * b + h[5] * e;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    FROM_POINTS(D, B, B, g);
    FROM_POINTS(B, D, B, g + NQ3);
    FROM_POINTS(B, B, D, g + 2 * NQ3);
#endif
    __global double *out = ev + ev_off + ((size_t)cell * NC + c) * NP;
    for (int r = 0; r < NR; r++)
      if (lid + r * WG_SIZE < NP) out[lid + r * WG_SIZE] = v[r];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
