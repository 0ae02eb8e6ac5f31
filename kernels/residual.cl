/* The residual of a pointwise form (seed 002), with the caller's f0 and f1 put before this text
 * by the host (with REAL and the FEMINT_* sizes): a work-group takes batches of NB cells one
 * after the other; per batch, the cells' values of u (and of the auxiliary field) go to local
 * memory (each point's geometry is read where it is used); in the quadrature phase the
 * work-items run over the (cell, point) pairs, evaluate u, grad u, a, grad a there, call f0 and
 * f1, and keep w |det J| f0 and
 * w |det J| K f1 (f1 against the reference gradients) in local memory; after one barrier, in the
 * basis phase, they run over the (cell, component, function) triples and sum the points' values
 * against the tabulated functions: the thread transposition, with no reduction across work-items.
 * Compiled with -DDIM, -DNC, -DNA, -DAUX (0 none, 1 field, 2 per cell), -DNSH, -DNQ, -DNB (cells
 * per batch), -DWG (work-items), -DNCONST and FEMINT_K (the constants' initializer), -DHAS_F0
 * and -DHAS_F1 (whether the text defines them: a missing one is 0), -DAFFINE (1: the geometry is
 * kept once per cell, |det J|, K, J and x at xi = 0, with the rule FEMINT_XQW, xi and w of each
 * point, put before the text; 0: per point, w |det J|, K and x) and -DFEMINT_FP64. u and aux are
 * double (the vectors); the geometry, phi, ev and the arithmetic REAL (float in single
 * precision). */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define NG (1 + DIM * DIM + DIM)
#define NGA (1 + 2 * DIM * DIM + DIM)
#define NAS (NA > 0 ? NA : 1)
#define NKS (NCONST > 0 ? NCONST : 1)

/* The value of component c of a field of n components with the cell's values v[NSH][n] at a
 * point (phi p), and its physical gradient (K in the point's geometry g). */
