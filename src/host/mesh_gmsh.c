/* femint meshes from Gmsh MSH files (read by gmsh_read.c): the cells of a file (its elements of
 * the highest dimension) or of one of its partitions, with their tagged faces, shared with the
 * tetrahedral reader (mesh_gmsh_tet.c); 6-node prisms and 4-, 8- or 9-node quadrangles become
 * femint meshes. */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gmsh.h"
#include "mesh.h"
#include "refel_quad.h"

int gmsh_file_read_part(femint_context_t ctx, const char *path, int part, struct gmsh_file *gf)
{
  FEMINT_CALL(gmsh_file_read(ctx, path, gf));
  int ierr = 0;
  if (part > 0 && !gf->npartition)
    ierr = gmsh_fail_at(gf, -1, FEMINT_EINVAL,
                        "partition %d asked of a file that is not partitioned (it has no "
                        "$PartitionedEntities section)",
                        part);
  else if (part > gf->npartition)
    ierr = gmsh_fail_at(gf, -1, FEMINT_EINVAL, "partition %d asked of a file of %d partitions",
                        part, gf->npartition);
  if (ierr) gmsh_file_free(gf);
  return ierr;
}

int gmsh_cell_dim(const struct gmsh_file *gf)
{
  int dim = -1;
  for (int t = 1; t <= GMSH_MAX_TYPE; t++) {
    const struct gmsh_type *ty = gmsh_type_info(t);
    if (ty && gf->elem[t].n > 0 && gmsh_shape_dim(ty->shape) > dim)
      dim = gmsh_shape_dim(ty->shape);
  }
  return dim;
}

static int type_dim(long t)
{
  const struct gmsh_type *ty = gmsh_type_info(t);
  return ty ? gmsh_shape_dim(ty->shape) : -1;
}

int gmsh_check_cells(const struct gmsh_file *gf, int dim, int nok, const int *ok,
                     const char *holds)
{
  int bad = 0, good = 0, ntype = 0;
  char list[512] = "", name[64];
  size_t n = 0;
  for (int t = 1; t <= GMSH_MAX_TYPE; t++) {
    if (gf->elem[t].n == 0 || type_dim(t) != dim) continue;
    int allowed = 0;
    for (int k = 0; k < nok; k++) allowed |= ok[k] == t;
    if (allowed) good = 1;
    else if (!bad || gf->elem[t].n > gf->elem[bad].n) bad = t;
    if (n < sizeof list)
      n += (size_t)snprintf(list + n, sizeof list - n, "%s%d %s (type %d)", ntype ? ", " : "",
                            gf->elem[t].n, gmsh_type_name(t, gf->elem[t].n, name, sizeof name), t);
    ntype++;
  }
  if (bad) {
    const struct gmsh_elements *el = &gf->elem[bad];
    gmsh_type_name(bad, el->n, name, sizeof name);
    return gmsh_fail_at(gf, -1, FEMINT_ENOTSUP,
                        "%d %s (Gmsh type %d): %s (the first is element %" PRId64 " at %s %" PRId64
                        ")%s%s",
                        el->n, name, bad, holds, el->tag[0], gf->binary ? "byte" : "line",
                        el->pos[0], ntype > 1 ? "; the file's cells: " : "",
                        ntype > 1 ? list : "");
  }
  if (!good) {
    n = 0;
    for (int k = 0; k < nok && n < sizeof list; k++)
      n += (size_t)snprintf(list + n, sizeof list - n, "%s%s (type %d)", k ? ", " : "",
                            gmsh_type_name(ok[k], 1, name, sizeof name), ok[k]);
    return gmsh_fail_at(gf, -1, FEMINT_EMESH, "the file has no cell: no %s", list);
  }
  return 0;
}

void gmsh_selection_free(struct gmsh_selection *s)
{
  free(s->cell_type);
  free(s->cell);
  free(s->face);
  free(s->vert);
  free(s->coords);
  memset(s, 0, sizeof *s);
}

static const int *cell_node(const struct gmsh_file *gf, const struct gmsh_selection *s, int c)
{
  const int t = s->cell_type[c];
  return &gf->elem[t].node[(size_t)s->cell[c] * gmsh_type_info(t)->nodes];
}

