/* The element types of Gmsh MSH files: shape, order and node count of each type number, and
 * their names for messages; what the reader and the mesh builder share about a file read (its
 * messages with a position, its elements' entities and partitions, freeing it). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "gmsh.h"

#define T(shape, order, nodes) {1, GMSH_SHAPE_##shape, order, nodes}
/* Node counts of Gmsh's element types (GmshDefines.h): all of 1..33, the complete higher orders
 * and the serendipity types whose node count is the same in every Gmsh version. */
static const struct gmsh_type types[GMSH_MAX_TYPE + 1] = {
    [1] = T(LINE, 1, 2),       [2] = T(TRIANGLE, 1, 3),   [3] = T(QUAD, 1, 4),
    [4] = T(TET, 1, 4),        [5] = T(HEX, 1, 8),        [6] = T(PRISM, 1, 6),
    [7] = T(PYRAMID, 1, 5),    [8] = T(LINE, 2, 3),       [9] = T(TRIANGLE, 2, 6),
    [10] = T(QUAD, 2, 9),      [11] = T(TET, 2, 10),      [12] = T(HEX, 2, 27),
    [13] = T(PRISM, 2, 18),    [14] = T(PYRAMID, 2, 14),  [15] = T(POINT, 0, 1),
    [16] = T(QUAD, 2, 8),      [17] = T(HEX, 2, 20),      [18] = T(PRISM, 2, 15),
    [19] = T(PYRAMID, 2, 13),  [20] = T(TRIANGLE, 3, 9),  [21] = T(TRIANGLE, 3, 10),
    [22] = T(TRIANGLE, 4, 12), [23] = T(TRIANGLE, 4, 15), [24] = T(TRIANGLE, 5, 15),
    [25] = T(TRIANGLE, 5, 21), [26] = T(LINE, 3, 4),      [27] = T(LINE, 4, 5),
    [28] = T(LINE, 5, 6),      [29] = T(TET, 3, 20),      [30] = T(TET, 4, 35),
    [31] = T(TET, 5, 56),      [32] = T(TET, 4, 22),      [33] = T(TET, 5, 28),
    [36] = T(QUAD, 3, 16),     [37] = T(QUAD, 4, 25),     [38] = T(QUAD, 5, 36),
    [39] = T(QUAD, 3, 12),     [40] = T(QUAD, 4, 16),     [41] = T(QUAD, 5, 20),
    [42] = T(TRIANGLE, 6, 28), [43] = T(TRIANGLE, 7, 36), [44] = T(TRIANGLE, 8, 45),
    [45] = T(TRIANGLE, 9, 55), [46] = T(TRIANGLE, 10, 66), [47] = T(QUAD, 6, 49),
    [48] = T(QUAD, 7, 64),     [49] = T(QUAD, 8, 81),     [50] = T(QUAD, 9, 100),
    [51] = T(QUAD, 10, 121),   [52] = T(TRIANGLE, 6, 18), [53] = T(TRIANGLE, 7, 21),
    [54] = T(TRIANGLE, 8, 24), [55] = T(TRIANGLE, 9, 27), [56] = T(TRIANGLE, 10, 30),
    [57] = T(QUAD, 6, 24),     [58] = T(QUAD, 7, 28),     [59] = T(QUAD, 8, 32),
    [60] = T(QUAD, 9, 36),     [61] = T(QUAD, 10, 40),    [62] = T(LINE, 6, 7),
    [63] = T(LINE, 7, 8),      [64] = T(LINE, 8, 9),      [65] = T(LINE, 9, 10),
    [66] = T(LINE, 10, 11),    [71] = T(TET, 6, 84),      [72] = T(TET, 7, 120),
    [73] = T(TET, 8, 165),     [74] = T(TET, 9, 220),     [75] = T(TET, 10, 286),
    [90] = T(PRISM, 3, 40),    [91] = T(PRISM, 4, 75),    [92] = T(HEX, 3, 64),
    [93] = T(HEX, 4, 125),     [94] = T(HEX, 5, 216),     [95] = T(HEX, 6, 343),
    [96] = T(HEX, 7, 512),     [97] = T(HEX, 8, 729),     [98] = T(HEX, 9, 1000),
    [106] = T(PRISM, 5, 126),  [107] = T(PRISM, 6, 196),  [108] = T(PRISM, 7, 288),
    [109] = T(PRISM, 8, 405),  [110] = T(PRISM, 9, 550),  [118] = T(PYRAMID, 3, 30),
    [119] = T(PYRAMID, 4, 55), [120] = T(PYRAMID, 5, 91), [121] = T(PYRAMID, 6, 140),
    [122] = T(PYRAMID, 7, 204), [123] = T(PYRAMID, 8, 285), [124] = T(PYRAMID, 9, 385),
    [137] = T(TET, 3, 16)};
