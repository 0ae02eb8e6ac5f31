/* Test: femint_maxwell_assemble (the StarPU pipeline of seed 004) reproduces the plain host
 * assembly of T and S on curved tetrahedra with per-cell tensor coefficients, orders 1..3, double
 * and single, on CPU workers, on OpenCL workers and on both; later assemblies reuse the pattern;
 * discrete gradients are in the kernel of S; bad input is refused with the culprit named. */
#include <stdlib.h>
#include <string.h>

#include "host/maxwell.h"
#include "tet_common.h"

/* Random symmetric positive definite 3 x 3 tensors, one per cell. */
static void random_tensors(int n, uint64_t *rng, double *A)
{
  for (int c = 0; c < n; c++) {
    double L[9] = {0};
    for (int i = 0; i < 3; i++)
      for (int j = 0; j <= i; j++) L[3 * i + j] = i == j ? 1 + test_rand(rng) : 0.3 * (test_rand(rng) - 0.5);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        double s = 0;
        for (int k = 0; k < 3; k++) s += L[3 * i + k] * L[3 * j + k];
        A[9 * c + 3 * i + j] = s;
      }
  }
}

/* Largest difference of two CSR matrices relative to the largest entry of the second; 1e300 when
 * their patterns differ. */
static double csr_diff(femint_matrix_t A, const int64_t *rowptr, const int64_t *colind,
                       const double *val, int64_t n)
{
  int64_t na;
  const int64_t *ra, *ca;
  const double *va;
  femint_matrix_csr(A, &na, &ra, &ca, &va);
  if (na != n || memcmp(ra, rowptr, sizeof *ra * (n + 1)) ||
      memcmp(ca, colind, sizeof *ca * rowptr[n]))
    return 1e300;
  double d = 0, m = 0;
  for (int64_t k = 0; k < rowptr[n]; k++) {
    d = fmax(d, fabs(va[k] - val[k]));
    m = fmax(m, fabs(val[k]));
  }
  return d / m;
}

static femint_maxwell_t mx_of(femint_context_t ctx, femint_tet_mesh_t mesh, int p)
{
  femint_maxwell_t mx;
  TAP_CALL(ctx, femint_maxwell_create(ctx, mesh, p, ~0u, &mx));
  return mx;
}

/* 1 when two patterns are the same, perm and seg included. */
static int same_pattern(const struct coo_pattern *a, const struct coo_pattern *b)
{
  return a->n == b->n && a->nslot == b->nslot && a->nvalid == b->nvalid && a->nnz == b->nnz &&
         !memcmp(a->perm, b->perm, sizeof *a->perm * a->nvalid) &&
         !memcmp(a->seg, b->seg, sizeof *a->seg * (a->nnz + 1)) &&
         !memcmp(a->rowptr, b->rowptr, sizeof *a->rowptr * (a->n + 1)) &&
         !memcmp(a->colind, b->colind, sizeof *a->colind * a->nnz);
}

/* The row-by-row pattern of a DOF map equals the global sort's, on the map given and on one with
 * random DOFs removed. */
static void pattern_case(const struct tet_space *sp, uint64_t *rng)
{
  const int64_t nc = sp->mesh->ncell, nsh = sp->nsh, nslot = nc * nsh * nsh;
  int64_t *dof = malloc(sizeof *dof * nc * nsh), *row = malloc(sizeof *row * nslot),
          *col = malloc(sizeof *col * nslot);
  memcpy(dof, sp->cell_dof, sizeof *dof * nc * nsh);
  int same = 1, broken = 0;
  for (int pass = 0; pass < 2; pass++) {
    if (pass) for (int64_t k = 0; k < nc * nsh; k++) if (test_rand(rng) < 0.2) dof[k] = -1;
    struct coo_pattern a, b;
    tet_coo_indices(nc, (int)nsh, dof, row, col);
    TAP_CALL(NULL, coo_pattern_build(sp->ndof, nslot, row, col, &a));
    TAP_CALL(NULL, coo_pattern_from_cells(sp->ndof, nc, (int)nsh, dof, &b));
    same &= same_pattern(&a, &b);
    if (b.nvalid > 1) {
      const int64_t t = b.perm[0];
      b.perm[0] = b.perm[1];
      b.perm[1] = t;
      broken |= !same_pattern(&a, &b);
    }
    coo_pattern_free(&a);
    coo_pattern_free(&b);
  }
  tap_ok(same && broken,
         "order %d: the row-by-row pattern equals the global sort's (perm, seg, rows, columns), "
         "with the PEC walls and with 20%% more DOFs removed (and a swap is noticed)",
         sp->order);
  free(dof);
  free(row);
  free(col);
}

