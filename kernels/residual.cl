/* The residual of a pointwise form (seed 002), with the caller's f0 and f1 put before this text
 * by the host (with REAL and the FEMINT_* sizes): a work-group takes batches of NB cells one
 * after the other; per batch, the cells' values of u (and of the auxiliary field) go to local
 * memory (each point's geometry is read where it is used); in the quadrature phase the
 * work-items run over the (cell, point) pairs, evaluate u, grad u, a, grad a there, call f0 and
 * f1, and keep w |det J| f0 and
 * w |det J| K f1 (f1 against the reference gradients) in local memory; after one barrier, in the
 * basis phase, they run over the (cell, component, function) triples and sum the points' values
 * against the tabulated functions: the thread transposition, with no reduction across work-items.
 * With -DCELLWISE=1 instead, a work-item takes a cell, whose values, points and residual stay in
 * its registers (no barrier after the tables). Compiled with -DDIM, -DNC, -DNA, -DAUX (0 none, 1
 * field, 2 per cell), -DNSH, -DNQ, -DNB (cells per batch), -DWG (work-items), -DNCONST and
 * FEMINT_K (the constants' initializer), -DHAS_F0 and -DHAS_F1 (whether the text defines them: a
 * missing one is 0), -DCELLWISE, -DAFFINE (1: the geometry is
 * kept once per cell, |det J| and K, then J and x at xi = 0 (POINT_GEOMETRY), with the rule
 * FEMINT_XQW, xi and w of each point, put before the text; 0: per point, w |det J|, K and x) and -DFEMINT_FP64. u and aux are
 * double (the vectors); the geometry, phi, ev and the arithmetic REAL (float in single
 * precision). ev: the cells' residuals [cell][NC][NSH] or, sorted, each value at its place
 * slot[cell][NSH] (value c of place o at ev[o NC + c]; -1: none), so that the sum into F reads
 * each DOF's values one after the other. The kernel jacobian (after both) takes -DHAS_G0..-DHAS_G3
 * likewise: the element matrices of the Jacobian from the caller's g0..g3, JROWS rows of a cell
 * per work-item. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define NG (1 + DIM * DIM + DIM)
#define NGA (1 + 2 * DIM * DIM + DIM)
#define NGK (1 + DIM * DIM)
#define NAS (NA > 0 ? NA : 1)
#define NKS (NCONST > 0 ? NCONST : 1)
#define NR (NC * NSH) /* rows of an element vector and matrix */

/* The tables phi[NQ][DIM + 1][NSH] into the work-group's local memory (a barrier to follow). */
static void tables_to_local(__local REAL *phi, __global const REAL *phi_g, int lid)
{
  for (int i = lid; i < NQ * (DIM + 1) * NSH; i += WG) phi[i] = phi_g[i];
}

/* The value of component c of a field of n components with the cell's values v[NSH][n] at a
 * point (phi p), and its physical gradient (K in the point's geometry g); v in local memory (the
 * transposed kernel) or private (a cell per work-item). */
#define FIELD_AT(name, space)                                                                   \
  static REAL name(__local const REAL *p, space const REAL *v, int n, int c, const REAL *g,   \
                   REAL *grad)                                                                \
  {                                                                                           \
    REAL s = 0, r[DIM];                                                                       \
    for (int j = 0; j < DIM; j++) r[j] = 0;                                                   \
    for (int i = 0; i < NSH; i++) {                                                           \
      const REAL vi = v[i * n + c];                                                           \
      s += p[i] * vi;                                                                         \
      for (int j = 0; j < DIM; j++) r[j] += p[(j + 1) * NSH + i] * vi;                        \
    }                                                                                         \
    for (int d = 0; d < DIM; d++) {                                                           \
      REAL gd = 0;                                                                            \
      for (int j = 0; j < DIM; j++) gd += g[1 + DIM * j + d] * r[j];                          \
      grad[d] = gd;                                                                           \
    }                                                                                         \
    return s;                                                                                 \
  }
FIELD_AT(field_at, __local)
FIELD_AT(field_at_private, __private)

