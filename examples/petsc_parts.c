/* Each rank's share of examples/petsc_elasticity: the mesh (the same on every rank, or the rank's
 * part only), the run of cells it integrates, and in the distributed mode the numbering of the
 * DOFs across the ranks by their keys (MPI_Allgatherv). */
#include <stdlib.h>
#include <string.h>

#include "petsc_common.h"

/* The example's form, 3D elasticity, is one of prisms: a file of other cells is refused. */
static PetscErrorCode check_prisms(const char *path, femint_mesh_t mesh)
{
  static const char *name[] = {"", "prisms", "quadrilaterals", "tetrahedra"};
  const int shape = femint_mesh_shape(mesh);
  PetscCheck(shape == FEMINT_PRISM, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "-mesh %s: its cells are %s; this example needs prisms (3D elasticity)", path,
             shape >= 1 && shape <= 3 ? name[shape] : "of no known shape");
  return 0;
}

/* ---- The replicated mode: every rank holds the whole mesh and integrates a run of cells ---- */

PetscErrorCode make_mesh(femint_context_t ctx, const struct settings *st, int size,
                         femint_mesh_t *mesh, char *what, size_t len)
{
  if (st->mesh[0]) {
    FEMINT_TRY(ctx, femint_mesh_read_gmsh(ctx, st->mesh, mesh));
    PetscCall(check_prisms(st->mesh, *mesh));
    snprintf(what, len, "gmsh %s (%d prisms)", st->mesh, femint_mesh_num_cells(*mesh));
    return 0;
  }
  const int n = (int)st->n, nz = st->weak ? n * size : n;
  FEMINT_TRY(ctx, femint_mesh_create_box(ctx, FEMINT_PRISM, n, n, nz, 1, 1, st->weak ? size : 1,
                                         st->perturb, 1, mesh));
  snprintf(what, len, "box %dx%dx%d on [0,1]x[0,1]x[0,%d] (%d prisms)", n, n, nz,
           st->weak ? size : 1, femint_mesh_num_cells(*mesh));
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

/* The rank's run of the cells of the box that femint_mesh_create_box makes unperturbed (the same
 * cells in the same order: hexahedra layer by layer along z, each cut into 2 prisms along the
 * diagonal from (i, j) to (i+1, j+1)), built as a part: the vertices its cells use, with the
 * box's vertex numbers as global ids, and its faces on the sides of the box tagged 1..6 as the
 * box tags them. Nothing of the rest of the box is made. */
static PetscErrorCode make_box_part(femint_context_t ctx, const int n[3], const double l[3],
                                    int rank, int size, femint_mesh_t *mesh)
{
  static const int face_vert[5][4] = {
      {0, 1, 2, -1}, {3, 4, 5, -1}, {0, 1, 4, 3}, {1, 2, 5, 4}, {2, 0, 3, 5}};
  const int64_t ncell_box = 2 * (int64_t)n[0] * n[1] * n[2];
  const int c0 = (int)(rank * ncell_box / size), nc = (int)((rank + 1) * ncell_box / size) - c0;
  const int64_t sy = n[0] + 1, sz = sy * (n[1] + 1);
  int64_t *gv, *ids;
  int *cells, *faces, *tags, nface = 0;
  size_t nv = 6 * (size_t)nc, m = 0;
  double *coords;
  PetscCall(PetscMalloc2(nv, &gv, nv, &ids));
  for (int c = c0; c < c0 + nc; c++) {
    const int64_t h = c / 2, i = h % n[0], j = h / n[0] % n[1], k = h / ((int64_t)n[0] * n[1]);
    const int64_t v00 = i + j * sy + k * sz, tri[2][3] = {{v00, v00 + 1, v00 + 1 + sy},
                                                          {v00, v00 + 1 + sy, v00 + sy}};
    for (int a = 0; a < 3; a++) {
      gv[6 * (size_t)(c - c0) + a] = tri[c % 2][a];
      gv[6 * (size_t)(c - c0) + 3 + a] = tri[c % 2][a] + sz;
    }
  }
  memcpy(ids, gv, nv * sizeof *ids);
  qsort(ids, nv, sizeof *ids, cmp_int64);
  for (size_t i = 0; i < nv; i++)
    if (m == 0 || ids[m - 1] != ids[i]) ids[m++] = ids[i];
  PetscCall(PetscMalloc4(3 * m, &coords, nv, &cells, 20 * (size_t)nc, &faces, 5 * (size_t)nc,
                         &tags));
  for (size_t i = 0; i < m; i++) {
    int ijk[3];
    box_vertex(ids[i], n, l, ijk, &coords[3 * i]);
  }
  for (size_t i = 0; i < nv; i++)
    cells[i] = (int)((int64_t *)bsearch(&gv[i], ids, m, sizeof *ids, cmp_int64) - ids);
  for (int c = 0; c < nc; c++)
    for (int f = 0; f < 5; f++) {
      int lo[3] = {1, 1, 1}, hi[3] = {1, 1, 1}, tag = 0;
      for (int j = 0; j < 4 && face_vert[f][j] >= 0; j++) {
        int ijk[3];
        double x[3];
        box_vertex(gv[6 * (size_t)c + face_vert[f][j]], n, l, ijk, x);
        for (int a = 0; a < 3; a++) lo[a] &= ijk[a] == 0, hi[a] &= ijk[a] == n[a];
      }
      for (int a = 2; a >= 0; a--) tag = lo[a] ? 2 * a + 1 : hi[a] ? 2 * a + 2 : tag;
      if (!tag) continue;
      for (int j = 0; j < 4; j++)
        faces[4 * nface + j] = face_vert[f][j] < 0 ? -1 : cells[6 * c + face_vert[f][j]];
      tags[nface++] = tag;
    }
  FEMINT_TRY(ctx, femint_mesh_create_part(ctx, FEMINT_PRISM, (int)m, coords, ids, nc, cells, NULL,
                                          NULL, nface, faces, tags, mesh));
  PetscCall(PetscFree4(coords, cells, faces, tags));
  PetscCall(PetscFree2(gv, ids));
  return 0;
}

/* The partition of a Gmsh file is partition rank + 1; one rank reads the whole file. */
PetscErrorCode make_mesh_part(femint_context_t ctx, const struct settings *st, int rank, int size,
                              femint_mesh_t *mesh, char *what, size_t len)
{
  if (st->mesh[0]) {
    FEMINT_TRY(ctx, femint_mesh_read_gmsh_part(ctx, st->mesh, size == 1 ? -1 : rank + 1, mesh));
    PetscCall(check_prisms(st->mesh, *mesh));
    snprintf(what, len, "gmsh %s, one partition per rank (%d prisms on rank 0)", st->mesh,
             femint_mesh_num_cells(*mesh));
    return 0;
  }
  const int nn = (int)st->n, n[3] = {nn, nn, st->weak ? nn * size : nn};
  const double l[3] = {1, 1, st->weak ? size : 1};
  PetscCall(make_box_part(ctx, n, l, rank, size, mesh));
  snprintf(what, len, "box %dx%dx%d on [0,1]x[0,1]x[0,%d] (%d prisms on rank 0), its slabs",
           n[0], n[1], n[2], (int)l[2], femint_mesh_num_cells(*mesh));
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

PetscErrorCode local_setup(femint_space_t space, const struct part *pt, Vec x, struct local *l)
{
  PetscInt room = 0, m = 0;
  for (int k = 0; k < pt->ncell; k++) room += femint_space_cell_size(space, pt->cells[k]);
  int64_t *dofs;
  PetscCall(PetscMalloc1(room + 1, &l->list));
  PetscCall(PetscMalloc1(room + 1, &dofs));
  for (int k = 0; k < pt->ncell; k++) {
    const int n = femint_space_cell_size(space, pt->cells[k]);
    FEMINT_TRY(NULL, femint_space_cell_dofs(space, pt->cells[k], dofs, NULL));
    for (int i = 0; i < n; i++)
      if (dofs[i] >= 0) l->list[m++] = (PetscInt)dofs[i];
  }
  PetscCall(PetscFree(dofs));
  PetscCall(PetscSortRemoveDupsInt(&m, l->list));
  l->nl = m;
  IS is;
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, m, l->list, PETSC_USE_POINTER, &is));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, m, &l->xl));
  PetscCall(VecDuplicate(l->xl, &l->yl));
  PetscCall(VecScatterCreate(x, is, l->xl, NULL, &l->sc));
  PetscCall(ISDestroy(&is));
  PetscCall(PetscCalloc1(pt->ndof + 1, &l->xf));
  PetscCall(PetscCalloc1(pt->ndof + 1, &l->yf));
  return 0;
}

PetscErrorCode local_gather(struct local *l, Vec x)
{
  const PetscScalar *v;
  PetscCall(VecScatterBegin(l->sc, x, l->xl, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(l->sc, x, l->xl, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArrayRead(l->xl, &v));
  for (PetscInt i = 0; i < l->nl; i++) l->xf[l->list[i]] = v[i];
  PetscCall(VecRestoreArrayRead(l->xl, &v));
  return 0;
}

PetscErrorCode local_scatter_add(struct local *l, Vec y)
{
  PetscScalar *v;
  PetscCall(VecGetArray(l->yl, &v));
  for (PetscInt i = 0; i < l->nl; i++) v[i] = l->yf[l->list[i]];
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
