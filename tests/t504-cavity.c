/* Test: PEC cavities through an operator of the H(curl) forms: S x = k^2 T x on the unit cube of
 * straight and curved tetrahedra gives k^2 = pi^2 (l^2 + m^2 + n^2) with the right multiplicities
 * and no spurious modes, and the order-1 error falls as the mesh is refined; the unit ball of
 * curved cells gives its first TM and TE modes; a cube of two materials read from a Gmsh file
 * (eps per cell mapped from femint_mesh_cell_materials) gives the modes of its layers. */
#include <starpu.h>

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
 * functions each) and faces ((p - 1)(p - 2) / 2) off the walls (every boundary face). */
static int64_t gradient_dimension(femint_mesh_t mesh, int p)
{
  const struct femint_mesh *m = mesh;
  char *bv = calloc(m->nvert, 1), *be = calloc(m->nedge, 1), *bf = calloc(m->nface, 1);
  for (int k = 0; k < m->nbface; k++) {
    const int c = m->bface[3 * k], f = m->bface[3 * k + 1];
    bf[m->cell_face[TET_NF * c + f]] = 1;
    /* face f is opposite vertex f */
    for (int e = 0; e < TET_NE; e++)
      if (tet_edge_vert[e][0] != f && tet_edge_vert[e][1] != f)
        be[m->cell_edge[TET_NE * c + e]] = 1;
    for (int a = 0; a < TET_NV; a++)
      if (a != f) bv[m->cells[TET_NV * c + a]] = 1;
  }
  int64_t nv = 0, ne = 0, nf = 0;
  for (int v = 0; v < m->nvert; v++) nv += !bv[v];
  for (int e = 0; e < m->nedge; e++) ne += !be[e];
  for (int f = 0; f < m->nface; f++) nf += !bf[f];
  free(bv);
  free(be);
  free(bf);
  return nv + (p - 1) * ne + (p - 1) * (p - 2) / 2 * nf;
}

struct cavity {
  int64_t n, nzero, want_zero;
  double *lam; /* [n] k^2 / pi^2 */
};

static femint_context_t ctx;

/* The matrices T (eps: neps values, scalars or tensors) and S (mu = 1) of mesh m at order p, PEC
 * walls all round. */
static void assemble_tet(femint_mesh_t m, int p, int neps, int tensor, const double *eps,
                         femint_matrix_t *A)
{
  const double one = 1;
  femint_space_t sp;
  femint_form_t forms[2];
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_HCURL, 1, NULL, p, &sp));
  TAP_CALL(ctx, femint_space_remove_boundary_dofs(sp, 0, NULL));
  TAP_CALL(ctx, femint_form_create_hcurl_mass(ctx, neps, tensor, eps, &forms[0]));
  TAP_CALL(ctx, femint_form_create_curlcurl(ctx, 1, 0, &one, &forms[1]));
  TAP_CALL(ctx, test_assemble(ctx, sp, 2, forms, NULL, A, NULL));
  femint_form_destroy(&forms[0]);
  femint_form_destroy(&forms[1]);
  femint_space_destroy(&sp);
}

/* Assemble and solve the cavity of mesh m at order p; 0 on success. */
static int solve_mesh(femint_mesh_t m, int p, int neps, int tensor, const double *eps,
                      struct cavity *out)
{
  femint_matrix_t A[2];
  assemble_tet(m, p, neps, tensor, eps, A);
  int n, n2;
  double *T = test_dense(A[0], &n), *S = test_dense(A[1], &n2);
  femint_matrix_destroy(&A[0]);
  femint_matrix_destroy(&A[1]);
  out->lam = malloc(sizeof(double) * n);
  out->n = n;
  out->want_zero = gradient_dimension(m, p);
  /* StarPU's idle workers keep polling for tasks: paused, they leave the cores to LAPACK */
  starpu_pause();
  int info = sym_eig(n, S, T, out->lam);
  starpu_resume();
  out->nzero = 0;
  for (int64_t i = 0; i < n; i++) {
    out->lam[i] /= M_PI * M_PI;
    out->nzero += fabs(out->lam[i]) < 1e-4;
  }
  free(S);
  free(T);
  return info;
}

/* The cavity of nc^3 cubes at order p (curved: d > 0, the interior bulged by
 * d sin(pi x) sin(pi y) sin(pi z) (1, 1, 1), the cube unchanged). */
