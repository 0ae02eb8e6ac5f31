/* Prism meshes from Gmsh MSH files (ASCII, versions 2.2 and 4.1): the 6-node prisms become the
 * cells, and the 3-node triangles and 4-node quadrangles give their physical tag to the boundary
 * faces they cover. Errors name the file and the line. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "mesh.h"

/* Element types of MSH files that femint reads. */
enum { GMSH_LINE = 1, GMSH_TRIANGLE = 2, GMSH_QUAD = 3, GMSH_PRISM = 6, GMSH_POINT = 15 };

struct gmsh_node {
  long tag, line;
  double x[3];
};

/* A triangle or quadrangle with a physical tag: node indices (v[3] = -1 for a triangle), the
 * tag, its element tag and line. */
struct gmsh_face {
  int v[4], tag;
  long elem, line;
};

struct gmsh_entity {
  long tag;
  int phys;
};

struct gmsh {
  femint_context_t ctx;
  const char *path;
  FILE *f;
  char *buf, *text; /* the current line and its text after leading blanks */
  size_t cap;
  long line;
  int version; /* 2 or 4 */
  int have_entities;
  int nnode, nprism, nface, nsurf;
  size_t node_cap, prism_cap, face_cap, surf_cap;
  struct gmsh_node *node; /* sorted by tag once $Nodes is read */
  int (*prism)[6];        /* node indices */
  struct gmsh_face *face;
  struct gmsh_entity *surf; /* surface entities of $Entities (4.1), sorted by tag */
};

static int __attribute__((format(printf, 3, 4)))
gmsh_fail(struct gmsh *g, int code, const char *fmt, ...)
{
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return femint_seterr(g->ctx, code, "%s:%ld: %s", g->path, g->line > 0 ? g->line : 1, msg);
}

/* Room for item n of an array a that grows by doubling; returns from the caller on failure. */
#define GMSH_GROW(g, a, cap, n)                                                                 \
  do {                                                                                          \
    if ((size_t)(n) >= (cap)) {                                                                 \
      size_t c_ = (cap) ? 2 * (cap) : 256;                                                      \
      void *q_ = realloc((a), c_ * sizeof *(a));                                                \
      if (!q_)                                                                                  \
        return femint_seterr((g)->ctx, FEMINT_ENOMEM, "%s: out of memory reading the mesh",     \
                             (g)->path);                                                        \
      (a) = q_;                                                                                 \
      (cap) = c_;                                                                               \
    }                                                                                           \
  } while (0)

/* Read the next line without its end-of-line blanks; 1, or 0 at the end of the file. */
static int read_line(struct gmsh *g)
{
  ssize_t n = getline(&g->buf, &g->cap, g->f);
  if (n < 0) return 0;
  g->line++;
  while (n > 0 && strchr(" \t\r\n", g->buf[n - 1])) g->buf[--n] = '\0';
  g->text = g->buf + strspn(g->buf, " \t");
  return 1;
}

static int read_error(struct gmsh *g)
{
  return femint_seterr(g->ctx, FEMINT_EIO, "cannot read '%s': %s", g->path, strerror(errno));
}

/* The error for the end of the file (or a read error) inside a section. */
static int at_eof(struct gmsh *g, const char *section)
{
  if (ferror(g->f)) return read_error(g);
  return gmsh_fail(g, FEMINT_EMESH, "the file ends inside the %s section", section);
}

/* The next line of data of a section: an error at the end of the file or of the section. */
static int record(struct gmsh *g, const char *section)
{
  if (!read_line(g)) return at_eof(g, section);
  if (g->text[0] == '$')
    return gmsh_fail(g, FEMINT_EMESH, "the %s section ends early: '%.40s' where data was expected",
                     section, g->text);
  return 0;
}

/* The line that must close a section ("$EndNodes"), after blank lines if any. */
static int section_end(struct gmsh *g, const char *section, const char *end)
{
  do
    if (!read_line(g)) return at_eof(g, section);
  while (!g->text[0]);
  if (strcmp(g->text, end) != 0)
    return gmsh_fail(g, FEMINT_EMESH, "expected %s, found '%.40s' (more data than announced?)",
                     end, g->text);
  return 0;
}

