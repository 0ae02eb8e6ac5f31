/* Test: a box of prisms (H1) or of tetrahedra (H(curl)) split into two parts, each built from
 * arrays with the global vertex ids of the whole and its own local vertex order, names, orients
 * and numbers the DOFs of the shared faces alike: the parts' keys are the whole's, fields given by
 * global DOF values agree with the whole's and have matching traces (H(curl): tangential) across
 * the shared faces, and the parts' element matrices, numbered from the keys, add up to the whole
 * mesh's matrix. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "femint.h"
#include "host/host.h"
#include "host/refel_tet.h"
#include "tap.h"

#define ORDER 4
#define NCOMP 3
#define TET_ORDER 3

static const double prism_xi[6][3] = {{0, 0, -1}, {1, 0, -1}, {0, 1, -1},
                                      {0, 0, 1},  {1, 0, 1},  {0, 1, 1}};

/* The reference coordinates of local vertex a of a cell of the shape. */
static const double *ref_vertex(int shape, int a)
{
  return shape == FEMINT_TET ? tet_vert_xi[a] : prism_xi[a];
}

/* The space of a mesh: H1 with NCOMP components on prisms, H(curl) on tetrahedra. */
static int make_space(femint_context_t ctx, femint_mesh_t m, int order, femint_space_t *s)
{
  const int tet = femint_mesh_shape(m) == FEMINT_TET;
  return femint_space_create(ctx, m, tet ? FEMINT_HCURL : FEMINT_H1, tet ? 1 : NCOMP, NULL, order,
                             s);
}

static uint64_t rng = 2024;

/* A rank's part: its cells (whole cell of each), its mesh and space, the key of each local DOF
 * and its global number. */
struct part {
  int ncell, *cells, *local_of; /* local_of[whole cell]: its cell in the part or -1 */
  femint_mesh_t mesh;
  femint_space_t space;
  int64_t ndof, *global;
  struct femint_dof_key *keys;
};

/* The part of the cells c with which[c] == id: its vertices numbered in a random order, the
 * vertex lists of its cells rotated at random (a prism's triangles alike, a tetrahedron's four
 * vertices in any order), the box's boundary tags on its boundary faces. */
static int build_part(femint_context_t ctx, femint_mesh_t W, const int *which, int id, int order,
                      struct part *p)
{
  const int nvw = W->nvert, nvc = W->topo->nv, shape = W->topo->shape;
  int *local = malloc((size_t)nvw * sizeof *local), *used = malloc((size_t)nvw * sizeof *used);
  int nv = 0;
  p->cells = malloc((size_t)W->ncell * sizeof *p->cells);
  p->local_of = malloc((size_t)W->ncell * sizeof *p->local_of);
  p->ncell = 0;
  for (int v = 0; v < nvw; v++) local[v] = -1;
  for (int c = 0; c < W->ncell; c++) {
    p->local_of[c] = -1;
    if (which[c] != id) continue;
    p->local_of[c] = p->ncell;
    p->cells[p->ncell++] = c;
    for (int a = 0; a < nvc; a++)
      if (local[W->cells[nvc * c + a]] < 0)
        local[W->cells[nvc * c + a]] = 0, used[nv++] = W->cells[nvc * c + a];
  }
  for (int i = nv - 1; i > 0; i--) { /* a random local order */
    int j = (int)(test_rand(&rng) * (i + 1)), t = used[i];
    used[i] = used[j], used[j] = t;
  }
  double *coords = malloc(3 * (size_t)nv * sizeof *coords);
  int64_t *gid = malloc((size_t)nv * sizeof *gid);
  int *cells = malloc((size_t)nvc * p->ncell * sizeof *cells);
  int *faces = malloc(4 * (size_t)W->nbface * sizeof *faces);
  int *tags = malloc((size_t)W->nbface * sizeof *tags), nface = 0;
  for (int i = 0; i < nv; i++) {
    local[used[i]] = i;
    memcpy(&coords[3 * i], &W->coords[3 * used[i]], 3 * sizeof *coords);
    gid[i] = W->vert_gid[used[i]];
  }
  for (int k = 0; k < p->ncell; k++) {
    const int *cv = &W->cells[nvc * p->cells[k]], r = (int)(test_rand(&rng) * 3);
    if (shape == FEMINT_TET) {
      int perm[4] = {0, 1, 2, 3};
      for (int i = 3; i > 0; i--) {
        const int j = (int)(test_rand(&rng) * (i + 1)), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
      }
      for (int a = 0; a < 4; a++) cells[4 * k + a] = local[cv[perm[a]]];
      continue;
    }
    for (int a = 0; a < 3; a++) {
      cells[6 * k + a] = local[cv[(a + r) % 3]];
      cells[6 * k + 3 + a] = local[cv[3 + (a + r) % 3]];
    }
  }
  for (int b = 0; b < W->nbface; b++) {
    const int c = W->bface[3 * b], f = W->bface[3 * b + 1];
    if (which[c] != id) continue;
    for (int j = 0; j < 4; j++) {
      int a = W->topo->face_vert[f][j];
      faces[4 * nface + j] = a < 0 ? -1 : local[W->cells[nvc * c + a]];
    }
    tags[nface++] = W->bface[3 * b + 2];
  }
  int err = femint_mesh_create_part(ctx, shape, nv, coords, gid, p->ncell, cells, NULL, NULL,
                                    nface, faces, tags, &p->mesh);
  if (!err) err = make_space(ctx, p->mesh, order, &p->space);
  if (!err) {
    p->ndof = femint_space_num_dofs(p->space);
    p->keys = malloc((size_t)p->ndof * sizeof *p->keys);
    p->global = malloc((size_t)p->ndof * sizeof *p->global);
    err = femint_space_dof_keys(p->space, p->keys);
  }
  free(local), free(used), free(coords), free(gid), free(cells), free(faces), free(tags);
  return err;
}

