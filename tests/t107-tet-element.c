/* Test: the Maxwell element matrices T_e and S_e of the H(curl) tetrahedron are symmetric, T_e
 * positive definite, S_e null exactly on the gradients, and agree with closed forms, other rules
 * and transformed cells. */
#include "tet_common.h"

#define NMAX (NSH * NSH)

static double T[NMAX], S[NMAX], T2[NMAX], S2[NMAX];

/* A random 10-node cell: a random affine cell whose edge nodes are moved by up to `bend` times
 * its size (a curved cell). */
static void random_curved_tet(double scale, double bend, double *X10)
{
  double X[12];
  random_affine_tet(scale, 0.2, X);
  affine_nodes10(X, X10);
  for (int k = 12; k < 30; k++) X10[k] += bend * scale * (2 * drand48() - 1);
}

/* Random symmetric positive definite 3 x 3 tensor: B B^T + I/2. */
static void random_spd(double *A)
{
  double B[9];
  for (int i = 0; i < 9; i++) B[i] = 2 * drand48() - 1;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double s = i == j ? 0.5 : 0;
      for (int k = 0; k < 3; k++) s += B[3 * i + k] * B[3 * j + k];
      A[3 * i + j] = s;
    }
}

static double max_abs(int n, const double *a)
{
  double m = 0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
  return m;
}

/* Coefficients of grad g in the reference basis, for g = x^a y^b z^c of the reference
 * coordinates, by the reference L2 projection (L: the factored reference Gram matrix). */
static void reference_gradient(const struct refel *re, const double *L, const int *ex,
                               double *c)
{
  const int n = re->nsh;
  memset(c, 0, sizeof(double) * n);
  for (int q = 0; q < re->nq; q++) {
    const double *xi = re->xq + 3 * q, *v = re->val + (size_t)q * 3 * n;
    double g[3] = {0, 0, 0};
    for (int d = 0; d < 3; d++) {
      if (!ex[d]) continue;
      g[d] = ex[d];
      for (int e = 0; e < 3; e++) g[d] *= ipow(xi[e], ex[e] - (e == d));
    }
    for (int i = 0; i < n; i++)
      c[i] += re->wq[q] * (v[i] * g[0] + v[n + i] * g[1] + v[2 * n + i] * g[2]);
  }
  cholesky_solve(n, L, c);
}

static void test_properties(void)
{
  double asym = 0, null_rel = 0;
  int bad_spd = 0, count_ok = 1;
  for (int p = 1; p <= 3; p++) {
    struct refel *re = NULL;
    TAP_CALL(NULL, refel_tet_create(p, &re));
    const int n = re->nsh;
    double *L = malloc(sizeof(double) * n * n);
    tet_gram(re, L);
    cholesky(n, L);
    for (int t = 0; t < 6; t++) {
      double X[30];
      const int nnode = t % 2 ? 10 : 4;
      struct tet_coef k;
      if (nnode == 4)
        random_affine_tet(1 + drand48(), 0.3, X);
      else
        random_curved_tet(1 + drand48(), 0.06, X);
      if (t < 2) {
        TAP_CALL(NULL, tet_coef_scalar(1 + drand48(), 1 + drand48(), &k));
      } else {
        double e[9], m[9];
        random_spd(e);
        random_spd(m);
        TAP_CALL(NULL, tet_coef_tensor(e, m, &k));
      }
      TAP_CALL(NULL, tet_element_reference(re, nnode, X, &k, T, S));
      asym = fmax(asym, fmax(asymmetry(n, T), asymmetry(n, S)));
      memcpy(T2, T, sizeof(double) * n * n);
      if (cholesky(n, T2) <= 0) bad_spd++;
      /* The gradients of every x^a y^b z^c (0 < a+b+c <= p) of the reference coordinates: their
       * covariant images are physical gradients, so S c = 0. */
      int ngrad = 0;
      for (int d = 1; d <= p; d++)
        for (int a = 0; a <= d; a++)
          for (int b = 0; a + b <= d; b++, ngrad++) {
            const int ex[3] = {a, b, d - a - b};
            double c[NSH], Sc[NSH];
            reference_gradient(re, L, ex, c);
            for (int i = 0; i < n; i++) {
              Sc[i] = 0;
              for (int j = 0; j < n; j++) Sc[i] += S[i * n + j] * c[j];
            }
            null_rel = fmax(null_rel, max_abs(n, Sc) / (max_abs(n * n, S) * max_abs(n, c)));
          }
      count_ok = count_ok && ngrad == (p + 1) * (p + 2) * (p + 3) / 6 - 1;
    }
    free(L);
    refel_destroy(&re);
  }
  tap_ok(asym < 1e-15,
         "p = 1..3, affine and curved cells, scalar and tensor eps, mu: T_e and "
         "S_e are symmetric (%.2g)",
         asym);
  tap_ok(!bad_spd, "p = 1..3, affine and curved: T_e is positive definite (Cholesky)");
  tap_ok(null_rel < 1e-13 && count_ok,
         "p = 1..3, affine and curved: S_e c = 0 for the 3, 9, 19 gradients of P_p (%.2g)",
         null_rel);
}

