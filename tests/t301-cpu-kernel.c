/* Test: the CPU integration codelet equals the reference Algorithm 1 on random distorted prisms,
 * p = 1..7, for every form (generic with dense and with sparse coefficients), full and, for the
 * symmetric forms, as packed upper halves, in double (1e-12) and single (1e-4) precision, with
 * teams of 1 to 3 threads; its flop count is below the seed's. */
#include "codelets/codelets.h"
#include "common.h"

/* Random generic coefficients c[ne][ne][4][4] of a cell. */
static void random_generic(uint64_t *st, int ne, double *c)
{
  for (int k = 0; k < ne * ne * 16; k++) c[k] = test_rand(st) - 0.3;
}

/* The worst relative difference over the cells, of the full matrices and, where symmetric, of the
 * packed upper halves. */
static double run(const struct refel *re, struct femint_form *form, int precision, uint64_t *st,
                  int ncell, int nthreads, int symmetric)
{
  struct group g = {.shape = FEMINT_PRISM, .dim = 3, .nterms = GEOM_NTERMS,
                    .order = re->order, .kind = form->kind, .ne = form->ne, .ncoef = form->ncoef,
                    .precision = precision, .nsh = re->nsh, .n = re->nsh * form->ne, .re = re,
                    .form = form};
  const int n = g.n, nq = re->nq, single = precision == FEMINT_SINGLE;
  size_t rs = single ? sizeof(float) : sizeof(double);
  double *X = malloc((size_t)ncell * 18 * sizeof *X), *t = malloc((size_t)nq * 10 * sizeof *t);
  char *jac = malloc((size_t)ncell * nq * 10 * rs), *coef = malloc((size_t)ncell * form->ncoef * rs);
  char *mats = malloc((size_t)ncell * n * n * rs), *packed = malloc((size_t)ncell * n * (n + 1) / 2 * rs);
  double *A = malloc((size_t)n * n * sizeof *A), *B = malloc((size_t)n * n * sizeof *B);
  double *c = malloc((size_t)form->ne * form->ne * 16 * sizeof *c);
  for (int k = 0; k < ncell; k++) {
    int bad;
    do test_random_prism(st, 0.25, X + 18 * k);
    while (geom_prism_terms(re, X + 18 * k, t, &bad));
    for (int i = 0; i < nq * 10; i++) {
      if (single) ((float *)jac)[(size_t)k * nq * 10 + i] = (float)t[i];
      else ((double *)jac)[(size_t)k * nq * 10 + i] = t[i];
    }
    const double *cf = form_coef(form, k);
    for (int i = 0; i < form->ncoef; i++) {
      if (single) ((float *)coef)[k * form->ncoef + i] = (float)cf[i];
      else ((double *)coef)[k * form->ncoef + i] = cf[i];
    }
  }
  int cells[64];
  for (int k = 0; k < ncell; k++) cells[k] = k;
  struct batch b = {.g = &g, .ncell = ncell, .cells = cells};
  integrate_volume_batch_cpu(&b, jac, coef, single ? (void *)re->phi_f : (void *)re->phi, mats,
                             -1, nthreads);
  struct group gs = g;
  gs.symmetric = 1;
  struct batch bs = {.g = &gs, .ncell = ncell, .cells = cells};
  if (symmetric)
    integrate_volume_batch_cpu(&bs, jac, coef, single ? (void *)re->phi_f : (void *)re->phi,
                               packed, -1, nthreads);
  double worst = 0;
  for (int k = 0; k < ncell; k++) {
    form_expand(form, k, c);
    integrate_volume_reference(re, form->ne, c, X + 18 * k, B);
    for (size_t i = 0; i < (size_t)n * n; i++)
      A[i] = single ? ((float *)mats)[(size_t)k * n * n + i] : ((double *)mats)[(size_t)k * n * n + i];
    double d = tap_reldiff(A, B, (size_t)n * n);
    if (d > worst) worst = d;
    if (!symmetric) continue;
    size_t pos = (size_t)k * n * (n + 1) / 2;
    for (int r = 0; r < n; r++)
      for (int col = r; col < n; col++, pos++) {
        double v = single ? ((float *)packed)[pos] : ((double *)packed)[pos];
        A[(size_t)r * n + col] = A[(size_t)col * n + r] = v;
      }
    d = tap_reldiff(A, B, (size_t)n * n);
    if (d > worst) worst = d;
  }
  free(X); free(t); free(jac); free(coef); free(mats); free(packed); free(A); free(B); free(c);
  return worst;
}

