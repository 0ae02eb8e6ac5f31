/* Example: the first steps with femint. Start the runtime, make a mesh, a space and a form, put
 * them together in an operator and assemble its matrix on every CPU and OpenCL worker. The
 * matrix is 3D linear elasticity on a perturbed box of order-3 prisms; a rigid translation lies
 * in its null space, which the example checks. */
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
  femint_operator_t op;
  femint_matrix_t A;
  const double young = 1, poisson = 0.3;
  int64_t n;
  const int64_t *rowptr, *colind;
  const double *values;

  if (femint_init(NULL, &ctx) != 0) { /* starts StarPU with default options */
    fprintf(stderr, "%s\n", femint_init_error());
    return 1;
  }
  /* [0,1]^3 cut into 3x3x3 hexahedra, 2 prisms each, interior vertices moved by 0.2 h. */
  CHECK(femint_mesh_create_box(ctx, FEMINT_PRISM, 3, 3, 3, 1.0, 1.0, 1.0, 0.2, 1, &mesh));
  /* Continuous fields (H1) of 3 components, order 3 on every cell (or one order per cell). */
  CHECK(femint_space_create(ctx, mesh, FEMINT_H1, 3, NULL, 3, &space));
  CHECK(femint_form_create_elasticity(ctx, 1, &young, &poisson, &form));
  /* The operator plans the work once; NULL options: double precision, every worker, batch
   * sizes and assembly chosen by femint. */
  CHECK(femint_operator_create(ctx, space, 1, &form, NULL, &op));
  CHECK(femint_operator_assemble(op, &A, NULL));
  CHECK(femint_matrix_csr(A, &n, &rowptr, &colind, &values));
  printf("%lld rows, %lld non-zeros\n", (long long)n, (long long)rowptr[n]);

  /* A translation along x: K r = 0. */
  double a[3] = {1, 0, 0}, b[9] = {0};
  double *r = malloc(n * sizeof *r), *y = malloc(n * sizeof *y);
  CHECK(femint_space_interpolate_linear(space, a, b, r));
  CHECK(femint_matrix_mult(A, r, y));
  double ny = 0, nr = 0, nk = 0;
  for (int64_t i = 0; i < n; i++) {
    ny += y[i] * y[i];
    nr += r[i] * r[i];
  }
  for (int64_t k = 0; k < rowptr[n]; k++) nk += values[k] * values[k];
  double rel = sqrt(ny / (nk * nr));
  printf("||K r|| / (||K|| ||r||) = %.2e for a rigid translation\n", rel);

  free(r);
  free(y);
  femint_matrix_destroy(&A);
  femint_operator_destroy(&op);
  femint_form_destroy(&form);
  femint_space_destroy(&space);
  femint_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  return rel < 1e-12 ? 0 : 1;
}
