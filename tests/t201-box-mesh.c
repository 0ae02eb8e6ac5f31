/* Test: box meshes are right (counts, volume, boundary, tags, seeds); bad meshes are refused. */
#include <math.h>
#include <stdint.h>
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

/* Volume of a mesh: det J is linear in xi1, xi2 and quadratic in xi3, so the centroid of the
 * triangle times the 2-point Gauss rule integrates it exactly. Also the smallest det J seen at
 * the vertices and the rule points. */
static double mesh_volume(femint_mesh_t m, double *detmin)
{
  const double g = 1 / sqrt(3.0);
  const double pts[8][3] = {{1 / 3.0, 1 / 3.0, -g}, {1 / 3.0, 1 / 3.0, g}, {0, 0, -1}, {1, 0, -1},
                            {0, 1, -1},             {0, 0, 1},           {1, 0, 1},  {0, 1, 1}};
  double vol = 0;
  *detmin = INFINITY;
  for (int c = 0; c < femint_mesh_num_cells(m); c++) {
    double X[18];
    femint_mesh_cell_coords(m, c, X);
    for (int q = 0; q < 8; q++) {
      double d = prism_det(X, pts[q]);
      if (q < 2) vol += 0.5 * d;
      if (d < *detmin) *detmin = d;
    }
  }
  return vol;
}

static int on_plane(double x, double p, double l) { return fabs(x - p) < 1e-12 * l; }