/* The null space of S_e is exactly the gradients: 3, 9, 19 zero eigenvalues of S x = l T x. */
static void test_null_dimension(void)
{
  if (!HAVE_EIG) {
    tap_ok(1, "# SKIP no LAPACK (dsygv) found by configure");
    return;
  }
  int ok = 1;
  double gap = INFINITY, zero = 0;
  for (int p = 1; p <= 3; p++) {
    struct refel *re = NULL;
    TAP_CALL(NULL, refel_tet_create(p, &re));
    const int n = re->nsh, want = (p + 1) * (p + 2) * (p + 3) / 6 - 1;
    double X[30], lam[NSH];
    struct tet_coef k;
    random_curved_tet(1, 0.05, X);
    TAP_CALL(NULL, tet_coef_scalar(2, 1.5, &k));
    TAP_CALL(NULL, tet_element_reference(re, 10, X, &k, T, S));
    if (sym_eig(n, S, T, lam)) ok = 0;
    int nz = 0;
    for (int i = 0; i < n; i++) nz += fabs(lam[i]) < 1e-10 * lam[n - 1];
    ok = ok && nz == want;
    zero = fmax(zero, fabs(lam[want - 1]) / lam[n - 1]);
    gap = fmin(gap, lam[want] / lam[n - 1]);
    refel_destroy(&re);
  }
  tap_ok(ok,
         "p = 1..3, a curved cell: S x = l T x has exactly 3, 9, 19 zero eigenvalues "
         "(|l| <= %.2g max l, the next >= %.2g max l)",
         zero, gap);
}

/* Order 1 on affine cells: T_ij = int w_i . eps w_j with int l_a l_b = V (1 + d_ab) / 20, and
 * S_ij = 4 V (g_a x g_b) . nu (g_c x g_d) with the physical gradients g of the barycentrics. */
