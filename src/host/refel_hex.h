/* Internal interfaces of the hexahedron of seed 001: its topology, the 1D Gauss-Lobatto-Legendre
 * nodes, and the H1 Lagrange reference element on them. Never installed. */
#ifndef FEMINT_REFEL_HEX_H
#define FEMINT_REFEL_HEX_H

#include "host.h"

/* ---- hex_topo.c: the reference hexahedron ----
 * Reference cube [-1,1]^3, volume 8, vertices in Gmsh's order: 0:(-1,-1,-1) 1:(1,-1,-1)
 * 2:(1,1,-1) 3:(-1,1,-1) 4:(-1,-1,1) 5:(1,-1,1) 6:(1,1,1) 7:(-1,1,1).
 * Edges (Gmsh's order), each running from its first to its second vertex: 0:(0,1) 1:(0,3)
 * 2:(0,4) 3:(1,2) 4:(1,5) 5:(2,3) 6:(2,6) 7:(3,7) 8:(4,5) 9:(4,7) 10:(5,6) 11:(6,7).
 * Faces (Gmsh's order), each a cycle of 4 vertices: 0:(0,3,2,1) 1:(0,1,5,4) 2:(0,4,7,3)
 * 3:(1,2,6,5) 4:(2,3,7,6) 5:(4,5,6,7). A face's frame: its first axis runs from its vertex 0
 * to its vertex 1, its second from its vertex 0 to its vertex 3. */
#define HEX_NV 8
#define HEX_NE 12
#define HEX_NF 6
#define HEX_MAX_ORDER 10

extern const double hex_vert_xi[HEX_NV][3];
extern const int hex_edge_vert[HEX_NE][2];
extern const int hex_face_vert[HEX_NF][4];

/* ---- gll.c: Gauss-Lobatto-Legendre nodes and 1D Lagrange bases ---- */

#define GLL_MAX 33

/* The n-point Gauss-Lobatto-Legendre rule on [-1,1] (2 <= n <= GLL_MAX): x[n] ascending with
 * x[0] = -1, x[n-1] = 1 and the roots of P_{n-1}' between them (exactly symmetric, x[i] =
 * -x[n-1-i]), w[i] = 2 / (n(n-1) P_{n-1}(x_i)^2), sum w = 2; exact for polynomials of degree
 * 2n-3. FEMINT_EORDER outside 2..GLL_MAX. */
int gll_nodes(int n, double *x, double *w);
/* The n Lagrange polynomials l_j through nodes[n] (distinct) at t: val[j] = l_j(t) and, unless
 * der is NULL, der[j] = l_j'(t). At a node the values are exactly the Kronecker delta. */
void lagrange_eval(int n, const double *nodes, double t, double *val, double *der);
/* The interpolation and differentiation matrices of sum factorization from n nodes to nq points
 * xq: B[q*n + j] = l_j(xq[q]), D[q*n + j] = l_j'(xq[q]) (D may be NULL). FEMINT_EINVAL for n < 1,
 * nq < 0 or coinciding nodes. */
int basis_1d_matrices(int n, const double *nodes, int nq, const double *xq, double *B, double *D);

/* ---- refel_hex.c: the H1 Lagrange reference hexahedron ----
 * Order p (1..HEX_MAX_ORDER): the tensor-product Lagrange polynomials of degree p in each
 * variable through the nodes (g_a, g_b, g_c), a, b, c = 0..p, where g_0 = -1 < ... < g_p = 1 are
 * the p+1 GLL points: function (a, b, c) is l_a(xi) l_b(eta) l_c(zeta). (p+1)^3 functions, in
 * this order:
 *   vertices  the 8 vertex nodes, in the order of hex_vert_xi (a, b, c in {0, p});
 *   edges     for each edge e = 0..11, its p-1 interior nodes k = 1..p-1 counted from the
 *             edge's first vertex to its second (the k-th GLL point from that end);
 *   faces     for each face f = 0..5 with hex_face_vert[f] = v0 v1 v2 v3, its (p-1)^2 interior
 *             nodes: i1 = 1..p-1 counts GLL points along v0 -> v1, i2 = 1..p-1 along v0 -> v3,
 *             and node (i1, i2) comes at rank (i2-1)(p-1) + (i1-1);
 *   interior  the (p-1)^3 nodes with a, b, c = 1..p-1, at rank ((a-1)(p-1) + (b-1))(p-1) + (c-1)
 *             (xi slowest).
 * Because the GLL points are symmetric, the node k of an edge from one end is the node p-k from
 * the other: two cells that share an edge or a face see the same nodes, permuted.
 * Mode metadata (struct refel_mode): kind, entity (vertex, edge or face; 0 for interior),
 * degree = p, i1, i2 (edge: i1 = k; face: i1, i2 as above; interior: i1 = a, i2 = b), rank =
 * the rank among the entity's nodes as above (vertex 0); hdeg, vdeg, level, type, odd and sorted
 * are 0. rank is an int8_t: an interior rank above 127 (p >= 7) does not fit and is stored as -1
 * (the interior nodes are the last (p-1)^3 functions, in rank order). */

