/* The vector operations of matrix-free solves (codelets/vector_ops.h): the sum of element
 * vectors into a global vector, and the dot products and fused updates of conjugate gradients.
 * A dot product is cut into as many ranges as work-groups (the host's choice from n alone), one
 * each, whose partial sums (a tree in local memory) go to part[j][range]; vec_finish adds them in
 * a fixed order into slots of s. Compiled with -DWG (the work-group size, a power of two).
 * Double precision. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* This work-group's range [lo, hi) of n values. */
#define RANGE(n)                                                                                  \
  const long ng_ = get_num_groups(0), chunk_ = ((n) + ng_ - 1) / ng_,                            \
             lo = get_group_id(0) * chunk_,                                                      \
             hi = min((long)(n), lo + chunk_);                                                   \
  const int lid = get_local_id(0)

/* part[j][group] = the sum of acc over the work-group (a tree, the same every time). */
#define REDUCE(acc, j)                                                                            \
  loc[lid] = (acc);                                                                               \
  barrier(CLK_LOCAL_MEM_FENCE);                                                                   \
  for (int h = WG / 2; h > 0; h >>= 1) {                                                          \
    if (lid < h) loc[lid] += loc[lid + h];                                                        \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                 \
  }                                                                                               \
  if (lid == 0) part[(j) * get_num_groups(0) + get_group_id(0)] = loc[0];                        \
  barrier(CLK_LOCAL_MEM_FENCE)

/* One chunk's part of y = the sum of the element vectors: map holds, in 32-bit words, the
 * chunk's nu DOFs (64 bits each; DOF j itself where ident is set: the chunk has every DOF), their
 * ranges ptr[nu + 1] of places and the places (component 0) in the chunk's ev; each DOF adds its
 * places one after the other to what y holds (in double; vec_ev_sum_f reads element vectors of
 * floats). With 64-bit ranges and places, and the DOFs read where the chunk has them all, the
 * CG of bp1, bp3 and bp5 was 2-5% slower at p >= 5 on the H200 (doc/perf/bp/map32). */
#define EV_SUM(name, T)                                                                           \
  __kernel void name(long nu, int nc, int np, int ident, __global const T *ev,                    \
                     __global const int *map, __global double *y)                                 \
  {                                                                                               \
    const long j = get_global_id(0);                                                              \
    if (j >= nu) return;                                                                          \
    __global const int *ptr = map + 2 * nu, *pos = ptr + nu + 1;                                  \
    const long g = ident ? j : ((__global const long *)map)[j];                                   \
    const int o0 = ptr[j], o1 = ptr[j + 1];                                                       \
    for (int c = 0; c < nc; c++) {                                                                \
      double s = y[g * nc + c];                                                                   \
      for (int o = o0; o < o1; o++) s += ev[pos[o] + c * np];                                     \
      y[g * nc + c] = s;                                                                          \
    }                                                                                             \
  }
EV_SUM(vec_ev_sum, double)
EV_SUM(vec_ev_sum_f, float)

/* The sum of the places o0 .. o1 - 1 of a DOF (y's values g) with K components, eight places'
 * values loaded before their adds, the components of a place together. */
#define SUM_PLACES(T, K)                                                                          \
  {                                                                                               \
    double s[K];                                                                                  \
    for (int c = 0; c < K; c++) s[c] = first ? 0 : y[g * K + c];                                  \
    for (long o = o0; o < o1; o += 8) {                                                           \
      T t[8 * K];                                                                                 \
      for (int k = 0; k < 8 * K; k++) t[k] = o + k / K < o1 ? ev[o * K + k] : 0;                  \
      for (int k = 0; k < 8 * K; k++)                                                             \
        if (o + k / K < o1) s[k % K] += t[k];                                                     \
    }                                                                                             \
    for (int c = 0; c < K; c++) y[g * K + c] = s[c];                                              \
  }
/* The same as EV_SUM with the element vectors in place order (value c of place o at ev[o nc +
 * c], nc <= 3, EV_SORTED_MAX_NC): each DOF reads its values one after the other (SUM_PLACES; in
 * place order: the bits of the sum one after the other); first: y is not read (the chunk holds
 * every DOF, the first sum). On the H200 (P1 tetrahedra, 24 places per vertex) this took 0.09 ms
 * where the values gathered from the cells took 0.58 ms; a work-group reading its DOFs' range in
 * tiles through local memory took longer. */
