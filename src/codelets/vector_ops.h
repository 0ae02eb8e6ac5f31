/* The vector operations of matrix-free solves (vector_ops.c, kernels/vector_ops.cl): the sum of
 * element vectors into a global vector, dot products and the fused updates of conjugate
 * gradients, each a codelet with a CPU (OpenMP team) and an OpenCL implementation. Dot products
 * sum fixed ranges in a fixed order (deterministic on one kind of worker). Their results go to
 * slots of a small vector of scalars that stays on the worker's node, so that a solve reads
 * only what it tests. */
#ifndef FEMINT_CODELETS_VECTOR_OPS_H
#define FEMINT_CODELETS_VECTOR_OPS_H

#include <starpu.h>

#include "runtime.h"

/* Ranges a dot product is cut into on the CPU, summed in order. On a device, one per
 * work-group of VEC_WG: as many as make VEC_CL_PER_GROUP values each, up to VEC_CL_MAXGROUP (many
 * small ones, so that the last round of work-groups leaves a GPU idle for little: 1024 ranges
 * took the H200 at 59% of its copy rate for the fused CG step). */
#define VEC_NRANGE 1024
#define VEC_WG 256
#define VEC_CL_PER_GROUP 1024
#define VEC_CL_MAXGROUP 65536
/* The most components of element vectors the sum reads in place order (vec_ev_sum_sorted). */
#define EV_SORTED_MAX_NC 3
/* DOFs per block of the cell spans of a CPU sum in cell order (vec_arg's span). */
#define EV_SPAN 1024
/* The scalars of a solve: w . u (delta), two alternating r . z (gamma), r . r, b . b, two
 * alternating alpha, and the step's p . A p (delta - beta gamma / alpha before). */
#define VEC_NSLOT 8
enum vec_slot {
  SLOT_PQ = 0, SLOT_RZ0 = 1, SLOT_RZ1 = 2, SLOT_RR = 3, SLOT_BB = 4, SLOT_A0 = 5, SLOT_A1 = 6,
  SLOT_DEN = 7
};

enum vec_op {
  VEC_EV_SUM,     /* y (W), then each chunk's ev and map (R; CPU: its DOFs): y = 0, then
                     chunk after chunk, y[g nc + c] += each of g's places in the chunk's ev, in
                     order (so that every DOF's sum runs in plan order, whatever the chunks) */
  VEC_DOT,        /* a, b (R), s (RW): s[out] = a . b */
  VEC_CG_START,   /* b (R), r (RW: A x in, b - A x out), s (RW) [, dinv (R), z (W)]:
                     z = dinv r (or r), s[out] = r . z, s[RR] = r . r, s[BB] = b . b */
  VEC_CG_UPDATE,  /* x, r, p, t (RW), w (R), s (RW), rr (W) [, dinv (R), z (RW)]: a step of CG
                     with one reduction (Chronopoulos and Gear): with u = z (or r) and w = A u,
                     gamma = s[in0] = r . u, its value a step before s[in1], delta = s[PQ] =
                     w . u and alpha a step before s[ain]: beta = gamma / s[in1], alpha = gamma
                     / (delta - beta gamma / s[ain]) (first: beta = 0, alpha = gamma / delta),
                     s[aout] = alpha, s[DEN] = gamma / alpha (p . A p); p = u + beta p, t = w +
                     beta t (t = A p), x += alpha p, r -= alpha t, z = dinv r; s[out] = r . z,
                     s[RR] = r . r; rr = {r . r, p . A p} */
  VEC_MOVE,       /* dst (RW or W), src (R or W), idx (R): dst[idx[2 k]] = src[idx[2 k + 1]]
                     for k < n (values between the parts of a split vector; n = 0: dst alone);
                     with loads, load[i]'s nload[i] values from main memory into dst at
                     load_at[i] first; with store, dst's nstore values to main memory after */
  VEC_NOP,        /* the number of operations with an OpenCL kernel */
  VEC_COPY        /* a (R), b (W): b = a, bytes (CPU workers only: the CPU's copy rate) */
};

