/* Element vectors over chunks of an operator's cells and their sum into a vector of its space,
 * what femint_operator_apply and femint_operator_residual share: the cells' DOFs in the verb's
 * local order, the element vectors (pinned), the places of every DOF in them in plan order, and
 * the transpose of the DOF map per chunk, all registered per chunk; the sum (codelets/vector_ops.c,
 * VEC_EV_SUM) adds each DOF's places one after the other, whatever the chunks and workers: one
 * task on the vectors' device, or on the CPU workers one task per part of the vector (a range of
 * DOFs each), so that every core sums. */
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codelets/kernels.h"
#include "operator.h"

void ev_sum_destroy(femint_context_t ctx, struct ev_sum **pe)
{
  struct ev_sum *e = *pe;
  if (!e) return;
  for (int i = 0; i < e->nchunk; i++) {
    if (e->h_ev && e->h_ev[i]) starpu_data_unregister(e->h_ev[i]);
    if (e->h_dofs && e->h_dofs[i]) starpu_data_unregister(e->h_dofs[i]);
    if (e->h_map && e->h_map[i]) starpu_data_unregister(e->h_map[i]);
    if (e->h_slot && e->h_slot[i]) starpu_data_unregister(e->h_slot[i]);
  }
  femint_host_free(ctx, e->ev);
  free(e->h_ev);
  free(e->h_dofs);
  free(e->h_map);
  free(e->h_slot);
  free(e->slot);
  free(e->chunk_sorted);
  free(e->border);
  free(e->first);
  free(e->ncell);
  free(e->dofs);
  free(e->occ_ptr);
  free(e->occ);
  free(e->map);
  free(e->map_start);
  free(e->nu);
  free(e->part_arg);
  free(e->span);
  free(e);
  *pe = NULL;
}

const void *ev_chunk_host(const struct ev_sum *e, int i)
{
  return (const void *)starpu_vector_get_local_ptr(e->h_ev[i]);
}

/* The 32-bit words of chunk i's map in e->map: its DOFs (64 bits each), ptr, and room for a place
 * per value of its cells; even, so that the next chunk's DOFs stay aligned. */
static int64_t map_words(const struct ev_sum *e, int i)
{
  const int64_t w = 3 * e->nu[i] + 1 + (int64_t)e->ncell[i] * e->np;
  return w + (w & 1);
}

struct ev_map ev_chunk_map(const struct ev_sum *e, int i)
{
  const int32_t *m = e->map + e->map_start[i];
  const int64_t nu = e->nu[i];
  return (struct ev_map){.udof = (const int64_t *)(const void *)m, .ptr = m + 2 * nu,
                         .pos = m + 3 * nu + 1};
}

/* The transpose of the DOF map per chunk, from occ (struct ev_map), registered. The places and
 * their ranges fit 32 bits: a chunk's element vectors are under 4 GiB (chunk_size). The threads
 * take ranges of DOFs: in a chunk's map, DOFs ascending, a thread's are a run whose place the
 * counts of the threads before give, so that the map is the same whatever the threads. */
