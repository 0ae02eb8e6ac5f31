/* Matrix-free application on hexahedra by sum factorization (seed 001): the 1D tables of an
 * order and rule, the quadrature data of a cell and the diagonal of A_e, in plain C (the CPU's
 * v = A_e u of a block of cells is hex_lanes.c). Nodes are taken in tensor order (xi index
 * slowest); t2f maps that order to the element's function order (refel_hex.h). */
#include <stdlib.h>
#include <string.h>

#include "refel_hex.h"

void hex_tensor_destroy(struct hex_tensor **t)
{
  if (!*t) return;
  free((*t)->t2f);
  free(*t);
  *t = NULL;
}

int hex_tensor_create(int order, int nq, int lobatto, struct hex_tensor **out)
{
  *out = NULL;
  FEMINT_CHECK(order >= 1 && order <= HEX_MAX_ORDER, NULL, FEMINT_EORDER,
               "matrix-free hexahedron of order %d (1..%d)", order, HEX_MAX_ORDER);
  FEMINT_CHECK(nq >= 1 && nq <= HEX_TENSOR_MAX_Q && (!lobatto || nq >= 2), NULL, FEMINT_EINVAL,
               "matrix-free rule of %d points per direction (%s)", nq,
               lobatto ? "Gauss-Lobatto: 2.." : "Gauss: 1..");
  struct hex_tensor *t = calloc(1, sizeof *t);
  const int P = order + 1, nsh = P * P * P;
  if (t) t->t2f = malloc((size_t)nsh * sizeof *t->t2f);
  double nodes[HEX_MAX_ORDER + 1], w[HEX_MAX_ORDER + 1];
  int err = t && t->t2f ? 0 : femint_seterr(NULL, FEMINT_ENOMEM, "out of memory");
  if (!err) err = gll_nodes(P, nodes, w);
  if (!err) err = lobatto ? gll_nodes(nq, t->xq, t->w) : quad_gauss_legendre(nq, t->xq, t->w);
  if (!err) err = basis_1d_matrices(P, nodes, nq, t->xq, t->B, t->D);
  if (!err)
    for (int q = 0; q < nq; q++)
      for (int a = 0; a < P; a++) {
        t->Bt[a * nq + q] = t->B[q * P + a];
        t->Dt[a * nq + q] = t->D[q * P + a];
      }
  double Bq[HEX_TENSOR_MAX_Q * HEX_TENSOR_MAX_Q];
  if (!err && nq >= P) err = basis_1d_matrices(nq, t->xq, nq, t->xq, Bq, t->Dq);
  if (!err && nq >= P)
    for (int i = 0; i < nq; i++)
      for (int j = 0; j < nq; j++) t->Dqt[j * nq + i] = t->Dq[i * nq + j];
  if (!err) err = refel_hex_tensor_map(order, t->t2f);
  if (!err) t->p = order, t->P = P, t->Q = nq, t->lobatto = lobatto;
  if (err) {
    hex_tensor_destroy(&t);
    return err;
  }
  *out = t;
  return 0;
}

size_t hex_qdata_size(int kind)
{
  return kind == HEX_APPLY_MASS ? 1 : kind == HEX_APPLY_LAPLACE ? 6 : 11;
}

int hex_ncoef(int kind) { return kind == HEX_APPLY_ELASTICITY ? 2 : 1; }

/* The Jacobian J[3 x + d] = dX_x / dxi_d of a cell at xi, from its vertices or its geometry. */
typedef void (*hex_jacobian_fn)(const double *cell, const double xi[3], double *J);

/* From the 8 vertices and the 12 edge nodes of a curved cell. */
static void jacobian_curved(const double *X, const double xi[3], double *J)
{
  geom_hex_jacobian(HEX_NV + HEX_NE, X, xi, J);
}

/* From the monomials' coefficients of hex_geo. */
static void jacobian_geo(const double *c, const double xi[3], double *J)
{
  const double a = xi[0], b = xi[1], e = xi[2];
  for (int x = 0; x < 3; x++) {
    J[3 * x] = c[3 + x] + c[12 + x] * b + c[15 + x] * e + c[21 + x] * b * e;
    J[3 * x + 1] = c[6 + x] + c[12 + x] * a + c[18 + x] * e + c[21 + x] * a * e;
    J[3 * x + 2] = c[9 + x] + c[15 + x] * a + c[18 + x] * b + c[21 + x] * a * b;
  }
}