int gmsh_cell_nodes(const struct gmsh_file *gf, const struct gmsh_selection *s, int c, double *X)
{
  const int nodes = gmsh_type_info(s->cell_type[c])->nodes;
  const int *v = cell_node(gf, s, c);
  for (int a = 0; a < nodes; a++) memcpy(&X[3 * a], gf->node[v[a]].x, sizeof gf->node[v[a]].x);
  return nodes;
}

int gmsh_fail_cell(const struct gmsh_file *gf, const struct gmsh_selection *s, int c, int code,
                   const char *fmt, ...)
{
  const struct gmsh_elements *el = &gf->elem[s->cell_type[c]];
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return gmsh_fail_at(gf, el->pos[s->cell[c]], code, "cell %d (element %" PRId64 ") %s", c,
                      el->tag[s->cell[c]], msg);
}

int gmsh_fail_wrap(const struct gmsh_file *gf, int code)
{
  char msg[512];
  snprintf(msg, sizeof msg, "%s", femint_last_error(gf->ctx));
  return gmsh_fail_at(gf, -1, code, "%s", msg);
}

int gmsh_fail_face(const struct gmsh_file *gf, const struct gmsh_face *f, const char *cells)
{
  const struct gmsh_elements *el = &gf->elem[f->type];
  char name[64];
  return gmsh_fail_at(gf, el->pos[f->i], FEMINT_EMESH,
                      "element %" PRId64 " (%s, physical tag %d) is not a boundary %s of the %s",
                      el->tag[f->i], gmsh_type_name(f->type, 1, name, sizeof name), f->tag,
                      type_dim(f->type) == 1 ? "edge" : "face", cells);
}

/* The vertices of a selection: the corners of its cells, numbered by ascending node tag. */
static void number_vertices(const struct gmsh_file *gf, struct gmsh_selection *s)
{
  for (int i = 0; i < gf->nnode; i++) s->vert[i] = -1;
  for (int c = 0; c < s->ncell; c++) {
    const struct gmsh_type *ty = gmsh_type_info(s->cell_type[c]);
    const int *v = cell_node(gf, s, c);
    for (int a = 0; a < gmsh_shape_corners(ty->shape); a++) s->vert[v[a]] = 0;
  }
  s->nvert = 0;
  for (int i = 0; i < gf->nnode; i++)
    if (s->vert[i] == 0) {
      memcpy(&s->coords[3 * (size_t)s->nvert], gf->node[i].x, sizeof gf->node[i].x);
      s->vert[i] = s->nvert++;
    }
}

