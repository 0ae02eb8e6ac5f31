/* Test: error codes have names and texts, and bad arguments give clear errors without a crash. */
#include <string.h>

#include "femint.h"
#include "tap.h"

int main(void)
{
  tap_ok(!strcmp(femint_error_name(FEMINT_EJACOBIAN), "FEMINT_EJACOBIAN"), "error name");
  tap_ok(!strcmp(femint_strerror(FEMINT_EORDER), "unsupported polynomial order"), "error text");
  tap_ok(!strcmp(femint_error_name(12345), "FEMINT_EUNKNOWN"), "unknown code has a name");
  struct femint_refel_info info;
  tap_ok(femint_refel_info(FEMINT_PRISM, 0, &info) == FEMINT_EORDER, "order 0 is refused");
  tap_ok(strstr(femint_last_error(NULL), "order 0") != NULL, "the message names the order: %s",
         femint_last_error(NULL));
  tap_ok(femint_refel_info(FEMINT_PRISM, 8, &info) == FEMINT_EORDER, "order 8 is refused");
  tap_ok(femint_refel_info(99, 2, &info) == FEMINT_ENOTSUP, "unknown shape is refused");
  femint_mesh_t mesh = (femint_mesh_t)0x1;
  tap_ok(femint_mesh_create_box(NULL, 0, 1, 1, 1, 1, 1, 0, 0, &mesh) == FEMINT_EINVAL &&
             mesh == NULL,
         "a box with nx = 0 is refused and the output is NULL");
  tap_ok(strstr(femint_last_error(NULL), "nx") != NULL, "the message names nx: %s",
         femint_last_error(NULL));
  femint_form_t form;
  double E = -1, nu = 0.3;
  tap_ok(femint_form_create_elasticity(NULL, 1, &E, &nu, &form) == FEMINT_EINVAL,
         "a negative Young's modulus is refused");
  tap_ok(femint_mesh_destroy(NULL) == 0 && femint_space_destroy(NULL) == 0 &&
             femint_form_destroy(NULL) == 0 && femint_matrix_destroy(NULL) == 0 &&
             femint_finalize(NULL) == 0,
         "destroying NULL is harmless");
  return tap_done();
}