static int chunk_maps(femint_context_t ctx, const char *who, int64_t nmode, struct ev_sum *e)
{
  const int64_t per = (int64_t)e->nc * e->np;
  const int nb = e->nchunk, nt = omp_get_max_threads();
  const int ncell = nb ? e->first[nb - 1] + e->ncell[nb - 1] : 0;
  /* [t][i]: thread t's DOFs in chunk i, [t][nb + i]: its places there (then where they go) */
  int64_t *cnt = calloc((size_t)nt * 2 * nb + 1, sizeof *cnt);
  int64_t *places = calloc((size_t)nb + 1, sizeof *places); /* each chunk's */
  int *chunk = malloc(((size_t)ncell + 1) * sizeof *chunk);
  e->map_start = malloc(((size_t)nb + 1) * sizeof *e->map_start);
  int oom = !cnt || !places || !chunk || !e->map_start;
  for (int i = 0; i < nb && !oom; i++)
    for (int k = e->first[i]; k < e->first[i] + e->ncell[i]; k++) chunk[k] = i;
  if (!oom)
#pragma omp parallel num_threads(nt)
  {
    const int t = omp_get_thread_num(), T = omp_get_num_threads();
    const int64_t g0 = nmode * t / T, g1 = nmode * (t + 1) / T;
    int64_t *c = cnt + (size_t)t * 2 * nb;
    for (int64_t g = g0; g < g1; g++)
      for (int64_t o = e->occ_ptr[g]; o < e->occ_ptr[g + 1]; o++) {
        const int i = chunk[e->occ[o] / per];
        if (o == e->occ_ptr[g] || i != chunk[e->occ[o - 1] / per]) c[i]++;
        c[nb + i]++;
      }
#pragma omp barrier
#pragma omp single
    {
      int64_t total = 0;
      for (int i = 0; i < nb; i++) {
        int64_t u = 0, v = 0; /* the threads' runs one after the other */
        for (int r = 0; r < T; r++) {
          int64_t *cr = cnt + (size_t)r * 2 * nb;
          const int64_t du = cr[i], dv = cr[nb + i];
          cr[i] = u, cr[nb + i] = v;
          u += du, v += dv;
        }
        e->nu[i] = u;
        places[i] = v;
        e->map_start[i] = total;
        total += map_words(e, i);
      }
      e->map_start[nb] = total;
      e->map = oom ? NULL : malloc(((size_t)total + 2) * sizeof *e->map);
      oom = !e->map;
    }
    for (int64_t g = g0; g < g1 && !oom; g++)
      for (int64_t o = e->occ_ptr[g]; o < e->occ_ptr[g + 1]; o++) {
        const int i = chunk[e->occ[o] / per];
        int32_t *m = e->map + e->map_start[i], *ptr = m + 2 * e->nu[i], *pos = ptr + e->nu[i] + 1;
        if (o == e->occ_ptr[g] || i != chunk[e->occ[o - 1] / per]) {
          ((int64_t *)(void *)m)[c[i]] = g;
          ptr[c[i]++] = (int32_t)c[nb + i];
        }
        pos[c[nb + i]++] = (int32_t)(e->occ[o] - (int64_t)e->first[i] * per);
      }
  }
  free(chunk);
  free(cnt);
  for (int i = 0; i < nb && !oom; i++) {
    int32_t *ptr = e->map + e->map_start[i] + 2 * e->nu[i];
    ptr[e->nu[i]] = (int32_t)places[i];
    starpu_vector_data_register(&e->h_map[i], STARPU_MAIN_RAM,
                                (uintptr_t)(e->map + e->map_start[i]),
                                (uint32_t)(3 * e->nu[i] + 1 + places[i] + (places[i] == 0)),
                                sizeof(int32_t));
  }
  free(places);
  FEMINT_CHECK(!oom, ctx, FEMINT_ENOMEM, "%s: out of memory", who);
  return 0;
}

int ev_sum_sort(femint_context_t ctx, struct ev_sum *e, const char *who)
{
  if (e->chunk_sorted || e->nc > EV_SORTED_MAX_NC) return 0;
  const int nb = e->nchunk, np = e->np, per = e->nc * np;
  e->h_slot = calloc((size_t)nb + 1, sizeof *e->h_slot);
  const int64_t ncell = nb ? (int64_t)e->first[nb - 1] + e->ncell[nb - 1] : 0;
  e->slot = malloc(((size_t)ncell * np + 1) * sizeof *e->slot);
  e->chunk_sorted = calloc((size_t)nb + 1, sizeof *e->chunk_sorted);
  FEMINT_CHECK(e->h_slot && e->slot && e->chunk_sorted, ctx, FEMINT_ENOMEM, "%s: out of memory",
               who);
  for (int64_t i = 0; i < ncell * np; i++) e->slot[i] = -1;
  for (int i = 0; i < nb; i++) {
    const struct ev_map m = ev_chunk_map(e, i);
    for (int64_t o = 0; o < m.ptr[e->nu[i]]; o++) /* pos: (cell in the chunk) nc np + n */
      e->slot[((int64_t)e->first[i] + m.pos[o] / per) * np + m.pos[o] % per] = (int32_t)o;
    starpu_vector_data_register(&e->h_slot[i], STARPU_MAIN_RAM,
                                (uintptr_t)(e->slot + (size_t)e->first[i] * np),
                                (uint32_t)((size_t)e->ncell[i] * np), sizeof(int32_t));
  }
  return 0;
}

