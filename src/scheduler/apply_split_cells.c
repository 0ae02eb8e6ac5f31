/* Which part of an operator split over devices applies each cell (split_assign), and the values
 * of a cell's element vector that go from the part that applies it to the others that have it,
 * at their own modes (struct ev_link): packed on the sender's device into main memory, loaded on
 * the reader's into a chunk of its own, in its place order, so that each part still sums every
 * place of its own DOFs in plan order (apply_split.c has the rest of the split). */
#include <stdlib.h>
#include <string.h>

#include "apply_split.h"

/* Wait for a kept task of the exchange, if any, and destroy it (its failure is in its
 * arguments' status). */
static void task_done(struct starpu_task **t)
{
  if (!*t) return;
  if (starpu_task_wait(*t)) femint_trace("a task of the exchange between devices failed");
  starpu_task_destroy(*t);
  *t = NULL;
}

void split_links_release(struct apply_split *sp)
{
  for (int l = 0; l < sp->nlink; l++) {
    struct ev_link *k = &sp->link[l];
    for (int r = 0; r < 2; r++) {
      task_done(&k->pack[r]);
      task_done(&k->load[r]);
    }
    if (k->h_pack) starpu_data_unregister_no_coherency(k->h_pack);
    if (k->h_idx) starpu_data_unregister(k->h_idx);
    femint_host_free(sp->op->ctx, k->host);
    free(k->idx);
  }
  free(sp->link);
}

/* The part of the ranges bound[0 .. np] that owns mode g. */
static int mode_part(const int64_t *bound, int np, int64_t g)
{
  int e = 0;
  while (e < np - 1 && g >= bound[e + 1]) e++;
  return e;
}

/* The part that applies mesh cell c: the one that owns most of its modes, the first of those. */
static int cell_part(const struct femint_space *s, int c, const int64_t *bound, int np)
{
  int count[FEMINT_MAX_CL_DEVICES] = {0}, best = 0;
  for (int64_t l = s->cell_off[c]; l < s->cell_off[c + 1]; l++)
    if (s->cell_mode[l] >= 0) count[mode_part(bound, np, s->cell_mode[l])]++;
  for (int e = 1; e < np; e++)
    if (count[e] > count[best]) best = e;
  return best;
}

/* at[c] = the plan cell of mesh cell c in part q, -1 for the nmesh cells outside it. */
static void plan_at(const struct femint_operator *q, int nmesh, int *at)
{
  for (int c = 0; c < nmesh; c++) at[c] = -1;
  for (int k = 0; k < q->plan->ncell; k++) at[q->plan->cells[k]] = k;
}

/* Whether the cells of every part make at most BORDER_RUNS runs of equal ev_cell_kind, and each
 * run of its cells applied elsewhere (by one part) falls within one run of the part that applies
 * them, at[e] its plan_at. */
static int remote_runs_fit(const struct apply_split *sp, int *const *at)
{
  int start[FEMINT_MAX_CL_DEVICES][BORDER_RUNS + 1], nrun[FEMINT_MAX_CL_DEVICES];
  char kind[FEMINT_MAX_CL_DEVICES][BORDER_RUNS];
  for (int d = 0; d < sp->npart; d++) {
    nrun[d] = ev_runs(sp->part[d].op, start[d], kind[d]);
    if (nrun[d] > BORDER_RUNS) return 0;
    start[d][nrun[d]] = sp->part[d].op->plan->ncell;
  }
  for (int d = 0; d < sp->npart; d++) {
    const int *cells = sp->part[d].op->plan->cells;
    for (int r = 0; r < nrun[d]; r++) {
      const int e = kind[d][r] - 2;
      if (e < 0) continue;
      /* the run's first and last cells in the same run of e */
      const int first = at[e][cells[start[d][r]]], last = at[e][cells[start[d][r + 1] - 1]];
      if (first < 0 || last < 0 ||
          ev_chunk_of(start[e], nrun[e], first) != ev_chunk_of(start[e], nrun[e], last))
        return 0;
    }
  }
  return 1;
}

