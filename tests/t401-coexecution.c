/* Test: with CPU and OpenCL workers, dmda gives integration tasks to both kinds, and the assembled
 * matrix equals the CPU-only and the OpenCL-only results (double to rounding, single to 1e-5). */
#include <stdlib.h>

#include "common.h"

static femint_matrix_t assemble(femint_context_t ctx, femint_space_t s, femint_form_t f, int where,
                                int precision, struct femint_stats *st)
{
  struct femint_operator_options opt = {.precision = precision, .where = where, .max_batch = 3};
  femint_matrix_t A;
  TAP_CALL(ctx, test_assemble(ctx, s, 1, &f, &opt, &A, st));
  return A;
}

int main(void)
{
  test_fresh_dmda("t401");
  femint_context_t ctx = test_init();
  int ncpu, nocl;
  femint_context_workers(ctx, &ncpu, &nocl, NULL);
  if (nocl == 0 || ncpu == 0) {
    femint_finalize(&ctx);
    tap_skip_all("needs CPU and OpenCL workers (STARPU_OPENCL_ON_CPUS=1 gives PoCL's CPU device)");
  }
  femint_mesh_t mesh;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_PRISM, 4, 3, 3, 1, 1, 1, 0.2, 7, &mesh));
  int nc = femint_mesh_num_cells(mesh);
  int *orders = malloc(nc * sizeof *orders);
  for (int c = 0; c < nc; c++) orders[c] = 1 + (c * 7 / 3) % 3;
  femint_space_t space;
  TAP_CALL(ctx, femint_space_create(ctx, mesh, FEMINT_H1, 3, orders, 0, &space));
  double E = 2, nu = 0.3;
  femint_form_t form;
  TAP_CALL(ctx, femint_form_create_elasticity(ctx, 1, &E, &nu, &form));

  for (int prec = 0; prec < 2; prec++) {
    struct femint_stats st;
    femint_matrix_t Aboth = NULL;
    int tasks[2] = {0, 0}, attempt;
    /* A worker that the system leaves unscheduled while the others take every task (a loaded
     * 2-core machine) gets none: the assembly is done again, up to 3 times. */
    for (attempt = 1; attempt <= 3 && !(tasks[0] > 0 && tasks[1] > 0); attempt++) {
      femint_matrix_destroy(&Aboth);
      Aboth = assemble(ctx, space, form, FEMINT_WHERE_ANY, prec, &st);
      tasks[0] = tasks[1] = 0;
      for (int w = 0; w < st.nworker; w++)
        tasks[st.worker_is_opencl[w]] += st.worker_tasks_integrate[w];
    }
    tap_ok(tasks[0] > 0 && tasks[1] > 0,
           "%s: dmda gave integration tasks to both kinds: %d on CPU, %d on OpenCL (%d batches, "
           "assembly %d)",
           prec ? "single" : "double", tasks[0], tasks[1], st.nbatch, attempt - 1);
    femint_matrix_t Acpu = assemble(ctx, space, form, FEMINT_WHERE_CPU, prec, &st);
    tasks[1] = 0;
    for (int w = 0; w < st.nworker; w++)
      tasks[1] += st.worker_is_opencl[w] * st.worker_tasks_integrate[w];
    tap_ok(tasks[1] == 0, "CPU-only run used no OpenCL worker");
    femint_matrix_t Aocl = assemble(ctx, space, form, FEMINT_WHERE_OPENCL, prec, &st);
    tasks[0] = 0;
    for (int w = 0; w < st.nworker; w++)
      tasks[0] += !st.worker_is_opencl[w] * st.worker_tasks_integrate[w];
    tap_ok(tasks[0] == 0, "OpenCL-only run used no CPU worker for integration");
    double tol = prec ? 1e-5 : 1e-12;
    double d1 = test_matrix_reldiff(Aboth, Acpu), d2 = test_matrix_reldiff(Aboth, Aocl);
    tap_ok(d1 < tol, "%s: both vs CPU only: %.2e < %.0e", prec ? "single" : "double", d1, tol);
    tap_ok(d2 < tol, "%s: both vs OpenCL only: %.2e < %.0e", prec ? "single" : "double", d2, tol);
    femint_matrix_destroy(&Aboth);
    femint_matrix_destroy(&Acpu);
    femint_matrix_destroy(&Aocl);
  }
  femint_form_destroy(&form);
  femint_space_destroy(&space);
  femint_mesh_destroy(&mesh);
  free(orders);
  femint_finalize(&ctx);
  test_fresh_dmda_remove();
  return tap_done();
}
