/* Test: quadrilateral meshes (rectangle, annulus sector, arrays, warped) and their DOF maps:
 * counts, tags, areas, the minimum rule with mixed orders, continuity of every function across
 * interior edges (straight and curved), and clear errors for bad input. */
#include <math.h>

#include "common.h"
#include "host/host.h"

/* Counts of a rectangle of nx x ny cells. */
static void check_rectangle(femint_context_t ctx)
{
  femint_mesh_t m;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_QUAD, 4, 3, 1, 2.0, 1.5, 1, 0.0, 0, &m));
  tap_ok(femint_mesh_shape(m) == FEMINT_QUAD, "the rectangle is made of quadrilaterals");
  tap_ok(femint_mesh_num_cells(m) == 12 && femint_mesh_num_vertices(m) == 20 &&
             femint_mesh_num_boundary_faces(m) == 14,
         "rectangle 4 x 3: %d cells, %d vertices, %d boundary edges (12, 20, 14)",
         femint_mesh_num_cells(m), femint_mesh_num_vertices(m), femint_mesh_num_boundary_faces(m));
  tap_ok(m->nedge == 31, "rectangle 4 x 3: %d edges (31)", m->nedge);
  int count[5] = {0};
  for (int b = 0; b < m->nbface; b++) count[m->bface[3 * b + 2] % 5]++;
  tap_ok(count[0] == 0 && count[1] == 3 && count[2] == 3 && count[3] == 4 && count[4] == 4,
         "boundary tags 1..4 on 3, 3, 4, 4 edges (got %d %d %d %d, %d untagged)", count[1],
         count[2], count[3], count[4], count[0]);
  double area;
  femint_mesh_volume(m, &area);
  tap_ok(fabs(area - 3.0) < 1e-14, "area %.15g (3)", area);
  femint_mesh_destroy(&m);
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_QUAD, 5, 5, 1, 1.0, 1.0, 1, 0.45, 7, &m));
  femint_mesh_volume(m, &area);
  int moved = 0;
  for (int v = 0; v < m->nvert; v++) {
    double x[3];
    femint_mesh_vertex_coords(m, v, x);
    const double gx = x[0] * 5, gy = x[1] * 5;
    moved += fabs(gx - round(gx)) > 1e-9 || fabs(gy - round(gy)) > 1e-9;
    if (femint_mesh_vertex_on_boundary(m, v) && fabs(gx - round(gx)) > 1e-12 &&
        fabs(gy - round(gy)) > 1e-12)
      moved += 1000;
  }
  tap_ok(fabs(area - 1.0) < 1e-13 && moved > 8 && moved <= 16,
         "perturbed rectangle: area %.15g, %d of 16 interior vertices moved, boundary kept", area,
         moved);
  femint_mesh_destroy(&m);
}

/* The annulus sector: counts, tags, the area against the exact sector. */
static void check_annulus(femint_context_t ctx)
{
  femint_mesh_t m;
  const double r0 = 0.5, r1 = 1.0, angle = M_PI / 2;
  TAP_CALL(ctx, femint_mesh_create_annulus(ctx, 3, 8, r0, r1, angle, &m));
  tap_ok(femint_mesh_num_cells(m) == 24 && femint_mesh_num_vertices(m) == 36 &&
             femint_mesh_num_nodes(m) == 8,
         "annulus 3 x 8: %d cells, %d vertices, curved (%d nodes per cell)",
         femint_mesh_num_cells(m), femint_mesh_num_vertices(m), femint_mesh_num_nodes(m));
  int count[5] = {0};
  for (int b = 0; b < m->nbface; b++) count[m->bface[3 * b + 2] % 5]++;
  tap_ok(count[1] == 8 && count[2] == 8 && count[3] == 3 && count[4] == 3 && count[0] == 0,
         "annulus tags: inner 8, outer 8, theta = 0: 3, theta = angle: 3 (got %d %d %d %d, %d "
         "untagged)",
         count[1], count[2], count[3], count[4], count[0]);
  double area, exact = angle / 2 * (r1 * r1 - r0 * r0);
  femint_mesh_volume(m, &area);
  /* the quadratic arcs cut the circles by O(h^4) in area per unit length */
  tap_ok(fabs(area - exact) < 1e-4 * exact, "annulus area %.10f vs exact sector %.10f", area,
         exact);
  femint_mesh_t fine;
  TAP_CALL(ctx, femint_mesh_create_annulus(ctx, 3, 16, r0, r1, angle, &fine));
  double area2;
  femint_mesh_volume(fine, &area2);
  const double rate = log2(fabs(area - exact) / fabs(area2 - exact));
  tap_ok(rate > 3.5, "area error of the curved map falls at rate %.2f (4 expected) under "
                     "refinement along the arcs",
         rate);
  femint_mesh_destroy(&fine);
  femint_mesh_destroy(&m);
}

