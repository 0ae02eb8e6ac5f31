/* The matrix-free verbs on vectors: femint_operator_apply_vector, femint_operator_diagonal and
 * femint_operator_cg. A solve submits every step as a task on the home of its vectors
 * (apply_home: the first device with the kernels, else the CPU workers), the apply tasks
 * wherever the scheduler puts them; only the residual norm comes back per iteration, and the
 * next iteration's application is submitted before it is read. Over several devices
 * (apply_split.c) each part of the operator does the same on its own values, the dot products
 * summed over the parts and the ghosts of the vector applied exchanged at each application; the
 * caller's vectors then go through main memory at the start and the end. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "codelets/vector_ops.h"
#include "operator.h"

/* y = A x once: over several devices through main memory (apply_split_run), else on the
 * vectors' home. */
static int apply_vector_once(femint_operator_t op, int form, femint_vector_t x, femint_vector_t y,
                             struct femint_stats *st)
{
  int kind;
  struct apply_split *sp;
  FEMINT_CALL(apply_split_prepare(op, form, &kind, &sp));
  if (!sp) {
    FEMINT_CALL(apply_prepare(op, form, &kind));
    return apply_wait(op, form, kind, x->h, y, st);
  }
  double *xa, *ya;
  FEMINT_CALL(femint_vector_get_array(x, FEMINT_READ, &xa));
  int err = femint_vector_get_array(y, FEMINT_WRITE, &ya);
  if (!err) {
    err = apply_split_run(sp, form, kind, xa, ya, st);
    femint_vector_restore_array(y, &ya);
  }
  femint_vector_restore_array(x, &xa);
  return err;
}

int femint_operator_apply_vector(femint_operator_t op, int form, femint_vector_t x,
                                 femint_vector_t y, struct femint_stats *stats)
{
  static const char who[] = "femint_operator_apply_vector";
  FEMINT_CHECK(op, NULL, FEMINT_EINVAL, "%s: NULL operator", who);
  FEMINT_CALL(vector_check(op, x, who, "x"));
  FEMINT_CALL(vector_check(op, y, who, "y"));
  FEMINT_CHECK(x != y, op->ctx, FEMINT_EINVAL, "%s: x and y are the same vector", who);
  const double t0 = femint_now();
  operator_devices_refresh(op);
  struct femint_stats st;
  memset(&st, 0, sizeof st);
  stats_plan(op, &st);
  int err = apply_vector_once(op, form, x, y, &st);
  /* a device that failed: left out, the application done again without it */
  if (operator_retry(op, err, who)) err = apply_vector_once(op, form, x, y, &st);
  st.t_total = femint_now() - t0;
  if (stats) *stats = st;
  return err;
}

int femint_operator_apply_kernel(femint_operator_t op, int form, const double *ue, double *ve,
                                 int runs, double *seconds, struct femint_stats *stats)
{
  FEMINT_CHECK(op, NULL, FEMINT_EINVAL, "femint_operator_apply_kernel: NULL operator");
  struct femint_stats st;
  memset(&st, 0, sizeof st);
  stats_plan(op, &st);
  const int err = operator_apply_kernel(op, form, ue, ve, runs, seconds, &st);
  if (!err && seconds) st.t_total = *seconds;
  if (stats) *stats = st;
  return err;
}

/* d (the space's values) = the diagonal, each part's own modes from its part. */
static int split_diagonal(struct apply_split *sp, int form, int kind, double *d)
{
  struct femint_vector **unused, **v;
  int err = apply_split_io(sp, &unused, &v);
  for (int i = 0; i < apply_split_nparts(sp) && !err; i++) {
    double *a;
    err = femint_vector_get_array(v[i], FEMINT_WRITE, &a);
    if (err) break;
    err = apply_diagonal(apply_split_part(sp, i), form, kind, a);
    femint_vector_restore_array(v[i], &a);
  }
  if (!err) err = apply_split_gather(sp, v, d);
  return err;
}

int femint_operator_diagonal(femint_operator_t op, int form, femint_vector_t d)
{
  static const char who[] = "femint_operator_diagonal";
  FEMINT_CHECK(op, NULL, FEMINT_EINVAL, "%s: NULL operator", who);
  FEMINT_CALL(vector_check(op, d, who, "d"));
  int kind;
  struct apply_split *sp;
  FEMINT_CALL(apply_split_prepare(op, form, &kind, &sp));
  if (!sp) FEMINT_CALL(apply_prepare(op, form, &kind));
  double *a;
  FEMINT_CALL(femint_vector_get_array(d, FEMINT_WRITE, &a));
  const int err = sp ? split_diagonal(sp, form, kind, a) : apply_diagonal(op, form, kind, a);
  femint_vector_restore_array(d, &a);
  return err;
}

