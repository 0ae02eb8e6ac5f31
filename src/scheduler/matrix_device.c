/* Assembled matrices whose values stay on the device that summed them
 * (femint_operator_options.matrix_on_device): nothing comes back after the sums; y = A x runs
 * there on vectors that stay there (femint_matrix_mult_vector), and the values come to main
 * memory only when the caller reads them (femint_matrix_csr, femint_matrix_mult, Matrix Market
 * output) or when the context ends. The structure's row pointers and columns go to the device
 * once per operator (struct shape_dev, shared by the operator and its matrices, counted). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codelets/kernels.h"
#include "operator.h"

/* The row pointers and columns of a structure, registered with StarPU over its arrays in main
 * memory: the first product copies them to the device, where they stay. */
struct shape_dev {
  int refs;
  femint_context_t ctx;
  starpu_data_handle_t h_rowptr, h_colind; /* NULL once the context has let them go */
  struct cl_program_entry *spmv[FEMINT_MAX_CL_DEVICES]; /* csr_spmv, made by the first product */
  struct shape_dev *next;                  /* the context's list */
};

/* A matrix's values on device dev (memory node node, its worker): h_val is registered over the
 * matrix's values in main memory, its only valid copy on the device. */
struct matrix_dev {
  femint_context_t ctx;
  struct femint_matrix *A;
  int dev, worker;
  unsigned node;
  starpu_data_handle_t h_val;
  struct shape_dev *sd;
  struct matrix_dev *next; /* the context's list */
};

struct shape_dev *shape_dev_get(femint_context_t ctx, const struct csr_shape *s)
{
  struct shape_dev *sd = calloc(1, sizeof *sd);
  if (!sd) return NULL;
  sd->refs = 1;
  sd->ctx = ctx;
  starpu_vector_data_register(&sd->h_rowptr, STARPU_MAIN_RAM, (uintptr_t)s->rowptr,
                              (uint32_t)(s->n + 1), sizeof(int64_t));
  starpu_vector_data_register(&sd->h_colind, STARPU_MAIN_RAM, (uintptr_t)s->colind,
                              (uint32_t)(s->nnz > 0 ? s->nnz : 1), sizeof(int64_t));
  pthread_mutex_lock(&ctx->lock);
  sd->next = ctx->shape_devs;
  ctx->shape_devs = sd;
  pthread_mutex_unlock(&ctx->lock);
  return sd;
}

/* The device's copies let go (read-only: nothing is written back). */
static void shape_dev_unregister(struct shape_dev *sd)
{
  if (sd->h_rowptr) starpu_data_unregister_no_coherency(sd->h_rowptr);
  if (sd->h_colind) starpu_data_unregister_no_coherency(sd->h_colind);
  sd->h_rowptr = sd->h_colind = NULL;
}

void shape_dev_unref(struct shape_dev **psd)
{
  struct shape_dev *sd = *psd;
  *psd = NULL;
  if (!sd) return;
  femint_context_t ctx = sd->ctx;
  pthread_mutex_lock(&ctx->lock);
  const int last = --sd->refs == 0;
  if (last)
    for (struct shape_dev **l = &ctx->shape_devs; *l; l = &(*l)->next)
      if (*l == sd) {
        *l = sd->next;
        break;
      }
  pthread_mutex_unlock(&ctx->lock);
  if (!last) return;
  shape_dev_unregister(sd);
  free(sd);
}

/* The matrix's record taken off the context's list and freed, its handle and structure let go. */
static void matrix_dev_end(struct femint_matrix *A)
{
  struct matrix_dev *md = A->dev;
  femint_context_t ctx = md->ctx;
  pthread_mutex_lock(&ctx->lock);
  for (struct matrix_dev **l = &ctx->dev_matrices; *l; l = &(*l)->next)
    if (*l == md) {
      *l = md->next;
      break;
    }
  pthread_mutex_unlock(&ctx->lock);
  if (md->h_val) starpu_data_unregister_no_coherency(md->h_val);
  shape_dev_unref(&md->sd);
  free(md);
  A->dev = NULL;
  A->dops = NULL;
}

static int matrix_dev_fetch(struct femint_matrix *A)
{
  struct matrix_dev *md = A->dev;
  const int err = download_bounced(md->ctx, md->dev, md->node, md->h_val, A->values,
                                   (size_t)A->shape->nnz * sizeof(double), "matrix values");
  matrix_dev_end(A);
  if (err) { /* the device's copy is gone with the handle: the values are lost */
    free(A->values);
    A->values = NULL;
  }
  return err;
}

static const struct matrix_device_ops matrix_dev_ops = {matrix_dev_fetch, matrix_dev_end};

