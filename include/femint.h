/* femint: finite element numerical integration and assembly on heterogeneous (CPU + OpenCL) nodes.
 *
 * Error convention: every function returns 0 on success or a negative FEMINT_E* code. The detailed
 * message of the last error (which cell, which option, the OpenCL build log) is kept on the
 * context and returned by femint_last_error(). On error, output handles are left NULL and objects
 * passed in are unchanged. No function exits or aborts the calling process. */
#ifndef FEMINT_H
#define FEMINT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(FEMINT_BUILDING) && defined(__GNUC__)
#define FEMINT_EXPORT __attribute__((visibility("default")))
#else
#define FEMINT_EXPORT
#endif

/* The error codes: one list makes the enum, femint_strerror() and femint_error_name(). */
#define FEMINT_ERRNO_MAP(X)                                                        \
  X(EINVAL, -1, "invalid argument")                                                \
  X(ENOMEM, -2, "out of memory")                                                   \
  X(EMESH, -3, "invalid mesh")                                                     \
  X(EJACOBIAN, -4, "non-positive Jacobian")                                        \
  X(EORDER, -5, "unsupported polynomial order")                                    \
  X(ERUNTIME, -6, "task runtime (StarPU) failure")                                 \
  X(EOPENCL, -7, "OpenCL failure")                                                 \
  X(EIO, -8, "input/output failure")                                               \
  X(ENODEV, -9, "no worker able to run the request")                              \
  X(ESTATE, -10, "object in the wrong state")                                      \
  X(ENOTSUP, -11, "not supported")                                                 \
  X(ECALLBACK, -12, "the caller's function stopped the work")                      \
  X(ESOLVE, -13, "the iterative solver broke down")                               \
  X(EBUILD, -14, "the caller's source does not compile")

enum femint_error {
  FEMINT_OK = 0,
#define FEMINT_X_ENUM(name, code, text) FEMINT_##name = code,
  FEMINT_ERRNO_MAP(FEMINT_X_ENUM)
#undef FEMINT_X_ENUM
};

/** @brief A short text for an error code ("non-positive Jacobian"). */
FEMINT_EXPORT const char *femint_strerror(int code);
/** @brief The name of an error code ("FEMINT_EJACOBIAN"). */
FEMINT_EXPORT const char *femint_error_name(int code);

/* ---- Context: the task runtime (StarPU), the division of cores (hwloc), the OpenCL programs. ---- */

typedef struct femint_context *femint_context_t;

/** Which worker kinds integration tasks may use. */
enum femint_where { FEMINT_WHERE_ANY = 0, FEMINT_WHERE_CPU = 1, FEMINT_WHERE_OPENCL = 2 };

/** Precision of integration (assembly is always double). */
enum femint_precision { FEMINT_DOUBLE = 0, FEMINT_SINGLE = 1 };

/** How femint_init() picks the OpenCL devices (femint_init_options.device_select). */
enum femint_device_select {
  FEMINT_DEVICE_ALL = 0,          /**< every device StarPU finds, at most nopencl (the default) */
  FEMINT_DEVICE_INDEX = 1,        /**< the one device opencl_device */
  FEMINT_DEVICE_BY_LOCAL_RANK = 2 /**< the one device local_rank modulo the number of devices
                                       (none, and CPU workers only, where there is no device) */
};

/** Options of femint_init(). device_select, opencl_device and local_rank left 0 keep every
 *  device, so an initializer that names only the first three members behaves as it always has. */
struct femint_init_options {
  int ncpu_workers;   /**< CPU workers (each an OpenMP team); 0: one per core left to them; at
                           most one per core of the process's cpuset (fewer are made otherwise) */
  int nopencl;        /**< OpenCL devices to use; -1: all StarPU finds; 0: none */
  int quiet;          /**< 1: StarPU prints no warnings on stderr */
  int device_select;  /**< enum femint_device_select; ignored when nopencl is 0 */
  int opencl_device;  /**< FEMINT_DEVICE_INDEX: the device, 0-based in StarPU's numbering (the
                           GPUs and accelerators, and CPUs with STARPU_OPENCL_ON_CPUS=1, of the
                           first OpenCL platform, then of the next...) */
  int local_rank;     /**< FEMINT_DEVICE_BY_LOCAL_RANK: this process's rank among the ranks of
                           its node; FEMINT_LOCAL_RANK_FROM_ENV reads it from the launcher */
};

/** local_rank read from the first of OMPI_COMM_WORLD_LOCAL_RANK (Open MPI), MPI_LOCALRANKID
 *  (MPICH, Intel MPI), MV2_COMM_WORLD_LOCAL_RANK (MVAPICH2) and SLURM_LOCALID (srun) that is
 *  set. */
#define FEMINT_LOCAL_RANK_FROM_ENV (-1)

/** @brief Start the runtime inside the process's cpuset. @param[in] opt options or NULL for the
 *  defaults (every core, every OpenCL device, StarPU's warnings shown).
 *  @param[out] ctx the context.
 *
 *  The cores are those of the process's CPU binding (taskset, mpirun --bind-to, a batch
 *  system's cgroup), as hwloc reads it: StarPU's workers and their OpenMP teams are bound to
 *  these cores only, so several processes (MPI ranks) bound to disjoint cpusets of one node do
 *  not share cores. One core is kept for each OpenCL device's driver worker and the other cores
 *  are divided into one group per CPU worker. With no more cores than OpenCL devices, the
 *  drivers and a single CPU worker share the cores (StarPU warns about it unless quiet).
 *  StarPU's variables take over when set: STARPU_WORKERS_CPUID, STARPU_WORKERS_COREID,
 *  STARPU_WORKERS_GETBIND and STARPU_WORKERS_NOBIND the binding, STARPU_NCPU the number of CPU
 *  workers, STARPU_NOPENCL and STARPU_WORKERS_OPENCLID the OpenCL devices.
 *  @return 0; FEMINT_EINVAL (a bad option or local rank variable); FEMINT_ENODEV (opencl_device
 *  is not a device); FEMINT_ERUNTIME (hwloc or StarPU failed, or the cpuset holds no core);
 *  FEMINT_ENOMEM. The message is femint_init_error()'s. */
FEMINT_EXPORT int femint_init(const struct femint_init_options *opt, femint_context_t *ctx);
/** @brief Stop the runtime and free the context; sets *ctx = NULL. */
FEMINT_EXPORT int femint_finalize(femint_context_t *ctx);
/** @brief The message of the last error on this context (never NULL). */
FEMINT_EXPORT const char *femint_last_error(femint_context_t ctx);
/** @brief The message of the last femint_init() failure (when there is no context). */
FEMINT_EXPORT const char *femint_init_error(void);

