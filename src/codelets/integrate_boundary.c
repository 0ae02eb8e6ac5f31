/* integrate_boundary: load vectors on CPU workers. Boundary (Neumann) terms: the integral of
 * traction . v over tagged boundary faces; body forces: the integral of f . v over cells. Each
 * task adds its cells' or faces' contributions to the global vector (STARPU_RW | STARPU_COMMUTE). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codelets.h"
#include "host/mesh.h"
#include "host/refel_quad.h"

/* b += w * sum_c value[c] * phi_i for the cell's modes (phi = values of the nsh functions). */
static void add_mode_values(const struct femint_space *s, int cell, const double *phi, double w,
                            const double *value, double *rhs)
{
  const int ne = s->ncomp;
  const int64_t off = s->cell_off[cell];
  const int nsh = (int)(s->cell_off[cell + 1] - off);
  for (int i = 0; i < nsh; i++) {
    int64_t m = s->cell_mode[off + i];
    if (m < 0) continue;
    double f = w * s->cell_sign[off + i] * phi[i];
    for (int c = 0; c < ne; c++) rhs[m * ne + c] += f * value[c];
  }
}

static void cell_coords(const struct femint_mesh *mesh, int cell, double *X)
{
  for (int a = 0; a < 6; a++)
    memcpy(X + 3 * a, mesh->coords + 3 * (size_t)mesh->cells[6 * cell + a], 3 * sizeof *X);
}

static int body_cell(const struct load_batch *b, int cell, double *phi, double *rhs)
{
  const struct femint_space *s = b->space;
  const struct refel *re;
  FEMINT_CALL(femint_context_refel(b->ctx, FEMINT_PRISM, s->order[cell], &re));
  double X[18], J[9], x[3], value[5];
  cell_coords(s->mesh, cell, X);
  for (int q = 0; q < re->nq; q++) {
    const double *xi = re->xq + 3 * q;
    double det = geom_prism_jacobian(X, xi, J);
    geom_prism_point(X, xi, x);
    memset(value, 0, sizeof value);
    b->body(x, NULL, 0, b->user, value);
    refel_prism_eval(re->order, xi, phi);
    add_mode_values(s, cell, phi, det * re->wq[q], value, rhs);
  }
  return 0;
}

/* One point of a face: reference point xi, tangents of the face's parametrisation (u, v) given
 * by dxi/du and dxi/dv; weight w. Adds w |t_u x t_v| g(x, n) . v. */
static void face_point(const struct load_batch *b, int cell, int tag, const double *X,
                       const double *centroid, const double xi[3], const double du[3],
                       const double dv[3], double w, double *phi, double *rhs)
{
  double J[9], x[3], tu[3], tv[3], n[3], value[5] = {0};
  geom_prism_jacobian(X, xi, J);
  geom_prism_point(X, xi, x);
  for (int i = 0; i < 3; i++) {
    tu[i] = J[3 * i] * du[0] + J[3 * i + 1] * du[1] + J[3 * i + 2] * du[2];
    tv[i] = J[3 * i] * dv[0] + J[3 * i + 1] * dv[1] + J[3 * i + 2] * dv[2];
  }
  n[0] = tu[1] * tv[2] - tu[2] * tv[1];
  n[1] = tu[2] * tv[0] - tu[0] * tv[2];
  n[2] = tu[0] * tv[1] - tu[1] * tv[0];
  double area = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  double out = (x[0] - centroid[0]) * n[0] + (x[1] - centroid[1]) * n[1] + (x[2] - centroid[2]) * n[2];
  for (int i = 0; i < 3; i++) n[i] *= (out < 0 ? -1 : 1) / area;
  b->traction(x, n, tag, b->user, value);
  refel_prism_eval(b->space->order[cell], xi, phi);
  add_mode_values(b->space, cell, phi, w * area, value, rhs);
}

static int boundary_face(const struct load_batch *b, int k, double *phi, double *rhs)
{
  const struct femint_mesh *mesh = b->space->mesh;
  const int cell = mesh->bface[3 * k], face = mesh->bface[3 * k + 1], tag = mesh->bface[3 * k + 2];
  const int p = b->space->order[cell];
  double X[18], centroid[3], xi[3];
  static const double cxi[3] = {1.0 / 3, 1.0 / 3, 0};
  cell_coords(mesh, cell, X);
  geom_prism_point(X, cxi, centroid);
  if (face < 2) { /* triangle: a rule of degree 2p + 2 (at most 14) at xi3 = -1 or 1 */
    int npts;
    const double *xy, *w;
    FEMINT_CALL(quad_triangle(2 * p + 2 < 14 ? 2 * p + 2 : 14, &npts, &xy, &w));
    static const double du[3] = {1, 0, 0}, dv[3] = {0, 1, 0};
    for (int q = 0; q < npts; q++) {
      xi[0] = xy[2 * q];
      xi[1] = xy[2 * q + 1];
      xi[2] = face == 0 ? -1 : 1;
      face_point(b, cell, tag, X, centroid, xi, du, dv, w[q], phi, rhs);
    }
    return 0;
  }
  /* quadrilateral over triangle edge e = face - 2: s in [-1,1] along the edge, xi3 vertical */
  static const double tv[3][2] = {{0, 0}, {1, 0}, {0, 1}};
  const int a = face - 2, c = (a + 1) % 3, ng = p + 2;
  double gx[FEMINT_MAX_ORDER + 2], gw[FEMINT_MAX_ORDER + 2];
  FEMINT_CALL(quad_gauss_legendre(ng, gx, gw));
  const double du[3] = {0.5 * (tv[c][0] - tv[a][0]), 0.5 * (tv[c][1] - tv[a][1]), 0};
  static const double dv[3] = {0, 0, 1};
  for (int i = 0; i < ng; i++)
    for (int j = 0; j < ng; j++) {
      double s = gx[i];
      xi[0] = 0.5 * (1 - s) * tv[a][0] + 0.5 * (1 + s) * tv[c][0];
      xi[1] = 0.5 * (1 - s) * tv[a][1] + 0.5 * (1 + s) * tv[c][1];
      xi[2] = gx[j];
      face_point(b, cell, tag, X, centroid, xi, du, dv, gw[i] * gw[j], phi, rhs);
    }
  return 0;
}

