/* Test: DOF maps use every DOF, are conforming for mixed orders and reproduce linear fields. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "femint.h"
#include "host/host.h"
#include "tap.h"

static uint64_t rng_state = 12345;

/* splitmix64, uniform in [0, 1). */
static double rnd(void)
{
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

static const double ref_vertex[6][3] = {{0, 0, -1}, {1, 0, -1}, {0, 1, -1},
                                        {0, 0, 1},  {1, 0, 1},  {0, 1, 1}};

/* The scalar modes of a box of order p by entities. */
static int64_t box_modes(int nx, int ny, int nz, int p)
{
  int64_t V = (int64_t)(nx + 1) * (ny + 1) * (nz + 1), C = 2LL * nx * ny * nz;
  int64_t E = (int64_t)(nz + 1) * (nx * (ny + 1) + (nx + 1) * ny + nx * ny) +
              (int64_t)(nx + 1) * (ny + 1) * nz;
  int64_t Ft = 2LL * nx * ny * (nz + 1);
  int64_t Fq = (int64_t)((nx + 1) * ny + nx * (ny + 1) + nx * ny) * nz;
  return V + E * (p - 1) + Ft * (p - 1) * (p - 2) / 2 + Fq * (p - 1) * (p - 1) +
         C * (p - 1) * (p - 1) * (p - 2) / 2;
}

/* Every DOF in [0, ndof) used by some cell, and the component layout g * ncomp + c. */
static int check_dofs_used(femint_space_t s, int64_t ndof, int *out_of_range, int *layout)
{
  femint_mesh_t m = s->mesh;
  int nc = femint_space_num_components(s), unused = 0;
  char *used = calloc((size_t)ndof, 1);
  int64_t dofs[288 * 5];
  *out_of_range = *layout = 0;
  for (int c = 0; c < m->ncell; c++) {
    int p = femint_space_cell_order(s, c), nsh = (p + 1) * (p + 1) * (p + 2) / 2;
    femint_space_cell_dofs(s, c, dofs, NULL);
    for (int i = 0; i < nsh; i++)
      for (int k = 0; k < nc; k++) {
        int64_t g = dofs[i * nc + k];
        if (g < 0) {
          *layout += dofs[i * nc] >= 0;
          continue;
        }
        if (g >= ndof) {
          (*out_of_range)++;
          continue;
        }
        *layout += g % nc != k || g - k != dofs[i * nc];
        used[g] = 1;
      }
  }
  for (int64_t g = 0; g < ndof; g++) unused += !used[g];
  free(used);
  return unused;
}

/* Evaluate a random FE function from both cells of every interior face at npt points of the face
 * and return the largest difference relative to 1 + |value|; also the largest distance between
 * the physical points the two cells give. */
static double conformity(femint_space_t s, const double *u, int npt, double *xdiff, int *nface)
{
  femint_mesh_t m = s->mesh;
  int nc = femint_space_num_components(s);
  double worst = 0;
  *xdiff = 0;
  *nface = 0;
  for (int g = 0; g < m->nface; g++) {
    int cell[2] = {m->face_cell[2 * g], m->face_cell[2 * g + 1]}, lf[2];
    if (cell[1] < 0) continue;
    (*nface)++;
    for (int side = 0; side < 2; side++)
      for (lf[side] = 0; m->cell_face[5 * cell[side] + lf[side]] != g; lf[side]++) {
      }
    /* The face's vertices as cell 0 lists them, and where each sits in both cells. */
    int nfv = lf[0] < 2 ? 3 : 4, gv[4], loc[2][4];
    for (int j = 0; j < nfv; j++) gv[j] = m->cells[6 * cell[0] + prism_face_vert[lf[0]][j]];
    for (int side = 0; side < 2; side++)
      for (int j = 0; j < nfv; j++)
        for (int a = 0; a < 6; a++)
          if (m->cells[6 * cell[side] + a] == gv[j]) loc[side][j] = a;
    for (int q = 0; q < npt; q++) {
      double w[4];
      if (nfv == 3) {
        double r1 = rnd(), r2 = rnd();
        if (r1 + r2 > 1) r1 = 1 - r1, r2 = 1 - r2;
        w[0] = 1 - r1 - r2, w[1] = r1, w[2] = r2;
      } else {
        /* Bilinear weights over the cyclic order bottom a, bottom b, top b, top a. */
        double a = rnd(), t = rnd();
        w[0] = (1 - a) * (1 - t), w[1] = a * (1 - t), w[2] = a * t, w[3] = (1 - a) * t;
      }
      double x[2][3], val[2][5];
      for (int side = 0; side < 2; side++) {
        double xi[3] = {0, 0, 0};
        for (int j = 0; j < nfv; j++)
          for (int i = 0; i < 3; i++) xi[i] += w[j] * ref_vertex[loc[side][j]][i];
        femint_space_eval(s, u, cell[side], xi, x[side], val[side]);
      }
      for (int i = 0; i < 3; i++) *xdiff = fmax(*xdiff, fabs(x[0][i] - x[1][i]));
      for (int k = 0; k < nc; k++)
        worst = fmax(worst, fabs(val[0][k] - val[1][k]) / (1 + fabs(val[0][k])));
    }
  }
  return worst;
}

static double *random_vector(int64_t n)
{
  double *u = malloc((size_t)n * sizeof *u);
  for (int64_t i = 0; i < n; i++) u[i] = 2 * rnd() - 1;
  return u;
}

int main(void)
{
  femint_mesh_t m = NULL, mp = NULL;
  femint_space_t s = NULL;
  const int nx = 3, ny = 2, nz = 2;
  TAP_CALL(NULL, femint_mesh_create_box(NULL, nx, ny, nz, 1, 1, 1, 0, 0, &m));
  TAP_CALL(NULL, femint_mesh_create_box(NULL, nx, ny, nz, 1.2, 0.9, 1.1, 0.35, 11, &mp));

  /* Uniform orders: the count by entities, every DOF used, conformity. */
  for (int p = 1; p <= FEMINT_MAX_ORDER; p++) {
    int nc = p % 3 + 1, oor, layout, nface;
    TAP_CALL(NULL, femint_space_create(NULL, mp, nc, NULL, p, &s));
    int64_t ndof = femint_space_num_dofs(s), expect = box_modes(nx, ny, nz, p) * nc;
    int unused = check_dofs_used(s, ndof, &oor, &layout);
    tap_ok(ndof == expect && unused == 0 && oor == 0 && layout == 0,
           "order %d, %d components: %lld DOFs (expected %lld), %d unused, %d out of range, %d "
           "misplaced",
           p, nc, (long long)ndof, (long long)expect, unused, oor, layout);
    double *u = random_vector(ndof), xd;
    double d = conformity(s, u, 6, &xd, &nface);
    tap_ok(d < 1e-12 && xd < 1e-12,
           "order %d: conforming across %d interior faces (difference %.2e, points %.2e)", p,
           nface, d, xd);
    free(u);
    femint_space_destroy(&s);
  }

  /* Mixed orders 1..7 at random on perturbed meshes: the proof of the orientation signs and of
   * the minimum rule. */
  femint_mesh_t mb = NULL;
  TAP_CALL(NULL, femint_mesh_create_box(NULL, 4, 3, 3, 1, 1, 1, 0.4, 5, &mb));
  femint_mesh_t meshes[3] = {m, mp, mb};
  for (int t = 0; t < 6; t++) {
    femint_mesh_t mm = meshes[t % 3];
    int ncell = femint_mesh_num_cells(mm), nc = 1 + t % 3, oor, layout, nface;
    int *orders = malloc((size_t)ncell * sizeof *orders);
    for (int c = 0; c < ncell; c++) orders[c] = 1 + (int)(rnd() * FEMINT_MAX_ORDER);
    TAP_CALL(NULL, femint_space_create(NULL, mm, nc, orders, 0, &s));
    int64_t ndof = femint_space_num_dofs(s);
    int unused = check_dofs_used(s, ndof, &oor, &layout), badorder = 0;
    for (int c = 0; c < ncell; c++) badorder += femint_space_cell_order(s, c) != orders[c];
    tap_ok(unused == 0 && oor == 0 && layout == 0 && badorder == 0,
           "mixed orders (mesh %d, %d components): %lld DOFs, %d unused, %d out of range, %d "
           "misplaced",
           t % 3, nc, (long long)ndof, unused, oor, layout);
    double *u = random_vector(ndof), xd;
    double d = conformity(s, u, 8, &xd, &nface);
    tap_ok(d < 1e-12 && xd < 1e-12,
           "mixed orders (mesh %d): conforming across %d interior faces (difference %.2e, points "
           "%.2e)",
           t % 3, nface, d, xd);
    free(u);
    free(orders);
    femint_space_destroy(&s);
  }

  /* The same perturbed box given to femint_mesh_create_prisms with its vertices numbered at
   * random and every cell listed from a random one of its 6 orientation-preserving orders: the
   * cells sharing a quadrilateral face now often run along its horizontal edges the same way. */
  femint_mesh_t mr = NULL;
  {
    int nv = femint_mesh_num_vertices(mb), ncell = femint_mesh_num_cells(mb);
    int *perm = malloc((size_t)nv * sizeof *perm);
    int *cells = malloc(6 * (size_t)ncell * sizeof *cells);
    double *x = malloc(3 * (size_t)nv * sizeof *x);
    for (int v = 0; v < nv; v++) perm[v] = v;
    for (int v = nv - 1; v > 0; v--) {
      int w = (int)(rnd() * (v + 1)), t = perm[v];
      perm[v] = perm[w], perm[w] = t;
    }
    for (int v = 0; v < nv; v++) memcpy(&x[3 * perm[v]], &mb->coords[3 * v], 3 * sizeof *x);
    for (int c = 0; c < ncell; c++) {
      int rot = (int)(rnd() * 3), flip = rnd() < 0.5;
      for (int a = 0; a < 3; a++) {
        /* Flipping swaps the triangles and reverses their order, keeping the orientation. */
        int src = flip ? (3 - a) % 3 : a;
        src = (src + rot) % 3;
        cells[6 * c + a] = perm[mb->cells[6 * c + src + (flip ? 3 : 0)]];
        cells[6 * c + a + 3] = perm[mb->cells[6 * c + src + (flip ? 0 : 3)]];
      }
    }
    TAP_CALL(NULL, femint_mesh_create_prisms(NULL, nv, x, ncell, cells, &mr));
    free(perm);
    free(cells);
    free(x);
  }
  for (int t = 0; t < 3; t++) {
    int ncell = femint_mesh_num_cells(mr), nc = 1 + t, nface;
    int *orders = malloc((size_t)ncell * sizeof *orders);
    for (int c = 0; c < ncell; c++) orders[c] = t == 0 ? 7 : 1 + (int)(rnd() * FEMINT_MAX_ORDER);
    TAP_CALL(NULL, femint_space_create(NULL, mr, nc, orders, 0, &s));
    double *u = random_vector(femint_space_num_dofs(s)), xd;
    double d = conformity(s, u, 8, &xd, &nface);
    tap_ok(d < 1e-12 && xd < 1e-12,
           "renumbered mesh, %s orders: conforming across %d interior faces (difference %.2e, "
           "points %.2e)",
           t == 0 ? "uniform" : "mixed", nface, d, xd);
    free(u);
    free(orders);
    femint_space_destroy(&s);
  }
  femint_mesh_destroy(&mr);

  /* Linear fields are reproduced at random points of random cells of a perturbed mesh. */
  {
    int ncell = femint_mesh_num_cells(mb), nc = 3;
    int *orders = malloc((size_t)ncell * sizeof *orders);
    for (int c = 0; c < ncell; c++) orders[c] = 1 + (int)(rnd() * FEMINT_MAX_ORDER);
    TAP_CALL(NULL, femint_space_create(NULL, mb, nc, orders, 0, &s));
    double a[3], b[9], err = 0;
    for (int k = 0; k < 3; k++) a[k] = 2 * rnd() - 1;
    for (int k = 0; k < 9; k++) b[k] = 2 * rnd() - 1;
    double *u = random_vector(femint_space_num_dofs(s));
    TAP_CALL(NULL, femint_space_interpolate_linear(s, a, b, u));
    for (int q = 0; q < 200; q++) {
      int c = (int)(rnd() * ncell);
      double r1 = rnd(), r2 = rnd(), x[3], val[3];
      if (r1 + r2 > 1) r1 = 1 - r1, r2 = 1 - r2;
      double xi[3] = {r1, r2, 2 * rnd() - 1};
      TAP_CALL(NULL, femint_space_eval(s, u, c, xi, x, val));
      for (int k = 0; k < nc; k++) {
        double exact = a[k] + b[3 * k] * x[0] + b[3 * k + 1] * x[1] + b[3 * k + 2] * x[2];
        err = fmax(err, fabs(val[k] - exact));
      }
    }
    tap_ok(err < 1e-12, "interpolate_linear reproduces a + b x (error %.2e)", err);
    /* Signs are +1 or -1, and +1 on vertex modes. */
    int badsign = 0;
    int64_t dofs[288 * 3];
    int signs[288 * 3];
    for (int c = 0; c < ncell; c++) {
      int p = orders[c], nsh = (p + 1) * (p + 1) * (p + 2) / 2;
      TAP_CALL(NULL, femint_space_cell_dofs(s, c, dofs, signs));
      for (int l = 0; l < nsh * nc; l++)
        badsign += !(signs[l] == 1 || signs[l] == -1) || (l < 6 * nc && signs[l] != 1);
    }
    tap_ok(badsign == 0, "signs are +-1 and +1 on vertex modes (%d wrong)", badsign);
    free(u);
    free(orders);
    femint_space_destroy(&s);
    tap_ok(s == NULL, "femint_space_destroy sets the handle to NULL");
  }

  /* Two stacked prisms whose middle level is numbered in the reverse order (the vertex above 0 is
   * 5, above 2 is 3): sorting by vertex id alone would list the shared triangle differently in
   * the two cells; sorting by vertical line lists it alike, and the space is conforming. */
  {
    double xs[27];
    int cs[12] = {0, 1, 2, 5, 4, 3, 5, 4, 3, 6, 7, 8};
    const int above[3] = {5, 4, 3};
    for (int a = 0; a < 3; a++) {
      double px = a == 1, py = a == 2;
      double *x0 = &xs[3 * a], *x1 = &xs[3 * above[a]], *x2 = &xs[3 * (6 + a)];
      x0[0] = x1[0] = x2[0] = px;
      x0[1] = x1[1] = x2[1] = py;
      x0[2] = 0, x1[2] = 1, x2[2] = 2;
    }
    xs[3 * 4 + 0] = 1.2; /* a vertex of the middle level moved, to make the face less special */
    femint_mesh_t mt = NULL;
    int nface, orders[2] = {5, 6};
    TAP_CALL(NULL, femint_mesh_create_prisms(NULL, 9, xs, 2, cs, &mt));
    TAP_CALL(NULL, femint_space_create(NULL, mt, 2, orders, 0, &s));
    double *u = random_vector(femint_space_num_dofs(s)), xd;
    double d = conformity(s, u, 20, &xd, &nface);
    tap_ok(nface == 1 && d < 1e-12 && xd < 1e-12,
           "a middle level numbered in reverse: conforming across the triangle (difference %.2e)",
           d);
    free(u);
    femint_space_destroy(&s);
    femint_mesh_destroy(&mt);
  }

  /* Two prisms sharing the quadrilateral y = 0, extruded along z and along x: the face's
   * vertical edges differ between the cells. */
  {
    const double xs[8][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0},  {0, 0, 1},
                             {1, 0, 1}, {0, 1, 1}, {0, -1, 0}, {1, -1, 0}};
    /* Cell 1: triangle (0, 3, 6) in the plane x = 0 extruded to (1, 4, 7) at x = 1. */
    int cs[12] = {0, 1, 2, 3, 4, 5, 0, 6, 3, 1, 7, 4};
    femint_mesh_t mt = NULL;
    int ierr = femint_mesh_create_prisms(NULL, 8, &xs[0][0], 2, cs, &mt);
    if (ierr == FEMINT_EJACOBIAN) {
      int swapped[12] = {0, 1, 2, 3, 4, 5, 0, 3, 6, 1, 4, 7};
      ierr = femint_mesh_create_prisms(NULL, 8, &xs[0][0], 2, swapped, &mt);
    }
    TAP_CALL(NULL, ierr);
    int ierr1 = femint_space_create(NULL, mt, 1, NULL, 1, &s);
    femint_space_destroy(&s);
    int ierr2 = femint_space_create(NULL, mt, 1, NULL, 2, &s);
    tap_ok(ierr1 == 0 && ierr2 == FEMINT_EMESH && strstr(femint_last_error(NULL), "cells 0 and 1"),
           "a quadrilateral face with other vertical edges: order 1 %s, order 2 %s, \"%s\"",
           femint_error_name(ierr1), femint_error_name(ierr2), femint_last_error(NULL));
    femint_mesh_destroy(&mt);
  }

  /* Bad arguments. */
  int ierr = femint_space_create(NULL, m, 0, NULL, 2, &s);
  tap_ok(ierr == FEMINT_EINVAL && strstr(femint_last_error(NULL), "ncomp"),
         "ncomp 0: %s, \"%s\"", femint_error_name(ierr), femint_last_error(NULL));
  ierr = femint_space_create(NULL, m, 6, NULL, 2, &s);
  tap_ok(ierr == FEMINT_EINVAL, "ncomp 6: %s", femint_error_name(ierr));
  ierr = femint_space_create(NULL, m, 1, NULL, 8, &s);
  tap_ok(ierr == FEMINT_EORDER, "uniform order 8: %s, \"%s\"", femint_error_name(ierr),
         femint_last_error(NULL));
  {
    int ncell = femint_mesh_num_cells(m);
    int *orders = malloc((size_t)ncell * sizeof *orders);
    for (int c = 0; c < ncell; c++) orders[c] = 2;
    orders[5] = 0;
    ierr = femint_space_create(NULL, m, 1, orders, 0, &s);
    tap_ok(ierr == FEMINT_EORDER && s == NULL && strstr(femint_last_error(NULL), "cell 5 "),
           "order 0 on cell 5: %s, \"%s\"", femint_error_name(ierr), femint_last_error(NULL));
    free(orders);
  }
  ierr = femint_space_create(NULL, NULL, 1, NULL, 2, &s);
  tap_ok(ierr == FEMINT_EINVAL, "a NULL mesh: %s", femint_error_name(ierr));

  femint_mesh_destroy(&m);
  femint_mesh_destroy(&mp);
  femint_mesh_destroy(&mb);
  return tap_done();
}
