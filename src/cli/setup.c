/* What femint run and femint bench integrate: the options that choose the element, the mesh, the
 * space, the problem and the orders (one table that both commands embed), their defaults by
 * element and checks, and the mesh, space and forms made from them. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char *const cli_problem_names[] = {"elasticity", "laplace", "mass", "maxwell", NULL};
const char *const cli_element_names[] = {"prism", "quad", "tet", "hex", "tri", NULL};
const int cli_element_values[] = {FEMINT_PRISM, FEMINT_QUAD, FEMINT_TET, FEMINT_HEX, FEMINT_TRI};
const char *const cli_space_names[] = {"h1", "hcurl", NULL};
const int cli_space_values[] = {FEMINT_H1, FEMINT_HCURL};
static const char *const pec_names[] = {"all", "none", NULL};
static const int pec_values[] = {1, 0};

#define S(member) offsetof(struct cli_setup, member)
const struct cli_option cli_setup_options[] = {
  {CLI_OPT("--element", CLI_CHOICE, S(shape),
           "the cells: prism, 3D prisms with hierarchical H1 functions of orders 1-7 (seed 000); "
           "quad, 2D quadrilaterals, straight or curved (8-node), with reduced Lobatto H1 "
           "functions of orders 1-7 (seed 003); tet, tetrahedra, straight or curved (10-node), "
           "with hierarchical H(curl) functions of orders 1-3 (seed 004) or (--space h1) Lagrange "
           "H1 functions of orders 1-3; hex, hexahedra, straight or curved (20-node), with "
           "Lagrange H1 functions on Gauss-Lobatto-Legendre nodes of orders 1-10 (seed 001); tri, "
           "2D triangles, straight or curved (6-node), with Lagrange H1 functions of orders 1-3 "
           "(default prism; for femint run with a Gmsh file, the shape of its cells)",
           NULL), .choices = cli_element_names, .values = cli_element_values},
  {CLI_OPT("--mesh", CLI_MESH, S(mesh),
           "box:NX,NY,NZ, the box [0,NX]x[0,NY]x[0,NZ] of unit blocks, each a hexahedron or cut "
           "into 2 prisms or 6 tetrahedra (quad and tri: box:NX,NY,1 is rect:NX,NY); gmsh:FILE, or "
           "a FILE ending in .msh, the cells of a Gmsh MSH file (2.2, 4.1 ASCII or binary), of the "
           "element's shape; rect:NX,NY (quad, tri), NX*NY unit squares (tri: each cut into 2 "
           "triangles); annulus:NR,NT (quad), a quarter of the annulus 1 <= r <= 2 in NR x NT "
           "curved 8-node cells (default box:6,6,4 for prism, rect:16,16 for quad and tri, "
           "box:4,4,4 for tet and hex; bench --coexec: box:16,16,8)",
           "box:NX,NY,NZ|gmsh:FILE|rect:NX,NY|annulus:NR,NT")},
  {CLI_OPT("--perturb", CLI_REAL, S(perturb),
           "box and rect: move interior vertices at random by up to F times the spacing, "
           "0 <= F < 0.5 (default 0.2; H(curl) tet: 0, the regular box)",
           "F"), .lo = 0, .hi = 0.5, .flags = CLI_HI_OPEN},
  {CLI_OPT("--seed", CLI_INT, S(seed),
           "box and rect: seed of the perturbation (default 1)", "N"), .min = 0, .max = UINT_MAX},
  {CLI_OPT("--curved", CLI_REAL, S(curved),
           "quad, tri, tet and hex on a generated mesh: curved cells (8-, 6-, 10- and 20-node) "
           "whose nodes move by "
           "A sin(pi x/lx) sin(pi y/ly) sin(pi z/lz) (1, 1, 1) over the bounding box lx x ly x lz "
           "(no z in 2D), so that its faces stay, 0 <= A < 0.5 (default 0: straight cells)",
           "A"), .lo = 0, .hi = 0.5, .flags = CLI_HI_OPEN},
  {CLI_OPT("--space", CLI_CHOICE, S(family),
           "the function space: h1 (every element) or hcurl (tet) (default: hcurl for tet unless "
           "--problem is an H1 one, else h1)", NULL), .choices = cli_space_names, .values = cli_space_values},
  {CLI_OPT("--problem", CLI_CHOICE, S(problem),
           "on H1: elasticity (E = 1, nu = 0.3; plane stress in 2D), laplace (kappa = "
           "1) or mass (rho = 1); on H(curl): maxwell, the mass matrix T (eps) and the curl-curl "
           "matrix S (1/mu) (default elasticity; tet: maxwell)",
           NULL), .choices = cli_problem_names},
  {CLI_OPT("--order", CLI_ORDERS, S(orders),
           "H1: orders 1..7, a list of orders P and ranges P1-P2, cell c taking the (c mod n)-th "
           "(default 1-4; bench's kernel sweep: 1-7); hexahedra: one order, 1..10 (default 3); "
           "Lagrange triangles and tetrahedra: one order, 1..3 (default 2); H(curl): one order, "
           "1, 2 or 3, with 6, 20 or 45 functions per cell (default 3)",
           "P|P1-P2|P1,P2,...")},
  {CLI_OPT("--pec", CLI_CHOICE, S(pec),
           "H(curl): perfect electric conductor walls (n x E = 0) on every boundary face, whose "
           "DOFs are removed, or none (default all)",
           NULL), .choices = pec_names, .values = pec_values},
  {CLI_OPT("--eps", CLI_REAL, S(eps),
           "maxwell: the relative permittivity in T, > 0 (default 1)",
           "X"), .lo = 0, .hi = INFINITY, .flags = CLI_LO_OPEN},
  {CLI_OPT("--mu", CLI_REAL, S(mu),
           "maxwell: the relative permeability, 1/mu in S, > 0 (default 1)",
           "X"), .lo = 0, .hi = INFINITY, .flags = CLI_LO_OPEN},
};
_Static_assert(sizeof cli_setup_options / sizeof cli_setup_options[0] == CLI_SETUP_NOPTIONS,
               "CLI_SETUP_NOPTIONS counts the rows of cli_setup_options");

const char *cli_shape_name(int shape)
{
  return shape >= FEMINT_PRISM && shape <= FEMINT_TRI ? cli_element_names[shape - 1] : "?";
}

const char *cli_shape_plural(int shape)
{
  static const char *const plural[] = {"prisms", "quadrilaterals", "tetrahedra", "hexahedra",
                                       "triangles"};
  return shape >= FEMINT_PRISM && shape <= FEMINT_TRI ? plural[shape - 1] : "?";
}

int cli_shape_dim(int shape) { return shape == FEMINT_QUAD || shape == FEMINT_TRI ? 2 : 3; }

int cli_shape_vertices(int shape)
{
  static const int nv[] = {6, 4, 4, 8, 3};
  return shape >= FEMINT_PRISM && shape <= FEMINT_TRI ? nv[shape - 1] : 0;
}

const char *cli_family_name(int family)
{
  return family == FEMINT_HCURL ? "hcurl" : "h1";
}

int cli_problem_components(int problem, int shape)
{
  return problem == PROBLEM_MAXWELL || problem == PROBLEM_LAPLACE ? 1 : cli_shape_dim(shape);
}

static double mesh_cells(const struct cli_setup *s)
{
  const struct cli_mesh *m = &s->mesh;
  const double blocks = (double)m->nx * m->ny * m->nz;
  if (s->shape == FEMINT_TRI) return 2 * blocks;
  if (m->kind != CLI_MESH_BOX) return blocks;
  return blocks * (s->shape == FEMINT_TET ? 6 : s->shape == FEMINT_HEX ? 1 : 2);
}

/* The element, mesh and orders agree; defaults of the mesh and orders. */
static int resolve_mesh(struct cli_setup *s)
{
  const int hcurl = s->family == FEMINT_HCURL, flat = cli_shape_dim(s->shape) == 2;
  const int quad = s->shape == FEMINT_QUAD;
  const char *el = cli_shape_name(s->shape);
  char text[300];
  if (hcurl) {
    if (s->orders.n == 0) s->orders = (struct cli_orders){1, {3}};
    cli_orders_text(&s->orders, text, sizeof text);
    if (s->orders.n > 1)
      return cli_fail_usage("--order %s: H(curl) tetrahedra take one order for every cell (1, 2 "
                            "or 3), not a list",
                            text);
    if (s->orders.p[0] > 3)
      return cli_fail_usage("--order %d: H(curl) tetrahedra have orders 1, 2 and 3",
                            s->orders.p[0]);
  } else if (s->shape == FEMINT_HEX) {
    if (s->orders.n == 0) s->orders = (struct cli_orders){1, {3}};
    cli_orders_text(&s->orders, text, sizeof text);
    if (s->orders.n > 1)
      return cli_fail_usage("--order %s: hexahedra take one order for every cell (1..10), not a "
                            "list",
                            text);
  } else if (s->shape == FEMINT_TRI || s->shape == FEMINT_TET) {
    if (s->orders.n == 0) s->orders = (struct cli_orders){1, {2}};
    cli_orders_text(&s->orders, text, sizeof text);
    if (s->orders.n > 1)
      return cli_fail_usage("--order %s: Lagrange %s take one order for every cell (1, 2 or 3), "
                            "not a list",
                            text, cli_shape_plural(s->shape));
  } else if (s->orders.n == 0) {
    s->orders = (struct cli_orders){4, {1, 2, 3, 4}};
  }
  const int pmax = femint_refel_max_order(s->shape, s->family);
  for (int k = 0; k < s->orders.n; k++)
    if (s->orders.p[k] > pmax)
      return cli_fail_usage("--order %d: the %s element has orders 1..%d", s->orders.p[k], el,
                            pmax);
  struct cli_mesh *m = &s->mesh;
  if (m->kind == CLI_MESH_NONE)
    *m = flat ? (struct cli_mesh){CLI_MESH_RECT, 16, 16, 1, NULL}
         : s->shape == FEMINT_PRISM ? (struct cli_mesh){CLI_MESH_BOX, 6, 6, 4, NULL}
                                    : (struct cli_mesh){CLI_MESH_BOX, 4, 4, 4, NULL};
  cli_mesh_text(m, text, sizeof text);
  if ((m->kind == CLI_MESH_RECT && !flat) || (m->kind == CLI_MESH_ANNULUS && !quad))
    return cli_fail_usage("--mesh %s: %s; --element %s takes box:NX,NY,NZ or gmsh:FILE", text,
                          m->kind == CLI_MESH_RECT ? "rectangles are 2D (--element quad or tri)"
                                                   : "annuli are made of quadrilaterals",
                          el);
  if (m->kind == CLI_MESH_BOX && flat) {
    if (m->nz != 1)
      return cli_fail_usage("--mesh %s: %s fill a rectangle, box:NX,NY,1 or rect:NX,NY", text,
                            cli_shape_plural(s->shape));
    m->kind = CLI_MESH_RECT;
  }
  if (m->kind != CLI_MESH_GMSH && mesh_cells(s) > (double)CLI_MAX_CELLS)
    return cli_fail_usage("--mesh %s: %.0f %s is too many (at most %ld cells)", text,
                          mesh_cells(s), cli_shape_plural(s->shape), CLI_MAX_CELLS);
  const int grid = m->kind == CLI_MESH_BOX || m->kind == CLI_MESH_RECT;
  if (s->perturb >= 0 && !grid)
    return cli_fail_usage("--perturb: for box and rect meshes, not --mesh %s", text);
  if (s->seed >= 0 && !grid)
    return cli_fail_usage("--seed: for box and rect meshes, not --mesh %s", text);
  if (s->perturb < 0) s->perturb = hcurl || !grid ? 0 : 0.2;
  if (s->seed < 0) s->seed = 1;
  if (s->curved > 0 && s->shape == FEMINT_PRISM)
    return cli_fail_usage("--curved %g: %s are straight; --curved is for --element quad, tri, "
                          "tet and hex",
                          s->curved, cli_shape_plural(s->shape));
  if (s->curved > 0 && m->kind == CLI_MESH_GMSH)
    return cli_fail_usage("--curved %g: for generated meshes; a Gmsh file (%s) brings its own "
                          "curved cells",
                          s->curved, m->file);
  return 0;
}

