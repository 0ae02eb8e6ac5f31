/* Algorithm 1 of seed 000, kept plain: the reference that every integration kernel is checked
 * against. It computes the geometry from the vertex coordinates itself and loops over all
 * (iQ, iDOF, jDOF, iD, jD, iE, jE) without any specialisation. */
#include <stdlib.h>
#include <string.h>

#include "host.h"

int integrate_volume_reference(const struct refel *re, int ne, const double *c, const double *X,
                               double *A)
{
  const int nsh = re->nsh, n = nsh * ne;
  double *psi = malloc((size_t)4 * nsh * sizeof *psi);
  if (!psi) return femint_seterr(NULL, FEMINT_ENOMEM, "reference integration: out of memory");
  memset(A, 0, (size_t)n * n * sizeof *A);
  for (int q = 0; q < re->nq; q++) {
    const double *phi = re->phi + (size_t)q * 4 * nsh;
    double J[9], K[9];
    geom_prism_jacobian(X, &re->xq[3 * q], J);
    double det = geom_inverse3(J, K);
    if (!(det > 0)) {
      free(psi);
      return femint_seterr(NULL, FEMINT_EJACOBIAN,
                           "reference integration: non-positive Jacobian %g at point %d", det, q);
    }
    for (int i = 0; i < nsh; i++) {
      psi[i] = phi[i];
      for (int d = 0; d < 3; d++) {
        double s = 0;
        for (int j = 0; j < 3; j++) s += phi[(1 + j) * nsh + i] * K[3 * j + d];
        psi[(1 + d) * nsh + i] = s;
      }
    }
    const double dw = det * re->wq[q];
    for (int idof = 0; idof < nsh; idof++)
      for (int jdof = 0; jdof < nsh; jdof++)
        for (int iD = 0; iD < 4; iD++)
          for (int jD = 0; jD < 4; jD++)
            for (int iE = 0; iE < ne; iE++)
              for (int jE = 0; jE < ne; jE++)
                A[(size_t)(idof * ne + iE) * n + jdof * ne + jE] +=
                    dw * c[((iE * ne + jE) * 4 + iD) * 4 + jD] * psi[iD * nsh + idof] *
                    psi[jD * nsh + jdof];
  }
  free(psi);
  return 0;
}
