/* The hierarchical H1 reference prism: Szabo-Babuska triangle functions times Lobatto functions
 * of xi3, their mode metadata and their tabulation at the points of a product rule. */
#include <math.h>
#include <stdlib.h>

#include "host.h"

#define PMAX 7
#define NBUBBLE ((PMAX - 1) * (PMAX - 2) / 2)

/* A function of (xi1, xi2) with its two derivatives, and a function of xi3 with its derivative. */
struct tri_fn {
  double v, dx, dy;
};
struct line_fn {
  double v, dz;
};

/* The factors of every shape function at one point. */
struct prism_factors {
  struct tri_fn vert[3];
  struct tri_fn edge[3][PMAX + 1]; /* edge e, degree k = 2..p */
  struct tri_fn bubble[NBUBBLE];   /* by total degree n = 3..p, then i ascending */
  int bubble_n[NBUBBLE], bubble_i[NBUBBLE];
  struct line_fn line[PMAX + 1]; /* L0, L1, then the Lobatto bubbles L2..Lp */
};

/* Triangle edges as pairs of barycentric indices (the bottom edges 0..2 of the prism). */
static const int tri_edge[3][2] = {{0, 1}, {1, 2}, {2, 0}};

/* P_n(x), P_n'(x), P_n''(x) for n = 0..nmax by the three-term recurrence and its derivatives. */
static void legendre_all(int nmax, double x, double *p, double *dp, double *d2p)
{
  p[0] = 1, dp[0] = 0, d2p[0] = 0;
  if (nmax < 1) return;
  p[1] = x, dp[1] = 1, d2p[1] = 0;
  for (int n = 1; n < nmax; n++) {
    p[n + 1] = ((2 * n + 1) * x * p[n] - n * p[n - 1]) / (n + 1);
    dp[n + 1] = ((2 * n + 1) * (p[n] + x * dp[n]) - n * dp[n - 1]) / (n + 1);
    d2p[n + 1] = ((2 * n + 1) * (2 * dp[n] + x * d2p[n]) - n * d2p[n - 1]) / (n + 1);
  }
}

static void prism_factors_eval(int p, const double xi[3], struct prism_factors *f)
{
  static const double grad[3][2] = {{-1, -1}, {1, 0}, {0, 1}};
  double l[3] = {1 - xi[0] - xi[1], xi[0], xi[1]};
  double P[PMAX + 1], dP[PMAX + 1], d2P[PMAX + 1];
  for (int v = 0; v < 3; v++) f->vert[v] = (struct tri_fn){l[v], grad[v][0], grad[v][1]};

  /* Edge functions la lb phi_{k-2}(lb - la). With the Legendre equation, the kernel of the
   * normalized Lobatto function is phi_{k-2} = -4 sqrt((2k-1)/2) / (k (k-1)) P_{k-1}', a
   * polynomial evaluated without dividing by 1 - x^2. */
  for (int e = 0; e < 3; e++) {
    int a = tri_edge[e][0], b = tri_edge[e][1];
    double s = l[b] - l[a], sx = grad[b][0] - grad[a][0], sy = grad[b][1] - grad[a][1];
    double ab = l[a] * l[b];
    double abx = l[a] * grad[b][0] + l[b] * grad[a][0], aby = l[a] * grad[b][1] + l[b] * grad[a][1];
    legendre_all(p - 1, s, P, dP, d2P);
    for (int k = 2; k <= p; k++) {
      double c = -4 * sqrt((2 * k - 1) / 2.0) / (k * (k - 1.0));
      double phi = c * dP[k - 1], dphi = c * d2P[k - 1];
      f->edge[e][k] =
          (struct tri_fn){ab * phi, abx * phi + ab * dphi * sx, aby * phi + ab * dphi * sy};
    }
  }

  /* Bubbles l0 l1 l2 P_i(l1 - l0) P_j(2 l2 - 1), i + j = n - 3. */
  {
    double Pu[PMAX + 1], dPu[PMAX + 1], d2Pu[PMAX + 1], Pv[PMAX + 1], dPv[PMAX + 1], d2Pv[PMAX + 1];
    double u = l[1] - l[0], v = 2 * l[2] - 1; /* grad u = (2, 1), grad v = (0, 2) */
    double b = l[0] * l[1] * l[2];
    double bx = l[1] * l[2] * grad[0][0] + l[0] * l[2] * grad[1][0] + l[0] * l[1] * grad[2][0];
    double by = l[1] * l[2] * grad[0][1] + l[0] * l[2] * grad[1][1] + l[0] * l[1] * grad[2][1];
    int nb = 0;
    legendre_all(p > 3 ? p - 3 : 0, u, Pu, dPu, d2Pu);
    legendre_all(p > 3 ? p - 3 : 0, v, Pv, dPv, d2Pv);
    for (int n = 3; n <= p; n++) {
      for (int i = 0; i <= n - 3; i++, nb++) {
        int j = n - 3 - i;
        double q = Pu[i] * Pv[j], qx = 2 * dPu[i] * Pv[j], qy = dPu[i] * Pv[j] + 2 * Pu[i] * dPv[j];
        f->bubble[nb] = (struct tri_fn){b * q, bx * q + b * qx, by * q + b * qy};
        f->bubble_n[nb] = n;
        f->bubble_i[nb] = i;
      }
    }
  }

  /* L0, L1 and the Lobatto bubbles Lk = (P_k - P_{k-2}) / sqrt(2 (2k-1)), Lk' = sqrt((2k-1)/2)
   * P_{k-1}. */
  double z = xi[2];
  legendre_all(p, z, P, dP, d2P);
  f->line[0] = (struct line_fn){(1 - z) / 2, -0.5};
  f->line[1] = (struct line_fn){(1 + z) / 2, 0.5};
  for (int k = 2; k <= p; k++)
    f->line[k] = (struct line_fn){(P[k] - P[k - 2]) / sqrt(2.0 * (2 * k - 1)),
                                  sqrt((2 * k - 1) / 2.0) * P[k - 1]};
}

