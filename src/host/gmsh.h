/* Gmsh MSH files read into memory (gmsh_read.c): nodes, the elements of every type of
 * gmsh_types.c with their physical tags and entities, physical names and partitions. mesh_gmsh.c
 * makes femint meshes of them. Internal. */
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
  GMSH_POINT = 15,
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

#endif
