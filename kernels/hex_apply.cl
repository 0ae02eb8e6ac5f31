/* The matrix-free action of the mass or Laplace form on hexahedra by sum factorization (seed
 * 001), in 2D thread slices: a work-group holds NE cells, each worked on by M x M work-items
 * (M = max(P, Q)), work-item (x, y) keeping a line of values along the third direction in
 * registers. The contraction along that direction happens in registers; the two others go
 * through local memory, one stage each, between barriers. Per cell and component: the values
 * of x at its P^3 nodes (gathered through dofs, tensor order), interpolated (B) or
 * differentiated (D) to the Q^3 points, multiplied by the quadrature data (mass: w det J;
 * Laplace: the symmetric w det J K K^T as g00 g01 g02 g11 g12 g22), and taken back by the
 * transposes into ev[cell][NC][P^3].
 * KIND 2 is the Laplacian on the Gauss-Lobatto nodes themselves (Q = P, BP5/BP6): B is the
 * identity there, and only the derivatives remain (the seed's BP3.5).
 * With -DGEO=1 the quadrature data are not read but made at each point from the cell's 25
 * values (host/hex_apply.c, hex_geo: the trilinear map's coefficients, then the form's
 * coefficient), with the rule's points and weights.
 * KIND 3 is linear elasticity (NC = 3): the reference gradients of the three components at the
 * points, the stress there from the quadrature data K = dxi/dx (9 values) and lambda w det J,
 * mu w det J, and the fluxes back, component by component.
 * With -DEVEC=1 x holds the chunk's element vectors [cell][NC][P^3] (tensor order) instead of
 * the DOFs' values: the kernel alone (CEED's BK1-BK6), without the gather.
 * Compiled with -DP, -DQ, -DNC (components), -DKIND (0 mass, 1 Laplace, 2 collocated Laplace,
 * 3 elasticity), -DEVEC,
 * -DNE (cells per work-group), -DGEO, -DREAL (float or double: the quadrature data, the tables,
 * the element vectors and the arithmetic) and -DFEMINT_FP64. tab holds B[Q][P],
 * D[Q][P], the points xq[Q] and the weights w[Q]. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* the arithmetic's type (-DREAL=float or double), and x's: the DOFs' values are double; the
 * element vectors that the kernel alone reads (EVEC) are real */
#ifndef REAL
#define REAL double
#endif
typedef REAL real;
#if EVEC
#define XT real
#else
#define XT double
#endif

#define NGEO 26
/* the 1D tables' rows in local memory are TS apart, an odd number of values: the work-items of a
 * warp that read different rows at the same column hit different banks */
#define TS (P | 1)
/* The kernels' three directions are the reference cell's in reverse: work-item x runs along
 * zeta, the fastest index of the nodes and points in memory (so that a warp's loads and stores
 * are contiguous), y along eta, and the line in registers along xi. NODE and QPOINT give the
 * memory index of the kernels' (x, y, line) and PERMUTE turns quadrature data read in the
 * reference order into the kernels' (kind 1: the symmetric g00 g01 g02 g11 g12 g22; kind 3: the
 * rows of K = dxi/dx); a statement. */
#define NODE(a, b, c) (((c) * P + (b)) * P + (a))
#define QPOINT(a, b, c, N) (((c) * (N) + (b)) * (N) + (a))
#define PERMUTE(h, kind)                                                                          \
  if ((kind) == 1 || (kind) == 2) {                                                               \
    const real t0_ = h[0], t1_ = h[1];                                                          \
    h[0] = h[5], h[1] = h[4], h[5] = t0_, h[4] = t1_;                                             \
  } else if ((kind) == 3) {                                                                       \
    for (int x_ = 0; x_ < 3; x_++) {                                                              \
      const real t_ = h[x_];                                                                    \
      h[x_] = h[6 + x_], h[6 + x_] = t_;                                                          \
    }                                                                                             \
  }
/* the value of component comp of x at node n of the work-item's cell */
#if EVEC
#define X_AT(n, comp) x[((size_t)cell * NC + (comp)) * NP + (n)]
#else
#define X_AT(n, comp) (dof[n] >= 0 ? x[dof[n] * NC + (comp)] : 0)
#endif
/* h[0] (mass), h[0..6) (Laplace: w det J K K^T, K = J^-1) or h[0..11) (laplace == 3:
 * elasticity) from the Jacobian J_[3 x + d] = dX_x / dxi_d at a point, the form's coefficients
 * times the point's weight c0w and c1w, computed in type T, det J into det; a statement. */
