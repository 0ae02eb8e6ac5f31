/* femint plan: how the H1 integration kernel of one order is laid out on an OpenCL device (parts
 * of the element matrix, elements per work-group and per launch, input and output sizes), as seed
 * 000's Tables 3-4, from the library's femint_plan_describe. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct plan_options {
  int shape, precision, variant, problem, symmetric, json, verbose;
  long order; /* 0: every order */
  long device;
};

static const char *const h1_problem_names[] = {"elasticity", "laplace", "mass", NULL};

#define F(member) offsetof(struct plan_options, member)
static const struct cli_option options[] = {
  {CLI_OPT("--element", CLI_CHOICE, F(shape),
           "prism, or quad (plane elasticity, the gemm kernel); the tetrahedra's phases are timed "
           "by femint bench --element tet (default prism)", NULL),
   .choices = cli_element_names, .values = cli_element_values},
  {CLI_OPT("--order", CLI_INT, F(order), "the order, 1..7; without it, every order", "P"),
   .min = 1, .max = FEMINT_MAX_ORDER},
  {CLI_OPT("--precision", CLI_CHOICE, F(precision), "(default double)", NULL),
   .choices = cli_precision_names},
  {CLI_OPT("--variant", CLI_CHOICE, F(variant),
           "the kernel: reg_nojac, reg_jac, shm_nojac, shm_jac, gemm, or auto (default auto)",
           "NAME"),
   .choices = cli_variant_names},
  {CLI_OPT("--device", CLI_INT, F(device), "OpenCL device, StarPU's numbering (default 0)", "N"),
   .min = 0, .max = 255},
  {CLI_OPT("--problem", CLI_CHOICE, F(problem), "the weak form (default elasticity)", NULL),
   .choices = h1_problem_names},
  {CLI_OPT("--symmetric", CLI_FLAG, F(symmetric), "element matrices travel as their upper half",
           NULL)},
  {CLI_OPT("--json", CLI_FLAG, F(json), "one JSON object per order (an array without --order)",
           NULL)},
  {CLI_OPT("--verbose", CLI_FLAG, F(verbose), "let StarPU print its own messages", NULL)},
};
static const struct cli_section sections[] = {
    {NULL, options, sizeof options / sizeof options[0], 0}};

const struct cli_command cli_plan_cmd = {
  "plan",
  "how the H1 kernel of an order is laid out on an OpenCL device (seed 000's Tables 3-4)",
  "[--element prism|quad] [--order P] [OPTIONS]",
  "Prints how the host plans the H1 integration kernel of an order for an OpenCL device (seed "
  "000's Tables 3-4): one 'key: value' line per parameter. Without --order, for p = 1..7.",
  sections,
  1,
  NULL,
};

/* "key: value" lines as JSON members; values stay strings. */
static void print_json_object(int order, const char *text)
{
  printf("{\"order\":%d", order);
  while (*text) {
    size_t n = strcspn(text, "\n");
    const char *colon = memchr(text, ':', n);
    if (colon && colon > text && !(colon - text == 5 && strncmp(text, "order", 5) == 0)) {
      char key[128], value[1024];
      size_t k = (size_t)(colon - text), vstart = k + 1;
      while (vstart < n && text[vstart] == ' ') vstart++;
      snprintf(key, sizeof key, "%.*s", (int)k, text);
      snprintf(value, sizeof value, "%.*s", (int)(n - vstart), text + vstart);
      putchar(',');
      cli_json_string(key);
      putchar(':');
      cli_json_string(value);
    }
    text += n;
    if (*text == '\n') text++;
  }
  putchar('}');
}

int cli_plan_command(int argc, char **argv)
{
  struct plan_options o = {.shape = FEMINT_PRISM, .precision = FEMINT_DOUBLE,
                           .problem = PROBLEM_ELASTICITY};
  struct cli_args args;
  int status = cli_parse(&cli_plan_cmd, argc, argv, &o, &args);
  if (status) return status < 0 ? 0 : status;
  if (o.shape == FEMINT_TET)
    return cli_fail_usage("--element tet: plan describes the H1 kernels; the phases of the "
                          "tetrahedra's operator are timed by 'femint bench --element tet'");
  if (o.shape == FEMINT_HEX)
    return cli_fail_usage("--element hex: plan describes the kernels of prisms and "
                          "quadrilaterals; the phases of the hexahedra's operator are timed by "
                          "'femint bench --element hex'");
  /* the plan's shape follows the form: plane elasticity is the quadrilaterals' */
  if (o.shape == FEMINT_QUAD && o.problem != PROBLEM_ELASTICITY)
    return cli_fail_usage("--problem %s: femint plan --element quad describes plane elasticity "
                          "only",
                          h1_problem_names[o.problem]);
  const int pmax = femint_refel_max_order(o.shape, FEMINT_H1);
  if (o.order > pmax)
    return cli_fail_usage("--order %ld: the %s element has orders 1..%d", o.order,
                          cli_shape_name(o.shape), pmax);
  femint_context_t ctx = NULL;
  femint_form_t form = NULL;
  struct femint_init_options iopt = {.nopencl = -1, .quiet = !o.verbose};
  if (cli_init(&iopt, &ctx)) return EXIT_RUNTIME;
  int rc = cli_form_create(ctx, o.problem, o.shape, &form);
  status = EXIT_RUNTIME;
  const size_t len = 16384;
  char *buf = malloc(len);
  if (rc) {
    cli_fail_runtime(ctx, rc);
    goto done;
  }
  if (!buf) {
    cli_fail("out of memory");
    goto done;
  }
  const int first = o.order ? (int)o.order : 1, last = o.order ? (int)o.order : femint_refel_max_order(o.shape, FEMINT_H1);
  if (o.json && !o.order) putchar('[');
  for (int p = first; p <= last; p++) {
    buf[0] = '\0';
    rc = femint_plan_describe(ctx, form, p, o.precision, o.variant, o.symmetric, (int)o.device,
                              buf, len);
    if (rc) {
      if (o.json && !o.order) printf("]\n");
      cli_fail_runtime(ctx, rc);
      goto done;
    }
    if (o.json) {
      if (p > first) putchar(',');
      print_json_object(p, buf);
    } else {
      if (p > first) putchar('\n');
      if (!o.order && strncmp(buf, "order:", 6) != 0 && !strstr(buf, "\norder:"))
        printf("order: %d\n", p);
      fputs(buf, stdout);
      if (buf[0] && buf[strlen(buf) - 1] != '\n') putchar('\n');
    }
  }
  if (o.json) printf("%s\n", o.order ? "" : "]");
  status = 0;
done:
  free(buf);
  femint_form_destroy(&form);
  femint_finalize(&ctx);
  return status;
}
