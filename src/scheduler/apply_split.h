/* What the files of the apply over several devices share (apply_split.c: the parts, their ghosts
 * and the exchange; apply_split_cells.c: which part applies each cell, and the element vectors'
 * values that go from the part that applies a cell to the others that have it). */
#ifndef FEMINT_APPLY_SPLIT_H
#define FEMINT_APPLY_SPLIT_H

#include "operator.h"

struct split_part {
  struct femint_operator *op;      /* the part: its own modes op->mlo .. op->mhi - 1 */
  int64_t own;                     /* op->mhi - op->mlo */
  /* its pack: the values of its own modes that other parts read, each reader's (its ghosts
   * owned here, in its order) one after the other */
  int64_t npack;                   /* pairs (place in the pack, value in its vectors) */
  int64_t *pack_idx;
  double *pack;                    /* the pack in main memory (pinned) */
  starpu_data_handle_t h_pack, h_pack_idx; /* the pack on the device (no home), its pairs */
  struct vec_arg pack_arg;
  /* what it reads: its ghosts owned by part e, ghost[first[e] .. first[e] + nread[e]), at
   * at[e] in e's pack, loaded where they go in its vectors */
  int64_t nread[FEMINT_MAX_CL_DEVICES], first[FEMINT_MAX_CL_DEVICES], at[FEMINT_MAX_CL_DEVICES];
  struct vec_arg read_arg;
  /* with each cell applied once: of its ghosts owned by part e, the first nneed[e] are read by
   * the cells it applies (the others only by cells applied elsewhere) */
  int need_set;
  int64_t nneed[FEMINT_MAX_CL_DEVICES];
};

/* The values of the element vectors of a chunk of cells one part applies for another (a chunk of
 * the reader's cells applied elsewhere, all in one chunk of the sender's), at the reader's modes:
 * packed on the sender's device into main memory, loaded on the reader's into its chunk, in the
 * reader's place order (the sum reads them as the places of its own DOFs). */
struct ev_link {
  int from, chunk_from, to, chunk_to;
  int64_t n;                       /* values */
  int64_t *idx;                    /* pairs (place in the pack, value in the sender's chunk) */
  double *host;                    /* the pack in main memory (pinned) */
  starpu_data_handle_t h_pack, h_idx;
  struct vec_arg pack_arg, load_arg;
  struct starpu_task *pack[2], *load[2]; /* the tasks of the last two applications (a pack
                                      after the last load, which read the same memory) */
};

struct apply_split {
  struct femint_operator *op;
  int npart, nc;
  struct split_part part[FEMINT_MAX_CL_DEVICES];
  struct femint_vector *vx[FEMINT_MAX_CL_DEVICES], *vy[FEMINT_MAX_CL_DEVICES];
  int nlink, links_made, round;
  struct ev_link *link;
};

/* A task of the exchange on the home of part op (VEC_MOVE): buffers h[0 .. n) in modes m; after
 * the tasks deps[0 .. ndep) end; kept in *slot (to be waited for and destroyed) unless it is
 * NULL. */
int split_task(struct femint_operator *op, struct vec_arg *arg, int n, const starpu_data_handle_t *h,
               const enum starpu_data_access_mode *m, struct starpu_task **deps, int ndep,
               struct starpu_task **slot);
/* Each cell applied by one part where that pays (the parts' remote[], their ghosts reordered and
 * nneed[]), the parts' own ranges bound[part .. part + 1). */
int split_assign(struct apply_split *sp, const int64_t *bound);
/* The links of the parts' chunks of cells applied elsewhere (once the parts are prepared: 1
 * where a chunk takes its cells from several of the sender's), their tasks of one application,
 * and their release. */
int split_links_make(struct apply_split *sp);
int split_links_submit(struct apply_split *sp);
void split_links_release(struct apply_split *sp);

#endif
