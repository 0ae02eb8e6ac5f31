/* The CSR values of a pattern summed block of rows by block of rows (femint_operator_assemble
 * through coordinates, the Jacobian). Each block's sum task reads only the parts (batches,
 * chunks) of the element matrices whose cells touch its rows, so that it runs as soon as those
 * are integrated, and its values leave the device as soon as it is summed: the bus carries the
 * values while the later parts integrate and sum, instead of after all of them. Also the rows cut
 * into blocks of about equal non-zeros (the assembly by rows shares it) and the values' way
 * back through pinned bounce buffers. */
#include <stdlib.h>
#include <string.h>

#include "codelets/kernels.h"
#include "operator.h"

int rows_cut(const int64_t *rowptr, int64_t nrows, int ne, int nblock, int64_t *block_row,
             int *row_block)
{
  const int64_t nnz = rowptr[nrows];
  if (nblock > nrows / ne) nblock = (int)(nrows / ne);
  if (nblock < 1) nblock = 1;
  int k = 0;
  block_row[0] = 0;
  for (int64_t r = 0; r < nrows; r += ne) {
    if (k + 1 < nblock && rowptr[r] >= (k + 1) * (nnz / nblock) && r > block_row[k])
      block_row[++k] = r;
    for (int a = 0; a < ne; a++) row_block[r + a] = k;
  }
  block_row[k + 1] = nrows;
  return k + 1;
}

int sum_block_count(int64_t nnz, int nparts)
{
  const char *env = getenv("FEMINT_SUM_BLOCK");
  const int64_t per = env && atoll(env) > 0 ? atoll(env) : (int64_t)1 << 23;
  const int n = nnz / per >= 16 ? 16 : nnz / per > 1 ? (int)(nnz / per) : 1;
  return n < nparts ? n : nparts;
}

void sum_blocks_free(struct sum_blocks *sb)
{
  free(sb->nz);
  free(sb->dep_off);
  free(sb->dep);
  free(sb->part_voff);
  memset(sb, 0, sizeof *sb);
}

int sum_blocks_make(const struct femint_space *s, const int *cells, int nparts,
                    const int *part_first, const int *part_ncell, const int64_t *part_voff,
                    const int64_t *rowptr, int nblock, struct sum_blocks *sb)
{
  memset(sb, 0, sizeof *sb);
  const int ne = s->ncomp;
  const int64_t nrows = s->nmode * ne;
  if (rowptr[nrows] == 0 || nparts == 0) return 0; /* no values: no sums */
  int64_t *block_row = malloc(((size_t)nblock + 2) * sizeof *block_row);
  int *row_block = malloc(((size_t)nrows + 1) * sizeof *row_block);
  unsigned char *mark = NULL;
  int err = FEMINT_ENOMEM;
  if (!block_row || !row_block) goto done;
  sb->n = rows_cut(rowptr, nrows, ne, nblock, block_row, row_block);
  const size_t nm = (size_t)sb->n * (size_t)nparts;
  sb->nz = malloc(((size_t)sb->n + 1) * sizeof *sb->nz);
  sb->dep_off = calloc((size_t)sb->n + 1, sizeof *sb->dep_off);
  sb->part_voff = malloc(((size_t)nparts + 1) * sizeof *sb->part_voff);
  mark = calloc(nm ? nm : 1, 1); /* [block][part] */
  if (!sb->nz || !sb->dep_off || !sb->part_voff || !mark) goto done;
  /* blocks of no values (empty rows at the end, outside a part's) left out: their rows are
   * empty, so they read no part and write nothing */
  int kept = 0;
  for (int b = 0; b < sb->n; b++) {
    const int64_t lo = rowptr[block_row[b]], hi = rowptr[block_row[b + 1]];
    if (hi > lo) sb->nz[kept++] = lo;
    for (int64_t r = block_row[b]; r < block_row[b + 1]; r++) row_block[r] = kept ? kept - 1 : 0;
  }
  sb->nz[kept] = rowptr[nrows];
  sb->n = kept;
  memcpy(sb->part_voff, part_voff, (size_t)nparts * sizeof *part_voff);
  /* the blocks of the rows each part's cells touch (rows of no value, outside a part of a split
   * assembly, none) */
  int64_t ndep = 0;
  for (int j = 0; j < nparts; j++)
    for (int k = part_first[j]; k < part_first[j] + part_ncell[j]; k++)
      for (int64_t l = s->cell_off[cells[k]]; l < s->cell_off[cells[k] + 1]; l++) {
        const int64_t r = s->cell_mode[l] * ne;
        if (s->cell_mode[l] < 0 || rowptr[r + ne] == rowptr[r]) continue;
        unsigned char *m = &mark[(size_t)row_block[r] * nparts + j];
        ndep += !*m;
        *m = 1;
      }
  sb->dep = malloc(((size_t)ndep + 1) * sizeof *sb->dep);
  if (!sb->dep) goto done;
  int64_t d = 0;
  for (int b = 0; b < sb->n; b++) {
    for (int j = 0; j < nparts; j++)
      if (mark[(size_t)b * nparts + j]) sb->dep[d++] = j;
    sb->dep_off[b + 1] = (int)d;
  }
  err = 0;
done:
  free(block_row);
  free(row_block);
  free(mark);
  if (err) sum_blocks_free(sb);
  /* Where the first block waits for one of the last quarter of the parts (cells of several
   * orders side by side, their groups integrated one after the other), no block is summed much
   * before the end: one block, one task. */
  if (!err && sb->n > 1 && sb->dep[sb->dep_off[1] - 1] >= nparts - nparts / 4) {
    sum_blocks_free(sb);
    return sum_blocks_make(s, cells, nparts, part_first, part_ncell, part_voff, rowptr, 1, sb);
  }
  return err;
}

