/* Test: the 4- and 8-node quadrilateral map and its validity check, the 2D material matrices, and
 * the plain element matrices of plane elasticity, the Laplacian and the mass on quadrilaterals. */
#include "quad_common.h"

/* A random 8-node element: an affine image of the square with its vertices moved and, when curved,
 * its midpoints pushed off the chords (else at their middles); kept if geom_quad_check certifies
 * it. */
static void random_element(double *X, int curved)
{
  for (;;) {
    double A[4], shift[2] = {drand48(), drand48()};
    for (int i = 0; i < 4; i++) A[i] = (i % 3 == 0 ? 1.0 : 0.0) + 0.4 * (drand48() - 0.5);
    for (int a = 0; a < 4; a++)
      for (int i = 0; i < 2; i++)
        X[2 * a + i] = shift[i] + A[2 * i] * vert_xi[a][0] + A[2 * i + 1] * vert_xi[a][1] +
                       0.2 * (drand48() - 0.5);
    for (int e = 0; e < 4; e++) {
      const double *a = X + 2 * edge_vert[e][0], *b = X + 2 * edge_vert[e][1];
      double t[2] = {b[0] - a[0], b[1] - a[1]}, bulge = curved ? 0.3 * (drand48() - 0.5) : 0;
      double slide = curved ? 0.1 * (drand48() - 0.5) : 0;
      for (int i = 0; i < 2; i++)
        X[8 + 2 * e + i] = (a[i] + b[i]) / 2 + slide * t[i] + bulge * (i ? t[0] : -t[1]);
    }
    if (!geom_quad_check(NULL, 8, X, NULL)) return;
  }
}

