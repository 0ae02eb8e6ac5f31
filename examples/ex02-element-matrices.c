/* Example: the hook for codes that assemble themselves (an MPI code, a solver with its own
 * format): element matrices one cell at a time with their local-to-global maps and orientation
 * signs, assembled here into y = K x by hand and compared with femint's own CSR assembly. */
#include <femint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                           \
  do {                                                                                        \
    if ((call) != 0) {                                                                        \
      fprintf(stderr, "%s\n", femint_last_error(ctx));                                        \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

int main(void)
{
  femint_context_t ctx;
  femint_mesh_t mesh;
  femint_space_t space;
  femint_form_t form;
  femint_matrix_t K;
  const double kappa = 2;
  if (femint_init(NULL, &ctx) != 0) {
    fprintf(stderr, "%s\n", femint_init_error());
    return 1;
  }
  CHECK(femint_mesh_create_box(ctx, 2, 2, 2, 1.0, 1.0, 1.0, 0.25, 3, &mesh));
  int ncell = femint_mesh_num_cells(mesh);
  int *orders = malloc(ncell * sizeof *orders);
  for (int c = 0; c < ncell; c++) orders[c] = 1 + c % 4; /* mixed orders: the minimum rule */
  CHECK(femint_space_create(ctx, mesh, 1, orders, 0, &space));
  CHECK(femint_form_create_laplace(ctx, 1, 1, &kappa, &form));
  CHECK(femint_assemble(ctx, space, form, NULL, &K, NULL));

  int64_t n = femint_space_num_dofs(space);
  double *x = malloc(n * sizeof *x), *y = calloc(n, sizeof *y), *z = malloc(n * sizeof *z);
  for (int64_t i = 0; i < n; i++) x[i] = sin(0.7 * i);
  /* the largest element matrix: order 4, 75 shape functions */
  double *Ae = malloc(75 * 75 * sizeof *Ae);
  int64_t dofs[75];
  int signs[75];
  for (int c = 0; c < ncell; c++) {
    int nl = orders[c] == 1 ? 6 : orders[c] == 2 ? 18 : orders[c] == 3 ? 40 : 75;
    CHECK(femint_element_matrix(ctx, space, form, c, Ae));
    CHECK(femint_space_cell_dofs(space, c, dofs, signs));
    for (int i = 0; i < nl; i++) {
      if (dofs[i] < 0) continue; /* a mode the minimum rule dropped */
      for (int j = 0; j < nl; j++)
        if (dofs[j] >= 0) y[dofs[i]] += signs[i] * signs[j] * Ae[i * nl + j] * x[dofs[j]];
    }
  }
  CHECK(femint_matrix_mult(K, x, z));
  double d = 0, s = 0;
  for (int64_t i = 0; i < n; i++) {
    d += (y[i] - z[i]) * (y[i] - z[i]);
    s += z[i] * z[i];
  }
  printf("%lld DOFs: hand assembly vs femint_assemble: relative difference %.2e\n", (long long)n,
         sqrt(d / s));
  free(orders);
  free(x);
  free(y);
  free(z);
  free(Ae);
  femint_matrix_destroy(&K);
  femint_form_destroy(&form);
  femint_space_destroy(&space);
  femint_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  return sqrt(d / s) < 1e-12 ? 0 : 1;
}
