/* Test: Gmsh files of 4-, 8- and 9-node quadrangles give quadrilateral meshes and files of 4- and
 * 10-node tetrahedra give tetrahedral meshes (whole or by partition), with their counts, tags,
 * materials, global ids, measures and edge nodes; other shapes and corrupt files give errors that
 * name the place. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "femint.h"
#include "gmsh_common.h"
#include "host/gmsh.h"
#include "host/host.h"
#include "host/mesh.h"
#include "host/refel_quad.h"
#include "host/refel_tet.h"

/* ---- Reading, with the checks every mesh must pass ---- */

static femint_mesh_t quads_ok(const char *path, int part)
{
  femint_mesh_t m = NULL;
  if (femint_mesh_read_gmsh_part(NULL, path, part, &m) || femint_mesh_shape(m) != FEMINT_QUAD) {
    printf("Bail out! reading %s (part %d): %s\n", path, part, femint_last_error(NULL));
    exit(1);
  }
  return m;
}

static femint_mesh_t tets_ok(const char *path, int part)
{
  femint_mesh_t m = NULL;
  if (femint_mesh_read_gmsh_part(NULL, path, part, &m) || femint_mesh_shape(m) != FEMINT_TET) {
    printf("Bail out! reading %s (part %d): %s\n", path, part, femint_last_error(NULL));
    exit(1);
  }
  return m;
}

/* Quadrilaterals whose det J is not positive on the whole cell (femint's ordering). */
static int bad_quads(femint_mesh_t m)
{
  int bad = 0;
  double X[16];
  for (int c = 0; c < m->ncell; c++)
    bad += geom_quad_check(NULL, mesh_cell_nodes(m, c, X), X, NULL) != 0;
  return bad;
}

/* The area of a quadrilateral mesh. */
static double area(femint_mesh_t m)
{
  double a;
  TAP_CALL(NULL, femint_mesh_volume(m, &a));
  return a;
}

/* The volume of a tetrahedral mesh: |det J| on the conical rule of 27 points (exact for the cubic
 * det J of a 10-node cell); *bad counts the cells geom_tet_check refuses. */
static double tet_volume(femint_mesh_t m, int *bad)
{
  double xq[81], wq[27], X[30], J[9], vol = 0;
  quad_tet(3, xq, wq);
  *bad = 0;
  for (int c = 0; c < m->ncell; c++) {
    const int nnode = mesh_cell_nodes(m, c, X);
    *bad += geom_tet_check(NULL, nnode, X, NULL) != 0;
    for (int q = 0; q < 27; q++) vol += wq[q] * fabs(geom_tet_jacobian(nnode, X, &xq[3 * q], J));
  }
  return vol;
}

/* The largest distance of an edge node from its edge's midpoint, relative to the edge's length. */
static double edge_node_offset(femint_mesh_t m)
{
  double worst = 0;
  for (int e = 0; e < m->nedge; e++) {
    const double *a = &m->coords[3 * m->edge_vert[2 * e]],
                 *b = &m->coords[3 * m->edge_vert[2 * e + 1]];
    double d2 = 0, l2 = 0;
    for (int i = 0; i < 3; i++) {
      d2 += pow(m->edge_x[3 * e + i] - (a[i] + b[i]) / 2, 2);
      l2 += pow(a[i] - b[i], 2);
    }
    worst = fmax(worst, sqrt(d2 / l2));
  }
  return worst;
}

/* The number in a file's text after the first occurrence of prefix (a block's size). */
static int count_after(const char *text, const char *prefix)
{
  const char *at = strstr(text, prefix);
  return at ? atoi(at + strlen(prefix)) : -1;
}

/* ---- Quadrangles: quads.geo, a quarter of the annulus 1 <= r <= 2 in 2 x 4 cells ---- */

/* The tag quads.geo gives the boundary edge b: 1 on r = 1, 2 on r = 2, 3 on y = 0, 0 on x = 0. */
static int annulus_tag(femint_mesh_t m, int b)
{
  const int c = m->bface[3 * b], f = m->bface[3 * b + 1];
  const double *p = &m->coords[3 * m->cells[4 * c + f]],
               *q = &m->coords[3 * m->cells[4 * c + (f + 1) % 4]];
  const double rp = hypot(p[0], p[1]), rq = hypot(q[0], q[1]);
  if (fabs(rp - 1) < 1e-12 && fabs(rq - 1) < 1e-12) return 1;
  if (fabs(rp - 2) < 1e-12 && fabs(rq - 2) < 1e-12) return 2;
  if (fabs(p[1]) < 1e-12 && fabs(q[1]) < 1e-12) return 3;
  return fabs(p[0]) < 1e-12 && fabs(q[0]) < 1e-12 ? 0 : -1;
}