static void test_geometry(void)
{
  double N[8], dN[16], X[16], xi[2];
  int bad = 0;
  for (int nn = 4; nn <= 8; nn += 4)
    for (int b = 0; b < nn; b++) {
      geom_quad_nodes(nn, b < 4 ? vert_xi[b] : mid_xi[b - 4], N, NULL);
      for (int a = 0; a < nn; a++)
        if (fabs(N[a] - (a == b)) > 1e-15) bad++;
    }
  for (int t = 0; t < 20; t++) {
    random_point(xi);
    for (int nn = 4; nn <= 8; nn += 4) {
      geom_quad_nodes(nn, xi, N, dN);
      double s = 0, sx = 0, sy = 0;
      for (int a = 0; a < nn; a++) s += N[a], sx += dN[2 * a], sy += dN[2 * a + 1];
      if (fabs(s - 1) > 1e-15 || fabs(sx) > 1e-15 || fabs(sy) > 1e-15) bad++;
    }
  }
  tap_ok(!bad && geom_quad_nodes(6, xi, N, dN) == FEMINT_EINVAL,
         "4- and 8-node functions: N_a(node b) = delta_ab, partition of unity; 6 nodes refused");

  /* The map interpolates its nodes; its Jacobian is its derivative; 4 nodes = 8 with straight
   * midpoints. */
  double worst_node = 0, worst_jac = 0, worst_lin = 0;
  for (int t = 0; t < 10; t++) {
    random_element(X, 1);
    for (int a = 0; a < 8; a++) {
      double x[2];
      geom_quad_point(8, X, a < 4 ? vert_xi[a] : mid_xi[a - 4], x);
      worst_node = fmax(worst_node, fmax(fabs(x[0] - X[2 * a]), fabs(x[1] - X[2 * a + 1])));
    }
    random_point(xi);
    double J[4], xp[2], xm[2], x2[2], h = 1e-6;
    geom_quad_jacobian(8, X, xi, J);
    for (int j = 0; j < 2; j++) {
      memcpy(x2, xi, sizeof x2);
      x2[j] += h;
      geom_quad_point(8, X, x2, xp);
      x2[j] -= 2 * h;
      geom_quad_point(8, X, x2, xm);
      for (int i = 0; i < 2; i++)
        worst_jac = fmax(worst_jac, fabs((xp[i] - xm[i]) / (2 * h) - J[2 * i + j]));
    }
    double Y[16], J4[4], J8[4], y4[2], y8[2];
    random_element(Y, 0);
    double d4 = geom_quad_jacobian(4, Y, xi, J4), d8 = geom_quad_jacobian(8, Y, xi, J8);
    geom_quad_point(4, Y, xi, y4);
    geom_quad_point(8, Y, xi, y8);
    worst_lin = fmax(worst_lin, fabs(d4 - d8));
    for (int k = 0; k < 4; k++) worst_lin = fmax(worst_lin, fabs(J4[k] - J8[k]));
    for (int k = 0; k < 2; k++) worst_lin = fmax(worst_lin, fabs(y4[k] - y8[k]));
  }
  tap_ok(worst_node < 1e-15, "the 8-node map interpolates its nodes (%.2g)", worst_node);
  tap_ok(worst_jac < 1e-8, "the Jacobian matches centered differences of the map (%.2g)",
         worst_jac);
  tap_ok(worst_lin < 1e-14, "a 4-node element is the 8-node one with straight midpoints (%.2g)",
         worst_lin);

  /* The validity check. */
  struct geom_quad_report rep;
  int rc = geom_quad_check(NULL, 8, ref_nodes, &rep);
  tap_ok(rc == 0 && rep.depth == 0 && fabs(rep.detmin - 1) < 1e-15,
         "the reference square is certified without subdivision (det J = %g)", rep.detmin);
  int maxdepth;
  /* A non-convex (arrowhead) 4-node element: det J < 0 near its reentrant vertex. */
  const double arrow[8] = {0, 0, 2, 0, 0.5, 0.5, 0, 2};
  rc = geom_quad_check(NULL, 4, arrow, &rep);
  tap_ok(rc == FEMINT_EJACOBIAN && rep.detmin < 0,
         "a non-convex 4-node element is rejected (det J = %g at (%g, %g))", rep.detmin, rep.xi[0],
         rep.xi[1]);

  /* Midpoint of edge 0 moved towards vertex 0: at the quarter point det J = 0 at the vertex;
   * past it det J < 0 in a sliver at the vertex that the quadrature points miss. */
  double Q[16];
  memcpy(Q, ref_nodes, sizeof Q);
  Q[8] = -0.5;
  rc = geom_quad_check(NULL, 8, Q, &rep);
  tap_ok(rc == FEMINT_EJACOBIAN && fabs(rep.detmin) < 1e-15,
         "a quarter-point element (det J = 0 at a vertex) is not certified (%s)",
         femint_thread_error());
  Q[8] = -0.52;
  int missed = 0;
  for (int p = 1; p <= 7; p++) {
    struct refel *re = NULL;
    double t[GEOM_QUAD_NTERMS * 64];
    int bad_q;
    if (refel_quad_create(p, &re)) continue;
    missed += geom_terms(re, 8, Q, t, &bad_q) == 0;
    refel_destroy(&re);
  }
  rc = geom_quad_check(NULL, 8, Q, &rep);
  tap_ok(missed == 7 && rc == FEMINT_EJACOBIAN && rep.detmin < 0,
         "midpoint past the quarter point: det J > 0 at the quadrature points of p = 1..7, yet "
         "the check finds det J = %.3g at (%g, %g)",
         rep.detmin, rep.xi[0], rep.xi[1]);
  /* Midpoints of edges 0 and 2 pushed 0.9 towards the centre: det J > 0 with its minimum inside,
   * where the Bernstein coefficients of the whole square are not all positive. */
  memcpy(Q, ref_nodes, sizeof Q);
  Q[9] = -0.1;
  Q[13] = 0.1;
  rc = geom_quad_check(NULL, 8, Q, &rep);
  tap_ok(rc == 0 && rep.depth > 0,
         "a pinched element: certified after %d subdivision(s) (%d sub-squares, det J >= %.3g)",
         rep.depth, rep.nsquare, rep.detmin);

  /* An element with det J > 0 at every point of a 17 x 17 grid, negative between them near
   * (0.61, 0.92): only the certificate's subdivision finds it, in each of its four numberings
   * (node numbering turned by r quarter turns moves the sliver to the other corners). */
  const double sliver[16] = {-0.71, -0.88, 0.72, -1.28, 1.18, 0.8,  -0.83, 1.03,
                             -0.17, -0.82, 0.5,  0.56,  0.53, 0.96, -1.53, 0.22};
  double gmin = INFINITY, dneg = INFINITY, J4[4];
  int caught = 0, depth_min = 99;
  for (int r = 0; r < 4; r++) {
    double S[16];
    for (int a = 0; a < 4; a++)
      for (int i = 0; i < 2; i++) {
        S[2 * a + i] = sliver[2 * ((a + r) % 4) + i];
        S[8 + 2 * a + i] = sliver[8 + 2 * ((a + r) % 4) + i];
      }
    for (int i = 0; i <= 16; i++)
      for (int j = 0; j <= 16; j++) {
        double x[2] = {-1 + i / 8.0, -1 + j / 8.0};
        gmin = fmin(gmin, geom_quad_jacobian(8, S, x, J4));
      }
    for (int i = 0; i <= 200; i++)
      for (int j = 0; j <= 200; j++) {
        double x[2] = {-1 + i / 100.0, -1 + j / 100.0};
        dneg = fmin(dneg, geom_quad_jacobian(8, S, x, J4));
      }
    rc = geom_quad_check(NULL, 8, S, &rep);
    caught += rc == FEMINT_EJACOBIAN && rep.detmin < 0;
    depth_min = rep.depth < depth_min ? rep.depth : depth_min;
  }
  tap_ok(gmin > 0 && dneg < 0 && caught == 4 && depth_min > 0,
         "det J > 0 on a 17 x 17 grid (min %.2g) but down to %.2g between: rejected in all four "
         "numberings after >= %d subdivisions",
         gmin, dneg, depth_min);

  /* Strongly distorted random elements against a dense 101 x 101 sampling: a certified element
   * has det J > 0 at every sample; a rejected one has a point with det J <= 0 or a near-zero
   * minimum. */
  int cert = 0, neg = 0, unsure = 0, wrong = 0;
  maxdepth = 0;
  for (int t = 0; t < 300; t++) {
    for (int a = 0; a < 16; a++) Q[a] = ref_nodes[a] + (a < 8 ? 0.6 : 1.2) * (drand48() - 0.5);
    rc = geom_quad_check(NULL, 8, Q, &rep);
    double dmin = INFINITY, dmax = 0, J[4];
    for (int i = 0; i <= 100; i++)
      for (int j = 0; j <= 100; j++) {
        double x[2] = {-1 + i / 50.0, -1 + j / 50.0}, d = geom_quad_jacobian(8, Q, x, J);
        dmin = fmin(dmin, d);
        dmax = fmax(dmax, fabs(d));
      }
    if (rc == 0) {
      cert++;
      maxdepth = rep.depth > maxdepth ? rep.depth : maxdepth;
      wrong += !(dmin > 0);
    } else if (rep.detmin <= 0) {
      neg++;
      wrong += !(geom_quad_jacobian(8, Q, rep.xi, J) <= 0);
    } else {
      unsure++;
      wrong += !(dmin < 1e-6 * dmax);
    }
  }
  tap_ok(!wrong && cert > 0 && neg > 0,
         "300 distorted elements: %d certified (det J > 0 at all dense samples; subdivision depth "
         "<= %d), %d rejected at a point with det J <= 0, %d uncertain",
         cert, maxdepth, neg, unsure);

  struct refel *re1 = NULL;
  refel_quad_create(1, &re1);
  const double flipped[8] = {-1, -1, -1, 1, 1, 1, 1, -1}; /* clockwise */
  rc = geom_quad_check(re1, 4, flipped, &rep);
  tap_ok(rc == FEMINT_EJACOBIAN && strstr(femint_thread_error(), "quadrature point 0"),
         "a clockwise element is rejected at its first quadrature point (%s)",
         femint_thread_error());
  refel_destroy(&re1);
}

