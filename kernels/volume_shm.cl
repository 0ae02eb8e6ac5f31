/* Element matrices of volume integrals by seed 000's Algorithm 4 (SHM variants): a part of the
 * element matrix of WG_SIZE * BPT blocks is accumulated in local memory, each thread updating its
 * BPT blocks at each quadrature point; NPARTS parts cover the matrix. SHM_NOJAC (-DGEO_JAC=0)
 * reads the Jacobian terms, SHM_JAC (-DGEO_JAC=1) computes them from the cell's vertices. */
#ifndef FEMINT_COMMON_CLH
#include "common.clh"
#endif

#if !defined(NSH) || !defined(NQ) || !defined(NE) || !defined(NCOEF) || !defined(FORM_KIND) || \
    !defined(WG_SIZE) || !defined(NPARTS) || !defined(BPT) || !defined(GEO_JAC)
#error "femint_volume_shm_* needs -DNSH -DNQ -DNE -DNCOEF -DFORM_KIND -DWG_SIZE -DNPARTS -DBPT -DGEO_JAC"
#endif
#if NPARTS * WG_SIZE * BPT < NBLOCKS
#error "NPARTS * WG_SIZE * BPT must cover the blocks of an element matrix"
#endif
#if FORM_KIND == FORM_ELASTICITY && (NE != 3 || NCOEF != 2)
#error "the elasticity form has NE = 3 and NCOEF = 2 (lambda, mu)"
#endif
#if (FORM_KIND == FORM_LAPLACE || FORM_KIND == FORM_MASS) && NCOEF != 1
#error "the Laplace and mass forms have NCOEF = 1"
#endif
#if FORM_KIND == FORM_GENERIC && NCOEF != NE * NE * 16
#error "the generic form has NCOEF = NE * NE * 16"
#endif

#if GEO_JAC
#define VOLUME_SHM_KERNEL femint_volume_shm_jac
#else
#define VOLUME_SHM_KERNEL femint_volume_shm_nojac
#endif
/* Blocks of a part; accumulator k of the part's block s at acc_l[k * PART_BLOCKS + s], so that
 * neighbouring threads touch neighbouring words. */
#define PART_BLOCKS (WG_SIZE * BPT)
#define ACC_SHM(k) acc_l[(k) * PART_BLOCKS + slot]

/* ncell cells; the work-group g integrates cells g*elems_per_group .. (g+1)*elems_per_group - 1.
 * geo: jac[ncell][NQ][10] (NOJAC) or X[ncell][18] (JAC); coef[ncell][NCOEF]; phi[NQ][4][NSH];
 * quad[NQ][4] (JAC only); out[ncell][OUT_SIZE] from
 * out_off (REALs). */
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void
VOLUME_SHM_KERNEL(int ncell, int elems_per_group, __global const REAL *restrict geo,
                  __global const REAL *restrict coef, __global const REAL *restrict phi,
                  __global const REAL *restrict quad, __global REAL *restrict out,
                  long out_off)
{
  __local REAL acc_l[BLOCK_NACC * PART_BLOCKS];
  __local REAL phi_l[4 * NSH];
  __local REAL psi_l[4 * NSH];
  __local REAL jac_l[JAC_NTERMS];
  __local REAL coef_l[NCOEF];
  out += out_off; /* the batch's part of a vector of several batches */
  const int tid = (int)get_local_id(0);
  const int first = (int)get_group_id(0) * elems_per_group;

  for (int e = 0; e < elems_per_group; e++) {
    const int cell = first + e;
    /* The same for all threads of the group, so no thread skips a barrier. */
    if (cell >= ncell) break;

    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = tid; i < NCOEF; i += WG_SIZE) coef_l[i] = coef[(size_t)cell * NCOEF + i];
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int part = 0; part < NPARTS; part++) {
      /* Each thread owns its slots of acc_l: no barrier guards them. */
      int idof[BPT], jdof[BPT];
      for (int b = 0; b < BPT; b++) {
        const int slot = b * WG_SIZE + tid, block = part * PART_BLOCKS + slot;
        idof[b] = jdof[b] = -1;
        if (block < NBLOCKS) BLOCK_PAIR(block, idof[b], jdof[b]);
        for (int k = 0; k < BLOCK_NACC; k++) ACC_SHM(k) = 0;
      }

      for (int q = 0; q < NQ; q++) {
        const REAL w = femint_stage_point(q, cell, tid, geo, phi, quad, phi_l, jac_l, psi_l);

        for (int b = 0; b < BPT; b++) {
          const int slot = b * WG_SIZE + tid;
          if (idof[b] >= 0) BLOCK_UPDATE(ACC_SHM, psi_l, idof[b], jdof[b], w, coef_l);
        }
      }

      __global REAL *A = out + (size_t)cell * OUT_SIZE;
      for (int b = 0; b < BPT; b++) {
        const int slot = b * WG_SIZE + tid;
        if (idof[b] >= 0) BLOCK_WRITE(ACC_SHM, A, idof[b], jdof[b]);
      }
    }
  }
}