/* Whether two quadrilateral meshes have the same cells, coordinates, edge nodes and tags. */
static int same_quads(femint_mesh_t a, femint_mesh_t b, double tol)
{
  if (a->ncell != b->ncell || a->nvert != b->nvert || a->nbface != b->nbface ||
      a->nedge != b->nedge || !a->edge_x != !b->edge_x ||
      memcmp(a->cells, b->cells, 4 * sizeof(int) * a->ncell) ||
      memcmp(a->bface, b->bface, 3 * sizeof(int) * a->nbface) ||
      memcmp(a->cell_mat, b->cell_mat, sizeof(int) * a->ncell))
    return 0;
  for (int i = 0; i < 3 * a->nvert; i++)
    if (fabs(a->coords[i] - b->coords[i]) > tol) return 0;
  for (int i = 0; a->edge_x && i < 3 * a->nedge; i++)
    if (fabs(a->edge_x[i] - b->edge_x[i]) > tol) return 0;
  return 1;
}

static void quad_files(void)
{
  femint_mesh_t q4 = quads_ok(data_path("quads.msh"), -1),
                qb = quads_ok(data_path("quads-bin.msh"), -1);
  femint_mesh_t q8 = quads_ok(data_path("quads8-bin.msh"), -1),
                q9 = quads_ok(data_path("quads9.msh"), -1);
  tap_ok(q4->ncell == 8 && q4->nvert == 15 && q4->nedge == 22 && q4->nbface == 12 && !q4->edge_x &&
             femint_mesh_num_nodes(q4) == 4 && femint_mesh_num_nodes(q8) == 8,
         "quads.msh: %d cells, %d vertices, %d edges, %d boundary edges, straight (expected 8, 15, "
         "22, 12)",
         q4->ncell, q4->nvert, q4->nedge, q4->nbface);
  int wrong = 0, count[4] = {0};
  for (int b = 0; b < q4->nbface; b++) {
    const int t = q4->bface[3 * b + 2];
    wrong += t != annulus_tag(q4, b);
    if (t >= 0 && t < 4) count[t]++;
  }
  for (int c = 0; c < q4->ncell; c++) wrong += q4->cell_mat[c] != 7;
  for (int v = 1; v < q4->nvert; v++) wrong += q4->vert_gid[v] <= q4->vert_gid[v - 1];
  tap_ok(wrong == 0 && count[0] == 2 && count[1] == 4 && count[2] == 4 && count[3] == 2,
         "quads.msh: edge tags 1 (r = 1) x%d, 2 (r = 2) x%d, 3 (y = 0) x%d, untagged 0 x%d, "
         "material 7, node tags ascending (%d wrong)",
         count[1], count[2], count[3], count[0], wrong);
  /* The straight cells inscribe the arcs: 4 sectors of angle pi/8 between the radii 1 and 2. */
  const double exact = 3 * M_PI / 4, inscribed = 4 * 0.5 * 3 * sin(M_PI / 8);
  const double a4 = area(q4), a8 = area(q8), a9 = area(q9);
  tap_ok(fabs(a4 - inscribed) < 1e-12, "4-node area %.15g = the inscribed polygons' %.15g", a4,
         inscribed);
  tap_ok(fabs(a8 - exact) < fabs(a4 - exact) / 50 && fabs(a8 - a9) < 1e-14,
         "8- and 9-node area %.15g (9-node %.15g): error %.2e, the 4-node one's %.2e", a8, a9,
         fabs(a8 - exact), fabs(a4 - exact));
  double worst = 0;
  for (int c = 0; c < q8->ncell; c++)
    for (int k = 0; k < 4; k++) {
      const double *x = &q8->edge_x[3 * q8->cell_edge[4 * c + k]];
      const double *p = &q8->coords[3 * q8->cells[4 * c + k]],
                   *q = &q8->coords[3 * q8->cells[4 * c + (k + 1) % 4]];
      const double rp = hypot(p[0], p[1]), rq = hypot(q[0], q[1]);
      /* The node of an edge on the circle r = 1 or 2 lies on it; the others are straight. */
      const int arc = fabs(rp - rq) < 1e-12 && (fabs(rp - 1) < 1e-12 || fabs(rp - 2) < 1e-12);
      worst = fmax(worst, arc ? fabs(hypot(x[0], x[1]) - rp)
                              : hypot(x[0] - (p[0] + q[0]) / 2, x[1] - (p[1] + q[1]) / 2));
    }
  tap_ok(
      worst < 1e-12 && bad_quads(q8) == 0 && bad_quads(q4) == 0,
      "8-node: edge nodes on the boundary circles, the others at the midpoints (%.1e); det J > 0 "
      "on every cell",
      worst);
  tap_ok(same_quads(q8, q9, 1e-15),
         "9-node (2.2, ASCII) and 8-node (4.1, binary) files: the same mesh, centre nodes ignored");
  tap_ok(same_quads(q4, qb, 1e-15), "quads-bin.msh: the same mesh as quads.msh");
  /* The partitioned file: the parts share the cells and the tagged edges. */
  femint_mesh_t all = quads_ok(data_path("quads-part.msh"), -1);
  femint_mesh_t p1 = quads_ok(data_path("quads-part.msh"), 1),
                p2 = quads_ok(data_path("quads-part.msh"), 2);
  int tagged = 0;
  for (int b = 0; b < p1->nbface; b++) tagged += p1->bface[3 * b + 2] != 0;
  for (int b = 0; b < p2->nbface; b++) tagged += p2->bface[3 * b + 2] != 0;
  tap_ok(all->ncell == 8 && all->nvert == 15 && fabs(area(all) - a4) < 1e-14 &&
             p1->ncell + p2->ncell == 8 && p1->ncell > 0 && p2->ncell > 0 &&
             fabs(area(p1) + area(p2) - a4) < 1e-12 && tagged == 10,
         "quads-part.msh: the whole has the cells and area of quads.msh; parts of %d and %d cells, "
         "areas adding up, %d "
         "tagged edges (10)",
         p1->ncell, p2->ncell, tagged);
  femint_mesh_destroy(&q4);
  femint_mesh_destroy(&qb);
  femint_mesh_destroy(&q8);
  femint_mesh_destroy(&q9);
  femint_mesh_destroy(&all);
  femint_mesh_destroy(&p1);
  femint_mesh_destroy(&p2);
}

