/* Test: tetrahedral box meshes are conforming with sorted cells and tagged walls, curved maps keep
 * the domain, the H(curl) DOF map counts and removes the right DOFs and gives shared faces one
 * tangential trace, and COO assembly to CSR sums duplicates exactly. */
#include "host/mesh_tet.h"
#include "tet_common.h"

static void test_box(void)
{
  struct tet_mesh *m = NULL;
  const int nx = 3, ny = 2, nz = 4;
  TAP_CALL(NULL, tet_mesh_create_box(nx, ny, nz, 1.5, 1, 2, &m));
  int sorted = 1, nb = 0, tags[7] = {0}, conform = 1, pos = 0, neg = 0;
  double vol = 0;
  for (int c = 0; c < m->ncell; c++) {
    const int *v = m->cells + 4 * c;
    sorted = sorted && v[0] < v[1] && v[1] < v[2] && v[2] < v[3];
    double X[12], J[9];
    tet_mesh_cell_nodes(m, c, X);
    const double det = geom_tet_jacobian(4, X, tet_vert_xi[0], J);
    vol += fabs(det) / 6;
    pos += det > 0;
    neg += det < 0;
  }
  for (int f = 0; f < m->nface; f++) {
    const int t = m->face_tag[f], inside = m->face_cell[2 * f + 1] >= 0;
    if (inside != (t == 0) || t < 0 || t > 6) conform = 0;
    nb += t > 0;
    if (t > 0 && t <= 6) tags[t]++;
  }
  const int euler = m->nvert - m->nedge + m->nface - m->ncell;
  tap_ok(m->nvert == 4 * 3 * 5 && m->ncell == 6 * nx * ny * nz && euler == 1 && conform,
         "box 3 x 2 x 4: %d vertices, %d cells, V - E + F - C = %d, every inner face has two "
         "cells and every other a tag",
         m->nvert, m->ncell, euler);
  tap_ok(nb == 4 * (nx * ny + ny * nz + nz * nx) && tags[1] == 2 * ny * nz &&
             tags[2] == 2 * ny * nz && tags[3] == 2 * nx * nz && tags[4] == 2 * nx * nz &&
             tags[5] == 2 * nx * ny && tags[6] == 2 * nx * ny,
         "box: %d boundary faces, two per square of each wall, tagged 1..6 by wall", nb);
  tap_ok(sorted && fabs(vol - 3) < 1e-13 && pos > 0 && neg > 0,
         "box: cells keep ascending vertices (%d positively, %d negatively oriented) and fill "
         "the volume 3 (%.15g)",
         pos, neg, vol);
  tet_mesh_destroy(&m);
}

/* x + d sin(pi x) sin(pi y) sin(pi z) (1, 1, 1) on the unit cube: a curved mesh of the cube. */
static void bulge(const double *x, double *y, void *user)
{
  const double d = *(const double *)user;
  const double s = sin(M_PI * x[0]) * sin(M_PI * x[1]) * sin(M_PI * x[2]);
  for (int i = 0; i < 3; i++) y[i] = x[i] + d * s;
}

