/* Quadrilateral meshes (2D, seed 003): from arrays, with straight (4-node) or curved (8-node)
 * cells, and two generators: a rectangle with perturbed vertices and an annulus sector whose
 * edge midpoints lie on the exact circles. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"
#include "refel_quad.h"

int mesh_quad_nodes(const struct femint_mesh *m, int c, double *X)
{
  const int *cv = &m->cells[4 * (size_t)c];
  for (int a = 0; a < 4; a++) {
    X[2 * a] = m->coords[3 * (size_t)cv[a]];
    X[2 * a + 1] = m->coords[3 * (size_t)cv[a] + 1];
  }
  if (!m->cell_mid) return 4;
  memcpy(X + 8, &m->cell_mid[8 * (size_t)c], 8 * sizeof *X);
  return 8;
}

double mesh_quad_area(const struct femint_mesh *m)
{
  /* det J of an 8-node map has degree <= 3 in each variable: 2 Gauss points per direction. */
  const double g = 1 / sqrt(3.0);
  double sum = 0, X[16], J[4];
  for (int c = 0; c < m->ncell; c++) {
    const int nnode = mesh_quad_nodes(m, c, X);
    for (int i = 0; i < 4; i++) {
      const double xi[2] = {i & 1 ? g : -g, i & 2 ? g : -g};
      sum += geom_quad_jacobian(nnode, X, xi, J);
    }
  }
  return sum;
}

/* Two cells that share an edge must agree on its midpoint: the geometry is then continuous. */
static int check_midpoints(const struct femint_mesh *m)
{
  if (!m->cell_mid) return 0;
  double *first = malloc(2 * (size_t)m->nedge * sizeof *first);
  int *owner = malloc((size_t)m->nedge * sizeof *owner);
  int err = 0;
  if (!first || !owner) {
    err = femint_seterr(m->ctx, FEMINT_ENOMEM, "out of memory checking the edge midpoints");
    goto done;
  }
  for (int e = 0; e < m->nedge; e++) owner[e] = -1;
  for (int c = 0; c < m->ncell && !err; c++)
    for (int k = 0; k < 4; k++) {
      const int e = m->cell_edge[4 * (size_t)c + k];
      const double *x = &m->cell_mid[8 * (size_t)c + 2 * k];
      if (owner[e] < 0) {
        owner[e] = c;
        memcpy(&first[2 * e], x, 2 * sizeof *x);
        continue;
      }
      const double *a = &m->coords[3 * (size_t)m->edge_vert[2 * e]];
      const double *b = &m->coords[3 * (size_t)m->edge_vert[2 * e + 1]];
      const double len = hypot(a[0] - b[0], a[1] - b[1]);
      if (hypot(x[0] - first[2 * e], x[1] - first[2 * e + 1]) > 1e-12 * len) {
        err = femint_seterr(m->ctx, FEMINT_EMESH,
                            "cells %d and %d give the edge between vertices %d and %d different "
                            "midpoints (%g, %g) and (%g, %g)",
                            owner[e], c, m->edge_vert[2 * e], m->edge_vert[2 * e + 1],
                            first[2 * e], first[2 * e + 1], x[0], x[1]);
        break;
      }
    }
done:
  free(first);
  free(owner);
  return err;
}

/* det J > 0 on every cell, certified (geom_quad_check), the culprit named. */
static int check_cells(const struct femint_mesh *m)
{
  double X[16];
  for (int c = 0; c < m->ncell; c++) {
    const int nnode = mesh_quad_nodes(m, c, X);
    if (geom_quad_check(NULL, nnode, X, NULL))
      return femint_seterr(m->ctx, FEMINT_EJACOBIAN,
                           "cell %d (vertices %d %d %d %d): %s; a quadrilateral lists its "
                           "vertices counter-clockwise",
                           c, m->cells[4 * c], m->cells[4 * c + 1], m->cells[4 * c + 2],
                           m->cells[4 * c + 3], femint_thread_error());
  }
  return 0;
}

