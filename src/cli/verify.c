/* Verification of the matrices of femint run by properties that a wrong matrix cannot have:
 * symmetry, null spaces (rigid modes, constants, discrete gradients), 1^T M 1 = volume, and a
 * positive diagonal. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct entry {
  int64_t col;
  double val;
};

static int entry_cmp(const void *a, const void *b)
{
  int64_t x = ((const struct entry *)a)->col, y = ((const struct entry *)b)->col;
  return (x > y) - (x < y);
}

/* The value at (i, j) of rows sorted by column, 0 when not stored. */
static int find_entry(const int64_t *rowptr, const struct entry *e, int64_t i, int64_t j,
                      double *v)
{
  int64_t lo = rowptr[i], hi = rowptr[i + 1];
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (e[mid].col < j) lo = mid + 1;
    else hi = mid;
  }
  if (lo < rowptr[i + 1] && e[lo].col == j) {
    *v = e[lo].val;
    return 1;
  }
  *v = 0;
  return 0;
}

static void add_check(struct cli_check *c, int *n, const char *name, double value, double tol,
                      int above)
{
  if (*n == CLI_MAX_CHECKS) return;
  struct cli_check *k = &c[(*n)++];
  snprintf(k->name, sizeof k->name, "%s", name);
  k->value = value;
  k->tolerance = tol;
  k->above = above;
  k->pass = above ? value > tol : value < tol;
}

/* ||A - A^T||_F / ||A||_F, ||A||_F and the smallest diagonal entry. Returns 0 or FEMINT_ENOMEM. */
static int symmetry(femint_matrix_t A, double *asym, double *norm, double *dmin)
{
  int64_t n;
  const int64_t *rowptr, *colind;
  const double *values;
  int rc = femint_matrix_csr(A, &n, &rowptr, &colind, &values);
  if (rc) return rc;
  const int64_t nnz = rowptr[n];
  struct entry *e = malloc((nnz ? nnz : 1) * sizeof *e);
  if (!e) return FEMINT_ENOMEM;
  double norm2 = 0, asym2 = 0;
  *dmin = n > 0 ? INFINITY : 0;
  for (int64_t i = 0; i < n; i++) {
    for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) {
      e[k].col = colind[k], e[k].val = values[k];
      norm2 += values[k] * values[k];
    }
    qsort(e + rowptr[i], (size_t)(rowptr[i + 1] - rowptr[i]), sizeof *e, entry_cmp);
  }
  for (int64_t i = 0; i < n; i++) {
    double d;
    find_entry(rowptr, e, i, i, &d);
    if (d < *dmin) *dmin = d;
    for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) {
      double t;
      int64_t j = e[k].col;
      int stored = j >= 0 && j < n && find_entry(rowptr, e, j, i, &t);
      double diff = e[k].val - t;
      asym2 += stored ? diff * diff : 2 * e[k].val * e[k].val;
    }
  }
  free(e);
  *norm = sqrt(norm2);
  *asym = *norm > 0 ? sqrt(asym2) / *norm : INFINITY;
  return 0;
}

/* ||A r|| / (||A||_F ||r||), Ar room for the product. */
static int image(femint_matrix_t A, double normA, int64_t n, const double *r, double *Ar,
                 double *rel)
{
  int rc = femint_matrix_mult(A, r, Ar);
  if (rc) return rc;
  double nr = 0, nAr = 0;
  for (int64_t i = 0; i < n; i++) nr += r[i] * r[i], nAr += Ar[i] * Ar[i];
  *rel = nr > 0 && normA > 0 ? sqrt(nAr) / (normA * sqrt(nr)) : 0;
  return 0;
}

/* The null space of elasticity (translations, rotations about centre), of the Laplacian (the
 * constant), or 1^T M 1 = volume for each component of the mass matrix. */
