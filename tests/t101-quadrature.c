/* Test: the Gauss-Legendre, triangle and prism rules integrate monomials to their degree. */
#include <pthread.h>
#include <string.h>

#include "host/host.h"
#include "tap.h"

/* Exact integral of x^i y^j over the reference triangle: i! j! / (i + j + 2)!. */
static double tri_exact(int i, int j)
{
  double r = 1;
  for (int k = 1; k <= j; k++) r *= (double)k / (i + k);
  return r / ((i + j + 1.0) * (i + j + 2.0));
}

static double ipow(double x, int k)
{
  double r = 1;
  for (int i = 0; i < k; i++) r *= x;
  return r;
}

/* Largest relative error of a triangle rule over the monomials of total degree lo..hi. */
static double tri_error(int npts, const double *xy, const double *w, int lo, int hi)
{
  double err = 0;
  for (int d = lo; d <= hi; d++) {
    for (int i = 0; i <= d; i++) {
      int j = d - i;
      double s = 0;
      for (int q = 0; q < npts; q++) s += w[q] * ipow(xy[2 * q], i) * ipow(xy[2 * q + 1], j);
      err = fmax(err, fabs(s - tri_exact(i, j)) / tri_exact(i, j));
    }
  }
  return err;
}

static void test_gauss_legendre(void)
{
  double x[33], w[33];
  int bad_exact = 0, bad_shape = 0, bad_fail = 0;
  double worst = 0;
  for (int n = 1; n <= 32; n++) {
    if (quad_gauss_legendre(n, x, w)) {
      tap_ok(0, "Gauss-Legendre rule of %d points", n);
      return;
    }
    double sum = 0;
    for (int i = 0; i < n; i++) {
      sum += w[i];
      if (w[i] <= 0 || x[i] <= -1 || x[i] >= 1 || (i && x[i] <= x[i - 1])) bad_shape++;
    }
    if (fabs(sum - 2) > 1e-14) bad_shape++;
    for (int k = 0; k <= 2 * n; k++) {
      double s = 0;
      for (int i = 0; i < n; i++) s += w[i] * ipow(x[i], k);
      /* The reference is the integral of |x|^k so that odd powers have a scale. */
      double exact = k % 2 ? 0 : 2.0 / (k + 1), err = fabs(s - exact) / (2.0 / (k + 1));
      if (k <= 2 * n - 1) {
        worst = fmax(worst, err);
        if (err >= 1e-13) {
          bad_exact++;
          tap_diag("n = %d, x^%d: relative error %.3g", n, k, err);
        }
      } else if (n <= 10 && err < 1e-10) {
        /* Past 10 points the error on x^2n falls below rounding. */
        bad_fail++;
      }
    }
  }
  tap_ok(!bad_shape, "Gauss-Legendre n = 1..32: ascending nodes in (-1,1), w > 0, sum w = 2");
  tap_ok(!bad_exact, "Gauss-Legendre n = 1..32 integrate x^k, k <= 2n-1 (max error %.3g)", worst);
  tap_ok(!bad_fail, "Gauss-Legendre n = 1..10 do not integrate x^2n");
  tap_ok(quad_gauss_legendre(0, x, w) == FEMINT_EORDER &&
             quad_gauss_legendre(33, x, w) == FEMINT_EORDER,
         "Gauss-Legendre outside 1..32 returns FEMINT_EORDER");
}

static void *first_call(void *arg)
{
  int npts;
  const double *xy, *w;
  *(int *)arg = quad_triangle(14, &npts, &xy, &w) || npts != 42;
  return NULL;
}

