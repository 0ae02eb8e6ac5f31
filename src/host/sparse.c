/* The global sparse matrix: its CSR pattern built from the DOF map (rows of scalar modes first,
 * then expanded by components), y = A x, and Matrix Market output. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sparse.h"

static int compare_i64(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Memory for the large CSR arrays, in transparent huge pages where the system allows. */
static void *big_alloc(size_t bytes)
{
  const size_t huge = (size_t)2 << 20;
  void *p = NULL;
  if (bytes < huge) return malloc(bytes ? bytes : 1);
  if (posix_memalign(&p, huge, bytes)) return NULL;
  madvise(p, bytes, MADV_HUGEPAGE);
  return p;
}

int csr_build(femint_context_t ctx, const struct femint_space *s, int ncell, const int *cells,
              struct csr *csr)
{
  const int ne = s->ncomp;
  if (!cells) ncell = s->mesh->ncell;
  const int64_t nm = s->nmode;
  int err = FEMINT_ENOMEM;
  memset(csr, 0, sizeof *csr);
  /* mode -> cells */
  int64_t *mc_ptr = calloc(nm + 1, sizeof *mc_ptr), *mc = NULL, *srow = NULL, *scol = NULL;
  if (!mc_ptr) goto fail;
  for (int i = 0; i < ncell; i++) {
    const int c = cells ? cells[i] : i;
    for (int64_t k = s->cell_off[c]; k < s->cell_off[c + 1]; k++)
      if (s->cell_mode[k] >= 0) mc_ptr[s->cell_mode[k] + 1]++;
  }
  for (int64_t m = 0; m < nm; m++) mc_ptr[m + 1] += mc_ptr[m];
  mc = malloc(((size_t)mc_ptr[nm] + 1) * sizeof *mc);
  if (!mc) goto fail;
  {
    int64_t *fill = calloc(nm, sizeof *fill);
    if (!fill) goto fail;
    for (int i = 0; i < ncell; i++) {
      const int c = cells ? cells[i] : i;
      for (int64_t k = s->cell_off[c]; k < s->cell_off[c + 1]; k++) {
        int64_t m = s->cell_mode[k];
        if (m >= 0) mc[mc_ptr[m] + fill[m]++] = c;
      }
    }
    free(fill);
  }
  /* scalar pattern: row m holds the modes of every cell that holds m */
  srow = calloc(nm + 1, sizeof *srow);
  if (!srow) goto fail;
  int fail_flag = 0;
#pragma omp parallel
  {
    int64_t *mark = malloc((size_t)nm * sizeof *mark);
    if (!mark) {
#pragma omp atomic write
      fail_flag = 1;
    } else {
      for (int64_t m = 0; m < nm; m++) mark[m] = -1;
#pragma omp for schedule(dynamic, 256)
      for (int64_t m = 0; m < nm; m++) {
        int64_t cnt = 0;
        for (int64_t k = mc_ptr[m]; k < mc_ptr[m + 1]; k++) {
          int c = (int)mc[k];
          for (int64_t l = s->cell_off[c]; l < s->cell_off[c + 1]; l++) {
            int64_t col = s->cell_mode[l];
            if (col >= 0 && mark[col] != m) {
              mark[col] = m;
              cnt++;
            }
          }
        }
        srow[m + 1] = cnt;
      }
      free(mark);
    }
  }
  if (fail_flag) goto fail;
  for (int64_t m = 0; m < nm; m++) srow[m + 1] += srow[m];
  scol = malloc(((size_t)srow[nm] + 1) * sizeof *scol);
  if (!scol) goto fail;
#pragma omp parallel
  {
    int64_t *mark = malloc((size_t)nm * sizeof *mark);
    if (!mark) {
#pragma omp atomic write
      fail_flag = 1;
    } else {
      for (int64_t m = 0; m < nm; m++) mark[m] = -1;
#pragma omp for schedule(dynamic, 256)
      for (int64_t m = 0; m < nm; m++) {
        int64_t p = srow[m];
        for (int64_t k = mc_ptr[m]; k < mc_ptr[m + 1]; k++) {
          int c = (int)mc[k];
          for (int64_t l = s->cell_off[c]; l < s->cell_off[c + 1]; l++) {
            int64_t col = s->cell_mode[l];
            if (col >= 0 && mark[col] != m) {
              mark[col] = m;
              scol[p++] = col;
            }
          }
        }
        qsort(scol + srow[m], (size_t)(p - srow[m]), sizeof *scol, compare_i64);
      }
      free(mark);
    }
  }
  if (fail_flag) goto fail;
  /* expand by components: row m*ne+a has columns col*ne+b for every b */
  csr->nrows = nm * ne;
  csr->rowptr = malloc((size_t)(csr->nrows + 1) * sizeof *csr->rowptr);
  csr->colind = big_alloc((size_t)srow[nm] * ne * ne * sizeof *csr->colind);
  csr->values = big_alloc((size_t)srow[nm] * ne * ne * sizeof *csr->values);
  if (!csr->rowptr || !csr->colind || !csr->values) goto fail;
  /* Zeroed by the threads here rather than page by page by the assembly tasks: the first touch
   * of calloc's pages there costs page faults and TLB shootdowns between the team's threads. */
  {
    const int64_t nnz = srow[nm] * ne * ne;
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < nnz; k++) csr->values[k] = 0;
  }
  csr->rowptr[0] = 0;
  for (int64_t m = 0; m < nm; m++) {
    int64_t len = (srow[m + 1] - srow[m]) * ne;
    for (int a = 0; a < ne; a++) {
      int64_t r = m * ne + a, p = srow[m] * ne * ne + a * len;
      csr->rowptr[r + 1] = p + len;
      for (int64_t k = srow[m]; k < srow[m + 1]; k++)
        for (int b = 0; b < ne; b++) csr->colind[p++] = scol[k] * ne + b;
    }
  }
  err = 0;
