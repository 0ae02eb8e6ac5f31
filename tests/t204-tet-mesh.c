/* Test: tetrahedral meshes (box, warped) are conforming with sorted cells and tagged walls,
 * curved maps keep the domain, bad cells are refused by name (t210: from arrays); H(curl) spaces
 * count, number, name and remove the right DOFs, evaluate fields and their discrete gradients,
 * and give shared faces one tangential trace. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/pattern.h"
#include "tet_common.h"

/* The tag of every global face: -1 inside, else the tag of the boundary face (the caller frees). */
static int *face_tags(femint_mesh_t m)
{
  int *tag = malloc((size_t)m->nface * sizeof *tag);
  for (int f = 0; f < m->nface; f++) tag[f] = -1;
  for (int b = 0; b < m->nbface; b++)
    tag[m->cell_face[4 * m->bface[3 * b] + m->bface[3 * b + 1]]] = m->bface[3 * b + 2];
  return tag;
}

/* det J of cell c at reference point xi (4 or 10 nodes). */
static double cell_det(femint_mesh_t m, int c, const double *xi, double *J)
{
  double X[30];
  TAP_CALL(NULL, femint_mesh_cell_nodes(m, c, X));
  return geom_map(FEMINT_TET, femint_mesh_num_nodes(m), X, xi, NULL, J);
}

static void test_box(void)
{
  femint_mesh_t m = NULL;
  const int nx = 3, ny = 2, nz = 4;
  TAP_CALL(NULL, femint_mesh_create_box(NULL, FEMINT_TET, nx, ny, nz, 1.5, 1, 2, 0, 1, &m));
  const int64_t *gid;
  TAP_CALL(NULL, femint_mesh_vertex_global_ids(m, &gid));
  int sorted = 1, nb = 0, tags[7] = {0}, conform = 1, pos = 0, neg = 0;
  double vol = 0, vlib, J[9];
  for (int c = 0; c < m->ncell; c++) {
    const int *v = m->cells + 4 * c;
    sorted = sorted && gid[v[0]] < gid[v[1]] && gid[v[1]] < gid[v[2]] && gid[v[2]] < gid[v[3]];
    const double det = cell_det(m, c, tet_vert_xi[0], J);
    vol += fabs(det) / 6;
    pos += det > 0;
    neg += det < 0;
  }
  int *ftag = face_tags(m);
  for (int f = 0; f < m->nface; f++) {
    const int t = ftag[f], inside = m->face_cell[2 * f + 1] >= 0;
    if (inside != (t < 0) || (!inside && (t < 1 || t > 6))) conform = 0;
    nb += t > 0;
    if (t > 0 && t <= 6) tags[t]++;
  }
  free(ftag);
  const int euler = m->nvert - m->nedge + m->nface - m->ncell;
  tap_ok(m->nvert == 4 * 3 * 5 && m->ncell == 6 * nx * ny * nz && euler == 1 && conform &&
             femint_mesh_num_nodes(m) == 4,
         "box 3 x 2 x 4: %d vertices, %d cells, V - E + F - C = %d, every inner face has two "
         "cells and every other a tag",
         m->nvert, m->ncell, euler);
  tap_ok(nb == 4 * (nx * ny + ny * nz + nz * nx) && nb == m->nbface && tags[1] == 2 * ny * nz &&
             tags[2] == 2 * ny * nz && tags[3] == 2 * nx * nz && tags[4] == 2 * nx * nz &&
             tags[5] == 2 * nx * ny && tags[6] == 2 * nx * ny,
         "box: %d boundary faces, two per square of each wall, tagged 1..6 by wall", nb);
  TAP_CALL(NULL, femint_mesh_volume(m, &vlib));
  tap_ok(sorted && fabs(vol - 3) < 1e-13 && fabs(vlib - 3) < 1e-13 && pos > 0 && neg > 0,
         "box: cells keep ascending vertices (%d positively, %d negatively oriented) and fill "
         "the volume 3 (%.15g, femint_mesh_volume %.15g)",
         pos, neg, vol, vlib);
  femint_mesh_destroy(&m);
}

/* femint_mesh_warp's map of the unit cube: x + d sin(pi x) sin(pi y) sin(pi z) (1, 1, 1),
 * multiplied in the same order. */
static void bulge(double d, const double *x, double *y)
{
  const double s = d * sin(M_PI * x[0]) * sin(M_PI * x[1]) * sin(M_PI * x[2]);
  for (int i = 0; i < 3; i++) y[i] = x[i] + s;
}

