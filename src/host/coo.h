/* Sparse assembly through coordinates (seed 004, section 5.2): COO triplets with duplicates to a
 * CSR matrix with them summed, by a sort on (row, column), a segmented reduction and a prefix sum
 * for the row pointers. The pattern is built once and reduces any number of value arrays given in
 * the same slots (the mass and the curl-curl matrix). Every step is a loop over independent
 * items, as an OpenCL kernel would run it. Never installed. */
#ifndef FEMINT_HOST_COO_H
#define FEMINT_HOST_COO_H

#include <stdint.h>

struct coo_pattern {
  int64_t n;       /* rows and columns */
  int64_t nslot;   /* COO slots given, those without a row or column included */
  int64_t nvalid;  /* slots with a row and a column */
  int64_t nnz;     /* distinct (row, column) pairs */
  int64_t *perm;   /* [nslot] the slots in (row, column) order: the nvalid valid ones, then the
                      others in slot order */
  int64_t *seg;    /* [nnz + 1] first sorted entry of each distinct pair; seg[nnz] = nvalid */
  int64_t *rowptr; /* [n + 1] */
  int64_t *colind; /* [nnz], ascending within each row */
};

/* The pattern of the slots (row[k], col[k]), k < nslot; a slot with a negative row or column is
 * left out (a removed DOF). FEMINT_EINVAL (an index >= n, or n so large that n^2 overflows),
 * FEMINT_ENOMEM. On error p is zeroed. */
int coo_pattern_build(int64_t n, int64_t nslot, const int64_t *row, const int64_t *col,
                      struct coo_pattern *p);
/* val[u] = the sum of coo[k] over the slots k of pair u, in slot order (deterministic). */
void coo_pattern_sum(const struct coo_pattern *p, const double *coo, double *val);
void coo_pattern_free(struct coo_pattern *p);

/* Exclusive prefix sum out[k] = in[0] + ... + in[k-1], out[n] = the total (out has n + 1
 * entries; in and out may be the same array only if in has n + 1 entries). */
void scan_exclusive(int64_t n, const int64_t *in, int64_t *out);

#endif