static void test_triangle(void)
{
  static const int expected[8] = {0, 3, 6, 12, 16, 25, 33, 42};
  /* The first use from several threads at once builds the tables once. */
  pthread_t th[4];
  int res[4] = {1, 1, 1, 1}, started = 0, bad = 0;
  for (int t = 0; t < 4; t++)
    if (!pthread_create(&th[t], NULL, first_call, &res[t])) started++;
  for (int t = 0; t < started; t++) {
    pthread_join(th[t], NULL);
    bad += res[t];
  }
  tap_ok(started == 4 && !bad, "concurrent first calls of quad_triangle agree");

  for (int d = 2; d <= 14; d += 2) {
    int npts, bad_shape = 0;
    const double *xy, *w;
    if (quad_triangle(d, &npts, &xy, &w)) {
      tap_ok(0, "triangle rule of degree %d", d);
      continue;
    }
    double sum = 0;
    for (int q = 0; q < npts; q++) {
      double x = xy[2 * q], y = xy[2 * q + 1];
      sum += w[q];
      if (w[q] <= 0 || x <= 0 || y <= 0 || x + y >= 1) bad_shape++;
    }
    tap_ok(npts == expected[d / 2] && !bad_shape && fabs(sum - 0.5) < 1e-15,
           "triangle degree %d: %d points inside, w > 0, sum w - 1/2 = %.2g", d, npts, sum - 0.5);
    double err = tri_error(npts, xy, w, 0, d), above = tri_error(npts, xy, w, d + 1, d + 2);
    tap_ok(err < 1e-13, "triangle degree %d integrates x^i y^j, i+j <= %d: max relative error %.3g",
           d, d, err);
    tap_ok(above > 1e-10, "triangle degree %d is inexact at degree %d..%d (error %.3g)", d, d + 1,
           d + 2, above);
    /* Odd degrees take the next even rule, low degrees the degree-2 rule. */
    int n2;
    const double *xy2, *w2;
    int same = !quad_triangle(d - 1, &n2, &xy2, &w2) && xy2 == xy && w2 == w && n2 == npts;
    tap_ok(same, "quad_triangle(%d) returns the rule of degree %d", d - 1, d);
  }
  int n;
  const double *xy, *w, *xy2, *w2;
  tap_ok(!quad_triangle(0, &n, &xy, &w) && !quad_triangle(2, &n, &xy2, &w2) && xy == xy2 &&
             n == 3 && !quad_triangle(-4, &n, &xy, &w) && xy == xy2,
         "degrees <= 0 take the degree-2 rule");
  int found = 0;
  for (int q = 0; q < 3; q++) {
    static const double pts[3][2] = {{1.0 / 6, 1.0 / 6}, {2.0 / 3, 1.0 / 6}, {1.0 / 6, 2.0 / 3}};
    for (int k = 0; k < 3; k++)
      if (fabs(xy2[2 * q] - pts[k][0]) < 1e-15 && fabs(xy2[2 * q + 1] - pts[k][1]) < 1e-15 &&
          fabs(w2[q] - 1.0 / 6) < 1e-15)
        found |= 1 << k;
  }
  tap_ok(found == 7, "the degree-2 rule is the interior one at (1/6,1/6), (2/3,1/6), (1/6,2/3)");
  tap_ok(quad_triangle(15, &n, &xy, &w) == FEMINT_EORDER &&
             quad_triangle(16, &n, &xy, &w) == FEMINT_EORDER,
         "triangle degrees past 14 return FEMINT_EORDER");
}

static void test_prism(void)
{
  for (int p = 1; p <= 7; p++) { /* the prism's orders */
    struct refel *re = NULL;
    if (refel_prism_create(p, &re)) {
      tap_ok(0, "refel_prism_create(%d): %s", p, femint_thread_error());
      continue;
    }
    int ntri;
    const double *xy, *w;
    double xl[32], wl[32];
    int ok = !quad_triangle(2 * p, &ntri, &xy, &w) && !quad_gauss_legendre(p + 1, xl, wl) &&
             re->ntri == ntri && re->nline == p + 1 && re->nq == ntri * (p + 1) &&
             re->degree == 2 * p;
    double sum = 0;
    for (int q = 0; ok && q < re->nq; q++) {
      int it = q / re->nline, il = q % re->nline;
      sum += re->wq[q];
      ok = re->xq[3 * q] == xy[2 * it] && re->xq[3 * q + 1] == xy[2 * it + 1] &&
           re->xq[3 * q + 2] == xl[il] && fabs(re->wq[q] - w[it] * wl[il]) < 1e-16;
    }
    tap_ok(ok && fabs(sum - 1) < 1e-14,
           "prism rule of order %d: product of triangle degree %d and %d-point Gauss, sum w = 1", p,
           2 * p, p + 1);
    double err = 0;
    for (int a = 0; a <= 2 * p; a++)
      for (int b = 0; a + b <= 2 * p; b++)
        for (int c = 0; c <= 2 * p + 1; c++) {
          double s = 0;
          for (int q = 0; q < re->nq; q++)
            s += re->wq[q] * ipow(re->xq[3 * q], a) * ipow(re->xq[3 * q + 1], b) *
                 ipow(re->xq[3 * q + 2], c);
          double scale = tri_exact(a, b) * 2 / (c + 1), exact = c % 2 ? 0 : scale;
          err = fmax(err, fabs(s - exact) / scale);
        }
    tap_ok(err < 1e-13, "prism rule of order %d integrates x^a y^b z^c, a+b <= %d, c <= %d (%.3g)",
           p, 2 * p, 2 * p + 1, err);
    refel_destroy(&re);
    tap_ok(re == NULL, "refel_destroy sets the handle to NULL");
  }
  struct refel *re = NULL;
  tap_ok(refel_prism_create(0, &re) == FEMINT_EORDER &&
             refel_prism_create(8, &re) == FEMINT_EORDER && re == NULL,
         "prism orders outside 1..7 return FEMINT_EORDER");
}

int main(void)
{
  test_gauss_legendre();
  test_triangle();
  test_prism();
  return tap_done();
}