/* The geometry of point q (w |det J|, K, x) of a cell: made from the cell's |det J| and K (gc)
 * and J and x at xi = 0 (gx) and the rule, or read as stored per point (gc); the cell's in
 * global or private memory. A chunk of affine cells keeps every cell's |det J| and K (NGK
 * values), then every cell's J and x0 (NGA - NGK), so that a form that does not use x reads
 * NGK consecutive values per cell. */
#if AFFINE
#define POINT_GEOMETRY(name, space)                                                             \
  static void name(space const REAL *gc, space const REAL *gx, int q, REAL *g)               \
  {                                                                                           \
    const REAL xqw[NQ * (DIM + 1)] = FEMINT_XQW;                                              \
    g[0] = xqw[q * (DIM + 1) + DIM] * gc[0];                                                  \
    for (int i = 0; i < DIM * DIM; i++) g[1 + i] = gc[1 + i];                                 \
    for (int a = 0; a < DIM; a++) {                                                           \
      REAL x = gx[DIM * DIM + a];                                                             \
      for (int b = 0; b < DIM; b++) x += gx[DIM * a + b] * xqw[q * (DIM + 1) + b];            \
      g[1 + DIM * DIM + a] = x;                                                               \
    }                                                                                         \
  }
#else
#define POINT_GEOMETRY(name, space)                                                             \
  static void name(space const REAL *gc, space const REAL *gx, int q, REAL *g)               \
  {                                                                                           \
    for (int i = 0; i < NG; i++) g[i] = gc[q * NG + i];                                       \
  }
#endif
POINT_GEOMETRY(point_geometry, __global)
POINT_GEOMETRY(point_geometry_private, __private)

/* The pointwise functions at a point: f0 (times w |det J|) in s0[NC], and f1 against the
 * reference gradients (w |det J| K f1) in s1[NC][DIM]. */
static void point_terms(const REAL *g, const REAL *uu, const REAL *du, const REAL *a,
                        const REAL *da, REAL *s0, REAL *s1)
{
  const REAL kc[NKS] = FEMINT_K;
  REAL x[DIM], k[NKS], f0v[NC], f1v[NC * DIM];
  for (int i = 0; i < NKS; i++) k[i] = kc[i];
  for (int d = 0; d < DIM; d++) x[d] = g[1 + DIM * DIM + d];
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
    s0[c] = w * f0v[c];
    for (int j = 0; j < DIM; j++) {
      REAL t = 0;
      for (int d = 0; d < DIM; d++) t += g[1 + DIM * j + d] * f1v[c * DIM + d];
      s1[c * DIM + j] = w * t;
    }
  }
}

/* The fields at point q of a cell (tables p, geometry g): u and grad u from the cell's values
 * ue [NSH][NC], a and grad a from its field's ae [NSH][NA] (AUX 1) or its values ae [NA] (AUX
 * 2); ue and ae in local memory (the transposed kernel) or private (a cell per work-item). */
#define POINT_FIELDS(name, space, field)                                                        \
  static void name(__local const REAL *p, space const REAL *ue, space const REAL *ae,          \
                   const REAL *g, REAL *uu, REAL *du, REAL *a, REAL *da)                      \
  {                                                                                           \
    for (int c = 0; c < NC; c++) uu[c] = field(p, ue, NC, c, g, du + c * DIM);                \
    for (int c = 0; c < NAS; c++) {                                                           \
      a[c] = 0;                                                                               \
      for (int d = 0; d < DIM; d++) da[c * DIM + d] = 0;                                      \
    }                                                                                         \
    if (AUX == 1)                                                                             \
      for (int c = 0; c < NA; c++) a[c] = field(p, ae, NA, c, g, da + c * DIM);               \
    else if (AUX == 2)                                                                        \
      for (int c = 0; c < NA; c++) a[c] = ae[c];                                              \
  }
POINT_FIELDS(point_fields, __local, field_at)
POINT_FIELDS(point_fields_private, __private, field_at_private)

/* Everything at point q of a cell: the fields (point_fields), then the pointwise terms s0, s1
 * (point_terms). */
