/* Test: box meshes of prisms and tetrahedra are right (counts, volume, boundary, tags, seeds,
 * perturbation); bad meshes are refused. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "femint.h"
#include "host/host.h"
#include "tap.h"

/* det J of a prism with straight edges and bilinear quadrilateral faces at reference point xi,
 * computed here independently of the library. */
static double prism_det(const double *X, const double *xi)
{
  const double l[3] = {1 - xi[0] - xi[1], xi[0], xi[1]}, dl[3][2] = {{-1, -1}, {1, 0}, {0, 1}};
  const double z[2] = {0.5 * (1 - xi[2]), 0.5 * (1 + xi[2])}, dz[2] = {-0.5, 0.5};
  double J[3][3] = {{0}};
  for (int a = 0; a < 6; a++) {
    int v = a % 3, h = a / 3;
    double dN[3] = {dl[v][0] * z[h], dl[v][1] * z[h], l[v] * dz[h]};
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) J[i][j] += X[3 * a + i] * dN[j];
  }
  return J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
         J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
         J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
}

/* det J of a straight tetrahedron X[4][3]: (x1 - x0) . ((x2 - x0) x (x3 - x0)). */
static double tet_det(const double *X)
{
  double a[3], b[3], c[3];
  for (int i = 0; i < 3; i++) {
    a[i] = X[3 + i] - X[i];
    b[i] = X[6 + i] - X[i];
    c[i] = X[9 + i] - X[i];
  }
  return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
         a[2] * (b[0] * c[1] - b[1] * c[0]);
}

/* Volume of a mesh. Prisms: det J is linear in xi1, xi2 and quadratic in xi3, so the centroid
 * of the triangle times the 2-point Gauss rule integrates it exactly; *detmin is the smallest
 * det J seen at the vertices and the rule points. Tetrahedra: |det J| / 6; their vertices are
 * sorted by id, so either orientation is valid: sign[c] receives the sign of det J (when not
 * NULL) and *detmin the smallest |det J|. */
static double mesh_volume(femint_mesh_t m, double *detmin, int *sign)
{
  const double g = 1 / sqrt(3.0);
  const double pts[8][3] = {{1 / 3.0, 1 / 3.0, -g}, {1 / 3.0, 1 / 3.0, g}, {0, 0, -1}, {1, 0, -1},
                            {0, 1, -1},             {0, 0, 1},           {1, 0, 1},  {0, 1, 1}};
  double vol = 0;
  *detmin = INFINITY;
  for (int c = 0; c < femint_mesh_num_cells(m); c++) {
    double X[18];
    femint_mesh_cell_coords(m, c, X);
    if (femint_mesh_shape(m) == FEMINT_TET) {
      const double d = tet_det(X);
      vol += fabs(d) / 6;
      *detmin = fmin(*detmin, fabs(d));
      if (sign) sign[c] = d > 0 ? 1 : -1;
      continue;
    }
    for (int q = 0; q < 8; q++) {
      double d = prism_det(X, pts[q]);
      if (q < 2) vol += 0.5 * d;
      if (d < *detmin) *detmin = d;
    }
  }
  return vol;
}

static int on_plane(double x, double p, double l) { return fabs(x - p) < 1e-12 * l; }