int main(void)
{
  test_fresh_dmda("t406");
  femint_context_t ctx = test_init();
  int ncpu, nocl;
  femint_context_workers(ctx, &ncpu, &nocl, NULL);
  femint_tet_mesh_t mesh;
  TAP_CALL(ctx, femint_tet_mesh_create_box(ctx, 2, 2, 3, 1, 1.2, 1.5, &mesh));
  TAP_CALL(ctx, femint_tet_mesh_warp(mesh, 0.08));
  const int nc = femint_tet_mesh_num_cells(mesh);
  uint64_t rng = 406;
  double *eps = malloc(sizeof *eps * 9 * nc), *mu = malloc(sizeof *mu * 9 * nc);
  random_tensors(nc, &rng, eps);
  random_tensors(nc, &rng, mu);
  struct tet_coef *k = malloc(sizeof *k * nc);
  for (int c = 0; c < nc; c++) TAP_CALL(NULL, tet_coef_tensor(eps + 9 * c, mu + 9 * c, &k[c]));
  const char *wname[] = {"anywhere", "CPU", "OpenCL"};

  for (int p = 1; p <= 3; p++) {
    femint_maxwell_t mx = mx_of(ctx, mesh, p);
    pattern_case(mx->space, &rng);
    struct tet_system ref;
    TAP_CALL(NULL, tet_assemble(mx->space, mx->re, k, nc, &ref));
    const int64_t n = ref.pattern.n;
    for (int prec = 0; prec < 2; prec++)
      for (int wi = 0; wi < 3; wi++) {
        /* the first assembly builds the pattern: on the CPU for p = 1, on the device for p = 2 */
        const int where = (wi + p) % 3;
        if (where == FEMINT_WHERE_OPENCL && nocl == 0) continue;
        struct femint_maxwell_options o = {.precision = prec, .where = where, .max_batch = 7};
        struct femint_maxwell_stats st;
        femint_matrix_t T, S;
        TAP_CALL(ctx, femint_maxwell_assemble(ctx, mx, nc, eps, mu, &o, &T, &S, &st));
        if (st.pattern_built)
          tap_ok(st.pattern_on_device == (where != FEMINT_WHERE_CPU && nocl > 0),
                 "p = %d: the first assembly (%s) built the pattern %s", p, wname[where],
                 st.pattern_on_device ? "on the OpenCL device" : "on the CPU");
        const double dT = csr_diff(T, ref.pattern.rowptr, ref.pattern.colind, ref.T, n);
        const double dS = csr_diff(S, ref.pattern.rowptr, ref.pattern.colind, ref.S, n);
        const double tol = prec ? 1e-5 : 1e-12;
        tap_ok(dT < tol && dS < tol,
               "p = %d, %s, %s: T and S equal the host assembly (%.1e, %.1e < %.0e), %lld DOFs, "
               "%lld non-zeros, %d batches, tasks %d CPU / %d OpenCL",
               p, prec ? "single" : "double", wname[where], dT, dS, tol, (long long)n,
               (long long)st.nnz, st.nbatch, st.tasks_cpu, st.tasks_opencl);
        if (where == FEMINT_WHERE_CPU) tap_ok(st.tasks_opencl == 0, "  the CPU-only run used no OpenCL worker");
        if (where == FEMINT_WHERE_OPENCL) tap_ok(st.tasks_cpu == 0, "  the OpenCL-only run used no CPU worker");
        femint_matrix_destroy(&T);
        femint_matrix_destroy(&S);
      }
    tet_system_free(&ref);
    femint_maxwell_destroy(&mx);
  }

  /* Pattern reuse, phases, co-execution, gradients: order 2, scalar coefficients. */
  femint_maxwell_t mx = mx_of(ctx, mesh, 2);
  const double e1[9] = {2, 0, 0, 0, 2, 0, 0, 0, 2};
  femint_matrix_t T1, S1, T2, S2;
  struct femint_maxwell_stats s1, s2;
  struct femint_maxwell_options o = {.max_batch = 5};
  TAP_CALL(ctx, femint_maxwell_assemble(ctx, mx, 1, e1, NULL, &o, &T1, &S1, &s1));
  o.phases = 1;
  TAP_CALL(ctx, femint_maxwell_assemble(ctx, mx, 1, e1, NULL, &o, &T2, &S2, &s2));
  const int64_t *rp, *ci;
  const double *v1, *w1;
  int64_t n;
  femint_matrix_csr(T1, &n, &rp, &ci, &v1);
  femint_matrix_csr(S1, NULL, NULL, NULL, &w1);
  const double d1 = csr_diff(T2, rp, ci, v1, n), d2 = csr_diff(S2, rp, ci, w1, n);
  tap_ok(s1.pattern_built == 1 && s2.pattern_built == 0 && d1 < 1e-14 && d2 < 1e-14,
         "the second assembly (waiting between phases) reuses the pattern of the first: the same "
         "matrices (%.1e, %.1e)",
         d1, d2);
  if (nocl > 0 && ncpu > 0)
    tap_ok(s1.tasks_cpu + s2.tasks_cpu > 0 && s1.tasks_opencl + s2.tasks_opencl > 0,
           "dmda gave integration tasks to both kinds of worker (%d CPU, %d OpenCL)",
           s1.tasks_cpu + s2.tasks_cpu, s1.tasks_opencl + s2.tasks_opencl);
  const int nv = femint_tet_mesh_num_vertices(mesh);
  double *phi = malloc(sizeof *phi * nv), *u = malloc(sizeof *u * n), *y = malloc(sizeof *y * n);
  for (int v = 0; v < nv; v++) phi[v] = test_rand(&rng) - 0.5;
  TAP_CALL(NULL, femint_maxwell_gradient(mx, phi, u));
  double smax = 0, unorm = 0, su = 0, tu = 0;
  for (int64_t i = 0; i < rp[n]; i++) smax = fmax(smax, fabs(w1[i]));
  for (int64_t i = 0; i < n; i++) unorm = fmax(unorm, fabs(u[i]));
  femint_matrix_mult(S1, u, y);
  for (int64_t i = 0; i < n; i++) su = fmax(su, fabs(y[i]));
  femint_matrix_mult(T1, u, y);
  for (int64_t i = 0; i < n; i++) tu = fmax(tu, fabs(y[i]));
  tap_ok(unorm > 0.1 && su < 1e-12 * smax * unorm && tu > 1e-3 * unorm,
         "discrete gradients of random vertex fields: |S u| = %.1e (|S| %.2g, |u| %.2g), |T u| = "
         "%.2g",
         su, smax, unorm, tu);
  for (int64_t i = 0; i < n; i++) u[i] = 0;
  u[n / 2] = 1;
  femint_matrix_mult(S1, u, y);
  su = 0;
  for (int64_t i = 0; i < n; i++) su = fmax(su, fabs(y[i]));
  tap_ok(su > 1e-3 * smax, "while a single DOF is not in the kernel of S (%.2g)", su);
  femint_matrix_destroy(&T1);
  femint_matrix_destroy(&S1);
  femint_matrix_destroy(&T2);
  femint_matrix_destroy(&S2);

  /* Bad input. */
  femint_matrix_t T = NULL, S = NULL;
  int ierr = femint_maxwell_assemble(ctx, mx, 3, e1, NULL, NULL, &T, &S, NULL);
  tap_ok(ierr == FEMINT_EINVAL && !T && strstr(femint_last_error(ctx), "3 coefficient sets"),
         "3 coefficient sets: %s", femint_last_error(ctx));
  double *bad = malloc(sizeof *bad * 9 * nc);
  memcpy(bad, eps, sizeof *bad * 9 * nc);
  bad[9 * 5 + 1] = 7;
  ierr = femint_maxwell_assemble(ctx, mx, nc, bad, mu, NULL, &T, &S, NULL);
  tap_ok(ierr == FEMINT_EINVAL && !T && strstr(femint_last_error(ctx), "cell 5"),
         "an unsymmetric eps_r is refused, naming the cell: %s", femint_last_error(ctx));
  femint_maxwell_t m4 = NULL;
  ierr = femint_maxwell_create(ctx, mesh, 4, ~0u, &m4);
  tap_ok(ierr == FEMINT_EORDER && !m4, "order 4: %s", femint_last_error(ctx));
  femint_maxwell_destroy(&mx);
  free(bad);
  free(phi);
  free(u);
  free(y);
  free(eps);
  free(mu);
  free(k);
  femint_tet_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  test_fresh_dmda_remove();
  return tap_done();
}
