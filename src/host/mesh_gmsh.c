/* femint meshes from Gmsh MSH files (read by gmsh_read.c): the cells of a file (its elements of
 * the highest dimension) or of one of its partitions, with their tagged faces. One adapter for
 * every shape: a table says which Gmsh types make a shape and where their edge nodes are; 6-node
 * prisms, 4- and 10-node tetrahedra, 8-, 20- and 27-node hexahedra and 4-, 8- or 9-node
 * quadrangles become femint meshes. */
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

/* How Gmsh's elements make the cells of a femint shape: the types allowed (the first one is
 * straight), and for each edge of femint's shape (topo->edge_vert applied to the corners in
 * Gmsh's order) the node of a curved type that lies on it. */
struct gmsh_shape_map {
  int shape, dim, ntype, types[3];
  int edge_node[MESH_MAX_NE];
  const char *holds, *cells;
};

static const struct gmsh_shape_map shape_maps[] = {
    {FEMINT_PRISM, 3, 1, {GMSH_PRISM}, {0}, "this femint mesh holds 6-node prisms only",
     "6-node prism"},
    /* Gmsh's 10-node tetrahedron has its nodes 4..9 on the edges (0,1), (1,2), (2,0), (3,0),
     * (3,2), (3,1) */
    {FEMINT_TET, 3, 2, {GMSH_TET, GMSH_TET10}, {4, 6, 7, 5, 9, 8},
     "this femint mesh holds 4- and 10-node tetrahedra only", "tetrahedron"},
    /* after the tetrahedra: a file with as many of each is read as tetrahedra */
    /* 20- and 27-node hexahedra have their nodes 8..19 on the edges in Gmsh's (and femint's)
     * order; the face and centre nodes of a 27-node one are not used */
    {FEMINT_HEX, 3, 3, {GMSH_HEX, GMSH_HEX20, GMSH_HEX27},
     {8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19},
     "this femint mesh holds 8-, 20- and 27-node hexahedra only", "hexahedron"},
    /* 8- and 9-node quadrangles have their nodes 4..7 on the edges (0,1), (1,2), (2,3), (3,0) */
    {FEMINT_QUAD, 2, 3, {GMSH_QUAD, GMSH_QUAD8, GMSH_QUAD9}, {4, 5, 6, 7},
     "a 2D femint mesh holds one kind of cell: this one 4-, 8- and 9-node quadrangles",
     "quadrangle"},
    /* a 6-node triangle has its nodes 3..5 on the edges (0,1), (1,2), (2,0); femint's edges are
     * (0,1), (0,2), (1,2) */
    {FEMINT_TRI, 2, 2, {GMSH_TRIANGLE, GMSH_TRIANGLE6}, {3, 5, 4},
     "a 2D femint mesh holds one kind of cell: this one 3- and 6-node triangles", "triangle"},
};

/* The shape of a file's cells: the one whose types hold the most of its cells of dimension dim
 * (the others are then refused by name), or NULL when it has none of them. */
static const struct gmsh_shape_map *file_shape(const struct gmsh_file *gf, int dim)
{
  const struct gmsh_shape_map *best = NULL;
  long most = 0;
  for (size_t k = 0; k < sizeof shape_maps / sizeof *shape_maps; k++) {
    const struct gmsh_shape_map *sm = &shape_maps[k];
    long n = 0;
    for (int j = 0; j < sm->ntype && sm->dim == dim; j++) n += gf->elem[sm->types[j]].n;
    if (n > most) best = sm, most = n;
  }
  return best;
}

/* Gmsh's name of the cell of a selection, for the messages of mesh_create. */
struct gmsh_namer_data {
  const struct gmsh_file *gf;
  const struct gmsh_selection *s;
};

static void gmsh_cell_namer(const void *user, int c, char *buf, size_t len)
{
  const struct gmsh_namer_data *d = user;
  const struct gmsh_elements *el = &d->gf->elem[d->s->cell_type[c]];
  snprintf(buf, len, "element %" PRId64 " at %s %" PRId64, el->tag[d->s->cell[c]],
           d->gf->binary ? "byte" : "line", el->pos[d->s->cell[c]]);
}

