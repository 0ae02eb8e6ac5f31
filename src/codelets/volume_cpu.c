/* The CPU implementation of integrate_volume: an OpenMP team over the cells of a batch, one cell
 * per thread at a time. A cell's matrix combines the products S_de = Psi_d^T Psi_e of its basis
 * values (d = 0) and physical derivatives (d = 1..dim) scaled by sqrt(w_q det J_q), all obtained
 * from one symmetric rank-k update: xSYRK of an optimized BLAS, or the blocked loop below. The
 * same code serves prisms (dim 3) and quadrilaterals (dim 2). */
#include <config.h>

#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if FEMINT_HAVE_CBLAS
#include <cblas.h>
#endif

#include "codelets.h"

/* Inputs and outputs are float or double: LOAD reads either as double. */
#define LOAD(ptr, i, single) ((single) ? (double)((const float *)(ptr))[i] : ((const double *)(ptr))[i])

/* Scaled basis Psi (rows x ncol, row-major, leading dimension ldp) of a form: column i*nd + d - d0
 * holds Psi_d of shape function i (d = d0 .. d0 + nd - 1) at point q (row q), or, for the
 * Laplacian (stacked), row 3q + d - 1 and column i, so that one product sums the derivatives. The
 * product G = Psi^T Psi (upper triangle, leading dimension ldg) is ncol x ncol. */
struct psi_layout {
  int d0, nd, stacked;
  int rows, ncol;
  int ncolp;    /* ncol rounded up to a whole tile of the blocked product */
  int ldp, ldg;
  int growsp;   /* rows allocated for G: the blocked product's last tiles overhang */
};

/* Tiles of the blocked product: MR x NR entries of G held in registers (12 AVX2 accumulators),
 * NR one cache line of REAL, summed over slices of KC rows of Psi that stay in the L2 cache. */
enum { MR = 6, NR_D = 8, NR_F = 16, KC = 64, NPAD = 16 };

/* Tiles of TB x TB entries of G keep its mirroring in cache. */
enum { TB = 16 };

static struct psi_layout layout_of(const struct group *g)
{
  const int nsh = g->nsh, nq = g->re->nq, dim = g->dim;
  struct psi_layout L = {0, 1, 0, nq, nsh, 0, 0, 0, 0};
  switch (g->kind) {
  case FORM_ELASTICITY: L = (struct psi_layout){1, dim, 0, nq, dim * nsh, 0, 0, 0, 0}; break;
  case FORM_LAPLACE: L = (struct psi_layout){1, dim, 1, dim * nq, nsh, 0, 0, 0, 0}; break;
  case FORM_MASS: break;
  default: L = (struct psi_layout){0, dim + 1, 0, nq, (dim + 1) * nsh, 0, 0, 0, 0}; break;
  }
  L.ncolp = (L.ncol + NPAD - 1) / NPAD * NPAD;
  L.ldp = L.ncolp + NPAD; /* the blocked product reads up to MR - 1 columns past ncolp */
  L.ldg = L.ncolp;
  L.growsp = L.ncolp + MR;
  return L;
}

/* The per-cell functions take `single` as a constant from the two call sites in the batch loop:
 * always inlined, each is compiled once for float and once for double. */
#if defined(__GNUC__)
#define CELL_INLINE inline __attribute__((always_inline))
#else
#define CELL_INLINE inline
#endif

/* Position of entry (r, c) of an n x n element matrix: row-major, or, where only the upper half is
 * kept (sym, c >= r), packed row by row. */
static CELL_INLINE size_t kpos(size_t n, int sym, size_t r, size_t c)
{
  return sym ? r * (2 * n - r + 1) / 2 + (c - r) : r * n + c;
}

static CELL_INLINE void store(void *K, int single, size_t k, double v)
{
  if (single) ((float *)K)[k] = (float)v;
  else ((double *)K)[k] = v;
}

/* Psi of one cell from the reference tabulation phi[nq][dim+1][nsh] and the Jacobian terms
 * t[nq][1 + dim^2] (both REAL) into P (REAL); the padding columns of P stay as they are (zero).
 * dim is a constant at each call site. */
