/* Helpers shared by the tetrahedron tests: random points and cells, edge nodes of curved cells,
 * exact integrals of monomials on the reference tetrahedron, and the H(curl) Gram matrix. */
#ifndef FEMINT_TEST_TET_COMMON_H
#define FEMINT_TEST_TET_COMMON_H

#include <config.h>
#include <stdlib.h>
#include <string.h>

#include "host/refel_tet.h"
#include "common.h"

#define NSH TET_NSH_MAX

/* A node for the edge between input vertices a and b (either order) of the points P: its
 * midpoint moved a little, differently for every edge. */
static inline void edge_node(const double *P, int a, int b, double *x)
{
  const double s = a + b, t = (double)a * b;
  const double off[3] = {0.03 * cos(s + t), 0.03 * sin(2 * s - t), 0.03 * cos(3 * t + 1)};
  for (int i = 0; i < 3; i++) x[i] = (P[3 * a + i] + P[3 * b + i]) / 2 + off[i];
}

static inline double ipow(double x, int k)
{
  double r = 1;
  for (int i = 0; i < k; i++) r *= x;
  return r;
}

/* A point inside the reference tetrahedron, away from its boundary by margin. */
static inline void random_tet_point(double margin, double *xi)
{
  for (;;) {
    for (int d = 0; d < 3; d++) xi[d] = drand48();
    if (xi[0] > margin && xi[1] > margin && xi[2] > margin && xi[0] + xi[1] + xi[2] < 1 - margin)
      return;
  }
}

/* int x^a y^b z^c over the reference tetrahedron = a! b! c! / (a + b + c + 3)!. */
static inline double tet_monomial_integral(int a, int b, int c)
{
  double r = 1;
  int n = 0;
  const int e[3] = {a, b, c};
  for (int k = 0; k < 3; k++)
    for (int i = 1; i <= e[k]; i++) r *= (double)i / ++n;
  for (int i = 1; i <= 3; i++) r /= ++n;
  return r;
}

/* The largest relative misfit of the rule x[n][3], w[n] over the monomials x^a y^b z^c of total
 * degree d. */
static inline double tet_rule_misfit(int n, const double *x, const double *w, int d)
{
  double err = 0;
  for (int a = 0; a <= d; a++)
    for (int b = 0; a + b <= d; b++) {
      const int c = d - a - b;
      double s = 0;
      for (int q = 0; q < n; q++)
        s += w[q] * ipow(x[3 * q], a) * ipow(x[3 * q + 1], b) * ipow(x[3 * q + 2], c);
      const double exact = tet_monomial_integral(a, b, c);
      err = fmax(err, fabs(s - exact) / exact);
    }
  return err;
}

/* A random affine tetrahedron near the reference one, scaled by about `scale`: X[4][3], with
 * either orientation; `distort` moves each vertex by up to that fraction of the scale. */
static inline void random_affine_tet(double scale, double distort, double *X)
{
  for (;;) {
    for (int a = 0; a < 4; a++)
      for (int i = 0; i < 3; i++)
        X[3 * a + i] = scale * (tet_vert_xi[a][i] + distort * (2 * drand48() - 1));
    double J[9];
    const double det = geom_tet_jacobian(4, X, tet_vert_xi[0], J);
    if (fabs(det) > 0.2 * scale * scale * scale) return;
  }
}

/* The 10 nodes of an affine cell X[4][3]: the vertices and the edge midpoints. */
static inline void affine_nodes10(const double *X, double *X10)
{
  memcpy(X10, X, sizeof(double) * 12);
  for (int e = 0; e < TET_NE; e++)
    for (int i = 0; i < 3; i++)
      X10[3 * (4 + e) + i] = (X[3 * tet_edge_vert[e][0] + i] + X[3 * tet_edge_vert[e][1] + i]) / 2;
}

/* Reference Gram matrix G[nsh][nsh] = int N_i . N_j from the tabulation of re. */
static inline void tet_gram(const struct refel *re, double *G)
{
  const int n = re->nsh;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int q = 0; q < re->nq; q++) {
        const double *v = re->val + (size_t)q * 3 * n;
        s += re->wq[q] * (v[i] * v[j] + v[n + i] * v[n + j] + v[2 * n + i] * v[2 * n + j]);
      }
      G[i * n + j] = s;
    }
}

/* Largest |A - A^T| relative to the largest |A|. */
static inline double asymmetry(int n, const double *A)
{
  double amax = 0, d = 0;
  for (int i = 0; i < n * n; i++) amax = fmax(amax, fabs(A[i]));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++) d = fmax(d, fabs(A[i * n + j] - A[j * n + i]));
  return amax > 0 ? d / amax : d;
}

#ifdef FEMINT_HAVE_LAPACK
void dsygv_(const int *itype, const char *jobz, const char *uplo, const int *n, double *a,
            const int *lda, double *b, const int *ldb, double *w, double *work, const int *lwork,
            int *info);

/* Eigenvalues lam[n] (ascending) of A x = lam B x, A symmetric and B SPD (n x n, row-major,
 * overwritten); returns LAPACK's info (0 on success). */
static inline int sym_eig(int n, double *A, double *B, double *lam)
{
  const int itype = 1;
  int info = 0, lwork = -1;
  double q;
  dsygv_(&itype, "N", "U", &n, A, &n, B, &n, lam, &q, &lwork, &info);
  if (info) return info;
  lwork = (int)q;
  double *work = malloc(sizeof(double) * lwork);
  if (!work) return -1;
  dsygv_(&itype, "N", "U", &n, A, &n, B, &n, lam, work, &lwork, &info);
  free(work);
  return info;
}
#define HAVE_EIG 1
#else
#define HAVE_EIG 0
static inline int sym_eig(int n, double *A, double *B, double *lam)
{
  return -1;
}
#endif

#endif
