/* The H1 Lagrange reference hexahedron on Gauss-Lobatto-Legendre nodes (refel_hex.h): the order
 * of its functions, their mode metadata, and their tabulation as tensor products of 1D
 * Lagrange polynomials. */
#include <stdlib.h>

#include "refel_hex.h"

#define PMAX HEX_MAX_ORDER
#define NSH_MAX ((PMAX + 1) * (PMAX + 1) * (PMAX + 1))
#define GAUSS_MAX 32 /* quad_gauss_legendre's largest rule */
/* The largest rank struct refel_mode's int16_t field holds. */
#define RANK_MAX INT16_MAX

int refel_hex_nsh(int order)
{
  FEMINT_CHECK(order >= 1 && order <= PMAX, NULL, FEMINT_EORDER,
               "hexahedron of order %d requested (1..%d supported)", order, PMAX);
  return (order + 1) * (order + 1) * (order + 1);
}

/* The GLL indices along xi, eta, zeta of the node s1 steps from vertex v0 towards v1 and s2 steps
 * from v0 towards v3 (an edge node: v3 = v0, s2 = 0). A vertex at -1 has index 0, one at 1 index
 * p, and a step towards the other end of an axis moves the index by one towards it. */
static void node_index(int p, int v0, int v1, int s1, int v3, int s2, int *idx)
{
  for (int d = 0; d < 3; d++) {
    const double x0 = hex_vert_xi[v0][d];
    const int dir1 = (int)((hex_vert_xi[v1][d] - x0) / 2);
    const int dir2 = (int)((hex_vert_xi[v3][d] - x0) / 2);
    idx[d] = (x0 < 0 ? 0 : p) + s1 * dir1 + s2 * dir2;
  }
}

static struct refel_mode make_mode(int kind, int entity, int p, int i1, int i2, int rank)
{
  return (struct refel_mode){.kind = (int8_t)kind,
                             .entity = (int8_t)entity,
                             .degree = (int8_t)p,
                             .i1 = (int8_t)i1,
                             .i2 = (int8_t)i2,
                             .rank = (int16_t)(rank <= RANK_MAX ? rank : -1)};
}

/* The nodes of the functions in the element's order (idx[f] = the GLL indices a, b, c of function
 * f) and, unless mode is NULL, their metadata. */
static void hex_layout(int p, int (*idx)[3], struct refel_mode *mode)
{
  const int m = p - 1; /* interior nodes per edge */
  int n = 0;
  for (int v = 0; v < HEX_NV; v++) {
    node_index(p, v, v, 0, v, 0, idx[n]);
    if (mode) mode[n] = make_mode(MODE_VERTEX, v, p, 0, 0, 0);
    n++;
  }
  for (int e = 0; e < HEX_NE; e++)
    for (int k = 1; k <= m; k++) {
      const int *ev = hex_edge_vert[e];
      node_index(p, ev[0], ev[1], k, ev[0], 0, idx[n]);
      if (mode) mode[n] = make_mode(MODE_EDGE, e, p, k, 0, k - 1);
      n++;
    }
  for (int f = 0; f < HEX_NF; f++)
    for (int i2 = 1; i2 <= m; i2++)
      for (int i1 = 1; i1 <= m; i1++) {
        const int *fv = hex_face_vert[f];
        node_index(p, fv[0], fv[1], i1, fv[3], i2, idx[n]);
        if (mode) mode[n] = make_mode(MODE_FACE, f, p, i1, i2, (i2 - 1) * m + i1 - 1);
        n++;
      }
  for (int a = 1; a <= m; a++)
    for (int b = 1; b <= m; b++)
      for (int c = 1; c <= m; c++) {
        idx[n][0] = a;
        idx[n][1] = b;
        idx[n][2] = c;
        if (mode) mode[n] = make_mode(MODE_INTERIOR, 0, p, a, b, ((a - 1) * m + b - 1) * m + c - 1);
        n++;
      }
}

/* One point: val[d*nsh + f] for function f from the 1D values b* and derivatives d* of the p+1
 * Lagrange polynomials along xi (x), eta (y) and zeta (z). */
static void hex_point(int nsh, const int (*idx)[3], const double *bx, const double *dx,
                      const double *by, const double *dy, const double *bz, const double *dz,
                      double *val)
{
  for (int f = 0; f < nsh; f++) {
    const int a = idx[f][0], b = idx[f][1], c = idx[f][2];
    val[f] = bx[a] * by[b] * bz[c];
    val[nsh + f] = dx[a] * by[b] * bz[c];
    val[2 * nsh + f] = bx[a] * dy[b] * bz[c];
    val[3 * nsh + f] = bx[a] * by[b] * dz[c];
  }
}

void refel_hex_eval(int order, const double xi[3], double *val)
{
  if (order < 1 || order > PMAX) return;
  double g[PMAX + 1], gw[PMAX + 1], b[3][PMAX + 1], d[3][PMAX + 1];
  int node[NSH_MAX][3]; /* 16 KB */
  gll_nodes(order + 1, g, gw);
  for (int k = 0; k < 3; k++) lagrange_eval(order + 1, g, xi[k], b[k], d[k]);
  hex_layout(order, node, NULL);
  hex_point(refel_hex_nsh(order), (const int(*)[3])node, b[0], d[0], b[1], d[1], b[2], d[2],
            val);
}

