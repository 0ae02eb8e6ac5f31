/* The map of a hexahedron, with straight edges (trilinear, 8 nodes) or curved ones (the 20-node
 * serendipity element: a node per edge), and the certificate that its Jacobian determinant stays
 * positive over the whole cell. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "refel_hex.h"

/* The map's functions and their reference derivatives at xi: N[a], dN[3*a + j]; the 8 trilinear
 * ones, or the 20 of the serendipity element (vertices, then the midpoints of the edges in
 * hex_edge_vert's order). */
static void hex_shape(int nnode, const double xi[3], double *N, double *dN)
{
  for (int a = 0; a < HEX_NV; a++) {
    const double *v = hex_vert_xi[a];
    const double f[3] = {0.5 * (1 + v[0] * xi[0]), 0.5 * (1 + v[1] * xi[1]),
                         0.5 * (1 + v[2] * xi[2])};
    N[a] = f[0] * f[1] * f[2];
    for (int j = 0; j < 3; j++) dN[3 * a + j] = 0.5 * v[j] * f[(j + 1) % 3] * f[(j + 2) % 3];
    if (nnode == HEX_NV) continue;
    /* the corner function of the serendipity element: the trilinear one times
     * (v.xi - 2), v.xi = xi0 v0 + xi1 v1 + xi2 v2 */
    const double s = v[0] * xi[0] + v[1] * xi[1] + v[2] * xi[2] - 2;
    for (int j = 0; j < 3; j++) dN[3 * a + j] = dN[3 * a + j] * s + N[a] * v[j];
    N[a] *= s;
  }
  if (nnode == HEX_NV) return;
  for (int e = 0; e < HEX_NE; e++) {
    /* the edge runs along the direction where its ends differ; (1 - t^2) there, the bilinear
     * factor of the two others' values */
    const double *a = hex_vert_xi[hex_edge_vert[e][0]], *b = hex_vert_xi[hex_edge_vert[e][1]];
    const int d = a[0] != b[0] ? 0 : a[1] != b[1] ? 1 : 2, d1 = (d + 1) % 3, d2 = (d + 2) % 3;
    const double g = 1 - xi[d] * xi[d], f1 = 0.5 * (1 + a[d1] * xi[d1]),
                 f2 = 0.5 * (1 + a[d2] * xi[d2]);
    double *dn = &dN[3 * (HEX_NV + e)];
    N[HEX_NV + e] = g * f1 * f2;
    dn[d] = -2 * xi[d] * f1 * f2;
    dn[d1] = g * 0.5 * a[d1] * f2;
    dn[d2] = g * f1 * 0.5 * a[d2];
  }
}

void geom_hex_point(int nnode, const double *X, const double xi[3], double *x)
{
  double N[HEX_NV + HEX_NE], dN[3 * (HEX_NV + HEX_NE)];
  hex_shape(nnode, xi, N, dN);
  for (int i = 0; i < 3; i++) {
    x[i] = 0;
    for (int a = 0; a < nnode; a++) x[i] += N[a] * X[3 * a + i];
  }
}

double geom_hex_jacobian(int nnode, const double *X, const double xi[3], double *J)
{
  double N[HEX_NV + HEX_NE], dN[3 * (HEX_NV + HEX_NE)];
  hex_shape(nnode, xi, N, dN);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double s = 0;
      for (int a = 0; a < nnode; a++) s += X[3 * a + i] * dN[3 * a + j];
      J[3 * i + j] = s;
    }
  return geom_det3(J);
}

/* det J is a polynomial of degree n in each variable: 2 for the trilinear map (the columns of J
 * have degrees (0,1,1), (1,0,1), (1,1,0)), 5 for the serendipity one ((1,2,2), (2,1,2),
 * (2,2,1)). On the sub-box [lo, lo + h] of the reference cube (in [0,1]^3 coordinates) its
 * tensor Bernstein coefficients follow from its values at the (n+1)^3 points {0, 1/n, ..., 1}^3
 * of the sub-box, direction after direction through the inverse of the 1D matrix
 * B_k^n(i/n). All coefficients positive certify det J > 0 on the sub-box (the polynomial is
 * their convex combination); a value <= 0 disproves it; else the sub-box is split in 8, down to
 * a depth where the cell is called invalid. */
#define HEX_CERT_DEPTH 6
#define CERT_MAXN 5

struct cert {
  int nnode, n;
  const double *X;
  double inv[(CERT_MAXN + 1) * (CERT_MAXN + 1)]; /* values at i/n -> Bernstein coefficients */
  double dmin, xi_min[3];
  const double *geo; /* a trilinear cell's monomials' coefficients (hex_geo), or NULL */
};

/* The inverse of M[i][k] = B_k^n(i/n) by Gauss-Jordan elimination (M is well conditioned for
 * n <= 5). */
