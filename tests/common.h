/* Helpers shared by femint's tests: the runtime, random distorted prisms, a small CG solver, a
 * Cholesky factorization, the matrix-free diagonal and CG. */
#ifndef FEMINT_TEST_COMMON_H
#define FEMINT_TEST_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "femint.h"
#include "tap.h"

/* A fresh StarPU home for this test, with dmda: uncalibrated performance models make dmda
 * calibrate every kind of worker, so both kinds get tasks. Call before test_init. */
static char test_starpu_home[64];
static inline void test_fresh_dmda(const char *test)
{
  snprintf(test_starpu_home, sizeof test_starpu_home, "/tmp/femint-%s-XXXXXX", test);
  if (!mkdtemp(test_starpu_home)) tap_skip_all("cannot create a temporary StarPU home");
  setenv("STARPU_HOME", test_starpu_home, 1);
  setenv("STARPU_SCHED", "dmda", 1);
}

/* The compiled pointwise sources of this test in its StarPU home (removed with it). */
static inline void test_private_cache(void)
{
  char cache[128];
  snprintf(cache, sizeof cache, "%s/cache", test_starpu_home);
  setenv("FEMINT_CACHE_DIR", cache, 1);
}

/* Remove that StarPU home (after femint_finalize). */
static inline void test_fresh_dmda_remove(void)
{
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", test_starpu_home);
  if (system(cmd)) tap_diag("could not remove %s", test_starpu_home);
}

/* Start femint quietly; NULL (and a TAP skip of everything) if StarPU cannot start. */
static inline femint_context_t test_init(void)
{
  struct femint_init_options opt = {.nopencl = -1, .quiet = 1};
  femint_context_t ctx = NULL;
  int err = femint_init(&opt, &ctx);
  if (err) {
    printf("Bail out! femint_init: %s\n", femint_init_error());
    exit(1);
  }
  return ctx;
}

/* A pointwise form whose coefficients depend on the point x (the geometry's x at every point). */
static inline const char *test_pointwise_with_x(void)
{
  return "FEMINT_POINTWISE void f0(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
         "                         const REAL *da, const REAL *x, const REAL *k, REAL *f)\n"
         "{\n  f[0] = u[0] * (1 + x[0]) - x[dim - 1] * x[1];\n}\n"
         "FEMINT_POINTWISE void f1(int dim, const REAL *u, const REAL *du, const REAL *a,\n"
         "                         const REAL *da, const REAL *x, const REAL *k, REAL *f)\n"
         "{\n  for (int d = 0; d < dim; d++) f[d] = (1 + x[d] * x[d]) * du[d];\n}\n";
}

/* test_init with two OpenCL devices (PoCL's CPU device twice); the test is skipped where PoCL
 * does not give them. */
static inline femint_context_t test_init_two_devices(void)
{
  setenv("POCL_DEVICES", "pthread pthread", 1);
  setenv("STARPU_NOPENCL", "2", 1);
  femint_context_t ctx = test_init();
  int ncpu = 0, nopencl = 0, team = 0;
  femint_context_workers(ctx, &ncpu, &nopencl, &team);
  if (nopencl < 2) {
    femint_finalize(&ctx);
    tap_skip_all("two OpenCL devices are needed (PoCL with POCL_DEVICES='pthread pthread')");
  }
  return ctx;
}

/* A femint_element_fn: y += A_e x over the batches (double precision, full storage); seen[c]
 * counts the cells handed over. */
struct test_sink {
  const double *x;
  double *y;
  int *seen;
};

static inline int test_sink_take(const struct femint_element_batch *b, void *user)
{
  struct test_sink *s = user;
  const double *mats = b->mats; /* double precision, full storage */
  for (int k = 0; k < b->ncell; k++) {
    s->seen[b->cells[k]]++;
    const int64_t *dofs = b->dofs + (size_t)k * b->n;
    const int *sg = b->signs + (size_t)k * b->n;
    const double *Ae = mats + (size_t)k * b->n * b->n;
    for (int i = 0; i < b->n; i++) {
      if (dofs[i] < 0) continue;
      double acc = 0;
      for (int j = 0; j < b->n; j++)
        if (dofs[j] >= 0) acc += sg[i] * sg[j] * Ae[(size_t)i * b->n + j] * s->x[dofs[j]];
      s->y[dofs[i]] += acc;
    }
  }
  return 0;
}