static void test_curved(void)
{
  femint_mesh_t m = NULL, ref = NULL;
  struct refel *re = NULL;
  TAP_CALL(NULL, refel_tet_create(1, &re));
  TAP_CALL(NULL, femint_mesh_create_box(NULL, FEMINT_TET, 3, 3, 3, 1, 1, 1, 0, 1, &m));
  TAP_CALL(NULL, femint_mesh_create_box(NULL, FEMINT_TET, 3, 3, 3, 1, 1, 1, 0, 1, &ref));
  const double d = 0.05;
  double vol = 0, vlib, node_err = 0, J[9];
  TAP_CALL(NULL, femint_mesh_warp(m, d));
  /* The nodes must be the images of the straight vertices and edge midpoints. */
  for (int c = 0; c < m->ncell; c++) {
    double X[30], R[12], y[3];
    TAP_CALL(NULL, femint_mesh_cell_nodes(m, c, X));
    TAP_CALL(NULL, femint_mesh_cell_coords(ref, c, R));
    for (int k = 0; k < 10; k++) {
      const int a = k < 4 ? k : tet_edge_vert[k - 4][0], b = k < 4 ? k : tet_edge_vert[k - 4][1];
      double mid[3];
      for (int i = 0; i < 3; i++) mid[i] = (R[3 * a + i] + R[3 * b + i]) / 2;
      bulge(d, mid, y);
      for (int i = 0; i < 3; i++) node_err = fmax(node_err, fabs(y[i] - X[3 * k + i]));
    }
    for (int q = 0; q < re->nq; q++) vol += re->wq[q] * fabs(cell_det(m, c, re->xq + 3 * q, J));
  }
  TAP_CALL(NULL, femint_mesh_volume(m, &vlib));
  /* det J is a cubic and the faces on the walls stay flat: the volume is exact. */
  tap_ok(femint_mesh_num_nodes(m) == 10 && node_err == 0 && fabs(vol - 1) < 1e-13 &&
             fabs(vlib - 1) < 1e-13,
         "a 3^3 cube warped by 0.05: 10-node cells with their nodes on the exact images, volume "
         "1 (%.15g, femint_mesh_volume %.15g)",
         vol, vlib);
  const int err = femint_mesh_warp(m, 0.6);
  tap_ok(err == FEMINT_EJACOBIAN && strstr(femint_last_error(NULL), "cell ") &&
             strstr(femint_last_error(NULL), "tetrahedron: det J"),
         "a warp that folds the cells is refused, naming the cell and det J (%s)",
         femint_last_error(NULL));
  femint_mesh_destroy(&m);
  femint_mesh_destroy(&ref);
  refel_destroy(&re);
}

/* The space on mesh m of order p with the DOFs of the listed tags removed (ntag < 0: none). */
static femint_space_t hcurl(femint_mesh_t m, int p, int ntag, const int *tags)
{
  femint_space_t s = NULL;
  TAP_CALL(NULL, femint_space_create(NULL, m, FEMINT_HCURL, 1, NULL, p, &s));
  if (ntag >= 0) TAP_CALL(NULL, femint_space_remove_boundary_dofs(s, ntag, tags));
  return s;
}

/* Whether the DOFs of s are numbered in the order the cells meet them (the first one met is 0,
 * the next new one 1, ...), each used by some cell. */
static int met_in_order(femint_space_t s, int nsh)
{
  int64_t next = 0, dofs[NSH];
  for (int c = 0; c < s->mesh->ncell; c++) {
    femint_space_cell_dofs(s, c, dofs, NULL);
    for (int i = 0; i < nsh; i++)
      if (dofs[i] >= next) {
        if (dofs[i] != next) return 0;
        next++;
      }
  }
  return next == femint_space_num_dofs(s);
}

/* Whether `removed` is `full` without the DOFs that femint_space_boundary_dofs of full lists for
 * (ntag, tags): the cells give -1 exactly there and the other DOFs keep their order. */
static int removes_listed(femint_space_t full, femint_space_t removed, int ntag, const int *tags,
                          int nsh)
{
  int64_t n, nf = femint_space_num_dofs(full), fd[NSH], rd[NSH];
  TAP_CALL(NULL, femint_space_boundary_dofs(full, ntag, tags, &n, NULL));
  int64_t *list = malloc((size_t)(n + 1) * sizeof *list), *to = malloc((size_t)nf * sizeof *to);
  TAP_CALL(NULL, femint_space_boundary_dofs(full, ntag, tags, &n, list));
  int ok = femint_space_num_dofs(removed) == nf - n;
  for (int64_t d = 0; d < nf; d++) to[d] = -2;
  for (int c = 0; c < full->mesh->ncell; c++) {
    femint_space_cell_dofs(full, c, fd, NULL);
    femint_space_cell_dofs(removed, c, rd, NULL);
    for (int i = 0; i < nsh; i++) {
      if (fd[i] < 0) continue;
      ok &= to[fd[i]] == -2 || to[fd[i]] == rd[i];
      to[fd[i]] = rd[i];
    }
  }
  for (int64_t k = 0; k < n; k++) ok &= to[list[k]] == -1, to[list[k]] = -3;
  for (int64_t d = 0, last = -1; d < nf; d++) {
    if (to[d] == -3) continue;
    ok &= to[d] == last + 1; /* kept in order, none removed that is not listed */
    last = to[d];
  }
  free(list);
  free(to);
  return ok;
}

