/* Test: Gmsh MSH files (2.2, 4.1 ASCII and binary, partitioned) give prism meshes with tags,
 * materials and global ids (and a file of tetrahedra a tetrahedral mesh); bad, truncated and
 * corrupted files and other shapes give errors that name the place. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "femint.h"
#include "host/host.h"
#include "common.h"
#include "host/mesh.h"
#include "gmsh_common.h"

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

/* Expect a failure with code and a message "PATH: ..." that holds what, whose %d is the line of
 * marker (a cell named by its element and line). */
static void expect_cell(const char *name, const char *text, const char *marker, int code,
                        const char *what)
{
  femint_mesh_t m = (femint_mesh_t)&m;
  const char *path = write_file(name, text);
  char want[256];
  snprintf(want, sizeof want, what, line_of(text, marker));
  int ierr = femint_mesh_read_gmsh(NULL, path, &m);
  tap_ok(ierr == code && m == NULL && names_file(path, want), "%s: %s, \"%s\"", name,
         femint_error_name(ierr), femint_last_error(NULL));
}

/* ---- Files written by the gmsh program (tests/data, see make-meshes.sh) ---- */

static femint_mesh_t read_ok(const char *path, int part)
{
  femint_mesh_t m = NULL;
  int ierr = femint_mesh_read_gmsh_part(NULL, path, part, &m);
  if (ierr) {
    printf("Bail out! reading %s (part %d): %s\n", path, part, femint_last_error(NULL));
    exit(1);
  }
  return m;
}

/* The cells of a mesh with a non-positive Jacobian somewhere (a fuzzed file may give a mesh of
 * another shape: its cells are checked as femint checks them). */
static int tangled_cells(femint_mesh_t m)
{
  int bad = 0;
  for (int c = 0; c < femint_mesh_num_cells(m); c++) {
    double X[18], det, xi[3];
    femint_mesh_cell_coords(m, c, X);
    bad += femint_mesh_shape(m) == FEMINT_PRISM ? !mesh_check_cell(X, &det, xi)
                                                : mesh_check_geometry(m, c) != 0;
  }
  return bad;
}

static int key_cmp(const void *a, const void *b)
{
  const int64_t *x = a, *y = b;
  for (int i = 0; i < 7; i++)
    if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
}

static void sort_ids(int64_t *v, int n)
{
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
      int64_t t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
}

/* Keys that do not depend on the numbering of a mesh, appended at keys + 7 * (*n): a cell as
 * its sorted vertex global ids and its material; a tagged boundary face as its sorted vertex
 * global ids (-1 for a triangle's fourth) and its tag, padded with 0. */
static void mesh_keys(femint_mesh_t m, int faces, int64_t *keys, int *n)
{
  const int64_t *gid;
  const int *mat;
  femint_mesh_vertex_global_ids(m, &gid);
  femint_mesh_cell_materials(m, &mat);
  if (!faces) {
    for (int c = 0; c < m->ncell; c++, (*n)++) {
      int64_t *k = &keys[7 * (size_t)*n];
      for (int a = 0; a < 6; a++) k[a] = gid[m->cells[6 * c + a]];
      sort_ids(k, 6);
      k[6] = mat[c];
    }
    return;
  }
  for (int b = 0; b < m->nbface; b++) {
    int c = m->bface[3 * b], f = m->bface[3 * b + 1];
    if (m->bface[3 * b + 2] == 0) continue;
    int64_t *k = &keys[7 * (size_t)(*n)++];
    for (int j = 0; j < 4; j++) {
      int lv = prism_face_vert[f][j];
      k[j] = lv < 0 ? -1 : gid[m->cells[6 * c + lv]];
    }
    sort_ids(k, 4);
    k[4] = m->bface[3 * b + 2];
    k[5] = k[6] = 0;
  }
}

/* Whether the meshes of list a and of list b have the same cells (faces: tagged faces), the
 * same vertex coordinates for the same global id, and each global id once per mesh. */