int gmsh_select(const struct gmsh_file *gf, int dim, int part, const char *cells,
                struct gmsh_selection *s)
{
  int ncell = 0, nface = 0;
  memset(s, 0, sizeof *s);
  for (int t = 1; t <= GMSH_MAX_TYPE; t++) {
    if (type_dim(t) == dim) ncell += gf->elem[t].n;
    if (type_dim(t) == dim - 1) nface += gf->elem[t].n;
  }
  s->cell_type = malloc(((size_t)ncell + 1) * sizeof *s->cell_type);
  s->cell = malloc(((size_t)ncell + 1) * sizeof *s->cell);
  s->face = malloc(((size_t)nface + 1) * sizeof *s->face);
  s->vert = malloc(((size_t)gf->nnode + 1) * sizeof *s->vert);
  s->coords = malloc(3 * ((size_t)gf->nnode + 1) * sizeof *s->coords);
  if (!s->cell_type || !s->cell || !s->face || !s->vert || !s->coords) {
    gmsh_selection_free(s);
    return femint_seterr(gf->ctx, FEMINT_ENOMEM, "%s: out of memory building the mesh",
                         gf->path);
  }
  for (int t = 1; t <= GMSH_MAX_TYPE; t++) {
    const struct gmsh_type *ty = gmsh_type_info(t);
    if (!ty || (type_dim(t) != dim && type_dim(t) != dim - 1)) continue;
    const struct gmsh_elements *el = &gf->elem[t];
    const int nc = gmsh_shape_corners(ty->shape);
    for (int i = 0; i < el->n; i++) {
      if (type_dim(t) == dim - 1 && el->phys[i] == 0) continue;
      if (part >= 0 && !gmsh_entity_in_part(gf, gmsh_element_entity(gf, t, i), part)) continue;
      if (type_dim(t) == dim) {
        const int *v = &el->node[(size_t)i * ty->nodes];
        for (int a = 0; a < ty->nodes; a++)
          for (int b = 0; b < a; b++)
            if (v[a] == v[b]) {
              const int ierr = gmsh_fail_at(gf, el->pos[i], FEMINT_EMESH,
                                            "cell %d (element %" PRId64 ") repeats node %" PRId64,
                                            s->ncell, el->tag[i], gf->node[v[a]].tag);
              gmsh_selection_free(s);
              return ierr;
            }
        s->cell_type[s->ncell] = t;
        s->cell[s->ncell++] = i;
        continue;
      }
      struct gmsh_face *f = &s->face[s->nface++];
      for (int j = 0; j < 4; j++) f->v[j] = j < nc ? el->node[(size_t)i * ty->nodes + j] : -1;
      f->tag = el->phys[i];
      f->type = t;
      f->i = i;
    }
  }
  if (s->ncell == 0) {
    gmsh_selection_free(s);
    return gmsh_fail_at(gf, -1, FEMINT_EMESH, "partition %d has no %s", part, cells);
  }
  number_vertices(gf, s);
  return 0;
}

/* The tags of the selected faces (vertices and tags in the form of mesh_set_face_tags; a node
 * outside every cell becomes -2, which matches no face); the first one that is not a boundary
 * face of the mesh is named. */
static int tag_faces(const struct gmsh_file *gf, const struct gmsh_selection *s,
                     struct femint_mesh *m, const char *cells)
{
  int *fv = malloc(4 * ((size_t)s->nface + 1) * sizeof *fv);
  int *ftag = malloc(((size_t)s->nface + 1) * sizeof *ftag), bad = -1, ierr = 0;
  if (!fv || !ftag) {
    ierr = femint_seterr(gf->ctx, FEMINT_ENOMEM, "%s: out of memory building the mesh", gf->path);
    goto done;
  }
  for (int i = 0; i < s->nface; i++) {
    for (int j = 0; j < 4; j++) {
      const int v = s->face[i].v[j];
      fv[4 * i + j] = v < 0 ? -1 : s->vert[v] < 0 ? -2 : s->vert[v];
    }
    ftag[i] = s->face[i].tag;
  }
  if ((ierr = mesh_set_face_tags(m, s->nface, fv, ftag, &bad))) goto done;
  if (bad >= 0) ierr = gmsh_fail_face(gf, &s->face[bad], cells);
done:
  free(fv);
  free(ftag);
  return ierr;
}

/* Global ids (node tags), materials (physical tags) and face tags of a mesh built from s. */
static int finish(const struct gmsh_file *gf, const struct gmsh_selection *s,
                  struct femint_mesh *m, const char *cells)
{
  for (int i = 0; i < gf->nnode; i++)
    if (s->vert[i] >= 0) m->vert_gid[s->vert[i]] = gf->node[i].tag;
  for (int c = 0; c < s->ncell; c++) m->cell_mat[c] = gf->elem[s->cell_type[c]].phys[s->cell[c]];
  return tag_faces(gf, s, m, cells);
}

