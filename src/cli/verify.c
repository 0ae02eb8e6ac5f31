/* Verification of the matrices of femint run by properties that a wrong matrix cannot have:
 * symmetry, null spaces (rigid modes, constants, discrete gradients), 1^T M 1 = volume, the
 * energy u^T A u of fields the space holds against its exact integral, a positive diagonal, and
 * the element matrices of sampled cells, made by the run's workers, against the CPU's in double. */
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
  double norm2 = 0, asym2 = 0, low = n > 0 ? INFINITY : 0;
  /* rows by the threads (the 43 million entries of the tetrahedral box 17^3 took 2.8 s on one) */
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : norm2)
  for (int64_t i = 0; i < n; i++) {
    int sorted = 1;
    for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) {
      e[k].col = colind[k], e[k].val = values[k];
      norm2 += values[k] * values[k];
      sorted &= k == rowptr[i] || colind[k - 1] <= colind[k];
    }
    if (!sorted) qsort(e + rowptr[i], (size_t)(rowptr[i + 1] - rowptr[i]), sizeof *e, entry_cmp);
  }
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : asym2) reduction(min : low)
  for (int64_t i = 0; i < n; i++) {
    double d;
    find_entry(rowptr, e, i, i, &d);
    if (d < low) low = d;
    for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) {
      double t;
      int64_t j = e[k].col;
      int stored = j >= 0 && j < n && find_entry(rowptr, e, j, i, &t);
      double diff = e[k].val - t;
      asym2 += stored ? diff * diff : 2 * e[k].val * e[k].val;
    }
  }
  *dmin = low;
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

/* u^T A u for linear fields u against the exact energy (the coefficients of the CLI's forms:
 * E = 1, nu = 0.3, kappa = 1): for the Laplacian, u = x gives the volume; for elasticity, u =
 * (x, 0, 0) gives (lambda + 2 mu) V (plane stress: E / (1 - nu^2) V), and u = (y, 0, 0) mu V. Swapped
 * or scaled coefficients, a wrong Jacobian or a wrong quadrature weight change them. */
static int energies(const struct cli_setup *s, femint_space_t space, femint_matrix_t A,
                    double tol, double volume, double *u, double *Au, struct cli_check *c,
                    int *nc)
{
  const double E = 1, nu = 0.3, mu = E / (2 * (1 + nu)), lambda = E * nu / ((1 + nu) * (1 - 2 * nu));
  const int flat = cli_shape_dim(s->shape) == 2;
  const int64_t n = femint_space_num_dofs(space);
  const int nfield = s->problem == PROBLEM_ELASTICITY ? 2 : 1;
  for (int k = 0; k < nfield; k++) {
    double b[9] = {0}, exact;
    const char *name;
    if (s->problem == PROBLEM_LAPLACE) {
      b[0] = 1, exact = volume, name = "energy: u = x";
    } else if (k == 0) {
      b[0] = 1, name = "energy: u = (x, 0, 0)";
      exact = (flat ? E / (1 - nu * nu) : lambda + 2 * mu) * volume;
    } else {
      b[1] = 1, name = "energy: u = (y, 0, 0)", exact = mu * volume;
    }
    int rc = femint_space_interpolate_linear(space, NULL, b, u);
    if (!rc) rc = femint_matrix_mult(A, u, Au);
    if (rc) return rc;
    double e = 0;
    for (int64_t i = 0; i < n; i++) e += u[i] * Au[i];
    add_check(c, nc, name, fabs(e - exact) / exact, tol, 0);
  }
  return 0;
}

/* The null space of elasticity (translations, rotations about centre), of the Laplacian (the
 * constant), or 1^T M 1 = volume for each component of the mass matrix. */
static int h1_modes(const struct cli_setup *s, femint_space_t space, femint_matrix_t A,
                    double normA, double tol, double volume, const double centre[3], int linear,
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
      if (m >= 3 && !linear) continue;
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
  if (!rc && linear && s->problem != PROBLEM_MASS)
    rc = energies(s, space, A, tol, volume, r, Ar, c, nc);
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
    /* Curved cells (geometry of order 2) of order 1 do not hold linear fields: the rotations
     * and energies need order 2 there. */
    const int straight = femint_mesh_num_nodes(mesh) == cli_shape_vertices(s->shape);
    int linear = 1;
    for (int c = 0; c < femint_mesh_num_cells(mesh) && !straight && linear; c++)
      linear = femint_space_cell_order(space, c) >= 2;
    rc = h1_modes(s, space, A[0], norm[0], tol, volume, centre, linear, checks, nchecks);
    add_check(checks, nchecks, "positive diagonal", dmin[0], 0, 1);
  }
  if (rc == FEMINT_ENOMEM) return cli_fail("out of memory while verifying the matrices");
  return rc;
}