static void test_dofmap(void)
{
  int ok = 1, keys_ok = 1;
  const int wall12[2] = {1, 2}, wall1 = 1, wall2 = 2;
  for (int p = 1; p <= 3; p++) {
    femint_mesh_t m = NULL;
    struct femint_refel_info info;
    TAP_CALL(NULL, femint_refel_info(FEMINT_TET, FEMINT_HCURL, p, &info));
    TAP_CALL(NULL, femint_mesh_create_box(NULL, FEMINT_TET, 2, 3, 2, 1, 1, 1, 0, 1, &m));
    femint_space_t all = hcurl(m, p, -1, NULL), pec = hcurl(m, p, 0, NULL);
    femint_space_t two = hcurl(m, p, 2, wall12), seq = hcurl(m, p, 1, &wall1);
    TAP_CALL(NULL, femint_space_remove_boundary_dofs(seq, 1, &wall2));
    const int64_t ne = p, nf = p * (p - 1), ni = p * (p - 1) * (p - 2) / 2;
    const int64_t nall = ne * m->nedge + nf * m->nface + ni * m->ncell;
    /* Entities off the walls: an edge is on a wall when a boundary face holds it. */
    char *bedge = calloc(m->nedge, 1), *bedge12 = calloc(m->nedge, 1);
    int *ftag = face_tags(m);
    int64_t fin = 0, fin12 = 0, ein = 0, ein12 = 0;
    for (int c = 0; c < m->ncell; c++)
      for (int f = 0; f < TET_NF; f++) {
        const int t = ftag[m->cell_face[4 * c + f]];
        for (int e = 0; e < TET_NE; e++)
          if (t >= 0 && tet_edge_vert[e][0] != f && tet_edge_vert[e][1] != f) {
            bedge[m->cell_edge[6 * c + e]] = 1;
            if (t <= 2) bedge12[m->cell_edge[6 * c + e]] = 1;
          }
      }
    for (int e = 0; e < m->nedge; e++) {
      ein += !bedge[e];
      ein12 += !bedge12[e];
    }
    for (int f = 0; f < m->nface; f++) {
      fin += ftag[f] < 0;
      fin12 += ftag[f] < 0 || ftag[f] > 2;
    }
    free(bedge), free(bedge12), free(ftag);
    ok = ok && info.nsh == p * (p + 2) * (p + 3) / 2 &&
         info.nsh == ne * TET_NE + nf * TET_NF + ni && femint_space_num_dofs(all) == nall &&
         femint_space_num_dofs(pec) == ne * ein + nf * fin + ni * m->ncell &&
         femint_space_num_dofs(two) == ne * ein12 + nf * fin12 + ni * m->ncell &&
         femint_space_family(pec) == FEMINT_HCURL;
    /* Every DOF is used by some cell, numbered in the order the cells meet them; the removed
     * ones are those femint_space_boundary_dofs lists, and calls add up. */
    ok = ok && met_in_order(all, info.nsh) && met_in_order(pec, info.nsh) &&
         met_in_order(two, info.nsh) && removes_listed(all, pec, 0, NULL, info.nsh) &&
         removes_listed(all, two, 2, wall12, info.nsh) &&
         removes_listed(all, seq, 2, wall12, info.nsh);
    int signs[NSH], plus = 1;
    for (int c = 0; c < m->ncell; c++) {
      femint_space_cell_dofs(all, c, NULL, signs);
      for (int i = 0; i < info.nsh; i++) plus &= signs[i] == 1;
    }
    ok = ok && plus;
    /* Keys: distinct, an edge named by 2 vertices, a face by 3, a cell by 4, as many of each
     * kind as the entities carry functions. */
    femint_space_t sp[2] = {all, pec};
    for (int k = 0; k < 2; k++) {
      const int64_t n = femint_space_num_dofs(sp[k]);
      struct femint_dof_key *key = malloc((size_t)n * sizeof *key);
      int64_t count[4] = {0, 0, 0, 0};
      TAP_CALL(NULL, femint_space_dof_keys(sp[k], key));
      for (int64_t d = 0; d < n; d++) {
        int nv = 0;
        while (nv < 4 && key[d].vert[nv] >= 0) nv++;
        keys_ok &= key[d].kind >= 1 && key[d].kind <= 3 && nv == key[d].kind + 1 &&
                   key[d].comp == 0 && key[d].order == p;
        if (key[d].kind >= 0 && key[d].kind <= 3) count[key[d].kind]++;
      }
      qsort(key, (size_t)n, sizeof *key, femint_dof_key_compare);
      for (int64_t d = 1; d < n; d++) keys_ok &= femint_dof_key_compare(&key[d - 1], &key[d]) < 0;
      keys_ok &= k ? count[1] == ne * ein && count[2] == nf * fin
                   : count[1] == ne * m->nedge && count[2] == nf * m->nface;
      keys_ok &= count[0] == 0 && count[3] == ni * m->ncell;
      free(key);
    }
    femint_space_destroy(&all), femint_space_destroy(&pec), femint_space_destroy(&two);
    femint_space_destroy(&seq);
    femint_mesh_destroy(&m);
  }
  tap_ok(ok, "p = 1..3: p(p+2)(p+3)/2 functions per cell, p DOFs per edge, p(p-1) per face, "
             "p(p-1)(p-2)/2 per cell, numbered as the cells meet them, signs +1; PEC on every "
             "wall, on x = 0 and x = 1 (at once or in two calls) removes exactly the DOFs of "
             "those walls that femint_space_boundary_dofs lists, keeping the order of the others");
  tap_ok(keys_ok, "p = 1..3: the keys of the DOFs are distinct and name their edges, faces and "
                  "cells, with and without the walls");
}

