/* Test: the H(curl) reference tetrahedron has 6, 20, 45 independent functions spanning Nedelec's
 * first-kind spaces, exact curls, the documented traces and modes, and an exact quadrature. */
#include "tet_common.h"

static double val[3 * NSH], curl[3 * NSH];

static void test_counts_and_modes(void)
{
  int ok = refel_tet_nsh(0) == FEMINT_EORDER && refel_tet_nsh(4) == FEMINT_EORDER;
  for (int p = 1; p <= 3; p++) {
    int sum = TET_NE * refel_tet_entity_nmodes(MODE_EDGE, p) +
              TET_NF * refel_tet_entity_nmodes(MODE_FACE, p) +
              refel_tet_entity_nmodes(MODE_INTERIOR, p);
    ok = ok && refel_tet_nsh(p) == (p == 1 ? 6 : p == 2 ? 20 : 45) && sum == refel_tet_nsh(p);
  }
  tap_ok(ok, "nsh = 6, 20, 45 for p = 1, 2, 3 (= 6 p + 4 p(p-1) + p(p-1)(p-2)/2), FEMINT_EORDER "
             "outside");

  struct refel *top = NULL;
  TAP_CALL(NULL, refel_tet_create(3, &top));
  int bad_rank = 0, bad_prefix = 0, bad_flags = 0;
  double diff = 0, fdiff = 0;
  for (int p = 1; p <= 3; p++) {
    struct refel *re = NULL;
    TAP_CALL(NULL, refel_tet_create(p, &re));
    /* Each entity holds ranks 0..nmodes-1 once; lower orders are prefixes of higher ones. */
    for (int kind = MODE_EDGE; kind <= MODE_INTERIOR; kind++) {
      const int nent = kind == MODE_EDGE ? TET_NE : kind == MODE_FACE ? TET_NF : 1;
      for (int ent = 0; ent < nent; ent++) {
        int seen[16] = {0}, count = 0;
        for (int i = 0; i < re->nsh; i++) {
          const struct refel_mode *m = &re->mode[i];
          if (m->kind != kind || m->entity != ent) continue;
          if (m->rank < 0 || m->rank >= refel_tet_entity_nmodes(kind, p) || seen[m->rank]++)
            bad_rank++;
          if (m->level > p) bad_rank++;
          count++;
        }
        if (count != refel_tet_entity_nmodes(kind, p)) bad_rank++;
      }
    }
    for (int i = 0; i < re->nsh; i++) {
      const struct refel_mode *m = &re->mode[i];
      if (!same_mode(m, &top->mode[i])) bad_prefix++;
      if (m->odd != (m->kind == MODE_EDGE && m->rank % 2 == 0)) bad_flags++;
      if (m->sorted != (m->kind == MODE_FACE)) bad_flags++;
      if ((m->type == TET_WHITNEY) != (m->level == 1)) bad_flags++;
    }
    /* The tabulation is the evaluation at the points, also in single precision. */
    for (int q = 0; q < re->nq; q++) {
      refel_tet_eval(p, re->xq + 3 * q, val, curl);
      for (int k = 0; k < 3 * re->nsh; k++) {
        const size_t at = (size_t)q * 3 * re->nsh + k;
        diff = fmax(diff, fmax(fabs(val[k] - re->val[at]), fabs(curl[k] - re->curl[at])));
        fdiff = fmax(fdiff, fabs(re->val_f[at] - re->val[at]) / fmax(1, fabs(re->val[at])));
        fdiff = fmax(fdiff, fabs(re->curl_f[at] - re->curl[at]) / fmax(1, fabs(re->curl[at])));
      }
    }
    refel_destroy(&re);
  }
  refel_destroy(&top);
  tap_ok(!bad_rank, "p = 1..3: each edge, face and the interior number their modes 0..n-1");
  tap_ok(!bad_prefix, "p = 1, 2: the modes are the first ones of order 3 (hierarchical)");
  tap_ok(!bad_flags, "modes: Whitney at level 1 only, odd on edge ranks 0 and 2, face modes "
                     "sorted");
  tap_ok(diff == 0 && fdiff < 1e-6,
         "tabulated values and curls are refel_tet_eval's (double "
         "%.2g, single %.2g)",
         diff, fdiff);
}

