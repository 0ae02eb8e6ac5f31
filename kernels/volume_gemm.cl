/* Element matrices of volume integrals as small dense products (GEMM variant). With W_q = w_q det J
 * and Psi_d[q][i] the physical derivative d (0 value, 1..DIM x, y(, z)) of shape function i, the
 * kernel forms S_de(i, j) = sum_q W_q Psi_d[q][i] Psi_e[q][j] for the pairs (d, e) the form needs
 * and combines them only at the end; for elasticity K[(i,a),(j,b)] = lambda S_ab + mu S_ba
 * + mu delta_ab (S_11 + ... + S_DD), for the generic form sum_de c[a][b][d][e] S_de. DIM is 3
 * for prisms and 2 for quadrilaterals.
 *
 * The (i, j) plane is cut into tiles of TILE x TILE pairs and the tiles into blocks of BLK x BLK
 * tiles. A work-group holds ELEMS element slots of WPE work-items; each work-item accumulates the
 * S values of one tile in registers. The work-group computes one block (its part) of the matrices
 * of elems_per_group elements, ELEMS at a time: for each chunk of QC quadrature points it first
 * computes sqrt(W_q) Psi_d[q][i] for the block's rows and columns into local memory, then every
 * work-item updates its tile from there. Symmetric forms compute the upper half only (HALF).
 * With STAGE > 0 (one part) the work-group gathers the matrices of STAGE elements at a time in
 * local memory, mirrored half included, and writes them out in consecutive words. */
#ifndef FEMINT_COMMON_CLH
#include "common.clh"
#endif

#if !defined(NSH) || !defined(NQ) || !defined(NE) || !defined(NCOEF) || !defined(FORM_KIND) || \
    !defined(WG_SIZE) || !defined(TILE) || !defined(BLK) || !defined(ELEMS) || !defined(WPE) ||  \
    !defined(QC) || !defined(NPARTS) || !defined(HALF)
#error "femint_volume_gemm needs -DNSH -DNQ -DNE -DNCOEF -DFORM_KIND -DWG_SIZE -DTILE -DBLK -DELEMS -DWPE -DQC -DNPARTS -DHALF"
#endif
#if FORM_KIND == FORM_ELASTICITY && (NE != DIM || NCOEF != 2)
#error "the elasticity form has NE = DIM and NCOEF = 2 (lambda, mu)"
#endif
#if (FORM_KIND == FORM_LAPLACE || FORM_KIND == FORM_MASS) && NCOEF != 1
#error "the Laplace and mass forms have NCOEF = 1"
#endif
#if FORM_KIND == FORM_GENERIC && (NCOEF != NE * NE * (DIM + 1) * (DIM + 1) || HALF)
#error "the generic form has NCOEF = NE * NE * (DIM + 1)^2 and no symmetry"
#endif
#if SYMMETRIC && !HALF
#error "symmetric storage needs HALF"
#endif

/* GEO_NODES > 0: the kernel maps each cell from its geometric nodes at the points itself (geo =
 * X[ncell][GEO_NODES][DIM], relative to the first node; quad = the table of src/host's
 * geom_table_fill); 0: it reads the Jacobian terms that the host computed. */
#ifndef GEO_NODES
#define GEO_NODES 0
#endif

/* Tiles per side, blocks per side, and the shape of a part. */
#define NTR ((NSH + TILE - 1) / TILE)
#define NB ((NTR + BLK - 1) / BLK)
#if HALF
#if NPARTS != NB * (NB + 1) / 2
#error "NPARTS must be NB(NB+1)/2 with HALF"
#endif
#else
#if NPARTS != NB * NB
#error "NPARTS must be NB * NB"
#endif
#endif
#if NB == 1 && BLK != NTR
#error "a single block is NTR tiles wide"
#endif
/* One block with HALF: its upper triangle of tiles is shared out; else BLK x BLK work-items. */
#if NB == 1 && HALF
#define TRIANGLE 1
#if WPE != NTR * (NTR + 1) / 2
#error "WPE must be NTR(NTR+1)/2"
#endif
#else
#define TRIANGLE 0
#if WPE != BLK * BLK
#error "WPE must be BLK * BLK"
#endif
#endif
#if WG_SIZE != ELEMS * WPE
#error "WG_SIZE must be ELEMS * WPE"
#endif
#if NQ % QC != 0
#error "QC must divide NQ"
#endif
#ifndef STAGE
#define STAGE 0
#endif
#if STAGE && (NPARTS != 1 || STAGE > ELEMS)
#error "STAGE needs one part and at most ELEMS elements"
#endif

