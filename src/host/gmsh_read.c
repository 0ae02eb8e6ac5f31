/* Gmsh MSH files into memory: ASCII 2.2, ASCII and binary 4.1 ($MeshFormat, $PhysicalNames,
 * $Entities, $PartitionedEntities, $Nodes, $Elements; other sections are skipped), with the
 * elements of every type of gmsh_types.c. Errors name the file and the line, or the
 * byte offset in a binary file. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "gmsh.h"

static const char *const dim_name[4] = {"point", "curve", "surface", "volume"};

/* The state of reading: the current line (ASCII parts) or field (binary parts) and the
 * capacities of the growing arrays of the file. */
struct reader {
  struct gmsh_file *gf;
  FILE *f;
  char *buf, *text; /* the current line and its text after leading blanks */
  const char *p;    /* the rest of the current line */
  size_t cap;
  int64_t line;     /* lines read */
  int64_t off;      /* bytes read */
  int64_t line_off; /* where the current line starts */
  int64_t fpos;     /* where the current binary field starts */
  int bin;          /* 1 while reading binary data */
  int swap;         /* the file's byte order is not the host's */
  int size_bytes;   /* bytes of a size_t of a binary file */
  int stop;         /* why read_line stopped early: FEMINT_EMESH (too long), FEMINT_ENOMEM, 0 */
  const char *section;
  size_t node_cap, name_cap, part_cap, ghost_cap, ent_cap[2][4], elem_cap[GMSH_MAX_TYPE + 1];
};

/* Where the reader is: the line, or in a binary file the byte offset. */
static int64_t here(const struct reader *r)
{
  if (!r->gf->binary) return r->line;
  return r->bin ? r->fpos : r->line_off;
}

static int __attribute__((format(printf, 3, 4)))
fail(struct reader *r, int code, const char *fmt, ...)
{
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return gmsh_fail_at(r->gf, here(r), code, "%s", msg);
}

/* Room for item n of an array a that grows by doubling; returns from the caller on failure. */
#define GMSH_GROW(r, a, cap, n)                                                                 \
  do {                                                                                          \
    if ((size_t)(n) >= (cap)) {                                                                 \
      size_t c_ = (cap) ? 2 * (cap) : 64;                                                       \
      void *q_ = realloc((a), c_ * sizeof *(a));                                                \
      if (!q_)                                                                                  \
        return femint_seterr((r)->gf->ctx, FEMINT_ENOMEM, "%s: out of memory reading the mesh", \
                             (r)->gf->path);                                                    \
      (a) = q_;                                                                                 \
      (cap) = c_;                                                                               \
    }                                                                                           \
  } while (0)

/* Up to 40 bytes of s (n at most) for a message, bytes that are not printable shown as '?'. */
static const char *shown(const char *s, size_t n, char out[41])
{
  size_t k = 0;
  for (; k < n && k < 40 && s[k]; k++) out[k] = isprint((unsigned char)s[k]) ? s[k] : '?';
  out[k] = '\0';
  return out;
}

/* The longest line read: longer ones (a file that is not a mesh, /dev/zero) stop the reader. */
#define GMSH_LINE_MAX ((size_t)1 << 20)

/* Read the next line without its end-of-line blanks; 1, or 0 at the end of the file or when the
 * line is too long or memory runs out (r->stop says which). */
static int read_line(struct reader *r)
{
  ssize_t n = 0;
  int c = 0;
  while ((c = getc_unlocked(r->f)) != EOF) {
    if ((size_t)n + 2 > r->cap) {
      const size_t cap = r->cap ? 2 * r->cap : 256;
      char *b = cap <= GMSH_LINE_MAX ? realloc(r->buf, cap) : NULL;
      if (!b) {
        r->stop = cap <= GMSH_LINE_MAX ? FEMINT_ENOMEM : FEMINT_EMESH;
        return 0;
      }
      r->buf = b;
      r->cap = cap;
    }
    r->buf[n++] = (char)c;
    if (c == '\n') break;
  }
  if (n == 0) return 0;
  r->buf[n] = '\0';
  r->line++;
  r->line_off = r->off;
  r->off += n;
  while (n > 0 && (r->buf[n - 1] == '\0' || strchr(" \t\r\n", r->buf[n - 1]))) r->buf[--n] = '\0';
  r->text = r->buf + strspn(r->buf, " \t");
  r->p = r->text;
  return 1;
}

/* Why the reader stopped before the end of the file: a read error, a line over GMSH_LINE_MAX, no
 * memory; 0 at the end of the file. */