int sum_call_submit(femint_context_t ctx, struct sum_call *sc, const struct sum_blocks *sb,
                    const struct sum_arg *proto, starpu_data_handle_t perm,
                    starpu_data_handle_t seg, starpu_data_handle_t parts, unsigned node,
                    void *val, size_t vs, int worker, struct starpu_task **slots,
                    const char *who)
{
  /* one block reads every part: the vector gathered where it lives, once they are all made */
  const int whole = sb->n == 1;
  if (whole && starpu_data_get_nb_children(parts) > 0) starpu_data_unpartition(parts, node);
  *sc = (struct sum_call){.n = sb->n, .vs = vs, .val = val};
  sc->h = calloc((size_t)sb->n + 1, sizeof *sc->h);
  sc->arg = calloc((size_t)sb->n + 1, sizeof *sc->arg);
  if (!sc->h || !sc->arg) {
    sc->n = 0;
    return femint_seterr(ctx, FEMINT_ENOMEM, "%s: out of memory for the sums", who);
  }
  int err = 0;
  for (int b = 0; b < sb->n && !err; b++) {
    const int nd = whole ? 1 : sb->dep_off[b + 1] - sb->dep_off[b];
    if (nd == 0) { /* a block of values reads some part (sum_blocks_make) */
      err = femint_seterr(ctx, FEMINT_EINVAL, "%s: block %d of the sums reads no element matrix",
                          who, b);
      break;
    }
    const int *dep = whole ? NULL : sb->dep + sb->dep_off[b];
    starpu_vector_data_register(&sc->h[b], STARPU_MAIN_RAM,
                                (uintptr_t)((char *)val + sb->nz[b] * vs),
                                (uint32_t)(sb->nz[b + 1] - sb->nz[b]), vs);
    sc->arg[b] = *proto;
    sc->arg[b].nnz = sb->nz[b + 1] - sb->nz[b];
    sc->arg[b].u0 = sb->nz[b];
    sc->arg[b].voff0 = whole ? 0 : sb->part_voff[dep[0]];
    /* StarPU frees a task's dyn_handles and dyn_modes with the task */
    starpu_data_handle_t *dh = malloc((3 + (size_t)nd) * sizeof *dh);
    enum starpu_data_access_mode *dm = malloc((3 + (size_t)nd) * sizeof *dm);
    struct starpu_task *t = dh && dm ? starpu_task_create() : NULL;
    if (!t) {
      free(dh), free(dm);
      err = femint_seterr(ctx, FEMINT_ENOMEM, "%s: out of memory for the sums", who);
      break;
    }
    dh[0] = perm, dh[1] = seg, dh[2] = sc->h[b];
    dm[0] = dm[1] = STARPU_R, dm[2] = STARPU_W;
    for (int i = 0; i < nd; i++) {
      dh[3 + i] = whole ? parts : starpu_data_get_sub_data(parts, 1, dep[i]);
      dm[3 + i] = STARPU_R;
    }
    t->cl = &femint_cl_sum;
    t->nbuffers = 3 + nd;
    t->dyn_handles = dh;
    t->dyn_modes = dm;
    t->cl_arg = &sc->arg[b];
    /* ahead of the integrations still waiting: its values may go */
    t->priority = STARPU_MAX_PRIO;
    t->where = worker >= 0 ? STARPU_OPENCL : STARPU_CPU;
    if (worker >= 0) {
      t->execute_on_a_specific_worker = 1;
      t->workerid = (unsigned)worker;
    }
    err = task_submit(ctx, t, &slots[b], who);
  }
  return err;
}