/** @brief Numbers of CPU workers, OpenCL workers and the OpenMP team size of each CPU worker. */
FEMINT_EXPORT int femint_context_workers(femint_context_t ctx, int *ncpu, int *nopencl,
                                         int *team_size);
/** @brief A human description of worker w (0 <= w < ncpu + nopencl). */
FEMINT_EXPORT int femint_context_worker_name(femint_context_t ctx, int w, char *buf, size_t len);

/** Where a worker runs. PU lists use the operating system's numbers of processing units, as
 *  taskset and /proc/cpuinfo do ("0-3,8"). */
struct femint_worker_binding {
  int kind;          /**< FEMINT_WHERE_CPU or FEMINT_WHERE_OPENCL */
  int team_size;     /**< CPU worker: threads of its OpenMP team; OpenCL worker: 0 */
  int opencl_device; /**< OpenCL worker: its device in StarPU's numbering; CPU worker: -1 */
  int failed;        /**< OpenCL worker: 1 once its device failed (a launch, an allocation);
                          it then takes no more work in the process */
  char pus[256];     /**< the PUs femint gave the worker: a CPU worker's team (thread i on the
                          i-th), an OpenCL worker's driver core */
  char bound[256];   /**< the PUs its threads were bound to, read on those threads by hwloc when
                          the context started; "" where the binding could not be read */
};
/** @brief The binding of worker w (0 <= w < ncpu + nopencl). @return 0, FEMINT_EINVAL. */
FEMINT_EXPORT int femint_context_worker_binding(femint_context_t ctx, int w,
                                                struct femint_worker_binding *binding);
/** @brief The process's cpuset that the workers share ("0-3,8", OS numbers of PUs) and how many
 *  cores it holds. Either output may be NULL. @return 0, FEMINT_EINVAL. */
FEMINT_EXPORT int femint_context_cpuset(femint_context_t ctx, char *buf, size_t len, int *ncores);
/** @brief The local rank that chose the OpenCL device (-1 when the rule was not asked for) and
 *  where it came from ("option" or the environment variable's name; NULL with -1). */
FEMINT_EXPORT int femint_context_local_rank(femint_context_t ctx, int *rank, const char **source);

/* ---- Reference elements ---- */

/** Element shapes. Meshes, spaces, forms and operators take every shape; the families a shape
 *  has are in femint_refel_info. */
enum femint_shape {
  FEMINT_PRISM = 1, /**< 3D, 6 vertices: hierarchical H1 of orders 1-7 (seed 000) */
  FEMINT_QUAD = 2,  /**< 2D, 4 vertices, straight or curved (8-node geometry): seed 003's
                         reduced Lobatto H1 space of orders 1-7 */
  FEMINT_TET = 3,   /**< 3D, 4 vertices, straight or curved (10-node geometry): hierarchical
                         H(curl) of orders 1-3 (seed 004), H1 Lagrange of orders 1-3 */
  FEMINT_HEX = 4,   /**< 3D, 8 vertices (Gmsh's order): H1 Lagrange on Gauss-Lobatto-Legendre
                         nodes of orders 1-10 (seed 001) */
  FEMINT_TRI = 5    /**< 2D, 3 vertices, straight or curved (6-node geometry): H1 Lagrange of
                         orders 1-3 */
};
/** Function space families. */
enum femint_family {
  FEMINT_H1 = 1,   /**< continuous fields of 1..5 components (every shape) */
  FEMINT_HCURL = 2 /**< vector fields with continuous tangential traces (tetrahedra) */
};
/** The highest order of any element; femint_refel_max_order gives each element's. */
#define FEMINT_MAX_ORDER 10

struct femint_refel_info {
  int nsh;       /**< shape functions (H(curl): vector functions) */
  int nq;        /**< quadrature points */
  int degree;    /**< exactness degree of the quadrature (polynomials of total degree <= degree;
                      the quadrilateral: in each variable) */
  int tri_points;  /**< prism: points of the triangle rule (nq = tri_points * line_points) */
  int line_points; /**< prism and quadrilateral: points of the Gauss-Legendre rule */
};
/** @brief Sizes of the reference element of a shape, family and order (the tetrahedron's rule
 *  is a symmetric one: no triangle or line points).
 *  @return 0; FEMINT_EORDER; FEMINT_ENOTSUP (an unknown shape, or a family the shape does not
 *  have, named). */
FEMINT_EXPORT int femint_refel_info(int shape, int family, int order,
                                    struct femint_refel_info *info);
/** @brief The highest order of the element of a shape and family (7 for the H1 prism and
 *  quadrilateral, 3 for the H(curl) tetrahedron, 10 for the H1 hexahedron), or 0 when the shape
 *  has no such family. */
FEMINT_EXPORT int femint_refel_max_order(int shape, int family);

/* ---- Meshes ----
 * One mesh type for every shape; a mesh holds cells of one shape. Vertices have 3 coordinates
 * (z = 0 for quadrilaterals). Cells are straight, or curved with one geometric node per edge
 * (8-node quadrilaterals, 10-node tetrahedra, 20-node hexahedra: the image of the edge's
 * midpoint). Every cell has
 * a material (0 unless a file or the caller gives one), every vertex a global id (its index,
 * unless a file or the caller gives one), every boundary face a tag (0: untagged).
 * Local vertex orders: a prism lists its bottom triangle 0,1,2 counter-clockwise seen from
 * above, then its top 3,4,5 above 0,1,2 (femint reorders the vertices of each cell so that
 * cells sharing a triangle list it alike); a quadrilateral lists its vertices counter-clockwise;
 * a tetrahedron is stored with its vertices in ascending order of their global ids, so that a
 * shared edge or face meets the same vertex order from both of its cells; a hexahedron lists its
 * vertices in Gmsh's order (bottom face counter-clockwise seen from above, then the top face),
 * any rotation of it. */

typedef struct femint_mesh *femint_mesh_t;

/** @brief A mesh of one shape from arrays. Checks every cell (det J > 0 everywhere on prisms,
 *  quadrilaterals and hexahedra, certified, not sampled; tetrahedra must not be flat or folded).
 *  @param[in] shape FEMINT_PRISM, FEMINT_QUAD, FEMINT_TET or FEMINT_HEX.
 *  @param[in] coords [nvert][dim] vertex coordinates, dim 3 (prisms, tetrahedra) or 2
 *  (quadrilaterals). @param[in] cells [ncell][nv] vertex indices (6, 4, 4 or 8 per cell, in the
 *  local order above; tetrahedra in any order).
 *  @param[in] edge_nodes NULL (straight cells) or [ncell][ne][dim]: the geometric node of each
 *  edge of each cell, making the cells curved. The edges of a cell are taken in the order of
 *  its vertices as given: a quadrilateral's (0,1), (1,2), (2,3), (3,0), a tetrahedron's (0,1),
 *  (0,2), (0,3), (1,2), (1,3), (2,3), a hexahedron's in Gmsh's order (0,1), (0,3), (0,4), (1,2),
 *  (1,5), (2,3), (2,6), (3,7), (4,5), (4,7), (5,6), (6,7); cells sharing an edge must give it
 *  the same node. Prisms are straight (NULL). Boundary faces get tag 0.
 *  @return 0; FEMINT_EINVAL (a NULL array, a count out of range); FEMINT_EMESH (a vertex index
 *  out of range or repeated, a coordinate that is not finite, a face of more than two cells,
 *  edge nodes that disagree: the cells named); FEMINT_EJACOBIAN (a tangled, clockwise or flat
 *  cell, named); FEMINT_ENOTSUP (edge nodes for prisms); FEMINT_ENOMEM. */
