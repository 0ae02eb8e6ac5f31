/* femint_operator_apply, femint_operator_cg and femint_operator_residual over several OpenCL
 * devices (operator_split makes the parts; apply_split_prepare readies them for the apply, the
 * residual's own prepare for the residual). The space's modes are
 * split into ranges, one per device (operator_split_modes, as the COO assembly splits its rows),
 * and each range's part is an operator of the cells that touch it (operator_part_make). Its
 * device computes exactly the values of its own modes: every place of each, summed in plan
 * order, as one device would. A part's vectors hold its own modes, then its ghosts (the other
 * modes of its cells). Each cell is applied by one part, the one that owns most of its modes
 * (split_assign; in double precision, where each part's cells applied elsewhere make few runs):
 * a part takes the values of the others' element vectors at its own modes from them (struct
 * ev_link), and the ghosts of the cells it applies from their owners. A box cut in slabs
 * exchanges at each border one plane of each: the values of x on the shared face one way, the
 * element vectors' values on it the other, where every cell touching a border, applied by both
 * parts, read p planes of ghosts (the residual, and a split of floats, still apply every cell of a
 * part). At each application (apply_split_submit) each part packs the values the others read into
 * main memory, each reader's apart, and each part loads its own into place once the packing
 * tasks are done and its cells that read no ghost are applied (its chunks are cut where its cells
 * start or stop reading them: the other devices' packs come meanwhile), then the cells that read
 * ghosts, then the element vectors' values go the same way, so that what crosses the bus per
 * application is the values on the borders between the ranges. The packs go through main memory
 * within the tasks, ordered by declared dependencies, not as data that StarPU moves: each of its
 * transfers between devices costs a wait of its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply_split.h"

void apply_split_release(struct femint_operator *op)
{
  struct apply_split *sp = op->split;
  op->split_tried = 0;
  if (!sp) return;
  split_links_release(sp);
  for (int d = 0; d < sp->npart; d++) {
    struct split_part *q = &sp->part[d];
    femint_vector_destroy(&sp->vx[d]);
    femint_vector_destroy(&sp->vy[d]);
    if (q->h_pack) starpu_data_unregister_no_coherency(q->h_pack);
    if (q->h_pack_idx) starpu_data_unregister(q->h_pack_idx);
    femint_host_free(op->ctx, q->pack);
    free(q->pack_idx);
    femint_operator_destroy(&q->op);
  }
  free(sp);
  op->split = NULL;
}

/* The devices a split takes: none for a part, with the CPU workers alone, or unless the option
 * devices is k >= 2 (by default one device applies: doc/performance-parallel.md); else those of
 * the first k that operator_part_device allows (of double precision: the apply kernel's). */
static int split_devices(const struct femint_operator *op, int *dev)
{
  const int k = op->plan->opt.devices;
  int n = 0;
  if (op->is_part || op->plan->opt.where == FEMINT_WHERE_CPU || k < 2) return 0;
  for (int d = 0; d < op->ctx->ncl_dev && d < k; d++)
    if (operator_part_device(op, d, 1)) dev[n++] = d;
  return n;
}

/* Part d's ghosts: the modes of its cells outside its range, ascending; mark[] (nmode, zero
 * on entry and on return) marks them. */
static int part_ghosts(struct femint_operator *q, char *mark)
{
  const struct femint_space *s = q->space;
  const struct plan *p = q->plan;
  int64_t n = 0;
  for (int k = 0; k < p->ncell; k++) {
    const int c = p->cells[k];
    for (int64_t l = s->cell_off[c]; l < s->cell_off[c + 1]; l++) {
      const int64_t g = s->cell_mode[l];
      if (g >= 0 && (g < q->mlo || g >= q->mhi) && !mark[g]) {
        mark[g] = 1;
        n++;
      }
    }
  }
  q->ghost = malloc(((size_t)n + 1) * sizeof *q->ghost);
  FEMINT_CHECK(q->ghost, q->ctx, FEMINT_ENOMEM, "the operator over devices: out of memory");
  q->nghost = 0;
  for (int64_t g = 0; g < s->nmode && q->nghost < n; g++)
    if (mark[g]) {
      q->ghost[q->nghost++] = g;
      mark[g] = 0;
    }
  return 0;
}