/* The textbook material matrices, from the Lame constants. */
static void textbook_D(int plane, double E, double nu, double *D)
{
  double lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
  if (plane == QUAD_PLANE_STRESS) lambda = 2 * lambda * mu / (lambda + 2 * mu);
  const double m[9] = {lambda + 2 * mu, lambda, 0, lambda, lambda + 2 * mu, 0, 0, 0, mu};
  memcpy(D, m, sizeof m);
}

static void test_material(void)
{
  double D[9], T[9], c[36], worst = 0, worst_c = 0;
  int bad = 0;
  const double nus[4] = {-0.3, 0, 0.25, 0.49};
  for (int k = 0; k < 4; k++)
    for (int plane = 0; plane < 2; plane++) {
      double E = 1 + 200 * drand48(), nu = nus[k];
      if (quad_material_matrix(plane, E, nu, D)) bad++;
      textbook_D(plane, E, nu, T);
      for (int i = 0; i < 9; i++) worst = fmax(worst, fabs(D[i] - T[i]) / T[0]);
      /* Plane strain c is the 2D restriction of lambda d_ij d_kl + mu (d_ik d_jl + d_il d_jk),
       * c[i][k][1+j][1+l], as form.c writes it in 3D. */
      if (plane == QUAD_PLANE_STRAIN) {
        double lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
        if (quad_coef_elasticity(plane, E, nu, c)) bad++;
        for (int i = 0; i < 2; i++)
          for (int kk = 0; kk < 2; kk++)
            for (int iD = 0; iD < 3; iD++)
              for (int jD = 0; jD < 3; jD++) {
                double want = 0;
                if (iD && jD) {
                  int j = iD - 1, l = jD - 1;
                  want = lambda * (i == j) * (kk == l) +
                         mu * ((i == kk) * (j == l) + (i == l) * (j == kk));
                }
                worst_c = fmax(worst_c, fabs(c[((i * 2 + kk) * 3 + iD) * 3 + jD] - want) /
                                            (lambda + 2 * mu));
              }
      }
    }
  /* For nu > 0 plane strain is stiffer in D_11 and D_12, with the same shear modulus. */
  double S[9], P[9];
  quad_material_matrix(QUAD_PLANE_STRESS, 1, 0.3, S);
  quad_material_matrix(QUAD_PLANE_STRAIN, 1, 0.3, P);
  bad += !(P[0] > S[0] && P[1] > S[1] && fabs(P[8] - S[8]) < 1e-15);
  bad += quad_material_matrix(QUAD_PLANE_STRAIN, 1, 0.5, D) != FEMINT_EINVAL;
  bad += quad_material_matrix(QUAD_PLANE_STRESS, 0, 0.3, D) != FEMINT_EINVAL;
  bad += quad_material_matrix(2, 1, 0.3, D) != FEMINT_EINVAL;
  tap_ok(!bad && worst < 1e-15,
         "plane stress and plane strain [E] equal the Lame-constant formulas (%.2g), differ for "
         "nu > 0, refuse nu = 0.5, E = 0, an unknown plane",
         worst);
  tap_ok(worst_c < 1e-15,
         "plane strain c[i][k][j][l] = lambda d_ij d_kl + mu (d_ik d_jl + "
         "d_il d_jk) (%.2g)",
         worst_c);
}

