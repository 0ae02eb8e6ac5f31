/* The CPU's residual of a run of cells, compiled with the caller's pointwise source in front of it
 * (scheduler/pointwise_cc.c) so that the compiler knows the sizes (FEMINT_DIM, FEMINT_NC,
 * FEMINT_NA, whether f0 and f1 are there: FEMINT_HAS_F0, FEMINT_HAS_F1, and the cells of a block,
 * FEMINT_LANES) and inlines f0 and f1:
 * what host/pointwise.c's pw_cell_residual computes. The codelet (codelets/residual.c) gives each
 * thread of its team a range of cells; -1 when there is no memory for the scratch, else 0.
 * ev[cell][nc][nsh] (floats when single) from u at dofs[cell][nsh], the geometry geo[cell][nq][1 +
 * dim^2 + dim] (w |det J|, K, x; floats when single) or, affine, geo[cell][1 + dim^2] (|det J|,
 * K) and geox[cell][dim^2 + dim] (J, x at xi = 0) with the rule's points xq[nq][dim] and
 * weights wq[nq], the cells in blocks of `lanes` (host/pointwise.h's pw_geo_at: 1, or
 * FEMINT_LANES, when a block's values are read where they are kept),
 * phi[nq][dim + 1][nsh], and the auxiliary values: a field aux at adofs[cell][nsh] (aux_kind 1)
 * or aux[cell][na] (2).
 *
 * Cells go FEMINT_LANES at a time, every value of a block a vector of one value per cell, so that
 * the points' arithmetic and the caller's functions run in SIMD lanes across cells (the last
 * block's spare lanes repeat its last cell and are not written). The usual element sizes (up to 20
 * functions: triangles and tetrahedra of order 1..3) are compiled with their size known. */
#define FEMINT_NG (1 + FEMINT_DIM * FEMINT_DIM + FEMINT_DIM)
#define FEMINT_NGA (1 + 2 * FEMINT_DIM * FEMINT_DIM + FEMINT_DIM)
#define FEMINT_NGK (1 + FEMINT_DIM * FEMINT_DIM)
#define FEMINT_NAS (FEMINT_NA > 0 ? FEMINT_NA : 1)
#include <stdlib.h>

#define FEMINT_L FEMINT_LANES
/* Index of value v of lane z in a block's arrays: lanes innermost. */
#define FEMINT_AT(v, z) ((v) * FEMINT_L + (z))

/* The values of a field x of nx components at the functions of cells c0 .. c0 + nl - 1 (the spare
 * lanes repeating the last cell), from their DOFs d[cell][NSH] (-1: 0), into v[NSH][nv][lane]
 * (nv >= nx). */
static inline __attribute__((always_inline)) void
femint_gather(const int NSH, int nl, long long c0, const long long *d, const double *x, int nx,
              int nv, double *restrict v)
{
  for (int z = 0; z < FEMINT_L; z++) {
    const long long *dk = d + (c0 + (z < nl ? z : nl - 1)) * NSH;
    for (int i = 0; i < NSH; i++) {
      const long long g = dk[i];
      for (int c = 0; c < nx; c++) v[FEMINT_AT(i * nv + c, z)] = g >= 0 ? x[g * nx + c] : 0;
    }
  }
}

/* Cells c0 .. c0 + nl - 1 (nl <= FEMINT_LANES) of NSH functions each; s: scratch for ue[NSH *
 * NC], ae[NSH * NAS], r[NC * NSH] and the geometry (every point's, [nq][NG], or an affine cell's
 * [NGA]), each value FEMINT_LANES wide. */
