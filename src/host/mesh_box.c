/* The box mesh of any shape: nx*ny*nz blocks, hexahedra themselves or cut into 2 prisms or 6
 * tetrahedra (or the nx*ny quadrilaterals of a rectangle, or 2 triangles each), boundary tags
 * 1..6 (1..4), and a
 * reproducible random perturbation of the interior vertices that keeps every cell valid
 * (hexahedra: det J > 0 over the whole cell, certified). */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"
#include "refel_quad.h"
#include "refel_simplex.h"

/* Halvings of the perturbation of the vertices of a tangled cell before it is dropped. */
#define BOX_MAX_TRIES 60

struct box {
  int dim;
  double l[3], h[3];
};

/* Tag of a boundary face: the plane its centroid lies on. */
static int box_tag(int nv, const double *X, void *user)
{
  const struct box *b = user;
  double xc[3] = {0, 0, 0};
  for (int j = 0; j < nv; j++)
    for (int i = 0; i < 3; i++) xc[i] += X[3 * j + i] / nv;
  for (int i = 0; i < b->dim; i++) {
    if (fabs(xc[i]) < 1e-8 * b->h[i]) return 2 * i + 1;
    if (fabs(xc[i] - b->l[i]) < 1e-8 * b->h[i]) return 2 * i + 2;
  }
  return 0;
}

/* The sign of det J of each simplex before the perturbation: femint orders a simplex's vertices
 * by id, so about half of the cells are negatively oriented, and a move that inverts a cell keeps
 * it valid to geom_tet_check. A perturbed cell must keep its sign. */
static const double centroid[2][3] = {{1.0 / 3, 1.0 / 3, 0}, {0.25, 0.25, 0.25}};
static int simplex_signs(const struct femint_mesh *m, int8_t **sign)
{
  *sign = malloc((size_t)m->ncell);
  FEMINT_CHECK(*sign, m->ctx, FEMINT_ENOMEM, "out of memory perturbing a box mesh");
  const int shape = m->topo->shape;
  for (int c = 0; c < m->ncell; c++) {
    double X[12], J[9];
    mesh_cell_nodes(m, c, X);
    (*sign)[c] =
        geom_map(shape, m->topo->nv, X, centroid[m->topo->dim - 2], NULL, J) < 0 ? -1 : 1;
  }
  return 0;
}

/* Whether cell c is still valid after a move (simplices: with the sign they had). */
static int cell_valid(const struct femint_mesh *m, int c, const int8_t *sign)
{
  double X[3 * MESH_MAX_NODES];
  const int nnode = mesh_cell_nodes(m, c, X);
  switch (m->topo->shape) {
  case FEMINT_PRISM: {
    double det, xi[3];
    return mesh_check_cell(X, &det, xi);
  }
  case FEMINT_QUAD: return geom_quad_check(NULL, nnode, X, NULL) == 0;
  case FEMINT_HEX: {
    /* certified, and not too flat: the smallest det J at least 1e-3 of the one at the centre */
    double det, xi[3], J[9];
    static const double centre[3] = {0, 0, 0};
    const double d0 = fabs(geom_map(FEMINT_HEX, nnode, X, centre, NULL, J));
    return geom_hex_check(nnode, X, &det, xi) == 0 && det > 1e-3 * d0;
  }
  default: {
    const int dim = m->topo->dim;
    double J[9];
    const double det = geom_map(m->topo->shape, nnode, X, centroid[dim - 2], NULL, J);
    double scale = 0;
    for (int a = 1; a <= dim; a++)
      for (int i = 0; i < dim; i++) scale = fmax(scale, fabs(X[dim * a + i] - X[i]));
    return sign[c] * det > 1e-3 * (dim == 3 ? scale * scale * scale : scale * scale);
  }
  }
}

/* 3D: move the interior vertices of m by s[v] * d[v] from x0 until every cell is valid, halving
 * s on the vertices of the tangled cells; a cell still tangled after BOX_MAX_TRIES halvings has
 * its vertices put back, and as a last resort the whole mesh is. */
static int perturb_3d(struct femint_mesh *m, const double *x0, const double *d, const int8_t *sign)
{
  const int nv = m->topo->nv;
  double *s = malloc((size_t)m->nvert * sizeof *s);
  uint8_t *moved = malloc((size_t)m->nvert * sizeof *moved);
  if (!s || !moved) {
    free(s);
    free(moved);
    return femint_seterr(m->ctx, FEMINT_ENOMEM, "out of memory perturbing a box mesh");
  }
  for (int v = 0; v < m->nvert; v++) {
    s[v] = 1;
    moved[v] = 1;
  }
  int nbad = 1;
  for (int t = 0; t <= BOX_MAX_TRIES + 1 && nbad; t++) {
    for (int v = 0; v < m->nvert; v++)
      if (moved[v])
        for (int i = 0; i < 3; i++) m->coords[3 * v + i] = x0[3 * v + i] + s[v] * d[3 * v + i];
    nbad = 0;
    /* Only the cells with a vertex moved since the last pass are checked again. */
    for (int c = 0; c < m->ncell; c++) {
      const int *cv = &m->cells[(size_t)nv * c];
      int any = 0;
      for (int a = 0; a < nv; a++) any |= moved[cv[a]] & 1;
      if (!any || cell_valid(m, c, sign)) continue;
      nbad++;
      for (int a = 0; a < nv; a++) moved[cv[a]] |= 2;
    }
    for (int v = 0; v < m->nvert; v++) {
      if (moved[v] & 2) {
        s[v] = t < BOX_MAX_TRIES ? 0.5 * s[v] : 0;
        moved[v] = 1;
      } else {
        moved[v] = 0;
      }
    }
  }
  if (nbad) memcpy(m->coords, x0, 3 * (size_t)m->nvert * sizeof *x0);
  free(s);
  free(moved);
  return 0;
}