/* One 9-node quadrangle on [0,2]^2, material 7, nodes i+1 at (i % 3, i / 3), listed
 * counter-clockwise, and a 3-node line tagged 4 on y = 0. */
static const char quad9[] =
    "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n9\n"
    "1 0 0 0\n2 1 0 0\n3 2 0 0\n4 0 1 0\n5 1 1 0\n6 2 1 0\n7 0 2 0\n8 1 2 0\n9 2 2 0\n"
    "$EndNodes\n$Elements\n2\n"
    "1 8 2 4 1 1 3 2\n"
    "2 10 2 7 1 1 3 9 7 2 6 8 4 5\n"
    "$EndElements\n";

/* Expect femint_mesh_read_gmsh to fail with code and a message that begins with "PATH:LINE:" (the
 * line of marker; no marker: "PATH: ") and holds what, in which %d is the line of at (when at is
 * not NULL: a cell named by its element and line). */
static void expect(const char *name, const char *text, const char *marker, int code,
                   const char *what, const char *at)
{
  const char *path = write_file(name, text);
  femint_mesh_t m = (femint_mesh_t)&m;
  const int ierr = femint_mesh_read_gmsh(NULL, path, &m);
  const int line = marker ? line_of(text, marker) : 0;
  char where[256], want[512];
  if (marker)
    snprintf(where, sizeof where, "%.200s:%d: ", path, line);
  else
    snprintf(where, sizeof where, "%.200s: ", path);
  snprintf(want, sizeof want, what, at ? line_of(text, at) : 0);
  const char *msg = femint_last_error(NULL);
  tap_ok(ierr == code && !m && strstr(msg, where) == msg && strstr(msg, want),
         "%s: %s (line %d), \"%s\"", name, femint_error_name(ierr), line, msg);
}

static void quad_cells(void)
{
  femint_mesh_t a = quads_ok(write_file("quad9.msh", quad9), -1), b, c;
  char *s = replace(quad9, "5 1 1 0", "5 7 -3 0");
  b = quads_ok(write_file("centre.msh", s), -1);
  free(s);
  tap_ok(same_quads(a, b, 0) && fabs(area(a) - 4) < 1e-14 && a->bface[2] == 4,
         "9-node cell: area 4, edge tag 4; its centre node moved far away changes nothing");
  s = replace(quad9, "1 3 9 7 2 6 8 4 5", "1 7 9 3 4 8 6 2 5");
  c = quads_ok(write_file("clockwise.msh", s), -1);
  free(s);
  tap_ok(same_quads(a, c, 0) && bad_quads(c) == 0,
         "a clockwise 9-node cell is reversed: the same counter-clockwise cell (det J > 0)");
  femint_mesh_destroy(&a);
  femint_mesh_destroy(&b);
  femint_mesh_destroy(&c);
  s = replace(quad9, "1 8 2 4 1 1 3 2", "1 8 2 4 1 2 8 5");
  expect("inner.msh", s, "1 8 2 4", FEMINT_EMESH,
         "element 1 (3-node line, physical tag 4) is not a boundary edge of the quadrilaterals",
         NULL);
  free(s);
  s = replace(quad9, "6 2 1 0", "6 2 1 0.5");
  expect("plane.msh", s, "2 10 2", FEMINT_ENOTSUP,
         "cell 0 (element 2) has node 6 at z = 0.5: femint's 2D meshes lie in the plane z = 0",
         NULL);
  free(s);
  s = replace(quad9, "1 3 9 7 2 6 8 4 5", "1 3 7 9 2 6 8 4 5");
  expect("tangled.msh", s, NULL, FEMINT_EJACOBIAN,
         "cell 0 (element 2 at line %d) (vertices 0 1 2 3): quadrilateral: det J", "2 10 2");
  free(s);
  /* Two 8-node cells that give their shared edge x = 1 different midpoints. */
  static const char two[] =
      "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n14\n"
      "1 0 0 0\n2 1 0 0\n3 2 0 0\n4 0 1 0\n5 1 1 0\n6 2 1 0\n"
      "7 .5 0 0\n8 1 .5 0\n9 .5 1 0\n10 0 .5 0\n11 1.5 0 0\n12 2 .5 0\n13 1.5 1 0\n14 1.1 .5 0\n"
      "$EndNodes\n$Elements\n2\n"
      "1 16 2 1 1 1 2 5 4 7 8 9 10\n"
      "2 16 2 1 1 2 3 6 5 11 12 13 14\n"
      "$EndElements\n";
  expect("midpoints.msh", two, NULL, FEMINT_EMESH,
         "cell 0 (element 1 at line 23) and cell 1 (element 2 at line 24) give the edge between "
         "vertices 4 and 1 different nodes",
         NULL);
  s = replace(two, "14 1.1 .5 0", "14 1 .5 0");
  femint_mesh_t d = quads_ok(write_file("two.msh", s), -1);
  tap_ok(d->ncell == 2 && fabs(area(d) - 2) < 1e-14,
         "two 8-node cells with distinct but coincident midpoint nodes: area 2");
  femint_mesh_destroy(&d);
  free(s);
}