/* The box of one shape: counts, volume, boundary vertices and tags, the perturbed box. */
static void check_box(int shape)
{
  const int nx = 3, ny = 2, nz = 4, tet = shape == FEMINT_TET;
  const char *name = tet ? "tetrahedra" : "prisms";
  const double L[3] = {1.5, 1.0, 2.0};
  const int n[3] = {nx, ny, nz};
  femint_mesh_t m = NULL, mp = NULL, mq = NULL, mr = NULL;
  double detmin;

  TAP_CALL(NULL, femint_mesh_create_box(NULL, shape, nx, ny, nz, L[0], L[1], L[2], 0, 0, &m));
  const int nv = (nx + 1) * (ny + 1) * (nz + 1), nc = (tet ? 6 : 2) * nx * ny * nz;
  /* Squares of the grid: on the boundary, and all of them (xy, xz, yz planes). */
  const int nsq_b = 2 * (nx * ny + nx * nz + ny * nz);
  const int nsq = nx * ny * (nz + 1) + nx * (ny + 1) * nz + (nx + 1) * ny * nz;
  const int naxis = nx * (ny + 1) * (nz + 1) + (nx + 1) * ny * (nz + 1) + (nx + 1) * (ny + 1) * nz;
  int nb, ne, nf;
  if (tet) {
    /* Two triangles per square; edges along the axes, one diagonal per square and one per cube;
     * faces: two per square and 6 inside each cube. */
    nb = 2 * nsq_b;
    ne = naxis + nsq + nx * ny * nz;
    nf = 2 * nsq + 6 * nx * ny * nz;
  } else {
    nb = 4 * nx * ny + 2 * nx * nz + 2 * ny * nz;
    ne = (nz + 1) * (nx * (ny + 1) + (nx + 1) * ny + nx * ny) + (nx + 1) * (ny + 1) * nz;
    nf = 2 * nx * ny * (nz + 1) + ((nx + 1) * ny + nx * (ny + 1) + nx * ny) * nz;
  }
  tap_ok(femint_mesh_shape(m) == shape && femint_mesh_num_nodes(m) == (tet ? 4 : 6),
         "%s: the shape is %d, %d nodes per cell", name, femint_mesh_shape(m),
         femint_mesh_num_nodes(m));
  tap_ok(femint_mesh_num_vertices(m) == nv, "%s: vertices: %d (expected %d)", name,
         femint_mesh_num_vertices(m), nv);
  tap_ok(femint_mesh_num_cells(m) == nc, "%s: cells: %d (expected %d)", name,
         femint_mesh_num_cells(m), nc);
  tap_ok(femint_mesh_num_boundary_faces(m) == nb, "%s: boundary faces: %d (expected %d)", name,
         femint_mesh_num_boundary_faces(m), nb);
  const int euler = m->nvert - m->nedge + m->nface - m->ncell;
  tap_ok(m->nedge == ne && m->nface == nf && euler == 1,
         "%s: edges %d, faces %d (expected %d, %d), V - E + F - C = %d", name, m->nedge, m->nface,
         ne, nf, euler);
  double vol = mesh_volume(m, &detmin, NULL), vlib;
  TAP_CALL(NULL, femint_mesh_volume(m, &vlib));
  tap_ok(fabs(vol - L[0] * L[1] * L[2]) < 1e-12 && fabs(vlib - vol) < 1e-12 && detmin > 0,
         "%s: volume of the regular box %.15g (femint_mesh_volume %.15g, expected %g), min det J "
         "%g",
         name, vol, vlib, L[0] * L[1] * L[2], detmin);
  int *sign0 = malloc((size_t)nc * sizeof *sign0), *sign1 = malloc((size_t)nc * sizeof *sign1);
  mesh_volume(m, &detmin, sign0);

  /* Boundary vertices are those on a plane of the box. */
  int bad = 0;
  for (int v = 0; v < nv; v++) {
    double x[3];
    femint_mesh_vertex_coords(m, v, x);
    int on = 0;
    for (int i = 0; i < 3; i++) on |= on_plane(x[i], 0, L[i]) || on_plane(x[i], L[i], L[i]);
    bad += on != femint_mesh_vertex_on_boundary(m, v);
  }
  tap_ok(bad == 0, "%s: vertex_on_boundary matches the planes of the box (%d wrong)", name, bad);

  /* Every boundary face lies on the plane of its tag, and each plane has its count. */
  int count[7] = {0}, wrong = 0;
  const int nvc = m->topo->nv;
  for (int b = 0; b < m->nbface; b++) {
    int c = m->bface[3 * b], f = m->bface[3 * b + 1], tag = m->bface[3 * b + 2];
    if (tag < 1 || tag > 6) {
      wrong++;
      continue;
    }
    count[tag]++;
    int dir = (tag - 1) / 2;
    double plane = tag % 2 ? 0 : L[dir];
    for (int j = 0; j < 4 && m->topo->face_vert[f][j] >= 0; j++)
      wrong += !on_plane(m->coords[3 * m->cells[nvc * c + m->topo->face_vert[f][j]] + dir], plane,
                         L[dir]);
  }
  const int k = tet ? 2 : 1;
  int expect[7] = {0, k * ny * nz, k * ny * nz, k * nx * nz, k * nx * nz, 2 * nx * ny, 2 * nx * ny};
  tap_ok(wrong == 0 && !memcmp(count, expect, sizeof count),
         "%s: boundary tags: faces per tag %d %d %d %d %d %d, %d misplaced", name, count[1],
         count[2], count[3], count[4], count[5], count[6], wrong);

  /* A perturbed box: the same volume, boundary vertices where they were, interior ones moved by
   * at most perturb * h, every cell valid (tetrahedra keep their orientation); the same seed
   * gives the same mesh. */
  const double perturb = 0.3;
  double hmin = fmin(L[0] / n[0], fmin(L[1] / n[1], L[2] / n[2]));
  TAP_CALL(NULL,
           femint_mesh_create_box(NULL, shape, nx, ny, nz, L[0], L[1], L[2], perturb, 7, &mp));
  vol = mesh_volume(mp, &detmin, sign1);
  int flipped = 0;
  for (int c = 0; tet && c < nc; c++) flipped += sign0[c] != sign1[c];
  tap_ok(fabs(vol - L[0] * L[1] * L[2]) < 1e-12 && detmin > 0 && flipped == 0,
         "%s: volume of the perturbed box %.15g (expected %g), min det J %g, %d cells inverted",
         name, vol, L[0] * L[1] * L[2], detmin, flipped);
  int moved = 0, badb = 0, far = 0;
  for (int v = 0; v < nv; v++) {
    double d = 0;
    for (int i = 0; i < 3; i++)
      d += (mp->coords[3 * v + i] - m->coords[3 * v + i]) *
           (mp->coords[3 * v + i] - m->coords[3 * v + i]);
    d = sqrt(d);
    if (femint_mesh_vertex_on_boundary(mp, v) != femint_mesh_vertex_on_boundary(m, v)) badb++;
    if (femint_mesh_vertex_on_boundary(m, v)) badb += d != 0;
    else moved += d > 0;
    far += d > perturb * hmin * (1 + 1e-12);
  }
  int ninterior = (nx - 1) * (ny - 1) * (nz - 1);
  tap_ok(badb == 0 && far == 0 && moved > ninterior / 2,
         "%s: perturbation: %d boundary vertices moved, %d too far, %d of %d interior moved", name,
         badb, far, moved, ninterior);
  int sametags = mp->nbface == m->nbface &&
                 !memcmp(mp->bface, m->bface, 3 * sizeof(int) * (size_t)m->nbface);
  tap_ok(sametags, "%s: the perturbed box has the same boundary faces and tags", name);
  TAP_CALL(NULL,
           femint_mesh_create_box(NULL, shape, nx, ny, nz, L[0], L[1], L[2], perturb, 7, &mq));
  TAP_CALL(NULL,
           femint_mesh_create_box(NULL, shape, nx, ny, nz, L[0], L[1], L[2], perturb, 8, &mr));
  tap_ok(!memcmp(mp->coords, mq->coords, 3 * sizeof(double) * (size_t)nv),
         "%s: the same seed gives the same mesh", name);
  tap_ok(memcmp(mp->coords, mr->coords, 3 * sizeof(double) * (size_t)nv) != 0,
         "%s: another seed gives another mesh", name);
  /* A strong perturbation still gives valid cells (the move is shrunk where needed). */
  femint_mesh_t m4 = NULL, m4p = NULL;
  TAP_CALL(NULL, femint_mesh_create_box(NULL, shape, 4, 4, 4, 1, 1, 1, 0, 3, &m4));
  TAP_CALL(NULL, femint_mesh_create_box(NULL, shape, 4, 4, 4, 1, 1, 1, 0.49, 3, &m4p));
  const int nc4 = femint_mesh_num_cells(m4);
  int *s4 = malloc((size_t)nc4 * sizeof *s4), *s4p = malloc((size_t)nc4 * sizeof *s4p);
  mesh_volume(m4, &detmin, s4);
  vol = mesh_volume(m4p, &detmin, s4p);
  flipped = 0;
  for (int c = 0; tet && c < nc4; c++) flipped += s4[c] != s4p[c];
  tap_ok(fabs(vol - 1) < 1e-12 && detmin > 0 && flipped == 0,
         "%s: perturb 0.49: volume %.15g, min det J %g, %d cells inverted", name, vol, detmin,
         flipped);
  free(s4);
  free(s4p);
  free(sign0);
  free(sign1);
  femint_mesh_destroy(&m4);
  femint_mesh_destroy(&m4p);
  femint_mesh_destroy(&m);
  femint_mesh_destroy(&mp);
  femint_mesh_destroy(&mq);
  femint_mesh_destroy(&mr);
}

