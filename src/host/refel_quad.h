/* Internal interfaces of the 2D quadrilateral of seed 003: the hierarchical reference element,
 * the 4- and 8-node geometric map, and the plain element matrices of 2D forms. Never installed. */
#ifndef FEMINT_REFEL_QUAD_H
#define FEMINT_REFEL_QUAD_H

#include <stddef.h>

#include "host.h"

/* ---- refel_quad.c: the reference quadrilateral ----
 * Reference square [-1,1]^2, area 4, vertices counter-clockwise 0:(-1,-1) 1:(1,-1) 2:(1,1)
 * 3:(-1,1). Edges 0:(0,1) 1:(1,2) 2:(2,3) 3:(3,0); each runs from its first to its second
 * vertex, with the edge coordinate s = -1 at the first vertex and s = 1 at the second
 * (edge 0: s = xi, 1: s = eta, 2: s = -xi, 3: s = -eta).
 * With L0 = (1-t)/2, L1 = (1+t)/2 and the Lobatto bubbles Lk = sqrt((2k-1)/2) int_{-1}^t P_{k-1}
 * = (P_k - P_{k-2}) / sqrt(2(2k-1)), k >= 2 (Lk(-t) = (-1)^k Lk(t)), the shape functions of
 * order p (1..7) of the reduced (trunk) space of seed 003 are, in this order:
 *   vertices  0: L0(xi)L0(eta)  1: L1(xi)L0(eta)  2: L1(xi)L1(eta)  3: L0(xi)L1(eta);
 *   edges     edge e, k = 2..p: Lk(s) times the linear blend that is 1 on the edge and 0 on the
 *             opposite one: e0 Lk(xi)L0(eta), e1 L1(xi)Lk(eta), e2 Lk(-xi)L1(eta),
 *             e3 L0(xi)Lk(-eta);
 *   interior  Li(xi)Lj(eta) with i, j >= 2 and i + j <= p, by n = i + j = 4..p, then i = 2..n-2.
 * That is n = 4 + 4(p-1) + (p-2)(p-3)_+/2 functions (4, 8, 12, 17, 23, 30, 38), spanning
 * P_p + span{xi^p eta, xi eta^p} (for p = 1, the bilinears).
 * Mode metadata (struct refel_mode): vertex {MODE_VERTEX, v, 0, 0, 1}; edge modes of the
 * horizontal edges 0, 2 have hdeg = k, those of the vertical edges 1, 3 have vdeg = k, degree k:
 * a mode changes sign when its edge is traversed the other way exactly when k is odd;
 * interior {MODE_INTERIOR, 0, hdeg = i, vdeg = j, degree i + j, i1 = i, i2 = j}. */

#define QUAD_NV 4
#define QUAD_NE 4

extern const double quad_vert_xi[QUAD_NV][2];
extern const int quad_edge_vert[QUAD_NE][2];

/* Shape functions of order p (1..7): 4, 8, 12, 17, 23, 30, 38 (per component; seed 003's element
 * matrices of plane elasticity have twice as many rows). FEMINT_EORDER outside 1..7. */
int refel_quad_nsh(int order);
/* The tabulated reference quadrilateral of an order on seed 003's rule: the tensor product of
 * the (p+1)-point Gauss-Legendre rule, (p+1)^2 points (q = i*(p+1) + j at (x_i, x_j)), exact
 * for polynomials of degree 2p+1 in each variable. FEMINT_EORDER outside 1..7. */
int refel_quad_create(int order, struct refel **re);
/* The same on the tensor rule of nline points per direction (1..32), for curved elements that
 * want more points than seed 003's rule; re->degree = 2 nline - 1. */
int refel_quad_create_rule(int order, int nline, struct refel **re);
/* Values and reference derivatives of all shape functions at one point: val[3][nsh] (value,
 * d/dxi, d/deta), in the order of the tabulation. */
void refel_quad_eval(int order, const double xi[2], double *val);
/* Rank of a mode among the modes of its entity for an entity of order q (lower orders are
 * prefixes): vertex 0, edge k-2, interior (n-4)(n-3)/2 + i-2; -1 when the mode does not exist
 * at order q. */
int refel_quad_mode_rank(const struct refel_mode *m, int q);
/* Modes of one entity kind at order q: vertex 1, edge q-1, interior (q-2)(q-3)_+/2. */
int refel_quad_entity_nmodes(int kind, int q);

/* ---- geometry_quad.c: the 4-node (bilinear) and 8-node (serendipity) map ----
 * X[nnode][2]: the 4 vertices in the reference order, then (8 nodes) the 4 edge midpoints in
 * edge order, the images of (0,-1), (1,0), (0,1), (-1,0). A 4-node element is the 8-node element
 * whose midpoints are the midpoints of straight edges. */

/* Node functions N[nnode] and their reference derivatives dN[nnode][2] (either may be NULL);
 * FEMINT_EINVAL unless nnode is 4 or 8. */