static void test_curved(void)
{
  struct tet_mesh *m = NULL;
  struct refel_tet *re = NULL;
  TAP_CALL(NULL, refel_tet_create(1, &re));
  TAP_CALL(NULL, tet_mesh_create_box(3, 3, 3, 1, 1, 1, &m));
  double d = 0.05, vol = 0, node_err = 0;
  /* The edge nodes must be the images of the straight midpoints. */
  double *mid = malloc(sizeof(double) * 3 * m->nedge);
  for (int e = 0; e < m->nedge; e++)
    for (int i = 0; i < 3; i++)
      mid[3 * e + i] =
          (m->coords[3 * m->edge_vert[2 * e] + i] + m->coords[3 * m->edge_vert[2 * e + 1] + i]) / 2;
  TAP_CALL(NULL, tet_mesh_map(m, bulge, &d));
  for (int e = 0; e < m->nedge; e++) {
    double y[3];
    bulge(mid + 3 * e, y, &d);
    for (int i = 0; i < 3; i++) node_err = fmax(node_err, fabs(y[i] - m->edge_x[3 * e + i]));
  }
  free(mid);
  for (int c = 0; c < m->ncell; c++) {
    double X[30], J[9];
    tet_mesh_cell_nodes(m, c, X);
    for (int q = 0; q < re->nq; q++)
      vol += re->wq[q] * fabs(geom_tet_jacobian(10, X, re->xq + 3 * q, J));
  }
  /* det J is a cubic and the faces on the walls stay flat: the volume is exact. */
  tap_ok(m->nnode == 10 && node_err == 0 && fabs(vol - 1) < 1e-13,
         "a 3^3 cube bulged by 0.05: 10-node cells with edge nodes on the exact images, volume "
         "1 (%.15g)",
         vol);
  d = 0.6;
  const int err = tet_mesh_map(m, bulge, &d);
  tap_ok(err == FEMINT_EJACOBIAN && strstr(femint_last_error(NULL), "tetrahedral mesh: cell "),
         "a map that folds the cells is refused, naming the cell (%s)", femint_last_error(NULL));
  tet_mesh_destroy(&m);
  refel_tet_destroy(&re);
}

static void test_mesh_errors(void)
{
  const double X[5 * 3] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0};
  const int repeat[4] = {0, 1, 1, 3}, outside[4] = {0, 1, 2, 7}, flat[4] = {0, 1, 2, 4};
  const int triple[12] = {0, 1, 2, 3, 0, 1, 2, 4, 2, 1, 0, 3};
  struct tet_mesh *m = NULL;
  int ok = tet_mesh_create(5, X, 1, repeat, &m) == FEMINT_EMESH && !m &&
           strstr(femint_last_error(NULL), "cell 0 repeats");
  ok = ok && tet_mesh_create(5, X, 1, outside, &m) == FEMINT_EMESH &&
       strstr(femint_last_error(NULL), "vertex 7");
  ok = ok && tet_mesh_create(5, X, 1, flat, &m) == FEMINT_EJACOBIAN &&
       strstr(femint_last_error(NULL), "cell 0");
  ok = ok && tet_mesh_create(5, X, 3, triple, &m) == FEMINT_EMESH &&
       strstr(femint_last_error(NULL), "cell 2");
  tap_ok(ok, "a repeated vertex, a vertex out of range, a flat cell and a face of three cells "
             "are refused, naming the cell");
}

static void test_dofmap(void)
{
  int ok = 1;
  for (int p = 1; p <= 3; p++) {
    struct tet_mesh *m = NULL;
    struct refel_tet *re = NULL;
    struct tet_space *all = NULL, *pec = NULL, *two = NULL;
    TAP_CALL(NULL, tet_mesh_create_box(2, 3, 2, 1, 1, 1, &m));
    TAP_CALL(NULL, refel_tet_create(p, &re));
    TAP_CALL(NULL, tet_space_create(m, re, 0, &all));
    TAP_CALL(NULL, tet_space_create(m, re, TET_PEC_ALL, &pec));
    TAP_CALL(NULL, tet_space_create(m, re, 1u << 1 | 1u << 2, &two));
    const int64_t ne = p, nf = p * (p - 1), ni = p * (p - 1) * (p - 2) / 2;
    const int64_t nall = ne * m->nedge + nf * m->nface + ni * m->ncell;
    /* Entities off the walls: an edge is on a wall when a boundary face holds it. */
    char *bedge = calloc(m->nedge, 1), *bedge12 = calloc(m->nedge, 1);
    int64_t fin = 0, fin12 = 0;
    for (int c = 0; c < m->ncell; c++)
      for (int f = 0; f < TET_NF; f++) {
        const int t = m->face_tag[m->cell_face[4 * c + f]];
        for (int e = 0; e < TET_NE; e++)
          if (t && tet_edge_vert[e][0] != f && tet_edge_vert[e][1] != f) {
            bedge[m->cell_edge[6 * c + e]] = 1;
            if (t <= 2) bedge12[m->cell_edge[6 * c + e]] = 1;
          }
      }
    int64_t ein = 0, ein12 = 0;
    for (int e = 0; e < m->nedge; e++) {
      ein += !bedge[e];
      ein12 += !bedge12[e];
    }
    for (int f = 0; f < m->nface; f++) {
      fin += !m->face_tag[f];
      fin12 += m->face_tag[f] == 0 || m->face_tag[f] > 2;
    }
    free(bedge);
    free(bedge12);
    ok = ok && all->nall == nall && all->ndof == nall && pec->nall == nall &&
         pec->ndof == ne * ein + nf * fin + ni * m->ncell &&
         two->ndof == ne * ein12 + nf * fin12 + ni * m->ncell;
    /* Every DOF is used by some cell, and the free numbering is 0..ndof-1 in order. */
    char *used = calloc(nall, 1);
    for (int64_t k = 0; k < (int64_t)m->ncell * re->nsh; k++) used[pec->cell_all[k]] = 1;
    int64_t next = 0;
    for (int64_t g = 0; g < nall; g++) {
      if (!used[g]) ok = 0;
      if (pec->all_free[g] >= 0 && pec->all_free[g] != next++) ok = 0;
    }
    free(used);
    tet_space_destroy(&all);
    tet_space_destroy(&pec);
    tet_space_destroy(&two);
    refel_tet_destroy(&re);
    tet_mesh_destroy(&m);
  }
  tap_ok(ok, "p = 1..3: p DOFs per edge, p(p-1) per face, p(p-1)(p-2)/2 per cell; PEC on every "
             "wall, on x = 0 and x = 1 only, or none removes exactly the DOFs of those walls");
}