int main(void)
{
  uint64_t st = 42;
  for (int p = 1; p <= 7; p++) {
    struct refel *re;
    TAP_CALL(NULL, refel_prism_create(p, &re));
    int ncell = p <= 4 ? 4 : 2;
    double E[4] = {1, 2.5, 0.7, 3}, nu[4] = {0.3, 0.25, 0.45, 0.1}, k[4] = {1, 3, 0.5, 2};
    double g2[4 * 2 * 2 * 16], g3[4 * 3 * 3 * 16];
    for (int i = 0; i < 4; i++) random_generic(&st, 2, g2 + 64 * i);
    for (int i = 0; i < 4; i++) random_generic(&st, 3, g3 + 144 * i);
    femint_form_t forms[6];
    TAP_CALL(NULL, femint_form_create_elasticity(NULL, ncell, E, nu, &forms[0]));
    TAP_CALL(NULL, femint_form_create_laplace(NULL, 1, ncell, k, &forms[1]));
    TAP_CALL(NULL, femint_form_create_mass(NULL, 2, ncell, k, &forms[2]));
    TAP_CALL(NULL, femint_form_create_generic(NULL, 2, ncell, g2, &forms[3]));
    TAP_CALL(NULL, femint_form_create_generic(NULL, 3, ncell, g3, &forms[4]));
    /* elasticity written as a generic array: most coefficients are zero */
    for (int i = 0; i < ncell; i++) form_expand(forms[0], i, g3 + 144 * i);
    TAP_CALL(NULL, femint_form_create_generic(NULL, 3, ncell, g3, &forms[5]));
    for (int f = 0; f < 6; f++) {
      if (p == 7 && f >= 4) continue; /* the generic reference at p = 7, ne = 3 is slow */
      int nthreads = 1 + (p + f) % 3;
      int symmetric = f <= 2 || f == 5;
      double d = run(re, forms[f], FEMINT_DOUBLE, &st, ncell, nthreads, symmetric);
      tap_ok(d < 1e-12, "p=%d %s ne=%d double: rel. Frobenius difference %.2e < 1e-12", p,
             form_kind_name(forms[f]->kind), forms[f]->ne, d);
      d = run(re, forms[f], FEMINT_SINGLE, &st, ncell, nthreads, symmetric);
      tap_ok(d < 1e-4, "p=%d %s ne=%d single: rel. Frobenius difference %.2e < 1e-4", p,
             form_kind_name(forms[f]->kind), forms[f]->ne, d);
    }
    struct group g = {.shape = FEMINT_PRISM, .dim = 3, .nterms = GEOM_NTERMS,
                      .order = p, .kind = FORM_ELASTICITY, .ne = 3, .ncoef = 2, .nsh = re->nsh,
                      .n = 3 * re->nsh, .re = re, .form = forms[0]};
    double seed = (double)re->nq * re->nsh * re->nsh * form_flops_per_block(forms[0]);
    double flops = volume_cpu_flops(&g);
    tap_ok(flops > 0 && flops < seed / (p == 1 ? 2 : 4),
           "p=%d elasticity: %.3g flops per cell, %.2f of the seed's count", p, flops, flops / seed);
    for (int f = 0; f < 6; f++) femint_form_destroy(&forms[f]);
    refel_destroy(&re);
  }
  return tap_done();
}
