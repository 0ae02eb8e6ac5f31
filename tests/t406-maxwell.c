/* Test: an operator of the two H(curl) forms (hcurl_mass and curlcurl, tensor coefficients per
 * cell) reproduces T and S assembled plainly from tet_element_reference on curved tetrahedra,
 * orders 1..3, double and single, on CPU workers, on OpenCL workers and on both, by rows and
 * through coordinates (on the device, and on a CPU team); femint_operator_integrate hands the same
 * element matrices (form 0 and 1, global DOFs) and y = A x rebuilt from them equals the assembled
 * A x; later assemblies reuse the pattern; discrete gradients are in the kernel of S; bad input is
 * refused with the culprit named. */
#include <stdlib.h>
#include <string.h>

#include "host/pattern.h"
#include "tet_common.h"

/* Random symmetric positive definite 3 x 3 tensors, one per cell. */
static void random_tensors(int n, uint64_t *rng, double *A)
{
  for (int c = 0; c < n; c++) {
    double L[9] = {0};
    for (int i = 0; i < 3; i++)
      for (int j = 0; j <= i; j++)
        L[3 * i + j] = i == j ? 1 + test_rand(rng) : 0.3 * (test_rand(rng) - 0.5);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        double s = 0;
        for (int k = 0; k < 3; k++) s += L[3 * i + k] * L[3 * j + k];
        A[9 * c + 3 * i + j] = s;
      }
  }
}

/* T and S of a space assembled plainly: the element matrices of tet_element_reference summed
 * through femint_space_cell_dofs into dense n x n arrays, and which entries the cells touch. */
struct reference {
  int64_t n;
  int ncell, nsh;
  double *Ae[2];     /* [ncell][nsh * nsh] the element matrices of T and S */
  int64_t *dofs;     /* [ncell][nsh] */
  double *A[2];      /* [n][n] T and S */
  unsigned char *nz; /* [n][n] 1 where two DOFs share a cell */
};

static void reference_build(femint_mesh_t mesh, femint_space_t s, int p, const struct tet_coef *k,
                            struct reference *r)
{
  struct refel *re = NULL;
  TAP_CALL(NULL, refel_tet_create(p, &re));
  const int nc = femint_mesh_num_cells(mesh), nsh = re->nsh, nnode = femint_mesh_num_nodes(mesh);
  const int64_t n = femint_space_num_dofs(s);
  *r = (struct reference){.n = n, .ncell = nc, .nsh = nsh};
  r->dofs = malloc(sizeof *r->dofs * nc * nsh);
  r->nz = calloc((size_t)n * n, 1);
  int *sg = malloc(sizeof *sg * nsh);
  for (int f = 0; f < 2; f++) {
    r->Ae[f] = malloc(sizeof(double) * nc * nsh * nsh);
    r->A[f] = calloc((size_t)n * n, sizeof(double));
  }
  double X[3 * MESH_MAX_NODES];
  for (int c = 0; c < nc; c++) {
    double *T = r->Ae[0] + (size_t)c * nsh * nsh, *S = r->Ae[1] + (size_t)c * nsh * nsh;
    const int64_t *d = r->dofs + (size_t)c * nsh;
    TAP_CALL(NULL, femint_mesh_cell_nodes(mesh, c, X));
    TAP_CALL(NULL, tet_element_reference(re, nnode, X, &k[c], T, S));
    TAP_CALL(NULL, femint_space_cell_dofs(s, c, r->dofs + (size_t)c * nsh, sg));
    for (int i = 0; i < nsh; i++)
      for (int j = 0; j < nsh; j++) {
        if (d[i] < 0 || d[j] < 0) continue;
        const size_t at = (size_t)d[i] * n + d[j];
        r->A[0][at] += sg[i] * sg[j] * T[i * nsh + j];
        r->A[1][at] += sg[i] * sg[j] * S[i * nsh + j];
        r->nz[at] = 1;
      }
  }
  free(sg);
  refel_destroy(&re);
}