fail:
  free(mc_ptr);
  free(mc);
  free(srow);
  free(scol);
  if (err) {
    csr_free(csr);
    return femint_seterr(ctx, err, "sparse pattern: out of memory (%lld modes)", (long long)nm);
  }
  return 0;
}

void csr_free(struct csr *csr)
{
  free(csr->rowptr);
  free(csr->colind);
  free(csr->values);
  free(csr->block_row);
  free(csr->row_block);
  memset(csr, 0, sizeof *csr);
}

int femint_matrix_destroy(femint_matrix_t *matrix)
{
  if (!matrix || !*matrix) return 0;
  csr_free(&(*matrix)->csr);
  free(*matrix);
  *matrix = NULL;
  return 0;
}

int femint_matrix_csr(femint_matrix_t A, int64_t *nrows, const int64_t **rowptr,
                      const int64_t **colind, const double **values)
{
  FEMINT_CHECK(A, NULL, FEMINT_EINVAL, "matrix_csr: NULL matrix");
  if (nrows) *nrows = A->csr.nrows;
  if (rowptr) *rowptr = A->csr.rowptr;
  if (colind) *colind = A->csr.colind;
  if (values) *values = A->csr.values;
  return 0;
}

int femint_matrix_mult(femint_matrix_t A, const double *x, double *y)
{
  FEMINT_CHECK(A && x && y, NULL, FEMINT_EINVAL, "matrix_mult: NULL argument");
  const struct csr *c = &A->csr;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < c->nrows; r++) {
    double s = 0;
    for (int64_t p = c->rowptr[r]; p < c->rowptr[r + 1]; p++) s += c->values[p] * x[c->colind[p]];
    y[r] = s;
  }
  return 0;
}

int femint_matrix_write_mm(femint_context_t ctx, femint_matrix_t A, const char *path)
{
  FEMINT_CHECK(A && path, ctx, FEMINT_EINVAL, "matrix_write_mm: NULL argument");
  FILE *f = fopen(path, "w");
  FEMINT_CHECK(f, ctx, FEMINT_EIO, "cannot write '%s': %s", path, strerror(errno));
  const struct csr *c = &A->csr;
  int ok = fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n"
                      "%% assembled by femint\n%lld %lld %lld\n",
                   (long long)c->nrows, (long long)c->nrows, (long long)c->rowptr[c->nrows]) > 0;
  for (int64_t r = 0; r < c->nrows && ok; r++)
    for (int64_t p = c->rowptr[r]; p < c->rowptr[r + 1] && ok; p++)
      ok = fprintf(f, "%lld %lld %.17g\n", (long long)r + 1, (long long)c->colind[p] + 1,
                   c->values[p]) > 0;
  if (fclose(f) != 0) ok = 0;
  FEMINT_CHECK(ok, ctx, FEMINT_EIO, "cannot write '%s': %s", path, strerror(errno));
  return 0;
}