static CELL_INLINE void build_psi(const struct group *g, const struct psi_layout *L,
                                  const void *phi, const void *jac, size_t toff, int single,
                                  int dim, void *P)
{
  const int nsh = g->nsh, nq = g->re->nq, nt = 1 + dim * dim;
  for (int q = 0; q < nq; q++) {
    const size_t tq = toff + (size_t)q * nt, f = (size_t)q * (dim + 1) * nsh;
    const double s = sqrt(LOAD(jac, tq, single));
    double k[9];
    for (int m = 0; m < dim * dim; m++) k[m] = s * LOAD(jac, tq + 1 + m, single);
    const size_t row = (size_t)q * L->ldp;
    /* the scaled physical derivatives x[d] = sum_j dphi/dxi_j dxi_j/dx_d of function i */
#define DERIVATIVES                                                                               \
  double r[3], x[3];                                                                              \
  for (int j = 0; j < dim; j++) r[j] = LOAD(phi, f + (size_t)(j + 1) * nsh + i, single);          \
  for (int d = 0; d < dim; d++) {                                                                 \
    x[d] = 0;                                                                                     \
    for (int j = 0; j < dim; j++) x[d] += r[j] * k[dim * j + d];                                  \
  }
    switch (g->kind) {
    case FORM_ELASTICITY:
      for (int i = 0; i < nsh; i++) {
        DERIVATIVES;
        for (int d = 0; d < dim; d++) store(P, single, row + (size_t)dim * i + d, x[d]);
      }
      break;
    case FORM_LAPLACE:
      for (int i = 0; i < nsh; i++) {
        DERIVATIVES;
        for (int d = 0; d < dim; d++) store(P, single, dim * row + d * L->ldp + i, x[d]);
      }
      break;
    case FORM_MASS:
      for (int i = 0; i < nsh; i++) store(P, single, row + i, s * LOAD(phi, f + i, single));
      break;
    default:
      for (int i = 0; i < nsh; i++) {
        DERIVATIVES;
        store(P, single, row + (size_t)(dim + 1) * i, s * LOAD(phi, f + i, single));
        for (int d = 0; d < dim; d++) store(P, single, row + (size_t)(dim + 1) * i + 1 + d, x[d]);
      }
      break;
    }
#undef DERIVATIVES
  }
}

#if !FEMINT_HAVE_CBLAS
/* The tiles of the blocked product are compiled for AVX2 + FMA as well as for the baseline,
 * picked at load time (GCC's function multiversioning). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#define FEMINT_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define FEMINT_CLONES
#endif

/* One MR x NR_D tile of G at (r0, c0) over kc rows of Psi: set (first) or add. */
FEMINT_CLONES static void gram_tile_d(int kc, const double *restrict p, int ldp, int r0, int c0,
                               int first, double *restrict g, int ldg)
{
  double acc[MR][NR_D] = {{0}};
  for (int q = 0; q < kc; q++, p += ldp) {
#pragma GCC unroll 6
    for (int r = 0; r < MR; r++) {
      const double a = p[r0 + r];
#pragma omp simd
      for (int c = 0; c < NR_D; c++) acc[r][c] += a * p[c0 + c];
    }
  }
  g += (size_t)r0 * ldg + c0;
  for (int r = 0; r < MR; r++)
    for (int c = 0; c < NR_D; c++) g[(size_t)r * ldg + c] = acc[r][c] + (first ? 0 : g[(size_t)r * ldg + c]);
}

FEMINT_CLONES static void gram_tile_f(int kc, const float *restrict p, int ldp, int r0, int c0,
                               int first, float *restrict g, int ldg)
{
  float acc[MR][NR_F] = {{0}};
  for (int q = 0; q < kc; q++, p += ldp) {
#pragma GCC unroll 6
    for (int r = 0; r < MR; r++) {
      const float a = p[r0 + r];
#pragma omp simd
      for (int c = 0; c < NR_F; c++) acc[r][c] += a * p[c0 + c];
    }
  }
  g += (size_t)r0 * ldg + c0;
  for (int r = 0; r < MR; r++)
    for (int c = 0; c < NR_F; c++) g[(size_t)r * ldg + c] = acc[r][c] + (first ? 0 : g[(size_t)r * ldg + c]);
}

