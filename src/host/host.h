/* Internal interfaces of the host numerics: quadrature, reference elements, geometry, meshes,
 * DOF maps and forms. Nothing here knows StarPU or OpenCL. Never installed. */
#ifndef FEMINT_HOST_H
#define FEMINT_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "femint.h"

/* 64-bit FNV-1a of len bytes, continuing from h (start with HASH_START): the keys of caches of
 * texts (OpenCL programs, compiled pointwise sources). */
#define HASH_START 0xcbf29ce484222325ull
static inline uint64_t hash_bytes(uint64_t h, const void *data, size_t len)
{
  const unsigned char *b = data;
  for (size_t i = 0; i < len; i++) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

/* ---- quadrature.c ---- */

/* The n-point Gauss-Legendre rule on [-1,1] (1 <= n <= 32): x[n] ascending, w[n], sum w = 2. */
int quad_gauss_legendre(int n, double *x, double *w);

/* A symmetric triangle rule of exact degree `degree` (2, 4, ..., 14; odd degrees take the next
 * even rule) with all points inside and positive weights, on {x >= 0, y >= 0, x + y <= 1}:
 * *npts points (3, 6, 12, 16, 25, 33, 42 for degrees 2..14), xy[2*i], xy[2*i+1], w[i] with
 * sum w = 1/2. The arrays are static; the function returns FEMINT_EORDER past degree 14. */
int quad_triangle(int degree, int *npts, const double **xy, const double **w);

/* Relative moment residuals r[m] of a symmetric rule whose orbits have the parameters u[nu]
 * (weights and positions), optionally with their Jacobian J[m][nu]; returns m. */
typedef int (*quad_residual_fn)(const void *rule, const double *u, int nu, double *r, double *J);
#define QUAD_MAX_UNKNOWN 64
/* Refine the parameters u[nu] of a rule with m moment equations in place by Gauss-Newton steps
 * (damped slightly where the equations leave a parameter free), keeping the best iterate.
 * Returns its largest residual, or -1 when out of memory or nu > QUAD_MAX_UNKNOWN. */
double quad_refine_orbits(int nu, int m, quad_residual_fn residual, const void *rule, double *u);

/* ---- refel_prism.c: the reference prism ----
 * Reference prism: triangle {xi1 >= 0, xi2 >= 0, xi1 + xi2 <= 1} times xi3 in [-1,1], volume 1.
 * Vertices 0:(0,0,-1) 1:(1,0,-1) 2:(0,1,-1) 3:(0,0,1) 4:(1,0,1) 5:(0,1,1).
 * Barycentric l0 = 1 - xi1 - xi2, l1 = xi1, l2 = xi2 (li is 1 at vertex i and i+3).
 * Edges: 0:(0,1) 1:(1,2) 2:(2,0) bottom, 3:(3,4) 4:(4,5) 5:(5,3) top, 6:(0,3) 7:(1,4) 8:(2,5)
 * vertical; each edge runs from its first to its second vertex.
 * Faces: 0 bottom (0,1,2), 1 top (3,4,5), 2 quad over edge 0/3, 3 over edge 1/4, 4 over edge 2/5.
 * Shape functions are products T(xi1,xi2) * L(xi3) of hierarchical triangle functions of degree
 * <= p and 1D functions L0 = (1-xi3)/2, L1 = (1+xi3)/2, Lk = Lobatto bubbles k = 2..p. */

#define PRISM_NV 6
#define PRISM_NE 9
#define PRISM_NF 5

enum mode_kind { MODE_VERTEX = 0, MODE_EDGE = 1, MODE_FACE = 2, MODE_INTERIOR = 3 };

/* What a shape function is: the entity it belongs to and its degrees, for the DOF map. The
 * H1 elements (prism, quadrilateral) set the first seven fields, the H(curl) tetrahedron
 * kind, entity, degree (its level) and the last five (refel_tet.h). */
struct refel_mode {
  int8_t kind;   /* enum mode_kind */
  int8_t entity; /* local vertex 0..5, edge 0..8, face 0..4; 0 for interior */
  int8_t hdeg;   /* degree of the horizontal (triangle edge) factor, 0 if none: its parity gives
                    the sign change when the horizontal direction reverses */
  int8_t vdeg;   /* degree of the vertical Lobatto bubble, 0 if none (sign under vertical flip) */
  int8_t degree; /* degree compared with the entity's order by the minimum rule: vertex 1;
                    edge k or m; triangle face: total degree n of the bubble; quad face:
                    max(k, m); interior: max(n, m); H(curl): the level */
  int8_t i1, i2; /* triangle bubble indices (i, j) with i + j = n - 3 for triangle-face and
                    interior modes; (k, m) for quad faces; 0 otherwise */
  int8_t level;  /* H(curl): the order (1..3) from which the function is in the basis */
  int8_t type;   /* H(curl): enum tet_mode_type */
  int16_t rank;  /* H(curl): index among the functions of its entity (lower orders are
                    prefixes); the hexahedron: index among the nodes of its entity */
  int8_t odd;    /* H(curl) edge modes: 1 when the function changes sign with the edge direction */
  int8_t sorted; /* H(curl) face modes: 1, they assume the face's vertices in ascending order */
};

/* A tabulated reference element: the prism (dim 3, below), the quadrilateral (dim 2,
 * refel_quad.h) and the hexahedron (refel_hex.h) of the H1 family, the tetrahedron (refel_tet.h)
 * of the H(curl) family. */
struct refel {
  int shape, family, order;
  int dim;        /* reference dimension: 3 for the prism and the tetrahedron, 2 for the
                     quadrilateral */
  int nsh;        /* shape functions (H(curl): vector functions) */
  int nq;         /* quadrature points */
  int degree;     /* exactness degree of the rule (prism: 2p in total degree; quadrilateral:
                     2p+1 in each variable; tetrahedron: see refel_tet.h) */
  int ntri, nline;/* points of the triangle rule (prism only) and of the Gauss-Legendre rule
                     per direction (prism, quadrilateral; the tetrahedron's conical rule: points
                     per direction, 0 for a symmetric rule) */
  double *xq;     /* [nq][dim] reference coordinates */
  double *wq;     /* [nq] weights (sum = the reference measure: 1 for the prism, 4 for the
                     quadrilateral, 1/6 for the tetrahedron) */
  /* H1: */
  double *phi;    /* [nq][dim+1][nsh]: value and the dim reference derivatives of each shape
                     function */
  float *phi_f;   /* the same in single precision */
  /* H(curl): */
  double *val;    /* [nq][3][nsh]: component d of function i at point q, val[(q*3 + d)*nsh + i] */
  double *curl;   /* [nq][3][nsh]: the reference curls, same layout */
  float *val_f, *curl_f; /* the same in single precision */
  struct refel_mode *mode; /* [nsh] */
};

/* Shape functions of order p (1..7): 6, 18, 40, 75, 126, 196, 288. */
int refel_prism_nsh(int order);
/* Build the tabulated reference prism of an order. FEMINT_EORDER outside 1..7. */
int refel_prism_create(int order, struct refel **re);
void refel_destroy(struct refel **re);
/* Values and reference derivatives of all shape functions at one point: val[4][nsh], in the
 * same order as the tabulation. */
void refel_prism_eval(int order, const double xi[3], double *val);
/* Rank of a mode among the modes of its entity for an entity of order q (modes ordered by degree,
 * so that lower orders are prefixes where the enumeration allows; quad faces: (k-2)(q-1) + m-2).
 * -1 when the mode does not exist at order q. */
int refel_mode_rank(const struct refel_mode *m, int q);
/* Number of modes of one entity kind at order q: vertex 1, edge q-1, triangle face
 * (q-1)(q-2)/2, quad face (q-1)^2. face is 0..4 (ignored for edges). */
int refel_entity_nmodes(int kind, int entity, int q);

/* ---- refel.c: reference elements by shape and family ---- */

/* The element of a shape and family: refel_prism_create, refel_quad_create, refel_hex_create,
 * refel_lagrange_create (H1 triangle and tetrahedron) or refel_tet_create (H(curl)).
 * FEMINT_ENOTSUP (a family the shape does not have, named), FEMINT_EORDER, FEMINT_ENOMEM. */
int refel_create(int shape, int family, int order, struct refel **re);
/* Shape functions of an order (a negative error for a bad shape, family or order). */
int refel_nsh(int shape, int family, int order);
/* Values at xi of all shape functions, in the order of the tabulation: H1, the value and the dim
 * reference derivatives, val[dim+1][nsh]; H(curl), the 3 components of each function and then the
 * 3 of its curl, val[6][nsh]. */
void refel_eval(int shape, int family, int order, const double *xi, double *val);
/* Whether a shape has a family: FEMINT_H1 every shape (the tetrahedron and the triangle Lagrange,
 * refel_simplex.h), FEMINT_HCURL the tetrahedron. */
int refel_has_family(int shape, int family);
/* Whether the element of a shape and family is nodal (Lagrange: the H1 hexahedron, tetrahedron and
 * triangle): its functions are not hierarchical, so a space of it takes one order. */
int refel_nodal(int shape, int family);
/* The highest order of a shape's element of a family (femint_refel_max_order), 0 when the shape
 * has no such family. */
int refel_max_order(int shape, int family);
/* Modes of an entity of order q (kind, local entity) of the element's shape and family. */
int refel_modes(const struct refel *re, int kind, int entity, int q);
/* Rank of a mode among those of its entity of order q, -1 when it does not exist there. */
int refel_rank(const struct refel *re, const struct refel_mode *m, int q);

/* ---- geometry.c: the map of a prism with straight edges and bilinear quadrilateral faces ---- */

/* X[6][3] vertex coordinates (femint local order). J[3*i + j] = dx_i / dxi_j. Returns det J. */
double geom_prism_jacobian(const double *X, const double xi[3], double *J);
/* Physical point x(xi). */
void geom_prism_point(const double *X, const double xi[3], double *x);
/* K = inverse of J (K[3*j + i] = dxi_j / dx_i); returns det J. */
double geom_inverse3(const double *J, double *K);
/* det J of a 3 x 3 J (row-major). */
double geom_det3(const double *J);
/* Jacobian terms of a cell at the points of re: t[q*10] = det J * w_q,
 * t[q*10 + 1 + 3*j + i] = dxi_j / dx_i. Returns 0, or FEMINT_EJACOBIAN with *bad = q. */
int geom_prism_terms(const struct refel *re, const double *X, double *t, int *bad);
#define GEOM_NTERMS 10
/* The map of nodal geometry from the node functions N[nnode] and their reference derivatives
 * dN[nnode][dim] (either may be NULL): x[dim] = sum_a N_a X_a, J[dim*i + j] = sum_a X_a,i dN_a,j;
 * returns det J (0 without dN). */
double geom_nodal(int dim, int nnode, const double *X, const double *N, const double *dN,
                  double *x, double *J);
/* The map of a cell of any shape from its nnode geometric nodes X[nnode][dim] (dim 3, or 2 for
 * the quadrilateral): the point x(xi) (dim values; NULL: not wanted) and J[dim*i + j] =
 * dx_i / dxi_j at xi; returns det J. */
double geom_map(int shape, int nnode, const double *X, const double *xi, double *x, double *J);

/* ---- geometry_hex.c: the hexahedron on the reference cube of refel_hex.h ---- */

/* X[nnode][3]: the 8 vertices (Gmsh's order), trilinear, or with the 12 edge nodes after them
 * (nnode 20: the serendipity element, Gmsh's 20-node hexahedron): the point x(xi), and
 * J[3*i + j] = dx_i / dxi_j with det J returned. */
void geom_hex_point(int nnode, const double *X, const double xi[3], double *x);
double geom_hex_jacobian(int nnode, const double *X, const double xi[3], double *J);
/* 0 when det J > 0 over the whole cell, certified (Bernstein coefficients of det J, of degree 2
 * or 5 in each variable, on sub-boxes where needed); else FEMINT_EJACOBIAN (or FEMINT_ENOTSUP
 * for nnode other than 8 and 20) with a message, *det and xi (either may be NULL) the smallest
 * det J found and where. */
int geom_hex_check(int nnode, const double *X, double *det, double xi[3]);
/* Jacobian terms of a cell of any shape at the points of re, from its nnode geometric nodes
 * X[nnode][dim]: 3D as geom_prism_terms writes them, 2D as refel_quad.h's GEOM_QUAD_NTERMS says
 * (1 + dim^2 values per point); simplices take |det J| (their vertices are in ascending global
 * order). Returns 0, or FEMINT_EJACOBIAN with *bad = q. */
int geom_terms(const struct refel *re, int nnode, const double *X, double *t, int *bad);
/* The table from which a device maps cells of nnode geometric nodes at the points of re: per
 * point q, w_q then dN_a/dxi_j at 1 + dim*a + j (geom_table_size values in all). J = sum_a X_a
 * dN_a does not change when the same vector is subtracted from every node (the dN_a sum to 0). */
size_t geom_table_size(const struct refel *re, int nnode);
void geom_table_fill(const struct refel *re, int nnode, double *tab);

/* ---- mesh.c, mesh_topo.c ---- */

/* The local topology of a cell shape: the shape table of the meshes. A quadrilateral's faces are
 * its edges: the boundary of a 2D mesh is made of boundary "faces" of 2 vertices, tagged and
 * integrated over like the faces of a prism or a tetrahedron. */
struct cell_topo {
  int shape, dim;
  int nv, ne, nf;            /* vertices, edges and faces of a cell */
  const int (*edge_vert)[2]; /* [ne] local vertices of each edge */
  const int (*face_vert)[4]; /* [nf] local vertices of each face, -1 after the last */
  int curved;                /* 1: cells may carry one geometric node per edge */
  const char *name, *plural; /* "prism", "prisms" */
};
extern const struct cell_topo topo_prism, topo_quad, topo_tet, topo_hex, topo_tri;
/* The shapes and their numbers, for messages. */
#define SHAPE_LIST "prism 1, quad 2, tet 3, hex 4, tri 5"
/* The topology of a shape (enum femint_shape), or NULL. */
const struct cell_topo *topo_of(int shape);
#define MESH_MAX_NV 8
#define MESH_MAX_NE 12
#define MESH_MAX_NODES 20
/* The largest coordinate a mesh may have: the cube of it (a determinant) and the products of
 * element matrices stay finite in double precision. */
#define MESH_COORD_MAX 1e100

struct femint_mesh {
  femint_context_t ctx;
  const struct cell_topo *topo;
  int nvert, ncell;
  double *coords;  /* [nvert][3] (z = 0 in 2D) */
  int *cells;      /* [ncell][topo->nv] vertices in femint's local order (see mesh.c) */
  double *edge_x;  /* curved cells: [nedge][3] the geometric node of every edge (the image of its
                      midpoint); NULL when every cell is straight */
  uint8_t *vert_bnd; /* [nvert] 1 on the boundary */
  int nbface;
  int *bface;      /* [nbface][3]: cell, local face, tag */
  int64_t *vert_gid; /* [nvert] global id: the Gmsh node tag, the caller's, or the vertex index */
  int *cell_mat;   /* [ncell] material: the Gmsh physical tag, the caller's, or 0 */
  /* topology */
  int nedge, nface;
  int *cell_edge;  /* [ncell][topo->ne] global edges */
  int *edge_vert;  /* [nedge][2], ascending */
  int *cell_face;  /* [ncell][topo->nf] global faces (a quadrilateral's are its edges) */
  int *face_cell;  /* [nface][2] cells sharing the face (-1 for a boundary face) */
  const struct mesh_namer *namer; /* while the mesh is made: names its cells in messages */
};

/* Geometric nodes of a cell: the vertices, and one per edge when the mesh is curved. */
int mesh_nnode(const struct femint_mesh *m);
/* The geometric nodes of cell c, X[nnode][dim] (dim 3, or 2 for quadrilaterals): the vertices in
 * the local order, then the edge nodes in the local edge order; returns nnode. */
int mesh_cell_nodes(const struct femint_mesh *m, int c, double *X);

/* Local vertices of the edges and faces of the reference prism (quad faces list 4 vertices
 * bottom a, bottom b, top b, top a; triangle faces 3 and -1). */
extern const int prism_edge_vert[PRISM_NE][2];
extern const int prism_face_vert[PRISM_NF][4];

/* ---- space.c ---- */

struct femint_space {
  femint_context_t ctx;
  femint_mesh_t mesh;
  int family;         /* FEMINT_H1 or FEMINT_HCURL */
  int ncomp;
  int *order;         /* [ncell] */
  int64_t nmode;      /* scalar modes; ndof = nmode * ncomp */
  int64_t *cell_off;  /* [ncell + 1]: cell c's modes are cell_mode[cell_off[c] .. cell_off[c+1]) */
  int64_t *cell_mode; /* global scalar mode of each local shape function, -1 if dropped (minimum
                         rule) or removed (femint_space_remove_boundary_dofs) */
  int8_t *cell_sign;  /* +1 / -1 */
  int64_t *vertex_mode; /* [nvert]: the mode of each vertex (H1; -1 for a vertex of no cell or
                           a removed one, and in H(curl)) */
  int64_t *global_dof;  /* NULL, or [nmode * ncomp] the caller's global number of each DOF
                           (femint_space_set_global_dofs) */
  int generation;     /* counts the removals of DOFs: an operator remembers the one it was made
                         for */
};

/* The rank of mode md of a cell among the modes of its entity of order q, in the entity's own
 * order (refel_rank; a hexahedron's edge and face nodes oriented by the global ids gv of the
 * cell's vertices), -1 when it does not exist at order q. */
int space_mode_rank(const struct refel *re, const struct refel_mode *md, int q, const int64_t *gv);

/* Whether a boundary face of tag `tag` is selected by (ntag, tags): ntag = 0 every face, -1 the
 * faces with a tag > 0, else those whose tag is listed. */
int space_face_selected(int tag, int ntag, const int *tags);
/* Mark (mark[mode] = 1) the scalar modes on the boundary faces selected by (ntag, tags): the
 * modes whose entity lies in the closure of such a face. FEMINT_ENOMEM or a reference element's
 * error. */
int space_mark_boundary(const struct femint_space *s, int ntag, const int *tags,
                        unsigned char *mark);

/* ---- form.c ---- */

enum form_kind {
  FORM_GENERIC = 0,
  FORM_ELASTICITY = 1,
  FORM_LAPLACE = 2,
  FORM_MASS = 3,
  FORM_HCURL_MASS = 4, /* N_i . eps N_j (H(curl)) */
  FORM_CURLCURL = 5,   /* curl N_i . nu curl N_j, nu = mu^-1 (H(curl)) */
  FORM_POINTWISE = 6   /* a residual from the caller's pointwise functions (pointwise.h) */
};

struct femint_form {
  femint_context_t ctx;
  int kind;
  int family;    /* FEMINT_H1 or FEMINT_HCURL */
  int dim;       /* the dimension the form is made for (elasticity: 3, or 2 in plane stress or
                    strain; the H(curl) forms 3), 0 for any */
  int ne;        /* components of trial and test functions */
  int ncoef;     /* coefficients per cell: generic ne*ne*16, elasticity 2 (lambda, mu), H(curl)
                    9 (the tensor eps or nu = mu^-1, row-major), 1 else */
  int nvalues;   /* 1 (the same for every cell) or the number of cells */
  double *coef;  /* [nvalues][ncoef] */
  struct pointwise *pw; /* FORM_POINTWISE: the caller's functions (pointwise.h), else NULL */
};

/* The generic array c[ne][ne][4][4] (ne*ne*16 values) of an H1 form on a cell (in 2D the index
 * 3, d/dz, is unused). */
void form_expand(const struct femint_form *f, int cell, double *c);
/* The coefficients of a cell (ncoef values). */
const double *form_coef(const struct femint_form *f, int cell);
const char *form_kind_name(int kind);
/* Flops per (idof, jdof) block as seed 000 counts them (63 for elasticity; 2 per entry of an
 * H(curl) form's 3 x 3 product terms). */
double form_flops_per_block(const struct femint_form *f);
/* Whether the form's element matrices are symmetric (every form but the generic one). */
int form_symmetric(const struct femint_form *f);

/* ---- reference.c: Algorithm 1 of seed 000, plain, in double ---- */

/* Element matrix A[(nsh*ne)^2] (row-major, local index idof*ne + ie) of the prism with vertices
 * X[6][3] and generic coefficients c[ne][ne][4][4], computing the geometry from scratch. */
int integrate_volume_reference(const struct refel *re, int ne, const double *c, const double *X,
                               double *A);

#endif