static int bad_token(struct gmsh *g, const char *s, const char *what)
{
  s += strspn(s, " \t");
  int n = (int)strcspn(s, " \t");
  if (n == 0) return gmsh_fail(g, FEMINT_EMESH, "expected %s, found the end of the line", what);
  return gmsh_fail(g, FEMINT_EMESH, "expected %s, found '%.*s'", what, n > 40 ? 40 : n, s);
}

/* An integer in [lo, hi] at *p, which moves past it. */
static int get_long(struct gmsh *g, const char **p, long lo, long hi, const char *what, long *v)
{
  char *end;
  errno = 0;
  long x = strtol(*p, &end, 10);
  if (end == *p || (*end && *end != ' ' && *end != '\t') || errno || x < lo || x > hi)
    return bad_token(g, *p, what);
  *p = end;
  *v = x;
  return 0;
}

static int get_int(struct gmsh *g, const char **p, const char *what, int *v)
{
  long x;
  FEMINT_CALL(get_long(g, p, 0, INT_MAX, what, &x));
  *v = (int)x;
  return 0;
}

static int get_double(struct gmsh *g, const char **p, const char *what, double *v)
{
  char *end;
  double x = strtod(*p, &end);
  if (end == *p || (*end && *end != ' ' && *end != '\t') || !isfinite(x))
    return bad_token(g, *p, what);
  *p = end;
  *v = x;
  return 0;
}

static int get_end(struct gmsh *g, const char *p, const char *after)
{
  p += strspn(p, " \t");
  if (!*p) return 0;
  int n = (int)strcspn(p, " \t");
  return gmsh_fail(g, FEMINT_EMESH, "unexpected '%.*s' after %s", n > 40 ? 40 : n, p, after);
}

static int read_format(struct gmsh *g)
{
  const char *p;
  double version;
  long type, size;
  FEMINT_CALL(record(g, "$MeshFormat"));
  p = g->text;
  FEMINT_CALL(get_double(g, &p, "a version number", &version));
  FEMINT_CALL(get_long(g, &p, 0, 1, "the file type (0 ASCII, 1 binary)", &type));
  FEMINT_CALL(get_long(g, &p, 1, 64, "the size of a floating-point number", &size));
  if (type == 1)
    return gmsh_fail(g, FEMINT_ENOTSUP, "binary MSH files are not supported: save the mesh in "
                                        "ASCII (Gmsh option Mesh.Binary = 0)");
  if (version >= 2 && version < 3) g->version = 2;
  else if (version == 4.1) g->version = 4;
  else
    return gmsh_fail(g, FEMINT_ENOTSUP, "MSH version %.*s is not supported (femint reads 2.2 "
                                        "and 4.1)",
                     (int)strcspn(g->text, " \t"), g->text);
  return section_end(g, "$MeshFormat", "$EndMeshFormat");
}

static int entity_cmp(const void *a, const void *b)
{
  long x = ((const struct gmsh_entity *)a)->tag, y = ((const struct gmsh_entity *)b)->tag;
  return (x > y) - (x < y);
}

/* $Entities (4.1): the first physical tag of every surface; points, curves, volumes skipped. */
static int read_entities(struct gmsh *g)
{
  const char *p;
  int n[4];
  FEMINT_CALL(record(g, "$Entities"));
  p = g->text;
  for (int d = 0; d < 4; d++) FEMINT_CALL(get_int(g, &p, "a number of entities", &n[d]));
  for (int d = 0; d < 4; d++)
    for (int i = 0; i < n[d]; i++) {
      FEMINT_CALL(record(g, "$Entities"));
      if (d != 2) continue;
      long tag, nphys, phys = 0;
      double box;
      p = g->text;
      FEMINT_CALL(get_long(g, &p, LONG_MIN, LONG_MAX, "a surface tag", &tag));
      for (int k = 0; k < 6; k++) FEMINT_CALL(get_double(g, &p, "a bounding box coordinate", &box));
      FEMINT_CALL(get_long(g, &p, 0, INT_MAX, "a number of physical tags", &nphys));
      if (nphys > 0) FEMINT_CALL(get_long(g, &p, INT_MIN, INT_MAX, "a physical tag", &phys));
      GMSH_GROW(g, g->surf, g->surf_cap, g->nsurf);
      g->surf[g->nsurf++] = (struct gmsh_entity){tag, (int)phys};
    }
  g->have_entities = 1;
  qsort(g->surf, (size_t)g->nsurf, sizeof *g->surf, entity_cmp);
  return section_end(g, "$Entities", "$EndEntities");
}