static REAL field_at(__local const REAL *p, __local const REAL *v, int n, int c, const REAL *g,
                     REAL *grad)
{
  REAL s = 0, r[DIM];
  for (int j = 0; j < DIM; j++) r[j] = 0;
  for (int i = 0; i < NSH; i++) {
    const REAL vi = v[i * n + c];
    s += p[i] * vi;
    for (int j = 0; j < DIM; j++) r[j] += p[(j + 1) * NSH + i] * vi;
  }
  for (int d = 0; d < DIM; d++) {
    REAL gd = 0;
    for (int j = 0; j < DIM; j++) gd += g[1 + DIM * j + d] * r[j];
    grad[d] = gd;
  }
  return s;
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
residual(const int ncell, __global const double *u, const long u_off, __global const long *dofs,
         const long dofs_off, __global const REAL *geo, const long geo_off,
         __global const REAL *phi_g, const long phi_off, __global const double *aux,
         const long aux_off, __global const long *adofs, const long adofs_off,
         __global REAL *ev, const long ev_off)
{
  __local REAL phi[NQ * (DIM + 1) * NSH];
  __local REAL ue[NB * NSH * NC];
  __local REAL ae[NB * NSH * NAS];
  __local REAL f0l[NB * NQ * NC];
  __local REAL f1l[NB * NQ * NC * DIM];
  const int lid = get_local_id(0);
  const REAL kc[NKS] = FEMINT_K;
#if AFFINE
  const REAL xqw[NQ * (DIM + 1)] = FEMINT_XQW;
#endif
  for (int i = lid; i < NQ * (DIM + 1) * NSH; i += WG) phi[i] = phi_g[phi_off + i];
  for (int b0 = get_group_id(0) * NB; b0 < ncell; b0 += get_num_groups(0) * NB) {
    const int nb = ncell - b0 < NB ? ncell - b0 : NB;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int t = lid; t < nb * NSH * NC; t += WG) {
      const int e = t / (NSH * NC), i = t / NC % NSH, c = t % NC;
      const long g = dofs[dofs_off + (long)(b0 + e) * NSH + i];
      ue[t] = g >= 0 ? (REAL)u[u_off + g * NC + c] : 0;
    }
#if AUX == 1
    for (int t = lid; t < nb * NSH * NA; t += WG) {
      const int e = t / (NSH * NA), i = t / NA % NSH, c = t % NA;
      const long g = adofs[adofs_off + (long)(b0 + e) * NSH + i];
      ae[t] = g >= 0 ? (REAL)aux[aux_off + g * NA + c] : 0;
    }
#elif AUX == 2
    for (int t = lid; t < nb * NA; t += WG) ae[t] = (REAL)aux[aux_off + (long)b0 * NA + t];
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    /* the quadrature phase: a (cell, point) pair per work-item */
    for (int t = lid; t < nb * NQ; t += WG) {
      const int e = t / NQ, q = t % NQ;
      /* the point's geometry: straight from global memory (the batch's points are contiguous),
       * or made from the cell's */
      REAL g[NG];
#if AFFINE
      __global const REAL *ga = geo + geo_off + (long)(b0 + e) * NGA;
      g[0] = xqw[q * (DIM + 1) + DIM] * ga[0];
      for (int i = 0; i < DIM * DIM; i++) g[1 + i] = ga[1 + i];
      for (int a = 0; a < DIM; a++) {
        REAL x = ga[1 + 2 * DIM * DIM + a];
        for (int b = 0; b < DIM; b++) x += ga[1 + DIM * DIM + DIM * a + b] * xqw[q * (DIM + 1) + b];
        g[1 + DIM * DIM + a] = x;
      }
#else
      __global const REAL *gp = geo + geo_off + ((long)b0 * NQ + t) * NG;
      for (int i = 0; i < NG; i++) g[i] = gp[i];
#endif
      __local const REAL *p = phi + q * (DIM + 1) * NSH;
      REAL uu[NC], du[NC * DIM], a[NAS], da[NAS * DIM], x[DIM], k[NKS], f0v[NC], f1v[NC * DIM];
      for (int i = 0; i < NKS; i++) k[i] = kc[i];
      for (int d = 0; d < DIM; d++) x[d] = g[1 + DIM * DIM + d];
      for (int c = 0; c < NC; c++) uu[c] = field_at(p, ue + e * NSH * NC, NC, c, g, du + c * DIM);
      for (int c = 0; c < NAS; c++) {
        a[c] = 0;
        for (int d = 0; d < DIM; d++) da[c * DIM + d] = 0;
      }
#if AUX == 1
      for (int c = 0; c < NA; c++) a[c] = field_at(p, ae + e * NSH * NA, NA, c, g, da + c * DIM);
#elif AUX == 2
      for (int c = 0; c < NA; c++) a[c] = ae[e * NA + c];
#endif
      for (int c = 0; c < NC; c++) f0v[c] = 0;
      for (int c = 0; c < NC * DIM; c++) f1v[c] = 0;
#if HAS_F0
      f0(DIM, uu, du, a, da, x, k, f0v);
#endif
#if HAS_F1
      f1(DIM, uu, du, a, da, x, k, f1v);
#endif
      const REAL w = g[0];
      for (int c = 0; c < NC; c++) {
        f0l[t * NC + c] = w * f0v[c];
        for (int j = 0; j < DIM; j++) {
          REAL s = 0;
          for (int d = 0; d < DIM; d++) s += g[1 + DIM * j + d] * f1v[c * DIM + d];
          f1l[(t * NC + c) * DIM + j] = w * s;
        }
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* the basis phase: a (cell, component, function) triple per work-item */
    for (int t = lid; t < nb * NC * NSH; t += WG) {
      const int e = t / (NC * NSH), c = t / NSH % NC, i = t % NSH;
      REAL s = 0;
      for (int q = 0; q < NQ; q++) {
        __local const REAL *p = phi + q * (DIM + 1) * NSH;
        const int at = (e * NQ + q) * NC + c;
        s += p[i] * f0l[at];
        for (int j = 0; j < DIM; j++) s += p[(j + 1) * NSH + i] * f1l[at * DIM + j];
      }
      ev[ev_off + (long)b0 * NC * NSH + t] = s;
    }
  }
}
