/* Spaces of every family on every shape: the DOF map (orders of the entities by the minimum
 * rule, orientation signs, numbering in the order the cells meet the modes), the interpolation of
 * linear fields and point evaluation. H1 on prisms and quadrilaterals, H(curl) on tetrahedra: the
 * same map over the reference element's mode metadata. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"
#include "refel_hex.h"
#include "refel_quad.h"
#include "refel_simplex.h"

#define SPACE_MAX_NCOMP 5

/* What space_create works with besides the space: a reference element per order used, the
 * order and first global mode of every edge and face, and the local face of each global face in
 * its first cell. */
struct space_build {
  struct refel *re[FEMINT_MAX_ORDER + 1];
  struct refel *any; /* one of them, for the mode counts of the shape and family */
  int *edge_order, *face_order, *face_local;
  int64_t *edge_off, *face_off;
};

static void space_free(struct femint_space *s)
{
  if (!s) return;
  free(s->order);
  free(s->cell_off);
  free(s->cell_mode);
  free(s->cell_sign);
  free(s->vertex_mode);
  free(s->global_dof);
  free(s);
}

static void build_free(struct space_build *b)
{
  for (int p = 0; p <= FEMINT_MAX_ORDER; p++) refel_destroy(&b->re[p]);
  free(b->edge_order);
  free(b->face_order);
  free(b->face_local);
  free(b->edge_off);
  free(b->face_off);
}

/* Whether the two cells of an interior face order it alike: a triangle face lists the same
 * vertices in the same order in both cells (its bubbles are not symmetric); a quadrilateral face
 * has the same two vertical edges in both cells (its modes are horizontal times vertical). */
static int face_compatible(const struct femint_mesh *m, int ca, int fa, int cb, int fb)
{
  const int *va = &m->cells[6 * (size_t)ca], *vb = &m->cells[6 * (size_t)cb];
  const int *pa = prism_face_vert[fa], *pb = prism_face_vert[fb];
  if (fa < 2 || fb < 2) {
    for (int j = 0; j < 3; j++)
      if (va[pa[j]] != vb[pb[j]]) return 0;
    return 1;
  }
  /* Vertical edges of a quadrilateral face: (pa[0], pa[3]) and (pa[1], pa[2]). */
  for (int e = 0; e < 2; e++) {
    int a0 = va[pa[e]], a1 = va[pa[3 - e]], found = 0;
    for (int h = 0; h < 2; h++) {
      int b0 = vb[pb[h]], b1 = vb[pb[3 - h]];
      found |= (a0 == b0 && a1 == b1) || (a0 == b1 && a1 == b0);
    }
    if (!found) return 0;
  }
  return 1;
}

/* The sign of a mode of a cell under the canonical orientation of its edge or quad face: an edge
 * runs from its smaller global vertex id to its larger one, and an edge mode of odd degree
 * changes sign with the direction. cv: the global ids of the cell's vertices, so that processes
 * holding different parts of a mesh orient a shared entity alike. */
static int mode_sign(int shape, const int64_t *cv, const struct refel_mode *md)
{
  int sign = 1;
  /* a tetrahedron keeps its vertices in ascending global order: its cells agree on every entity;
   * a hexahedron's nodal functions are shared by numbering (hex_rank), never by sign */
  if (shape == FEMINT_TET || shape == FEMINT_HEX || shape == FEMINT_TRI) return 1;
  if (shape == FEMINT_QUAD) {
    const int *ev = quad_edge_vert[md->entity];
    if (md->kind == MODE_EDGE && cv[ev[0]] > cv[ev[1]] && (md->degree & 1)) sign = -1;
    return sign;
  }
  if (md->kind == MODE_EDGE) {
    const int *ev = prism_edge_vert[md->entity];
    int deg = md->entity < 6 ? md->hdeg : md->vdeg;
    if (cv[ev[0]] > cv[ev[1]] && (deg & 1)) sign = -1;
  } else if (md->kind == MODE_FACE && md->entity >= 2) {
    /* Face vertices: bottom a, bottom b, top b, top a. The canonical orientation starts at the
     * smallest global vertex; the local horizontal direction runs a -> b and the vertical one
     * bottom -> top, so a start in column b flips the horizontal direction and a start at the
     * top flips the vertical one. */
    const int *fv = prism_face_vert[md->entity];
    int jmin = 0;
    for (int j = 1; j < 4; j++)
      if (cv[fv[j]] < cv[fv[jmin]]) jmin = j;
    int hflip = jmin == 1 || jmin == 2, vflip = jmin >= 2;
    if (hflip && (md->hdeg & 1)) sign = -sign;
    if (vflip && (md->vdeg & 1)) sign = -sign;
  }
  return sign;
}

