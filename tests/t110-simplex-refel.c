/* Test: the H1 Lagrange triangle and tetrahedron of orders 1-3 (refel_simplex.h): node counts and
 * order, the nodal property, the partition of unity, exact interpolation of every polynomial of
 * degree p, the derivatives against finite differences, the metadata, the rules, the dispatch of
 * refel.c, and the 3- and 6-node triangle map. */
#include <math.h>
#include <string.h>

#include "host/refel_simplex.h"
#include "tap.h"

#define NSH_MAX 20

static const char *name(int shape) { return shape == FEMINT_TRI ? "triangle" : "tetrahedron"; }

/* A pseudo-random number in [-1, 1). */
static double rnd(unsigned *s)
{
  *s = *s * 1103515245u + 12345u;
  return (double)(*s >> 8 & 0xffffff) / 0x800000 - 1;
}

/* A random point inside the reference simplex. */
static void inside(int dim, unsigned *s, double *xi)
{
  for (;;) {
    double sum = 0;
    for (int d = 0; d < dim; d++) sum += xi[d] = 0.5 * (rnd(s) + 1);
    if (sum < 1) return;
  }
}

static double monomial(int dim, const int *e, const double *x)
{
  double v = 1;
  for (int d = 0; d < dim; d++) v *= pow(x[d], e[d]);
  return v;
}