/* Derivatives used (ND of them from D0) and S values per (i, j). */
#if FORM_KIND == FORM_MASS
#define ND 1
#define D0 0
#elif FORM_KIND == FORM_GENERIC
#define ND (DIM + 1)
#define D0 0
#else
#define ND DIM
#define D0 1
#endif
#if FORM_KIND == FORM_ELASTICITY || FORM_KIND == FORM_GENERIC
#define NPAIR (ND * ND)
#else
#define NPAIR 1 /* Laplace: the trace S_11 + ... + S_DD; mass: S_00 */
#endif

/* Rows (or columns) of a block, stored [t][x] for row x * TILE + t of the block, so that the
 * work-items of neighbouring tiles read neighbouring words. */
#define RW (BLK * TILE)
#define PSI(s, qq, d, t, x) (((((s) * QC + (qq)) * ND + (d)) * TILE + (t)) * BLK + (x))
#define PSI_SIZE (ELEMS * QC * ND * RW)

/* ncell cells; work-group g computes part g % NPARTS of cells (g / NPARTS) * elems_per_group ..
 * + elems_per_group - 1. geo = jac[ncell][NQ][JAC_NTERMS] or the nodes (GEO_NODES);
 * coef[ncell][NCOEF]; phi[NQ][DIM + 1][NSH]; quad: the geometry table (GEO_NODES), else not read;
 * out[ncell][OUT_SIZE] from out_off (REALs). */
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void
femint_volume_gemm(int ncell, int elems_per_group, __global const REAL *restrict geo,
                   __global const REAL *restrict coef, __global const REAL *restrict phi,
                   __global const REAL *restrict quad, __global REAL *restrict out,
                   long out_off)
{
  __local REAL psi_r[PSI_SIZE];
  __local REAL psi_c[PSI_SIZE];
  __local REAL jac_l[ELEMS * QC * JAC_NTERMS];
  __local REAL coef_l[ELEMS * NCOEF];
#if STAGE
  __local REAL stage[STAGE * OUT_SIZE];
#endif
  out += out_off; /* the batch's part of a vector of several batches */

  const int lid = (int)get_local_id(0);
  const int part = (int)get_group_id(0) % NPARTS;
  const int first = (int)(get_group_id(0) / NPARTS) * elems_per_group;
  int br, bc;
#if HALF
  femint_upper_pair(part, NB, &br, &bc);
#else
  br = part / NB;
  bc = part - br * NB;
#endif
  const int diag = br == bc;
  /* The columns of a diagonal block are its rows. */
  __local const REAL *pc = diag ? psi_r : psi_c;

  const int slot = lid / WPE, lt = lid - slot * WPE;
  int lr, lc;
#if TRIANGLE
  femint_upper_pair(lt, NTR, &lr, &lc);
#else
  lr = lt / BLK;
  lc = lt - lr * BLK;
#endif
  const int row0 = br * RW, col0 = bc * RW;
  const int nitems = ELEMS * QC * RW * (diag ? 1 : 2);

  for (int e0 = 0; e0 < elems_per_group; e0 += ELEMS) {
    const int cell0 = first + e0;
    if (cell0 >= ncell) break; /* the same for the whole group */
    const int nvalid = min(min(ELEMS, elems_per_group - e0), ncell - cell0);

    /* The previous elements' write-out may still read coef_l. */
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = lid; k < ELEMS * NCOEF; k += WG_SIZE)
      coef_l[k] = k / NCOEF < nvalid ? coef[(size_t)cell0 * NCOEF + k] : (REAL)0;

    REAL acc[NPAIR][TILE][TILE];
#pragma unroll
    for (int p = 0; p < NPAIR; p++)
#pragma unroll
      for (int ti = 0; ti < TILE; ti++)
#pragma unroll
        for (int tj = 0; tj < TILE; tj++) acc[p][ti][tj] = 0;

    for (int q0 = 0; q0 < NQ; q0 += QC) {
      /* sqrt(W_q) and sqrt(W_q) dxi_j/dx_i of the chunk; zero for empty slots. The previous
       * chunk's reads of jac_l all came before its second barrier. */
      for (int k = lid; k < ELEMS * QC; k += WG_SIZE) {
        const int s = k / QC, qq = k - s * QC;
        __local REAL *t = jac_l + k * JAC_NTERMS;
        if (s < nvalid) {
#if GEO_NODES
          /* J = sum_a X_a dN_a(xi_q); the table holds w_q, then dN_a/dxi_j at 1 + DIM*a + j */
          __global const REAL *X = geo + (size_t)(cell0 + s) * (GEO_NODES * DIM);
          __global const REAL *gt = quad + (size_t)(q0 + qq) * (1 + GEO_NODES * DIM);
          REAL J[DIM * DIM], K[DIM * DIM];
#pragma unroll
          for (int m = 0; m < DIM * DIM; m++) J[m] = 0;
          for (int a = 0; a < GEO_NODES; a++)
#pragma unroll
            for (int i = 0; i < DIM; i++) {
              const REAL x = X[DIM * a + i];
#pragma unroll
              for (int j = 0; j < DIM; j++) J[DIM * i + j] += x * gt[1 + DIM * a + j];
            }
          /* |det J|: simplices keep their vertices in global order, half of them reversed */
          const REAL sw = sqrt(fabs(femint_jac_inverse(J, K)) * gt[0]);
          t[0] = sw;
#pragma unroll
          for (int m = 0; m < DIM * DIM; m++) t[1 + m] = sw * K[m];
#else
          __global const REAL *g = geo + ((size_t)(cell0 + s) * NQ + q0 + qq) * JAC_NTERMS;
          const REAL sw = sqrt(g[JAC_DETW]);
          t[0] = sw;
          for (int m = 1; m < JAC_NTERMS; m++) t[m] = sw * g[m];
#endif
        } else {
          for (int m = 0; m < JAC_NTERMS; m++) t[m] = 0;
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);

      /* sqrt(W_q) Psi_d[q][i] of the block's rows (and columns off the diagonal). All reads of
       * the previous chunk's Psi came before the barrier above. */
      for (int k = lid; k < nitems; k += WG_SIZE) {
        const int cols = k >= ELEMS * QC * RW;
        const int kk = cols ? k - ELEMS * QC * RW : k;
        const int s = kk / (QC * RW), r = kk - s * (QC * RW);
        const int qq = r / RW, x = r - qq * RW;
        const int i = (cols ? col0 : row0) + x;
        __local const REAL *t = jac_l + (s * QC + qq) * JAC_NTERMS;
        __local REAL *dst = cols ? psi_c : psi_r;
        REAL v[ND];
        if (i < NSH) {
          __global const REAL *ph = phi + (size_t)(q0 + qq) * (DIM + 1) * NSH + i;
#if FORM_KIND == FORM_MASS || FORM_KIND == FORM_GENERIC
          v[0] = t[0] * ph[0];
#endif
#if FORM_KIND != FORM_MASS
          REAL r[DIM];
#pragma unroll
          for (int j = 0; j < DIM; j++) r[j] = ph[(j + 1) * NSH];
#pragma unroll
          for (int d = 0; d < DIM; d++) {
            REAL x = 0;
#pragma unroll
            for (int j = 0; j < DIM; j++) x += r[j] * t[JAC_K(j, d)];
            v[ND - DIM + d] = x;
          }
#endif
        } else {
#pragma unroll
          for (int d = 0; d < ND; d++) v[d] = 0;
        }
        const int tx = x % TILE, xx = x / TILE;
#pragma unroll
        for (int d = 0; d < ND; d++) dst[PSI(s, qq, d, tx, xx)] = v[d];
      }
      barrier(CLK_LOCAL_MEM_FENCE);

      /* The products: NPAIR * TILE^2 multiply-adds per point. */
      for (int qq = 0; qq < QC; qq++) {
        REAL a[ND][TILE], b[ND][TILE];
#pragma unroll
        for (int d = 0; d < ND; d++)
#pragma unroll
          for (int t = 0; t < TILE; t++) {
            a[d][t] = psi_r[PSI(slot, qq, d, t, lr)];
            b[d][t] = pc[PSI(slot, qq, d, t, lc)];
          }
#pragma unroll
        for (int ti = 0; ti < TILE; ti++)
#pragma unroll
          for (int tj = 0; tj < TILE; tj++) {
#if FORM_KIND == FORM_LAPLACE
#pragma unroll
            for (int d = 0; d < DIM; d++) acc[0][ti][tj] += a[d][ti] * b[d][tj];
#elif FORM_KIND == FORM_MASS
            acc[0][ti][tj] += a[0][ti] * b[0][tj];
#else
#pragma unroll
            for (int d = 0; d < ND; d++)
#pragma unroll
              for (int e = 0; e < ND; e++) acc[ND * d + e][ti][tj] += a[d][ti] * b[e][tj];
#endif
          }
      }
    }

    /* The element matrix entries of the tile: straight to global memory, or (STAGE) into local
     * memory, STAGE elements at a time, then out in consecutive words. */
#if STAGE
    for (int s0 = 0; s0 < nvalid; s0 += STAGE) {
      const int ns = min(STAGE, nvalid - s0);
      if (slot >= s0 && slot < s0 + ns) {
        __local REAL *A = stage + (slot - s0) * OUT_SIZE;
#else
    {
      {
        __global REAL *A = out + (size_t)(cell0 + slot) * OUT_SIZE;
#endif
#if HALF
        /* in a diagonal block, the tiles below the diagonal are left out */
        const int skip = slot >= nvalid || (diag && lr > lc);
#else
        const int skip = slot >= nvalid;
#endif
        __local const REAL *c = coef_l + slot * NCOEF;
#pragma unroll
        for (int ti = 0; ti < TILE; ti++)
#pragma unroll
          for (int tj = 0; tj < TILE; tj++) {
            const int i = row0 + lr * TILE + ti, j = col0 + lc * TILE + tj;
            if (skip || i >= NSH || j >= NSH) continue;
#if HALF
            if (i > j) continue;
#endif
            REAL K[NE][NE];
#if FORM_KIND == FORM_ELASTICITY
            const REAL lambda = c[0], mu = c[1];
            REAL tr = 0;
            for (int x = 0; x < DIM; x++) tr += acc[(DIM + 1) * x][ti][tj];
            tr *= mu;
            for (int x = 0; x < DIM; x++)
              for (int y = 0; y < DIM; y++)
                K[x][y] = lambda * acc[DIM * x + y][ti][tj] + mu * acc[DIM * y + x][ti][tj] +
                          (x == y ? tr : (REAL)0);
#elif FORM_KIND == FORM_GENERIC
            for (int x = 0; x < NE; x++)
              for (int y = 0; y < NE; y++) {
                REAL v = 0;
                for (int p = 0; p < NPAIR; p++) v += c[(NE * x + y) * NPAIR + p] * acc[p][ti][tj];
                K[x][y] = v;
              }
#else
            for (int x = 0; x < NE; x++)
              for (int y = 0; y < NE; y++) K[x][y] = x == y ? c[0] * acc[0][ti][tj] : (REAL)0;
#endif
            for (int x = 0; x < NE; x++)
              for (int y = 0; y < NE; y++) {
                if (SYMMETRIC && i == j && x > y) continue;
                A[OUT_INDEX(i * NE + x, j * NE + y)] = K[x][y];
#if HALF && !SYMMETRIC
                if (i != j) A[OUT_INDEX(j * NE + y, i * NE + x)] = K[x][y];
#endif
              }
          }
      }
#if STAGE
      barrier(CLK_LOCAL_MEM_FENCE);
      __global REAL *o = out + (size_t)(cell0 + s0) * OUT_SIZE;
      for (int k = lid; k < ns * (int)OUT_SIZE; k += WG_SIZE) o[k] = stage[k];
      barrier(CLK_LOCAL_MEM_FENCE);
#endif
    }
  }
}