/* The quadrature data at every point of the rule from the cell's Jacobians. */
static int qdata(const struct hex_tensor *t, int kind, hex_jacobian_fn jacobian, const double *cell,
                 const double *coef, double *qd)
{
  const int Q = t->Q;
  for (int i = 0, q = 0; i < Q; i++)
    for (int j = 0; j < Q; j++)
      for (int k = 0; k < Q; k++, q++) {
        const double xi[3] = {t->xq[i], t->xq[j], t->xq[k]};
        double J[9], K[9];
        jacobian(cell, xi, J);
        const double det = geom_inverse3(J, K);
        if (!(det > 0)) return FEMINT_EJACOBIAN;
        const double w = t->w[i] * t->w[j] * t->w[k] * det;
        if (kind == HEX_APPLY_MASS) {
          qd[q] = coef[0] * w;
          continue;
        }
        if (kind == HEX_APPLY_ELASTICITY) {
          double *g = &qd[11 * (size_t)q];
          memcpy(g, K, 9 * sizeof *g);
          g[9] = coef[0] * w;
          g[10] = coef[1] * w;
          continue;
        }
        /* G = w K K^T with K[3*a + x] = dxi_a / dx_x: the symmetric 3x3 as g00 g01 g02 g11 g12 g22 */
        double *g = &qd[6 * (size_t)q];
        int n = 0;
        for (int a = 0; a < 3; a++)
          for (int b = a; b < 3; b++) {
            double s = 0;
            for (int x = 0; x < 3; x++) s += K[3 * a + x] * K[3 * b + x];
            g[n++] = coef[0] * w * s;
          }
      }
  return 0;
}

int hex_qdata(const struct hex_tensor *t, int kind, int nnode, const double *X,
              const double *coef, double *qd)
{
  if (nnode != HEX_NV) return qdata(t, kind, jacobian_curved, X, coef, qd);
  /* a trilinear cell through its monomials' coefficients: J at a point in a few products, not
   * through the 8 functions' derivatives */
  double geo[HEX_GEO_SIZE];
  hex_geo(X, coef, hex_ncoef(kind), geo);
  return hex_qdata_geo(t, kind, geo, qd);
}

void hex_geo(const double *X, const double *coef, int ncoef, double *geo)
{
  for (int m = 0; m < 8; m++)
    for (int x = 0; x < 3; x++) {
      double s = 0;
      for (int a = 0; a < HEX_NV; a++) {
        const double *v = hex_vert_xi[a];
        /* the monomial m at vertex a: bit 0 -> xi0, 1 -> xi1, 2 -> xi2, in the order above */
        static const int bits[8] = {0, 1, 2, 4, 3, 5, 6, 7};
        double mono = 1;
        for (int d = 0; d < 3; d++)
          if (bits[m] >> d & 1) mono *= v[d];
        s += mono * X[3 * a + x];
      }
      geo[3 * m + x] = s / 8;
    }
  geo[24] = coef[0];
  geo[25] = ncoef > 1 ? coef[1] : 0;
}

void hex_geo_curved(int nnode, const double *X, const double *coef, int ncoef, double *geo)
{
  for (int n = 0; n < 27; n++) {
    const double xi[3] = {n / 9 - 1, n / 3 % 3 - 1, n % 3 - 1};
    geom_hex_point(nnode, X, xi, geo + 3 * n);
  }
  geo[81] = coef[0];
  geo[82] = ncoef > 1 ? coef[1] : 0;
}

double hex_geo_map(const double *geo, const double xi[3], double *x, double *J)
{
  const double a = xi[0], b = xi[1], e = xi[2];
  jacobian_geo(geo, xi, J);
  for (int d = 0; x && d < 3; d++) /* the monomials 1, a, b, e, ab, ae, be, abe */
    x[d] = geo[d] + geo[3 + d] * a + geo[6 + d] * b + geo[9 + d] * e + geo[12 + d] * a * b +
           geo[15 + d] * a * e + geo[18 + d] * b * e + geo[21 + d] * a * b * e;
  return geom_det3(J);
}

int hex_qdata_geo(const struct hex_tensor *t, int kind, const double *geo, double *qd)
{
  return qdata(t, kind, jacobian_geo, geo, geo + 24, qd);
}