/* Seed 003's formula (1) literally: k_IJ = sum_q w |J| ([D*]phi_I)^T [E] [D*]phi_J with the
 * 2n x 2 matrix of shape functions, phi_{2i} = (phi_i, 0), phi_{2i+1} = (0, phi_i). */
static void seed_stiffness(const struct refel *re, int nnode, const double *X, const double *D,
                           double *K)
{
  int n = re->nsh, N = 2 * n;
  memset(K, 0, sizeof(double) * N * N);
  for (int q = 0; q < re->nq; q++) {
    double J[4];
    double det = geom_quad_jacobian(nnode, X, re->xq + 2 * q, J);
    double Js[4] = {J[3] / det, -J[2] / det, -J[1] / det, J[0] / det}; /* [J*] = J^-T rows */
    const double *ph = re->phi + (size_t)q * 3 * n;
    double Bm[3][N_MAX];
    for (int i = 0; i < n; i++) {
      double dx = Js[0] * ph[n + i] + Js[1] * ph[2 * n + i];
      double dy = Js[2] * ph[n + i] + Js[3] * ph[2 * n + i];
      Bm[0][2 * i] = dx, Bm[1][2 * i] = 0, Bm[2][2 * i] = dy;
      Bm[0][2 * i + 1] = 0, Bm[1][2 * i + 1] = dy, Bm[2][2 * i + 1] = dx;
    }
    double w = re->wq[q] * fabs(det);
    for (int I = 0; I < N; I++)
      for (int Jj = 0; Jj < N; Jj++) {
        double s = 0;
        for (int k = 0; k < 3; k++)
          for (int l = 0; l < 3; l++) s += Bm[k][I] * D[3 * k + l] * Bm[l][Jj];
        K[I * N + Jj] += w * s;
      }
  }
}