/* The conical rule of n points per direction: positive weights, points inside, sum 1/6, every
 * monomial of degree <= 2n-1 exact, some monomial of degree 2n not. */
static void test_quadrature(void)
{
  int bad_pts = 0;
  double worst = 0, outside = INFINITY;
  for (int n = 1; n <= 8; n++) {
    const int nq = n * n * n;
    double *x = malloc(sizeof(double) * 3 * nq), *w = malloc(sizeof(double) * nq), sum = 0;
    TAP_CALL(NULL, quad_tet(n, x, w));
    for (int q = 0; q < nq; q++) {
      const double *p = x + 3 * q;
      sum += w[q];
      if (!(w[q] > 0 && p[0] > 0 && p[1] > 0 && p[2] > 0 && p[0] + p[1] + p[2] < 1)) bad_pts++;
    }
    if (fabs(sum - 1.0 / 6) > 1e-15) bad_pts++;
    for (int d = 0; d <= 2 * n; d++) {
      const double deg_err = tet_rule_misfit(nq, x, w, d);
      if (d < 2 * n)
        worst = fmax(worst, deg_err);
      else
        outside = fmin(outside, deg_err);
    }
    free(x);
    free(w);
  }
  double x[3], w[1];
  int refused = quad_tet(0, x, w) == FEMINT_EORDER && quad_tet(17, x, w) == FEMINT_EORDER;
  tap_ok(!bad_pts && refused, "conical rules n = 1..8: n^3 points inside, positive weights "
                              "summing to 1/6; n = 0 and 17 refused");
  tap_ok(worst < 1e-13, "n = 1..8: x^a y^b z^c exact for a + b + c <= 2n - 1 (%.2g)", worst);
  tap_ok(outside > 1e-8, "n = 1..8: some monomial of degree 2n is not (smallest misfit %.2g)",
         outside);
}

/* curl N from centered differences of the values. */
static void test_curls(void)
{
  const double h = 1e-5;
  static double vp[3][3 * NSH], vm[3][3 * NSH];
  double worst = 0;
  for (int p = 1; p <= 3; p++) {
    const int n = refel_tet_nsh(p);
    for (int t = 0; t < 20; t++) {
      double xi[3], x2[3];
      random_tet_point(0.01, xi);
      refel_tet_eval(p, xi, val, curl);
      for (int j = 0; j < 3; j++) {
        memcpy(x2, xi, sizeof x2);
        x2[j] = xi[j] + h;
        refel_tet_eval(p, x2, vp[j], NULL);
        x2[j] = xi[j] - h;
        refel_tet_eval(p, x2, vm[j], NULL);
      }
      for (int i = 0; i < n; i++) {
        /* D[c][j] = d N_c / d xi_j */
        double D[3][3];
        for (int c = 0; c < 3; c++)
          for (int j = 0; j < 3; j++) D[c][j] = (vp[j][c * n + i] - vm[j][c * n + i]) / (2 * h);
        const double fd[3] = {D[2][1] - D[1][2], D[0][2] - D[2][0], D[1][0] - D[0][1]};
        for (int c = 0; c < 3; c++) worst = fmax(worst, fabs(fd[c] - curl[c * n + i]));
      }
    }
  }
  tap_ok(worst < 1e-8, "p = 1..3: curls match centered differences of the values (%.2g)", worst);
}

/* Gram matrix SPD, and the span: every polynomial field of degree p-1 and every gradient of a
 * polynomial of degree p is reproduced by the L2 projection, so that the 6, 20, 45 independent
 * functions span Nedelec's first-kind space of degree p (of that dimension). */
