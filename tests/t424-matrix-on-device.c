/* Test: matrices whose values stay on the device that summed them
 * (femint_operator_options.matrix_on_device). Prisms of orders 1 and 2 (elasticity and mass, 3
 * components), integrated and summed on the OpenCL device: three assemblies of one operator keep their
 * values there (femint_stats.values_on_device); y = A x on the device equals the host product of
 * the matrices assembled the usual way (1e-13), and the values read after it are those matrices'
 * exactly; a matrix outlives its operator, and another its context (its values brought back by
 * femint_finalize); the CPU workers alone keep them in main memory and multiply there; wrong
 * sizes, one vector as x and y and NULL are refused by name. Skipped without an OpenCL worker. */
#include <math.h>

#include "common.h"

static const int nf = 2;

/* The largest relative difference of A x (femint_matrix_mult_vector, on vectors of s) from R x
 * (femint_matrix_mult in main memory) for x random. */
static double product_diff(femint_context_t ctx, femint_space_t s, femint_matrix_t A,
                           femint_matrix_t R, uint64_t *rng)
{
  const int64_t n = femint_space_num_dofs(s);
  double *x = malloc(sizeof *x * n), *y = malloc(sizeof *y * n), *yr = malloc(sizeof *yr * n);
  for (int64_t i = 0; i < n; i++) x[i] = test_rand(rng) - 0.5;
  femint_vector_t vx, vy;
  TAP_CALL(ctx, femint_vector_create(s, &vx));
  TAP_CALL(ctx, femint_vector_create(s, &vy));
  TAP_CALL(ctx, femint_vector_set_values(vx, x));
  TAP_CALL(ctx, femint_matrix_mult_vector(A, vx, vy));
  TAP_CALL(ctx, femint_vector_get_values(vy, y));
  TAP_CALL(ctx, femint_matrix_mult(R, x, yr));
  const double d = tap_reldiff(y, yr, (size_t)n);
  femint_vector_destroy(&vx);
  femint_vector_destroy(&vy);
  free(x), free(y), free(yr);
  return d;
}