#define POINT_EVAL(name, space, fields)                                                         \
  static void name(__local const REAL *p, space const REAL *ue, space const REAL *ae,          \
                   const REAL *g, REAL *s0, REAL *s1)                                         \
  {                                                                                           \
    REAL uu[NC], du[NC * DIM], a[NAS], da[NAS * DIM];                                         \
    fields(p, ue, ae, g, uu, du, a, da);                                                      \
    point_terms(g, uu, du, a, da, s0, s1);                                                    \
  }
POINT_EVAL(point_eval, __local, point_fields)
POINT_EVAL(point_eval_private, __private, point_fields_private)

#define RESIDUAL_ARGS                                                                         \
  const int ncell, __global const double *u, const long u_off, __global const long *dofs,      \
      const long dofs_off, __global const REAL *geo, const long geo_off,                       \
      __global const REAL *phi_g, const long phi_off, __global const double *aux,              \
      const long aux_off, __global const long *adofs, const long adofs_off, __global REAL *ev, \
      const long ev_off, __global const int *slot, const long slot_off, const int sorted
#define GEO_PER (AFFINE ? NGK : NQ * NG) /* values per cell in the first part */
/* cell e's J and x0 (affine) */
#define GEO_X(e) (geo + geo_off + (long)ncell * NGK + (long)(e) * (NGA - NGK))

/* Cell e's values of u (ue[NSH][NC]) and of the auxiliary field (ae: [NSH][NA] for a field,
 * [NA] per cell, 0 without) and, AFFINE, its geometry (ga[NGA]: |det J| and K, then J and x0),
 * into private memory. */
static void load_cell(const long e, const int ncell, __global const double *u, const long u_off,
                      __global const long *dofs, const long dofs_off, __global const REAL *geo,
                      const long geo_off, __global const double *aux, const long aux_off,
                      __global const long *adofs, const long adofs_off, REAL *ue, REAL *ae,
                      REAL *ga)
{
#if AFFINE
  for (int i = 0; i < NGK; i++) ga[i] = geo[geo_off + e * NGK + i];
  for (int i = NGK; i < NGA; i++) ga[i] = GEO_X(e)[i - NGK];
#endif
  for (int i = 0; i < NSH; i++) {
    const long g = dofs[dofs_off + e * NSH + i];
    for (int c = 0; c < NC; c++) ue[i * NC + c] = g >= 0 ? (REAL)u[u_off + g * NC + c] : 0;
  }
  for (int i = 0; i < NSH * NAS; i++) ae[i] = 0;
#if AUX == 1
  for (int i = 0; i < NSH; i++) {
    const long g = adofs[adofs_off + e * NSH + i];
    for (int c = 0; c < NA; c++) ae[i * NA + c] = g >= 0 ? (REAL)aux[aux_off + g * NA + c] : 0;
  }
#elif AUX == 2
  for (int c = 0; c < NA; c++) ae[c] = (REAL)aux[aux_off + e * NA + c];
#endif
}
/* The geometry of point q of cell e (a work-item's): from its ga, or as kept per point. */
#if AFFINE
#define CELL_POINT(e, q, g) point_geometry_private(ga, ga + NGK, q, g)
#else
#define CELL_POINT(e, q, g) point_geometry(geo + geo_off + (e) * GEO_PER, geo, q, g)
#endif
#define LOAD_CELL(e, ue, ae, ga)                                                                \
  load_cell(e, ncell, u, u_off, dofs, dofs_off, geo, geo_off, aux, aux_off, adofs, adofs_off,  \
            ue, ae, ga)