/* ---- conjugate gradients ---- */

/* A solve's work on one part of the operator (the operator itself on one device): its vectors
 * (u = z with Jacobi, else r; w = A u; t = A p, kept by the steps), its scalars, the arguments of
 * its tasks (start, dot, step of the first and of even and odd iterations). Over several parts,
 * its partial dot products published in main memory by the tasks that make them (start, dot and
 * step, the last two by the iteration's parity), and those tasks, kept until the tasks that sum
 * them are submitted and the solve has read them. */
struct cg_part {
  femint_operator_t op;
  struct femint_vector *b, *x;   /* the caller's (one part), or the part's copies */
  struct femint_vector *r, *p, *w, *t, *z, *dinv;
  double s[VEC_NSLOT];
  double rr[2];                  /* over several parts: the part's own, not read */
  starpu_data_handle_t hs, hrr;
  struct vec_arg start, dot[2], update[2], update0;
  /* in pinned memory (struct cg's pinned): the partials published, the sums put (by every
   * step, one after the other) */
  double *pub_start, *pub_dot[2], *pub_upd[2], *put;
  struct starpu_task *t_start, *t_dot[2], *t_upd[2], *t_pack[3];
};

/* The work of one solve: its parts, the residuals read back. CG with one reduction per
 * iteration (Chronopoulos and Gear: r . u and w . u summed together, vector_ops.h's
 * VEC_CG_UPDATE), so that over several devices an iteration waits once for the others: each
 * part's step sums the parts' published partials before its kernel (struct vec_arg's gather),
 * declared dependent on the tasks that published them, and the ghosts of u are exchanged while
 * each device applies its cells that read none: nothing but the borders' values and the scalars
 * crosses between the devices, and StarPU moves no data between them. */
struct cg {
  femint_operator_t op;
  struct apply_split *sp;        /* NULL: one part, the operator */
  int form, kind, jacobi, np;
  struct cg_part part[FEMINT_MAX_CL_DEVICES];
  const double *src_start[FEMINT_MAX_CL_DEVICES], *src_dot[2][FEMINT_MAX_CL_DEVICES],
      *src_upd[2][FEMINT_MAX_CL_DEVICES];
  double *pinned;                /* over several parts: CG_PINNED values per part */
  double rr[2][2];               /* one part: r . r and p . A p of two iterations in turn */
  starpu_data_handle_t hrr[2];
  int counts[2];                 /* tasks run on CPU and OpenCL workers */
};

/* The scalars a part publishes and puts, in pinned memory (small reads and writes from a device
 * to pageable memory cost tens of microseconds each on a GPU): start, dot and step by parity,
 * and the sums the steps put. */
#define CG_PINNED (6 * VEC_NSLOT)

/* A task on part q's home, after deps[0 .. ndep); kept in *slot (over several parts, the tasks
 * whose results others sum) or detached (slot NULL). */
static int cg_task(struct cg_part *q, struct vec_arg *arg, int n, const starpu_data_handle_t *h,
                   const enum starpu_data_access_mode *m, struct starpu_task **deps, int ndep,
                   struct starpu_task **slot)
{
  starpu_data_handle_t *dh = NULL;
  enum starpu_data_access_mode *dm = NULL;
  if (n > STARPU_NMAXBUFS) { /* StarPU frees them with the task */
    dh = malloc((size_t)n * sizeof *dh);
    dm = malloc((size_t)n * sizeof *dm);
    if (!dh || !dm) {
      free(dh);
      free(dm);
      return femint_seterr(q->op->ctx, FEMINT_ENOMEM, "femint_operator_cg: out of memory");
    }
  }
  struct starpu_task *t = starpu_task_create();
  t->cl = &femint_cl_vec;
  t->cl_arg = arg;
  t->nbuffers = n;
  t->dyn_handles = dh;
  t->dyn_modes = dm;
  for (int i = 0; i < n; i++) {
    STARPU_TASK_SET_HANDLE(t, h[i], i);
    STARPU_TASK_SET_MODE(t, m[i], i);
  }
  apply_task_home(q->op, t);
  if (ndep) starpu_task_declare_deps_array(t, (unsigned)ndep, deps);
  return task_submit(q->op->ctx, t, slot, "femint_operator_cg");
}