/* 2D: move the interior vertices by s * d, halving s until every cell is valid (s = 0 at last). */
static void perturb_2d(struct femint_mesh *m, const double *x0, const double *d, const int8_t *sign)
{
  double s = 1;
  for (int t = 0; t < 40; t++, s *= 0.5) {
    for (int v = 0; v < m->nvert; v++)
      for (int i = 0; i < 2; i++) m->coords[3 * v + i] = x0[3 * v + i] + s * d[3 * v + i];
    int ok = 1;
    for (int c = 0; c < m->ncell && ok; c++) ok = cell_valid(m, c, sign);
    if (ok) return;
  }
  memcpy(m->coords, x0, 3 * (size_t)m->nvert * sizeof *x0);
}

/* Move every interior vertex by a vector uniform in the ball (disc) of radius r, drawn in
 * vertex order from the seed's sequence, keeping the cells valid. */
static int perturb(struct femint_mesh *m, double r, unsigned seed)
{
  const int dim = m->topo->dim;
  double *x0 = malloc(3 * (size_t)m->nvert * sizeof *x0);
  double *d = calloc(3 * (size_t)m->nvert, sizeof *d);
  int8_t *sign = NULL;
  int ierr = x0 && d ? 0 : femint_seterr(m->ctx, FEMINT_ENOMEM, "out of memory perturbing a box mesh");
  if (!ierr && (m->topo->shape == FEMINT_TET || m->topo->shape == FEMINT_TRI))
    ierr = simplex_signs(m, &sign);
  if (!ierr) {
    memcpy(x0, m->coords, 3 * (size_t)m->nvert * sizeof *x0);
    uint64_t state = seed;
    for (int v = 0; v < m->nvert; v++) {
      if (m->vert_bnd[v]) continue;
      double u[3] = {0, 0, 0}, q;
      do {
        q = 0;
        for (int a = 0; a < dim; a++) {
          u[a] = mesh_uniform(&state);
          q += u[a] * u[a];
        }
      } while (q > 1);
      for (int a = 0; a < dim; a++) d[3 * v + a] = r * u[a];
    }
    if (dim == 2) perturb_2d(m, x0, d, sign);
    else ierr = perturb_3d(m, x0, d, sign);
  }
  free(x0);
  free(d);
  free(sign);
  return ierr;
}

/* The cells of block (i, j, k) with corner vertex v00 (strides sx, sy, sz), appended at *c. */
static void block_cells(int shape, int v00, int sx, int sy, int sz, int *cells, int *c)
{
  if (shape == FEMINT_QUAD || shape == FEMINT_HEX) {
    /* counter-clockwise seen from above, then (hexahedra) the same one block up */
    const int q[8] = {v00, v00 + sx, v00 + sx + sy, v00 + sy,
                      v00 + sz, v00 + sx + sz, v00 + sx + sy + sz, v00 + sy + sz};
    const int nv = shape == FEMINT_HEX ? 8 : 4;
    memcpy(&cells[nv * (*c)++], q, nv * sizeof *q);
  } else if (shape == FEMINT_PRISM || shape == FEMINT_TRI) {
    /* Cut by the diagonal from (i, j) to (i+1, j+1) into the triangles (00, 10, 11) and
     * (00, 11, 01), counter-clockwise seen from above, or the prisms over them. */
    const int v10 = v00 + sx, v01 = v00 + sy, v11 = v00 + sx + sy;
    const int tri[2][3] = {{v00, v10, v11}, {v00, v11, v01}};
    const int nv = shape == FEMINT_TRI ? 3 : 6;
    for (int t = 0; t < 2; t++, (*c)++)
      for (int a = 0; a < 3; a++) {
        cells[nv * *c + a] = tri[t][a];
        if (nv == 6) cells[6 * *c + 3 + a] = tri[t][a] + sz;
      }
  } else {
    /* The 6 tetrahedra of a cube are the monotone paths from corner 000 to 111 along its edges
     * (the same cut in every cube, so the mesh is conforming). */
    static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    const int step[3] = {sx, sy, sz};
    for (int t = 0; t < 6; t++, (*c)++) {
      int v = v00;
      cells[4 * *c] = v;
      for (int s = 0; s < 3; s++) cells[4 * *c + 1 + s] = v += step[perm[t][s]];
    }
  }
}

