/* The H(curl) element matrices of a tetrahedron as the codelets compute them: the reference
 * tables one kernel reads, and one cell's mass or curl-curl matrix on the CPU as a single
 * symmetric rank-k update. */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if FEMINT_HAVE_CBLAS
#include <cblas.h>
#endif

#include "refel_tet.h"

size_t hcurl_table_size(const struct refel *re, int nnode)
{
  return (size_t)re->nq * (6 * re->nsh + 3 * nnode + 1);
}

void hcurl_table_fill(const struct refel *re, int nnode, double *d)
{
  const int nq = re->nq;
  const size_t nv = (size_t)nq * 3 * re->nsh, nd = (size_t)nq * nnode * 3;
  memcpy(d, re->val, sizeof *d * nv);
  memcpy(d + nv, re->curl, sizeof *d * nv);
  for (int q = 0; q < nq; q++) geom_tet_nodes(nnode, &re->xq[3 * q], NULL, d + 2 * nv + (size_t)q * nnode * 3);
  memcpy(d + 2 * nv + nd, re->wq, sizeof *d * nq);
}

size_t hcurl_cell_scratch(const struct refel *re)
{
  return (size_t)3 * re->nq * re->nsh + (size_t)re->nsh * re->nsh;
}

/* R upper triangular with R^T R = A (A symmetric positive definite 3 x 3). */
static void cholesky3(const double *A, double *R)
{
  R[0] = sqrt(A[0]);
  R[1] = A[1] / R[0];
  R[2] = A[2] / R[0];
  R[3] = 0;
  R[4] = sqrt(A[4] - R[1] * R[1]);
  R[5] = (A[5] - R[1] * R[2]) / R[4];
  R[6] = R[7] = 0;
  R[8] = sqrt(A[8] - R[2] * R[2] - R[5] * R[5]);
}

/* T_e = sum_q N_q^T A_q N_q with A_q = w |det J| J^-1 eps J^-T, S_e the same with the curls and
 * A_q = (w / |det J|) J^T nu J. Each A_q = R_q^T R_q, so that with the rows R_q F_q of all points
 * stacked into P (3 nq x nsh), M = P^T P: one symmetric rank-k update per cell. */
void hcurl_cell_matrix(const struct refel *re, int kind, int nnode, const double *X,
                       const double *k, double *scratch, int single, int symmetric, void *M)
{
  const int nq = re->nq, nsh = re->nsh, rows = 3 * nq;
  const double *F = kind == FORM_HCURL_MASS ? re->val : re->curl;
  double *P = scratch, *G = scratch + (size_t)rows * nsh;
  for (int q = 0; q < nq; q++) {
    double J[9], K[9], A[9], R[9];
    geom_tet_jacobian(nnode, X, &re->xq[3 * q], J);
    const double adet = fabs(geom_inverse3(J, K));
    if (kind == FORM_HCURL_MASS) {
      tet_congruence(re->wq[q] * adet, K, k, A);
    } else {
      double JT[9];
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) JT[3 * i + j] = J[3 * j + i];
      tet_congruence(re->wq[q] / adet, JT, k, A);
    }
    cholesky3(A, R);
    const double *f = F + (size_t)q * 3 * nsh;
    for (int a = 0; a < 3; a++) {
      double *row = P + (size_t)(3 * q + a) * nsh;
      for (int i = 0; i < nsh; i++)
        row[i] = R[3 * a] * f[i] + R[3 * a + 1] * f[nsh + i] + R[3 * a + 2] * f[2 * nsh + i];
    }
  }
#if FEMINT_HAVE_CBLAS
  cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, nsh, rows, 1.0, P, nsh, 0.0, G, nsh);
#else
  for (int i = 0; i < nsh; i++)
    for (int j = i; j < nsh; j++) G[i * nsh + j] = 0;
  for (int r = 0; r < rows; r++) {
    const double *pr = P + (size_t)r * nsh;
    for (int i = 0; i < nsh; i++) {
      const double a = pr[i];
      for (int j = i; j < nsh; j++) G[i * nsh + j] += a * pr[j];
    }
  }
#endif
  for (int i = 0, at = 0; i < nsh; i++)
    for (int j = symmetric ? i : 0; j < nsh; j++, at++) {
      const double v = j >= i ? G[i * nsh + j] : G[j * nsh + i];
      if (single) ((float *)M)[at] = (float)v;
      else ((double *)M)[at] = v;
    }
}
