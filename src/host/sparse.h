/* The global sparse matrix (femint_matrix_t): CSR values over a structure that the matrices of an
 * operator share with it, y = A x and Matrix Market output. Never installed. */
#ifndef FEMINT_HOST_SPARSE_H
#define FEMINT_HOST_SPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "host.h"

/* A CSR structure (rows, row pointers, columns), immutable once made and counted: the operator
 * that built it and every matrix made on it hold a reference. */
struct csr_shape {
  int refs;
  int64_t n, nnz;
  int64_t *rowptr; /* [n + 1] */
  int64_t *colind; /* [nnz] */
};

/* Values that a matrix keeps on a device (the scheduler's): fetch brings them into the matrix's
 * values and lets the device's copy go (0, or femint's code with the context's message), drop
 * lets it go (the matrix destroyed). */
struct matrix_device_ops {
  int (*fetch)(struct femint_matrix *A);
  void (*drop)(struct femint_matrix *A);
};

struct femint_matrix {
  struct csr_shape *shape;
  double *values; /* [nnz] */
  /* values lent by their owner (a context's pinned memory): femint_matrix_destroy hands them
   * back through give_back instead of freeing them */
  void (*give_back)(void *owner, struct femint_matrix *A);
  void *owner;
  /* values left on a device (femint_operator_options.matrix_on_device): values is their place
   * in main memory, filled when first asked (matrix_values_here) */
  const struct matrix_device_ops *dops;
  void *dev;
};

/* Row r of a CSR matrix times x. */
static inline double csr_row_dot(const int64_t *rowptr, const int64_t *colind,
                                 const double *values, const double *x, int64_t r)
{
  double s = 0;
  for (int64_t p = rowptr[r]; p < rowptr[r + 1]; p++) s += values[p] * x[colind[p]];
  return s;
}

/* The values of A in main memory: brought from its device first if they are there. */
int matrix_values_here(struct femint_matrix *A);

/* A structure that takes over rowptr and colind (freed with it) with one reference, or NULL (out
 * of memory: rowptr and colind are freed). */
struct csr_shape *csr_shape_new(int64_t n, int64_t nnz, int64_t *rowptr, int64_t *colind);
void csr_shape_ref(struct csr_shape *s);
/* Drop a reference; the last one frees the structure. *s = NULL. */
void csr_shape_unref(struct csr_shape **s);

/* Memory for a large array (free() releases it): in transparent huge pages where the system
 * allows, so that the first touch of a matrix costs few page faults and TLB shootdowns. */
void *huge_alloc(size_t bytes);
/* Give back the memory of the huge pages of p (from huge_alloc(bytes)) beyond its first used
 * bytes: they read as zeros again. */
void huge_trim(void *p, size_t used, size_t bytes);
/* n + 1 doubles in huge pages; with zero, zeroed by the threads of the caller's OpenMP team (the
 * first touch of the pages there rather than page by page in the assembly tasks); NULL when out
 * of memory. */
double *values_alloc(int64_t n, int zero);

/* A matrix on a structure (one more reference) with its values (values_alloc), zeroed when zero
 * is set, else left to be written. FEMINT_ENOMEM. */
int matrix_create(femint_context_t ctx, struct csr_shape *shape, int zero, femint_matrix_t *A);
/* A matrix on a structure with values lent by owner (nnz + 1 doubles, left to be written), which
 * give_back(owner, A) receives again when the matrix is destroyed (give_back NULL: the matrix
 * owns them, and frees them). FEMINT_ENOMEM. */
int matrix_create_lent(femint_context_t ctx, struct csr_shape *shape, double *values,
                       void (*give_back)(void *owner, struct femint_matrix *A), void *owner,
                       femint_matrix_t *A);

#endif
