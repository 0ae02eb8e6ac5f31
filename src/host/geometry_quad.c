/* The geometric map of a quadrilateral with 4 (bilinear) or 8 (serendipity, curved edges) nodes:
 * points, Jacobians, their inverses, the Jacobian terms at quadrature points, and a certified
 * check that det J stays positive on the whole element. */
#include <math.h>

#include "refel_quad.h"

int geom_quad_nodes(int nnode, const double xi[2], double *N, double *dN)
{
  FEMINT_CHECK(nnode == 4 || nnode == 8, NULL, FEMINT_EINVAL,
               "quadrilateral geometry: %d nodes (4 or 8 supported)", nnode);
  const double x = xi[0], y = xi[1];
  for (int a = 0; a < 4; a++) {
    const double xa = quad_vert_xi[a][0], ya = quad_vert_xi[a][1];
    const double fx = 1 + xa * x, fy = 1 + ya * y;
    if (nnode == 4) {
      if (N) N[a] = fx * fy / 4;
      if (dN) {
        dN[2 * a] = xa * fy / 4;
        dN[2 * a + 1] = fx * ya / 4;
      }
    } else {
      /* Corner: (1 + xa x)(1 + ya y)(xa x + ya y - 1) / 4. */
      const double g = xa * x + ya * y - 1;
      if (N) N[a] = fx * fy * g / 4;
      if (dN) {
        dN[2 * a] = xa * fy * (g + fx) / 4;
        dN[2 * a + 1] = ya * fx * (g + fy) / 4;
      }
    }
  }
  if (nnode == 8) {
    /* Midpoints of edges 0..3 at (0,-1), (1,0), (0,1), (-1,0): (1 - x^2)(1 + ym y) / 2 on the
     * horizontal edges, (1 + xm x)(1 - y^2) / 2 on the vertical ones. */
    static const double mid[4][2] = {{0, -1}, {1, 0}, {0, 1}, {-1, 0}};
    for (int e = 0; e < 4; e++) {
      const int a = 4 + e;
      const double xm = mid[e][0], ym = mid[e][1];
      if (xm == 0) {
        if (N) N[a] = (1 - x * x) * (1 + ym * y) / 2;
        if (dN) {
          dN[2 * a] = -x * (1 + ym * y);
          dN[2 * a + 1] = (1 - x * x) * ym / 2;
        }
      } else {
        if (N) N[a] = (1 + xm * x) * (1 - y * y) / 2;
        if (dN) {
          dN[2 * a] = xm * (1 - y * y) / 2;
          dN[2 * a + 1] = -(1 + xm * x) * y;
        }
      }
    }
  }
  return 0;
}

void geom_quad_point(int nnode, const double *X, const double xi[2], double *x)
{
  double N[8];
  if (!geom_quad_nodes(nnode, xi, N, NULL)) geom_nodal(2, nnode, X, N, NULL, x, NULL);
}

double geom_quad_jacobian(int nnode, const double *X, const double xi[2], double *J)
{
  double dN[16];
  if (geom_quad_nodes(nnode, xi, NULL, dN)) return NAN;
  return geom_nodal(2, nnode, X, NULL, dN, NULL, J);
}

double geom_inverse2(const double *J, double *K)
{
  const double det = J[0] * J[3] - J[1] * J[2], r = 1.0 / det;
  K[0] = J[3] * r;
  K[1] = -J[1] * r;
  K[2] = -J[2] * r;
  K[3] = J[0] * r;
  return det;
}

#define CHECK_GRID 17
#define CHECK_DEPTH 10
#define CHECK_MARGIN 1e-12

struct check_state {
  int nnode;
  const double *X;
  double scale; /* max |det J| on the grid */
  struct geom_quad_report rep;
};

static double det_at(struct check_state *s, double x, double y)
{
  double J[4], xi[2] = {x, y};
  const double det = geom_quad_jacobian(s->nnode, s->X, xi, J);
  if (!(det >= s->rep.detmin)) {
    s->rep.detmin = det;
    s->rep.xi[0] = x;
    s->rep.xi[1] = y;
  }
  return det;
}