/* The tiles of G = Psi^T Psi on and above the diagonal (the diagonal tiles whole). */
static void gram_d(const struct psi_layout *L, const double *P, double *G)
{
  for (int q0 = 0; q0 < L->rows; q0 += KC) {
    const int kc = L->rows - q0 < KC ? L->rows - q0 : KC;
    for (int c0 = 0; c0 < L->ncolp; c0 += NR_D)
      for (int r0 = 0; r0 < c0 + NR_D; r0 += MR)
        gram_tile_d(kc, P + (size_t)q0 * L->ldp, L->ldp, r0, c0, q0 == 0, G, L->ldg);
  }
}

static void gram_f(const struct psi_layout *L, const float *P, float *G)
{
  for (int q0 = 0; q0 < L->rows; q0 += KC) {
    const int kc = L->rows - q0 < KC ? L->rows - q0 : KC;
    for (int c0 = 0; c0 < L->ncolp; c0 += NR_F)
      for (int r0 = 0; r0 < c0 + NR_F; r0 += MR)
        gram_tile_f(kc, P + (size_t)q0 * L->ldp, L->ldp, r0, c0, q0 == 0, G, L->ldg);
  }
}
#endif

/* G = Psi^T Psi, upper triangle, in the precision of the group. */
static void gram(const struct psi_layout *L, int single, const void *P, void *G)
{
#if FEMINT_HAVE_CBLAS
  if (single)
    cblas_ssyrk(CblasRowMajor, CblasUpper, CblasTrans, L->ncol, L->rows, 1.0f, P, L->ldp, 0.0f,
                G, L->ldg);
  else
    cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, L->ncol, L->rows, 1.0, P, L->ldp, 0.0, G,
                L->ldg);
#else
  if (single) gram_f(L, P, G);
  else gram_d(L, P, G);
#endif
}

/* Fill the lower triangle of G from the upper one, by tiles of TB x TB that stay in cache. */
static CELL_INLINE void mirror(int ncol, int ldg, int single, void *G)
{
  for (int ib = 0; ib < ncol; ib += TB)
    for (int jb = 0; jb <= ib; jb += TB)
      for (int i = ib; i < ib + TB && i < ncol; i++)
        for (int j = jb; j < jb + TB && j < i; j++) {
          if (single) ((float *)G)[(size_t)i * ldg + j] = ((float *)G)[(size_t)j * ldg + i];
          else ((double *)G)[(size_t)i * ldg + j] = ((double *)G)[(size_t)j * ldg + i];
        }
}

/* Elasticity, G over columns dim*i + a: K[(i,a),(j,b)] = lambda S_ab(i,j) + mu S_ba(i,j)
 * + mu delta_ab (S_11 + ... + S_dd)(i,j), row by row (the upper half only where sym). */
static CELL_INLINE void combine_elasticity(int nsh, int dim, const void *G, int ldg, double lam,
                                           double mu, int single, int sym, void *K)
{
  const size_t n = (size_t)dim * nsh;
  for (int i = 0; i < nsh; i++) {
    const size_t g0 = (size_t)dim * i * ldg;
    for (int j = sym ? i : 0; j < nsh; j++) {
      double s[3][3], tr = 0;
      for (int a = 0; a < dim; a++)
        for (int b = 0; b < dim; b++) s[a][b] = LOAD(G, g0 + a * (size_t)ldg + dim * j + b, single);
      for (int a = 0; a < dim; a++) tr += s[a][a];
      tr *= mu;
      for (int a = 0; a < dim; a++)
        for (int b = sym && j == i ? a : 0; b < dim; b++)
          store(K, single, kpos(n, sym, (size_t)dim * i + a, (size_t)dim * j + b),
                lam * s[a][b] + mu * s[b][a] + (a == b ? tr : 0));
    }
  }
}

/* Laplace and mass: K[(i,e),(j,f)] = delta_ef k G(i,j). */
static CELL_INLINE void combine_diagonal(int nsh, int ne, const void *G, int ldg, double k,
                                         int single, int sym, void *K)
{
  const size_t n = (size_t)nsh * ne, rs = single ? sizeof(float) : sizeof(double);
  for (int i = 0; i < nsh; i++)
    for (int e = 0; e < ne; e++) {
      const size_t r = (size_t)i * ne + e, c0 = sym ? r : 0;
      if (ne > 1) memset((char *)K + kpos(n, sym, r, c0) * rs, 0, (n - c0) * rs);
      for (int j = sym ? i : 0; j < nsh; j++)
        store(K, single, kpos(n, sym, r, (size_t)j * ne + e), k * LOAD(G, (size_t)i * ldg + j, single));
    }
}