/* ---- Tetrahedra: tets-cube.geo (the unit cube, material 5, faces x = 0 .. z = 0 tagged 11..15,
 * the top untagged) and tets-ball.geo (the unit ball, material 2, its sphere tagged 1) ---- */

/* The tag tets-cube.geo gives boundary face b from its centroid: 0 on the top z = 1. */
static int cube_tag(femint_mesh_t m, int b)
{
  const int c = m->bface[3 * b], f = m->bface[3 * b + 1];
  double x[3] = {0, 0, 0};
  for (int a = 0; a < 3; a++)
    for (int i = 0; i < 3; i++)
      x[i] += m->coords[3 * m->cells[4 * c + tet_face_vert[f][a]] + i] / 3;
  for (int i = 0; i < 3; i++) {
    if (fabs(x[i]) < 1e-12) return 11 + 2 * i;
    if (fabs(x[i] - 1) < 1e-12) return i == 2 ? 0 : 12 + 2 * i;
  }
  return -1;
}

/* Cells, vertices, edges, faces and boundary faces as a string, and Euler's V - E + F - C. */
static int euler(femint_mesh_t m, char *buf, size_t len)
{
  snprintf(buf, len, "%d cells, %d vertices, %d edges, %d faces, %d on the boundary", m->ncell,
           m->nvert, m->nedge, m->nface, m->nbface);
  return m->nvert - m->nedge + m->nface - m->ncell;
}

/* Whether two tetrahedral meshes have the same cells, tags, materials, ids and coordinates. */
static int same_tets(femint_mesh_t a, femint_mesh_t b, double tol)
{
  if (a->ncell != b->ncell || a->nvert != b->nvert || a->nbface != b->nbface ||
      a->nedge != b->nedge || memcmp(a->cells, b->cells, 4 * sizeof(int) * a->ncell) ||
      memcmp(a->bface, b->bface, 3 * sizeof(int) * a->nbface) ||
      memcmp(a->cell_mat, b->cell_mat, sizeof(int) * a->ncell) ||
      memcmp(a->vert_gid, b->vert_gid, sizeof(int64_t) * a->nvert))
    return 0;
  for (int i = 0; i < 3 * a->nvert; i++)
    if (fabs(a->coords[i] - b->coords[i]) > tol) return 0;
  return 1;
}

static int key_cmp(const void *a, const void *b)
{
  const int64_t *x = a, *y = b;
  for (int i = 0; i < 5; i++)
    if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
}

/* Keys that do not depend on the numbering of a tetrahedral mesh, appended at keys + 5 * (*n): a
 * cell as its vertex global ids (ascending: the cell's order) and its material; a tagged
 * boundary face as its vertex global ids, -1 and its tag. */
static void tet_keys(femint_mesh_t m, int faces, int64_t *keys, int *n)
{
  for (int c = 0; c < m->ncell && !faces; c++, (*n)++) {
    for (int a = 0; a < 4; a++) keys[5 * *n + a] = m->vert_gid[m->cells[4 * c + a]];
    keys[5 * *n + 4] = m->cell_mat[c];
  }
  for (int b = 0; b < m->nbface && faces; b++) {
    const int c = m->bface[3 * b], f = m->bface[3 * b + 1];
    if (m->bface[3 * b + 2] == 0) continue;
    for (int a = 0; a < 3; a++)
      keys[5 * *n + a] = m->vert_gid[m->cells[4 * c + tet_face_vert[f][a]]];
    keys[5 * *n + 3] = -1;
    keys[5 * (*n)++ + 4] = m->bface[3 * b + 2];
  }
}

