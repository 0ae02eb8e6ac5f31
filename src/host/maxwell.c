/* femint's Maxwell API on the host side: tetrahedral meshes, the H(curl) space object with its
 * reference tables, the discrete gradient, and the per-cell element matrices of the CPU codelet
 * (the assembly itself is src/scheduler/maxwell_driver.c). */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if FEMINT_HAVE_CBLAS
#include <cblas.h>
#endif

#include "gmsh.h"
#include "maxwell.h"

/* ---- meshes ---- */

static int wrap_mesh(femint_context_t ctx, struct tet_mesh *m, femint_tet_mesh_t *mesh)
{
  struct femint_tet_mesh *w = calloc(1, sizeof *w);
  if (!w) {
    tet_mesh_destroy(&m);
    return femint_seterr(ctx, FEMINT_ENOMEM, "tetrahedral mesh: out of memory");
  }
  w->ctx = ctx;
  w->m = m;
  *mesh = w;
  return 0;
}

/* The library's internal calls record errors per thread; the public ones also in the context. */
static int relay(femint_context_t ctx, int err)
{
  if (!err || !ctx) return err;
  return femint_seterr(ctx, err, "%s", femint_thread_error());
}

int femint_tet_mesh_create(femint_context_t ctx, int nvert, const double *coords, int ncell,
                           const int *cells, femint_tet_mesh_t *mesh)
{
  FEMINT_CHECK(mesh, ctx, FEMINT_EINVAL, "tet_mesh_create: NULL mesh");
  *mesh = NULL;
  FEMINT_CHECK(coords && cells, ctx, FEMINT_EINVAL, "tet_mesh_create: NULL coords or cells");
  struct tet_mesh *m = NULL;
  FEMINT_CALL(relay(ctx, tet_mesh_create(nvert, coords, ncell, cells, &m)));
  return wrap_mesh(ctx, m, mesh);
}

int femint_tet_mesh_create_box(femint_context_t ctx, int nx, int ny, int nz, double lx, double ly,
                               double lz, femint_tet_mesh_t *mesh)
{
  FEMINT_CHECK(mesh, ctx, FEMINT_EINVAL, "tet_mesh_create_box: NULL mesh");
  *mesh = NULL;
  struct tet_mesh *m = NULL;
  FEMINT_CALL(relay(ctx, tet_mesh_create_box(nx, ny, nz, lx, ly, lz, &m)));
  return wrap_mesh(ctx, m, mesh);
}

int femint_tet_mesh_read_gmsh(femint_context_t ctx, const char *path, femint_tet_mesh_t *mesh)
{
  FEMINT_CHECK(mesh && path, ctx, FEMINT_EINVAL, "tet_mesh_read_gmsh: NULL argument");
  *mesh = NULL;
  struct tet_mesh *m = NULL;
  FEMINT_CALL(relay(ctx, gmsh_read_tet_mesh(path, -1, &m)));
  return wrap_mesh(ctx, m, mesh);
}

struct warp {
  double lo[3], len[3], amp;
};

static void warp_map(const double *x, double *y, void *user)
{
  const struct warp *w = user;
  double s = w->amp;
  for (int d = 0; d < 3; d++) s *= sin(M_PI * (x[d] - w->lo[d]) / w->len[d]);
  for (int d = 0; d < 3; d++) y[d] = x[d] + s;
}

int femint_tet_mesh_warp(femint_tet_mesh_t mesh, double amplitude)
{
  FEMINT_CHECK(mesh, NULL, FEMINT_EINVAL, "tet_mesh_warp: NULL mesh");
  FEMINT_CHECK(isfinite(amplitude), mesh->ctx, FEMINT_EINVAL,
               "tet_mesh_warp: amplitude %g is not finite", amplitude);
  const struct tet_mesh *m = mesh->m;
  struct warp w = {{INFINITY, INFINITY, INFINITY}, {0, 0, 0}, amplitude};
  double hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int v = 0; v < m->nvert; v++)
    for (int d = 0; d < 3; d++) {
      w.lo[d] = fmin(w.lo[d], m->coords[3 * v + d]);
      hi[d] = fmax(hi[d], m->coords[3 * v + d]);
    }
  for (int d = 0; d < 3; d++) w.len[d] = hi[d] - w.lo[d];
  return relay(mesh->ctx, tet_mesh_map(mesh->m, warp_map, &w));
}

int femint_tet_mesh_destroy(femint_tet_mesh_t *mesh)
{
  if (!mesh || !*mesh) return 0;
  tet_mesh_destroy(&(*mesh)->m);
  free(*mesh);
  *mesh = NULL;
  return 0;
}

