/* The matrix-free verbs on vectors: femint_operator_apply_vector, femint_operator_diagonal and
 * femint_operator_cg. A solve submits every step as a task on the home of its vectors
 * (apply_home: the first device with the kernels, else the CPU workers), the apply tasks
 * wherever the scheduler puts them; only the residual norm comes back per iteration, and the
 * next iteration's application is submitted before it is read. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codelets/vector_ops.h"
#include "operator.h"

int femint_operator_apply_vector(femint_operator_t op, int form, femint_vector_t x,
                                 femint_vector_t y, struct femint_stats *stats)
{
  static const char who[] = "femint_operator_apply_vector";
  FEMINT_CHECK(op, NULL, FEMINT_EINVAL, "%s: NULL operator", who);
  FEMINT_CALL(vector_check(op, x, who, "x"));
  FEMINT_CALL(vector_check(op, y, who, "y"));
  FEMINT_CHECK(x != y, op->ctx, FEMINT_EINVAL, "%s: x and y are the same vector", who);
  const double t0 = femint_now();
  int kind;
  operator_devices_refresh(op);
  FEMINT_CALL(apply_prepare(op, form, &kind));
  struct femint_stats st;
  memset(&st, 0, sizeof st);
  stats_plan(op, &st);
  int err = apply_wait(op, form, kind, x->h, y, &st);
  if (operator_retry(op, err, who)) {
    FEMINT_CALL(apply_prepare(op, form, &kind));
    err = apply_wait(op, form, kind, x->h, y, &st);
  }
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

int femint_operator_diagonal(femint_operator_t op, int form, femint_vector_t d)
{
  static const char who[] = "femint_operator_diagonal";
  FEMINT_CHECK(op, NULL, FEMINT_EINVAL, "%s: NULL operator", who);
  FEMINT_CALL(vector_check(op, d, who, "d"));
  int kind;
  FEMINT_CALL(apply_prepare(op, form, &kind));
  double *a;
  FEMINT_CALL(femint_vector_get_array(d, FEMINT_WRITE, &a));
  const int err = apply_diagonal(op, form, kind, a);
  femint_vector_restore_array(d, &a);
  return err;
}

/* ---- conjugate gradients ---- */

/* The work of one solve: its vectors, the scalars on the home, the residuals read back. */
struct cg {
  femint_operator_t op;
  int form, kind, jacobi;
  struct femint_vector *r, *p, *q, *z, *dinv;
  double s[VEC_NSLOT];
  double rr[2][2];               /* r . r and p . A p of two iterations in turn */
  starpu_data_handle_t hs, hrr[2];
  /* the tasks' arguments: start, dot, update and direction of even and odd iterations */
  struct vec_arg start, dot, update[2], direction[2];
  int counts[2];                 /* tasks run on CPU and OpenCL workers */
};

static int cg_task(struct cg *c, struct vec_arg *arg, int n, const starpu_data_handle_t *h,
                   const enum starpu_data_access_mode *m)
{
  struct starpu_task *t = starpu_task_create();
  t->cl = &femint_cl_vec;
  t->cl_arg = arg;
  t->nbuffers = n;
  for (int i = 0; i < n; i++) {
    t->handles[i] = h[i];
    t->modes[i] = m[i];
  }
  apply_task_home(c->op, t);
  return task_submit(c->op->ctx, t, NULL, "femint_operator_cg");
}

/* q = A p and s[PQ] = p . q */
static int cg_apply(struct cg *c)
{
  const int n = apply_submit(c->op, c->form, c->kind, c->p->h, c->q, NULL, c->counts);
  if (n < 0) return n;
  const starpu_data_handle_t h[3] = {c->p->h, c->q->h, c->hs};
  static const enum starpu_data_access_mode m[3] = {STARPU_R, STARPU_R, STARPU_RW};
  return cg_task(c, &c->dot, 3, h, m);
}

