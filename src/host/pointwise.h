/* Internal interfaces of pointwise forms (seed 002): the gallery's sources, the text femint puts
 * before a caller's source, the geometry a residual needs at the quadrature points, and the
 * residual of one cell as the CPU codelet computes it. No StarPU, no OpenCL. Never installed. */
#ifndef FEMINT_POINTWISE_INTERNAL_H
#define FEMINT_POINTWISE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "host.h"

#define PW_MAX_NC 3
#define PW_MAX_NA 3
#define PW_MAX_CONST 16

/* A form's copy of the caller's description (struct femint_pointwise). */
struct pointwise {
  char *source, *name;
  int ncomp, aux, naux, ncell_aux, nconst;
  double *aux_cell;  /* [ncell_aux][naux] */
  double k[PW_MAX_CONST];
  femint_pointwise_fn f0, f1, g[4]; /* the caller's compiled functions (NULL: none) */
};

/* The text before a caller's source: REAL, FEMINT_POINTWISE, FEMINT_DIM, FEMINT_NC, FEMINT_NA,
 * FEMINT_NCONST, <math.h> in C, then a #line that makes the compiler's messages name the
 * caller's text and its lines. opencl: the OpenCL C variant, REAL float when single. Returns the
 * length written (snprintf's). */
int pw_prelude(char *buf, size_t len, const struct pointwise *pw, int dim, int opencl,
               int single);

/* The loop over a run of cells compiled with a source (kernels/residual_cpu.c): 0, or -1 when
 * out of memory. */
typedef int (*pw_cells_fn)(int ncell, int nsh, int nq, const double *phi, const double *xq,
                           const double *wq, int affine, const double *u, const long long *dofs,
                           const void *geo, const void *geox, int lanes, int single,
                           const double *aux, const long long *adofs, int aux_kind,
                           const double *k, void *ev);

/* Values per quadrature point of a residual's geometry: w |det J|, K = dxi/dx (K[dim*j + d] =
 * dxi_j / dx_d), the physical point x. */
static inline int pw_geo_size(int dim) { return 1 + dim * dim + dim; }
/* g[nq][pw_geo_size] of a cell with nodes X[nnode][dim] on re's rule; FEMINT_EJACOBIAN where
 * det J vanishes or is not finite. */
int pw_geometry(const struct refel *re, int nnode, const double *X, double *g);
/* An affine cell (a straight simplex) keeps its geometry once, not per point: |det J|, K, J
 * (J[dim a + b] = dx_a / dxi_b) and x at xi = 0; at point q, w |det J| = w_q |det J| and x = x0 +
 * J xi_q. */
static inline int pw_affine_size(int dim) { return 1 + 2 * dim * dim + dim; }
/* A run of affine cells keeps them in two parts, so that a form that does not use x reads only
 * the first: every cell's |det J| and K (pw_affine_head values), then every cell's J and x0. */
static inline int pw_affine_head(int dim) { return 1 + dim * dim; }
/* Where value i of the k-th of a run of n cells is kept, per values a cell (per point, or
 * affine: the two parts), the cells in blocks of `lanes` (1, or the CPU loop's PW_LANES: value i
 * of a block's cells at consecutive addresses, the run padded to whole blocks). */
static inline size_t pw_geo_at(int affine, int dim, int lanes, size_t per, size_t n, size_t k,
                               size_t i)
{
  const size_t l = (size_t)lanes, b = k / l, z = k % l;
  if (!affine) return (b * per + i) * l + z;
  const size_t head = (size_t)pw_affine_head(dim), nb = (n + l - 1) / l;
  return (i < head ? b * head + i : nb * head + b * (per - head) + i - head) * l + z;
}
/* The cells of a block of the CPU loop over cells (kernels/residual_cpu.c's FEMINT_LANES). */
#define PW_LANES 8
/* n cells padded to whole blocks of lanes. */
static inline size_t pw_padded(size_t n, int lanes) { return (n + lanes - 1) / lanes * lanes; }
int pw_geometry_affine(const struct refel *re, int nnode, const double *X, double *g);
/* The per-point geometry g[nq][pw_geo_size] (as pw_geometry) of an affine cell's ga. */
void pw_affine_points(const struct refel *re, const double *ga, double *g);

/* What the residual of a cell needs besides its data. */
struct pw_eval {
  const struct refel *re;   /* the element and its rule (phi in double) */
  int dim, nc, na, aux;     /* aux: enum femint_aux */
  const double *k;
  femint_pointwise_fn f0, f1; /* NULL: 0 */
  int affine;                 /* the cells are straight simplices (K the same at every point) */
};
/* The residual of one cell, r[nc][nsh] (component-major, the element vectors of the sum), from
 * its geometry g (pw_geometry), its values ue[nsh * nc] (local function i, component c at i nc +
 * c) and, for an auxiliary field, ae[nsh * na]; for per-cell aux, ae[na] (gradient 0). */
void pw_cell_residual(const struct pw_eval *e, const double *g, const double *ue,
                      const double *ae, double *r);

/* Whether a source defines a function of that name: the name followed by "(" after a type, at
 * the start of a word, outside comments (a plain scan, for the OpenCL kernel's build). */
int pw_defines(const char *source, const char *name);
/* Whether a source (NULL: none) defines any of g0..g3, the Jacobian's pointwise derivatives. */
int pw_defines_g(const char *source);

/* The Jacobian of one cell's residual with respect to its values, J[n][n] with n = nsh * nc
 * (row i * nc + c, column j * nc + e: the layout of femint's element matrices), from g0..g3
 * (e->g; NULL: that term 0) at the cell's values; the arguments as pw_cell_residual. */
void pw_cell_jacobian(const struct pw_eval *e, femint_pointwise_fn const g[4], const double *gq,
                      const double *ue, const double *ae, double *J);

/* The gallery's source of a name, or NULL. */
const char *pw_gallery(const char *name);

#endif
