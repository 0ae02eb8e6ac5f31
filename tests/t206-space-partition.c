/* Test: what a rank of a distributed code asks of a space: runs of cells own consecutive DOF
 * ranges that partition the DOFs, the boundary DOFs are exactly those whose functions have a
 * trace on the boundary (all faces or by tag), removing them takes exactly those (prisms and
 * quadrilaterals), and the L2 error sums over cells. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "femint.h"
#include "host/host.h"
#include "tap.h"

#define MAX_LOCAL (288 * 5)

static uint64_t rng_state = 777;

static double rnd(void)
{
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rng_state >> 11) * 0x1.0p-53;
}

/* Split the cells into nrun runs [c_r, c_r+1) and check that the DOF ranges are consecutive,
 * cover [0, ndof) in multiples of ncomp, that every DOF of a run's cells lies in its range or
 * before it, and that every DOF of its range is met by one of its cells. */
static int check_runs(femint_space_t s, int nrun, char *what, size_t len)
{
  femint_mesh_t m = s->mesh;
  const int ncell = femint_mesh_num_cells(m), nc = femint_space_num_components(s);
  const int64_t ndof = femint_space_num_dofs(s);
  char *met = calloc((size_t)ndof, 1);
  int64_t prev_end = 0, dofs[MAX_LOCAL];
  int bad_range = 0, after = 0, unmet = 0;
  for (int r = 0; r < nrun; r++) {
    int c0 = (int)((int64_t)r * ncell / nrun), c1 = (int)((int64_t)(r + 1) * ncell / nrun);
    int64_t d0, d1;
    if (femint_space_dof_range(s, c0, c1, &d0, &d1)) bad_range++;
    bad_range += d0 != prev_end || d1 < d0 || d0 % nc || d1 % nc;
    prev_end = d1;
    for (int c = c0; c < c1; c++) {
      int n = refel_prism_nsh(femint_space_cell_order(s, c)) * nc;
      femint_space_cell_dofs(s, c, dofs, NULL);
      for (int i = 0; i < n; i++) {
        if (dofs[i] < 0) continue;
        after += dofs[i] >= d1;
        if (dofs[i] >= d0 && dofs[i] < d1) met[dofs[i]] = 1;
      }
    }
    for (int64_t d = d0; d < d1; d++) unmet += !met[d];
  }
  bad_range += prev_end != ndof;
  free(met);
  snprintf(what, len, "%d bad ranges, %d DOFs past their run's range, %d not met by their run",
           bad_range, after, unmet);
  return bad_range == 0 && after == 0 && unmet == 0;
}

/* The reference point (r1, r2) of local face f (a triangle's barycentric-like pair, or a quad's
 * horizontal and vertical parameters in (0, 1)). */
static void face_point(int f, double r1, double r2, double xi[3])
{
  if (f < 2) {
    if (r1 + r2 > 1) r1 = 1 - r1, r2 = 1 - r2;
    xi[0] = r1, xi[1] = r2, xi[2] = f == 0 ? -1 : 1;
    return;
  }
  double z = 2 * r2 - 1;
  if (f == 2) xi[0] = r1, xi[1] = 0, xi[2] = z;           /* over edge 0-1 */
  if (f == 3) xi[0] = 1 - r1, xi[1] = r1, xi[2] = z;      /* over edge 1-2 */
  if (f == 4) xi[0] = 0, xi[1] = 1 - r1, xi[2] = z;       /* over edge 2-0 */
}

/* The largest value on the boundary faces of a random function that is zero on the listed DOFs. */
static double trace_off_list(femint_space_t s, int64_t n, const int64_t *list)
{
  femint_mesh_t m = s->mesh;
  const int64_t ndof = femint_space_num_dofs(s);
  const int nc = femint_space_num_components(s);
  double *u = malloc((size_t)ndof * sizeof *u), worst = 0;
  for (int64_t i = 0; i < ndof; i++) u[i] = 2 * rnd() - 1;
  for (int64_t i = 0; i < n; i++) u[list[i]] = 0;
  for (int k = 0; k < m->nbface; k++)
    for (int q = 0; q < 4; q++) {
      double xi[3], val[5];
      face_point(m->bface[3 * k + 1], rnd(), rnd(), xi);
      femint_space_eval(s, u, m->bface[3 * k], xi, NULL, val);
      for (int c = 0; c < nc; c++) worst = fmax(worst, fabs(val[c]));
    }
  free(u);
  return worst;
}