/* Wait for a kept task and destroy it (NULL: none); 1 when it failed. */
static int cg_drop(struct starpu_task **t)
{
  if (!*t) return 0;
  const int failed = starpu_task_wait(*t) != 0;
  starpu_task_destroy(*t);
  *t = NULL;
  return failed;
}

/* y = A v on every part (v's ghosts brought from their owners, the packing tasks kept in
 * t_pack[pack]): r = A x (start), else w = A u */
static int cg_apply_parts(struct cg *c, int start, int pack)
{
  struct femint_vector *v[FEMINT_MAX_CL_DEVICES], *y[FEMINT_MAX_CL_DEVICES];
  struct starpu_task *packs[FEMINT_MAX_CL_DEVICES] = {0};
  for (int d = 0; d < c->np; d++) {
    const struct cg_part *q = &c->part[d];
    v[d] = start ? q->x : c->jacobi ? q->z : q->r;
    y[d] = start ? q->r : q->w;
  }
  if (c->sp) {
    const int err = apply_split_submit(c->sp, c->form, c->kind, v, y, packs, c->counts, NULL,
                                       NULL);
    for (int d = 0; d < c->np; d++) c->part[d].t_pack[pack] = packs[d];
    return err;
  }
  const int n = apply_submit(c->op, c->form, c->kind, v[0]->h, y[0], NULL, c->counts);
  return n < 0 ? n : 0;
}

/* w = A u and s[PQ] = w . u (over several parts: each its own, published), for iteration k */
static int cg_apply(struct cg *c, int k)
{
  FEMINT_CALL(cg_apply_parts(c, 0, k & 1));
  static const enum starpu_data_access_mode m[3] = {STARPU_R, STARPU_R, STARPU_RW};
  for (int d = 0; d < c->np; d++) {
    struct cg_part *q = &c->part[d];
    const starpu_data_handle_t h[3] = {q->w->h, c->jacobi ? q->z->h : q->r->h, q->hs};
    FEMINT_CALL(cg_task(q, &q->dot[k & 1], 3, h, m, NULL, 0, c->sp ? &q->t_dot[k & 1] : NULL));
  }
  return 0;
}

/* iteration k: the step (p, t, x, r, z and the next r . z); over several parts each after every
 * part's dot product */
static int cg_step(struct cg *c, int k)
{
  static const enum starpu_data_access_mode mu[9] = {STARPU_RW, STARPU_RW, STARPU_RW,
                                                     STARPU_RW, STARPU_R,  STARPU_RW,
                                                     STARPU_W,  STARPU_R,  STARPU_RW};
  struct starpu_task *deps[FEMINT_MAX_CL_DEVICES];
  for (int e = 0; e < c->np; e++) deps[e] = c->part[e].t_dot[k & 1];
  for (int d = 0; d < c->np; d++) {
    struct cg_part *q = &c->part[d];
    const starpu_data_handle_t hu[9] = {q->x->h, q->r->h, q->p->h, q->t->h, q->w->h, q->hs,
                                        c->np == 1 ? c->hrr[k & 1] : q->hrr,
                                        c->jacobi ? q->dinv->h : NULL, c->jacobi ? q->z->h : NULL};
    FEMINT_CALL(cg_task(q, k == 0 ? &q->update0 : &q->update[k & 1], c->jacobi ? 9 : 7, hu, mu,
                        deps, c->sp ? c->np : 0, c->sp ? &q->t_upd[k & 1] : NULL));
  }
  return 0;
}

/* Over several parts: wait for the tasks of iteration k kept and destroy them. */
static void cg_drop_iteration(struct cg *c, int k)
{
  for (int d = 0; d < c->np; d++) {
    cg_drop(&c->part[d].t_upd[k & 1]);
    cg_drop(&c->part[d].t_dot[k & 1]);
    cg_drop(&c->part[d].t_pack[k & 1]);
  }
}

