/* Test: the PEC unit cube cavity: S x = k^2 T x assembled on straight and curved tetrahedra gives
 * k^2 = pi^2 (l^2 + m^2 + n^2) with the right multiplicities and no spurious modes, and the
 * order-1 error falls as the mesh is refined. */
#include "host/gmsh.h"
#include "host/mesh_tet.h"
#include "tet_common.h"

/* The exact k^2 / pi^2 of the cube, ascending, with multiplicity: (l, m, n) >= 0 with at most one
 * zero; two modes (TE and TM) when none is zero, one otherwise. Returns how many were written. */
static int exact_spectrum(int max, double *k2)
{
  int n = 0;
  for (int s = 1; s <= 30 && n < max; s++)
    for (int l = 0; l * l <= s; l++)
      for (int m = 0; l * l + m * m <= s; m++) {
        const int r = s - l * l - m * m, q = (int)lround(sqrt(r));
        if (q * q != r || (l == 0) + (m == 0) + (q == 0) > 1) continue;
        for (int t = (l && m && q) ? 2 : 1; t > 0 && n < max; t--) k2[n++] = s;
      }
  return n;
}

/* The dimension of the discrete gradients of H1_0 of degree p: the vertices, edges (p - 1
 * functions each) and faces ((p - 1)(p - 2) / 2) off the walls. */
static int64_t gradient_dimension(const struct tet_mesh *m, int p)
{
  char *bv = calloc(m->nvert, 1), *be = calloc(m->nedge, 1);
  for (int c = 0; c < m->ncell; c++)
    for (int f = 0; f < TET_NF; f++) {
      if (!m->face_tag[m->cell_face[4 * c + f]]) continue;
      for (int e = 0; e < TET_NE; e++)
        if (tet_edge_vert[e][0] != f && tet_edge_vert[e][1] != f) be[m->cell_edge[6 * c + e]] = 1;
      for (int a = 0; a < TET_NV; a++)
        if (a != f) bv[m->cells[4 * c + a]] = 1;
    }
  int64_t nv = 0, ne = 0, nf = 0;
  for (int v = 0; v < m->nvert; v++) nv += !bv[v];
  for (int e = 0; e < m->nedge; e++) ne += !be[e];
  for (int f = 0; f < m->nface; f++) nf += !m->face_tag[f];
  free(bv);
  free(be);
  return nv + (p - 1) * ne + (p - 1) * (p - 2) / 2 * nf;
}

/* x + d sin(pi x) sin(pi y) sin(pi z) (1, 1, 1): curved cells inside, the cube unchanged. */
static void bulge(const double *x, double *y, void *user)
{
  const double d = *(const double *)user;
  const double s = sin(M_PI * x[0]) * sin(M_PI * x[1]) * sin(M_PI * x[2]);
  for (int i = 0; i < 3; i++) y[i] = x[i] + d * s;
}

struct cavity {
  int64_t n, nzero, want_zero;
  double *lam; /* [n] k^2 / pi^2 */
  double seconds;
};

/* Assemble and solve the cavity of mesh m at order p, PEC walls all round; 0 on success. */
static int solve_mesh(const struct tet_mesh *m, int p, struct cavity *out)
{
  struct refel_tet *re = NULL;
  struct tet_space *sp = NULL;
  struct tet_system sys;
  struct tet_coef k;
  TAP_CALL(NULL, refel_tet_create(p, &re));
  TAP_CALL(NULL, tet_space_create(m, re, TET_PEC_ALL, &sp));
  TAP_CALL(NULL, tet_coef_scalar(1, 1, &k));
  TAP_CALL(NULL, tet_assemble(sp, re, &k, 1, &sys));
  const int64_t n = sp->ndof;
  double *S = calloc(n * n, sizeof *S), *T = calloc(n * n, sizeof *T);
  out->lam = malloc(sizeof(double) * n);
  for (int64_t r = 0; r < n; r++)
    for (int64_t q = sys.pattern.rowptr[r]; q < sys.pattern.rowptr[r + 1]; q++) {
      S[r * n + sys.pattern.colind[q]] = sys.S[q];
      T[r * n + sys.pattern.colind[q]] = sys.T[q];
    }
  out->n = n;
  out->want_zero = gradient_dimension(m, p);
  int info = sym_eig((int)n, S, T, out->lam);
  out->nzero = 0;
  for (int64_t i = 0; i < n; i++) {
    out->lam[i] /= M_PI * M_PI;
    out->nzero += fabs(out->lam[i]) < 1e-4;
  }
  free(S);
  free(T);
  tet_system_free(&sys);
  tet_space_destroy(&sp);
  refel_tet_destroy(&re);
  return info;
}

/* The cavity of nc^3 cubes at order p (curved: d > 0). */
static int solve_cavity(int nc, int p, double d, struct cavity *out)
{
  struct tet_mesh *m = NULL;
  TAP_CALL(NULL, tet_mesh_create_box(nc, nc, nc, 1, 1, 1, &m));
  if (d > 0) TAP_CALL(NULL, tet_mesh_map(m, bulge, &d));
  const int info = solve_mesh(m, p, out);
  tet_mesh_destroy(&m);
  return info;
}