/* Scalar modes on the boundary of an nx x ny x nz box of prisms of order p. */
static int64_t box_boundary_modes(int nx, int ny, int nz, int p)
{
  int64_t V = (int64_t)(nx + 1) * (ny + 1) * (nz + 1) - (int64_t)(nx - 1) * (ny - 1) * (nz - 1);
  int64_t E = 2 * (int64_t)(nx * (ny + 1) + (nx + 1) * ny + nx * ny) +
              2 * (int64_t)(ny * (nz + 1) + (ny + 1) * nz) +
              2 * (int64_t)(nx * (nz + 1) + (nx + 1) * nz) - 4 * (int64_t)(nx + ny + nz);
  int64_t T = 4 * (int64_t)nx * ny, Q = 2 * (int64_t)(ny * nz + nx * nz);
  return V + E * (p - 1) + T * (p - 1) * (p - 2) / 2 + Q * (p - 1) * (p - 1);
}

/* Whether every entry of a (ascending) is in b (ascending). */
static int subset_of(int64_t na, const int64_t *a, int64_t nb, const int64_t *b)
{
  int64_t j = 0;
  for (int64_t i = 0; i < na; i++) {
    while (j < nb && b[j] < a[i]) j++;
    if (j == nb || b[j] != a[i]) return 0;
  }
  return 1;
}

static int64_t *boundary_list(femint_space_t s, int ntag, const int *tags, int64_t *n)
{
  TAP_CALL(NULL, femint_space_boundary_dofs(s, ntag, tags, n, NULL));
  int64_t *list = malloc((size_t)(*n + 1) * sizeof *list);
  TAP_CALL(NULL, femint_space_boundary_dofs(s, ntag, tags, n, list));
  return list;
}

static void test_boundary_box(void)
{
  const int nx = 3, ny = 2, nz = 2;
  femint_mesh_t m;
  TAP_CALL(NULL, femint_mesh_create_box(NULL, FEMINT_PRISM, nx, ny, nz, 1, 1.3, 0.8, 0.3, 4, &m));
  for (int p = 1; p <= 4; p++) {
    femint_space_t s;
    const int nc = p == 2 ? 1 : 3;
    TAP_CALL(NULL, femint_space_create(NULL, m, FEMINT_H1, nc, NULL, p, &s));
    int64_t n, nz0, nall = 0;
    int64_t *all = boundary_list(s, 0, NULL, &n);
    int sorted = 1;
    for (int64_t i = 1; i < n; i++) sorted &= all[i] > all[i - 1];
    const int64_t expect = box_boundary_modes(nx, ny, nz, p) * nc;
    double tr = trace_off_list(s, n, all);
    tap_ok(n == expect && sorted && tr < 1e-13,
           "order %d, %d components: %lld boundary DOFs (expected %lld), ascending; a function "
           "zero on them vanishes on the boundary (%.1e)",
           p, nc, (long long)n, (long long)expect, tr);
    /* By tag: the bottom (z = 0, tag 5) alone, and the six tags together. */
    const int bottom = 5, six[6] = {1, 2, 3, 4, 5, 6};
    int64_t *z0 = boundary_list(s, 1, &bottom, &nz0), *union6 = boundary_list(s, 6, six, &nall);
    int64_t tri = (int64_t)nx * (ny + 1) + (int64_t)(nx + 1) * ny + (int64_t)nx * ny;
    int64_t expect_z0 = ((int64_t)(nx + 1) * (ny + 1) + tri * (p - 1) +
                         2LL * nx * ny * (p - 1) * (p - 2) / 2) * nc;
    tap_ok(nz0 == expect_z0 && subset_of(nz0, z0, n, all) && nall == n &&
               !memcmp(union6, all, (size_t)n * sizeof *all),
           "order %d: tag 5 (z = 0) has %lld DOFs (expected %lld), all boundary DOFs; tags 1-6 "
           "give the %lld of every face",
           p, (long long)nz0, (long long)expect_z0, (long long)nall);
    free(z0), free(union6), free(all);
    femint_space_destroy(&s);
  }
  femint_mesh_destroy(&m);
}

/* Whether `removed` is `full` without the DOFs that femint_space_boundary_dofs of full lists for
 * (ntag, tags): its count drops by their number, the cells give -1 exactly there, the other DOFs
 * keep their order, and femint_space_interpolate_linear gives them the values it gives them in
 * full. */
