/* Test: hexahedral meshes. The box (counts, tags, volume, a perturbation that keeps every cell
 * certified), the certificate of det J > 0 (a tangled cell, and a cell positive at its eight
 * corners but negative inside, are refused by name), arrays in any rotation of Gmsh's vertex
 * order, curved (20-node) cells that reproduce a quadratic map, a folded one refused, a warped
 * box, and Gmsh files of 8-node hexahedra with materials and tagged faces and of 20- and 27-node
 * ones. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common.h"
#include "host/host.h"
#include "host/refel_hex.h"

/* The box: counts, tags, volume, certified cells, the perturbation reproducible by its seed. */
static void check_box(void)
{
  femint_mesh_t m, m2;
  TAP_CALL(NULL, femint_mesh_create_box(NULL, FEMINT_HEX, 4, 3, 2, 2.0, 1.5, 1.0, 0.0, 0, &m));
  tap_ok(femint_mesh_shape(m) == FEMINT_HEX && femint_mesh_num_cells(m) == 24 &&
             femint_mesh_num_vertices(m) == 60 && femint_mesh_num_boundary_faces(m) == 52,
         "box 4 x 3 x 2: %d hexahedra, %d vertices, %d boundary faces (24, 60, 52)",
         femint_mesh_num_cells(m), femint_mesh_num_vertices(m), femint_mesh_num_boundary_faces(m));
  /* edges: 4*4*3 + 5*3*3 + 5*4*2 (x, y, z), faces: 5*3*2 + 4*4*2 + 4*3*3 */
  tap_ok(m->nedge == 133 && m->nface == 98, "%d edges (133), %d faces (98)", m->nedge, m->nface);
  int count[7] = {0};
  for (int b = 0; b < m->nbface; b++) count[m->bface[3 * b + 2] % 7]++;
  tap_ok(count[0] == 0 && count[1] == 6 && count[2] == 6 && count[3] == 8 && count[4] == 8 &&
             count[5] == 12 && count[6] == 12,
         "tags 1..6 on 6, 6, 8, 8, 12, 12 faces (got %d %d %d %d %d %d, %d untagged)", count[1],
         count[2], count[3], count[4], count[5], count[6], count[0]);
  double vol;
  TAP_CALL(NULL, femint_mesh_volume(m, &vol));
  tap_ok(fabs(vol - 3.0) < 1e-14, "volume %.15g (3)", vol);
  femint_mesh_destroy(&m);

  TAP_CALL(NULL, femint_mesh_create_box(NULL, FEMINT_HEX, 5, 5, 5, 1.0, 1.0, 1.0, 0.45, 7, &m));
  TAP_CALL(NULL, femint_mesh_create_box(NULL, FEMINT_HEX, 5, 5, 5, 1.0, 1.0, 1.0, 0.45, 7, &m2));
  TAP_CALL(NULL, femint_mesh_volume(m, &vol));
  int moved = 0, same = 1, certified = 1;
  for (int v = 0; v < m->nvert; v++) {
    double x[3], y[3];
    femint_mesh_vertex_coords(m, v, x);
    femint_mesh_vertex_coords(m2, v, y);
    int off = 0;
    for (int d = 0; d < 3; d++) {
      off |= fabs(x[d] * 5 - round(x[d] * 5)) > 1e-9;
      same &= x[d] == y[d];
    }
    moved += off;
    if (off && femint_mesh_vertex_on_boundary(m, v)) moved += 1000;
  }
  for (int c = 0; c < m->ncell; c++) {
    double X[24];
    femint_mesh_cell_coords(m, c, X);
    certified &= geom_hex_check(8, X, NULL, NULL) == 0;
  }
  tap_ok(fabs(vol - 1.0) < 1e-13 && moved > 32 && moved <= 64 && same && certified,
         "perturbed box (0.45): volume %.15g, %d of 64 interior vertices moved, boundary kept, the "
         "same for the same seed, every cell certified",
         vol, moved);
  femint_mesh_destroy(&m);
  femint_mesh_destroy(&m2);

  tap_ok(femint_mesh_create_box(NULL, FEMINT_HEX, 0, 2, 2, 1, 1, 1, 0, 0, &m) == FEMINT_EINVAL &&
             strstr(femint_thread_error(), "nx = 0"),
         "nx = 0 refused: %s", femint_thread_error());
  tap_ok(femint_mesh_warp(NULL, 0.1) != 0, "a NULL mesh cannot be warped");
}