/* Largest relative error of the first count non-zero eigenvalues against the exact ones. */
static double spectrum_error(const struct cavity *c, int count, const double *exact)
{
  double err = 0;
  for (int i = 0; i < count && c->nzero + i < c->n; i++)
    err = fmax(err, fabs(c->lam[c->nzero + i] - exact[i]) / exact[i]);
  return err;
}

static void show(const char *what, const struct cavity *c, int count, const double *exact)
{
  tap_diag("%s: %lld DOFs, %lld zero eigenvalues (gradients: %lld)", what, (long long)c->n,
           (long long)c->nzero, (long long)c->want_zero);
  for (int i = 0; i < count && c->nzero + i < c->n; i++)
    tap_diag("  k^2/pi^2 = %.6f  exact %g  error %+.2e", c->lam[c->nzero + i], exact[i],
             (c->lam[c->nzero + i] - exact[i]) / exact[i]);
}

static void test_order3(int nc, double d, const char *what)
{
  double exact[16];
  const int count = 11; /* 2 (x3), 3 (x2), 5 (x6) */
  exact_spectrum(count, exact);
  struct cavity c;
  if (solve_cavity(nc, 3, d, &c)) {
    tap_ok(0, "%s: dsygv failed", what);
    return;
  }
  show(what, &c, count, exact);
  const double err = spectrum_error(&c, count, exact);
  tap_ok(c.nzero == c.want_zero,
         "%s, order 3: the %lld zero eigenvalues are the discrete "
         "gradients (%lld), none spurious below k^2 = 2 pi^2",
         what, (long long)c.nzero, (long long)c.want_zero);
  tap_ok(err < 0.01,
         "%s, order 3: k^2 = 2 pi^2 (x3), 3 pi^2 (x2), 5 pi^2 (x6) within 1%% "
         "(largest error %.2g)",
         what, err);
  free(c.lam);
}

static void test_order1_convergence(void)
{
  double exact[4], err[3];
  exact_spectrum(3, exact);
  static const int sizes[3] = {2, 4, 6};
  int ok = 1;
  for (int s = 0; s < 3; s++) {
    struct cavity c;
    if (solve_cavity(sizes[s], 1, 0, &c)) ok = 0;
    err[s] = spectrum_error(&c, 3, exact);
    ok = ok && c.nzero == c.want_zero;
    tap_diag("order 1, %d^3 cubes: %lld DOFs, 2 pi^2 (x3) within %.3g", sizes[s], (long long)c.n,
             err[s]);
    free(c.lam);
  }
  /* The error of k^2 falls as h^2: by 4 from h = 1/2 to 1/4, by 2.25 from 1/4 to 1/6. */
  const double r1 = err[0] / err[1], r2 = err[1] / err[2];
  tap_ok(ok && r1 > 2.5 && r2 > 1.6 && err[2] < 0.1,
         "order 1, h = 1/2, 1/4, 1/6: no spurious modes; the error of 2 pi^2 falls %.2g, %.2g, "
         "%.2g (ratios %.2f, %.2f; h^2 would give 4 and 2.25)",
         err[0], err[1], err[2], r1, r2);
}

/* The PEC unit ball of Gmsh's 10-node tetrahedra (edge nodes on the sphere): the first modes are
 * TM_1 (k = 2.743707, x3), TM_2 (k = 3.870239, x5) and TE_1 (k = 4.493409, x3), the first roots
 * of (r j_n(r))' and j_n(r). */
static void test_ball(void)
{
  static const double k[3] = {2.743707, 3.870239, 4.493409};
  static const int mult[3] = {3, 5, 3};
  double exact[11];
  int count = 0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < mult[i]; j++) exact[count++] = k[i] * k[i] / (M_PI * M_PI);
  struct tet_mesh *m = NULL;
  TAP_CALL(NULL, gmsh_read_tet_mesh(FEMINT_TEST_DATA "/tets-ball10-bin.msh", -1, &m));
  for (int p = 2; p <= 3; p++) {
    struct cavity c;
    if (solve_mesh(m, p, &c)) {
      tap_ok(0, "ball, order %d: dsygv failed", p);
      continue;
    }
    char what[64];
    snprintf(what, sizeof what, "PEC unit ball, %d curved cells, order %d", m->ncell, p);
    show(what, &c, count, exact);
    const double err = spectrum_error(&c, count, exact);
    const double tol = p == 2 ? 0.03 : 0.01;
    tap_ok(c.nzero == c.want_zero && err < tol,
           "%s: %lld zero eigenvalues = the gradients; TM_1 (x3), TM_2 (x5), TE_1 (x3) within "
           "%.0f%% (largest error %.2g)",
           what, (long long)c.nzero, 100 * tol, err);
    free(c.lam);
  }
  tet_mesh_destroy(&m);
}

int main(void)
{
  if (!HAVE_EIG) tap_skip_all("no LAPACK (dsygv) found by configure");
  test_order3(3, 0, "straight cells, 3^3 cubes");
  test_order3(3, 0.04, "curved cells (interior bulged by 0.04), 3^3 cubes");
  test_order1_convergence();
  test_ball();
  return tap_done();
}
