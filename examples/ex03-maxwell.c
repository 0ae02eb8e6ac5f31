/* Example: the matrices of Maxwell's equations on curved tetrahedra. A box of tetrahedra is
 * curved by a smooth map, the H(curl) space of order 2 loses the DOFs of its walls (perfect
 * electric conductors, n x E = 0), and one operator with two forms gives in one assembly the mass
 * matrix T (integral of N_i . eps N_j) and the curl-curl matrix S (integral of curl N_i . mu^-1
 * curl N_j). Gradients have no curl: S maps every discrete gradient to zero, T does not, which
 * the example checks on the gradient of random vertex values. */
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

/* ||A u|| / (||A|| ||u||), ||A|| the Frobenius norm. */
static double relative_image(femint_matrix_t A, const double *u, double *Au)
{
  int64_t n;
  const int64_t *rowptr;
  const double *values;
  double na = 0, nu = 0, nau = 0;
  femint_matrix_csr(A, &n, &rowptr, NULL, &values);
  femint_matrix_mult(A, u, Au);
  for (int64_t k = 0; k < rowptr[n]; k++) na += values[k] * values[k];
  for (int64_t i = 0; i < n; i++) nu += u[i] * u[i], nau += Au[i] * Au[i];
  return sqrt(nau / (na * nu));
}

int main(void)
{
  femint_context_t ctx;
  femint_mesh_t mesh;
  femint_space_t space;
  femint_form_t forms[2];
  femint_operator_t op;
  femint_matrix_t A[2];
  const double eps = 1, mu = 1;
  if (femint_init(NULL, &ctx) != 0) {
    fprintf(stderr, "%s\n", femint_init_error());
    return 1;
  }
  /* [0,1]^3 cut into 3x3x3 cubes of 6 tetrahedra each, then curved: every vertex and edge node
   * moves by 0.08 sin(pi x) sin(pi y) sin(pi z) (1, 1, 1), so the walls stay where they are. */
  CHECK(femint_mesh_create_box(ctx, FEMINT_TET, 3, 3, 3, 1.0, 1.0, 1.0, 0, 1, &mesh));
  CHECK(femint_mesh_warp(mesh, 0.08));
  /* Vector fields with continuous tangential traces, order 2 (20 functions per cell). */
  CHECK(femint_space_create(ctx, mesh, FEMINT_HCURL, 1, NULL, 2, &space));
  CHECK(femint_space_remove_boundary_dofs(space, 0, NULL)); /* every wall a conductor */
  CHECK(femint_form_create_hcurl_mass(ctx, 1, 0, &eps, &forms[0]));
  CHECK(femint_form_create_curlcurl(ctx, 1, 0, &mu, &forms[1]));
  CHECK(femint_operator_create(ctx, space, 2, forms, NULL, &op));
  CHECK(femint_operator_assemble(op, A, NULL)); /* A[0] = T, A[1] = S */
  const int64_t n = femint_space_num_dofs(space);
  const int nvert = femint_mesh_num_vertices(mesh);
  printf("%d tetrahedra, %lld DOFs\n", femint_mesh_num_cells(mesh), (long long)n);

  /* u = the coefficients of grad phi_h, phi_h the piecewise linear function of random vertex
   * values (0 on the walls, where the DOFs were removed). */
  double *phi = malloc(nvert * sizeof *phi), *u = malloc(n * sizeof *u);
  double *Au = malloc(n * sizeof *Au);
  srand(1);
  for (int v = 0; v < nvert; v++) phi[v] = (double)rand() / RAND_MAX - 0.5;
  CHECK(femint_space_gradient(space, phi, u));
  const double t = relative_image(A[0], u, Au), s = relative_image(A[1], u, Au);
  printf("gradient of random vertex values: ||T u|| / (||T|| ||u||) = %.2e, "
         "||S u|| / (||S|| ||u||) = %.2e\n", t, s);

  free(phi);
  free(u);
  free(Au);
  femint_matrix_destroy(&A[0]);
  femint_matrix_destroy(&A[1]);
  femint_operator_destroy(&op);
  femint_form_destroy(&forms[0]);
  femint_form_destroy(&forms[1]);
  femint_space_destroy(&space);
  femint_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  return s < 1e-12 && t > 1e-3 ? 0 : 1;
}