#define EV_SUM_SORTED(name, T)                                                                    \
  __kernel void name(long nu, int nc, int first, int ident, __global const T *ev,                 \
                     __global const int *map, __global double *y)                                 \
  {                                                                                               \
    const long j = get_global_id(0);                                                              \
    if (j >= nu) return;                                                                          \
    __global const int *ptr = map + 2 * nu;                                                       \
    const long g = ident ? j : ((__global const long *)map)[j], o0 = ptr[j], o1 = ptr[j + 1];     \
    if (nc == 1) SUM_PLACES(T, 1)                                                                 \
    else if (nc == 2) SUM_PLACES(T, 2)                                                            \
    else SUM_PLACES(T, 3)                                                                         \
  }
EV_SUM_SORTED(vec_ev_sum_sorted, double)
EV_SUM_SORTED(vec_ev_sum_sorted_f, float)

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
vec_dot(long n, __global const double *a, __global const double *b, __global double *part)
{
  __local double loc[WG];
  RANGE(n);
  double acc = 0;
  for (long i = lo + lid; i < hi; i += WG) acc += a[i] * b[i];
  REDUCE(acc, 0);
}

/* r = b - r; z = dinv r (jacobi) or r; partial r.z, r.r, b.b */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
vec_cg_start(long n, int jacobi, __global const double *b, __global double *r,
             __global const double *dinv, __global double *z, __global double *part)
{
  __local double loc[WG];
  RANGE(n);
  double rz = 0, rr = 0, bb = 0;
  for (long i = lo + lid; i < hi; i += WG) {
    const double bi = b[i], ri = bi - r[i], zi = jacobi ? dinv[i] * ri : ri;
    r[i] = ri;
    if (jacobi) z[i] = zi;
    rz += ri * zi;
    rr += ri * ri;
    bb += bi * bi;
  }
  REDUCE(rz, 0);
  REDUCE(rr, 1);
  REDUCE(bb, 2);
}

/* A step of CG with one reduction (codelets/vector_ops.h, VEC_CG_UPDATE): u = z (jacobi) or r,
 * w = A u; gamma = s[g], its value before s[gp], delta = s[pq], alpha before s[ap]; s[an] = alpha
 * and s[den] = p . A p (its denominator);
 * p = u + beta p, t = w + beta t (first: p = u, t = w), x += alpha p, r -= alpha t, z = dinv r;
 * partial r.z, r.r */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
vec_cg_update(long n, int jacobi, int first, int g, int gp, int pq, int ap, int an, int den,
              __global double *s, __global double *x, __global double *r, __global double *p,
              __global double *t, __global const double *w, __global const double *dinv,
              __global double *z, __global double *part)
{
  __local double loc[WG];
  RANGE(n);
  const double gamma = s[g], beta = first ? 0 : gamma / s[gp];
  const double pap = first ? s[pq] : s[pq] - beta * gamma / s[ap], alpha = gamma / pap;
  if (get_global_id(0) == 0) {
    s[an] = alpha;
    s[den] = pap;
  }
  double rz = 0, rr = 0;
  for (long i = lo + lid; i < hi; i += WG) {
    const double ui = jacobi ? z[i] : r[i];
    const double pi = first ? ui : ui + beta * p[i], ti = first ? w[i] : w[i] + beta * t[i];
    p[i] = pi;
    t[i] = ti;
    x[i] += alpha * pi;
    const double ri = r[i] - alpha * ti, zi = jacobi ? dinv[i] * ri : ri;
    r[i] = ri;
    if (jacobi) z[i] = zi;
    rz += ri * zi;
    rr += ri * ri;
  }
  REDUCE(rz, 0);
  REDUCE(rr, 1);
}

/* Values between the parts of a split vector: dst[idx[2 k]] = src[idx[2 k + 1]], k < n. */
__kernel void vec_move(long n, __global double *dst, __global const double *src,
                       __global const long *idx)
{
  const long k = get_global_id(0);
  if (k < n) dst[idx[2 * k]] = src[idx[2 * k + 1]];
}

/* s[slot_j] = the sum of part[j][0 .. ng) for j < nd (one work-group); with rr, rr[0] =
 * s[rrslot], rr[1] = s[pqslot]. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
vec_finish(int nd, int ng, __global const double *part, __global double *s, int slot0, int slot1,
           int slot2, __global double *rr, int rrslot, int pqslot)
{
  __local double loc[WG];
  const int lid = get_local_id(0);
  for (int j = 0; j < nd; j++) {
    double acc = 0;
    for (int m = lid; m < ng; m += WG) acc += part[j * ng + m];
    loc[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = WG / 2; h > 0; h >>= 1) {
      if (lid < h) loc[lid] += loc[lid + h];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) s[j == 0 ? slot0 : j == 1 ? slot1 : slot2] = loc[0];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0 && rrslot >= 0) {
    rr[0] = s[rrslot];
    rr[1] = s[pqslot];
  }
}