int main(void)
{
  femint_context_t ctx = test_init();
  int ncpu, nocl;
  femint_context_workers(ctx, &ncpu, &nocl, NULL);
  if (nocl == 0) {
    femint_finalize(&ctx);
    tap_skip_all("no OpenCL worker");
  }
  uint64_t rng = 424;
  femint_mesh_t mesh;
  femint_space_t s, s1;
  femint_form_t forms[2];
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_PRISM, 3, 3, 2, 1, 1, 1, 0.2, 424, &mesh));
  const int nc = femint_mesh_num_cells(mesh);
  int *orders = malloc(sizeof *orders * nc), *ones = malloc(sizeof *ones * nc);
  double *E = malloc(sizeof *E * nc), *nu = malloc(sizeof *nu * nc);
  for (int i = 0; i < nc; i++)
    orders[i] = 1 + i % 2, ones[i] = 1, E[i] = 1 + test_rand(&rng), nu[i] = 0.3;
  TAP_CALL(ctx, femint_space_create(ctx, mesh, FEMINT_H1, 3, orders, 0, &s));
  TAP_CALL(ctx, femint_space_create(ctx, mesh, FEMINT_H1, 3, ones, 0, &s1));
  const double rho = 1.5;
  TAP_CALL(ctx, femint_form_create_elasticity(ctx, nc, E, nu, &forms[0]));
  TAP_CALL(ctx, femint_form_create_mass(ctx, 3, 1, &rho, &forms[1]));

  /* the matrices assembled the usual way, their values in main memory; integrated on the OpenCL
   * workers alone, as the others, so that the sums are the same to the bit */
  struct femint_operator_options o = {
      .assembly = FEMINT_ASSEMBLY_COO, .max_batch = 4, .where = FEMINT_WHERE_OPENCL};
  femint_matrix_t R[2], A[2];
  struct femint_stats st;
  TAP_CALL(ctx, test_assemble(ctx, s, nf, forms, &o, R, &st));
  const int dev = st.on_device;

  o.matrix_on_device = 1;
  femint_operator_t op;
  TAP_CALL(ctx, femint_operator_create(ctx, s, nf, forms, &o, &op));
  double dp = 0, dv = 0, dh = 0;
  int kept = 1;
  for (int i = 0; i < 3; i++) {
    TAP_CALL(ctx, femint_operator_assemble(op, A, &st));
    kept &= st.values_on_device;
    for (int f = 0; f < nf; f++) {
      dp = fmax(dp, product_diff(ctx, s, A[f], R[f], &rng));
      dv = fmax(dv, test_matrix_reldiff(A[f], R[f])); /* the values come back */
      dh = fmax(dh, product_diff(ctx, s, A[f], R[f], &rng)); /* now in main memory */
      femint_matrix_destroy(&A[f]);
    }
  }
  tap_ok(dev && kept && dp < 1e-13 && dv == 0 && dh < 1e-13,
         "%d prisms of orders 1-2, 2 forms, 3 assemblies of one operator: the values stay on the "
         "device (%d), A x there equals R x to %.1e, the values read after are R's (%.1e), A x "
         "in main memory then %.1e",
         nc, kept, dp, dv, dh);

  /* a matrix outlives its operator; another outlives the context, its values never read */
  femint_matrix_t K[2], L[2];
  TAP_CALL(ctx, femint_operator_assemble(op, K, &st));
  TAP_CALL(ctx, femint_operator_assemble(op, L, &st));
  femint_operator_destroy(&op);
  const double dk = fmax(product_diff(ctx, s, K[0], R[0], &rng),
                         product_diff(ctx, s, K[1], R[1], &rng));
  tap_ok(dk < 1e-13, "the operator destroyed, its matrices still multiply on the device (%.1e)",
         dk);

  /* wrong arguments */
  femint_vector_t v, w, v1;
  TAP_CALL(ctx, femint_vector_create(s, &v));
  TAP_CALL(ctx, femint_vector_create(s, &w));
  TAP_CALL(ctx, femint_vector_create(s1, &v1));
  const int e1 = femint_matrix_mult_vector(K[0], v1, w);
  const int named = strstr(femint_last_error(ctx), "rows") != NULL;
  const int e2 = femint_matrix_mult_vector(K[0], v, v);
  const int e3 = femint_matrix_mult_vector(NULL, v, w);
  tap_ok(e1 == FEMINT_EINVAL && named && e2 == FEMINT_EINVAL && e3 == FEMINT_EINVAL,
         "a vector of another space (%s: %s), x and y one vector (%s), a NULL matrix (%s) are "
         "refused",
         femint_error_name(e1), named ? "sizes named" : "not named", femint_error_name(e2),
         femint_error_name(e3));
  femint_vector_destroy(&v);
  femint_vector_destroy(&w);
  femint_vector_destroy(&v1);
  for (int f = 0; f < nf; f++) femint_matrix_destroy(&K[f]);

  /* the CPU workers alone: the option leaves the values in main memory */
  if (ncpu > 0) {
    o.where = FEMINT_WHERE_CPU;
    TAP_CALL(ctx, test_assemble(ctx, s, nf, forms, &o, A, &st));
    const double dc = fmax(product_diff(ctx, s, A[0], R[0], &rng),
                           product_diff(ctx, s, A[1], R[1], &rng));
    tap_ok(!st.values_on_device && dc < 1e-13,
           "on the CPU workers alone the values stay in main memory (%d) and A x there is R x "
           "(%.1e)",
           st.values_on_device, dc);
    for (int f = 0; f < nf; f++) femint_matrix_destroy(&A[f]);
  }

  femint_form_destroy(&forms[0]);
  femint_form_destroy(&forms[1]);
  femint_space_destroy(&s);
  femint_space_destroy(&s1);
  femint_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  /* L's values came back when the context ended */
  double dl = 0;
  int have = 1;
  for (int f = 0; f < nf; f++) {
    const double *lv;
    have &= femint_matrix_csr(L[f], NULL, NULL, NULL, &lv) == 0 && lv;
    dl = fmax(dl, test_matrix_reldiff(L[f], R[f]));
    femint_matrix_destroy(&L[f]);
    femint_matrix_destroy(&R[f]);
  }
  tap_ok(have && dl == 0, "matrices left on the device outlive the context with their values "
                          "(%.1e)",
         dl);
  free(orders), free(ones), free(E), free(nu);
  return tap_done();
}
