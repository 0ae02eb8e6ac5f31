/* femint plan: how the integration kernel of one order is laid out on an OpenCL device (parts of
 * the element matrix, elements per work-group and per launch, input and output sizes), as seed
 * 000's Tables 3-4, from the library's femint_plan_describe. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char cli_plan_usage[] =
  "Usage: femint plan [--element prism|quad] [--order P] [OPTIONS]\n"
  "\n"
  "Prints how the host plans the integration kernel of an order for an OpenCL device (seed\n"
  "000's Tables 3-4): one 'key: value' line per parameter. Without --order, for p = 1..7.\n"
  "\n"
  "Options:\n"
  "  --element prism|quad     element shape (quad: plane elasticity, gemm variant)\n"
  "  --order P                order 1..7\n"
  "  --precision single|double  (default double)\n"
  "  --variant NAME           reg_nojac, reg_jac, shm_nojac, shm_jac, gemm or auto (default)\n"
  "  --device N               OpenCL device, StarPU's numbering (default 0)\n"
  "  --problem elasticity|laplace|mass  (default elasticity)\n"
  "  --symmetric              element matrices travel as their upper half\n"
  "  --json                   one JSON object per order (an array without --order)\n"
  "  --verbose                let StarPU print its own messages\n";

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
  static const char *const with_value[] = {"--element", "--order", "--precision", "--variant",
                                           "--device", "--problem", NULL};
  static const char *const flags[] = {"--symmetric", "--json", "--verbose", NULL};
  char name[32];
  const char *v;
  long order = 0, device = 0;
  int precision = FEMINT_DOUBLE, variant = FEMINT_VARIANT_AUTO, problem = PROBLEM_ELASTICITY;
  int symmetric = 0, json = 0, verbose = 0, c, shape = FEMINT_PRISM;
  for (int i = 2; i < argc; i++) {
    if (cli_next_option(argc, argv, &i, name, sizeof name, &v, with_value, flags))
      return EXIT_USAGE;
    if (strcmp(name, "--help") == 0) {
      fputs(cli_plan_usage, stdout);
      return 0;
    } else if (strcmp(name, "--element") == 0) {
      if (cli_parse_element(v, &shape)) return EXIT_USAGE;
      if (shape == FEMINT_TET)
        return cli_fail_usage("--element tet: plan describes the H1 kernels; for tetrahedra see "
                              "femint bench --element tet");
    } else if (strcmp(name, "--order") == 0) {
      if (cli_parse_count(v, &order))
        return cli_fail_usage("--order: expected an order 1..%d, got '%s'", FEMINT_MAX_ORDER, v);
      if (cli_check_order(order)) return EXIT_USAGE;
    } else if (strcmp(name, "--precision") == 0) {
      if ((c = cli_parse_choice("--precision", v, cli_precision_names, 2)) < 0) return EXIT_USAGE;
      precision = c == 0 ? FEMINT_DOUBLE : FEMINT_SINGLE;
    } else if (strcmp(name, "--variant") == 0) {
      if ((variant = femint_variant_parse(v)) < 0)
        return cli_fail_usage("--variant: unknown variant '%s' (expected reg_nojac, reg_jac, "
                              "shm_nojac, shm_jac, gemm or auto)",
                              v);
    } else if (strcmp(name, "--device") == 0) {
      if (cli_parse_count(v, &device) || device > 255)
        return cli_fail_usage("--device: expected an OpenCL device number 0..255, got '%s'", v);
    } else if (strcmp(name, "--problem") == 0) {
      if ((c = cli_parse_choice("--problem", v, cli_problem_names, 3)) < 0) return EXIT_USAGE;
      problem = c;
    } else if (strcmp(name, "--symmetric") == 0) {
      symmetric = 1;
    } else if (strcmp(name, "--json") == 0) {
      json = 1;
    } else if (strcmp(name, "--verbose") == 0) {
      verbose = 1;
    } else {
      return cli_fail_usage("unknown option '%s'", name);
    }
  }
  /* the plan's shape follows the form: plane elasticity is the quadrilaterals' */
  if (shape == FEMINT_QUAD && problem != PROBLEM_ELASTICITY)
    return cli_fail_usage("--element quad: femint plan describes plane elasticity only");
  femint_context_t ctx = NULL;
  femint_form_t form = NULL;
  struct femint_init_options iopt = {.nopencl = -1, .quiet = !verbose};
  if (cli_init(&iopt, &ctx)) return EXIT_RUNTIME;
  int rc = cli_form_create(ctx, problem, shape, &form), status = EXIT_RUNTIME;
  const size_t len = 16384;
  char *buf = malloc(len);
  if (rc) {
    cli_fail_runtime(ctx, rc);
    goto done;
  }
  if (!buf) {
    fprintf(stderr, "femint: out of memory\n");
    goto done;
  }
  const int first = order ? (int)order : 1, last = order ? (int)order : FEMINT_MAX_ORDER;
  if (json && !order) putchar('[');
  for (int p = first; p <= last; p++) {
    buf[0] = '\0';
    rc = femint_plan_describe(ctx, form, p, precision, variant, symmetric, (int)device, buf, len);
    if (rc) {
      if (json && !order) printf("]\n");
      cli_fail_runtime(ctx, rc);
      goto done;
    }
    if (json) {
      if (p > first) putchar(',');
      print_json_object(p, buf);
    } else {
      if (p > first) putchar('\n');
      if (!order && strncmp(buf, "order:", 6) != 0 && !strstr(buf, "\norder:"))
        printf("order: %d\n", p);
      fputs(buf, stdout);
      if (buf[0] && buf[strlen(buf) - 1] != '\n') putchar('\n');
    }
  }
  if (json) printf("%s\n", order ? "" : "]");
  status = 0;
done:
  free(buf);
  femint_form_destroy(&form);
  femint_finalize(&ctx);
  return status;
}
