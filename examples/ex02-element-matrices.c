/* Example: the hook for codes that assemble themselves (an MPI code, a solver with its own
 * format). femint_operator_integrate hands the element matrices to a function of the caller,
 * batch by batch, with their local-to-global maps and orientation signs; here they are
 * assembled by hand into y = K x and compared with femint's own CSR assembly. The space has
 * mixed orders, so some modes are dropped by the minimum rule (their DOF is -1). */
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

struct product {
  const double *x;
  double *y;
};

/* Called on the thread that called femint_operator_integrate, once per batch of cells of one
 * order: y += sum over the cells of the batch of K_e x, signs applied. The options left the
 * element matrices in double precision and full storage (n * n, row-major). */
static int add_batch(const struct femint_element_batch *b, void *user)
{
  struct product *p = user;
  const int n = b->n;
  for (int k = 0; k < b->ncell; k++) {
    const double *Ae = (const double *)b->mats + (size_t)k * n * n;
    const int64_t *dofs = b->dofs + (size_t)k * n;
    const int *signs = b->signs + (size_t)k * n;
    for (int i = 0; i < n; i++) {
      if (dofs[i] < 0) continue; /* a mode the minimum rule dropped */
      for (int j = 0; j < n; j++)
        if (dofs[j] >= 0) p->y[dofs[i]] += signs[i] * signs[j] * Ae[i * n + j] * p->x[dofs[j]];
    }
  }
  return 0; /* non-zero would stop the integration */
}

int main(void)
{
  femint_context_t ctx;
  femint_mesh_t mesh;
  femint_space_t space;
  femint_form_t form;
  femint_operator_t op;
  femint_matrix_t K;
  const double kappa = 2;
  if (femint_init(NULL, &ctx) != 0) {
    fprintf(stderr, "%s\n", femint_init_error());
    return 1;
  }
  CHECK(femint_mesh_create_box(ctx, FEMINT_PRISM, 2, 2, 2, 1.0, 1.0, 1.0, 0.25, 3, &mesh));
  int ncell = femint_mesh_num_cells(mesh);
  int *orders = malloc(ncell * sizeof *orders);
  for (int c = 0; c < ncell; c++) orders[c] = 1 + c % 4; /* mixed orders: the minimum rule */
  CHECK(femint_space_create(ctx, mesh, FEMINT_H1, 1, orders, 0, &space));
  CHECK(femint_form_create_laplace(ctx, 1, 1, &kappa, &form));
  CHECK(femint_operator_create(ctx, space, 1, &form, NULL, &op));
  CHECK(femint_operator_assemble(op, &K, NULL));

  int64_t n = femint_space_num_dofs(space);
  double *x = malloc(n * sizeof *x), *y = calloc(n, sizeof *y), *z = malloc(n * sizeof *z);
  for (int64_t i = 0; i < n; i++) x[i] = sin(0.7 * i);
  struct product p = {x, y};
  CHECK(femint_operator_integrate(op, add_batch, &p, NULL));
  CHECK(femint_matrix_mult(K, x, z));
  double d = 0, s = 0;
  for (int64_t i = 0; i < n; i++) {
    d += (y[i] - z[i]) * (y[i] - z[i]);
    s += z[i] * z[i];
  }
  printf("%lld DOFs: hand assembly vs femint_operator_assemble: relative difference %.2e\n",
         (long long)n, sqrt(d / s));
  free(orders);
  free(x);
  free(y);
  free(z);
  femint_matrix_destroy(&K);
  femint_operator_destroy(&op);
  femint_form_destroy(&form);
  femint_space_destroy(&space);
  femint_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  return sqrt(d / s) < 1e-12 ? 0 : 1;
}