static int add_node(struct gmsh *g, const char **p, long tag)
{
  GMSH_GROW(g, g->node, g->node_cap, g->nnode);
  struct gmsh_node *nd = &g->node[g->nnode];
  nd->tag = tag;
  nd->line = g->line;
  for (int i = 0; i < 3; i++) FEMINT_CALL(get_double(g, p, "a coordinate", &nd->x[i]));
  if (g->nnode == INT_MAX - 1) return gmsh_fail(g, FEMINT_EMESH, "too many nodes");
  g->nnode++;
  return 0;
}

static int node_cmp(const void *a, const void *b)
{
  long x = ((const struct gmsh_node *)a)->tag, y = ((const struct gmsh_node *)b)->tag;
  return (x > y) - (x < y);
}

/* The index of a node tag in the sorted nodes, or -1. */
static int find_node(const struct gmsh *g, long tag)
{
  int lo = 0, hi = g->nnode;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (g->node[mid].tag < tag) lo = mid + 1;
    else hi = mid;
  }
  return lo < g->nnode && g->node[lo].tag == tag ? lo : -1;
}

static int read_nodes(struct gmsh *g)
{
  const char *p;
  long tag;
  int nblock = 1, ntotal;
  FEMINT_CALL(record(g, "$Nodes"));
  p = g->text;
  if (g->version == 4) FEMINT_CALL(get_int(g, &p, "a number of node blocks", &nblock));
  FEMINT_CALL(get_int(g, &p, "a number of nodes", &ntotal));
  long header = g->line;
  for (int b = 0; b < nblock; b++) {
    int n = ntotal, param = 0, first = g->nnode;
    long dim = 0, ent, par;
    if (g->version == 4) {
      FEMINT_CALL(record(g, "$Nodes"));
      p = g->text;
      FEMINT_CALL(get_long(g, &p, 0, 3, "an entity dimension", &dim));
      FEMINT_CALL(get_long(g, &p, LONG_MIN, LONG_MAX, "an entity tag", &ent));
      FEMINT_CALL(get_long(g, &p, 0, 1, "0 or 1 (parametric)", &par));
      FEMINT_CALL(get_int(g, &p, "a number of nodes", &n));
      param = (int)par;
      /* The tags first (one a line as Gmsh writes them, or more), then the coordinates. */
      for (int k = 0; k < n;) {
        FEMINT_CALL(record(g, "$Nodes"));
        for (p = g->text; *p && k < n; k++, p += strspn(p, " \t")) {
          FEMINT_CALL(get_long(g, &p, 1, LONG_MAX, "a node tag", &tag));
          GMSH_GROW(g, g->node, g->node_cap, first + k);
          g->node[first + k].tag = tag;
        }
        FEMINT_CALL(get_end(g, p, "the node tags of the block"));
      }
    }
    for (int k = 0; k < n; k++) {
      FEMINT_CALL(record(g, "$Nodes"));
      p = g->text;
      if (g->version == 2) FEMINT_CALL(get_long(g, &p, 1, LONG_MAX, "a node tag", &tag));
      else tag = g->node[first + k].tag;
      FEMINT_CALL(add_node(g, &p, tag));
      if (!param) FEMINT_CALL(get_end(g, p, "the coordinates of a node"));
    }
  }
  if (g->nnode != ntotal) {
    g->line = header;
    return gmsh_fail(g, FEMINT_EMESH, "the $Nodes section announces %d nodes but has %d", ntotal,
                     g->nnode);
  }
  FEMINT_CALL(section_end(g, "$Nodes", "$EndNodes"));
  qsort(g->node, (size_t)g->nnode, sizeof *g->node, node_cmp);
  for (int i = 1; i < g->nnode; i++)
    if (g->node[i].tag == g->node[i - 1].tag) {
      g->line = g->node[i].line > g->node[i - 1].line ? g->node[i].line : g->node[i - 1].line;
      return gmsh_fail(g, FEMINT_EMESH, "node tag %ld is defined twice", g->node[i].tag);
    }
  return 0;
}