static int same_meshes(femint_mesh_t *a, int na, femint_mesh_t *b, int nb, int faces)
{
  int n[2] = {0, 0}, cap = 0, ok = 1;
  for (int i = 0; i < na; i++) cap += a[i]->ncell * 5;
  for (int i = 0; i < nb; i++) cap = cap > b[i]->ncell * 5 ? cap : b[i]->ncell * 5;
  int64_t *k[2] = {malloc(7 * sizeof(int64_t) * (size_t)(cap + 1)),
                   malloc(7 * sizeof(int64_t) * (size_t)(cap + 1))};
  for (int i = 0; i < na; i++) mesh_keys(a[i], faces, k[0], &n[0]);
  for (int i = 0; i < nb; i++) mesh_keys(b[i], faces, k[1], &n[1]);
  for (int s = 0; s < 2; s++) qsort(k[s], (size_t)n[s], 7 * sizeof(int64_t), key_cmp);
  ok = n[0] == n[1] && !memcmp(k[0], k[1], 7 * sizeof(int64_t) * (size_t)n[0]);
  /* Coordinates by global id: every vertex of b[] against the vertex of a[] with its id. */
  for (int j = 0; ok && j < nb; j++)
    for (int v = 0; ok && v < b[j]->nvert; v++) {
      int found = 0;
      for (int i = 0; i < na; i++)
        for (int w = 0; w < a[i]->nvert; w++)
          if (a[i]->vert_gid[w] == b[j]->vert_gid[v]) {
            found = 1;
            ok &= tap_reldiff(&a[i]->coords[3 * w], &b[j]->coords[3 * v], 3) < 1e-15;
          }
      ok &= found;
      for (int w = 0; w < v; w++) ok &= b[j]->vert_gid[w] != b[j]->vert_gid[v];
    }
  free(k[0]);
  free(k[1]);
  return ok;
}

/* The expected tag of a boundary face of prisms.geo from its centroid, and the material of a
 * cell. */
static int prisms_tag(femint_mesh_t m, int b)
{
  int c = m->bface[3 * b], f = m->bface[3 * b + 1], nv = f < 2 ? 3 : 4;
  double z = 0;
  for (int j = 0; j < nv; j++) z += m->coords[3 * m->cells[6 * c + prism_face_vert[f][j]] + 2] / nv;
  return fabs(z) < 1e-12 ? 10 : fabs(z - 1) < 1e-12 ? 20 : 30;
}

static int prisms_material(femint_mesh_t m, int c)
{
  double X[18], x = 0;
  femint_mesh_cell_coords(m, c, X);
  for (int a = 0; a < 6; a++) x += X[3 * a] / 6;
  return x < 1 ? 100 : 200;
}

