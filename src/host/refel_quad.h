/* Internal interfaces of the 2D quadrilateral of seed 003: the hierarchical reference element.
 * Never installed. */
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

#endif