int split_task(struct femint_operator *op, struct vec_arg *arg, int n, const starpu_data_handle_t *h,
               const enum starpu_data_access_mode *m, struct starpu_task **deps, int ndep,
               struct starpu_task **slot)
{
  struct starpu_task *t = starpu_task_create();
  t->cl = &femint_cl_vec;
  t->cl_arg = arg;
  t->nbuffers = n;
  for (int i = 0; i < n; i++) {
    t->handles[i] = h[i];
    t->modes[i] = m[i];
  }
  apply_task_home(op, t);
  if (ndep) starpu_task_declare_deps_array(t, (unsigned)ndep, deps);
  return task_submit(op->ctx, t, slot, "the exchange between devices");
}

/* The packs and what each part reads of them, the parts' own ranges bound[part .. part + 1):
 * its ghosts of each owner, or (each cell applied once) those the cells it applies read. */
static int split_exchange_make(struct apply_split *sp, const int64_t *bound)
{
  femint_context_t ctx = sp->op->ctx;
  const int nc = sp->nc;
  /* the ghosts are ascending, and so are the ranges: each owner's run after the other */
  for (int d = 0; d < sp->npart; d++) {
    struct split_part *pd = &sp->part[d];
    const struct femint_operator *q = pd->op;
    for (int64_t j = 0, e = 0; e < sp->npart; e++) {
      int64_t j1 = j;
      while (j1 < q->nghost && q->ghost[j1] < bound[e + 1]) j1++;
      pd->first[e] = j;
      pd->nread[e] = pd->need_set ? pd->nneed[e] : j1 - j;
      pd->at[e] = sp->part[e].npack;
      sp->part[e].npack += pd->nread[e];
      j = j1;
    }
  }
  for (int e = 0; e < sp->npart; e++) {
    struct split_part *pe = &sp->part[e];
    pe->pack_idx = malloc((2 * (size_t)pe->npack * nc + 2) * sizeof *pe->pack_idx);
    FEMINT_CHECK(pe->pack_idx && !femint_host_alloc(ctx, ((size_t)pe->npack * nc + 1) * sizeof(double),
                                                    (void **)&pe->pack),
                 ctx, FEMINT_ENOMEM, "the operator over devices: out of memory");
    for (int d = 0; d < sp->npart; d++) {
      const struct split_part *pd = &sp->part[d];
      for (int64_t i = 0; i < pd->nread[e]; i++)
        for (int c = 0; c < nc; c++) {
          const int64_t k = (pd->at[e] + i) * nc + c;
          pe->pack_idx[2 * k] = k;
          pe->pack_idx[2 * k + 1] = (pd->op->ghost[pd->first[e] + i] - bound[e]) * nc + c;
        }
    }
    starpu_vector_data_register(&pe->h_pack, -1, 0, (uint32_t)(pe->npack * nc + 1),
                                sizeof(double));
    starpu_vector_data_register(&pe->h_pack_idx, STARPU_MAIN_RAM, (uintptr_t)pe->pack_idx,
                                (uint32_t)(2 * pe->npack * nc + 2), sizeof(int64_t));
  }
  /* each part's loads, straight from the packs in main memory to its ghosts' places (its
   * kernels set once the part's apply is prepared, split_receive) */
  for (int d = 0; d < sp->npart; d++) {
    struct split_part *pd = &sp->part[d];
    pd->read_arg = (struct vec_arg){.ctx = ctx, .op = VEC_MOVE};
    for (int e = 0; e < sp->npart; e++)
      if (pd->nread[e]) {
        const int i = pd->read_arg.nloads++;
        pd->read_arg.load[i] = sp->part[e].pack + pd->at[e] * nc;
        pd->read_arg.nload[i] = pd->nread[e] * nc;
        pd->read_arg.load_at[i] = (pd->own + pd->first[e]) * nc;
      }
  }
  return 0;
}