#define QDATA_FROM_J(J_, c0w, c1w, h, laplace, T, det)                                           \
  {                                                                                               \
    const T A0 = J_[4] * J_[8] - J_[5] * J_[7], A1 = J_[2] * J_[7] - J_[1] * J_[8];               \
    const T A2 = J_[1] * J_[5] - J_[2] * J_[4], A3 = J_[5] * J_[6] - J_[3] * J_[8];               \
    const T A4 = J_[0] * J_[8] - J_[2] * J_[6], A5 = J_[2] * J_[3] - J_[0] * J_[5];               \
    const T A6 = J_[3] * J_[7] - J_[4] * J_[6], A7 = J_[1] * J_[6] - J_[0] * J_[7];               \
    const T A8 = J_[0] * J_[4] - J_[1] * J_[3];                                                   \
    const T det_ = J_[0] * A0 + J_[1] * A3 + J_[2] * A6;                                          \
    const T w_ = (c0w);                                                                           \
    if ((laplace) == 3) { /* elasticity: K, then lambda w det J and mu w det J */                  \
      const T A_[9] = {A0, A1, A2, A3, A4, A5, A6, A7, A8};                                       \
      for (int m_ = 0; m_ < 9; m_++) h[m_] = A_[m_] / det_;                                       \
      h[9] = w_ * det_;                                                                           \
      h[10] = (c1w) * det_;                                                                       \
    } else if (!(laplace)) {                                                                      \
      h[0] = w_ * det_;                                                                           \
    } else {                                                                                      \
      const T f_ = w_ / det_;                                                                     \
      h[0] = f_ * (A0 * A0 + A1 * A1 + A2 * A2);                                                  \
      h[1] = f_ * (A0 * A3 + A1 * A4 + A2 * A5);                                                  \
      h[2] = f_ * (A0 * A6 + A1 * A7 + A2 * A8);                                                  \
      h[3] = f_ * (A3 * A3 + A4 * A4 + A5 * A5);                                                  \
      h[4] = f_ * (A3 * A6 + A4 * A7 + A5 * A8);                                                  \
      h[5] = f_ * (A6 * A6 + A7 * A7 + A8 * A8);                                                  \
    }                                                                                             \
    det = det_;                                                                                   \
  }
/* J_ at (a_, b_, e_) of the trilinear cell of geometry gc (host/hex_apply.c, hex_geo: the map's
 * coefficients, then the form's), a statement; GEO_POINT_T: the data at point (i, j, k) of the
 * rule's points Xq and weights Wq; GEO_POINT: in real, det J dropped. */
#define GEO_JACOBIAN(gc, a_, b_, e_, J_)                                                          \
  for (int x_ = 0; x_ < 3; x_++) {                                                                \
    J_[3 * x_] = gc[3 + x_] + gc[12 + x_] * b_ + gc[15 + x_] * e_ + gc[21 + x_] * b_ * e_;        \
    J_[3 * x_ + 1] = gc[6 + x_] + gc[12 + x_] * a_ + gc[18 + x_] * e_ + gc[21 + x_] * a_ * e_;    \
    J_[3 * x_ + 2] = gc[9 + x_] + gc[15 + x_] * a_ + gc[18 + x_] * b_ + gc[21 + x_] * a_ * b_;    \
  }
#define GEO_POINT_T(gc, i, j, k, h, laplace, T, det)                                              \
  {                                                                                               \
    const T a_ = Xq[i], b_ = Xq[j], e_ = Xq[k];                                                   \
    T J_[9];                                                                                      \
    GEO_JACOBIAN(gc, a_, b_, e_, J_);                                                             \
    const T wq_ = Wq[i] * Wq[j] * Wq[k];                                                          \
    QDATA_FROM_J(J_, gc[24] * wq_, gc[25] * wq_, h, laplace, T, det);                            \
  }
#define GEO_POINT(gc, i, j, k, h, laplace)                                                        \
  {                                                                                               \
    real det_point_;                                                                              \
    GEO_POINT_T(gc, i, j, k, h, laplace, real, det_point_);                                       \
  }