/* DOFs of a space on a rectangle: vertices + edges (order - 1 each, by the minimum rule) +
 * interiors ((p-2)(p-3)/2 each for p >= 4), per component. */
static void check_counts(femint_context_t ctx, uint64_t *st)
{
  femint_mesh_t m;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_QUAD, 4, 3, 1, 1.0, 1.0, 1, 0.2, 3, &m));
  for (int p = 1; p <= 7; p++) {
    femint_space_t s;
    TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 2, NULL, p, &s));
    const int64_t expect = 2 * (20 + 31 * (p - 1) + 12 * (p > 3 ? (p - 2) * (p - 3) / 2 : 0));
    tap_ok(femint_space_num_dofs(s) == expect, "order %d: %lld DOFs (%lld)", p,
           (long long)femint_space_num_dofs(s), (long long)expect);
    int64_t nb = 0;
    femint_space_boundary_dofs(s, 0, NULL, &nb, NULL);
    tap_ok(nb == 2 * (14 + 14 * (p - 1)), "order %d: %lld boundary DOFs (%d)", p, (long long)nb,
           2 * (14 + 14 * (p - 1)));
    femint_space_destroy(&s);
  }
  int orders[12];
  for (int c = 0; c < 12; c++) orders[c] = 1 + (int)(7 * test_rand(st));
  femint_space_t s;
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 1, orders, 0, &s));
  int64_t expect = 20;
  for (int e = 0; e < m->nedge; e++) {
    int q = 99;
    for (int c = 0; c < 12; c++)
      for (int k = 0; k < 4; k++)
        if (m->cell_edge[4 * c + k] == e && orders[c] < q) q = orders[c];
    expect += q - 1;
  }
  for (int c = 0; c < 12; c++) expect += orders[c] > 3 ? (orders[c] - 2) * (orders[c] - 3) / 2 : 0;
  tap_ok(femint_space_num_dofs(s) == expect, "mixed orders: %lld DOFs by the minimum rule (%lld)",
         (long long)femint_space_num_dofs(s), (long long)expect);
  femint_space_destroy(&s);
  femint_mesh_destroy(&m);
}