/* The parts over the devices dev[0 .. n), their ghosts and exchange. */
static int split_make(struct femint_operator *op, const int *dev, int n)
{
  femint_context_t ctx = op->ctx;
  const int64_t nmode = op->space->nmode;
  int64_t bound[FEMINT_MAX_CL_DEVICES + 1];
  FEMINT_CALL(operator_split_modes(op, n, bound));
  struct apply_split *sp = op->split = calloc(1, sizeof *sp);
  FEMINT_CHECK(sp, ctx, FEMINT_ENOMEM, "the operator over devices: out of memory");
  sp->op = op;
  sp->nc = op->space->ncomp;
  int64_t b[FEMINT_MAX_CL_DEVICES + 1];
  b[0] = 0;
  for (int d = 0; d < n; d++) {
    if (bound[d] == bound[d + 1]) continue; /* no mode: the device has nothing to do */
    struct split_part *q = &sp->part[sp->npart];
    FEMINT_CALL(operator_part_make(op, n, bound[d], bound[d + 1], dev[d], &q->op));
    q->own = bound[d + 1] - bound[d];
    b[++sp->npart] = bound[d + 1];
  }
  char *mark = calloc((size_t)nmode + 1, 1);
  int err = mark ? 0 : femint_seterr(ctx, FEMINT_ENOMEM, "the operator over devices: out of memory");
  for (int d = 0; d < sp->npart && !err; d++) err = part_ghosts(sp->part[d].op, mark);
  if (!err) err = split_assign(sp, b);
  if (!err) err = split_exchange_make(sp, b);
  free(mark);
  for (int d = 0; d < sp->npart && !err; d++) {
    const struct femint_operator *q = sp->part[d].op;
    femint_trace("the operator over %d devices: part %d on device %d, %d cells, modes %lld..%lld, "
                 "%lld ghosts, packs %lld",
                 sp->npart, d, q->coo_dev, q->plan->ncell, (long long)q->mlo,
                 (long long)q->mhi - 1, (long long)q->nghost, (long long)sp->part[d].npack);
  }
  return err;
}

int operator_split(struct femint_operator *op, struct apply_split **out)
{
  if (!op->split_tried) {
    op->split_tried = 1;
    int dev[FEMINT_MAX_CL_DEVICES];
    const int n = split_devices(op, dev);
    const int err = n < 2 ? 0 : split_make(op, dev, n);
    if (err) {
      apply_split_release(op);
      op->split_tried = 1;
      return err;
    }
  }
  *out = op->split;
  return 0;
}

int apply_split_prepare(struct femint_operator *op, int form, int *kind, struct apply_split **out)
{
  *out = NULL;
  struct apply_split *sp = NULL;
  FEMINT_CALL(apply_check(op, form, kind));
  FEMINT_CALL(operator_split(op, &sp));
  if (!sp) return 0;
  for (int d = 0; d < sp->npart; d++) {
    struct femint_operator *q = sp->part[d].op;
    FEMINT_CALL(apply_prepare(q, form, kind));
    if (apply_home(q) != q->coo_worker) {
      /* its vector kernels did not build there: one device applies instead */
      fprintf(stderr,
              "femint: warning: femint_operator_apply over %d devices: OpenCL device %d cannot "
              "run the vector operations of its part; one device applies instead\n",
              sp->npart, q->coo_dev);
      apply_split_release(op);
      op->split_tried = 1;
      return 0;
    }
  }
  const int links = sp->links_made ? 0 : split_links_make(sp);
  if (links < 0) { /* made again at the next call */
    apply_split_release(op);
    return links;
  }
  if (links > 0) { /* the chunks of the parts do not match: each part applies all its cells */
    femint_trace("the operator over %d devices: a part's chunk of cells applied elsewhere takes "
                 "them from several chunks; every part applies all its cells", sp->npart);
    apply_split_release(op);
    op->split_all_cells = 1;
    return apply_split_prepare(op, form, kind, out);
  }
  *out = sp;
  return 0;
}

int apply_split_nparts(const struct apply_split *sp) { return sp->npart; }

struct femint_operator *apply_split_part(const struct apply_split *sp, int d)
{
  return sp->part[d].op;
}