#define NP (P * P * P)
#define NQ3 (Q * Q * Q)
/* By the M x M x NE work-items of a work-group (lin: this one's number): the rule's NQ points
 * and weights into Xq and Wq (tab after B and D), and with GEO the cell's geometry into gc (ones
 * where there is no cell); a statement. */
#define LOAD_RULE(NQ, M, lin)                                                                     \
  for (int i_ = (lin); i_ < (NQ); i_ += (M) * (M) * NE) {                                        \
    Xq[i_] = tab[2 * (NQ) * P + i_];                                                              \
    Wq[i_] = tab[2 * (NQ) * P + (NQ) + i_];                                                       \
  }                                                                                               \
  if (GEO)                                                                                        \
    for (int i_ = ty * (M) + tx; i_ < NGEO; i_ += (M) * (M))                                      \
      gc[i_] = live ? qd[qd_off + (size_t)cell * NGEO + i_] : 1

#if KIND == 2
/* ---- KIND 2: the collocated Laplacian. Work-item (x, y) of a cell keeps the line (x, y, :) of
 * u in registers; the derivative along the third direction is taken there, the two others from
 * the cell's values in local memory; going back, the third direction's term stays in registers
 * and the two others go through local memory once. ---- */
#define NP (P * P * P)
#define PS (P | 1)
#define AS ((P * PS) | 1) /* odd strides in both inner directions, against bank conflicts */
#define U3(a, b, c) su[(a) * AS + (b) * PS + (c)]
#define W3(m, a, b, c) sw[((m) * P + (a)) * AS + (b) * PS + (c)]