static void reference_free(struct reference *r)
{
  for (int f = 0; f < 2; f++) free(r->Ae[f]), free(r->A[f]);
  free(r->dofs);
  free(r->nz);
}

/* Largest difference of a CSR matrix from the dense reference D relative to D's largest entry;
 * 1e300 when its pattern is not the set of DOF pairs that share a cell. */
static double csr_vs_reference(femint_matrix_t A, const struct reference *r, const double *D)
{
  int64_t n;
  const int64_t *rp, *ci;
  const double *v;
  femint_matrix_csr(A, &n, &rp, &ci, &v);
  if (n != r->n) return 1e300;
  double d = 0, m = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t k = rp[i];
    for (int64_t j = 0; j < n; j++) {
      m = fmax(m, fabs(D[i * n + j]));
      if (!r->nz[i * n + j]) continue;
      if (k >= rp[i + 1] || ci[k] != j) return 1e300;
      d = fmax(d, fabs(v[k++] - D[i * n + j]));
    }
    if (k != rp[i + 1]) return 1e300;
  }
  return d / m;
}

/* Entry (i, j) of element matrix k of a batch, in its precision and storage. */
static double entry(const struct femint_element_batch *b, int k, int i, int j)
{
  const size_t per = b->symmetric ? (size_t)b->n * (b->n + 1) / 2 : (size_t)b->n * b->n;
  const size_t at = (size_t)k * per + (size_t)pattern_entry(b->n, i, j, b->symmetric);
  return b->precision == FEMINT_SINGLE ? ((const float *)b->mats)[at]
                                       : ((const double *)b->mats)[at];
}

/* What the element function checks and accumulates: each cell once per form, the element
 * matrices against the reference's, the DOFs against femint_space_cell_dofs, y[form] += A_e x. */
struct sink {
  const struct reference *r;
  const double *x;
  double *y[2];
  int *seen; /* [2][ncell] */
  int wrong; /* bad form indices, sizes, DOFs */
  double emax; /* largest relative difference of an element matrix */
};

static int take(const struct femint_element_batch *b, void *user)
{
  struct sink *s = user;
  const struct reference *r = s->r;
  const int n = b->n;
  if (b->form < 0 || b->form > 1 || n != r->nsh) {
    s->wrong++;
    return 0;
  }
  for (int k = 0; k < b->ncell; k++) {
    const int c = b->cells[k];
    s->seen[b->form * r->ncell + c]++;
    const int64_t *dofs = b->dofs + (size_t)k * n;
    const int *sg = b->signs + (size_t)k * n;
    const double *Ae = r->Ae[b->form] + (size_t)c * n * n;
    s->wrong += memcmp(dofs, r->dofs + (size_t)c * n, sizeof *dofs * n) != 0;
    double d = 0, m = 0;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        d = fmax(d, fabs(entry(b, k, i, j) - Ae[i * n + j]));
        m = fmax(m, fabs(Ae[i * n + j]));
      }
    s->emax = fmax(s->emax, d / m);
    for (int i = 0; i < n; i++) {
      if (dofs[i] < 0) continue;
      double acc = 0;
      for (int j = 0; j < n; j++)
        if (dofs[j] >= 0) acc += sg[i] * sg[j] * entry(b, k, i, j) * s->x[dofs[j]];
      s->y[b->form][dofs[i]] += acc;
    }
  }
  return 0;
}

static const char *const where_name[] = {"both kinds", "CPU", "OpenCL"};
static const char *const assembly_name[] = {"auto", "by rows", "through COO"};