static void check_element(int shape, int p)
{
  const int dim = shape == FEMINT_TRI ? 2 : 3;
  const int want = dim == 2 ? (p + 1) * (p + 2) / 2 : (p + 1) * (p + 2) * (p + 3) / 6;
  const int nsh = refel_lagrange_nsh(shape, p);
  double nodes[NSH_MAX * 3], val[4 * NSH_MAX], v2[4 * NSH_MAX];
  TAP_CALL(NULL, refel_lagrange_nodes(shape, p, nodes));
  /* nodal: function i is 1 at node i and 0 at the others (the formula is exact there) */
  double nodal = 0;
  for (int j = 0; j < nsh; j++) {
    refel_lagrange_eval(shape, p, &nodes[dim * j], val);
    for (int i = 0; i < nsh; i++) nodal = fmax(nodal, fabs(val[i] - (i == j)));
  }
  /* partition of unity and exact interpolation of every monomial of degree <= p, at random
   * points; the derivatives of the interpolant are those of the monomial */
  unsigned seed = 7u * (unsigned)p + (unsigned)shape;
  double unity = 0, interp = 0, deriv = 0, fd = 0;
  for (int t = 0; t < 20; t++) {
    double xi[3];
    inside(dim, &seed, xi);
    refel_lagrange_eval(shape, p, xi, val);
    double sum = 0, dsum[3] = {0, 0, 0};
    for (int i = 0; i < nsh; i++) {
      sum += val[i];
      for (int d = 0; d < dim; d++) dsum[d] += val[(d + 1) * nsh + i];
    }
    unity = fmax(unity, fabs(sum - 1));
    for (int d = 0; d < dim; d++) unity = fmax(unity, fabs(dsum[d]));
    for (int a = 0; a <= p; a++)
      for (int b = 0; a + b <= p; b++)
        for (int c = 0; a + b + c <= p && (dim == 3 || c == 0); c++) {
          const int e[3] = {a, b, c};
          double u = 0, du[3] = {0, 0, 0};
          for (int i = 0; i < nsh; i++) {
            const double ui = monomial(dim, e, &nodes[dim * i]);
            u += ui * val[i];
            for (int d = 0; d < dim; d++) du[d] += ui * val[(d + 1) * nsh + i];
          }
          interp = fmax(interp, fabs(u - monomial(dim, e, xi)));
          for (int d = 0; d < dim; d++) {
            int ed[3] = {a, b, c};
            const double k = ed[d];
            ed[d] = ed[d] ? ed[d] - 1 : 0;
            deriv = fmax(deriv, fabs(du[d] - (k ? k * monomial(dim, ed, xi) : 0)));
          }
        }
    /* central differences of every function */
    const double h = 1e-6;
    for (int d = 0; d < dim; d++) {
      double xp[3] = {xi[0], xi[1], xi[2]}, xm[3] = {xi[0], xi[1], xi[2]};
      xp[d] += h;
      xm[d] -= h;
      refel_lagrange_eval(shape, p, xp, v2);
      double vm[4 * NSH_MAX];
      refel_lagrange_eval(shape, p, xm, vm);
      for (int i = 0; i < nsh; i++)
        fd = fmax(fd, fabs((v2[i] - vm[i]) / (2 * h) - val[(d + 1) * nsh + i]));
    }
  }
  tap_ok(nsh == want && nodal < 1e-14 && unity < 1e-13,
         "%s p = %d: %d functions, nodal (%.1e), a partition of unity (%.1e)", name(shape), p,
         nsh, nodal, unity);
  tap_ok(interp < 1e-13 && deriv < 1e-12 && fd < 1e-7,
         "%s p = %d: interpolates every monomial of degree <= %d exactly (%.1e, gradients %.1e), "
         "derivatives = central differences (%.1e)",
         name(shape), p, p, interp, deriv, fd);

  /* metadata: the nodes lie on their entity, counted as refel_lagrange_entity_nmodes says, ranks
   * 0.. in order; the table is refel_lagrange_eval at the rule's points */
  struct refel *re;
  TAP_CALL(NULL, refel_lagrange_create(shape, p, &re));
  int count[4][6] = {{0}}, meta_ok = re->nsh == nsh && re->dim == dim && re->family == FEMINT_H1;
  for (int i = 0; i < nsh; i++) {
    const struct refel_mode *m = &re->mode[i];
    const double *x = &nodes[dim * i];
    double l[4] = {1, 0, 0, 0};
    for (int d = 0; d < dim; d++) l[d + 1] = x[d], l[0] -= x[d];
    int zero = 0;
    for (int k = 0; k <= dim; k++) zero += fabs(l[k]) < 1e-14;
    /* a vertex has dim zero barycentrics, an edge node dim - 1, a face node 1, inside none */
    const int want_zero = m->kind == MODE_VERTEX ? dim : m->kind == MODE_EDGE ? dim - 1
                          : m->kind == MODE_FACE ? 1 : 0;
    meta_ok &= zero == want_zero && m->degree == p && m->rank == count[m->kind][m->entity]++;
    if (m->kind == MODE_EDGE) {
      const int *ev = dim == 2 ? tri_edge_vert[m->entity] : tet_edge_vert[m->entity];
      /* the node k = rank + 1 steps from the edge's first vertex */
      meta_ok &= fabs(l[ev[1]] - (double)(m->rank + 1) / p) < 1e-14;
    }
    if (m->kind == MODE_FACE) meta_ok &= fabs(l[m->entity]) < 1e-14; /* face f opposite vertex f */
  }
  for (int k = 0; k < 4; k++)
    for (int e = 0; e < 6; e++)
      meta_ok &= count[k][e] == 0 || count[k][e] == refel_lagrange_entity_nmodes(shape, k, p);
  double tab = 0, wsum = 0, exact = 0;
  for (int q = 0; q < re->nq; q++) {
    refel_lagrange_eval(shape, p, &re->xq[dim * q], val);
    for (int k = 0; k < (dim + 1) * nsh; k++)
      tab = fmax(tab, fabs(val[k] - re->phi[(size_t)q * (dim + 1) * nsh + k]));
    wsum += re->wq[q];
    /* degree 2p: the integral of l1^(2p) over the simplex is (2p)! dim! / (2p + dim)! times the
     * measure */
    exact += re->wq[q] * pow(re->xq[dim * q], 2 * p);
  }
  double f = 1;
  for (int k = 1; k <= dim; k++) f *= (double)k / (2 * p + k);
  const double measure = dim == 2 ? 0.5 : 1.0 / 6;
  tap_ok(meta_ok && tab == 0 && fabs(wsum - measure) < 1e-14 &&
             fabs(exact - f * measure) < 1e-14 && re->degree >= 2 * p,
         "%s p = %d: metadata, table, %d points of degree %d (x^%d integrated to %.1e)",
         name(shape), p, re->nq, re->degree, 2 * p, fabs(exact - f * measure));
  /* the dispatch of refel.c */
  int same = refel_nsh(shape, FEMINT_H1, p) == nsh && refel_nodal(shape, FEMINT_H1) &&
             refel_max_order(shape, FEMINT_H1) == LAGRANGE_MAX_ORDER;
  struct refel *r2;
  TAP_CALL(NULL, refel_create(shape, FEMINT_H1, p, &r2));
  same &= r2->nq == re->nq && memcmp(r2->phi, re->phi, sizeof(double) * re->nq * (dim + 1) * nsh) == 0;
  struct femint_refel_info info;
  TAP_CALL(NULL, femint_refel_info(shape, FEMINT_H1, p, &info));
  same &= info.nsh == nsh && info.nq == re->nq && info.degree == re->degree;
  tap_ok(same, "%s p = %d: refel_create, refel_nsh and femint_refel_info agree", name(shape), p);
  refel_destroy(&r2);
  refel_destroy(&re);
}

