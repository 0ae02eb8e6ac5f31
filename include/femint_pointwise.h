/* femint: residuals from the caller's pointwise functions (seed 002): the physics written once,
 * evaluated at the quadrature points of every cell on CPU and OpenCL workers. Part of femint.h,
 * which includes it. */
#ifndef FEMINT_POINTWISE_H
#define FEMINT_POINTWISE_H

#include "femint.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Pointwise forms ----
 * The residual of a pointwise form is
 *   F_i(u) = sum over cells of the integral of phi_i . f0(u, grad u, a, grad a, x)
 *                                              + grad phi_i : f1(u, grad u, a, grad a, x)
 * for the test functions phi_i of an H1 space of nc components, a the auxiliary field (variable
 * coefficients) of na components. The caller writes f0 and f1 once, in C that is also OpenCL C:
 *
 *   FEMINT_POINTWISE void f0(int dim, const REAL *u, const REAL *du, const REAL *a,
 *                            const REAL *da, const REAL *x, const REAL *k, REAL *f)
 *
 * and the same for f1, at one point: u[nc], du[nc * dim] (du[c * dim + d] = du_c / dx_d), a[na],
 * da[na * dim], x[dim], the form's constants k[nconst]; f0 writes f[nc], f1 writes f[nc * dim]
 * (f[c * dim + d] multiplies d phi_c / dx_d). femint puts before the text: REAL (double, or float
 * on OpenCL devices in single precision), FEMINT_POINTWISE, FEMINT_DIM, FEMINT_NC, FEMINT_NA and
 * FEMINT_NCONST (the sizes, as constants), and in OpenCL C the math functions (exp, pow, sqrt,
 * ...) are OpenCL's. Either function may be left out of the text: its term is then 0. */

/** How the auxiliary field a is given. */
enum femint_aux {
  FEMINT_AUX_NONE = 0,  /**< no auxiliary field (na = 0) */
  FEMINT_AUX_FIELD = 1, /**< a field of the same shape and order as the solution, with na
                             components: a femint_vector_t of such a space */
  FEMINT_AUX_CELL = 2   /**< na constants per cell (grad a = 0): aux_cell */
};

/** A compiled pointwise function (double), for callers that pass function pointers. */
typedef void (*femint_pointwise_fn)(int dim, const double *u, const double *du, const double *a,
                                    const double *da, const double *x, const double *k,
                                    double *f);

struct femint_pointwise {
  const char *source;     /**< the text that defines f0 and f1, or NULL (then f0 or f1 below, CPU
                               workers only) */
  const char *name;       /**< what messages call the text (a file name); NULL: "pointwise" */
  int ncomp;              /**< nc, 1..3 */
  int aux;                /**< enum femint_aux */
  int naux;               /**< na: 1..3 with an auxiliary field, else 0 */
  int ncell_aux;          /**< FEMINT_AUX_CELL: the cells of aux_cell (the mesh's) */
  const double *aux_cell; /**< FEMINT_AUX_CELL: [ncell_aux][naux] */
  int nconst;             /**< constants k, 0..16 */
  const double *constants;
  femint_pointwise_fn f0, f1; /**< compiled functions: used on CPU workers instead of compiling
                                   the source there (NULL: that term is 0; both NULL: from the
                                   source) */
  femint_pointwise_fn g[4];   /**< with f0 or f1: the compiled g0..g3 (NULL: that term 0) */
};

/** @brief A pointwise form (a residual) on H1 spaces: the description is copied.
 *  @return 0; FEMINT_EINVAL (a size out of range, aux_cell missing, neither source nor
 *  functions); FEMINT_ENOMEM. The source is compiled when an operator first uses it. */
FEMINT_EXPORT int femint_form_create_pointwise(femint_context_t ctx,
                                               const struct femint_pointwise *pw,
                                               femint_form_t *form);
/** @brief The source text of a gallery form, or NULL for an unknown name:
 *  - "poisson": f1 = a grad u (a = 1 without aux), f0 = -k[0] (0 without constants);
 *  - "elasticity": nc = dim, f1 = lambda tr(eps) I + 2 mu eps with lambda = k[0], mu = k[1];
 *  - "plaplace": f1 = (eps^2 + |grad u|^2)^((p-2)/2) grad u with p = k[0], eps = k[2] (0
 *    without), f0 = -k[1];
 *  - "bratu": f1 = grad u, f0 = -k[0] exp(u).
 *  Each also defines its Jacobian's g0..g3 (femint_operator_jacobian). */
