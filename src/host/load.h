/* Load vectors of one cell or one boundary face, for every shape and family: the integral of
 * f . v over a cell (body forces) and of g . v over a boundary face (Neumann data), v the cell's
 * shape functions with their signs (H(curl): mapped covariantly). Never installed. */
#ifndef FEMINT_HOST_LOAD_H
#define FEMINT_HOST_LOAD_H

#include "host.h"

/* Doubles of work space load_face needs: refel_eval's values at a point, 4 x 1331 for a
 * hexahedron of order 10 (its values and derivatives), 3 x nsh for the reference vectors of
 * H(curl). */
#define LOAD_WORK (6 * 1024)

/* The cell's vector of the integral of f(x) . v over cell c on the points of re (the reference
 * element of the cell's order) into ev (load_size(s, c) doubles: component by component, the
 * functions in the cell's order, orientation signs not applied). FEMINT_EINVAL when re is not the
 * cell's element. */
int load_cell(const struct femint_space *s, const struct refel *re, int c, femint_field_fn f,
              void *user, double *ev);
/* The vectors of n cells one after the other into ev, as load_cell makes them, re_of[p] the
 * element of order p: hexahedra of an order with ht_of[p] (load_hex_tables; ht_of may be NULL)
 * by sum factorization along the rule's lines (the same integral, rounded otherwise); up to
 * LOAD_BLOCK other H1 cells of one order together, each point's values read once for them all
 * (at high order they are megabytes a cell, read from memory), the same bits as load_cell. */
#define LOAD_BLOCK 8
struct hex_tensor;
int load_cells(const struct femint_space *s, const struct refel *const *re_of,
               const struct hex_tensor *const *ht_of, const int *cells, int n, femint_field_fn f,
               void *user, double *ev);
/* The 1D tables of an H1 hexahedron's rule for load_cells (*t NULL for another element or a
 * rule of more than 16 points a line); hex_tensor_destroy them. 0 or the error of
 * hex_tensor_create. */
int load_hex_tables(const struct refel *re, struct hex_tensor **t);
/* The same for boundary face k of the mesh (mesh->bface[k]), into the vector of its cell: the
 * integral over the face of g(x, n, tag) . v, n the unit outward normal, on a rule of degree
 * 2p + 2 (at most 14) over the face. work: LOAD_WORK doubles. */
int load_face(const struct femint_space *s, int k, femint_field_fn g, void *user, double *work,
              double *ev);
/* The doubles of cell c's vector, and rhs += that vector (ev, as load_cell makes it) at the cell's
 * DOFs with their signs (removed DOFs get nothing). */
size_t load_size(const struct femint_space *s, int c);
void load_add(const struct femint_space *s, int c, const double *ev, double *rhs);

#endif
