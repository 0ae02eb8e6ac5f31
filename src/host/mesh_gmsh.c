/* Prism meshes from Gmsh MSH files (read by gmsh_read.c): the 6-node prisms of the file, or of
 * one of its partitions, become the cells with their physical tags as materials and their node
 * tags as global vertex ids; triangles and quadrangles give their physical tag to the boundary
 * faces they cover. Other cell shapes are refused by name and count. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gmsh.h"
#include "mesh.h"

/* A triangle or quadrangle with a physical tag: its corner node indices (v[3] = -1 for a
 * triangle), the tag, and the element for messages. */
struct gmsh_face {
  int v[4], tag, type, i;
};

/* The prisms and tagged faces that make the mesh: those of partition part (-1: all). */
struct selection {
  int ncell, nface;
  int *cell;              /* indices of the kept prisms in elem[GMSH_PRISM] */
  struct gmsh_face *face;
};

/* Refuse a file whose cells are not prisms: its cells are the elements of its highest
 * dimension, and any of another shape is named with its count. */
static int check_shapes(const struct gmsh_file *gf)
{
  int top = -1, bad = 0;
  for (int t = 1; t <= GMSH_MAX_TYPE; t++) {
    const struct gmsh_type *ty = gmsh_type_info(t);
    if (ty && gf->elem[t].n > 0 && gmsh_shape_dim(ty->shape) > top)
      top = gmsh_shape_dim(ty->shape);
  }
  for (int t = 1; t <= GMSH_MAX_TYPE && top >= 2; t++) {
    const struct gmsh_type *ty = gmsh_type_info(t);
    if (ty && gf->elem[t].n > 0 && gmsh_shape_dim(ty->shape) == top && t != GMSH_PRISM &&
        (!bad || gf->elem[t].n > gf->elem[bad].n))
      bad = t;
  }
  if (bad) {
    char name[64];
    const struct gmsh_elements *el = &gf->elem[bad];
    gmsh_type_name(bad, el->n, name, sizeof name);
    return gmsh_fail_at(gf, -1, FEMINT_ENOTSUP,
                        "%d %s (Gmsh type %d): this femint mesh holds prisms only (the first is "
                        "element %" PRId64 " at %s %" PRId64 ")",
                        el->n, name, bad, el->tag[0], gf->binary ? "byte" : "line", el->pos[0]);
  }
  if (gf->elem[GMSH_PRISM].n == 0)
    return gmsh_fail_at(gf, -1, FEMINT_EMESH, "the file has no 6-node prism (element type 6)");
  return 0;
}

/* The prisms and the tagged triangles and quadrangles of partition part (-1: all), each prism
 * checked (no repeated node, a positive Jacobian). */
static int select_elements(const struct gmsh_file *gf, int part, struct selection *s)
{
  const struct gmsh_elements *pr = &gf->elem[GMSH_PRISM];
  int nface = 0;
  for (int t = 1; t <= GMSH_MAX_TYPE; t++) {
    const struct gmsh_type *ty = gmsh_type_info(t);
    if (ty && gmsh_shape_dim(ty->shape) == 2) nface += gf->elem[t].n;
  }
  s->cell = malloc(((size_t)pr->n + 1) * sizeof *s->cell);
  s->face = malloc(((size_t)nface + 1) * sizeof *s->face);
  if (!s->cell || !s->face)
    return femint_seterr(gf->ctx, FEMINT_ENOMEM, "%s: out of memory building the mesh",
                         gf->path);
  for (int i = 0; i < pr->n; i++) {
    if (part >= 0 && !gmsh_entity_in_part(gf, gmsh_element_entity(gf, GMSH_PRISM, i), part))
      continue;
    const int *v = &pr->node[6 * (size_t)i];
    double X[18], det, xi[3];
    for (int a = 0; a < 6; a++) {
      for (int b = 0; b < a; b++)
        if (v[a] == v[b])
          return gmsh_fail_at(gf, pr->pos[i], FEMINT_EMESH,
                              "cell %d (element %" PRId64 ") repeats node %" PRId64, s->ncell,
                              pr->tag[i], gf->node[v[a]].tag);
      memcpy(&X[3 * a], gf->node[v[a]].x, sizeof gf->node[v[a]].x);
    }
    /* The normalization of femint_mesh_create_prisms keeps det J: checked here to name the
     * element. */
    if (!mesh_check_cell(X, &det, xi))
      return gmsh_fail_at(gf, pr->pos[i], FEMINT_EJACOBIAN,
                          "cell %d (element %" PRId64 ") has a non-positive Jacobian (det J = %g "
                          "at reference point (%g,%g,%g))",
                          s->ncell, pr->tag[i], det, xi[0], xi[1], xi[2]);
    if (s->ncell == INT_MAX / (2 * PRISM_NE))
      return gmsh_fail_at(gf, pr->pos[i], FEMINT_EMESH, "too many prisms");
    s->cell[s->ncell++] = i;
  }
  if (s->ncell == 0)
    return gmsh_fail_at(gf, -1, FEMINT_EMESH, "partition %d has no 6-node prism", part);
  for (int t = 1; t <= GMSH_MAX_TYPE; t++) {
    const struct gmsh_type *ty = gmsh_type_info(t);
    if (!ty || gmsh_shape_dim(ty->shape) != 2) continue;
    const struct gmsh_elements *el = &gf->elem[t];
    int nc = gmsh_shape_corners(ty->shape);
    for (int i = 0; i < el->n; i++) {
      if (el->phys[i] == 0) continue;
      if (part >= 0 && !gmsh_entity_in_part(gf, gmsh_element_entity(gf, t, i), part)) continue;
      struct gmsh_face *f = &s->face[s->nface++];
      for (int j = 0; j < 4; j++) f->v[j] = j < nc ? el->node[(size_t)i * ty->nodes + j] : -1;
      f->tag = el->phys[i];
      f->type = t;
      f->i = i;
    }
  }
  return 0;
}

