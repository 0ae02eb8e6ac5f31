/* The CPU implementation of integrate_volume: an OpenMP team over the cells of a batch, with a
 * block update specialised per form. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codelets.h"

/* Element values are float or double: the same codelet serves both precisions. */
#define LOAD(ptr, i, single) ((single) ? (double)((const float *)(ptr))[i] : ((const double *)(ptr))[i])

/* psi[4][nsh]: values and physical derivatives at one point; t = the 10 Jacobian terms. */
static void physical_derivatives(int nsh, const void *phi, size_t off, int single,
                                 const double *t, double *psi)
{
  for (int i = 0; i < nsh; i++) {
    double d0 = LOAD(phi, off + nsh + i, single), d1 = LOAD(phi, off + 2 * nsh + i, single),
           d2 = LOAD(phi, off + 3 * nsh + i, single);
    psi[i] = LOAD(phi, off + i, single);
    for (int d = 0; d < 3; d++)
      psi[(1 + d) * nsh + i] = d0 * t[1 + d] + d1 * t[4 + d] + d2 * t[7 + d];
  }
}

/* Upper blocks (jdof >= idof) of the 3x3 elasticity blocks at one point; w = det J * weight. */
static void update_elasticity(int nsh, const double *psi, double w, double lam, double mu,
                              double *A)
{
  const int n = 3 * nsh;
  const double *px = psi + nsh, *py = psi + 2 * nsh, *pz = psi + 3 * nsh;
  for (int i = 0; i < nsh; i++) {
    const double h0 = w * px[i], h1 = w * py[i], h2 = w * pz[i];
    const double l0 = lam * h0, l1 = lam * h1, l2 = lam * h2;
    const double m0 = mu * h0, m1 = mu * h1, m2 = mu * h2;
    double *A0 = A + (size_t)(3 * i) * n, *A1 = A0 + n, *A2 = A1 + n;
    for (int j = i; j < nsh; j++) {
      const double g0 = px[j], g1 = py[j], g2 = pz[j];
      const double dot = m0 * g0 + m1 * g1 + m2 * g2;
      A0[3 * j + 0] += l0 * g0 + m0 * g0 + dot;
      A0[3 * j + 1] += l0 * g1 + m1 * g0;
      A0[3 * j + 2] += l0 * g2 + m2 * g0;
      A1[3 * j + 0] += l1 * g0 + m0 * g1;
      A1[3 * j + 1] += l1 * g1 + m1 * g1 + dot;
      A1[3 * j + 2] += l1 * g2 + m2 * g1;
      A2[3 * j + 0] += l2 * g0 + m0 * g2;
      A2[3 * j + 1] += l2 * g1 + m1 * g2;
      A2[3 * j + 2] += l2 * g2 + m2 * g2 + dot;
    }
  }
}

/* Upper blocks of a form diagonal in the components: v = k * (grad . grad) or k * value^2. */
static void update_diagonal(int nsh, int ne, const double *psi, double wk, int gradient,
                            double *A)
{
  const int n = nsh * ne;
  for (int i = 0; i < nsh; i++) {
    double *Ai = A + (size_t)i * ne * n;
    if (gradient) {
      const double h0 = wk * psi[nsh + i], h1 = wk * psi[2 * nsh + i], h2 = wk * psi[3 * nsh + i];
      for (int j = i; j < nsh; j++) {
        double v = h0 * psi[nsh + j] + h1 * psi[2 * nsh + j] + h2 * psi[3 * nsh + j];
        for (int e = 0; e < ne; e++) Ai[(size_t)e * n + j * ne + e] += v;
      }
    } else {
      const double h = wk * psi[i];
      for (int j = i; j < nsh; j++) {
        double v = h * psi[j];
        for (int e = 0; e < ne; e++) Ai[(size_t)e * n + j * ne + e] += v;
      }
    }
  }
}