FEMINT_EXPORT int femint_mesh_create(femint_context_t ctx, int shape, int nvert,
                                     const double *coords, int ncell, const int *cells,
                                     const double *edge_nodes, femint_mesh_t *mesh);
/** @brief A rank's part of a mesh: femint_mesh_create with the global id of every vertex (which
 *  decides the local vertex order of the cells, the directions of the edges and the orientations
 *  of the faces; see "Distributed codes" below), the material of every cell and the tags of
 *  boundary faces. Boundary faces not listed, the faces between parts among them, have tag 0.
 *  @param[in] global_ids [nvert] distinct ids >= 0 (the numbers of the vertices in the whole mesh).
 *  @param[in] materials NULL (0 for every cell) or [ncell] (femint_mesh_cell_materials).
 *  @param[in] faces [nface][4] the vertices (indices into coords) of boundary faces in any order,
 *  -1 after the last (a triangle has 3, a quadrilateral's edge 2). @param[in] tags [nface] their
 *  tags (> 0). @return as femint_mesh_create; FEMINT_EMESH also for a repeated or negative global
 *  id and a listed face that is not a boundary face. */
FEMINT_EXPORT int femint_mesh_create_part(femint_context_t ctx, int shape, int nvert,
                                          const double *coords, const int64_t *global_ids,
                                          int ncell, const int *cells, const double *edge_nodes,
                                          const int *materials, int nface, const int *faces,
                                          const int *tags, femint_mesh_t *mesh);
/** @brief The box [0,lx]x[0,ly]x[0,lz] of nx*ny*nz hexahedral blocks (FEMINT_HEX), each cut
 *  into 2 prisms (FEMINT_PRISM) or into the 6 tetrahedra around its diagonal from (0,0,0) to
 *  (1,1,1) (FEMINT_TET); with FEMINT_QUAD the rectangle [0,lx]x[0,ly] of nx*ny quadrilaterals,
 *  with FEMINT_TRI of 2 nx*ny triangles (nz must be 1; lz is ignored). Interior vertices are moved at random by up to perturb times the
 *  smallest spacing (0 <= perturb < 0.5; the sequence depends on seed only); the move is shrunk
 *  until every cell is valid. Boundary faces are tagged 1..6 for x=0, x=lx, y=0, y=ly, z=0,
 *  z=lz (1..4 in 2D). Cells are numbered block by block, x fastest, then y, then z. */
FEMINT_EXPORT int femint_mesh_create_box(femint_context_t ctx, int shape, int nx, int ny, int nz,
                                         double lx, double ly, double lz, double perturb,
                                         unsigned seed, femint_mesh_t *mesh);
/** @brief The annulus sector r0 <= r <= r1, 0 <= theta <= angle as nr (radially) x nt curved
 *  8-node quadrilaterals whose circumferential edges have their nodes on the exact circles (the
 *  quadratic map approximates the arcs). Boundary edges are tagged 1: r = r0, 2: r = r1,
 *  3: theta = 0, 4: theta = angle. */
FEMINT_EXPORT int femint_mesh_create_annulus(femint_context_t ctx, int nr, int nt, double r0,
                                             double r1, double angle, femint_mesh_t *mesh);
/** @brief Make the cells curved (one node per edge, at its midpoint, if they were straight) and
 *  move every vertex and edge node x by y = x + amplitude * s(x) (1, 1, 1), s(x) = sin(pi x'/lx)
 *  sin(pi y'/ly) sin(pi z'/lz) with x' = x - the lower corner of the mesh's bounding box
 *  lx x ly x lz (in 2D without the z factor and component): the faces of the bounding box stay
 *  where they are. Quadrilaterals, triangles, tetrahedra and hexahedra (which become 20-node serendipity
 *  cells); the cells keep the exact image of the map at their nodes. Call before creating spaces on the mesh.
 *  @return 0; FEMINT_EINVAL (amplitude not finite); FEMINT_ENOTSUP (prisms);
 *  FEMINT_EJACOBIAN when a cell folds (named; the mesh is then unusable: destroy it). */
FEMINT_EXPORT int femint_mesh_warp(femint_mesh_t mesh, double amplitude);
/** @brief A mesh from a Gmsh MSH file: ASCII format 2.2, ASCII or binary format 4.1 (sections
 *  $MeshFormat, $PhysicalNames, $Nodes, $Elements; $Entities and $PartitionedEntities in 4.1;
 *  others are skipped). Elements of every type whose node count is known (Gmsh's types 1-33,
 *  36-66, 71-75, 90-98, 106-110, 118-124 and 137) are read. The cells are the file's elements
 *  of the highest dimension; their type decides the mesh:
 *  - 6-node prisms (type 6), whose node order (bottom triangle 0,1,2, top 3,4,5 above them) is
 *    the one of femint_mesh_create;
 *  - 4- and 10-node tetrahedra (types 4 and 11; the edge nodes of a 10-node cell make it curved,
 *    and a 4-node cell among them has straight edges);
 *  - 2D: 4-, 8- and 9-node quadrangles (types 3, 16, 10) in the plane z = 0: a clockwise cell
 *    (a surface whose normal is -z) is reversed; the edge nodes of 8- and 9-node cells make them
 *    curved; the centre node of a 9-node cell is ignored (femint's curved quadrilateral is the
 *    8-node serendipity element); or 3- and 6-node triangles (types 2, 9) in that plane.
 *  The boundary faces take the physical tag (2.2: the first tag; 4.1: the first physical tag of
 *  its entity; 0 if none) of the elements one dimension lower with their corners (triangles and
 *  quadrangles in 3D, lines in 2D; untagged ones are ignored). 8-, 20- and 27-node hexahedra
 *  (types 5, 17, 12): the edge nodes make a cell curved (20-node serendipity; the face and centre
 *  nodes of a 27-node cell are ignored). Cells of other shapes (pyramids, higher-order prisms)
 *  or of two shapes are refused, naming them.
 *  The physical tag of a cell (found the same way from its entity) is its material
 *  (femint_mesh_cell_materials), the node tag of a vertex its global id
 *  (femint_mesh_vertex_global_ids). Vertices are the corner nodes of the cells, numbered by
 *  ascending node tag; cells keep the order of the file (type by type in a file of straight and
 *  curved cells). A partitioned file (one written whole or one partition of it, as Gmsh writes
 *  with Mesh.PartitionSplitMeshFiles = 1) gives all the cells it holds, ghost cells left out; the
 *  entities of its partitions take the physical tags of their parents. ctx may be NULL (the
 *  message then goes to femint_last_error(NULL)).
 *  @return 0; FEMINT_EIO (the file cannot be read); FEMINT_ENOTSUP (binary 2.2, a version other
 *  than 2.x and 4.1, cells of another shape: "PATH: 120 hexahedra (Gmsh type 5): ...", a
 *  quadrangle off the plane z = 0); FEMINT_EMESH ("PATH:LINE: ..." in an ASCII file,
 *  "PATH: byte N: ..." in a binary one, for a missing or truncated section, a bad number, a count
 *  that does not match, an unknown element type or node tag, a bad byte-order marker, a tagged
 *  face that is not on the boundary, cells that give a shared edge different nodes);
 *  FEMINT_EJACOBIAN (a tangled or flat cell, named by its cell and line); FEMINT_ENOMEM. */