/* The mesh of the selected prisms, each checked (a positive Jacobian) to name its element. */
static int build_prisms(const struct gmsh_file *gf, const struct gmsh_selection *s,
                        femint_mesh_t *mesh)
{
  FEMINT_CHECK(s->ncell <= INT_MAX / (2 * PRISM_NE), gf->ctx, FEMINT_EMESH, "%s: too many prisms",
               gf->path);
  for (int c = 0; c < s->ncell; c++) {
    double X[18], det, xi[3];
    gmsh_cell_nodes(gf, s, c, X);
    /* The normalization of femint_mesh_create_prisms keeps det J. */
    if (!mesh_check_cell(X, &det, xi))
      return gmsh_fail_cell(gf, s, c, FEMINT_EJACOBIAN,
                            "has a non-positive Jacobian (det J = %g at reference point "
                            "(%g,%g,%g))",
                            det, xi[0], xi[1], xi[2]);
  }
  int *cells = malloc(6 * (size_t)s->ncell * sizeof *cells), ierr = 0;
  if (!cells)
    return femint_seterr(gf->ctx, FEMINT_ENOMEM, "%s: out of memory building the mesh", gf->path);
  for (int c = 0; c < s->ncell; c++)
    for (int a = 0; a < 6; a++) cells[6 * (size_t)c + a] = s->vert[cell_node(gf, s, c)[a]];
  if ((ierr = femint_mesh_create_prisms(gf->ctx, s->nvert, s->coords, s->ncell, cells, mesh)))
    ierr = gmsh_fail_wrap(gf, ierr);
  else if ((ierr = finish(gf, s, *mesh, "prisms")))
    femint_mesh_destroy(mesh);
  free(cells);
  return ierr;
}

/* The nodes of quadrangle c as femint's 4- or 8-node geometry (X[nnode][2], refel_quad.h),
 * counter-clockwise: a clockwise cell (a surface meshed with its normal along -z) is reversed,
 * which keeps vertex 0 and reverses the edges. The centre node of a 9-node cell is dropped.
 * Returns nnode, or -1 when a node is off the plane z = 0 (*off: its index in the cell). */
static int quad_nodes(const struct gmsh_file *gf, const struct gmsh_selection *s, int c,
                      double tol, int *vert, double *X, int *off)
{
  double G[27];
  const int nodes = gmsh_cell_nodes(gf, s, c, G);
  const int *v = cell_node(gf, s, c);
  for (int a = 0; a < nodes; a++)
    if (fabs(G[3 * a + 2]) > tol) {
      *off = a;
      return -1;
    }
  double area = 0;
  for (int a = 0; a < 4; a++) {
    const int b = (a + 1) % 4;
    area += G[3 * a] * G[3 * b + 1] - G[3 * b] * G[3 * a + 1];
  }
  /* Corner k of the cell is Gmsh's corner k, or (0, 3, 2, 1)[k]; edge k (from corner k to k + 1)
   * is Gmsh's edge k, or (3, 2, 1, 0)[k]. */
  const int flip = area < 0;
  for (int k = 0; k < 4; k++) {
    const int a = flip ? (4 - k) % 4 : k, e = flip ? 3 - k : k;
    vert[k] = s->vert[v[a]];
    X[2 * k] = G[3 * a];
    X[2 * k + 1] = G[3 * a + 1];
    X[8 + 2 * k] = nodes > 4 ? G[3 * (4 + e)] : (G[3 * e] + G[3 * ((e + 1) % 4)]) / 2;
    X[9 + 2 * k] = nodes > 4 ? G[3 * (4 + e) + 1] : (G[3 * e + 1] + G[3 * ((e + 1) % 4) + 1]) / 2;
  }
  return nodes > 4 ? 8 : 4;
}

/* The mesh of the selected quadrangles: plane (z = 0), counter-clockwise, each checked (det J >
 * 0 on the whole cell) to name its element; curved (cell_mid) when one has edge nodes. */