/* A smooth map that curves the cells of the two-cell meshes. */
static void wave(const double *x, double *y, void *user)
{
  y[0] = x[0] + 0.05 * sin(2 * x[1] + x[2]);
  y[1] = x[1] + 0.05 * cos(x[0] - x[2]);
  y[2] = x[2] + 0.05 * sin(x[0] + 3 * x[1]);
}

/* Two cells sharing a face, in random global numberings (so the face sits at any local position
 * in each, with any local order), straight or curved: the tangential trace of every shared DOF
 * is the same from both cells at points of the face. */
static void test_tangential_continuity(void)
{
  struct refel_tet *re = NULL;
  TAP_CALL(NULL, refel_tet_create(3, &re));
  const int n = re->nsh;
  double worst = 0, xmis = 0;
  int bad_count = 0, shapes = 0, seen_pos[4][4] = {{0}};
  for (int trial = 0; trial < 24; trial++) {
    /* Points: A, B, C the shared face, D and E on either side. */
    double P[5][3] = {{0, 0, 0}, {1, 0, 0}, {0.3, 1, 0}, {0.3, 0.3, 0.9}, {0.4, 0.2, -0.8}};
    for (int k = 0; k < 5; k++)
      for (int i = 0; i < 3; i++) P[k][i] += 0.15 * (2 * drand48() - 1);
    int perm[5] = {0, 1, 2, 3, 4};
    for (int k = 4; k > 0; k--) {
      const int j = (int)(drand48() * (k + 1)), t = perm[k];
      perm[k] = perm[j];
      perm[j] = t;
    }
    double X[15];
    for (int k = 0; k < 5; k++) memcpy(X + 3 * perm[k], P[k], sizeof P[k]);
    const int cells[8] = {perm[0],     perm[1], perm[2], perm[3],
                          perm[3 + 1], perm[2], perm[0], perm[1]};
    struct tet_mesh *m = NULL;
    struct tet_space *sp = NULL;
    TAP_CALL(NULL, tet_mesh_create(5, X, 2, cells, &m));
    if (trial % 2) TAP_CALL(NULL, tet_mesh_map(m, wave, NULL));
    TAP_CALL(NULL, tet_space_create(m, re, 0, &sp));
    /* Local positions of A, B, C in each cell. */
    int loc[2][3];
    for (int c = 0; c < 2; c++)
      for (int k = 0; k < 3; k++)
        for (int a = 0; a < 4; a++)
          if (m->cells[4 * c + a] == perm[k]) loc[c][k] = a;
    for (int c = 0; c < 2; c++) seen_pos[c][6 - loc[c][0] - loc[c][1] - loc[c][2]] = 1;
    int shared = 0;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) shared += sp->cell_all[i] == sp->cell_all[n + j];
    if (shared != 3 * 3 + 6) bad_count++;
    for (int t = 0; t < 6; t++) {
      double b[3] = {drand48(), drand48(), 0};
      if (b[0] + b[1] > 1) {
        b[0] = 1 - b[0];
        b[1] = 1 - b[1];
      }
      b[2] = 1 - b[0] - b[1];
      double tan[2][NSH][2], x[2][3];
      for (int c = 0; c < 2; c++) {
        double Xc[30], xi[3] = {0, 0, 0}, d1[3], d2[3], J[9], K[9];
        tet_mesh_cell_nodes(m, c, Xc);
        for (int k = 0; k < 3; k++)
          for (int i = 0; i < 3; i++) xi[i] += b[k] * tet_vert_xi[loc[c][k]][i];
        for (int i = 0; i < 3; i++) {
          d1[i] = tet_vert_xi[loc[c][1]][i] - tet_vert_xi[loc[c][0]][i];
          d2[i] = tet_vert_xi[loc[c][2]][i] - tet_vert_xi[loc[c][0]][i];
        }
        geom_tet_point(m->nnode, Xc, xi, x[c]);
        geom_tet_jacobian(m->nnode, Xc, xi, J);
        geom_inverse3(J, K);
        /* Physical tangents J d and the covariant field K^T N_ref. */
        double t1[3], t2[3];
        for (int i = 0; i < 3; i++) {
          t1[i] = J[3 * i] * d1[0] + J[3 * i + 1] * d1[1] + J[3 * i + 2] * d1[2];
          t2[i] = J[3 * i] * d2[0] + J[3 * i + 1] * d2[1] + J[3 * i + 2] * d2[2];
        }
        static double v[3 * NSH];
        refel_tet_eval(3, xi, v, NULL);
        for (int i = 0; i < n; i++) {
          double N[3];
          for (int dd = 0; dd < 3; dd++)
            N[dd] = K[dd] * v[i] + K[3 + dd] * v[n + i] + K[6 + dd] * v[2 * n + i];
          tan[c][i][0] = N[0] * t1[0] + N[1] * t1[1] + N[2] * t1[2];
          tan[c][i][1] = N[0] * t2[0] + N[1] * t2[1] + N[2] * t2[2];
        }
      }
      for (int i = 0; i < 3; i++) xmis = fmax(xmis, fabs(x[0][i] - x[1][i]));
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
          if (sp->cell_all[i] != sp->cell_all[n + j]) continue;
          for (int s = 0; s < 2; s++)
            worst = fmax(worst, fabs(tan[0][i][s] - tan[1][j][s]) / fmax(1, fabs(tan[0][i][s])));
        }
    }
    tet_space_destroy(&sp);
    tet_mesh_destroy(&m);
  }
  for (int c = 0; c < 2; c++)
    for (int f = 0; f < 4; f++) shapes += seen_pos[c][f];
  refel_tet_destroy(&re);
  tap_ok(!bad_count && xmis < 1e-14,
         "two cells in 24 random numberings (straight and curved): 15 DOFs shared (3 per edge, "
         "6 on the face), the face points coincide (%.2g)",
         xmis);
  tap_ok(worst < 1e-13 && shapes >= 6,
         "order 3: the tangential trace of every shared DOF agrees from both cells (%.2g), with "
         "the shared face at %d of the 8 (cell, local face) positions",
         worst, shapes);
}