static int removes_listed(femint_space_t full, femint_space_t removed, int ntag, const int *tags)
{
  femint_mesh_t m = full->mesh;
  const int64_t nf = femint_space_num_dofs(full), nr = femint_space_num_dofs(removed);
  int64_t n, *list = boundary_list(full, ntag, tags, &n), fd[MAX_LOCAL], rd[MAX_LOCAL];
  int64_t *to = malloc((size_t)nf * sizeof *to);
  int ok = nr == nf - n && n > 0;
  for (int64_t d = 0; d < nf; d++) to[d] = -2;
  for (int c = 0; c < m->ncell; c++) {
    const int nl = refel_nsh(m->topo->shape, FEMINT_H1, femint_space_cell_order(full, c)) *
                   femint_space_num_components(full);
    femint_space_cell_dofs(full, c, fd, NULL);
    femint_space_cell_dofs(removed, c, rd, NULL);
    for (int i = 0; i < nl; i++) {
      if (fd[i] < 0) {
        ok &= rd[i] < 0;
        continue;
      }
      ok &= to[fd[i]] == -2 || to[fd[i]] == rd[i];
      to[fd[i]] = rd[i];
    }
  }
  for (int64_t k = 0; k < n; k++) ok &= to[list[k]] == -1, to[list[k]] = -3;
  for (int64_t d = 0, last = -1; d < nf; d++) {
    if (to[d] == -3) continue;
    ok &= to[d] == last + 1;
    last = to[d];
  }
  const double a[3] = {0.5, -1, 2}, b[9] = {1, 2, 3, -1, 0.5, 0.25, 0, 1, -2};
  double *uf = malloc((size_t)nf * sizeof *uf), *ur = malloc((size_t)(nr + 1) * sizeof *ur);
  TAP_CALL(NULL, femint_space_interpolate_linear(full, a, b, uf));
  TAP_CALL(NULL, femint_space_interpolate_linear(removed, a, b, ur));
  for (int64_t d = 0; d < nf && ok; d++)
    if (to[d] >= 0) ok &= ur[to[d]] == uf[d];
  free(uf), free(ur), free(to), free(list);
  return ok;
}

/* femint_space_remove_boundary_dofs in H1, on prisms and quadrilaterals of mixed orders with 2
 * components: the DOFs removed are those femint_space_boundary_dofs lists, calls add up, and the
 * errors. */