/* Bring pieces i < n of the values, each the copy of h[i] on device dev (node) once its sum is
 * done, to host[i] (bytes[i]), on a command queue of the calling thread's, chunk by chunk with
 * two chunks under way (a long copy held up the transfers that the device's next tasks wait for:
 * the integrations paused while the values came back); the chunks of one piece follow those of
 * the one before without a pause. Into pinned memory (pinned) straight, at the bus's rate; else
 * through two pinned buffers, the device filling one while the calling thread's team copies the
 * other, near the rate of pinned memory without pinning the destination (StarPU's own copy into
 * pageable memory goes through the driver's thread at about 7 GB/s on the H200). Returns 0 or
 * FEMINT_EOPENCL / FEMINT_ENOMEM. */
static int bounce_pieces(femint_context_t ctx, int dev, unsigned node, int n,
                         const starpu_data_handle_t *h, char *const *host, const size_t *bytes,
                         int pinned, const char *what)
{
  const size_t chunk = FEMINT_BOUNCE_BYTES / 2;
  size_t nchunk = 0;
  for (int p = 0; p < n; p++) nchunk += (bytes[p] + chunk - 1) / chunk;
  int *cp = malloc((nchunk + 1) * sizeof *cp); /* each chunk's piece and place in it */
  size_t *cat = malloc((nchunk + 1) * sizeof *cat);
  void *bounce = NULL;
  if (!cp || !cat || (!pinned && femint_host_alloc(ctx, 2 * chunk, &bounce))) {
    free(cp), free(cat);
    return femint_seterr(ctx, FEMINT_ENOMEM, "%s: out of memory for the values' way back", what);
  }
  for (int p = 0, i = 0; p < n; p++)
    for (size_t at = 0; at < bytes[p]; at += chunk, i++) cp[i] = p, cat[i] = at;
  cl_context clctx;
  cl_device_id id;
  cl_int cerr = CL_SUCCESS;
  starpu_opencl_get_context(dev, &clctx);
  starpu_opencl_get_device(dev, &id);
  cl_command_queue q = clCreateCommandQueue(clctx, id, 0, &cerr);
  cl_event ev[2] = {NULL, NULL};
  int held = 0; /* pieces acquired */
  for (size_t i = 0; q && i <= nchunk && cerr == CL_SUCCESS; i++) {
    if (i < nchunk) {
      const int p = cp[i];
      while (held <= p) { /* its sum done, the piece is read on the device */
        starpu_data_acquire_on_node(h[held], (int)node, STARPU_R);
        femint_trace("sums: piece %d of %d summed, on its way back", held, n);
        held++;
      }
      const struct starpu_vector_interface *vi = starpu_data_get_interface_on_node(h[p], node);
      const size_t len = bytes[p] - cat[i] < chunk ? bytes[p] - cat[i] : chunk;
      char *to = pinned ? host[p] + cat[i] : (char *)bounce + (i % 2) * chunk;
      cerr = clEnqueueReadBuffer(q, (cl_mem)vi->dev_handle, CL_FALSE, vi->offset + cat[i], len,
                                 to, 0, NULL, &ev[i % 2]);
      if (cerr == CL_SUCCESS) cerr = clFlush(q);
    }
    if (i == 0 || cerr != CL_SUCCESS) continue;
    const size_t j = i - 1;
    const int p = cp[j];
    const size_t len = bytes[p] - cat[j] < chunk ? bytes[p] - cat[j] : chunk;
    cerr = clWaitForEvents(1, &ev[j % 2]);
    clReleaseEvent(ev[j % 2]);
    ev[j % 2] = NULL;
    if (pinned) continue;
    const char *src = (const char *)bounce + (j % 2) * chunk;
    char *dst = host[p] + cat[j];
    const int64_t npage = (int64_t)((len + 65535) / 65536);
#pragma omp parallel for num_threads(femint_host_threads(ctx)) schedule(static)
    for (int64_t k = 0; k < npage; k++) {
      const size_t from = (size_t)k * 65536;
      memcpy(dst + from, src + from, len - from < 65536 ? len - from : 65536);
    }
  }
  for (int k = 0; k < 2; k++)
    if (ev[k]) {
      clWaitForEvents(1, &ev[k]);
      clReleaseEvent(ev[k]);
    }
  for (int p = 0; p < held; p++) starpu_data_release_on_node(h[p], (int)node);
  if (q) clReleaseCommandQueue(q);
  if (bounce) femint_host_free(ctx, bounce);
  free(cp);
  free(cat);
  FEMINT_CHECK(q && cerr == CL_SUCCESS, ctx, FEMINT_EOPENCL,
               "%s: the CSR values from OpenCL device %d: error %d", what, dev,
               q ? cerr : -1);
  return 0;
}

