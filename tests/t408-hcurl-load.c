/* Test: femint_operator_load on H(curl) tetrahedra, orders 1..3: for the discrete gradient u of
 * a linear phi, rhs . u is the integral of f . a over the box for a body force f, and the
 * integral of g . a over the tagged boundary faces for a traction g (every tagged face, or the
 * tags listed). On perturbed straight cells u_h = grad phi = a, f is linear and g any linear
 * field; on curved cells (the box's faces flat) f is constant (the integral of grad phi_h is then
 * a times the volume) and g tangential (the tangential trace of u_h on a flat face is a's). The
 * loads of a cell partition add up. */
#include <stdlib.h>

#include "common.h"

static const double L[3] = {1.0, 1.2, 0.8};

/* f(x) = c + B x. */
struct field {
  double c[3], B[9];
};

static void body(const double x[3], const double n[3], int tag, void *user, double *v)
{
  const struct field *f = user;
  for (int i = 0; i < 3; i++) v[i] = f->c[i] + f->B[3 * i] * x[0] + f->B[3 * i + 1] * x[1] +
                                     f->B[3 * i + 2] * x[2];
}

/* g(x, n, tag) = tag w(n) + P(n) x: w(n) = n and P = I, or (tangential) w(n) = n x e and
 * P = I - n n^T. */
static const double e[3] = {0.3, 0.5, 0.8};
static void traction_at(const double x[3], const double n[3], int tag, int tangential, double *v)
{
  const double xn = x[0] * n[0] + x[1] * n[1] + x[2] * n[2];
  for (int i = 0; i < 3; i++) {
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    const double w = tangential ? n[j] * e[k] - n[k] * e[j] : n[i];
    v[i] = tag * w + x[i] - (tangential ? xn * n[i] : 0);
  }
}

static void traction(const double x[3], const double n[3], int tag, void *user, double *v)
{
  traction_at(x, n, tag, *(const int *)user, v);
}

/* The integral of g . a over the box faces of the tags listed (every face when ntag is 0): g is
 * linear, its integral over a face the face's area times g at its centre. */
static double traction_exact(const double *a, int tangential, int ntag, const int *tags)
{
  double s = 0;
  for (int tag = 1; tag <= 6; tag++) {
    int in = ntag == 0;
    for (int i = 0; i < ntag; i++) in |= tags[i] == tag;
    if (!in) continue;
    const int d = (tag - 1) / 2, hi = (tag - 1) % 2;
    const double area = L[0] * L[1] * L[2] / L[d];
    double centre[3] = {L[0] / 2, L[1] / 2, L[2] / 2}, n[3] = {0, 0, 0}, g[3];
    centre[d] = hi ? L[d] : 0;
    n[d] = hi ? 1 : -1;
    traction_at(centre, n, tag, tangential, g);
    for (int i = 0; i < 3; i++) s += area * g[i] * a[i];
  }
  return s;
}