/* Shape functions of order p: (p+1)^3. FEMINT_EORDER outside 1..HEX_MAX_ORDER. */
int refel_hex_nsh(int order);
/* The tabulated reference hexahedron of order p on the tensor rule of nline points per direction:
 * Gauss-Legendre (lobatto = 0, 1 <= nline <= 32, exact to degree 2 nline - 1 in each variable)
 * or GLL (lobatto = 1, 2 <= nline <= GLL_MAX, exact to 2 nline - 3). Point q = (i*nline + j)*nline
 * + k at (x_i, x_j, x_k) with weight w_i w_j w_k (sum 8); phi[(q*4 + d)*nsh + f]: d = 0 the value
 * of function f, d = 1..3 its derivatives along xi, eta, zeta. The tables take nq * 4 * nsh * 12
 * bytes (p = 10 on its default rule: 110 MB). FEMINT_EORDER (order or nline), FEMINT_ENOMEM. */
int refel_hex_create_rule(int order, int nline, int lobatto, struct refel **re);
/* The same on the (p+2)-point Gauss-Legendre rule, exact to degree 2p + 3 in each variable: the
 * mass integrand of a trilinear cell has degree 2p + 2 (2p from the two functions, 2 from
 * det J). */
int refel_hex_create(int order, struct refel **re);
/* Values and reference derivatives of all shape functions at one point: val[4][nsh] (value,
 * d/dxi, d/deta, d/dzeta), in the order of the tabulation. Nothing for an order outside
 * 1..HEX_MAX_ORDER (the caller checks it). */
void refel_hex_eval(int order, const double xi[3], double *val);
/* Rank of a mode among the nodes of its entity: every hexahedron has one order, so this is
 * m->rank for q >= 1, and -1 for q < 1. */
int refel_hex_mode_rank(const struct refel_mode *m, int q);
/* Nodes of one entity kind at order q: vertex 1, edge q-1, face (q-1)^2, interior (q-1)^3. */
int refel_hex_entity_nmodes(int kind, int q);
/* The reference coordinates of the nodes of the functions of an order, xi[nsh][3], in the
 * element's order. FEMINT_EORDER, FEMINT_ENOMEM. */
int refel_hex_nodes(int order, double *xi);
/* t2f[(a*P + b)*P + c] = the function of the node of GLL indices (a, b, c) along xi, eta, zeta
 * (P = order + 1): the tensor order of sum factorization in the element's order.
 * FEMINT_EORDER, FEMINT_ENOMEM. */
int refel_hex_tensor_map(int order, int *t2f);

/* ---- hex_apply.c: matrix-free application by sum factorization (seed 001) ----
 * The 1D tables of order p (P = p+1 GLL nodes) on a rule of Q points per direction (Gauss, or
 * GLL collocated): B[q*P + a] = l_a(x_q), D the derivatives, Bt and Dt their transposes, the
 * weights; t2f[(a*P + b)*P + c] is
 * the element's function at the node of GLL indices (a, b, c). */