static void cg_release(struct cg *c)
{
  for (int d = 0; d < c->np; d++) {
    struct cg_part *q = &c->part[d];
    cg_drop(&q->t_start);
    for (int i = 0; i < 3; i++) cg_drop(&q->t_pack[i]);
    for (int i = 0; i < 2; i++) {
      cg_drop(&q->t_dot[i]);
      cg_drop(&q->t_upd[i]);
    }
  }
  for (int d = 0; d < c->np; d++) {
    struct cg_part *q = &c->part[d];
    if (c->sp) {
      femint_vector_destroy(&q->b);
      femint_vector_destroy(&q->x);
    }
    femint_vector_destroy(&q->r);
    femint_vector_destroy(&q->p);
    femint_vector_destroy(&q->w);
    femint_vector_destroy(&q->t);
    femint_vector_destroy(&q->z);
    femint_vector_destroy(&q->dinv);
    if (q->hs) starpu_data_unregister(q->hs);
    if (q->hrr) starpu_data_unregister(q->hrr);
  }
  for (int i = 0; i < 2; i++)
    if (c->hrr[i]) starpu_data_unregister(c->hrr[i]);
  femint_host_free(c->op->ctx, c->pinned);
}

/* The first error a task of the solve recorded. */
static int cg_status(struct cg *c)
{
  for (int d = 0; d < c->np; d++) {
    const struct cg_part *q = &c->part[d];
    const struct vec_arg *args[6] = {&q->start,     &q->dot[0],   &q->dot[1],
                                     &q->update[0], &q->update[1], &q->update0};
    for (int i = 0; i < 6; i++)
      if (args[i]->status)
        return femint_seterr(c->op->ctx, args[i]->status, "femint_operator_cg: %s", args[i]->msg);
  }
  return c->sp ? apply_split_status(c->sp, "femint_operator_cg")
               : apply_status(c->op, "femint_operator_cg");
}

/* The vectors of every part at offset off of struct cg_part: over several parts, a part's own
 * values and ghosts each; else the space's. */
static int cg_vectors(struct cg *c, size_t off)
{
  struct femint_vector *w[FEMINT_MAX_CL_DEVICES] = {0};
  int err = c->sp ? apply_split_vectors(c->sp, w)
                  : femint_vector_create((femint_space_t)c->op->space, &w[0]);
  for (int d = 0; d < c->np; d++) *(struct femint_vector **)((char *)&c->part[d] + off) = w[d];
  return err;
}

/* Part d's inverse of its diagonal (Jacobi), its scalars and its tasks' arguments. */
static int cg_part_setup(struct cg *c, int d)
{
  struct cg_part *q = &c->part[d];
  /* over several parts, the values summed are the part's own modes */
  const int64_t n = c->sp ? (q->op->mhi - q->op->mlo) * c->op->space->ncomp : q->r->n;
  if (c->jacobi) {
    double *a;
    FEMINT_CALL(femint_vector_get_array(q->dinv, FEMINT_WRITE, &a));
    const int err = apply_diagonal(q->op, c->form, c->kind, a);
    for (int64_t i = 0; i < n && !err; i++) a[i] = a[i] > 0 ? 1.0 / a[i] : 0.0;
    femint_vector_restore_array(q->dinv, &a);
    FEMINT_CALL(err);
  }
  starpu_vector_data_register(&q->hs, STARPU_MAIN_RAM, (uintptr_t)q->s, VEC_NSLOT, sizeof(double));
  starpu_vector_data_register(&q->hrr, STARPU_MAIN_RAM, (uintptr_t)q->rr, 2, sizeof(double));
  const struct vec_arg base = {.ctx = c->op->ctx, .n = n, .jacobi = c->jacobi,
                               .kern = apply_vec_kernels(q->op), .counts = c->counts,
                               .nsum = c->np};
  q->start = base;
  q->start.op = VEC_CG_START;
  q->start.out = SLOT_RZ0;
  for (int k = 0; k < 2; k++) {
    /* iteration k: r . u in RZ[k & 1], the one before and the next in the other; alpha too */
    const int cur = k ? SLOT_RZ1 : SLOT_RZ0, other = k ? SLOT_RZ0 : SLOT_RZ1;
    q->dot[k] = base;
    q->dot[k].op = VEC_DOT;
    q->dot[k].out = SLOT_PQ;
    q->update[k] = base;
    q->update[k].op = VEC_CG_UPDATE;
    q->update[k].in0 = cur;
    q->update[k].in1 = other;
    q->update[k].out = other;
    q->update[k].aout = k ? SLOT_A1 : SLOT_A0;
    q->update[k].ain = k ? SLOT_A0 : SLOT_A1;
    if (!c->sp) continue;
    /* the sums: w . u, and r . u from the steps before (published by parity) */
    q->dot[k].publish = q->pub_dot[k];
    q->update[k].publish = q->pub_upd[k];
    q->update[k].ngather = 2;
    q->update[k].put = q->put;
    q->update[k].gather[0] = (struct vec_gather){SLOT_PQ, c->src_dot[k]};
    q->update[k].gather[1] = (struct vec_gather){cur, c->src_upd[1 - k]};
  }
  q->update0 = q->update[0];
  q->update0.first = 1;
  if (c->sp) {
    q->start.publish = q->pub_start;
    q->update0.gather[1] = (struct vec_gather){SLOT_RZ0, c->src_start};
  }
  return 0;
}

