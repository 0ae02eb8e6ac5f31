/* The Maxwell element matrices of H(curl) tetrahedra on a batch (seed 004, equations 6 and 7):
 * T_e[i][j] = sum_q N_i(q)^T A_T(q) N_j(q), S_e[i][j] = sum_q C_i(q)^T A_S(q) C_j(q), with the
 * reference values N and curls C tabulated once ([NQ][3][NSH]) and, per cell and point, the
 * symmetric 3 x 3 matrices A_T = w |det J| J^-1 eps J^-T and A_S = (w / |det J|) J^T nu J packed by
 * the host as 6 + 6 terms (xx, yy, zz, xy, xz, yz). One work-item per entry (cell, i, j).
 * Compiled with -DNSH=, -DNQ= and -DREAL=float|double (-DFEMINT_FP64 with double). */
#ifdef FEMINT_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define TET_NTERMS 12

/* u^T A v for the packed symmetric A. */
inline REAL sym_form(__global const REAL *A, REAL u0, REAL u1, REAL u2, REAL v0, REAL v1, REAL v2)
{
  return A[0] * u0 * v0 + A[1] * u1 * v1 + A[2] * u2 * v2 + A[3] * (u0 * v1 + u1 * v0) +
         A[4] * (u0 * v2 + u2 * v0) + A[5] * (u1 * v2 + u2 * v1);
}

__kernel void tet_maxwell(int ncell, __global const REAL *val, __global const REAL *curl,
                          __global const REAL *terms, __global REAL *T, __global REAL *S)
{
  const size_t id = get_global_id(0);
  if (id >= (size_t)ncell * NSH * NSH) return;
  const int cell = (int)(id / (NSH * NSH)), i = (int)(id / NSH % NSH), j = (int)(id % NSH);
  __global const REAL *t = terms + (size_t)cell * NQ * TET_NTERMS;
  REAL sT = 0, sS = 0;
  for (int q = 0; q < NQ; q++) {
    __global const REAL *v = val + q * 3 * NSH, *c = curl + q * 3 * NSH;
    sT += sym_form(t + q * TET_NTERMS, v[i], v[NSH + i], v[2 * NSH + i], v[j], v[NSH + j],
                   v[2 * NSH + j]);
    sS += sym_form(t + q * TET_NTERMS + 6, c[i], c[NSH + i], c[2 * NSH + i], c[j], c[NSH + j],
                   c[2 * NSH + j]);
  }
  T[id] = sT;
  S[id] = sS;
}
