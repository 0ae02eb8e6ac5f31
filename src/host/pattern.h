/* The sparsity pattern of the cells of an operator: the CSR structure that its matrices share
 * and, for assembly through coordinates (seed 004), the permutation that sums the entries of the
 * element matrices into the CSR values. One builder for every shape, family and storage; the
 * device builds the same permutation (codelets/coo_opencl.h). Never installed. */
#ifndef FEMINT_HOST_PATTERN_H
#define FEMINT_HOST_PATTERN_H

#include <stdint.h>

#include "host.h"

/* The element matrices of an operator's cells as one array of values (the COO values): cell k of
 * the plan's list starts at value voff[k]; its matrix has n = nsh * ncomp rows, stored row-major
 * (n * n values) or as its upper half packed row by row (n (n + 1) / 2 values). Every entry
 * (r, s) of a cell whose two DOFs exist is a contribution to the CSR value of (dof r, dof s),
 * with the sign sign_r * sign_s of the hierarchical modes. */
struct pattern {
  int64_t n;        /* rows and columns: the space's DOFs */
  int64_t nnz;      /* distinct (row, column) pairs */
  int64_t *rowptr;  /* [n + 1] */
  int64_t *colind;  /* [nnz], ascending within each row; a row of scalar mode m and component a
                       holds the columns col * ncomp + b of the same scalar columns for every b */
  int64_t ncontrib; /* contributions (0 without a permutation) */
  int64_t *perm;    /* [ncontrib] the contributions sorted by (row, column, value index): the
                       index v of the value, or ~v (negative) when its sign is -1 */
  int64_t *seg;     /* [nnz + 1] the first contribution of each pair in perm; seg[nnz] =
                       ncontrib */
};

/* The pattern of the ncell cells (NULL: every cell of the mesh, in order) of a space, with the
 * permutation of the contributions when voff is not NULL (voff[k]: the first value of the k-th
 * cell; symmetric: packed upper halves). Built by scalar modes from the transpose of the DOF map,
 * a row at a time on the calling thread's OpenMP team. FEMINT_ENOMEM; p is then zeroed. */
int pattern_build(femint_context_t ctx, const struct femint_space *s, int ncell, const int *cells,
                  int symmetric, const int64_t *voff, struct pattern *p);
/* The same with the rows of the scalar modes mlo..mhi - 1 alone (every other row empty, its
 * contributions left out): a part of the matrix that one device sums. */
int pattern_build_rows(femint_context_t ctx, const struct femint_space *s, int ncell,
                       const int *cells, int symmetric, const int64_t *voff, int64_t mlo,
                       int64_t mhi, struct pattern *p);
void pattern_free(struct pattern *p);

/* The CSR value of pair u: the signed sum of the contributions (double or float values) in the
 * order of perm. */
static inline double pattern_value(const int64_t *perm, const int64_t *seg, int64_t u,
                                   const void *coo, int single)
{
  double s = 0;
  for (int64_t k = seg[u]; k < seg[u + 1]; k++) {
    const int64_t v = perm[k] < 0 ? ~perm[k] : perm[k];
    const double x = single ? ((const float *)coo)[v] : ((const double *)coo)[v];
    s += perm[k] < 0 ? -x : x;
  }
  return s;
}

/* Index of entry (r, c) of an n x n element matrix stored full (row-major) or as its packed upper
 * half (entry (min, max)). */
static inline int64_t pattern_entry(int n, int r, int c, int symmetric)
{
  if (!symmetric) return (int64_t)r * n + c;
  if (r > c) {
    const int t = r;
    r = c;
    c = t;
  }
  return (int64_t)r * n - (int64_t)r * (r - 1) / 2 + (c - r);
}

#endif
