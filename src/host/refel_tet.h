/* Internal interfaces of the curvilinear H(curl) tetrahedron of seed 004: the hierarchical vector
 * basis of orders 1..3, the tetrahedral quadrature, the 4- and 10-node geometric map and the
 * plain element matrices of the Maxwell forms (mass T and curl-curl S). Never installed. */
#ifndef FEMINT_REFEL_TET_H
#define FEMINT_REFEL_TET_H

#include <stdint.h>

#include "host.h"

/* ---- quadrature.c, quadrature_tet.c: the tetrahedral rules ---- */

/* The conical (collapsed) product rule on {x, y, z >= 0, x + y + z <= 1} with n points per
 * direction (1..16): Gauss-Jacobi in z (weight (1-z)^2) and y (weight (1-y)) and Gauss-Legendre
 * in x, mapped by (u, v, w) -> (u(1-v)(1-w), v(1-w), w). n^3 points, all inside, positive
 * weights summing to 1/6, exact for polynomials of total degree <= 2n - 1. xyz[3*i..3*i+2],
 * w[i] are the caller's arrays of n^3 entries. FEMINT_EORDER outside 1..16. */
int quad_tet(int n, double *xyz, double *w);
/* A fully symmetric rule of exact degree >= degree (at most 14) on the same tetrahedron: its
 * points are whole orbits of the 24 permutations of the barycentric coordinates, all strictly
 * inside, with positive weights summing to 1/6. *npts points (1, 4, 8, 14, 14, 24, 35, 46, 59,
 * 79, 96, 127, 149, 194 for degrees 1..14; degree <= 1 gets the centroid), xyz[3*i..3*i+2] and
 * w[i] in static arrays; *rule_degree (when not NULL) receives the rule's own degree, which
 * exceeds the one asked for at degree 4 (the 14-point rule is of degree 5). The published orbit
 * parameters are refined on the moment equations at the first call. FEMINT_EORDER past degree
 * 14, or when a rule failed its check after the refinement. */
int quad_tet_symmetric(int degree, int *npts, const double **xyz, const double **w,
                       int *rule_degree);
/* The n-point Gauss-Jacobi rule on [-1,1] for the weight (1-x)^alpha, alpha = 0, 1 or 2 (1..32
 * points): x[n] ascending, w[n]. FEMINT_EORDER or FEMINT_EINVAL outside these ranges. */
int quad_gauss_jacobi(int n, int alpha, double *x, double *w);

/* ---- refel_tet.c: the reference tetrahedron and its H(curl) basis ----
 * Reference tetrahedron {x, y, z >= 0, x + y + z <= 1}, volume 1/6, vertices 0:(0,0,0)
 * 1:(1,0,0) 2:(0,1,0) 3:(0,0,1), barycentrics l0 = 1-x-y-z, l1 = x, l2 = y, l3 = z.
 * Edges 0:(0,1) 1:(0,2) 2:(0,3) 3:(1,2) 4:(1,3) 5:(2,3), from the lower to the higher vertex.
 * Faces: face f is opposite vertex f, its vertices ascending: 0:(1,2,3) 1:(0,2,3) 2:(0,1,3)
 * 3:(0,1,2).
 * With w_ab = l_a grad l_b - l_b grad l_a (Whitney), the functions of order p span Nedelec's
 * first-kind space of degree p (dimension p(p+2)(p+3)/2 = 6, 20, 45) and are, level by level
 * (the functions of order p are the first ones of order p+1):
 *   level 1  edge (a,b):   w_ab                                            6
 *   level 2  edge (a,b):   grad(l_a l_b)                                   6
 *            face (a,b,c): l_c w_ab, l_b w_ac                              8
 *   level 3  edge (a,b):   grad(l_a l_b (l_b - l_a))                       6
 *            face (a,b,c): grad(l_a l_b l_c), l_a l_c w_ab, l_b l_c w_ab,
 *                          l_a l_b w_ac                                   16
 *            interior:     l_2 l_3 w_01, l_1 l_3 w_02, l_1 l_2 w_03        3
 * The rotational face and interior functions are among those of Arnold, Falk and Winther's
 * geometric decomposition (the third level-2 function of a face, l_a w_bc, is minus the sum of
 * the two others; with its level-2 functions, a face's level-3 ones span their six of degree 3
 * up to interior functions). Edge functions are written for a < b and face
 * functions for a < b < c in the cell's local numbering: the DOF map keeps every cell's vertices
 * in ascending global order (tet_mesh), so that a shared edge or face gets the same functions
 * from both of its cells and no orientation data is needed. A mode's `odd` says what changes
 * where that is not so: an edge mode with odd = 1 changes sign when its edge is reversed (w_ab
 * and the level-3 gradient), one with odd = 0 does not; face modes (sorted = 1) are defined by the
 * order of the face's vertices, which permutes them into combinations of each other.
 * Covariant map: N = J^-T N_ref, curl N = J curl N_ref / det J. */

