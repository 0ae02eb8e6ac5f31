/* Load vectors of one cell or one boundary face, for every shape and family: the integral of
 * f . v over a cell (body forces) and of g . v over a boundary face (Neumann data), v the cell's
 * shape functions with their signs (H(curl): mapped covariantly). Never installed. */
#ifndef FEMINT_HOST_LOAD_H
#define FEMINT_HOST_LOAD_H

#include "host.h"

/* Doubles of work space load_cell and load_face need (load_cell: a cell's vector, up to 3
 * components of the 1331 functions of a hexahedron of order 10). */
#define LOAD_WORK (6 * 1024)

/* rhs += the integral over cell c of f(x) . v on the points of re (the reference element of the
 * cell's order). FEMINT_EINVAL when re is not the cell's element. */
int load_cell(const struct femint_space *s, const struct refel *re, int c, femint_field_fn f,
              void *user, double *work, double *rhs);
/* rhs += the integral over boundary face k of the mesh (mesh->bface[k]) of g(x, n, tag) . v, n the
 * unit outward normal, on a rule of degree 2p + 2 (at most 14) over the face. */
int load_face(const struct femint_space *s, int k, femint_field_fn g, void *user, double *work,
              double *rhs);

#endif