static void bernstein_inverse(int n, double *inv)
{
  const int m = n + 1;
  double a[(CERT_MAXN + 1) * 2 * (CERT_MAXN + 1)];
  for (int i = 0; i < m; i++)
    for (int k = 0; k < m; k++) {
      const double t = (double)i / n;
      double c = 1; /* binomial (n, k) */
      for (int j = 1; j <= k; j++) c = c * (n - k + j) / j;
      a[i * 2 * m + k] = c * pow(t, k) * pow(1 - t, n - k);
      a[i * 2 * m + m + k] = i == k;
    }
  for (int col = 0; col < m; col++) {
    int piv = col;
    for (int r = col + 1; r < m; r++)
      if (fabs(a[r * 2 * m + col]) > fabs(a[piv * 2 * m + col])) piv = r;
    for (int k = 0; k < 2 * m; k++) {
      const double t = a[col * 2 * m + k];
      a[col * 2 * m + k] = a[piv * 2 * m + k];
      a[piv * 2 * m + k] = t;
    }
    const double p = a[col * 2 * m + col];
    for (int k = 0; k < 2 * m; k++) a[col * 2 * m + k] /= p;
    for (int r = 0; r < m; r++) {
      if (r == col) continue;
      const double f = a[r * 2 * m + col];
      for (int k = 0; k < 2 * m; k++) a[r * 2 * m + k] -= f * a[col * 2 * m + k];
    }
  }
  for (int i = 0; i < m; i++)
    for (int k = 0; k < m; k++) inv[i * m + k] = a[i * 2 * m + m + k];
}

static int certify(struct cert *s, const double lo[3], double h, int depth)
{
  const int n = s->n, m = n + 1, m3 = m * m * m;
  double f[(CERT_MAXN + 1) * (CERT_MAXN + 1) * (CERT_MAXN + 1)] = {0};
  double g[sizeof f / sizeof *f], J[9];
  for (int a = 0; a < m; a++)
    for (int b = 0; b < m; b++)
      for (int c = 0; c < m; c++) {
        const double xi[3] = {2 * (lo[0] + h * a / n) - 1, 2 * (lo[1] + h * b / n) - 1,
                              2 * (lo[2] + h * c / n) - 1};
        const double d =
            s->geo ? hex_geo_map(s->geo, xi, NULL, J) : geom_hex_jacobian(s->nnode, s->X, xi, J);
        f[(a * m + b) * m + c] = d;
        if (!(d >= s->dmin)) {
          s->dmin = d;
          memcpy(s->xi_min, xi, sizeof xi);
        }
      }
  if (!(s->dmin > 0)) return 0;
  /* to Bernstein coefficients, one direction after the other (strides m^2, m, 1) */
  for (int st = m * m; st >= 1; st /= m) {
    for (int k = 0; k < m3; k++) {
      const int digit = (k / st) % m, base = k - digit * st;
      double v = 0;
      for (int i = 0; i < m; i++) v += s->inv[digit * m + i] * f[base + i * st];
      g[k] = v;
    }
    memcpy(f, g, (size_t)m3 * sizeof *f);
  }
  double bmin = f[0];
  for (int k = 1; k < m3; k++) bmin = fmin(bmin, f[k]);
  if (bmin > 0) return 1;
  if (depth == HEX_CERT_DEPTH) return 0;
  for (int o = 0; o < 8; o++) {
    const double sub[3] = {lo[0] + 0.5 * h * (o & 1), lo[1] + 0.5 * h * (o >> 1 & 1),
                           lo[2] + 0.5 * h * (o >> 2 & 1)};
    if (!certify(s, sub, 0.5 * h, depth + 1)) return 0;
  }
  return 1;
}

int geom_hex_check(int nnode, const double *X, double *det, double xi[3])
{
  if (nnode != HEX_NV && nnode != HEX_NV + HEX_NE)
    return femint_seterr(NULL, FEMINT_ENOTSUP,
                         "a hexahedron has 8 geometric nodes (or 20, curved), not %d", nnode);
  struct cert s = {nnode, nnode == HEX_NV ? 2 : 5, X, {0}, INFINITY, {0, 0, 0}, NULL};
  /* a trilinear cell's det J in a few products a point */
  const double one = 1;
  double geo[HEX_GEO_SIZE];
  if (nnode == HEX_NV) {
    hex_geo(X, &one, 1, geo);
    s.geo = geo;
  }
  bernstein_inverse(s.n, s.inv);
  static const double origin[3] = {0, 0, 0};
  const int ok = certify(&s, origin, 1.0, 0);
  if (det) *det = s.dmin;
  if (xi) memcpy(xi, s.xi_min, sizeof s.xi_min);
  if (ok) return 0;
  if (s.dmin > 0)
    return femint_seterr(NULL, FEMINT_EJACOBIAN,
                         "det J could not be shown positive over the cell (the smallest value "
                         "found, %g at reference point (%g,%g,%g), is positive but too close to "
                         "zero)",
                         s.dmin, s.xi_min[0], s.xi_min[1], s.xi_min[2]);
  return femint_seterr(NULL, FEMINT_EJACOBIAN,
                       "det J = %g at reference point (%g,%g,%g): the cell is tangled or its "
                       "vertices are not in Gmsh's order (bottom face counter-clockwise seen from "
                       "above, then the top face)",
                       s.dmin, s.xi_min[0], s.xi_min[1], s.xi_min[2]);
}
