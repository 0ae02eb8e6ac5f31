/* The annulus sector of curved quadrilaterals (2D, seed 003), whose edge nodes lie on the exact
 * circles. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"

/* ---- the annulus sector ---- */

struct annulus {
  double r0, r1, angle;
};

static int annulus_tag(int nv, const double *X, void *user)
{
  const struct annulus *a = user;
  const double xc = (X[0] + X[3]) / 2, yc = (X[1] + X[4]) / 2;
  const double r = hypot(X[0], X[1]), rb = hypot(X[3], X[4]), tol = 1e-9 * a->r1;
  (void)nv;
  if (fabs(r - rb) < tol) return fabs(r - a->r0) < tol ? 1 : 2;
  if (fabs(yc) < tol && xc > 0) return 3;
  return 4;
}

int femint_mesh_create_annulus(femint_context_t ctx, int nr, int nt, double r0, double r1,
                               double angle, femint_mesh_t *mesh)
{
  FEMINT_CHECK(mesh, ctx, FEMINT_EINVAL, "femint_mesh_create_annulus: mesh (output) is NULL");
  *mesh = NULL;
  FEMINT_CHECK(nr >= 1 && nt >= 1, ctx, FEMINT_EINVAL,
               "femint_mesh_create_annulus: %d x %d cells (both must be >= 1)", nr, nt);
  FEMINT_CHECK(r0 > 0 && r1 > r0 && isfinite(r1), ctx, FEMINT_EINVAL,
               "femint_mesh_create_annulus: radii %g and %g (need 0 < r0 < r1)", r0, r1);
  FEMINT_CHECK(angle > 0 && angle < 2 * M_PI, ctx, FEMINT_EINVAL,
               "femint_mesh_create_annulus: angle %g (must be in (0, 2 pi))", angle);
  FEMINT_CHECK((double)(nr + 1.0) * (nt + 1.0) < INT_MAX && (double)nr * nt <= INT_MAX / 16,
               ctx, FEMINT_EINVAL, "femint_mesh_create_annulus: %d x %d cells is too many", nr,
               nt);
  const int nvert = (nr + 1) * (nt + 1), ncell = nr * nt;
  double *x = malloc(2 * (size_t)nvert * sizeof *x);
  double *mid = malloc(8 * (size_t)ncell * sizeof *mid);
  int *cells = malloc(4 * (size_t)ncell * sizeof *cells), ierr = 0;
  if (!x || !mid || !cells) {
    ierr = femint_seterr(ctx, FEMINT_ENOMEM, "out of memory creating an annulus mesh");
    goto done;
  }
  /* Vertex (i, j) at radius r_i and angle t_j; cell (i, j) runs outward in r and
   * counter-clockwise in t, so (r, t) -> (x, y) keeps the orientation. */
  for (int j = 0, v = 0; j <= nt; j++)
    for (int i = 0; i <= nr; i++, v++) {
      const double r = r0 + (r1 - r0) * i / nr, t = angle * j / nt;
      x[2 * v] = r * cos(t);
      x[2 * v + 1] = r * sin(t);
    }
  for (int j = 0, c = 0; j < nt; j++)
    for (int i = 0; i < nr; i++, c++) {
      const int v00 = j * (nr + 1) + i;
      const int q[4] = {v00, v00 + 1, v00 + nr + 2, v00 + nr + 1};
      memcpy(&cells[4 * c], q, sizeof q);
      /* Edge midpoints: radial edges straight, circumferential ones on the circle. */
      const double ra = r0 + (r1 - r0) * i / nr, rb = r0 + (r1 - r0) * (i + 1) / nr;
      const double ta = angle * j / nt, tb = angle * (j + 1) / nt;
      const double rm = (ra + rb) / 2, tm = (ta + tb) / 2;
      const double m[8] = {rm * cos(ta), rm * sin(ta), rb * cos(tm), rb * sin(tm),
                           rm * cos(tb), rm * sin(tb), ra * cos(tm), ra * sin(tm)};
      memcpy(&mid[8 * (size_t)c], m, sizeof m);
    }
  struct annulus a = {r0, r1, angle};
  if ((ierr = mesh_create(ctx, "femint_mesh_create_annulus", &topo_quad, nvert, x, NULL, ncell,
                          cells, mid, NULL, mesh)))
    goto done;
  mesh_tag_boundary(*mesh, annulus_tag, &a);
done:
  free(x);
  free(mid);
  free(cells);
  return ierr;
}