int matrix_device_adopt(femint_context_t ctx, struct femint_matrix *A, struct shape_dev *sd,
                        starpu_data_handle_t h_val, int dev, int worker, unsigned node)
{
  struct matrix_dev *md = calloc(1, sizeof *md);
  FEMINT_CHECK(md, ctx, FEMINT_ENOMEM, "matrix on the device: out of memory");
  *md = (struct matrix_dev){.ctx = ctx, .A = A, .dev = dev, .worker = worker, .node = node,
                            .h_val = h_val, .sd = sd};
  pthread_mutex_lock(&ctx->lock);
  sd->refs++;
  md->next = ctx->dev_matrices;
  ctx->dev_matrices = md;
  pthread_mutex_unlock(&ctx->lock);
  A->dops = &matrix_dev_ops;
  A->dev = md;
  return 0;
}

void matrix_device_release_all(femint_context_t ctx)
{
  /* every matrix's values into main memory (a matrix may outlive its context) */
  while (ctx->dev_matrices) {
    struct femint_matrix *A = ctx->dev_matrices->A;
    if (matrix_dev_fetch(A))
      fprintf(stderr,
              "femint: warning: femint_finalize: the values of a matrix of %lld non-zeros could "
              "not come back from its device (%s); the matrix has none now\n",
              (long long)A->shape->nnz, femint_last_error(ctx));
  }
  /* the operators' structures, whose owners may outlive the context */
  pthread_mutex_lock(&ctx->lock);
  for (struct shape_dev *sd = ctx->shape_devs; sd; sd = sd->next) shape_dev_unregister(sd);
  pthread_mutex_unlock(&ctx->lock);
}

int femint_matrix_mult_vector(femint_matrix_t A, femint_vector_t x, femint_vector_t y)
{
  FEMINT_CHECK(A && x && y, x ? x->ctx : y ? y->ctx : NULL, FEMINT_EINVAL,
               "femint_matrix_mult_vector: NULL argument");
  femint_context_t ctx = x->ctx;
  const int64_t n = A->shape->n;
  FEMINT_CHECK(x->n == n && y->n == n, ctx, FEMINT_EINVAL,
               "femint_matrix_mult_vector: the matrix has %lld rows, x %lld values and y %lld",
               (long long)n, (long long)x->n, (long long)y->n);
  FEMINT_CHECK(x != y, ctx, FEMINT_EINVAL, "femint_matrix_mult_vector: x and y are one vector");
  FEMINT_CHECK(!x->lent && !y->lent, ctx, FEMINT_ESTATE,
               "femint_matrix_mult_vector: a vector's array is lent (femint_vector_get_array "
               "without femint_vector_restore_array)");
  struct matrix_dev *md = A->dev;
  if (!md) { /* in main memory: the vectors' values there too */
    double *xa, *ya;
    FEMINT_CALL(femint_vector_get_array(x, FEMINT_READ, &xa));
    int err = femint_vector_get_array(y, FEMINT_WRITE, &ya);
    if (!err) {
      err = femint_matrix_mult(A, xa, ya);
      femint_vector_restore_array(y, &ya);
    }
    femint_vector_restore_array(x, &xa);
    return err;
  }
  FEMINT_CHECK(md->sd->h_rowptr, ctx, FEMINT_ESTATE,
               "femint_matrix_mult_vector: the matrix's structure left its device with the "
               "context");
  int err = 0;
  if (!md->sd->spmv[md->dev]) { /* once per structure: the text read and hashed */
    char *src = femint_kernel_text("coo.cl");
    FEMINT_CHECK(src, ctx, FEMINT_ENOMEM, "femint_matrix_mult_vector: out of memory");
    err = femint_context_program(ctx, md->dev, src, "-DREAL=double -DFEMINT_FP64", "csr_spmv",
                                 &md->sd->spmv[md->dev]);
    free(src);
    if (err) return err;
  }
  struct spmv_arg arg = {.ctx = ctx, .n = n, .program = md->sd->spmv};
  struct starpu_task *t = starpu_task_create();
  t->cl = &femint_cl_spmv;
  t->handles[0] = md->sd->h_rowptr;
  t->handles[1] = md->sd->h_colind;
  t->handles[2] = md->h_val;
  t->handles[3] = x->h;
  t->handles[4] = y->h;
  t->cl_arg = &arg;
  t->where = STARPU_OPENCL;
  t->execute_on_a_specific_worker = 1;
  t->workerid = (unsigned)md->worker;
  struct starpu_task *slot = NULL;
  err = task_submit(ctx, t, &slot, "femint_matrix_mult_vector");
  if (slot && starpu_task_wait(slot) && !err)
    err = femint_seterr(ctx, FEMINT_ERUNTIME, "femint_matrix_mult_vector: the task failed");
  if (slot) starpu_task_destroy(slot);
  if (!err && arg.status) err = femint_seterr(ctx, arg.status, "%s", arg.msg);
  return err;
}