static int read_error(struct reader *r)
{
  if (r->stop == FEMINT_EMESH)
    return fail(r, FEMINT_EMESH, "a line of more than %zu bytes: not a Gmsh MSH file",
                GMSH_LINE_MAX);
  if (r->stop == FEMINT_ENOMEM)
    return femint_seterr(r->gf->ctx, FEMINT_ENOMEM, "%s: out of memory reading a line",
                         r->gf->path);
  if (!ferror(r->f)) return 0;
  return femint_seterr(r->gf->ctx, FEMINT_EIO, "cannot read '%s': %s", r->gf->path,
                       strerror(errno));
}

/* The error for the end of the file (or a read error) inside the current section. */
static int at_eof(struct reader *r)
{
  FEMINT_CALL(read_error(r));
  return fail(r, FEMINT_EMESH, "the file ends inside the %s section", r->section);
}

/* The next line of data of the section: an error at the end of the file or of the section. */
static int record(struct reader *r)
{
  char s[41];
  if (!read_line(r)) return at_eof(r);
  if (r->text[0] == '$')
    return fail(r, FEMINT_EMESH, "the %s section ends early: '%s' where data was expected",
                r->section, shown(r->text, 40, s));
  return 0;
}

/* The line that must close the section ("$EndNodes"), after blank lines if any. */
static int section_end(struct reader *r, const char *end)
{
  char s[41];
  r->bin = 0;
  do
    if (!read_line(r)) return at_eof(r);
  while (!r->text[0]);
  if (strcmp(r->text, end) != 0)
    return fail(r, FEMINT_EMESH, "expected %s, found '%s' (more data than announced?)", end,
                shown(r->text, 40, s));
  return 0;
}

static int bad_token(struct reader *r, const char *s, const char *what)
{
  char t[41];
  s += strspn(s, " \t");
  size_t n = strcspn(s, " \t");
  if (n == 0) return fail(r, FEMINT_EMESH, "expected %s, found the end of the line", what);
  return fail(r, FEMINT_EMESH, "expected %s, found '%s'", what, shown(s, n, t));
}

/* Nothing but blanks left on the line (ASCII). */
static int get_end(struct reader *r, const char *after)
{
  char t[41];
  const char *p = r->p + strspn(r->p, " \t");
  if (!*p) return 0;
  return fail(r, FEMINT_EMESH, "unexpected '%s' after %s", shown(p, strcspn(p, " \t"), t), after);
}

/* n bytes of binary data in the host's byte order. */
static int bin_read(struct reader *r, void *v, size_t n, const char *what)
{
  unsigned char *b = v;
  r->fpos = r->off;
  size_t got = fread(b, 1, n, r->f);
  r->off += (int64_t)got;
  if (got < n) {
    if (ferror(r->f)) return read_error(r);
    return fail(r, FEMINT_EMESH, "the file ends inside the %s section (%s expected)", r->section,
                what);
  }
  for (size_t i = 0; r->swap && i < n / 2; i++) {
    unsigned char t = b[i];
    b[i] = b[n - 1 - i];
    b[n - 1 - i] = t;
  }
  return 0;
}

/* An integer in [lo, hi]: the next token of the line (ASCII), or a binary int (4 bytes) or
 * size_t (is_size). */
static int get_i64(struct reader *r, int is_size, int64_t lo, int64_t hi, const char *what,
                   int64_t *v)
{
  int64_t x;
  if (!r->bin) {
    char *end;
    errno = 0;
    long long y = strtoll(r->p, &end, 10);
    if (end == r->p || (*end && *end != ' ' && *end != '\t') || errno || y < lo || y > hi)
      return bad_token(r, r->p, what);
    r->p = end;
    *v = y;
    return 0;
  }
  if (!is_size) {
    int32_t y;
    FEMINT_CALL(bin_read(r, &y, 4, what));
    x = y;
  } else if (r->size_bytes == 4) {
    uint32_t y;
    FEMINT_CALL(bin_read(r, &y, 4, what));
    x = y;
  } else {
    uint64_t y;
    FEMINT_CALL(bin_read(r, &y, 8, what));
    if (y > INT64_MAX) return fail(r, FEMINT_EMESH, "expected %s, found %" PRIu64, what, y);
    x = (int64_t)y;
  }
  if (x < lo || x > hi) return fail(r, FEMINT_EMESH, "expected %s, found %" PRId64, what, x);
  *v = x;
  return 0;
}