/* The corners of cell c in femint's input order and, for curved meshes, the nodes of its edges
 * (edge_nodes[ne][dim]: Gmsh's node, or the midpoint of a straight cell's edge). A quadrangle must
 * lie in the plane z = 0 and is made counter-clockwise: a clockwise one (a surface meshed with its
 * normal along -z) is reversed, which keeps corner 0 and reverses the edges. */
static int cell_input(const struct gmsh_file *gf, const struct gmsh_selection *s,
                      const struct gmsh_shape_map *sm, int c, int curved, double tol, int *vert,
                      double *edge_nodes)
{
  const struct cell_topo *t = topo_of(sm->shape);
  double G[3 * 27];
  const int nodes = gmsh_cell_nodes(gf, s, c, G);
  const int *v = cell_node(gf, s, c);
  int corner[MESH_MAX_NV];
  for (int a = 0; a < t->nv; a++) corner[a] = a;
  if (t->dim == 2)
    for (int a = 0; a < nodes; a++)
      if (fabs(G[3 * a + 2]) > tol)
        return gmsh_fail_cell(gf, s, c, FEMINT_ENOTSUP,
                              "has node %" PRId64 " at z = %g: femint's 2D meshes lie in the "
                              "plane z = 0",
                              gf->node[v[a]].tag, G[3 * a + 2]);
  if (sm->shape == FEMINT_QUAD) {
    double area = 0;
    for (int a = 0; a < 4; a++) {
      const int b = (a + 1) % 4;
      area += G[3 * a] * G[3 * b + 1] - G[3 * b] * G[3 * a + 1];
    }
    if (area < 0)
      for (int a = 0; a < 4; a++) corner[a] = (4 - a) % 4;
  }
  for (int a = 0; a < t->nv; a++) vert[a] = s->vert[v[corner[a]]];
  if (!curved) return 0;
  for (int k = 0; k < t->ne; k++) {
    const int p = corner[t->edge_vert[k][0]], q = corner[t->edge_vert[k][1]];
    /* the Gmsh edge with these corners, whichever way the quadrangle was turned */
    int node = -1;
    for (int j = 0; j < t->ne && nodes > t->nv; j++) {
      const int a = t->edge_vert[j][0], b = t->edge_vert[j][1];
      if ((a == p && b == q) || (a == q && b == p)) node = sm->edge_node[j];
    }
    for (int i = 0; i < t->dim; i++)
      edge_nodes[t->dim * k + i] = node >= 0 ? G[3 * node + i] : (G[3 * p + i] + G[3 * q + i]) / 2;
  }
  return 0;
}

/* The mesh of the selected cells: each cell's corners (and edge nodes when some cell is curved),
 * then mesh_create (which checks every cell, named by its element and line), then ids,
 * materials and face tags. */
