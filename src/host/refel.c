/* The reference elements by shape and family behind one interface: the H1 prism
 * (refel_prism.c), quadrilateral (refel_quad.c), Lagrange hexahedron (refel_hex.c) and Lagrange
 * triangle and tetrahedron (refel_simplex.c), the H(curl) tetrahedron (refel_tet.c), and
 * femint_refel_info. */
#include "refel_hex.h"
#include "refel_quad.h"
#include "refel_simplex.h"

int refel_has_family(int shape, int family)
{
  if (shape < FEMINT_PRISM || shape > FEMINT_TRI) return 0;
  return family == FEMINT_H1 || (family == FEMINT_HCURL && shape == FEMINT_TET);
}

int refel_nodal(int shape, int family)
{
  return family == FEMINT_H1 && (shape == FEMINT_HEX || shape == FEMINT_TET || shape == FEMINT_TRI);
}

/* The Lagrange simplices of the H1 family. */
static int lagrange_simplex(int shape, int family)
{
  return family == FEMINT_H1 && (shape == FEMINT_TET || shape == FEMINT_TRI);
}

int refel_max_order(int shape, int family)
{
  if (!refel_has_family(shape, family)) return 0;
  if (lagrange_simplex(shape, family)) return LAGRANGE_MAX_ORDER;
  switch (shape) {
  case FEMINT_TET: return TET_MAX_ORDER;
  case FEMINT_HEX: return HEX_MAX_ORDER;
  default: return 7;
  }
}

int femint_refel_max_order(int shape, int family) { return refel_max_order(shape, family); }

static const char *shape_name(int shape)
{
  switch (shape) {
  case FEMINT_PRISM: return "prism";
  case FEMINT_QUAD: return "quadrilateral";
  case FEMINT_HEX: return "hexahedron";
  case FEMINT_TRI: return "triangle";
  default: return "tetrahedron";
  }
}

/* FEMINT_ENOTSUP unless the shape is known and has the family. */
static int check_pair(int shape, int family)
{
  FEMINT_CHECK(refel_has_family(shape, FEMINT_H1), NULL, FEMINT_ENOTSUP,
               "element shape %d is not supported (" SHAPE_LIST ")", shape);
  FEMINT_CHECK(family == FEMINT_H1 || family == FEMINT_HCURL, NULL, FEMINT_ENOTSUP,
               "space family %d is not supported (H1 %d, H(curl) %d)", family, FEMINT_H1,
               FEMINT_HCURL);
  FEMINT_CHECK(refel_has_family(shape, family), NULL, FEMINT_ENOTSUP,
               "the %s has no H(curl) space in femint (only H1; H(curl) is the tetrahedron's)",
               shape_name(shape));
  return 0;
}

int refel_create(int shape, int family, int order, struct refel **re)
{
  *re = NULL;
  FEMINT_CALL(check_pair(shape, family));
  if (lagrange_simplex(shape, family)) return refel_lagrange_create(shape, order, re);
  switch (shape) {
  case FEMINT_PRISM: return refel_prism_create(order, re);
  case FEMINT_QUAD: return refel_quad_create(order, re);
  case FEMINT_HEX: return refel_hex_create(order, re);
  default: return refel_tet_create(order, re);
  }
}

int refel_nsh(int shape, int family, int order)
{
  FEMINT_CALL(check_pair(shape, family));
  if (lagrange_simplex(shape, family)) return refel_lagrange_nsh(shape, order);
  switch (shape) {
  case FEMINT_PRISM: return refel_prism_nsh(order);
  case FEMINT_QUAD: return refel_quad_nsh(order);
  case FEMINT_HEX: return refel_hex_nsh(order);
  default: return refel_tet_nsh(order);
  }
}

void refel_eval(int shape, int family, int order, const double *xi, double *val)
{
  if (lagrange_simplex(shape, family)) refel_lagrange_eval(shape, order, xi, val);
  else if (shape == FEMINT_QUAD) refel_quad_eval(order, xi, val);
  else if (shape == FEMINT_HEX) refel_hex_eval(order, xi, val);
  else if (shape == FEMINT_TET) refel_tet_eval(order, xi, val, val + 3 * refel_tet_nsh(order));
  else refel_prism_eval(order, xi, val);
}

int refel_modes(const struct refel *re, int kind, int entity, int q)
{
  if (lagrange_simplex(re->shape, re->family))
    return refel_lagrange_entity_nmodes(re->shape, kind, q);
  switch (re->shape) {
  case FEMINT_QUAD: return refel_quad_entity_nmodes(kind, q);
  case FEMINT_HEX: return refel_hex_entity_nmodes(kind, q);
  case FEMINT_TET: return refel_tet_entity_nmodes(kind, q);
  default: return refel_entity_nmodes(kind, entity, q);
  }
}

int refel_rank(const struct refel *re, const struct refel_mode *m, int q)
{
  if (lagrange_simplex(re->shape, re->family)) return q == re->order ? m->rank : -1;
  switch (re->shape) {
  case FEMINT_QUAD: return refel_quad_mode_rank(m, q);
  case FEMINT_HEX: return refel_hex_mode_rank(m, q);
  case FEMINT_TET: return m->level <= q ? m->rank : -1;
  default: return refel_mode_rank(m, q);
  }
}

int femint_refel_info(int shape, int family, int order, struct femint_refel_info *info)
{
  FEMINT_CHECK(info, NULL, FEMINT_EINVAL, "femint_refel_info: info (output) is NULL");
  const int err = check_pair(shape, family);
  if (err) return femint_seterr(NULL, err, "femint_refel_info: %s", femint_thread_error());
  const int pmax = refel_max_order(shape, family);
  FEMINT_CHECK(order >= 1 && order <= pmax, NULL, FEMINT_EORDER,
               "femint_refel_info: order %d is outside 1..%d for the %s", order, pmax,
               shape_name(shape));
  if (shape == FEMINT_TET || shape == FEMINT_TRI) {
    struct refel *re = NULL;
    FEMINT_CALL(refel_create(shape, family, order, &re));
    *info = (struct femint_refel_info){re->nsh, re->nq, re->degree, 0, 0};
    refel_destroy(&re);
    return 0;
  }
  if (shape == FEMINT_QUAD) { /* seed 003: (p+1)^2 Gauss points, exact to 2p+1 per variable */
    *info = (struct femint_refel_info){refel_quad_nsh(order), (order + 1) * (order + 1),
                                       2 * order + 1, 0, order + 1};
    return 0;
  }
  if (shape == FEMINT_HEX) { /* refel_hex_create: (p+2)^3 Gauss points, 2p+3 per variable */
    const int n = order + 2;
    *info = (struct femint_refel_info){refel_hex_nsh(order), n * n * n, 2 * n - 1, 0, n};
    return 0;
  }
  int ntri;
  const double *xy, *w;
  FEMINT_CALL(quad_triangle(2 * order, &ntri, &xy, &w));
  *info = (struct femint_refel_info){refel_prism_nsh(order), ntri * (order + 1), 2 * order, ntri,
                                     order + 1};
  return 0;
}
