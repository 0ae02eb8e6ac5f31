/* The global sparse matrix: CSR pattern from a DOF map, products, Matrix Market output. */
#ifndef FEMINT_HOST_SPARSE_H
#define FEMINT_HOST_SPARSE_H

#include "codelets/codelets.h"

struct femint_matrix {
  struct csr csr;
};

/* The pattern of every (row, column) pair of DOFs that share a cell, columns sorted; values
 * zeroed. cells: the ncell cells that count, or NULL for every cell of the mesh. */
int csr_build(femint_context_t ctx, const struct femint_space *space, int ncell, const int *cells,
              struct csr *csr);
void csr_free(struct csr *csr);

#endif