#if !CELLWISE
/* The seed's thread transposition: a work-group takes batches of NB cells. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void residual(RESIDUAL_ARGS)
{
  __local REAL phi[NQ * (DIM + 1) * NSH];
  __local REAL ue[NB * NSH * NC];
  __local REAL ae[NB * NSH * NAS];
  __local REAL f0l[NB * NQ * NC];
  __local REAL f1l[NB * NQ * NC * DIM];
  const int lid = get_local_id(0);
  tables_to_local(phi, phi_g + phi_off, lid);
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
      REAL g[NG];
      point_geometry(geo + geo_off + (long)(b0 + e) * GEO_PER, GEO_X(b0 + e), q, g);
      __local const REAL *p = phi + q * (DIM + 1) * NSH;
      REAL s0[NC], s1[NC * DIM];
      point_eval(p, ue + e * NSH * NC, ae + e * (AUX == 1 ? NSH * NA : NA), g, s0, s1);
      for (int c = 0; c < NC; c++) {
        f0l[t * NC + c] = s0[c];
        for (int j = 0; j < DIM; j++) f1l[(t * NC + c) * DIM + j] = s1[c * DIM + j];
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
      if (!sorted) {
        ev[ev_off + (long)b0 * NC * NSH + t] = s;
      } else {
        const int o = slot[slot_off + (long)(b0 + e) * NSH + i];
        if (o >= 0) ev[ev_off + (long)o * NC + c] = s;
      }
    }
  }
}
#else
/* A cell per work-item: its values, its points and its residual in registers (no barrier after
 * the tables). On the H200, reading the work-group's geometry and DOFs through local memory at
 * consecutive addresses, and writing its residuals the same way, was 10-25% slower; the tables
 * in constant memory instead of local memory the same at order 1 and 22-38% slower at 2 and 3. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void residual(RESIDUAL_ARGS)
{
  __local REAL phi[NQ * (DIM + 1) * NSH];
  const int lid = get_local_id(0);
  tables_to_local(phi, phi_g + phi_off, lid);
  barrier(CLK_LOCAL_MEM_FENCE);
  const long e = get_global_id(0);
  if (e >= ncell) return;
  REAL ue[NSH * NC], ae[NSH * NAS], r[NR], ga[NGA];
  LOAD_CELL(e, ue, ae, ga);
  for (int i = 0; i < NR; i++) r[i] = 0;
  for (int q = 0; q < NQ; q++) {
    REAL g[NG];
    CELL_POINT(e, q, g);
    __local const REAL *p = phi + q * (DIM + 1) * NSH;
    REAL s0[NC], s1[NC * DIM];
    point_eval_private(p, ue, ae, g, s0, s1);
    for (int c = 0; c < NC; c++)
      for (int i = 0; i < NSH; i++) {
        REAL t = p[i] * s0[c];
        for (int j = 0; j < DIM; j++) t += p[(j + 1) * NSH + i] * s1[c * DIM + j];
        r[c * NSH + i] += t;
      }
  }
  if (!sorted) {
    for (int i = 0; i < NR; i++) ev[ev_off + e * NR + i] = r[i];
    return;
  }
  for (int i = 0; i < NSH; i++) {
    const int o = slot[slot_off + e * NSH + i];
    if (o >= 0)
      for (int c = 0; c < NC; c++) ev[ev_off + (long)o * NC + c] = r[c * NSH + i];
  }
}
#endif

/* The Jacobian's element matrices mats[cell][NR][NR] (row i NC + c for function i and component
 * c, femint's element layout, as the column j NC + f), JROWS consecutive rows per work-item (the
 * NC rows of a function, which share the pointwise derivatives, when their NC NR sums fit its
 * registers; else one, JACOBIAN_ROWS in codelets/codelets.h says the same): at every
 * point the cell's u, grad u, a and grad a (as the residual), g0..g3 there, and the row's test
 * function i against every trial function j: w |det J| (phi_i g0 phi_j + phi_i g1 . grad phi_j +
 * grad phi_i . g2 phi_j + grad phi_i . g3 grad phi_j) for components (c, f). */
