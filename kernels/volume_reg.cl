/* Element matrices of volume integrals by seed 000's Algorithm 3 (REG variants): the blocks of an
 * element matrix are shared out among the threads of a work-group, each accumulating its block in
 * registers, in NPARTS parts. REG_NOJAC (-DGEO_JAC=0) reads the Jacobian terms from global
 * memory; REG_JAC (-DGEO_JAC=1) computes them from the cell's vertices at each point. */
#ifndef FEMINT_COMMON_CLH
#include "common.clh"
#endif

#if !defined(NSH) || !defined(NQ) || !defined(NE) || !defined(NCOEF) || !defined(FORM_KIND) || \
    !defined(WG_SIZE) || !defined(NPARTS) || !defined(GEO_JAC)
#error "femint_volume_reg_* needs -DNSH -DNQ -DNE -DNCOEF -DFORM_KIND -DWG_SIZE -DNPARTS -DGEO_JAC"
#endif
#if NPARTS * WG_SIZE < NBLOCKS
#error "NPARTS * WG_SIZE must cover the blocks of an element matrix"
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
#define VOLUME_REG_KERNEL femint_volume_reg_jac
#else
#define VOLUME_REG_KERNEL femint_volume_reg_nojac
#endif
#define ACC_REG(k) acc[k]

/* ncell cells; the work-group g integrates cells g*elems_per_group .. (g+1)*elems_per_group - 1.
 * geo: jac[ncell][NQ][10] (NOJAC) or X[ncell][18] (JAC); coef[ncell][NCOEF]; phi[NQ][4][NSH];
 * quad[NQ][4] (JAC only); out[ncell][OUT_SIZE] from
 * out_off (REALs). */
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void
VOLUME_REG_KERNEL(int ncell, int elems_per_group, __global const REAL *restrict geo,
                  __global const REAL *restrict coef, __global const REAL *restrict phi,
                  __global const REAL *restrict quad, __global REAL *restrict out,
                  long out_off)
{
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

    /* The previous cell's last updates may still read coef_l. */
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = tid; i < NCOEF; i += WG_SIZE) coef_l[i] = coef[(size_t)cell * NCOEF + i];
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int part = 0; part < NPARTS; part++) {
      const int block = part * WG_SIZE + tid;
      const int active = block < NBLOCKS;
      int idof = 0, jdof = 0;
      if (active) BLOCK_PAIR(block, idof, jdof);
      REAL acc[BLOCK_NACC];
      for (int k = 0; k < BLOCK_NACC; k++) acc[k] = 0;

      for (int q = 0; q < NQ; q++) {
        const REAL w = femint_stage_point(q, cell, tid, geo, phi, quad, phi_l, jac_l, psi_l);

        if (active) BLOCK_UPDATE(ACC_REG, psi_l, idof, jdof, w, coef_l);
      }

      if (active) {
        __global REAL *A = out + (size_t)cell * OUT_SIZE;
        BLOCK_WRITE(ACC_REG, A, idof, jdof);
      }
    }
  }
}
