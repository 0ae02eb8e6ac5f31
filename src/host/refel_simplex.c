/* The H1 Lagrange triangle and tetrahedron (refel_simplex.h): the nodes of an order by
 * barycentric multi-index, their metadata, and the tabulation of the functions and their
 * reference derivatives on a symmetric rule. */
#include <stdlib.h>

#include "refel_simplex.h"

const double tri_vert_xi[TRI_NV][2] = {{0, 0}, {1, 0}, {0, 1}};
const int tri_edge_vert[TRI_NE][2] = {{0, 1}, {0, 2}, {1, 2}};

#define PMAX LAGRANGE_MAX_ORDER
#define NSH_MAX ((PMAX + 1) * (PMAX + 2) * (PMAX + 3) / 6)

static int simplex_dim(int shape) { return shape == FEMINT_TRI ? 2 : shape == FEMINT_TET ? 3 : 0; }

int refel_lagrange_nsh(int shape, int order)
{
  const int dim = simplex_dim(shape);
  FEMINT_CHECK(dim, NULL, FEMINT_EINVAL, "shape %d is not a simplex", shape);
  FEMINT_CHECK(order >= 1 && order <= PMAX, NULL, FEMINT_EORDER,
               "Lagrange %s of order %d requested (1..%d supported)",
               dim == 2 ? "triangle" : "tetrahedron", order, PMAX);
  return dim == 2 ? (order + 1) * (order + 2) / 2 : (order + 1) * (order + 2) * (order + 3) / 6;
}

int refel_lagrange_entity_nmodes(int shape, int kind, int q)
{
  if (q < 1) return 0;
  switch (kind) {
  case MODE_VERTEX: return 1;
  case MODE_EDGE: return q - 1;
  case MODE_FACE: return (q - 1) * (q - 2) / 2;
  case MODE_INTERIOR:
    return shape == FEMINT_TRI ? (q - 1) * (q - 2) / 2 : (q - 1) * (q - 2) * (q - 3) / 6;
  default: return 0;
  }
}

/* Collects the nodes of an order: multi-index a[n][4] (a[n][k] for barycentric k) and metadata. */
struct layout {
  int n, p;
  int (*a)[4];
  struct refel_mode *mode;
};

static void add(struct layout *L, const int *a, int kind, int entity, int rank)
{
  for (int k = 0; k < 4; k++) L->a[L->n][k] = a[k];
  if (L->mode)
    L->mode[L->n] = (struct refel_mode){.kind = (int8_t)kind,
                                        .entity = (int8_t)entity,
                                        .degree = (int8_t)L->p,
                                        .rank = (int16_t)rank};
  L->n++;
}

static void lagrange_layout(int dim, int p, int (*a)[4], struct refel_mode *mode)
{
  struct layout L = {0, p, a, mode};
  const int nv = dim + 1, ne = dim == 2 ? TRI_NE : TET_NE;
  for (int v = 0; v < nv; v++) {
    int m[4] = {0};
    m[v] = p;
    add(&L, m, MODE_VERTEX, v, 0);
  }
  for (int e = 0; e < ne; e++) {
    const int *ev = dim == 2 ? tri_edge_vert[e] : tet_edge_vert[e];
    for (int k = 1; k < p; k++) {
      int m[4] = {0};
      m[ev[0]] = p - k;
      m[ev[1]] = k;
      add(&L, m, MODE_EDGE, e, k - 1);
    }
  }
  for (int f = 0; f < (dim == 3 ? TET_NF : 0); f++) {
    const int *fv = tet_face_vert[f];
    int r = 0;
    for (int j = 1; j <= p - 2; j++)
      for (int i = 1; i <= p - 1 - j; i++) {
        int m[4] = {0};
        m[fv[0]] = p - i - j;
        m[fv[1]] = i;
        m[fv[2]] = j;
        add(&L, m, MODE_FACE, f, r++);
      }
  }
  int r = 0;
  if (dim == 2) {
    for (int j = 1; j <= p - 2; j++)
      for (int i = 1; i <= p - 1 - j; i++) {
        const int m[4] = {p - i - j, i, j, 0};
        add(&L, m, MODE_INTERIOR, 0, r++);
      }
  } else {
    for (int k = 1; k <= p - 3; k++)
      for (int j = 1; j <= p - 2 - k; j++)
        for (int i = 1; i <= p - 1 - j - k; i++) {
          const int m[4] = {p - i - j - k, i, j, k};
          add(&L, m, MODE_INTERIOR, 0, r++);
        }
  }
}