static double dot(const double *x, const double *y, int64_t n)
{
  double s = 0;
  for (int64_t i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}

static void run(femint_context_t ctx, int curved)
{
  const char *what = curved ? "curved" : "straight";
  femint_mesh_t mesh;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_TET, 2, 2, 2, L[0], L[1], L[2],
                                       curved ? 0 : 0.25, 3, &mesh));
  if (curved) TAP_CALL(ctx, femint_mesh_warp(mesh, 0.06));
  const int nc = femint_mesh_num_cells(mesh), nv = femint_mesh_num_vertices(mesh);
  const double vol = L[0] * L[1] * L[2], a[3] = {0.7, -1.3, 0.4};
  double *phi = malloc(sizeof *phi * nv), x[3];
  for (int v = 0; v < nv; v++) {
    femint_mesh_vertex_coords(mesh, v, x);
    phi[v] = a[0] * x[0] + a[1] * x[1] + a[2] * x[2];
  }
  uint64_t rng = 408;
  struct field f;
  for (int i = 0; i < 3; i++) f.c[i] = test_rand(&rng) - 0.5;
  for (int i = 0; i < 9; i++) f.B[i] = curved ? 0 : test_rand(&rng) - 0.5;
  /* the integral of f over the box: c V + B (the centre) V */
  double fint[3];
  for (int i = 0; i < 3; i++)
    fint[i] = vol * (f.c[i] + f.B[3 * i] * L[0] / 2 + f.B[3 * i + 1] * L[1] / 2 +
                     f.B[3 * i + 2] * L[2] / 2);
  const double body_exact = dot(fint, a, 3);
  const int tags[2] = {2, 5};
  int *part = malloc(sizeof *part * nc);

  for (int p = 1; p <= 3; p++) {
    femint_space_t s;
    femint_form_t form;
    femint_operator_t op;
    const double one = 1;
    TAP_CALL(ctx, femint_space_create(ctx, mesh, FEMINT_HCURL, 1, NULL, p, &s));
    TAP_CALL(ctx, femint_form_create_hcurl_mass(ctx, 1, 0, &one, &form));
    TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &form, NULL, &op));
    const int64_t n = femint_space_num_dofs(s);
    double *u = malloc(sizeof *u * n), *rhs = calloc(n, sizeof *rhs), *r2 = calloc(n, sizeof *r2);
    TAP_CALL(ctx, femint_space_gradient(s, phi, u));
    /* on straight cells u_h is grad phi = a: its L2 distance from the constant field a is 0 */
    double e2 = -1;
    struct field fa = {.c = {a[0], a[1], a[2]}};
    TAP_CALL(ctx, femint_space_l2_error(s, u, 0, NULL, body, &fa, &e2));
    if (!curved)
      tap_ok(e2 >= 0 && sqrt(e2) < 1e-12, "%s, p = %d: u_h is grad phi (%.1e)", what, p,
             sqrt(e2));

    TAP_CALL(ctx, femint_operator_load(op, &(struct femint_load){.body = body, .user = &f}, rhs));
    const double b = dot(rhs, u, n);
    tap_ok(fabs(b - body_exact) < 1e-12 * fabs(body_exact),
           "%s, p = %d: body force %s: rhs . u = %.15g, the integral of f . grad phi = %.15g",
           what, p, curved ? "f = c" : "f = c + B x", b, body_exact);

    memset(rhs, 0, sizeof *rhs * n);
    TAP_CALL(ctx, femint_operator_load(
                      op, &(struct femint_load){.traction = traction, .user = &curved}, rhs));
    const double t_all = dot(rhs, u, n), t_all_exact = traction_exact(a, curved, 0, NULL);
    memset(rhs, 0, sizeof *rhs * n);
    TAP_CALL(ctx, femint_operator_load(op,
                                       &(struct femint_load){.traction = traction, .ntag = 2,
                                                             .tags = tags, .user = &curved},
                                       rhs));
    const double t_two = dot(rhs, u, n), t_two_exact = traction_exact(a, curved, 2, tags);
    tap_ok(fabs(t_all - t_all_exact) < 1e-12 * fabs(t_all_exact) &&
               fabs(t_two - t_two_exact) < 1e-12 * fabs(t_two_exact),
           "%s, p = %d: traction %s: rhs . u over every tagged face %.15g (exact %.15g), over the "
           "faces tagged 2 and 5 %.15g (exact %.15g)",
           what, p, curved ? "g = tag n x e + x_t" : "g = tag n + x", t_all, t_all_exact, t_two,
           t_two_exact);

    /* a body force and a traction of the same data, on the whole mesh and summed over the parts
     * of a cell partition */
    struct field fb = f;
    const struct femint_load both = {.body = body, .traction = body, .user = &fb};
    memset(rhs, 0, sizeof *rhs * n);
    TAP_CALL(ctx, femint_operator_load(op, &both, rhs));
    for (int r = 0; r < 2; r++) {
      int m = 0;
      for (int c = 0; c < nc; c++)
        if ((c / 5) % 2 == r) part[m++] = c;
      femint_operator_t opp;
      const struct femint_operator_options o = {.cells = part, .ncells = m};
      TAP_CALL(ctx, femint_operator_create(ctx, s, 1, &form, &o, &opp));
      TAP_CALL(ctx, femint_operator_load(opp, &both, r2));
      femint_operator_destroy(&opp);
    }
    const double dp = tap_reldiff(r2, rhs, (size_t)n);
    tap_ok(dp < 1e-13, "%s, p = %d: the load vectors of two parts add up to the whole's (%.1e)",
           what, p, dp);

    free(u);
    free(rhs);
    free(r2);
    femint_operator_destroy(&op);
    femint_form_destroy(&form);
    femint_space_destroy(&s);
  }
  free(part);
  free(phi);
  femint_mesh_destroy(&mesh);
}

int main(void)
{
  femint_context_t ctx = test_init();
  run(ctx, 0);
  run(ctx, 1);
  femint_finalize(&ctx);
  return tap_done();
}