/* The parts (the operator alone, or its split with copies of b and x), their setup and the
 * residuals' handles. */
static int cg_setup(struct cg *c, struct femint_vector *b, struct femint_vector *x)
{
  c->np = c->sp ? apply_split_nparts(c->sp) : 1;
  if (c->sp && femint_host_alloc(c->op->ctx, (size_t)c->np * CG_PINNED * sizeof(double),
                                 (void **)&c->pinned))
    return femint_seterr(c->op->ctx, FEMINT_ENOMEM, "femint_operator_cg: out of memory");
  for (int d = 0; d < c->np; d++) {
    struct cg_part *q = &c->part[d];
    q->op = c->sp ? apply_split_part(c->sp, d) : c->op;
    if (c->sp) {
      double *at = c->pinned + (size_t)d * CG_PINNED;
      q->pub_start = at;
      for (int k = 0; k < 2; k++) {
        q->pub_dot[k] = at + (1 + k) * VEC_NSLOT;
        q->pub_upd[k] = at + (3 + k) * VEC_NSLOT;
      }
      q->put = at + 5 * VEC_NSLOT;
    }
    c->src_start[d] = c->part[d].pub_start;
    for (int k = 0; k < 2; k++) {
      c->src_dot[k][d] = c->part[d].pub_dot[k];
      c->src_upd[k][d] = c->part[d].pub_upd[k];
    }
  }
  for (int i = 0; i < 2; i++)
    starpu_vector_data_register(&c->hrr[i], STARPU_MAIN_RAM, (uintptr_t)c->rr[i], 2, sizeof(double));
  if (!c->sp) {
    c->part[0].b = b;
    c->part[0].x = x;
  } else {
    struct femint_vector *vb[FEMINT_MAX_CL_DEVICES] = {0}, *vx[FEMINT_MAX_CL_DEVICES] = {0};
    int err = apply_split_vectors(c->sp, vb);
    if (!err) err = apply_split_vectors(c->sp, vx);
    for (int d = 0; d < c->np; d++) {
      c->part[d].b = vb[d];
      c->part[d].x = vx[d];
    }
    FEMINT_CALL(err);
    double *a;
    FEMINT_CALL(femint_vector_get_array(b, FEMINT_READ, &a));
    err = apply_split_scatter(c->sp, a, vb);
    femint_vector_restore_array(b, &a);
    FEMINT_CALL(err);
    FEMINT_CALL(femint_vector_get_array(x, FEMINT_READ, &a));
    err = apply_split_scatter(c->sp, a, vx);
    femint_vector_restore_array(x, &a);
    FEMINT_CALL(err);
  }
  FEMINT_CALL(cg_vectors(c, offsetof(struct cg_part, r)));
  FEMINT_CALL(cg_vectors(c, offsetof(struct cg_part, p)));
  FEMINT_CALL(cg_vectors(c, offsetof(struct cg_part, w)));
  FEMINT_CALL(cg_vectors(c, offsetof(struct cg_part, t)));
  if (c->jacobi) {
    FEMINT_CALL(cg_vectors(c, offsetof(struct cg_part, z)));
    FEMINT_CALL(cg_vectors(c, offsetof(struct cg_part, dinv)));
  }
  for (int d = 0; d < c->np; d++) FEMINT_CALL(cg_part_setup(c, d));
  return 0;
}

/* The sums of slot over the parts' published values (src). */
static double cg_total(const struct cg *c, const double *const *src, int slot)
{
  double t = 0;
  for (int d = 0; d < c->np; d++) t += src[d][slot];
  return t;
}