static void whitney_exact(const double *X, const struct tet_coef *k, double *Te, double *Se)
{
  double J[9], K[9], g[4][3];
  geom_tet_jacobian(4, X, tet_vert_xi[0], J);
  const double det = geom_inverse3(J, K), V = fabs(det) / 6;
  /* grad l_k = K^T grad_ref l_k */
  static const double gr[4][3] = {{-1, -1, -1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int a = 0; a < 4; a++)
    for (int i = 0; i < 3; i++)
      g[a][i] = K[i] * gr[a][0] + K[3 + i] * gr[a][1] + K[6 + i] * gr[a][2];
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++) {
      const int a = tet_edge_vert[i][0], b = tet_edge_vert[i][1];
      const int c = tet_edge_vert[j][0], d = tet_edge_vert[j][1];
      /* w_ab . eps w_cd = sum of l_u l_v (g . eps g) over the four products. */
      const int u[4] = {a, a, b, b}, su[4] = {b, b, a, a}, v[4] = {c, d, c, d},
                sv[4] = {d, c, d, c};
      const double sg[4] = {1, -1, -1, 1};
      double t = 0;
      for (int m = 0; m < 4; m++) {
        double ge = 0;
        for (int x = 0; x < 3; x++)
          for (int y = 0; y < 3; y++) ge += g[su[m]][x] * k->eps[3 * x + y] * g[sv[m]][y];
        t += sg[m] * V * (1 + (u[m] == v[m])) / 20 * ge;
      }
      Te[i * 6 + j] = t;
      double c1[3], c2[3], s = 0;
      c1[0] = g[a][1] * g[b][2] - g[a][2] * g[b][1];
      c1[1] = g[a][2] * g[b][0] - g[a][0] * g[b][2];
      c1[2] = g[a][0] * g[b][1] - g[a][1] * g[b][0];
      c2[0] = g[c][1] * g[d][2] - g[c][2] * g[d][1];
      c2[1] = g[c][2] * g[d][0] - g[c][0] * g[d][2];
      c2[2] = g[c][0] * g[d][1] - g[c][1] * g[d][0];
      for (int x = 0; x < 3; x++)
        for (int y = 0; y < 3; y++) s += c1[x] * k->nu[3 * x + y] * c2[y];
      Se[i * 6 + j] = 4 * V * s;
    }
}

static void test_independent(void)
{
  double dw = 0, drule = 0, dcurved = 0, d10 = 0;
  struct refel *re1 = NULL;
  TAP_CALL(NULL, refel_tet_create(1, &re1));
  for (int t = 0; t < 10; t++) {
    double X[12], e[9], m[9];
    struct tet_coef k;
    random_affine_tet(0.5 + drand48(), 0.3, X);
    random_spd(e);
    random_spd(m);
    TAP_CALL(NULL, tet_coef_tensor(e, m, &k));
    TAP_CALL(NULL, tet_element_reference(re1, 4, X, &k, T, S));
    whitney_exact(X, &k, T2, S2);
    dw = fmax(dw, fmax(tap_reldiff(T, T2, 36), tap_reldiff(S, S2, 36)));
  }
  refel_destroy(&re1);
  tap_ok(dw < 1e-13,
         "p = 1, affine cells, tensor eps and mu: T_e and S_e are the closed forms "
         "of the Whitney elements (%.2g)",
         dw);

  for (int p = 1; p <= 3; p++) {
    struct refel *re = NULL, *lo = NULL, *hi = NULL;
    TAP_CALL(NULL, refel_tet_create(p, &re));
    TAP_CALL(NULL, refel_tet_create_rule(p, p + 1, &lo));
    TAP_CALL(NULL, refel_tet_create_rule(p, 12, &hi));
    const int n = re->nsh;
    for (int t = 0; t < 3; t++) {
      double X[30], X10[30], e[9], m[9];
      struct tet_coef k;
      random_spd(e);
      random_spd(m);
      TAP_CALL(NULL, tet_coef_tensor(e, m, &k));
      /* Affine: the rule of degree 2p + 1 is already exact, as is the 10-node form. */
      random_affine_tet(1, 0.3, X);
      TAP_CALL(NULL, tet_element_reference(re, 4, X, &k, T, S));
      TAP_CALL(NULL, tet_element_reference(lo, 4, X, &k, T2, S2));
      drule = fmax(drule, fmax(tap_reldiff(T2, T, n * n), tap_reldiff(S2, S, n * n)));
      affine_nodes10(X, X10);
      TAP_CALL(NULL, tet_element_reference(re, 10, X10, &k, T2, S2));
      d10 = fmax(d10, fmax(tap_reldiff(T2, T, n * n), tap_reldiff(S2, S, n * n)));
      /* Curved: the rational integrands converge with the rule. */
      random_curved_tet(1, 0.05, X10);
      TAP_CALL(NULL, tet_element_reference(re, 10, X10, &k, T, S));
      TAP_CALL(NULL, tet_element_reference(hi, 10, X10, &k, T2, S2));
      dcurved = fmax(dcurved, fmax(tap_reldiff(T, T2, n * n), tap_reldiff(S, S2, n * n)));
    }
    refel_destroy(&re);
    refel_destroy(&lo);
    refel_destroy(&hi);
  }
  tap_ok(drule < 1e-13,
         "p = 1..3, affine: the default rule and the rule of degree 2p+1 agree "
         "(%.2g)",
         drule);
  tap_ok(d10 < 1e-13, "p = 1..3: a 10-node cell with straight edges is the 4-node cell (%.2g)",
         d10);
  tap_ok(dcurved < 1e-5,
         "p = 1..3, curved (edge nodes moved by 5%%): the default rule (symmetric, "
         "degree 2p+4) is within %.2g of the 1728-point rule",
         dcurved);
}

