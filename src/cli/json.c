/* JSON output of the femint command: a small writer on stdout that keeps track of the commas, and
 * the workers of a verb as a JSON array. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <math.h>
#include <stdio.h>

#include "cli.h"

void cli_json_string(const char *s)
{
  putchar('"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') printf("\\%c", c);
    else if (c == '\n') fputs("\\n", stdout);
    else if (c == '\t') fputs("\\t", stdout);
    else if (c < 0x20) printf("\\u%04x", c);
    else putchar(c);
  }
  putchar('"');
}

/* The comma before a member or element, and its key. */
static void member(struct cli_json *j, const char *key)
{
  if (j->depth > 0 && j->count[j->depth]++) putchar(',');
  if (key) {
    cli_json_string(key);
    putchar(':');
  }
}

void cli_json_open(struct cli_json *j, const char *key, char bracket)
{
  member(j, key);
  putchar(bracket);
  if (j->depth + 1 < (int)(sizeof j->count / sizeof j->count[0])) j->depth++;
  j->count[j->depth] = 0;
}

void cli_json_close(struct cli_json *j, char bracket)
{
  putchar(bracket);
  if (j->depth > 0) j->depth--;
  if (j->depth == 0) putchar('\n');
}

void cli_json_str(struct cli_json *j, const char *key, const char *s)
{
  member(j, key);
  if (s) cli_json_string(s);
  else fputs("null", stdout);
}

void cli_json_num(struct cli_json *j, const char *key, double x)
{
  member(j, key);
  if (isfinite(x)) printf("%.10g", x);
  else fputs("null", stdout);
}

void cli_json_int(struct cli_json *j, const char *key, long long x)
{
  member(j, key);
  printf("%lld", x);
}

void cli_json_bool(struct cli_json *j, const char *key, int b)
{
  member(j, key);
  fputs(b ? "true" : "false", stdout);
}

void cli_json_null(struct cli_json *j, const char *key)
{
  member(j, key);
  fputs("null", stdout);
}

void cli_worker_names(femint_context_t ctx, struct femint_stats *st, char names[][CLI_NAME_LEN])
{
  if (st->nworker < 0) st->nworker = 0;
  if (st->nworker > FEMINT_MAX_WORKERS) st->nworker = FEMINT_MAX_WORKERS;
  for (int w = 0; w < st->nworker; w++)
    if (femint_context_worker_name(ctx, w, names[w], CLI_NAME_LEN) != 0 || !names[w][0])
      snprintf(names[w], CLI_NAME_LEN, "worker %d", w);
}

void cli_json_workers(struct cli_json *j, const char *key, const struct femint_stats *st,
                      char names[][CLI_NAME_LEN])
{
  cli_json_open(j, key, '[');
  for (int w = 0; w < st->nworker; w++) {
    cli_json_open(j, NULL, '{');
    cli_json_str(j, "name", names[w]);
    cli_json_str(j, "kind", st->worker_is_opencl[w] ? "opencl" : "cpu");
    cli_json_int(j, "integrate_tasks", st->worker_tasks_integrate[w]);
    cli_json_int(j, "assemble_tasks", st->worker_tasks_assemble[w]);
    cli_json_num(j, "busy_s", st->worker_busy[w]);
    cli_json_close(j, '}');
  }
  cli_json_close(j, ']');
}