/* The assemblies of one order: every precision, set of workers and assembly path. */
static void assemble_cases(femint_context_t ctx, femint_space_t s, const femint_form_t *forms,
                           int p, int nocl, const struct reference *r)
{
  for (int prec = 0; prec < 2; prec++)
    for (int where = FEMINT_WHERE_ANY; where <= FEMINT_WHERE_OPENCL; where++)
      for (int as = FEMINT_ASSEMBLY_ROWS; as <= FEMINT_ASSEMBLY_COO; as++) {
        if (where == FEMINT_WHERE_OPENCL && nocl == 0) continue;
        struct femint_operator_options o = {.precision = prec, .where = where, .max_batch = 7,
                                            .assembly = as};
        femint_operator_t op;
        femint_matrix_t A[2];
        struct femint_stats st;
        TAP_CALL(ctx, femint_operator_create(ctx, s, 2, forms, &o, &op));
        TAP_CALL(ctx, femint_operator_assemble(op, A, &st));
        femint_operator_destroy(&op);
        const double dT = csr_vs_reference(A[0], r, r->A[0]);
        const double dS = csr_vs_reference(A[1], r, r->A[1]);
        const double tol = prec ? 1e-5 : 1e-12;
        const int device = as == FEMINT_ASSEMBLY_COO && where != FEMINT_WHERE_CPU && nocl > 0;
        tap_ok(dT < tol && dS < tol && st.assembly == as && st.on_device == device &&
                   st.pattern_built == 1 && st.nform == 2,
               "p = %d, %s, %s, %s%s: T and S equal the plain assembly, the pattern the DOF pairs "
               "of the cells (%.1e, %.1e < %.0e), %lld DOFs, %lld non-zeros, %d batches, tasks "
               "%d CPU / %d OpenCL",
               p, prec ? "single" : "double", where_name[where], assembly_name[st.assembly],
               st.on_device ? " on the device"
                            : (as == FEMINT_ASSEMBLY_COO ? " on a CPU team" : ""),
               dT, dS, tol, (long long)r->n, (long long)st.nnz, st.nbatch, st.tasks_cpu,
               st.tasks_opencl);
        if (where == FEMINT_WHERE_CPU)
          tap_ok(st.tasks_opencl == 0, "  the CPU-only run used no OpenCL worker");
        if (where == FEMINT_WHERE_OPENCL)
          tap_ok(st.tasks_cpu == 0, "  the OpenCL-only run used no CPU worker");
        femint_matrix_destroy(&A[0]);
        femint_matrix_destroy(&A[1]);
      }
}

/* femint_operator_integrate: the element matrices of both forms against the reference's, and
 * y = A x from the batches against the assembled A x; femint_operator_element_matrix too. */
static void integrate_cases(femint_context_t ctx, femint_space_t s, const femint_form_t *forms,
                            int p, const struct reference *r, uint64_t *rng)
{
  const int64_t n = r->n;
  double *x = malloc(sizeof *x * n), *y = malloc(sizeof *y * 2 * n), *ya = malloc(sizeof *ya * n);
  for (int64_t i = 0; i < n; i++) x[i] = test_rand(rng) - 0.5;
  struct sink sk = {.r = r, .x = x, .y = {y, y + n}, .seen = malloc(sizeof(int) * 2 * r->ncell)};
  for (int prec = 0; prec < 2; prec++) {
    struct femint_operator_options o = {.precision = prec, .max_batch = 6};
    femint_operator_t op;
    femint_matrix_t A[2];
    struct femint_stats st;
    TAP_CALL(ctx, femint_operator_create(ctx, s, 2, forms, &o, &op));
    TAP_CALL(ctx, femint_operator_assemble(op, A, NULL));
    memset(y, 0, sizeof *y * 2 * n);
    memset(sk.seen, 0, sizeof(int) * 2 * r->ncell);
    sk.wrong = 0;
    sk.emax = 0;
    TAP_CALL(ctx, femint_operator_integrate(op, take, &sk, &st));
    int bad = 0;
    for (int c = 0; c < 2 * r->ncell; c++) bad += sk.seen[c] != 1;
    double dy = 0;
    for (int f = 0; f < 2; f++) {
      femint_matrix_mult(A[f], x, ya);
      dy = fmax(dy, tap_reldiff(y + f * n, ya, (size_t)n));
    }
    const double tol = prec ? 1e-5 : 1e-12;
    tap_ok(bad == 0 && sk.wrong == 0 && sk.emax < tol && dy < tol,
           "p = %d, %s: femint_operator_integrate hands each cell once for each form (%d wrong), "
           "with its DOFs (%d wrong), the element matrices of the reference (%.1e) and y = A x of "
           "both forms (%.1e < %.0e)",
           p, prec ? "single" : "double", bad, sk.wrong,
           sk.emax, dy, tol);
    if (!prec) {
      const int nsh = r->nsh;
      double *Ae = malloc(sizeof *Ae * nsh * nsh), emax = 0;
      for (int f = 0; f < 2; f++)
        for (int c = 0; c < r->ncell; c++) {
          TAP_CALL(ctx, femint_operator_element_matrix(op, f, c, Ae));
          emax = fmax(emax, tap_reldiff(Ae, r->Ae[f] + (size_t)c * nsh * nsh, (size_t)nsh * nsh));
        }
      tap_ok(emax < 1e-12, "p = %d: femint_operator_element_matrix gives the reference's T and S "
                           "of every cell (%.1e)",
             p, emax);
      free(Ae);
    }
    femint_matrix_destroy(&A[0]);
    femint_matrix_destroy(&A[1]);
    femint_operator_destroy(&op);
  }
  free(sk.seen);
  free(x);
  free(y);
  free(ya);
}