/* Eigenvalues of the symmetric n x n matrix A (destroyed) by cyclic Jacobi, ascending. */
static void jacobi_eigenvalues(int n, double *A, double *ev)
{
  for (int sweep = 0; sweep < 100; sweep++) {
    double off = 0, tot = 0;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        if (i == j)
          tot += A[i * n + j] * A[i * n + j];
        else
          off += A[i * n + j] * A[i * n + j];
      }
    if (off <= 1e-32 * (tot + off)) break;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++) {
        double apq = A[p * n + q];
        if (apq == 0) continue;
        double theta = (A[q * n + q] - A[p * n + p]) / (2 * apq);
        double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
        double c = 1 / sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < n; k++) {
          double akp = A[k * n + p], akq = A[k * n + q];
          A[k * n + p] = c * akp - s * akq;
          A[k * n + q] = s * akp + c * akq;
        }
        for (int k = 0; k < n; k++) {
          double apk = A[p * n + k], aqk = A[q * n + k];
          A[p * n + k] = c * apk - s * aqk;
          A[q * n + k] = s * apk + c * aqk;
        }
      }
  }
  for (int i = 0; i < n; i++) ev[i] = A[i * n + i];
  for (int i = 1; i < n; i++) /* insertion sort */
    for (int j = i; j > 0 && ev[j] < ev[j - 1]; j--) {
      double t = ev[j];
      ev[j] = ev[j - 1];
      ev[j - 1] = t;
    }
}

struct elem {
  int nnode;
  const double *X;
  int comp;
};
static double coordinate(const double *xi, const void *data)
{
  const struct elem *e = data;
  double x[2];
  geom_quad_point(e->nnode, e->X, xi, x);
  return x[e->comp];
}

/* Plane elasticity on random elements: seed 003's formula, symmetry, the rigid-body modes, and
 * the packed upper half. */