FEMINT_EXPORT int femint_mesh_read_gmsh(femint_context_t ctx, const char *path,
                                        femint_mesh_t *mesh);
/** @brief femint_mesh_read_gmsh, keeping only partition part of a partitioned file: the cells
 *  of its partition entities, the nodes they use (numbered by ascending node tag, their tags as
 *  global ids) and the tagged faces of its partition entities. The faces it shares with other
 *  partitions are boundary faces of the mesh, with tag 0. Each rank of an MPI code reads its
 *  part; the parts together have the cells of the whole.
 *  @param[in] part a partition, 1 to the number of partitions of the file, or -1 for all (as
 *  femint_mesh_read_gmsh). @return as femint_mesh_read_gmsh; FEMINT_EINVAL (part is neither -1
 *  nor a partition of the file, or the file is not partitioned); FEMINT_EMESH (the partition
 *  has no cell). */
FEMINT_EXPORT int femint_mesh_read_gmsh_part(femint_context_t ctx, const char *path, int part,
                                             femint_mesh_t *mesh);
/** @brief The shape of a mesh's cells (enum femint_shape), or FEMINT_EINVAL. */
FEMINT_EXPORT int femint_mesh_shape(femint_mesh_t mesh);
FEMINT_EXPORT int femint_mesh_destroy(femint_mesh_t *mesh);
FEMINT_EXPORT int femint_mesh_num_cells(femint_mesh_t mesh);
FEMINT_EXPORT int femint_mesh_num_vertices(femint_mesh_t mesh);
FEMINT_EXPORT int femint_mesh_num_boundary_faces(femint_mesh_t mesh);
/** @brief Geometric nodes per cell: the vertices (6, 4, 4) of straight cells, 8 for curved
 *  quadrilaterals, 10 for curved tetrahedra. */
FEMINT_EXPORT int femint_mesh_num_nodes(femint_mesh_t mesh);
/** @brief Vertex coordinates of a cell in femint's local order: X[nv][3] (z = 0 in 2D). */
FEMINT_EXPORT int femint_mesh_cell_coords(femint_mesh_t mesh, int cell, double *X);
/** @brief The geometric nodes of a cell: X[femint_mesh_num_nodes][3], the vertices as
 *  femint_mesh_cell_coords gives them, then the edge nodes of a curved cell in the local edge
 *  order (a quadrilateral's (0,1), (1,2), (2,3), (3,0); a tetrahedron's (0,1), (0,2), (0,3),
 *  (1,2), (1,3), (2,3)). */
FEMINT_EXPORT int femint_mesh_cell_nodes(femint_mesh_t mesh, int cell, double *X);
FEMINT_EXPORT int femint_mesh_vertex_coords(femint_mesh_t mesh, int vertex, double *x);
/** @brief Whether a vertex lies on the boundary (1) or not (0). */
FEMINT_EXPORT int femint_mesh_vertex_on_boundary(femint_mesh_t mesh, int vertex);
/** @brief Borrow the global id of every vertex (num_vertices values, valid until the mesh is
 *  destroyed): the Gmsh node tag for a mesh read from a file, the caller's for
 *  femint_mesh_create_part, the vertex index otherwise.
 *  @param[out] ids the array. @return 0, FEMINT_EINVAL. */
FEMINT_EXPORT int femint_mesh_vertex_global_ids(femint_mesh_t mesh, const int64_t **ids);
/** @brief Borrow the material of every cell (num_cells values, valid until the mesh is
 *  destroyed): the physical tag of the cell for a mesh read from a Gmsh file (0 if it has
 *  none), the caller's for femint_mesh_create_part, 0 otherwise. Forms take one coefficient per
 *  cell: a caller maps materials to them.
 *  @param[out] materials the array. @return 0, FEMINT_EINVAL. */
FEMINT_EXPORT int femint_mesh_cell_materials(femint_mesh_t mesh, const int **materials);
/** @brief The volume (area in 2D) of a mesh: the sum over its cells of the integral of |det J|
 *  (exact for prisms with straight edges and bilinear quadrilateral faces, 4- and 8-node
 *  quadrilaterals, 3- and 6-node triangles, 4- and 10-node tetrahedra and 8- and 20-node
 *  hexahedra). @return 0, FEMINT_EINVAL. */
FEMINT_EXPORT int femint_mesh_volume(femint_mesh_t mesh, double *volume);

/* ---- Function spaces: DOF maps ----
 * FEMINT_H1: prisms take the hierarchical basis of seed 000 (vertex, edge, face and interior
 * modes), quadrilaterals seed 003's reduced Lobatto space (vertex, edge and interior modes; p >= 4
 * keeps the interior modes of total degree <= p); per-cell orders with the minimum rule on
 * shared entities; modes of odd degree change sign with the direction of their edge.
 * Hexahedra, tetrahedra and triangles take Lagrange (nodal) functions, one order for every cell:
 * on Gauss-Lobatto-Legendre nodes (hexahedra, 1..10), on equispaced nodes (simplices, 1..3).
 * FEMINT_HCURL: tetrahedra take the hierarchical Nedelec (first kind) basis of seed 004 (edge,
 * face and interior functions; 6, 20, 45 per cell at orders 1, 2, 3), one order for every cell;
 * its functions are vector valued (one component). DOFs are numbered in the order in which the
 * cells meet them (cell 0's first, then those of cell 1 not met yet, ...). */

typedef struct femint_space *femint_space_t;

