/* Each rank's share of the PETSc examples (petsc_elasticity, petsc_snes, petsc_bps): the mesh
 * (the same on every rank, or the rank's part only), the run of cells it integrates, in the
 * distributed mode the numbering of the DOFs across the ranks by their keys (MPI_Allgatherv), and
 * the values of the DOFs its cells meet. */
#include <stdlib.h>
#include <string.h>

#include "petsc_common.h"

/* The cells of a box the examples build: prisms (3D) or triangles (2D), 2 per block of the box,
 * and the boundary faces of a cell as its local vertices (-1 after the last). */
struct box_shape {
  int shape, dim, nv, nface;
  const char *plural, *pieces;
  int face_vert[5][4];
};
static const struct box_shape box_shapes[] = {
    {FEMINT_PRISM, 3, 6, 5, "prisms", "slabs",
     {{0, 1, 2, -1}, {3, 4, 5, -1}, {0, 1, 4, 3}, {1, 2, 5, 4}, {2, 0, 3, 5}}},
    {FEMINT_TRI, 2, 3, 3, "triangles", "strips",
     {{0, 1, -1, -1}, {1, 2, -1, -1}, {2, 0, -1, -1}}},
};

static PetscErrorCode get_box_shape(int shape, const struct box_shape **bs)
{
  *bs = NULL;
  for (size_t i = 0; i < sizeof box_shapes / sizeof *box_shapes; i++)
    if (box_shapes[i].shape == shape) *bs = &box_shapes[i];
  PetscCheck(*bs, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "settings.shape %d: the examples' boxes are of prisms or triangles", shape);
  return 0;
}

/* An example's form is of one shape: a file of other cells is refused, naming them. */
static PetscErrorCode check_shape(const char *path, femint_mesh_t mesh, const struct box_shape *bs)
{
  static const char *name[] = {"",           "prisms",     "quadrilaterals",
                               "tetrahedra", "hexahedra", "triangles"};
  const int shape = femint_mesh_shape(mesh);
  PetscCheck(shape == bs->shape, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "-mesh %s: its cells are %s; this example needs %s", path,
             shape >= 1 && shape <= 5 ? name[shape] : "of no known shape", bs->plural);
  return 0;
}

/* The box of the settings: n[3] blocks on [0,l[0]]x[0,l[1]]x[0,l[2]]; a rectangle of one layer
 * of blocks for triangles. -weak stacks one cube per rank along z (prisms only). */
static void box_size(const struct settings *st, int size, int n[3], double l[3])
{
  const int layers = st->weak && st->shape == FEMINT_PRISM ? size : 1;
  n[0] = n[1] = (int)st->n;
  n[2] = st->shape == FEMINT_TRI ? 1 : (int)st->n * layers;
  l[0] = l[1] = 1;
  l[2] = layers;
}

/* What describes a box: its blocks, its domain and its cells (of the rank, then tail). */
static void box_what(const struct box_shape *bs, const int n[3], const double l[3], int ncell,
                     const char *tail, char *what, size_t len)
{
  if (bs->dim == 2)
    snprintf(what, len, "box %dx%d on [0,1]x[0,1] (%d %s%s", n[0], n[1], ncell, bs->plural, tail);
  else
    snprintf(what, len, "box %dx%dx%d on [0,1]x[0,1]x[0,%d] (%d %s%s", n[0], n[1], n[2], (int)l[2],
             ncell, bs->plural, tail);
}

/* ---- The replicated mode: every rank holds the whole mesh and integrates a run of cells ---- */

PetscErrorCode make_mesh(femint_context_t ctx, const struct settings *st, int size,
                         femint_mesh_t *mesh, char *what, size_t len)
{
  const struct box_shape *bs;
  PetscCall(get_box_shape(st->shape, &bs));
  if (st->mesh[0]) {
    FEMINT_TRY(ctx, femint_mesh_read_gmsh(ctx, st->mesh, mesh));
    PetscCall(check_shape(st->mesh, *mesh, bs));
    snprintf(what, len, "gmsh %s (%d %s)", st->mesh, femint_mesh_num_cells(*mesh), bs->plural);
    return 0;
  }
  int n[3];
  double l[3];
  box_size(st, size, n, l);
  FEMINT_TRY(ctx, femint_mesh_create_box(ctx, st->shape, n[0], n[1], n[2], l[0], l[1], l[2],
                                         st->perturb, 1, mesh));
  box_what(bs, n, l, femint_mesh_num_cells(*mesh), ")", what, len);
  return 0;
}