/* Cells per chunk: OpenCL workers only, a chunk per device that takes them, none over half the
 * largest buffer the devices allow nor 4 GiB (one launch each; a chunk of 1 GiB at most cut BP5's
 * apply at p = 5 on box 48^3 in two); else about four chunks per worker that may take them, none
 * over 64 MiB. No chunk's buffer outgrows StarPU's 32-bit element counts. */
static int chunk_size(const struct femint_operator *op, size_t per_cell, int only_cl)
{
  const femint_context_t ctx = op->ctx;
  const int ncell = op->plan->ncell, where = op->plan->opt.where;
  const int nw = only_cl                    ? operator_gather_devices(op)
                 : where == FEMINT_WHERE_CPU ? 4 * ctx->ncpu
                                             : 4 * ctx->nworker;
  size_t cap = only_cl ? SIZE_MAX : (size_t)64 << 20;
  for (int d = 0; only_cl && d < ctx->ncl_dev; d++)
    if (ctx->cl_driven[d] && ctx->cl_dev[d].max_alloc / 2 < cap) cap = ctx->cl_dev[d].max_alloc / 2;
  if (cap == SIZE_MAX) cap = (size_t)1 << 30;
  if (cap > UINT32_MAX) cap = UINT32_MAX;
  int size = nw > 0 ? (ncell + nw - 1) / nw : ncell;
  if ((size_t)size * per_cell > cap) size = (int)(cap / per_cell);
  return size < 1 ? 1 : size;
}

/* Whether plan cell k of a part reads a ghost (a mode outside its own). */
static int reads_ghost(const struct femint_operator *op, int k)
{
  const struct femint_space *s = op->space;
  const int c = op->plan->cells[k];
  for (int64_t l = s->cell_off[c]; l < s->cell_off[c + 1]; l++)
    if (s->cell_mode[l] >= 0 && (s->cell_mode[l] < op->mlo || s->cell_mode[l] >= op->mhi))
      return 1;
  return 0;
}

int ev_cell_kind(const struct femint_operator *op, int k)
{
  return op->remote && op->remote[k] ? 1 + op->remote[k] : reads_ghost(op, k);
}

int ev_runs(const struct femint_operator *op, int *start, char *kind)
{
  int nrun = 0;
  for (int k = 0, prev = -1; k < op->plan->ncell; k++) {
    const int g = ev_cell_kind(op, k);
    if (g == prev) continue;
    if (nrun == BORDER_RUNS) return BORDER_RUNS + 1; /* too many */
    start[nrun] = k;
    kind[nrun++] = (char)g;
    prev = g;
  }
  return nrun;
}

/* The chunks: runs of consecutive plan cells (with borders, in a part of a split, the runs of
 * equal ev_cell_kind, where they are at most BORDER_RUNS and not all of cells applied here that
 * read no ghost; else one), each cut in chunks of e->size cells at most (a part on a GPU: one
 * chunk per run; apply_split_cells.c falls back to every cell applied by each part that has it
 * where a chunk of cells applied elsewhere takes them from several of the sender's). */