/* Errors of H(curl) spaces and of their DOF removal. */
static void test_space_errors(void)
{
  femint_mesh_t m = NULL, mp = NULL;
  femint_space_t s = (femint_space_t)&s;
  TAP_CALL(NULL, femint_mesh_create_box(NULL, FEMINT_TET, 2, 1, 1, 1, 1, 1, 0, 1, &m));
  TAP_CALL(NULL, femint_mesh_create_box(NULL, FEMINT_PRISM, 1, 1, 1, 1, 1, 1, 0, 1, &mp));
  int orders[12];
  for (int c = 0; c < 12; c++) orders[c] = 1 + (c == 5);
  struct {
    int err, family, ncomp, p;
    const int *orders;
    const char *what;
  } bad[] = {{FEMINT_ENOTSUP, FEMINT_H1, 1, 0, orders, "a Lagrange (nodal) space takes one order"},
             {FEMINT_EINVAL, FEMINT_HCURL, 2, 1, NULL, "ncomp"},
             {FEMINT_EORDER, FEMINT_HCURL, 1, 4, NULL, "order"},
             {FEMINT_ENOTSUP, FEMINT_HCURL, 1, 0, orders, "cell 5"}};
  for (int k = 0; k < 4; k++) {
    const int err = femint_space_create(NULL, m, bad[k].family, bad[k].ncomp, bad[k].orders,
                                        bad[k].p, &s);
    tap_ok(err == bad[k].err && !s && strstr(femint_last_error(NULL), bad[k].what),
           "femint_space_create on tetrahedra refuses: %s, \"%s\"", femint_error_name(err),
           femint_last_error(NULL));
  }
  s = hcurl(m, 2, -1, NULL);
  double phi[12] = {0}, u[1000];
  femint_space_t h1 = NULL;
  TAP_CALL(NULL, femint_space_create(NULL, mp, FEMINT_H1, 1, NULL, 1, &h1));
  int err = femint_space_gradient(h1, phi, u), err2 = femint_space_interpolate_linear(s, NULL,
                                                                                    NULL, u);
  tap_ok(err == FEMINT_EINVAL && err2 == FEMINT_ENOTSUP,
         "the gradient into an H1 space (%s) and interpolate_linear into H(curl) (%s) are "
         "refused",
         femint_error_name(err), femint_error_name(err2));
  err = femint_space_remove_boundary_dofs(s, 2, NULL);
  tap_ok(err == FEMINT_EINVAL && strstr(femint_last_error(NULL), "ntag"),
         "removing 2 tags without a list: %s, \"%s\"", femint_error_name(err),
         femint_last_error(NULL));
  int64_t *ids = malloc((size_t)femint_space_num_dofs(s) * sizeof *ids);
  for (int64_t d = 0; d < femint_space_num_dofs(s); d++) ids[d] = 100 + d;
  TAP_CALL(NULL, femint_space_set_global_dofs(s, ids));
  err = femint_space_remove_boundary_dofs(s, 0, NULL);
  tap_ok(err == FEMINT_ESTATE && strstr(femint_last_error(NULL), "global"),
         "removing DOFs of a space with global numbers: %s, \"%s\"", femint_error_name(err),
         femint_last_error(NULL));
  free(ids);
  femint_space_destroy(&s), femint_space_destroy(&h1);
  femint_mesh_destroy(&m), femint_mesh_destroy(&mp);
}

/* The constant vector field user = b[3]. */
static void constant(const double x[3], const double n[3], int tag, void *user, double *v)
{
  memcpy(v, user, 3 * sizeof *v);
}

/* J^-T (phi1 - phi0, phi2 - phi0, phi3 - phi0): the gradient of the function that is linear in
 * the reference coordinates with the vertex values phi[4]. */
static void mapped_gradient(const double *J, const double *phi, double *g)
{
  double K[9];
  geom_inverse3(J, K);
  for (int d = 0; d < 3; d++) {
    g[d] = 0;
    for (int j = 0; j < 3; j++) g[d] += K[3 * j + d] * (phi[j + 1] - phi[0]);
  }
}

/* The discrete gradient, femint_space_eval and femint_space_l2_error: the gradient of a linear
 * function is its constant gradient on straight cells; with the walls removed, the gradient of
 * the vertex values set to 0 on the walls, on straight and curved cells. */