PetscErrorCode make_part(femint_space_t space, int ncell_mesh, struct part *pt)
{
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &pt->rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &pt->size));
  pt->cell_begin = (int)((int64_t)pt->rank * ncell_mesh / pt->size);
  const int cell_end = (int)((int64_t)(pt->rank + 1) * ncell_mesh / pt->size);
  pt->ncell = cell_end - pt->cell_begin;
  PetscCall(PetscMalloc1(pt->ncell + 1, &pt->cells));
  for (int k = 0; k < pt->ncell; k++) pt->cells[k] = pt->cell_begin + k;
  pt->ndof = pt->nlocal = femint_space_num_dofs(space);
  pt->global = NULL;
  PetscCheck(pt->ndof < PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "%lld DOFs need PETSc with 64-bit indices", (long long)pt->ndof);
  FEMINT_TRY(NULL, femint_space_dof_range(space, pt->cell_begin, cell_end, &pt->dof_begin,
                                          &pt->dof_end));
  return 0;
}

/* ---- The distributed mode: each rank builds its part only ---- */

static int cmp_int64(const void *a, const void *b)
{
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The box vertex numbered v (x fastest, then y, then z, as femint_mesh_create_box numbers them):
 * its grid indices and its coordinates, computed as the box computes them. */
static void box_vertex(int64_t v, const int n[3], const double l[3], int ijk[3], double x[3])
{
  ijk[0] = (int)(v % (n[0] + 1));
  ijk[1] = (int)(v / (n[0] + 1) % (n[1] + 1));
  ijk[2] = (int)(v / ((int64_t)(n[0] + 1) * (n[1] + 1)));
  for (int a = 0; a < 3; a++) x[a] = ijk[a] == n[a] ? l[a] : ijk[a] * (l[a] / n[a]);
}

/* The tag femint_mesh_create_box gives a boundary face of the box (1, 2 for x = 0 and the far
 * side, 3, 4 for y, 5, 6 for z; the first axis wins), 0 for a face inside: face f of a cell
 * whose box vertices are gv. */
static int box_face_tag(const struct box_shape *bs, const int n[3], const double l[3],
                        const int64_t *gv, int f)
{
  int lo[3] = {1, 1, 1}, hi[3] = {1, 1, 1}, tag = 0;
  for (int j = 0; j < 4 && bs->face_vert[f][j] >= 0; j++) {
    int ijk[3];
    double x[3];
    box_vertex(gv[bs->face_vert[f][j]], n, l, ijk, x);
    for (int a = 0; a < bs->dim; a++) lo[a] &= ijk[a] == 0, hi[a] &= ijk[a] == n[a];
  }
  for (int a = bs->dim - 1; a >= 0; a--) tag = lo[a] ? 2 * a + 1 : hi[a] ? 2 * a + 2 : tag;
  return tag;
}

/* The rank's run of the cells of the box that femint_mesh_create_box makes unperturbed (the same
 * cells in the same order: blocks x fastest, then y, then z, each cut along the diagonal from
 * (i, j) to (i+1, j+1) into the triangles (00, 10, 11) and (00, 11, 01), or the 2 prisms over
 * them), built as a part: the vertices its cells use, with the box's vertex numbers as global
 * ids, and its faces on the sides of the box tagged as the box tags them (1..6, 1..4 in 2D).
 * Nothing of the rest of the box is made. */
static PetscErrorCode make_box_part(femint_context_t ctx, const struct box_shape *bs,
                                    const int n[3], const double l[3], int rank, int size,
                                    femint_mesh_t *mesh)
{
  const int64_t ncell_box = 2 * (int64_t)n[0] * n[1] * n[2];
  PetscCheck(ncell_box >= size, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-n %d: the box's %lld %s are fewer than the %d ranks, and every part needs a cell",
             n[0], (long long)ncell_box, bs->plural, size);
  const int c0 = (int)(rank * ncell_box / size), nc = (int)((rank + 1) * ncell_box / size) - c0;
  const int64_t sy = n[0] + 1, sz = sy * (n[1] + 1);
  const int nv = bs->nv, dim = bs->dim;
  int64_t *gv, *ids;
  int *cells, *faces, *tags, nface = 0;
  size_t ncv = (size_t)nv * nc, m = 0;
  double *coords;
  PetscCall(PetscMalloc2(ncv + 1, &gv, ncv + 1, &ids));
  for (int c = c0; c < c0 + nc; c++) {
    const int64_t h = c / 2, i = h % n[0], j = h / n[0] % n[1], k = h / ((int64_t)n[0] * n[1]);
    const int64_t v00 = i + j * sy + k * sz, tri[2][3] = {{v00, v00 + 1, v00 + 1 + sy},
                                                          {v00, v00 + 1 + sy, v00 + sy}};
    for (int a = 0; a < nv; a++) gv[(size_t)nv * (c - c0) + a] = tri[c % 2][a % 3] + a / 3 * sz;
  }
  memcpy(ids, gv, ncv * sizeof *ids);
  qsort(ids, ncv, sizeof *ids, cmp_int64);
  for (size_t i = 0; i < ncv; i++)
    if (m == 0 || ids[m - 1] != ids[i]) ids[m++] = ids[i];
  PetscCall(PetscMalloc4((size_t)dim * m + 1, &coords, ncv + 1, &cells,
                         4 * (size_t)bs->nface * nc + 1, &faces, (size_t)bs->nface * nc + 1,
                         &tags));
  for (size_t i = 0; i < m; i++) {
    int ijk[3];
    double x[3];
    box_vertex(ids[i], n, l, ijk, x);
    memcpy(&coords[(size_t)dim * i], x, (size_t)dim * sizeof *x);
  }
  for (size_t i = 0; i < ncv; i++)
    cells[i] = (int)((int64_t *)bsearch(&gv[i], ids, m, sizeof *ids, cmp_int64) - ids);
  for (int c = 0; c < nc; c++)
    for (int f = 0; f < bs->nface; f++) {
      const int tag = box_face_tag(bs, n, l, &gv[(size_t)nv * c], f);
      if (!tag) continue;
      for (int j = 0; j < 4; j++) {
        const int a = bs->face_vert[f][j];
        faces[4 * nface + j] = a < 0 ? -1 : cells[(size_t)nv * c + a];
      }
      tags[nface++] = tag;
    }
  FEMINT_TRY(ctx, femint_mesh_create_part(ctx, bs->shape, (int)m, coords, ids, nc, cells, NULL,
                                          NULL, nface, faces, tags, mesh));
  PetscCall(PetscFree4(coords, cells, faces, tags));
  PetscCall(PetscFree2(gv, ids));
  return 0;
}

/* The partition of a Gmsh file is partition rank + 1; one rank reads the whole file. */
PetscErrorCode make_mesh_part(femint_context_t ctx, const struct settings *st, int rank, int size,
                              femint_mesh_t *mesh, char *what, size_t len)
{
  const struct box_shape *bs;
  PetscCall(get_box_shape(st->shape, &bs));
  if (st->mesh[0]) {
    FEMINT_TRY(ctx, femint_mesh_read_gmsh_part(ctx, st->mesh, size == 1 ? -1 : rank + 1, mesh));
    PetscCall(check_shape(st->mesh, *mesh, bs));
    snprintf(what, len, "gmsh %s, one partition per rank (%d %s on rank 0)", st->mesh,
             femint_mesh_num_cells(*mesh), bs->plural);
    return 0;
  }
  int n[3];
  double l[3];
  char tail[32];
  box_size(st, size, n, l);
  PetscCall(make_box_part(ctx, bs, n, l, rank, size, mesh));
  snprintf(tail, sizeof tail, " on rank 0), its %s", bs->pieces);
  box_what(bs, n, l, femint_mesh_num_cells(*mesh), tail, what, len);
  return 0;
}

/* A key and the rank that sent it. */
struct ranked_key {
  struct femint_dof_key key;
  int64_t rank;
};

static int ranked_key_compare(const void *a, const void *b)
{
  const struct ranked_key *x = a, *y = b;
  const int c = femint_dof_key_compare(&x->key, &y->key);
  return c ? c : (x->rank > y->rank) - (x->rank < y->rank);
}

/* Number the DOFs of all ranks from their keys: every rank gathers the keys of every rank
 * (MPI_Allgatherv), sorts them and keeps one of each; the owner of a DOF is the lowest rank that
 * sees it, and the DOFs are numbered owner by owner (in key order within an owner), so that each
 * rank owns a contiguous range, PETSc's layout. It also checks what a rank cannot check alone:
 * that the ranks seeing a DOF give its entity the same order and its triangle the same first
 * vertex. Simple and exact, at a cost that grows with the whole mesh: every rank holds every key
 * (64 bytes per DOF and rank that sees it) and sorts them, O(N log N); fine at this example's
 * sizes. A code at scale sends the keys of its partition faces to the neighbours only. */
static PetscErrorCode number_dofs(femint_space_t space, struct part *pt)
{
  const int64_t nlocal = femint_space_num_dofs(space);
  struct femint_dof_key *keys;
  struct ranked_key *mine, *all;
  int *counts, *displs;
  int64_t *number, *start, nall = 0, nuniq = 0, bad_order = 0, bad_first = 0;
  PetscCheck(nlocal * (int64_t)sizeof *mine < INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "too many DOFs on a rank for this example's gather");
  PetscCall(PetscMalloc1(nlocal + 1, &keys));
  PetscCall(PetscMalloc1(nlocal + 1, &mine));
  FEMINT_TRY(NULL, femint_space_dof_keys(space, keys));
  for (int64_t d = 0; d < nlocal; d++) mine[d].key = keys[d], mine[d].rank = pt->rank;
  PetscCall(PetscMalloc2(pt->size, &counts, pt->size, &displs));
  const int bytes = (int)(nlocal * sizeof *mine);
  PetscCallMPI(MPI_Allgather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, PETSC_COMM_WORLD));
  for (int r = 0; r < pt->size; r++) {
    displs[r] = (int)(nall * sizeof *mine);
    nall += counts[r] / (int64_t)sizeof *mine;
  }
  PetscCall(PetscMalloc1(nall + 1, &all));
  PetscCallMPI(MPI_Allgatherv(mine, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE,
                              PETSC_COMM_WORLD));
  qsort(all, (size_t)nall, sizeof *all, ranked_key_compare);
  for (int64_t i = 0; i < nall; i++) {
    if (nuniq > 0 && femint_dof_key_compare(&all[nuniq - 1].key, &all[i].key) == 0) {
      bad_order += all[nuniq - 1].key.order != all[i].key.order;
      bad_first += all[nuniq - 1].key.first != all[i].key.first;
      continue;
    }
    all[nuniq++] = all[i]; /* the first of a name comes from its lowest rank: the owner */
  }
  PetscCheck(bad_order == 0 && bad_first == 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP,
             "%lld DOFs seen with different orders by two ranks (the parts on both sides of a "
             "face must have the same order), %lld on triangles listed from different vertices",
             (long long)bad_order, (long long)bad_first);
  PetscCall(PetscCalloc1(pt->size + 1, &start));
  PetscCall(PetscMalloc1(nuniq + 1, &number));
  for (int64_t i = 0; i < nuniq; i++) start[all[i].rank + 1]++;
  for (int r = 0; r < pt->size; r++) start[r + 1] += start[r];
  pt->dof_begin = start[pt->rank];
  pt->dof_end = start[pt->rank + 1];
  for (int64_t i = 0; i < nuniq; i++) number[i] = start[all[i].rank]++;
  PetscCall(PetscMalloc1(nlocal + 1, &pt->global));
  for (int64_t d = 0; d < nlocal; d++) {
    int64_t lo = 0, hi = nuniq; /* the kept key of this name: the first not before it */
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (femint_dof_key_compare(&all[mid].key, &keys[d]) < 0) lo = mid + 1;
      else hi = mid;
    }
    pt->global[d] = number[lo];
  }
  pt->ndof = nuniq;
  pt->nlocal = nlocal;
  FEMINT_TRY(NULL, femint_space_set_global_dofs(space, pt->global));
  PetscCall(PetscFree(number));
  PetscCall(PetscFree(start));
  PetscCall(PetscFree(all));
  PetscCall(PetscFree2(counts, displs));
  PetscCall(PetscFree(mine));
  PetscCall(PetscFree(keys));
  return 0;
}