static int chunk_layout(struct femint_operator *op, struct ev_sum *e, int borders, const char *who)
{
  const int ncell = op->plan->ncell;
  int run[BORDER_RUNS + 1], nrun = 0;
  char kind[BORDER_RUNS] = {0};
  if (borders && op->ghost) nrun = ev_runs(op, run, kind);
  const int cut = nrun <= BORDER_RUNS && (nrun >= 2 || (nrun == 1 && kind[0] >= 2));
  if (!cut) {
    nrun = ncell ? 1 : 0;
    run[0] = 0;
  }
  run[nrun] = ncell;
  int nb = 0;
  for (int r = 0; r < nrun; r++) nb += (run[r + 1] - run[r] + e->size - 1) / e->size;
  e->nchunk = nb;
  e->first = malloc(((size_t)nb + 1) * sizeof *e->first);
  e->ncell = malloc(((size_t)nb + 1) * sizeof *e->ncell);
  e->border = cut ? malloc((size_t)nb + 1) : NULL;
  FEMINT_CHECK(e->first && e->ncell && (e->border || !cut), op->ctx, FEMINT_ENOMEM,
               "%s: out of memory", who);
  int i = 0, remote = 0;
  for (int r = 0; r < nrun; r++)
    for (int k = run[r]; k < run[r + 1]; k += e->size, i++) {
      e->first[i] = k;
      e->ncell[i] = run[r + 1] - k < e->size ? run[r + 1] - k : e->size;
      if (cut) e->border[i] = kind[r];
      remote |= cut && kind[r] >= 2;
    }
  if (remote) { /* the chunks of cells applied elsewhere are loaded in place order */
    e->chunk_sorted = calloc((size_t)nb + 1, sizeof *e->chunk_sorted);
    FEMINT_CHECK(e->chunk_sorted, op->ctx, FEMINT_ENOMEM, "%s: out of memory", who);
    for (i = 0; i < nb; i++) e->chunk_sorted[i] = e->border[i] >= 2;
  }
  if (cut)
    femint_trace("%s on device %d: %d cells in %d runs of cells that read ghosts or not%s, "
                 "%d chunks",
                 who, op->coo_dev, ncell, nrun, op->remote ? " or are applied elsewhere" : "", nb);
  return 0;
}

/* Mode g in the numbering of the operator's vectors: g itself, or in a part of a split
 * (op->ghost) g - mlo for its own modes, then its ghosts after them (found through ghost_order
 * where they are not ascending). */
static int64_t vector_index(const struct femint_operator *op, int64_t g)
{
  if (!op->ghost || g < 0) return g;
  if (g >= op->mlo && g < op->mhi) return g - op->mlo;
  const int64_t *ord = op->ghost_order;
  int64_t lo = 0, hi = op->nghost;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (op->ghost[ord ? ord[mid] : mid] < g) lo = mid + 1;
    else hi = mid;
  }
  return op->mhi - op->mlo + (ord ? ord[lo] : lo);
}

