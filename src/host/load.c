/* Load vectors of cells and boundary faces for every shape and family: the cell's own rule for
 * body forces, and for a face a rule on the reference face (a triangle or a square, or a segment
 * in 2D) mapped into the reference cell, with the face's tangents for its area and normal. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "mesh.h"
#include "refel_hex.h"
#include "refel_quad.h"
#include "refel_simplex.h"

/* ev += w * (value . v_i) for the cell's functions, the values of its shape functions at the
 * point in val (H1: val[0..nsh) the values, from refel_eval or the tabulation; H(curl): the
 * reference vectors val[3][nsh], mapped by K = J^-1 here). ev: component by component, the
 * functions in the cell's order, signs not applied (load_add applies them). */
static void add_point(const struct femint_space *s, int c, const double *val, int stride,
                      const double *K, double w, const double *value, double *ev)
{
  const int ne = s->ncomp;
  const int nsh = (int)(s->cell_off[c + 1] - s->cell_off[c]);
  for (int i = 0; i < nsh; i++) {
    if (s->family == FEMINT_HCURL) {
      /* (K^T N_ref) . value */
      double d = 0;
      for (int a = 0; a < 3; a++)
        d += (K[3 * a] * value[0] + K[3 * a + 1] * value[1] + K[3 * a + 2] * value[2]) *
             val[a * stride + i];
      ev[i] += w * d;
    } else {
      for (int comp = 0; comp < ne; comp++) ev[(size_t)comp * nsh + i] += w * val[i] * value[comp];
    }
  }
}

void load_add(const struct femint_space *s, int c, const double *ev, double *rhs)
{
  const int ne = s->ncomp;
  const int64_t off = s->cell_off[c];
  const int nsh = (int)(s->cell_off[c + 1] - off);
  for (int i = 0; i < nsh; i++) {
    const int64_t g = s->cell_mode[off + i];
    if (g < 0) continue;
    for (int comp = 0; comp < ne; comp++)
      rhs[g * ne + comp] += s->cell_sign[off + i] * ev[(size_t)comp * nsh + i];
  }
}

size_t load_size(const struct femint_space *s, int c)
{
  return (size_t)s->ncomp * (size_t)(s->cell_off[c + 1] - s->cell_off[c]);
}

/* The H1 integrand at point q of re's rule in a cell of nnode nodes X: a[comp] = w |det J|
 * f(x)[comp]; a trilinear hexahedron's map through its monomials' coefficients geo (hex_geo)
 * where given. */
static void integrand(const struct femint_space *s, const struct refel *re, int nnode,
                      const double *X, const double *geo, int q, femint_field_fn f, void *user,
                      double *a)
{
  const int dim = s->mesh->topo->dim;
  double x[3] = {0, 0, 0}, J[9], value[5] = {0, 0, 0, 0, 0};
  const double *xi = &re->xq[dim * q];
  const double det = geo ? hex_geo_map(geo, xi, x, J) : geom_map(re->shape, nnode, X, xi, x, J);
  const double w = fabs(det) * re->wq[q];
  f(x, NULL, 0, user, value);
  for (int comp = 0; comp < s->ncomp; comp++) a[comp] = w * value[comp];
}

/* The vectors of n <= LOAD_BLOCK H1 cells of re's order and functions into ev, one after the
 * other: each point's values along the functions read once for them all (at high order they are
 * megabytes a cell, read from memory), each cell's sums in the points' order. */
