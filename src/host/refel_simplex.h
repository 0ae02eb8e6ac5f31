/* Internal interfaces of the H1 simplices of seed 002: the reference triangle, the Lagrange
 * triangle and tetrahedron, and the 3- and 6-node map of a triangle. Never installed. */
#ifndef FEMINT_REFEL_SIMPLEX_H
#define FEMINT_REFEL_SIMPLEX_H

#include "refel_tet.h"

/* ---- refel_simplex.c: the Lagrange simplices ----
 * Reference triangle {x, y >= 0, x + y <= 1}, area 1/2, vertices 0:(0,0) 1:(1,0) 2:(0,1),
 * barycentrics l0 = 1-x-y, l1 = x, l2 = y; edges 0:(0,1) 1:(0,2) 2:(1,2), each from its lower to
 * its higher vertex. A triangle's faces are its edges (face f is edge f), as a quadrilateral's.
 * The reference tetrahedron is refel_tet.h's.
 * Order p (1..LAGRANGE_MAX_ORDER): the polynomials of total degree p, the Lagrange basis of the
 * equispaced nodes sum_k (a_k / p) v_k (a_0 + ... + a_dim = p); the function of node a is
 * prod_k prod_{j < a_k} (p l_k - j) / (j + 1). In this order:
 *   vertices  node p e_v, v = 0..dim;
 *   edges     edge (a, b): its p-1 interior nodes, k = 1..p-1 steps from a towards b;
 *   faces     (tetrahedron) face (a, b, c) of tet_face_vert: its (p-1)(p-2)/2 interior nodes with
 *             (a_b, a_c) = (i, j), j = 1..p-2 slowest, i = 1..p-1-j;
 *   interior  the nodes with every a_k >= 1 (the triangle from p = 3, the tetrahedron from 4),
 *             a_2, ..., a_dim in lexicographic order.
 * Cells keep their vertices in ascending global order (mesh.c), so two cells that share an edge
 * or a face list its vertices alike and number its nodes alike: no orientation data is needed.
 * Mode metadata (struct refel_mode): kind, entity (vertex, edge or face; 0 inside), degree = p,
 * rank = the index among the entity's nodes in the order above; a space takes one order. */

#define TRI_NV 3
#define TRI_NE 3
#define LAGRANGE_MAX_ORDER 3

extern const double tri_vert_xi[TRI_NV][2];
extern const int tri_edge_vert[TRI_NE][2];

/* Functions of order p: (p+1)(p+2)/2 on the triangle, (p+1)(p+2)(p+3)/6 on the tetrahedron.
 * FEMINT_EORDER outside 1..LAGRANGE_MAX_ORDER, FEMINT_EINVAL for another shape. */
int refel_lagrange_nsh(int shape, int order);
/* The tabulated element (FEMINT_TRI or FEMINT_TET) of an order on the symmetric rule of degree
 * >= degree (quad_triangle, quad_tet_symmetric; re->degree the rule's own): phi[(q*(dim+1) + d)
 * *nsh + f], d = 0 the value, d = 1..dim the reference derivatives. FEMINT_EORDER, FEMINT_ENOMEM. */
int refel_lagrange_create_degree(int shape, int order, int degree, struct refel **re);
/* The default rule, of degree 2p: the mass and Laplace integrands of a straight cell are
 * integrated exactly (3, 6, 12 points on the triangle, 4, 14, 24 on the tetrahedron). */
int refel_lagrange_create(int shape, int order, struct refel **re);
/* Values and reference derivatives of all functions at xi: val[dim+1][nsh]. Nothing for an
 * order outside 1..LAGRANGE_MAX_ORDER. */
void refel_lagrange_eval(int shape, int order, const double *xi, double *val);
/* Nodes of one entity kind at order q: vertex 1, edge q-1, face (q-1)(q-2)/2, interior
 * (q-1)(q-2)/2 (triangle) or (q-1)(q-2)(q-3)/6 (tetrahedron). */
int refel_lagrange_entity_nmodes(int shape, int kind, int q);
/* The reference coordinates of the nodes, xi[nsh][dim], in the element's order. */
int refel_lagrange_nodes(int shape, int order, double *xi);

/* ---- geometry.c: the node functions of a simplex's map ----
 * Of the affine map (nnode = dim + 1: l_a) or the quadratic one (l_a (2 l_a - 1) at the vertices,
 * then 4 l_a l_b at the midpoints of the edges of tri_edge_vert or tet_edge_vert), N[nnode] and
 * dN[nnode][dim] (either may be NULL); the caller checks nnode. */
void geom_simplex_nodes(int dim, int nnode, const double *xi, double *N, double *dN);

/* ---- geometry_tri.c: the 3-node (affine) and 6-node (quadratic) triangle ----
 * X[nnode][2]: the 3 vertices in the reference order, then (6 nodes) the nodes of edges 0..2,
 * the images of the edge midpoints. */
int geom_tri_nodes(int nnode, const double xi[2], double *N, double *dN);
void geom_tri_point(int nnode, const double *X, const double xi[2], double *x);
/* J[2*i + j] = dx_i / dxi_j; returns det J. */
double geom_tri_jacobian(int nnode, const double *X, const double xi[2], double *J);
/* As geom_tet_check: det J keeps the sign it has at the centroid (cells keep their vertices in
 * ascending global order, so half of them are negatively oriented and the element matrices use
 * |det J|) and stays away from zero on a lattice of the cell (det J of a 6-node cell is
 * quadratic). 0, FEMINT_EJACOBIAN (the point and value named) or FEMINT_EINVAL (nnode). */
int geom_tri_check(int nnode, const double *X, struct geom_tet_report *rep);

#endif
