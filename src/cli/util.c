/* Helpers of the femint command: usage and run-time errors, the parsers of option values (orders,
 * meshes, numbers, names) and the check that an output file can be written. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

const char *const cli_where_names[] = {"any", "cpu", "opencl", NULL};
const char *const cli_precision_names[] = {"double", "single", NULL};
const char *const cli_variant_names[] = {"auto",    "reg_nojac", "reg_jac", "shm_nojac",
                                         "shm_jac", "gemm",      NULL};
const char *const cli_assembly_names[] = {"auto", "rows", "coo", NULL};

int cli_fail_usage(const char *fmt, ...)
{
  va_list ap;
  fputs("femint: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return EXIT_USAGE;
}

int cli_fail(const char *fmt, ...)
{
  va_list ap;
  fputs("femint: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return EXIT_RUNTIME;
}

int cli_fail_runtime(femint_context_t ctx, int rc)
{
  const char *msg = femint_last_error(ctx);
  fprintf(stderr, "femint: %s\n", msg && *msg ? msg : femint_strerror(rc));
  return EXIT_RUNTIME;
}

int cli_init(const struct femint_init_options *opt, femint_context_t *ctx)
{
  int rc = femint_init(opt, ctx);
  if (rc) {
    const char *msg = femint_init_error();
    fprintf(stderr, "femint: %s\n", msg && *msg ? msg : femint_strerror(rc));
    return EXIT_RUNTIME;
  }
  return 0;
}

static int cmp_double(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double cli_median(double *v, long n)
{
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

size_t cli_copy_bytes(double moved)
{
  /* half the bytes (each copied byte is read and written), at least 1 KiB and at most 1 GiB:
   * the rate is flat long before, and a copy of 3.9 GB on the H200's OpenCL once broke the
   * device's queues */
  const double half = moved / 2;
  return half < 1024 ? 1024 : half > (double)(1u << 30) ? (size_t)1 << 30 : (size_t)half;
}

double cli_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Reads the decimal digits at *p (at least one, no sign or space) into *v, capped at LONG_MAX. */
int cli_parse_digits(const char **p, long *v)
{
  const char *s = *p;
  long x = 0;
  if (*s < '0' || *s > '9') return -1;
  for (; *s >= '0' && *s <= '9'; s++) x = x > (LONG_MAX - 9) / 10 ? LONG_MAX : 10 * x + (*s - '0');
  *p = s;
  *v = x;
  return 0;
}

/* A whole string that is a non-negative decimal integer. */
int cli_parse_count(const char *s, long *v)
{
  return cli_parse_digits(&s, v) == 0 && *s == '\0' ? 0 : -1;
}

/* A whole string that is a finite number (strtod, nothing left over, no leading space). */
int cli_parse_real(const char *s, double *v)
{
  char *end;
  if (*s == '\0' || *s == ' ' || *s == '\t' || *s == '\n') return -1;
  errno = 0;
  *v = strtod(s, &end);
  return *end == '\0' && errno == 0 && isfinite(*v) ? 0 : -1;
}

int cli_parse_orders(const char *option, const char *text, struct cli_orders *orders)
{
  const char *s = text;
  orders->n = 0;
  for (;;) {
    long a, b;
    if (cli_parse_digits(&s, &a)) goto bad;
    b = a;
    if (*s == '-') {
      s++;
      if (cli_parse_digits(&s, &b)) goto bad;
    }
    if (a < 1 || a > FEMINT_MAX_ORDER || b < 1 || b > FEMINT_MAX_ORDER)
      return cli_fail_usage("%s: %ld is outside 1..%d in '%s'", option,
                            a < 1 || a > FEMINT_MAX_ORDER ? a : b, FEMINT_MAX_ORDER, text);
    if (b < a)
      return cli_fail_usage("%s: the range '%ld-%ld' is empty (write it upwards)", option, a, b);
    for (long p = a; p <= b; p++) {
      if (orders->n == CLI_MAX_ORDERS)
        return cli_fail_usage("%s: more than %d orders in '%s'", option, CLI_MAX_ORDERS, text);
      orders->p[orders->n++] = (int)p;
    }
    if (*s == '\0') return 0;
    if (*s++ != ',') goto bad;
  }
bad:
  return cli_fail_usage("%s: expected P, P1-P2 or P1,P2,... with orders 1..%d, got '%s'", option,
                        FEMINT_MAX_ORDER, text);
}

/* n counts separated by commas after prefix, each at least 1. Returns 0, 1 when the text is not
 * of that form, or EXIT_USAGE after a message. */
static int parse_counts(const char *option, const char *text, const char *s, int n, long *v)
{
  for (int k = 0; k < n; k++) {
    if (cli_parse_digits(&s, &v[k])) return 1;
    if (*s != (k < n - 1 ? ',' : '\0')) return 1;
    s++;
  }
  double cells = 1;
  for (int k = 0; k < n; k++) {
    if (v[k] < 1) return cli_fail_usage("%s: every cell count must be at least 1, got '%s'",
                                        option, text);
    cells *= (double)v[k];
  }
  if (cells > (double)CLI_MAX_CELLS)
    return cli_fail_usage("%s: '%s' is too large (at most %ld blocks)", option, text,
                          CLI_MAX_CELLS);
  return 0;
}