__kernel __attribute__((reqd_work_group_size(P, P, NE))) void
hex_apply(int ncell, __global const XT *x, __global const long *dofs, long dofs_off,
          __global const real *qd, long qd_off, __global const real *tab,
          __global real *ev, long ev_off)
{
  __local real Dl[P * TS], su_all[NE * P * AS], sw_all[NE * 2 * P * AS];
  __local real Xq[P], Wq[P], geo_all[NE * NGEO];
  const int tx = get_local_id(0), ty = get_local_id(1), e = get_local_id(2);
  for (int i = (e * P + ty) * P + tx; i < P * P; i += P * P * NE)
    Dl[i / P * TS + i % P] = tab[P * P + i];
  const int cell = get_group_id(2) * NE + e;
  const int live = cell < ncell;
  __local real *gc = geo_all + e * NGEO;
  LOAD_RULE(P, P, (e * P + ty) * P + tx);
  __local real *su = su_all + e * P * AS, *sw = sw_all + e * 2 * P * AS;
  __global const long *dof = dofs + dofs_off + (size_t)cell * NP;
  __global const real *G = qd + qd_off + (size_t)cell * NP * 6;
  for (int comp = 0; comp < NC; comp++) {
    real r[P], res[P];
    for (int c = 0; c < P; c++) {
      r[c] = live ? X_AT(NODE(tx, ty, c), comp) : 0;
      U3(tx, ty, c) = r[c];
      res[c] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    real w0[P], w1[P];
    /* unrolled, w0 and w1 stay in registers (bk5 at p = 8 0.59 -> 0.70 of the copy, bp5's CG
     * at p = 9 +12%); at P = 11 the registers run short (p = 10's CG -11%) */
#if P <= 10
#pragma unroll
#endif
    for (int k = 0; k < P; k++) {
      real g0 = 0, g1 = 0, g2 = 0;
      for (int a = 0; a < P; a++) {
        g0 += Dl[tx * TS + a] * U3(a, ty, k);
        g1 += Dl[ty * TS + a] * U3(tx, a, k);
        g2 += Dl[k * TS + a] * r[a];
      }
      real hq[6];
#if GEO
      GEO_POINT(gc, k, ty, tx, hq, 1);
#else
      for (int m = 0; m < 6; m++) hq[m] = live ? G[QPOINT(tx, ty, k, P) * 6 + m] : 0;
#endif
      PERMUTE(hq, 1);
      const real h0 = live ? hq[0] : 0, h1 = live ? hq[1] : 0, h2 = live ? hq[2] : 0;
      const real h3 = live ? hq[3] : 0, h4 = live ? hq[4] : 0, h5 = live ? hq[5] : 0;
      w0[k] = h0 * g0 + h1 * g1 + h2 * g2;
      w1[k] = h1 * g0 + h3 * g1 + h4 * g2;
      const real w2 = h2 * g0 + h4 * g1 + h5 * g2;
      for (int c = 0; c < P; c++) res[c] += Dl[k * TS + c] * w2;
    }
    for (int k = 0; k < P; k++) {
      W3(0, tx, ty, k) = w0[k];
      W3(1, tx, ty, k) = w1[k];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int c = 0; c < P; c++) {
      real s = res[c];
      for (int i = 0; i < P; i++) s += Dl[i * TS + tx] * W3(0, i, ty, c) + Dl[i * TS + ty] * W3(1, tx, i, c);
      res[c] = s;
    }
    if (live) {
      __global real *out = ev + ev_off + ((size_t)cell * NC + comp) * NP;
      for (int c = 0; c < P; c++) out[NODE(tx, ty, c)] = res[c];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
#else
#define NQD (KIND == 0 ? 1 : KIND == 3 ? 11 : 6)
#define NG (KIND == 0 ? 1 : 3) /* gradients (or values) at the points */
#define NF (KIND == 0 ? 1 : 2) /* lines after the first contraction */
/* odd strides in local memory along both inner directions, against bank conflicts */
#define QS (Q | 1)
#define PS (P | 1)
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define F1A ((P * QS) | 1)
#define F2A ((Q * QS) | 1)
#define B1A ((P * PS) | 1)
#define B2A ((Q * PS) | 1)
#define SA_SIZE (NF * MAX(P * F1A, Q * B1A))
#define SB_SIZE (NG * MAX(P * F2A, Q * B2A))
/* the first contraction [m][a][b][kq], the second [m][a][jq][kq]; going back, [m][iq][jq][c]
 * and [m][iq][b][c] */
#define F1(m, a, b, k) sa[((m) * P + (a)) * F1A + (b) * QS + (k)]
#define F2(m, a, j, k) sb[((m) * P + (a)) * F2A + (j) * QS + (k)]
#define B2(m, i, j, c) sb[((m) * Q + (i)) * B2A + (j) * PS + (c)]
#define B1(m, i, b, c) sa[((m) * Q + (i)) * B1A + (b) * PS + (c)]

/* What both kernels below share, as statements: the tables into local memory and this
 * work-item's cell (KERNEL_BEGIN); the first two contractions of component comp, from the nodes
 * (FORWARD_12); and, from a0, a1, a2 (the line of work-item (iq, jq) after the contraction back
 * along the third direction), the last two, to the cell's element vector (BACK_45). */
#define KERNEL_BEGIN                                                                              \
  __local real Bl[Q * TS], Dl[Q * TS], sa_all[NE * SA_SIZE], sb_all[NE * SB_SIZE];             \
  __local real Xq[Q], Wq[Q], geo_all[NE * NGEO];                                                \
  const int tx = get_local_id(0), ty = get_local_id(1), e = get_local_id(2);                      \
  const int lin = (e * MAX(P, Q) + ty) * MAX(P, Q) + tx, nthr = MAX(P, Q) * MAX(P, Q) * NE;       \
  for (int i = lin; i < Q * P; i += nthr) {                                                       \
    Bl[i / P * TS + i % P] = tab[i];                                                              \
    Dl[i / P * TS + i % P] = tab[Q * P + i];                                                      \
  }                                                                                               \
  const int cell = get_group_id(2) * NE + e;                                                      \
  const int live = cell < ncell;                                                                  \
  const int point = live && tx < Q && ty < Q; /* this work-item has a line of points */          \
  __local real *gc = geo_all + e * NGEO;                                                        \
  LOAD_RULE(Q, MAX(P, Q), lin);                                                                   \
  __local real *sa = sa_all + e * SA_SIZE, *sb = sb_all + e * SB_SIZE;                          \
  __global const long *dof = dofs + dofs_off + (size_t)cell * NP;                                 \
  __global const real *G = qd + qd_off + (size_t)cell * NQ3 * NQD;                              \
  barrier(CLK_LOCAL_MEM_FENCE)

/* 1. along the third direction, in registers: work-item (a, b); 2. along the second:
 * work-item (a, jq) */
#define FORWARD_12(comp)                                                                          \
  if (live && tx < P && ty < P) {                                                                 \
    real r[P];                                                                                  \
    for (int c = 0; c < P; c++) r[c] = X_AT(NODE(tx, ty, c), comp);                            \
    for (int k = 0; k < Q; k++) {                                                                 \
      real sB = 0, sD = 0;                                                                      \
      for (int c = 0; c < P; c++) {                                                               \
        sB += Bl[k * TS + c] * r[c];                                                               \
        sD += Dl[k * TS + c] * r[c];                                                               \
      }                                                                                           \
      F1(0, tx, ty, k) = sB;                                                                      \
      if (KIND) F1(1, tx, ty, k) = sD;                                                            \
    }                                                                                             \
  }                                                                                               \
  barrier(CLK_LOCAL_MEM_FENCE);                                                                   \
  if (live && tx < P && ty < Q) {                                                                 \
    for (int k = 0; k < Q; k++) {                                                                 \
      real vBB = 0, vDB = 0, vBD = 0;                                                           \
      for (int b = 0; b < P; b++) {                                                               \
        const real uB = F1(0, tx, b, k);                                                        \
        vBB += Bl[ty * TS + b] * uB;                                                               \
        if (KIND) {                                                                               \
          vDB += Dl[ty * TS + b] * uB;                                                             \
          vBD += Bl[ty * TS + b] * F1(1, tx, b, k);                                                \
        }                                                                                         \
      }                                                                                           \
      F2(0, tx, ty, k) = vBB;                                                                     \
      if (KIND) {                                                                                 \
        F2(1, tx, ty, k) = vDB;                                                                   \
        F2(2, tx, ty, k) = vBD;                                                                   \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  barrier(CLK_LOCAL_MEM_FENCE)

/* 4. back along the second: work-item (iq, b), the Laplacian's terms 1 and 2 together; 5. back
 * along the first, to the nodes: work-item (a, b) writes its line */
#define BACK_45(comp)                                                                             \
  if (point)                                                                                      \
    for (int c = 0; c < P; c++) {                                                                 \
      B2(0, tx, ty, c) = a0[c];                                                                   \
      if (KIND) {                                                                                 \
        B2(1, tx, ty, c) = a1[c];                                                                 \
        B2(2, tx, ty, c) = a2[c];                                                                 \
      }                                                                                           \
    }                                                                                             \
  barrier(CLK_LOCAL_MEM_FENCE);                                                                   \
  if (live && tx < Q && ty < P) {                                                                 \
    for (int c = 0; c < P; c++) {                                                                 \
      real c0 = 0, c12 = 0;                                                                     \
      for (int j = 0; j < Q; j++) {                                                               \
        c0 += Bl[j * TS + ty] * B2(0, tx, j, c);                                                   \
        if (KIND) c12 += Dl[j * TS + ty] * B2(1, tx, j, c) + Bl[j * TS + ty] * B2(2, tx, j, c);     \
      }                                                                                           \
      B1(0, tx, ty, c) = c0;                                                                      \
      if (KIND) B1(1, tx, ty, c) = c12;                                                           \
    }                                                                                             \
  }                                                                                               \
  barrier(CLK_LOCAL_MEM_FENCE);                                                                   \
  if (live && tx < P && ty < P) {                                                                 \
    __global real *out = ev + ev_off + ((size_t)cell * NC + (comp)) * NP;                       \
    for (int c = 0; c < P; c++) {                                                                 \
      real s = 0;                                                                               \
      for (int i = 0; i < Q; i++) {                                                               \
        if (KIND) s += Dl[i * TS + tx] * B1(0, i, ty, c) + Bl[i * TS + tx] * B1(1, i, ty, c);       \
        else s += Bl[i * TS + tx] * B1(0, i, ty, c);                                               \
      }                                                                                           \
      out[NODE(tx, ty, c)] = s;                                                                   \
    }                                                                                             \
  }                                                                                               \
  barrier(CLK_LOCAL_MEM_FENCE)

/* 3. along the first direction, to the points: work-item (iq, jq) gets the value (mass) or the
 * three reference derivatives (g0, g1, g2) at point k of its line */
#define TO_POINT(k)                                                                               \
  real g0 = 0, g1 = 0, g2 = 0;                                                                  \
  for (int a = 0; a < P; a++) {                                                                   \
    if (KIND) {                                                                                   \
      g0 += Dl[tx * TS + a] * F2(0, a, ty, k);                                                     \
      g1 += Bl[tx * TS + a] * F2(1, a, ty, k);                                                     \
      g2 += Bl[tx * TS + a] * F2(2, a, ty, k);                                                     \
    } else {                                                                                      \
      g0 += Bl[tx * TS + a] * F2(0, a, ty, k);                                                     \
    }                                                                                             \
  }

__kernel __attribute__((reqd_work_group_size(MAX(P, Q), MAX(P, Q), NE))) void
hex_apply(int ncell, __global const XT *x, __global const long *dofs, long dofs_off,
          __global const real *qd, long qd_off, __global const real *tab,
          __global real *ev, long ev_off)
{
  KERNEL_BEGIN;
#if KIND == 3
  /* ---- elasticity: forward, component after component, the reference derivatives of each
   * component on work-item (iq, jq)'s line of points stay in registers (gr); the stress turns
   * them into fluxes there; back, component after component ---- */
  real gr[9][Q];
  for (int comp = 0; comp < 3; comp++) {
    FORWARD_12(comp);
    /* (the next component's stage 1 writes sa only, which stage 3 does not read) */
    if (point)
      for (int k = 0; k < Q; k++) {
        TO_POINT(k);
        gr[3 * comp][k] = g0;
        gr[3 * comp + 1][k] = g1;
        gr[3 * comp + 2][k] = g2;
      }
  }
  /* H = du/dx, sigma = lambda tr H I + mu (H + H^T), the fluxes w det J sigma K^T */
  if (point)
    for (int k = 0; k < Q; k++) {
      real h[11];
#if GEO
      GEO_POINT(gc, k, ty, tx, h, 3);
#else
      for (int m = 0; m < 11; m++) h[m] = G[QPOINT(tx, ty, k, Q) * 11 + m];
#endif
      PERMUTE(h, 3);
      real H[9];
      for (int c = 0; c < 3; c++)
        for (int y = 0; y < 3; y++)
          H[3 * c + y] = gr[3 * c][k] * h[y] + gr[3 * c + 1][k] * h[3 + y] + gr[3 * c + 2][k] * h[6 + y];
      const real lt = h[9] * (H[0] + H[4] + H[8]);
      for (int c = 0; c < 3; c++) {
        real S[3];
        for (int y = 0; y < 3; y++) S[y] = h[10] * (H[3 * c + y] + H[3 * y + c]) + (c == y ? lt : 0);
        for (int d = 0; d < 3; d++) gr[3 * c + d][k] = S[0] * h[3 * d] + S[1] * h[3 * d + 1] + S[2] * h[3 * d + 2];
      }
    }
  for (int comp = 0; comp < 3; comp++) {
    real a0[P], a1[P], a2[P];
    for (int c = 0; c < P; c++) a0[c] = a1[c] = a2[c] = 0;
    if (point)
      for (int k = 0; k < Q; k++)
        for (int c = 0; c < P; c++) {
          a0[c] += Bl[k * TS + c] * gr[3 * comp][k];
          a1[c] += Bl[k * TS + c] * gr[3 * comp + 1][k];
          a2[c] += Dl[k * TS + c] * gr[3 * comp + 2][k];
        }
    barrier(CLK_LOCAL_MEM_FENCE); /* the forward stage 3 or the last BACK_45 read sb */
    BACK_45(comp);
  }
#else
  for (int comp = 0; comp < NC; comp++) {
    FORWARD_12(comp);
    /* 3. to the points, the quadrature data there, and back along the third direction in
     * registers */
    real a0[P], a1[P], a2[P];
    for (int c = 0; c < P; c++) a0[c] = a1[c] = a2[c] = 0;
    if (point) {
      for (int k = 0; k < Q; k++) {
        TO_POINT(k);
        real h[6];
#if GEO
        GEO_POINT(gc, k, ty, tx, h, KIND);
#else
        for (int m = 0; m < NQD; m++) h[m] = G[QPOINT(tx, ty, k, Q) * NQD + m];
#endif
        PERMUTE(h, KIND);
        if (KIND) {
          const real w0 = h[0] * g0 + h[1] * g1 + h[2] * g2;
          const real w1 = h[1] * g0 + h[3] * g1 + h[4] * g2;
          const real w2 = h[2] * g0 + h[4] * g1 + h[5] * g2;
          for (int c = 0; c < P; c++) {
            a0[c] += Bl[k * TS + c] * w0;
            a1[c] += Bl[k * TS + c] * w1;
            a2[c] += Dl[k * TS + c] * w2;
          }
        } else {
          const real w0 = h[0] * g0;
          for (int c = 0; c < P; c++) a0[c] += Bl[k * TS + c] * w0;
        }
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    BACK_45(comp);
  }
#endif
}
#endif

/* The quadrature data of ncell cells made where they are used (with the apply kernel, GEO 0):
 * work-item g makes point g % NQ3 of cell g / NQ3, in double, from the cell's geometry and the
 * rule (the points xq[Q], then the weights w[Q]); stored in the reference order the apply kernel
 * reads (the host's hex_qdata). A trilinear cell's geometry is geo[cell][NGEO] (host/hex_apply.c,
 * hex_geo); a curved one's (curved = 1) geo[cell][NCURVED]: the map at the 27 nodes
 * {-1, 0, 1}^3 (X[(a 3 + b) 3 + c][3], a along xi), the triquadratic interpolant that reproduces
 * the 20-node map exactly (hex_geo_curved), then the form's two coefficients. A point where
 * det J is not positive writes its cell + 1 into bad[0]. */
#define QD_FORM (KIND == 2 ? 1 : KIND)
#define QD_VALUES (KIND == 0 ? 1 : KIND == 3 ? 11 : 6)
#define NCURVED 83
__kernel void hex_qdata(int ncell, int curved, __global const double *rule, long rule_off,
                        __global const double *geo, long geo_off, __global real *qd, long qd_off,
                        __global int *bad, long bad_off)
{
  const size_t g = get_global_id(0);
  if (g >= (size_t)ncell * (Q * Q * Q)) return;
  const int cell = (int)(g / (Q * Q * Q)), q = (int)(g % (Q * Q * Q));
  const int pt[3] = {q / (Q * Q), q / Q % Q, q % Q};
  rule += rule_off;
  const double xi[3] = {rule[pt[0]], rule[pt[1]], rule[pt[2]]};
  const double wq = rule[Q + pt[0]] * rule[Q + pt[1]] * rule[Q + pt[2]];
  __global const double *gc = geo + geo_off + (size_t)cell * (curved ? NCURVED : NGEO);
  double J_[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  if (curved) {
    /* the 1D quadratic Lagrange functions at -1, 0, 1 and their derivatives, per direction */
    double l[3][3], dl[3][3];
    for (int d = 0; d < 3; d++) {
      const double s = xi[d];
      l[d][0] = 0.5 * s * (s - 1), l[d][1] = 1 - s * s, l[d][2] = 0.5 * s * (s + 1);
      dl[d][0] = s - 0.5, dl[d][1] = -2 * s, dl[d][2] = s + 0.5;
    }
    for (int n = 0; n < 27; n++) {
      const int a = n / 9, b = n / 3 % 3, c = n % 3;
      const double d0 = dl[0][a] * l[1][b] * l[2][c], d1 = l[0][a] * dl[1][b] * l[2][c];
      const double d2 = l[0][a] * l[1][b] * dl[2][c];
      for (int x = 0; x < 3; x++) {
        const double X = gc[3 * n + x];
        J_[3 * x] += X * d0, J_[3 * x + 1] += X * d1, J_[3 * x + 2] += X * d2;
      }
    }
  } else {
    GEO_JACOBIAN(gc, xi[0], xi[1], xi[2], J_);
  }
  __global const double *coef = gc + (curved ? 81 : 24);
  double h[11], det;
  QDATA_FROM_J(J_, coef[0] * wq, coef[1] * wq, h, QD_FORM, double, det);
  for (int m = 0; m < QD_VALUES; m++) qd[qd_off + g * QD_VALUES + m] = (real)h[m];
  if (!(det > 0)) bad[bad_off] = cell + 1;
}
