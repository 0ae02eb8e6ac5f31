/* Test: an OpenCL device that fails is left out and the work is done without it. With
 * FEMINT_FAULT_DEVICE=0 every launch on device 0 fails, as on a lost device (or one out of
 * memory): femint_operator_integrate warns, leaves the device out and still hands the element
 * matrix of every cell to the caller exactly once, with the values a CPU-only operator gives;
 * later operators run no task on that device; an operator restricted to OpenCL workers then has
 * none left and says so. Each verb's fallback in a fresh process: tests/t603-device-failure.sh. */
#include <math.h>
#include <unistd.h>

#include "common.h"

/* y = sum over the cells of A_e x, every cell counted in seen; the verb's status. */
static int integrate(femint_context_t ctx, femint_space_t space, int ncell, femint_form_t form,
                     int where, const double *x, double *y, int *seen, struct femint_stats *st)
{
  const int64_t n = femint_space_num_dofs(space);
  memset(y, 0, (size_t)n * sizeof *y);
  memset(seen, 0, (size_t)ncell * sizeof *seen);
  struct femint_operator_options o = {.where = where, .max_batch = 3};
  femint_operator_t op;
  int err = femint_operator_create(ctx, space, 1, &form, &o, &op);
  if (err) return err;
  struct test_sink s = {x, y, seen};
  err = femint_operator_integrate(op, test_sink_take, &s, st);
  femint_operator_destroy(&op);
  return err;
}

static double max_diff(int64_t n, const double *a, const double *b)
{
  double d = 0, m = 0;
  for (int64_t i = 0; i < n; i++) {
    d = fmax(d, fabs(a[i] - b[i]));
    m = fmax(m, fabs(b[i]));
  }
  return m > 0 ? d / m : d;
}

/* The text of a file (at most len - 1 bytes). */
static void slurp(const char *path, char *buf, size_t len)
{
  FILE *f = fopen(path, "r");
  size_t k = f ? fread(buf, 1, len - 1, f) : 0;
  buf[k] = 0;
  if (f) fclose(f);
}

int main(void)
{
  setenv("FEMINT_FAULT_DEVICE", "0", 1);
  /* any idle worker takes a task: the device gets some before it fails */
  setenv("STARPU_SCHED", "eager", 1);
  femint_context_t ctx = test_init();
  int ncpu = 0, nopencl = 0;
  femint_context_workers(ctx, &ncpu, &nopencl, NULL);
  if (nopencl == 0 || ncpu == 0) {
    femint_finalize(&ctx);
    tap_skip_all("needs a CPU worker and an OpenCL worker");
  }
  femint_mesh_t mesh;
  femint_space_t space;
  femint_form_t form;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_PRISM, 4, 4, 3, 1, 1, 1, 0.2, 5, &mesh));
  TAP_CALL(ctx, femint_space_create(ctx, mesh, FEMINT_H1, 3, NULL, 2, &space));
  const double E = 1, nu = 0.3;
  TAP_CALL(ctx, femint_form_create_elasticity(ctx, 1, &E, &nu, &form));
  const int64_t n = femint_space_num_dofs(space);
  const int ncell = femint_mesh_num_cells(mesh);
  double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
  double *yref = malloc((size_t)n * sizeof *yref);
  int *seen = malloc((size_t)ncell * sizeof *seen);
  for (int64_t i = 0; i < n; i++) x[i] = sin(0.37 * (double)i) + 0.1;
  struct femint_stats st;
  TAP_CALL(ctx, integrate(ctx, space, ncell, form, FEMINT_WHERE_CPU, x, yref, seen, &st));

  /* the failing device: stderr to a file, to read the warnings. Eager gives the device a task
   * only when it is idle first; a call in which it took none is made again (at most 8 times). */
  char text[4096] = "";
  int err = 0;
  for (int k = 0; k < 8 && !err && !strstr(text, "OpenCL device 0"); k++) {
    char log[] = "/tmp/femint-t417-XXXXXX";
    const int fd = mkstemp(log), saved = dup(STDERR_FILENO);
    fflush(stderr);
    dup2(fd, STDERR_FILENO);
    err = integrate(ctx, space, ncell, form, FEMINT_WHERE_ANY, x, y, seen, &st);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    close(fd);
    slurp(log, text, sizeof text);
    unlink(log);
  }
  tap_ok(err == 0, "femint_operator_integrate completes on the workers left (%s)",
         err ? femint_last_error(ctx) : "0");
  int once = 1;
  for (int c = 0; c < ncell; c++) once &= seen[c] == 1;
  tap_ok(once, "every cell's element matrix was handed to the caller exactly once");
  const double d = max_diff(n, y, yref);
  tap_ok(d < 1e-12, "the element matrices are the CPU-only operator's (sum of A_e x: %.2e)", d);
  tap_ok(strstr(text, "OpenCL device 0") && strstr(text, "failed") &&
             strstr(text, "the work is done again"),
         "a warning names the failed device and says the work is done again");
  if (!strstr(text, "OpenCL device 0")) tap_diag("stderr: %s", text);

  /* later operators: no task on the device */
  TAP_CALL(ctx, integrate(ctx, space, ncell, form, FEMINT_WHERE_ANY, x, y, seen, &st));
  int on_device = 0;
  for (int w = 0; w < st.nworker; w++)
    if (st.worker_is_opencl[w]) on_device += st.worker_tasks_integrate[w];
  tap_ok(on_device == 0 && st.tasks_cpu > 0,
         "a later operator runs no task on the failed device (%d there, %d on CPU workers)",
         on_device, st.tasks_cpu);
  tap_ok(max_diff(n, y, yref) < 1e-12, "and gives the same element matrices");
  int nfailed = 0;
  for (int w = 0; w < ncpu + nopencl; w++) {
    struct femint_worker_binding b;
    TAP_CALL(ctx, femint_context_worker_binding(ctx, w, &b));
    nfailed += b.failed;
  }
  tap_ok(nfailed == 1, "femint_context_worker_binding marks the device's worker failed (%d)",
         nfailed);
  /* OpenCL workers alone: none left with one device; the second device with two */
  const int e2 = integrate(ctx, space, ncell, form, FEMINT_WHERE_OPENCL, x, y, seen, &st);
  if (nopencl == 1)
    tap_ok(e2 != 0, "an operator of OpenCL workers alone is then refused: %s",
           e2 ? femint_last_error(ctx) : "no error");
  else
    tap_ok(e2 == 0 && max_diff(n, y, yref) < 1e-12,
           "an operator of OpenCL workers alone runs on the other device (%s)",
           e2 ? femint_last_error(ctx) : "0");

  free(x);
  free(y);
  free(yref);
  free(seen);
  femint_form_destroy(&form);
  femint_space_destroy(&space);
  femint_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  return tap_done();
}