FEMINT_EXPORT const char *femint_pointwise_gallery(const char *name);

/** @brief F = the residual of a pointwise form at u: every cell of the operator, summed
 *  deterministically (each DOF's contributions in plan order) into F, which is overwritten.
 *  u and F are vectors of the operator's space; aux a vector of the auxiliary field's space (same
 *  mesh, shape and order, naux components) for FEMINT_AUX_FIELD, else NULL. The space is a
 *  Lagrange one (triangles, tetrahedra, hexahedra). Removed DOFs are 0
 *  in u and are left out of F. With options.precision FEMINT_SINGLE the geometry, the tables and
 *  the element residuals are floats and the OpenCL kernel computes in floats (REAL float; the CPU
 *  computes in double from them); u, aux and F stay double. The first call compiles the functions (CPU: the configured C
 *  compiler into a shared object cached under $FEMINT_CACHE_DIR, default ~/.cache/femint; OpenCL:
 *  into the kernel) and computes the geometry of the cells.
 *  @return 0; FEMINT_EINVAL (not a pointwise form, vectors of other spaces); FEMINT_EBUILD (the
 *  source does not compile: the compiler's message, with the line); FEMINT_ENOMEM. */
FEMINT_EXPORT int femint_operator_residual(femint_operator_t op, int form, femint_vector_t u,
                                           femint_vector_t aux, femint_vector_t F);

/** The element residuals of a run of cells: for femint_operator_residual_cells. */
struct femint_residual_batch {
  int form;             /**< which of the operator's forms */
  int ncell;            /**< cells in the batch */
  const int *cells;     /**< [ncell] mesh cell numbers */
  int n;                /**< values per cell: nsh * ncomp, function f's component c at f ncomp + c */
  const double *r;      /**< [ncell][n] the cells' residuals */
  const int64_t *dofs;  /**< [ncell][n] their DOFs: the space's global numbers when it has them
                             (femint_space_set_global_dofs), -1 for none */
};
/** What femint_operator_residual_cells calls for each batch, on the calling thread; 0 to go on. */
typedef int (*femint_residual_fn)(const struct femint_residual_batch *batch, void *user);
/** @brief The element residuals of the operator's cells handed to fn, batch by batch in plan
 *  order, instead of summed: an MPI code adds them into its own distributed vector (the hook of
 *  femint_operator_integrate for residuals). @return as femint_operator_residual;
 *  FEMINT_ECALLBACK when fn returns non-zero. */
FEMINT_EXPORT int femint_operator_residual_cells(femint_operator_t op, int form,
                                                 femint_vector_t u, femint_vector_t aux,
                                                 femint_residual_fn fn, void *user);

/** @brief J = the Jacobian of the pointwise form's residual at u (and aux), assembled: the
 *  pointwise derivatives g0 = df0/du, g1 = df0/d(grad u), g2 = df1/du, g3 = df1/d(grad u),
 *  written like f0 and f1 in the source (g0[c nc + e], g1[(c nc + e) dim + d],
 *  g2[(c nc + e) dim + d], g3[((c nc + e) dim + d) dim + d2] for the test component c and
 *  derivative d, the trial component e and derivative d2; a missing one is 0) or given compiled
 *  (g), integrated on the rule of the residual by a task per chunk of cells on the operator's
 *  workers (CPU teams, or the OpenCL kernel of the form's program) and summed in plan order into
 *  a CSR matrix over the operator's cells, whose structure is kept for the next call: on the
 *  residual's home device when it has one (only the CSR values come back; from the third call
 *  on into pinned memory of the context's, as femint_operator_assemble's), else by a CPU
 *  worker. The entries are the same bits from call to call on one kind of worker.
 *  @return 0; as femint_operator_residual; FEMINT_EINVAL when the form has none of g0..g3;
 *  FEMINT_ENODEV when no worker can (the CPU's without compiled g0..g3, no device);
 *  FEMINT_ENOTSUP when the element matrices hold 2^32 values or more. */
FEMINT_EXPORT int femint_operator_jacobian(femint_operator_t op, int form, femint_vector_t u,
                                           femint_vector_t aux, femint_matrix_t *J);

#ifdef __cplusplus
}
#endif

#endif