/* The diagonal of form 0 of op (femint_operator_diagonal) in a new array of num_dofs values. */
static inline double *test_diagonal(femint_context_t ctx, femint_operator_t op, femint_space_t s)
{
  femint_vector_t d;
  double *v = malloc((size_t)femint_space_num_dofs(s) * sizeof *v);
  TAP_CALL(ctx, femint_vector_create(s, &d));
  TAP_CALL(ctx, femint_operator_diagonal(op, 0, d));
  TAP_CALL(ctx, femint_vector_get_values(d, v));
  femint_vector_destroy(&d);
  return v;
}

/* u = the solution of A u = rhs for form 0 of op by femint_operator_cg from zero. */
static inline void test_matfree_cg(femint_context_t ctx, femint_operator_t op, femint_space_t s,
                                   const double *rhs, const struct femint_cg_options *o,
                                   struct femint_cg_result *r, double *u)
{
  femint_vector_t vb, vx;
  TAP_CALL(ctx, femint_vector_create(s, &vb));
  TAP_CALL(ctx, femint_vector_create(s, &vx));
  TAP_CALL(ctx, femint_vector_set_values(vb, rhs));
  TAP_CALL(ctx, femint_operator_cg(op, 0, vb, vx, o, r));
  TAP_CALL(ctx, femint_vector_get_values(vx, u));
  femint_vector_destroy(&vb);
  femint_vector_destroy(&vx);
}

/* Integrate and assemble nform forms on a space through an operator made for the call (opt may
 * be NULL): A[0..nform) as femint_operator_assemble gives them; returns femint's code. */
static inline int test_assemble(femint_context_t ctx, femint_space_t space, int nform,
                                const femint_form_t *forms,
                                const struct femint_operator_options *opt, femint_matrix_t *A,
                                struct femint_stats *stats)
{
  femint_operator_t op = NULL;
  int err = femint_operator_create(ctx, space, nform, forms, opt, &op);
  if (!err) err = femint_operator_assemble(op, A, stats);
  femint_operator_destroy(&op);
  return err;
}

/* Relative Frobenius difference of the values of two CSR matrices of the same pattern; 1e300 when
 * their patterns differ. */
static inline double test_matrix_reldiff(femint_matrix_t A, femint_matrix_t B)
{
  int64_t n, m;
  const int64_t *ra, *rb, *ca, *cb;
  const double *va, *vb;
  femint_matrix_csr(A, &n, &ra, &ca, &va);
  femint_matrix_csr(B, &m, &rb, &cb, &vb);
  if (n != m || ra[n] != rb[m] || memcmp(ra, rb, sizeof *ra * (n + 1)) ||
      memcmp(ca, cb, sizeof *ca * ra[n]))
    return 1e300;
  return tap_reldiff(va, vb, (size_t)ra[n]);
}

/* A reproducible uniform number in [0,1). */
static inline double test_rand(uint64_t *state)
{
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(*state >> 11) * (1.0 / 9007199254740992.0);
}

/* A random distorted prism: the reference prism scaled, sheared and each vertex moved by up to
 * `amount`, with its Jacobian kept positive by construction of the moves (small). */
static inline void test_random_prism(uint64_t *state, double amount, double *X)
{
  static const double ref[18] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1};
  double A[9];
  for (int i = 0; i < 9; i++) A[i] = (i % 4 == 0 ? 1.0 : 0.0) + 0.3 * (test_rand(state) - 0.5);
  double shift[3] = {test_rand(state), test_rand(state), test_rand(state)};
  for (int a = 0; a < 6; a++)
    for (int i = 0; i < 3; i++) {
      double s = shift[i];
      for (int j = 0; j < 3; j++) s += A[3 * i + j] * ref[3 * a + j];
      X[3 * a + i] = s + amount * (test_rand(state) - 0.5);
    }
}

/* Conjugate gradients on a femint matrix; returns the iterations (or -1 without convergence). */
static inline int test_cg(femint_matrix_t A, const double *b, double *x, int64_t n, double rtol,
                   int maxit)
{
  double *r = malloc(n * sizeof *r), *p = malloc(n * sizeof *p), *q = malloc(n * sizeof *q);
  femint_matrix_mult(A, x, q);
  double rr = 0, bb = 0;
  for (int64_t i = 0; i < n; i++) {
    r[i] = b[i] - q[i];
    p[i] = r[i];
    rr += r[i] * r[i];
    bb += b[i] * b[i];
  }
  int it = 0;
  while (it < maxit && rr > rtol * rtol * bb) {
    femint_matrix_mult(A, p, q);
    double pq = 0;
    for (int64_t i = 0; i < n; i++) pq += p[i] * q[i];
    double alpha = rr / pq, rr1 = 0;
    for (int64_t i = 0; i < n; i++) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
      rr1 += r[i] * r[i];
    }
    for (int64_t i = 0; i < n; i++) p[i] = r[i] + rr1 / rr * p[i];
    rr = rr1;
    it++;
  }
  free(r);
  free(p);
  free(q);
  return rr <= rtol * rtol * bb ? it : -1;
}