/* The functions at xi from the node layout: val[dim+1][nsh]. With f_k(m) = prod_{j < m}
 * (p l_k - j) / (j + 1), the function of node a is prod_k f_k(a_k); its derivative along xi_d
 * is d/dl_(d+1) - d/dl_0, since l_0 = 1 - sum xi and l_(d+1) = xi_d. */
static void eval_layout(int dim, int p, int nsh, int (*a)[4], const double *xi, double *val)
{
  double l[4] = {1, 0, 0, 0}, f[4][PMAX + 1], df[4][PMAX + 1];
  for (int d = 0; d < dim; d++) {
    l[d + 1] = xi[d];
    l[0] -= xi[d];
  }
  for (int k = 0; k <= dim; k++) {
    f[k][0] = 1;
    df[k][0] = 0;
    for (int m = 1; m <= p; m++) {
      const double t = p * l[k] - (m - 1);
      f[k][m] = f[k][m - 1] * t / m;
      df[k][m] = (df[k][m - 1] * t + f[k][m - 1] * p) / m;
    }
  }
  for (int n = 0; n < nsh; n++) {
    double v = 1, dl[4];
    for (int k = 0; k <= dim; k++) {
      v *= f[k][a[n][k]];
      dl[k] = df[k][a[n][k]];
      for (int m = 0; m <= dim; m++)
        if (m != k) dl[k] *= f[m][a[n][m]];
    }
    val[n] = v;
    for (int d = 0; d < dim; d++) val[(d + 1) * nsh + n] = dl[d + 1] - dl[0];
  }
}

void refel_lagrange_eval(int shape, int order, const double *xi, double *val)
{
  const int dim = simplex_dim(shape);
  if (!dim || order < 1 || order > PMAX) return;
  int a[NSH_MAX][4];
  lagrange_layout(dim, order, a, NULL);
  eval_layout(dim, order, refel_lagrange_nsh(shape, order), a, xi, val);
}

int refel_lagrange_nodes(int shape, int order, double *xi)
{
  const int nsh = refel_lagrange_nsh(shape, order), dim = simplex_dim(shape);
  if (nsh < 0) return nsh;
  int a[NSH_MAX][4];
  lagrange_layout(dim, order, a, NULL);
  for (int n = 0; n < nsh; n++)
    for (int d = 0; d < dim; d++) xi[n * dim + d] = (double)a[n][d + 1] / order;
  return 0;
}

int refel_lagrange_create_degree(int shape, int order, int degree, struct refel **re)
{
  *re = NULL;
  const int nsh = refel_lagrange_nsh(shape, order), dim = simplex_dim(shape);
  if (nsh < 0) return nsh;
  int nq, exact = degree;
  const double *xq, *wq;
  if (dim == 2) {
    FEMINT_CALL(quad_triangle(degree < 2 ? 2 : degree, &nq, &xq, &wq));
    exact = degree < 2 ? 2 : degree + (degree & 1);
  } else {
    FEMINT_CALL(quad_tet_symmetric(degree, &nq, &xq, &wq, &exact));
  }
  struct refel *r = calloc(1, sizeof *r);
  if (!r) goto nomem;
  *r = (struct refel){.shape = shape, .family = FEMINT_H1, .order = order, .dim = dim,
                      .nsh = nsh, .nq = nq, .degree = exact};
  const size_t nphi = (size_t)nq * (dim + 1) * nsh;
  r->xq = malloc(sizeof(double) * dim * nq);
  r->wq = malloc(sizeof(double) * nq);
  r->phi = malloc(sizeof(double) * nphi);
  r->phi_f = malloc(sizeof(float) * nphi);
  r->mode = malloc(sizeof(struct refel_mode) * nsh);
  if (!r->xq || !r->wq || !r->phi || !r->phi_f || !r->mode) goto nomem;
  int a[NSH_MAX][4];
  lagrange_layout(dim, order, a, r->mode);
  for (int q = 0; q < nq; q++) {
    for (int d = 0; d < dim; d++) r->xq[dim * q + d] = xq[dim * q + d];
    r->wq[q] = wq[q];
    eval_layout(dim, order, nsh, a, &xq[dim * q], r->phi + (size_t)q * (dim + 1) * nsh);
  }
  for (size_t k = 0; k < nphi; k++) r->phi_f[k] = (float)r->phi[k];
  *re = r;
  return 0;
nomem:
  refel_destroy(&r);
  return femint_seterr(NULL, FEMINT_ENOMEM, "out of memory tabulating the Lagrange %s of order %d",
                       dim == 2 ? "triangle" : "tetrahedron", order);
}

int refel_lagrange_create(int shape, int order, struct refel **re)
{
  return refel_lagrange_create_degree(shape, order, 2 * order, re);
}