/* Bad arguments of the box name the argument, for every shape. */
static void check_box_arguments(void)
{
  struct {
    int shape, nx, nz;
    double lx, perturb;
    const char *name;
  } badarg[] = {{FEMINT_PRISM, 0, 2, 1, 0, "nx"},      {FEMINT_PRISM, 2, 2, -1, 0, "lx"},
                {FEMINT_PRISM, 2, 2, 1, 0.5, "perturb"}, {FEMINT_PRISM, 2, 2, 1, -0.1, "perturb"},
                {FEMINT_PRISM, 2, 2, NAN, 0, "lx"},    {FEMINT_TET, 0, 2, 1, 0, "nx"},
                {FEMINT_TET, 2, 0, 1, 0, "nz"},        {FEMINT_TET, 2, 2, 1, 0.5, "perturb"},
                {FEMINT_QUAD, 2, 2, 1, 0, "nz"},       {7, 2, 2, 1, 0, "shape 7"}};
  femint_mesh_t mt = NULL;
  for (size_t i = 0; i < sizeof badarg / sizeof badarg[0]; i++) {
    mt = (femint_mesh_t)&mt;
    int ierr = femint_mesh_create_box(NULL, badarg[i].shape, badarg[i].nx, 2, badarg[i].nz,
                                      badarg[i].lx, 1, 1, badarg[i].perturb, 0, &mt);
    tap_ok(ierr == FEMINT_EINVAL && mt == NULL && strstr(femint_last_error(NULL), badarg[i].name),
           "shape %d, bad %s: %s, \"%s\"", badarg[i].shape, badarg[i].name,
           femint_error_name(ierr), femint_last_error(NULL));
  }
  int ierr = femint_mesh_create_box(NULL, FEMINT_TET, 2, 2, 2, 1, 1, 1, 0, 0, NULL);
  tap_ok(ierr == FEMINT_EINVAL, "a NULL output handle: %s", femint_error_name(ierr));
}

