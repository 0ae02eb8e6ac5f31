/* Host assembly of the Maxwell matrices of a tetrahedral H(curl) space as seed 004 does it on
 * the device: element matrices of every cell written as COO triplets in fixed slots, one pattern
 * built from the slots, and the mass (T) and curl-curl (S) values reduced on it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_tet.h"

void tet_system_free(struct tet_system *sys)
{
  coo_pattern_free(&sys->pattern);
  free(sys->T);
  free(sys->S);
  sys->T = sys->S = NULL;
}

void tet_coo_indices(int64_t ncell, int nsh, const int64_t *cell_dof, int64_t *row, int64_t *col)
{
  const int64_t n2 = (int64_t)nsh * nsh, nslot = ncell * n2;
  for (int64_t k = 0; k < nslot; k++) {
    const int64_t c = k / n2, i = k / nsh % nsh, j = k % nsh;
    const int64_t r = cell_dof[c * nsh + i], s = cell_dof[c * nsh + j];
    row[k] = r >= 0 && s >= 0 ? r : -1;
    col[k] = r >= 0 && s >= 0 ? s : -1;
  }
}

/* T_e and S_e of every cell into their slots. */
static int element_matrices(const struct tet_space *sp, const struct refel_tet *re,
                            const struct tet_coef *coef, int ncoef, double *T, double *S)
{
  const struct tet_mesh *m = sp->mesh;
  const size_t n2 = (size_t)sp->nsh * sp->nsh;
  for (int c = 0; c < m->ncell; c++) {
    double X[30];
    tet_mesh_cell_nodes(m, c, X);
    const int err =
        tet_element_reference(re, m->nnode, X, &coef[ncoef == 1 ? 0 : c], T + c * n2, S + c * n2);
    if (err) {
      char why[256];
      snprintf(why, sizeof why, "%s", femint_thread_error());
      return femint_seterr(NULL, err, "Maxwell assembly: cell %d: %s", c, why);
    }
  }
  return 0;
}

int tet_assemble(const struct tet_space *sp, const struct refel_tet *re,
                 const struct tet_coef *coef, int ncoef, struct tet_system *sys)
{
  memset(sys, 0, sizeof *sys);
  const struct tet_mesh *m = sp->mesh;
  FEMINT_CHECK(ncoef == 1 || ncoef == m->ncell, NULL, FEMINT_EINVAL,
               "Maxwell assembly: %d coefficient sets for %d cells (1 or one per cell)", ncoef,
               m->ncell);
  FEMINT_CHECK(re->order == sp->order, NULL, FEMINT_EINVAL,
               "Maxwell assembly: reference element of order %d for a space of order %d", re->order,
               sp->order);
  const int64_t nslot = (int64_t)m->ncell * sp->nsh * sp->nsh;
  int64_t *row = malloc(sizeof *row * nslot), *col = malloc(sizeof *col * nslot);
  double *cT = malloc(sizeof *cT * nslot), *cS = malloc(sizeof *cS * nslot);
  int err = 0;
  if (!row || !col || !cT || !cS) {
    err = femint_seterr(NULL, FEMINT_ENOMEM,
                        "Maxwell assembly: out of memory for %lld COO "
                        "slots",
                        (long long)nslot);
    goto done;
  }
  tet_coo_indices(m->ncell, sp->nsh, sp->cell_dof, row, col);
  err = element_matrices(sp, re, coef, ncoef, cT, cS);
  if (!err) err = coo_pattern_build(sp->ndof, nslot, row, col, &sys->pattern);
  if (err) goto done;
  sys->T = malloc(sizeof(double) * (sys->pattern.nnz + 1));
  sys->S = malloc(sizeof(double) * (sys->pattern.nnz + 1));
  if (!sys->T || !sys->S) {
    err = femint_seterr(NULL, FEMINT_ENOMEM,
                        "Maxwell assembly: out of memory for %lld "
                        "non-zeros",
                        (long long)sys->pattern.nnz);
    goto done;
  }
  coo_pattern_sum(&sys->pattern, cT, sys->T);
  coo_pattern_sum(&sys->pattern, cS, sys->S);

done:
  free(row);
  free(col);
  free(cT);
  free(cS);
  if (err) tet_system_free(sys);
  return err;
}
