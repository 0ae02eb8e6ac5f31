/* The global sparse matrix: CSR values over a shared, counted structure, y = A x and Matrix
 * Market output. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "sparse.h"

void *huge_alloc(size_t bytes)
{
  const size_t huge = (size_t)2 << 20;
  void *p = NULL;
  if (bytes < huge) return malloc(bytes ? bytes : 1);
  if (posix_memalign(&p, huge, bytes)) return NULL;
  madvise(p, bytes, MADV_HUGEPAGE);
  return p;
}

void huge_trim(void *p, size_t used, size_t bytes)
{
  /* whole huge pages after the used part, up to the last whole page of the block (the rest of
   * that page may be the allocator's: madvise would zero its bookkeeping) */
  const size_t huge = (size_t)2 << 20, page = 4096;
  if (bytes < huge) return;
  const size_t from = (used + huge - 1) / huge * huge, to = bytes / page * page;
  if (from < to) madvise((char *)p + from, to - from, MADV_DONTNEED);
}

double *values_alloc(int64_t n, int zero)
{
  double *v = huge_alloc(((size_t)n + 1) * sizeof *v);
  if (!v || !zero) return v;
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < n; k++) v[k] = 0;
  return v;
}

struct csr_shape *csr_shape_new(int64_t n, int64_t nnz, int64_t *rowptr, int64_t *colind)
{
  struct csr_shape *s = malloc(sizeof *s);
  if (!s) {
    free(rowptr);
    free(colind);
    return NULL;
  }
  *s = (struct csr_shape){1, n, nnz, rowptr, colind};
  return s;
}

void csr_shape_ref(struct csr_shape *s) { __atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED); }

void csr_shape_unref(struct csr_shape **s)
{
  if (!*s) return;
  if (__atomic_sub_fetch(&(*s)->refs, 1, __ATOMIC_ACQ_REL) == 0) {
    free((*s)->rowptr);
    free((*s)->colind);
    free(*s);
  }
  *s = NULL;
}

int matrix_create(femint_context_t ctx, struct csr_shape *shape, int zero, femint_matrix_t *A)
{
  double *v = values_alloc(shape->nnz, zero);
  FEMINT_CHECK(v, ctx, FEMINT_ENOMEM, "out of memory for a matrix of %lld non-zeros",
               (long long)shape->nnz);
  const int err = matrix_create_lent(ctx, shape, v, NULL, NULL, A);
  if (err) free(v);
  return err;
}

int matrix_create_lent(femint_context_t ctx, struct csr_shape *shape, double *values,
                       void (*give_back)(void *owner, struct femint_matrix *A), void *owner,
                       femint_matrix_t *A)
{
  struct femint_matrix *M = malloc(sizeof *M);
  FEMINT_CHECK(M, ctx, FEMINT_ENOMEM, "out of memory for a matrix of %lld non-zeros",
               (long long)shape->nnz);
  csr_shape_ref(shape);
  *M = (struct femint_matrix){
      .shape = shape, .values = values, .give_back = give_back, .owner = owner};
  *A = M;
  return 0;
}

/* Why a matrix can have no values: they were lent and could not be copied out (hostmem.c). */
#define LOST_VALUES "femint_finalize found no memory to copy them out of the context's"

int matrix_values_here(struct femint_matrix *A)
{
  return A->dev ? A->dops->fetch(A) : 0;
}

int femint_matrix_destroy(femint_matrix_t *matrix)
{
  if (!matrix || !*matrix) return 0;
  struct femint_matrix *M = *matrix;
  if (M->dev) M->dops->drop(M);
  if (M->give_back) M->give_back(M->owner, M);
  else free(M->values);
  csr_shape_unref(&M->shape);
  free(M);
  *matrix = NULL;
  return 0;
}

int femint_matrix_csr(femint_matrix_t A, int64_t *nrows, const int64_t **rowptr,
                      const int64_t **colind, const double **values)
{
  FEMINT_CHECK(A, NULL, FEMINT_EINVAL, "matrix_csr: NULL matrix");
  if (values) FEMINT_CALL(matrix_values_here(A));
  FEMINT_CHECK(A->values, NULL, FEMINT_ENOMEM, "matrix_csr: the matrix lost its values (%s)",
               LOST_VALUES);
  if (nrows) *nrows = A->shape->n;
  if (rowptr) *rowptr = A->shape->rowptr;
  if (colind) *colind = A->shape->colind;
  if (values) *values = A->values;
  return 0;
}

int femint_matrix_mult(femint_matrix_t A, const double *x, double *y)
{
  FEMINT_CHECK(A && x && y, NULL, FEMINT_EINVAL, "matrix_mult: NULL argument");
  FEMINT_CALL(matrix_values_here(A));
  FEMINT_CHECK(A->values, NULL, FEMINT_ENOMEM, "matrix_mult: the matrix lost its values (%s)",
               LOST_VALUES);
  const struct csr_shape *c = A->shape;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < c->n; r++) y[r] = csr_row_dot(c->rowptr, c->colind, A->values, x, r);
  return 0;
}

int femint_matrix_write_mm(femint_context_t ctx, femint_matrix_t A, const char *path)
{
  FEMINT_CHECK(A && path, ctx, FEMINT_EINVAL, "matrix_write_mm: NULL argument");
  FEMINT_CALL(matrix_values_here(A));
  FEMINT_CHECK(A->values, ctx, FEMINT_ENOMEM, "matrix_write_mm: the matrix lost its values (%s)",
               LOST_VALUES);
  /* written under a temporary name beside it, then renamed: a failed write (a full disk) leaves
   * no partial file, and an older file at path stays whole until the new one is complete */
  char *tmp = malloc(strlen(path) + 32);
  FEMINT_CHECK(tmp, ctx, FEMINT_ENOMEM, "matrix_write_mm: out of memory");
  sprintf(tmp, "%s.part-%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f) {
    const int e = errno;
    free(tmp);
    return femint_seterr(ctx, FEMINT_EIO, "cannot write '%s': %s", path, strerror(e));
  }
  const struct csr_shape *c = A->shape;
  int ok = fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n"
                      "%% assembled by femint\n%lld %lld %lld\n",
                   (long long)c->n, (long long)c->n, (long long)c->rowptr[c->n]) > 0;
  for (int64_t r = 0; r < c->n && ok; r++)
    for (int64_t p = c->rowptr[r]; p < c->rowptr[r + 1] && ok; p++)
      ok = fprintf(f, "%lld %lld %.17g\n", (long long)r + 1, (long long)c->colind[p] + 1,
                   A->values[p]) > 0;
  int e = ok ? 0 : errno;
  if (fclose(f) != 0 && ok) ok = 0, e = errno;
  if (ok && rename(tmp, path) != 0) ok = 0, e = errno;
  if (!ok) remove(tmp);
  free(tmp);
  FEMINT_CHECK(ok, ctx, FEMINT_EIO, "cannot write '%s': %s", path, strerror(e));
  return 0;
}