/* Frobenius norm of a CSR matrix. */
static inline double test_matrix_norm(femint_matrix_t A)
{
  int64_t n;
  const int64_t *rp, *ci;
  const double *v;
  femint_matrix_csr(A, &n, &rp, &ci, &v);
  double s = 0;
  for (int64_t k = 0; k < rp[n]; k++) s += v[k] * v[k];
  return sqrt(s);
}

/* In-place Cholesky factorization of the n x n matrix A (lower triangle); returns the smallest
 * pivot relative to the largest diagonal entry, or -1 when a pivot is not positive. */
static inline double cholesky(int n, double *A)
{
  double dmax = 0, rmin = INFINITY;
  for (int i = 0; i < n; i++) dmax = fmax(dmax, A[i * n + i]);
  for (int j = 0; j < n; j++) {
    double d = A[j * n + j];
    for (int k = 0; k < j; k++) d -= A[j * n + k] * A[j * n + k];
    if (!(d > 1e-15 * dmax)) return -1;
    rmin = fmin(rmin, d / dmax);
    d = sqrt(d);
    A[j * n + j] = d;
    for (int i = j + 1; i < n; i++) {
      double s = A[i * n + j];
      for (int k = 0; k < j; k++) s -= A[i * n + k] * A[j * n + k];
      A[i * n + j] = s / d;
    }
  }
  return rmin;
}

static inline void cholesky_solve(int n, const double *L, double *b)
{
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < i; k++) b[i] -= L[i * n + k] * b[k];
    b[i] /= L[i * n + i];
  }
  for (int i = n - 1; i >= 0; i--) {
    for (int k = i + 1; k < n; k++) b[i] -= L[k * n + i] * b[k];
    b[i] /= L[i * n + i];
  }
}

/* The CSR matrix A as a dense n x n array (row-major; the caller frees). */
static inline double *test_dense(femint_matrix_t A, int *n)
{
  int64_t nr;
  const int64_t *rp, *ci;
  const double *v;
  femint_matrix_csr(A, &nr, &rp, &ci, &v);
  double *D = calloc((size_t)nr * nr, sizeof *D);
  for (int64_t i = 0; i < nr; i++)
    for (int64_t k = rp[i]; k < rp[i + 1]; k++) D[i * nr + ci[k]] = v[k];
  *n = (int)nr;
  return D;
}

/* The eigenvalues of the symmetric n x n matrix A (destroyed) in ascending order, by cyclic
 * Jacobi rotations until the off-diagonal part is below 1e-15 of the whole. */
static inline void test_sym_eigenvalues(int n, double *A, double *lambda)
{
  double total = 0;
  for (int i = 0; i < n * n; i++) total += A[i] * A[i];
  for (int sweep = 0; sweep < 60; sweep++) {
    double off = 0;
    for (int i = 0; i < n; i++)
      for (int j = i + 1; j < n; j++) off += 2 * A[i * n + j] * A[i * n + j];
    if (off <= 1e-30 * total) break;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++) {
        const double apq = A[p * n + q];
        if (fabs(apq) < 1e-300) continue;
        const double theta = (A[q * n + q] - A[p * n + p]) / (2 * apq);
        const double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
        const double c = 1 / sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < n; k++) { /* columns p and q */
          const double akp = A[k * n + p], akq = A[k * n + q];
          A[k * n + p] = c * akp - s * akq;
          A[k * n + q] = s * akp + c * akq;
        }
        for (int k = 0; k < n; k++) { /* rows p and q */
          const double apk = A[p * n + k], aqk = A[q * n + k];
          A[p * n + k] = c * apk - s * aqk;
          A[q * n + k] = s * apk + c * aqk;
        }
      }
  }
  for (int i = 0; i < n; i++) lambda[i] = A[i * n + i];
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && lambda[j - 1] > lambda[j]; j--) {
      const double t = lambda[j];
      lambda[j] = lambda[j - 1];
      lambda[j - 1] = t;
    }
}

#ifdef FEMINT_HOST_H
/* Whether two modes are the same, field by field (memcmp would also compare the padding). */
static inline int same_mode(const struct refel_mode *a, const struct refel_mode *b)
{
  return a->kind == b->kind && a->entity == b->entity && a->hdeg == b->hdeg &&
         a->vdeg == b->vdeg && a->degree == b->degree && a->i1 == b->i1 && a->i2 == b->i2 &&
         a->level == b->level && a->type == b->type && a->rank == b->rank && a->odd == b->odd &&
         a->sorted == b->sorted;
}
#endif

#endif