/* Rotating a cell and its tensors, scaling it, and scalar tensors. */
static void test_transformations(void)
{
  double drot = 0, dscale = 0, dscalar = 0;
  for (int p = 1; p <= 3; p++) {
    struct refel *re = NULL;
    TAP_CALL(NULL, refel_tet_create(p, &re));
    const int n = re->nsh;
    double X[30], Y[30], e[9], m[9], er[9], mr[9], R[9], h = 0.3;
    struct tet_coef k, kr;
    random_curved_tet(1, 0.05, X);
    random_spd(e);
    random_spd(m);
    /* R: a rotation about the axis (1, 2, 2)/3 by 0.7 (Rodrigues). */
    const double ax[3] = {1 / 3.0, 2 / 3.0, 2 / 3.0}, c = cos(0.7), s = sin(0.7);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        R[3 * i + j] = (i == j ? c : 0) + (1 - c) * ax[i] * ax[j];
        if (i != j) {
          const int l = 3 - i - j, sg = (j - i + 3) % 3 == 1 ? -1 : 1;
          R[3 * i + j] += sg * s * ax[l];
        }
      }
    for (int a = 0; a < 10; a++)
      for (int i = 0; i < 3; i++)
        Y[3 * a + i] =
            R[3 * i] * X[3 * a] + R[3 * i + 1] * X[3 * a + 1] + R[3 * i + 2] * X[3 * a + 2];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        er[3 * i + j] = mr[3 * i + j] = 0;
        for (int a = 0; a < 3; a++)
          for (int b = 0; b < 3; b++) {
            er[3 * i + j] += R[3 * i + a] * e[3 * a + b] * R[3 * j + b];
            mr[3 * i + j] += R[3 * i + a] * m[3 * a + b] * R[3 * j + b];
          }
      }
    TAP_CALL(NULL, tet_coef_tensor(e, m, &k));
    TAP_CALL(NULL, tet_coef_tensor(er, mr, &kr));
    TAP_CALL(NULL, tet_element_reference(re, 10, X, &k, T, S));
    TAP_CALL(NULL, tet_element_reference(re, 10, Y, &kr, T2, S2));
    drot = fmax(drot, fmax(tap_reldiff(T2, T, n * n), tap_reldiff(S2, S, n * n)));
    /* Scaling by h: T scales by h, S by 1/h. */
    for (int i = 0; i < 30; i++) Y[i] = h * X[i];
    TAP_CALL(NULL, tet_element_reference(re, 10, Y, &k, T2, S2));
    for (int i = 0; i < n * n; i++) {
      T2[i] /= h;
      S2[i] *= h;
    }
    dscale = fmax(dscale, fmax(tap_reldiff(T2, T, n * n), tap_reldiff(S2, S, n * n)));
    /* eps = 2 I, mu = 4 I as tensors and as scalars. */
    const double e2[9] = {2, 0, 0, 0, 2, 0, 0, 0, 2}, m4[9] = {4, 0, 0, 0, 4, 0, 0, 0, 4};
    TAP_CALL(NULL, tet_coef_tensor(e2, m4, &k));
    TAP_CALL(NULL, tet_element_reference(re, 10, X, &k, T, S));
    TAP_CALL(NULL, tet_coef_scalar(2, 4, &k));
    TAP_CALL(NULL, tet_element_reference(re, 10, X, &k, T2, S2));
    dscalar = fmax(dscalar, fmax(tap_reldiff(T2, T, n * n), tap_reldiff(S2, S, n * n)));
    refel_destroy(&re);
  }
  tap_ok(drot < 1e-13,
         "p = 1..3, curved: rotating the cell and its tensors leaves T_e and S_e "
         "unchanged (%.2g)",
         drot);
  tap_ok(dscale < 1e-13,
         "p = 1..3, curved: scaling the cell by h scales T_e by h and S_e by "
         "1/h (%.2g)",
         dscale);
  tap_ok(dscalar < 1e-15, "scalar eps_r, mu_r equal the isotropic tensors (%.2g)", dscalar);
}