/* r = b - A x; |b|^2 and |r|^2 into bb and rr. */
static int cg_start(struct cg *c, double *bb, double *rr)
{
  FEMINT_CALL(cg_apply_parts(c, 1, 2));
  static const enum starpu_data_access_mode ms[5] = {STARPU_R, STARPU_RW, STARPU_RW, STARPU_R,
                                                     STARPU_W};
  for (int d = 0; d < c->np; d++) {
    struct cg_part *q = &c->part[d];
    const starpu_data_handle_t hs[5] = {q->b->h, q->r->h, q->hs, c->jacobi ? q->dinv->h : NULL,
                                        c->jacobi ? q->z->h : NULL};
    FEMINT_CALL(cg_task(q, &q->start, c->jacobi ? 5 : 3, hs, ms, NULL, 0,
                        c->sp ? &q->t_start : NULL));
  }
  if (c->sp) {
    int failed = 0;
    for (int d = 0; d < c->np; d++) {
      failed |= cg_drop(&c->part[d].t_start);
      failed |= cg_drop(&c->part[d].t_pack[2]);
    }
    FEMINT_CHECK(!failed, c->op->ctx, FEMINT_ERUNTIME, "femint_operator_cg: a task failed");
    *bb = cg_total(c, c->src_start, SLOT_BB);
    *rr = cg_total(c, c->src_start, SLOT_RR);
    return 0;
  }
  if (starpu_data_acquire(c->part[0].hs, STARPU_R))
    return femint_seterr(c->op->ctx, FEMINT_ERUNTIME, "femint_operator_cg: cannot read the residual");
  *bb = c->part[0].s[SLOT_BB];
  *rr = c->part[0].s[SLOT_RR];
  starpu_data_release(c->part[0].hs);
  return 0;
}

/* r . r and p . A p of iteration k. */
static int cg_read(struct cg *c, int k, double *rr, double *pq)
{
  if (c->sp) {
    int failed = 0;
    for (int d = 0; d < c->np; d++) failed |= cg_drop(&c->part[d].t_upd[k & 1]);
    FEMINT_CHECK(!failed, c->op->ctx, FEMINT_ERUNTIME, "femint_operator_cg: a task failed");
    *rr = cg_total(c, c->src_upd[k & 1], SLOT_RR);
    *pq = c->part[0].pub_upd[k & 1][SLOT_DEN]; /* from the sums gathered before the step */
    cg_drop_iteration(c, k);
    return 0;
  }
  if (starpu_data_acquire(c->hrr[k & 1], STARPU_R))
    return femint_seterr(c->op->ctx, FEMINT_ERUNTIME, "femint_operator_cg: cannot read the residual");
  *rr = c->rr[k & 1][0];
  *pq = c->rr[k & 1][1];
  starpu_data_release(c->hrr[k & 1]);
  return 0;
}

/* The iterations from x: r = b - A x, then until |r| <= target (or max_it when fixed). */
static int cg_iterate(struct cg *c, const struct femint_cg_options *o, struct femint_cg_result *res)
{
  femint_context_t ctx = c->op->ctx;
  double bb = 0, rr0 = 0;
  FEMINT_CALL(cg_start(c, &bb, &rr0));
  res->bnorm = sqrt(bb);
  res->rnorm = res->rnorm0 = sqrt(rr0);
  FEMINT_CALL(cg_status(c));
  FEMINT_CHECK(isfinite(res->bnorm), ctx, FEMINT_EINVAL,
               "femint_operator_cg: b holds values that are not finite (|b| = %g)", res->bnorm);
  FEMINT_CHECK(isfinite(res->rnorm0), ctx, FEMINT_EINVAL,
               "femint_operator_cg: the initial guess x holds values that are not finite "
               "(|b - A x| = %g)",
               res->rnorm0);
  if (res->bnorm == 0) { /* the solution is zero */
    for (int d = 0; d < c->np; d++) {
      double *v;
      FEMINT_CALL(femint_vector_get_array(c->part[d].x, FEMINT_WRITE, &v));
      memset(v, 0, (size_t)c->part[d].x->n * sizeof *v);
      femint_vector_restore_array(c->part[d].x, &v);
    }
    res->rnorm = 0;
    res->converged = 1;
    return 0;
  }
  const double target = o->rtol * res->bnorm;
  res->converged = res->rnorm <= target;
  if ((res->converged && !o->fixed) || o->max_it == 0) return 0;
  FEMINT_CALL(cg_apply(c, 0));
  for (int k = 0; k < o->max_it; k++) {
    FEMINT_CALL(cg_step(c, k));
    if (k + 1 < o->max_it) FEMINT_CALL(cg_apply(c, k + 1));
    double rr = 0, pq = 0;
    FEMINT_CALL(cg_read(c, k, &rr, &pq));
    res->iterations = k + 1;
    FEMINT_CHECK(pq > 0 && isfinite(pq) && isfinite(rr), ctx, FEMINT_ESOLVE,
                 "femint_operator_cg: p^T A p = %g at iteration %d: the operator (form %d) is not "
                 "positive definite on the space's DOFs (remove boundary DOFs for laplace)",
                 pq, k + 1, c->form);
    res->rnorm = sqrt(rr);
    res->converged = res->rnorm <= target;
    if (res->converged && !o->fixed) break;
  }
  return 0;
}