int download_bounced(femint_context_t ctx, int dev, unsigned node, starpu_data_handle_t h,
                     void *host, size_t n, const char *what)
{
  char *dst = host;
  return bounce_pieces(ctx, dev, node, 1, &h, &dst, &n, 0, what);
}

int sum_call_download(femint_context_t ctx, struct sum_call *sc, int dev, unsigned node,
                      const struct sum_blocks *sb, int pinned, const char *who)
{
  char **host = malloc(((size_t)sc->n + 1) * sizeof *host);
  size_t *bytes = malloc(((size_t)sc->n + 1) * sizeof *bytes);
  int err = host && bytes ? 0 : femint_seterr(ctx, FEMINT_ENOMEM, "%s: out of memory", who);
  for (int b = 0; b < sc->n && !err; b++) {
    host[b] = (char *)sc->val + sb->nz[b] * sc->vs;
    bytes[b] = (size_t)(sb->nz[b + 1] - sb->nz[b]) * sc->vs;
  }
  if (!err) err = bounce_pieces(ctx, dev, node, sc->n, sc->h, host, bytes, pinned, who);
  free(host);
  free(bytes);
  return err;
}

void sum_call_end(struct sum_call *sc, int in_memory)
{
  for (int b = 0; sc->h && b < sc->n; b++) {
    if (!sc->h[b]) continue;
    if (in_memory) { /* (no wait: the task is done) */
      starpu_data_acquire(sc->h[b], STARPU_R);
      starpu_data_release(sc->h[b]);
    }
    starpu_data_unregister_no_coherency(sc->h[b]);
  }
  free(sc->h);
  free(sc->arg);
  memset(sc, 0, sizeof *sc);
}