/** @brief A space of a family on a mesh.
 *  @param[in] family FEMINT_H1 (every shape) or FEMINT_HCURL (tetrahedra).
 *  @param[in] ncomp components: 1..5 for H1, 1 for H(curl).
 *  @param[in] orders one order per cell (prisms, quadrilaterals: 1..7; the nodal elements and
 *  H(curl): the same for every cell, femint_refel_max_order), or
 *  NULL with uniform_order. Shared edges and faces of an H1 space take the lowest order of their
 *  cells (the minimum rule) so that the space is conforming.
 *  @return 0; FEMINT_EINVAL; FEMINT_EORDER (a cell and its order named); FEMINT_ENOTSUP (a family
 *  the shape does not have, mixed orders where one is taken); FEMINT_EMESH (prisms that see a shared
 *  face in incompatible orders); FEMINT_ENOMEM. */
FEMINT_EXPORT int femint_space_create(femint_context_t ctx, femint_mesh_t mesh, int family,
                                      int ncomp, const int *orders, int uniform_order,
                                      femint_space_t *space);
FEMINT_EXPORT int femint_space_destroy(femint_space_t *space);
FEMINT_EXPORT int femint_space_family(femint_space_t space); /**< FEMINT_H1 or FEMINT_HCURL */
/** @brief Number of degrees of freedom (scalar modes times components; without removed ones). */
FEMINT_EXPORT int64_t femint_space_num_dofs(femint_space_t space);
FEMINT_EXPORT int femint_space_num_components(femint_space_t space);
FEMINT_EXPORT int femint_space_cell_order(femint_space_t space, int cell);
/** @brief The local DOFs of a cell, nsh * ncomp: the rows of its element matrix and the length
 *  of femint_space_cell_dofs' arrays (or FEMINT_EINVAL). */
FEMINT_EXPORT int femint_space_cell_size(femint_space_t space, int cell);
/** @brief Local-to-global map of a cell: for local index l = idof*ncomp + icomp (idof over the
 *  cell's nsh shape functions), dofs[l] is the DOF or -1 (a mode dropped by the minimum rule or
 *  removed by femint_space_remove_boundary_dofs) and signs[l] is +1 or -1 (orientation of the
 *  hierarchical mode; always +1 in H(curl)). Either may be NULL. */
FEMINT_EXPORT int femint_space_cell_dofs(femint_space_t space, int cell, int64_t *dofs,
                                         int *signs);
/** @brief Remove the DOFs of the boundary faces selected: ntag = 0, every boundary face, tagged
 *  or not; ntag = -1, every face with a tag > 0; else the faces whose tag is one of
 *  tags[0..ntag). H1: every component of the vertex, edge and face modes of those faces
 *  (homogeneous Dirichlet conditions); H(curl): the edge and face functions of those faces, whose
 *  tangential traces live there (perfect electric conductor walls, n x E = 0). The DOFs left are
 *  numbered again, in the same order. Calls add up. Call it before creating operators on the
 *  space: an operator made before it refuses its later verbs (FEMINT_ESTATE).
 *  @return 0; FEMINT_EINVAL; FEMINT_ESTATE (the space has global DOF numbers: remove first, then
 *  number); FEMINT_ENOMEM. */
FEMINT_EXPORT int femint_space_remove_boundary_dofs(femint_space_t space, int ntag,
                                                    const int *tags);
/** @brief The discrete gradient of an H(curl) space: u[num_dofs] = the coefficients of
 *  grad phi_h, phi_h the piecewise linear function with the vertex values phi[nvert], taken as
 *  0 at the vertices of edges whose DOFs were removed: phi[b] - phi[a] on the lowest-order
 *  (Whitney) function of every edge from vertex a to vertex b (a before b in the cells' order),
 *  0 on the others. A curl-curl matrix maps u to 0; a mass matrix does not.
 *  @return 0; FEMINT_EINVAL (NULL, or an H1 space). */
FEMINT_EXPORT int femint_space_gradient(femint_space_t space, const double *phi, double *u);
/** @brief Interpolate a field that is linear in x into an H1 space: u[c] = a[c] + sum_i b[c][i]
 *  x_i, b given row-major [ncomp][3] (in 2D the z column is ignored); u must hold num_dofs. The
 *  coefficients are those of the vertex modes, and on curved quadrilaterals also of the second
 *  edge modes, which the field needs there: exact wherever the edge order is >= 2 (an order-1
 *  curved edge cannot hold a linear field); removed DOFs are skipped. Either a or b may be NULL
 *  (zero). @return 0, FEMINT_EINVAL, FEMINT_ENOTSUP (an H(curl) space). */
FEMINT_EXPORT int femint_space_interpolate_linear(femint_space_t space, const double *a,
                                                  const double *b, double *u);
/** @brief Evaluate a finite element function at reference point xi of a cell: the physical
 *  point x[3] and the value val (ncomp values in H1; the 3 components of the vector field in
 *  H(curl), mapped covariantly); either output may be NULL. Reference cells: the prism
 *  {xi1, xi2 >= 0, xi1 + xi2 <= 1} x [-1,1]; the quadrilateral [-1,1]^2 (xi[0], xi[1]; z = 0);
 *  the tetrahedron {xi1, xi2, xi3 >= 0, xi1 + xi2 + xi3 <= 1}; the hexahedron [-1,1]^3; the
 *  triangle {xi1, xi2 >= 0, xi1 + xi2 <= 1}. Removed DOFs count as 0. */
FEMINT_EXPORT int femint_space_eval(femint_space_t space, const double *u, int cell,
                                    const double *xi, double *x, double *val);

/* ---- Weak forms ---- */

typedef struct femint_form *femint_form_t;

/** @brief Linear elasticity in 3D, Young's modulus and Poisson ratio per cell (ncell values
 *  each; a single value each when ncell_values == 1). 3 components, H1. */
FEMINT_EXPORT int femint_form_create_elasticity(femint_context_t ctx, int ncell_values,
                                                const double *young, const double *poisson,
                                                femint_form_t *form);
/** Plane elasticity (2D): plane stress (sigma_zz = 0, thin plates) or plane strain
 *  (eps_zz = 0). */
enum femint_plane { FEMINT_PLANE_STRESS = 0, FEMINT_PLANE_STRAIN = 1 };
/** @brief Plane linear elasticity of seed 003 on 2D meshes, Young's modulus and
 *  Poisson ratio per cell (or one value each when ncell_values == 1). 2 components, H1. */
FEMINT_EXPORT int femint_form_create_plane_elasticity(femint_context_t ctx, int plane,
                                                      int ncell_values, const double *young,
                                                      const double *poisson,
                                                      femint_form_t *form);
/** @brief The Laplacian with a scalar coefficient per cell, on each of ncomp components (H1). */
FEMINT_EXPORT int femint_form_create_laplace(femint_context_t ctx, int ncomp, int ncell_values,
                                             const double *kappa, femint_form_t *form);
