/* femint: operators applied without their matrix (matrix-free), the vectors they act on, the
 * operator's diagonal and conjugate gradients. Part of femint.h, which includes it. */
#ifndef FEMINT_MATFREE_H
#define FEMINT_MATFREE_H

#include "femint.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Vectors that stay where the tasks use them ---- */

/* femint_vector_t: declared in femint.h */

/** How femint_vector_get_array lends the values. */
enum femint_access {
  FEMINT_READ = 1,     /**< the caller reads them */
  FEMINT_WRITE = 2,    /**< the caller overwrites all of them (nothing is brought back) */
  FEMINT_READWRITE = 3 /**< the caller reads and changes them */
};

/** @brief A vector of the space's num_dofs values, all zero, in main memory (pinned where there
 *  is a GPU) and known to the task runtime: the verbs below (femint_operator_apply_vector,
 *  femint_operator_cg) read and write it on the workers that run their tasks, and it stays there
 *  between them, on a GPU during a whole solve, until the caller asks for its values.
 *  @return 0; FEMINT_EINVAL (NULL space or output); FEMINT_ENOMEM. */
FEMINT_EXPORT int femint_vector_create(femint_space_t space, femint_vector_t *v);
/** @brief Wait for the tasks that use the vector, then free it; *v becomes NULL. */
FEMINT_EXPORT int femint_vector_destroy(femint_vector_t *v);
/** @brief The number of values (num_dofs of its space), or -1 for NULL. */
FEMINT_EXPORT int64_t femint_vector_size(femint_vector_t v);
/** @brief Lend the values in main memory: waits for the tasks writing the vector and brings its
 *  latest values back (FEMINT_READ, FEMINT_READWRITE). Until femint_vector_restore_array, no
 *  verb may use the vector. @return 0; FEMINT_EINVAL (bad mode); FEMINT_ESTATE (already lent). */
FEMINT_EXPORT int femint_vector_get_array(femint_vector_t v, int mode, double **values);
/** @brief Give back what femint_vector_get_array lent; *values becomes NULL. */
FEMINT_EXPORT int femint_vector_restore_array(femint_vector_t v, double **values);
/** @brief Copy num_dofs values into the vector (from main memory). */
FEMINT_EXPORT int femint_vector_set_values(femint_vector_t v, const double *values);
/** @brief Copy the vector's num_dofs values out to main memory (waits for its tasks). */
FEMINT_EXPORT int femint_vector_get_values(femint_vector_t v, double *values);

/* ---- The action of an operator ---- */

/** @brief y = A x for form `form` without assembling A (matrix-free): hexahedra with the mass or
 *  laplace form (a coefficient per cell) or 3D elasticity (Young's modulus and Poisson ratio
 *  per cell, 3 components), by sum factorization on the rule of options.apply_rule (BP1-BP4, or
 *  BP5-BP6); options.precision FEMINT_SINGLE keeps the quadrature data, tables and element
 *  vectors in floats and the OpenCL kernels compute in floats (CPU workers compute in double from
 *  them; x, y and the sums stay double); with every kind of worker allowed, a GPU that runs the
 *  kernel takes the tasks alone (the CPU workers are far slower on them), in tasks on CPU and OpenCL
 *  workers. The first call of a form computes and keeps its quadrature data. The element vectors
 *  are summed in a fixed order: on the same workers, y is the same bit for bit from call to call
 *  (the CPU and OpenCL kernels round differently). x, y: num_dofs values in main memory (copied
 *  to and from vectors of the operator's own).
 *  @return 0; FEMINT_ENOTSUP (another shape, form or precision, named); FEMINT_EINVAL. */
FEMINT_EXPORT int femint_operator_apply(femint_operator_t op, int form, const double *x,
                                        double *y, struct femint_stats *stats);
/** @brief y = A x as femint_operator_apply, on vectors of the operator's space: x is read and y
 *  written where the tasks run (y lives on the first OpenCL device that runs the kernel, else in
 *  main memory), and nothing comes back to main memory unless the caller asks for it. Returns
 *  when y is complete. @return as femint_operator_apply; FEMINT_EINVAL (vectors of another size,
 *  x == y). */
FEMINT_EXPORT int femint_operator_apply_vector(femint_operator_t op, int form, femint_vector_t x,
                                               femint_vector_t y, struct femint_stats *stats);
/** @brief d = the diagonal of form `form`'s matrix, computed without the matrix from the kept
 *  quadrature data (the same rule as femint_operator_apply): each component of a node gets the
 *  same value (mass, laplace) or its own (elasticity); a DOF that none of the operator's cells touches gets 0. @return as
 *  femint_operator_apply. */
FEMINT_EXPORT int femint_operator_diagonal(femint_operator_t op, int form, femint_vector_t d);