/* COO to CSR on random slots with duplicates and removed entries, against a dense sum. */
static void test_coo(void)
{
  const int64_t n = 37, nslot = 5000;
  int64_t *row = malloc(sizeof *row * nslot), *col = malloc(sizeof *col * nslot);
  double *val = malloc(sizeof *val * nslot), *dense = calloc(n * n, sizeof *dense);
  int *hit = calloc(n * n, sizeof *hit);
  for (int64_t k = 0; k < nslot; k++) {
    row[k] = (int64_t)(drand48() * n);
    col[k] = (int64_t)(drand48() * n);
    if (row[k] == 5) col[k] = -1; /* row 5 stays empty */
    if (k % 7 == 0) row[k] = -1;
    val[k] = 2 * drand48() - 1;
    if (row[k] >= 0 && col[k] >= 0) {
      dense[row[k] * n + col[k]] += val[k];
      hit[row[k] * n + col[k]] = 1;
    }
  }
  struct coo_pattern p;
  TAP_CALL(NULL, coo_pattern_build(n, nslot, row, col, &p));
  double *csr = malloc(sizeof *csr * (p.nnz + 1)), diff = 0;
  coo_pattern_sum(&p, val, csr);
  int ok = p.rowptr[0] == 0 && p.rowptr[n] == p.nnz && p.rowptr[5] == p.rowptr[6];
  int64_t nhit = 0;
  for (int64_t i = 0; i < n * n; i++) nhit += hit[i];
  ok = ok && nhit == p.nnz;
  for (int64_t r = 0; r < n; r++)
    for (int64_t q = p.rowptr[r]; q < p.rowptr[r + 1]; q++) {
      if (q > p.rowptr[r] && p.colind[q] <= p.colind[q - 1]) ok = 0;
      if (!hit[r * n + p.colind[q]]) ok = 0;
      diff = fmax(diff, fabs(csr[q] - dense[r * n + p.colind[q]]));
    }
  tap_ok(ok && diff < 1e-13,
         "COO -> CSR: 5000 random slots of a 37 x 37 matrix (1 in 7 removed, an empty row): %lld "
         "distinct entries, columns ascending, sums equal the dense ones (%.2g)",
         (long long)p.nnz, diff);
  const int64_t badrow[1] = {37}, badcol[1] = {0};
  struct coo_pattern q;
  const int err = coo_pattern_build(n, 1, badrow, badcol, &q);
  tap_ok(err == FEMINT_EINVAL && strstr(femint_last_error(NULL), "slot 0"),
         "a slot outside the matrix is refused, naming the slot");
  coo_pattern_free(&p);
  free(csr);
  free(row);
  free(col);
  free(val);
  free(dense);
  free(hit);
}