/* Check the meshes of the files written by gmsh from prisms.geo and prisms-part.geo. */
static void gmsh_files(void)
{
  femint_mesh_t ascii = read_ok(data_path("prisms.msh"), -1);
  femint_mesh_t bin = read_ok(data_path("prisms-bin.msh"), -1);
  femint_mesh_t whole = read_ok(data_path("prisms-part.msh"), -1);
  femint_mesh_t part[2], split[2], ghost[2];
  for (int k = 0; k < 2; k++) {
    char name[64];
    part[k] = read_ok(data_path("prisms-part.msh"), k + 1);
    snprintf(name, sizeof name, "prisms-split_%d.msh", k + 1);
    split[k] = read_ok(data_path(name), -1);
    snprintf(name, sizeof name, "prisms-ghost_%d.msh", k + 1);
    ghost[k] = read_ok(data_path(name), -1);
  }
  femint_mesh_t all[] = {ascii, bin, whole, part[0], part[1], split[0], split[1], ghost[0],
                         ghost[1]};
  double vol;
  TAP_CALL(NULL, femint_mesh_volume(ascii, &vol));
  tap_ok(ascii->ncell == 56 && ascii->nvert == 63 && ascii->nbface == 80 && fabs(vol - 2) < 1e-12,
         "prisms.msh: %d cells, %d vertices, %d boundary faces, volume %.15g (expected 56, 63, "
         "80, 2)",
         ascii->ncell, ascii->nvert, ascii->nbface, vol);
  int wrong = 0, untagged = 0, mwrong = 0;
  const int *mat;
  for (int b = 0; b < ascii->nbface; b++) wrong += ascii->bface[3 * b + 2] != prisms_tag(ascii, b);
  TAP_CALL(NULL, femint_mesh_cell_materials(ascii, &mat));
  for (int c = 0; c < ascii->ncell; c++) mwrong += mat[c] != prisms_material(ascii, c);
  tap_ok(wrong == 0 && mwrong == 0,
         "prisms.msh: boundary tags 10 (bottom), 20 (top), 30 (sides) (%d wrong); materials "
         "100 (x < 1), 200 (x > 1) (%d wrong)",
         wrong, mwrong);
  const int64_t *gid;
  TAP_CALL(NULL, femint_mesh_vertex_global_ids(ascii, &gid));
  wrong = 0;
  for (int v = 0; v < ascii->nvert; v++) wrong += gid[v] != v + 1;
  tap_ok(wrong == 0, "prisms.msh: global ids are the node tags 1..63 (%d wrong)", wrong);
  int tangled = 0;
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) tangled += tangled_cells(all[i]);
  tap_ok(tangled == 0, "every cell of the 9 meshes read has det J > 0 (%d do not)", tangled);
  const int *bmat;
  femint_mesh_cell_materials(bin, &bmat);
  int same = bin->ncell == ascii->ncell && bin->nvert == ascii->nvert &&
             bin->nbface == ascii->nbface &&
             !memcmp(bin->cells, ascii->cells, 6 * sizeof(int) * ascii->ncell) &&
             tap_reldiff(bin->coords, ascii->coords, 3 * (size_t)ascii->nvert) < 1e-15 &&
             !memcmp(bin->bface, ascii->bface, 3 * sizeof(int) * ascii->nbface) &&
             !memcmp(bin->vert_gid, ascii->vert_gid, sizeof(int64_t) * ascii->nvert) &&
             !memcmp(bmat, mat, sizeof(int) * ascii->ncell);
  tap_ok(same, "binary 4.1 == ASCII 4.1: the same cells, tags, materials, ids and coordinates "
               "(to the 16 digits of the ASCII file)");
  femint_mesh_t be = read_ok(data_path("prisms-bin-be.msh"), -1);
  tap_ok(be->ncell == bin->ncell && be->nvert == bin->nvert && be->nbface == bin->nbface &&
             !memcmp(be->cells, bin->cells, 6 * sizeof(int) * bin->ncell) &&
             !memcmp(be->coords, bin->coords, 3 * sizeof(double) * bin->nvert) &&
             !memcmp(be->bface, bin->bface, 3 * sizeof(int) * bin->nbface) &&
             !memcmp(be->vert_gid, bin->vert_gid, sizeof(int64_t) * bin->nvert) &&
             !memcmp(be->cell_mat, bin->cell_mat, sizeof(int) * bin->ncell),
         "binary 4.1 in the other byte order: the same mesh");
  femint_mesh_destroy(&be);
  tap_ok(same_meshes(&ascii, 1, &whole, 1, 0) && same_meshes(&ascii, 1, &whole, 1, 1),
         "the partitioned file read whole: the cells, materials, tagged faces and coordinates "
         "of prisms.msh");
  tap_ok(part[0]->ncell + part[1]->ncell == 56 && part[0]->ncell > 0 && part[1]->ncell > 0 &&
             same_meshes(&whole, 1, part, 2, 0) && same_meshes(&whole, 1, part, 2, 1),
         "partitions 1 and 2 (%d + %d cells) together: the cells, materials, tagged faces and "
         "coordinates of the whole",
         part[0]->ncell, part[1]->ncell);
  untagged = 0;
  for (int k = 0; k < 2; k++)
    for (int b = 0; b < part[k]->nbface; b++) untagged += part[k]->bface[3 * b + 2] == 0;
  tap_ok(untagged > 0 && untagged == part[0]->nbface + part[1]->nbface - ascii->nbface,
         "the faces between the partitions are boundary faces of tag 0 (%d)", untagged);
  int ok = 1;
  for (int k = 0; k < 2; k++)
    ok &= split[k]->ncell == part[k]->ncell && split[k]->nvert == part[k]->nvert &&
          same_meshes(&part[k], 1, &split[k], 1, 0) && same_meshes(&part[k], 1, &split[k], 1, 1);
  tap_ok(ok, "the files of one partition each (Mesh.PartitionSplitMeshFiles) give the partitions");
  ok = 1;
  for (int k = 0; k < 2; k++)
    ok &= ghost[k]->ncell == split[k]->ncell && same_meshes(&split[k], 1, &ghost[k], 1, 0) &&
          same_meshes(&split[k], 1, &ghost[k], 1, 1);
  tap_ok(ok, "binary files of one partition with ghost cells: the same, ghosts left out");
  femint_mesh_t one = read_ok(data_path("prisms-split_2.msh"), 2), m = (femint_mesh_t)&m;
  int ierr = femint_mesh_read_gmsh_part(NULL, data_path("prisms-split_2.msh"), 1, &m);
  tap_ok(one->ncell == split[1]->ncell && ierr == FEMINT_EMESH && !m &&
             strstr(femint_last_error(NULL), "partition 1 has no 6-node prism"),
         "the file of partition 2: part 2 is all of it, part 1 \"%s\"", femint_last_error(NULL));
  femint_mesh_destroy(&one);
  ierr = femint_mesh_read_gmsh_part(NULL, data_path("prisms-part.msh"), 3, &m);
  tap_ok(ierr == FEMINT_EINVAL && !m && strstr(femint_last_error(NULL), "file of 2 partitions"),
         "partition 3 of 2: %s, \"%s\"", femint_error_name(ierr), femint_last_error(NULL));
  ierr = femint_mesh_read_gmsh_part(NULL, data_path("prisms.msh"), 1, &m);
  tap_ok(ierr == FEMINT_EINVAL && !m && strstr(femint_last_error(NULL), "not partitioned"),
         "a partition of a file that is not partitioned: %s, \"%s\"", femint_error_name(ierr),
         femint_last_error(NULL));
  ierr = femint_mesh_read_gmsh_part(NULL, data_path("prisms-part.msh"), 0, &m);
  tap_ok(ierr == FEMINT_EINVAL && !m, "part 0: %s", femint_error_name(ierr));
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) femint_mesh_destroy(&all[i]);
}