static const char *element_name(long type)
{
  static const char *const names[] = {
      NULL, "2-node line", "3-node triangle", "4-node quadrangle", "4-node tetrahedron",
      "8-node hexahedron", "6-node prism", "5-node pyramid", "3-node line", "6-node triangle",
      "9-node quadrangle", "10-node tetrahedron", "27-node hexahedron", "18-node prism",
      "14-node pyramid", "point", "8-node quadrangle", "20-node hexahedron", "15-node prism",
      "13-node pyramid"};
  return type > 0 && type < (long)(sizeof names / sizeof *names) ? names[type] : "unknown";
}

/* Nodes of the element types femint reads; 0 for those it ignores, -1 for the others. */
static int element_nodes(struct gmsh *g, long type)
{
  switch (type) {
  case GMSH_POINT:
  case GMSH_LINE: return 0;
  case GMSH_TRIANGLE: return 3;
  case GMSH_QUAD: return 4;
  case GMSH_PRISM: return 6;
  }
  return gmsh_fail(g, FEMINT_EMESH, "element type %ld (%s) is not supported: femint reads 6-node "
                                    "prisms (type 6), and 3-node triangles (2) and 4-node "
                                    "quadrangles (3) on the boundary",
                   type, element_name(type));
}

/* The physical tag of a face on surface entity ent (4.1): 0 without $Entities or a surface. */
static int surface_tag(struct gmsh *g, long ent, int *tag)
{
  struct gmsh_entity key = {ent, 0}, *e;
  *tag = 0;
  if (ent < 0 || !g->have_entities) return 0;
  if (!(e = bsearch(&key, g->surf, (size_t)g->nsurf, sizeof key, entity_cmp)))
    return gmsh_fail(g, FEMINT_EMESH, "surface %ld is not in the $Entities section", ent);
  *tag = e->phys;
  return 0;
}

/* The nodes of an element at p (the rest of its line); a prism is checked and kept as a cell, a
 * face with a physical tag as a tag of the boundary. */
static int add_element(struct gmsh *g, const char *p, long elem, long type, int nv, int tag)
{
  int v[6];
  long t;
  for (int k = 0; k < nv; k++) {
    FEMINT_CALL(get_long(g, &p, 1, LONG_MAX, "a node tag", &t));
    if ((v[k] = find_node(g, t)) < 0)
      return gmsh_fail(g, FEMINT_EMESH, "element %ld: unknown node tag %ld", elem, t);
  }
  FEMINT_CALL(get_end(g, p, "the nodes of the element"));
  if (type != GMSH_PRISM) {
    if (tag == 0) return 0;
    GMSH_GROW(g, g->face, g->face_cap, g->nface);
    g->face[g->nface++] =
        (struct gmsh_face){{v[0], v[1], v[2], nv == 4 ? v[3] : -1}, tag, elem, g->line};
    return 0;
  }
  double X[18], det, xi[3];
  for (int a = 0; a < 6; a++) {
    for (int b = 0; b < a; b++)
      if (v[a] == v[b])
        return gmsh_fail(g, FEMINT_EMESH, "cell %d (element %ld) repeats node %ld", g->nprism,
                         elem, g->node[v[a]].tag);
    memcpy(&X[3 * a], g->node[v[a]].x, sizeof g->node[v[a]].x);
  }
  /* The normalization of femint_mesh_create_prisms keeps det J: checked here to name the line. */
  if (!mesh_check_cell(X, &det, xi))
    return gmsh_fail(g, FEMINT_EJACOBIAN, "cell %d (element %ld) has a non-positive Jacobian "
                                          "(det J = %g at reference point (%g,%g,%g))",
                     g->nprism, elem, det, xi[0], xi[1], xi[2]);
  if (g->nprism == INT_MAX / (2 * PRISM_NE)) return gmsh_fail(g, FEMINT_EMESH, "too many prisms");
  GMSH_GROW(g, g->prism, g->prism_cap, g->nprism);
  memcpy(g->prism[g->nprism++], v, sizeof v);
  return 0;
}