#define JROWS (NC * NR <= 64 ? NC : 1)
#define JACOBIAN_ARGS                                                                         \
  const int ncell, __global const double *u, const long u_off, __global const long *dofs,      \
      const long dofs_off, __global const REAL *geo, const long geo_off,                       \
      __global const REAL *phi_g, const long phi_off, __global const double *aux,              \
      const long aux_off, __global const long *adofs, const long adofs_off,                    \
      __global REAL *mats, const long mats_off
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void jacobian(JACOBIAN_ARGS)
{
  __local REAL phi[NQ * (DIM + 1) * NSH];
  const int lid = get_local_id(0);
  tables_to_local(phi, phi_g + phi_off, lid);
  barrier(CLK_LOCAL_MEM_FENCE);
  const long t = get_global_id(0);
  if (t >= (long)ncell * (NR / JROWS)) return;
  const long e = t / (NR / JROWS);
  const int row0 = (int)(t % (NR / JROWS)) * JROWS, i = row0 / NC, c0 = row0 % NC;
  REAL ue[NSH * NC], ae[NSH * NAS], jr[JROWS * NR], ga[NGA];
  LOAD_CELL(e, ue, ae, ga);
  for (int k = 0; k < JROWS * NR; k++) jr[k] = 0;
  const REAL kc[NKS] = FEMINT_K;
  REAL kv[NKS];
  for (int k = 0; k < NKS; k++) kv[k] = kc[k];
  for (int q = 0; q < NQ; q++) {
    REAL g[NG];
    CELL_POINT(e, q, g);
    __local const REAL *p = phi + q * (DIM + 1) * NSH;
    REAL uu[NC], du[NC * DIM], a[NAS], da[NAS * DIM], x[DIM];
    point_fields_private(p, ue, ae, g, uu, du, a, da);
    for (int d = 0; d < DIM; d++) x[d] = g[1 + DIM * DIM + d];
    REAL g0v[NC * NC], g1v[NC * NC * DIM], g2v[NC * NC * DIM], g3v[NC * NC * DIM * DIM];
    for (int k = 0; k < NC * NC; k++) g0v[k] = 0;
    for (int k = 0; k < NC * NC * DIM; k++) g1v[k] = g2v[k] = 0;
    for (int k = 0; k < NC * NC * DIM * DIM; k++) g3v[k] = 0;
#if HAS_G0
    g0(DIM, uu, du, a, da, x, kv, g0v);
#endif
#if HAS_G1
    g1(DIM, uu, du, a, da, x, kv, g1v);
#endif
#if HAS_G2
    g2(DIM, uu, du, a, da, x, kv, g2v);
#endif
#if HAS_G3
    g3(DIM, uu, du, a, da, x, kv, g3v);
#endif
    /* the test function's value and physical gradient, times w |det J| */
    const REAL w = g[0], vi = w * p[i];
    REAL gi[DIM];
    for (int d = 0; d < DIM; d++) {
      REAL s = 0;
      for (int j = 0; j < DIM; j++) s += g[1 + DIM * j + d] * p[(j + 1) * NSH + i];
      gi[d] = w * s;
    }
    /* for each of the rows' components c and trial component f: the coefficients of phi_j and
     * of grad phi_j */
    for (int cf = 0; cf < JROWS * NC; cf++) {
      const int cr = cf / NC, c = c0 + cr, f = cf % NC, ce = c * NC + f;
      REAL cv = vi * g0v[ce], cg[DIM];
      for (int d = 0; d < DIM; d++) {
        cv += gi[d] * g2v[ce * DIM + d];
        REAL s = vi * g1v[ce * DIM + d];
        for (int d1 = 0; d1 < DIM; d1++) s += gi[d1] * g3v[(ce * DIM + d1) * DIM + d];
        cg[d] = s;
      }
      /* grad phi_j . cg = sum_j' (ref grad)_j' (K cg)_j' */
      REAL kg[DIM];
      for (int j = 0; j < DIM; j++) {
        REAL s = 0;
        for (int d = 0; d < DIM; d++) s += g[1 + DIM * j + d] * cg[d];
        kg[j] = s;
      }
      for (int k = 0; k < NSH; k++) {
        REAL s = p[k] * cv;
        for (int j = 0; j < DIM; j++) s += p[(j + 1) * NSH + k] * kg[j];
        jr[cr * NR + k * NC + f] += s;
      }
    }
  }
  for (int k = 0; k < JROWS * NR; k++) mats[mats_off + (e * NR + row0) * NR + k] = jr[k];
}
