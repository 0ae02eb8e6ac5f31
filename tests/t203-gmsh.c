/* Test: Gmsh MSH 2.2 and 4.1 files give prism meshes with boundary tags; bad files name the line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "femint.h"
#include "host/host.h"
#include "tap.h"

static char dir[] = "/tmp/femint-t203.XXXXXX";
static char paths[32][128];
static int npath;

/* Write text to a file of the temporary folder; its path. */
static const char *write_file(const char *name, const char *text)
{
  if (npath == (int)(sizeof paths / sizeof paths[0])) {
    printf("Bail out! too many files\n");
    exit(1);
  }
  char *path = paths[npath++];
  snprintf(path, sizeof paths[0], "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
    printf("Bail out! cannot write %s\n", path);
    exit(1);
  }
  return path;
}

/* The number of the first line of text that contains needle. */
static int line_of(const char *text, const char *needle)
{
  const char *at = strstr(text, needle);
  int line = 1;
  for (const char *s = text; at && s < at; s++) line += *s == '\n';
  return at ? line : -1;
}

/* Whether the last error message contains "PATH:LINE:" and what. */
static int names_line(const char *path, int line, const char *what)
{
  char where[200];
  snprintf(where, sizeof where, "%s:%d:", path, line);
  const char *msg = femint_last_error(NULL);
  return strstr(msg, where) == msg && strstr(msg, what) != NULL;
}

/* The unit cube cut along its diagonal (0,0)-(1,1) into 2 prisms, nodes 1..8 (4 at z = 0, 4 at
 * z = 1, counter-clockwise), with a point and a line (ignored), boundary triangles tagged 10 at
 * z = 0 and 20 at z = 1, quadrangles 31..34 on x = 0, x = 1, y = 0, y = 1 (one listed in another
 * vertex order, one without a physical tag). */
static const char cube22[] =
    "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"
    "$PhysicalNames\n2\n2 10 \"bottom\"\n3 100 \"solid\"\n$EndPhysicalNames\n"
    "$Nodes\n8\n"
    "1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n5 0 0 1\n6 1 0 1\n7 1 1 1\n8 0 1 1\n"
    "$EndNodes\n"
    "$Elements\n13\n"
    "1 15 2 0 1 1\n"
    "2 1 2 0 1 1 2\n"
    "10 2 2 10 1 1 3 2\n"
    "11 2 2 10 1 1 4 3\n"
    "12 2 2 20 2 5 6 7\n"
    "13 2 2 20 2 5 7 8\n"
    "20 3 2 31 3 1 5 8 4\n"
    "21 3 2 32 3 2 3 7 6\n"
    "22 3 2 33 3 6 5 1 2\n"
    "23 3 0 1 3 7 5\n"
    "24 3 2 34 3 4 8 7 3\n"
    "30 6 2 100 1 1 2 3 5 6 7\n"
    "31 6 2 100 1 1 3 4 5 7 8\n"
    "$EndElements\n";

/* The same mesh in MSH 4.1: surfaces 1..7 carry the physical tags (surface 5 two of them, the
 * interior diagonal surface 7 none), nodes in two blocks, elements by surface. */
static const char cube41[] =
    "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
    "$PhysicalNames\n1\n2 10 \"bottom\"\n$EndPhysicalNames\n"
    "$Entities\n1 0 7 1\n"
    "1 0 0 0 0\n"
    "1 0 0 0 1 1 0 1 10 0\n"
    "2 0 0 1 1 1 1 1 20 0\n"
    "3 0 0 0 0 1 1 1 31 0\n"
    "4 1 0 0 1 1 1 1 32 0\n"
    "5 0 0 0 1 0 1 2 33 99 0\n"
    "6 0 1 0 1 1 1 1 34 0\n"
    "7 0 0 0 1 1 1 0 0\n"
    "1 0 0 0 1 1 1 1 100 0\n"
    "$EndEntities\n"
    "$Nodes\n2 8 1 8\n"
    "2 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n"
    "2 2 0 4\n5\n6\n7\n8\n0 0 1\n1 0 1\n1 1 1\n0 1 1\n"
    "$EndNodes\n"
    "$Elements\n9 12 1 31\n"
    "0 1 15 1\n1 1\n"
    "2 1 2 2\n10 1 3 2\n11 1 4 3\n"
    "2 2 2 2\n12 5 6 7\n13 5 7 8\n"
    "2 3 3 1\n20 1 5 8 4\n"
    "2 4 3 1\n21 2 3 7 6\n"
    "2 5 3 1\n22 6 5 1 2\n"
    "2 7 3 1\n23 1 3 7 5\n"
    "2 6 3 1\n24 4 8 7 3\n"
    "3 1 6 2\n30 1 2 3 5 6 7\n31 1 3 4 5 7 8\n"
    "$EndElements\n";