static void test_remove(int shape)
{
  const int prism = shape == FEMINT_PRISM, first = prism ? 5 : 1, both[2] = {prism ? 5 : 1, 2};
  const int second = 2;
  const char *name = prism ? "prisms" : "quadrilaterals";
  femint_mesh_t m;
  TAP_CALL(NULL, femint_mesh_create_box(NULL, shape, 3, 2, prism ? 2 : 1, 1, 1.3, 0.8, 0.3, 4,
                                        &m));
  const int ncell = femint_mesh_num_cells(m);
  int *orders = malloc((size_t)ncell * sizeof *orders);
  for (int c = 0; c < ncell; c++) orders[c] = 1 + (int)(rnd() * 4);
  femint_space_t full, one, two, seq, all;
  TAP_CALL(NULL, femint_space_create(NULL, m, FEMINT_H1, 2, orders, 0, &full));
  TAP_CALL(NULL, femint_space_create(NULL, m, FEMINT_H1, 2, orders, 0, &one));
  TAP_CALL(NULL, femint_space_create(NULL, m, FEMINT_H1, 2, orders, 0, &two));
  TAP_CALL(NULL, femint_space_create(NULL, m, FEMINT_H1, 2, orders, 0, &seq));
  TAP_CALL(NULL, femint_space_create(NULL, m, FEMINT_H1, 2, orders, 0, &all));
  TAP_CALL(NULL, femint_space_remove_boundary_dofs(one, 1, &first));
  TAP_CALL(NULL, femint_space_remove_boundary_dofs(two, 2, both));
  TAP_CALL(NULL, femint_space_remove_boundary_dofs(seq, 1, &first));
  TAP_CALL(NULL, femint_space_remove_boundary_dofs(seq, 1, &second));
  TAP_CALL(NULL, femint_space_remove_boundary_dofs(all, -1, NULL));
  int64_t left;
  TAP_CALL(NULL, femint_space_boundary_dofs(one, 1, &first, &left, NULL));
  tap_ok(removes_listed(full, one, 1, &first) && left == 0,
         "%s: removing tag %d takes exactly the %lld DOFs femint_space_boundary_dofs lists for it "
         "(-1 in the cells, the others in order, interpolation skips them); none is left there",
         name, first, (long long)(femint_space_num_dofs(full) - femint_space_num_dofs(one)));
  int same = femint_space_num_dofs(seq) == femint_space_num_dofs(two);
  int64_t d2[MAX_LOCAL], ds[MAX_LOCAL];
  for (int c = 0; c < ncell && same; c++) {
    femint_space_cell_dofs(two, c, d2, NULL);
    femint_space_cell_dofs(seq, c, ds, NULL);
    same = !memcmp(d2, ds, (size_t)refel_nsh(shape, FEMINT_H1, orders[c]) * 2 * sizeof *d2);
  }
  tap_ok(same && removes_listed(full, two, 2, both) && removes_listed(full, all, 0, NULL),
         "%s: tags %d and %d in one call or in two give the same space, that of the DOFs listed; "
         "ntag = -1 removes every boundary DOF (%lld left)",
         name, both[0], both[1], (long long)femint_space_num_dofs(all));
  int64_t *ids = malloc((size_t)femint_space_num_dofs(full) * sizeof *ids);
  for (int64_t d = 0; d < femint_space_num_dofs(full); d++) ids[d] = 7 * d;
  TAP_CALL(NULL, femint_space_set_global_dofs(full, ids));
  const int64_t before = femint_space_num_dofs(full);
  int rc = femint_space_remove_boundary_dofs(full, 0, NULL);
  tap_ok(rc == FEMINT_ESTATE && femint_space_num_dofs(full) == before &&
             strstr(femint_last_error(NULL), "femint_space_set_global_dofs"),
         "%s: removing after femint_space_set_global_dofs: %s, \"%s\"", name,
         femint_error_name(rc), femint_last_error(NULL));
  int rc1 = femint_space_remove_boundary_dofs(one, 2, NULL);
  char msg[256];
  snprintf(msg, sizeof msg, "%s", femint_last_error(NULL));
  int named = strstr(msg, "femint_space_remove_boundary_dofs") && strstr(msg, "ntag");
  int rc2 = femint_space_remove_boundary_dofs(one, -2, both);
  named &= strstr(femint_last_error(NULL), "ntag = -2") != NULL;
  int rc3 = femint_space_remove_boundary_dofs(NULL, 0, NULL);
  tap_ok(rc1 == FEMINT_EINVAL && rc2 == FEMINT_EINVAL && rc3 == FEMINT_EINVAL && named,
         "%s: two tags without a list, ntag = -2 and a NULL space are refused, naming ntag "
         "(\"%s\")",
         name, msg);
  free(ids), free(orders);
  femint_space_destroy(&full), femint_space_destroy(&one), femint_space_destroy(&two);
  femint_space_destroy(&seq), femint_space_destroy(&all);
  femint_mesh_destroy(&m);
}

static void test_gmsh(void)
{
  femint_mesh_t m;
  TAP_CALL(NULL, femint_mesh_read_gmsh(NULL, FEMINT_TEST_DATA "/prisms.msh", &m));
  femint_space_t s;
  TAP_CALL(NULL, femint_space_create(NULL, m, FEMINT_H1, 3, NULL, 2, &s));
  char what[200];
  tap_ok(check_runs(s, 2, what, sizeof what), "prisms.msh, order 2, 2 runs: %s", what);
  tap_ok(check_runs(s, 5, what, sizeof what), "prisms.msh, order 2, 5 runs: %s", what);
  int64_t n, nt;
  int64_t *all = boundary_list(s, 0, NULL, &n);
  const int tags[3] = {10, 20, 30};
  int64_t *tagged = boundary_list(s, 3, tags, &nt);
  double tr = trace_off_list(s, n, all);
  tap_ok(nt == n && !memcmp(tagged, all, (size_t)n * sizeof *all) && tr < 1e-13,
         "prisms.msh: %lld boundary DOFs, the same by tags 10, 20, 30 (%lld); a function zero on "
         "them vanishes on the boundary (%.1e)",
         (long long)n, (long long)nt, tr);
  free(all), free(tagged);
  femint_space_destroy(&s);
  femint_mesh_destroy(&m);
}