/* The mesh of the selected prisms (vertices: their nodes by ascending tag), then the face tags,
 * the materials and the global ids. */
static int build(const struct gmsh_file *gf, const struct selection *s, femint_mesh_t *mesh)
{
  const struct gmsh_elements *pr = &gf->elem[GMSH_PRISM];
  int ierr = 0, nvert = 0, bad = -1;
  int *id = malloc(((size_t)gf->nnode + 1) * sizeof *id);
  int *cells = malloc(6 * (size_t)s->ncell * sizeof *cells);
  int *fv = malloc(4 * (size_t)(s->nface + 1) * sizeof *fv);
  int *ftag = malloc((size_t)(s->nface + 1) * sizeof *ftag);
  double *coords = malloc(3 * ((size_t)gf->nnode + 1) * sizeof *coords);
  if (!id || !cells || !fv || !ftag || !coords) {
    ierr = femint_seterr(gf->ctx, FEMINT_ENOMEM, "%s: out of memory building the mesh", gf->path);
    goto done;
  }
  for (int i = 0; i < gf->nnode; i++) id[i] = -1;
  for (int c = 0; c < s->ncell; c++)
    for (int a = 0; a < 6; a++) id[pr->node[6 * (size_t)s->cell[c] + a]] = 0;
  for (int i = 0; i < gf->nnode; i++)
    if (id[i] == 0) {
      memcpy(&coords[3 * (size_t)nvert], gf->node[i].x, sizeof gf->node[i].x);
      id[i] = nvert++;
    }
  for (int c = 0; c < s->ncell; c++)
    for (int a = 0; a < 6; a++) cells[6 * (size_t)c + a] = id[pr->node[6 * (size_t)s->cell[c] + a]];
  if ((ierr = femint_mesh_create_prisms(gf->ctx, nvert, coords, s->ncell, cells, mesh))) {
    char msg[512];
    snprintf(msg, sizeof msg, "%s", femint_last_error(gf->ctx));
    ierr = gmsh_fail_at(gf, -1, ierr, "%s", msg);
    goto done;
  }
  for (int i = 0; i < gf->nnode; i++)
    if (id[i] >= 0) (*mesh)->vert_gid[id[i]] = gf->node[i].tag;
  for (int c = 0; c < s->ncell; c++) (*mesh)->cell_mat[c] = pr->phys[s->cell[c]];
  /* A node outside every prism becomes -2, which matches no face. */
  for (int i = 0; i < s->nface; i++) {
    for (int j = 0; j < 4; j++) {
      int v = s->face[i].v[j];
      fv[4 * i + j] = v < 0 ? -1 : id[v] < 0 ? -2 : id[v];
    }
    ftag[i] = s->face[i].tag;
  }
  if ((ierr = mesh_set_face_tags(*mesh, s->nface, fv, ftag, &bad))) goto done;
  if (bad >= 0) {
    const struct gmsh_face *f = &s->face[bad];
    const struct gmsh_elements *el = &gf->elem[f->type];
    char name[64];
    ierr = gmsh_fail_at(gf, el->pos[f->i], FEMINT_EMESH,
                        "element %" PRId64 " (%s, physical tag %d) is not a boundary face of the "
                        "prisms",
                        el->tag[f->i], gmsh_type_name(f->type, 1, name, sizeof name), f->tag);
  }
done:
  if (ierr) femint_mesh_destroy(mesh);
  free(id);
  free(cells);
  free(fv);
  free(ftag);
  free(coords);
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
  struct gmsh_file gf;
  struct selection s = {0};
  FEMINT_CALL(gmsh_file_read(ctx, path, &gf));
  int ierr = 0;
  if (part > 0 && !gf.npartition)
    ierr = gmsh_fail_at(&gf, -1, FEMINT_EINVAL,
                        "partition %d asked of a file that is not partitioned (it has no "
                        "$PartitionedEntities section)",
                        part);
  else if (part > gf.npartition)
    ierr = gmsh_fail_at(&gf, -1, FEMINT_EINVAL, "partition %d asked of a file of %d partitions",
                        part, gf.npartition);
  if (!ierr) ierr = check_shapes(&gf);
  if (!ierr) ierr = select_elements(&gf, part, &s);
  if (!ierr) ierr = build(&gf, &s, mesh);
  free(s.cell);
  free(s.face);
  gmsh_file_free(&gf);
  return ierr;
}

int femint_mesh_read_gmsh(femint_context_t ctx, const char *path, femint_mesh_t *mesh)
{
  return femint_mesh_read_gmsh_part(ctx, path, -1, mesh);
}