int apply_split_vectors(struct apply_split *sp, struct femint_vector **v)
{
  for (int d = 0; d < sp->npart; d++) {
    const struct femint_operator *q = sp->part[d].op;
    if (!v[d]) FEMINT_CALL(vector_create_n(q->space, (sp->part[d].own + q->nghost) * sp->nc, &v[d]));
  }
  return 0;
}

int apply_split_io(struct apply_split *sp, struct femint_vector ***x, struct femint_vector ***y)
{
  FEMINT_CALL(apply_split_vectors(sp, sp->vx));
  FEMINT_CALL(apply_split_vectors(sp, sp->vy));
  *x = sp->vx;
  *y = sp->vy;
  return 0;
}

/* Copy between a host array x of the space's values and part d's vector a: own modes, then,
 * with ghosts set, the ghosts; to_part: into a. */
static void part_copy(const struct apply_split *sp, int d, double *x, double *a, int ghosts,
                      int to_part)
{
  const struct femint_operator *q = sp->part[d].op;
  const int64_t nc = sp->nc, own = sp->part[d].own, n = own + (ghosts ? q->nghost : 0);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) {
    const int64_t g = i < own ? q->mlo + i : q->ghost[i - own];
    for (int64_t c = 0; c < nc; c++) {
      if (to_part) a[i * nc + c] = x[g * nc + c];
      else x[g * nc + c] = a[i * nc + c];
    }
  }
}

int apply_split_scatter(struct apply_split *sp, const double *x, struct femint_vector **v)
{
  for (int d = 0; d < sp->npart; d++) {
    double *a;
    FEMINT_CALL(femint_vector_get_array(v[d], FEMINT_WRITE, &a));
    part_copy(sp, d, (double *)x, a, 1, 1);
    a[v[d]->n] = 0;
    femint_vector_restore_array(v[d], &a);
  }
  return 0;
}

int apply_split_gather(struct apply_split *sp, struct femint_vector **v, double *x)
{
  for (int d = 0; d < sp->npart; d++) {
    double *a;
    FEMINT_CALL(femint_vector_get_array(v[d], FEMINT_READ, &a));
    part_copy(sp, d, x, a, 0, 0);
    femint_vector_restore_array(v[d], &a);
  }
  return 0;
}

/* The packing tasks of v's values that other parts read, each part's on its device into main
 * memory (packs[part], NULL where none). */
static int split_pack(struct apply_split *sp, struct femint_vector **v, struct starpu_task **packs)
{
  for (int e = 0; e < sp->npart; e++) {
    struct split_part *pe = &sp->part[e];
    packs[e] = NULL;
    if (!pe->npack) continue;
    /* the arguments are set once (tasks of an earlier exchange may still read them) */
    struct vec_arg *a = &pe->pack_arg;
    if (!a->ctx)
      *a = (struct vec_arg){.ctx = sp->op->ctx, .op = VEC_MOVE, .n = pe->npack * sp->nc,
                            .kern = apply_vec_kernels(pe->op), .store = pe->pack,
                            .nstore = pe->npack * sp->nc};
    const starpu_data_handle_t h[3] = {pe->h_pack, v[e]->h, pe->h_pack_idx};
    static const enum starpu_data_access_mode m[3] = {STARPU_W, STARPU_R, STARPU_R};
    FEMINT_CALL(split_task(pe->op, a, 3, h, m, NULL, 0, &packs[e]));
  }
  return 0;
}

/* Part d's ghosts in v[d] from the packs of their owners, after their packing tasks. */
static int split_receive(struct apply_split *sp, int d, struct femint_vector **v,
                         struct starpu_task **packs)
{
  struct split_part *pd = &sp->part[d];
  if (!pd->read_arg.nloads) return 0;
  if (!pd->read_arg.kern) pd->read_arg.kern = apply_vec_kernels(pd->op);
  struct starpu_task *deps[FEMINT_MAX_CL_DEVICES];
  int ndep = 0;
  for (int e = 0; e < sp->npart; e++)
    if (pd->nread[e]) deps[ndep++] = packs[e];
  static const enum starpu_data_access_mode rw = STARPU_RW;
  return split_task(pd->op, &pd->read_arg, 1, &v[d]->h, &rw, deps, ndep, NULL);
}

