/* The objects behind femint's Maxwell API (femint_tet_mesh, femint_maxwell) and what the
 * codelets and the driver of the tetrahedral H(curl) assembly share. Never installed. */
#ifndef FEMINT_HOST_MAXWELL_H
#define FEMINT_HOST_MAXWELL_H

#include <starpu.h>

#include "femint.h"
#include "mesh_tet.h"
#include "codelets/coo_opencl.h"
#include "scheduler/scheduler.h"

struct femint_tet_mesh {
  femint_context_t ctx;
  struct tet_mesh *m;
};

/* The reference tables one kernel reads, in one REAL array: val[nq][3][nsh], curl[nq][3][nsh],
 * the derivatives of the geometric shape functions dgeo[nq][nnode][3], the weights w[nq]. */
struct maxwell_tables {
  void *data;
  size_t n;                 /* REALs */
  starpu_data_handle_t h;   /* registered when data is */
};

struct femint_maxwell {
  femint_context_t ctx;
  const struct femint_tet_mesh *mesh;
  struct refel_tet *re;
  struct tet_space *space;
  int64_t nslot;            /* ncell * nsh^2 COO triplets */
  struct maxwell_tables tab[2]; /* by precision, built on first use */
  /* The pattern, once built: host copies of the CSR structure; perm and seg stay registered
   * (and where they were built) for the sums of later assemblies. */
  int built;
  int built_on_device;
  int64_t nvalid, nnz;
  int64_t *rowptr, *colind;
  starpu_data_handle_t h_perm, h_seg;
  /* The COO kernels of the device that builds the pattern (created on first use). */
  struct coo_cl *coo_cl[FEMINT_MAX_CL_DEVICES];
};

/* Matrix T (0) or S (1). */
enum { MAXWELL_T = 0, MAXWELL_S = 1 };

/* A batch of cells of one matrix: the unit of an integration task. */
struct maxwell_batch {
  const struct femint_maxwell *mx;
  int which;                /* MAXWELL_T or MAXWELL_S */
  int precision;
  int ncell;                /* its cells (its parts of the vectors) */
  struct cl_program_entry *const *program; /* [FEMINT_MAX_CL_DEVICES] the kernel of its matrix
                                              on each OpenCL device (NULL: none) */
  int ran_on;               /* 1: a CPU worker ran it, 2: an OpenCL worker */
  int status;
  char msg[192];
};

/* The work-group size of the batch kernel for nsh functions (one work-group per cell). */
int maxwell_wg_size(int nsh);

/* Coefficients per cell as the codelets read them: eps[9] then nu = mu^-1 [9]. */
#define MAXWELL_NCOEF 18

/* One cell's T_e or S_e (which: MAXWELL_T or MAXWELL_S; row-major nsh x nsh, float when single,
 * else double) from its nodes X[nnode][3] and coefficients k[18], on the points of re: what the
 * CPU codelet does per cell (the OpenCL kernel computes the same). scratch holds
 * maxwell_cell_scratch(re) doubles. */
size_t maxwell_cell_scratch(const struct refel_tet *re);
void maxwell_cell_matrix(const struct refel_tet *re, int which, int nnode, const double *X,
                         const double *k, double *scratch, int single, void *M);

extern struct starpu_codelet femint_cl_maxwell_integrate;
extern struct starpu_codelet femint_cl_maxwell_pattern;
extern struct starpu_codelet femint_cl_maxwell_sum;

/* What the pattern task needs and returns besides its buffers. */
struct maxwell_pattern_arg {
  struct femint_maxwell *mx;
  struct coo_cl *coo_cl; /* the device's COO kernels, for the OpenCL implementation */
  int64_t nvalid, nnz;
  int status;
  char msg[192];
};

/* What a sum task needs. */
struct maxwell_sum_arg {
  const struct femint_maxwell *mx;
  int precision;
  struct cl_program_entry *const *program; /* [FEMINT_MAX_CL_DEVICES] coo_sum on each device */
  int status;
  char msg[192];
};

/* The doubles of the reference tables of re for cells of nnode nodes, and the tables themselves
 * (the layout of struct maxwell_tables). */
size_t maxwell_table_size(const struct refel_tet *re, int nnode);
void maxwell_table_fill(const struct refel_tet *re, int nnode, double *d);

/* The reference tables of a precision, built and registered on first use. */
int maxwell_tables(struct femint_maxwell *mx, int precision, starpu_data_handle_t *h);

#endif