/* The assembled T and S: the sum of the element matrices by the DOF map, symmetric, and S applied
 * to the discrete gradient of every inner vertex function is 0. */
static void test_assembly(void)
{
  double dT = 0, dS = 0, grad = 0;
  int sym = 1;
  for (int p = 1; p <= 3; p++) {
    struct tet_mesh *m = NULL;
    struct refel_tet *re = NULL;
    struct tet_space *sp = NULL;
    struct tet_system sys;
    double d = 0.04;
    TAP_CALL(NULL, tet_mesh_create_box(2, 2, 2, 1, 1, 1, &m));
    TAP_CALL(NULL, tet_mesh_map(m, bulge, &d));
    TAP_CALL(NULL, refel_tet_create(p, &re));
    TAP_CALL(NULL, tet_space_create(m, re, TET_PEC_ALL, &sp));
    struct tet_coef *k = malloc(sizeof *k * m->ncell);
    for (int c = 0; c < m->ncell; c++)
      TAP_CALL(NULL, tet_coef_scalar(1 + (c % 3), 1 + (c % 2), &k[c]));
    TAP_CALL(NULL, tet_assemble(sp, re, k, m->ncell, &sys));
    const int64_t N = sp->ndof;
    const int nsh = re->nsh;
    double *T = calloc(N * N, sizeof *T), *S = calloc(N * N, sizeof *S);
    double *Te = malloc(sizeof(double) * nsh * nsh), *Se = malloc(sizeof(double) * nsh * nsh);
    for (int c = 0; c < m->ncell; c++) {
      double X[30];
      tet_mesh_cell_nodes(m, c, X);
      TAP_CALL(NULL, tet_element_reference(re, 10, X, &k[c], Te, Se));
      for (int i = 0; i < nsh; i++)
        for (int j = 0; j < nsh; j++) {
          const int64_t r = sp->cell_dof[c * nsh + i], s = sp->cell_dof[c * nsh + j];
          if (r < 0 || s < 0) continue;
          T[r * N + s] += Te[i * nsh + j];
          S[r * N + s] += Se[i * nsh + j];
        }
    }
    double tmax = 0, smax = 0;
    for (int64_t i = 0; i < N * N; i++) {
      tmax = fmax(tmax, fabs(T[i]));
      smax = fmax(smax, fabs(S[i]));
    }
    for (int64_t r = 0; r < N; r++)
      for (int64_t q = sys.pattern.rowptr[r]; q < sys.pattern.rowptr[r + 1]; q++) {
        const int64_t s = sys.pattern.colind[q];
        dT = fmax(dT, fabs(sys.T[q] - T[r * N + s]) / tmax);
        dS = fmax(dS, fabs(sys.S[q] - S[r * N + s]) / smax);
        T[r * N + s] = S[r * N + s] = 0;
      }
    /* Nothing is left outside the pattern. */
    for (int64_t i = 0; i < N * N; i++)
      if (T[i] != 0 || S[i] != 0) sym = 0;
    /* Symmetry of the CSR values: (r, s) against (s, r) by a search in row s. */
    for (int64_t r = 0; r < N; r++)
      for (int64_t q = sys.pattern.rowptr[r]; q < sys.pattern.rowptr[r + 1]; q++) {
        const int64_t s = sys.pattern.colind[q];
        int found = 0;
        for (int64_t u = sys.pattern.rowptr[s]; u < sys.pattern.rowptr[s + 1]; u++)
          if (sys.pattern.colind[u] == r) {
            found = 1;
            if (fabs(sys.T[u] - sys.T[q]) > 1e-15 * tmax ||
                fabs(sys.S[u] - sys.S[q]) > 1e-15 * smax)
              sym = 0;
          }
        sym = sym && found;
      }
    /* grad l_v of an inner vertex v: +1 on the Whitney DOF of edges ending at v, -1 starting. */
    double *g = calloc(N, sizeof *g), *Sg = calloc(N, sizeof *Sg);
    for (int v = 0; v < m->nvert; v++) {
      memset(g, 0, sizeof *g * N);
      int inner = 1;
      for (int e = 0; e < m->nedge; e++) {
        const int a = m->edge_vert[2 * e], b = m->edge_vert[2 * e + 1];
        if (a != v && b != v) continue;
        const int64_t dof = sp->all_free[(int64_t)e * p];
        if (dof < 0)
          inner = 0;
        else
          g[dof] = b == v ? 1 : -1;
      }
      if (!inner) continue;
      double gmax = 0;
      for (int64_t r = 0; r < N; r++) {
        Sg[r] = 0;
        for (int64_t q = sys.pattern.rowptr[r]; q < sys.pattern.rowptr[r + 1]; q++)
          Sg[r] += sys.S[q] * g[sys.pattern.colind[q]];
        gmax = fmax(gmax, fabs(Sg[r]));
      }
      grad = fmax(grad, gmax / smax);
    }
    free(g);
    free(Sg);
    free(T);
    free(S);
    free(Te);
    free(Se);
    free(k);
    tet_system_free(&sys);
    tet_space_destroy(&sp);
    refel_tet_destroy(&re);
    tet_mesh_destroy(&m);
  }
  tap_ok(dT < 1e-15 && dS < 1e-15 && sym,
         "p = 1..3, curved 2^3 cube, eps and mu per cell: the CSR T and S are the element "
         "matrices summed by the DOF map (%.2g, %.2g), symmetric, nothing outside the pattern",
         dT, dS);
  tap_ok(grad < 1e-13,
         "p = 1..3: S times the discrete gradient of each inner vertex function is 0 (%.2g)", grad);
}

int main(void)
{
  srand48(204);
  test_box();
  test_curved();
  test_mesh_errors();
  test_dofmap();
  test_tangential_continuity();
  test_coo();
  test_assembly();
  return tap_done();
}