static int read_elements(struct gmsh *g)
{
  const char *p;
  long elem, type = 0, dim = 0, ent = -1, x;
  int nblock = 1, ntotal, n, count = 0, ntag, tag = 0, nv = 0;
  FEMINT_CALL(record(g, "$Elements"));
  p = g->text;
  if (g->version == 4) FEMINT_CALL(get_int(g, &p, "a number of element blocks", &nblock));
  FEMINT_CALL(get_int(g, &p, "a number of elements", &ntotal));
  long header = g->line;
  for (int b = 0; b < nblock; b++) {
    n = ntotal;
    if (g->version == 4) {
      FEMINT_CALL(record(g, "$Elements"));
      p = g->text;
      FEMINT_CALL(get_long(g, &p, 0, 3, "an entity dimension", &dim));
      FEMINT_CALL(get_long(g, &p, INT_MIN, INT_MAX, "an entity tag", &ent));
      FEMINT_CALL(get_long(g, &p, 1, LONG_MAX, "an element type", &type));
      FEMINT_CALL(get_int(g, &p, "a number of elements", &n));
      if ((nv = element_nodes(g, type)) < 0) return nv;
      if (nv > 0 && nv < 6) FEMINT_CALL(surface_tag(g, dim == 2 ? ent : -1, &tag));
    }
    for (int k = 0; k < n; k++, count++) {
      FEMINT_CALL(record(g, "$Elements"));
      p = g->text;
      FEMINT_CALL(get_long(g, &p, 1, LONG_MAX, "an element tag", &elem));
      if (g->version == 2) {
        FEMINT_CALL(get_long(g, &p, 1, LONG_MAX, "an element type", &type));
        FEMINT_CALL(get_int(g, &p, "a number of tags", &ntag));
        tag = 0;
        for (int t = 0; t < ntag; t++) {
          FEMINT_CALL(get_long(g, &p, INT_MIN, INT_MAX, "a tag", &x));
          if (t == 0) tag = (int)x;
        }
        if ((nv = element_nodes(g, type)) < 0) return nv;
      }
      if (nv > 0) FEMINT_CALL(add_element(g, p, elem, type, nv, tag));
    }
  }
  if (count != ntotal) {
    g->line = header;
    return gmsh_fail(g, FEMINT_EMESH, "the $Elements section announces %d elements but has %d",
                     ntotal, count);
  }
  return section_end(g, "$Elements", "$EndElements");
}

/* Skip a section that femint does not use, up to its $End line. */
static int skip_section(struct gmsh *g)
{
  char name[64], end[72];
  long start = g->line;
  snprintf(name, sizeof name, "%s", g->text);
  snprintf(end, sizeof end, "$End%s", name + 1);
  while (read_line(g))
    if (strcmp(g->text, end) == 0) return 0;
  g->line = start;
  return gmsh_fail(g, FEMINT_EMESH, "the %s section has no %s line", name, end);
}

static int read_sections(struct gmsh *g)
{
  int have_nodes = 0, have_elements = 0;
  if (!read_line(g) && ferror(g->f)) return read_error(g);
  if (g->line == 0 || strcmp(g->text, "$MeshFormat") != 0)
    return gmsh_fail(g, FEMINT_EMESH, "not a Gmsh MSH file (it does not start with $MeshFormat)");
  FEMINT_CALL(read_format(g));
  while (read_line(g)) {
    const char *s = g->text;
    if (!*s) continue;
    if (strcmp(s, "$Nodes") == 0) {
      if (have_nodes) return gmsh_fail(g, FEMINT_EMESH, "a second $Nodes section");
      FEMINT_CALL(read_nodes(g));
      have_nodes = 1;
    } else if (strcmp(s, "$Elements") == 0) {
      if (!have_nodes) return gmsh_fail(g, FEMINT_EMESH, "$Elements comes before $Nodes");
      if (have_elements) return gmsh_fail(g, FEMINT_EMESH, "a second $Elements section");
      FEMINT_CALL(read_elements(g));
      have_elements = 1;
    } else if (strcmp(s, "$Entities") == 0 && g->version == 4) {
      if (g->have_entities || have_elements)
        return gmsh_fail(g, FEMINT_EMESH, "a $Entities section after $Entities or $Elements");
      FEMINT_CALL(read_entities(g));
    } else if (s[0] == '$') {
      FEMINT_CALL(skip_section(g));
    } else {
      return gmsh_fail(g, FEMINT_EMESH, "unexpected '%.40s' outside of a section", s);
    }
  }
  if (ferror(g->f)) return read_error(g);
  if (!have_nodes || !have_elements)
    return gmsh_fail(g, FEMINT_EMESH, "the file ends without a %s section",
                     have_nodes ? "$Elements" : "$Nodes");
  if (g->nprism == 0)
    return gmsh_fail(g, FEMINT_EMESH, "the file has no 6-node prism (element type 6)");
  return 0;
}