/* Writes shape functions in the element's order: values and derivatives into val[4][nsh] and
 * the metadata into mode, either of which may be NULL. */
struct prism_writer {
  int nsh, i;
  double *val;
  struct refel_mode *mode;
};

static void put(struct prism_writer *w, const struct tri_fn *t, const struct line_fn *l, int kind,
                int entity, int hdeg, int vdeg, int degree, int i1, int i2)
{
  if (w->val) {
    w->val[w->i] = t->v * l->v;
    w->val[w->nsh + w->i] = t->dx * l->v;
    w->val[2 * w->nsh + w->i] = t->dy * l->v;
    w->val[3 * w->nsh + w->i] = t->v * l->dz;
  }
  if (w->mode)
    w->mode[w->i] = (struct refel_mode){.kind = (int8_t)kind,     .entity = (int8_t)entity,
                                        .hdeg = (int8_t)hdeg,     .vdeg = (int8_t)vdeg,
                                        .degree = (int8_t)degree, .i1 = (int8_t)i1,
                                        .i2 = (int8_t)i2};
  w->i++;
}

static int imax(int a, int b) { return a > b ? a : b; }

static void prism_write(int p, const struct prism_factors *f, struct prism_writer *w)
{
  int nbubble = (p - 1) * (p - 2) / 2;
  for (int v = 0; v < PRISM_NV; v++)
    put(w, &f->vert[v % 3], &f->line[v < 3 ? 0 : 1], MODE_VERTEX, v, 0, 0, 1, 0, 0);
  for (int e = 0; e < 6; e++)
    for (int k = 2; k <= p; k++)
      put(w, &f->edge[e % 3][k], &f->line[e < 3 ? 0 : 1], MODE_EDGE, e, k, 0, k, 0, 0);
  for (int v = 0; v < 3; v++)
    for (int m = 2; m <= p; m++) put(w, &f->vert[v], &f->line[m], MODE_EDGE, 6 + v, 0, m, m, 0, 0);
  for (int face = 0; face < 2; face++)
    for (int b = 0; b < nbubble; b++) {
      int n = f->bubble_n[b], i = f->bubble_i[b];
      put(w, &f->bubble[b], &f->line[face], MODE_FACE, face, 0, 0, n, i, n - 3 - i);
    }
  for (int e = 0; e < 3; e++)
    for (int k = 2; k <= p; k++)
      for (int m = 2; m <= p; m++)
        put(w, &f->edge[e][k], &f->line[m], MODE_FACE, 2 + e, k, m, imax(k, m), k, m);
  for (int b = 0; b < nbubble; b++) {
    int n = f->bubble_n[b], i = f->bubble_i[b];
    for (int m = 2; m <= p; m++)
      put(w, &f->bubble[b], &f->line[m], MODE_INTERIOR, 0, 0, m, imax(n, m), i, n - 3 - i);
  }
}