static int get_int(struct reader *r, int lo, int hi, const char *what, int *v)
{
  int64_t x;
  FEMINT_CALL(get_i64(r, 0, lo, hi, what, &x));
  *v = (int)x;
  return 0;
}

static int get_size(struct reader *r, int64_t lo, int64_t hi, const char *what, int64_t *v)
{
  return get_i64(r, 1, lo, hi, what, v);
}

/* A count (a size_t) that fits an int. */
static int get_count(struct reader *r, const char *what, int *v)
{
  int64_t x;
  FEMINT_CALL(get_i64(r, 1, 0, INT_MAX, what, &x));
  *v = (int)x;
  return 0;
}

/* A double (finite if asked): a token, or 8 bytes. */
static int get_double(struct reader *r, int finite, const char *what, double *v)
{
  double x;
  if (!r->bin) {
    char *end;
    x = strtod(r->p, &end);
    if (end == r->p || (*end && *end != ' ' && *end != '\t') || (finite && !isfinite(x)))
      return bad_token(r, r->p, what);
    r->p = end;
  } else {
    FEMINT_CALL(bin_read(r, &x, 8, what));
    if (finite && !isfinite(x)) return fail(r, FEMINT_EMESH, "expected %s, found %g", what, x);
  }
  *v = x;
  return 0;
}

/* A record begins: the next line in ASCII; nothing in binary. */
static int rec_begin(struct reader *r) { return r->bin ? 0 : record(r); }

/* A record ends: nothing may follow on its line in ASCII. */
static int rec_end(struct reader *r, const char *after) { return r->bin ? 0 : get_end(r, after); }

/* Before an item of a list that may wrap to the next lines (ASCII). */
static int rec_flow(struct reader *r)
{
  if (r->bin) return 0;
  r->p += strspn(r->p, " \t");
  return *r->p ? 0 : record(r);
}

static int read_format(struct reader *r)
{
  struct gmsh_file *gf = r->gf;
  double version;
  int type, size;
  r->section = "$MeshFormat";
  FEMINT_CALL(record(r));
  FEMINT_CALL(get_double(r, 1, "a version number", &version));
  FEMINT_CALL(get_int(r, 0, 1, "the file type (0 ASCII, 1 binary)", &type));
  FEMINT_CALL(get_int(r, 1, 64, "the data size", &size));
  if (version >= 2 && version < 3) gf->version = 2;
  else if (version == 4.1) gf->version = 4;
  else
    return fail(r, FEMINT_ENOTSUP, "MSH version %.*s is not supported (femint reads 2.2 and 4.1)",
                (int)strcspn(r->text, " \t"), r->text);
  if (type == 1 && gf->version == 2)
    return fail(r, FEMINT_ENOTSUP, "binary MSH 2.2 files are not supported: save the mesh in "
                                   "MSH 4.1 (Gmsh option Mesh.MshFileVersion = 4.1) or in ASCII "
                                   "(Mesh.Binary = 0)");
  if (type == 1) {
    unsigned char b[4];
    if (size != 4 && size != 8)
      return fail(r, FEMINT_EMESH, "a binary file whose data size is %d (the bytes of a size_t: "
                                   "4 or 8)",
                  size);
    gf->binary = 1;
    r->size_bytes = size;
    r->bin = 1;
    FEMINT_CALL(bin_read(r, b, 4, "the int 1 that marks the byte order"));
    int32_t one;
    memcpy(&one, b, 4);
    if (one == 1) r->swap = 0;
    else if (one == 0x01000000) r->swap = 1;
    else
      return fail(r, FEMINT_EMESH, "the byte-order marker is %02x %02x %02x %02x, not the int 1",
                  b[0], b[1], b[2], b[3]);
  }
  return section_end(r, "$EndMeshFormat");
}

static int read_names(struct reader *r)
{
  struct gmsh_file *gf = r->gf;
  int n;
  r->section = "$PhysicalNames";
  FEMINT_CALL(record(r));
  FEMINT_CALL(get_count(r, "a number of physical names", &n));
  FEMINT_CALL(get_end(r, "the number of physical names"));
  for (int i = 0; i < n; i++) {
    struct gmsh_name nm;
    FEMINT_CALL(record(r));
    FEMINT_CALL(get_int(r, 0, 3, "a dimension", &nm.dim));
    FEMINT_CALL(get_int(r, INT_MIN, INT_MAX, "a physical tag", &nm.tag));
    const char *s = r->p + strspn(r->p, " \t"), *e = s[0] == '"' ? strchr(s + 1, '"') : NULL;
    if (!e) return bad_token(r, s, "a name in double quotes");
    r->p = e + 1;
    FEMINT_CALL(get_end(r, "the physical name"));
    GMSH_GROW(r, gf->name, r->name_cap, gf->nname);
    if (!(nm.name = strndup(s + 1, (size_t)(e - s - 1))))
      return femint_seterr(gf->ctx, FEMINT_ENOMEM, "%s: out of memory reading the mesh", gf->path);
    gf->name[gf->nname++] = nm;
  }
  return section_end(r, "$EndPhysicalNames");
}