int ev_sum_create(struct femint_operator *op, const char *who, int np, const int *local,
                  size_t per_cell, int only_cl, int borders, int single, struct ev_sum **pe)
{
  const struct plan *p = op->plan;
  const struct femint_space *s = op->space;
  femint_context_t ctx = op->ctx;
  struct ev_sum *e = calloc(1, sizeof *e);
  FEMINT_CHECK(e, ctx, FEMINT_ENOMEM, "%s: out of memory", who);
  *pe = e;
  e->nc = s->ncomp;
  e->np = np;
  e->single = single;
  e->rs = single ? sizeof(float) : sizeof(double);
  /* the modes summed: the space's, or a part's own (its ghosts are summed by their owners) */
  const int64_t nown = e->nown = op->ghost ? op->mhi - op->mlo : s->nmode;
  const size_t per_ev = ((size_t)e->nc * e->rs + 8) * np;
  e->size = chunk_size(op, per_cell > per_ev ? per_cell : per_ev, only_cl && ctx->nopencl > 0);
  FEMINT_CALL(chunk_layout(op, e, borders, who));
  const int nb = e->nchunk;
  e->nu = calloc((size_t)nb + 1, sizeof *e->nu);
  e->h_ev = calloc((size_t)nb + 1, sizeof *e->h_ev);
  e->h_dofs = calloc((size_t)nb + 1, sizeof *e->h_dofs);
  e->h_map = calloc((size_t)nb + 1, sizeof *e->h_map);
  e->occ_ptr = calloc((size_t)nown + 1, sizeof *e->occ_ptr);
  e->occ = malloc(((size_t)p->ncell * np + 1) * sizeof *e->occ);
  e->dofs = malloc(((size_t)p->ncell * np + 1) * sizeof *e->dofs);
  /* the element vectors: on the devices alone when only they take the tasks (they never cross
   * the bus then); else in pinned memory (where there is a GPU), so that they cross the bus at
   * its full rate */
  const int on_device = only_cl && ctx->nopencl > 0;
  if (!on_device &&
      femint_host_alloc(ctx, ((size_t)p->ncell * e->nc * np + 1) * e->rs, (void **)&e->ev))
    e->ev = NULL;
  FEMINT_CHECK(e->nu && e->h_ev && e->h_dofs && e->h_map && e->occ_ptr &&
                   e->occ && e->dofs && (e->ev || on_device),
               ctx, FEMINT_ENOMEM, "%s: out of memory for %d cells", who, p->ncell);
  /* a part of the sum per CPU worker, of 4096 DOFs at least */
  const int64_t parts = op->ghost ? 0 : s->nmode / 4096 < ctx->ncpu ? s->nmode / 4096 : ctx->ncpu;
  if (parts > 1) {
    e->part_arg = calloc((size_t)parts, sizeof *e->part_arg);
    FEMINT_CHECK(e->part_arg, ctx, FEMINT_ENOMEM, "%s: out of memory", who);
    e->nparts = (int)parts;
  }
  /* the places of each mode in ev, cell after cell in plan order (so that the sums are in a
   * fixed order): counted and put by the threads at once, then each mode's sorted */
#pragma omp parallel for schedule(static)
  for (int k = 0; k < p->ncell; k++) {
    const int64_t *gm = &s->cell_mode[s->cell_off[p->cells[k]]];
    for (int n = 0; n < np; n++) {
      const int64_t g = e->dofs[(size_t)k * np + n] = vector_index(op, gm[local ? local[n] : n]);
      if (g >= 0 && g < nown) __atomic_fetch_add(&e->occ_ptr[g + 1], 1, __ATOMIC_RELAXED);
    }
  }
  for (int64_t g = 0; g < nown; g++) e->occ_ptr[g + 1] += e->occ_ptr[g];
  int64_t *fill = malloc(((size_t)nown + 1) * sizeof *fill);
  FEMINT_CHECK(fill, ctx, FEMINT_ENOMEM, "%s: out of memory", who);
  memcpy(fill, e->occ_ptr, (size_t)nown * sizeof *fill);
#pragma omp parallel for schedule(static)
  for (int k = 0; k < p->ncell; k++)
    for (int n = 0; n < np; n++) {
      const int64_t g = e->dofs[(size_t)k * np + n];
      if (g >= 0 && g < nown)
        e->occ[__atomic_fetch_add(&fill[g], 1, __ATOMIC_RELAXED)] = (int64_t)k * e->nc * np + n;
    }
  free(fill);
#pragma omp parallel for schedule(static)
  for (int64_t g = 0; g < nown; g++) /* a mode has a few places: insertion */
    for (int64_t o = e->occ_ptr[g] + 1; o < e->occ_ptr[g + 1]; o++) {
      const int64_t v = e->occ[o];
      int64_t j = o;
      for (; j > e->occ_ptr[g] && e->occ[j - 1] > v; j--) e->occ[j] = e->occ[j - 1];
      e->occ[j] = v;
    }
  /* the cells of each block of DOFs, for a sum by cells */
  const int64_t nspan = (nown + EV_SPAN - 1) / EV_SPAN, per = (int64_t)e->nc * np;
  e->span = malloc((2 * (size_t)nspan + 1) * sizeof *e->span);
  FEMINT_CHECK(e->span, ctx, FEMINT_ENOMEM, "%s: out of memory", who);
#pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < nspan; b++) {
    e->span[2 * b] = e->span[2 * b + 1] = -1;
    for (int64_t g = b * EV_SPAN; g < nown && g < (b + 1) * EV_SPAN; g++) {
      if (e->occ_ptr[g] == e->occ_ptr[g + 1]) continue;
      const int64_t c0 = e->occ[e->occ_ptr[g]] / per, c1 = e->occ[e->occ_ptr[g + 1] - 1] / per;
      if (e->span[2 * b] < 0 || c0 < e->span[2 * b]) e->span[2 * b] = c0;
      if (c1 > e->span[2 * b + 1]) e->span[2 * b + 1] = c1;
    }
  }
  for (int i = 0; i < nb; i++) {
    const uint32_t nev = (uint32_t)((size_t)e->ncell[i] * e->nc * np);
    if (on_device) starpu_vector_data_register(&e->h_ev[i], -1, 0, nev, e->rs);
    else
      starpu_vector_data_register(&e->h_ev[i], STARPU_MAIN_RAM,
                                  (uintptr_t)(e->ev + (size_t)e->first[i] * e->nc * np * e->rs),
                                  nev, e->rs);
    starpu_vector_data_register(&e->h_dofs[i], STARPU_MAIN_RAM,
                                (uintptr_t)(e->dofs + (size_t)e->first[i] * np),
                                (uint32_t)((size_t)e->ncell[i] * np), sizeof(int64_t));
  }
  return chunk_maps(ctx, who, nown, e);
}