int cli_setup_resolve(struct cli_setup *s)
{
  const int tet = s->shape == FEMINT_TET;
  const char *el = cli_shape_name(s->shape);
  if (s->family == FEMINT_HCURL && !tet)
    return cli_fail_usage("--space hcurl: --element %s has the H1 space only (H(curl) is "
                          "--element tet's)",
                          el);
  /* a tetrahedron is H(curl) unless the space or an H1 problem says otherwise */
  if (!s->family)
    s->family = tet && (s->problem < 0 || s->problem == PROBLEM_MAXWELL) ? FEMINT_HCURL : FEMINT_H1;
  const int hcurl = s->family == FEMINT_HCURL;
  if (s->problem < 0) s->problem = hcurl ? PROBLEM_MAXWELL : PROBLEM_ELASTICITY;
  if (hcurl && s->problem != PROBLEM_MAXWELL)
    return cli_fail_usage("--problem %s: the H(curl) space of --element tet has --problem maxwell",
                          cli_problem_names[s->problem]);
  if (!hcurl && s->problem == PROBLEM_MAXWELL)
    return cli_fail_usage("--problem maxwell: needs the H(curl) space of --element tet, not %s",
                          tet ? "--space h1" : cli_shape_plural(s->shape));
  int rc = resolve_mesh(s);
  if (rc) return rc;
  if (s->pec >= 0 && !hcurl)
    return cli_fail_usage("--pec %s: conductor walls belong to the H(curl) space (--element tet)",
                          s->pec ? "all" : "none");
  if (s->pec < 0) s->pec = hcurl;
  if ((s->eps > 0 || s->mu > 0) && s->problem != PROBLEM_MAXWELL)
    return cli_fail_usage("%s %g: a coefficient of --problem maxwell, not %s",
                          s->eps > 0 ? "--eps" : "--mu", s->eps > 0 ? s->eps : s->mu,
                          cli_problem_names[s->problem]);
  if (s->eps <= 0) s->eps = 1;
  if (s->mu <= 0) s->mu = 1;
  return 0;
}

