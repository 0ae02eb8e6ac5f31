/* Internal interfaces of the tetrahedral H(curl) problem of seed 004: meshes of straight or
 * curved tetrahedra, the H(curl) DOF map with PEC walls, and the host assembly of the mass (T)
 * and curl-curl (S) matrices through COO into one shared CSR pattern. Never installed. */
#ifndef FEMINT_MESH_TET_H
#define FEMINT_MESH_TET_H

#include <stdint.h>

#include "coo.h"
#include "refel_tet.h"

/* ---- mesh_tet.c ----
 * Every cell keeps its 4 vertices in ascending order of their numbers, so that a shared edge or
 * face meets the same local vertex order from both of its cells (refel_tet.h): edges and faces
 * need no orientation data. Such a cell is negatively oriented about half of the time; the
 * element routines use |det J|. A mesh has straight cells (nnode 4) until tet_mesh_map gives
 * every edge a node of its own (nnode 10): the image of the edge's midpoint under the map, so
 * that curved boundaries hold the exact curve at the nodes. */
struct tet_mesh {
  int nvert, ncell;
  int nnode;      /* 4: straight cells; 10: quadratic cells with the edge nodes edge_x */
  double *coords; /* [nvert][3] */
  int *cells;     /* [ncell][4] vertices, ascending */
  int nedge, nface;
  int *edge_vert; /* [nedge][2] ascending */
  int *face_vert; /* [nface][3] ascending */
  int *cell_edge; /* [ncell][6] global edges in the reference edge order */
  int *cell_face; /* [ncell][4] global faces in the reference face order */
  int *face_cell; /* [nface][2] the cells of a face; the second is -1 on the boundary */
  int *face_tag;  /* [nface] 0 inside; >= 1 on the boundary (the box: 1..6 for x = 0, x = lx,
                     y = 0, y = ly, z = 0, z = lz; tet_mesh_create: 1) */
  double *edge_x; /* [nedge][3] edge nodes when nnode is 10, else NULL */
};

/* A mesh from arrays: coords[nvert][3], cells[ncell][4] (any vertex order; each cell is sorted).
 * Builds edges, faces and boundary tags (1), and checks every cell. FEMINT_EMESH (a vertex out
 * of range, a repeated vertex, a face shared by more than two cells: the cell is named),
 * FEMINT_EJACOBIAN (a flat cell, named), FEMINT_EINVAL, FEMINT_ENOMEM. */
int tet_mesh_create(int nvert, const double *coords, int ncell, const int *cells,
                    struct tet_mesh **mesh);
/* The box [0,lx]x[0,ly]x[0,lz] of nx*ny*nz cubes, each cut into the 6 tetrahedra around its
 * diagonal from (0,0,0) to (1,1,1) (the same cut in every cube, so the mesh is conforming);
 * boundary faces tagged 1..6. 6 nx ny nz cells. */
int tet_mesh_create_box(int nx, int ny, int nz, double lx, double ly, double lz,
                        struct tet_mesh **mesh);
/* A map of space: y = map(x). */
typedef void (*tet_map_fn)(const double *x, double *y, void *user);
/* Make the cells quadratic (once: the edge nodes start at the midpoints) and move every vertex
 * and edge node by the map, then check every cell with geom_tet_check. On FEMINT_EJACOBIAN
 * (naming the first bad cell) the mesh keeps the moved nodes: the caller destroys it. */
int tet_mesh_map(struct tet_mesh *mesh, tet_map_fn map, void *user);
/* The nodes X[nnode][3] of cell c (vertices, then the edge nodes for nnode 10). */
void tet_mesh_cell_nodes(const struct tet_mesh *mesh, int c, double *X);
/* Every cell checked with geom_tet_check; FEMINT_EJACOBIAN names the first bad one. */
int tet_mesh_check(const struct tet_mesh *mesh);
void tet_mesh_destroy(struct tet_mesh **mesh);

/* ---- space_tet.c: the H(curl) DOF map ----
 * Global DOFs: the p functions of every edge (edge e: e*p + rank), then the p(p-1) of every
 * face, then the p(p-1)(p-2)/2 of every cell, all of one order p. PEC walls (n x E = 0) on the
 * boundary faces whose tag is in the set remove the DOFs of those faces and of their edges; the
 * others are renumbered 0..ndof-1 in the same order. */
#define TET_PEC_ALL (~0u)

struct tet_space {
  const struct tet_mesh *mesh;
  int order, nsh;
  int64_t nall;      /* every DOF */
  int64_t ndof;      /* DOFs left by the PEC walls */
  int64_t *cell_all; /* [ncell][nsh] the DOF (of nall) of each local function */
  int64_t *cell_dof; /* [ncell][nsh] its number among the ndof, -1 when a wall removes it */
  int64_t *all_free; /* [nall] the same by DOF */
};

/* The space of order p (re->order) on mesh; pec_tags: bit t set makes the faces of tag t
 * (1..31) PEC walls (TET_PEC_ALL: every boundary face; 0: none). FEMINT_ENOMEM. */
int tet_space_create(const struct tet_mesh *mesh, const struct refel_tet *re, unsigned pec_tags,
                     struct tet_space **space);
void tet_space_destroy(struct tet_space **space);

/* ---- assemble_tet.c: T and S through COO ---- */

/* The assembled mass and curl-curl matrices of a space: one CSR pattern, two value arrays. */
struct tet_system {
  struct coo_pattern pattern; /* n = ndof, nnz, rowptr, colind */
  double *T, *S;              /* [nnz] */
};

/* Rows and columns of the COO slots of ncell cells: slot c*nsh*nsh + i*nsh + j holds
 * (cell_dof[c][i], cell_dof[c][j]), or -1 for both where a wall removes either DOF (one
 * work-item per slot on a device). */
void tet_coo_indices(int64_t ncell, int nsh, const int64_t *cell_dof, int64_t *row, int64_t *col);

/* The pattern of those slots (coo_cells.c), equal to coo_pattern_build's of tet_coo_indices' rows
 * and columns (perm and seg included) but built row by row on the host's cores from the
 * transpose of the DOF map: no global sort. FEMINT_EINVAL (a DOF >= n), FEMINT_ENOMEM. */
int coo_pattern_from_cells(int64_t n, int64_t ncell, int nsh, const int64_t *cell_dof,
                           struct coo_pattern *p);

/* Element matrices of every cell (tet_element_reference on the points of re; coef[0] for every
 * cell when ncoef is 1, coef[c] for cell c when ncoef is the number of cells), written as COO
 * triplets (slot c*nsh*nsh + i*nsh + j, row -1 for removed DOFs), the pattern built once from
 * them, and both value arrays reduced on it. FEMINT_EINVAL (ncoef, re's order differs from the
 * space's), the element routine's errors (the cell named), FEMINT_ENOMEM. */
int tet_assemble(const struct tet_space *space, const struct refel_tet *re,
                 const struct tet_coef *coef, int ncoef, struct tet_system *sys);
void tet_system_free(struct tet_system *sys);

#endif