/* Whether the parts p[0..np) together have the cells (faces: the tagged faces) of the whole, and
 * each vertex of a part the coordinates of the vertex of the whole with its global id. */
static int parts_make_whole(femint_mesh_t whole, femint_mesh_t *p, int np, int faces)
{
  int n[2] = {0, 0}, ok = 1;
  int64_t *k[2] = {malloc(5 * sizeof(int64_t) * (size_t)(whole->ncell + whole->nbface + 1)),
                   malloc(5 * sizeof(int64_t) * (size_t)(whole->ncell + whole->nbface + 1))};
  tet_keys(whole, faces, k[0], &n[0]);
  for (int i = 0; i < np; i++) tet_keys(p[i], faces, k[1], &n[1]);
  for (int s = 0; s < 2; s++) qsort(k[s], (size_t)n[s], 5 * sizeof(int64_t), key_cmp);
  ok = n[0] == n[1] && !memcmp(k[0], k[1], 5 * sizeof(int64_t) * (size_t)n[0]);
  for (int i = 0; i < np; i++)
    for (int v = 0; v < p[i]->nvert; v++) {
      int w = 0;
      while (w < whole->nvert && whole->vert_gid[w] != p[i]->vert_gid[v]) w++;
      ok &= w < whole->nvert &&
            !memcmp(&whole->coords[3 * w], &p[i]->coords[3 * v], 3 * sizeof(double));
    }
  free(k[0]);
  free(k[1]);
  return ok;
}

/* Boundary faces of tag 0. */
static int untagged(femint_mesh_t m)
{
  int n = 0;
  for (int b = 0; b < m->nbface; b++) n += m->bface[3 * b + 2] == 0;
  return n;
}