static int cg_once(femint_operator_t op, int form, femint_vector_t b, femint_vector_t x,
                   const struct femint_cg_options *o, struct femint_cg_result *r)
{
  memset(r, 0, sizeof *r);
  const double t0 = femint_now();
  struct cg c = {.op = op, .form = form, .jacobi = o->jacobi};
  int err = apply_split_prepare(op, form, &c.kind, &c.sp);
  if (!err && !c.sp) err = apply_prepare(op, form, &c.kind);
  if (!err) err = cg_setup(&c, b, x);
  const double t1 = femint_now();
  r->t_setup = t1 - t0;
  const char *timeline = op->plan->opt.timeline;
  if (timeline) timeline_open();
  if (!err) err = cg_iterate(&c, o, r);
  if (!err) err = cg_status(&c);
  if (!err && c.sp) { /* the parts' own values of the solution into x */
    double *a;
    err = femint_vector_get_array(x, FEMINT_WRITE, &a);
    if (!err) {
      struct femint_vector *v[FEMINT_MAX_CL_DEVICES];
      for (int d = 0; d < c.np; d++) v[d] = c.part[d].x;
      err = apply_split_gather(c.sp, v, a);
      femint_vector_restore_array(x, &a);
    }
  }
  r->t_solve = femint_now() - t1;
  /* the tasks still in flight end before their data go */
  cg_release(&c);
  if (timeline) {
    const int terr = timeline_close(op->ctx, timeline);
    if (!err) err = terr;
  }
  if (!err) err = cg_status(&c);
  r->tasks_cpu = c.counts[0];
  r->tasks_opencl = c.counts[1];
  return err;
}

int femint_operator_cg(femint_operator_t op, int form, femint_vector_t b, femint_vector_t x,
                       const struct femint_cg_options *opt, struct femint_cg_result *res)
{
  static const char who[] = "femint_operator_cg";
  FEMINT_CHECK(op, NULL, FEMINT_EINVAL, "%s: NULL operator", who);
  femint_context_t ctx = op->ctx;
  FEMINT_CALL(vector_check(op, b, who, "b"));
  FEMINT_CALL(vector_check(op, x, who, "x"));
  FEMINT_CHECK(b != x, ctx, FEMINT_EINVAL, "%s: b and x are the same vector", who);
  struct femint_cg_options o = opt ? *opt : (struct femint_cg_options){0};
  FEMINT_CHECK(o.rtol >= 0 && o.rtol < 1 && o.max_it >= 0 && (o.jacobi == 0 || o.jacobi == 1) &&
                   (o.fixed == 0 || o.fixed == 1),
               ctx, FEMINT_EINVAL,
               "%s: options rtol %g (0 <= rtol < 1), max_it %d (>= 0), jacobi %d and fixed %d (0 "
               "or 1)",
               who, o.rtol, o.max_it, o.jacobi, o.fixed);
  if (o.rtol == 0) o.rtol = 1e-8;
  if (o.max_it == 0 && !o.fixed) o.max_it = 10000;
  operator_devices_refresh(op);
  struct femint_cg_result r;
  int err = cg_once(op, form, b, x, &o, &r);
  /* a device that failed: the solve starts again from the iterate it reached */
  if (operator_retry(op, err, who)) err = cg_once(op, form, b, x, &o, &r);
  if (res) *res = r;
  return err;
}