static int h1_modes(const struct cli_setup *s, femint_space_t space, femint_matrix_t A,
                    double normA, double tol, double volume, const double centre[3],
                    struct cli_check *c, int *nc)
{
  const int64_t n = femint_space_num_dofs(space);
  const int ncomp = femint_space_num_components(space);
  const char *axis = "xyz";
  char name[64];
  double *r = malloc((n ? n : 1) * sizeof *r), *Ar = malloc((n ? n : 1) * sizeof *Ar), rel;
  int rc = r && Ar ? 0 : FEMINT_ENOMEM;
  if (!rc && s->problem == PROBLEM_ELASTICITY) {
    for (int m = 0; m < 6 && !rc; m++) {
      /* in 2D: the translations along x and y and the rotation about z */
      if (cli_shape_dim(s->shape) == 2 && (m == 2 || m == 3 || m == 4)) continue;
      double a[3] = {0, 0, 0}, b[9] = {0};
      if (m < 3) {
        a[m] = 1;
      } else {
        /* u = e_k x (x - centre): B is the cross-product matrix of e_k, a = -B centre. */
        int k = m - 3, i = (k + 1) % 3, j = (k + 2) % 3;
        b[3 * j + i] = 1, b[3 * i + j] = -1;
        a[j] = -centre[i], a[i] = centre[j];
      }
      if ((rc = femint_space_interpolate_linear(space, a, b, r)) != 0 ||
          (rc = image(A, normA, n, r, Ar, &rel)) != 0)
        break;
      snprintf(name, sizeof name, "null space: %s %c", m < 3 ? "translation" : "rotation",
               axis[m % 3]);
      add_check(c, nc, name, rel, tol, 0);
    }
  } else if (!rc && s->problem == PROBLEM_LAPLACE) {
    double a[5] = {1, 1, 1, 1, 1};
    if ((rc = femint_space_interpolate_linear(space, a, NULL, r)) == 0 &&
        (rc = image(A, normA, n, r, Ar, &rel)) == 0)
      add_check(c, nc, "null space: constant", rel, tol, 0);
  } else if (!rc) {
    for (int k = 0; k < ncomp && k < 3 && !rc; k++) {
      double a[5] = {0}, sum = 0;
      a[k] = 1;
      if ((rc = femint_space_interpolate_linear(space, a, NULL, r)) != 0 ||
          (rc = femint_matrix_mult(A, r, Ar)) != 0)
        break;
      for (int64_t i = 0; i < n; i++) sum += r[i] * Ar[i];
      snprintf(name, sizeof name, "volume: 1^T M 1 (component %c)", axis[k]);
      add_check(c, nc, name, fabs(sum - volume) / volume, tol, 0);
    }
  }
  free(r);
  free(Ar);
  return rc;
}

/* S u ~ 0 for u the discrete gradient of random vertex values. */
static int gradients(femint_mesh_t mesh, femint_space_t space, femint_matrix_t S, double normS,
                     double tol, struct cli_check *c, int *nc)
{
  const int64_t n = femint_space_num_dofs(space);
  const int nv = femint_mesh_num_vertices(mesh);
  double *phi = malloc((nv + 1) * sizeof *phi), *u = malloc((n + 1) * sizeof *u),
         *Su = malloc((n + 1) * sizeof *Su), rel = 0;
  int rc = phi && u && Su ? 0 : FEMINT_ENOMEM;
  uint64_t x = 88172645463325252ull; /* xorshift: the same values on every run */
  for (int v = 0; !rc && v < nv; v++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    phi[v] = (double)(x >> 11) / 9007199254740992.0 - 0.5;
  }
  if (!rc && (rc = femint_space_gradient(space, phi, u)) == 0 &&
      (rc = image(S, normS, n, u, Su, &rel)) == 0)
    add_check(c, nc, "null space: S grad(phi)", rel, tol, 0);
  free(phi);
  free(u);
  free(Su);
  return rc;
}

int cli_verify(const struct cli_setup *s, femint_mesh_t mesh, femint_space_t space,
               femint_matrix_t *A, int precision, double volume, const double centre[3],
               struct cli_check *checks, int *nchecks)
{
  const double tol = precision == FEMINT_SINGLE ? 1e-5 : 1e-12;
  double asym, norm[CLI_MAX_FORMS] = {0}, dmin[CLI_MAX_FORMS] = {0};
  char name[64];
  const int nform = cli_setup_nforms(s);
  int rc = 0;
  *nchecks = 0;
  for (int f = 0; f < nform && !rc; f++) {
    if ((rc = symmetry(A[f], &asym, &norm[f], &dmin[f])) != 0) break;
    if (nform > 1) snprintf(name, sizeof name, "symmetry: %s", cli_form_letter(s, f));
    else snprintf(name, sizeof name, "symmetry");
    add_check(checks, nchecks, name, asym, tol, 0);
  }
  if (!rc && s->problem == PROBLEM_MAXWELL) {
    add_check(checks, nchecks, "positive diagonal: T", dmin[0], 0, 1);
    rc = gradients(mesh, space, A[1], norm[1], tol, checks, nchecks);
  } else if (!rc) {
    rc = h1_modes(s, space, A[0], norm[0], tol, volume, centre, checks, nchecks);
    add_check(checks, nchecks, "positive diagonal", dmin[0], 0, 1);
  }
  if (rc == FEMINT_ENOMEM) return cli_fail("out of memory while verifying the matrices");
  return rc;
}
