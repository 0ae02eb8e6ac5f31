/* Internal helpers of the meshes shared by mesh.c, mesh_topo.c, mesh_curved.c, mesh_box.c,
 * mesh_quad.c and mesh_gmsh.c: the generic constructor, input checks, the topology, the checks of
 * the cells and the tagging of boundary faces. */
#ifndef FEMINT_HOST_MESH_H
#define FEMINT_HOST_MESH_H

#include "host.h"

/* Check that det J > 0 everywhere on a prism with vertices X[6][3] (so at its vertices and at the
 * points of every quadrature rule). det J = sum_a l_a(xi1, xi2) q_a(xi3), with q_a the (quadratic)
 * det J along the vertical edge over vertex a, so its minimum over the prism is the smallest
 * minimum of the q_a on [-1, 1]; each q_a is known from det J at xi3 = -1, 0, 1. Returns 1 when
 * det J is positive everywhere, else 0; *det and xi receive the minimum and where it lies. */
int mesh_check_cell(const double *X, double *det, double xi[3]);

/* Whether cell c of a mesh is a valid map (prisms: mesh_check_cell; quadrilaterals:
 * geom_quad_check's certificate; tetrahedra: geom_tet_check); FEMINT_EJACOBIAN with the cell,
 * its vertices and what was found in the message (recorded on the mesh's context). */
int mesh_check_geometry(const struct femint_mesh *m, int c);
/* The same for every cell, by the calling thread's OpenMP team; the error names the first bad
 * cell. */
int mesh_check_all(const struct femint_mesh *m);

/* qsort's comparison of two int64_t. */
int mesh_cmp_int64(const void *a, const void *b);

/* Uniform in [-1, 1) from a splitmix64 state: a sequence that depends only on the seed (the
 * perturbations of the generated meshes). */
double mesh_uniform(uint64_t *state);

/* Check coordinates (dim per vertex, finite) and cells (nv vertex indices each, in range, none
 * repeated); the message names the first bad vertex or cell. */
int mesh_check_input(femint_context_t ctx, int nvert, const double *coords, int dim, int ncell,
                     int nv, const int *cells);

/* A mesh of the shape of topo with room for nvert vertices (coordinates, global ids) and ncell
 * cells (vertices, materials zeroed), nothing else set. FEMINT_ENOMEM. */
int mesh_alloc(femint_context_t ctx, const struct cell_topo *topo, int nvert, int ncell,
               struct femint_mesh **mesh);

/* Names a cell of the caller's input in messages: writes what the caller knows of cell c (e.g.
 * "element 31 at line 34" of a Gmsh file) into buf. */
struct mesh_namer {
  void (*fn)(const void *user, int c, char *buf, size_t len);
  const void *user;
};
/* "cell C" or "cell C (what the namer says)" into buf; returns buf. */
const char *mesh_cell_name(const struct femint_mesh *m, int c, char *buf, size_t len);

/* The constructor behind every mesh: vertices coords[nvert][topo->dim], global ids gid (NULL:
 * the vertex indices; then prisms order their triangles by the vertical lines of the mesh, as a
 * whole mesh may, instead of by the ids of the vertices, as a part must), cells[ncell][topo->nv]
 * in the caller's vertex order, edge_nodes NULL or [ncell][ne][dim] (the node of each edge of
 * each cell, edges taken in the order of topo->edge_vert applied to the caller's vertex order).
 * Each cell's vertices are put in femint's order (prisms: triangles by vertical lines or ids;
 * tetrahedra: ascending global id; quadrilaterals as given), the topology and boundary faces
 * (tag 0) built, the edge nodes checked for agreement and every cell checked. who names the
 * public function in messages, namer (NULL: none) the cells. */
int mesh_create(femint_context_t ctx, const char *who, const struct cell_topo *topo, int nvert,
                const double *coords, const int64_t *gid, int ncell, const int *cells,
                const double *edge_nodes, const struct mesh_namer *namer,
                struct femint_mesh **mesh);

/* Edges, faces and boundary faces (tag 0) of a mesh whose topo, nvert, ncell and cells are set. */
int mesh_build_topology(struct femint_mesh *m);

/* Give every edge the node the cells give it: edge_nodes[ncell][ne][dim] as mesh_create takes
 * them, the edges of cell c found from in_cells[c] (the caller's vertex order). Cells that share
 * an edge must give the same node (to 1e-12 of the edge's length): FEMINT_EMESH names both. */
int mesh_set_edge_nodes(struct femint_mesh *m, const int *in_cells, const double *edge_nodes);

/* Vertices of local face f (3 or 4 for a prism, 3 for a tetrahedron, 2 for a quadrilateral's
 * edge). */
int mesh_face_nv(const struct femint_mesh *m, int f);

/* The local edge of cell c between vertices a and b, or -1. */
int mesh_local_edge(const struct femint_mesh *m, int c, int a, int b);

/* The tag of a boundary face from the coordinates of its nv (2, 3 or 4) vertices X[nv][3]. */
typedef int (*mesh_tag_fn)(int nv, const double *X, void *user);

/* Set the tag of every boundary face of a mesh with fn. */
void mesh_tag_boundary(struct femint_mesh *mesh, mesh_tag_fn fn, void *user);

/* Set the tags of boundary faces given by their vertices: face i has the vertices
 * faces[4*i .. 4*i+3] in any order (-1 after the last; any other vertex outside [0, nvert)
 * matches no face) and receives tags[i]. Faces are matched by their vertex sets (a sort of the
 * boundary faces, then a binary search each). *unmatched is the first i that is not a boundary
 * face (faces before it are tagged), or -1. Returns 0 or FEMINT_ENOMEM. */
int mesh_set_face_tags(struct femint_mesh *m, int n, const int *faces, const int *tags,
                       int *unmatched);

#endif
