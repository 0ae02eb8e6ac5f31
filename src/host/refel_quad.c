/* The hierarchical H1 reference quadrilateral of seed 003: vertex, edge and interior modes of the
 * reduced Lobatto space, their mode metadata and their tabulation at tensor Gauss points. */
#include <math.h>
#include <stdlib.h>

#include "refel_quad.h"

#define PMAX 7

const double quad_vert_xi[QUAD_NV][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
const int quad_edge_vert[QUAD_NE][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};

/* A function of one reference coordinate with its derivative. */
struct line_fn {
  double v, d;
};

/* L0, L1 and the Lobatto bubbles L2..Lp at t: Lk = (P_k - P_{k-2}) / sqrt(2 (2k-1)),
 * Lk' = sqrt((2k-1)/2) P_{k-1}. */
static void lobatto_all(int p, double t, struct line_fn *L)
{
  double P[PMAX + 1];
  P[0] = 1;
  P[1] = t;
  for (int n = 1; n < p; n++) P[n + 1] = ((2 * n + 1) * t * P[n] - n * P[n - 1]) / (n + 1);
  L[0] = (struct line_fn){(1 - t) / 2, -0.5};
  L[1] = (struct line_fn){(1 + t) / 2, 0.5};
  for (int k = 2; k <= p; k++)
    L[k] = (struct line_fn){(P[k] - P[k - 2]) / sqrt(2.0 * (2 * k - 1)),
                            sqrt((2 * k - 1) / 2.0) * P[k - 1]};
}

/* Writes shape functions in the element's order: values and derivatives into val[3][nsh] and the
 * metadata into mode, either of which may be NULL. */
struct quad_writer {
  int nsh, i;
  double *val;
  struct refel_mode *mode;
};

/* Put the product fx(xi) * fy(eta), times sign. */
static void put(struct quad_writer *w, const struct line_fn *fx, const struct line_fn *fy,
                double sign, int kind, int entity, int hdeg, int vdeg, int degree, int i1, int i2)
{
  if (w->val) {
    w->val[w->i] = sign * fx->v * fy->v;
    w->val[w->nsh + w->i] = sign * fx->d * fy->v;
    w->val[2 * w->nsh + w->i] = sign * fx->v * fy->d;
  }
  if (w->mode)
    w->mode[w->i] = (struct refel_mode){.kind = (int8_t)kind,     .entity = (int8_t)entity,
                                        .hdeg = (int8_t)hdeg,     .vdeg = (int8_t)vdeg,
                                        .degree = (int8_t)degree, .i1 = (int8_t)i1,
                                        .i2 = (int8_t)i2};
  w->i++;
}

static void quad_write(int p, const struct line_fn *X, const struct line_fn *Y,
                       struct quad_writer *w)
{
  /* Vertex v is L_a(xi) L_b(eta) with (a, b) the ends of the square it sits on. */
  static const int vx[QUAD_NV] = {0, 1, 1, 0}, vy[QUAD_NV] = {0, 0, 1, 1};
  for (int v = 0; v < QUAD_NV; v++) put(w, &X[vx[v]], &Y[vy[v]], 1, MODE_VERTEX, v, 0, 0, 1, 0, 0);
  /* Edges 2 and 3 run against xi and eta: Lk(-t) = (-1)^k Lk(t). */
  for (int k = 2; k <= p; k++) put(w, &X[k], &Y[0], 1, MODE_EDGE, 0, k, 0, k, 0, 0);
  for (int k = 2; k <= p; k++) put(w, &X[1], &Y[k], 1, MODE_EDGE, 1, 0, k, k, 0, 0);
  for (int k = 2; k <= p; k++) put(w, &X[k], &Y[1], k % 2 ? -1 : 1, MODE_EDGE, 2, k, 0, k, 0, 0);
  for (int k = 2; k <= p; k++) put(w, &X[0], &Y[k], k % 2 ? -1 : 1, MODE_EDGE, 3, 0, k, k, 0, 0);
  for (int n = 4; n <= p; n++)
    for (int i = 2; i <= n - 2; i++)
      put(w, &X[i], &Y[n - i], 1, MODE_INTERIOR, 0, i, n - i, n, i, n - i);
}

int refel_quad_nsh(int order)
{
  FEMINT_CHECK(order >= 1 && order <= PMAX, NULL, FEMINT_EORDER,
               "quadrilateral of order %d requested (1..%d supported)", order, PMAX);
  return 4 * order + (order > 3 ? (order - 2) * (order - 3) / 2 : 0);
}

void refel_quad_eval(int order, const double xi[2], double *val)
{
  /* The order is the caller's to check (refel_quad_create does). */
  if (order < 1 || order > PMAX) return;
  struct line_fn X[PMAX + 1], Y[PMAX + 1];
  struct quad_writer w = {refel_quad_nsh(order), 0, val, NULL};
  lobatto_all(order, xi[0], X);
  lobatto_all(order, xi[1], Y);
  quad_write(order, X, Y, &w);
}

int refel_quad_create_rule(int order, int nline, struct refel **re)
{
  struct refel *r = NULL;
  double lx[32], lw[32];
  *re = NULL;
  FEMINT_CHECK(order >= 1 && order <= PMAX, NULL, FEMINT_EORDER,
               "quadrilateral of order %d requested (1..%d supported)", order, PMAX);
  FEMINT_CALL(quad_gauss_legendre(nline, lx, lw));

  r = calloc(1, sizeof *r);
  if (!r) goto nomem;
  r->shape = FEMINT_QUAD;
  r->family = FEMINT_H1;
  r->order = order;
  r->dim = 2;
  r->nsh = refel_quad_nsh(order);
  r->ntri = 0;
  r->nline = nline;
  r->nq = nline * nline;
  r->degree = 2 * nline - 1;
  size_t nphi = (size_t)r->nq * 3 * r->nsh;
  r->xq = malloc(sizeof(double) * 2 * r->nq);
  r->wq = malloc(sizeof(double) * r->nq);
  r->phi = malloc(sizeof(double) * nphi);
  r->phi_f = malloc(sizeof(float) * nphi);
  r->mode = malloc(sizeof(struct refel_mode) * r->nsh);
  if (!r->xq || !r->wq || !r->phi || !r->phi_f || !r->mode) goto nomem;

  for (int i = 0; i < nline; i++) {
    struct line_fn X[PMAX + 1], Y[PMAX + 1];
    lobatto_all(order, lx[i], X);
    for (int j = 0; j < nline; j++) {
      int q = i * nline + j;
      r->xq[2 * q] = lx[i];
      r->xq[2 * q + 1] = lx[j];
      r->wq[q] = lw[i] * lw[j];
      lobatto_all(order, lx[j], Y);
      struct quad_writer w = {r->nsh, 0, r->phi + (size_t)q * 3 * r->nsh, q ? NULL : r->mode};
      quad_write(order, X, Y, &w);
    }
  }
  for (size_t k = 0; k < nphi; k++) r->phi_f[k] = (float)r->phi[k];
  *re = r;
  return 0;

nomem:
  refel_destroy(&r);
  return femint_seterr(NULL, FEMINT_ENOMEM,
                       "out of memory tabulating the quadrilateral of order %d", order);
}

int refel_quad_create(int order, struct refel **re)
{
  *re = NULL;
  FEMINT_CHECK(order >= 1 && order <= PMAX, NULL, FEMINT_EORDER,
               "quadrilateral of order %d requested (1..%d supported)", order, PMAX);
  return refel_quad_create_rule(order, order + 1, re);
}

int refel_quad_mode_rank(const struct refel_mode *m, int q)
{
  switch (m->kind) {
  case MODE_VERTEX: return q >= 1 ? 0 : -1;
  case MODE_EDGE: return m->degree <= q ? m->degree - 2 : -1;
  case MODE_INTERIOR: {
    int n = m->degree;
    return n <= q ? (n - 4) * (n - 3) / 2 + m->i1 - 2 : -1;
  }
  default: return -1;
  }
}

int refel_quad_entity_nmodes(int kind, int q)
{
  if (q < 1) return 0;
  switch (kind) {
  case MODE_VERTEX: return 1;
  case MODE_EDGE: return q - 1;
  case MODE_INTERIOR: return q > 3 ? (q - 2) * (q - 3) / 2 : 0;
  default: return 0;
  }
}