/* out[a][b][c] += sum_ijk Ti[i][a] Tj[j][b] Tk[k][c] in[i][j][k], the tables Q x P. */
static void back3(int P, int Q, const double *Ti, const double *Tj, const double *Tk,
                  const double *in, double *out, double *s1, double *s2)
{
  for (int ij = 0; ij < Q * Q; ij++)
    for (int c = 0; c < P; c++) {
      double s = 0;
      for (int k = 0; k < Q; k++) s += Tk[k * P + c] * in[ij * Q + k];
      s1[ij * P + c] = s;
    }
  for (int i = 0; i < Q; i++)
    for (int b = 0; b < P; b++)
      for (int c = 0; c < P; c++) {
        double s = 0;
        for (int j = 0; j < Q; j++) s += Tj[j * P + b] * s1[(i * Q + j) * P + c];
        s2[(i * P + b) * P + c] = s;
      }
  for (int a = 0; a < P; a++)
    for (int bc = 0; bc < P * P; bc++) {
      double s = 0;
      for (int i = 0; i < Q; i++) s += Ti[i * P + a] * s2[i * P * P + bc];
      out[a * P * P + bc] += s;
    }
}

size_t hex_diagonal_scratch(const struct hex_tensor *t)
{
  const size_t P = (size_t)t->P, Q = (size_t)t->Q;
  return Q * Q * P + Q * P * P + 7 * Q * Q * Q + 3 * Q * P;
}

/* The pairs (d, e), d <= e, of a symmetric 3 x 3 stored as g00 g01 g02 g11 g12 g22. */
static const int sym_pair[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};

/* d += the diagonal of sum_q (grad phi)^T G(q) grad phi, G symmetric as 6 values per point
 * (g00 g01 g02 g11 g12 g22): over d <= e, (2 - [d == e]) G_de(q) times, per direction, the
 * product of the two derivatives' tables there (D where the direction is d or e, else B). */
static void diagonal_sym(const struct hex_tensor *t, const double *G, const double *const tab[3],
                         double *d, double *s1, double *s2, double *in)
{
  const int P = t->P, Q = t->Q, nq = Q * Q * Q;
  for (int g = 0; g < 6; g++) {
    const int a = sym_pair[g][0], b = sym_pair[g][1];
    const double f = a == b ? 1.0 : 2.0;
    for (int q = 0; q < nq; q++) in[q] = f * G[6 * (size_t)q + g];
    const double *T[3];
    for (int dir = 0; dir < 3; dir++) T[dir] = tab[(dir == a) + (dir == b)];
    back3(P, Q, T[0], T[1], T[2], in, d, s1, s2);
  }
}

void hex_diagonal(const struct hex_tensor *t, int kind, const double *qd, double *d,
                  double *scratch)
{
  const int P = t->P, Q = t->Q, nq = Q * Q * Q, qp = Q * P;
  const size_t np = (size_t)P * P * P;
  double *s1 = scratch, *s2 = s1 + (size_t)Q * Q * P, *in = s2 + (size_t)Q * P * P;
  double *G = in + nq, *BB = G + 6 * (size_t)nq, *BD = BB + qp, *DD = BD + qp;
  for (int e = 0; e < qp; e++) {
    BB[e] = t->B[e] * t->B[e];
    BD[e] = t->B[e] * t->D[e];
    DD[e] = t->D[e] * t->D[e];
  }
  const double *const tab[3] = {BB, BD, DD}; /* by how many of the two derivatives are there */
  if (kind == HEX_APPLY_MASS) {
    memset(d, 0, np * sizeof *d);
    back3(P, Q, BB, BB, BB, qd, d, s1, s2);
    return;
  }
  if (kind == HEX_APPLY_LAPLACE) {
    memset(d, 0, np * sizeof *d);
    diagonal_sym(t, qd, tab, d, s1, s2, in);
    return;
  }
  /* elasticity, component c: only u_c = phi, so H = e_c h^T with h = K^T grad phi and
   * sigma h = mu |h|^2 + (lambda + mu) h_c^2: G = mu w K K^T + (lambda + mu) w k_c k_c^T with
   * k_c the column c of K */
  memset(d, 0, 3 * np * sizeof *d);
  for (int c = 0; c < 3; c++) {
    for (int q = 0; q < nq; q++) {
      const double *K = &qd[11 * (size_t)q];
      for (int g = 0; g < 6; g++) {
        const int a = sym_pair[g][0], b = sym_pair[g][1];
        const double kk = K[3 * a] * K[3 * b] + K[3 * a + 1] * K[3 * b + 1] + K[3 * a + 2] * K[3 * b + 2];
        G[6 * (size_t)q + g] = K[10] * kk + (K[9] + K[10]) * K[3 * a + c] * K[3 * b + c];
      }
    }
    diagonal_sym(t, G, tab, d + c * np, s1, s2, in);
  }
}
