/* femint_vector_t: a vector of a space's DOFs in main memory, registered with StarPU so that
 * the tasks of the matrix-free verbs move it to where they run and leave it there; the caller
 * gets its values through get/restore (which wait for those tasks). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "operator.h"

int femint_vector_create(femint_space_t space, femint_vector_t *v)
{
  FEMINT_CHECK(v, space ? space->ctx : NULL, FEMINT_EINVAL, "femint_vector_create: v is NULL");
  *v = NULL;
  FEMINT_CHECK(space, NULL, FEMINT_EINVAL, "femint_vector_create: space is NULL");
  return vector_create_n(space, space->nmode * space->ncomp, v);
}

int vector_create_n(const struct femint_space *space, int64_t n, struct femint_vector **v)
{
  femint_context_t ctx = space->ctx;
  *v = NULL;
  FEMINT_CALL(starpu_size_check(ctx, n, "femint_vector_create", "values"));
  struct femint_vector *w = calloc(1, sizeof *w);
  FEMINT_CHECK(w, ctx, FEMINT_ENOMEM, "femint_vector_create: out of memory");
  w->ctx = ctx;
  w->space = space;
  w->n = n;
  if (femint_host_alloc(ctx, ((size_t)w->n + 1) * sizeof *w->a, (void **)&w->a)) {
    free(w);
    return femint_seterr(ctx, FEMINT_ENOMEM, "femint_vector_create: out of memory for %lld values",
                         (long long)n);
  }
  memset(w->a, 0, ((size_t)w->n + 1) * sizeof *w->a);
  /* StarPU takes no empty vector: one value more than the space's */
  starpu_vector_data_register(&w->h, STARPU_MAIN_RAM, (uintptr_t)w->a, (uint32_t)(w->n + 1),
                              sizeof(double));
  *v = w;
  return 0;
}

int femint_vector_destroy(femint_vector_t *v)
{
  if (!v || !*v) return 0;
  struct femint_vector *w = *v;
  if (w->nparts) starpu_data_partition_clean(w->h, (unsigned)w->nparts, w->parts);
  free(w->parts);
  if (w->h) starpu_data_unregister_no_coherency(w->h);
  femint_host_free(w->ctx, w->a);
  free(w);
  *v = NULL;
  return 0;
}

int vector_parts(struct femint_vector *v, int nparts)
{
  if (v->nparts == nparts) return 0;
  FEMINT_CHECK(!v->nparts, v->ctx, FEMINT_ESTATE,
               "a vector planned in %d parts is asked for %d", v->nparts, nparts);
  const int64_t nmode = v->space->nmode, nc = v->space->ncomp;
  long *len = malloc((size_t)nparts * sizeof *len);
  v->parts = calloc((size_t)nparts, sizeof *v->parts);
  if (!len || !v->parts) {
    free(len);
    free(v->parts);
    v->parts = NULL;
    return femint_seterr(v->ctx, FEMINT_ENOMEM, "out of memory for a vector's parts");
  }
  for (int i = 0; i < nparts; i++) /* the value past the space's goes with the last part */
    len[i] = (long)((vector_part_first(nmode, i + 1, nparts) - vector_part_first(nmode, i, nparts)) *
                    nc) +
             (i == nparts - 1);
  struct starpu_data_filter f = {.filter_func = starpu_vector_filter_list_long,
                                 .nchildren = (unsigned)nparts, .filter_arg_ptr = len};
  starpu_data_partition_plan(v->h, &f, v->parts);
  free(len);
  v->nparts = nparts;
  return 0;
}

int64_t femint_vector_size(femint_vector_t v) { return v ? v->n : -1; }

int femint_vector_get_array(femint_vector_t v, int mode, double **values)
{
  FEMINT_CHECK(v && values, v ? v->ctx : NULL, FEMINT_EINVAL,
               "femint_vector_get_array: v or values is NULL");
  FEMINT_CHECK(mode == FEMINT_READ || mode == FEMINT_WRITE || mode == FEMINT_READWRITE, v->ctx,
               FEMINT_EINVAL, "femint_vector_get_array: mode %d (FEMINT_READ, _WRITE or _READWRITE)",
               mode);
  FEMINT_CHECK(!v->lent, v->ctx, FEMINT_ESTATE,
               "femint_vector_get_array: the values are already lent (restore them first)");
  const enum starpu_data_access_mode m =
      mode == FEMINT_READ ? STARPU_R : mode == FEMINT_WRITE ? STARPU_W : STARPU_RW;
  if (starpu_data_acquire(v->h, m))
    return femint_seterr(v->ctx, FEMINT_ERUNTIME, "femint_vector_get_array: cannot acquire the values");
  v->lent = mode;
  *values = v->a;
  return 0;
}

int femint_vector_restore_array(femint_vector_t v, double **values)
{
  FEMINT_CHECK(v && values, v ? v->ctx : NULL, FEMINT_EINVAL,
               "femint_vector_restore_array: v or values is NULL");
  FEMINT_CHECK(v->lent && *values == v->a, v->ctx, FEMINT_ESTATE,
               "femint_vector_restore_array: these values were not lent by this vector");
  starpu_data_release(v->h);
  v->lent = 0;
  *values = NULL;
  return 0;
}

int femint_vector_set_values(femint_vector_t v, const double *values)
{
  FEMINT_CHECK(values, v ? v->ctx : NULL, FEMINT_EINVAL, "femint_vector_set_values: values is NULL");
  double *a;
  FEMINT_CALL(femint_vector_get_array(v, FEMINT_WRITE, &a));
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < v->n; i++) a[i] = values[i];
  a[v->n] = 0;
  return femint_vector_restore_array(v, &a);
}

int femint_vector_get_values(femint_vector_t v, double *values)
{
  FEMINT_CHECK(values, v ? v->ctx : NULL, FEMINT_EINVAL, "femint_vector_get_values: values is NULL");
  double *a;
  FEMINT_CALL(femint_vector_get_array(v, FEMINT_READ, &a));
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < v->n; i++) values[i] = a[i];
  return femint_vector_restore_array(v, &a);
}

/* Whether a vector belongs to the operator's space (its DOFs). */
int vector_check(const struct femint_operator *op, const struct femint_vector *v, const char *who,
                 const char *name)
{
  FEMINT_CHECK(v, op->ctx, FEMINT_EINVAL, "%s: %s is NULL", who, name);
  FEMINT_CHECK(v->n == op->space->nmode * op->space->ncomp, op->ctx, FEMINT_EINVAL,
               "%s: %s has %lld values, the operator's space %lld", who, name, (long long)v->n,
               (long long)(op->space->nmode * op->space->ncomp));
  FEMINT_CHECK(!v->lent, op->ctx, FEMINT_ESTATE,
               "%s: the values of %s are lent (femint_vector_restore_array first)", who, name);
  return 0;
}