/* The reference point of cell c at physical point x on its edge k (t along the edge). */
static void edge_xi(int k, double t, double *xi)
{
  static const double v[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
  const double *a = v[k], *b = v[(k + 1) % 4];
  xi[0] = 0.5 * (1 - t) * a[0] + 0.5 * (1 + t) * b[0];
  xi[1] = 0.5 * (1 - t) * a[1] + 0.5 * (1 + t) * b[1];
}

/* A random function of the space is continuous across every interior edge: compared at points of
 * the edge seen from its two cells (the edge runs the other way in the second cell). */
static void check_continuity(femint_context_t ctx, femint_mesh_t m, const int *orders,
                             const char *what, uint64_t *st)
{
  femint_space_t s;
  TAP_CALL(ctx, femint_space_create(ctx, m, FEMINT_H1, 2, orders, 0, &s));
  const int64_t n = femint_space_num_dofs(s);
  double *u = malloc(n * sizeof *u), jump = 0, scale = 0, xgap = 0;
  for (int64_t i = 0; i < n; i++) u[i] = test_rand(st) - 0.5;
  int nchecked = 0;
  for (int c = 0; c < m->ncell; c++)
    for (int k = 0; k < 4; k++) {
      const int g = m->cell_face[4 * c + k], c2 = m->face_cell[2 * g] == c ? m->face_cell[2 * g + 1]
                                                                           : m->face_cell[2 * g];
      if (c2 < c) continue; /* boundary (-1) or seen from the other side already */
      int k2 = 0;
      while (m->cell_face[4 * c2 + k2] != g) k2++;
      nchecked++;
      for (int q = 0; q < 5; q++) {
        const double t = 2 * test_rand(st) - 1;
        double xi[2], xi2[2], x[3], x2[3], a[2], b[2];
        edge_xi(k, t, xi);
        edge_xi(k2, -t, xi2);
        femint_space_eval(s, u, c, xi, x, a);
        femint_space_eval(s, u, c2, xi2, x2, b);
        xgap = fmax(xgap, hypot(x[0] - x2[0], x[1] - x2[1]));
        for (int i = 0; i < 2; i++) {
          jump = fmax(jump, fabs(a[i] - b[i]));
          scale = fmax(scale, fabs(a[i]));
        }
      }
    }
  tap_ok(xgap < 1e-14 && jump < 1e-12 * scale && nchecked > 0,
         "%s: continuous across %d interior edges (max jump %.2e, max |u| %.2f, point gap %.1e)",
         what, nchecked, jump, scale, xgap);
  free(u);
  femint_space_destroy(&s);
}

/* femint_mesh_warp on quadrilaterals: the cells become 8-node ones whose nodes are the exact images
 * of the vertices and edge midpoints, the rectangle keeps its boundary and area, and a warp that
 * folds a cell is refused. */
static void check_warp(femint_context_t ctx, uint64_t *st)
{
  femint_mesh_t m, ref;
  const double amp = 0.06;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_QUAD, 4, 4, 1, 1.0, 1.0, 1, 0.2, 13, &m));
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_QUAD, 4, 4, 1, 1.0, 1.0, 1, 0.2, 13, &ref));
  TAP_CALL(ctx, femint_mesh_warp(m, amp));
  double node_err = 0, area, z = 0;
  for (int c = 0; c < m->ncell; c++) {
    double X[8 * 3], R[4 * 3];
    TAP_CALL(ctx, femint_mesh_cell_nodes(m, c, X));
    TAP_CALL(ctx, femint_mesh_cell_coords(ref, c, R));
    for (int k = 0; k < 8; k++) {
      /* The node before the warp: a vertex, or the midpoint of edge (k - 4, k - 3). */
      const int a = k < 4 ? k : k - 4, b = k < 4 ? k : (k - 3) % 4;
      const double x0 = (R[3 * a] + R[3 * b]) / 2, y0 = (R[3 * a + 1] + R[3 * b + 1]) / 2;
      const double s = amp * sin(M_PI * x0) * sin(M_PI * y0);
      node_err = fmax(node_err, fmax(fabs(X[3 * k] - x0 - s), fabs(X[3 * k + 1] - y0 - s)));
      z = fmax(z, fabs(X[3 * k + 2]));
    }
  }
  femint_mesh_volume(m, &area);
  tap_ok(femint_mesh_num_nodes(m) == 8 && node_err < 1e-15 && z == 0 && fabs(area - 1) < 1e-13,
         "a warped rectangle: %d nodes per cell at the images of the vertices and midpoints "
         "(%.1e), area %.15g",
         femint_mesh_num_nodes(m), node_err, area);
  int orders[16];
  for (int c = 0; c < 16; c++) orders[c] = 2 + (int)(6 * test_rand(st));
  check_continuity(ctx, m, orders, "warped rectangle, mixed orders 2..7", st);
  femint_mesh_destroy(&m);
  const int err = femint_mesh_warp(ref, 2.0);
  tap_ok(err == FEMINT_EJACOBIAN && strstr(femint_last_error(ctx), "cell "),
         "a warp that folds a cell: %s, \"%s\"", femint_error_name(err), femint_last_error(ctx));
  femint_mesh_destroy(&ref);
}