/* ---- Corrupt binary files ---- */

/* Expect code and a message that begins with "PATH: byte AT:" and contains what. */
static void expect_at(const char *path, int64_t at, int code, const char *what, const char *name)
{
  femint_mesh_t m = (femint_mesh_t)&m;
  char where[256];
  int ierr = femint_mesh_read_gmsh(NULL, path, &m);
  snprintf(where, sizeof where, "%s: byte %lld:", path, (long long)at);
  const char *msg = femint_last_error(NULL);
  tap_ok(ierr == code && !m && strstr(msg, where) == msg && strstr(msg, what),
         "binary, %s: %s at byte %lld, \"%s\"", name, femint_error_name(ierr), (long long)at, msg);
}

static void binary_errors(void)
{
  size_t len;
  char *buf = read_bytes(data_path("prisms-bin.msh"), &len);
  const uint64_t big = 64, tag = 999999;
  const int32_t two = 2, type = 250;
  const size_t nodes = data_of(buf, len, "$Nodes"), elems = data_of(buf, len, "$Elements");
  /* $MeshFormat: "4.1 1 8\n" then the int 1 at byte 20. */
  expect_at(patch("endian.msh", buf, len, 20, &two, 4), 20, FEMINT_EMESH,
            "byte-order marker is 02 00 00 00", "a bad byte-order marker");
  /* $Nodes: numEntityBlocks, numNodes (64 instead of 63). */
  expect_at(patch("nodes.msh", buf, len, nodes + 8, &big, 8), (int64_t)nodes + 8, FEMINT_EMESH,
            "announces 64 nodes but has 63", "a wrong number of nodes");
  /* $Elements: 4 size_t, then the first block: dim, entity, type (int) and its size. */
  const size_t block = elems + 32, first = block + 20;
  expect_at(patch("type.msh", buf, len, block + 8, &type, 4), (int64_t)block + 8, FEMINT_EMESH,
            "element type 250 is unknown", "an unknown element type");
  expect_at(patch("node.msh", buf, len, first + 8, &tag, 8), (int64_t)first + 8, FEMINT_EMESH,
            "unknown node tag 999999", "a bad node reference");
  expect_at(write_bytes("cut.msh", buf, first + 12), (int64_t)first + 8, FEMINT_EMESH,
            "file ends inside the $Elements section", "a file cut in $Elements");
  free(buf);
}