#define TET_NV 4
#define TET_NE 6
#define TET_NF 4
#define TET_MAX_ORDER 3
#define TET_NSH_MAX 45

extern const double tet_vert_xi[TET_NV][3];
extern const int tet_edge_vert[TET_NE][2];
extern const int tet_face_vert[TET_NF][3];

enum tet_mode_type { TET_WHITNEY = 0, TET_GRADIENT = 1, TET_ROTATIONAL = 2 };

/* The basis functions' metadata are struct refel_mode (host.h): kind (MODE_EDGE, MODE_FACE or
 * MODE_INTERIOR), entity (local edge 0..5, face 0..3; 0 for interior), level (= degree, the order
 * from which the function is in the basis), type (enum tet_mode_type), rank (index among the
 * functions of its entity: 0..p-1 on an edge, 0..p(p-1)-1 on a face, 0..p(p-1)(p-2)/2-1 inside;
 * lower orders are prefixes), odd (edge modes: 1 when the function changes sign with the edge
 * direction), sorted (face modes: 1, they assume the face's vertices in ascending global order).
 * The tabulation (struct refel with family FEMINT_HCURL) holds the values and curls at the
 * points of its rule (val, curl and their single-precision copies); nline is the number of
 * points per direction of a conical rule, 0 for a symmetric rule. */

/* Functions of order p: 6, 20, 45. FEMINT_EORDER outside 1..3. */
int refel_tet_nsh(int order);
/* Functions of order p that belong to one entity kind: edge p, face p(p-1), interior
 * p(p-1)(p-2)/2. */
int refel_tet_entity_nmodes(int kind, int order);
/* The tabulated tetrahedron of an order on the conical rule of nline points per direction
 * (exact to degree 2 nline - 1). FEMINT_EORDER for an order outside 1..3 or nline outside
 * 1..16; FEMINT_ENOMEM. */
int refel_tet_create_rule(int order, int nline, struct refel **re);
/* The tabulated tetrahedron of an order on the symmetric rule of degree >= degree
 * (quad_tet_symmetric; re->nline = 0, re->degree the rule's own). FEMINT_EORDER for an order
 * outside 1..3 or a degree past 14; FEMINT_ENOMEM. */
int refel_tet_create_degree(int order, int degree, struct refel **re);
/* The default rule: the symmetric rule of degree 2p + 4 (24, 46, 79 points for p = 1, 2, 3),
 * exact on straight cells (degree 2p) and accurate on curved ones, whose integrands are
 * rational (refel_tet.c says why). */
int refel_tet_create(int order, struct refel **re);
/* Values val[3][nsh] and curls curl[3][nsh] of all functions at one reference point, in the
 * order of the tabulation (either output may be NULL). */
void refel_tet_eval(int order, const double xi[3], double *val, double *curl);

/* ---- geometry_tet.c: the 4-node (affine) and 10-node (quadratic) map ----
 * X[nnode][3]: the 4 vertices in the reference order, then (10 nodes) the nodes of edges 0..5,
 * the images of the edge midpoints. A 10-node cell whose edge nodes are the midpoints of
 * straight edges is the affine cell. */

/* Node functions N[nnode] and reference derivatives dN[nnode][3] (either may be NULL);
 * FEMINT_EINVAL unless nnode is 4 or 10. */