int femint_tet_mesh_num_cells(femint_tet_mesh_t mesh) { return mesh ? mesh->m->ncell : -1; }
int femint_tet_mesh_num_vertices(femint_tet_mesh_t mesh) { return mesh ? mesh->m->nvert : -1; }
int femint_tet_mesh_num_nodes(femint_tet_mesh_t mesh) { return mesh ? mesh->m->nnode : -1; }

/* ---- the space ---- */

int femint_maxwell_create(femint_context_t ctx, femint_tet_mesh_t mesh, int order,
                          unsigned pec_tags, femint_maxwell_t *mx)
{
  FEMINT_CHECK(mx, ctx, FEMINT_EINVAL, "maxwell_create: NULL result");
  *mx = NULL;
  FEMINT_CHECK(mesh, ctx, FEMINT_EINVAL, "maxwell_create: NULL mesh");
  FEMINT_CHECK(order >= 1 && order <= TET_MAX_ORDER, ctx, FEMINT_EORDER,
               "maxwell_create: order %d (H(curl) tetrahedra have orders 1..%d)", order,
               TET_MAX_ORDER);
  struct femint_maxwell *x = calloc(1, sizeof *x);
  FEMINT_CHECK(x, ctx, FEMINT_ENOMEM, "maxwell_create: out of memory");
  x->ctx = ctx;
  x->mesh = mesh;
  int err = relay(ctx, refel_tet_create(order, &x->re));
  if (!err) err = relay(ctx, tet_space_create(mesh->m, x->re, pec_tags, &x->space));
  if (err) {
    femint_maxwell_destroy(&x);
    return err;
  }
  x->nslot = (int64_t)mesh->m->ncell * x->re->nsh * x->re->nsh;
  *mx = x;
  return 0;
}

int femint_maxwell_destroy(femint_maxwell_t *mx)
{
  if (!mx || !*mx) return 0;
  struct femint_maxwell *x = *mx;
  for (int p = 0; p < 2; p++) {
    if (x->tab[p].h) starpu_data_unregister(x->tab[p].h);
    free(x->tab[p].data);
  }
  for (int d = 0; d < FEMINT_MAX_CL_DEVICES; d++)
    if (x->coo_cl[d]) {
      coo_cl_destroy(x->coo_cl[d]);
      free(x->coo_cl[d]);
    }
  if (x->h_perm) starpu_data_unregister_no_coherency(x->h_perm);
  if (x->h_seg) starpu_data_unregister_no_coherency(x->h_seg);
  free(x->rowptr);
  free(x->colind);
  tet_space_destroy(&x->space);
  refel_tet_destroy(&x->re);
  free(x);
  *mx = NULL;
  return 0;
}

int64_t femint_maxwell_num_dofs(femint_maxwell_t mx) { return mx ? mx->space->ndof : -1; }

int femint_maxwell_gradient(femint_maxwell_t mx, const double *phi, double *u)
{
  FEMINT_CHECK(mx && phi && u, NULL, FEMINT_EINVAL, "maxwell_gradient: NULL argument");
  const struct tet_mesh *m = mx->mesh->m;
  const struct tet_space *sp = mx->space;
  const int p = sp->order;
  /* A vertex is on a wall exactly when one of its edges is: its Whitney DOF is removed. */
  char *wall = calloc((size_t)m->nvert, 1);
  FEMINT_CHECK(wall, mx->ctx, FEMINT_ENOMEM, "maxwell_gradient: out of memory");
  for (int e = 0; e < m->nedge; e++)
    if (sp->all_free[(int64_t)e * p] < 0) wall[m->edge_vert[2 * e]] = wall[m->edge_vert[2 * e + 1]] = 1;
  memset(u, 0, sizeof *u * sp->ndof);
  for (int e = 0; e < m->nedge; e++) {
    const int64_t k = sp->all_free[(int64_t)e * p];
    if (k < 0) continue;
    const int a = m->edge_vert[2 * e], b = m->edge_vert[2 * e + 1];
    u[k] = (wall[b] ? 0 : phi[b]) - (wall[a] ? 0 : phi[a]);
  }
  free(wall);
  return 0;
}

/* ---- reference tables ---- */

size_t maxwell_table_size(const struct refel_tet *re, int nnode)
{
  return (size_t)re->nq * (6 * re->nsh + 3 * nnode + 1);
}

void maxwell_table_fill(const struct refel_tet *re, int nnode, double *d)
{
  const int nq = re->nq;
  const size_t nv = (size_t)nq * 3 * re->nsh, nd = (size_t)nq * nnode * 3;
  memcpy(d, re->val, sizeof *d * nv);
  memcpy(d + nv, re->curl, sizeof *d * nv);
  for (int q = 0; q < nq; q++) geom_tet_nodes(nnode, &re->xq[3 * q], NULL, d + 2 * nv + (size_t)q * nnode * 3);
  memcpy(d + 2 * nv + nd, re->wq, sizeof *d * nq);
}

