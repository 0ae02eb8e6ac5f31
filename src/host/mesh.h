/* Internal helpers of the meshes shared by mesh.c, mesh_box.c, mesh_gmsh.c and mesh_quad.c: input
 * checks, the topology, the Jacobian check of a prism and the tagging of boundary faces. */
#ifndef FEMINT_HOST_MESH_H
#define FEMINT_HOST_MESH_H

#include "host.h"

/* Check that det J > 0 everywhere on a cell with vertices X[6][3] (so at its vertices and at the
 * points of every quadrature rule). det J = sum_a l_a(xi1, xi2) q_a(xi3), with q_a the (quadratic)
 * det J along the vertical edge over vertex a, so its minimum over the prism is the smallest
 * minimum of the q_a on [-1, 1]; each q_a is known from det J at xi3 = -1, 0, 1. Returns 1 when
 * det J is positive everywhere, else 0; *det and xi receive the minimum and where it lies. */
int mesh_check_cell(const double *X, double *det, double xi[3]);

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

/* Edges, faces and boundary faces (tag 0) of a mesh whose topo, nvert, ncell and cells are set. */
int mesh_build_topology(struct femint_mesh *m);

/* Vertices of local face f (3 or 4 for a prism, 2 for a quadrilateral's edge). */
int mesh_face_nv(const struct femint_mesh *m, int f);

/* The geometry nodes of quadrilateral cell c, X[nnode][2] (4 vertices, then with curved edges
 * the 4 edge midpoints: refel_quad.h's order); returns nnode, 4 or 8. */
int mesh_quad_nodes(const struct femint_mesh *m, int c, double *X);

/* The area of a quadrilateral mesh (exact: det J is a polynomial the rule integrates). */
double mesh_quad_area(const struct femint_mesh *m);

/* The tag of a boundary face from the coordinates of its nv (2, 3 or 4) vertices X[nv][3]. */
typedef int (*mesh_tag_fn)(int nv, const double *X, void *user);

/* Set the tag of every boundary face of a mesh with fn. */
void mesh_tag_boundary(struct femint_mesh *mesh, mesh_tag_fn fn, void *user);

/* Set the tags of boundary faces given by their vertices: face i has the vertices
 * faces[4*i .. 4*i+3] in any order (a triangle has -1 as its fourth; any other vertex outside
 * [0, nvert) matches no face) and receives tags[i]. Faces
 * are matched by their vertex sets (a sort of the boundary faces, then a binary search each).
 * *unmatched is the first i that is not a boundary face (faces before it are tagged), or -1.
 * Returns 0 or FEMINT_ENOMEM. */
int mesh_set_face_tags(struct femint_mesh *m, int n, const int *faces, const int *tags,
                       int *unmatched);

#endif