/* The certificate: a valid cell passes, a tangled one and a cell positive at its corners but
 * negative inside fail with FEMINT_EJACOBIAN. */
static void check_certificate(void)
{
  double X[24];
  for (int a = 0; a < 8; a++)
    for (int d = 0; d < 3; d++) X[3 * a + d] = 0.5 * (hex_vert_xi[a][d] + 1);
  double det, xi[3];
  const int unit = geom_hex_check(8, X, &det, xi);
  tap_ok(unit == 0 && fabs(det - 0.125) < 1e-15,
         "unit cube certified (smallest det J %g = 1/8)", det);
  /* a cell whose det J is positive at the 8 corners (>= 0.0228) and -0.0048 inside */
  static const double corners_only[24] = {
      -0.432, 0.127, 0.529, 1.426, 0.254, -0.581, 0.477, 1.352, 0.352, 0.576, 0.831, 0.062,
      -0.269, -0.488, 1.23, 1.234, -0.522, 1.088, 1.421, 1.316, 0.766, -0.588, 0.684, 0.569};
  double J[9], cmin = INFINITY;
  for (int a = 0; a < 8; a++) cmin = fmin(cmin, geom_hex_jacobian(8, corners_only, hex_vert_xi[a], J));
  const int err = geom_hex_check(8, corners_only, &det, xi);
  tap_ok(cmin > 0.02 && err == FEMINT_EJACOBIAN && det < 0,
         "positive at every corner (min %.4f) but tangled inside: refused, det J = %.4g at (%.3g, "
         "%.3g, %.3g)",
         cmin, det, xi[0], xi[1], xi[2]);
  /* swap two top vertices: tangled */
  for (int d = 0; d < 3; d++) {
    const double t = X[3 * 4 + d];
    X[3 * 4 + d] = X[3 * 6 + d];
    X[3 * 6 + d] = t;
  }
  const int swapped = geom_hex_check(8, X, &det, NULL);
  tap_ok(swapped == FEMINT_EJACOBIAN && det < 0,
         "two top vertices swapped: refused (det J = %g)", det);
  /* through the public API, named */
  double coords[24];
  int cells[8];
  for (int a = 0; a < 8; a++) {
    cells[a] = a;
    for (int d = 0; d < 3; d++) coords[3 * a + d] = corners_only[3 * a + d];
  }
  femint_mesh_t m;
  const int e = femint_mesh_create(NULL, FEMINT_HEX, 8, coords, 1, cells, NULL, &m);
  tap_ok(e == FEMINT_EJACOBIAN && strstr(femint_thread_error(), "cell 0") &&
             strstr(femint_thread_error(), "det J"),
         "femint_mesh_create names the cell: %s", femint_thread_error());
}

/* The quadratic map phi(x) = (x0 + 0.2 x0^2, x1 + 0.1 x0 x1, x2) of the unit cube: det J =
 * (1 + 0.4 x0)(1 + 0.1 x0), volume 1 + 0.2 + 0.05 + 0.04 / 3. */
static void phi(const double *x, double *y)
{
  y[0] = x[0] + 0.2 * x[0] * x[0];
  y[1] = x[1] + 0.1 * x[0] * x[1];
  y[2] = x[2];
}
static const double phi_volume = 1.25 + 0.04 / 3;

/* The point of the unit cube at reference point xi of [-1,1]^3. */
static void unit(const double *xi, double *x)
{
  for (int d = 0; d < 3; d++) x[d] = 0.5 * (xi[d] + 1);
}

/* Curved (20-node) hexahedra: the serendipity map reproduces a quadratic map (the volume, and
 * the image of every point); the certificate of det J > 0 refuses a folded cell. */