/* iteration k: x += alpha p, r -= alpha q, z = dinv r, then p = z + beta p */
static int cg_step(struct cg *c, struct femint_vector *x, int k)
{
  const starpu_data_handle_t hu[8] = {x->h, c->r->h, c->p->h, c->q->h, c->hs, c->hrr[k & 1],
                                      c->jacobi ? c->dinv->h : NULL, c->jacobi ? c->z->h : NULL};
  static const enum starpu_data_access_mode mu[8] = {STARPU_RW, STARPU_RW, STARPU_R, STARPU_R,
                                                     STARPU_RW, STARPU_W, STARPU_R, STARPU_W};
  FEMINT_CALL(cg_task(c, &c->update[k & 1], c->jacobi ? 8 : 6, hu, mu));
  const starpu_data_handle_t hd[3] = {c->p->h, c->jacobi ? c->z->h : c->r->h, c->hs};
  static const enum starpu_data_access_mode md[3] = {STARPU_RW, STARPU_R, STARPU_R};
  return cg_task(c, &c->direction[k & 1], 3, hd, md);
}

static void cg_release(struct cg *c)
{
  femint_vector_destroy(&c->r);
  femint_vector_destroy(&c->p);
  femint_vector_destroy(&c->q);
  femint_vector_destroy(&c->z);
  femint_vector_destroy(&c->dinv);
  if (c->hs) starpu_data_unregister(c->hs);
  for (int i = 0; i < 2; i++)
    if (c->hrr[i]) starpu_data_unregister(c->hrr[i]);
}

/* The first error a task of the solve recorded. */
static int cg_status(struct cg *c)
{
  const struct vec_arg *args[6] = {&c->start, &c->dot, &c->update[0], &c->update[1],
                                   &c->direction[0], &c->direction[1]};
  for (int i = 0; i < 6; i++)
    if (args[i]->status)
      return femint_seterr(c->op->ctx, args[i]->status, "femint_operator_cg: %s", args[i]->msg);
  return apply_status(c->op, "femint_operator_cg");
}

/* The work vectors, the inverse of the diagonal (Jacobi) and the scalars' handles. */
static int cg_setup(struct cg *c)
{
  femint_operator_t op = c->op;
  const struct femint_space *s = op->space;
  FEMINT_CALL(femint_vector_create((femint_space_t)s, &c->r));
  FEMINT_CALL(femint_vector_create((femint_space_t)s, &c->p));
  FEMINT_CALL(femint_vector_create((femint_space_t)s, &c->q));
  if (c->jacobi) {
    FEMINT_CALL(femint_vector_create((femint_space_t)s, &c->z));
    FEMINT_CALL(femint_vector_create((femint_space_t)s, &c->dinv));
    double *d;
    FEMINT_CALL(femint_vector_get_array(c->dinv, FEMINT_WRITE, &d));
    const int err = apply_diagonal(op, c->form, c->kind, d);
    for (int64_t i = 0; i < c->dinv->n && !err; i++) d[i] = d[i] > 0 ? 1.0 / d[i] : 0.0;
    femint_vector_restore_array(c->dinv, &d);
    FEMINT_CALL(err);
  }
  starpu_vector_data_register(&c->hs, STARPU_MAIN_RAM, (uintptr_t)c->s, VEC_NSLOT, sizeof(double));
  for (int i = 0; i < 2; i++)
    starpu_vector_data_register(&c->hrr[i], STARPU_MAIN_RAM, (uintptr_t)c->rr[i], 2, sizeof(double));
  const struct vec_arg base = {.ctx = op->ctx, .n = c->r->n, .jacobi = c->jacobi,
                               .kern = apply_vec_kernels(op), .counts = c->counts};
  c->start = base;
  c->start.op = VEC_CG_START;
  c->start.out = SLOT_RZ0;
  c->dot = base;
  c->dot.op = VEC_DOT;
  c->dot.out = SLOT_PQ;
  for (int k = 0; k < 2; k++) {
    const int cur = k ? SLOT_RZ1 : SLOT_RZ0, next = k ? SLOT_RZ0 : SLOT_RZ1;
    c->update[k] = base;
    c->update[k].op = VEC_CG_UPDATE;
    c->update[k].in0 = cur;
    c->update[k].out = next;
    c->direction[k] = base;
    c->direction[k].op = VEC_CG_DIRECTION;
    c->direction[k].in0 = next;
    c->direction[k].in1 = cur;
  }
  return 0;
}

