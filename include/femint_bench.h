/* femint: the timing of the stages of the element-matrix kernels (seed 000's tables). Part of
 * femint.h, which includes it. */
#ifndef FEMINT_BENCH_H
#define FEMINT_BENCH_H

#include "femint.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Benchmarks ---- */

struct femint_bench_options {
  femint_form_t form; /**< the weak form (its coefficients: one value for every cell) */
  int order;          /**< 1..7 */
  int precision;      /**< FEMINT_DOUBLE or FEMINT_SINGLE */
  int variant;        /**< enum femint_variant (0: automatic) */
  int symmetric;      /**< upper-half storage of the element matrices */
  int ncell;          /**< about how many cells; 0: 1024 */
  int device;         /**< OpenCL device (StarPU's numbering), or -1 for the CPU codelet */
  int repeat;         /**< kernel launches, the best counts (0: 3) */
  int shape;          /**< FEMINT_PRISM (or 0): a box of prisms; FEMINT_QUAD: a square of perturbed
                           quadrilaterals (a 2D or dimension-free form) */
};

/** Stage times per element in seconds, one stage after the other (seed 000's Tables 5-7). */
struct femint_bench_result {
  int ncell, variant;
  double t_prep;       /**< input preparation on the host (Jacobian terms, coefficients) */
  double t_alloc;      /**< device memory allocation */
  double t_in;         /**< transfer of the inputs to the device */
  double t_kernel;     /**< the kernel (the CPU codelet with device -1) */
  double t_out;        /**< transfer of the element matrices back */
  double t_assemble;   /**< assembly into the CSR matrix on the CPU (one team on every core) */
  double bytes_in, bytes_out;      /**< bytes per element over the bus */
  double bw_in, bw_out;            /**< GB/s reached by the transfers */
  double flops_seed, flops_actual; /**< per element: seed 000's count and the work done */
  double peak_gflops;  /**< the device's peak in this precision (0 when unknown) */
  double max_error;    /**< relative difference of sampled element matrices from the CPU's */
};

/** @brief Time the stages of integrating and assembling about opt->ncell H1 cells of one order
 *  (the tetrahedra's phases come from femint_operator_assemble with phases set). Runs outside
 *  StarPU's tasks: call it while no verb is in progress. */
FEMINT_EXPORT int femint_bench_kernel(femint_context_t ctx, const struct femint_bench_options *opt,
                                      struct femint_bench_result *res);

#ifdef __cplusplus
}
#endif

#endif