/* The mesh of the prisms (vertices: their nodes by ascending tag), then the face tags. */
static int build(struct gmsh *g, femint_mesh_t *mesh)
{
  int ierr = 0, nvert = 0, bad = -1;
  int *id = malloc((size_t)g->nnode * sizeof *id);
  int *cells = malloc(6 * (size_t)g->nprism * sizeof *cells);
  int *fv = malloc(4 * (size_t)(g->nface + 1) * sizeof *fv);
  int *ftag = malloc((size_t)(g->nface + 1) * sizeof *ftag);
  double *coords = malloc(3 * (size_t)g->nnode * sizeof *coords);
  if (!id || !cells || !fv || !ftag || !coords) {
    ierr = femint_seterr(g->ctx, FEMINT_ENOMEM, "%s: out of memory building the mesh", g->path);
    goto done;
  }
  for (int i = 0; i < g->nnode; i++) id[i] = -1;
  for (int c = 0; c < g->nprism; c++)
    for (int a = 0; a < 6; a++) id[g->prism[c][a]] = 0;
  for (int i = 0; i < g->nnode; i++)
    if (id[i] == 0) {
      memcpy(&coords[3 * (size_t)nvert], g->node[i].x, sizeof g->node[i].x);
      id[i] = nvert++;
    }
  for (int c = 0; c < g->nprism; c++)
    for (int a = 0; a < 6; a++) cells[6 * (size_t)c + a] = id[g->prism[c][a]];
  if ((ierr = femint_mesh_create_prisms(g->ctx, nvert, coords, g->nprism, cells, mesh))) {
    char msg[512];
    snprintf(msg, sizeof msg, "%s", femint_last_error(g->ctx));
    ierr = femint_seterr(g->ctx, ierr, "%s: %s", g->path, msg);
    goto done;
  }
  /* A node outside every prism becomes -2, which matches no face. */
  for (int i = 0; i < g->nface; i++) {
    for (int j = 0; j < 4; j++) {
      int v = g->face[i].v[j];
      fv[4 * i + j] = v < 0 ? -1 : id[v] < 0 ? -2 : id[v];
    }
    ftag[i] = g->face[i].tag;
  }
  if ((ierr = mesh_set_face_tags(*mesh, g->nface, fv, ftag, &bad))) goto done;
  if (bad >= 0) {
    const struct gmsh_face *f = &g->face[bad];
    g->line = f->line;
    ierr = gmsh_fail(g, FEMINT_EMESH, "element %ld (%s, physical tag %d) is not a boundary face "
                                      "of the prisms",
                     f->elem, f->v[3] < 0 ? "triangle" : "quadrangle", f->tag);
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

int femint_mesh_read_gmsh(femint_context_t ctx, const char *path, femint_mesh_t *mesh)
{
  FEMINT_CHECK(mesh, ctx, FEMINT_EINVAL, "femint_mesh_read_gmsh: mesh (output) is NULL");
  *mesh = NULL;
  FEMINT_CHECK(path, ctx, FEMINT_EINVAL, "femint_mesh_read_gmsh: path is NULL");
  struct gmsh g = {.ctx = ctx, .path = path};
  if (!(g.f = fopen(path, "r")))
    return femint_seterr(ctx, FEMINT_EIO, "cannot read '%s': %s", path, strerror(errno));
  int ierr = read_sections(&g);
  if (!ierr) ierr = build(&g, mesh);
  fclose(g.f);
  free(g.buf);
  free(g.node);
  free(g.prism);
  free(g.face);
  free(g.surf);
  return ierr;
}