static void test_gradient(void)
{
  const double b[3] = {0.7, -1.3, 2.1}, a = 0.4, b2 = b[0] * b[0] + b[1] * b[1] + b[2] * b[2];
  for (int p = 1; p <= 3; p++) {
    femint_mesh_t m = NULL;
    TAP_CALL(NULL, femint_mesh_create_box(NULL, FEMINT_TET, 2, 2, 2, 1, 1.2, 0.8, 0.3, 4, &m));
    const int nv = m->nvert, ncell = m->ncell;
    femint_space_t s = hcurl(m, p, -1, NULL);
    double *phi = malloc((size_t)nv * sizeof *phi), vol, e_all, e_lo, e_hi, e_b;
    double *u = malloc((size_t)femint_space_num_dofs(s) * sizeof *u), worst = 0;
    for (int v = 0; v < nv; v++)
      phi[v] = a + b[0] * m->coords[3 * v] + b[1] * m->coords[3 * v + 1] +
               b[2] * m->coords[3 * v + 2];
    TAP_CALL(NULL, femint_space_gradient(s, phi, u));
    for (int q = 0; q < 100; q++) {
      double xi[3], val[3];
      random_tet_point(0, xi);
      TAP_CALL(NULL, femint_space_eval(s, u, (int)(drand48() * ncell), xi, NULL, val));
      for (int d = 0; d < 3; d++) worst = fmax(worst, fabs(val[d] - b[d]));
    }
    TAP_CALL(NULL, femint_mesh_volume(m, &vol));
    TAP_CALL(NULL, femint_space_l2_error(s, u, 0, NULL, NULL, NULL, &e_all));
    TAP_CALL(NULL, femint_space_l2_error(s, u, 0, NULL, constant, (void *)b, &e_b));
    int *cells = malloc((size_t)ncell * sizeof *cells);
    for (int c = 0; c < ncell; c++) cells[c] = ncell - 1 - c;
    TAP_CALL(NULL, femint_space_l2_error(s, u, ncell / 2, cells, NULL, NULL, &e_lo));
    TAP_CALL(NULL, femint_space_l2_error(s, u, ncell - ncell / 2, cells + ncell / 2, NULL, NULL,
                                         &e_hi));
    cells[0] = ncell;
    const int rc = femint_space_l2_error(s, u, 1, cells, NULL, NULL, &e_lo);
    tap_ok(worst < 1e-12 && fabs(e_all - b2 * vol) < 1e-12 * b2 * vol && e_b < 1e-24 * b2 &&
               fabs(e_lo + e_hi - e_all) < 1e-12 * e_all && rc == FEMINT_EINVAL,
           "p = %d: the discrete gradient of a + b.x evaluates to b (%.1e); its squared L2 norm "
           "is |b|^2 times the volume (%.15g, %.15g), its distance to b %.1e; the halves of the "
           "cells add up; a cell outside is refused",
           p, worst, e_all, b2 * vol, e_b);
    femint_space_destroy(&s);
    /* Walls removed, straight then warped cells: J^-T times the reference gradient. */
    worst = 0;
    for (int curved = 0; curved < 2; curved++) {
      if (curved) TAP_CALL(NULL, femint_mesh_warp(m, 0.05));
      s = hcurl(m, p, 0, NULL);
      for (int v = 0; v < nv; v++) phi[v] = 2 * drand48() - 1;
      TAP_CALL(NULL, femint_space_gradient(s, phi, u));
      for (int c = 0; c < ncell; c++) {
        double xi[3], val[3], J[9], g[3], pc[4];
        for (int k = 0; k < 4; k++) {
          const int v = m->cells[4 * c + k];
          pc[k] = femint_mesh_vertex_on_boundary(m, v) ? 0 : phi[v];
        }
        random_tet_point(0, xi);
        cell_det(m, c, xi, J);
        mapped_gradient(J, pc, g);
        TAP_CALL(NULL, femint_space_eval(s, u, c, xi, NULL, val));
        for (int d = 0; d < 3; d++) worst = fmax(worst, fabs(val[d] - g[d]) / (1 + fabs(g[d])));
      }
      femint_space_destroy(&s);
    }
    tap_ok(worst < 1e-12,
           "p = %d, walls removed: the discrete gradient of random vertex values (0 on the "
           "walls) evaluates to J^-T times their reference gradient, straight and curved (%.1e)",
           p, worst);
    free(cells), free(phi), free(u);
    femint_mesh_destroy(&m);
  }
}

/* Two cells sharing a face, in random global numberings (so the face sits at any local position
 * in each, with any local order), straight or curved by edge nodes: the tangential trace of every
 * shared DOF is the same from both cells at points of the face. */