static void test_elasticity(void)
{
  double *K = malloc(sizeof(double) * N_MAX * N_MAX), *S = malloc(sizeof(double) * N_MAX * N_MAX);
  double *U = malloc(sizeof(double) * N_MAX * (N_MAX + 1) / 2), ev[N_MAX];
  double worst_seed = 0, worst_sym = 0, worst_null = 0, worst_upper = 0, gap = INFINITY;
  double zmax = 0;
  int bad_count = 0, bad_call = 0, curved_p1_zero = -1;
  for (int p = 1; p <= 7; p++) {
    struct refel *re = NULL;
    if (refel_quad_create(p, &re)) {
      tap_ok(0, "refel_quad_create(%d)", p);
      return;
    }
    int n = re->nsh, N = 2 * n;
    for (int curved = 0; curved <= 1; curved++)
      for (int t = 0; t < 3; t++) {
        double X[16], D[9], c[36];
        int plane = t % 2, nnode = curved ? 8 : 4;
        random_element(X, curved);
        double E = 1 + 10 * drand48(), nu = 0.45 * drand48();
        bad_call += quad_material_matrix(plane, E, nu, D) != 0;
        bad_call += quad_coef_elasticity(plane, E, nu, c) != 0;
        bad_call += integrate_quad_reference(re, nnode, X, 2, c, QUAD_STORE_FULL, K) != 0;
        bad_call += integrate_quad_reference(re, nnode, X, 2, c, QUAD_STORE_UPPER, U) != 0;
        seed_stiffness(re, nnode, X, D, S);
        double knorm = 0;
        for (int k = 0; k < N * N; k++) knorm = fmax(knorm, fabs(K[k]));
        worst_seed = fmax(worst_seed, tap_reldiff(K, S, (size_t)N * N));
        for (int i = 0; i < N; i++)
          for (int j = 0; j < N; j++) {
            worst_sym = fmax(worst_sym, fabs(K[i * N + j] - K[j * N + i]) / knorm);
            if (j >= i)
              worst_upper = fmax(worst_upper, fabs(U[quad_packed_index(N, i, j)] - K[i * N + j]));
          }
        /* Rigid motions: (1, 0), (0, 1), (-y, x) projected on the basis (exact where the
         * coordinates lie in the space: p >= 2, or straight edges). */
        double cx[NSH_MAX], cy[NSH_MAX], rmin, *L = mass_factor(re, &rmin);
        struct elem ex = {nnode, X, 0}, ey = {nnode, X, 1};
        project(re, L, coordinate, &ex, cx);
        project(re, L, coordinate, &ey, cy);
        free(L);
        if (p > 1 || !curved) {
          double r[3][N_MAX];
          for (int i = 0; i < n; i++) {
            r[0][2 * i] = i < 4, r[0][2 * i + 1] = 0;
            r[1][2 * i] = 0, r[1][2 * i + 1] = i < 4;
            r[2][2 * i] = -cy[i], r[2][2 * i + 1] = cx[i];
          }
          for (int m = 0; m < 3; m++) {
            double kr = 0, rr = 0;
            for (int i = 0; i < N; i++) {
              double s = 0;
              for (int j = 0; j < N; j++) s += K[i * N + j] * r[m][j];
              kr += s * s;
              rr += r[m][i] * r[m][i];
            }
            worst_null = fmax(worst_null, sqrt(kr / rr) / knorm);
          }
        }
        memcpy(S, K, sizeof(double) * N * N);
        jacobi_eigenvalues(N, S, ev);
        int nzero = 0;
        for (int i = 0; i < N; i++) nzero += fabs(ev[i]) < 1e-10 * ev[N - 1];
        if (p > 1 || !curved) {
          if (nzero != 3) bad_count++;
          zmax = fmax(zmax, fmax(fabs(ev[0]), fabs(ev[2])) / ev[N - 1]);
          gap = fmin(gap, ev[3] / ev[N - 1]);
        } else {
          curved_p1_zero = nzero;
        }
        if (ev[0] < -1e-10 * ev[N - 1]) bad_count++;
      }
    refel_destroy(&re);
  }
  tap_ok(!bad_call, "material matrices and element matrices computed");
  tap_ok(worst_seed < 1e-13,
         "p = 1..7: the element matrix equals seed 003's formula (1) with [D*] and [E] (%.2g)",
         worst_seed);
  tap_ok(worst_sym < 1e-15, "p = 1..7: the element stiffness is symmetric (%.2g)", worst_sym);
  tap_ok(!bad_count,
         "exactly 3 zero-energy modes, p = 1..7 on 4-node and p = 2..7 on curved "
         "8-node elements (|lambda| <= %.2g lambda_max, next >= %.2g lambda_max)",
         zmax, gap);
  tap_ok(worst_null < 1e-13, "translations and the rotation (-y, x) are in the null space (%.2g)",
         worst_null);
  tap_ok(curved_p1_zero == 2,
         "p = 1 on a curved element: %d zero-energy modes (the rotation of "
         "a curved element is not bilinear)",
         curved_p1_zero);
  tap_ok(worst_upper == 0, "the packed upper half equals the upper half of the full matrix (%.2g)",
         worst_upper);
  free(K);
  free(S);
  free(U);
}