/** @brief The mass matrix with a density per cell, on each of ncomp components (H1). */
FEMINT_EXPORT int femint_form_create_mass(femint_context_t ctx, int ncomp, int ncell_values,
                                          const double *rho, femint_form_t *form);
/** @brief The generic form of seed 000 (H1): per cell c[iE][jE][iD][jD] (ne*ne*16 values,
 *  iD,jD = 0 for values and 1..3 for x,y,z derivatives; iE/iD belong to the test function). On a
 *  2D mesh the z entries (iD or jD = 3) must be zero. The Laplace, mass and generic forms serve
 *  both dimensions; elasticity needs a 3D mesh, plane elasticity a 2D one. */
FEMINT_EXPORT int femint_form_create_generic(femint_context_t ctx, int ne, int ncell_values,
                                             const double *c, femint_form_t *form);
/** @brief The H(curl) mass form, entries integral of N_i . eps N_j (seed 004's T): eps per cell
 *  (or one for every cell when ncell_values == 1), a positive scalar each (tensor = 0:
 *  eps[ncell_values]) or a symmetric positive definite 3 x 3 tensor each (tensor = 1:
 *  eps[ncell_values][9], row-major). @return 0; FEMINT_EINVAL (a value that is not positive, a
 *  tensor that is not symmetric or not positive definite: the cell named); FEMINT_ENOMEM. */
FEMINT_EXPORT int femint_form_create_hcurl_mass(femint_context_t ctx, int ncell_values,
                                                int tensor, const double *eps,
                                                femint_form_t *form);
/** @brief The curl-curl form, entries integral of curl N_i . mu^-1 curl N_j (seed 004's S),
 *  with mu per cell as eps of femint_form_create_hcurl_mass (femint inverts it). */
FEMINT_EXPORT int femint_form_create_curlcurl(femint_context_t ctx, int ncell_values, int tensor,
                                              const double *mu, femint_form_t *form);
FEMINT_EXPORT int femint_form_destroy(femint_form_t *form);
/** @brief Components of the fields the form acts on (1 for the H(curl) forms). */
FEMINT_EXPORT int femint_form_num_components(femint_form_t form);

/* ---- Sparse matrices ---- */

typedef struct femint_matrix *femint_matrix_t;
/** A vector of a space's DOFs that stays where the tasks use it (femint_matfree.h). */
typedef struct femint_vector *femint_vector_t;

FEMINT_EXPORT int femint_matrix_destroy(femint_matrix_t *matrix);
/** @brief Borrow the CSR arrays (valid until the matrix is destroyed; columns ascend in each
 *  row); any output may be NULL. */
FEMINT_EXPORT int femint_matrix_csr(femint_matrix_t matrix, int64_t *nrows, const int64_t **rowptr,
                                    const int64_t **colind, const double **values);
/** @brief y = A x. */
FEMINT_EXPORT int femint_matrix_mult(femint_matrix_t matrix, const double *x, double *y);
/** @brief Write the matrix in Matrix Market coordinate format (general, real). */
FEMINT_EXPORT int femint_matrix_write_mm(femint_context_t ctx, femint_matrix_t matrix,
                                         const char *path);

/* ---- Operators: a space and its forms, with what does not change between calls kept ---- */

typedef struct femint_operator *femint_operator_t;

/** OpenCL kernel variants of the H1 volume integration (seed 000's four and the dense-product
 *  form). AUTO takes the fastest measured one for the device, order and precision (measured
 *  once and cached next to StarPU's performance models), or GEMM before any measurement. */
enum femint_variant {
  FEMINT_VARIANT_AUTO = 0,
  FEMINT_VARIANT_REG_NOJAC = 1, /**< element matrix blocks in registers, Jacobian terms from the host */
  FEMINT_VARIANT_REG_JAC = 2,   /**< blocks in registers, Jacobians computed on the device */
  FEMINT_VARIANT_SHM_NOJAC = 3, /**< blocks in local (shared) memory, Jacobian terms from the host */
  FEMINT_VARIANT_SHM_JAC = 4,   /**< blocks in local memory, Jacobians on the device */
  FEMINT_VARIANT_GEMM = 5       /**< S_de = Psi_d^T Psi_e as register-tiled dense products,
                                     cells mapped on the device from their nodes */
};
/** @brief The name of a variant ("auto", "reg_nojac", ..., "gemm"), or NULL; the variant of a
 *  name, or -1. */
FEMINT_EXPORT const char *femint_variant_name(int variant);
FEMINT_EXPORT int femint_variant_parse(const char *name);

/** How femint_operator_assemble sums the element matrices into the CSR matrices. */
enum femint_assembly {
  FEMINT_ASSEMBLY_AUTO = 0, /**< COO on a GPU that may do the sums, and for H(curl) on any
                                 OpenCL device that may; else ROWS (the faster as measured,
                                 doc/performance.md) */
  FEMINT_ASSEMBLY_ROWS = 1, /**< assembly tasks on CPU workers add each batch's element matrices
                                 into the row blocks of the matrices it touches (batches that
                                 share no block at the same time) */
  FEMINT_ASSEMBLY_COO = 2   /**< the element matrices of every batch gathered as COO values on
                                 one node (the first usable OpenCL device, or main memory), then
                                 summed into CSR values through a kept pattern (seed 004): only
                                 the CSR values come back from a device */
};

/** How femint_operator_residual's OpenCL kernel maps cells to work-items. */
enum femint_residual_kernel {
  FEMINT_RESIDUAL_AUTO = 0,       /**< CELLWISE, unless residual_cells or residual_batches
                                       ask for the transposed kernel's batches */
  FEMINT_RESIDUAL_TRANSPOSED = 1, /**< seed 002's thread transposition: a work-group takes
                                       batches of cells, its work-items the (cell, point) pairs,
                                       then the (cell, component, function) triples */
  FEMINT_RESIDUAL_CELLWISE = 2    /**< a work-item takes a cell, in its registers */
};

