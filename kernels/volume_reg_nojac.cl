/* Element matrices of volume integrals by seed 000's Algorithm 3, variant REG_NOJAC: the blocks of
 * an element matrix are shared out among the threads of a work-group, each accumulating its block
 * in registers, and the Jacobian terms are read from global memory rather than computed. */
#ifndef FEMINT_COMMON_CLH
#include "common.clh"
#endif

#if !defined(NSH) || !defined(NQ) || !defined(NE) || !defined(NCOEF) || !defined(FORM_KIND) || \
    !defined(WG_SIZE) || !defined(NPARTS)
#error "femint_volume_reg_nojac needs -DNSH -DNQ -DNE -DNCOEF -DFORM_KIND -DWG_SIZE -DNPARTS"
#endif
#if NPARTS * WG_SIZE < NSH * NSH
#error "NPARTS * WG_SIZE must cover the NSH * NSH blocks of an element matrix"
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

#define NBLOCKS (NSH * NSH)
#define MAT_SIZE ((size_t)(NSH * NE) * (size_t)(NSH * NE))

/* Laplace and mass blocks are kappa (or rho) times the identity: one accumulator is enough. */
#if FORM_KIND == FORM_LAPLACE || FORM_KIND == FORM_MASS
#define NACC 1
#else
#define NACC (NE * NE)
#endif

/* ncell cells; the work-group g integrates cells g*elems_per_group .. (g+1)*elems_per_group - 1.
 * jac[ncell][NQ][10], coef[ncell][NCOEF], phi[NQ][4][NSH], out[ncell][NSH*NE][NSH*NE]. */
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void
femint_volume_reg_nojac(int ncell, int elems_per_group, __global const REAL *restrict jac,
                        __global const REAL *restrict coef, __global const REAL *restrict phi,
                        __global REAL *restrict out)
{
  __local REAL phi_l[4 * NSH];
  __local REAL psi_l[4 * NSH];
  __local REAL jac_l[JAC_NTERMS];
  __local REAL coef_l[NCOEF];
  const int tid = (int)get_local_id(0);
  const int first = (int)get_group_id(0) * elems_per_group;

  for (int e = 0; e < elems_per_group; e++) {
    const int cell = first + e;
    /* The same for all threads of the group, so no thread skips a barrier. */
    if (cell >= ncell) break;
    __global const REAL *jac_c = jac + (size_t)cell * (NQ * JAC_NTERMS);

    /* The previous cell's last updates may still read coef_l. */
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = tid; i < NCOEF; i += WG_SIZE) coef_l[i] = coef[(size_t)cell * NCOEF + i];
    barrier(CLK_LOCAL_MEM_FENCE);
#if FORM_KIND == FORM_ELASTICITY
    const REAL lambda = coef_l[0], mu = coef_l[1];
#elif FORM_KIND == FORM_LAPLACE || FORM_KIND == FORM_MASS
    const REAL kappa = coef_l[0];
#endif

    for (int part = 0; part < NPARTS; part++) {
      const int block = part * WG_SIZE + tid;
      const int active = block < NBLOCKS;
      const int idof = block / NSH, jdof = block - (block / NSH) * NSH;
      REAL acc[NACC];
      for (int k = 0; k < NACC; k++) acc[k] = 0;

      for (int q = 0; q < NQ; q++) {
        /* Reads of phi_l and jac_l of the previous point all came before its second barrier, so
         * the group may overwrite them now. */
        for (int i = tid; i < 4 * NSH; i += WG_SIZE) phi_l[i] = phi[(size_t)q * 4 * NSH + i];
        for (int i = tid; i < JAC_NTERMS; i += WG_SIZE) jac_l[i] = jac_c[q * JAC_NTERMS + i];
        barrier(CLK_LOCAL_MEM_FENCE);

        const REAL w = jac_l[JAC_DETW];
        for (int i = tid; i < NSH; i += WG_SIZE) {
          psi_l[i] = phi_l[i];
#if FORM_KIND != FORM_MASS
          const REAL d1 = phi_l[NSH + i], d2 = phi_l[2 * NSH + i], d3 = phi_l[3 * NSH + i];
          for (int d = 0; d < 3; d++)
            psi_l[(1 + d) * NSH + i] =
                d1 * jac_l[JAC_K(0, d)] + d2 * jac_l[JAC_K(1, d)] + d3 * jac_l[JAC_K(2, d)];
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        /* The test function (row, idof) carries the weight det J * w_q. */
        if (active) {
#if FORM_KIND == FORM_ELASTICITY
          const REAL wl = w * lambda, wm = w * mu;
          const REAL h[3] = {psi_l[NSH + idof], psi_l[2 * NSH + idof], psi_l[3 * NSH + idof]};
          const REAL g[3] = {psi_l[NSH + jdof], psi_l[2 * NSH + jdof], psi_l[3 * NSH + jdof]};
          const REAL hg = wm * (h[0] * g[0] + h[1] * g[1] + h[2] * g[2]);
          REAL lh[3], mh[3];
          for (int a = 0; a < 3; a++) {
            lh[a] = wl * h[a];
            mh[a] = wm * h[a];
          }
          for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) acc[3 * a + b] += lh[a] * g[b] + mh[b] * g[a];
          for (int a = 0; a < 3; a++) acc[4 * a] += hg;
#elif FORM_KIND == FORM_LAPLACE
          acc[0] += w * kappa *
                    (psi_l[NSH + idof] * psi_l[NSH + jdof] +
                     psi_l[2 * NSH + idof] * psi_l[2 * NSH + jdof] +
                     psi_l[3 * NSH + idof] * psi_l[3 * NSH + jdof]);
#elif FORM_KIND == FORM_MASS
          acc[0] += w * kappa * psi_l[idof] * psi_l[jdof];
#else
          REAL hg[16];
          for (int iD = 0; iD < 4; iD++) {
            const REAL h = w * psi_l[iD * NSH + idof];
            for (int jD = 0; jD < 4; jD++) hg[4 * iD + jD] = h * psi_l[jD * NSH + jdof];
          }
          for (int k = 0; k < NE * NE; k++) {
            REAL s = 0;
            for (int l = 0; l < 16; l++) s += coef_l[16 * k + l] * hg[l];
            acc[k] += s;
          }
#endif
        }
      }

      if (active) {
        __global REAL *A = out + (size_t)cell * MAT_SIZE;
        for (int a = 0; a < NE; a++)
          for (int b = 0; b < NE; b++)
#if NACC == 1
            A[MAT_INDEX(NSH, NE, idof, a, jdof, b)] = a == b ? acc[0] : (REAL)0;
#else
            A[MAT_INDEX(NSH, NE, idof, a, jdof, b)] = acc[NE * a + b];
#endif
      }
    }
  }
}