int main(void)
{
  const int nx = 3, ny = 2, nz = 4;
  const double L[3] = {1.5, 1.0, 2.0};
  const int n[3] = {nx, ny, nz};
  femint_mesh_t m = NULL, mp = NULL, mq = NULL, mr = NULL;
  double detmin;

  TAP_CALL(NULL, femint_mesh_create_box(NULL, nx, ny, nz, L[0], L[1], L[2], 0, 0, &m));
  int nv = (nx + 1) * (ny + 1) * (nz + 1), nc = 2 * nx * ny * nz;
  int nb = 4 * nx * ny + 2 * nx * nz + 2 * ny * nz;
  tap_ok(femint_mesh_num_vertices(m) == nv, "vertices: %d (expected %d)",
         femint_mesh_num_vertices(m), nv);
  tap_ok(femint_mesh_num_cells(m) == nc, "cells: %d (expected %d)", femint_mesh_num_cells(m), nc);
  tap_ok(femint_mesh_num_boundary_faces(m) == nb, "boundary faces: %d (expected %d)",
         femint_mesh_num_boundary_faces(m), nb);
  int ne = (nz + 1) * (nx * (ny + 1) + (nx + 1) * ny + nx * ny) + (nx + 1) * (ny + 1) * nz;
  int nf = 2 * nx * ny * (nz + 1) + ((nx + 1) * ny + nx * (ny + 1) + nx * ny) * nz;
  tap_ok(m->nedge == ne && m->nface == nf, "edges %d, faces %d (expected %d, %d)", m->nedge,
         m->nface, ne, nf);
  double vol = mesh_volume(m, &detmin);
  tap_ok(fabs(vol - L[0] * L[1] * L[2]) < 1e-12 && detmin > 0,
         "volume of the regular box %.15g (expected %g), min det J %g", vol, L[0] * L[1] * L[2],
         detmin);

  /* Boundary vertices are those on a plane of the box. */
  int bad = 0;
  for (int v = 0; v < nv; v++) {
    double x[3];
    femint_mesh_vertex_coords(m, v, x);
    int on = 0;
    for (int i = 0; i < 3; i++) on |= on_plane(x[i], 0, L[i]) || on_plane(x[i], L[i], L[i]);
    bad += on != femint_mesh_vertex_on_boundary(m, v);
  }
  tap_ok(bad == 0, "vertex_on_boundary matches the planes of the box (%d wrong)", bad);

  /* Every boundary face lies on the plane of its tag, and each plane has its count. */
  int count[7] = {0}, wrong = 0;
  for (int b = 0; b < m->nbface; b++) {
    int c = m->bface[3 * b], f = m->bface[3 * b + 1], tag = m->bface[3 * b + 2];
    int nfv = f < 2 ? 3 : 4;
    if (tag < 1 || tag > 6) {
      wrong++;
      continue;
    }
    count[tag]++;
    int dir = (tag - 1) / 2;
    double plane = tag % 2 ? 0 : L[dir];
    for (int j = 0; j < nfv; j++)
      wrong += !on_plane(m->coords[3 * m->cells[6 * c + prism_face_vert[f][j]] + dir], plane,
                         L[dir]);
  }
  int expect[7] = {0, ny * nz, ny * nz, nx * nz, nx * nz, 2 * nx * ny, 2 * nx * ny};
  tap_ok(wrong == 0 && !memcmp(count, expect, sizeof count),
         "boundary tags: faces per tag %d %d %d %d %d %d, %d misplaced", count[1], count[2],
         count[3], count[4], count[5], count[6], wrong);

  /* A perturbed box: the same volume, boundary vertices where they were, interior ones moved by
   * at most perturb * h, all Jacobians positive; the same seed gives the same mesh. */
  const double perturb = 0.3;
  double hmin = fmin(L[0] / n[0], fmin(L[1] / n[1], L[2] / n[2]));
  TAP_CALL(NULL, femint_mesh_create_box(NULL, nx, ny, nz, L[0], L[1], L[2], perturb, 7, &mp));
  vol = mesh_volume(mp, &detmin);
  tap_ok(fabs(vol - L[0] * L[1] * L[2]) < 1e-12 && detmin > 0,
         "volume of the perturbed box %.15g (expected %g), min det J %g", vol,
         L[0] * L[1] * L[2], detmin);
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
         "perturbation: %d boundary vertices moved, %d too far, %d of %d interior moved", badb,
         far, moved, ninterior);
  int sametags = mp->nbface == m->nbface && !memcmp(mp->bface, m->bface,
                                                     3 * sizeof(int) * (size_t)m->nbface);
  tap_ok(sametags, "the perturbed box has the same boundary faces and tags");
  TAP_CALL(NULL, femint_mesh_create_box(NULL, nx, ny, nz, L[0], L[1], L[2], perturb, 7, &mq));
  TAP_CALL(NULL, femint_mesh_create_box(NULL, nx, ny, nz, L[0], L[1], L[2], perturb, 8, &mr));
  tap_ok(!memcmp(mp->coords, mq->coords, 3 * sizeof(double) * (size_t)nv),
         "the same seed gives the same mesh");
  tap_ok(memcmp(mp->coords, mr->coords, 3 * sizeof(double) * (size_t)nv) != 0,
         "another seed gives another mesh");
  /* A strong perturbation still gives positive Jacobians (the move is shrunk where needed). */
  femint_mesh_destroy(&mq);
  TAP_CALL(NULL, femint_mesh_create_box(NULL, 4, 4, 4, 1, 1, 1, 0.49, 3, &mq));
  vol = mesh_volume(mq, &detmin);
  tap_ok(fabs(vol - 1) < 1e-12 && detmin > 0, "perturb 0.49: volume %.15g, min det J %g", vol,
         detmin);

  /* Two prisms stacked; the second has its top below its bottom. */
  double xs[12 * 3];
  int cs[12] = {0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7, 8};
  for (int k = 0; k < 3; k++)
    for (int a = 0; a < 3; a++) {
      double *x = &xs[3 * (3 * k + a)];
      x[0] = a == 1, x[1] = a == 2, x[2] = k;
    }
  femint_mesh_t mt = NULL;
  TAP_CALL(NULL, femint_mesh_create_prisms(NULL, 9, xs, 2, cs, &mt));
  tap_ok(femint_mesh_num_boundary_faces(mt) == 8 && mt->nface == 9 && mt->nedge == 15,
         "two stacked prisms: %d boundary faces, %d faces, %d edges", mt->nbface, mt->nface,
         mt->nedge);
  femint_mesh_destroy(&mt);
  tap_ok(mt == NULL, "femint_mesh_destroy sets the handle to NULL");
  TAP_CALL(NULL, femint_mesh_destroy(&mt));
  xs[3 * 7 + 2] = 0.5; /* vertex 7, on the top of cell 1, drops below its bottom */
  mt = (femint_mesh_t)&mt;
  int ierr = femint_mesh_create_prisms(NULL, 9, xs, 2, cs, &mt);
  tap_ok(ierr == FEMINT_EJACOBIAN && mt == NULL && strstr(femint_last_error(NULL), "cell 1 "),
         "a tangled cell: %s, \"%s\"", femint_error_name(ierr), femint_last_error(NULL));
  xs[3 * 7 + 2] = 2;
  /* A prism listed upside down (clockwise bottom). */
  int flip[6] = {0, 2, 1, 3, 5, 4};
  ierr = femint_mesh_create_prisms(NULL, 9, xs, 1, flip, &mt);
  tap_ok(ierr == FEMINT_EJACOBIAN && strstr(femint_last_error(NULL), "cell 0 "),
         "an inverted cell: %s, \"%s\"", femint_error_name(ierr), femint_last_error(NULL));
  cs[8] = 9;
  ierr = femint_mesh_create_prisms(NULL, 9, xs, 2, cs, &mt);
  tap_ok(ierr == FEMINT_EMESH && strstr(femint_last_error(NULL), "cell 1"),
         "a vertex index out of range: %s, \"%s\"", femint_error_name(ierr),
         femint_last_error(NULL));
  cs[8] = 3;
  ierr = femint_mesh_create_prisms(NULL, 9, xs, 2, cs, &mt);
  tap_ok(ierr == FEMINT_EMESH && strstr(femint_last_error(NULL), "cell 1"),
         "a repeated vertex: %s, \"%s\"", femint_error_name(ierr), femint_last_error(NULL));
  cs[8] = 5;
  /* Three cells on one face. */
  int c3[18] = {0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7, 8, 3, 4, 5, 6, 7, 8};
  ierr = femint_mesh_create_prisms(NULL, 9, xs, 3, c3, &mt);
  tap_ok(ierr == FEMINT_EMESH, "a face of 3 cells: %s, \"%s\"", femint_error_name(ierr),
         femint_last_error(NULL));

  /* Bad arguments of the box name the argument. */
  struct {
    int nx;
    double lx, perturb;
    const char *name;
  } badarg[] = {{0, 1, 0, "nx"}, {2, -1, 0, "lx"}, {2, 1, 0.5, "perturb"}, {2, 1, -0.1, "perturb"},
                {2, NAN, 0, "lx"}};
  for (size_t i = 0; i < sizeof badarg / sizeof badarg[0]; i++) {
    ierr = femint_mesh_create_box(NULL, badarg[i].nx, 2, 2, badarg[i].lx, 1, 1, badarg[i].perturb,
                                  0, &mt);
    tap_ok(ierr == FEMINT_EINVAL && mt == NULL &&
               strstr(femint_last_error(NULL), badarg[i].name),
           "bad %s: %s, \"%s\"", badarg[i].name, femint_error_name(ierr), femint_last_error(NULL));
  }
  ierr = femint_mesh_create_box(NULL, 2, 2, 2, 1, 1, 1, 0, 0, NULL);
  tap_ok(ierr == FEMINT_EINVAL, "a NULL output handle: %s", femint_error_name(ierr));
  tap_ok(femint_mesh_num_cells(NULL) == FEMINT_EINVAL, "num_cells(NULL) is FEMINT_EINVAL");
  tap_ok(femint_mesh_vertex_on_boundary(m, nv) == FEMINT_EINVAL,
         "vertex_on_boundary of a vertex out of range is FEMINT_EINVAL");

  femint_mesh_destroy(&m);
  femint_mesh_destroy(&mp);
  femint_mesh_destroy(&mq);
  femint_mesh_destroy(&mr);
  return tap_done();
}