/* The iterations from x: r = b - A x, then until |r| <= target (or max_it when fixed). */
static int cg_iterate(struct cg *c, struct femint_vector *b, struct femint_vector *x,
                      const struct femint_cg_options *o, struct femint_cg_result *res)
{
  femint_context_t ctx = c->op->ctx;
  const int n = apply_submit(c->op, c->form, c->kind, x->h, c->r, NULL, c->counts);
  if (n < 0) return n;
  const starpu_data_handle_t hs[6] = {b->h, c->r->h, c->p->h, c->hs,
                                      c->jacobi ? c->dinv->h : NULL, c->jacobi ? c->z->h : NULL};
  static const enum starpu_data_access_mode ms[6] = {STARPU_R, STARPU_RW, STARPU_W,
                                                     STARPU_RW, STARPU_R, STARPU_W};
  FEMINT_CALL(cg_task(c, &c->start, c->jacobi ? 6 : 4, hs, ms));
  if (starpu_data_acquire(c->hs, STARPU_R))
    return femint_seterr(ctx, FEMINT_ERUNTIME, "femint_operator_cg: cannot read the residual");
  res->bnorm = sqrt(c->s[SLOT_BB]);
  res->rnorm = res->rnorm0 = sqrt(c->s[SLOT_RR]);
  starpu_data_release(c->hs);
  FEMINT_CALL(cg_status(c));
  FEMINT_CHECK(isfinite(res->bnorm), ctx, FEMINT_EINVAL,
               "femint_operator_cg: b holds values that are not finite (|b| = %g)", res->bnorm);
  FEMINT_CHECK(isfinite(res->rnorm0), ctx, FEMINT_EINVAL,
               "femint_operator_cg: the initial guess x holds values that are not finite "
               "(|b - A x| = %g)",
               res->rnorm0);
  if (res->bnorm == 0) { /* the solution is zero */
    double *v;
    FEMINT_CALL(femint_vector_get_array(x, FEMINT_WRITE, &v));
    memset(v, 0, (size_t)x->n * sizeof *v);
    femint_vector_restore_array(x, &v);
    res->rnorm = 0;
    res->converged = 1;
    return 0;
  }
  const double target = o->rtol * res->bnorm;
  res->converged = res->rnorm <= target;
  if ((res->converged && !o->fixed) || o->max_it == 0) return 0;
  FEMINT_CALL(cg_apply(c));
  for (int k = 0; k < o->max_it; k++) {
    FEMINT_CALL(cg_step(c, x, k));
    if (k + 1 < o->max_it) FEMINT_CALL(cg_apply(c));
    if (starpu_data_acquire(c->hrr[k & 1], STARPU_R))
      return femint_seterr(ctx, FEMINT_ERUNTIME, "femint_operator_cg: cannot read the residual");
    const double rr = c->rr[k & 1][0], pq = c->rr[k & 1][1];
    starpu_data_release(c->hrr[k & 1]);
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
  int err = apply_prepare(op, form, &c.kind);
  if (!err) err = cg_setup(&c);
  const double t1 = femint_now();
  r->t_setup = t1 - t0;
  if (!err) err = cg_iterate(&c, b, x, o, r);
  r->t_solve = femint_now() - t1;
  /* the tasks still in flight end before their data go */
  cg_release(&c);
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