static void check_curved(void)
{
  double coords[24], nodes[36], X[60];
  int cells[8];
  for (int a = 0; a < 8; a++) {
    double x[3];
    cells[a] = a;
    unit(hex_vert_xi[a], x);
    phi(x, &coords[3 * a]);
  }
  for (int e = 0; e < 12; e++) {
    double xi[3], x[3];
    for (int d = 0; d < 3; d++)
      xi[d] = 0.5 * (hex_vert_xi[hex_edge_vert[e][0]][d] + hex_vert_xi[hex_edge_vert[e][1]][d]);
    unit(xi, x);
    phi(x, &nodes[3 * e]);
  }
  femint_mesh_t m;
  TAP_CALL(NULL, femint_mesh_create(NULL, FEMINT_HEX, 8, coords, 1, cells, nodes, &m));
  double vol, worst = 0;
  TAP_CALL(NULL, femint_mesh_volume(m, &vol));
  const int nnode = mesh_cell_nodes(m, 0, X);
  for (int k = 0; k < 50; k++) {
    const double xi[3] = {2 * drand48() - 1, 2 * drand48() - 1, 2 * drand48() - 1};
    double x[3], y[3], z[3], J[9];
    unit(xi, x);
    phi(x, y);
    geom_map(FEMINT_HEX, nnode, X, xi, z, J);
    for (int d = 0; d < 3; d++) worst = fmax(worst, fabs(y[d] - z[d]));
  }
  tap_ok(nnode == 20 && fabs(vol - phi_volume) < 1e-13 && worst < 1e-14,
         "a 20-node hexahedron reproduces a quadratic map: %d nodes, volume %.15g (%.15g), "
         "points to %.1e", nnode, vol, phi_volume, worst);
  TAP_CALL(NULL, geom_hex_check(20, X, NULL, NULL));
  tap_ok(1, "and its det J > 0 is certified");
  femint_mesh_destroy(&m);
  /* an edge node pulled across the cell folds it */
  nodes[3 * 0 + 1] = 1.2;
  const int e = femint_mesh_create(NULL, FEMINT_HEX, 8, coords, 1, cells, nodes, &m);
  tap_ok(e == FEMINT_EJACOBIAN && strstr(femint_thread_error(), "cell 0"),
         "an edge node across the cell: refused, named: %s", femint_thread_error());
  /* a warped box: curved, still valid, its faces on the box */
  TAP_CALL(NULL, femint_mesh_create_box(NULL, FEMINT_HEX, 3, 3, 3, 1, 1, 1, 0.2, 5, &m));
  const int w = femint_mesh_warp(m, 0.08);
  TAP_CALL(NULL, femint_mesh_volume(m, &vol));
  tap_ok(w == 0 && mesh_nnode(m) == 20 && fabs(vol - 1) < 1e-3,
         "femint_mesh_warp curves a box of hexahedra: %d nodes, volume %.6f (about 1)",
         mesh_nnode(m), vol);
  femint_mesh_destroy(&m);
}

/* Two cubes side by side given in rotated vertex orders: the same topology and volume. */
static void check_rotations(void)
{
  /* the 12 vertices of [0,2]x[0,1]x[0,1] */
  double coords[36];
  for (int k = 0, v = 0; k < 2; k++)
    for (int j = 0; j < 2; j++)
      for (int i = 0; i < 3; i++, v++) {
        coords[3 * v] = i;
        coords[3 * v + 1] = j;
        coords[3 * v + 2] = k;
      }
  /* Gmsh's order of the two cubes, then rotated: about z (a quarter turn of each square) and
   * upside down (the top square becomes the bottom, reversed) */
  int cells[16] = {0, 1, 4, 3, 6, 7, 10, 9, 1, 2, 5, 4, 7, 8, 11, 10};
  int rot[16];
  static const int quarter[8] = {1, 2, 3, 0, 5, 6, 7, 4}, flip[8] = {4, 7, 6, 5, 0, 3, 2, 1};
  for (int a = 0; a < 8; a++) {
    rot[a] = cells[quarter[a]];
    rot[8 + a] = cells[8 + flip[a]];
  }
  femint_mesh_t m;
  TAP_CALL(NULL, femint_mesh_create(NULL, FEMINT_HEX, 12, coords, 2, rot, NULL, &m));
  double vol;
  TAP_CALL(NULL, femint_mesh_volume(m, &vol));
  tap_ok(m->nface == 11 && m->nedge == 20 && m->nbface == 10 && fabs(vol - 2) < 1e-15,
         "two cubes in rotated vertex orders: %d faces (11), %d edges (20), %d boundary faces "
         "(10), volume %g",
         m->nface, m->nedge, m->nbface, vol);
  femint_mesh_destroy(&m);
}