static int mesh_create_box(femint_context_t ctx, int shape, int nx, int ny, int nz, double lx,
                           double ly, double lz, double perturb_by, unsigned seed,
                           femint_mesh_t *mesh)
{
  femint_trace("femint_mesh_create_box");
  static const char who[] = "femint_mesh_create_box";
  FEMINT_CHECK(mesh, ctx, FEMINT_EINVAL, "%s: mesh (output) is NULL", who);
  *mesh = NULL;
  const struct cell_topo *t = topo_of(shape);
  FEMINT_CHECK(t, ctx, FEMINT_EINVAL, "%s: shape %d is not an element shape (" SHAPE_LIST ")",
               who, shape);
  const int dim = t->dim;
  FEMINT_CHECK(nx >= 1, ctx, FEMINT_EINVAL, "%s: nx = %d (must be >= 1)", who, nx);
  FEMINT_CHECK(ny >= 1, ctx, FEMINT_EINVAL, "%s: ny = %d (must be >= 1)", who, ny);
  FEMINT_CHECK(dim == 3 ? nz >= 1 : nz == 1, ctx, FEMINT_EINVAL, "%s: nz = %d (must be %s)", who,
               nz, dim == 3 ? ">= 1" : "1 for 2D shapes");
  FEMINT_CHECK(lx > 0 && isfinite(lx), ctx, FEMINT_EINVAL, "%s: lx = %g (must be > 0)", who, lx);
  FEMINT_CHECK(ly > 0 && isfinite(ly), ctx, FEMINT_EINVAL, "%s: ly = %g (must be > 0)", who, ly);
  FEMINT_CHECK(dim == 2 || (lz > 0 && isfinite(lz)), ctx, FEMINT_EINVAL,
               "%s: lz = %g (must be > 0)", who, lz);
  FEMINT_CHECK(perturb_by >= 0 && perturb_by < 0.5, ctx, FEMINT_EINVAL,
               "%s: perturb = %g (must be in [0, 0.5))", who, perturb_by);
  const int per = shape == FEMINT_TET                             ? 6 /* cells per block */
                  : shape == FEMINT_PRISM || shape == FEMINT_TRI ? 2
                                                                 : 1;
  const int kz = dim == 3 ? nz : 0;
  const double nv = (nx + 1.0) * (ny + 1.0) * (kz + 1.0), nc = (double)per * nx * ny * nz;
  FEMINT_CHECK(nv < INT_MAX && nc <= INT_MAX / (2 * MESH_MAX_NE), ctx, FEMINT_EINVAL,
               "%s: %d x %d x %d blocks is too many", who, nx, ny, nz);

  struct box b = {dim, {lx, ly, lz}, {lx / nx, ly / ny, dim == 3 ? lz / nz : 1}};
  const int n[3] = {nx, ny, kz}, nvert = (int)nv, ncell = (int)nc;
  double *x = malloc((size_t)dim * nvert * sizeof *x);
  int *cells = malloc((size_t)t->nv * ncell * sizeof *cells), ierr = 0;
  if (!x || !cells) {
    ierr = femint_seterr(ctx, FEMINT_ENOMEM, "out of memory creating a box mesh");
    goto done;
  }
  for (int k = 0, v = 0; k <= kz; k++)
    for (int j = 0; j <= ny; j++)
      for (int i = 0; i <= nx; i++, v++) {
        const int ijk[3] = {i, j, k};
        /* The last vertex of each direction sits exactly on the far plane. */
        for (int a = 0; a < dim; a++) x[dim * v + a] = ijk[a] == n[a] ? b.l[a] : ijk[a] * b.h[a];
      }
  const int sx = 1, sy = nx + 1, sz = (nx + 1) * (ny + 1);
  for (int k = 0, c = 0; k < nz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < nx; i++) block_cells(shape, i * sx + j * sy + k * sz, sx, sy, sz, cells, &c);
  if ((ierr = mesh_create(ctx, who, t, nvert, x, NULL, ncell, cells, NULL, NULL, mesh))) goto done;
  mesh_tag_boundary(*mesh, box_tag, &b);
  if (perturb_by > 0) {
    const double hmin = fmin(b.h[0], dim == 3 ? fmin(b.h[1], b.h[2]) : b.h[1]);
    ierr = perturb(*mesh, perturb_by * hmin, seed);
  }
done:
  if (ierr) femint_mesh_destroy(mesh);
  free(x);
  free(cells);
  return ierr;
}

int femint_mesh_create_box(femint_context_t ctx, int shape, int nx, int ny, int nz, double lx,
                           double ly, double lz, double perturb_by, unsigned seed,
                           femint_mesh_t *mesh)
{
  femint_host_quiet(1);
  const int err = mesh_create_box(ctx, shape, nx, ny, nz, lx, ly, lz, perturb_by, seed, mesh);
  femint_host_quiet(0);
  return err;
}