static void free_part(struct part *p)
{
  femint_space_destroy(&p->space);
  femint_mesh_destroy(&p->mesh);
  free(p->cells), free(p->local_of), free(p->keys), free(p->global);
  memset(p, 0, sizeof *p);
}

/* The numbering a distributed code makes from the keys of all ranks: sort, drop repeats, the
 * position of a key is its number. Returns the number of distinct keys; *sorted keeps them. */
static int64_t number_keys(struct part *parts, int nparts, struct femint_dof_key **sorted)
{
  int64_t n = 0, m = 0;
  for (int i = 0; i < nparts; i++) n += parts[i].ndof;
  struct femint_dof_key *all = malloc((size_t)n * sizeof *all);
  for (int i = 0; i < nparts; i++) {
    memcpy(all + m, parts[i].keys, (size_t)parts[i].ndof * sizeof *all);
    m += parts[i].ndof;
  }
  qsort(all, (size_t)n, sizeof *all, femint_dof_key_compare);
  m = 0;
  for (int64_t i = 0; i < n; i++)
    if (m == 0 || femint_dof_key_compare(&all[m - 1], &all[i])) all[m++] = all[i];
  for (int i = 0; i < nparts; i++)
    for (int64_t d = 0; d < parts[i].ndof; d++) {
      const struct femint_dof_key *k =
          bsearch(&parts[i].keys[d], all, (size_t)m, sizeof *all, femint_dof_key_compare);
      parts[i].global[d] = k - all;
    }
  *sorted = all;
  return m;
}

/* Keys seen by both parts whose check fields differ: orders, and first vertices of triangles. */
static void count_mismatches(struct part *parts, int *order, int *first, int *shared)
{
  *order = *first = *shared = 0;
  struct femint_dof_key *b = parts[1].keys;
  struct femint_dof_key *sorted = malloc((size_t)parts[1].ndof * sizeof *sorted);
  memcpy(sorted, b, (size_t)parts[1].ndof * sizeof *sorted);
  qsort(sorted, (size_t)parts[1].ndof, sizeof *sorted, femint_dof_key_compare);
  for (int64_t d = 0; d < parts[0].ndof; d++) {
    const struct femint_dof_key *a = &parts[0].keys[d], *k =
        bsearch(a, sorted, (size_t)parts[1].ndof, sizeof *sorted, femint_dof_key_compare);
    if (!k) continue;
    (*shared)++;
    *order += k->order != a->order;
    *first += k->first != a->first;
  }
  free(sorted);
}

/* The reference point of a cell of mesh m whose weights on the vertices with global ids
 * gv[0..nw) are w (the other vertices weigh 0). */