static int entity_cmp(const void *a, const void *b)
{
  int x = ((const struct gmsh_entity *)a)->tag, y = ((const struct gmsh_entity *)b)->tag;
  return (x > y) - (x < y);
}

static struct gmsh_entity *find_entity(struct gmsh_entity *e, int n, int tag)
{
  struct gmsh_entity key = {.tag = tag};
  return n ? bsearch(&key, e, (size_t)n, sizeof key, entity_cmp) : NULL;
}

/* One entity of dimension d (its line in ASCII). */
static int read_entity(struct reader *r, int partitioned, int d, struct gmsh_entity *e)
{
  struct gmsh_file *gf = r->gf;
  int64_t n;
  int x;
  double box;
  *e = (struct gmsh_entity){.parent_dim = -1};
  FEMINT_CALL(rec_begin(r));
  FEMINT_CALL(get_int(r, INT_MIN, INT_MAX, "an entity tag", &e->tag));
  if (partitioned) {
    FEMINT_CALL(get_int(r, 0, 3, "the dimension of the parent entity", &e->parent_dim));
    FEMINT_CALL(get_int(r, INT_MIN, INT_MAX, "the tag of the parent entity", &e->parent_tag));
    FEMINT_CALL(get_size(r, 0, INT_MAX, "a number of partitions", &n));
    e->npart = (int)n;
    e->part = gf->npart;
    for (int k = 0; k < e->npart; k++) {
      FEMINT_CALL(get_int(r, 1, gf->npartition, "a partition", &x));
      GMSH_GROW(r, gf->part, r->part_cap, gf->npart);
      if (gf->npart == INT_MAX) return fail(r, FEMINT_EMESH, "too many partitions");
      gf->part[gf->npart++] = x;
    }
  }
  for (int k = 0; k < (d == 0 ? 3 : 6); k++)
    FEMINT_CALL(get_double(r, 0, d == 0 ? "a coordinate" : "a bounding box coordinate", &box));
  FEMINT_CALL(get_size(r, 0, INT64_MAX, "a number of physical tags", &n));
  for (int64_t k = 0; k < n; k++) {
    FEMINT_CALL(get_int(r, INT_MIN, INT_MAX, "a physical tag", &x));
    if (k == 0) e->phys = x;
  }
  if (d > 0) {
    FEMINT_CALL(get_size(r, 0, INT64_MAX, "a number of bounding entities", &n));
    for (int64_t k = 0; k < n; k++)
      FEMINT_CALL(get_int(r, INT_MIN, INT_MAX, "the tag of a bounding entity", &x));
  }
  return rec_end(r, "the entity");
}