static int solve_cavity(int nc, int p, double d, struct cavity *out)
{
  femint_mesh_t m;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_TET, nc, nc, nc, 1, 1, 1, 0, 1, &m));
  if (d > 0) TAP_CALL(ctx, femint_mesh_warp(m, d));
  const double one = 1;
  const int info = solve_mesh(m, p, 1, 0, &one, out);
  femint_mesh_destroy(&m);
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
  femint_mesh_t m;
  TAP_CALL(ctx, femint_mesh_read_gmsh(ctx, FEMINT_TEST_DATA "/tets-ball10-bin.msh", &m));
  const double one = 1;
  for (int p = 2; p <= 3; p++) {
    struct cavity c;
    if (solve_mesh(m, p, 1, 0, &one, &c)) {
      tap_ok(0, "ball, order %d: dsygv failed", p);
      continue;
    }
    char what[64];
    snprintf(what, sizeof what, "PEC unit ball, %d curved cells, order %d",
             femint_mesh_num_cells(m), p);
    show(what, &c, count, exact);
    const double err = spectrum_error(&c, count, exact);
    const double tol = p == 2 ? 0.03 : 0.01;
    tap_ok(c.nzero == c.want_zero && err < tol,
           "%s: %lld zero eigenvalues = the gradients; TM_1 (x3), TM_2 (x5), TE_1 (x3) within "
           "%.0f%% (largest error %.2g)",
           what, (long long)c.nzero, 100 * tol, err);
    free(c.lam);
  }
  femint_mesh_destroy(&m);
}

/* The lowest k^2 / pi^2 of the modes E = (sin(pi y) g(z), 0, 0) and (0, sin(pi x) g(z), 0) of
 * the unit cube whose layers z < 1/2 and z > 1/2 have permittivities e1 < e2 (mu = 1): g(z) =
 * sin(b1 z) below and sin(b2 (1 - z)) above, b_i^2 = e_i k^2 - pi^2, with g and g' continuous at
 * z = 1/2; G(k^2) = g1'(1/2) g2(1/2) - g1(1/2) g2'(1/2) vanishes there. */
static double layered_g(double k2, double e1, double e2)
{
  const double b2 = sqrt(e2 * k2 - M_PI * M_PI), s = e1 * k2 - M_PI * M_PI;
  double g1 = 0.5, d1 = 1; /* s = 0: g1 = z */
  if (s > 0) g1 = sin(sqrt(s) / 2), d1 = sqrt(s) * cos(sqrt(s) / 2);
  if (s < 0) g1 = sinh(sqrt(-s) / 2), d1 = sqrt(-s) * cosh(sqrt(-s) / 2);
  return d1 * sin(b2 / 2) + g1 * b2 * cos(b2 / 2);
}