static void ref_point(femint_mesh_t m, int cell, int nw, const int64_t *gv, const double *w,
                      double xi[3])
{
  const int nv = m->topo->nv;
  xi[0] = xi[1] = xi[2] = 0;
  for (int j = 0; j < nw; j++)
    for (int a = 0; a < nv; a++)
      if (m->vert_gid[m->cells[nv * cell + a]] == gv[j])
        for (int i = 0; i < 3; i++) xi[i] += w[j] * ref_vertex(m->topo->shape, a)[i];
}

/* Random weights: on a triangle (barycentric), a quadrilateral (bilinear in face order), a
 * prism (barycentric times linear) or a tetrahedron (barycentric). */
static void random_weights(int shape, int nw, double *w)
{
  double l[3] = {test_rand(&rng), test_rand(&rng), 0}, t = test_rand(&rng);
  if (l[0] + l[1] > 1) l[0] = 1 - l[0], l[1] = 1 - l[1];
  l[2] = 1 - l[0] - l[1];
  if (shape == FEMINT_TET && nw == 4) {
    double s = 0;
    for (int j = 0; j < 4; j++) s += w[j] = -log(1 - test_rand(&rng));
    for (int j = 0; j < 4; j++) w[j] /= s;
  } else if (nw == 3) {
    for (int j = 0; j < 3; j++) w[j] = l[j];
  } else if (nw == 4) {
    const double s = l[0];
    w[0] = (1 - s) * (1 - t), w[1] = s * (1 - t), w[2] = s * t, w[3] = (1 - s) * t;
  } else {
    for (int j = 0; j < 3; j++) w[j] = l[j] * (1 - t), w[j + 3] = l[j] * t;
  }
}

/* |f_1 - f_2| at one point given by weights on vertices, evaluated in two (space, u, cell): every
 * component, or (tan not NULL) the components along the two vectors tan[2][3]. */
static double diff_at(femint_space_t s1, const double *u1, int c1, femint_space_t s2,
                      const double *u2, int c2, int nw, const int64_t *gv, const double *tan,
                      double *dx)
{
  double w[6], xi1[3], xi2[3], x1[3], x2[3], v1[NCOMP], v2[NCOMP], d = 0;
  random_weights(s1->mesh->topo->shape, nw, w);
  ref_point(s1->mesh, c1, nw, gv, w, xi1);
  ref_point(s2->mesh, c2, nw, gv, w, xi2);
  femint_space_eval(s1, u1, c1, xi1, x1, v1);
  femint_space_eval(s2, u2, c2, xi2, x2, v2);
  for (int i = 0; i < 3; i++) *dx = fmax(*dx, fabs(x1[i] - x2[i]));
  for (int k = 0; k < (tan ? 2 : NCOMP); k++) {
    double a = tan ? 0 : v1[k], b = tan ? 0 : v2[k];
    for (int i = 0; tan && i < 3; i++) a += v1[i] * tan[3 * k + i], b += v2[i] * tan[3 * k + i];
    d = fmax(d, fabs(a - b));
  }
  return d;
}

/* The element function: add each signed element matrix into vals, the CSR values of the whole
 * mesh's pattern, through whole_of (global number -> whole DOF). */
struct sum {
  const int64_t *rowptr, *colind, *whole_of;
  double *vals;
  int outside;
};

static int add_batch(const struct femint_element_batch *b, void *user)
{
  struct sum *s = user;
  const int n = b->n;
  for (int k = 0; k < b->ncell; k++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        const int64_t gi = b->dofs[(size_t)k * n + i], gj = b->dofs[(size_t)k * n + j];
        if (gi < 0 || gj < 0) continue;
        const int64_t r = s->whole_of[gi], c = s->whole_of[gj];
        const double a = b->signs[(size_t)k * n + i] * b->signs[(size_t)k * n + j] *
                         ((const double *)b->mats)[(size_t)k * n * n + (size_t)i * n + j];
        int64_t at = -1;
        for (int64_t l = s->rowptr[r]; l < s->rowptr[r + 1] && at < 0; l++)
          if (s->colind[l] == c) at = l;
        if (at < 0) s->outside += a != 0;
        else s->vals[at] += a;
      }
  return 0;
}