/* ---- Fuzzing: truncated files and random changes of bytes never crash ---- */

/* Whether a read of path gives a valid mesh, or an error with a message that names the file. */
static int read_is_sane(const char *path, int *failed)
{
  femint_mesh_t m = (femint_mesh_t)&m;
  int ierr = femint_mesh_read_gmsh(NULL, path, &m);
  const char *msg = femint_last_error(NULL);
  if (ierr == 0) {
    *failed = 0;
    int ok = m && femint_mesh_num_cells(m) > 0 && tangled_cells(m) == 0;
    femint_mesh_destroy(&m);
    return ok;
  }
  *failed = 1;
  return !m && (ierr == FEMINT_EMESH || ierr == FEMINT_ENOTSUP || ierr == FEMINT_EJACOBIAN) &&
         strncmp(msg, path, strlen(path)) == 0 && strlen(msg) > strlen(path) + 4;
}

/* Expect FEMINT_ENOTSUP with "PATH: what". */
static void expect_shape(const char *name, const char *text, const char *what)
{
  femint_mesh_t m = (femint_mesh_t)&m;
  const char *path = write_file(name, text);
  char want[512];
  snprintf(want, sizeof want, "%s: %s", path, what);
  int ierr = femint_mesh_read_gmsh(NULL, path, &m);
  tap_ok(ierr == FEMINT_ENOTSUP && !m && strstr(femint_last_error(NULL), want) ==
                                             femint_last_error(NULL),
         "%s: %s, \"%s\"", name, femint_error_name(ierr), femint_last_error(NULL));
}

