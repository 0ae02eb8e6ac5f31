/* The one sparsity pattern builder (pattern.h): scalar rows from the transpose of the DOF map
 * (each scalar mode's cells and its place in them), their distinct columns, the expansion by
 * components, and, where asked, every row's contributions sorted by (column, value), which is
 * the order the device's stable sort of the same keys gives. */
#include <stdlib.h>
#include <string.h>

#include "pattern.h"
#include "sparse.h"

/* An occurrence of a scalar mode: the cell's place in the list and the local mode, in one word. */
#define OCC_SHIFT 10
#define OCC(k, i) (((int64_t)(k) << OCC_SHIFT) | (i))

struct entry {
  int64_t col, v;
};

static int entry_cmp(const void *a, const void *b)
{
  const struct entry *x = a, *y = b;
  if (x->col != y->col) return x->col < y->col ? -1 : 1;
  const int64_t u = x->v < 0 ? ~x->v : x->v, w = y->v < 0 ? ~y->v : y->v;
  return (u > w) - (u < w);
}

static int compare_i64(const void *a, const void *b)
{
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

void pattern_free(struct pattern *p)
{
  free(p->rowptr);
  free(p->colind);
  free(p->perm);
  free(p->seg);
  memset(p, 0, sizeof *p);
}

/* What the builder works with: the cells in order, the transpose of the DOF map (the
 * occurrences of each scalar mode) and the scalar pattern. */
struct build {
  const struct femint_space *s;
  int ncell;
  const int *cells;
  int64_t mlo, mhi;       /* the scalar modes whose rows are built (the others stay empty) */
  int64_t *occ_ptr, *occ; /* [nmode + 1], [occurrences] of the modes mlo..mhi - 1 */
  int64_t *srow, *scol;   /* the scalar pattern: [nmode + 1], [srow[nmode]] */
  int64_t *valid;         /* [ncell] local modes of the cell that exist */
};

static void build_free(struct build *b)
{
  free(b->occ_ptr);
  free(b->occ);
  free(b->srow);
  free(b->scol);
  free(b->valid);
}

#define CELL(b, k) ((b)->cells ? (b)->cells[k] : (k))

/* The occurrences of every scalar mode, cells in list order. */
static int transpose(struct build *b)
{
  const struct femint_space *s = b->s;
  const int64_t nm = s->nmode;
  b->occ_ptr = calloc((size_t)nm + 1, sizeof *b->occ_ptr);
  b->valid = malloc(((size_t)b->ncell + 1) * sizeof *b->valid);
  if (!b->occ_ptr || !b->valid) return FEMINT_ENOMEM;
  for (int k = 0; k < b->ncell; k++) {
    const int c = CELL(b, k);
    b->valid[k] = 0;
    for (int64_t l = s->cell_off[c]; l < s->cell_off[c + 1]; l++)
      if (s->cell_mode[l] >= 0) {
        b->valid[k]++;
        if (s->cell_mode[l] >= b->mlo && s->cell_mode[l] < b->mhi)
          b->occ_ptr[s->cell_mode[l] + 1]++;
      }
  }
  for (int64_t m = 0; m < nm; m++) b->occ_ptr[m + 1] += b->occ_ptr[m];
  b->occ = malloc(((size_t)b->occ_ptr[nm] + 1) * sizeof *b->occ);
  int64_t *fill = calloc((size_t)nm + 1, sizeof *fill);
  if (!b->occ || !fill) {
    free(fill);
    return FEMINT_ENOMEM;
  }
  for (int k = 0; k < b->ncell; k++) {
    const int c = CELL(b, k);
    for (int64_t l = s->cell_off[c]; l < s->cell_off[c + 1]; l++) {
      const int64_t m = s->cell_mode[l];
      if (m >= b->mlo && m < b->mhi)
        b->occ[b->occ_ptr[m] + fill[m]++] = OCC(k, l - s->cell_off[c]);
    }
  }
  free(fill);
  return 0;
}

/* The distinct scalar columns of every scalar row (the modes of the cells of its occurrences),
 * counted (fill = 0) or written sorted (fill = 1). */
static int scalar_rows(struct build *b, int fill)
{
  const struct femint_space *s = b->s;
  const int64_t nm = s->nmode;
  int fail = 0;
#pragma omp parallel
  {
    int64_t *mark = malloc(((size_t)nm + 1) * sizeof *mark);
    if (!mark) {
#pragma omp atomic write
      fail = 1;
    } else {
      for (int64_t m = 0; m < nm; m++) mark[m] = -1;
#pragma omp for schedule(dynamic, 256)
      for (int64_t m = 0; m < nm; m++) {
        int64_t cnt = 0;
        for (int64_t o = b->occ_ptr[m]; o < b->occ_ptr[m + 1]; o++) {
          const int c = CELL(b, b->occ[o] >> OCC_SHIFT);
          for (int64_t l = s->cell_off[c]; l < s->cell_off[c + 1]; l++) {
            const int64_t col = s->cell_mode[l];
            if (col < 0 || mark[col] == m) continue;
            mark[col] = m;
            if (fill) b->scol[b->srow[m] + cnt] = col;
            cnt++;
          }
        }
        if (fill) qsort(b->scol + b->srow[m], (size_t)cnt, sizeof *b->scol, compare_i64);
        else b->srow[m + 1] = cnt;
      }
      free(mark);
    }
  }
  return fail ? FEMINT_ENOMEM : 0;
}

/* The CSR structure: row m * ne + a holds the columns col * ne + b of the scalar columns of m. */
static int expand(const struct build *b, struct pattern *p)
{
  const int ne = b->s->ncomp;
  const int64_t nm = b->s->nmode, nnz = b->srow[nm] * ne * ne;
  p->n = nm * ne;
  p->nnz = nnz;
  p->rowptr = malloc(((size_t)p->n + 1) * sizeof *p->rowptr);
  p->colind = huge_alloc(((size_t)nnz + 1) * sizeof *p->colind);
  if (!p->rowptr || !p->colind) return FEMINT_ENOMEM;
  p->rowptr[0] = 0;
  for (int64_t m = 0; m < nm; m++)
    for (int a = 0; a < ne; a++)
      p->rowptr[m * ne + a + 1] = b->srow[m] * ne * ne + (a + 1) * (b->srow[m + 1] - b->srow[m]) * ne;
#pragma omp parallel for schedule(dynamic, 256)
  for (int64_t m = 0; m < nm; m++)
    for (int a = 0; a < ne; a++) {
      int64_t at = p->rowptr[m * ne + a];
      for (int64_t k = b->srow[m]; k < b->srow[m + 1]; k++)
        for (int bb = 0; bb < ne; bb++) p->colind[at++] = b->scol[k] * ne + bb;
    }
  return 0;
}

/* The contributions of every row sorted by (column, value), and where each CSR value's start. */
static int contributions(const struct build *b, int symmetric, const int64_t *voff,
                         struct pattern *p)
{
  const struct femint_space *s = b->s;
  const int ne = s->ncomp;
  const int64_t nm = s->nmode;
  int64_t *start = malloc(((size_t)p->n + 1) * sizeof *start);
  if (!start) return FEMINT_ENOMEM;
  /* Row m * ne + a: every valid entry of every cell of m's occurrences, times ne components. */
  start[0] = 0;
  for (int64_t m = 0; m < nm; m++) {
    int64_t len = 0;
    for (int64_t o = b->occ_ptr[m]; o < b->occ_ptr[m + 1]; o++)
      len += b->valid[b->occ[o] >> OCC_SHIFT] * ne;
    for (int a = 0; a < ne; a++) start[m * ne + a + 1] = start[m * ne + a] + len;
  }
  p->ncontrib = start[p->n];
  p->perm = huge_alloc(((size_t)p->ncontrib + 1) * sizeof *p->perm);
  p->seg = malloc(((size_t)p->nnz + 1) * sizeof *p->seg);
  if (!p->perm || !p->seg) {
    free(start);
    return FEMINT_ENOMEM;
  }
  int oom = 0;
#pragma omp parallel reduction(| : oom)
  {
    struct entry *e = NULL;
    int64_t cap = 0;
#pragma omp for schedule(dynamic, 64)
    for (int64_t m = 0; m < nm; m++)
      for (int a = 0; a < ne && !oom; a++) {
        const int64_t r = m * ne + a, len = start[r + 1] - start[r];
        if (len > cap) {
          free(e);
          cap = 2 * len;
          if (!(e = malloc((size_t)cap * sizeof *e))) {
            cap = 0;
            oom = 1;
            break;
          }
        }
        int64_t k = 0;
        for (int64_t o = b->occ_ptr[m]; o < b->occ_ptr[m + 1]; o++) {
          const int64_t cell = b->occ[o] >> OCC_SHIFT;
          const int i = (int)(b->occ[o] & ((1 << OCC_SHIFT) - 1)), c = CELL(b, cell);
          const int64_t off = s->cell_off[c];
          const int nsh = (int)(s->cell_off[c + 1] - off), n = nsh * ne;
          for (int j = 0; j < nsh; j++) {
            const int64_t col = s->cell_mode[off + j];
            if (col < 0) continue;
            const int neg = s->cell_sign[off + i] != s->cell_sign[off + j];
            for (int bb = 0; bb < ne; bb++) {
              const int64_t v = voff[cell] + pattern_entry(n, i * ne + a, j * ne + bb, symmetric);
              e[k++] = (struct entry){col * ne + bb, neg ? ~v : v};
            }
          }
        }
        qsort(e, (size_t)len, sizeof *e, entry_cmp);
        int64_t u = p->rowptr[r] - 1;
        for (k = 0; k < len; k++) {
          if (k == 0 || e[k].col != e[k - 1].col) p->seg[++u] = start[r] + k;
          p->perm[start[r] + k] = e[k].v;
        }
      }
    free(e);
  }
  p->seg[p->nnz] = p->ncontrib;
  free(start);
  return oom ? FEMINT_ENOMEM : 0;
}

int pattern_build(femint_context_t ctx, const struct femint_space *s, int ncell, const int *cells,
                  int symmetric, const int64_t *voff, struct pattern *p)
{
  return pattern_build_rows(ctx, s, ncell, cells, symmetric, voff, 0, s->nmode, p);
}

int pattern_build_rows(femint_context_t ctx, const struct femint_space *s, int ncell,
                       const int *cells, int symmetric, const int64_t *voff, int64_t mlo,
                       int64_t mhi, struct pattern *p)
{
  memset(p, 0, sizeof *p);
  struct build b = {
      .s = s, .ncell = cells ? ncell : s->mesh->ncell, .cells = cells, .mlo = mlo, .mhi = mhi};
  int err = transpose(&b);
  if (!err && !(b.srow = calloc((size_t)s->nmode + 1, sizeof *b.srow))) err = FEMINT_ENOMEM;
  if (!err) err = scalar_rows(&b, 0);
  if (!err) {
    for (int64_t m = 0; m < s->nmode; m++) b.srow[m + 1] += b.srow[m];
    if (!(b.scol = malloc(((size_t)b.srow[s->nmode] + 1) * sizeof *b.scol))) err = FEMINT_ENOMEM;
  }
  if (!err) err = scalar_rows(&b, 1);
  if (!err) err = expand(&b, p);
  if (!err && voff) err = contributions(&b, symmetric, voff, p);
  build_free(&b);
  if (err) {
    pattern_free(p);
    return femint_seterr(ctx, err, "sparsity pattern: out of memory (%lld DOFs, %d cells)",
                         (long long)(s->nmode * s->ncomp), ncell);
  }
  return 0;
}
