/* Internal helpers of the prism meshes shared by mesh.c, mesh_box.c and mesh_gmsh.c: the Jacobian
 * check of a cell and the tagging of boundary faces. */
#ifndef FEMINT_HOST_MESH_H
#define FEMINT_HOST_MESH_H

#include "host.h"

/* Check that det J > 0 everywhere on a cell with vertices X[6][3] (so at its vertices and at the
 * points of every quadrature rule). det J = sum_a l_a(xi1, xi2) q_a(xi3), with q_a the (quadratic)
 * det J along the vertical edge over vertex a, so its minimum over the prism is the smallest
 * minimum of the q_a on [-1, 1]; each q_a is known from det J at xi3 = -1, 0, 1. Returns 1 when
 * det J is positive everywhere, else 0; *det and xi receive the minimum and where it lies. */
int mesh_check_cell(const double *X, double *det, double xi[3]);

/* The tag of a boundary face from the coordinates of its nv (3 or 4) vertices X[nv][3]. */
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