int geom_tet_nodes(int nnode, const double xi[3], double *N, double *dN);
/* Physical point x(xi). */
void geom_tet_point(int nnode, const double *X, const double xi[3], double *x);
/* J[3*i + j] = dx_i / dxi_j at xi; returns det J. */
double geom_tet_jacobian(int nnode, const double *X, const double xi[3], double *J);

/* What geom_tet_check found. */
struct geom_tet_report {
  int orientation; /* sign of det J at the centroid: +1 or -1 */
  double detmin;   /* smallest orientation * det J over the points checked */
  double xi[3];    /* where */
};
/* Whether the cell is a valid map: det J keeps the sign of the cell's orientation (its value at
 * the centroid) and stays away from zero, that is orientation * det J > 1e-12 max|det J| at the
 * points of re (when not NULL) and on the lattice of points with coordinates i/8 (det J of a
 * 10-node cell is a cubic). Cells keep their vertices in ascending global order, so half of them
 * are negatively oriented: the element matrices use |det J|. Returns 0, FEMINT_EJACOBIAN (the
 * point and the value in the message) or FEMINT_EINVAL (nnode). rep may be NULL. */
int geom_tet_check(const struct refel *re, int nnode, const double *X,
                   struct geom_tet_report *rep);

/* ---- reference_tet.c: the Maxwell element matrices, plain, in double ----
 * T_e = sum_q w_q |det J_q| N_ref,q (J_q^-1 eps J_q^-T) N_ref,q^T
 * S_e = sum_q (w_q / |det J_q|) C_ref,q (J_q^T nu J_q) C_ref,q^T, nu = mu^-1,
 * with N_ref,q and C_ref,q the nsh x 3 values and curls at point q. */

/* Relative permittivity and inverse relative permeability of a cell, as 3 x 3 tensors. */
struct tet_coef {
  double eps[9];
  double nu[9];
};
/* Scalars eps_r, mu_r > 0. FEMINT_EINVAL (naming the bad one) otherwise. */
int tet_coef_scalar(double eps_r, double mu_r, struct tet_coef *k);
/* Symmetric positive definite tensors eps_r[9] and mu_r[9] (row-major); nu is mu_r inverted.
 * FEMINT_EINVAL when either is not symmetric (to 1e-12 relative) or not positive definite. */
int tet_coef_tensor(const double *eps_r, const double *mu_r, struct tet_coef *k);

/* B = s P C P^T with P, C 3 x 3 (row-major): the per-point matrices of T and S. */
void tet_congruence(double s, const double *P, const double *C, double *B);

/* T[nsh*nsh] and S[nsh*nsh] (row-major; either may be NULL) of the cell with nodes X[nnode][3]
 * (nnode 4 or 10) and coefficients k, on the points of re, computing the geometry from scratch.
 * Returns 0, FEMINT_EINVAL (nnode), FEMINT_EJACOBIAN (det J = 0 at a point, or a sign change,
 * named in the message) or FEMINT_ENOMEM. */
int tet_element_reference(const struct refel *re, int nnode, const double *X,
                          const struct tet_coef *k, double *T, double *S);

/* ---- hcurl.c: the element matrices as the codelets compute them ---- */

/* The reference tables one kernel reads, in one REAL array: val[nq][3][nsh], curl[nq][3][nsh],
 * the derivatives of the geometric shape functions dgeo[nq][nnode][3], the weights w[nq]. */
size_t hcurl_table_size(const struct refel *re, int nnode);
void hcurl_table_fill(const struct refel *re, int nnode, double *d);
/* One cell's element matrix of an H(curl) form (kind FORM_HCURL_MASS or FORM_CURLCURL; row-major
 * nsh x nsh, or its upper half packed row by row when symmetric; float when single, else double)
 * from its nodes X[nnode][3] and its tensor k[9] (eps, or nu = mu^-1), on the points of re: what
 * the CPU codelet does per cell (the OpenCL kernel computes the same). scratch holds
 * hcurl_cell_scratch(re) doubles. */
size_t hcurl_cell_scratch(const struct refel *re);
void hcurl_cell_matrix(const struct refel *re, int kind, int nnode, const double *X,
                       const double *k, double *scratch, int single, int symmetric, void *M);

#endif
