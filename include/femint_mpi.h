/* femint: distributed codes (MPI), the names of DOFs across ranks and a rank's share of them.
 * Part of femint.h, which includes it. */
#ifndef FEMINT_MPI_H
#define FEMINT_MPI_H

#include "femint.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Distributed codes (MPI): a rank's part of a mesh ----
 * femint never calls MPI. Replicated: every rank builds the same mesh and space and integrates
 * its run of cells (femint_operator_options.cells); femint_space_dof_range gives the DOFs the run
 * owns. Distributed: each rank holds its part (femint_mesh_create_part, femint_mesh_read_gmsh_part)
 * with global vertex ids, which decide everything the ranks must agree on; the caller numbers the
 * DOF keys across ranks and gives the numbers back (femint_space_set_global_dofs), and
 * femint_operator_integrate's batches carry them. doc/mpi.md says how, and the rules a rank
 * cannot check alone (the same order on both sides of a face between parts; the same first vertex
 * of a prism's triangle face in both parts, which femint_dof_key.first lets the caller check). */

/** What a DOF belongs to (femint_dof_key.kind). */
enum femint_entity {
  FEMINT_ENTITY_VERTEX = 0,
  FEMINT_ENTITY_EDGE = 1,
  FEMINT_ENTITY_FACE = 2, /**< a prism's triangle or quadrilateral face, a tetrahedron's face */
  FEMINT_ENTITY_CELL = 3  /**< an interior (bubble) mode: never shared between ranks */
};

/** The name of a DOF across ranks: the same on every rank that sees the DOF, different for
 *  different DOFs. Two keys name the same DOF when vert, kind, mode and comp are equal
 *  (femint_dof_key_compare); order and first are for checks. */
struct femint_dof_key {
  int64_t vert[4]; /**< the global vertex ids of the entity, ascending, -1 after the last: 1 for
                        a vertex, 2 for an edge, 3 or 4 for a face; a cell: a prism the 3 of its
                        bottom triangle and the smallest of its top, a quadrilateral or a
                        tetrahedron its 4 */
  int32_t kind;    /**< enum femint_entity */
  int32_t mode;    /**< which mode of the entity (the same number whatever the entity's order) */
  int32_t comp;    /**< the component, 0..ncomp-1 */
  int32_t order;   /**< not part of the name: the order of the entity on this rank (the lowest
                        order of its cells there); ranks that see a DOF with different orders
                        have parts of different orders on two sides of a face */
  int64_t first;   /**< not part of the name: for a prism's triangle face, the global id of its
                        first vertex in its cells' order (ranks must agree); -1 otherwise */
};

/** @brief Order two keys by their name (vert, kind, mode, comp): qsort's comparison, 0 when they
 *  name the same DOF. */
FEMINT_EXPORT int femint_dof_key_compare(const void *a, const void *b);

/** @brief The key of every DOF of a space (num_dofs values; DOF d is scalar mode d / ncomp,
 *  component d % ncomp, as in femint_space_cell_dofs).
 *  @param[out] keys room for femint_space_num_dofs values.
 *  @return 0, FEMINT_EINVAL, FEMINT_ENOMEM. */
FEMINT_EXPORT int femint_space_dof_keys(femint_space_t space, struct femint_dof_key *keys);

/** @brief Give every DOF of the space its global number (the caller's numbering of the keys of
 *  all ranks). From then on the batches of femint_operator_integrate carry global numbers in
 *  dofs (-1 stays for dropped and removed modes); femint_space_cell_dofs,
 *  femint_space_boundary_dofs, femint_space_eval, femint_space_l2_error,
 *  femint_space_interpolate_linear and femint_operator_load keep the space's own numbering,
 *  which the caller maps with its array. femint_operator_assemble refuses such a space
 *  (FEMINT_ESTATE): a rank's matrix belongs to the caller's distributed matrix, fed by
 *  femint_operator_integrate; a space without global numbers still assembles its local matrix.
 *  @param[in] global NULL (back to the space's own numbering), or num_dofs distinct values >= 0,
 *  copied. @return 0; FEMINT_EINVAL (a negative or repeated number, named); FEMINT_ENOMEM. */
FEMINT_EXPORT int femint_space_set_global_dofs(femint_space_t space, const int64_t *global);

/** @brief The DOFs owned by the run of cells [cell_begin, cell_end): those that no cell before
 *  cell_begin meets and some cell of the run meets. They are [*dof_begin, *dof_end), multiples of
 *  the number of components; consecutive runs give consecutive ranges, and [0, ncell) gives
 *  [0, num_dofs). @return 0, FEMINT_EINVAL (not a range of cells of the mesh). */
FEMINT_EXPORT int femint_space_dof_range(femint_space_t space, int cell_begin, int cell_end,
                                         int64_t *dof_begin, int64_t *dof_end);

#ifdef __cplusplus
}
#endif

#endif