int refel_prism_nsh(int order)
{
  FEMINT_CHECK(order >= 1 && order <= PMAX, NULL, FEMINT_EORDER,
               "prism of order %d requested (1..%d supported)", order, PMAX);
  return (order + 1) * (order + 1) * (order + 2) / 2;
}

void refel_prism_eval(int order, const double xi[3], double *val)
{
  /* The order is the caller's to check (refel_prism_create does). */
  if (order < 1 || order > PMAX) return;
  struct prism_factors f;
  struct prism_writer w = {refel_prism_nsh(order), 0, val, NULL};
  prism_factors_eval(order, xi, &f);
  prism_write(order, &f, &w);
}

int refel_prism_create(int order, struct refel **re)
{
  struct refel *r = NULL;
  const double *txy, *tw;
  double lx[PMAX + 1], lw[PMAX + 1];
  int ntri, nline = order + 1;
  *re = NULL;
  FEMINT_CHECK(order >= 1 && order <= PMAX, NULL, FEMINT_EORDER,
               "prism of order %d requested (1..%d supported)", order, PMAX);
  FEMINT_CALL(quad_triangle(2 * order, &ntri, &txy, &tw));
  FEMINT_CALL(quad_gauss_legendre(nline, lx, lw));

  r = calloc(1, sizeof *r);
  if (!r) goto nomem;
  r->shape = FEMINT_PRISM;
  r->family = FEMINT_H1;
  r->order = order;
  r->dim = 3;
  r->nsh = refel_prism_nsh(order);
  r->ntri = ntri;
  r->nline = nline;
  r->nq = ntri * nline;
  r->degree = 2 * order;
  size_t nphi = (size_t)r->nq * 4 * r->nsh;
  r->xq = malloc(sizeof(double) * 3 * r->nq);
  r->wq = malloc(sizeof(double) * r->nq);
  r->phi = malloc(sizeof(double) * nphi);
  r->phi_f = malloc(sizeof(float) * nphi);
  r->mode = malloc(sizeof(struct refel_mode) * r->nsh);
  if (!r->xq || !r->wq || !r->phi || !r->phi_f || !r->mode) goto nomem;

  for (int it = 0; it < ntri; it++) {
    for (int il = 0; il < nline; il++) {
      int q = it * nline + il;
      double *x = r->xq + 3 * q;
      struct prism_factors f;
      x[0] = txy[2 * it];
      x[1] = txy[2 * it + 1];
      x[2] = lx[il];
      r->wq[q] = tw[it] * lw[il];
      struct prism_writer w = {r->nsh, 0, r->phi + (size_t)q * 4 * r->nsh, q ? NULL : r->mode};
      prism_factors_eval(order, x, &f);
      prism_write(order, &f, &w);
    }
  }
  for (size_t k = 0; k < nphi; k++) r->phi_f[k] = (float)r->phi[k];
  *re = r;
  return 0;

nomem:
  refel_destroy(&r);
  return femint_seterr(NULL, FEMINT_ENOMEM, "out of memory tabulating the prism of order %d",
                       order);
}

void refel_destroy(struct refel **re)
{
  if (!re || !*re) return;
  free((*re)->xq);
  free((*re)->wq);
  free((*re)->phi);
  free((*re)->phi_f);
  free((*re)->val);
  free((*re)->curl);
  free((*re)->val_f);
  free((*re)->curl_f);
  free((*re)->mode);
  free(*re);
  *re = NULL;
}

int refel_mode_rank(const struct refel_mode *m, int q)
{
  switch (m->kind) {
  case MODE_VERTEX: return q >= 1 ? 0 : -1;
  case MODE_EDGE: {
    int d = m->hdeg ? m->hdeg : m->vdeg;
    return d <= q ? d - 2 : -1;
  }
  case MODE_FACE:
    if (m->entity < 2) {
      int n = m->degree;
      return n <= q ? (n - 3) * (n - 2) / 2 + m->i1 : -1;
    }
    return m->i1 <= q && m->i2 <= q ? (m->i1 - 2) * (q - 1) + (m->i2 - 2) : -1;
  default: return -1;
  }
}

int refel_entity_nmodes(int kind, int entity, int q)
{
  if (q < 1) return 0;
  switch (kind) {
  case MODE_VERTEX: return 1;
  case MODE_EDGE: return q - 1;
  case MODE_FACE: return entity < 2 ? (q - 1) * (q - 2) / 2 : (q - 1) * (q - 1);
  case MODE_INTERIOR: return (q - 1) * (q - 1) * (q - 2) / 2;
  default: return 0;
  }
}