/* One split of the whole mesh W (space SW) into two parts by which[]. */
static void check_split(femint_context_t ctx, femint_mesh_t W, femint_space_t SW,
                        femint_form_t form, const int *which, const char *name)
{
  struct part parts[2] = {{0}};
  const int nvc = W->topo->nv, tet = W->topo->shape == FEMINT_TET;
  const int order = femint_space_cell_order(SW, 0);
  for (int i = 0; i < 2; i++) TAP_CALL(ctx, build_part(ctx, W, which, i, order, &parts[i]));
  const int64_t nw = femint_space_num_dofs(SW);
  struct femint_dof_key *kw = malloc((size_t)nw * sizeof *kw), *sorted;
  TAP_CALL(ctx, femint_space_dof_keys(SW, kw));
  const int64_t n = number_keys(parts, 2, &sorted);
  /* The whole's DOFs in the parts' numbering. */
  int64_t *whole_of = malloc((size_t)n * sizeof *whole_of);
  int64_t *num_of = malloc((size_t)nw * sizeof *num_of);
  int missing = 0, ofirst = 0;
  for (int64_t g = 0; g < n; g++) whole_of[g] = -1;
  for (int64_t d = 0; d < nw; d++) {
    const struct femint_dof_key *k = bsearch(&kw[d], sorted, (size_t)n, sizeof *sorted,
                                             femint_dof_key_compare);
    num_of[d] = k ? k - sorted : -1;
    missing += !k;
    if (k) whole_of[k - sorted] = d, ofirst += k->first != kw[d].first;
  }
  int order_bad, first_bad, shared;
  count_mismatches(parts, &order_bad, &first_bad, &shared);
  tap_ok(n == nw && missing == 0 && ofirst == 0 && order_bad == 0 && first_bad == 0 && shared > 0,
         "%s: %lld + %lld local DOFs, %d keys in both parts, %lld distinct keys for %lld DOFs of "
         "the whole (%d of its keys missing); mismatched orders %d, first vertices %d (and %d "
         "with the whole)",
         name, (long long)parts[0].ndof, (long long)parts[1].ndof, shared, (long long)n,
         (long long)nw, missing, order_bad, first_bad, ofirst);

  /* The tagged boundary faces of the parts (ntag = -1) hold the boundary DOFs of the whole. */
  char *bnd = calloc((size_t)n, 1);
  int64_t nb, nbw, *list, wrong = 0;
  for (int i = 0; i < 2; i++) {
    TAP_CALL(ctx, femint_space_boundary_dofs(parts[i].space, -1, NULL, &nb, NULL));
    list = malloc((size_t)(nb + 1) * sizeof *list);
    TAP_CALL(ctx, femint_space_boundary_dofs(parts[i].space, -1, NULL, &nb, list));
    for (int64_t j = 0; j < nb; j++) bnd[parts[i].global[list[j]]] = 1;
    free(list);
  }
  TAP_CALL(ctx, femint_space_boundary_dofs(SW, 0, NULL, &nbw, NULL));
  list = malloc((size_t)(nbw + 1) * sizeof *list);
  TAP_CALL(ctx, femint_space_boundary_dofs(SW, 0, NULL, &nbw, list));
  for (int64_t j = 0; j < nbw; j++) wrong += !bnd[num_of[list[j]]], bnd[num_of[list[j]]] = 0;
  for (int64_t g = 0; g < n; g++) wrong += bnd[g];
  tap_ok(wrong == 0, "%s: the parts' DOFs on faces of tag > 0 are the %lld boundary DOFs of the "
         "whole (%lld wrong)", name, (long long)nbw, (long long)wrong);
  free(list), free(bnd);

  /* A field given by global values: on each part, in the whole, and across shared faces. */
  double *u = malloc((size_t)n * sizeof *u), *uw = malloc((size_t)nw * sizeof *uw), *up[2];
  for (int64_t g = 0; g < n; g++) u[g] = 2 * test_rand(&rng) - 1;
  for (int64_t d = 0; d < nw; d++) uw[d] = num_of[d] >= 0 ? u[num_of[d]] : 0;
  for (int i = 0; i < 2; i++) {
    up[i] = malloc((size_t)parts[i].ndof * sizeof *up[i]);
    for (int64_t d = 0; d < parts[i].ndof; d++) up[i][d] = u[parts[i].global[d]];
  }
  double in_whole = 0, trace = 0, dx = 0;
  int nshared = 0;
  for (int c = 0; c < W->ncell; c++) {
    const struct part *p = &parts[which[c]];
    int64_t gv[6];
    for (int a = 0; a < nvc; a++) gv[a] = W->vert_gid[W->cells[nvc * c + a]];
    for (int r = 0; r < 4; r++)
      in_whole = fmax(in_whole, diff_at(SW, uw, c, p->space, up[which[c]], p->local_of[c], nvc,
                                        gv, NULL, &dx));
  }
  for (int g = 0; g < W->nface; g++) {
    const int ca = W->face_cell[2 * g], cb = W->face_cell[2 * g + 1];
    if (cb < 0 || which[ca] == which[cb]) continue;
    nshared++;
    int f = 0;
    while (W->cell_face[W->topo->nf * ca + f] != g) f++;
    int64_t gv[4];
    int nv = 0, fv[4];
    for (int j = 0; j < 4 && W->topo->face_vert[f][j] >= 0; j++) {
      fv[j] = W->cells[nvc * ca + W->topo->face_vert[f][j]];
      gv[nv++] = W->vert_gid[fv[j]];
    }
    /* H(curl): the tangents of the (flat) face, along two of its edges. */
    double tan[6];
    for (int k = 0; k < 2; k++)
      for (int i = 0; i < 3; i++)
        tan[3 * k + i] = W->coords[3 * fv[k + 1] + i] - W->coords[3 * fv[0] + i];
    const struct part *pa = &parts[which[ca]], *pb = &parts[which[cb]];
    for (int r = 0; r < 6; r++)
      trace = fmax(trace, diff_at(pa->space, up[which[ca]], pa->local_of[ca], pb->space,
                                  up[which[cb]], pb->local_of[cb], nv, gv, tet ? tan : NULL, &dx));
  }
  tap_ok(in_whole < 1e-11 && trace < 1e-11 && dx < 1e-12 && nshared > 0,
         "%s: a field of global DOF values, |part - whole| %.1e at random points, |side a - side "
         "b| %.1e%s on %d shared faces (points apart by %.1e)",
         name, in_whole, trace, tet ? " (tangential)" : "", nshared, dx);

  /* The element matrices of the parts in the global numbering add up to the whole's matrix. */
  femint_matrix_t A;
  int64_t nrows;
  const int64_t *rowptr, *colind;
  const double *vals;
  struct femint_operator_options opt = {.where = FEMINT_WHERE_CPU};
  femint_operator_t op;
  TAP_CALL(ctx, femint_operator_create(ctx, SW, 1, &form, &opt, &op));
  TAP_CALL(ctx, femint_operator_assemble(op, &A, NULL));
  femint_operator_destroy(&op);
  femint_matrix_csr(A, &nrows, &rowptr, &colind, &vals);
  struct sum s = {rowptr, colind, whole_of, calloc((size_t)rowptr[nrows], sizeof(double)), 0};
  int refused = 0;
  for (int i = 0; i < 2; i++) {
    TAP_CALL(ctx, femint_space_set_global_dofs(parts[i].space, parts[i].global));
    TAP_CALL(ctx, femint_operator_create(ctx, parts[i].space, 1, &form, &opt, &op));
    TAP_CALL(ctx, femint_operator_integrate(op, add_batch, &s, NULL));
    femint_matrix_t B = (femint_matrix_t)&B;
    refused += femint_operator_assemble(op, &B, NULL) == FEMINT_ESTATE && !B;
    femint_operator_destroy(&op);
  }
  double diff = 0, top = 0;
  for (int64_t l = 0; l < rowptr[nrows]; l++) {
    diff = fmax(diff, fabs(s.vals[l] - vals[l]));
    top = fmax(top, fabs(vals[l]));
  }
  tap_ok(diff <= 1e-12 * top && s.outside == 0 && refused == 2,
         "%s: sum of the parts' element matrices - whole matrix: %.1e (largest entry %.1e), %d "
         "entries outside its pattern; femint_operator_assemble refused on both parts: %s",
         name, diff, top, s.outside, refused == 2 ? "yes" : "no");
  femint_matrix_destroy(&A);
  free(s.vals);
  for (int i = 0; i < 2; i++) free(up[i]), free_part(&parts[i]);
  free(u), free(uw), free(kw), free(sorted), free(whole_of), free(num_of);
}