int cli_parse_mesh(const char *option, const char *text, struct cli_mesh *m)
{
  const size_t len = strlen(text);
  long n[3] = {1, 1, 1};
  int rc;
  if (strncmp(text, "gmsh:", 5) == 0 || (len > 4 && strcmp(text + len - 4, ".msh") == 0)) {
    m->kind = CLI_MESH_GMSH;
    m->file = strncmp(text, "gmsh:", 5) == 0 ? text + 5 : text;
    if (!*m->file) return cli_fail_usage("%s: gmsh: needs a file name, got '%s'", option, text);
    m->nx = m->ny = m->nz = 0;
    return 0;
  }
  if (strncmp(text, "rect:", 5) == 0 || strncmp(text, "annulus:", 8) == 0) {
    const int annulus = text[0] == 'a';
    if ((rc = parse_counts(option, text, text + (annulus ? 8 : 5), 2, n)) == 1) goto bad;
    if (rc) return rc;
    m->kind = annulus ? CLI_MESH_ANNULUS : CLI_MESH_RECT;
  } else if (strncmp(text, "box:", 4) == 0) {
    if ((rc = parse_counts(option, text, text + 4, 3, n)) == 1) goto bad;
    if (rc) return rc;
    m->kind = CLI_MESH_BOX;
  } else {
    goto bad;
  }
  m->nx = (int)n[0], m->ny = (int)n[1], m->nz = (int)n[2];
  m->file = NULL;
  return 0;
bad:
  return cli_fail_usage("%s: expected box:NX,NY,NZ, gmsh:FILE, FILE.msh, rect:NX,NY or "
                        "annulus:NR,NT, got '%s'",
                        option, text);
}

void cli_join_names(const char *const *names, char *buf, size_t len)
{
  int n = 0;
  while (names[n]) n++;
  buf[0] = '\0';
  for (int i = 0; i < n; i++) {
    strncat(buf, i ? (i == n - 1 ? " or " : ", ") : "", len - strlen(buf) - 1);
    strncat(buf, names[i], len - strlen(buf) - 1);
  }
}

int cli_parse_choice(const char *option, const char *text, const char *const *names)
{
  for (int i = 0; names[i]; i++)
    if (strcmp(text, names[i]) == 0) return i;
  char list[256];
  cli_join_names(names, list, sizeof list);
  cli_fail_usage("%s: expected %s, got '%s'", option, list, text);
  return -1;
}

int cli_check_writable(const char *option, const char *path)
{
  struct stat st;
  int err = 0;
  if (path[0] == '\0') {
    err = ENOENT;
  } else if (stat(path, &st) == 0) {
    if (S_ISDIR(st.st_mode)) err = EISDIR;
    else if (access(path, W_OK) != 0) err = errno;
  } else if (errno != ENOENT) {
    err = errno;
  } else {
    size_t len = strlen(path);
    char *dir = malloc(len + 2);
    if (!dir) return cli_fail_usage("out of memory");
    memcpy(dir, path, len + 1);
    char *slash = strrchr(dir, '/');
    if (!slash) strcpy(dir, ".");
    else if (slash == dir) dir[1] = '\0';
    else *slash = '\0';
    if (stat(dir, &st) != 0) err = errno;
    else if (!S_ISDIR(st.st_mode)) err = ENOTDIR;
    else if (access(dir, W_OK | X_OK) != 0) err = errno;
    free(dir);
  }
  if (err) return cli_fail_usage("%s: cannot write '%s': %s", option, path, strerror(err));
  return 0;
}

int cli_check_timeline(const char *option, const char *png)
{
  char *csv = cli_timeline_csv(png);
  if (!csv) return cli_fail_usage("out of memory");
  int bad = cli_check_writable(option, png) || cli_check_writable(option, csv);
  free(csv);
  return bad ? EXIT_USAGE : 0;
}

void cli_mesh_text(const struct cli_mesh *m, char *buf, size_t len)
{
  switch (m->kind) {
  case CLI_MESH_GMSH: snprintf(buf, len, "gmsh:%s", m->file); break;
  case CLI_MESH_RECT: snprintf(buf, len, "rect:%d,%d", m->nx, m->ny); break;
  case CLI_MESH_ANNULUS: snprintf(buf, len, "annulus:%d,%d", m->nx, m->ny); break;
  case CLI_MESH_BOX: snprintf(buf, len, "box:%d,%d,%d", m->nx, m->ny, m->nz); break;
  default: snprintf(buf, len, "(none)");
  }
}

void cli_orders_text(const struct cli_orders *o, char *buf, size_t len)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < o->n && used + 4 < len; i++)
    used += (size_t)snprintf(buf + used, len - used, "%s%d", i ? "," : "", o->p[i]);
}