int maxwell_tables(struct femint_maxwell *mx, int precision, starpu_data_handle_t *h)
{
  struct maxwell_tables *t = &mx->tab[precision == FEMINT_SINGLE];
  if (t->h) {
    *h = t->h;
    return 0;
  }
  t->n = maxwell_table_size(mx->re, mx->mesh->m->nnode);
  double *d = malloc(sizeof *d * t->n);
  FEMINT_CHECK(d, mx->ctx, FEMINT_ENOMEM, "Maxwell tables: out of memory");
  maxwell_table_fill(mx->re, mx->mesh->m->nnode, d);
  if (precision == FEMINT_SINGLE) {
    float *f = malloc(sizeof *f * t->n);
    if (!f) {
      free(d);
      return femint_seterr(mx->ctx, FEMINT_ENOMEM, "Maxwell tables: out of memory");
    }
    for (size_t i = 0; i < t->n; i++) f[i] = (float)d[i];
    free(d);
    t->data = f;
  } else {
    t->data = d;
  }
  starpu_vector_data_register(&t->h, STARPU_MAIN_RAM, (uintptr_t)t->data, (uint32_t)t->n,
                              precision == FEMINT_SINGLE ? sizeof(float) : sizeof(double));
  *h = t->h;
  return 0;
}

/* ---- one cell on the CPU ---- */

size_t maxwell_cell_scratch(const struct refel_tet *re)
{
  return (size_t)3 * re->nq * re->nsh + (size_t)re->nsh * re->nsh;
}

/* R upper triangular with R^T R = A (A symmetric positive definite 3 x 3). */
static void cholesky3(const double *A, double *R)
{
  R[0] = sqrt(A[0]);
  R[1] = A[1] / R[0];
  R[2] = A[2] / R[0];
  R[3] = 0;
  R[4] = sqrt(A[4] - R[1] * R[1]);
  R[5] = (A[5] - R[1] * R[2]) / R[4];
  R[6] = R[7] = 0;
  R[8] = sqrt(A[8] - R[2] * R[2] - R[5] * R[5]);
}

/* T_e = sum_q N_q^T A_q N_q with A_q = w |det J| J^-1 eps J^-T, S_e the same with the curls and
 * A_q = (w / |det J|) J^T nu J. Each A_q = R_q^T R_q, so that with the rows R_q F_q of all points
 * stacked into P (3 nq x nsh), M = P^T P: one symmetric rank-k update per cell. */
void maxwell_cell_matrix(const struct refel_tet *re, int which, int nnode, const double *X,
                         const double *k, double *scratch, int single, void *M)
{
  const int nq = re->nq, nsh = re->nsh, rows = 3 * nq;
  const double *F = which == MAXWELL_T ? re->val : re->curl;
  double *P = scratch, *G = scratch + (size_t)rows * nsh;
  for (int q = 0; q < nq; q++) {
    double J[9], K[9], A[9], R[9];
    geom_tet_jacobian(nnode, X, &re->xq[3 * q], J);
    const double adet = fabs(geom_inverse3(J, K));
    if (which == MAXWELL_T) {
      tet_congruence(re->wq[q] * adet, K, k, A);
    } else {
      double JT[9];
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) JT[3 * i + j] = J[3 * j + i];
      tet_congruence(re->wq[q] / adet, JT, k + 9, A);
    }
    cholesky3(A, R);
    const double *f = F + (size_t)q * 3 * nsh;
    for (int a = 0; a < 3; a++) {
      double *row = P + (size_t)(3 * q + a) * nsh;
      for (int i = 0; i < nsh; i++)
        row[i] = R[3 * a] * f[i] + R[3 * a + 1] * f[nsh + i] + R[3 * a + 2] * f[2 * nsh + i];
    }
  }
#if FEMINT_HAVE_CBLAS
  cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, nsh, rows, 1.0, P, nsh, 0.0, G, nsh);
#else
  for (int i = 0; i < nsh; i++)
    for (int j = i; j < nsh; j++) G[i * nsh + j] = 0;
  for (int r = 0; r < rows; r++) {
    const double *pr = P + (size_t)r * nsh;
    for (int i = 0; i < nsh; i++) {
      const double a = pr[i];
      for (int j = i; j < nsh; j++) G[i * nsh + j] += a * pr[j];
    }
  }
#endif
  for (int i = 0; i < nsh; i++)
    for (int j = 0; j < nsh; j++) {
      const double v = j >= i ? G[i * nsh + j] : G[j * nsh + i];
      if (single) ((float *)M)[i * nsh + j] = (float)v;
      else ((double *)M)[i * nsh + j] = v;
    }
}