static void check_errors(femint_context_t ctx)
{
  const double x[] = {0, 0, 1, 0, 2, 0, 0, 1, 1, 1, 2, 1};
  femint_mesh_t m = NULL;
  const int cw[] = {0, 1, 4, 3, 1, 4, 5, 2}; /* the second cell is clockwise */
  int err = femint_mesh_create(ctx, FEMINT_QUAD, 6, x, 2, cw, NULL, &m);
  tap_ok(err == FEMINT_EJACOBIAN && strstr(femint_last_error(ctx), "cell 1") && !m,
         "a clockwise cell: FEMINT_EJACOBIAN, \"%s\"", femint_last_error(ctx));
  const int out[] = {0, 1, 4, 3, 1, 2, 5, 6};
  err = femint_mesh_create(ctx, FEMINT_QUAD, 6, x, 2, out, NULL, &m);
  tap_ok(err == FEMINT_EMESH && strstr(femint_last_error(ctx), "cell 1"),
         "a vertex index out of range: FEMINT_EMESH, \"%s\"", femint_last_error(ctx));
  const int ok[] = {0, 1, 4, 3, 1, 2, 5, 4};
  double mid[16];
  for (int c = 0; c < 2; c++)
    for (int k = 0; k < 4; k++) {
      const int a = ok[4 * c + k], b = ok[4 * c + (k + 1) % 4];
      mid[8 * c + 2 * k] = 0.5 * (x[2 * a] + x[2 * b]);
      mid[8 * c + 2 * k + 1] = 0.5 * (x[2 * a + 1] + x[2 * b + 1]);
    }
  TAP_CALL(ctx, femint_mesh_create(ctx, FEMINT_QUAD, 6, x, 2, ok, mid, &m));
  femint_mesh_destroy(&m);
  mid[2] += 0.1; /* cell 0's edge 1 is cell 1's edge 3 */
  err = femint_mesh_create(ctx, FEMINT_QUAD, 6, x, 2, ok, mid, &m);
  tap_ok(err == FEMINT_EMESH && strstr(femint_last_error(ctx), "cell 0 and cell 1"),
         "two cells with different midpoints on their edge: FEMINT_EMESH, \"%s\"",
         femint_last_error(ctx));
  /* along the edge past its quarter point: det J changes sign near the vertex */
  mid[2] = mid[14] = 1.0;
  mid[3] = mid[15] = 0.95;
  err = femint_mesh_create(ctx, FEMINT_QUAD, 6, x, 2, ok, mid, &m);
  tap_ok(err == FEMINT_EJACOBIAN, "a midpoint that folds the element: FEMINT_EJACOBIAN, \"%s\"",
         femint_last_error(ctx));
  err = femint_mesh_create_annulus(ctx, 2, 2, 1.0, 0.5, 1.0, &m);
  tap_ok(err == FEMINT_EINVAL, "annulus with r1 < r0: FEMINT_EINVAL, \"%s\"",
         femint_last_error(ctx));
  femint_mesh_t r;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_QUAD, 2, 2, 1, 1, 1, 1, 0, 0, &r));
  femint_space_t s;
  TAP_CALL(ctx, femint_space_create(ctx, r, FEMINT_H1, 3, NULL, 2, &s));
  double E = 1, nu = 0.3;
  femint_form_t f;
  TAP_CALL(ctx, femint_form_create_elasticity(ctx, 1, &E, &nu, &f));
  femint_operator_t op = (femint_operator_t)&op;
  err = femint_operator_create(ctx, s, 1, &f, NULL, &op);
  tap_ok(err == FEMINT_EINVAL && !op && strstr(femint_last_error(ctx), "plane_elasticity"),
         "3D elasticity on a 2D mesh: FEMINT_EINVAL, \"%s\"", femint_last_error(ctx));
  femint_form_destroy(&f);
  err = femint_form_create_plane_elasticity(ctx, 7, 1, &E, &nu, &f);
  tap_ok(err == FEMINT_EINVAL, "an unknown plane: FEMINT_EINVAL, \"%s\"", femint_last_error(ctx));
  femint_space_destroy(&s);
  femint_mesh_destroy(&r);
}

int main(void)
{
  femint_context_t ctx = test_init();
  uint64_t st = 5;
  check_rectangle(ctx);
  check_annulus(ctx);
  check_counts(ctx, &st);
  femint_mesh_t m;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_QUAD, 4, 4, 1, 1.0, 1.0, 1, 0.3, 11, &m));
  int orders[16];
  for (int p = 1; p <= 7; p += 3) {
    for (int c = 0; c < 16; c++) orders[c] = p;
    char what[64];
    snprintf(what, sizeof what, "perturbed rectangle, order %d", p);
    check_continuity(ctx, m, orders, what, &st);
  }
  for (int c = 0; c < 16; c++) orders[c] = 1 + (int)(7 * test_rand(&st));
  check_continuity(ctx, m, orders, "perturbed rectangle, mixed orders 1..7", &st);
  femint_mesh_destroy(&m);
  TAP_CALL(ctx, femint_mesh_create_annulus(ctx, 3, 5, 0.4, 1.0, 2.5, &m));
  for (int c = 0; c < 15; c++) orders[c] = 2 + (int)(6 * test_rand(&st));
  check_continuity(ctx, m, orders, "curved annulus, mixed orders 2..7", &st);
  femint_mesh_destroy(&m);
  check_warp(ctx, &st);
  check_errors(ctx);
  femint_finalize(&ctx);
  return tap_done();
}