/* The OpenCL kernels of the operations on one device (one program), and its partial sums. */
struct vec_kernels {
  cl_program program;
  cl_kernel k[VEC_NOP];
  cl_kernel finish;               /* the partial sums into slots */
  cl_kernel ev_sum_f;             /* VEC_EV_SUM of element vectors of floats */
  cl_kernel ev_sum_sorted[2];     /* VEC_EV_SUM in place order: doubles, floats */
  cl_mem partial;                 /* [3][VEC_CL_MAXGROUP] */
};

struct vec_arg {
  femint_context_t ctx;
  int op;
  int64_t n;                      /* values of the vectors (VEC_EV_SUM: of y's part) */
  int64_t lo;                     /* VEC_EV_SUM on a part of y: its first DOF (mode) */
  int jacobi;                     /* the dinv and z buffers are there */
  int in0, in1, out;              /* slots */
  int first, ain, aout;           /* VEC_CG_UPDATE: the first step, alpha's slots */
  int nc, np;                     /* VEC_EV_SUM: components, values per cell and component */
  int single;                     /* VEC_EV_SUM: the element vectors are floats */
  const int *chunk_sorted;        /* VEC_EV_SUM: NULL, or [nchunk] the chunks in place order
                                     (struct ev_sum's chunk_sorted) */
  int nchunk;                     /* VEC_EV_SUM: chunks, and the DOFs of each, chunk_nu[i]: its */
  const int64_t *chunk_nu;        /* map is struct ev_map's: udof[nu] (64 bits), ptr[nu + 1]
                                     and places[ptr[nu]] (32 bits) */
  /* VEC_EV_SUM on CPU workers (the task on no OpenCL worker): the buffers after each ev are the
   * chunks' DOFs ([cell][np], struct ev_sum's dofs) instead of maps, and the sum goes through
   * the cells in plan order (each value read once, in order; a chunk in place order through
   * slot, struct ev_sum's); chunk_first[i] the first cell of chunk i; span[2 b], span[2 b + 1] the first and
   * last cell with a place of a DOF of block b (EV_SPAN DOFs from 0), -1 for none */
  const int *chunk_first;         /* [nchunk] */
  const int64_t *span;
  const int32_t *slot;
  struct vec_kernels *const *kern; /* [FEMINT_MAX_CL_DEVICES] */
  /* Over several parts (a split solve; the tasks that published are done first, by declared
   * dependencies): before the kernels, slot gather[i].slot of s is the sum over the nsum parts
   * of gather[i].src[part][slot] (written from put[VEC_NSLOT], pinned memory where a device
   * reads it, as publish); after them, s is read into publish (NULL:
   * not). VEC_MOVE: nloads of load, nload and load_at, and store, nstore (NULL: none). Scalars and packs go through
   * main memory within the tasks, not as data StarPU moves. */
  int nsum, ngather;
  struct vec_gather {
    int slot;
    const double *const *src;
  } gather[2];
  double *put;
  double *publish;
  int nloads;
  const double *load[FEMINT_MAX_CL_DEVICES];
  int64_t nload[FEMINT_MAX_CL_DEVICES], load_at[FEMINT_MAX_CL_DEVICES];
  double *store;
  int64_t nstore;
  int *counts;                    /* NULL, or tasks run counted: [0] CPU, [1] OpenCL */
  int status;
  char msg[128];
};

/* The chunk of plan cell k, the chunks' first cells first[0 .. nchunk) ascending from 0. */
static inline int ev_chunk_of(const int *first, int nchunk, int64_t k)
{
  int lo = 0, hi = nchunk - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (first[mid] <= k) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

extern struct starpu_codelet femint_cl_vec;
/* Build the vector kernels on OpenCL device dev from the source (its context and queue are
 * StarPU's). Returns 0 or FEMINT_EOPENCL with the build log in the thread's error. */
int vec_kernels_create(int dev, const char *source, struct vec_kernels **k);
void vec_kernels_destroy(struct vec_kernels **k);

#endif