/* $Entities or $PartitionedEntities (4.1). */
static int read_entities(struct reader *r, int partitioned)
{
  struct gmsh_file *gf = r->gf;
  struct gmsh_entity **list = partitioned ? gf->pent : gf->ent;
  int *count = partitioned ? gf->npent : gf->nent, n[4], nghost = 0;
  r->section = partitioned ? "$PartitionedEntities" : "$Entities";
  r->bin = gf->binary;
  if (partitioned) {
    FEMINT_CALL(rec_begin(r));
    FEMINT_CALL(get_count(r, "a number of partitions", &gf->npartition));
    if (gf->npartition < 1) return fail(r, FEMINT_EMESH, "a partitioned file of 0 partitions");
    FEMINT_CALL(rec_end(r, "the number of partitions"));
    FEMINT_CALL(rec_begin(r));
    FEMINT_CALL(get_count(r, "a number of ghost entities", &nghost));
    FEMINT_CALL(rec_end(r, "the number of ghost entities"));
    for (int i = 0; i < nghost; i++) {
      int tag, part;
      FEMINT_CALL(rec_flow(r));
      FEMINT_CALL(get_int(r, INT_MIN, INT_MAX, "the tag of a ghost entity", &tag));
      FEMINT_CALL(get_int(r, 1, gf->npartition, "the partition of a ghost entity", &part));
      GMSH_GROW(r, gf->ghost, r->ghost_cap, gf->nghost);
      gf->ghost[gf->nghost++] = tag;
    }
    if (nghost > 0) FEMINT_CALL(rec_end(r, "the ghost entities"));
  }
  FEMINT_CALL(rec_begin(r));
  for (int d = 0; d < 4; d++) FEMINT_CALL(get_count(r, "a number of entities", &n[d]));
  FEMINT_CALL(rec_end(r, "the numbers of entities"));
  for (int d = 0; d < 4; d++) {
    for (int i = 0; i < n[d]; i++) {
      struct gmsh_entity e;
      FEMINT_CALL(read_entity(r, partitioned, d, &e));
      GMSH_GROW(r, list[d], r->ent_cap[partitioned][d], count[d]);
      list[d][count[d]++] = e;
    }
    if (count[d]) qsort(list[d], (size_t)count[d], sizeof *list[d], entity_cmp);
    for (int i = 1; i < count[d]; i++)
      if (list[d][i].tag == list[d][i - 1].tag)
        return fail(r, FEMINT_EMESH, "%s %d is defined twice in the %s section", dim_name[d],
                    list[d][i].tag, r->section);
  }
  return section_end(r, partitioned ? "$EndPartitionedEntities" : "$EndEntities");
}

static int node_cmp(const void *a, const void *b)
{
  int64_t x = ((const struct gmsh_node *)a)->tag, y = ((const struct gmsh_node *)b)->tag;
  return (x > y) - (x < y);
}

/* The index of a node tag in the sorted nodes, or -1. */
static int find_node(const struct gmsh_file *gf, int64_t tag)
{
  int lo = 0, hi = gf->nnode;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (gf->node[mid].tag < tag) lo = mid + 1;
    else hi = mid;
  }
  return lo < gf->nnode && gf->node[lo].tag == tag ? lo : -1;
}

/* The coordinates of node k (its record) and, for parametric nodes, its npar parameters. */
static int read_coords(struct reader *r, struct gmsh_node *nd, int npar)
{
  double u;
  for (int i = 0; i < 3; i++) {
    FEMINT_CALL(get_double(r, 1, "a coordinate", &nd->x[i]));
    if (fabs(nd->x[i]) > MESH_COORD_MAX)
      return fail(r, FEMINT_EMESH,
                  "node %ld: the coordinate %g is beyond %g in magnitude (the Jacobians of its "
                  "cells would overflow)",
                  (long)nd->tag, nd->x[i], MESH_COORD_MAX);
  }
  for (int i = 0; i < npar; i++) FEMINT_CALL(get_double(r, 1, "a parametric coordinate", &u));
  return 0;
}

