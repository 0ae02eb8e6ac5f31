/* femint refel: the sizes of a reference element (shape functions, quadrature points, exactness
 * degree of the quadrature and its triangle and line rules) for one order or every order. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include "cli.h"

struct refel_options {
  int shape, family; /* family -1: H(curl) for tet, else H1 */
  long order; /* 0: every order */
  int json;
};

#define F(member) offsetof(struct refel_options, member)
static const struct cli_option options[] = {
  {CLI_OPT("--element", CLI_CHOICE, F(shape),
           "prism, quad, hex, tri or tet (default prism)", NULL),
   .choices = cli_element_names, .values = cli_element_values},
  {CLI_OPT("--space", CLI_CHOICE, F(family),
           "h1 (every element: Lagrange on tri, tet and hex) or hcurl (tet) (default: hcurl for "
           "tet, else h1)", NULL), .choices = cli_space_names, .values = cli_space_values},
  {CLI_OPT("--order", CLI_INT, F(order),
           "the order, 1..7 (tet and tri: 1..3, hex: 1..10); without it, a row for every order",
           "P"), .min = 0, .max = 1000},
  {CLI_OPT("--json", CLI_FLAG, F(json),
           "one JSON object for the order given, or an array of them", NULL)},
};
static const struct cli_section sections[] = {
    {NULL, options, sizeof options / sizeof options[0], 0}};

const struct cli_command cli_refel_cmd = {
  "refel",
  "sizes of a reference element: shape functions, quadrature points, degree",
  "[--element prism|quad|tet|hex|tri] [--space h1|hcurl] [--order P] [--json]",
  "Prints the number of shape functions N_sh, of quadrature points N_Q, the exactness degree of "
  "the quadrature and the points of its triangle and line rules (N_Q is their product on the "
  "prism); without --order, a row for p = 1..7 (1..3 for the H(curl) tetrahedron, whose N_sh "
  "counts vector functions and whose rule is a symmetric one, with no triangle or line rule; "
  "1..10 for the hexahedron, on p + 2 Gauss points per direction).\n"
  "A quadrilateral's N_sh is per displacement component (seed 003's matrices of plane elasticity "
  "have 2 N_sh rows); its degree is per variable (a Gauss rule of p+1 points).",
  sections,
  1,
  NULL,
};

int cli_refel_command(int argc, char **argv)
{
  struct refel_options o = {.shape = FEMINT_PRISM, .family = -1};
  struct cli_args args;
  int status = cli_parse(&cli_refel_cmd, argc, argv, &o, &args);
  if (status) return status < 0 ? 0 : status;
  const int family = o.family >= 0 ? o.family : o.shape == FEMINT_TET ? FEMINT_HCURL : FEMINT_H1;
  const int pmax = femint_refel_max_order(o.shape, family);
  if (pmax == 0)
    return cli_fail_usage("--space %s: the %s element has no such space (hcurl is for tet)",
                          cli_family_name(family), cli_element_names[o.shape - 1]);
  if (cli_given(&args, "--order") && (o.order < 1 || o.order > pmax))
    return cli_fail_usage("--order %ld: the %s element of %s has orders 1..%d", o.order,
                          cli_element_names[o.shape - 1], cli_family_name(family), pmax);
  const int first = o.order ? (int)o.order : 1, last = o.order ? (int)o.order : pmax;
  struct cli_json j = {0};
  if (o.json && !o.order) cli_json_open(&j, NULL, '[');
  if (!o.json)
    printf("%5s %6s %6s %7s %11s %12s\n", "order", "N_sh", "N_Q", "degree", "tri_points",
           "line_points");
  for (int p = first; p <= last; p++) {
    struct femint_refel_info r;
    int rc = femint_refel_info(o.shape, family, p, &r);
    if (rc) {
      if (o.json && !o.order) cli_json_close(&j, ']');
      return cli_fail("%s of order %d: %s", cli_shape_name(o.shape), p, femint_strerror(rc));
    }
    if (o.json) {
      cli_json_open(&j, NULL, '{');
      cli_json_str(&j, "element", cli_shape_name(o.shape));
      cli_json_str(&j, "space", cli_family_name(family));
      cli_json_int(&j, "order", p);
      cli_json_int(&j, "nsh", r.nsh);
      cli_json_int(&j, "nq", r.nq);
      cli_json_int(&j, "degree", r.degree);
      cli_json_int(&j, "tri_points", r.tri_points);
      cli_json_int(&j, "line_points", r.line_points);
      cli_json_close(&j, '}');
    } else {
      printf("%5d %6d %6d %7d %11d %12d\n", p, r.nsh, r.nq, r.degree, r.tri_points,
             r.line_points);
    }
  }
  if (o.json && !o.order) cli_json_close(&j, ']');
  return 0;
}
