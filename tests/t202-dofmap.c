/* Test: DOF maps use every DOF, are conforming (H1 prisms, mixed orders: values; H(curl)
 * tetrahedra, straight and curved: tangential components) and reproduce linear fields. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "femint.h"
#include "host/host.h"
#include "host/refel_tet.h"
#include "tap.h"

#define PRISM_MAX_ORDER 7 /* the prism's orders */

static uint64_t rng_state = 12345;

/* splitmix64, uniform in [0, 1). */
static double rnd(void)
{
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

static const double prism_vertex[6][3] = {{0, 0, -1}, {1, 0, -1}, {0, 1, -1},
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
  char *used = calloc((size_t)ndof + 1, 1);
  int64_t dofs[288 * 5];
  *out_of_range = *layout = 0;
  for (int c = 0; c < m->ncell; c++) {
    int nsh = refel_nsh(m->topo->shape, s->family, femint_space_cell_order(s, c));
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

/* The reference coordinates of local vertex a of a cell of the shape. */
static const double *ref_vertex(int shape, int a)
{
  return shape == FEMINT_TET ? tet_vert_xi[a] : prism_vertex[a];
}

/* What conformity measured. */
struct jump {
  double value;  /* largest difference of the conforming part (H1: the value; H(curl): the
                    tangential components), relative to 1 + |value| */
  double normal; /* H(curl): largest difference of the normal component (free to jump) */
  double x;      /* largest distance between the physical points the two cells give */
  int nface;     /* interior faces */
};

/* Evaluate a random FE function from both cells of every interior face at npt points of the face
 * (reference points of each cell mapped from the same weights on the face's vertices). H1: the
 * values must agree; H(curl): the components along the face's tangents J d1, J d2 (d1, d2 the
 * reference edges of the face from its first vertex, J the Jacobian of the first cell). */
static struct jump conformity(femint_space_t s, const double *u, int npt)
{
  femint_mesh_t m = s->mesh;
  const struct cell_topo *t = m->topo;
  const int nc = femint_space_num_components(s), shape = t->shape;
  const int hcurl = femint_space_family(s) == FEMINT_HCURL, nval = hcurl ? 3 : nc;
  struct jump r = {0, 0, 0, 0};
  for (int g = 0; g < m->nface; g++) {
    int cell[2] = {m->face_cell[2 * g], m->face_cell[2 * g + 1]}, lf[2];
    if (cell[1] < 0) continue;
    r.nface++;
    for (int side = 0; side < 2; side++)
      for (lf[side] = 0; m->cell_face[t->nf * cell[side] + lf[side]] != g; lf[side]++) {
      }
    /* The face's vertices as cell 0 lists them, and where each sits in both cells. */
    int nfv = 0, gv[4], loc[2][4];
    while (nfv < 4 && t->face_vert[lf[0]][nfv] >= 0) nfv++;
    for (int j = 0; j < nfv; j++) gv[j] = m->cells[t->nv * cell[0] + t->face_vert[lf[0]][j]];
    for (int side = 0; side < 2; side++)
      for (int j = 0; j < nfv; j++)
        for (int a = 0; a < t->nv; a++)
          if (m->cells[t->nv * cell[side] + a] == gv[j]) loc[side][j] = a;
    for (int q = 0; q < npt; q++) {
      double w[4];
      if (nfv == 3) {
        double r1 = rnd(), r2 = rnd();
        if (r1 + r2 > 1) r1 = 1 - r1, r2 = 1 - r2;
        w[0] = 1 - r1 - r2, w[1] = r1, w[2] = r2;
      } else {
        /* Bilinear weights over the cyclic order bottom a, bottom b, top b, top a. */
        double a = rnd(), tt = rnd();
        w[0] = (1 - a) * (1 - tt), w[1] = a * (1 - tt), w[2] = a * tt, w[3] = (1 - a) * tt;
      }
      double x[2][3], val[2][5], xi[2][3];
      for (int side = 0; side < 2; side++) {
        for (int i = 0; i < 3; i++) xi[side][i] = 0;
        for (int j = 0; j < nfv; j++)
          for (int i = 0; i < 3; i++) xi[side][i] += w[j] * ref_vertex(shape, loc[side][j])[i];
        femint_space_eval(s, u, cell[side], xi[side], x[side], val[side]);
      }
      for (int i = 0; i < 3; i++) r.x = fmax(r.x, fabs(x[0][i] - x[1][i]));
      if (!hcurl) {
        for (int k = 0; k < nval; k++)
          r.value = fmax(r.value, fabs(val[0][k] - val[1][k]) / (1 + fabs(val[0][k])));
        continue;
      }
      double X[3 * 10], J[9], tan[2][3], nrm[3];
      geom_map(shape, mesh_cell_nodes(m, cell[0], X), X, xi[0], NULL, J);
      for (int k = 0; k < 2; k++)
        for (int i = 0; i < 3; i++) {
          tan[k][i] = 0;
          for (int j = 0; j < 3; j++)
            tan[k][i] += J[3 * i + j] * (ref_vertex(shape, loc[0][k + 1])[j] -
                                         ref_vertex(shape, loc[0][0])[j]);
        }
      for (int i = 0; i < 3; i++)
        nrm[i] = tan[0][(i + 1) % 3] * tan[1][(i + 2) % 3] -
                 tan[0][(i + 2) % 3] * tan[1][(i + 1) % 3];
      double dn[2] = {0, 0}, nn = 0;
      for (int i = 0; i < 3; i++) {
        dn[0] += val[0][i] * nrm[i];
        dn[1] += val[1][i] * nrm[i];
        nn += nrm[i] * nrm[i];
      }
      r.normal = fmax(r.normal, fabs(dn[0] - dn[1]) / sqrt(nn));
      for (int k = 0; k < 2; k++) {
        double d[2] = {0, 0};
        for (int i = 0; i < 3; i++) {
          d[0] += val[0][i] * tan[k][i];
          d[1] += val[1][i] * tan[k][i];
        }
        r.value = fmax(r.value, fabs(d[0] - d[1]) / (1 + fabs(d[0])));
      }
    }
  }
  return r;
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
  TAP_CALL(NULL, femint_mesh_create_box(NULL, FEMINT_PRISM, nx, ny, nz, 1, 1, 1, 0, 0, &m));
  TAP_CALL(NULL,
           femint_mesh_create_box(NULL, FEMINT_PRISM, nx, ny, nz, 1.2, 0.9, 1.1, 0.35, 11, &mp));

  /* Uniform orders: the count by entities, every DOF used, conformity. */
  for (int p = 1; p <= PRISM_MAX_ORDER; p++) {
    int nc = p % 3 + 1, oor, layout;
    TAP_CALL(NULL, femint_space_create(NULL, mp, FEMINT_H1, nc, NULL, p, &s));
    int64_t ndof = femint_space_num_dofs(s), expect = box_modes(nx, ny, nz, p) * nc;
    int unused = check_dofs_used(s, ndof, &oor, &layout);
    tap_ok(ndof == expect && unused == 0 && oor == 0 && layout == 0,
           "order %d, %d components: %lld DOFs (expected %lld), %d unused, %d out of range, %d "
           "misplaced",
           p, nc, (long long)ndof, (long long)expect, unused, oor, layout);
    double *u = random_vector(ndof);
    struct jump j = conformity(s, u, 6);
    tap_ok(j.value < 1e-12 && j.x < 1e-12,
           "order %d: conforming across %d interior faces (difference %.2e, points %.2e)", p,
           j.nface, j.value, j.x);
    free(u);
    femint_space_destroy(&s);
  }

  /* Mixed orders 1..7 at random on perturbed meshes: the proof of the orientation signs and of
   * the minimum rule. */
  femint_mesh_t mb = NULL;
  TAP_CALL(NULL, femint_mesh_create_box(NULL, FEMINT_PRISM, 4, 3, 3, 1, 1, 1, 0.4, 5, &mb));
  femint_mesh_t meshes[3] = {m, mp, mb};
  for (int t = 0; t < 6; t++) {
    femint_mesh_t mm = meshes[t % 3];
    int ncell = femint_mesh_num_cells(mm), nc = 1 + t % 3, oor, layout;
    int *orders = malloc((size_t)ncell * sizeof *orders);
    for (int c = 0; c < ncell; c++) orders[c] = 1 + (int)(rnd() * PRISM_MAX_ORDER);
    TAP_CALL(NULL, femint_space_create(NULL, mm, FEMINT_H1, nc, orders, 0, &s));
    int64_t ndof = femint_space_num_dofs(s);
    int unused = check_dofs_used(s, ndof, &oor, &layout), badorder = 0;
    for (int c = 0; c < ncell; c++) badorder += femint_space_cell_order(s, c) != orders[c];
    tap_ok(unused == 0 && oor == 0 && layout == 0 && badorder == 0,
           "mixed orders (mesh %d, %d components): %lld DOFs, %d unused, %d out of range, %d "
           "misplaced",
           t % 3, nc, (long long)ndof, unused, oor, layout);
    double *u = random_vector(ndof);
    struct jump j = conformity(s, u, 8);
    tap_ok(j.value < 1e-12 && j.x < 1e-12,
           "mixed orders (mesh %d): conforming across %d interior faces (difference %.2e, points "
           "%.2e)",
           t % 3, j.nface, j.value, j.x);
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
    TAP_CALL(NULL, femint_mesh_create(NULL, FEMINT_PRISM, nv, x, ncell, cells, NULL, &mr));
    free(perm);
    free(cells);
    free(x);
  }
  for (int t = 0; t < 3; t++) {
    int ncell = femint_mesh_num_cells(mr), nc = 1 + t;
    int *orders = malloc((size_t)ncell * sizeof *orders);
    for (int c = 0; c < ncell; c++) orders[c] = t == 0 ? 7 : 1 + (int)(rnd() * PRISM_MAX_ORDER);
    TAP_CALL(NULL, femint_space_create(NULL, mr, FEMINT_H1, nc, orders, 0, &s));
    double *u = random_vector(femint_space_num_dofs(s));
    struct jump j = conformity(s, u, 8);
    tap_ok(j.value < 1e-12 && j.x < 1e-12,
           "renumbered mesh, %s orders: conforming across %d interior faces (difference %.2e, "
           "points %.2e)",
           t == 0 ? "uniform" : "mixed", j.nface, j.value, j.x);
    free(u);
    free(orders);
    femint_space_destroy(&s);
  }
  femint_mesh_destroy(&mr);

  /* Linear fields are reproduced at random points of random cells of a perturbed mesh. */
  {
    int ncell = femint_mesh_num_cells(mb), nc = 3;
    int *orders = malloc((size_t)ncell * sizeof *orders);
    for (int c = 0; c < ncell; c++) orders[c] = 1 + (int)(rnd() * PRISM_MAX_ORDER);
    TAP_CALL(NULL, femint_space_create(NULL, mb, FEMINT_H1, nc, orders, 0, &s));
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
    int orders[2] = {5, 6};
    TAP_CALL(NULL, femint_mesh_create(NULL, FEMINT_PRISM, 9, xs, 2, cs, NULL, &mt));
    TAP_CALL(NULL, femint_space_create(NULL, mt, FEMINT_H1, 2, orders, 0, &s));
    double *u = random_vector(femint_space_num_dofs(s));
    struct jump j = conformity(s, u, 20);
    tap_ok(j.nface == 1 && j.value < 1e-12 && j.x < 1e-12,
           "a middle level numbered in reverse: conforming across the triangle (difference %.2e)",
           j.value);
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
    int ierr = femint_mesh_create(NULL, FEMINT_PRISM, 8, &xs[0][0], 2, cs, NULL, &mt);
    if (ierr == FEMINT_EJACOBIAN) {
      int swapped[12] = {0, 1, 2, 3, 4, 5, 0, 3, 6, 1, 4, 7};
      ierr = femint_mesh_create(NULL, FEMINT_PRISM, 8, &xs[0][0], 2, swapped, NULL, &mt);
    }
    TAP_CALL(NULL, ierr);
    int ierr1 = femint_space_create(NULL, mt, FEMINT_H1, 1, NULL, 1, &s);
    femint_space_destroy(&s);
    int ierr2 = femint_space_create(NULL, mt, FEMINT_H1, 1, NULL, 2, &s);
    tap_ok(ierr1 == 0 && ierr2 == FEMINT_EMESH && strstr(femint_last_error(NULL), "cells 0 and 1"),
           "a quadrilateral face with other vertical edges: order 1 %s, order 2 %s, \"%s\"",
           femint_error_name(ierr1), femint_error_name(ierr2), femint_last_error(NULL));
    femint_mesh_destroy(&mt);
  }

  /* H(curl) on tetrahedra, orders 1..3 on a perturbed box, straight and warped, with the DOFs of
   * the boundary removed: every DOF used, and the tangential components of a random field agree
   * across every interior face while its normal component jumps. */
  {
    femint_mesh_t mt[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++)
      TAP_CALL(NULL, femint_mesh_create_box(NULL, FEMINT_TET, nx, ny, nz, 1.2, 0.9, 1.1, 0.3, 11,
                                            &mt[k]));
    TAP_CALL(NULL, femint_mesh_warp(mt[1], 0.08));
    for (int k = 0; k < 2; k++)
      for (int p = 1; p <= 3; p++) {
        int oor, layout;
        TAP_CALL(NULL, femint_space_create(NULL, mt[k], FEMINT_HCURL, 1, NULL, p, &s));
        TAP_CALL(NULL, femint_space_remove_boundary_dofs(s, 0, NULL));
        const int64_t ndof = femint_space_num_dofs(s);
        const int unused = check_dofs_used(s, ndof, &oor, &layout);
        double *u = random_vector(ndof);
        struct jump j = conformity(s, u, 6);
        tap_ok(unused == 0 && oor == 0 && j.value < 1e-12 && j.x < 1e-12 && j.normal > 1e-3,
               "H(curl) order %d, %s tetrahedra: %lld DOFs, %d unused, %d out of range; "
               "tangential components agree across %d interior faces (difference %.2e, points "
               "%.2e), normal ones jump (%.2e)",
               p, k ? "curved" : "straight", (long long)ndof, unused, oor, j.nface, j.value, j.x,
               j.normal);
        free(u);
        femint_space_destroy(&s);
      }
    femint_mesh_destroy(&mt[0]);
    femint_mesh_destroy(&mt[1]);
  }

  /* Bad arguments. */
  int ierr = femint_space_create(NULL, m, FEMINT_H1, 0, NULL, 2, &s);
  tap_ok(ierr == FEMINT_EINVAL && strstr(femint_last_error(NULL), "ncomp"),
         "ncomp 0: %s, \"%s\"", femint_error_name(ierr), femint_last_error(NULL));
  ierr = femint_space_create(NULL, m, FEMINT_H1, 6, NULL, 2, &s);
  tap_ok(ierr == FEMINT_EINVAL, "ncomp 6: %s", femint_error_name(ierr));
  ierr = femint_space_create(NULL, m, FEMINT_H1, 1, NULL, 8, &s);
  tap_ok(ierr == FEMINT_EORDER, "uniform order 8: %s, \"%s\"", femint_error_name(ierr),
         femint_last_error(NULL));
  {
    int ncell = femint_mesh_num_cells(m);
    int *orders = malloc((size_t)ncell * sizeof *orders);
    for (int c = 0; c < ncell; c++) orders[c] = 2;
    orders[5] = 0;
    ierr = femint_space_create(NULL, m, FEMINT_H1, 1, orders, 0, &s);
    tap_ok(ierr == FEMINT_EORDER && s == NULL && strstr(femint_last_error(NULL), "cell 5 "),
           "order 0 on cell 5: %s, \"%s\"", femint_error_name(ierr), femint_last_error(NULL));
    free(orders);
  }
  ierr = femint_space_create(NULL, NULL, FEMINT_H1, 1, NULL, 2, &s);
  tap_ok(ierr == FEMINT_EINVAL, "a NULL mesh: %s", femint_error_name(ierr));
  ierr = femint_space_create(NULL, m, FEMINT_HCURL, 1, NULL, 1, &s);
  tap_ok(ierr == FEMINT_ENOTSUP && s == NULL && strstr(femint_last_error(NULL), "H(curl)"),
         "an H(curl) space on prisms: %s, \"%s\"", femint_error_name(ierr),
         femint_last_error(NULL));

  femint_mesh_destroy(&m);
  femint_mesh_destroy(&mp);
  femint_mesh_destroy(&mb);
  return tap_done();
}
