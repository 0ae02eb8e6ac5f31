/* Gmsh MSH files read into memory (gmsh_read.c): nodes, the elements of every type of
 * gmsh_types.c with their physical tags and entities, physical names and partitions. mesh_gmsh.c
 * makes femint meshes of them (prisms, tetrahedra, quadrilaterals). Internal. */
#ifndef FEMINT_HOST_GMSH_H
#define FEMINT_HOST_GMSH_H

#include <stdint.h>

#include "host.h"

/* Element types (the numbers of Gmsh's GmshDefines.h) that femint's code names. */
enum {
  GMSH_LINE = 1,
  GMSH_TRIANGLE = 2,
  GMSH_QUAD = 3,
  GMSH_TET = 4,
  GMSH_HEX = 5,
  GMSH_PRISM = 6,
  GMSH_PYRAMID = 7,
  GMSH_LINE3 = 8,
  GMSH_TRIANGLE6 = 9,
  GMSH_QUAD9 = 10,
  GMSH_TET10 = 11,
  GMSH_HEX27 = 12,
  GMSH_POINT = 15,
  GMSH_QUAD8 = 16,
  GMSH_HEX20 = 17,
  GMSH_MAX_TYPE = 137
};

/* Shapes of element types; the first nodes of an element are its corners. */
enum gmsh_shape {
  GMSH_SHAPE_POINT,
  GMSH_SHAPE_LINE,
  GMSH_SHAPE_TRIANGLE,
  GMSH_SHAPE_QUAD,
  GMSH_SHAPE_TET,
  GMSH_SHAPE_PYRAMID,
  GMSH_SHAPE_PRISM,
  GMSH_SHAPE_HEX
};

struct gmsh_type {
  int8_t known;  /* 1 for a type in the table */
  int8_t shape;  /* enum gmsh_shape */
  int8_t order;
  int16_t nodes; /* nodes of an element */
};

/* The description of element type t, or NULL when the reader does not know it. */
const struct gmsh_type *gmsh_type_info(long t);
/* The dimension (0..3) and the number of corners of a shape. */
int gmsh_shape_dim(int shape);
int gmsh_shape_corners(int shape);
/* "tetrahedron", "10-node tetrahedra", ...: the name of type t for count elements, in buf. */
const char *gmsh_type_name(long t, long count, char *buf, size_t len);

struct gmsh_node {
  int64_t tag;
  int64_t pos; /* where it is defined: line (ASCII) or byte offset (binary file) */
  double x[3];
};

/* An entity of $Entities or of $PartitionedEntities. */
struct gmsh_entity {
  int tag;
  int phys;                   /* its first physical tag, 0 if none */
  int parent_dim, parent_tag; /* a partition entity's parent; -1 and 0 in $Entities */
  int npart, part;            /* its partitions: gmsh_file.part[part .. part + npart) */
};

/* The elements of one type, in file order. */
struct gmsh_elements {
  int n;
  int64_t *tag;
  int *node;    /* [n][nodes] indices into gmsh_file.node */
  int *phys;    /* physical tag: the first tag (2.2); the first physical tag of its entity (4.1),
                   of its parent entity for a partition entity (0 when the parent has another
                   dimension: a partition boundary); 0 if none */
  int *ent;     /* index of its entity in gmsh_file.ent[dim] (pent[dim] in a partitioned file),
                   -1 if none */
  int64_t *pos; /* line (ASCII) or byte offset (binary file) of the element */
};

struct gmsh_name {
  int dim, tag;
  char *name;
};

struct gmsh_file {
  femint_context_t ctx;
  const char *path;
  int version;                  /* 2 (2.2) or 4 (4.1) */
  int binary;                   /* 1: positions are byte offsets, else lines */
  int nnode;
  struct gmsh_node *node;       /* sorted by tag */
  int nname;
  struct gmsh_name *name;       /* $PhysicalNames */
  int have_entities;
  int nent[4];
  struct gmsh_entity *ent[4];   /* $Entities by dimension, sorted by tag */
  int npartition;               /* $PartitionedEntities: the number of partitions, else 0 */
  int npent[4];
  struct gmsh_entity *pent[4];  /* partition entities by dimension, sorted by tag */
  int npart;
  int *part;                    /* partition lists of the entities */
  int nghost;
  int *ghost;                   /* tags of the ghost entities, whose elements are left out */
  struct gmsh_elements elem[GMSH_MAX_TYPE + 1]; /* ghost elements are left out */
};