/* A polynomial u(x, y) = sum c_ab (x - x0)^a (y - y0)^b, a + b <= p, and its gradient. */
struct poly {
  int p;
  double c[8][8], x0, y0;
};
static void poly_eval(const struct poly *u, const double *x, double *v)
{
  double dx = x[0] - u->x0, dy = x[1] - u->y0;
  v[0] = v[1] = v[2] = 0;
  for (int a = 0; a <= u->p; a++)
    for (int b = 0; a + b <= u->p; b++) {
      v[0] += u->c[a][b] * ipow(dx, a) * ipow(dy, b);
      if (a) v[1] += u->c[a][b] * a * ipow(dx, a - 1) * ipow(dy, b);
      if (b) v[2] += u->c[a][b] * b * ipow(dx, a) * ipow(dy, b - 1);
    }
}
struct poly_on {
  const struct poly *u;
  const double *X;
};
static double poly_ref(const double *xi, const void *data)
{
  const struct poly_on *d = data;
  double x[2], v[3];
  geom_quad_point(4, d->X, xi, x);
  poly_eval(d->u, x, v);
  return v[0];
}

/* On affine elements the Laplace and mass matrices give int grad u . grad v and int u v for
 * polynomials of degree <= p, against a 12 x 12 Gauss rule on the physical element. */