/* Set mark[g] = v for the modes outside part q's range that the cells it applies read. */
static void part_mark(const struct femint_operator *q, char *mark, char v)
{
  const struct femint_space *s = q->space;
  for (int k = 0; k < q->plan->ncell; k++) {
    if (q->remote && q->remote[k]) continue;
    const int c = q->plan->cells[k];
    for (int64_t l = s->cell_off[c]; l < s->cell_off[c + 1]; l++) {
      const int64_t g = s->cell_mode[l];
      if (g >= 0 && (g < q->mlo || g >= q->mhi)) mark[g] = v;
    }
  }
}

/* Part d's ghosts that the cells it applies read, nneed[e] of those owned by part e; with order
 * set, each owner's ghosts put in the order those first, then the others (each ascending), and
 * ghost_order made. mark: nmode zeros, on return too. */
static int part_needs(struct apply_split *sp, int d, const int64_t *bound, char *mark, int order)
{
  struct split_part *pd = &sp->part[d];
  struct femint_operator *q = pd->op;
  const int64_t n = q->nghost;
  part_mark(q, mark, 1);
  memset(pd->nneed, 0, sizeof pd->nneed);
  for (int64_t j = 0; j < n; j++)
    if (mark[q->ghost[j]]) pd->nneed[mode_part(bound, sp->npart, q->ghost[j])]++;
  int err = 0;
  if (order) {
    int64_t *g = malloc(((size_t)n + 1) * sizeof *g), *ord = malloc(((size_t)n + 1) * sizeof *ord);
    if (g && ord) {
      /* ghost[] ascending: each owner's run [j, j1), its nneed first */
      for (int64_t j = 0, j1; j < n; j = j1) {
        const int e = mode_part(bound, sp->npart, q->ghost[j]);
        int64_t in = j, out = j + pd->nneed[e];
        for (j1 = j; j1 < n && q->ghost[j1] < bound[e + 1]; j1++) {
          ord[j1] = mark[q->ghost[j1]] ? in++ : out++;
          g[ord[j1]] = q->ghost[j1];
        }
      }
      free(q->ghost);
      q->ghost = g;
      q->ghost_order = ord;
      pd->need_set = 1;
    } else {
      free(g);
      free(ord);
      err = femint_seterr(q->ctx, FEMINT_ENOMEM, "the operator over devices: out of memory");
    }
  }
  part_mark(q, mark, 0);
  return err;
}

/* The values that cross the bus per application with each cell applied once, the parts'
 * nneed[] counted: the ghosts the parts' applied cells read, and the places at each part's own
 * modes of its cells applied elsewhere. */
static int64_t split_volume(const struct apply_split *sp)
{
  const struct femint_space *s = sp->op->space;
  int64_t v = 0;
  for (int d = 0; d < sp->npart; d++) {
    const struct femint_operator *q = sp->part[d].op;
    for (int e = 0; e < sp->npart; e++) v += sp->part[d].nneed[e];
    for (int k = 0; k < q->plan->ncell; k++) {
      const int c = q->plan->cells[k];
      for (int64_t l = s->cell_off[c]; q->remote[k] && l < s->cell_off[c + 1]; l++)
        v += s->cell_mode[l] >= q->mlo && s->cell_mode[l] < q->mhi;
    }
  }
  return v * sp->nc;
}

/* Each cell applied by one part (cell_part), where the values are doubles (the exchange of
 * element vectors loads doubles) of at most EV_SORTED_MAX_NC components, the parts' cells
 * applied elsewhere make few runs, and fewer
 * values cross the bus so (a box in slabs: from p = 3; at p = 2 a plane of x and the element
 * vectors' 9 places per face of a cell outweigh 3 planes of ghosts): the parts' remote[]; else
 * none, and every part applies all its cells. */
