/* The element matrices of the H(curl) forms on a batch of tetrahedra (seed 004, equations 6 and 7):
 * T_e[i][j] = sum_q N_i(q)^T A_T(q) N_j(q), S_e[i][j] = sum_q C_i(q)^T A_S(q) C_j(q), with the
 * reference values N and curls C tabulated once and, per cell and point, the symmetric 3 x 3
 * matrices A_T = w |det J| J^-1 eps J^-T and A_S = (w / |det J|) J^T nu J. */
#ifdef FEMINT_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* T_e (the mass form, WHICH 0) or S_e (the curl-curl form, WHICH 1) of a batch straight from the
 * cells' nodes. One work-group per cell: its work-items first compute the packed A_T or A_S of
 * every point into local memory, then the entries (i, j) of the element matrix, WG_SIZE at a time.
 * ref holds val[NQ][3][NSH], curl[NQ][3][NSH], the geometric shape derivatives dgeo[NQ][NNODE][3]
 * and the weights w[NQ]; nodes [ncell][NNODE][3]; coef [ncell][9] (eps for T, nu = mu^-1 for S,
 * row-major); M [ncell][NSH][NSH] (with SYMMETRIC 1 the upper half of each, packed row by row:
 * [ncell][NSH (NSH + 1) / 2]), each from its offset (in REALs) into its buffer.
 * Compiled with -DNSH, -DNQ, -DNNODE, -DWHICH, -DWG_SIZE and -DREAL=float|double
 * (-DFEMINT_FP64 with double). */
#ifndef SYMMETRIC
#define SYMMETRIC 0
#endif
#define TAB_OFF (WHICH * NQ * 3 * NSH)
#define DGEO_OFF (2 * NQ * 3 * NSH)
#define W_OFF (DGEO_OFF + NQ * NNODE * 3)

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void
hcurl_matrix(int ncell, __global const REAL *ref, __global const REAL *nodes, long nodes_off,
           __global const REAL *coef, long coef_off, __global REAL *M, long m_off)
{
  __local REAL A[NQ * 6];
  const int cell = get_group_id(0), lid = get_local_id(0);
  if (cell >= ncell) return;
  __global const REAL *X = nodes + nodes_off + (size_t)cell * NNODE * 3;
  __global const REAL *k = coef + coef_off + (size_t)cell * 9;
  for (int q = lid; q < NQ; q += WG_SIZE) {
    __global const REAL *dN = ref + DGEO_OFF + q * NNODE * 3;
    REAL J[9];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        REAL s = 0;
        for (int a = 0; a < NNODE; a++) s += X[3 * a + i] * dN[3 * a + j];
        J[3 * i + j] = s;
      }
    const REAL c0 = J[4] * J[8] - J[5] * J[7], c1 = J[5] * J[6] - J[3] * J[8],
               c2 = J[3] * J[7] - J[4] * J[6];
    const REAL det = J[0] * c0 + J[1] * c1 + J[2] * c2, adet = fabs(det);
    /* P: J^-1 (T) or J^T (S); A = s P C P^T. */
    REAL P[9];
#if WHICH == 0
    const REAL inv = 1 / det;
    P[0] = c0 * inv;
    P[3] = c1 * inv;
    P[6] = c2 * inv;
    P[1] = (J[2] * J[7] - J[1] * J[8]) * inv;
    P[4] = (J[0] * J[8] - J[2] * J[6]) * inv;
    P[7] = (J[1] * J[6] - J[0] * J[7]) * inv;
    P[2] = (J[1] * J[5] - J[2] * J[4]) * inv;
    P[5] = (J[2] * J[3] - J[0] * J[5]) * inv;
    P[8] = (J[0] * J[4] - J[1] * J[3]) * inv;
    const REAL s = ref[W_OFF + q] * adet;
#else
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) P[3 * i + j] = J[3 * j + i];
    const REAL s = ref[W_OFF + q] / adet;
#endif
    REAL PC[9];
    for (int a = 0; a < 3; a++)
      for (int j = 0; j < 3; j++)
        PC[3 * a + j] = P[3 * a] * k[j] + P[3 * a + 1] * k[3 + j] + P[3 * a + 2] * k[6 + j];
    const int at[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
    for (int m = 0; m < 6; m++) {
      const int a = at[m][0], b = at[m][1];
      A[q * 6 + m] = s * (PC[3 * a] * P[3 * b] + PC[3 * a + 1] * P[3 * b + 1] +
                          PC[3 * a + 2] * P[3 * b + 2]);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  __global const REAL *F = ref + TAB_OFF;
#if SYMMETRIC
  /* the upper half, packed row by row: entry e of row i (which starts at i NSH - i (i - 1) / 2) */
  __global REAL *out = M + m_off + (size_t)cell * (NSH * (NSH + 1) / 2);
  for (int e = lid; e < NSH * (NSH + 1) / 2; e += WG_SIZE) {
    int i = 0, rest = e;
    while (rest >= NSH - i) rest -= NSH - i++;
    const int j = i + rest;
#else
  __global REAL *out = M + m_off + (size_t)cell * NSH * NSH;
  for (int e = lid; e < NSH * NSH; e += WG_SIZE) {
    const int i = e / NSH, j = e % NSH;
#endif
    REAL sum = 0;
    for (int q = 0; q < NQ; q++) {
      __global const REAL *f = F + q * 3 * NSH;
      const REAL u0 = f[i], u1 = f[NSH + i], u2 = f[2 * NSH + i];
      const REAL v0 = f[j], v1 = f[NSH + j], v2 = f[2 * NSH + j];
      __local const REAL *a = A + q * 6;
      sum += a[0] * u0 * v0 + a[1] * u1 * v1 + a[2] * u2 * v2 + a[3] * (u0 * v1 + u1 * v0) +
             a[4] * (u0 * v2 + u2 * v0) + a[5] * (u1 * v2 + u2 * v1);
    }
    out[e] = sum;
  }
}