/* A non-zero term c[iE][jE][d][e] of the generic array: ke = iE*ne + jE, de = nd*d + e. */
struct term {
  int ke, de;
  double c;
};

/* Generic, G over columns nd*i + d (nd = dim + 1): K[(i,iE),(j,jE)] = sum_de c[iE][jE][d][e]
 * G(nd*i+d, nd*j+e). */
static CELL_INLINE void combine_generic(int nsh, int ne, int nd, const void *G, int ldg,
                                        const struct term *t, int nterm, int single, int sym,
                                        void *K)
{
  const size_t n = (size_t)nsh * ne;
  for (int i = 0; i < nsh; i++)
    for (int j = sym ? i : 0; j < nsh; j++) {
      double s[16], kij[25] = {0};
      for (int d = 0; d < nd; d++)
        for (int e = 0; e < nd; e++)
          s[nd * d + e] = LOAD(G, (size_t)(nd * i + d) * ldg + nd * j + e, single);
      for (int m = 0; m < nterm; m++) kij[t[m].ke] += t[m].c * s[t[m].de];
      for (int a = 0; a < ne; a++)
        for (int b = sym && j == i ? a : 0; b < ne; b++)
          store(K, single, kpos(n, sym, (size_t)i * ne + a, (size_t)j * ne + b), kij[a * ne + b]);
    }
}

/* The element matrix of one cell into K (REAL), full or its packed upper half (g->symmetric, for
 * the symmetric forms); c is the cell's coefficients (ncoef values). */
static CELL_INLINE void integrate_cell(const struct group *g, const struct psi_layout *L,
                                       const void *jac, size_t toff, const double *c,
                                       const void *phi, int single, int dim, void *P, void *G,
                                       struct term *terms, void *K)
{
  const int nsh = g->nsh, ne = g->ne, sym = g->symmetric;
  build_psi(g, L, phi, jac, toff, single, dim, P);
  gram(L, single, P, G);
  mirror(L->ncol, L->ldg, single, G);
  switch (g->kind) {
  case FORM_ELASTICITY:
    combine_elasticity(nsh, dim, G, L->ldg, c[0], c[1], single, sym, K);
    break;
  case FORM_LAPLACE:
  case FORM_MASS: combine_diagonal(nsh, ne, G, L->ldg, c[0], single, sym, K); break;
  default: {
    const int nd = dim + 1, nn = nd * nd;
    int nterm = 0;
    for (int k = 0; k < ne * ne * nn; k++)
      if (c[k] != 0) terms[nterm++] = (struct term){k / nn, k % nn, c[k]};
    combine_generic(nsh, ne, nd, G, L->ldg, terms, nterm, single, sym, K);
  } break;
  }
}

#if FEMINT_HAVE_OPENBLAS
/* Each thread of a team integrates whole cells: OpenBLAS must not start threads of its own. */
static pthread_once_t blas_once = PTHREAD_ONCE_INIT;
static void blas_sequential(void) { openblas_set_num_threads(1); }
#endif

/* The Jacobian terms T (REAL) of cell k of a batch that carries nodes; td: room for them in
 * double. The mesh checked the Jacobians. */
static void cell_terms(const struct group *g, const void *geo, int k, double *td, void *T)
{
  const int single = g->precision == FEMINT_SINGLE, nnode = (int)g->geo_size / g->dim;
  const size_t nt = (size_t)g->re->nq * g->nterms;
  double X[3 * MESH_MAX_NODES];
  int bad;
  for (size_t i = 0; i < g->geo_size; i++) X[i] = LOAD(geo, (size_t)k * g->geo_size + i, single);
  geom_terms(g->re, nnode, X, td, &bad);
  for (size_t i = 0; i < nt; i++) {
    if (single) ((float *)T)[i] = (float)td[i];
    else ((double *)T)[i] = td[i];
  }
}