int femint_mesh_create_quads(femint_context_t ctx, int nvert, const double *coords, int ncell,
                             const int *cells, const double *mid, femint_mesh_t *mesh)
{
  FEMINT_CHECK(mesh, ctx, FEMINT_EINVAL, "femint_mesh_create_quads: mesh (output) is NULL");
  *mesh = NULL;
  FEMINT_CHECK(nvert >= 4 && nvert < INT_MAX, ctx, FEMINT_EINVAL,
               "femint_mesh_create_quads: nvert = %d (a quadrilateral mesh has 4 vertices or "
               "more)",
               nvert);
  FEMINT_CHECK(ncell >= 1 && ncell <= INT_MAX / 16, ctx, FEMINT_EINVAL,
               "femint_mesh_create_quads: ncell = %d (1 to %d)", ncell, INT_MAX / 16);
  FEMINT_CHECK(coords, ctx, FEMINT_EINVAL, "femint_mesh_create_quads: coords is NULL");
  FEMINT_CHECK(cells, ctx, FEMINT_EINVAL, "femint_mesh_create_quads: cells is NULL");
  FEMINT_CALL(mesh_check_input(ctx, nvert, coords, 2, ncell, 4, cells));
  if (mid)
    for (size_t k = 0; k < 8 * (size_t)ncell; k++)
      FEMINT_CHECK(isfinite(mid[k]), ctx, FEMINT_EMESH,
                   "cell %d: the midpoint of edge %d has a coordinate that is not finite (%g)",
                   (int)(k / 8), (int)(k % 8) / 2, mid[k]);
  struct femint_mesh *m;
  FEMINT_CALL(mesh_alloc(ctx, &topo_quad, nvert, ncell, &m));
  int ierr = 0;
  if (mid && !(m->cell_mid = malloc(8 * (size_t)ncell * sizeof *m->cell_mid))) {
    ierr = femint_seterr(ctx, FEMINT_ENOMEM, "out of memory creating a mesh of %d cells", ncell);
    goto fail;
  }
  for (int v = 0; v < nvert; v++) {
    m->coords[3 * (size_t)v] = coords[2 * (size_t)v];
    m->coords[3 * (size_t)v + 1] = coords[2 * (size_t)v + 1];
    m->coords[3 * (size_t)v + 2] = 0;
    m->vert_gid[v] = v;
  }
  memcpy(m->cells, cells, 4 * (size_t)ncell * sizeof *cells);
  if (mid) memcpy(m->cell_mid, mid, 8 * (size_t)ncell * sizeof *mid);
  if ((ierr = mesh_build_topology(m)) || (ierr = check_midpoints(m)) || (ierr = check_cells(m)))
    goto fail;
  *mesh = m;
  return 0;
fail:
  femint_mesh_destroy(&m);
  return ierr;
}

int femint_mesh_shape(femint_mesh_t mesh)
{
  FEMINT_CHECK(mesh, NULL, FEMINT_EINVAL, "femint_mesh_shape: mesh is NULL");
  return mesh->topo->shape;
}

/* ---- the rectangle ---- */

struct rect {
  double l[2], h[2];
};

static int rect_tag(int nv, const double *X, void *user)
{
  const struct rect *r = user;
  for (int i = 0; i < 2; i++) {
    const double xc = (X[i] + X[3 + i]) / 2;
    if (fabs(xc) < 1e-8 * r->h[i]) return 2 * i + 1;
    if (fabs(xc - r->l[i]) < 1e-8 * r->h[i]) return 2 * i + 2;
  }
  (void)nv;
  return 0;
}

/* Move the interior vertices by s * d, halving s until every cell is valid (s = 0 at last). */
static void rect_perturb(struct femint_mesh *m, const double *x0, const double *d)
{
  double s = 1;
  for (int t = 0; t < 40; t++, s *= 0.5) {
    for (int v = 0; v < m->nvert; v++)
      for (int i = 0; i < 2; i++) m->coords[3 * v + i] = x0[2 * v + i] + s * d[2 * v + i];
    int ok = 1;
    double X[16];
    for (int c = 0; c < m->ncell && ok; c++) {
      mesh_quad_nodes(m, c, X);
      ok = geom_quad_check(NULL, 4, X, NULL) == 0;
    }
    if (ok) return;
  }
  for (int v = 0; v < m->nvert; v++)
    for (int i = 0; i < 2; i++) m->coords[3 * v + i] = x0[2 * v + i];
}