int cli_setup_read(const struct cli_setup *s, femint_mesh_t *mesh)
{
  *mesh = NULL;
  if (s->mesh.kind != CLI_MESH_GMSH) return 0;
  int rc = femint_mesh_read_gmsh(NULL, s->mesh.file, mesh);
  if (rc) return cli_fail_runtime(NULL, rc);
  const int shape = femint_mesh_shape(*mesh);
  if (shape == s->shape) return 0;
  femint_mesh_destroy(mesh);
  return cli_fail("%s: its cells are %s, and --element %s takes %s (give --element %s)",
                  s->mesh.file, cli_shape_plural(shape), cli_shape_name(s->shape),
                  cli_shape_plural(s->shape), cli_shape_name(shape));
}

int cli_setup_mesh(femint_context_t ctx, const struct cli_setup *s, femint_mesh_t *mesh)
{
  const struct cli_mesh *m = &s->mesh;
  int rc = 0;
  if (!*mesh) {
    switch (m->kind) {
    case CLI_MESH_ANNULUS: /* a quarter of the annulus 1 <= r <= 2 */
      rc = femint_mesh_create_annulus(ctx, m->nx, m->ny, 1.0, 2.0, M_PI / 2, mesh);
      break;
    case CLI_MESH_RECT:
      rc = femint_mesh_create_box(ctx, s->shape, m->nx, m->ny, 1, m->nx, m->ny, 1, s->perturb,
                                  (unsigned)s->seed, mesh);
      break;
    case CLI_MESH_BOX:
      rc = femint_mesh_create_box(ctx, s->shape, m->nx, m->ny, m->nz, m->nx, m->ny, m->nz,
                                  s->perturb, (unsigned)s->seed, mesh);
      break;
    default: rc = femint_mesh_read_gmsh(ctx, m->file, mesh);
    }
  }
  if (!rc && s->curved > 0) rc = femint_mesh_warp(*mesh, s->curved);
  return rc;
}