static double fit(const struct refel *re, const double *L, int comp, const int *ex, int grad)
{
  const int n = re->nsh;
  double coef[NSH] = {0}, err = 0;
  /* The field: x^a y^b z^c e_comp, or the gradient of x^a y^b z^c. */
  for (int pass = 0; pass < 2; pass++) {
    for (int q = 0; q < re->nq + (pass ? 20 : 0); q++) {
      double xi[3], f[3] = {0, 0, 0};
      if (q < re->nq)
        memcpy(xi, re->xq + 3 * q, sizeof xi);
      else
        random_tet_point(0, xi);
      if (grad) {
        for (int d = 0; d < 3; d++) {
          if (!ex[d]) continue;
          double m = ex[d];
          for (int e = 0; e < 3; e++) m *= ipow(xi[e], ex[e] - (e == d));
          f[d] = m;
        }
      } else {
        f[comp] = ipow(xi[0], ex[0]) * ipow(xi[1], ex[1]) * ipow(xi[2], ex[2]);
      }
      refel_tet_eval(re->order, xi, val, NULL);
      for (int i = 0; i < n; i++) {
        const double vi = val[i] * f[0] + val[n + i] * f[1] + val[2 * n + i] * f[2];
        if (pass == 0) {
          coef[i] += re->wq[q] * vi;
        }
      }
      if (pass == 1)
        for (int d = 0; d < 3; d++) {
          double u = 0;
          for (int i = 0; i < n; i++) u += coef[i] * val[d * n + i];
          err = fmax(err, fabs(u - f[d]));
        }
    }
    if (pass == 0) cholesky_solve(n, L, coef);
  }
  return err;
}

static void test_span(void)
{
  int bad = 0;
  double rmin = INFINITY, worst = 0, outside = INFINITY;
  for (int p = 1; p <= 3; p++) {
    struct refel *re = NULL;
    TAP_CALL(NULL, refel_tet_create(p, &re));
    const int n = re->nsh;
    double *G = malloc(sizeof(double) * n * n);
    tet_gram(re, G);
    if (asymmetry(n, G) > 1e-15) bad++;
    const double r = cholesky(n, G);
    if (r <= 0) {
      bad++;
      free(G);
      refel_destroy(&re);
      continue;
    }
    rmin = fmin(rmin, r);
    for (int d = 0; d <= p; d++)
      for (int a = 0; a <= d; a++)
        for (int b = 0; a + b <= d; b++) {
          const int ex[3] = {a, b, d - a - b};
          if (d < p)
            for (int comp = 0; comp < 3; comp++) worst = fmax(worst, fit(re, G, comp, ex, 0));
          worst = fmax(worst, fit(re, G, 0, ex, 1));
        }
    /* Degree p in one component is not in the space (only its gradient-like part is). */
    const int ex[3] = {p, 0, 0};
    outside = fmin(outside, fit(re, G, 1, ex, 0));
    free(G);
    refel_destroy(&re);
  }
  tap_ok(!bad,
         "p = 1..3: the Gram matrix int N_i . N_j is symmetric positive definite "
         "(smallest pivot ratio %.2g)",
         rmin);
  tap_ok(worst < 1e-11,
         "p = 1..3: every field of P_(p-1)^3 and every grad P_p is reproduced "
         "(%.2g): the basis spans Nedelec's first-kind space of degree p",
         worst);
  tap_ok(outside > 1e-4, "p = 1..3: x^p e_y is not reproduced (misfit %.2g)", outside);
}

/* Tangential traces: on edge g, only the modes of g (tangential component integrating to 1 for
 * w_e, parity as `odd` says); on face f, only edge modes of its edges and the modes of f. */