static int build_quads(const struct gmsh_file *gf, const struct gmsh_selection *s,
                       femint_mesh_t *mesh)
{
  FEMINT_CHECK(s->ncell <= INT_MAX / 16, gf->ctx, FEMINT_EMESH, "%s: too many quadrangles",
               gf->path);
  int curved = 0, ierr = 0, off;
  double size = 0;
  for (int c = 0; c < s->ncell; c++) curved |= gmsh_type_info(s->cell_type[c])->nodes > 4;
  for (int v = 0; v < 3 * s->nvert; v++) size = fmax(size, fabs(s->coords[v]));
  int *cells = malloc(4 * (size_t)s->ncell * sizeof *cells);
  double *mid = malloc(8 * (size_t)s->ncell * sizeof *mid);
  double *xy = malloc(2 * (size_t)s->nvert * sizeof *xy);
  if (!cells || !mid || !xy) {
    ierr = femint_seterr(gf->ctx, FEMINT_ENOMEM, "%s: out of memory building the mesh", gf->path);
    goto done;
  }
  for (int c = 0; c < s->ncell; c++) {
    double X[16];
    if (quad_nodes(gf, s, c, 1e-12 * size, &cells[4 * (size_t)c], X, &off) < 0) {
      const struct gmsh_node *nd = &gf->node[cell_node(gf, s, c)[off]];
      ierr = gmsh_fail_cell(gf, s, c, FEMINT_ENOTSUP,
                            "has node %" PRId64 " at z = %g: femint's quadrilateral meshes lie "
                            "in the plane z = 0",
                            nd->tag, nd->x[2]);
      goto done;
    }
    if (geom_quad_check(NULL, curved ? 8 : 4, X, NULL)) {
      ierr = gmsh_fail_cell(gf, s, c, FEMINT_EJACOBIAN, "%s", femint_thread_error());
      goto done;
    }
    memcpy(&mid[8 * (size_t)c], X + 8, 8 * sizeof *X);
  }
  for (int v = 0; v < s->nvert; v++) {
    xy[2 * v] = s->coords[3 * (size_t)v];
    xy[2 * v + 1] = s->coords[3 * (size_t)v + 1];
  }
  if ((ierr = femint_mesh_create_quads(gf->ctx, s->nvert, xy, s->ncell, cells,
                                       curved ? mid : NULL, mesh)))
    ierr = gmsh_fail_wrap(gf, ierr);
  else if ((ierr = finish(gf, s, *mesh, "quadrangles")))
    femint_mesh_destroy(mesh);
done:
  free(cells);
  free(mid);
  free(xy);
  return ierr;
}

int femint_mesh_read_gmsh_part(femint_context_t ctx, const char *path, int part,
                               femint_mesh_t *mesh)
{
  FEMINT_CHECK(mesh, ctx, FEMINT_EINVAL, "femint_mesh_read_gmsh: mesh (output) is NULL");
  *mesh = NULL;
  FEMINT_CHECK(path, ctx, FEMINT_EINVAL, "femint_mesh_read_gmsh: path is NULL");
  FEMINT_CHECK(part == -1 || part >= 1, ctx, FEMINT_EINVAL,
               "femint_mesh_read_gmsh_part: part = %d (-1 for all, or a partition from 1)", part);
  static const int prism[] = {GMSH_PRISM}, quad[] = {GMSH_QUAD, GMSH_QUAD8, GMSH_QUAD9};
  struct gmsh_file gf;
  struct gmsh_selection s = {0};
  FEMINT_CALL(gmsh_file_read_part(ctx, path, part, &gf));
  const int dim = gmsh_cell_dim(&gf);
  int ierr;
  if (dim == 3) {
    ierr = gmsh_check_cells(&gf, 3, 1, prism, "this femint mesh holds prisms only");
    if (!ierr) ierr = gmsh_select(&gf, 3, part, "6-node prism", &s);
    if (!ierr) ierr = build_prisms(&gf, &s, mesh);
  } else if (dim == 2) {
    ierr = gmsh_check_cells(&gf, 2, 3, quad,
                            "a 2D femint mesh holds 4-, 8- and 9-node quadrangles only");
    if (!ierr) ierr = gmsh_select(&gf, 2, part, "quadrangle", &s);
    if (!ierr) ierr = build_quads(&gf, &s, mesh);
  } else {
    ierr = gmsh_fail_at(&gf, -1, FEMINT_EMESH,
                        "the file has no cell: no 6-node prism (element type 6) nor quadrangle "
                        "(types 3, 16, 10)");
  }
  gmsh_selection_free(&s);
  gmsh_file_free(&gf);
  return ierr;
}

int femint_mesh_read_gmsh(femint_context_t ctx, const char *path, femint_mesh_t *mesh)
{
  return femint_mesh_read_gmsh_part(ctx, path, -1, mesh);
}
