/* Test: where the COO sums run on an OpenCL device, dmda does not place integration batches on the
 * CPU workers only to calibrate them. With STARPU_CALIBRATE_MINIMUM = 2, the OpenCL workers alone
 * assemble three times (their models calibrated, the CPU workers' without a sample); then every
 * worker assembles and no batch goes to a CPU worker, no batch is placed uncalibrated, and the
 * matrices are the same to rounding. Where STARPU_CALIBRATE
 * asks for calibration, batches go to the CPU workers again (dmda calibrates them): so the rule,
 * not dmda's choice, kept them away. Skipped without both kinds of worker. */
#include <math.h>
#include <stdlib.h>

#include "common.h"

static void assemble_n(femint_context_t ctx, femint_space_t s, femint_form_t form,
                       int where, int n, femint_matrix_t R, double *d,
                       struct femint_stats *st)
{
  const struct femint_operator_options o = {
      .assembly = FEMINT_ASSEMBLY_COO, .where = where, .max_batch = 4};
  femint_operator_t op;
  TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &form, &o, &op));
  *d = 0;
  for (int i = 0; i < n; i++) {
    femint_matrix_t A;
    TAP_CALL(ctx, femint_operator_assemble(op, &A, st));
    *d = fmax(*d, test_matrix_reldiff(A, R));
    femint_matrix_destroy(&A);
  }
  femint_operator_destroy(&op);
}

int main(void)
{
  setenv("STARPU_CALIBRATE_MINIMUM", "2", 1);
  unsetenv("STARPU_CALIBRATE");
  test_fresh_dmda("t423");
  femint_context_t ctx = test_init();
  int ncpu, nocl;
  femint_context_workers(ctx, &ncpu, &nocl, NULL);
  if (ncpu == 0 || nocl == 0) {
    femint_finalize(&ctx);
    test_fresh_dmda_remove();
    tap_skip_all("CPU and OpenCL workers are needed");
  }
  femint_mesh_t mesh;
  femint_space_t s;
  femint_form_t form;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_PRISM, 4, 3, 2, 1, 1, 1, 0.2, 423, &mesh));
  const int nc = femint_mesh_num_cells(mesh);
  int *orders = malloc(sizeof *orders * nc);
  double *E = malloc(sizeof *E * nc), *nu = malloc(sizeof *nu * nc);
  for (int i = 0; i < nc; i++) orders[i] = 2, E[i] = 1 + 0.1 * (i % 5), nu[i] = 0.3;
  TAP_CALL(ctx, femint_space_create(ctx, mesh, FEMINT_H1, 3, orders, 0, &s));
  TAP_CALL(ctx, femint_form_create_elasticity(ctx, nc, E, nu, &form));

  /* the OpenCL workers alone, three times: their models calibrated, the CPU workers' not */
  const struct femint_operator_options ocl = {
      .assembly = FEMINT_ASSEMBLY_COO, .where = FEMINT_WHERE_OPENCL, .max_batch = 4};
  femint_matrix_t R;
  struct femint_stats st;
  double d;
  TAP_CALL(ctx, test_assemble(ctx, s, 1, &form, &ocl, &R, &st));
  assemble_n(ctx, s, form, FEMINT_WHERE_OPENCL, 2, R, &d, &st);
  tap_ok(st.tasks_cpu == 0 && st.tasks_opencl > 0 && st.on_device && d == 0,
         "%d cells of order 2 on the OpenCL workers alone, three times (%d batches, sums on the "
         "device): the same matrix (%.1e)",
         nc, st.tasks_opencl, d);

  assemble_n(ctx, s, form, FEMINT_WHERE_ANY, 2, R, &d, &st);
  tap_ok(st.tasks_cpu == 0 && st.tasks_opencl > 0 && st.calibrating == 0 && d < 1e-12,
         "every worker, the CPU workers' models uncalibrated, the device's calibrated: %d batches "
         "on CPU workers (0), %d on the device, %d placed uncalibrated, the matrix to %.1e",
         st.tasks_cpu, st.tasks_opencl, st.calibrating, d);

  setenv("STARPU_CALIBRATE", "1", 1);
  assemble_n(ctx, s, form, FEMINT_WHERE_ANY, 1, R, &d, &st);
  unsetenv("STARPU_CALIBRATE");
  tap_ok(st.tasks_cpu > 0 && d < 1e-12,
         "with STARPU_CALIBRATE = 1 dmda calibrates the CPU workers: %d batches there, the matrix "
         "to %.1e",
         st.tasks_cpu, d);

  femint_matrix_destroy(&R);
  femint_form_destroy(&form);
  femint_space_destroy(&s);
  femint_mesh_destroy(&mesh);
  free(orders);
  free(E);
  free(nu);
  femint_finalize(&ctx);
  test_fresh_dmda_remove();
  return tap_done();
}