static void load_h1_block(const struct femint_space *s, const struct refel *re, const int *cells,
                          int n, femint_field_fn f, void *user, double *ev)
{
  const int ne = s->ncomp, nsh = re->nsh, dim = s->mesh->topo->dim;
  double X[LOAD_BLOCK][3 * MESH_MAX_NODES];
  int nnode[LOAD_BLOCK];
  for (int b = 0; b < n; b++) nnode[b] = mesh_cell_nodes(s->mesh, cells[b], X[b]);
  memset(ev, 0, (size_t)n * ne * nsh * sizeof *ev);
  for (int q = 0; q < re->nq; q++) {
    double a[LOAD_BLOCK][5];
    for (int b = 0; b < n; b++) integrand(s, re, nnode[b], X[b], NULL, q, f, user, a[b]);
    const double *phi = re->phi + (size_t)q * (dim + 1) * nsh;
    for (int b = 0; b < n; b++)
      for (int comp = 0; comp < ne; comp++) {
        const double c = a[b][comp];
        double *lc = ev + ((size_t)b * ne + comp) * nsh;
#pragma omp simd
        for (int i = 0; i < nsh; i++) lc[i] += c * phi[i];
      }
  }
}

int load_cell(const struct femint_space *s, const struct refel *re, int c, femint_field_fn f,
              void *user, double *ev)
{
  const struct femint_mesh *m = s->mesh;
  const int shape = m->topo->shape, dim = m->topo->dim, hcurl = s->family == FEMINT_HCURL;
  FEMINT_CHECK(re->shape == shape && re->order == s->order[c], NULL, FEMINT_EINVAL,
               "load: cell %d of order %d was given the element of order %d", c, s->order[c],
               re->order);
  if (!hcurl && load_size(s, c) == (size_t)s->ncomp * re->nsh) {
    load_h1_block(s, re, &c, 1, f, user, ev);
    return 0;
  }
  double X[3 * MESH_MAX_NODES], J[9], K[9];
  const int nnode = mesh_cell_nodes(m, c, X);
  memset(ev, 0, load_size(s, c) * sizeof *ev);
  for (int q = 0; q < re->nq; q++) {
    double x[3] = {0, 0, 0}, value[5] = {0, 0, 0, 0, 0};
    const double det = geom_map(shape, nnode, X, &re->xq[dim * q], x, J);
    if (hcurl) geom_inverse3(J, K);
    f(x, NULL, 0, user, value);
    const double *val = hcurl ? re->val + (size_t)q * 3 * re->nsh
                              : re->phi + (size_t)q * (dim + 1) * re->nsh;
    add_point(s, c, val, re->nsh, K, fabs(det) * re->wq[q], value, ev);
  }
  return 0;
}

/* Hexahedron c's vector (H1, re's order and rule) by sum factorization: the integrand at the
 * rule's points, then the transposed 1D interpolation t->B along each direction (t: the same
 * rule), Q^3 P + Q^2 P^2 + Q P^3 products a component instead of Q^3 P^3; work: load_hex_work
 * doubles. */
static size_t load_hex_work(const struct hex_tensor *t, int ne)
{
  const size_t P = (size_t)t->P, Q = (size_t)t->Q;
  return (size_t)ne * Q * Q * Q + Q * Q * P + Q * P * P;
}

static void load_hex(const struct femint_space *s, const struct refel *re,
                     const struct hex_tensor *t, int c, femint_field_fn f, void *user, double *ev,
                     double *work)
{
  const int ne = s->ncomp, P = t->P, Q = t->Q, nq = Q * Q * Q, nsh = re->nsh;
  double X[3 * MESH_MAX_NODES];
  const int nnode = mesh_cell_nodes(s->mesh, c, X);
  double *F = work, *T1 = F + (size_t)ne * nq, *T2 = T1 + (size_t)Q * Q * P;
  /* a trilinear cell's map in a few products a point (hex_geo; the coefficients unused) */
  const double one = 1;
  double geo[HEX_GEO_SIZE];
  if (nnode == HEX_NV) hex_geo(X, &one, 1, geo);
  for (int q = 0; q < nq; q++) {
    double a[5];
    integrand(s, re, nnode, X, nnode == HEX_NV ? geo : NULL, q, f, user, a);
    for (int comp = 0; comp < ne; comp++) F[(size_t)comp * nq + q] = a[comp];
  }
  const double *B = t->B; /* B[i P + a] = l_a(x_i) */
  for (int comp = 0; comp < ne; comp++) {
    const double *Fc = F + (size_t)comp * nq;
    for (int ij = 0; ij < Q * Q; ij++) /* the third direction: k to c */
      for (int cc = 0; cc < P; cc++) {
        double sum = 0;
        for (int k = 0; k < Q; k++) sum += B[k * P + cc] * Fc[ij * Q + k];
        T1[ij * P + cc] = sum;
      }
    for (int i = 0; i < Q; i++) /* the second: j to b */
      for (int b = 0; b < P; b++)
        for (int cc = 0; cc < P; cc++) {
          double sum = 0;
          for (int j = 0; j < Q; j++) sum += B[j * P + b] * T1[(i * Q + j) * P + cc];
          T2[(i * P + b) * P + cc] = sum;
        }
    for (int a = 0; a < P; a++) /* the first: i to a, into the element's order */
      for (int bc = 0; bc < P * P; bc++) {
        double sum = 0;
        for (int i = 0; i < Q; i++) sum += B[i * P + a] * T2[i * P * P + bc];
        ev[(size_t)comp * nsh + t->t2f[a * P * P + bc]] = sum;
      }
  }
}