int femint_mesh_create_rectangle(femint_context_t ctx, int nx, int ny, double lx, double ly,
                                 double perturb, unsigned seed, femint_mesh_t *mesh)
{
  FEMINT_CHECK(mesh, ctx, FEMINT_EINVAL, "femint_mesh_create_rectangle: mesh (output) is NULL");
  *mesh = NULL;
  FEMINT_CHECK(nx >= 1 && ny >= 1, ctx, FEMINT_EINVAL,
               "femint_mesh_create_rectangle: %d x %d cells (both must be >= 1)", nx, ny);
  FEMINT_CHECK(lx > 0 && ly > 0 && isfinite(lx) && isfinite(ly), ctx, FEMINT_EINVAL,
               "femint_mesh_create_rectangle: lx = %g, ly = %g (both must be > 0)", lx, ly);
  FEMINT_CHECK(perturb >= 0 && perturb < 0.5, ctx, FEMINT_EINVAL,
               "femint_mesh_create_rectangle: perturb = %g (must be in [0, 0.5))", perturb);
  FEMINT_CHECK((double)(nx + 1.0) * (ny + 1.0) < INT_MAX && (double)nx * ny <= INT_MAX / 16,
               ctx, FEMINT_EINVAL, "femint_mesh_create_rectangle: %d x %d cells is too many", nx,
               ny);
  struct rect r = {{lx, ly}, {lx / nx, ly / ny}};
  const int nvert = (nx + 1) * (ny + 1), ncell = nx * ny;
  double *x = malloc(2 * (size_t)nvert * sizeof *x), *d = NULL;
  int *cells = malloc(4 * (size_t)ncell * sizeof *cells), ierr = 0;
  if (!x || !cells) {
    ierr = femint_seterr(ctx, FEMINT_ENOMEM, "out of memory creating a rectangle mesh");
    goto done;
  }
  for (int j = 0, v = 0; j <= ny; j++)
    for (int i = 0; i <= nx; i++, v++) {
      x[2 * v] = i == nx ? lx : i * r.h[0];
      x[2 * v + 1] = j == ny ? ly : j * r.h[1];
    }
  for (int j = 0, c = 0; j < ny; j++)
    for (int i = 0; i < nx; i++, c++) {
      const int v00 = j * (nx + 1) + i;
      const int q[4] = {v00, v00 + 1, v00 + nx + 2, v00 + nx + 1};
      memcpy(&cells[4 * c], q, sizeof q);
    }
  if ((ierr = femint_mesh_create_quads(ctx, nvert, x, ncell, cells, NULL, mesh))) goto done;
  mesh_tag_boundary(*mesh, rect_tag, &r);
  if (perturb > 0) {
    d = calloc(2 * (size_t)nvert, sizeof *d);
    if (!d) {
      ierr = femint_seterr(ctx, FEMINT_ENOMEM, "out of memory perturbing a rectangle mesh");
      goto done;
    }
    const double rad = perturb * fmin(r.h[0], r.h[1]);
    uint64_t state = seed;
    for (int v = 0; v < nvert; v++) {
      if ((*mesh)->vert_bnd[v]) continue;
      double u[2];
      do {
        u[0] = mesh_uniform(&state);
        u[1] = mesh_uniform(&state);
      } while (u[0] * u[0] + u[1] * u[1] > 1);
      d[2 * v] = rad * u[0];
      d[2 * v + 1] = rad * u[1];
    }
    rect_perturb(*mesh, x, d);
  }
done:
  if (ierr) femint_mesh_destroy(mesh);
  free(x);
  free(d);
  free(cells);
  return ierr;
}

/* ---- the annulus sector ---- */

struct annulus {
  double r0, r1, angle;
};

