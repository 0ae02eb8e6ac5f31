/* Option tables at work: "--name value" and "--name=value" parsed into the destinations of the
 * rows, each value checked against its kind and bounds, and --help written from the rows. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <limits.h>
#include <math.h>
#include <string.h>

#include "cli.h"

/* The column at which the help of an option starts, and the width of --help. */
#define HELP_COLUMN 28
#define HELP_WIDTH 79

static const struct cli_option *find(const struct cli_command *cmd, const char *name, size_t len,
                                     size_t *base)
{
  for (int s = 0; s < cmd->nsections; s++)
    for (int k = 0; k < cmd->sections[s].noptions; k++) {
      const struct cli_option *o = &cmd->sections[s].options[k];
      if (strlen(o->name) == len && strncmp(o->name, name, len) == 0) {
        *base = cmd->sections[s].base;
        return o;
      }
    }
  return NULL;
}

/* The placeholder of an option's value in --help and in messages. */
static void placeholder(const struct cli_option *o, char *buf, size_t len)
{
  static const char *const by_kind[] = {"", "N", "X", "", "LIST", "MESH", "FILE", "VALUE"};
  if (o->value) {
    snprintf(buf, len, "%s", o->value);
  } else if (o->kind == CLI_CHOICE) {
    buf[0] = '\0';
    for (int i = 0; o->choices[i]; i++) {
      strncat(buf, i ? "|" : "", len - strlen(buf) - 1);
      strncat(buf, o->choices[i], len - strlen(buf) - 1);
    }
  } else {
    snprintf(buf, len, "%s", by_kind[o->kind]);
  }
}

/* "[0, 0.5)", "> 0", "0..7" for the messages of numbers. */
static void interval_text(const struct cli_option *o, char *buf, size_t len)
{
  if (o->kind == CLI_INT) {
    if (o->max == LONG_MAX) snprintf(buf, len, "an integer >= %ld", o->min);
    else snprintf(buf, len, "an integer in %ld..%ld", o->min, o->max);
  } else if (isinf(o->hi)) {
    snprintf(buf, len, "a number %s %g", o->flags & CLI_LO_OPEN ? ">" : ">=", o->lo);
  } else {
    snprintf(buf, len, "a number in %c%g, %g%c", o->flags & CLI_LO_OPEN ? '(' : '[', o->lo, o->hi,
             o->flags & CLI_HI_OPEN ? ')' : ']');
  }
}

static int parse_value(const struct cli_option *o, const char *text, void *dest)
{
  char range[64];
  switch (o->kind) {
  case CLI_INT: {
    long v;
    if (cli_parse_count(text, &v) || v < o->min || v > o->max) {
      interval_text(o, range, sizeof range);
      return cli_fail_usage("%s: expected %s, got '%s'", o->name, range, text);
    }
    *(long *)dest = v;
    return 0;
  }
  case CLI_REAL: {
    double x;
    int low = 0, high = 0;
    if (cli_parse_real(text, &x) == 0) {
      low = o->flags & CLI_LO_OPEN ? x <= o->lo : x < o->lo;
      high = o->flags & CLI_HI_OPEN ? x >= o->hi : x > o->hi;
    }
    if (cli_parse_real(text, &x) || low || high) {
      interval_text(o, range, sizeof range);
      return cli_fail_usage("%s: expected %s, got '%s'", o->name, range, text);
    }
    *(double *)dest = x;
    return 0;
  }
  case CLI_CHOICE: {
    int i = cli_parse_choice(o->name, text, o->choices);
    if (i < 0) return EXIT_USAGE;
    *(int *)dest = o->values ? o->values[i] : i;
    return 0;
  }
  case CLI_ORDERS: return cli_parse_orders(o->name, text, dest);
  case CLI_MESH: return cli_parse_mesh(o->name, text, dest);
  case CLI_PATH:
    if (!text[0]) return cli_fail_usage("%s: expected a file name, got ''", o->name);
    if ((o->flags & CLI_WRITABLE) && cli_check_writable(o->name, text)) return EXIT_USAGE;
    *(const char **)dest = text;
    return 0;
  case CLI_CUSTOM: return o->parse(o->name, text, dest);
  default: *(int *)dest = 1; return 0;
  }
}

static void record(struct cli_args *args, const char *name, const char *value)
{
  for (int k = 0; k < args->ngiven; k++)
    if (strcmp(args->name[k], name) == 0) {
      args->value[k] = value;
      return;
    }
  if (args->ngiven < CLI_MAX_GIVEN) {
    args->name[args->ngiven] = name;
    args->value[args->ngiven++] = value;
  }
}