static int build(const struct gmsh_file *gf, const struct gmsh_selection *s,
                 const struct gmsh_shape_map *sm, femint_mesh_t *mesh)
{
  const struct cell_topo *t = topo_of(sm->shape);
  FEMINT_CHECK(s->ncell <= INT_MAX / (2 * MESH_MAX_NE), gf->ctx, FEMINT_EMESH, "%s: too many %s",
               gf->path, t->plural);
  int curved = 0, ierr = 0;
  double size = 0;
  for (int c = 0; c < s->ncell; c++) curved |= s->cell_type[c] != sm->types[0];
  for (int v = 0; v < 3 * s->nvert; v++) size = fmax(size, fabs(s->coords[v]));
  int *cells = malloc((size_t)t->nv * s->ncell * sizeof *cells);
  double *nodes = curved ? malloc((size_t)t->ne * t->dim * s->ncell * sizeof *nodes) : NULL;
  double *xy = malloc((size_t)t->dim * (s->nvert + 1) * sizeof *xy);
  if (!cells || (curved && !nodes) || !xy) {
    ierr = femint_seterr(gf->ctx, FEMINT_ENOMEM, "%s: out of memory building the mesh", gf->path);
    goto done;
  }
  for (int c = 0; c < s->ncell && !ierr; c++)
    ierr = cell_input(gf, s, sm, c, curved, 1e-12 * size, &cells[(size_t)t->nv * c],
                      curved ? &nodes[(size_t)t->ne * t->dim * c] : NULL);
  if (ierr) goto done;
  for (int v = 0; v < s->nvert; v++)
    for (int i = 0; i < t->dim; i++) xy[t->dim * v + i] = s->coords[3 * (size_t)v + i];
  const struct gmsh_namer_data data = {gf, s};
  const struct mesh_namer namer = {gmsh_cell_namer, &data};
  if ((ierr = mesh_create(gf->ctx, "femint_mesh_read_gmsh", t, s->nvert, xy, NULL, s->ncell, cells,
                          nodes, &namer, mesh)))
    ierr = gmsh_fail_wrap(gf, ierr);
  else if ((ierr = finish(gf, s, *mesh, t->plural)))
    femint_mesh_destroy(mesh);
done:
  free(cells);
  free(nodes);
  free(xy);
  return ierr;
}

static int mesh_read_gmsh_part(femint_context_t ctx, const char *path, int part,
                               femint_mesh_t *mesh)
{
  FEMINT_CHECK(mesh, ctx, FEMINT_EINVAL, "femint_mesh_read_gmsh: mesh (output) is NULL");
  *mesh = NULL;
  FEMINT_CHECK(path, ctx, FEMINT_EINVAL, "femint_mesh_read_gmsh: path is NULL");
  FEMINT_CHECK(part == -1 || part >= 1, ctx, FEMINT_EINVAL,
               "femint_mesh_read_gmsh_part: part = %d (-1 for all, or a partition from 1)", part);
  struct gmsh_file gf;
  struct gmsh_selection s = {0};
  FEMINT_CALL(gmsh_file_read_part(ctx, path, part, &gf));
  const int dim = gmsh_cell_dim(&gf);
  const struct gmsh_shape_map *sm = dim >= 2 ? file_shape(&gf, dim) : NULL;
  int ierr;
  if (sm) {
    ierr = gmsh_check_cells(&gf, dim, sm->ntype, sm->types, sm->holds);
    if (!ierr) ierr = gmsh_select(&gf, dim, part, sm->cells, &s);
    if (!ierr) ierr = build(&gf, &s, sm, mesh);
  } else if (dim == 3 || dim == 2) {
    static const int none[] = {0};
    ierr = gmsh_check_cells(&gf, dim, 0, none,
                            dim == 3 ? "femint's 3D meshes hold 6-node prisms, 8-node hexahedra "
                                       "or 4- and 10-node tetrahedra"
                                     : "a 2D femint mesh holds 4-, 8- and 9-node quadrangles or "
                                       "3- and 6-node triangles");
  } else {
    ierr = gmsh_fail_at(&gf, -1, FEMINT_EMESH,
                        "the file has no cell: no 6-node prism (element type 6), hexahedron "
                        "(type 5), tetrahedron (types 4, 11), quadrangle (types 3, 16, 10) nor "
                        "triangle (types 2, 9)");
  }
  gmsh_selection_free(&s);
  gmsh_file_free(&gf);
  return ierr;
}

int femint_mesh_read_gmsh_part(femint_context_t ctx, const char *path, int part,
                               femint_mesh_t *mesh)
{
  femint_host_quiet(1);
  const int err = mesh_read_gmsh_part(ctx, path, part, mesh);
  femint_host_quiet(0);
  return err;
}

int femint_mesh_read_gmsh(femint_context_t ctx, const char *path, femint_mesh_t *mesh)
{
  femint_trace("femint_mesh_read_gmsh");
  return femint_mesh_read_gmsh_part(ctx, path, -1, mesh);
}