static void test_tangential_continuity(void)
{
  double worst = 0, xmis = 0;
  int bad_count = 0, shapes = 0, seen_pos[4][4] = {{0}}, n = 0;
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
    double X[15], nodes[2 * 6 * 3];
    for (int k = 0; k < 5; k++) memcpy(X + 3 * perm[k], P[k], sizeof P[k]);
    const int cells[8] = {perm[0], perm[1], perm[2], perm[3], perm[4], perm[2], perm[0], perm[1]};
    for (int c = 0; c < 2; c++)
      for (int e = 0; e < 6; e++)
        edge_node(X, cells[4 * c + tet_edge_vert[e][0]], cells[4 * c + tet_edge_vert[e][1]],
                  &nodes[3 * (6 * c + e)]);
    femint_mesh_t m = NULL;
    TAP_CALL(NULL, femint_mesh_create(NULL, FEMINT_TET, 5, X, 2, cells, trial % 2 ? nodes : NULL,
                                      &m));
    femint_space_t sp = hcurl(m, 3, -1, NULL);
    n = refel_tet_nsh(3);
    int64_t dofs[2][NSH];
    for (int c = 0; c < 2; c++) femint_space_cell_dofs(sp, c, dofs[c], NULL);
    double *u = calloc((size_t)femint_space_num_dofs(sp), sizeof *u);
    /* Local positions of A, B, C in each cell. */
    int loc[2][3];
    for (int c = 0; c < 2; c++)
      for (int k = 0; k < 3; k++)
        for (int a = 0; a < 4; a++)
          if (m->cells[4 * c + a] == perm[k]) loc[c][k] = a;
    for (int c = 0; c < 2; c++) seen_pos[c][6 - loc[c][0] - loc[c][1] - loc[c][2]] = 1;
    int shared = 0;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) shared += dofs[0][i] == dofs[1][j];
    if (shared != 3 * 3 + 6) bad_count++;
    for (int t = 0; t < 6; t++) {
      double w[3] = {drand48(), drand48(), 0};
      if (w[0] + w[1] > 1) {
        w[0] = 1 - w[0];
        w[1] = 1 - w[1];
      }
      w[2] = 1 - w[0] - w[1];
      double xi[2][3] = {{0}}, tan[2][3], J[9], x[2][3];
      for (int c = 0; c < 2; c++)
        for (int k = 0; k < 3; k++)
          for (int i = 0; i < 3; i++) xi[c][i] += w[k] * tet_vert_xi[loc[c][k]][i];
      /* Physical tangents J d of cell 0 along the face's edges A->B and A->C. */
      cell_det(m, 0, xi[0], J);
      for (int k = 0; k < 2; k++)
        for (int i = 0; i < 3; i++) {
          tan[k][i] = 0;
          for (int j = 0; j < 3; j++)
            tan[k][i] += J[3 * i + j] * (tet_vert_xi[loc[0][k + 1]][j] - tet_vert_xi[loc[0][0]][j]);
        }
      for (int c = 0; c < 2; c++) femint_space_eval(sp, u, c, xi[c], x[c], NULL);
      for (int i = 0; i < 3; i++) xmis = fmax(xmis, fabs(x[0][i] - x[1][i]));
      for (int i = 0; i < n; i++) {
        if (dofs[0][i] < 0) continue;
        double val[2][3];
        u[dofs[0][i]] = 1;
        for (int c = 0; c < 2; c++) femint_space_eval(sp, u, c, xi[c], NULL, val[c]);
        u[dofs[0][i]] = 0;
        for (int k = 0; k < 2; k++) {
          double d[2] = {0, 0};
          for (int c = 0; c < 2; c++)
            for (int j = 0; j < 3; j++) d[c] += val[c][j] * tan[k][j];
          /* (a DOF cell 1 does not have is 0 there: its trace on the face must vanish) */
          worst = fmax(worst, fabs(d[0] - d[1]) / fmax(1, fabs(d[0])));
        }
      }
    }
    free(u);
    femint_space_destroy(&sp);
    femint_mesh_destroy(&m);
  }
  for (int c = 0; c < 2; c++)
    for (int f = 0; f < 4; f++) shapes += seen_pos[c][f];
  tap_ok(!bad_count && xmis < 1e-14,
         "two cells in 24 random numberings (straight and curved): 15 DOFs shared (3 per edge, "
         "6 on the face), the face points coincide (%.2g)",
         xmis);
  tap_ok(worst < 1e-13 && shapes >= 6 && n == 45,
         "order 3: the tangential trace of every DOF of cell 0 agrees from both cells (%.2g), "
         "with the shared face at %d of the 8 (cell, local face) positions",
         worst, shapes);
}

/* The dense sum, by the DOF map and its signs, of the element matrices vals (cell k of the list
 * at voff[k]; full or packed upper storage) of the ncell cells of s into D[ndof][ndof]; hit
 * marks the entries that receive a contribution. Returns the number of contributions. */
static int64_t dense_sum(femint_space_t s, int ncell, const int *cells, const int64_t *voff,
                         int symmetric, const double *vals, double *D, char *hit)
{
  const int64_t N = femint_space_num_dofs(s);
  int64_t dofs[288 * 5], nc = 0;
  int signs[288 * 5];
  for (int k = 0; k < ncell; k++) {
    const int c = cells[k], n = refel_nsh(s->mesh->topo->shape, s->family, s->order[c]) * s->ncomp;
    femint_space_cell_dofs(s, c, dofs, signs);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        if (dofs[i] < 0 || dofs[j] < 0) continue;
        D[dofs[i] * N + dofs[j]] +=
            signs[i] * signs[j] * vals[voff[k] + pattern_entry(n, i, j, symmetric)];
        hit[dofs[i] * N + dofs[j]] = 1;
        nc++;
      }
  }
  return nc;
}