static double layered_mode(double e1, double e2)
{
  /* the first sign change between the uniform cubes' 2 pi^2 / e2 and 2 pi^2 / e1, bisected */
  double lo = 2 * M_PI * M_PI / e2 * (1 + 1e-9), hi = lo;
  const double step = (2 * M_PI * M_PI / e1 - lo) / 1000;
  while (hi < 2 * M_PI * M_PI / e1 && layered_g(hi + step, e1, e2) * layered_g(lo, e1, e2) > 0)
    hi += step;
  lo = hi, hi += step;
  for (int it = 0; it < 100; it++) {
    const double mid = (lo + hi) / 2;
    if (layered_g(mid, e1, e2) * layered_g(lo, e1, e2) > 0) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2 / (M_PI * M_PI);
}

/* The unit cube of Gmsh's tets-layers.msh: material 1 below z = 1/2, material 2 above. The
 * materials are read (their cells fill the two halves), eps per cell mapped from them: 4 in both
 * divides every k^2 by 4; 1 below and 4 above (as tensors) gives the matrix of eps by the cells'
 * positions, eigenvalues between those of the uniform cubes, and the layered modes. */
static void test_layers(void)
{
  femint_mesh_t m;
  TAP_CALL(ctx, femint_mesh_read_gmsh(ctx, FEMINT_TEST_DATA "/tets-layers.msh", &m));
  const int nc = femint_mesh_num_cells(m);
  const int *mat;
  TAP_CALL(ctx, femint_mesh_cell_materials(m, &mat));
  int count[3] = {0, 0, 0}, wrong = 0;
  double vol[3] = {0, 0, 0}, X[12];
  double *eps4 = malloc(sizeof *eps4 * nc), *eps_t = calloc(9 * (size_t)nc, sizeof *eps_t);
  double *eps_z = malloc(sizeof *eps_z * nc);
  for (int c = 0; c < nc; c++) {
    const int k = mat[c] == 1 || mat[c] == 2 ? mat[c] : 0;
    TAP_CALL(ctx, femint_mesh_cell_coords(m, c, X));
    double J[9];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) J[3 * i + j] = X[3 * (j + 1) + i] - X[i];
    const double det = J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
                       J[2] * (J[3] * J[7] - J[4] * J[6]);
    const double z = (X[2] + X[5] + X[8] + X[11]) / 4;
    count[k]++;
    vol[k] += fabs(det) / 6;
    wrong += k == 0 || (k == 1) != (z < 0.5);
    /* the material map: eps = 4 in both materials; 1 and 4 as tensors; and by position */
    eps4[c] = mat[c] == 1 ? 4 : mat[c] == 2 ? 4 : 0;
    for (int i = 0; i < 3; i++) eps_t[9 * c + 4 * i] = mat[c] == 1 ? 1 : mat[c] == 2 ? 4 : 0;
    eps_z[c] = z < 0.5 ? 1 : 4;
  }
  tap_ok(count[1] > 0 && count[2] > 0 && count[0] == 0 && wrong == 0 &&
             fabs(vol[1] - 0.5) < 1e-12 && fabs(vol[2] - 0.5) < 1e-12,
         "two-material cube (Gmsh 2.2): %d cells of material 1 (volume %.15g), %d of material 2 "
         "(volume %.15g), %d of others, %d on the wrong side of z = 1/2",
         count[1], vol[1], count[2], vol[2], count[0], wrong);

  const int p = 2, nshow = 12;
  const double one = 1;
  struct cavity c1, c4, cm;
  if (solve_mesh(m, p, 1, 0, &one, &c1) || solve_mesh(m, p, nc, 0, eps4, &c4) ||
      solve_mesh(m, p, nc, 1, eps_t, &cm)) {
    tap_ok(0, "two-material cube: dsygv failed");
    femint_mesh_destroy(&m);
    return;
  }
  double ratio = 0;
  for (int64_t i = c1.nzero; i < c1.n && i < c1.nzero + 30; i++)
    ratio = fmax(ratio, fabs(c1.lam[i] / c4.lam[i] - 4) / 4);
  tap_ok(c4.nzero == c4.want_zero && c1.nzero == c4.nzero && ratio < 1e-8,
         "two-material cube, order %d, eps = 4 in both materials: %lld zero eigenvalues = the "
         "gradients, the first 30 k^2 are those of eps = 1 divided by 4 (%.1e)",
         p, (long long)c4.nzero, ratio);

  /* eps from the materials (tensors) is eps from the cells' positions (scalars) */
  femint_matrix_t At[2], Az[2];
  assemble_tet(m, p, nc, 1, eps_t, At);
  assemble_tet(m, p, nc, 0, eps_z, Az);
  const double dT = test_matrix_reldiff(At[0], Az[0]);
  for (int f = 0; f < 2; f++) femint_matrix_destroy(&At[f]), femint_matrix_destroy(&Az[f]);
  int between = 1;
  for (int64_t i = cm.nzero; i < cm.n && i < cm.nzero + 30; i++)
    between &= c4.lam[i] < cm.lam[i] && cm.lam[i] < c1.lam[i];
  tap_ok(dT < 1e-14 && cm.nzero == cm.want_zero && between,
         "eps = 1 in material 1 and 4 in material 2 (tensors): T equals that of eps by position "
         "(%.1e), %lld zero eigenvalues = the gradients, the first 30 k^2 lie between those of "
         "eps = 4 and eps = 1",
         dT, (long long)cm.nzero);
  const double k2 = layered_mode(1, 4);
  int near = 0;
  double err = 1;
  for (int64_t i = cm.nzero; i < cm.n && i < cm.nzero + nshow; i++) {
    tap_diag("  k^2/pi^2 = %.6f (eps 1: %.6f, eps 4: %.6f)", cm.lam[i], c1.lam[i], c4.lam[i]);
    const double e = fabs(cm.lam[i] - k2) / k2;
    near += e < 0.003;
    err = fmin(err, e);
  }
  tap_ok(near == 2, "the layered modes (sin(pi y) g(z), 0, 0) and (0, sin(pi x) g(z), 0): k^2 = "
                    "%.6f pi^2, %d eigenvalues within 0.3%% (closest %.1e)",
         k2, near, err);
  free(c1.lam);
  free(c4.lam);
  free(cm.lam);
  free(eps4);
  free(eps_t);
  free(eps_z);
  femint_mesh_destroy(&m);
}

int main(void)
{
  if (!HAVE_EIG) tap_skip_all("no LAPACK (dsygv) found by configure");
  ctx = test_init();
  test_order3(3, 0, "straight cells, 3^3 cubes");
  test_order3(3, 0.04, "curved cells (interior bulged by 0.04), 3^3 cubes");
  test_order1_convergence();
  test_ball();
  test_layers();
  femint_finalize(&ctx);
  return tap_done();
}