/* A task of the sum: y (W), then each chunk's element vectors and map (R; on a CPU worker its
 * cells' DOFs), on worker home or (-1) a CPU worker. */
static int sum_task(femint_context_t ctx, const struct ev_sum *e, struct vec_arg *arg,
                    starpu_data_handle_t y, int home, struct starpu_task **slot, const char *who)
{
  const int nb = e->nchunk;
  starpu_data_handle_t *dh = malloc((1 + 2 * (size_t)nb) * sizeof *dh);
  enum starpu_data_access_mode *dm = malloc((1 + 2 * (size_t)nb) * sizeof *dm);
  if (!dh || !dm) { /* before the task, which StarPU would not let go unsubmitted */
    free(dh);
    free(dm);
    return femint_seterr(ctx, FEMINT_ENOMEM, "%s: out of memory", who);
  }
  struct starpu_task *t = starpu_task_create();
  t->cl = &femint_cl_vec;
  t->cl_arg = arg;
  t->nbuffers = 1 + 2 * nb;
  t->dyn_handles = dh; /* StarPU frees them with the task */
  t->dyn_modes = dm;
  t->dyn_handles[0] = y;
  t->dyn_modes[0] = STARPU_W;
  const int cpu = home < 0 || starpu_worker_get_type(home) == STARPU_CPU_WORKER;
  for (int i = 0; i < nb; i++) {
    t->dyn_handles[1 + 2 * i] = e->h_ev[i];
    /* the CPU sums by cells (their DOFs), a device by DOFs (the maps) */
    t->dyn_handles[2 + 2 * i] = cpu ? e->h_dofs[i] : e->h_map[i];
    t->dyn_modes[1 + 2 * i] = t->dyn_modes[2 + 2 * i] = STARPU_R;
  }
  if (home >= 0) {
    t->execute_on_a_specific_worker = 1;
    t->workerid = (unsigned)home;
  } else {
    t->where = STARPU_CPU;
  }
  return task_submit(ctx, t, slot, who);
}

/* What waits for the parts: a task that reads y and runs nowhere. */
static struct starpu_codelet join_cl = {
    .name = "femint_join", .where = STARPU_NOWHERE, .nbuffers = 1, .modes = {STARPU_R}};