int apply_split_submit(struct apply_split *sp, int form, int kind, struct femint_vector **v,
                       struct femint_vector **y, struct starpu_task **packs, int *counts,
                       struct starpu_task **kept, int *nkept)
{
  FEMINT_CALL(split_pack(sp, v, packs));
  /* on each device, the cells that read no ghost first: the other devices' packs are made
   * meanwhile (the load into v[d] waits for these tasks, which read v[d]) */
  for (int d = 0; d < sp->npart; d++) {
    const int n = apply_submit_chunks(sp->part[d].op, form, kind, v[d]->h, APPLY_INSIDE,
                                      kept ? kept + *nkept : NULL, counts);
    if (n < 0) return n;
    if (kept) *nkept += n;
  }
  for (int d = 0; d < sp->npart; d++) {
    FEMINT_CALL(split_receive(sp, d, v, packs));
    const int n = apply_submit_chunks(sp->part[d].op, form, kind, v[d]->h, APPLY_BORDER,
                                      kept ? kept + *nkept : NULL, counts);
    if (n < 0) return n;
    if (kept) *nkept += n;
  }
  FEMINT_CALL(split_links_submit(sp));
  for (int d = 0; d < sp->npart; d++) {
    FEMINT_CALL(apply_sum(sp->part[d].op, y[d], kept ? kept + *nkept : NULL, counts));
    if (kept) (*nkept)++;
  }
  return 0;
}

/* The first error the exchange's tasks recorded. */
static int exchange_status(const struct apply_split *sp, const char *who)
{
  for (int d = 0; d < sp->npart; d++) {
    const struct split_part *q = &sp->part[d];
    for (int i = 0; i < 2; i++) {
      const struct vec_arg *a = i ? &q->read_arg : &q->pack_arg;
      if (a->status) return femint_seterr(sp->op->ctx, a->status, "%s: %s", who, a->msg);
    }
  }
  for (int l = 0; l < sp->nlink; l++)
    for (int i = 0; i < 2; i++) {
      const struct vec_arg *a = i ? &sp->link[l].load_arg : &sp->link[l].pack_arg;
      if (a->status) return femint_seterr(sp->op->ctx, a->status, "%s: %s", who, a->msg);
    }
  return 0;
}

int apply_split_status(struct apply_split *sp, const char *who)
{
  for (int d = 0; d < sp->npart; d++) FEMINT_CALL(apply_status(sp->part[d].op, who));
  return exchange_status(sp, who);
}

int apply_split_run(struct apply_split *sp, int form, int kind, const double *x, double *y,
                    struct femint_stats *st)
{
  static const char who[] = "femint_operator_apply";
  femint_context_t ctx = sp->op->ctx;
  struct femint_vector **vx, **vy;
  FEMINT_CALL(apply_split_io(sp, &vx, &vy));
  FEMINT_CALL(apply_split_scatter(sp, x, vx));
  int ntask = 0;
  for (int d = 0; d < sp->npart; d++) ntask += apply_nchunk(sp->part[d].op) + 1;
  struct starpu_task **tasks = calloc((size_t)ntask + 1, sizeof *tasks);
  FEMINT_CHECK(tasks, ctx, FEMINT_ENOMEM, "%s: out of memory", who);
  struct starpu_task *packs[FEMINT_MAX_CL_DEVICES] = {0};
  int at = 0;
  int err = apply_split_submit(sp, form, kind, vx, vy, packs, NULL, tasks, &at);
  for (int i = 0; i < at; i++) {
    if (starpu_task_wait(tasks[i]) && !err)
      err = femint_seterr(ctx, FEMINT_ERUNTIME, "%s: a task failed", who);
    if (st) stats_task(st, tasks[i], tasks[i]->cl == &femint_cl_apply);
    starpu_task_destroy(tasks[i]);
  }
  for (int d = 0; d < sp->npart; d++)
    if (packs[d]) {
      if (starpu_task_wait(packs[d]) && !err)
        err = femint_seterr(ctx, FEMINT_ERUNTIME, "%s: a task failed", who);
      starpu_task_destroy(packs[d]);
    }
  free(tasks);
  if (!err) err = apply_split_status(sp, who);
  if (!err) err = apply_split_gather(sp, vy, y);
  return err;
}