int cli_setup_space(femint_context_t ctx, const struct cli_setup *s, femint_mesh_t mesh,
                    int count[FEMINT_MAX_ORDER + 1], int64_t *removed, femint_space_t *space)
{
  const int ncell = femint_mesh_num_cells(mesh);
  int rc;
  memset(count, 0, (FEMINT_MAX_ORDER + 1) * sizeof *count);
  *removed = 0;
  if (s->family == FEMINT_HCURL) {
    count[s->orders.p[0]] = ncell;
    if ((rc = femint_space_create(ctx, mesh, FEMINT_HCURL, 1, NULL, s->orders.p[0], space)) != 0 ||
        !s->pec)
      return rc;
    const int64_t before = femint_space_num_dofs(*space);
    rc = femint_space_remove_boundary_dofs(*space, 0, NULL);
    *removed = before - femint_space_num_dofs(*space);
    return rc;
  }
  int *orders = malloc((ncell > 0 ? ncell : 1) * sizeof *orders);
  if (!orders) return FEMINT_ENOMEM;
  for (int c = 0; c < ncell; c++) count[orders[c] = s->orders.p[c % s->orders.n]]++;
  rc = femint_space_create(ctx, mesh, FEMINT_H1, cli_problem_components(s->problem, s->shape),
                           orders, 0, space);
  free(orders);
  return rc;
}

