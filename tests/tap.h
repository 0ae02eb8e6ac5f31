/* A tiny TAP producer for femint's tests: plan, ok/not ok lines, diagnostics, skips. */
#ifndef FEMINT_TAP_H
#define FEMINT_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_count_, tap_failed_;

static inline void tap_plan(int n) { printf("1..%d\n", n); fflush(stdout); }

/* "1..0 # SKIP reason" and exit 0: the harness reports the test as skipped. */
static inline void tap_skip_all(const char *why)
{
  printf("1..0 # SKIP %s\n", why);
  exit(0);
}

static inline int tap_ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int tap_ok(int cond, const char *fmt, ...)
{
  va_list ap;
  tap_count_++;
  if (!cond) tap_failed_++;
  printf("%s %d - ", cond ? "ok" : "not ok", tap_count_);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
  return cond;
}

static inline void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void tap_diag(const char *fmt, ...)
{
  va_list ap;
  printf("# ");
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
}

/* Ends the program: the plan is printed last when it was not given first. */
static inline int tap_done(void)
{
  printf("1..%d\n", tap_count_);
  return tap_failed_ ? 1 : 0;
}

/* A check of a femint call: prints the error text of a failure. */
#define TAP_CALL(ctx, expr)                                                                     \
  do {                                                                                          \
    int tap_ierr_ = (expr);                                                                     \
    if (tap_ierr_) {                                                                            \
      printf("Bail out! %s failed: %s (%s)\n", #expr, femint_error_name(tap_ierr_),             \
             (ctx) ? femint_last_error(ctx) : "");                                              \
      exit(1);                                                                                  \
    }                                                                                           \
  } while (0)

/* Relative Frobenius difference of two arrays. */
static inline double tap_reldiff(const double *a, const double *b, size_t n)
{
  double d = 0, s = 0;
  for (size_t i = 0; i < n; i++) {
    d += (a[i] - b[i]) * (a[i] - b[i]);
    s += b[i] * b[i];
  }
  return s > 0 ? sqrt(d / s) : sqrt(d);
}

#endif