/* A Gmsh 2.2 file of two hexahedra (materials 7 and 8) with two tagged quadrangles. */
static void check_gmsh(void)
{
  char path[] = "/tmp/femint-t209-XXXXXX";
  const int fd = mkstemp(path);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) {
    tap_ok(0, "cannot write a temporary Gmsh file");
    return;
  }
  fprintf(f, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n12\n");
  for (int k = 0, v = 0; k < 2; k++)
    for (int j = 0; j < 2; j++)
      for (int i = 0; i < 3; i++, v++) fprintf(f, "%d %d %d %d\n", 101 + v, i, j, k);
  fprintf(f, "$EndNodes\n$Elements\n4\n"
             "1 5 2 7 1 101 102 105 104 107 108 111 110\n"
             "2 5 2 8 1 102 103 106 105 108 109 112 111\n"
             "3 3 2 3 2 101 104 105 102\n"
             "4 3 2 4 3 103 106 112 109\n$EndElements\n");
  fclose(f);
  femint_mesh_t m;
  const int err = femint_mesh_read_gmsh(NULL, path, &m);
  tap_ok(err == 0, "Gmsh 8-node hexahedra read: %s", err ? femint_thread_error() : "ok");
  if (!err) {
    int mat[2], tagged[5] = {0};
    for (int c = 0; c < 2; c++) mat[c] = m->cell_mat[c];
    for (int b = 0; b < m->nbface; b++) tagged[m->bface[3 * b + 2] % 5]++;
    double vol;
    femint_mesh_volume(m, &vol);
    tap_ok(femint_mesh_num_cells(m) == 2 && mat[0] == 7 && mat[1] == 8 && tagged[3] == 1 &&
               tagged[4] == 1 && tagged[0] == 8 && fabs(vol - 2) < 1e-15 && m->vert_gid[0] == 101,
           "materials %d %d (7 8), faces tagged 3 and 4 once each, 8 untagged (%d), volume %g, "
           "global ids from the node tags",
           mat[0], mat[1], tagged[0], vol);
    femint_mesh_destroy(&m);
  }
  /* a 20-node and a 27-node hexahedron, each the quadratic map phi of the unit cube: its
   * corners, edge midpoints (and face and centre points) in Gmsh's order */
  static const double face_xi[7][3] = {{0, 0, -1}, {0, -1, 0}, {-1, 0, 0}, {1, 0, 0},
                                       {0, 1, 0},  {0, 0, 1},  {0, 0, 0}};
  for (int nn = 20; nn <= 27; nn += 7) {
    f = fopen(path, "w");
    fprintf(f, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n%d\n", nn);
    for (int v = 0; v < nn; v++) {
      double xi[3], x[3], y[3];
      for (int d = 0; d < 3; d++)
        xi[d] = v < 8    ? hex_vert_xi[v][d]
                : v < 20 ? 0.5 * (hex_vert_xi[hex_edge_vert[v - 8][0]][d] +
                                  hex_vert_xi[hex_edge_vert[v - 8][1]][d])
                         : face_xi[v - 20][d];
      unit(xi, x);
      phi(x, y);
      fprintf(f, "%d %.17g %.17g %.17g\n", v + 1, y[0], y[1], y[2]);
    }
    fprintf(f, "$EndNodes\n$Elements\n1\n1 %d 2 1 1", nn == 20 ? 17 : 12);
    for (int v = 0; v < nn; v++) fprintf(f, " %d", v + 1);
    fprintf(f, "\n$EndElements\n");
    fclose(f);
    const int r = femint_mesh_read_gmsh(NULL, path, &m);
    double vol = 0;
    if (!r) femint_mesh_volume(m, &vol);
    tap_ok(r == 0 && mesh_nnode(m) == 20 && fabs(vol - phi_volume) < 1e-13,
           "a Gmsh %d-node hexahedron: read curved (%s), volume %.15g (%.15g)", nn,
           r ? femint_thread_error() : "ok", vol, phi_volume);
    if (!r) femint_mesh_destroy(&m);
  }
  unlink(path);
}

int main(void)
{
  check_box();
  check_certificate();
  check_rotations();
  check_curved();
  check_gmsh();
  return tap_done();
}