static inline __attribute__((always_inline)) void
femint_block(const int NSH, int nl, long long c0, int nq, const double *phi,
             const double *xq, const double *wq, int affine, const double *u,
             const long long *dofs, const void *geo, const void *geox, int lanes, int single,
             const double *aux, const long long *adofs, int aux_kind, const double *k, void *ev,
             double *s)
{
  double *restrict ue = s, *restrict ae = ue + NSH * FEMINT_NC * FEMINT_L;
  double *restrict r = ae + NSH * FEMINT_NAS * FEMINT_L;
  double ac[FEMINT_NAS * FEMINT_L];
  /* u and a at the cells' functions, one kind of auxiliary values a loop */
  femint_gather(NSH, nl, c0, dofs, u, FEMINT_NC, FEMINT_NC, ue);
  for (int i = 0; i < FEMINT_NAS * FEMINT_L; i++) ac[i] = 0;
  if (aux_kind == 1)
    femint_gather(NSH, nl, c0, adofs, aux, FEMINT_NA, FEMINT_NAS, ae);
  else if (FEMINT_NA > 0)
    for (int i = 0; i < NSH * FEMINT_NAS * FEMINT_L; i++) ae[i] = 0;
  if (aux_kind == 2)
    for (int z = 0; z < FEMINT_L; z++)
      for (int c = 0; c < FEMINT_NAS; c++)
        ac[FEMINT_AT(c, z)] = aux[(c0 + (z < nl ? z : nl - 1)) * FEMINT_NAS + c];
  /* the block's geometry, gb[value][lane]: every point's of curved cells; an affine cell's once
   * (|det J| and K at gb, J and x0 at gxb), w and x made at each point below. Kept in blocks of
   * lanes, it is read where it is (double) or converted in one sweep (single); else gathered
   * into gs a cell at a time. */
  double *restrict gs = r + FEMINT_NC * NSH * FEMINT_L;
  const double *gb = gs, *gxb = gs + FEMINT_NGK * FEMINT_L;
  const int nv = affine ? FEMINT_NGK : nq * FEMINT_NG, nx = affine ? FEMINT_NGA - FEMINT_NGK : 0;
  if (lanes == FEMINT_L) {
    const long long at = c0 * nv, atx = c0 * nx;
    if (!single) {
      gb = (const double *)geo + at;
      gxb = affine ? (const double *)geox + atx : gb;
    } else {
      for (int i = 0; i < nv * FEMINT_L; i++) gs[i] = ((const float *)geo)[at + i];
      for (int i = 0; i < nx * FEMINT_L; i++) gs[nv * FEMINT_L + i] = ((const float *)geox)[atx + i];
    }
  } else if (!affine) {
    for (int z = 0; z < FEMINT_L; z++) {
      const long long at = (c0 + (z < nl ? z : nl - 1)) * nq * FEMINT_NG;
      for (int i = 0; i < nq * FEMINT_NG; i++)
        gs[FEMINT_AT(i, z)] = single ? ((const float *)geo)[at + i] : ((const double *)geo)[at + i];
    }
  } else {
    for (int z = 0; z < FEMINT_L; z++) {
      const long long cell = c0 + (z < nl ? z : nl - 1);
      const long long at = cell * FEMINT_NGK, atx = cell * (FEMINT_NGA - FEMINT_NGK);
      for (int i = 0; i < FEMINT_NGK; i++)
        gs[FEMINT_AT(i, z)] = single ? ((const float *)geo)[at + i] : ((const double *)geo)[at + i];
      for (int i = FEMINT_NGK; i < FEMINT_NGA; i++)
        gs[FEMINT_AT(i, z)] = single ? ((const float *)geox)[atx + i - FEMINT_NGK]
                                     : ((const double *)geox)[atx + i - FEMINT_NGK];
    }
  }
  for (int i = 0; i < FEMINT_NC * NSH * FEMINT_L; i++) r[i] = 0;
  /* Linear simplices (dim + 1 functions): the functions' reference gradients are the same at
   * every point, so are those of u and a (made once, gr), and the test against them takes the
   * sum over the points of the weighted f1 (Gs) */
  const int cgrad = NSH == FEMINT_DIM + 1;
  double gr[(FEMINT_NC + FEMINT_NAS) * FEMINT_DIM * FEMINT_L], Gs[FEMINT_NC * FEMINT_DIM * FEMINT_L];
  if (cgrad) {
    for (int i = 0; i < FEMINT_NC * FEMINT_DIM * FEMINT_L; i++) Gs[i] = 0;
    for (int c = 0; c < FEMINT_NC + FEMINT_NA; c++)
      for (int j = 0; j < FEMINT_DIM; j++)
#pragma omp simd
        for (int z = 0; z < FEMINT_L; z++) {
          double g = 0;
          for (int i = 0; i < NSH; i++)
            g += phi[(j + 1) * NSH + i] * (c < FEMINT_NC ? ue[FEMINT_AT(i * FEMINT_NC + c, z)]
                                                         : ae[FEMINT_AT(i * FEMINT_NAS + c - FEMINT_NC, z)]);
          gr[FEMINT_AT(c * FEMINT_DIM + j, z)] = g;
        }
  }
  for (int q = 0; q < nq; q++) {
    const double *p = phi + (long long)q * (FEMINT_DIM + 1) * NSH;
    /* w |det J| at gw[0], K at gw[1..], x at gx[0..] (affine: J at gx[0..] and x0 after) */
    const double *gw = affine ? gb : gb + (long long)q * FEMINT_NG * FEMINT_L;
    const double *gx = affine ? gxb : gw + FEMINT_NGK * FEMINT_L;
    const double wq_q = affine ? wq[q] : 1;
    double w0[FEMINT_NC * FEMINT_L], G[FEMINT_NC * FEMINT_DIM * FEMINT_L];
    /* the points of the block's cells, one lane a cell: once the loops inside are unrolled and
     * the small arrays made scalars, the loop over the lanes vectorizes (an omp simd pragma would
     * make the arrays per-lane memory instead) */
    for (int z = 0; z < FEMINT_L; z++) {
      double K[FEMINT_DIM * FEMINT_DIM], x[FEMINT_DIM];
#pragma GCC unroll 16
      for (int i = 0; i < FEMINT_DIM * FEMINT_DIM; i++) K[i] = gw[FEMINT_AT(1 + i, z)];
#pragma GCC unroll 16
      for (int a = 0; a < FEMINT_DIM; a++) {
        double xa = gx[FEMINT_AT(affine ? FEMINT_DIM * FEMINT_DIM + a : a, z)];
        /* an affine cell's x = x0 + J xi; a curved cell's J is not there (its gx holds x alone:
         * reading past it would read the next point's values, or past the last block's) */
        if (affine)
#pragma GCC unroll 16
          for (int b = 0; b < FEMINT_DIM; b++)
            xa += gx[FEMINT_AT(FEMINT_DIM * a + b, z)] * xq[FEMINT_DIM * q + b];
        x[a] = xa;
      }
      /* u, a field a, their reference gradients, then the physical ones (per-cell a: no
       * gradient) */
      double v[FEMINT_NC + FEMINT_NAS], ref[(FEMINT_NC + FEMINT_NAS) * FEMINT_DIM];
#pragma GCC unroll 16
      for (int c = 0; c < FEMINT_NC + FEMINT_NAS; c++) {
        v[c] = 0;
#pragma GCC unroll 16
        for (int j = 0; j < FEMINT_DIM; j++)
          ref[c * FEMINT_DIM + j] = cgrad && c < FEMINT_NC + FEMINT_NA ? gr[FEMINT_AT(c * FEMINT_DIM + j, z)] : 0;
      }
#pragma GCC unroll 64
      for (int i = 0; i < NSH; i++) {
#pragma GCC unroll 16
        for (int c = 0; c < FEMINT_NC + FEMINT_NA; c++) {
          const double vi = c < FEMINT_NC ? ue[FEMINT_AT(i * FEMINT_NC + c, z)]
                                          : ae[FEMINT_AT(i * FEMINT_NAS + c - FEMINT_NC, z)];
          v[c] += p[i] * vi;
#pragma GCC unroll 16
          for (int j = 0; j < FEMINT_DIM && !cgrad; j++) ref[c * FEMINT_DIM + j] += p[(j + 1) * NSH + i] * vi;
        }
      }
      double uu[FEMINT_NC], du[FEMINT_NC * FEMINT_DIM], a[FEMINT_NAS], da[FEMINT_NAS * FEMINT_DIM];
#pragma GCC unroll 16
      for (int c = 0; c < FEMINT_NC; c++) {
        uu[c] = v[c];
#pragma GCC unroll 16
        for (int d = 0; d < FEMINT_DIM; d++) {
          double gd = 0;
#pragma GCC unroll 16
          for (int j = 0; j < FEMINT_DIM; j++) gd += K[FEMINT_DIM * j + d] * ref[c * FEMINT_DIM + j];
          du[c * FEMINT_DIM + d] = gd;
        }
      }
#pragma GCC unroll 16
      for (int c = 0; c < FEMINT_NAS; c++) {
        a[c] = aux_kind == 1 ? v[FEMINT_NC + c] : ac[FEMINT_AT(c, z)];
#pragma GCC unroll 16
        for (int d = 0; d < FEMINT_DIM; d++) {
          double gd = 0;
#pragma GCC unroll 16
          for (int j = 0; j < FEMINT_DIM; j++)
            gd += K[FEMINT_DIM * j + d] * ref[(FEMINT_NC + c) * FEMINT_DIM + j];
          da[c * FEMINT_DIM + d] = aux_kind == 1 ? gd : 0;
        }
      }
      double f0v[FEMINT_NC], f1v[FEMINT_NC * FEMINT_DIM];
#pragma GCC unroll 16
      for (int c = 0; c < FEMINT_NC; c++) f0v[c] = 0;
#pragma GCC unroll 16
      for (int c = 0; c < FEMINT_NC * FEMINT_DIM; c++) f1v[c] = 0;
#if FEMINT_HAS_F0
      f0(FEMINT_DIM, uu, du, a, da, x, k, f0v);
#endif
#if FEMINT_HAS_F1
      f1(FEMINT_DIM, uu, du, a, da, x, k, f1v);
#endif
      /* weighted: the test against phi_i and against grad phi_i = K^T (ref. gradient) */
      const double w = wq_q * gw[FEMINT_AT(0, z)];
#pragma GCC unroll 16
      for (int c = 0; c < FEMINT_NC; c++) {
        w0[FEMINT_AT(c, z)] = w * f0v[c];
#pragma GCC unroll 16
        for (int j = 0; j < FEMINT_DIM; j++) {
          double sj = 0;
#pragma GCC unroll 16
          for (int d = 0; d < FEMINT_DIM; d++) sj += K[FEMINT_DIM * j + d] * f1v[c * FEMINT_DIM + d];
          G[FEMINT_AT(c * FEMINT_DIM + j, z)] = w * sj;
        }
      }
    }
    for (int c = 0; c < FEMINT_NC; c++)
      for (int i = 0; i < NSH; i++) {
#pragma omp simd
        for (int z = 0; z < FEMINT_L; z++) {
          double sz = p[i] * w0[FEMINT_AT(c, z)];
          for (int j = 0; j < FEMINT_DIM && !cgrad; j++)
            sz += p[(j + 1) * NSH + i] * G[FEMINT_AT(c * FEMINT_DIM + j, z)];
          r[FEMINT_AT(c * NSH + i, z)] += sz;
        }
      }
    if (cgrad)
      for (int i = 0; i < FEMINT_NC * FEMINT_DIM * FEMINT_L; i++) Gs[i] += G[i];
  }
  if (cgrad)
    for (int c = 0; c < FEMINT_NC; c++)
      for (int i = 0; i < NSH; i++) {
#pragma omp simd
        for (int z = 0; z < FEMINT_L; z++) {
          double sz = 0;
          for (int j = 0; j < FEMINT_DIM; j++)
            sz += phi[(j + 1) * NSH + i] * Gs[FEMINT_AT(c * FEMINT_DIM + j, z)];
          r[FEMINT_AT(c * NSH + i, z)] += sz;
        }
      }
  for (int z = 0; z < nl; z++) {
    const long long out = (c0 + z) * FEMINT_NC * NSH;
    for (int i = 0; i < FEMINT_NC * NSH; i++) {
      if (single) ((float *)ev)[out + i] = (float)r[FEMINT_AT(i, z)];
      else ((double *)ev)[out + i] = r[FEMINT_AT(i, z)];
    }
  }
}