static void tet_files(void)
{
  size_t len;
  char *text = read_bytes(data_path("tets-cube.msh"), &len), info[200];
  femint_mesh_t t4 = tets_ok(data_path("tets-cube.msh"), -1);
  femint_mesh_t tb = tets_ok(data_path("tets-cube-bin.msh"), -1);
  femint_mesh_t t10 = tets_ok(data_path("tets-cube10.msh"), -1);
  int bad, bad10, wrong = 0, tagged = 0, ntri = 0;
  const int chi = euler(t4, info, sizeof info);
  int nblock = 0, nnode = 0;
  sscanf(strstr(text, "$Nodes\n") + 7, "%d %d", &nblock, &nnode);
  tap_ok(t4->ncell == count_after(text, "\n3 1 4 ") && t4->nvert == nnode &&
             femint_mesh_num_nodes(t4) == 4 && chi == 1,
         "tets-cube.msh: %s as in the file; Euler characteristic %d (1)", info, chi);
  for (int s = 1; s <= 5; s++) {
    char block[32];
    snprintf(block, sizeof block, "\n2 %d 2 ", s);
    ntri += count_after(text, block);
  }
  for (int b = 0; b < t4->nbface; b++) {
    wrong += t4->bface[3 * b + 2] != cube_tag(t4, b);
    tagged += t4->bface[3 * b + 2] >= 11 && t4->bface[3 * b + 2] <= 15;
  }
  tap_ok(wrong == 0 && tagged == ntri && untagged(t4) == t4->nbface - ntri,
         "tets-cube.msh: faces tagged 11..15 by their physical groups (%d, the file's %d "
         "triangles), the top 0 (%d wrong)",
         tagged, ntri, wrong);
  const int *mat;
  const int64_t *gid;
  TAP_CALL(NULL, femint_mesh_cell_materials(t4, &mat));
  TAP_CALL(NULL, femint_mesh_vertex_global_ids(t4, &gid));
  wrong = 0;
  for (int c = 0; c < t4->ncell; c++) wrong += mat[c] != 5 || t10->cell_mat[c] != 5;
  for (int v = 0; v < t4->nvert; v++) wrong += gid[v] != v + 1;
  for (int v = 1; v < t10->nvert; v++) wrong += t10->vert_gid[v] <= t10->vert_gid[v - 1];
  tap_ok(wrong == 0, "tets-cube.msh and tets-cube10.msh: material 5 (the physical volume), global "
                     "ids the node tags (%d wrong)",
         wrong);
  double v4 = tet_volume(t4, &bad), v10 = tet_volume(t10, &bad10), w4, w10;
  TAP_CALL(NULL, femint_mesh_volume(t4, &w4));
  TAP_CALL(NULL, femint_mesh_volume(t10, &w10));
  tap_ok(fabs(v4 - 1) < 1e-13 && fabs(v10 - 1) < 1e-13 && fabs(w4 - 1) < 1e-13 &&
             fabs(w10 - 1) < 1e-13 && bad == 0 && bad10 == 0,
         "cube volumes %.15g (4-node) and %.15g (10-node), femint_mesh_volume %.15g and %.15g, "
         "every cell valid",
         v4, v10, w4, w10);
  tap_ok(same_tets(t4, tb, 1e-15), "tets-cube-bin.msh: the same mesh as tets-cube.msh");
  const double off = edge_node_offset(t10);
  tap_ok(femint_mesh_num_nodes(t10) == 10 && t10->ncell == t4->ncell && off < 1e-14,
         "tets-cube10.msh (2.2): 10-node, every edge node at its edge's midpoint (%.1e)", off);
  /* The partitioned file. */
  femint_mesh_t all = tets_ok(data_path("tets-part.msh"), -1);
  femint_mesh_t p[2] = {tets_ok(data_path("tets-part.msh"), 1),
                        tets_ok(data_path("tets-part.msh"), 2)};
  int tp = 0, b1, b2;
  for (int k = 0; k < 2; k++)
    for (int b = 0; b < p[k]->nbface; b++)
      tp += p[k]->bface[3 * b + 2] >= 11 && p[k]->bface[3 * b + 2] <= 15;
  const double u1 = tet_volume(p[0], &b1), u2 = tet_volume(p[1], &b2);
  tap_ok(all->ncell == t4->ncell && all->nvert == t4->nvert &&
             p[0]->ncell + p[1]->ncell == t4->ncell && p[0]->ncell > 0 && p[1]->ncell > 0 &&
             fabs(u1 + u2 - 1) < 1e-13 && tp == ntri && b1 + b2 == 0,
         "tets-part.msh: the whole has the cells of tets-cube.msh; parts of %d and %d cells, "
         "volumes adding up, %d tagged faces",
         p[0]->ncell, p[1]->ncell, tp);
  const int between = p[0]->nbface + p[1]->nbface - all->nbface;
  tap_ok(parts_make_whole(all, p, 2, 0) && parts_make_whole(all, p, 2, 1) && between > 0 &&
             untagged(p[0]) + untagged(p[1]) == untagged(all) + between,
         "tets-part.msh: the parts together have the cells, materials, tagged faces and vertices "
         "of the whole; the %d faces between them have tag 0",
         between / 2);
  /* The ball: the 10-node cells hold the sphere better. */
  femint_mesh_t s4 = tets_ok(data_path("tets-ball.msh"), -1);
  femint_mesh_t s10 = tets_ok(data_path("tets-ball10-bin.msh"), -1);
  const double exact = 4 * M_PI / 3, r4 = tet_volume(s4, &bad), r10 = tet_volume(s10, &bad10);
  tap_ok(fabs(r10 - exact) < fabs(r4 - exact) / 5 && bad == 0 && bad10 == 0,
         "ball volumes: 4-node %.6f, 10-node %.6f (exact %.6f), every cell valid", r4, r10, exact);
  double sphere = 0;
  int other = 0;
  for (int b = 0; b < s10->nbface; b++) {
    const int c = s10->bface[3 * b], f = s10->bface[3 * b + 1];
    other += s10->bface[3 * b + 2] != 1;
    for (int e = 0; e < TET_NE; e++) {
      if (tet_edge_vert[e][0] == f || tet_edge_vert[e][1] == f) continue; /* not on face f */
      const double *x = &s10->edge_x[3 * s10->cell_edge[6 * c + e]];
      sphere = fmax(sphere, fabs(sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) - 1));
    }
  }
  for (int c = 0; c < s10->ncell; c++) other += s10->cell_mat[c] != 2 || s4->cell_mat[c] != 2;
  const double off10 = edge_node_offset(s10);
  tap_ok(sphere < 1e-9 && off10 < 0.2 && other == 0 && s10->ncell == s4->ncell,
         "ball: material 2, the %d boundary faces tagged 1, their edge nodes on the sphere "
         "(%.1e), every edge node near its edge's midpoint (%.3f of its length)",
         s10->nbface, sphere, off10);
  femint_mesh_t list[] = {t4, tb, t10, all, p[0], p[1], s4, s10};
  for (int k = 0; k < 8; k++) femint_mesh_destroy(&list[k]);
  free(text);
}

/* Two 10-node tetrahedra (1,2,3,4) and (2,3,4,5) sharing the face (2,3,4), their edge nodes moved
 * from the midpoints by 0.01 to 0.09 each so that every edge's node is its own; a triangle tagged
 * 7 on the face (1,2,3). */
static const char two_tets[] =
    "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n15\n"
    "1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n"
    "6 .5 .01 0\n7 .5 .5 .02\n8 .03 .5 0\n9 .04 0 .5\n10 0 .5 .55\n11 .5 .06 .5\n"
    "12 1 .5 .57\n13 .5 .58 1\n14 .59 1 .5\n15 .5 .5 .1\n"
    "$EndNodes\n$Elements\n3\n"
    "1 2 2 7 1 1 2 3\n"
    "2 11 2 5 1 1 2 3 4 6 7 8 9 10 11\n"
    "3 11 2 5 1 2 3 4 5 7 10 11 12 13 14\n"
    "$EndElements\n";