int cli_parse(const struct cli_command *cmd, int argc, char **argv, void *opts,
              struct cli_args *args)
{
  memset(args, 0, sizeof *args);
  for (int i = 2; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      cli_help(cmd, stdout);
      return CLI_HELP_SHOWN;
    }
    if (arg[0] != '-')
      return cli_fail_usage("unexpected argument '%s' (see 'femint %s --help')", arg, cmd->name);
    const char *eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
    const size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    size_t base = 0;
    const struct cli_option *o = arg[1] == '-' ? find(cmd, arg, len, &base) : NULL;
    if (!o && len == 6 && strncmp(arg, "--help", 6) == 0)
      return cli_fail_usage("--help takes no value, got '%s'", eq + 1);
    if (!o)
      return cli_fail_usage("unknown option '%.*s' for femint %s (see 'femint %s --help')",
                            (int)len, arg, cmd->name, cmd->name);
    const char *value = eq ? eq + 1 : NULL;
    if (o->kind == CLI_FLAG && value)
      return cli_fail_usage("%s takes no value, got '%s'", o->name, value);
    if (o->kind != CLI_FLAG && !value) {
      if (i + 1 >= argc) {
        char ph[256];
        placeholder(o, ph, sizeof ph);
        return cli_fail_usage("%s needs a value (%s)", o->name, ph);
      }
      value = argv[++i];
    }
    if (parse_value(o, value ? value : "", (char *)opts + base + o->dest)) return EXIT_USAGE;
    record(args, o->name, value ? value : "");
  }
  return 0;
}

const char *cli_given(const struct cli_args *args, const char *name)
{
  for (int k = 0; k < args->ngiven; k++)
    if (strcmp(args->name[k], name) == 0) return args->value[k];
  return NULL;
}

void cli_wrap(FILE *f, const char *text, int start, int indent, int width)
{
  const char *s = text;
  for (int first = 1;; first = 0) {
    const char *end = strchr(s, '\n');
    if (!end) end = s + strlen(s);
    /* The leading spaces of a line of text indent it and the lines it wraps into. */
    int lead = 0;
    while (s + lead < end && s[lead] == ' ') lead++;
    const int hang = indent + lead;
    int col = first ? start + lead : hang, fresh = 1;
    if (s + lead < end) fprintf(f, "%*s", first ? lead : hang, "");
    for (const char *p = s + lead; p < end;) {
      if (*p == ' ') {
        p++;
        continue;
      }
      int n = 0;
      while (p + n < end && p[n] != ' ') n++;
      if (!fresh && col + 1 + n > width) {
        fprintf(f, "\n%*s", hang, "");
        col = hang, fresh = 1;
      }
      if (!fresh) fputc(' ', f), col++;
      fprintf(f, "%.*s", n, p);
      col += n, fresh = 0;
      p += n;
    }
    fputc('\n', f);
    if (!*end) break;
    s = end + 1;
  }
}

static void help_row(FILE *f, const char *left, const char *help)
{
  const int n = fprintf(f, "  %s", left);
  if (n + 2 > HELP_COLUMN) fprintf(f, "\n%*s", HELP_COLUMN, "");
  else fprintf(f, "%*s", HELP_COLUMN - n, "");
  cli_wrap(f, help, HELP_COLUMN, HELP_COLUMN, HELP_WIDTH);
}

void cli_help(const struct cli_command *cmd, FILE *f)
{
  fprintf(f, "Usage: femint %s %s\n\n", cmd->name, cmd->synopsis ? cmd->synopsis : "[OPTIONS]");
  cli_wrap(f, cmd->description, 0, 0, HELP_WIDTH);
  for (int s = 0; s < cmd->nsections; s++) {
    const struct cli_section *sec = &cmd->sections[s];
    fprintf(f, "\n%s:\n", sec->title ? sec->title : "Options");
    for (int k = 0; k < sec->noptions; k++) {
      const struct cli_option *o = &sec->options[k];
      char left[320], ph[256];
      placeholder(o, ph, sizeof ph);
      snprintf(left, sizeof left, "%s%s%s", o->name, ph[0] ? " " : "", ph);
      help_row(f, left, o->help);
    }
  }
  help_row(f, "--help", "this text");
  if (cmd->notes) {
    fputc('\n', f);
    cli_wrap(f, cmd->notes, 0, 0, HELP_WIDTH);
  }
}