void integrate_volume_batch_cpu(const struct batch *b, const void *geo, const void *coef,
                                const void *phi, void *mats, int workerid, int nthreads)
{
  const struct group *g = b->g;
  const int n = g->n, nq = g->re->nq;
  const int single = g->precision == FEMINT_SINGLE;
  const size_t rs = single ? sizeof(float) : sizeof(double);
  const struct psi_layout L = layout_of(g);
  const size_t per_cell = g->symmetric ? (size_t)n * (n + 1) / 2 : (size_t)n * n;
#if FEMINT_HAVE_OPENBLAS
  pthread_once(&blas_once, blas_sequential);
#endif
  /* small elements in chunks: one shared counter per cell would cost more than the cell */
  const int chunk = n < 32 ? 32 : n < 128 ? 4 : 1;
#pragma omp parallel num_threads(nthreads)
  {
    if (workerid >= 0) femint_team_bind_thread(b->ctx, workerid, omp_get_thread_num());
    void *P = NULL, *G = NULL;
    double *c = malloc((size_t)g->ncoef * sizeof *c);
    struct term *terms = malloc((size_t)g->ne * g->ne * 16 * sizeof *terms);
    /* a cell's Jacobian terms, when mapped here */
    const size_t nt = g->geo_coords ? (size_t)nq * g->nterms : 0;
    double *td = nt ? malloc(nt * sizeof *td) : NULL;
    void *T = nt ? malloc(nt * rs) : NULL;
    int oom = posix_memalign(&P, 64, (size_t)L.rows * L.ldp * rs) |
              posix_memalign(&G, 64, (size_t)L.growsp * L.ldg * rs) | !c | !terms |
              (nt && (!td || !T));
    if (!oom) memset(P, 0, (size_t)L.rows * L.ldp * rs);
#pragma omp for schedule(dynamic, chunk)
    for (int cell = 0; cell < b->ncell; cell++) {
      if (oom) continue;
      for (int k = 0; k < g->ncoef; k++) c[k] = LOAD(coef, (size_t)cell * g->ncoef + k, single);
      void *K = (char *)mats + (size_t)cell * per_cell * rs;
      const void *jac = geo;
      size_t toff = (size_t)cell * nq * g->nterms;
      if (nt) {
        cell_terms(g, geo, cell, td, T);
        jac = T;
        toff = 0;
      }
      /* each combination of precision and dimension compiled on its own */
      if (g->dim == 3) {
        if (single) integrate_cell(g, &L, jac, toff, c, phi, 1, 3, P, G, terms, K);
        else integrate_cell(g, &L, jac, toff, c, phi, 0, 3, P, G, terms, K);
      } else {
        if (single) integrate_cell(g, &L, jac, toff, c, phi, 1, 2, P, G, terms, K);
        else integrate_cell(g, &L, jac, toff, c, phi, 0, 2, P, G, terms, K);
      }
    }
    if (oom) {
#pragma omp critical
      {
        ((struct batch *)b)->status = FEMINT_ENOMEM;
        snprintf(((struct batch *)b)->msg, sizeof b->msg, "integrate_volume: out of memory");
      }
    }
    free(P);
    free(G);
    free(c);
    free(terms);
    free(td);
    free(T);
  }
}

double volume_cpu_flops(const struct group *g)
{
  const struct psi_layout L = layout_of(g);
  const double nsh = g->nsh, nq = g->re->nq;
  /* Psi: the scaled inverse Jacobian and sqrt per point, 2 dim^2 flops per derivative tuple and
   * one per scaled value per shape function and point */
  const double dim = g->dim;
  double flops = nq * (1 + dim * dim + nsh * ((L.d0 + L.nd > 1 ? 2 * dim * dim : 0) + (L.d0 == 0 ? 1 : 0)));
  /* the symmetric product: ncol (ncol + 1) / 2 entries of rows multiply-adds */
  flops += (double)L.ncol * (L.ncol + 1) * L.rows;
  /* the combination, over the blocks (i, j) of the upper half only where g->symmetric */
  const double blocks = g->symmetric ? nsh * (nsh + 1) / 2 : nsh * nsh;
  switch (g->kind) {
  case FORM_ELASTICITY: flops += (dim * dim * 3 + dim + 1) * blocks; break;
  case FORM_LAPLACE:
  case FORM_MASS: flops += blocks; break;
  default: {
    double *c = malloc((size_t)g->ne * g->ne * 16 * sizeof *c);
    int nterm = g->ncoef;
    if (c && g->form) {
      form_expand(g->form, 0, c);
      nterm = 0;
      for (int k = 0; k < g->ne * g->ne * 16; k++) nterm += c[k] != 0; /* z terms are 0 in 2D */
    }
    free(c);
    flops += 2.0 * nterm * blocks;
  } break;
  }
  return flops;
}