static void tet_cells(void)
{
  femint_mesh_t m = tets_ok(write_file("two-tets.msh", two_tets), -1);
  /* The node each edge must have, by the node tags of its ends (vertex v is node v + 1). */
  static const int expected[][3] = {{1, 2, 6},  {2, 3, 7},  {1, 3, 8},  {1, 4, 9}, {3, 4, 10},
                                    {2, 4, 11}, {2, 5, 12}, {4, 5, 13}, {3, 5, 14}};
  static const double node[][3] = {{.5, .01, 0}, {.5, .5, .02}, {.03, .5, 0},
                                   {.04, 0, .5}, {0, .5, .55},  {.5, .06, .5},
                                   {1, .5, .57}, {.5, .58, 1},  {.59, 1, .5}};
  int wrong = m->nedge != 9 || femint_mesh_num_nodes(m) != 10, tag7 = 0, bad;
  for (int k = 0; k < 9 && !wrong; k++) {
    int e = 0;
    while (e < m->nedge && (m->edge_vert[2 * e] + 1 != expected[k][0] ||
                            m->edge_vert[2 * e + 1] + 1 != expected[k][1]))
      e++;
    wrong +=
        e == m->nedge || memcmp(&m->edge_x[3 * e], node[expected[k][2] - 6], 3 * sizeof(double));
  }
  for (int b = 0; b < m->nbface; b++) tag7 += m->bface[3 * b + 2] == 7;
  for (int v = 0; v < 5; v++) wrong += m->vert_gid[v] != v + 1;
  wrong += m->cell_mat[0] != 5 || m->cell_mat[1] != 5;
  const double vol = tet_volume(m, &bad);
  tap_ok(wrong == 0 && tag7 == 1 && untagged(m) == 5 && bad == 0 && vol > 0.4 && vol < 0.6,
         "two 10-node cells: each edge has the node Gmsh's order gives it, ids and materials "
         "(%d wrong), face tags 7 x%d and 0 x%d, volume %.4f",
         wrong, tag7, untagged(m), vol);
  femint_mesh_destroy(&m);
  /* Edits of the file: the error each must give, at the line of marker, or about a cell named by
   * its element and line (%d: the line of at). */
  static const struct {
    const char *name, *from, *to, *marker;
    int code;
    const char *what, *at;
  } edits[] = {
      {"disagree.msh", "5 7 10 11 12", "5 15 10 11 12", NULL, FEMINT_EMESH,
       "cell 0 (element 2 at line 25) and cell 1 (element 3 at line %d) give the edge between "
       "vertices 1 and 2 different nodes (0.5, 0.5, 0.02) and (0.5, 0.5, 0.1)",
       "3 11 2 5"},
      {"inner-face.msh", "1 2 2 7 1 1 2 3", "1 2 2 7 1 2 3 4", "1 2 2 7", FEMINT_EMESH,
       "element 1 (triangle, physical tag 7) is not a boundary face of the tetrahedra", NULL},
      {"flat.msh", "5 1 1 1", "5 .5 .5 0", NULL, FEMINT_EJACOBIAN,
       "cell 1 (element 3 at line %d) (vertices 1 2 3 4): tetrahedron: det J", "3 11 2 5"},
      {"mixed.msh", "3 11 2 5 1 2 3 4 5 7 10 11 12 13 14", "3 4 2 5 1 2 3 4 5", NULL,
       FEMINT_EMESH,
       "cell 0 (element 3 at line 26) and cell 1 (element 2 at line %d) give the edge between "
       "vertices",
       "2 11 2 5"},
      {"node.msh", "2 3 4 5 7 10 11 12 13 14", "2 3 4 5 7 10 11 12 13 99", "3 11 2 5",
       FEMINT_EMESH, "element 3: unknown node tag 99", NULL},
      {"type.msh", "3 11 2 5 1", "3 250 2 5 1", "3 250 2", FEMINT_EMESH,
       "element type 250 is unknown", NULL},
      {"count.msh", "$Elements\n3", "$Elements\n4", "$EndElements", FEMINT_EMESH,
       "$Elements section ends early", NULL}};
  char *s;
  for (size_t k = 0; k < sizeof edits / sizeof edits[0]; k++) {
    s = replace(two_tets, edits[k].from, edits[k].to);
    expect(edits[k].name, s, edits[k].marker, edits[k].code, edits[k].what, edits[k].at);
    free(s);
  }
  s = replace(two_tets, "15 .5 .5 .1\n$EndNodes\n", "15 .5 .5 .1\n");
  *strstr(s, "$Elements") = '\0';
  expect("cut.msh", s, "15 .5 .5 .1", FEMINT_EMESH, "file ends inside the $Nodes section", NULL);
  free(s);
  s = replace(quad9, "$Elements\n2", "$Elements\n1");
  *strstr(s, "2 10 2 7") = '\0';
  strcat(s, "$EndElements\n");
  expect("nocell.msh", s, NULL, FEMINT_EMESH, "the file has no cell", NULL);
  free(s);
  /* Shapes refused, named with their count, the first of them and the file's cells. */
  static const struct {
    const char *to, *what, *list;
  } shapes[] = {
      {"3 5 2 5 1 1 2 3 4 5 6 7 8", "1 hexahedron (Gmsh type 5)",
       "the file's cells: 1 hexahedron (type 5), 1 10-node tetrahedron (type 11)"},
      {"3 17 2 5 1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 1 2 3 4 5",
       "1 20-node hexahedron (Gmsh type 17)",
       "the file's cells: 1 10-node tetrahedron (type 11), 1 20-node hexahedron (type 17)"},
      {"3 12 2 5 1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 1 2 3 4 5 6 7 8 9 10 11 12",
       "1 27-node hexahedron (Gmsh type 12)",
       "the file's cells: 1 10-node tetrahedron (type 11), 1 27-node hexahedron (type 12)"},
      {"3 7 2 5 1 1 2 3 4 5", "1 pyramid (Gmsh type 7)",
       "the file's cells: 1 pyramid (type 7), 1 10-node tetrahedron (type 11)"}};
  for (int k = 0; k < 4; k++) {
    s = replace(two_tets, "3 11 2 5 1 2 3 4 5 7 10 11 12 13 14", shapes[k].to);
    char want[300];
    snprintf(want, sizeof want,
             "%s: this femint mesh holds 4- and 10-node tetrahedra only (the first is element 3 "
             "at line 26); %s",
             shapes[k].what, shapes[k].list);
    expect("shape.msh", s, NULL, FEMINT_ENOTSUP, want, NULL);
    free(s);
  }
}

