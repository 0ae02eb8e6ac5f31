/* The reference tetrahedron of seed 004: the hierarchical H(curl) basis of orders 1..3 written
 * with barycentric coordinates, its mode metadata and its tabulation (values and curls) at the
 * points of the conical rule. */
#include <stdlib.h>
#include <string.h>

#include "refel_tet.h"

const double tet_vert_xi[TET_NV][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
const int tet_edge_vert[TET_NE][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
const int tet_face_vert[TET_NF][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};

/* Gradients of the barycentrics: constant on the reference tetrahedron. */
static const double grad_l[TET_NV][3] = {{-1, -1, -1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};

/* Writes functions in the element's order: values and curls into val[3][nsh] and curl[3][nsh],
 * metadata into mode; any of the three may be NULL. */
struct tet_writer {
  int nsh, i;
  const double *l; /* barycentrics at the point */
  double *val, *curl;
  struct refel_mode *mode;
};

static void cross(const double *a, const double *b, double *c)
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

static void put(struct tet_writer *w, const double *v, const double *c, struct refel_mode m)
{
  for (int d = 0; d < 3; d++) {
    if (w->val) w->val[d * w->nsh + w->i] = v[d];
    if (w->curl) w->curl[d * w->nsh + w->i] = c[d];
  }
  if (w->mode) w->mode[w->i] = m;
  w->i++;
}

/* f w_ab with grad f = df: value f w_ab, curl df x w_ab + 2 f grad l_a x grad l_b. */
static void put_whitney(struct tet_writer *w, double f, const double *df, int a, int b,
                        struct refel_mode m)
{
  const double *l = w->l;
  double wab[3], v[3], c[3], g[3];
  for (int d = 0; d < 3; d++) {
    wab[d] = l[a] * grad_l[b][d] - l[b] * grad_l[a][d];
    v[d] = f * wab[d];
  }
  cross(df, wab, c);
  cross(grad_l[a], grad_l[b], g);
  for (int d = 0; d < 3; d++) c[d] += 2 * f * g[d];
  put(w, v, c, m);
}

/* grad g from the partial derivatives dg[k] = dg/dl_k (k = 0..3): curl-free. */
static void put_gradient(struct tet_writer *w, const double *dg, struct refel_mode m)
{
  double v[3] = {0, 0, 0};
  static const double zero[3] = {0, 0, 0};
  for (int k = 0; k < TET_NV; k++)
    for (int d = 0; d < 3; d++) v[d] += dg[k] * grad_l[k][d];
  put(w, v, zero, m);
}

/* Gradient of a product of barycentrics sum_k c_k grad l_k, as a vector. */
static void combine(const double *c, double *g)
{
  for (int d = 0; d < 3; d++) g[d] = 0;
  for (int k = 0; k < TET_NV; k++)
    for (int d = 0; d < 3; d++) g[d] += c[k] * grad_l[k][d];
}

static struct refel_mode mode(int kind, int entity, int level, int type, int rank)
{
  struct refel_mode m = {.kind = (int8_t)kind, .entity = (int8_t)entity, .level = (int8_t)level,
                         .degree = (int8_t)level};
  m.type = (int8_t)type;
  m.rank = (int8_t)rank;
  m.sorted = kind == MODE_FACE;
  return m;
}

static void write_level1(struct tet_writer *w)
{
  static const double zero[3] = {0, 0, 0};
  for (int e = 0; e < TET_NE; e++) {
    struct refel_mode m = mode(MODE_EDGE, e, 1, TET_WHITNEY, 0);
    m.odd = 1;
    put_whitney(w, 1, zero, tet_edge_vert[e][0], tet_edge_vert[e][1], m);
  }
}

static void write_level2(struct tet_writer *w)
{
  const double *l = w->l;
  for (int e = 0; e < TET_NE; e++) {
    const int a = tet_edge_vert[e][0], b = tet_edge_vert[e][1];
    double dg[TET_NV] = {0};
    dg[a] = l[b];
    dg[b] = l[a];
    put_gradient(w, dg, mode(MODE_EDGE, e, 2, TET_GRADIENT, 1));
  }
  for (int f = 0; f < TET_NF; f++) {
    const int a = tet_face_vert[f][0], b = tet_face_vert[f][1], c = tet_face_vert[f][2];
    put_whitney(w, l[c], grad_l[c], a, b, mode(MODE_FACE, f, 2, TET_ROTATIONAL, 0));
    put_whitney(w, l[b], grad_l[b], a, c, mode(MODE_FACE, f, 2, TET_ROTATIONAL, 1));
  }
}

/* l_i l_j w_ab. */
static void put_product_whitney(struct tet_writer *w, int i, int j, int a, int b, struct refel_mode m)
{
  const double *l = w->l;
  double c[TET_NV] = {0}, g[3];
  c[i] += l[j];
  c[j] += l[i];
  combine(c, g);
  put_whitney(w, l[i] * l[j], g, a, b, m);
}

static void write_level3(struct tet_writer *w)
{
  const double *l = w->l;
  for (int e = 0; e < TET_NE; e++) {
    const int a = tet_edge_vert[e][0], b = tet_edge_vert[e][1];
    /* g = l_a l_b^2 - l_a^2 l_b */
    double dg[TET_NV] = {0};
    dg[a] = l[b] * l[b] - 2 * l[a] * l[b];
    dg[b] = 2 * l[a] * l[b] - l[a] * l[a];
    struct refel_mode m = mode(MODE_EDGE, e, 3, TET_GRADIENT, 2);
    m.odd = 1;
    put_gradient(w, dg, m);
  }
  for (int f = 0; f < TET_NF; f++) {
    const int a = tet_face_vert[f][0], b = tet_face_vert[f][1], c = tet_face_vert[f][2];
    double dg[TET_NV] = {0};
    dg[a] = l[b] * l[c];
    dg[b] = l[a] * l[c];
    dg[c] = l[a] * l[b];
    put_gradient(w, dg, mode(MODE_FACE, f, 3, TET_GRADIENT, 2));
    put_product_whitney(w, a, c, a, b, mode(MODE_FACE, f, 3, TET_ROTATIONAL, 3));
    put_product_whitney(w, b, c, a, b, mode(MODE_FACE, f, 3, TET_ROTATIONAL, 4));
    put_product_whitney(w, a, b, a, c, mode(MODE_FACE, f, 3, TET_ROTATIONAL, 5));
  }
  /* l_i l_j w_0k for the edges (0, k) and {i, j} the other two vertices. */
  static const int inner[3][3] = {{2, 3, 1}, {1, 3, 2}, {1, 2, 3}};
  for (int r = 0; r < 3; r++)
    put_product_whitney(w, inner[r][0], inner[r][1], 0, inner[r][2],
                        mode(MODE_INTERIOR, 0, 3, TET_ROTATIONAL, r));
}

static void tet_write(int order, struct tet_writer *w)
{
  write_level1(w);
  if (order >= 2) write_level2(w);
  if (order >= 3) write_level3(w);
}

int refel_tet_nsh(int order)
{
  FEMINT_CHECK(order >= 1 && order <= TET_MAX_ORDER, NULL, FEMINT_EORDER,
               "H(curl) tetrahedron of order %d requested (1..%d supported)", order, TET_MAX_ORDER);
  return order * (order + 2) * (order + 3) / 2;
}

int refel_tet_entity_nmodes(int kind, int order)
{
  switch (kind) {
  case MODE_EDGE: return order;
  case MODE_FACE: return order * (order - 1);
  case MODE_INTERIOR: return order * (order - 1) * (order - 2) / 2;
  default: return 0;
  }
}

static void barycentrics(const double xi[3], double *l)
{
  l[0] = 1 - xi[0] - xi[1] - xi[2];
  l[1] = xi[0];
  l[2] = xi[1];
  l[3] = xi[2];
}

void refel_tet_eval(int order, const double xi[3], double *val, double *curl)
{
  /* The order is the caller's to check (refel_tet_create does). */
  if (order < 1 || order > TET_MAX_ORDER) return;
  double l[TET_NV];
  barycentrics(xi, l);
  struct tet_writer w = {refel_tet_nsh(order), 0, l, val, curl, NULL};
  tet_write(order, &w);
}

/* Tabulate the basis of an order on the rule xq[nq][3], wq[nq] (copied). */
static int tabulate(int order, int nq, const double *xq, const double *wq, int nline, int degree,
                    struct refel **re)
{
  struct refel *r = calloc(1, sizeof *r);
  *re = NULL;
  if (!r) goto nomem;
  r->shape = FEMINT_TET;
  r->family = FEMINT_HCURL;
  r->dim = 3;
  r->order = order;
  r->nsh = refel_tet_nsh(order);
  r->nline = nline;
  r->nq = nq;
  r->degree = degree;
  const size_t ntab = (size_t)r->nq * 3 * r->nsh;
  r->xq = malloc(sizeof(double) * 3 * r->nq);
  r->wq = malloc(sizeof(double) * r->nq);
  r->val = malloc(sizeof(double) * ntab);
  r->curl = malloc(sizeof(double) * ntab);
  r->val_f = malloc(sizeof(float) * ntab);
  r->curl_f = malloc(sizeof(float) * ntab);
  r->mode = malloc(sizeof(struct refel_mode) * r->nsh);
  if (!r->xq || !r->wq || !r->val || !r->curl || !r->val_f || !r->curl_f || !r->mode) goto nomem;
  memcpy(r->xq, xq, sizeof(double) * 3 * nq);
  memcpy(r->wq, wq, sizeof(double) * nq);
  for (int q = 0; q < r->nq; q++) {
    double l[TET_NV];
    barycentrics(&r->xq[3 * q], l);
    const size_t at = (size_t)q * 3 * r->nsh;
    struct tet_writer w = {r->nsh, 0, l, r->val + at, r->curl + at, q ? NULL : r->mode};
    tet_write(order, &w);
  }
  for (size_t k = 0; k < ntab; k++) {
    r->val_f[k] = (float)r->val[k];
    r->curl_f[k] = (float)r->curl[k];
  }
  *re = r;
  return 0;

nomem:
  refel_destroy(&r);
  return femint_seterr(NULL, FEMINT_ENOMEM,
                       "out of memory tabulating the H(curl) tetrahedron of order %d", order);
}

int refel_tet_create_rule(int order, int nline, struct refel **re)
{
  *re = NULL;
  FEMINT_CHECK(order >= 1 && order <= TET_MAX_ORDER, NULL, FEMINT_EORDER,
               "H(curl) tetrahedron of order %d requested (1..%d supported)", order, TET_MAX_ORDER);
  FEMINT_CHECK(nline >= 1 && nline <= 16, NULL, FEMINT_EORDER,
               "H(curl) tetrahedron: a rule of %d points per direction (1..16 supported)", nline);
  const int nq = nline * nline * nline;
  double *xq = malloc(sizeof(double) * 3 * nq), *wq = malloc(sizeof(double) * nq);
  int err = xq && wq ? quad_tet(nline, xq, wq)
                     : femint_seterr(NULL, FEMINT_ENOMEM,
                                     "out of memory for the conical rule of %d points", nq);
  if (!err) err = tabulate(order, nq, xq, wq, nline, 2 * nline - 1, re);
  free(xq);
  free(wq);
  return err;
}

int refel_tet_create_degree(int order, int degree, struct refel **re)
{
  *re = NULL;
  FEMINT_CHECK(order >= 1 && order <= TET_MAX_ORDER, NULL, FEMINT_EORDER,
               "H(curl) tetrahedron of order %d requested (1..%d supported)", order, TET_MAX_ORDER);
  int nq, exact;
  const double *xq, *wq;
  FEMINT_CALL(quad_tet_symmetric(degree, &nq, &xq, &wq, &exact));
  return tabulate(order, nq, xq, wq, 0, exact, re);
}

/* The default rule of order p is the symmetric rule of degree 2p + 4: 24, 46 and 79 points for
 * p = 1, 2, 3 (the conical rule of degree 2p + 5 used before had 64, 125 and 216). On straight
 * cells the integrands are polynomials of degree 2p (T) and 2(p - 1) (S), integrated exactly. On
 * curved 10-node cells J is linear in the reference coordinates, so T's integrand is
 * N^T adj(J) eps adj(J)^T N / |det J|, a polynomial of degree 2p + 4 over the cubic det J, and
 * S's one of degree 2p over det J: degree 2p + 4 integrates the numerators exactly, leaving only
 * the variation of 1/det J. With edge nodes moved by 5% of the cell (t107) T_e and S_e are then
 * within 4.5e-6, 5.5e-8 and 2.6e-8 of a 1728-point rule for p = 1, 2, 3, and the cavity
 * eigenvalues of t504 on curved cells agree with those of the 216-point rule to 7 digits. For p =
 * 3 this is the size of rule the H(curl) code of seed 004 used (81 points). */
int refel_tet_create(int order, struct refel **re)
{
  return refel_tet_create_degree(order, 2 * order + 4, re);
}