int split_assign(struct apply_split *sp, const int64_t *bound)
{
  const struct femint_operator *op = sp->op;
  /* (the loaded chunks are summed in place order, up to EV_SORTED_MAX_NC components) */
  if (op->plan->opt.precision == FEMINT_SINGLE || sp->nc > EV_SORTED_MAX_NC ||
      op->split_all_cells)
    return 0;
  const struct femint_space *s = op->space;
  const int nmesh = s->mesh->ncell, np = sp->npart;
  int *at[FEMINT_MAX_CL_DEVICES] = {0}, oom = 0;
  for (int d = 0; d < np; d++) {
    struct femint_operator *q = sp->part[d].op;
    at[d] = malloc(((size_t)nmesh + 1) * sizeof *at[d]);
    q->remote = calloc((size_t)q->plan->ncell + 1, 1);
    oom |= !at[d] || !q->remote;
    if (oom) continue;
    plan_at(q, nmesh, at[d]);
    for (int k = 0; k < q->plan->ncell; k++) {
      const int e = cell_part(s, q->plan->cells[k], bound, np);
      q->remote[k] = (char)(e == d ? 0 : 1 + e);
    }
  }
  int fit = !oom && remote_runs_fit(sp, at);
  char *mark = fit ? calloc((size_t)s->nmode + 1, 1) : NULL;
  oom |= fit && !mark;
  for (int d = 0; d < np && fit && mark; d++) part_needs(sp, d, bound, mark, 0);
  int64_t all = 0, once = fit && mark ? split_volume(sp) : 0;
  for (int d = 0; d < np; d++) all += sp->part[d].op->nghost * sp->nc;
  fit &= !oom && once < all;
  for (int d = 0; d < np && fit && !oom; d++) oom |= part_needs(sp, d, bound, mark, 1) != 0;
  free(mark);
  int nremote = 0;
  for (int d = 0; d < np; d++) {
    struct femint_operator *q = sp->part[d].op;
    for (int k = 0; fit && k < q->plan->ncell; k++) nremote += q->remote[k] != 0;
    if (!fit) {
      free(q->remote);
      q->remote = NULL;
    }
    free(at[d]);
  }
  if (oom) return femint_seterr(op->ctx, FEMINT_ENOMEM, "the operator over devices: out of memory");
  if (fit)
    femint_trace("the operator over %d devices: each cell applied by one part (%d of the parts' "
                 "cells by another), %lld values cross the bus per application (%lld else)",
                 np, nremote, (long long)once, (long long)all);
  else if (once)
    femint_trace("the operator over %d devices: every part applies all its cells (%lld values "
                 "cross the bus per application, %lld else)", np, (long long)all, (long long)once);
  else
    femint_trace("the operator over %d devices: every part applies all its cells (its cells "
                 "applied elsewhere would make too many runs)", np);
  return 0;
}

/* The link that loads chunk i of part d (its cells applied by part e = border[i] - 2): the
 * sender's values of each place of the chunk's map, at[c] the plan cell of mesh cell c in e;
 * 1 where those cells are not all in one of the sender's chunks. */
static int link_make(struct apply_split *sp, struct ev_link *k, int d, int i, const int *at)
{
  femint_context_t ctx = sp->op->ctx;
  const struct femint_operator *qd = sp->part[d].op, *qe = sp->part[k->from].op;
  const struct ev_sum *ed = apply_ev(qd), *ee = apply_ev(qe);
  const int nc = ed->nc, np = ed->np, per = nc * np;
  const struct ev_map m = ev_chunk_map(ed, i);
  const int64_t nu = ed->nu[i];
  const int32_t *ptr = m.ptr, *pos = m.pos;
  k->to = d;
  k->chunk_to = i;
  k->n = ptr[nu] * nc;
  k->chunk_from = -1;
  k->idx = malloc((2 * (size_t)k->n + 2) * sizeof *k->idx);
  FEMINT_CHECK(k->idx && !femint_host_alloc(ctx, ((size_t)k->n + 1) * sizeof(double),
                                           (void **)&k->host),
               ctx, FEMINT_ENOMEM, "the operator over devices: out of memory");
  for (int64_t o = 0; o < ptr[nu]; o++) {
    const int ke = at[qd->plan->cells[ed->first[i] + pos[o] / per]];
    const int j = ke < 0 ? -1 : ev_chunk_of(ee->first, ee->nchunk, ke);
    if (o == 0) k->chunk_from = j;
    if (j < 0 || j != k->chunk_from) return 1; /* not in one of the sender's chunks */
    for (int c = 0; c < nc; c++) { /* value c of place o, in place order */
      k->idx[2 * (o * nc + c)] = o * nc + c;
      k->idx[2 * (o * nc + c) + 1] = (int64_t)(ke - ee->first[j]) * per + c * np + pos[o] % per;
    }
  }
  if (k->chunk_from < 0) k->chunk_from = 0; /* no value: nothing to pack */
  starpu_vector_data_register(&k->h_pack, -1, 0, (uint32_t)(k->n + 1), sizeof(double));
  starpu_vector_data_register(&k->h_idx, STARPU_MAIN_RAM, (uintptr_t)k->idx,
                              (uint32_t)(2 * k->n + 2), sizeof(int64_t));
  k->pack_arg = (struct vec_arg){.ctx = ctx, .op = VEC_MOVE, .n = k->n,
                                 .kern = apply_vec_kernels(qe), .store = k->host, .nstore = k->n};
  k->load_arg = (struct vec_arg){.ctx = ctx, .op = VEC_MOVE, .kern = apply_vec_kernels(qd),
                                 .nloads = 1, .load = {k->host}, .nload = {k->n}};
  return 0;
}