#define HEX_TENSOR_MAX_Q 16
struct hex_tensor {
  int p, P, Q, lobatto;
  double xq[HEX_TENSOR_MAX_Q], w[HEX_TENSOR_MAX_Q];
  double B[HEX_TENSOR_MAX_Q * (HEX_MAX_ORDER + 1)], D[HEX_TENSOR_MAX_Q * (HEX_MAX_ORDER + 1)];
  double Bt[HEX_TENSOR_MAX_Q * (HEX_MAX_ORDER + 1)], Dt[HEX_TENSOR_MAX_Q * (HEX_MAX_ORDER + 1)];
  /* where Q >= P: Dq[i*Q + j] = the derivative at x_i of the Lagrange polynomial through the Q
   * points that is 1 at x_j (D = Dq B), Dqt its transpose */
  double Dq[HEX_TENSOR_MAX_Q * HEX_TENSOR_MAX_Q], Dqt[HEX_TENSOR_MAX_Q * HEX_TENSOR_MAX_Q];
  int *t2f;
};
enum hex_apply_kind { HEX_APPLY_MASS = 0, HEX_APPLY_LAPLACE = 1, HEX_APPLY_ELASTICITY = 2 };
#define HEX_APPLY_KINDS 3
/* FEMINT_EORDER, FEMINT_EINVAL (a rule of nq points: Gauss 1..16, GLL 2..16), FEMINT_ENOMEM. */
int hex_tensor_create(int order, int nq, int lobatto, struct hex_tensor **t);
void hex_tensor_destroy(struct hex_tensor **t);
/* Values per point of the quadrature data: 1 (mass: coef w det J), 6 (Laplace: coef w det J K K^T,
 * K = dxi/dx, as g00 g01 g02 g11 g12 g22), 11 (elasticity: K[3 a + x] = dxi_a/dx_x, then
 * lambda w det J and mu w det J). */
size_t hex_qdata_size(int kind);
/* The coefficients a kind takes per cell: 1 (kappa or rho), 2 (lambda, mu). */
int hex_ncoef(int kind);
/* The quadrature data of a cell X[nnode][3] (8 vertices, or 20 nodes: curved) with the form's
 * coefficients coef[hex_ncoef], qd[Q^3][hex_qdata_size]; FEMINT_EJACOBIAN (no message) where
 * det J <= 0. */
int hex_qdata(const struct hex_tensor *t, int kind, int nnode, const double *X,
              const double *coef, double *qd);
/* The geometry of a trilinear cell in 26 values: X(xi) = sum of c_m times the monomials 1, xi0,
 * xi1, xi2, xi0 xi1, xi0 xi2, xi1 xi2, xi0 xi1 xi2 (c_m in geo[3 m .. 3 m + 3)), then the
 * coefficients (geo[24], and geo[25] for elasticity's mu, else 0). hex_qdata_geo gives from it
 * what hex_qdata gives from the vertices (the quadrature data recomputed where it is used). */
#define HEX_GEO_SIZE 26
void hex_geo(const double *X, const double *coef, int ncoef, double *geo);
int hex_qdata_geo(const struct hex_tensor *t, int kind, const double *geo, double *qd);
/* The map of that geometry at xi: x (or NULL) and the Jacobian J[3 x + d] = dx_x / dxi_d;
 * returns det J. */
double hex_geo_map(const double *geo, const double xi[3], double *x, double *J);
/* The geometry of a cell of nnode nodes (8, or 20: curved) in 83 values for the devices that make
 * its quadrature data (kernels/hex_apply.cl, hex_qdata): the map at the 27 nodes
 * {-1, 0, 1}^3 (geo[3 n .. 3 n + 3), n = (a 3 + b) 3 + c, a along xi0), whose triquadratic
 * interpolant is the map, then the coefficients as in hex_geo (geo[81], geo[82]). */
#define HEX_GEO_CURVED_SIZE 83
void hex_geo_curved(int nnode, const double *X, const double *coef, int ncoef, double *geo);
/* ---- hex_lanes.c: the CPU's sum factorization ----
 * v = A_e u for HEX_LANES cells at once, in tensor order: u and v [P^3][HEX_LANES] (node-major,
 * a value per cell) for one component of the mass and the Laplacian, [3][P^3][HEX_LANES] (the
 * three components) for elasticity; qd[lane] each cell's quadrature data, or with geo its
 * geometry (hex_geo: the quadrature data made at each point, trilinear cells);
 * hex_apply_lanes_scratch doubles of scratch. */
#define HEX_LANES 8
size_t hex_apply_lanes_scratch(const struct hex_tensor *t, int kind);
void hex_apply_lanes(const struct hex_tensor *t, int kind, int geo, const double *const *qd,
                     const double *u, double *v, double *scratch);
/* The diagonal of A_e of one cell, d[P^3] in tensor order (elasticity: d[3][P^3], a value per
 * component), from its quadrature data, by sum factorization with the tables' squares and
 * products; hex_diagonal_scratch doubles of scratch. */
size_t hex_diagonal_scratch(const struct hex_tensor *t);
void hex_diagonal(const struct hex_tensor *t, int kind, const double *qd, double *d,
                  double *scratch);

#endif