/* Prisms from arrays: two stacked prisms, and the bad cells femint_mesh_create refuses. */
static void check_prism_arrays(void)
{
  /* Two prisms stacked; the second has its top below its bottom. */
  double xs[12 * 3];
  int cs[12] = {0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7, 8};
  for (int k = 0; k < 3; k++)
    for (int a = 0; a < 3; a++) {
      double *x = &xs[3 * (3 * k + a)];
      x[0] = a == 1, x[1] = a == 2, x[2] = k;
    }
  femint_mesh_t mt = NULL;
  TAP_CALL(NULL, femint_mesh_create(NULL, FEMINT_PRISM, 9, xs, 2, cs, NULL, &mt));
  tap_ok(femint_mesh_num_boundary_faces(mt) == 8 && mt->nface == 9 && mt->nedge == 15,
         "two stacked prisms: %d boundary faces, %d faces, %d edges", mt->nbface, mt->nface,
         mt->nedge);
  int tag0 = 0;
  for (int b = 0; b < mt->nbface; b++) tag0 += mt->bface[3 * b + 2] == 0;
  tap_ok(tag0 == 8, "prisms from arrays: every boundary face has tag 0 (%d of 8)", tag0);
  femint_mesh_destroy(&mt);
  tap_ok(mt == NULL, "femint_mesh_destroy sets the handle to NULL");
  TAP_CALL(NULL, femint_mesh_destroy(&mt));
  xs[3 * 7 + 2] = 0.5; /* vertex 7, on the top of cell 1, drops below its bottom */
  mt = (femint_mesh_t)&mt;
  int ierr = femint_mesh_create(NULL, FEMINT_PRISM, 9, xs, 2, cs, NULL, &mt);
  tap_ok(ierr == FEMINT_EJACOBIAN && mt == NULL && strstr(femint_last_error(NULL), "cell 1 "),
         "a tangled cell: %s, \"%s\"", femint_error_name(ierr), femint_last_error(NULL));
  xs[3 * 7 + 2] = 2;
  /* A prism listed upside down (clockwise bottom). */
  int flip[6] = {0, 2, 1, 3, 5, 4};
  ierr = femint_mesh_create(NULL, FEMINT_PRISM, 9, xs, 1, flip, NULL, &mt);
  tap_ok(ierr == FEMINT_EJACOBIAN && strstr(femint_last_error(NULL), "cell 0 "),
         "an inverted cell: %s, \"%s\"", femint_error_name(ierr), femint_last_error(NULL));
  cs[8] = 9;
  ierr = femint_mesh_create(NULL, FEMINT_PRISM, 9, xs, 2, cs, NULL, &mt);
  tap_ok(ierr == FEMINT_EMESH && strstr(femint_last_error(NULL), "cell 1"),
         "a vertex index out of range: %s, \"%s\"", femint_error_name(ierr),
         femint_last_error(NULL));
  cs[8] = 3;
  ierr = femint_mesh_create(NULL, FEMINT_PRISM, 9, xs, 2, cs, NULL, &mt);
  tap_ok(ierr == FEMINT_EMESH && strstr(femint_last_error(NULL), "cell 1"),
         "a repeated vertex: %s, \"%s\"", femint_error_name(ierr), femint_last_error(NULL));
  cs[8] = 5;
  /* Three cells on one face. */
  int c3[18] = {0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7, 8, 3, 4, 5, 6, 7, 8};
  ierr = femint_mesh_create(NULL, FEMINT_PRISM, 9, xs, 3, c3, NULL, &mt);
  tap_ok(ierr == FEMINT_EMESH, "a face of 3 cells: %s, \"%s\"", femint_error_name(ierr),
         femint_last_error(NULL));
  /* Prisms have straight edges: edge nodes are refused. */
  double nodes[2 * 9 * 3] = {0};
  ierr = femint_mesh_create(NULL, FEMINT_PRISM, 9, xs, 2, cs, nodes, &mt);
  tap_ok(ierr == FEMINT_ENOTSUP && mt == NULL && strstr(femint_last_error(NULL), "edge_nodes"),
         "edge nodes for prisms: %s, \"%s\"", femint_error_name(ierr), femint_last_error(NULL));
  ierr = femint_mesh_create(NULL, 0, 9, xs, 2, cs, NULL, &mt);
  tap_ok(ierr == FEMINT_EINVAL && strstr(femint_last_error(NULL), "shape 0"),
         "an unknown shape: %s, \"%s\"", femint_error_name(ierr), femint_last_error(NULL));
  ierr = femint_mesh_create(NULL, FEMINT_PRISM, 9, NULL, 2, cs, NULL, &mt);
  tap_ok(ierr == FEMINT_EINVAL && strstr(femint_last_error(NULL), "coords"),
         "NULL coordinates: %s, \"%s\"", femint_error_name(ierr), femint_last_error(NULL));
  TAP_CALL(NULL, femint_mesh_create(NULL, FEMINT_PRISM, 9, xs, 2, cs, NULL, &mt));
  ierr = femint_mesh_warp(mt, 0.1);
  tap_ok(ierr == FEMINT_ENOTSUP, "femint_mesh_warp of prisms: %s, \"%s\"",
         femint_error_name(ierr), femint_last_error(NULL));
  femint_mesh_destroy(&mt);
}

int main(void)
{
  check_box(FEMINT_PRISM);
  check_box(FEMINT_TET);
  check_box_arguments();
  check_prism_arrays();
  femint_mesh_t m = NULL;
  TAP_CALL(NULL, femint_mesh_create_box(NULL, FEMINT_PRISM, 2, 2, 2, 1, 1, 1, 0, 0, &m));
  tap_ok(femint_mesh_num_cells(NULL) == FEMINT_EINVAL, "num_cells(NULL) is FEMINT_EINVAL");
  tap_ok(femint_mesh_vertex_on_boundary(m, femint_mesh_num_vertices(m)) == FEMINT_EINVAL,
         "vertex_on_boundary of a vertex out of range is FEMINT_EINVAL");
  double X[18];
  tap_ok(femint_mesh_cell_nodes(m, femint_mesh_num_cells(m), X) == FEMINT_EINVAL &&
             femint_mesh_num_nodes(NULL) == FEMINT_EINVAL,
         "cell_nodes of a cell out of range and num_nodes(NULL) are FEMINT_EINVAL");
  femint_mesh_destroy(&m);
  return tap_done();
}
