/* Test: the CPU workers' residual loop (kernels/residual_cpu.c, compiled at run time with the
 * caller's source) reads a curved cell's geometry within its own points. The geometry of a run of
 * cells is read where it is kept, so that what follows the last cells' values belongs to someone
 * else: here NaN. A form whose coefficients depend on x (the only values past which a read could
 * stray) gives finite residuals, the same bits as with zeros there, for a run of one whole block
 * and one with a partial last block, in 2D and 3D. */
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "host/pointwise.h"
#include "scheduler/operator.h"


#define TAIL 256

static double urand(unsigned *st) { return (*st = *st * 1103515245u + 12345u) / 4294967296.0; }

/* ncell curved cells of nsh functions and nq points in dim: the residual with tail values past
 * the geometry into ev. */
static void run(pw_cells_fn cells, int dim, int ncell, int nsh, int nq, double tail, double *ev)
{
  const int ng = pw_geo_size(dim), L = PW_LANES;
  const size_t ngeo = pw_padded((size_t)ncell, L) * (size_t)nq * ng;
  double *phi = malloc((size_t)nq * (dim + 1) * nsh * sizeof *phi), *xq = malloc(nq * dim * sizeof *xq);
  double *wq = malloc(nq * sizeof *wq), *u = malloc((size_t)ncell * nsh * sizeof *u);
  double *geo = malloc((ngeo + TAIL) * sizeof *geo);
  long long *dofs = malloc((size_t)ncell * nsh * sizeof *dofs);
  unsigned st = 7;
  for (int i = 0; i < nq * (dim + 1) * nsh; i++) phi[i] = urand(&st) - 0.5;
  for (int i = 0; i < nq * dim; i++) xq[i] = urand(&st) * 0.3;
  for (int i = 0; i < nq; i++) wq[i] = 0.1 + urand(&st);
  for (int i = 0; i < ncell * nsh; i++) {
    u[i] = urand(&st) - 0.5;
    dofs[i] = i;
  }
  for (size_t i = 0; i < ngeo; i++) geo[i] = 0.5 + urand(&st);
  for (int i = 0; i < TAIL; i++) geo[ngeo + i] = tail;
  const double k[1] = {0};
  TAP_CALL(NULL, cells(ncell, nsh, nq, phi, xq, wq, 0, u, dofs, geo, NULL, L, 0, NULL, NULL, 0, k,
                       ev) == 0 ? 0 : FEMINT_ENOMEM);
  free(phi), free(xq), free(wq), free(u), free(geo), free(dofs);
}

int main(void)
{
  test_private_cache();
  femint_context_t ctx = test_init();
  for (int dim = 2; dim <= 3; dim++) {
    struct pointwise pw = {.source = (char *)test_pointwise_with_x(), .name = "with_x", .ncomp = 1};
    void *dl;
    femint_pointwise_fn f0, f1, g[4];
    pw_cells_fn cells;
    TAP_CALL(ctx, pw_compile_cpu(ctx, &pw, dim, &dl, &f0, &f1, g, &cells));
    const int nsh = dim == 2 ? 6 : 10, nq = dim == 2 ? 6 : 11;
    for (int ncell = PW_LANES; ncell <= 2 * PW_LANES - 3; ncell += PW_LANES - 3) {
      double *a = malloc((size_t)ncell * nsh * sizeof *a), *b = malloc((size_t)ncell * nsh * sizeof *b);
      run(cells, dim, ncell, nsh, nq, NAN, a);
      run(cells, dim, ncell, nsh, nq, 0, b);
      int finite = 1;
      for (int i = 0; i < ncell * nsh; i++) finite &= isfinite(a[i]);
      tap_ok(finite && memcmp(a, b, (size_t)ncell * nsh * sizeof *a) == 0,
             "%dD, %d curved cells of order 2: the residual with NaN past the geometry is finite, "
             "the bits of zeros there",
             dim, ncell);
      free(a);
      free(b);
    }
    dlclose(dl);
  }
  femint_finalize(&ctx);
  return tap_done();
}