int ev_sum_submit(struct femint_operator *op, struct ev_sum *e, struct femint_vector *y,
                  struct vec_kernels *const *vk, int home, int *counts,
                  struct starpu_task **slot, const char *who)
{
  femint_context_t ctx = op->ctx;
  const int nb = e->nchunk, nc = e->nc;
  const struct vec_arg arg = {.ctx = ctx, .op = VEC_EV_SUM, .n = e->nown * nc, .nc = nc,
                              .np = e->np, .single = e->single,
                              .chunk_sorted = e->chunk_sorted, .kern = vk, .counts = counts,
                              .nchunk = nb, .chunk_nu = e->nu,
                              .chunk_first = e->first, .span = e->span, .slot = e->slot};
  if (home >= 0 || !e->nparts) { /* one task */
    if (!e->sum_arg.ctx || e->sum_arg.counts != counts) e->sum_arg = arg;
    e->sum_arg.status = 0;
    return sum_task(ctx, e, &e->sum_arg, y->h, home, slot, who);
  }
  FEMINT_CALL(vector_parts(y, e->nparts));
  const int64_t nmode = op->space->nmode;
  /* part i on CPU worker i: they become ready together, when the last element vector is made
   * (dmda, its model calibrated, gave them all to one worker) */
  int cpu[STARPU_NMAXWORKERS];
  const int ncpu = (int)starpu_worker_get_ids_by_type(STARPU_CPU_WORKER, cpu, STARPU_NMAXWORKERS);
  starpu_data_partition_submit(y->h, (unsigned)e->nparts, y->parts);
  int err = 0;
  for (int i = 0; i < e->nparts && !err; i++) {
    struct vec_arg *a = &e->part_arg[i];
    const int64_t lo = vector_part_first(nmode, i, e->nparts);
    const int64_t hi = vector_part_first(nmode, i + 1, e->nparts);
    if (!a->ctx || a->counts != counts) {
      *a = arg;
      a->lo = lo;
      a->n = (hi - lo) * nc;
    }
    a->status = 0;
    err = sum_task(ctx, e, a, y->parts[i], ncpu > 0 ? cpu[i % ncpu] : -1, NULL, who);
  }
  starpu_data_unpartition_submit(y->h, (unsigned)e->nparts, y->parts, STARPU_MAIN_RAM);
  if (err) return err;
  struct starpu_task *t = starpu_task_create();
  t->cl = &join_cl;
  t->handles[0] = y->h;
  return task_submit(ctx, t, slot, who);
}

int ev_sum_status(const struct ev_sum *e, const char **msg)
{
  for (int i = -1; i < e->nparts; i++) {
    const struct vec_arg *a = i < 0 ? &e->sum_arg : &e->part_arg[i];
    if (a->status) {
      *msg = a->msg;
      return a->status;
    }
  }
  return 0;
}

int ev_home_choose(struct femint_operator *op, const int *usable, struct vec_kernels **vk,
                   int *home)
{
  *home = -1;
  if (op->plan->opt.where == FEMINT_WHERE_CPU) return 0;
  char *source = NULL;
  for (int dev = 0; dev < op->ctx->ncl_dev && *home < 0; dev++) {
    if (!usable[dev] || (op->ghost && dev != op->coo_dev)) continue;
    /* a part of a split sums on its own device, whatever its type */
    if (op->plan->opt.where == FEMINT_WHERE_ANY && !op->ghost &&
        (op->ctx->cl_dev[dev].type & CL_DEVICE_TYPE_CPU))
      continue;
    if (!source) source = femint_kernel_text("vector_ops.cl");
    FEMINT_CHECK(source, op->ctx, FEMINT_ENOMEM, "the OpenCL source of the vector kernels is missing");
    const int err = vk[dev] ? 0 : vec_kernels_create(dev, source, &vk[dev]);
    if (err) {
      free(source);
      return femint_seterr(op->ctx, err, "OpenCL device %d: the vector kernels: %s", dev,
                           femint_thread_error());
    }
    *home = starpu_worker_get_by_devid(STARPU_OPENCL_WORKER, dev);
  }
  free(source);
  return 0;
}