static int annulus_tag(int nv, const double *X, void *user)
{
  const struct annulus *a = user;
  const double xc = (X[0] + X[3]) / 2, yc = (X[1] + X[4]) / 2;
  const double r = hypot(X[0], X[1]), rb = hypot(X[3], X[4]), tol = 1e-9 * a->r1;
  (void)nv;
  if (fabs(r - rb) < tol) return fabs(r - a->r0) < tol ? 1 : 2;
  if (fabs(yc) < tol && xc > 0) return 3;
  return 4;
}

int femint_mesh_create_annulus(femint_context_t ctx, int nr, int nt, double r0, double r1,
                               double angle, femint_mesh_t *mesh)
{
  FEMINT_CHECK(mesh, ctx, FEMINT_EINVAL, "femint_mesh_create_annulus: mesh (output) is NULL");
  *mesh = NULL;
  FEMINT_CHECK(nr >= 1 && nt >= 1, ctx, FEMINT_EINVAL,
               "femint_mesh_create_annulus: %d x %d cells (both must be >= 1)", nr, nt);
  FEMINT_CHECK(r0 > 0 && r1 > r0 && isfinite(r1), ctx, FEMINT_EINVAL,
               "femint_mesh_create_annulus: radii %g and %g (need 0 < r0 < r1)", r0, r1);
  FEMINT_CHECK(angle > 0 && angle < 2 * M_PI, ctx, FEMINT_EINVAL,
               "femint_mesh_create_annulus: angle %g (must be in (0, 2 pi))", angle);
  FEMINT_CHECK((double)(nr + 1.0) * (nt + 1.0) < INT_MAX && (double)nr * nt <= INT_MAX / 16,
               ctx, FEMINT_EINVAL, "femint_mesh_create_annulus: %d x %d cells is too many", nr,
               nt);
  const int nvert = (nr + 1) * (nt + 1), ncell = nr * nt;
  double *x = malloc(2 * (size_t)nvert * sizeof *x);
  double *mid = malloc(8 * (size_t)ncell * sizeof *mid);
  int *cells = malloc(4 * (size_t)ncell * sizeof *cells), ierr = 0;
  if (!x || !mid || !cells) {
    ierr = femint_seterr(ctx, FEMINT_ENOMEM, "out of memory creating an annulus mesh");
    goto done;
  }
  /* Vertex (i, j) at radius r_i and angle t_j; cell (i, j) runs outward in r and
   * counter-clockwise in t, so (r, t) -> (x, y) keeps the orientation. */
  for (int j = 0, v = 0; j <= nt; j++)
    for (int i = 0; i <= nr; i++, v++) {
      const double r = r0 + (r1 - r0) * i / nr, t = angle * j / nt;
      x[2 * v] = r * cos(t);
      x[2 * v + 1] = r * sin(t);
    }
  for (int j = 0, c = 0; j < nt; j++)
    for (int i = 0; i < nr; i++, c++) {
      const int v00 = j * (nr + 1) + i;
      const int q[4] = {v00, v00 + 1, v00 + nr + 2, v00 + nr + 1};
      memcpy(&cells[4 * c], q, sizeof q);
      /* Edge midpoints: radial edges straight, circumferential ones on the circle. */
      const double ra = r0 + (r1 - r0) * i / nr, rb = r0 + (r1 - r0) * (i + 1) / nr;
      const double ta = angle * j / nt, tb = angle * (j + 1) / nt;
      const double rm = (ra + rb) / 2, tm = (ta + tb) / 2;
      const double m[8] = {rm * cos(ta), rm * sin(ta), rb * cos(tm), rb * sin(tm),
                           rm * cos(tb), rm * sin(tb), ra * cos(tm), ra * sin(tm)};
      memcpy(&mid[8 * (size_t)c], m, sizeof m);
    }
  struct annulus a = {r0, r1, angle};
  if ((ierr = femint_mesh_create_quads(ctx, nvert, x, ncell, cells, mid, mesh))) goto done;
  mesh_tag_boundary(*mesh, annulus_tag, &a);
done:
  free(x);
  free(mid);
  free(cells);
  return ierr;
}