/** @brief y = A x for an assembled matrix (square: the space's DOFs) and vectors of its space.
 *  A matrix whose values stayed on a device (femint_operator_options.matrix_on_device)
 *  multiplies there, and x and y stay there for the next verb; else in main memory.
 *  @return 0; FEMINT_EINVAL (NULL, sizes that differ, named; x and y one vector); FEMINT_ESTATE
 *  (a vector's array lent; the context has ended); FEMINT_EOPENCL. */
FEMINT_EXPORT int femint_matrix_mult_vector(femint_matrix_t A, femint_vector_t x,
                                            femint_vector_t y);

/** @brief The element operators alone, as CEED's bake-off kernels BK1-BK6 measure them:
 *  v_e = A_e u_e on every cell of the operator, from element vectors to element vectors, without
 *  the gather from x or the sum into y, on the workers that run femint_operator_apply's tasks
 *  (a device keeps both element vectors in its memory): once, then `runs` passes more.
 *  ue and ve: [cell k of the operator][idof * ncomp + icomp], the local order of
 *  femint_operator_element_matrix (ve = A_e ue with its matrices, orientation signs not
 *  applied); ue NULL keeps the previous call's (values of no meaning at the first call), ve
 *  NULL brings nothing back. *seconds (unless NULL) gets the median time of one of the `runs`
 *  passes (submission to the end of its tasks), stats the last pass's tasks. The first call of
 *  a form builds the kernel's programs and element vectors, kept with the operator.
 *  @return as femint_operator_apply; FEMINT_EINVAL (runs < 1). */
FEMINT_EXPORT int femint_operator_apply_kernel(femint_operator_t op, int form, const double *ue,
                                               double *ve, int runs, double *seconds,
                                               struct femint_stats *stats);

/* ---- Conjugate gradients ---- */

struct femint_cg_options {
  double rtol; /**< stop when |b - A x| <= rtol |b| (0: 1e-8) */
  int max_it;  /**< most iterations (0: 10000) */
  int jacobi;  /**< 1: preconditioned by the inverse of the operator's diagonal */
  int fixed;   /**< 1: exactly max_it iterations whatever the residual (benchmarks) */
};

struct femint_cg_result {
  int iterations;   /**< iterations done */
  int converged;    /**< 1: the residual reached rtol |b| (or b is zero) */
  double bnorm;     /**< |b| */
  double rnorm0;    /**< |b - A x0| */
  double rnorm;     /**< |b - A x| at the end, as the iteration updates it */
  double t_setup;   /**< what the first solve of the form prepares (quadrature data, programs,
                         the diagonal) */
  double t_solve;   /**< the iterations (submission of the first task to the last residual) */
  int tasks_cpu, tasks_opencl; /**< tasks of the solve run by each kind of worker */
};

/** @brief Solve A x = b for form `form` of the operator (symmetric positive definite on the
 *  space's free DOFs: mass, or laplace or elasticity with boundary DOFs removed) by conjugate gradients,
 *  matrix-free, in the form with one reduction per iteration (Chronopoulos and Gear: r^T z
 *  and (A z)^T z summed together, z the preconditioned residual). x holds the initial guess and
 *  gets the solution. Every step is a task (the apply, the dot products as reductions, the fused
 *  vector updates, with CPU and OpenCL codelets): on a GPU, x, b and the work vectors stay on the
 *  device and only the residual norm (8 bytes) comes back per iteration. The dot products sum
 *  in a fixed order.
 *  @param[in] opt NULL for the defaults. @param[out] res may be NULL.
 *  @return 0 (converged or not: res->converged says); FEMINT_ESOLVE (a direction with
 *  p^T A p <= 0 or not finite: the operator is not positive definite, named with the
 *  iteration; x then holds no solution); FEMINT_EINVAL (bad options, vectors of another size, b == x); the errors of
 *  femint_operator_apply. */
FEMINT_EXPORT int femint_operator_cg(femint_operator_t op, int form, femint_vector_t b,
                                     femint_vector_t x, const struct femint_cg_options *opt,
                                     struct femint_cg_result *res);

/* ---- The empirical roofline ---- */

/** @brief The copy rate of `device` (an OpenCL device in StarPU's numbering that a worker
 *  drives; -1: the CPU workers): bytes read plus bytes written per second of a copy of `bytes`
 *  into another buffer, the median of 5 (OpenCL: clEnqueueCopyBuffer timed by its events; CPU:
 *  one copy task per CPU worker on its share, its team's threads each copying a part, all at
 *  once). The limit a memory-bound kernel that reads and writes as many bytes can reach. Call it
 *  while no verb is in progress. @return 0; FEMINT_EINVAL (bad device, fewer than 1024 bytes or
 *  more than the device holds twice); FEMINT_ENODEV; FEMINT_ENOMEM; FEMINT_EOPENCL;
 *  FEMINT_ERUNTIME. */
FEMINT_EXPORT int femint_bench_copy(femint_context_t ctx, int device, size_t bytes, double *rate);

#ifdef __cplusplus
}
#endif
#endif