/* Two assemblies of one operator (waiting between phases when phases is set): the second reuses
 * the pattern and gives the same matrices. Returns the first ones. */
static void reuse_case(femint_context_t ctx, femint_space_t s, const femint_form_t *forms, int as,
                       int phases, femint_matrix_t *A, int *tasks)
{
  struct femint_operator_options o = {.max_batch = 5, .assembly = as, .phases = phases};
  femint_operator_t op;
  femint_matrix_t B[2];
  struct femint_stats s1, s2;
  TAP_CALL(ctx, femint_operator_create(ctx, s, 2, forms, &o, &op));
  TAP_CALL(ctx, femint_operator_assemble(op, A, &s1));
  TAP_CALL(ctx, femint_operator_assemble(op, B, &s2));
  femint_operator_destroy(&op);
  const double d1 = test_matrix_reldiff(B[0], A[0]), d2 = test_matrix_reldiff(B[1], A[1]);
  tap_ok(s1.pattern_built == 1 && s2.pattern_built == 0 && d1 < 1e-14 && d2 < 1e-14,
         "%s%s: the second assembly reuses the pattern of the first: the same matrices (%.1e, "
         "%.1e)",
         assembly_name[s1.assembly], phases ? ", waiting between phases" : "", d1, d2);
  tasks[0] += s1.tasks_cpu + s2.tasks_cpu;
  tasks[1] += s1.tasks_opencl + s2.tasks_opencl;
  femint_matrix_destroy(&B[0]);
  femint_matrix_destroy(&B[1]);
}