/* Bernstein coefficients b[m] of the cubic with values f at t = 0, 1/3, 2/3, 1. */
static void cubic_bernstein(const double *f, double *b)
{
  b[0] = f[0];
  b[1] = (-5 * f[0] + 18 * f[1] - 9 * f[2] + 2 * f[3]) / 6;
  b[2] = (2 * f[0] - 9 * f[1] + 18 * f[2] - 5 * f[3]) / 6;
  b[3] = f[3];
}

/* 1: det J > 0 on [x0,x1] x [y0,y1] is certified; 0: a point with det J <= 0 was met, or the
 * certificate failed at the deepest level. */
static int certify(struct check_state *s, double x0, double x1, double y0, double y1, int depth)
{
  double f[4][4], g[4][4], b[4][4], col[4], out[4], bmin = INFINITY;
  if (depth > s->rep.depth) s->rep.depth = depth;
  s->rep.nsquare++;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) {
      f[i][j] = det_at(s, x0 + (x1 - x0) * i / 3, y0 + (y1 - y0) * j / 3);
      if (!(f[i][j] > 0)) return 0;
    }
  /* Tensor conversion: along y for each i, then along x for each j. */
  for (int i = 0; i < 4; i++) cubic_bernstein(f[i], g[i]);
  for (int j = 0; j < 4; j++) {
    for (int i = 0; i < 4; i++) col[i] = g[i][j];
    cubic_bernstein(col, out);
    for (int i = 0; i < 4; i++) b[i][j] = out[i];
  }
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) bmin = fmin(bmin, b[i][j]);
  if (bmin > CHECK_MARGIN * s->scale) return 1;
  if (depth == CHECK_DEPTH) return 0;
  const double xm = (x0 + x1) / 2, ym = (y0 + y1) / 2;
  return certify(s, x0, xm, y0, ym, depth + 1) && certify(s, xm, x1, y0, ym, depth + 1) &&
         certify(s, x0, xm, ym, y1, depth + 1) && certify(s, xm, x1, ym, y1, depth + 1);
}

int geom_quad_check(const struct refel *re, int nnode, const double *X,
                    struct geom_quad_report *rep)
{
  FEMINT_CHECK(nnode == 4 || nnode == 8, NULL, FEMINT_EINVAL,
               "quadrilateral geometry: %d nodes (4 or 8 supported)", nnode);
  struct check_state s = {nnode, X, 0, {INFINITY, {0, 0}, 0, 0}};
  int err = 0;
  if (re) {
    for (int q = 0; q < re->nq && !err; q++) {
      const double *xi = &re->xq[2 * q];
      if (!(det_at(&s, xi[0], xi[1]) > 0))
        err = femint_seterr(NULL, FEMINT_EJACOBIAN,
                            "quadrilateral: det J = %g <= 0 at quadrature point %d (%g, %g)",
                            s.rep.detmin, q, xi[0], xi[1]);
    }
  }
  for (int i = 0; i < CHECK_GRID && !err; i++)
    for (int j = 0; j < CHECK_GRID; j++) {
      const double x = -1 + 2.0 * i / (CHECK_GRID - 1), y = -1 + 2.0 * j / (CHECK_GRID - 1);
      const double det = det_at(&s, x, y);
      s.scale = fmax(s.scale, fabs(det));
      if (!(det > 0)) {
        err = femint_seterr(NULL, FEMINT_EJACOBIAN, "quadrilateral: det J = %g <= 0 at (%g, %g)",
                            det, x, y);
        break;
      }
    }
  if (!err && !certify(&s, -1, 1, -1, 1, 0)) {
    if (!(s.rep.detmin > 0))
      err = femint_seterr(NULL, FEMINT_EJACOBIAN, "quadrilateral: det J = %g <= 0 at (%g, %g)",
                          s.rep.detmin, s.rep.xi[0], s.rep.xi[1]);
    else
      err = femint_seterr(NULL, FEMINT_EJACOBIAN,
                          "quadrilateral: det J > 0 could not be certified after %d subdivisions "
                          "(smallest value %g at (%g, %g)): it vanishes in the element or nearly",
                          CHECK_DEPTH, s.rep.detmin, s.rep.xi[0], s.rep.xi[1]);
  }
  if (rep) *rep = s.rep;
  return err;
}
