/* The kernel variants of the volume integration: their names, and the choice of the fastest one
 * per (device, order, precision), measured once and kept next to StarPU's performance models. */
#include <string.h>

#include "scheduler.h"

static const char *const variant_names[] = {"auto", "reg_nojac", "reg_jac", "shm_nojac", "shm_jac",
                                            "gemm"};

const char *femint_variant_name(int variant)
{
  return variant >= 0 && variant <= FEMINT_VARIANT_GEMM ? variant_names[variant] : NULL;
}

int femint_variant_parse(const char *name)
{
  for (int v = 0; name && v <= FEMINT_VARIANT_GEMM; v++)
    if (!strcmp(name, variant_names[v])) return v;
  return -1;
}
