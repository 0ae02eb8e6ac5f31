/* Test: error codes have names and texts, and bad arguments give clear errors without a crash. */
#include <math.h>
#include <string.h>

#include "femint.h"
#include "tap.h"

int main(void)
{
  tap_ok(!strcmp(femint_error_name(FEMINT_EJACOBIAN), "FEMINT_EJACOBIAN"), "error name");
  tap_ok(!strcmp(femint_strerror(FEMINT_EORDER), "unsupported polynomial order"), "error text");
  tap_ok(!strcmp(femint_error_name(12345), "FEMINT_EUNKNOWN"), "unknown code has a name");
  /* Every code of the list has its own name and a text. */
  static const struct {
    int code;
    const char *name;
  } codes[] = {{FEMINT_OK, "FEMINT_OK"},           {FEMINT_EINVAL, "FEMINT_EINVAL"},
               {FEMINT_ENOMEM, "FEMINT_ENOMEM"},   {FEMINT_EMESH, "FEMINT_EMESH"},
               {FEMINT_EJACOBIAN, "FEMINT_EJACOBIAN"}, {FEMINT_EORDER, "FEMINT_EORDER"},
               {FEMINT_ERUNTIME, "FEMINT_ERUNTIME"}, {FEMINT_EOPENCL, "FEMINT_EOPENCL"},
               {FEMINT_EIO, "FEMINT_EIO"},         {FEMINT_ENODEV, "FEMINT_ENODEV"},
               {FEMINT_ESTATE, "FEMINT_ESTATE"},   {FEMINT_ENOTSUP, "FEMINT_ENOTSUP"},
               {FEMINT_ECALLBACK, "FEMINT_ECALLBACK"}, {FEMINT_ESOLVE, "FEMINT_ESOLVE"},
               {FEMINT_EBUILD, "FEMINT_EBUILD"}};
  int bad = 0;
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
    bad += strcmp(femint_error_name(codes[i].code), codes[i].name) != 0 ||
           !strcmp(femint_strerror(codes[i].code), "unknown error");
  tap_ok(bad == 0 && FEMINT_EBUILD == -14, "the 15 codes have their names and texts (%d wrong)",
         bad);
  struct femint_refel_info info;
  tap_ok(femint_refel_info(FEMINT_PRISM, FEMINT_H1, 0, &info) == FEMINT_EORDER,
         "order 0 is refused");
  tap_ok(strstr(femint_last_error(NULL), "order 0") != NULL, "the message names the order: %s",
         femint_last_error(NULL));
  tap_ok(femint_refel_info(FEMINT_PRISM, FEMINT_H1, 8, &info) == FEMINT_EORDER,
         "order 8 is refused");
  tap_ok(femint_refel_info(99, FEMINT_H1, 2, &info) == FEMINT_ENOTSUP, "unknown shape is refused");
  /* Families: every shape has H1, the tetrahedron also H(curl); both stop at order 3 there. */
  int err = femint_refel_info(FEMINT_PRISM, FEMINT_HCURL, 1, &info);
  tap_ok(err == FEMINT_ENOTSUP && strstr(femint_last_error(NULL), "prism") &&
             strstr(femint_last_error(NULL), "H(curl)"),
         "an H(curl) prism is refused, naming the shape and family: %s, \"%s\"",
         femint_error_name(err), femint_last_error(NULL));
  err = femint_refel_info(FEMINT_TET, FEMINT_H1, 4, &info);
  tap_ok(err == FEMINT_EORDER && strstr(femint_last_error(NULL), "tetrahedron") &&
             femint_refel_info(FEMINT_TET, FEMINT_H1, 3, &info) == 0 && info.nsh == 20,
         "the H1 tetrahedron has orders 1..3 (20 functions at 3): %s, \"%s\"",
         femint_error_name(err), femint_last_error(NULL));
  err = femint_refel_info(FEMINT_QUAD, 7, 1, &info);
  tap_ok(err == FEMINT_ENOTSUP && strstr(femint_last_error(NULL), "family 7"),
         "an unknown family is refused: %s, \"%s\"", femint_error_name(err),
         femint_last_error(NULL));
  err = femint_refel_info(FEMINT_TET, FEMINT_HCURL, 4, &info);
  tap_ok(err == FEMINT_EORDER && strstr(femint_last_error(NULL), "order 4"),
         "H(curl) order 4 is refused: %s, \"%s\"", femint_error_name(err),
         femint_last_error(NULL));
  err = femint_refel_info(FEMINT_TET, FEMINT_HCURL, 3, &info);
  tap_ok(err == 0 && info.nsh == 45, "the tetrahedron of order 3 has 45 functions (%d)",
         err ? -1 : info.nsh);
  tap_ok(femint_refel_info(FEMINT_QUAD, FEMINT_H1, 2, NULL) == FEMINT_EINVAL,
         "a NULL info is refused");
  femint_mesh_t mesh = (femint_mesh_t)0x1;
  tap_ok(femint_mesh_create_box(NULL, FEMINT_PRISM, 0, 1, 1, 1, 1, 1, 0, 0, &mesh) ==
                 FEMINT_EINVAL &&
             mesh == NULL,
         "a box with nx = 0 is refused and the output is NULL");
  tap_ok(strstr(femint_last_error(NULL), "nx") != NULL, "the message names nx: %s",
         femint_last_error(NULL));
  mesh = (femint_mesh_t)0x1;
  err = femint_mesh_create_box(NULL, 0, 1, 1, 1, 1, 1, 1, 0, 0, &mesh);
  tap_ok(err == FEMINT_EINVAL && mesh == NULL && strstr(femint_last_error(NULL), "shape 0"),
         "a box of an unknown shape is refused: %s, \"%s\"", femint_error_name(err),
         femint_last_error(NULL));
  femint_form_t form;
  double E = -1, nu = 0.3;
  tap_ok(femint_form_create_elasticity(NULL, 1, &E, &nu, &form) == FEMINT_EINVAL,
         "a negative Young's modulus is refused");
  femint_operator_t op = NULL;
  tap_ok(femint_mesh_destroy(NULL) == 0 && femint_space_destroy(NULL) == 0 &&
             femint_form_destroy(NULL) == 0 && femint_matrix_destroy(NULL) == 0 &&
             femint_operator_destroy(&op) == 0 && femint_operator_destroy(NULL) == 0 &&
             femint_finalize(NULL) == 0,
         "destroying NULL is harmless");
  /* Coefficients that are not finite are refused, naming the cell. */
  femint_form_t f = NULL;
  const double inf = INFINITY, one = 1, nan_c[16] = {NAN};
  int e1 = femint_form_create_elasticity(NULL, 1, &inf, &nu, &f);
  tap_ok(e1 == FEMINT_EINVAL && !f && strstr(femint_last_error(NULL), "finite"),
         "an infinite Young's modulus is refused: \"%s\"", femint_last_error(NULL));
  int e2 = femint_form_create_laplace(NULL, 1, 1, &inf, &f);
  int e3 = femint_form_create_generic(NULL, 1, 1, nan_c, &f);
  tap_ok(e2 == FEMINT_EINVAL && e3 == FEMINT_EINVAL && !f,
         "an infinite kappa and a NaN generic coefficient are refused: \"%s\"",
         femint_last_error(NULL));
  TAP_CALL(NULL, femint_form_create_mass(NULL, 1, 1, &one, &f));
  femint_form_destroy(&f);
  return tap_done();
}