/* The expected tag of a boundary face of the cube from its centroid. */
static int cube_tag(femint_mesh_t m, int b)
{
  int c = m->bface[3 * b], f = m->bface[3 * b + 1], nv = f < 2 ? 3 : 4;
  double xc[3] = {0, 0, 0};
  for (int j = 0; j < nv; j++)
    for (int i = 0; i < 3; i++)
      xc[i] += m->coords[3 * m->cells[6 * c + prism_face_vert[f][j]] + i] / nv;
  static const int tags[3][2] = {{31, 32}, {33, 34}, {10, 20}};
  for (int i = 0; i < 3; i++)
    for (int s = 0; s < 2; s++)
      if (fabs(xc[i] - s) < 1e-12) return tags[i][s];
  return -1;
}

/* Write a mesh as MSH 2.2 through the public accessors, with node tag 10 + 7 v for vertex v
 * (the vertices of a cell found by their coordinates), each cell in one of 3 equivalent vertex
 * orders, and the boundary faces on the planes of [0,L] tagged 1..6 as femint_mesh_create_box
 * tags them. */
static const char *write_mesh(femint_mesh_t m, const double *L, const char *name)
{
  static const int order[3][6] = {{0, 1, 2, 3, 4, 5}, {1, 2, 0, 4, 5, 3}, {3, 5, 4, 0, 2, 1}};
  int nv = femint_mesh_num_vertices(m), nc = femint_mesh_num_cells(m), nface = 0;
  size_t len = 200 + 80 * (size_t)nv + 300 * (size_t)nc, n = 0, nf = 0;
  char *text = malloc(len), *faces = malloc(len);
  double *x = malloc(3 * (size_t)nv * sizeof *x);
  int *id = malloc(6 * (size_t)nc * sizeof *id);
  for (int v = 0; v < nv; v++) femint_mesh_vertex_coords(m, v, &x[3 * v]);
  for (int c = 0; c < nc; c++) {
    double X[18];
    int *cv = &id[6 * c];
    femint_mesh_cell_coords(m, c, X);
    for (int a = 0; a < 6; a++)
      for (cv[a] = 0; cv[a] < nv && memcmp(&x[3 * cv[a]], &X[3 * a], 3 * sizeof *x); cv[a]++) {
      }
    for (int f = 0; f < PRISM_NF; f++) {
      int fnv = f < 2 ? 3 : 4, tag = 0;
      for (int d = 0; d < 3 && !tag; d++)
        for (int s = 0; s < 2 && !tag; s++) {
          int on = 1;
          for (int j = 0; j < fnv; j++) on &= x[3 * cv[prism_face_vert[f][j]] + d] == s * L[d];
          if (on) tag = 2 * d + s + 1;
        }
      if (!tag) continue;
      nf += snprintf(faces + nf, len - nf, "%d %d 2 %d 0", 1000 + 3 * nface++, fnv == 3 ? 2 : 3,
                     tag);
      for (int j = 0; j < fnv; j++)
        nf += snprintf(faces + nf, len - nf, " %d", 10 + 7 * cv[prism_face_vert[f][j]]);
      nf += snprintf(faces + nf, len - nf, "\n");
    }
  }
  n += snprintf(text + n, len - n, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n%d\n", nv);
  for (int v = 0; v < nv; v++)
    n += snprintf(text + n, len - n, "%d %.17g %.17g %.17g\n", 10 + 7 * v, x[3 * v],
                  x[3 * v + 1], x[3 * v + 2]);
  n += snprintf(text + n, len - n, "$EndNodes\n$Elements\n%d\n%s", nface + nc, faces);
  for (int c = 0; c < nc; c++) {
    n += snprintf(text + n, len - n, "%d 6 2 1 1", 5 + 3 * c);
    for (int a = 0; a < 6; a++)
      n += snprintf(text + n, len - n, " %d", 10 + 7 * id[6 * c + order[c % 3][a]]);
    n += snprintf(text + n, len - n, "\n");
  }
  snprintf(text + n, len - n, "$EndElements\n");
  const char *path = write_file(name, text);
  free(text);
  free(faces);
  free(x);
  free(id);
  return path;
}

/* A copy of text with the first occurrence of from replaced by to. */
static char *replace(const char *text, const char *from, const char *to)
{
  const char *at = strstr(text, from);
  if (!at) {
    printf("Bail out! '%s' is not in the text\n", from);
    exit(1);
  }
  size_t n = strlen(text) + strlen(to) + 1, k = (size_t)(at - text);
  char *s = malloc(n);
  memcpy(s, text, k);
  snprintf(s + k, n - k, "%s%s", to, at + strlen(from));
  return s;
}

/* Expect a failure with code and a message that names path:line: and what. */
static void expect_error(const char *name, const char *text, const char *marker, int code,
                         const char *what)
{
  femint_mesh_t m = (femint_mesh_t)&m;
  const char *path = write_file(name, text);
  int line = marker ? line_of(text, marker) : 0;
  int ierr = femint_mesh_read_gmsh(NULL, path, &m);
  int named = marker ? names_line(path, line, what) : strstr(femint_last_error(NULL), what) != NULL;
  tap_ok(ierr == code && m == NULL && named, "%s: %s (line %d), \"%s\"", name,
         femint_error_name(ierr), line, femint_last_error(NULL));
}

int main(void)
{
  if (!mkdtemp(dir)) {
    printf("Bail out! mkdtemp failed\n");
    return 1;
  }
  femint_mesh_t a = NULL, b = NULL, box = NULL, c = NULL;
  double vol;

  /* (a) MSH 2.2. */
  TAP_CALL(NULL, femint_mesh_read_gmsh(NULL, write_file("cube22.msh", cube22), &a));
  tap_ok(femint_mesh_num_cells(a) == 2 && femint_mesh_num_vertices(a) == 8 &&
             femint_mesh_num_boundary_faces(a) == 8,
         "2.2: %d cells, %d vertices, %d boundary faces (expected 2, 8, 8)",
         femint_mesh_num_cells(a), femint_mesh_num_vertices(a), femint_mesh_num_boundary_faces(a));
  int wrong = 0;
  for (int k = 0; k < a->nbface; k++) wrong += a->bface[3 * k + 2] != cube_tag(a, k);
  tap_ok(wrong == 0, "2.2: tags 10, 20, 31..34 on their faces (%d wrong)", wrong);
  TAP_CALL(NULL, femint_mesh_volume(a, &vol));
  tap_ok(fabs(vol - 1) < 1e-14, "2.2: volume %.17g (expected 1)", vol);

  /* (b) MSH 4.1: the same cells, coordinates and tags (surface 5's first physical tag). */
  TAP_CALL(NULL, femint_mesh_read_gmsh(NULL, write_file("cube41.msh", cube41), &b));
  int same = b->ncell == a->ncell && b->nvert == a->nvert && b->nbface == a->nbface &&
             !memcmp(a->cells, b->cells, 6 * sizeof(int) * a->ncell) &&
             !memcmp(a->coords, b->coords, 3 * sizeof(double) * a->nvert);
  int bt = 0;
  for (int k = 0; same && k < b->nbface; k++) bt += b->bface[3 * k + 2] != cube_tag(b, k);
  tap_ok(same && bt == 0,
         "4.1: the same cells and coordinates as 2.2, tags from $Entities (%d wrong)", bt);

  /* (c) A perturbed box written by the public accessors and read back. */
  const double L[3] = {1.5, 1.0, 2.0};
  TAP_CALL(NULL, femint_mesh_create_box(NULL, 3, 2, 2, L[0], L[1], L[2], 0.3, 5, &box));
  TAP_CALL(NULL, femint_mesh_read_gmsh(NULL, write_mesh(box, L, "box.msh"), &c));
  double vbox, vc;
  TAP_CALL(NULL, femint_mesh_volume(box, &vbox));
  TAP_CALL(NULL, femint_mesh_volume(c, &vc));
  tap_ok(femint_mesh_num_cells(c) == femint_mesh_num_cells(box) &&
             femint_mesh_num_vertices(c) == femint_mesh_num_vertices(box) &&
             fabs(vc - vbox) < 1e-12 && fabs(vbox - 3.0) < 1e-12,
         "box read back: %d cells, %d vertices, volume %.15g (box %.15g)", femint_mesh_num_cells(c),
         femint_mesh_num_vertices(c), vc, vbox);
  tap_ok(c->nbface == box->nbface &&
             !memcmp(c->cells, box->cells, 6 * sizeof(int) * box->ncell) &&
             !memcmp(c->bface, box->bface, 3 * sizeof(int) * box->nbface),
         "box read back: the same normalized cells and boundary tags (cells in 3 vertex orders)");
  femint_space_t space = NULL;
  int ierr = femint_space_create(NULL, c, 3, NULL, 3, &space);
  tap_ok(ierr == 0, "order 3 space on the mesh read back: %s", femint_error_name(ierr));
  femint_space_destroy(&space);

  /* (d) Errors. */
  char missing[160];
  snprintf(missing, sizeof missing, "%s/missing.msh", dir);
  femint_mesh_t m = (femint_mesh_t)&m;
  ierr = femint_mesh_read_gmsh(NULL, missing, &m);
  tap_ok(ierr == FEMINT_EIO && m == NULL && strstr(femint_last_error(NULL), missing) &&
             strstr(femint_last_error(NULL), "No such file"),
         "a missing file: %s, \"%s\"", femint_error_name(ierr), femint_last_error(NULL));
  char *s = replace(cube22, "31 6 2 100 1 1 3 4 5 7 8", "31 4 2 100 1 1 3 4 5");
  expect_error("tetra.msh", s, NULL, FEMINT_ENOTSUP,
               "1 tetrahedron (Gmsh type 4): this femint mesh holds prisms only (the first is "
               "element 31 at line 34)");
  free(s);
  s = replace(cube41, "3 1 6 2", "3 1 13 2");
  expect_error("prism18.msh", s, "30 1 2 3 5 6 7", FEMINT_EMESH,
               "expected a node tag (element type 13 has 18 nodes), found the end of the line");
  free(s);
  s = replace(cube22, "7 1 1 1\n8 0 1 1\n", "");
  expect_error("truncated.msh", s, "$EndNodes", FEMINT_EMESH, "$Nodes section ends early");
  free(s);
  s = replace(cube22, "$EndNodes\n", "");
  *strstr(s, "$Elements") = '\0';
  expect_error("eof.msh", s, "8 0 1 1", FEMINT_EMESH, "file ends inside the $Nodes section");
  free(s);
  s = replace(cube22, "20 2 5 6 7\n", "20 2 5 6 99\n");
  expect_error("unknown.msh", s, "5 6 99", FEMINT_EMESH, "unknown node tag 99");
  free(s);
  s = replace(cube22, "8 0 1 1", "8 0 1 -1");
  expect_error("tangled.msh", s, "31 6 2", FEMINT_EJACOBIAN, "cell 1 (element 31)");
  free(s);
  s = replace(cube22, "2 1 0 0\n", "2 1 0 zero\n");
  expect_error("number.msh", s, "1 0 zero", FEMINT_EMESH, "'zero'");
  free(s);
  s = replace(cube22, "23 3 0 1 3 7 5", "23 3 1 35 1 3 7 5");
  expect_error("interior.msh", s, "23 3 1 35", FEMINT_EMESH, "not a boundary face");
  free(s);
  s = replace(cube22, "$Elements\n13", "$Elements\n14");
  expect_error("count.msh", s, "$EndElements", FEMINT_EMESH, "$Elements section ends early");
  free(s);
  s = replace(cube41, "4.1 0 8", "4.1 1 8");
  expect_error("notbinary.msh", s, NULL, FEMINT_EMESH, "byte 20: the byte-order marker");
  free(s);
  s = replace(cube22, "2.2 0 8", "2.2 1 8");
  expect_error("binary.msh", s, "2.2 1 8", FEMINT_ENOTSUP, "binary");
  free(s);
  s = replace(cube41, "4.1 0 8", "4.0 0 8");
  expect_error("v40.msh", s, "4.0 0 8", FEMINT_ENOTSUP, "version 4");
  free(s);
  s = replace(cube22, "$Nodes", "$Nodez");
  expect_error("nonodes.msh", s, "$Nodez", FEMINT_EMESH, "no $EndNodez");
  free(s);
  expect_error("notmsh.msh", "hello\n", "hello", FEMINT_EMESH, "not a Gmsh MSH file");
  s = replace(cube22, "$Elements", "");
  *strstr(s, "\n13\n") = '\0';
  expect_error("noelements.msh", s, "$EndNodes", FEMINT_EMESH, "without a $Elements section");
  free(s);
  s = replace(cube41, "2 5 3 1", "2 55 3 1");
  expect_error("entity.msh", s, "2 55 3 1", FEMINT_EMESH, "surface 55");
  free(s);

  femint_mesh_destroy(&a);
  femint_mesh_destroy(&b);
  femint_mesh_destroy(&c);
  femint_mesh_destroy(&box);
  for (int i = 0; i < npath; i++) unlink(paths[i]);
  rmdir(dir);
  return tap_done();
}