static int read_nodes(struct reader *r)
{
  struct gmsh_file *gf = r->gf;
  int nblock = 1, ntotal;
  int64_t tag, bound;
  r->section = "$Nodes";
  r->bin = gf->binary;
  FEMINT_CALL(rec_begin(r));
  if (gf->version == 4) FEMINT_CALL(get_count(r, "a number of node blocks", &nblock));
  FEMINT_CALL(get_count(r, "a number of nodes", &ntotal));
  int64_t header = here(r);
  if (gf->version == 4)
    for (int k = 0; k < 2; k++) FEMINT_CALL(get_size(r, 0, INT64_MAX, "a node tag bound", &bound));
  FEMINT_CALL(rec_end(r, "the numbers of nodes"));
  for (int b = 0; b < nblock; b++) {
    int n = ntotal, dim = 0, ent, param = 0, first = gf->nnode;
    if (gf->version == 4) {
      FEMINT_CALL(rec_begin(r));
      FEMINT_CALL(get_int(r, 0, 3, "an entity dimension", &dim));
      FEMINT_CALL(get_int(r, INT_MIN, INT_MAX, "an entity tag", &ent));
      FEMINT_CALL(get_int(r, 0, 1, "0 or 1 (parametric)", &param));
      FEMINT_CALL(get_count(r, "a number of nodes", &n));
      FEMINT_CALL(rec_end(r, "the header of a node block"));
      if (n > INT_MAX - 1 - first) return fail(r, FEMINT_EMESH, "too many nodes");
      /* The tags first (one a line as Gmsh writes them, or more), then the coordinates. */
      for (int k = 0; k < n; k++) {
        FEMINT_CALL(rec_flow(r));
        FEMINT_CALL(get_size(r, 1, INT64_MAX, "a node tag", &tag));
        GMSH_GROW(r, gf->node, r->node_cap, first + k);
        gf->node[first + k].tag = tag;
      }
      if (n > 0) FEMINT_CALL(rec_end(r, "the node tags of the block"));
    }
    for (int k = 0; k < n; k++) {
      FEMINT_CALL(rec_begin(r));
      int64_t pos = r->bin ? r->off : here(r);
      if (gf->version == 2) {
        FEMINT_CALL(get_size(r, 1, INT64_MAX, "a node tag", &tag));
        if (gf->nnode == INT_MAX - 1) return fail(r, FEMINT_EMESH, "too many nodes");
        GMSH_GROW(r, gf->node, r->node_cap, gf->nnode);
        gf->node[gf->nnode].tag = tag;
      }
      struct gmsh_node *nd = &gf->node[gf->nnode];
      FEMINT_CALL(read_coords(r, nd, param ? dim : 0));
      nd->pos = pos;
      FEMINT_CALL(rec_end(r, "the coordinates of a node"));
      gf->nnode++;
    }
  }
  if (gf->nnode != ntotal)
    return gmsh_fail_at(gf, header, FEMINT_EMESH,
                        "the $Nodes section announces %d nodes but has %d", ntotal, gf->nnode);
  FEMINT_CALL(section_end(r, "$EndNodes"));
  if (gf->nnode) qsort(gf->node, (size_t)gf->nnode, sizeof *gf->node, node_cmp);
  for (int i = 1; i < gf->nnode; i++)
    if (gf->node[i].tag == gf->node[i - 1].tag) {
      int64_t a = gf->node[i].pos, b = gf->node[i - 1].pos;
      return gmsh_fail_at(gf, a > b ? a : b, FEMINT_EMESH, "node tag %" PRId64 " is defined twice",
                          gf->node[i].tag);
    }
  return 0;
}

/* Room for one more element of type t. */
static int elem_grow(struct reader *r, int t)
{
  struct gmsh_elements *el = &r->gf->elem[t];
  size_t nn = (size_t)gmsh_type_info(t)->nodes;
  if ((size_t)el->n < r->elem_cap[t]) return 0;
  size_t c = r->elem_cap[t] ? 2 * r->elem_cap[t] : 64;
  void *q[5] = {realloc(el->tag, c * sizeof *el->tag), NULL, NULL, NULL, NULL};
  if (q[0]) el->tag = q[0];
  if (q[0] && (q[1] = realloc(el->node, c * nn * sizeof *el->node))) el->node = q[1];
  if (q[1] && (q[2] = realloc(el->phys, c * sizeof *el->phys))) el->phys = q[2];
  if (q[2] && (q[3] = realloc(el->ent, c * sizeof *el->ent))) el->ent = q[3];
  if (q[3] && (q[4] = realloc(el->pos, c * sizeof *el->pos))) el->pos = q[4];
  if (!q[4])
    return femint_seterr(r->gf->ctx, FEMINT_ENOMEM, "%s: out of memory reading the mesh",
                         r->gf->path);
  r->elem_cap[t] = c;
  return 0;
}

/* The rest of an element record: its nodes (what names them in messages). keep: store it as
 * an element of type t with its tag, physical tag and entity. */
static int read_element(struct reader *r, int t, int64_t tag, int64_t pos, int phys, int ent,
                        int keep, const char *what)
{
  struct gmsh_file *gf = r->gf;
  struct gmsh_elements *el = &gf->elem[t];
  int nn = gmsh_type_info(t)->nodes;
  int64_t nt;
  if (keep) {
    if (el->n == INT_MAX - 1) return fail(r, FEMINT_EMESH, "too many elements");
    FEMINT_CALL(elem_grow(r, t));
  }
  for (int k = 0; k < nn; k++) {
    FEMINT_CALL(get_size(r, 1, INT64_MAX, what, &nt));
    int v = find_node(gf, nt);
    if (v < 0)
      return fail(r, FEMINT_EMESH, "element %" PRId64 ": unknown node tag %" PRId64, tag, nt);
    if (keep) el->node[(size_t)el->n * nn + k] = v;
  }
  FEMINT_CALL(rec_end(r, "the nodes of the element"));
  if (keep) {
    el->tag[el->n] = tag;
    el->phys[el->n] = phys;
    el->ent[el->n] = ent;
    el->pos[el->n] = pos;
    el->n++;
  }
  return 0;
}