/* The CSR values of a pattern (pattern_value) against the dense sum: the largest difference
 * relative to the largest entry (1e300 when the structure is wrong: columns not ascending, an
 * entry without contribution, a contribution outside). */
static double pattern_misfit(const struct pattern *p, const double *vals, const double *D,
                             char *hit)
{
  const int64_t N = p->n;
  double diff = 0, top = 0;
  int ok = p->rowptr[0] == 0 && p->rowptr[N] == p->nnz && p->seg[p->nnz] == p->ncontrib;
  for (int64_t r = 0; r < N; r++)
    for (int64_t q = p->rowptr[r]; q < p->rowptr[r + 1]; q++) {
      const int64_t c = p->colind[q];
      ok &= (q == p->rowptr[r] || c > p->colind[q - 1]) && hit[r * N + c];
      hit[r * N + c] = 0;
      diff = fmax(diff, fabs(pattern_value(p->perm, p->seg, q, vals, 0) - D[r * N + c]));
    }
  for (int64_t i = 0; i < N * N; i++) {
    ok &= !hit[i];
    top = fmax(top, fabs(D[i]));
  }
  return ok ? diff / top : 1e300;
}

/* The one pattern builder on random element matrices (full and packed upper halves), cells in a
 * random order: H(curl) with the walls removed, H1 prisms of mixed orders (signs -1 on odd edge
 * modes) with 2 components, H1 quadrilaterals. */
static void test_pattern(void)
{
  femint_mesh_t m[3] = {NULL, NULL, NULL};
  femint_space_t s[3];
  TAP_CALL(NULL, femint_mesh_create_box(NULL, FEMINT_TET, 2, 2, 1, 1, 1, 1, 0.2, 3, &m[0]));
  TAP_CALL(NULL, femint_mesh_create_box(NULL, FEMINT_PRISM, 2, 2, 1, 1, 1, 1, 0.2, 3, &m[1]));
  TAP_CALL(NULL, femint_mesh_create_box(NULL, FEMINT_QUAD, 3, 3, 1, 1, 1, 1, 0.2, 3, &m[2]));
  s[0] = hcurl(m[0], 2, 0, NULL);
  int orders[9] = {1, 3, 2, 3, 1, 2, 3, 3, 2};
  TAP_CALL(NULL, femint_space_create(NULL, m[1], FEMINT_H1, 2, orders, 0, &s[1]));
  TAP_CALL(NULL, femint_space_create(NULL, m[2], FEMINT_H1, 1, orders, 0, &s[2]));
  for (int k = 0; k < 3; k++)
    for (int sym = 0; sym < 2; sym++) {
      const int ncell = m[k]->ncell;
      const int64_t N = femint_space_num_dofs(s[k]);
      int *cells = malloc((size_t)ncell * sizeof *cells);
      int64_t *voff = malloc(((size_t)ncell + 1) * sizeof *voff);
      for (int c = 0; c < ncell; c++) cells[c] = c;
      for (int c = ncell - 1; c > 0; c--) {
        const int j = (int)(drand48() * (c + 1)), t = cells[c];
        cells[c] = cells[j], cells[j] = t;
      }
      voff[0] = 0;
      for (int i = 0; i < ncell; i++) {
        const int64_t n = refel_nsh(m[k]->topo->shape, s[k]->family, s[k]->order[cells[i]]) *
                          s[k]->ncomp;
        voff[i + 1] = voff[i] + (sym ? n * (n + 1) / 2 : n * n);
      }
      double *vals = malloc((size_t)voff[ncell] * sizeof *vals), *D = calloc(N * N, sizeof *D);
      char *hit = calloc(N * N, 1);
      for (int64_t v = 0; v < voff[ncell]; v++) vals[v] = 2 * drand48() - 1;
      const int64_t nc = dense_sum(s[k], ncell, cells, voff, sym, vals, D, hit);
      struct pattern p;
      TAP_CALL(NULL, pattern_build(NULL, s[k], ncell, cells, sym, voff, &p));
      const double misfit = pattern_misfit(&p, vals, D, hit);
      tap_ok(p.n == N && p.ncontrib == nc && misfit < 1e-15,
             "pattern of %d %s in a random order (%s): %lld rows, %lld entries, %lld "
             "contributions summed as the dense sum by the DOF map and its signs (%.1e)",
             ncell, m[k]->topo->plural, sym ? "upper halves" : "full matrices", (long long)N,
             (long long)p.nnz, (long long)p.ncontrib, misfit);
      pattern_free(&p);
      free(cells), free(voff), free(vals), free(D), free(hit);
    }
  for (int k = 0; k < 3; k++) femint_space_destroy(&s[k]), femint_mesh_destroy(&m[k]);
}