/* Read a whole MSH file (ASCII 2.2, ASCII or binary 4.1). On error gf is freed and the message
 * names the file and the line or byte offset. */
int gmsh_file_read(femint_context_t ctx, const char *path, struct gmsh_file *gf);
void gmsh_file_free(struct gmsh_file *gf);
/* The entity of element i of type t, or NULL. */
const struct gmsh_entity *gmsh_element_entity(const struct gmsh_file *gf, int t, int i);
/* Whether an entity (NULL: none) lies in partition part. */
int gmsh_entity_in_part(const struct gmsh_file *gf, const struct gmsh_entity *e, int part);
/* An error "PATH:LINE: ..." or "PATH: byte N: ..." at pos (pos < 0: "PATH: ..."). */
int gmsh_fail_at(const struct gmsh_file *gf, int64_t pos, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- mesh_gmsh.c: the cells and tagged faces of a file, shared by the mesh readers ---- */

/* Read a file and check that part is -1 (all) or one of its partitions (FEMINT_EINVAL). */
int gmsh_file_read_part(femint_context_t ctx, const char *path, int part, struct gmsh_file *gf);
/* The dimension of a file's cells, its elements of the highest dimension (-1: no element). */
int gmsh_cell_dim(const struct gmsh_file *gf);
/* FEMINT_ENOTSUP unless every element of dimension dim has one of the types ok[0..nok), or
 * FEMINT_EMESH when none has: the message names the most numerous other type, its count and
 * first element, says what the mesh holds ("holds", e.g. "this femint mesh holds prisms only")
 * and lists every type of that dimension in the file. */
int gmsh_check_cells(const struct gmsh_file *gf, int dim, int nok, const int *ok,
                     const char *holds);

/* An element of dimension dim - 1 with a physical tag, which tags the boundary face (or edge)
 * with its corners: their node indices (-1 past its corners), the tag and the element (type,
 * index in gf->elem[type]) for messages. */
struct gmsh_face {
  int v[4], tag, type, i;
};

/* The cells of a file or of one of its partitions (elements of dimension dim, in file order by
 * type) and the tagged faces among its elements of dimension dim - 1. */
struct gmsh_selection {
  int ncell, nface;
  int *cell_type, *cell;   /* [ncell] each cell's type and index in gf->elem[type] */
  struct gmsh_face *face;  /* [nface] */
  int nvert;               /* the corner nodes of the cells, by ascending node tag */
  int *vert;               /* [gf->nnode] the vertex of a node, -1 for a node that is no corner */
  double *coords;          /* [nvert][3] */
};

/* The cells of dimension dim and the tagged faces of partition part (-1: all), and their
 * vertices; "cells" names the cells in the message of an empty partition. FEMINT_EMESH (a cell
 * that repeats a node, an empty partition), FEMINT_ENOMEM; s is then empty. */
int gmsh_select(const struct gmsh_file *gf, int dim, int part, const char *cells,
                struct gmsh_selection *s);
void gmsh_selection_free(struct gmsh_selection *s);
/* The nodes of cell c of a selection in Gmsh's order, X[nodes][3]; returns the node count. */
int gmsh_cell_nodes(const struct gmsh_file *gf, const struct gmsh_selection *s, int c, double *X);
/* "PATH:LINE: cell C (element T)" and the rest of the message, for cell c of a selection. */
int gmsh_fail_cell(const struct gmsh_file *gf, const struct gmsh_selection *s, int c, int code,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* "PATH: " before the last error message (one from a mesh constructor), keeping its code. */
int gmsh_fail_wrap(const struct gmsh_file *gf, int code);
/* The face of a selection that matched no boundary face: FEMINT_EMESH naming its element. */
int gmsh_fail_face(const struct gmsh_file *gf, const struct gmsh_face *f, const char *cells);

#endif