PetscErrorCode make_dist_part(femint_space_t space, int ncell, struct part *pt)
{
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &pt->rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &pt->size));
  pt->cell_begin = 0;
  pt->ncell = ncell;
  PetscCall(PetscMalloc1(ncell + 1, &pt->cells));
  for (int k = 0; k < ncell; k++) pt->cells[k] = k;
  PetscCall(number_dofs(space, pt));
  PetscCheck(pt->ndof < PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "%lld DOFs need PETSc with 64-bit indices", (long long)pt->ndof);
  return 0;
}

/* The DOFs the rank's cells meet, each once: list[i] the global number (ascending), dof[i] the
 * DOF of the rank's space. Replicated the two are the same; distributed the space's DOF d is
 * global number pt->global[d]. */
PetscErrorCode local_setup(femint_space_t space, const struct part *pt, Vec x, struct local *l)
{
  PetscInt room = 0, m = 0, *list, *dof;
  for (int k = 0; k < pt->ncell; k++) {
    const int n = femint_space_cell_size(space, pt->cells[k]);
    FEMINT_TRY(NULL, n < 0 ? n : 0);
    room += n;
  }
  int64_t *dofs;
  PetscCall(PetscMalloc1(room + 1, &list));
  PetscCall(PetscMalloc1(room + 1, &dof));
  PetscCall(PetscMalloc1(room + 1, &dofs));
  for (int k = 0; k < pt->ncell; k++) {
    const int n = femint_space_cell_size(space, pt->cells[k]);
    FEMINT_TRY(NULL, femint_space_cell_dofs(space, pt->cells[k], dofs, NULL));
    for (int i = 0; i < n; i++)
      if (dofs[i] >= 0) list[m] = to_global(pt, dofs[i]), dof[m++] = (PetscInt)dofs[i];
  }
  PetscCall(PetscFree(dofs));
  PetscCall(PetscSortIntWithArray(m, list, dof));
  l->nl = 0;
  for (PetscInt i = 0; i < m; i++) /* one of each: a global number is one DOF of the space */
    if (l->nl == 0 || list[l->nl - 1] != list[i]) list[l->nl] = list[i], dof[l->nl++] = dof[i];
  l->list = list;
  l->dof = dof;
  IS is;
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, l->nl, l->list, PETSC_USE_POINTER, &is));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, l->nl, &l->xl));
  PetscCall(VecDuplicate(l->xl, &l->yl));
  PetscCall(VecScatterCreate(x, is, l->xl, NULL, &l->sc));
  PetscCall(ISDestroy(&is));
  PetscCall(PetscCalloc1(pt->nlocal + 1, &l->xf));
  PetscCall(PetscCalloc1(pt->nlocal + 1, &l->yf));
  return 0;
}