struct femint_operator_options {
  int precision;      /**< FEMINT_DOUBLE or FEMINT_SINGLE (integration and COO sums; ROWS
                           assembly is double) */
  int where;          /**< FEMINT_WHERE_ANY, _CPU or _OPENCL: the workers that may integrate */
  int max_batch;      /**< most cells per batch; 0: chosen from the element matrix size */
  int variant;        /**< enum femint_variant of the H1 OpenCL kernel (0: automatic) */
  int symmetric;      /**< 1: element matrices travel as their upper half (symmetric forms) */
  int assembly;       /**< enum femint_assembly */
  int phases;         /**< 1: wait for each phase before the next, so that femint_stats times
                           them apart (integration, then assembly or sums); 0: they overlap */
  int apply_rule;     /**< femint_operator_apply: 0, p + 2 Gauss points per direction (CEED's
                           BP1-BP4); 1, the p + 1 Gauss-Lobatto nodes, collocated (BP5, BP6) */
  int apply_geometry; /**< femint_operator_apply: 0, the quadrature data stored per point; 1,
                           recomputed per point from 26 values per cell (trilinear cells) */
  int residual_cells;   /**< femint_operator_residual's transposed OpenCL kernel: cells per
                             batch (seed 002's blocks x block size; 0: enough for 128 items) */
  int residual_batches; /**< and batches per work-group, one after the other (0: 1) */
  int residual_kernel;  /**< enum femint_residual_kernel: how the OpenCL kernel maps cells to
                             work-items */
  int reproducible;   /**< 1: the contributions to each matrix entry are summed in a fixed order
                           (the plan's), so that the matrix is the same to the bit from run to
                           run and for any batching; 0: in the order the batches finish */
  int devices;        /**< OpenCL devices the tasks may use. 0: femint chooses: every device
                           where results go to main memory (rows assembly, integrate), every GPU
                           for the COO assembly, one for apply, CG and residual; k > 0: the first
                           k. The COO assembly splits the rows among its devices, apply, CG and
                           residual (k >= 2) the DOFs: each device computes its own */
  int matrix_on_device; /**< 1: where the COO sums run on one OpenCL device with double
                             precision, the assembled matrices' values stay there: nothing comes
                             back; femint_matrix_mult_vector multiplies there, and the values
                             come to main memory when first read (femint_matrix_csr,
                             femint_matrix_mult, femint_matrix_write_mm) or when the context
                             ends. Elsewhere (CPU sums, rows, several devices) they come back
                             as usual */
  const char *timeline; /**< NULL, or a CSV file (the path is copied) that each verb writes its
                             tasks to (worker, kind, codelet, order, cells, start and end in
                             seconds, batch, ready time): a Gantt chart's data */
  /* Optional subset of the cells: a rank's part of a mesh that every rank of an MPI code holds
   * whole (see "Distributed codes" below). The matrices, the element matrices handed to a
   * femint_element_fn and the load vectors then come from these cells only. */
  const int *cells; /**< NULL: every cell of the mesh; else ncells distinct cell numbers, in the
                         order in which they should be batched */
  int ncells;       /**< how many cells lists (0 is allowed: nothing is integrated) */
};

/** @brief An operator: the forms (nform of them, all of the space's family and components) on
 *  the space, with their plan (cells grouped by order and form and cut into batches of
 *  neighbouring cells), reference tables and OpenCL programs made now, and the sparsity pattern
 *  made by the first assembly and kept. The space and the forms must outlive the operator and
 *  keep their DOFs (femint_space_remove_boundary_dofs afterwards makes the verbs fail).
 *  @param[in] opt NULL for the defaults (double, every worker, automatic batches, variant and
 *  assembly). @return 0; FEMINT_EINVAL (a bad option, a cell of opt->cells outside the mesh or
 *  listed twice, forms of another family or number of components or for another dimension,
 *  coefficients for a different number of cells: each named); FEMINT_ENODEV (opt->where names
 *  workers StarPU does not have); FEMINT_ENOTSUP (symmetric storage of a form that is not
 *  symmetric); FEMINT_EOPENCL (a program that does not build: its log in the message);
 *  FEMINT_ENOMEM. */
FEMINT_EXPORT int femint_operator_create(femint_context_t ctx, femint_space_t space, int nform,
                                         const femint_form_t *forms,
                                         const struct femint_operator_options *opt,
                                         femint_operator_t *op);
FEMINT_EXPORT int femint_operator_destroy(femint_operator_t *op);

#define FEMINT_MAX_WORKERS 64
/** Statistics of one call of a verb. Times in seconds (wall clock). */
struct femint_stats {
  int nform, ncell, nbatch, ngroup;
  int ntask;           /**< StarPU tasks submitted */
  int assembly;        /**< femint_operator_assemble: FEMINT_ASSEMBLY_ROWS or _COO as taken;
                            0 for the other verbs */
  int on_device;       /**< COO: the pattern and the sums ran on an OpenCL device */
  int values_on_device; /**< COO: the matrices' values stayed there (matrix_on_device) */
  int pattern_built;   /**< this call built the sparsity pattern (the first assembly) */
  int nblock;          /**< ROWS: row blocks of each matrix */
  double blocks_per_batch; /**< ROWS: row blocks an assembly task writes, on average */
  int64_t ndof, nnz;   /**< DOFs; non-zeros of each matrix (0 when not assembled) */
  int64_t ncontrib;    /**< COO: element matrix entries summed into each matrix */
  int calibrating;     /**< integration tasks placed while their performance model was not
                            calibrated on some worker (dmda measures them; later runs place them
                            by the model) */
  double flops_seed;   /**< flops counted as seed 000 counts them (63 per 3x3 block for
                            elasticity; H(curl): 2 per term of the element matrices) */
  double t_programs;   /**< OpenCL programs this call built (the COO kernels of the first
                            assembly on a device) */
  double t_pattern;    /**< the sparsity pattern (first assembly only) */
  double t_pack;       /**< inputs of every batch (geometry, coefficients) and the matrices'
                            arrays */
  double t_integrate;  /**< the element matrices (with phases = 0: every task, assembly or sums
                            included) */
  double t_sum;        /**< phases = 1: assembly tasks (ROWS) or COO sums; else 0 */
  double t_download;   /**< COO on a device: the CSR values to main memory */
  double t_tasks;      /**< submission of the first task to the end of the last one */
  double t_total;
  int tasks_cpu, tasks_opencl; /**< integration tasks run by each kind of worker */
  int nworker;
  int worker_is_opencl[FEMINT_MAX_WORKERS];
  int worker_tasks_integrate[FEMINT_MAX_WORKERS];
  int worker_tasks_assemble[FEMINT_MAX_WORKERS]; /**< assembly or sum tasks */
  double worker_busy[FEMINT_MAX_WORKERS];        /**< seconds executing tasks */
};

/** @brief Integrate the forms over the operator's cells and assemble one CSR matrix (double)
 *  per form, A[0..nform): num_dofs rows, the pattern of the cells integrated (shared by the
 *  matrices). The first call builds the pattern, later ones reuse it; from the third on, when
 *  they sum on a device, their matrices' values are host memory of the context's (pinned on a
 *  GPU), taken again by the next assembly once the matrix is destroyed, and copied out by
 *  femint_finalize if it lives on.
 *  @param[out] A nform new matrices. @param[out] stats may be NULL.
 *  @return 0; FEMINT_ESTATE (the space has global DOF numbers, whose matrices belong to the
 *  caller and come through femint_operator_integrate, or its DOFs changed after the operator
 *  was made); the errors of the runtime. */
FEMINT_EXPORT int femint_operator_assemble(femint_operator_t op, femint_matrix_t *A,
                                           struct femint_stats *stats);