static void test_errors(void)
{
  struct refel *re = NULL;
  TAP_CALL(NULL, refel_tet_create(2, &re));
  struct tet_coef k;
  const double nonsym[9] = {1, 0.5, 0, 0, 1, 0, 0, 0, 1}, indef[9] = {1, 0, 0, 0, -1, 0, 0, 0, 1};
  const double id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  int ok = tet_coef_scalar(0, 1, &k) == FEMINT_EINVAL && strstr(femint_last_error(NULL), "eps_r") &&
           tet_coef_scalar(1, -2, &k) == FEMINT_EINVAL && strstr(femint_last_error(NULL), "mu_r") &&
           tet_coef_tensor(nonsym, id, &k) == FEMINT_EINVAL &&
           strstr(femint_last_error(NULL), "not symmetric") &&
           tet_coef_tensor(id, indef, &k) == FEMINT_EINVAL &&
           strstr(femint_last_error(NULL), "mu_r is not positive definite");
  tap_ok(ok, "bad coefficients are refused, the message naming eps_r or mu_r and why");

  double X[30], X10[30];
  struct geom_tet_report rep;
  TAP_CALL(NULL, tet_coef_scalar(1, 1, &k));
  random_affine_tet(1, 0.1, X);
  affine_nodes10(X, X10);
  ok = geom_tet_check(re, 10, X10, &rep) == 0 && rep.detmin > 0;
  /* Swapping two vertices reverses the orientation: still a valid cell. */
  double Xs[30];
  memcpy(Xs, X, sizeof(double) * 12);
  memcpy(Xs, X + 3, sizeof(double) * 3);
  memcpy(Xs + 3, X, sizeof(double) * 3);
  ok = ok && geom_tet_check(re, 4, Xs, &rep) == 0;
  int o1, o2;
  geom_tet_check(NULL, 4, X, &rep);
  o1 = rep.orientation;
  geom_tet_check(NULL, 4, Xs, &rep);
  o2 = rep.orientation;
  ok = ok && o1 == -o2;
  /* An edge node pushed across the cell folds the map. */
  for (int i = 0; i < 3; i++) X10[3 * 4 + i] = X[3 * 3 + i] * 1.5 - 0.25 * (X[i] + X[3 + i]);
  int e1 = geom_tet_check(re, 10, X10, &rep);
  ok = ok && e1 == FEMINT_EJACOBIAN && strstr(femint_last_error(NULL), "det J");
  int e2 = tet_element_reference(re, 10, X10, &k, T, S);
  ok = ok && e2 == FEMINT_EJACOBIAN && strstr(femint_last_error(NULL), "det J");
  ok = ok && tet_element_reference(re, 5, X10, &k, T, S) == FEMINT_EINVAL &&
       geom_tet_check(re, 8, X10, NULL) == FEMINT_EINVAL;
  tap_ok(ok,
         "geom_tet_check accepts both orientations (%d, %d), refuses a folded 10-node cell "
         "(%s), as the element routine does; 5 or 8 nodes are refused",
         o1, o2, femint_error_name(e1));
  refel_destroy(&re);
}

int main(void)
{
  srand48(107);
  test_properties();
  test_null_dimension();
  test_independent();
  test_transformations();
  test_errors();
  return tap_done();
}