PetscErrorCode local_gather(struct local *l, Vec x)
{
  const PetscScalar *v;
  PetscCall(VecScatterBegin(l->sc, x, l->xl, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(l->sc, x, l->xl, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArrayRead(l->xl, &v));
  for (PetscInt i = 0; i < l->nl; i++) l->xf[l->dof[i]] = v[i];
  PetscCall(VecRestoreArrayRead(l->xl, &v));
  return 0;
}

PetscErrorCode local_scatter_add(struct local *l, Vec y)
{
  PetscScalar *v;
  PetscCall(VecGetArray(l->yl, &v));
  for (PetscInt i = 0; i < l->nl; i++) v[i] = l->yf[l->dof[i]];
  PetscCall(VecRestoreArray(l->yl, &v));
  PetscCall(VecSet(y, 0));
  PetscCall(VecScatterBegin(l->sc, l->yl, y, ADD_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(l->sc, l->yl, y, ADD_VALUES, SCATTER_REVERSE));
  return 0;
}

PetscErrorCode local_destroy(struct local *l)
{
  PetscCall(VecScatterDestroy(&l->sc));
  PetscCall(VecDestroy(&l->xl));
  PetscCall(VecDestroy(&l->yl));
  PetscCall(PetscFree(l->list));
  PetscCall(PetscFree(l->dof));
  PetscCall(PetscFree(l->xf));
  PetscCall(PetscFree(l->yf));
  return 0;
}

PetscErrorCode get_where(int *w)
{
  char where[16] = "any";
  PetscCall(PetscOptionsGetString(NULL, NULL, "-where", where, sizeof where, NULL));
  *w = !strcmp(where, "cpu")      ? FEMINT_WHERE_CPU
       : !strcmp(where, "opencl") ? FEMINT_WHERE_OPENCL
       : !strcmp(where, "any")    ? FEMINT_WHERE_ANY
                                  : -1;
  PetscCheck(*w >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-where %s: expected any, cpu or opencl",
             where);
  return 0;
}

/* The node's ranks are numbered by a shared-memory communicator; femint takes the device. */
PetscErrorCode start_femint(int where, femint_context_t *ctx)
{
  MPI_Comm node;
  int local;
  PetscCallMPI(MPI_Comm_split_type(PETSC_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                                   &node));
  PetscCallMPI(MPI_Comm_rank(node, &local));
  PetscCallMPI(MPI_Comm_free(&node));
  struct femint_init_options o = {.nopencl = where == FEMINT_WHERE_CPU ? 0 : -1, .quiet = 1,
                                  .device_select = FEMINT_DEVICE_BY_LOCAL_RANK,
                                  .local_rank = local};
  PetscCheck(femint_init(&o, ctx) == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "femint_init: %s",
             femint_init_error());
  return 0;
}
