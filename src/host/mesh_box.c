/* The box mesh: nx*ny*nz hexahedra, each cut into 2 prisms extruded along z, with boundary tags
 * 1..6 and a reproducible random perturbation of the interior vertices. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"

/* Halvings of the perturbation of the vertices of a tangled cell before it is dropped. */
#define BOX_MAX_TRIES 60

struct box {
  double l[3], h[3];
};

/* Tag of a boundary face: the plane its centroid lies on. */
static int box_tag(int nv, const double *X, void *user)
{
  const struct box *b = user;
  double xc[3] = {0, 0, 0};
  for (int j = 0; j < nv; j++)
    for (int i = 0; i < 3; i++) xc[i] += X[3 * j + i] / nv;
  for (int i = 0; i < 3; i++) {
    if (fabs(xc[i]) < 1e-8 * b->h[i]) return 2 * i + 1;
    if (fabs(xc[i] - b->l[i]) < 1e-8 * b->h[i]) return 2 * i + 2;
  }
  return 0;
}

/* Move the interior vertices of m by s[v] * d[v] from x0 until no Jacobian is non-positive,
 * halving s on the vertices of the tangled cells; a cell still tangled after BOX_MAX_TRIES
 * halvings has its vertices put back, and as a last resort the whole mesh is. */
static int box_perturb(struct femint_mesh *m, const double *x0, const double *d)
{
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
      const int *cv = &m->cells[6 * (size_t)c];
      int any = 0;
      for (int a = 0; a < 6; a++) any |= moved[cv[a]] & 1;
      if (!any) continue;
      double X[18], det, xi[3];
      for (int a = 0; a < 6; a++) memcpy(&X[3 * a], &m->coords[3 * cv[a]], 3 * sizeof(double));
      if (mesh_check_cell(X, &det, xi)) continue;
      nbad++;
      for (int a = 0; a < 6; a++) moved[cv[a]] |= 2;
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

int femint_mesh_create_box(femint_context_t ctx, int nx, int ny, int nz, double lx, double ly,
                           double lz, double perturb, unsigned seed, femint_mesh_t *mesh)
{
  FEMINT_CHECK(mesh, ctx, FEMINT_EINVAL, "femint_mesh_create_box: mesh (output) is NULL");
  *mesh = NULL;
  FEMINT_CHECK(nx >= 1, ctx, FEMINT_EINVAL, "femint_mesh_create_box: nx = %d (must be >= 1)", nx);
  FEMINT_CHECK(ny >= 1, ctx, FEMINT_EINVAL, "femint_mesh_create_box: ny = %d (must be >= 1)", ny);
  FEMINT_CHECK(nz >= 1, ctx, FEMINT_EINVAL, "femint_mesh_create_box: nz = %d (must be >= 1)", nz);
  FEMINT_CHECK(lx > 0 && isfinite(lx), ctx, FEMINT_EINVAL,
               "femint_mesh_create_box: lx = %g (must be > 0)", lx);
  FEMINT_CHECK(ly > 0 && isfinite(ly), ctx, FEMINT_EINVAL,
               "femint_mesh_create_box: ly = %g (must be > 0)", ly);
  FEMINT_CHECK(lz > 0 && isfinite(lz), ctx, FEMINT_EINVAL,
               "femint_mesh_create_box: lz = %g (must be > 0)", lz);
  FEMINT_CHECK(perturb >= 0 && perturb < 0.5, ctx, FEMINT_EINVAL,
               "femint_mesh_create_box: perturb = %g (must be in [0, 0.5))", perturb);
  double nv = (double)(nx + 1.0) * (ny + 1.0) * (nz + 1.0), nc = 2.0 * nx * ny * nz;
  FEMINT_CHECK(nv < INT_MAX && nc <= INT_MAX / (2 * PRISM_NE), ctx, FEMINT_EINVAL,
               "femint_mesh_create_box: %d x %d x %d cells is too many", nx, ny, nz);

  struct box b = {{lx, ly, lz}, {lx / nx, ly / ny, lz / nz}};
  int n[3] = {nx, ny, nz}, nvert = (int)nv, ncell = (int)nc, ierr = 0;
  double *x = malloc(3 * (size_t)nvert * sizeof *x), *d = NULL;
  int *cells = malloc(6 * (size_t)ncell * sizeof *cells);
  if (!x || !cells) {
    ierr = femint_seterr(ctx, FEMINT_ENOMEM, "out of memory creating a box mesh");
    goto done;
  }
  for (int k = 0, v = 0; k <= nz; k++)
    for (int j = 0; j <= ny; j++)
      for (int i = 0; i <= nx; i++, v++) {
        int ijk[3] = {i, j, k};
        /* The last vertex of each direction sits exactly on the far plane. */
        for (int a = 0; a < 3; a++) x[3 * v + a] = ijk[a] == n[a] ? b.l[a] : ijk[a] * b.h[a];
      }
  /* Hexahedron (i, j, k) is cut by the diagonal from (i, j) to (i+1, j+1) into the prisms over
   * the triangles (00, 10, 11) and (00, 11, 01), counter-clockwise seen from above. */
  const int sx = 1, sy = nx + 1, sz = (nx + 1) * (ny + 1);
  for (int k = 0, c = 0; k < nz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < nx; i++) {
        int v00 = i * sx + j * sy + k * sz, v10 = v00 + sx, v01 = v00 + sy, v11 = v00 + sx + sy;
        const int tri[2][3] = {{v00, v10, v11}, {v00, v11, v01}};
        for (int t = 0; t < 2; t++, c++)
          for (int a = 0; a < 3; a++) {
            cells[6 * c + a] = tri[t][a];
            cells[6 * c + 3 + a] = tri[t][a] + sz;
          }
      }
  if ((ierr = femint_mesh_create_prisms(ctx, nvert, x, ncell, cells, mesh))) goto done;
  mesh_tag_boundary(*mesh, box_tag, &b);
  if (perturb > 0) {
    double hmin = fmin(b.h[0], fmin(b.h[1], b.h[2])), r = perturb * hmin;
    uint64_t state = seed;
    d = calloc(3 * (size_t)nvert, sizeof *d);
    if (!d) {
      ierr = femint_seterr(ctx, FEMINT_ENOMEM, "out of memory perturbing a box mesh");
      goto done;
    }
    /* A vector uniform in the ball of radius r for every interior vertex, in vertex order. */
    for (int v = 0; v < nvert; v++) {
      if ((*mesh)->vert_bnd[v]) continue;
      double u[3], q;
      do {
        q = 0;
        for (int a = 0; a < 3; a++) {
          u[a] = mesh_uniform(&state);
          q += u[a] * u[a];
        }
      } while (q > 1);
      for (int a = 0; a < 3; a++) d[3 * v + a] = r * u[a];
    }
    ierr = box_perturb(*mesh, x, d);
  }
done:
  if (ierr) femint_mesh_destroy(mesh);
  free(x);
  free(d);
  free(cells);
  return ierr;
}