/** A batch of element matrices handed to a femint_element_fn: cells of one order and form,
 *  integrated together on one worker. Row i of an element matrix is local index idof*ncomp +
 *  icomp; the entry of global DOFs (dofs[i], dofs[j]) is signs[i] * signs[j] * A_ij (orientation
 *  of the hierarchical edge and face modes), and rows with dofs[i] < 0 (modes the minimum rule
 *  drops, removed DOFs) are ignored. */
struct femint_element_batch {
  int form;             /**< which of the operator's forms (0..nform-1) */
  int ncell;            /**< cells in the batch */
  const int *cells;     /**< [ncell] mesh cell numbers */
  int order;            /**< polynomial order of these cells */
  int n;                /**< rows (and columns) of each element matrix: nsh * ncomp */
  int precision;        /**< FEMINT_DOUBLE: mats holds doubles; FEMINT_SINGLE: floats */
  int symmetric;        /**< 0: each matrix is n*n row-major; 1: its upper half, row by row,
                             n(n+1)/2 values (femint_operator_options.symmetric) */
  const void *mats;     /**< [ncell][n*n or n(n+1)/2] the element matrices */
  const int64_t *dofs;  /**< [ncell][n] global DOF of each row (-1: none) */
  const int *signs;     /**< [ncell][n] orientation sign (+1 or -1) of each row */
};
/** What femint_operator_integrate calls for each batch; it returns 0 to go on. It runs on the
 *  thread that called femint_operator_integrate, never on a worker, so it may call MPI or a
 *  solver library. The arrays of the batch are valid during the call only. */
typedef int (*femint_element_fn)(const struct femint_element_batch *batch, void *user);

/** @brief Integrate the forms over the operator's cells, as femint_operator_assemble does, and
 *  hand the element matrices to fn batch by batch (in the order of the plan, while later batches
 *  are still being integrated) instead of assembling them. dofs carry the space's global numbers
 *  when it has them (femint_space_set_global_dofs). fn may be NULL: the matrices are computed,
 *  brought to main memory and dropped (a measure of the integration alone).
 *  @return 0; FEMINT_ECALLBACK when fn returned non-zero (the work stops; the tasks already
 *  submitted finish first); FEMINT_ESTATE; the errors of the runtime. */
FEMINT_EXPORT int femint_operator_integrate(femint_operator_t op, femint_element_fn fn,
                                            void *user, struct femint_stats *stats);

/** Body force or boundary data: value[ncomp] (H(curl): the 3 components of a vector) at
 *  physical point x, unit outward normal n (boundary only; NULL for body forces), on face tag
 *  (0 for body forces). Called from worker threads, so it must be thread-safe. */
typedef void (*femint_field_fn)(const double x[3], const double n[3], int tag, void *user,
                                double *value);

/** A load vector: the integrals of body . v over the cells and of traction . v over boundary
 *  faces, v the shape functions (their orientation signs applied). */
struct femint_load {
  femint_field_fn body;     /**< NULL: no body force */
  femint_field_fn traction; /**< NULL: no boundary term (Neumann data: a traction for
                                 elasticity, a flux for the Laplacian, n x H in H(curl)) */
  int ntag;                 /**< the faces of the traction: 0, every face with a tag > 0; else
                                 the faces whose tag is one of tags[0..ntag) */
  const int *tags;
  void *user;               /**< passed to body and traction */
};
/** @brief rhs += the load over the operator's cells (body forces over them, tractions over their
 *  boundary faces), in tasks on CPU workers at once: body and traction are called from several
 *  threads together. Each cell's vector is added in the cells' order, so that the sums are the
 *  same whatever ran where. rhs has num_dofs values; removed DOFs get nothing.
 *  @return 0; FEMINT_EINVAL (NULL rhs or load, neither function given, bad tags); FEMINT_ENODEV
 *  (no CPU worker); FEMINT_ESTATE; the errors of the runtime. */
FEMINT_EXPORT int femint_operator_load(femint_operator_t op, const struct femint_load *load,
                                       double *rhs);

/** @brief The element matrix of one cell (any cell of the mesh) for form `form`, dense
 *  row-major n x n with n = nsh*ncomp, local index idof*ncomp + icomp, orientation signs NOT
 *  applied (femint_space_cell_dofs gives them). Computed on the CPU in double, as the CPU
 *  workers compute it. @param[out] A n*n values. */
FEMINT_EXPORT int femint_operator_element_matrix(femint_operator_t op, int form, int cell,
                                                 double *A);

/** @brief How the host plans the H1 integration kernel of an order on OpenCL device `device`
 *  (seed 000's Tables 3-4) as "key: value" lines in buf. */
FEMINT_EXPORT int femint_plan_describe(femint_context_t ctx, femint_form_t form, int order,
                                       int precision, int variant, int symmetric, int device,
                                       char *buf, size_t len);

/* ---- Errors of a solution ---- */

/** @brief The squared L2 distance, sum over the cells listed of the integral of |u_h - exact|^2,
 *  between the finite element function u (num_dofs values) and a field (exact(x, NULL, 0, user,
 *  value): ncomp values in H1, 3 in H(curl); NULL: the squared L2 norm of u_h), with a quadrature
 *  of degree 2p+2 (at most 14). A distributed code sums it over its ranks.
 *  @param[in] cells the ncells cells, or NULL for every cell. @param[out] err2 the sum.
 *  @return 0, FEMINT_EINVAL (a cell outside the mesh). */
FEMINT_EXPORT int femint_space_l2_error(femint_space_t space, const double *u, int ncells,
                                        const int *cells, femint_field_fn exact, void *user,
                                        double *err2);

/** @brief The DOFs on boundary faces (every component of the vertex, edge and face modes of
 *  each face; in H(curl) its edge and face functions), ascending, each once: where Dirichlet
 *  conditions go. ntag = 0: every boundary face, tagged or not (of a part of a mesh, the faces
 *  between parts too); ntag = -1 (tags ignored): every face with a tag > 0 (of a part whose whole
 *  has every boundary face tagged, its share of the boundary of the whole); else the faces whose
 *  tag is one of tags[0..ntag). Call with dofs = NULL for the count.
 *  @param[out] ndofs how many. @param[out] dofs NULL, or room for *ndofs values.
 *  @return 0, FEMINT_EINVAL, FEMINT_ENOMEM. */
FEMINT_EXPORT int femint_space_boundary_dofs(femint_space_t space, int ntag, const int *tags,
                                             int64_t *ndofs, int64_t *dofs);

#ifdef __cplusplus
}
#endif

/* Matrix-free operators, vectors and solvers; the timing of the kernels' stages; distributed
 * codes. */
#include "femint_bench.h"
#include "femint_matfree.h"
#include "femint_mpi.h"
#include "femint_pointwise.h"

#endif