int geom_quad_nodes(int nnode, const double xi[2], double *N, double *dN);
/* Physical point x[2] = x(xi). */
void geom_quad_point(int nnode, const double *X, const double xi[2], double *x);
/* J[2*i + j] = dx_i / dxi_j at xi; returns det J. */
double geom_quad_jacobian(int nnode, const double *X, const double xi[2], double *J);
/* K = inverse of J (K[2*j + i] = dxi_j / dx_i); returns det J. */
double geom_inverse2(const double *J, double *K);
/* Jacobian terms per point of a 2D cell (geom_terms): t[q*5] = det J * w_q,
 * t[q*5 + 1 + 2*j + i] = dxi_j / dx_i. */
#define GEOM_QUAD_NTERMS 5

/* What geom_quad_check found: the smallest det J at the points it evaluated and where. */
struct geom_quad_report {
  double detmin, xi[2];
  int nsquare; /* sub-squares whose Bernstein coefficients were computed */
  int depth;   /* deepest subdivision level used (0: the whole square) */
};
/* Whether det J > 0 on the whole closed reference square. det J of a 4- or 8-node map is a
 * polynomial of degree <= 3 in each variable, so its 16 tensor Bernstein coefficients on a
 * sub-square bound it from below there; the check evaluates det J at the points of re (when not
 * NULL, named in the message), on a 17 x 17 grid, then certifies the square by Bernstein
 * coefficients above 1e-12 max|det J|, subdividing where they are not (10 levels at most).
 * Returns 0 when every sub-square is certified: det J > 0 everywhere on the element (the
 * certificate is exact up to rounding in the 16 samples of each sub-square). Returns
 * FEMINT_EJACOBIAN when a point with det J <= 0 was found (its xi in the message and in rep),
 * or when the certificate failed at the deepest level (det J vanishes at a point of the closed
 * square up to 1e-12, as at the corner of a quarter-point element); FEMINT_EINVAL for nnode other
 * than 4 or 8. rep may be NULL. */
int geom_quad_check(const struct refel *re, int nnode, const double *X,
                    struct geom_quad_report *rep);

/* ---- reference_quad.c: 2D forms and Algorithm 1 of seed 000 on the quadrilateral ----
 * A 2D form has the generic coefficients c[ne][ne][3][3] (c[((iE*ne + jE)*3 + iD)*3 + jD]) with
 * derivative index 0 the value, 1 d/dx, 2 d/dy, as form.c's c[ne][ne][4][4] in 3D: the entry of
 * test function (i, iE) and trial function (j, jE) is
 *   int sum_{iD, jD} c[iE][jE][iD][jD] D_iD phi_i D_jD phi_j dx. */

#define QUAD_NCOEF(ne) ((ne) * (ne)*9)

enum quad_plane { QUAD_PLANE_STRESS = 0, QUAD_PLANE_STRAIN = 1 };
enum quad_storage { QUAD_STORE_FULL = 0, QUAD_STORE_UPPER = 1 };

/* The 3 x 3 material matrix [E] of seed 003 (Voigt order xx, yy, xy with engineering shear
 * strain): plane stress E/(1-nu^2) [1 nu 0; nu 1 0; 0 0 (1-nu)/2], plane strain
 * E/((1+nu)(1-2nu)) [1-nu nu 0; nu 1-nu 0; 0 0 (1-2nu)/2]. FEMINT_EINVAL unless E > 0 and
 * -1 < nu < 1/2, or for an unknown plane. */
int quad_material_matrix(int plane, double young, double poisson, double *D);
/* c[2][2][3][3] of int eps(v)^T D eps(u) for a 3 x 3 Voigt matrix D (seed 003's ([D*]v)^T [E]
 * [D*]u). */
void quad_coef_voigt(const double *D, double *c);
/* c[2][2][3][3] of plane stress or plane strain elasticity (quad_material_matrix's errors). */
int quad_coef_elasticity(int plane, double young, double poisson, double *c);
/* c[ne][ne][3][3] of kappa grad u . grad v per component. */
void quad_coef_laplace(int ne, double kappa, double *c);
/* c[ne][ne][3][3] of rho u v per component (the value-value term, index 0). */
void quad_coef_mass(int ne, double rho, double *c);

/* Index of entry (r, c), r <= c, of an n x n matrix whose upper half is stored row by row, each
 * row one shorter than the previous (seed 003; the codelets' symmetric storage): n(n+1)/2 values.
 */
static inline size_t quad_packed_index(int n, int r, int c)
{
  return (size_t)r * (size_t)n - (size_t)r * (size_t)(r - 1) / 2 + (size_t)(c - r);
}

/* Element matrix of the quadrilateral with nodes X[nnode][2] (nnode 4 or 8) and coefficients
 * c[ne][ne][3][3], on the points of re, computing the geometry from scratch: N = nsh*ne rows,
 * local index idof*ne + iE; storage QUAD_STORE_FULL writes A[N*N] row-major, QUAD_STORE_UPPER
 * the entries (r, c >= r) packed by quad_packed_index into A[N(N+1)/2]. Returns 0,
 * FEMINT_EINVAL (re not a quadrilateral, nnode, ne outside 1..5, storage), FEMINT_EJACOBIAN (det J
 * <= 0 at a point, named in the message) or FEMINT_ENOMEM. */
int integrate_quad_reference(const struct refel *re, int nnode, const double *X, int ne,
                             const double *c, int storage, double *A);

#endif