/* ---- quadrilaterals: cells on their (p+1)^2 Gauss points, boundary edges on p+3 points ---- */

static int body_cell_quad(const struct load_batch *b, int cell, double *phi, double *rhs)
{
  const struct femint_space *s = b->space;
  const struct refel *re;
  FEMINT_CALL(femint_context_refel(b->ctx, FEMINT_QUAD, s->order[cell], &re));
  double X[16], J[4], x[3] = {0, 0, 0}, value[5];
  const int nnode = mesh_quad_nodes(s->mesh, cell, X);
  for (int q = 0; q < re->nq; q++) {
    const double *xi = re->xq + 2 * q;
    double det = geom_quad_jacobian(nnode, X, xi, J);
    geom_quad_point(nnode, X, xi, x);
    memset(value, 0, sizeof value);
    b->body(x, NULL, 0, b->user, value);
    refel_quad_eval(re->order, xi, phi);
    add_mode_values(s, cell, phi, det * re->wq[q], value, rhs);
  }
  return 0;
}

/* Edge e of a cell at edge coordinate t: the reference point and d xi / dt (the edges run
 * counter-clockwise, so the outward normal is the tangent turned clockwise). */
static void quad_edge_point(int e, double t, double xi[2], double dxi[2])
{
  static const double dir[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
  const double *v0 = quad_vert_xi[quad_edge_vert[e][0]], *v1 = quad_vert_xi[quad_edge_vert[e][1]];
  for (int i = 0; i < 2; i++) {
    xi[i] = 0.5 * (1 - t) * v0[i] + 0.5 * (1 + t) * v1[i];
    dxi[i] = dir[e][i];
  }
}

static int boundary_edge_quad(const struct load_batch *b, int k, double *phi, double *rhs)
{
  const struct femint_mesh *mesh = b->space->mesh;
  const int cell = mesh->bface[3 * k], edge = mesh->bface[3 * k + 1], tag = mesh->bface[3 * k + 2];
  const int ng = b->space->order[cell] + 3;
  double X[16], gx[FEMINT_MAX_ORDER + 3], gw[FEMINT_MAX_ORDER + 3];
  const int nnode = mesh_quad_nodes(mesh, cell, X);
  FEMINT_CALL(quad_gauss_legendre(ng, gx, gw));
  for (int q = 0; q < ng; q++) {
    double xi[2], dxi[2], J[4], x[3] = {0, 0, 0}, value[5] = {0};
    quad_edge_point(edge, gx[q], xi, dxi);
    geom_quad_jacobian(nnode, X, xi, J);
    geom_quad_point(nnode, X, xi, x);
    const double t[2] = {J[0] * dxi[0] + J[1] * dxi[1], J[2] * dxi[0] + J[3] * dxi[1]};
    const double len = hypot(t[0], t[1]), n[3] = {t[1] / len, -t[0] / len, 0};
    b->traction(x, n, tag, b->user, value);
    refel_quad_eval(b->space->order[cell], xi, phi);
    add_mode_values(b->space, cell, phi, gw[q] * len, value, rhs);
  }
  return 0;
}

static void integrate_load_cpu(void *buffers[], void *arg)
{
  struct load_batch *b = arg;
  double *rhs = (double *)STARPU_VECTOR_GET_PTR(buffers[0]);
  double *phi = malloc((size_t)4 * refel_prism_nsh(FEMINT_MAX_ORDER) * sizeof *phi);
  const int quad = b->space->mesh->topo->shape == FEMINT_QUAD;
  int err = phi ? 0 : FEMINT_ENOMEM;
  for (int k = 0; k < b->ncell && !err; k++)
    err = quad ? body_cell_quad(b, b->cells[k], phi, rhs) : body_cell(b, b->cells[k], phi, rhs);
  for (int k = 0; k < b->nface && !err; k++)
    err = quad ? boundary_edge_quad(b, b->faces[k], phi, rhs)
               : boundary_face(b, b->faces[k], phi, rhs);
  if (err) {
    b->status = err;
    snprintf(b->msg, sizeof b->msg, "load integration: %s", femint_strerror(err));
  }
  free(phi);
}

static struct starpu_perfmodel integrate_load_model = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "femint_integrate_load_v1",
};

struct starpu_codelet femint_cl_integrate_load = {
    .name = "femint_integrate_load",
    .cpu_funcs = {integrate_load_cpu},
    .nbuffers = 1,
    .modes = {STARPU_RW | STARPU_COMMUTE},
    .model = &integrate_load_model,
};