int refel_hex_create_rule(int order, int nline, int lobatto, struct refel **re)
{
  struct refel *r = NULL;
  int (*node)[3] = NULL;
  double lx[GLL_MAX], lw[GLL_MAX], g[PMAX + 1], gw[PMAX + 1];
  double B[GLL_MAX * (PMAX + 1)], D[GLL_MAX * (PMAX + 1)];
  *re = NULL;
  FEMINT_CHECK(order >= 1 && order <= PMAX, NULL, FEMINT_EORDER,
               "hexahedron of order %d requested (1..%d supported)", order, PMAX);
  FEMINT_CHECK(lobatto == 0 || lobatto == 1, NULL, FEMINT_EINVAL,
               "hexahedron rule: lobatto is %d (0 for Gauss-Legendre, 1 for Gauss-Lobatto)",
               lobatto);
  FEMINT_CALL(lobatto ? gll_nodes(nline, lx, lw) : quad_gauss_legendre(nline, lx, lw));
  const int n1 = order + 1;
  FEMINT_CALL(gll_nodes(n1, g, gw));
  FEMINT_CALL(basis_1d_matrices(n1, g, nline, lx, B, D));

  r = calloc(1, sizeof *r);
  if (!r) goto nomem;
  r->shape = FEMINT_HEX;
  r->family = FEMINT_H1;
  r->order = order;
  r->dim = 3;
  r->nsh = refel_hex_nsh(order);
  r->ntri = 0;
  r->nline = nline;
  r->nq = nline * nline * nline;
  r->degree = lobatto ? 2 * nline - 3 : 2 * nline - 1;
  const size_t nphi = (size_t)r->nq * 4 * (size_t)r->nsh;
  r->xq = malloc(sizeof(double) * 3 * r->nq);
  r->wq = malloc(sizeof(double) * r->nq);
  r->phi = malloc(sizeof(double) * nphi);
  r->phi_f = malloc(sizeof(float) * nphi);
  r->mode = malloc(sizeof(struct refel_mode) * r->nsh);
  node = malloc(sizeof *node * r->nsh);
  if (!r->xq || !r->wq || !r->phi || !r->phi_f || !r->mode || !node) goto nomem;

  hex_layout(order, node, r->mode);
  for (int i = 0; i < nline; i++)
    for (int j = 0; j < nline; j++)
      for (int k = 0; k < nline; k++) {
        const int q = (i * nline + j) * nline + k;
        r->xq[3 * q] = lx[i];
        r->xq[3 * q + 1] = lx[j];
        r->xq[3 * q + 2] = lx[k];
        r->wq[q] = lw[i] * lw[j] * lw[k];
        hex_point(r->nsh, (const int(*)[3])node, B + i * n1, D + i * n1, B + j * n1, D + j * n1,
                  B + k * n1, D + k * n1, r->phi + (size_t)q * 4 * r->nsh);
      }
  for (size_t s = 0; s < nphi; s++) r->phi_f[s] = (float)r->phi[s];
  free(node);
  *re = r;
  return 0;

nomem:
  free(node);
  refel_destroy(&r);
  return femint_seterr(NULL, FEMINT_ENOMEM,
                       "out of memory tabulating the hexahedron of order %d on %d^3 points",
                       order, nline);
}

int refel_hex_create(int order, struct refel **re)
{
  *re = NULL;
  FEMINT_CHECK(order >= 1 && order <= PMAX, NULL, FEMINT_EORDER,
               "hexahedron of order %d requested (1..%d supported)", order, PMAX);
  return refel_hex_create_rule(order, order + 2, 0, re);
}

int refel_hex_mode_rank(const struct refel_mode *m, int q) { return q >= 1 ? m->rank : -1; }

int refel_hex_entity_nmodes(int kind, int q)
{
  if (q < 1) return 0;
  switch (kind) {
  case MODE_VERTEX: return 1;
  case MODE_EDGE: return q - 1;
  case MODE_FACE: return (q - 1) * (q - 1);
  case MODE_INTERIOR: return (q - 1) * (q - 1) * (q - 1);
  default: return 0;
  }
}

int refel_hex_nodes(int order, double *xi)
{
  FEMINT_CHECK(order >= 1 && order <= PMAX, NULL, FEMINT_EORDER,
               "hexahedron of order %d requested (1..%d supported)", order, PMAX);
  const int nsh = refel_hex_nsh(order);
  double x[PMAX + 1], w[PMAX + 1];
  FEMINT_CALL(gll_nodes(order + 1, x, w));
  int(*idx)[3] = malloc((size_t)nsh * sizeof *idx);
  FEMINT_CHECK(idx, NULL, FEMINT_ENOMEM, "out of memory listing the nodes of a hexahedron");
  hex_layout(order, idx, NULL);
  for (int f = 0; f < nsh; f++)
    for (int d = 0; d < 3; d++) xi[3 * f + d] = x[idx[f][d]];
  free(idx);
  return 0;
}

int refel_hex_tensor_map(int order, int *t2f)
{
  FEMINT_CHECK(order >= 1 && order <= PMAX, NULL, FEMINT_EORDER,
               "hexahedron of order %d requested (1..%d supported)", order, PMAX);
  const int P = order + 1, nsh = refel_hex_nsh(order);
  int(*idx)[3] = malloc((size_t)nsh * sizeof *idx);
  FEMINT_CHECK(idx, NULL, FEMINT_ENOMEM, "out of memory listing the nodes of a hexahedron");
  hex_layout(order, idx, NULL);
  for (int f = 0; f < nsh; f++) t2f[(idx[f][0] * P + idx[f][1]) * P + idx[f][2]] = f;
  free(idx);
  return 0;
}