int main(void)
{
  femint_context_t ctx = test_init();
  femint_mesh_t W;
  femint_space_t SW;
  femint_form_t form;
  const double young = 1, poisson = 0.3;
  TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_PRISM, 2, 2, 3, 1, 1, 1.5, 0.2, 5, &W));
  TAP_CALL(ctx, make_space(ctx, W, ORDER, &SW));
  TAP_CALL(ctx, femint_form_create_elasticity(ctx, 1, &young, &poisson, &form));
  int *which = malloc((size_t)W->ncell * sizeof *which);
  const char *names[3] = {"slabs along z (triangle faces)", "columns along x (quadrilateral faces)",
                          "random cells"};
  for (int split = 0; split < 3; split++) {
    for (int c = 0; c < W->ncell; c++) {
      double X[18], z = 0, x = 0;
      femint_mesh_cell_coords(W, c, X);
      for (int a = 0; a < 6; a++) x += X[3 * a] / 6, z += X[3 * a + 2] / 6;
      which[c] = split == 0 ? z > 0.75 : split == 1 ? x > 0.5 : test_rand(&rng) < 0.5;
    }
    check_split(ctx, W, SW, form, which, names[split]);
  }

  /* The same with a box of tetrahedra and H(curl) of order 3 (the mass form). */
  {
    femint_mesh_t T;
    femint_space_t ST;
    femint_form_t mass;
    const double eps = 1.5;
    TAP_CALL(ctx, femint_mesh_create_box(ctx, FEMINT_TET, 2, 2, 2, 1, 1, 1, 0.2, 5, &T));
    TAP_CALL(ctx, make_space(ctx, T, TET_ORDER, &ST));
    TAP_CALL(ctx, femint_form_create_hcurl_mass(ctx, 1, 0, &eps, &mass));
    int *part = malloc((size_t)T->ncell * sizeof *part);
    for (int split = 0; split < 2; split++) {
      for (int c = 0; c < T->ncell; c++) {
        double X[12], z = 0;
        femint_mesh_cell_coords(T, c, X);
        for (int a = 0; a < 4; a++) z += X[3 * a + 2] / 4;
        part[c] = split == 0 ? z > 0.5 : test_rand(&rng) < 0.5;
      }
      check_split(ctx, T, ST, mass, part,
                  split == 0 ? "tetrahedra, slabs along z" : "tetrahedra, random cells");
    }
    free(part);
    femint_form_destroy(&mass);
    femint_space_destroy(&ST);
    femint_mesh_destroy(&T);
  }

  /* What a rank cannot see alone but the keys show: orders that differ across the faces between
   * parts. */
  for (int c = 0; c < W->ncell; c++) which[c] = c >= W->ncell / 2;
  struct part parts[2] = {{0}};
  TAP_CALL(ctx, build_part(ctx, W, which, 0, ORDER, &parts[0]));
  TAP_CALL(ctx, build_part(ctx, W, which, 1, ORDER - 1, &parts[1]));
  int order_bad, first_bad, shared;
  count_mismatches(parts, &order_bad, &first_bad, &shared);
  tap_ok(order_bad > 0, "orders %d and %d on the two sides: %d of %d shared keys differ in order",
         ORDER, ORDER - 1, order_bad, shared);
  int64_t *twice = malloc((size_t)parts[0].ndof * sizeof *twice);
  for (int64_t d = 0; d < parts[0].ndof; d++) twice[d] = d / 2;
  int rc = femint_space_set_global_dofs(parts[0].space, twice);
  tap_ok(rc == FEMINT_EINVAL, "femint_space_set_global_dofs with a number given twice: %s (%s)",
         femint_error_name(rc), femint_last_error(ctx));
  free(twice);
  for (int i = 0; i < 2; i++) free_part(&parts[i]);
  free(which);
  femint_form_destroy(&form);
  femint_space_destroy(&SW);
  femint_mesh_destroy(&W);
  femint_finalize(&ctx);
  return tap_done();
}