int main(void)
{
  test_fresh_dmda("t406");
  femint_context_t ctx = test_init();
  int ncpu, nocl;
  femint_context_workers(ctx, &ncpu, &nocl, NULL);
  femint_mesh_t mesh;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_TET, 2, 2, 3, 1, 1.2, 1.5, 0, 1, &mesh));
  TAP_CALL(ctx, femint_mesh_warp(mesh, 0.08));
  const int nc = femint_mesh_num_cells(mesh);
  uint64_t rng = 406;
  double *eps = malloc(sizeof *eps * 9 * nc), *mu = malloc(sizeof *mu * 9 * nc);
  random_tensors(nc, &rng, eps);
  random_tensors(nc, &rng, mu);
  struct tet_coef *k = malloc(sizeof *k * nc);
  for (int c = 0; c < nc; c++) TAP_CALL(NULL, tet_coef_tensor(eps + 9 * c, mu + 9 * c, &k[c]));
  femint_form_t forms[2];
  TAP_CALL(ctx, femint_form_create_hcurl_mass(ctx, nc, 1, eps, &forms[0]));
  TAP_CALL(ctx, femint_form_create_curlcurl(ctx, nc, 1, mu, &forms[1]));

  for (int p = 1; p <= 3; p++) {
    femint_space_t s;
    TAP_CALL(ctx, femint_space_create(ctx, mesh, FEMINT_HCURL, 1, NULL, p, &s));
    TAP_CALL(ctx, femint_space_remove_boundary_dofs(s, 0, NULL));
    struct reference r;
    reference_build(mesh, s, p, k, &r);
    assemble_cases(ctx, s, forms, p, nocl, &r);
    integrate_cases(ctx, s, forms, p, &r, &rng);
    reference_free(&r);
    femint_space_destroy(&s);
  }

  /* Pattern reuse, phases, co-execution, gradients: order 2, scalar coefficients. */
  femint_space_t s;
  TAP_CALL(ctx, femint_space_create(ctx, mesh, FEMINT_HCURL, 1, NULL, 2, &s));
  TAP_CALL(ctx, femint_space_remove_boundary_dofs(s, 0, NULL));
  const double two = 2, one = 1;
  femint_form_t scal[2];
  TAP_CALL(ctx, femint_form_create_hcurl_mass(ctx, 1, 0, &two, &scal[0]));
  TAP_CALL(ctx, femint_form_create_curlcurl(ctx, 1, 0, &one, &scal[1]));
  femint_matrix_t A1[2], A2[2];
  int tasks[2] = {0, 0};
  reuse_case(ctx, s, scal, FEMINT_ASSEMBLY_ROWS, 0, A1, tasks);
  reuse_case(ctx, s, scal, FEMINT_ASSEMBLY_COO, 1, A2, tasks);
  const double dr = fmax(test_matrix_reldiff(A2[0], A1[0]), test_matrix_reldiff(A2[1], A1[1]));
  tap_ok(dr < 1e-14, "rows and COO give the same T and S (%.1e)", dr);
  if (nocl > 0 && ncpu > 0)
    tap_ok(tasks[0] > 0 && tasks[1] > 0,
           "dmda gave integration tasks to both kinds of worker (%d CPU, %d OpenCL)", tasks[0],
           tasks[1]);
  const int64_t *rp, *ci;
  const double *v1, *w1;
  int64_t n;
  femint_matrix_csr(A1[0], &n, &rp, &ci, &v1);
  femint_matrix_csr(A1[1], NULL, NULL, NULL, &w1);
  const int nv = femint_mesh_num_vertices(mesh);
  double *phi = malloc(sizeof *phi * nv), *u = malloc(sizeof *u * n), *y = malloc(sizeof *y * n);
  for (int v = 0; v < nv; v++) phi[v] = test_rand(&rng) - 0.5;
  TAP_CALL(ctx, femint_space_gradient(s, phi, u));
  double smax = 0, unorm = 0, su = 0, tu = 0;
  for (int64_t i = 0; i < rp[n]; i++) smax = fmax(smax, fabs(w1[i]));
  for (int64_t i = 0; i < n; i++) unorm = fmax(unorm, fabs(u[i]));
  femint_matrix_mult(A1[1], u, y);
  for (int64_t i = 0; i < n; i++) su = fmax(su, fabs(y[i]));
  femint_matrix_mult(A1[0], u, y);
  for (int64_t i = 0; i < n; i++) tu = fmax(tu, fabs(y[i]));
  tap_ok(unorm > 0.1 && su < 1e-12 * smax * unorm && tu > 1e-3 * unorm,
         "discrete gradients of random vertex fields: |S u| = %.1e (|S| %.2g, |u| %.2g), |T u| = "
         "%.2g",
         su, smax, unorm, tu);
  for (int64_t i = 0; i < n; i++) u[i] = 0;
  u[n / 2] = 1;
  femint_matrix_mult(A1[1], u, y);
  su = 0;
  for (int64_t i = 0; i < n; i++) su = fmax(su, fabs(y[i]));
  tap_ok(su > 1e-3 * smax, "while a single DOF is not in the kernel of S (%.2g)", su);
  for (int f = 0; f < 2; f++) femint_matrix_destroy(&A1[f]), femint_matrix_destroy(&A2[f]);

  /* Bad input. */
  femint_form_t f3 = NULL;
  femint_operator_t op = NULL;
  const double e3[3] = {1, 2, 3};
  TAP_CALL(ctx, femint_form_create_hcurl_mass(ctx, 3, 0, e3, &f3));
  int ierr = femint_operator_create(ctx, s, 1, &f3, NULL, &op);
  tap_ok(ierr == FEMINT_EINVAL && !op && strstr(femint_last_error(ctx), "coefficients for 3 cells"),
         "coefficients for 3 cells: %s", femint_last_error(ctx));
  femint_form_destroy(&f3);
  double *bad = malloc(sizeof *bad * 9 * nc);
  memcpy(bad, eps, sizeof *bad * 9 * nc);
  bad[9 * 5 + 1] = 7;
  ierr = femint_form_create_hcurl_mass(ctx, nc, 1, bad, &f3);
  tap_ok(ierr == FEMINT_EINVAL && !f3 && strstr(femint_last_error(ctx), "cell 5"),
         "an unsymmetric eps_r is refused, naming the cell: %s", femint_last_error(ctx));
  ierr = femint_form_create_curlcurl(ctx, 1, 0, (const double[]){-1}, &f3);
  tap_ok(ierr == FEMINT_EINVAL && !f3, "a negative mu_r is refused: %s", femint_last_error(ctx));
  femint_form_t lap = NULL;
  TAP_CALL(ctx, femint_form_create_laplace(ctx, 1, 1, &one, &lap));
  ierr = femint_operator_create(ctx, s, 1, &lap, NULL, &op);
  tap_ok(ierr == FEMINT_EINVAL && !op && strstr(femint_last_error(ctx), "H(curl)"),
         "an H1 form on an H(curl) space is refused: %s", femint_last_error(ctx));
  femint_form_destroy(&lap);
  femint_space_t s4 = NULL;
  ierr = femint_space_create(ctx, mesh, FEMINT_HCURL, 1, NULL, 4, &s4);
  tap_ok(ierr == FEMINT_EORDER && !s4, "order 4: %s", femint_last_error(ctx));
  int *orders = malloc(sizeof *orders * nc);
  for (int c = 0; c < nc; c++) orders[c] = 1 + c % 2;
  ierr = femint_space_create(ctx, mesh, FEMINT_HCURL, 1, orders, 0, &s4);
  tap_ok(ierr == FEMINT_ENOTSUP && !s4, "mixed orders: %s", femint_last_error(ctx));
  ierr = femint_space_create(ctx, mesh, FEMINT_H1, 1, orders, 0, &s4);
  tap_ok(ierr == FEMINT_ENOTSUP && !s4, "mixed orders in a Lagrange space: %s",
         femint_last_error(ctx));
  /* an operator made before DOFs are removed refuses its verbs */
  TAP_CALL(ctx, femint_operator_create(ctx, s, 2, scal, NULL, &op));
  TAP_CALL(ctx, femint_space_remove_boundary_dofs(s, 0, NULL));
  ierr = femint_operator_assemble(op, A1, NULL);
  tap_ok(ierr == FEMINT_ESTATE && !A1[0], "DOFs removed after the operator was made: %s",
         femint_last_error(ctx));
  femint_operator_destroy(&op);

  free(orders);
  free(bad);
  free(phi);
  free(u);
  free(y);
  free(eps);
  free(mu);
  free(k);
  for (int f = 0; f < 2; f++) femint_form_destroy(&forms[f]), femint_form_destroy(&scal[f]);
  femint_space_destroy(&s);
  femint_mesh_destroy(&mesh);
  femint_finalize(&ctx);
  test_fresh_dmda_remove();
  return tap_done();
}