/* A binary file: an unknown element type and a bad node tag named by their byte offsets. */
static void tet_binary(void)
{
  size_t len;
  char *buf = read_bytes(data_path("tets-cube-bin.msh"), &len);
  const int32_t type = 250;
  const uint64_t tag = 999999;
  const size_t block = data_of(buf, len, "$Elements") + 32, first = block + 20;
  static const char *const what[2] = {"element type 250 is unknown", "unknown node tag 999999"};
  for (int k = 0; k < 2; k++) {
    const size_t at = k ? first + 8 : block + 8;
    const char *path =
        k ? patch("node.msh", buf, len, at, &tag, 8) : patch("type.msh", buf, len, at, &type, 4);
    femint_mesh_t m = (femint_mesh_t)&m;
    char where[256];
    const int ierr = femint_mesh_read_gmsh(NULL, path, &m);
    snprintf(where, sizeof where, "%s: byte %zu:", path, at);
    const char *msg = femint_last_error(NULL);
    tap_ok(ierr == FEMINT_EMESH && !m && strstr(msg, where) == msg && strstr(msg, what[k]),
           "binary: %s at byte %zu, \"%s\"", femint_error_name(ierr), at, msg);
  }
  free(buf);
}

/* ---- Fuzzing ---- */

/* Whether a read of path gives a mesh whose every cell femint's check accepts, or an error with a
 * message that names the file. */
static int read_is_sane(const char *path, int *failed)
{
  femint_mesh_t m = (femint_mesh_t)&m;
  const int ierr = femint_mesh_read_gmsh(NULL, path, &m);
  const char *msg = femint_last_error(NULL);
  if ((*failed = ierr != 0))
    return !m && (ierr == FEMINT_EMESH || ierr == FEMINT_ENOTSUP || ierr == FEMINT_EJACOBIAN) &&
           strncmp(msg, path, strlen(path)) == 0 && strlen(msg) > strlen(path) + 4;
  int ok = m && m->ncell > 0;
  for (int c = 0; ok && c < m->ncell; c++) ok = mesh_check_geometry(m, c) == 0;
  femint_mesh_destroy(&m);
  return ok;
}

int main(void)
{
  test_dir_create("t207");
  quad_files();
  quad_cells();
  tet_files();
  tet_cells();
  tet_binary();
  fuzz("quad9.msh", quad9, strlen(quad9), 1, 300, 1, read_is_sane);
  fuzz("two-tets.msh", two_tets, strlen(two_tets), 1, 300, 2, read_is_sane);
  static const char *const fuzzed[] = {"quads8-bin.msh", "quads9.msh", "tets-cube10.msh",
                                       "tets-ball10-bin.msh", "tets-part.msh"};
  for (int i = 0; i < 5; i++) {
    size_t len;
    char *buf = read_bytes(data_path(fuzzed[i]), &len);
    fuzz(fuzzed[i], buf, len, 0, 300, 10 + i, read_is_sane);
    free(buf);
  }
  test_dir_remove();
  return tap_done();
}