/* The links of the parts' chunks of cells applied elsewhere (once the parts are prepared). */
int split_links_make(struct apply_split *sp)
{
  sp->links_made = 1;
  int n = 0;
  for (int d = 0; d < sp->npart; d++) {
    const struct ev_sum *e = apply_ev(sp->part[d].op);
    for (int i = 0; e->border && i < e->nchunk; i++) n += e->border[i] >= 2;
  }
  if (!n) return 0;
  femint_context_t ctx = sp->op->ctx;
  const int nmesh = sp->op->space->mesh->ncell;
  sp->link = calloc((size_t)n, sizeof *sp->link);
  int *at = malloc(((size_t)nmesh + 1) * sizeof *at);
  int err = sp->link && at ? 0 : femint_seterr(ctx, FEMINT_ENOMEM, "the operator over devices: out of memory");
  for (int from = 0; from < sp->npart && !err; from++) {
    plan_at(sp->part[from].op, nmesh, at);
    for (int d = 0; d < sp->npart && !err; d++) {
      const struct ev_sum *e = apply_ev(sp->part[d].op);
      for (int i = 0; e->border && i < e->nchunk && !err; i++)
        if (e->border[i] == 2 + from) {
          struct ev_link *k = &sp->link[sp->nlink++];
          k->from = from;
          err = link_make(sp, k, d, i, at);
        }
    }
  }
  free(at);
  return err;
}

/* The links' tasks of one application: each pack after the sender's chunk is applied, each load
 * into the reader's chunk after its pack (kept two applications, then waited for and
 * destroyed). */
int split_links_submit(struct apply_split *sp)
{
  const int r = sp->round++ & 1;
  for (int l = 0; l < sp->nlink; l++) {
    struct ev_link *k = &sp->link[l];
    task_done(&k->pack[r]);
    task_done(&k->load[r]);
    const struct femint_operator *qe = sp->part[k->from].op;
    const starpu_data_handle_t h[3] = {k->h_pack, apply_ev(qe)->h_ev[k->chunk_from], k->h_idx};
    static const enum starpu_data_access_mode m[3] = {STARPU_W, STARPU_R, STARPU_R};
    struct starpu_task *last = k->load[r ^ 1]; /* it read the pack's memory */
    FEMINT_CALL(split_task(sp->part[k->from].op, &k->pack_arg, 3, h, m, &last, last != NULL,
                           &k->pack[r]));
  }
  for (int l = 0; l < sp->nlink; l++) {
    struct ev_link *k = &sp->link[l];
    const starpu_data_handle_t h = apply_ev(sp->part[k->to].op)->h_ev[k->chunk_to];
    static const enum starpu_data_access_mode w = STARPU_W;
    FEMINT_CALL(
        split_task(sp->part[k->to].op, &k->load_arg, 1, &h, &w, &k->pack[r], 1, &k->load[r]));
  }
  return 0;
}

void apply_split_traffic(const struct apply_split *sp, int64_t *applied, int64_t *moved,
                         int64_t *ghosts)
{
  *applied = *moved = *ghosts = 0;
  for (int d = 0; d < sp->npart; d++) {
    const struct femint_operator *q = sp->part[d].op;
    for (int k = 0; k < q->plan->ncell; k++) *applied += !q->remote || !q->remote[k];
    *moved += sp->part[d].npack * sp->nc;
    *ghosts += q->nghost * sp->nc;
  }
  for (int l = 0; l < sp->nlink; l++) *moved += sp->link[l].n;
}
