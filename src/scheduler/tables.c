/* The reference elements of a context and their tables registered with StarPU, made on first
 * use and kept until the context ends: H1 phi and quadrature points, H(curl) values, curls and
 * geometric derivatives (host/hcurl.c). */
#include <stdlib.h>
#include <string.h>

#include "host/refel_tet.h"
#include "scheduler.h"

int femint_context_refel(femint_context_t ctx, int shape, int family, int order,
                         const struct refel **re)
{
  FEMINT_CHECK(shape > 0 && shape < FEMINT_NSHAPE && refel_has_family(shape, family), ctx,
               FEMINT_EINVAL, "no reference element of shape %d and family %d", shape, family);
  FEMINT_CHECK(order >= 1 && order <= refel_max_order(shape, family), ctx, FEMINT_EORDER,
               "order %d is outside 1..%d", order, refel_max_order(shape, family));
  int err = 0;
  struct refel **slot = &ctx->refel[shape][family - 1][order];
  pthread_mutex_lock(&ctx->lock);
  if (!*slot) err = refel_create(shape, family, order, slot);
  pthread_mutex_unlock(&ctx->lock);
  if (err) return femint_seterr(ctx, err, "%s", femint_thread_error());
  *re = *slot;
  return 0;
}

int femint_context_phi(femint_context_t ctx, int shape, int order, int precision,
                       starpu_data_handle_t *h)
{
  const struct refel *re;
  FEMINT_CALL(femint_context_refel(ctx, shape, FEMINT_H1, order, &re));
  int k = precision == FEMINT_SINGLE;
  starpu_data_handle_t *slot = &ctx->phi_handle[shape][order][k];
  pthread_mutex_lock(&ctx->lock);
  if (!*slot) {
    size_t n = (size_t)re->nq * (re->dim + 1) * re->nsh;
    if (k)
      starpu_vector_data_register(slot, STARPU_MAIN_RAM, (uintptr_t)re->phi_f, n, sizeof(float));
    else
      starpu_vector_data_register(slot, STARPU_MAIN_RAM, (uintptr_t)re->phi, n, sizeof(double));
  }
  *h = *slot;
  pthread_mutex_unlock(&ctx->lock);
  return 0;
}

int femint_context_quad(femint_context_t ctx, int shape, int order, int precision,
                        starpu_data_handle_t *h)
{
  const struct refel *re;
  FEMINT_CALL(femint_context_refel(ctx, shape, FEMINT_H1, order, &re));
  const int k = precision == FEMINT_SINGLE, dim = re->dim;
  int err = 0;
  starpu_data_handle_t *slot = &ctx->quad_handle[shape][order][k];
  pthread_mutex_lock(&ctx->lock);
  if (!*slot) {
    size_t rs = k ? sizeof(float) : sizeof(double);
    void *q = malloc((size_t)re->nq * 4 * rs);
    if (!q) {
      err = FEMINT_ENOMEM;
    } else {
      /* [nq][4]: the reference coordinates (zero past the dimension), then the weight */
      for (int i = 0; i < re->nq; i++)
        for (int c = 0; c < 4; c++) {
          double v = c == 3 ? re->wq[i] : c < dim ? re->xq[dim * i + c] : 0;
          if (k) ((float *)q)[4 * i + c] = (float)v;
          else ((double *)q)[4 * i + c] = v;
        }
      ctx->quad[shape][order][k] = q;
      starpu_vector_data_register(slot, STARPU_MAIN_RAM, (uintptr_t)q, (uint32_t)re->nq * 4, rs);
    }
  }
  *h = *slot;
  pthread_mutex_unlock(&ctx->lock);
  return err ? femint_seterr(ctx, err, "quadrature of order %d: out of memory", order) : 0;
}

/* Make table t from n doubles that fill(re, nnode, d) writes, in the precision, and register it;
 * nothing when it exists. Called with the context's lock held. Returns 0 or FEMINT_ENOMEM. */
static int table_make(struct ref_table *t, const struct refel *re, int nnode, size_t n, int single,
                      void (*fill)(const struct refel *, int, double *))
{
  if (t->h) return 0;
  double *d = malloc(n * sizeof *d);
  float *f = single && d ? malloc(n * sizeof *f) : NULL;
  if (!d || (single && !f)) {
    free(d);
    return FEMINT_ENOMEM;
  }
  fill(re, nnode, d);
  if (single) {
    for (size_t i = 0; i < n; i++) f[i] = (float)d[i];
    free(d);
    t->data = f;
  } else {
    t->data = d;
  }
  starpu_vector_data_register(&t->h, STARPU_MAIN_RAM, (uintptr_t)t->data, (uint32_t)n,
                              single ? sizeof(float) : sizeof(double));
  return 0;
}

int femint_context_geom_table(femint_context_t ctx, int shape, int order, int nnode, int precision,
                              starpu_data_handle_t *h, const void **data)
{
  const struct refel *re;
  FEMINT_CALL(femint_context_refel(ctx, shape, FEMINT_H1, order, &re));
  const int single = precision == FEMINT_SINGLE, curved = nnode > topo_of(shape)->nv;
  struct ref_table *t = &ctx->geom[shape][order][curved][single];
  pthread_mutex_lock(&ctx->lock);
  const int err = table_make(t, re, nnode, geom_table_size(re, nnode), single, geom_table_fill);
  *h = t->h;
  if (data) *data = t->data;
  pthread_mutex_unlock(&ctx->lock);
  return err ? femint_seterr(ctx, err, "geometry table of order %d: out of memory", order) : 0;
}

int femint_context_hcurl_tables(femint_context_t ctx, int order, int nnode, int precision,
                                starpu_data_handle_t *h)
{
  const struct refel *re;
  FEMINT_CALL(femint_context_refel(ctx, FEMINT_TET, FEMINT_HCURL, order, &re));
  const int single = precision == FEMINT_SINGLE;
  struct ref_table *t = &ctx->hcurl[order][nnode == 10][single];
  pthread_mutex_lock(&ctx->lock);
  const int err = table_make(t, re, nnode, hcurl_table_size(re, nnode), single, hcurl_table_fill);
  *h = t->h;
  pthread_mutex_unlock(&ctx->lock);
  return err ? femint_seterr(ctx, err, "H(curl) tables of order %d: out of memory", order) : 0;
}

/* Unregister and free a table. */
static void table_release(struct ref_table *t)
{
  if (t->h) starpu_data_unregister(t->h);
  free(t->data);
  t->h = NULL;
  t->data = NULL;
}

void tables_release(femint_context_t ctx)
{
  for (int sh = 0; sh < FEMINT_NSHAPE; sh++)
    for (int p = 0; p <= FEMINT_MAX_ORDER; p++) {
      for (int k = 0; k < 2; k++) {
        if (ctx->phi_handle[sh][p][k]) starpu_data_unregister(ctx->phi_handle[sh][p][k]);
        if (ctx->quad_handle[sh][p][k]) starpu_data_unregister(ctx->quad_handle[sh][p][k]);
        free(ctx->quad[sh][p][k]);
        for (int c = 0; c < 2; c++) table_release(&ctx->geom[sh][p][c][k]);
      }
      for (int f = 0; f < 2; f++) refel_destroy(&ctx->refel[sh][f][p]);
    }
  for (int p = 0; p <= FEMINT_MAX_ORDER; p++)
    for (int c = 0; c < 2; c++)
      for (int k = 0; k < 2; k++) table_release(&ctx->hcurl[p][c][k]);
}