static void test_laplace_affine(void)
{
  double *K = malloc(sizeof(double) * NSH_MAX * NSH_MAX),
         *M = malloc(sizeof(double) * NSH_MAX * NSH_MAX);
  double *K8 = malloc(sizeof(double) * NSH_MAX * NSH_MAX);
  double worst_k = 0, worst_m = 0, worst_48 = 0;
  double gx[12], gw[12];
  quad_gauss_legendre(12, gx, gw);
  for (int p = 1; p <= 7; p++) {
    struct refel *re = NULL;
    if (refel_quad_create(p, &re)) {
      tap_ok(0, "refel_quad_create(%d)", p);
      return;
    }
    int n = re->nsh;
    double rmin, *L = mass_factor(re, &rmin);
    for (int t = 0; t < 3; t++) {
      /* A parallelogram: x = x0 + A xi. */
      double X[16], A[4], x0[2] = {drand48(), drand48()}, c[9];
      for (int i = 0; i < 4; i++) A[i] = (i % 3 == 0 ? 1.0 : 0.0) + 0.8 * (drand48() - 0.5);
      for (int a = 0; a < 8; a++) {
        const double *r = a < 4 ? vert_xi[a] : mid_xi[a - 4];
        for (int i = 0; i < 2; i++) X[2 * a + i] = x0[i] + A[2 * i] * r[0] + A[2 * i + 1] * r[1];
      }
      double kappa = 0.5 + drand48(), rho = 0.5 + drand48();
      quad_coef_laplace(1, kappa, c);
      integrate_quad_reference(re, 4, X, 1, c, QUAD_STORE_FULL, K);
      integrate_quad_reference(re, 8, X, 1, c, QUAD_STORE_FULL, K8);
      worst_48 = fmax(worst_48, tap_reldiff(K8, K, (size_t)n * n));
      quad_coef_mass(1, rho, c);
      integrate_quad_reference(re, 4, X, 1, c, QUAD_STORE_FULL, M);
      struct poly u = {p, {{0}}, drand48(), drand48()}, v = {p, {{0}}, drand48(), drand48()};
      for (int a = 0; a <= p; a++)
        for (int b = 0; a + b <= p; b++) {
          u.c[a][b] = 2 * drand48() - 1;
          v.c[a][b] = 2 * drand48() - 1;
        }
      double cu[NSH_MAX], cv[NSH_MAX];
      struct poly_on du = {&u, X}, dv = {&v, X};
      project(re, L, poly_ref, &du, cu);
      project(re, L, poly_ref, &dv, cv);
      double ak = 0, am = 0, ek = 0, em = 0, sk = 0, sm = 0;
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
          ak += cv[i] * K[i * n + j] * cu[j];
          am += cv[i] * M[i * n + j] * cu[j];
        }
      double det = A[0] * A[3] - A[1] * A[2];
      for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++) {
          double xi[2] = {gx[i], gx[j]}, x[2], uu[3], vv[3], w = gw[i] * gw[j] * det;
          for (int k = 0; k < 2; k++) x[k] = x0[k] + A[2 * k] * xi[0] + A[2 * k + 1] * xi[1];
          poly_eval(&u, x, uu);
          poly_eval(&v, x, vv);
          ek += w * kappa * (uu[1] * vv[1] + uu[2] * vv[2]);
          em += w * rho * uu[0] * vv[0];
          sk += w * kappa * sqrt((uu[1] * uu[1] + uu[2] * uu[2]) * (vv[1] * vv[1] + vv[2] * vv[2]));
          sm += w * rho * fabs(uu[0] * vv[0]);
        }
      worst_k = fmax(worst_k, fabs(ak - ek) / sk);
      worst_m = fmax(worst_m, fabs(am - em) / sm);
    }
    free(L);
    refel_destroy(&re);
  }
  tap_ok(worst_k < 1e-12,
         "p = 1..7, affine elements: v^T K u = int kappa grad u . grad v for "
         "polynomials of degree <= p (%.2g)",
         worst_k);
  tap_ok(worst_m < 1e-12, "p = 1..7, affine elements: v^T M u = int rho u v (%.2g)", worst_m);
  tap_ok(worst_48 < 1e-14,
         "p = 1..7: 4- and 8-node descriptions of an affine element give the "
         "same matrix (%.2g)",
         worst_48);
  free(K);
  free(K8);
  free(M);
}

static void test_errors(void)
{
  struct refel *re = NULL, *prism = NULL;
  double c[9], A[64];
  int ok = 1;
  quad_coef_laplace(1, 1, c);
  if (!refel_quad_create(1, &re) && !refel_prism_create(1, &prism)) {
    ok = ok && integrate_quad_reference(prism, 4, ref_nodes, 1, c, 0, A) == FEMINT_EINVAL;
    ok = ok && integrate_quad_reference(re, 5, ref_nodes, 1, c, 0, A) == FEMINT_EINVAL;
    ok = ok && integrate_quad_reference(re, 4, ref_nodes, 1, c, 2, A) == FEMINT_EINVAL;
    const double flipped[8] = {-1, -1, -1, 1, 1, 1, 1, -1};
    ok = ok && integrate_quad_reference(re, 4, flipped, 1, c, 0, A) == FEMINT_EJACOBIAN;
  } else {
    ok = 0;
  }
  refel_destroy(&re);
  refel_destroy(&prism);
  tap_ok(ok, "a prism, 5 nodes, an unknown storage and a clockwise element are refused");
}

int main(void)
{
  srand48(105);
  test_geometry();
  test_material();
  test_elasticity();
  test_laplace_affine();
  test_errors();
  return tap_done();
}