int load_cells(const struct femint_space *s, const struct refel *const *re_of,
               const struct hex_tensor *const *ht_of, const int *cells, int n, femint_field_fn f,
               void *user, double *ev)
{
  const struct refel *re = n > 0 ? re_of[s->order[cells[0]]] : NULL;
  const int ne = s->ncomp;
  int together = n > 0 && n <= LOAD_BLOCK && s->family != FEMINT_HCURL &&
                 re->shape == s->mesh->topo->shape;
  for (int b = 0; b < n && together; b++)
    together = s->order[cells[b]] == re->order && load_size(s, cells[b]) == (size_t)ne * re->nsh;
  if (!together) { /* one cell after the other */
    for (int b = 0; b < n; b++) {
      FEMINT_CALL(load_cell(s, re_of[s->order[cells[b]]], cells[b], f, user, ev));
      ev += load_size(s, cells[b]);
    }
    return 0;
  }
  const struct hex_tensor *t = ht_of ? ht_of[re->order] : NULL;
  if (!t) {
    load_h1_block(s, re, cells, n, f, user, ev);
    return 0;
  }
  double *work = malloc(load_hex_work(t, ne) * sizeof *work); /* hexahedra */
  FEMINT_CHECK(work, NULL, FEMINT_ENOMEM, "out of memory");
  for (int b = 0; b < n; b++)
    load_hex(s, re, t, cells[b], f, user, ev + (size_t)b * ne * re->nsh, work);
  free(work);
  return 0;
}

int load_hex_tables(const struct refel *re, struct hex_tensor **t)
{
  *t = NULL;
  if (re->shape != FEMINT_HEX || re->family != FEMINT_H1 || re->nline < 1 ||
      re->nline > HEX_TENSOR_MAX_Q)
    return 0;
  const int lobatto = re->degree == 2 * re->nline - 3 && re->nline >= 2;
  return hex_tensor_create(re->order, re->nline, lobatto, t);
}

/* A rule on local face f of a shape: reference points xi[n][dim] on the face, weights w[n], and
 * the face's tangents du, dv (dxi per unit of the face's own coordinates; dv unused in 2D). */
struct face_rule {
  int n;
  double xi[3 * 200], w[200], du[3], dv[3];
};