/* a + b x, with user = {a, b}. */
static void exact_linear(const double x[3], const double n[3], int tag, void *user, double *v)
{
  const double *const *f = user;
  for (int k = 0; k < 3; k++)
    v[k] = f[0][k] + f[1][3 * k] * x[0] + f[1][3 * k + 1] * x[1] + f[1][3 * k + 2] * x[2];
}

static void test_l2(femint_mesh_t m, femint_space_t s)
{
  const int64_t ndof = femint_space_num_dofs(s);
  const int ncell = femint_mesh_num_cells(m);
  double *u = malloc((size_t)ndof * sizeof *u), vol, e_all, e_lo, e_hi, e_lin;
  const double a[3] = {1, 2, 3}, b[9] = {0.5, -1, 2, 0, 1, 0.25, -0.5, 0.3, 0.1};
  femint_mesh_volume(m, &vol);
  TAP_CALL(NULL, femint_space_interpolate_linear(s, a, NULL, u));
  TAP_CALL(NULL, femint_space_l2_error(s, u, 0, NULL, NULL, NULL, &e_all));
  tap_ok(fabs(e_all - 14 * vol) < 1e-12 * 14 * vol,
         "|(1, 2, 3)|^2 over the mesh: %.15g, 14 times the volume %.15g", e_all, vol);
  int *cells = malloc((size_t)ncell * sizeof *cells);
  for (int c = 0; c < ncell; c++) cells[c] = ncell - 1 - c;
  const int half = ncell / 2;
  femint_space_l2_error(s, u, half, cells, NULL, NULL, &e_lo);
  femint_space_l2_error(s, u, ncell - half, cells + half, NULL, NULL, &e_hi);
  tap_ok(fabs(e_lo + e_hi - e_all) < 1e-12 * e_all,
         "the sums over two halves of the cells add up: %.15g + %.15g = %.15g", e_lo, e_hi,
         e_all);
  const double *f[2] = {a, b};
  TAP_CALL(NULL, femint_space_interpolate_linear(s, a, b, u));
  TAP_CALL(NULL, femint_space_l2_error(s, u, 0, NULL, exact_linear, f, &e_lin));
  tap_ok(e_lin < 1e-26, "a linear field interpolated has no error: %.2e", e_lin);
  cells[0] = ncell;
  int rc = femint_space_l2_error(s, u, 1, cells, NULL, NULL, &e_lo);
  tap_ok(rc == FEMINT_EINVAL, "a cell outside the mesh is refused: %s", femint_last_error(NULL));
  free(cells);
  free(u);
}

int main(void)
{
  femint_mesh_t m;
  TAP_CALL(NULL, femint_mesh_create_box(NULL, FEMINT_PRISM, 4, 3, 5, 1, 1, 1, 0.3, 9, &m));
  const int ncell = femint_mesh_num_cells(m);
  int *orders = malloc((size_t)ncell * sizeof *orders);
  for (int c = 0; c < ncell; c++) orders[c] = 1 + (int)(rnd() * 4);
  femint_space_t s;
  TAP_CALL(NULL, femint_space_create(NULL, m, FEMINT_H1, 3, orders, 0, &s));
  char what[200];
  for (int nrun = 1; nrun <= 7; nrun += 3)
    tap_ok(check_runs(s, nrun, what, sizeof what), "box, orders 1-4, %d runs: %s", nrun, what);
  int64_t d0, d1;
  int rc = femint_space_dof_range(s, 5, 3, &d0, &d1);
  tap_ok(rc == FEMINT_EINVAL, "cells [5, 3) are refused: %s", femint_last_error(NULL));
  rc = femint_space_dof_range(s, 0, ncell + 1, &d0, &d1);
  tap_ok(rc == FEMINT_EINVAL, "cells past the mesh are refused: %s", femint_last_error(NULL));
  int64_t n;
  rc = femint_space_boundary_dofs(s, 2, NULL, &n, NULL);
  tap_ok(rc == FEMINT_EINVAL, "two tags without a list are refused: %s", femint_last_error(NULL));
  test_l2(m, s);
  femint_space_destroy(&s);
  free(orders);
  femint_mesh_destroy(&m);
  test_boundary_box();
  test_gmsh();
  test_remove(FEMINT_PRISM);
  test_remove(FEMINT_QUAD);
  return tap_done();
}