int main(void)
{
  test_dir_create("t203");
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
  const int *mat22, *mat41;
  TAP_CALL(NULL, femint_mesh_cell_materials(a, &mat22));
  TAP_CALL(NULL, femint_mesh_cell_materials(b, &mat41));
  tap_ok(mat22[0] == 100 && mat22[1] == 100 && mat41[0] == 100 && mat41[1] == 100,
         "materials: the physical tag 100 of the prisms (2.2: %d %d, 4.1: %d %d)", mat22[0],
         mat22[1], mat41[0], mat41[1]);

  /* (c) A perturbed box written by the public accessors and read back. */
  const double L[3] = {1.5, 1.0, 2.0};
  TAP_CALL(NULL,
           femint_mesh_create_box(NULL, FEMINT_PRISM, 3, 2, 2, L[0], L[1], L[2], 0.3, 5, &box));
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
  const int64_t *gbox, *gc;
  const int *mbox;
  TAP_CALL(NULL, femint_mesh_vertex_global_ids(box, &gbox));
  TAP_CALL(NULL, femint_mesh_vertex_global_ids(c, &gc));
  TAP_CALL(NULL, femint_mesh_cell_materials(box, &mbox));
  int gw = 0;
  for (int v = 0; v < box->nvert; v++) gw += gbox[v] != v || gc[v] != 10 + 7 * v;
  for (int k = 0; k < box->ncell; k++) gw += mbox[k] != 0;
  tap_ok(gw == 0, "global ids: the vertex index for the box, the node tag 10 + 7 v read back; "
                  "materials 0 for the box (%d wrong)",
         gw);
  femint_space_t space = NULL;
  int ierr = femint_space_create(NULL, c, FEMINT_H1, 3, NULL, 3, &space);
  tap_ok(ierr == 0, "order 3 space on the mesh read back: %s", femint_error_name(ierr));
  femint_space_destroy(&space);

  /* (d) Errors. */
  char missing[160];
  snprintf(missing, sizeof missing, "%s/missing.msh", test_dir);
  femint_mesh_t m = (femint_mesh_t)&m;
  ierr = femint_mesh_read_gmsh(NULL, missing, &m);
  tap_ok(ierr == FEMINT_EIO && m == NULL && strstr(femint_last_error(NULL), missing) &&
             strstr(femint_last_error(NULL), "No such file"),
         "a missing file: %s, \"%s\"", femint_error_name(ierr), femint_last_error(NULL));
  /* Prisms and tetrahedra in one file: the shape with the most cells makes the mesh, the other
   * is refused by name. */
  char *s = replace2(cube22, "$Elements\n13", "$Elements\n14", "31 6 2 100 1 1 3 4 5 7 8\n",
                     "31 6 2 100 1 1 3 4 5 7 8\n32 4 2 100 1 1 2 3 5\n");
  expect_error("tetra.msh", s, NULL, FEMINT_ENOTSUP,
               "1 tetrahedron (Gmsh type 4): this femint mesh holds 6-node prisms only (the first "
               "is element 32 at line 35); the file's cells: 1 tetrahedron (type 4), 2 prisms "
               "(type 6)");
  free(s);
  s = replace2(cube22, "$Elements\n13", "$Elements\n14", "31 6 2 100 1 1 3 4 5 7 8\n",
               "31 4 2 100 1 1 3 4 5\n32 4 2 100 1 1 2 3 5\n");
  expect_error("prism-among-tets.msh", s, NULL, FEMINT_ENOTSUP,
               "1 prism (Gmsh type 6): this femint mesh holds 4- and 10-node tetrahedra only (the "
               "first is element 30 at line 33); the file's cells: 2 tetrahedra (type 4), 1 prism "
               "(type 6)");
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
  expect_cell("tangled.msh", s, "31 6 2", FEMINT_EJACOBIAN,
              "cell 1 (element 31 at line %d) has a non-positive Jacobian");
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

  s = replace(cube41, "$PhysicalNames\n1\n2 10 \"bottom\"", "$PhysicalNames\n1\n2 10 \"bottom");
  expect_error("name.msh", s, "2 10 \"bottom", FEMINT_EMESH, "a name in double quotes");
  free(s);
  s = replace(cube41, "4.1 0 8", "4.1 1 8");
  expect_error("notbinary.msh", s, NULL, FEMINT_EMESH, "byte 20: the byte-order marker");
  free(s);

  /* (e) Parametric nodes (4.1) are read; their parameters are skipped. */
  s = replace2(cube41, "2 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n",
               "2 1 1 4\n1\n2\n3\n4\n0 0 0 0.5 0\n1 0 0 1 1\n", "1 1 0\n0 1 0\n",
               "1 1 0 2 0\n0 1 0 3 0\n");
  TAP_CALL(NULL, femint_mesh_read_gmsh(NULL, write_file("param.msh", s), &m));
  tap_ok(!memcmp(m->coords, b->coords, 3 * sizeof(double) * b->nvert),
         "4.1: parametric nodes give the same vertices");
  femint_mesh_destroy(&m);
  free(s);

  /* (f) A file of tetrahedra is a tetrahedral mesh (t207 reads more of them); cells of other
   * shapes are refused with their type and count. */
  static const char prisms41[] = "3 1 6 2\n30 1 2 3 5 6 7\n31 1 3 4 5 7 8\n";
  static const char tets22[] =
      "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n5\n"
      "11 0 0 0\n12 1 0 0\n13 1 1 0\n14 0 1 0\n15 0 0 1\n$EndNodes\n$Elements\n3\n"
      "1 2 2 10 1 11 13 12\n2 4 2 100 1 11 12 13 15\n3 4 2 200 1 11 13 14 15\n$EndElements\n";
  TAP_CALL(NULL, femint_mesh_read_gmsh(NULL, write_file("tets22.msh", tets22), &m));
  const int *tmat;
  const int64_t *tgid;
  TAP_CALL(NULL, femint_mesh_cell_materials(m, &tmat));
  TAP_CALL(NULL, femint_mesh_vertex_global_ids(m, &tgid));
  TAP_CALL(NULL, femint_mesh_volume(m, &vol));
  int t10 = 0, t0 = 0;
  for (int k = 0; k < m->nbface; k++)
    t10 += m->bface[3 * k + 2] == 10, t0 += m->bface[3 * k + 2] == 0;
  tap_ok(femint_mesh_shape(m) == FEMINT_TET && m->ncell == 2 && m->nvert == 5 && tmat[0] == 100 &&
             tmat[1] == 200 && tgid[0] == 11 && tgid[4] == 15 && t10 == 1 && t0 == 5 &&
             fabs(vol - 1 / 3.0) < 1e-15,
         "a file of two tetrahedra: a tetrahedral mesh, materials 100 and 200, node tags as ids, "
         "one face of tag 10 and 5 of tag 0, volume %.15g",
         vol);
  femint_mesh_destroy(&m);
  s = replace2(cube41, prisms41, "3 1 4 2\n30 1 2 3 5\n31 1 3 4 5\n", "9 12 1 31", "9 12 1 31");
  expect_error("tet.msh", s, "12 5 6 7", FEMINT_EMESH,
               "element 12 (triangle, physical tag 20) is not a boundary face of the tetrahedra");
  free(s);
  s = replace2(cube41, prisms41, "3 1 11 1\n30 1 2 3 5 6 7 8 4 1 2\n", "9 12 1 31", "9 11 1 31");
  expect_error("tet10.msh", s, "30 1 2 3 5 6 7 8 4 1 2", FEMINT_EMESH,
               "cell 0 (element 30) repeats node 1");
  free(s);
  s = replace2(cube41, prisms41, "3 1 5 1\n30 1 2 3 4 5 6 7 8\n", "9 12 1 31", "9 11 1 31");
  /* a hexahedron is read, but the file's triangles cannot be its faces */
  expect_error("hex.msh", s, NULL, FEMINT_EMESH, "is not a boundary face of the hexahedra");
  free(s);
  s = replace2(cube41, prisms41, "", "9 12 1 31", "8 10 1 31");
  expect_shape("quads.msh", s,
               "4 triangles (Gmsh type 2): a 2D femint mesh holds one kind of cell: this one 4-, "
               "8- and 9-node quadrangles (the first is element 10 at line 46); the file's cells: "
               "4 triangles (type 2), 5 quadrangles (type 3)");
  free(s);
  s = replace(cube22, "31 6 2 100 1 1 3 4 5 7 8", "31 7 2 100 1 1 3 4 5 7");
  expect_shape("pyramid.msh", s, "1 pyramid (Gmsh type 7)");
  free(s);

  /* (g) Files written by gmsh; corrupt copies of them. */
  gmsh_files();
  size_t len;
  char *text = read_bytes(data_path("prisms.msh"), &len);
  s = replace(text, "12 136 1 136", "12 137 1 136");
  expect_error("count41.msh", s, "12 137 1 136", FEMINT_EMESH,
               "the $Elements section announces 137 elements but has 136");
  free(s);
  s = replace(text, "3 1 6 28", "3 1 250 28");
  expect_error("type41.msh", s, "3 1 250 28", FEMINT_EMESH, "element type 250 is unknown");
  free(s);
  s = replace(text, "81 19 5 35 42 26 58", "81 19 5 35 42 26 580");
  expect_error("node41.msh", s, "81 19 5 35", FEMINT_EMESH, "element 81: unknown node tag 580");
  free(s);
  binary_errors();

  /* (h) Fuzzing. */
  fuzz("cube22.msh", cube22, strlen(cube22), 1, 500, 1, read_is_sane);
  fuzz("cube41.msh", cube41, strlen(cube41), 1, 500, 2, read_is_sane);
  static const char *const fuzzed[] = {"prisms.msh", "prisms-bin.msh", "prisms-bin-be.msh",
                                       "prisms-part.msh", "prisms-ghost_1.msh"};
  for (int i = 0; i < 5; i++) {
    char *buf = read_bytes(data_path(fuzzed[i]), &len);
    fuzz(fuzzed[i], buf, len, 0, 1000, 10 + i, read_is_sane);
    free(buf);
  }
  free(text);

  femint_mesh_destroy(&a);
  femint_mesh_destroy(&b);
  femint_mesh_destroy(&c);
  femint_mesh_destroy(&box);
  test_dir_remove();
  return tap_done();
}