/* The physical tag of the elements of a 4.1 entity (see struct gmsh_elements). */
static int entity_phys(const struct gmsh_file *gf, int dim, const struct gmsh_entity *e)
{
  if (!e) return 0;
  if (!gf->npartition) return e->phys;
  if (e->parent_dim != dim) return 0;
  const struct gmsh_entity *p = find_entity(gf->ent[dim], gf->nent[dim], e->parent_tag);
  return p ? p->phys : e->phys;
}

/* Whether tag is one of the ghost entities of $PartitionedEntities. */
static int is_ghost(const struct gmsh_file *gf, int tag)
{
  for (int i = 0; i < gf->nghost; i++)
    if (gf->ghost[i] == tag) return 1;
  return 0;
}

static int unknown_type(struct reader *r, int64_t t)
{
  return fail(r, FEMINT_EMESH, "element type %" PRId64 " is unknown to femint's reader (it knows "
                               "Gmsh's types 1-33, 36-66, 71-75, 90-98, 106-110, 118-124, 137)",
              t);
}

static int read_elements(struct reader *r)
{
  struct gmsh_file *gf = r->gf;
  int nblock = 1, ntotal, count = 0, n, t = 0, dim = 0, entag, ntag, x, ent = -1, phys = 0;
  int keep = 1, what_type = 0;
  int64_t tag, bound, t64;
  char what[64];
  r->section = "$Elements";
  r->bin = gf->binary;
  FEMINT_CALL(rec_begin(r));
  if (gf->version == 4) FEMINT_CALL(get_count(r, "a number of element blocks", &nblock));
  FEMINT_CALL(get_count(r, "a number of elements", &ntotal));
  int64_t header = here(r);
  if (gf->version == 4)
    for (int k = 0; k < 2; k++)
      FEMINT_CALL(get_size(r, 0, INT64_MAX, "an element tag bound", &bound));
  FEMINT_CALL(rec_end(r, "the numbers of elements"));
  /* Ghost entities are of the highest dimension of the partition entities (Gmsh lists them, or
   * not, in $PartitionedEntities). */
  int top = 3;
  while (top > 0 && !gf->npent[top]) top--;
  for (int b = 0; b < nblock; b++) {
    n = ntotal;
    if (gf->version == 4) {
      FEMINT_CALL(rec_begin(r));
      FEMINT_CALL(get_int(r, 0, 3, "an entity dimension", &dim));
      FEMINT_CALL(get_int(r, INT_MIN, INT_MAX, "an entity tag", &entag));
      FEMINT_CALL(get_i64(r, 0, 1, INT_MAX, "an element type", &t64));
      if (!gmsh_type_info(t64)) return unknown_type(r, t64);
      t = (int)t64;
      FEMINT_CALL(get_count(r, "a number of elements", &n));
      FEMINT_CALL(rec_end(r, "the header of an element block"));
      if (gmsh_shape_dim(gmsh_type_info(t)->shape) != dim) {
        char name[64];
        return fail(r, FEMINT_EMESH, "element type %d (%s) in a block of dimension %d", t,
                    gmsh_type_name(t, 1, name, sizeof name), dim);
      }
      struct gmsh_entity *e = NULL;
      keep = 1;
      if (gf->npartition && !(e = find_entity(gf->pent[dim], gf->npent[dim], entag))) {
        if (!is_ghost(gf, entag))
          return fail(r, FEMINT_EMESH, "%s %d is not in the $PartitionedEntities section",
                      dim_name[dim], entag);
        keep = 0;
      } else if (!gf->npartition && gf->have_entities &&
                 !(e = find_entity(gf->ent[dim], gf->nent[dim], entag))) {
        return fail(r, FEMINT_EMESH, "%s %d is not in the $Entities section", dim_name[dim],
                    entag);
      }
      if (e && dim == top && is_ghost(gf, entag)) keep = 0;
      ent = e ? (int)(e - (gf->npartition ? gf->pent[dim] : gf->ent[dim])) : -1;
      phys = entity_phys(gf, dim, e);
    }
    for (int k = 0; k < n; k++, count++) {
      FEMINT_CALL(rec_begin(r));
      int64_t pos = r->bin ? r->off : here(r);
      FEMINT_CALL(get_size(r, 1, INT64_MAX, "an element tag", &tag));
      if (gf->version == 2) {
        FEMINT_CALL(get_i64(r, 0, 1, INT_MAX, "an element type", &t64));
        if (!gmsh_type_info(t64)) return unknown_type(r, t64);
        t = (int)t64;
        FEMINT_CALL(get_int(r, 0, INT_MAX, "a number of tags", &ntag));
        phys = 0;
        for (int i = 0; i < ntag; i++) {
          FEMINT_CALL(get_int(r, INT_MIN, INT_MAX, "a tag", &x));
          if (i == 0) phys = x;
        }
      }
      if (t != what_type) {
        snprintf(what, sizeof what, "a node tag (element type %d has %d nodes)", t,
                 gmsh_type_info(t)->nodes);
        what_type = t;
      }
      FEMINT_CALL(read_element(r, t, tag, pos, phys, ent, keep, what));
    }
  }
  if (count != ntotal)
    return gmsh_fail_at(gf, header, FEMINT_EMESH,
                        "the $Elements section announces %d elements but has %d", ntotal, count);
  return section_end(r, "$EndElements");
}