/* T and S of curved cells (eps and mu per cell) from the plain element matrices summed through
 * the pattern: the element matrices summed by the DOF map, symmetric, and S applied to the
 * discrete gradient of every inner vertex function is 0. */
static void test_assembly(void)
{
  double dT = 0, dS = 0, grad = 0;
  int sym = 1;
  for (int p = 1; p <= 3; p++) {
    femint_mesh_t m = NULL;
    struct refel *re = NULL;
    TAP_CALL(NULL, femint_mesh_create_box(NULL, FEMINT_TET, 2, 2, 2, 1, 1, 1, 0, 1, &m));
    TAP_CALL(NULL, femint_mesh_warp(m, 0.04));
    TAP_CALL(NULL, refel_tet_create(p, &re));
    femint_space_t sp = hcurl(m, p, 0, NULL);
    const int ncell = m->ncell, nsh = re->nsh;
    const int64_t N = femint_space_num_dofs(sp), nn = (int64_t)nsh * nsh;
    int *cells = malloc((size_t)ncell * sizeof *cells);
    int64_t *voff = malloc((size_t)ncell * sizeof *voff);
    double *Tv = malloc((size_t)(ncell * nn) * sizeof *Tv);
    double *Sv = malloc((size_t)(ncell * nn) * sizeof *Sv);
    for (int c = 0; c < ncell; c++) {
      struct tet_coef k;
      double X[30];
      TAP_CALL(NULL, tet_coef_scalar(1 + (c % 3), 1 + (c % 2), &k));
      TAP_CALL(NULL, femint_mesh_cell_nodes(m, c, X));
      TAP_CALL(NULL, tet_element_reference(re, 10, X, &k, Tv + c * nn, Sv + c * nn));
      cells[c] = c;
      voff[c] = c * nn;
    }
    double *T = calloc(N * N, sizeof *T), *S = calloc(N * N, sizeof *S);
    char *hit = calloc(N * N, 1);
    struct pattern pat;
    dense_sum(sp, ncell, cells, voff, 0, Tv, T, hit);
    dense_sum(sp, ncell, cells, voff, 0, Sv, S, hit);
    TAP_CALL(NULL, pattern_build(NULL, sp, ncell, NULL, 0, voff, &pat));
    double *St = malloc((size_t)pat.nnz * sizeof *St), smax = 0, tmax = 0;
    for (int64_t q = 0; q < pat.nnz; q++) St[q] = pattern_value(pat.perm, pat.seg, q, Sv, 0);
    for (int64_t i = 0; i < N * N; i++)
      smax = fmax(smax, fabs(S[i])), tmax = fmax(tmax, fabs(T[i]));
    /* Symmetry of the dense sums (the pattern's values are them: pattern_misfit). */
    for (int64_t r = 0; r < N; r++)
      for (int64_t c = 0; c < r; c++)
        sym &= fabs(T[r * N + c] - T[c * N + r]) <= 1e-15 * tmax &&
               fabs(S[r * N + c] - S[c * N + r]) <= 1e-15 * smax;
    char *hit2 = malloc(N * N);
    memcpy(hit2, hit, N * N);
    dT = fmax(dT, pattern_misfit(&pat, Tv, T, hit));
    dS = fmax(dS, pattern_misfit(&pat, Sv, S, hit2));
    /* grad l_v of an inner vertex v through femint_space_gradient. */
    double *phi = calloc((size_t)m->nvert, sizeof *phi), *g = malloc((size_t)N * sizeof *g);
    for (int v = 0; v < m->nvert; v++) {
      if (femint_mesh_vertex_on_boundary(m, v)) continue;
      phi[v] = 1;
      TAP_CALL(NULL, femint_space_gradient(sp, phi, g));
      phi[v] = 0;
      double gmax = 0;
      for (int64_t r = 0; r < N; r++) {
        double sg = 0;
        for (int64_t q = pat.rowptr[r]; q < pat.rowptr[r + 1]; q++) sg += St[q] * g[pat.colind[q]];
        gmax = fmax(gmax, fabs(sg));
      }
      grad = fmax(grad, gmax / smax);
    }
    free(phi), free(g), free(St), free(T), free(S), free(hit), free(hit2), free(Tv), free(Sv);
    free(cells), free(voff);
    pattern_free(&pat);
    femint_space_destroy(&sp);
    refel_destroy(&re);
    femint_mesh_destroy(&m);
  }
  tap_ok(dT < 1e-15 && dS < 1e-15 && sym,
         "p = 1..3, curved 2^3 cube, eps and mu per cell: T and S through the pattern are the "
         "element matrices summed by the DOF map (%.2g, %.2g), symmetric, nothing outside it",
         dT, dS);
  tap_ok(grad < 1e-13,
         "p = 1..3: S times the discrete gradient of each inner vertex function is 0 (%.2g)", grad);
}

int main(void)
{
  srand48(204);
  test_box();
  test_curved();
  test_dofmap();
  test_space_errors();
  test_gradient();
  test_tangential_continuity();
  test_pattern();
  test_assembly();
  return tap_done();
}