static int face_rule(int shape, int f, int p, struct face_rule *r)
{
  const int degree = 2 * p + 2 < 14 ? 2 * p + 2 : 14;
  int ntri;
  const double *xy, *tw;
  double gx[FEMINT_MAX_ORDER + 3], gw[FEMINT_MAX_ORDER + 3];
  memset(r->du, 0, sizeof r->du);
  memset(r->dv, 0, sizeof r->dv);
  r->n = 0;
  if (shape == FEMINT_QUAD || shape == FEMINT_TRI) {
    /* edge f from vertex a to b; load_face turns the normal outwards */
    const int ng = p + 3, quad = shape == FEMINT_QUAD;
    const double *v0 = quad ? quad_vert_xi[quad_edge_vert[f][0]] : tri_vert_xi[tri_edge_vert[f][0]];
    const double *v1 = quad ? quad_vert_xi[quad_edge_vert[f][1]] : tri_vert_xi[tri_edge_vert[f][1]];
    FEMINT_CALL(quad_gauss_legendre(ng, gx, gw));
    for (int q = 0; q < ng; q++, r->n++) {
      for (int i = 0; i < 2; i++) r->xi[2 * q + i] = 0.5 * (1 - gx[q]) * v0[i] + 0.5 * (1 + gx[q]) * v1[i];
      r->w[q] = gw[q];
    }
    for (int i = 0; i < 2; i++) r->du[i] = 0.5 * (v1[i] - v0[i]);
    return 0;
  }
  if (shape == FEMINT_HEX) {
    /* face f of the cube, xi = centre + u (v1 - v0) / 2 + v (v3 - v0) / 2 for u, v in [-1,1];
     * its cycle of vertices turns the normal du x dv outwards */
    const double *v0 = hex_vert_xi[hex_face_vert[f][0]], *v1 = hex_vert_xi[hex_face_vert[f][1]],
                 *v2 = hex_vert_xi[hex_face_vert[f][2]], *v3 = hex_vert_xi[hex_face_vert[f][3]];
    const int ng = p + 2;
    FEMINT_CALL(quad_gauss_legendre(ng, gx, gw));
    for (int i = 0; i < 3; i++) {
      r->du[i] = 0.5 * (v1[i] - v0[i]);
      r->dv[i] = 0.5 * (v3[i] - v0[i]);
    }
    for (int a = 0; a < ng; a++)
      for (int b = 0; b < ng; b++, r->n++) {
        for (int i = 0; i < 3; i++)
          r->xi[3 * r->n + i] = 0.5 * (v0[i] + v2[i]) + gx[a] * r->du[i] + gx[b] * r->dv[i];
        r->w[r->n] = gw[a] * gw[b];
      }
    return 0;
  }
  if (shape == FEMINT_TET || f < 2) {
    /* a triangle: the prism's bottom or top, or the tetrahedron's face f (opposite vertex f) as
     * xi = A + u (B - A) + v (C - A) */
    static const double prism_tri[2][3][3] = {{{0, 0, -1}, {1, 0, -1}, {0, 1, -1}},
                                              {{0, 0, 1}, {1, 0, 1}, {0, 1, 1}}};
    double A[3], B[3], C[3];
    for (int i = 0; i < 3; i++) {
      A[i] = shape == FEMINT_TET ? tet_vert_xi[tet_face_vert[f][0]][i] : prism_tri[f][0][i];
      B[i] = shape == FEMINT_TET ? tet_vert_xi[tet_face_vert[f][1]][i] : prism_tri[f][1][i];
      C[i] = shape == FEMINT_TET ? tet_vert_xi[tet_face_vert[f][2]][i] : prism_tri[f][2][i];
      r->du[i] = B[i] - A[i];
      r->dv[i] = C[i] - A[i];
    }
    FEMINT_CALL(quad_triangle(degree, &ntri, &xy, &tw));
    for (int q = 0; q < ntri; q++, r->n++) {
      for (int i = 0; i < 3; i++) r->xi[3 * q + i] = A[i] + xy[2 * q] * r->du[i] + xy[2 * q + 1] * r->dv[i];
      r->w[q] = tw[q];
    }
    return 0;
  }
  /* the prism's quadrilateral over triangle edge e = f - 2: s in [-1,1] along the edge, xi3 */
  static const double tv[3][2] = {{0, 0}, {1, 0}, {0, 1}};
  const int a = f - 2, c = (a + 1) % 3, ng = p + 2;
  FEMINT_CALL(quad_gauss_legendre(ng, gx, gw));
  r->du[0] = 0.5 * (tv[c][0] - tv[a][0]);
  r->du[1] = 0.5 * (tv[c][1] - tv[a][1]);
  r->dv[2] = 1;
  for (int i = 0; i < ng; i++)
    for (int j = 0; j < ng; j++, r->n++) {
      double *xi = &r->xi[3 * r->n];
      xi[0] = 0.5 * (1 - gx[i]) * tv[a][0] + 0.5 * (1 + gx[i]) * tv[c][0];
      xi[1] = 0.5 * (1 - gx[i]) * tv[a][1] + 0.5 * (1 + gx[i]) * tv[c][1];
      xi[2] = gx[j];
      r->w[r->n] = gw[i] * gw[j];
    }
  return 0;
}