/* All blocks of the generic form: c[iE][jE][iD][jD] for every pair. */
static void update_generic(int nsh, int ne, const double *psi, double w, const double *c,
                           double *A)
{
  const int n = nsh * ne;
  for (int i = 0; i < nsh; i++)
    for (int iE = 0; iE < ne; iE++) {
      double *Ar = A + (size_t)(i * ne + iE) * n;
      for (int jE = 0; jE < ne; jE++)
        for (int iD = 0; iD < 4; iD++) {
          const double *cc = c + ((iE * ne + jE) * 4 + iD) * 4;
          const double h = w * psi[iD * nsh + i];
          if (h == 0) continue;
          for (int jD = 0; jD < 4; jD++) {
            if (cc[jD] == 0) continue;
            const double hc = h * cc[jD];
            const double *g = psi + jD * nsh;
            for (int j = 0; j < nsh; j++) Ar[j * ne + jE] += hc * g[j];
          }
        }
    }
}

/* Fill the lower blocks of a symmetric element matrix from the upper ones. */
static void mirror_blocks(int nsh, int ne, double *A)
{
  const int n = nsh * ne;
  for (int i = 0; i < nsh; i++)
    for (int j = 0; j < i; j++)
      for (int a = 0; a < ne; a++)
        for (int b = 0; b < ne; b++)
          A[(size_t)(i * ne + a) * n + j * ne + b] = A[(size_t)(j * ne + b) * n + i * ne + a];
}

void integrate_volume_batch_cpu(const struct batch *b, const void *jac, const void *coef,
                                const void *phi, void *mats, int workerid, int nthreads)
{
  const struct group *g = b->g;
  const int nsh = g->nsh, ne = g->ne, n = g->n, nq = g->re->nq;
  const int single = g->precision == FEMINT_SINGLE;
#pragma omp parallel num_threads(nthreads)
  {
    if (workerid >= 0) femint_team_bind_thread(b->ctx, workerid, omp_get_thread_num());
    double *psi = malloc((size_t)4 * nsh * sizeof *psi);
    double *A = malloc((size_t)n * n * sizeof *A);
    double *c = malloc((size_t)g->ncoef * sizeof *c);
    int oom = !psi || !A || !c;
#pragma omp for schedule(dynamic, 1)
    for (int cell = 0; cell < b->ncell; cell++) {
      if (oom) continue;
      memset(A, 0, (size_t)n * n * sizeof *A);
      for (int k = 0; k < g->ncoef; k++) c[k] = LOAD(coef, (size_t)cell * g->ncoef + k, single);
      for (int q = 0; q < nq; q++) {
        double t[GEOM_NTERMS];
        size_t toff = ((size_t)cell * nq + q) * GEOM_NTERMS;
        for (int k = 0; k < GEOM_NTERMS; k++) t[k] = LOAD(jac, toff + k, single);
        physical_derivatives(nsh, phi, (size_t)q * 4 * nsh, single, t, psi);
        switch (g->kind) {
        case FORM_ELASTICITY: update_elasticity(nsh, psi, t[0], c[0], c[1], A); break;
        case FORM_LAPLACE: update_diagonal(nsh, ne, psi, t[0] * c[0], 1, A); break;
        case FORM_MASS: update_diagonal(nsh, ne, psi, t[0] * c[0], 0, A); break;
        default: update_generic(nsh, ne, psi, t[0], c, A); break;
        }
      }
      if (g->kind != FORM_GENERIC) mirror_blocks(nsh, ne, A);
      size_t off = (size_t)cell * n * n;
      if (single)
        for (size_t k = 0; k < (size_t)n * n; k++) ((float *)mats)[off + k] = (float)A[k];
      else
        memcpy((double *)mats + off, A, (size_t)n * n * sizeof *A);
    }
    if (oom) {
#pragma omp critical
      {
        ((struct batch *)b)->status = FEMINT_ENOMEM;
        snprintf(((struct batch *)b)->msg, sizeof b->msg, "integrate_volume: out of memory");
      }
    }
    free(psi);
    free(A);
    free(c);
  }
}