/* The element matrices of the sampled cells handed over by the workers against the CPU's. */
struct sample {
  femint_operator_t op;
  double err, *ref;
  int rc;
};

static int compare_cells(const struct femint_element_batch *b, void *user)
{
  struct sample *sm = user;
  const int n = b->n;
  for (int k = 0; k < b->ncell && !sm->rc; k++) {
    if ((sm->rc = femint_operator_element_matrix(sm->op, b->form, b->cells[k], sm->ref)) != 0)
      break;
    const size_t per = b->symmetric ? (size_t)n * (n + 1) / 2 : (size_t)n * n;
    double big = 0, diff = 0;
    for (int i = 0, at = 0; i < n; i++)
      for (int j = b->symmetric ? i : 0; j < n; j++, at++) {
        const size_t o = (size_t)k * per + (size_t)at;
        const double got = b->precision == FEMINT_SINGLE ? ((const float *)b->mats)[o]
                                                         : ((const double *)b->mats)[o];
        const double want = sm->ref[(size_t)i * n + j];
        big = fmax(big, fabs(want));
        diff = fmax(diff, fabs(got - want));
      }
    sm->err = fmax(sm->err, big > 0 ? diff / big : diff);
  }
  return sm->rc;
}

int cli_verify_cells(femint_context_t ctx, femint_space_t space, int ncell, int nform,
                     const femint_form_t *forms, const struct femint_operator_options *opt,
                     struct cli_check *checks, int *nchecks)
{
  enum { NSAMPLE = 8 };
  const int ns = ncell < NSAMPLE ? ncell : NSAMPLE;
  int cells[NSAMPLE], nopencl = 0, n = 0;
  for (int k = 0; k < ns; k++) {
    cells[k] = (int)((int64_t)k * ncell / ns);
    const int size = femint_space_cell_size(space, cells[k]);
    if (size > n) n = size;
  }
  femint_context_workers(ctx, NULL, &nopencl, NULL);
  struct femint_operator_options o = *opt;
  o.cells = cells;
  o.ncells = ns;
  o.timeline = NULL;
  /* the kernels of the devices, where the run may use them */
  if (nopencl > 0 && o.where == FEMINT_WHERE_ANY) o.where = FEMINT_WHERE_OPENCL;
  struct sample sm = {0};
  int rc = femint_operator_create(ctx, space, nform, forms, &o, &sm.op);
  if (rc && o.where != opt->where) {
    o.where = opt->where;
    rc = femint_operator_create(ctx, space, nform, forms, &o, &sm.op);
  }
  if (!rc && !(sm.ref = malloc(((size_t)n * n + 1) * sizeof *sm.ref))) rc = FEMINT_ENOMEM;
  if (!rc) rc = femint_operator_integrate(sm.op, compare_cells, &sm, NULL);
  if ((rc == FEMINT_EOPENCL || rc == FEMINT_ENODEV) && o.where != opt->where) {
    /* the devices failed here first (the run's tasks may all have gone to the CPU workers) */
    fprintf(stderr, "femint: warning: the check of %d cells: %s; the work is done again on the "
                    "run's workers\n", ns, femint_last_error(ctx));
    femint_operator_destroy(&sm.op);
    o.where = opt->where;
    rc = femint_operator_create(ctx, space, nform, forms, &o, &sm.op);
    if (!rc) rc = femint_operator_integrate(sm.op, compare_cells, &sm, NULL);
  }
  if (rc == FEMINT_ECALLBACK) rc = sm.rc;
  if (!rc) {
    char name[64];
    snprintf(name, sizeof name, "element matrices: %d cells", ns);
    add_check(checks, nchecks, name, sm.err, opt->precision == FEMINT_SINGLE ? 1e-4 : 1e-10, 0);
  }
  free(sm.ref);
  femint_operator_destroy(&sm.op);
  return rc;
}
