/* Test: meshes and spaces are made with StarPU's idle workers paused (femint_host_quiet), and the
 * pauses pair up when several threads make them at once: four threads each make three boxes of
 * hexahedra with their spaces (boundary removed), while the main thread applies an operator
 * between them; afterwards the workers run tasks again (an apply completes, equal to the one
 * made before). An unpaired pause would hang: an alarm fails the test instead. */
#include <pthread.h>
#include <unistd.h>

#include "common.h"

struct maker {
  femint_context_t ctx;
  int made;
};

static void *make_spaces(void *arg)
{
  struct maker *mk = arg;
  for (int r = 0; r < 3; r++) {
    femint_mesh_t m;
    femint_space_t s;
    if (femint_mesh_create_box(mk->ctx, FEMINT_HEX, 6, 5, 4, 1, 1, 1, 0.2, 7 + r, &m)) continue;
    if (!femint_space_create(mk->ctx, m, FEMINT_H1, 1, NULL, 3, &s)) {
      mk->made += femint_space_remove_boundary_dofs(s, 0, NULL) == 0;
      femint_space_destroy(&s);
    }
    femint_mesh_destroy(&m);
  }
  return NULL;
}

int main(void)
{
  alarm(600);
  femint_context_t ctx = test_init();
  femint_mesh_t m;
  femint_space_t s;
  femint_form_t f;
  femint_operator_t op;
  const double one = 1;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_HEX, 4, 4, 4, 1, 1, 1, 0.2, 3, &m));
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, NULL, 2, &s));
  TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, 1, &one, &f));
  /* one kind of worker, so that every application gives the same bits */
  const struct femint_operator_options o = {.where = FEMINT_WHERE_CPU};
  TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &f, &o, &op));
  const int64_t n = femint_space_num_dofs(s);
  double *x = malloc(n * sizeof *x), *y0 = malloc(n * sizeof *y0), *y = malloc(n * sizeof *y);
  for (int64_t i = 0; i < n; i++) x[i] = (double)(i % 17) / 17 - 0.5;
  TAP_CALL(ctx, femint_operator_apply(op, 0, x, y0, NULL));
  struct maker mk[4];
  pthread_t th[4];
  for (int t = 0; t < 4; t++) {
    mk[t] = (struct maker){ctx, 0};
    pthread_create(&th[t], NULL, make_spaces, &mk[t]);
  }
  int applied = 0;
  for (int r = 0; r < 3; r++) applied += femint_operator_apply(op, 0, x, y, NULL) == 0;
  int made = 0;
  for (int t = 0; t < 4; t++) {
    pthread_join(th[t], NULL);
    made += mk[t].made;
  }
  tap_ok(made == 12 && applied == 3,
         "4 threads made 12 spaces while the main thread applied an operator 3 times");
  TAP_CALL(ctx, femint_operator_apply(op, 0, x, y, NULL));
  tap_ok(memcmp(y, y0, n * sizeof *y) == 0, "afterwards the workers run tasks: the same y again");
  free(x), free(y0), free(y);
  femint_operator_destroy(&op);
  femint_form_destroy(&f);
  femint_space_destroy(&s);
  femint_mesh_destroy(&m);
  femint_finalize(&ctx);
  return tap_done();
}