static void check_errors(void)
{
  struct refel *re = NULL;
  int ok = refel_lagrange_create(FEMINT_TRI, 0, &re) == FEMINT_EORDER && !re;
  ok &= refel_lagrange_create(FEMINT_TET, 4, &re) == FEMINT_EORDER;
  ok &= refel_create(FEMINT_TRI, FEMINT_HCURL, 1, &re) == FEMINT_ENOTSUP;
  tap_ok(ok, "orders outside 1..3 and an H(curl) triangle are refused: %s", femint_thread_error());
  ok = refel_has_family(FEMINT_TET, FEMINT_H1) && refel_has_family(FEMINT_TET, FEMINT_HCURL) &&
       refel_has_family(FEMINT_TRI, FEMINT_H1) && !refel_has_family(FEMINT_PRISM, FEMINT_HCURL) &&
       !refel_has_family(6, FEMINT_H1) && refel_max_order(FEMINT_TET, FEMINT_HCURL) == 3 &&
       !refel_nodal(FEMINT_TET, FEMINT_HCURL) && refel_nsh(FEMINT_TET, FEMINT_HCURL, 2) == 20 &&
       refel_nsh(FEMINT_TET, FEMINT_H1, 2) == 10;
  tap_ok(ok, "the tetrahedron has both families, each with its own element");
}

/* The triangle map: a 6-node cell whose edge nodes are the midpoints is the affine one; det J
 * changes sign with the vertex order and the check refuses a folded cell. */
static void check_map(void)
{
  const double X3[6] = {0.2, 0.1, 1.3, 0.4, 0.5, 1.2};
  double X6[12], J3[4], J6[4], x3[2], x6[2];
  memcpy(X6, X3, sizeof X3);
  for (int e = 0; e < TRI_NE; e++)
    for (int i = 0; i < 2; i++)
      X6[6 + 2 * e + i] = 0.5 * (X3[2 * tri_edge_vert[e][0] + i] + X3[2 * tri_edge_vert[e][1] + i]);
  const double xi[2] = {0.21, 0.37};
  const double d3 = geom_tri_jacobian(3, X3, xi, J3), d6 = geom_tri_jacobian(6, X6, xi, J6);
  geom_tri_point(3, X3, xi, x3);
  geom_tri_point(6, X6, xi, x6);
  double diff = fabs(d3 - d6) + fabs(x3[0] - x6[0]) + fabs(x3[1] - x6[1]);
  for (int k = 0; k < 4; k++) diff += fabs(J3[k] - J6[k]);
  const double area2 = (X3[2] - X3[0]) * (X3[5] - X3[1]) - (X3[4] - X3[0]) * (X3[3] - X3[1]);
  tap_ok(diff < 1e-14 && fabs(d3 - area2) < 1e-14 && geom_tri_check(6, X6, NULL) == 0,
         "the 6-node triangle with straight edges is the affine one (det J = twice the area)");
  const double Xr[6] = {X3[0], X3[1], X3[4], X3[5], X3[2], X3[3]}; /* two vertices swapped */
  struct geom_tet_report rep;
  tap_ok(geom_tri_check(3, Xr, &rep) == 0 && rep.orientation == -1,
         "a clockwise triangle is valid, negatively oriented");
  X6[6] += 1.5; /* the node of edge 0 pulled across the cell */
  X6[7] += 1.5;
  tap_ok(geom_tri_check(6, X6, NULL) == FEMINT_EJACOBIAN, "a folded 6-node triangle is refused: %s",
         femint_thread_error());
  const double flat[6] = {0, 0, 1, 1, 2, 2};
  tap_ok(geom_tri_check(3, flat, NULL) == FEMINT_EJACOBIAN, "a flat triangle is refused");
}

int main(void)
{
  for (int p = 1; p <= LAGRANGE_MAX_ORDER; p++) {
    check_element(FEMINT_TRI, p);
    check_element(FEMINT_TET, p);
  }
  check_errors();
  check_map();
  return tap_done();
}