int cli_form_create(femint_context_t ctx, int problem, int shape, femint_form_t *form)
{
  const double one = 1, young = 1, poisson = 0.3;
  if (problem == PROBLEM_ELASTICITY && cli_shape_dim(shape) == 2)
    return femint_form_create_plane_elasticity(ctx, FEMINT_PLANE_STRESS, 1, &young, &poisson,
                                               form);
  if (problem == PROBLEM_ELASTICITY)
    return femint_form_create_elasticity(ctx, 1, &young, &poisson, form);
  if (problem == PROBLEM_LAPLACE) return femint_form_create_laplace(ctx, 1, 1, &one, form);
  return femint_form_create_mass(ctx, cli_problem_components(problem, shape), 1, &one, form);
}

int cli_setup_nforms(const struct cli_setup *s)
{
  return s->problem == PROBLEM_MAXWELL ? 2 : 1;
}

int cli_setup_forms(femint_context_t ctx, const struct cli_setup *s,
                    femint_form_t forms[CLI_MAX_FORMS], int *nform)
{
  int rc;
  forms[0] = forms[1] = NULL;
  *nform = cli_setup_nforms(s);
  if (s->problem != PROBLEM_MAXWELL) return cli_form_create(ctx, s->problem, s->shape, &forms[0]);
  if ((rc = femint_form_create_hcurl_mass(ctx, 1, 0, &s->eps, &forms[0])) != 0) return rc;
  return femint_form_create_curlcurl(ctx, 1, 0, &s->mu, &forms[1]);
}

const char *cli_form_letter(const struct cli_setup *s, int form)
{
  return s->problem == PROBLEM_MAXWELL ? (form ? "S" : "T") : "A";
}

const char *cli_form_name(const struct cli_setup *s, int form)
{
  if (s->problem == PROBLEM_MAXWELL) return form ? "curlcurl" : "hcurl_mass";
  if (s->problem == PROBLEM_ELASTICITY && cli_shape_dim(s->shape) == 2) return "plane_elasticity";
  return cli_problem_names[s->problem];
}

void cli_problem_text(const struct cli_setup *s, char *buf, size_t len)
{
  const int flat = cli_shape_dim(s->shape) == 2;
  switch (s->problem) {
  case PROBLEM_ELASTICITY:
    snprintf(buf, len, "%s elasticity (E = 1, nu = 0.3)", flat ? "plane stress" : "linear");
    break;
  case PROBLEM_LAPLACE: snprintf(buf, len, "Laplacian (kappa = 1)"); break;
  case PROBLEM_MASS:
    snprintf(buf, len, "mass matrix (rho = 1, %d components)", flat ? 2 : 3);
    break;
  default:
    snprintf(buf, len, "Maxwell matrices T (eps = %g) and S (1/mu, mu = %g)", s->eps, s->mu);
  }
}

void cli_output_path(const struct cli_setup *s, const char *output, int form, char *buf,
                     size_t len)
{
  if (cli_setup_nforms(s) == 1) snprintf(buf, len, "%s", output);
  else snprintf(buf, len, "%s-%s.mtx", output, cli_form_letter(s, form));
}