#undef T

static const struct {
  int dim, corners;
  const char *one, *many;
} shapes[] = {[GMSH_SHAPE_POINT] = {0, 1, "point", "points"},
              [GMSH_SHAPE_LINE] = {1, 2, "line", "lines"},
              [GMSH_SHAPE_TRIANGLE] = {2, 3, "triangle", "triangles"},
              [GMSH_SHAPE_QUAD] = {2, 4, "quadrangle", "quadrangles"},
              [GMSH_SHAPE_TET] = {3, 4, "tetrahedron", "tetrahedra"},
              [GMSH_SHAPE_PYRAMID] = {3, 5, "pyramid", "pyramids"},
              [GMSH_SHAPE_PRISM] = {3, 6, "prism", "prisms"},
              [GMSH_SHAPE_HEX] = {3, 8, "hexahedron", "hexahedra"}};

const struct gmsh_type *gmsh_type_info(long t)
{
  return t > 0 && t <= GMSH_MAX_TYPE && types[t].known ? &types[t] : NULL;
}

int gmsh_shape_dim(int shape) { return shapes[shape].dim; }

int gmsh_shape_corners(int shape) { return shapes[shape].corners; }

const char *gmsh_type_name(long t, long count, char *buf, size_t len)
{
  const struct gmsh_type *ty = gmsh_type_info(t);
  if (!ty) snprintf(buf, len, "element%s of unknown type", count == 1 ? "" : "s");
  else if (ty->nodes == shapes[ty->shape].corners)
    snprintf(buf, len, "%s", count == 1 ? shapes[ty->shape].one : shapes[ty->shape].many);
  else
    snprintf(buf, len, "%d-node %s", ty->nodes,
             count == 1 ? shapes[ty->shape].one : shapes[ty->shape].many);
  return buf;
}

int gmsh_fail_at(const struct gmsh_file *gf, int64_t pos, int code, const char *fmt, ...)
{
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (pos < 0) return femint_seterr(gf->ctx, code, "%s: %s", gf->path, msg);
  if (gf->binary)
    return femint_seterr(gf->ctx, code, "%s: byte %" PRId64 ": %s", gf->path, pos, msg);
  return femint_seterr(gf->ctx, code, "%s:%" PRId64 ": %s", gf->path, pos > 0 ? pos : 1, msg);
}

void gmsh_file_free(struct gmsh_file *gf)
{
  free(gf->node);
  for (int i = 0; i < gf->nname; i++) free(gf->name[i].name);
  free(gf->name);
  for (int d = 0; d < 4; d++) {
    free(gf->ent[d]);
    free(gf->pent[d]);
  }
  free(gf->part);
  free(gf->ghost);
  for (int t = 0; t <= GMSH_MAX_TYPE; t++) {
    free(gf->elem[t].tag);
    free(gf->elem[t].node);
    free(gf->elem[t].phys);
    free(gf->elem[t].ent);
    free(gf->elem[t].pos);
  }
  *gf = (struct gmsh_file){.ctx = gf->ctx, .path = gf->path};
}

const struct gmsh_entity *gmsh_element_entity(const struct gmsh_file *gf, int t, int i)
{
  int e = gf->elem[t].ent[i], d = gmsh_shape_dim(gmsh_type_info(t)->shape);
  if (e < 0) return NULL;
  return gf->npartition ? &gf->pent[d][e] : &gf->ent[d][e];
}

int gmsh_entity_in_part(const struct gmsh_file *gf, const struct gmsh_entity *e, int part)
{
  if (!e) return 0;
  for (int k = 0; k < e->npart; k++)
    if (gf->part[e->part + k] == part) return 1;
  return 0;
}