/* Skip a section that femint does not use, up to its $End line. */
static int skip_section(struct reader *r)
{
  char name[64], end[72];
  int64_t start = here(r);
  snprintf(name, sizeof name, "%s", r->text);
  snprintf(end, sizeof end, "$End%s", name + 1);
  while (read_line(r))
    if (strcmp(r->text, end) == 0) return 0;
  FEMINT_CALL(read_error(r));
  char a[41], b[41];
  return gmsh_fail_at(r->gf, start, FEMINT_EMESH, "the %s section has no %s line",
                      shown(name, 40, a), shown(end, 40, b));
}

static int read_sections(struct reader *r)
{
  struct gmsh_file *gf = r->gf;
  int have_nodes = 0, have_elements = 0, have_names = 0;
  char s[41];
  if (!read_line(r)) FEMINT_CALL(read_error(r));
  if (r->line == 0 || strcmp(r->text, "$MeshFormat") != 0)
    return fail(r, FEMINT_EMESH, "not a Gmsh MSH file (it does not start with $MeshFormat)");
  FEMINT_CALL(read_format(r));
  while (read_line(r)) {
    const char *t = r->text;
    if (!*t) continue;
    if (strcmp(t, "$Nodes") == 0) {
      if (have_nodes) return fail(r, FEMINT_EMESH, "a second $Nodes section");
      FEMINT_CALL(read_nodes(r));
      have_nodes = 1;
    } else if (strcmp(t, "$Elements") == 0) {
      if (!have_nodes) return fail(r, FEMINT_EMESH, "$Elements comes before $Nodes");
      if (have_elements) return fail(r, FEMINT_EMESH, "a second $Elements section");
      FEMINT_CALL(read_elements(r));
      have_elements = 1;
    } else if (strcmp(t, "$Entities") == 0 && gf->version == 4) {
      if (gf->have_entities || have_nodes)
        return fail(r, FEMINT_EMESH, "a $Entities section after $Entities or $Nodes");
      FEMINT_CALL(read_entities(r, 0));
      gf->have_entities = 1;
    } else if (strcmp(t, "$PartitionedEntities") == 0 && gf->version == 4) {
      if (gf->npartition || have_nodes)
        return fail(r, FEMINT_EMESH,
                    "a $PartitionedEntities section after $PartitionedEntities or $Nodes");
      FEMINT_CALL(read_entities(r, 1));
    } else if (strcmp(t, "$PhysicalNames") == 0) {
      if (have_names) return fail(r, FEMINT_EMESH, "a second $PhysicalNames section");
      FEMINT_CALL(read_names(r));
      have_names = 1;
    } else if (t[0] == '$') {
      FEMINT_CALL(skip_section(r));
    } else {
      return fail(r, FEMINT_EMESH, "unexpected '%s' outside of a section", shown(t, 40, s));
    }
  }
  FEMINT_CALL(read_error(r));
  if (!have_nodes || !have_elements)
    return fail(r, FEMINT_EMESH, "the file ends without a %s section",
                have_nodes ? "$Elements" : "$Nodes");
  return 0;
}

int gmsh_file_read(femint_context_t ctx, const char *path, struct gmsh_file *gf)
{
  *gf = (struct gmsh_file){.ctx = ctx, .path = path};
  struct reader r = {.gf = gf};
  if (!(r.f = fopen(path, "rb")))
    return femint_seterr(ctx, FEMINT_EIO, "cannot read '%s': %s", path, strerror(errno));
  int ierr = read_sections(&r);
  fclose(r.f);
  free(r.buf);
  if (ierr) gmsh_file_free(gf);
  return ierr;
}