/* The rank of a hexahedron's edge or face node among the nodes of its entity, in the entity's
 * own order, from the global ids gv of the cell's vertices: an edge's nodes run from its vertex
 * of smaller id; a face's (p-1)^2 nodes lie in the frame whose origin is its vertex of smallest
 * id and whose first axis runs to the neighbour of smaller id. Cells that share the entity then
 * number its nodes alike, so the space is conforming whatever the orientation of the cells. */
static int hex_rank(const struct refel_mode *md, int p, const int64_t *gv)
{
  const int n = p - 1; /* nodes per direction inside an edge or face */
  if (md->kind == MODE_EDGE) {
    const int *ev = hex_edge_vert[md->entity], i = md->i1 - 1;
    return gv[ev[0]] < gv[ev[1]] ? i : n - 1 - i;
  }
  if (md->kind != MODE_FACE || n == 1) return md->rank;
  const int *fv = hex_face_vert[md->entity];
  int o = 0;
  for (int j = 1; j < 4; j++)
    if (gv[fv[j]] < gv[fv[o]]) o = j;
  const int a = (o + 1) % 4, b = (o + 3) % 4, u = gv[fv[a]] < gv[fv[b]] ? a : b, v = a + b - u;
  /* the corners of the face's grid of nodes, in the local frame (axis 1 from corner 0 to 1,
   * axis 2 from corner 0 to 3) */
  static const int corner[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
  const int P[2] = {md->i1 - 1, md->i2 - 1};
  int U = 0, V = 0;
  for (int d = 0; d < 2; d++) {
    const int from = corner[o][d] * (n - 1);
    U += (P[d] - from) * (corner[u][d] - corner[o][d]);
    V += (P[d] - from) * (corner[v][d] - corner[o][d]);
  }
  return V * n + U;
}

int space_mode_rank(const struct refel *re, const struct refel_mode *md, int q, const int64_t *gv)
{
  if (re->shape == FEMINT_HEX && (md->kind == MODE_EDGE || md->kind == MODE_FACE))
    return q == re->order ? hex_rank(md, q, gv) : -1;
  return refel_rank(re, md, q);
}

/* Orders of the edges and faces (minimum rule), their first global modes, and the check of the
 * orientation of shared prism faces that carry modes. Sets s->nmode to the first interior mode.
 * The modes of the vertices (H1) come first, vertex v's being mode v. */
static int number_entities(struct femint_space *s, struct space_build *b)
{
  const struct femint_mesh *m = s->mesh;
  const struct cell_topo *t = m->topo;
  femint_context_t ctx = s->ctx;
  /* A quadrilateral's faces are its edges: the modes are on the edges only. */
  const int nface = t->dim == 3 ? m->nface : 0, nf = t->dim == 3 ? t->nf : 0;
  b->edge_order = malloc((size_t)(m->nedge ? m->nedge : 1) * sizeof *b->edge_order);
  b->edge_off = malloc((size_t)(m->nedge ? m->nedge : 1) * sizeof *b->edge_off);
  b->face_order = malloc((size_t)(nface ? nface : 1) * sizeof *b->face_order);
  b->face_local = malloc((size_t)(nface ? nface : 1) * sizeof *b->face_local);
  b->face_off = malloc((size_t)(nface ? nface : 1) * sizeof *b->face_off);
  if (!b->edge_order || !b->edge_off || !b->face_order || !b->face_local || !b->face_off)
    return femint_seterr(ctx, FEMINT_ENOMEM, "out of memory numbering the DOFs of a space");
  for (int e = 0; e < m->nedge; e++) b->edge_order[e] = INT_MAX;
  for (int g = 0; g < nface; g++) b->face_order[g] = INT_MAX;
  for (int c = 0; c < m->ncell; c++) {
    int p = s->order[c];
    for (int e = 0; e < t->ne; e++) {
      int *q = &b->edge_order[m->cell_edge[t->ne * (size_t)c + e]];
      if (p < *q) *q = p;
    }
    for (int f = 0; f < nf; f++) {
      int g = m->cell_face[(size_t)nf * c + f];
      if (p < b->face_order[g]) b->face_order[g] = p;
      if (m->face_cell[2 * g] == c) b->face_local[g] = f;
    }
  }
  int64_t n = s->family == FEMINT_H1 ? m->nvert : 0;
  for (int e = 0; e < m->nedge; e++) {
    b->edge_off[e] = n;
    n += refel_modes(b->any, MODE_EDGE, 0, b->edge_order[e]);
  }
  for (int g = 0; g < nface; g++) {
    int fa = b->face_local[g], q = b->face_order[g], nm = refel_modes(b->any, MODE_FACE, fa, q);
    b->face_off[g] = n;
    n += nm;
    int ca = m->face_cell[2 * g], cb = m->face_cell[2 * g + 1];
    if (cb < 0 || nm == 0 || t->shape != FEMINT_PRISM) continue;
    int fb = 0;
    while (fb < PRISM_NF - 1 && m->cell_face[PRISM_NF * (size_t)cb + fb] != g) fb++;
    if (!face_compatible(m, ca, fa, cb, fb)) {
      const int *va = &m->cells[6 * (size_t)ca];
      const int *pv = prism_face_vert[fa];
      char fourth[16] = "";
      if (pv[3] >= 0) snprintf(fourth, sizeof fourth, " %d", va[pv[3]]);
      return femint_seterr(ctx, FEMINT_EMESH,
                           "cells %d and %d see face %d (vertices %d %d %d%s) with incompatible "
                           "orientation",
                           ca, cb, g, va[pv[0]], va[pv[1]], va[pv[2]], fourth);
    }
  }
  s->nmode = n;
  return 0;
}

/* The global mode and sign of every local mode of every cell. */
static int map_cells(struct femint_space *s, struct space_build *b)
{
  const struct femint_mesh *m = s->mesh;
  s->cell_off = malloc(((size_t)m->ncell + 1) * sizeof *s->cell_off);
  if (!s->cell_off)
    return femint_seterr(s->ctx, FEMINT_ENOMEM, "out of memory numbering the DOFs of a space");
  s->cell_off[0] = 0;
  for (int c = 0; c < m->ncell; c++)
    s->cell_off[c + 1] = s->cell_off[c] + b->re[s->order[c]]->nsh;
  size_t total = (size_t)s->cell_off[m->ncell];
  s->cell_mode = malloc(total * sizeof *s->cell_mode);
  s->cell_sign = malloc(total * sizeof *s->cell_sign);
  if (!s->cell_mode || !s->cell_sign)
    return femint_seterr(s->ctx, FEMINT_ENOMEM, "out of memory numbering the DOFs of a space");
  /* the cells' own modes (neither vertex, edge nor face) numbered after the shared ones, cell
   * after cell: each cell's first from the counts of the cells before, so that the threads
   * number the same as one would */
  int64_t *own = malloc(((size_t)m->ncell + 1) * sizeof *own);
  if (!own)
    return femint_seterr(s->ctx, FEMINT_ENOMEM, "out of memory numbering the DOFs of a space");
  int nown[FEMINT_MAX_ORDER + 1] = {0};
  for (int q = 0; q <= FEMINT_MAX_ORDER; q++)
    for (int i = 0; b->re[q] && i < b->re[q]->nsh; i++) {
      const int kind = b->re[q]->mode[i].kind;
      nown[q] += kind != MODE_VERTEX && kind != MODE_EDGE && kind != MODE_FACE;
    }
  own[0] = s->nmode;
  for (int c = 0; c < m->ncell; c++) own[c + 1] = own[c] + nown[s->order[c]];
#pragma omp parallel for schedule(static)
  for (int c = 0; c < m->ncell; c++) {
    int64_t next = own[c];
    const struct refel *re = b->re[s->order[c]];
    const struct cell_topo *t = m->topo;
    const int *cv = &m->cells[(size_t)t->nv * c];
    int64_t gv[MESH_MAX_NV]; /* the global ids of the cell's vertices orient its edges and faces */
    for (int a = 0; a < t->nv; a++) gv[a] = m->vert_gid[cv[a]];
    int64_t *gm = &s->cell_mode[s->cell_off[c]];
    int8_t *sg = &s->cell_sign[s->cell_off[c]];
    for (int i = 0; i < re->nsh; i++) {
      const struct refel_mode *md = &re->mode[i];
      int64_t g = -1;
      int r;
      switch (md->kind) {
      case MODE_VERTEX: g = cv[md->entity]; break;
      case MODE_EDGE: {
        int e = m->cell_edge[(size_t)t->ne * c + md->entity];
        r = space_mode_rank(re, md, b->edge_order[e], gv);
        if (r >= 0) g = b->edge_off[e] + r;
        break;
      }
      case MODE_FACE: {
        int f = m->cell_face[(size_t)t->nf * c + md->entity];
        r = space_mode_rank(re, md, b->face_order[f], gv);
        if (r >= 0) g = b->face_off[f] + r;
        break;
      }
      default: g = next++; break;
      }
      gm[i] = g;
      sg[i] = (int8_t)(g >= 0 ? mode_sign(t->shape, gv, md) : 1);
    }
  }
  s->nmode = own[m->ncell];
  free(own);
  return 0;
}

/* Number the modes in the order the cells meet them (cell 0's modes first, then the modes of
 * cell 1 not yet numbered, ...), so that a run of consecutive cells owns a nearly contiguous
 * range of rows: the rows an assembly batch writes then lie in a few row blocks. */
static int renumber(struct femint_space *s)
{
  const struct femint_mesh *m = s->mesh;
  const size_t total = (size_t)s->cell_off[m->ncell];
  int64_t *perm = malloc((size_t)(s->nmode > 0 ? s->nmode : 1) * sizeof *perm);
  s->vertex_mode = malloc((size_t)(m->nvert > 0 ? m->nvert : 1) * sizeof *s->vertex_mode);
  if (!perm || !s->vertex_mode) {
    free(perm);
    return femint_seterr(s->ctx, FEMINT_ENOMEM, "out of memory numbering the DOFs of a space");
  }
  for (int64_t g = 0; g < s->nmode; g++) perm[g] = -1;
  int64_t next = 0;
  for (size_t l = 0; l < total; l++) {
    int64_t g = s->cell_mode[l];
    if (g < 0) continue;
    if (perm[g] < 0) perm[g] = next++;
    s->cell_mode[l] = perm[g];
  }
  /* in H1 every vertex of a cell carries a mode (vertex v was mode v before renumbering) */
  for (int v = 0; v < m->nvert; v++) s->vertex_mode[v] = s->family == FEMINT_H1 ? perm[v] : -1;
  s->nmode = next;
  free(perm);
  return 0;
}

static int space_create(femint_context_t ctx, femint_mesh_t mesh, int family, int ncomp,
                        const int *orders, int uniform_order, femint_space_t *space)
{
  femint_trace("femint_space_create");
  static const char who[] = "femint_space_create";
  FEMINT_CHECK(space, ctx, FEMINT_EINVAL, "%s: space (output) is NULL", who);
  *space = NULL;
  FEMINT_CHECK(mesh, ctx, FEMINT_EINVAL, "%s: mesh is NULL", who);
  const int shape = mesh->topo->shape;
  if (!refel_has_family(shape, family)) {
    struct refel *probe = NULL;
    const int err = refel_create(shape, family, 1, &probe); /* names what is missing */
    refel_destroy(&probe);
    return femint_seterr(ctx, err ? err : FEMINT_ENOTSUP, "%s: %s", who, femint_thread_error());
  }
  const int pmax = refel_max_order(shape, family), ncmax = family == FEMINT_H1 ? SPACE_MAX_NCOMP : 1;
  FEMINT_CHECK(ncomp >= 1 && ncomp <= ncmax, ctx, FEMINT_EINVAL,
               "%s: ncomp = %d (must be %s)", who, ncomp,
               family == FEMINT_H1 ? "1..5" : "1: H(curl) functions are vector fields");
  if (orders) {
    for (int c = 0; c < mesh->ncell; c++) {
      FEMINT_CHECK(orders[c] >= 1 && orders[c] <= pmax, ctx, FEMINT_EORDER,
                   "%s: cell %d has order %d (must be 1..%d)", who, c, orders[c], pmax);
      FEMINT_CHECK((family == FEMINT_H1 && !refel_nodal(shape, family)) || orders[c] == orders[0],
                   ctx, FEMINT_ENOTSUP,
                   "%s: cell %d has order %d and cell 0 order %d: %s space takes one order for "
                   "every cell",
                   who, c, orders[c], orders[0],
                   family == FEMINT_H1 ? "a Lagrange (nodal)" : "an H(curl)");
    }
  } else {
    FEMINT_CHECK(uniform_order >= 1 && uniform_order <= pmax, ctx, FEMINT_EORDER,
                 "%s: uniform_order = %d (must be 1..%d)", who, uniform_order, pmax);
  }

  struct space_build b;
  memset(&b, 0, sizeof b);
  int ierr = 0;
  struct femint_space *s = calloc(1, sizeof *s);
  if (!s) return femint_seterr(ctx, FEMINT_ENOMEM, "out of memory creating a space");
  s->ctx = ctx;
  s->mesh = mesh;
  s->family = family;
  s->ncomp = ncomp;
  s->order = malloc((size_t)mesh->ncell * sizeof *s->order);
  if (!s->order) {
    ierr = femint_seterr(ctx, FEMINT_ENOMEM, "out of memory creating a space");
    goto done;
  }
  for (int c = 0; c < mesh->ncell; c++) {
    int p = orders ? orders[c] : uniform_order;
    s->order[c] = p;
    if (!b.re[p] && (ierr = refel_create(shape, family, p, &b.re[p]))) {
      if (ctx) femint_seterr(ctx, ierr, "%s", femint_thread_error());
      goto done;
    }
    b.any = b.re[p];
  }
  if ((ierr = number_entities(s, &b)) || (ierr = map_cells(s, &b)) || (ierr = renumber(s)))
    goto done;
done:
  build_free(&b);
  if (ierr) {
    space_free(s);
    return ierr;
  }
  *space = s;
  return 0;
}

int femint_space_create(femint_context_t ctx, femint_mesh_t mesh, int family, int ncomp,
                        const int *orders, int uniform_order, femint_space_t *space)
{
  femint_host_quiet(1);
  const int err = space_create(ctx, mesh, family, ncomp, orders, uniform_order, space);
  femint_host_quiet(0);
  return err;
}

int femint_space_destroy(femint_space_t *space)
{
  if (!space) return 0;
  space_free(*space);
  *space = NULL;
  return 0;
}

int femint_space_family(femint_space_t space)
{
  FEMINT_CHECK(space, NULL, FEMINT_EINVAL, "femint_space_family: space is NULL");
  return space->family;
}

int64_t femint_space_num_dofs(femint_space_t space)
{
  FEMINT_CHECK(space, NULL, FEMINT_EINVAL, "femint_space_num_dofs: space is NULL");
  return space->nmode * space->ncomp;
}

int femint_space_num_components(femint_space_t space)
{
  FEMINT_CHECK(space, NULL, FEMINT_EINVAL, "femint_space_num_components: space is NULL");
  return space->ncomp;
}

int femint_space_cell_order(femint_space_t space, int cell)
{
  FEMINT_CHECK(space, NULL, FEMINT_EINVAL, "femint_space_cell_order: space is NULL");
  FEMINT_CHECK(cell >= 0 && cell < space->mesh->ncell, space->ctx, FEMINT_EINVAL,
               "femint_space_cell_order: cell %d is outside [0, %d)", cell, space->mesh->ncell);
  return space->order[cell];
}

int femint_space_cell_size(femint_space_t space, int cell)
{
  FEMINT_CHECK(space, NULL, FEMINT_EINVAL, "femint_space_cell_size: space is NULL");
  FEMINT_CHECK(cell >= 0 && cell < space->mesh->ncell, space->ctx, FEMINT_EINVAL,
               "femint_space_cell_size: cell %d is outside [0, %d)", cell, space->mesh->ncell);
  return (int)(space->cell_off[cell + 1] - space->cell_off[cell]) * space->ncomp;
}

int femint_space_cell_dofs(femint_space_t space, int cell, int64_t *dofs, int *signs)
{
  FEMINT_CHECK(space, NULL, FEMINT_EINVAL, "femint_space_cell_dofs: space is NULL");
  FEMINT_CHECK(cell >= 0 && cell < space->mesh->ncell, space->ctx, FEMINT_EINVAL,
               "femint_space_cell_dofs: cell %d is outside [0, %d)", cell, space->mesh->ncell);
  int nc = space->ncomp;
  int64_t off = space->cell_off[cell], nsh = space->cell_off[cell + 1] - off;
  for (int64_t i = 0; i < nsh; i++) {
    int64_t g = space->cell_mode[off + i];
    for (int k = 0; k < nc; k++) {
      if (dofs) dofs[i * nc + k] = g < 0 ? -1 : g * nc + k;
      if (signs) signs[i * nc + k] = space->cell_sign[off + i];
    }
  }
  return 0;
}

/* Component k of the linear field a + b x at x. */
static double linear_value(const double *a, const double *b, int k, const double *x)
{
  double val = a ? a[k] : 0;
  if (b)
    for (int i = 0; i < 3; i++) val += b[3 * k + i] * x[i];
  return val;
}

/* On a curved quadrilateral the 8-node map is the bilinear map plus, on each edge, the offset of
 * the midpoint node from the chord's midpoint times (1 - s^2) L_blend = L2(s) / L2(0) L_blend:
 * the second edge mode. A linear field u composed with the map takes the same form, so its
 * second edge mode has the coefficient (u(x_mid) - (u(x_a) + u(x_b)) / 2) / L2(0), with
 * L2(0) = -3 / (2 sqrt 6) (even degree: no orientation sign). An edge of order 1 has no such
 * mode and the field is then only approximated there. */
static void interpolate_midpoints(const struct femint_space *space, const double *a,
                                  const double *b, double *u)
{
  const struct femint_mesh *m = space->mesh;
  const int nc = space->ncomp;
  const double l2_0 = -3 / (2 * sqrt(6.0));
  for (int c = 0; c < m->ncell; c++) {
    const int p = space->order[c];
    if (p < 2) continue;
    for (int e = 0; e < 4; e++) {
      const int64_t g = space->cell_mode[space->cell_off[c] + 4 + e * (p - 1)];
      if (g < 0) continue;
      const double *xmid = &m->edge_x[3 * (size_t)m->cell_edge[4 * (size_t)c + e]];
      const double *xa = &m->coords[3 * (size_t)m->cells[4 * (size_t)c + quad_edge_vert[e][0]]];
      const double *xb = &m->coords[3 * (size_t)m->cells[4 * (size_t)c + quad_edge_vert[e][1]]];
      for (int k = 0; k < nc; k++)
        u[(size_t)g * nc + k] = (linear_value(a, b, k, xmid) -
                                 0.5 * (linear_value(a, b, k, xa) + linear_value(a, b, k, xb))) /
                                l2_0;
    }
  }
}

/* Hexahedra and Lagrange simplices: the functions are nodal, so every node takes the field's
 * value at the image of its reference point (the vertices were set already). */
static int interpolate_nodes(const struct femint_space *s, const double *a, const double *b,
                             double *u)
{
  const struct femint_mesh *m = s->mesh;
  const int shape = m->topo->shape, dim = m->topo->dim, p = s->order[0], nc = s->ncomp;
  const int nsh = refel_nsh(shape, FEMINT_H1, p);
  double *xi = malloc(3 * (size_t)nsh * sizeof *xi), X[3 * MESH_MAX_NODES], J[9];
  FEMINT_CHECK(xi, s->ctx, FEMINT_ENOMEM, "femint_space_interpolate_linear: out of memory");
  const int err = shape == FEMINT_HEX ? refel_hex_nodes(p, xi) : refel_lagrange_nodes(shape, p, xi);
  for (int c = 0; c < m->ncell && !err; c++) {
    const int nnode = mesh_cell_nodes(m, c, X);
    const int64_t *gm = &s->cell_mode[s->cell_off[c]];
    for (int i = 0; i < nsh; i++) {
      if (gm[i] < 0) continue;
      double x[3] = {0, 0, 0};
      geom_map(shape, nnode, X, &xi[dim * i], x, J);
      for (int k = 0; k < nc; k++) u[(size_t)gm[i] * nc + k] = linear_value(a, b, k, x);
    }
  }
  free(xi);
  return err ? femint_seterr(s->ctx, err, "femint_space_interpolate_linear: %s",
                             femint_thread_error())
             : 0;
}

int femint_space_interpolate_linear(femint_space_t space, const double *a, const double *b,
                                    double *u)
{
  FEMINT_CHECK(space, NULL, FEMINT_EINVAL, "femint_space_interpolate_linear: space is NULL");
  FEMINT_CHECK(u, space->ctx, FEMINT_EINVAL, "femint_space_interpolate_linear: u is NULL");
  FEMINT_CHECK(space->family == FEMINT_H1, space->ctx, FEMINT_ENOTSUP,
               "femint_space_interpolate_linear: H1 spaces only (the space is H(curl))");
  const struct femint_mesh *m = space->mesh;
  int nc = space->ncomp;
  memset(u, 0, (size_t)(space->nmode * nc) * sizeof *u);
  /* The vertex modes are the functions of the geometric map, so they reproduce linear fields. */
  for (int v = 0; v < m->nvert; v++) {
    const double *x = &m->coords[3 * (size_t)v];
    const int64_t g = space->vertex_mode[v];
    if (g < 0) continue; /* a vertex of no cell, or removed */
    for (int k = 0; k < nc; k++) u[(size_t)g * nc + k] = linear_value(a, b, k, x);
  }
  if (m->edge_x && m->topo->shape == FEMINT_QUAD) interpolate_midpoints(space, a, b, u);
  if (refel_nodal(m->topo->shape, space->family)) return interpolate_nodes(space, a, b, u);
  return 0;
}

int femint_space_eval(femint_space_t space, const double *u, int cell, const double *xi,
                      double *x, double *val)
{
  FEMINT_CHECK(space, NULL, FEMINT_EINVAL, "femint_space_eval: space is NULL");
  femint_context_t ctx = space->ctx;
  FEMINT_CHECK(cell >= 0 && cell < space->mesh->ncell, ctx, FEMINT_EINVAL,
               "femint_space_eval: cell %d is outside [0, %d)", cell, space->mesh->ncell);
  FEMINT_CHECK(xi, ctx, FEMINT_EINVAL, "femint_space_eval: xi is NULL");
  FEMINT_CHECK(!val || u, ctx, FEMINT_EINVAL, "femint_space_eval: u is NULL");
  const struct femint_mesh *m = space->mesh;
  const int shape = m->topo->shape, dim = m->topo->dim;
  double X[3 * MESH_MAX_NODES], J[9], y[3] = {0, 0, 0};
  const int nnode = mesh_cell_nodes(m, cell, X);
  geom_map(shape, nnode, X, xi, y, J);
  if (x) memcpy(x, y, sizeof y);
  if (!val) return 0;
  const int p = space->order[cell], nsh = refel_nsh(shape, space->family, p), nc = space->ncomp;
  const int hcurl = space->family == FEMINT_HCURL, nval = hcurl ? 3 : nc;
  double *phi = malloc((size_t)(hcurl ? 6 : dim + 1) * nsh * sizeof *phi);
  FEMINT_CHECK(phi, ctx, FEMINT_ENOMEM, "femint_space_eval: out of memory");
  refel_eval(shape, space->family, p, xi, phi);
  const int64_t *gm = &space->cell_mode[space->cell_off[cell]];
  const int8_t *sg = &space->cell_sign[space->cell_off[cell]];
  for (int k = 0; k < nval; k++) val[k] = 0;
  if (hcurl) {
    /* the covariant map: N = J^-T N_ref, K = J^-1 (K[3*j + i] = dxi_j / dx_i) */
    double K[9], ref[3] = {0, 0, 0};
    geom_inverse3(J, K);
    for (int i = 0; i < nsh; i++)
      if (gm[i] >= 0)
        for (int j = 0; j < 3; j++) ref[j] += sg[i] * phi[j * nsh + i] * u[gm[i]];
    for (int d = 0; d < 3; d++) val[d] = K[d] * ref[0] + K[3 + d] * ref[1] + K[6 + d] * ref[2];
  } else {
    for (int i = 0; i < nsh; i++) {
      if (gm[i] < 0) continue;
      for (int k = 0; k < nc; k++) val[k] += sg[i] * phi[i] * u[gm[i] * nc + k];
    }
  }
  free(phi);
  return 0;
}

int femint_space_gradient(femint_space_t space, const double *phi, double *u)
{
  FEMINT_CHECK(space && phi && u, space ? space->ctx : NULL, FEMINT_EINVAL,
               "femint_space_gradient: NULL space, phi or u");
  FEMINT_CHECK(space->family == FEMINT_HCURL, space->ctx, FEMINT_EINVAL,
               "femint_space_gradient: the discrete gradient maps into an H(curl) space, not an "
               "H1 one");
  const struct femint_mesh *m = space->mesh;
  const struct cell_topo *t = m->topo;
  struct refel *re = NULL;
  FEMINT_CALL(refel_create(t->shape, space->family, space->order[0], &re));
  /* A vertex is on a wall exactly when one of its edges is: its Whitney DOF is removed. */
  char *wall = calloc((size_t)m->nvert + 1, 1);
  if (!wall) {
    refel_destroy(&re);
    return femint_seterr(space->ctx, FEMINT_ENOMEM, "femint_space_gradient: out of memory");
  }
  for (int pass = 0; pass < 2; pass++) {
    if (pass) memset(u, 0, (size_t)space->nmode * sizeof *u);
    for (int c = 0; c < m->ncell; c++) {
      const int *cv = &m->cells[(size_t)t->nv * c];
      const int64_t *gm = &space->cell_mode[space->cell_off[c]];
      for (int i = 0; i < re->nsh; i++) {
        const struct refel_mode *md = &re->mode[i];
        if (md->kind != MODE_EDGE || md->level != 1) continue;
        /* w_ab runs from the cell's lower local vertex a to b: ascending global ids */
        const int a = cv[t->edge_vert[md->entity][0]], b = cv[t->edge_vert[md->entity][1]];
        if (!pass && gm[i] < 0) wall[a] = wall[b] = 1;
        if (pass && gm[i] >= 0) u[gm[i]] = (wall[b] ? 0 : phi[b]) - (wall[a] ? 0 : phi[a]);
      }
    }
  }
  free(wall);
  refel_destroy(&re);
  return 0;
}