/* Every cell of the run in blocks of FEMINT_LANES, NSH functions. */
#define FEMINT_RUN(NSH)                                                                            \
  for (long long c0 = 0; c0 < ncell; c0 += FEMINT_L)                                               \
  femint_block((NSH), ncell - c0 < FEMINT_L ? (int)(ncell - c0) : FEMINT_L, c0, nq, phi, xq, wq,  \
               affine, u, dofs, geo, geox, lanes, single, aux, adofs, aux_kind, k, ev, s)

int femint_residual_cells(int ncell, int nsh, int nq, const double *phi, const double *xq,
                          const double *wq, int affine, const double *u, const long long *dofs,
                          const void *geo, const void *geox, int lanes, int single,
                          const double *aux, const long long *adofs, int aux_kind,
                          const double *k, void *ev)
{
  /* scratch: the element's values, and the geometry of a block (every point's, or an affine
   * cell's) where it is gathered or converted */
  double *s = calloc(((size_t)nsh * (2 * FEMINT_NC + FEMINT_NAS) + (size_t)nq * FEMINT_NG +
                      FEMINT_NGA) * FEMINT_L, sizeof *s);
  if (!s) return -1;
  switch (nsh) { /* the usual sizes compiled with their size known */
  case 3: FEMINT_RUN(3); break;
  case 4: FEMINT_RUN(4); break;
  case 6: FEMINT_RUN(6); break;
  case 8: FEMINT_RUN(8); break;
  case 10: FEMINT_RUN(10); break;
  case 20: FEMINT_RUN(20); break;
  default: FEMINT_RUN(nsh); break;
  }
  free(s);
  return 0;
}
