/* Internal helpers of the prism meshes shared by mesh.c and mesh_box.c: the Jacobian check of a
 * cell and the tagging of boundary faces. */
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

#endif