int load_face(const struct femint_space *s, int k, femint_field_fn g, void *user, double *work,
              double *ev)
{
  const struct femint_mesh *m = s->mesh;
  const int shape = m->topo->shape, dim = m->topo->dim, hcurl = s->family == FEMINT_HCURL;
  const int c = m->bface[3 * k], f = m->bface[3 * k + 1], tag = m->bface[3 * k + 2];
  struct face_rule r;
  FEMINT_CALL(face_rule(shape, f, s->order[c], &r));
  double X[3 * MESH_MAX_NODES], J[9], K[9], centroid[3] = {0, 0, 0};
  const int nnode = mesh_cell_nodes(m, c, X);
  /* the cell's centre of vertices, to turn the normals outward */
  for (int a = 0; a < m->topo->nv; a++)
    for (int i = 0; i < dim; i++) centroid[i] += X[dim * a + i] / m->topo->nv;
  const int nsh = (int)(s->cell_off[c + 1] - s->cell_off[c]);
  memset(ev, 0, load_size(s, c) * sizeof *ev);
  for (int q = 0; q < r.n; q++) {
    const double *xi = &r.xi[dim * q];
    double x[3] = {0, 0, 0}, n[3] = {0, 0, 0}, value[5] = {0, 0, 0, 0, 0}, area;
    geom_map(shape, nnode, X, xi, x, J);
    if (dim == 2) {
      const double t[2] = {J[0] * r.du[0] + J[1] * r.du[1], J[2] * r.du[0] + J[3] * r.du[1]};
      area = hypot(t[0], t[1]);
      /* a quadrilateral is counter-clockwise: outward = the tangent turned clockwise; a
       * triangle's vertices are in ascending ids, so its normal is turned towards the outside */
      const double out = (x[0] - centroid[0]) * t[1] - (x[1] - centroid[1]) * t[0];
      const double sign = shape == FEMINT_TRI && out < 0 ? -1 : 1;
      n[0] = sign * t[1] / area;
      n[1] = -sign * t[0] / area;
    } else {
      double tu[3], tv[3];
      for (int i = 0; i < 3; i++) {
        tu[i] = J[3 * i] * r.du[0] + J[3 * i + 1] * r.du[1] + J[3 * i + 2] * r.du[2];
        tv[i] = J[3 * i] * r.dv[0] + J[3 * i + 1] * r.dv[1] + J[3 * i + 2] * r.dv[2];
      }
      n[0] = tu[1] * tv[2] - tu[2] * tv[1];
      n[1] = tu[2] * tv[0] - tu[0] * tv[2];
      n[2] = tu[0] * tv[1] - tu[1] * tv[0];
      area = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      const double out = (x[0] - centroid[0]) * n[0] + (x[1] - centroid[1]) * n[1] +
                         (x[2] - centroid[2]) * n[2];
      for (int i = 0; i < 3; i++) n[i] *= (out < 0 ? -1 : 1) / area;
    }
    g(x, n, tag, user, value);
    refel_eval(shape, s->family, s->order[c], xi, work);
    if (hcurl) geom_inverse3(J, K);
    add_point(s, c, work, nsh, K, r.w[q] * area, value, ev);
  }
  return 0;
}
