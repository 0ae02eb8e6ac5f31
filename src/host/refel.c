/* The reference elements by shape: the prism (refel_prism.c) and the quadrilateral
 * (refel_quad.c) behind one interface for the code that serves both. */
#include "refel_quad.h"

int refel_create(int shape, int order, struct refel **re)
{
  *re = NULL;
  switch (shape) {
  case FEMINT_PRISM: return refel_prism_create(order, re);
  case FEMINT_QUAD: return refel_quad_create(order, re);
  default: return femint_seterr(NULL, FEMINT_EINVAL, "unknown element shape %d", shape);
  }
}

int refel_nsh(int shape, int order)
{
  switch (shape) {
  case FEMINT_PRISM: return refel_prism_nsh(order);
  case FEMINT_QUAD: return refel_quad_nsh(order);
  default: return femint_seterr(NULL, FEMINT_EINVAL, "unknown element shape %d", shape);
  }
}

void refel_eval(int shape, int order, const double *xi, double *val)
{
  if (shape == FEMINT_QUAD) refel_quad_eval(order, xi, val);
  else refel_prism_eval(order, xi, val);
}