static void test_traces(void)
{
  int bad_edge = 0, bad_face = 0, bad_parity = 0;
  double whitney = 0;
  const int p = 3, n = refel_tet_nsh(3);
  struct refel *re = NULL;
  TAP_CALL(NULL, refel_tet_create(p, &re));
  double gx[8], gw[8];
  quad_gauss_legendre(8, gx, gw);
  static double vr[3 * NSH];
  for (int g = 0; g < TET_NE; g++) {
    const double *A = tet_vert_xi[tet_edge_vert[g][0]], *B = tet_vert_xi[tet_edge_vert[g][1]];
    const double t[3] = {B[0] - A[0], B[1] - A[1], B[2] - A[2]};
    double integral[NSH] = {0};
    for (int k = 0; k < 8; k++) {
      const double s = (1 + gx[k]) / 2;
      double xi[3], xr[3];
      for (int d = 0; d < 3; d++) {
        xi[d] = A[d] + s * t[d];
        xr[d] = B[d] - s * t[d];
      }
      refel_tet_eval(p, xi, val, NULL);
      refel_tet_eval(p, xr, vr, NULL);
      for (int i = 0; i < n; i++) {
        const double tan = val[i] * t[0] + val[n + i] * t[1] + val[2 * n + i] * t[2];
        const double tanr = vr[i] * t[0] + vr[n + i] * t[1] + vr[2 * n + i] * t[2];
        integral[i] += gw[k] / 2 * tan;
        const struct refel_mode *m = &re->mode[i];
        if (m->kind != MODE_EDGE || m->entity != g) {
          if (fabs(tan) > 1e-14) bad_edge++;
        } else if (fabs(tan - (m->odd ? 1 : -1) * tanr) > 1e-13) {
          /* trace(s) = trace(1-s) for odd modes, -trace(1-s) for even ones */
          bad_parity++;
        }
      }
    }
    for (int i = 0; i < n; i++)
      if (re->mode[i].kind == MODE_EDGE && re->mode[i].entity == g && re->mode[i].rank == 0)
        whitney = fmax(whitney, fabs(integral[i] - 1));
  }
  for (int f = 0; f < TET_NF; f++) {
    /* n x N = 0 on face f for the modes of the other entities: check N . t1 and N . t2. */
    const double *A = tet_vert_xi[tet_face_vert[f][0]], *B = tet_vert_xi[tet_face_vert[f][1]],
                 *C = tet_vert_xi[tet_face_vert[f][2]];
    for (int k = 0; k < 20; k++) {
      double u = drand48(), v = drand48() * (1 - u), xi[3], t1[3], t2[3];
      for (int d = 0; d < 3; d++) {
        xi[d] = A[d] + u * (B[d] - A[d]) + v * (C[d] - A[d]);
        t1[d] = B[d] - A[d];
        t2[d] = C[d] - A[d];
      }
      refel_tet_eval(p, xi, val, NULL);
      for (int i = 0; i < n; i++) {
        const struct refel_mode *m = &re->mode[i];
        int on = m->kind == MODE_FACE && m->entity == f;
        if (m->kind == MODE_EDGE) {
          const int a = tet_edge_vert[m->entity][0], b = tet_edge_vert[m->entity][1];
          on = a != f && b != f; /* face f is opposite vertex f */
        }
        if (on) continue;
        const double s1 = val[i] * t1[0] + val[n + i] * t1[1] + val[2 * n + i] * t1[2];
        const double s2 = val[i] * t2[0] + val[n + i] * t2[1] + val[2 * n + i] * t2[2];
        if (fabs(s1) > 1e-14 || fabs(s2) > 1e-14) bad_face++;
      }
    }
  }
  refel_destroy(&re);
  tap_ok(!bad_edge, "p = 3: on each edge only its own modes have a tangential component");
  tap_ok(whitney < 1e-14,
         "the Whitney function of an edge has tangential integral 1 along it "
         "(%.2g)",
         whitney);
  tap_ok(!bad_parity, "edge modes' traces are symmetric (odd modes) or antisymmetric (even) "
                      "under reversal of the edge, as `odd` says");
  tap_ok(!bad_face, "p = 3: on each face the tangential trace of the other faces' modes, the "
                    "interior modes and the edge modes of the other edges vanishes");
}

/* grad l_i = sum over the edges (a, b) of (delta_ib - delta_ia) w_ab. */
static void test_whitney_gradients(void)
{
  double worst = 0;
  for (int t = 0; t < 10; t++) {
    double xi[3];
    random_tet_point(0, xi);
    refel_tet_eval(1, xi, val, NULL);
    static const double gl[4][3] = {{-1, -1, -1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int i = 0; i < TET_NV; i++)
      for (int d = 0; d < 3; d++) {
        double s = 0;
        for (int e = 0; e < TET_NE; e++)
          s += ((tet_edge_vert[e][1] == i) - (tet_edge_vert[e][0] == i)) * val[d * 6 + e];
        worst = fmax(worst, fabs(s - gl[i][d]));
      }
  }
  tap_ok(worst < 1e-15,
         "grad l_i is the sum of the Whitney functions of its edges, signed by "
         "direction (%.2g)",
         worst);
}

int main(void)
{
  srand48(106);
  test_counts_and_modes();
  test_quadrature();
  test_curls();
  test_span();
  test_traces();
  test_whitney_gradients();
  return tap_done();
}
