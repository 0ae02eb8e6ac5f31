/* Helpers of the femint command: option parsing and usage errors, JSON output, the standard weak
 * forms, and Gantt charts of assembly timelines drawn with gnuplot. */
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

const char *const cli_problem_names[3] = {"elasticity", "laplace", "mass"};
const char *const cli_where_names[3] = {"any", "cpu", "opencl"};
const char *const cli_precision_names[2] = {"double", "single"};

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

int cli_check_order(long p)
{
  if (p < 1 || p > FEMINT_MAX_ORDER)
    return cli_fail_usage("--order: %ld is outside 1..%d", p, FEMINT_MAX_ORDER);
  return 0;
}

int cli_parse_orders(const char *text, int *orders, int *norders)
{
  const char *s = text;
  *norders = 0;
  for (;;) {
    long a, b;
    if (cli_parse_digits(&s, &a)) goto bad;
    b = a;
    if (*s == '-') {
      s++;
      if (cli_parse_digits(&s, &b)) goto bad;
    }
    if (cli_check_order(a) || cli_check_order(b)) return EXIT_USAGE;
    if (b < a)
      return cli_fail_usage("--order: the range '%ld-%ld' is empty (write it upwards)", a, b);
    for (long p = a; p <= b; p++) {
      if (*norders == CLI_MAX_ORDERS)
        return cli_fail_usage("--order: more than %d orders in '%s'", CLI_MAX_ORDERS, text);
      orders[(*norders)++] = (int)p;
    }
    if (*s == '\0') return 0;
    if (*s++ != ',') goto bad;
  }
bad:
  return cli_fail_usage("--order: expected P, P1-P2 or P1,P2,... with orders 1..%d, got '%s'",
                        FEMINT_MAX_ORDER, text);
}

int cli_parse_mesh(const char *text, struct cli_mesh *m)
{
  const char *s = text;
  size_t len = strlen(text);
  long n[3];
  if (strncmp(s, "gmsh:", 5) == 0 || (len > 4 && strcmp(text + len - 4, ".msh") == 0)) {
    m->kind = CLI_MESH_GMSH;
    m->file = strncmp(s, "gmsh:", 5) == 0 ? s + 5 : s;
    if (!*m->file) return cli_fail_usage("--mesh: gmsh: needs a file name, got '%s'", text);
    return 0;
  }
  if (strncmp(s, "rect:", 5) == 0 || strncmp(s, "annulus:", 8) == 0) {
    const int annulus = s[0] == 'a';
    s += annulus ? 8 : 5;
    for (int k = 0; k < 2; k++) {
      if (cli_parse_digits(&s, &n[k])) goto bad;
      if (*s != (k < 1 ? ',' : '\0')) goto bad;
      s++;
    }
    if (n[0] < 1 || n[1] < 1)
      return cli_fail_usage("--mesh: both cell counts must be at least 1, got '%s'", text);
    if (n[0] > CLI_MAX_CELLS || n[1] > CLI_MAX_CELLS || (double)n[0] * n[1] > (double)CLI_MAX_CELLS)
      return cli_fail_usage("--mesh: '%s' is too large (at most %ld cells)", text, CLI_MAX_CELLS);
    m->kind = annulus ? CLI_MESH_ANNULUS : CLI_MESH_RECT;
    m->nx = (int)n[0], m->ny = (int)n[1], m->nz = 1;
    m->file = NULL;
    return 0;
  }
  if (strncmp(s, "box:", 4) != 0) goto bad;
  s += 4;
  for (int k = 0; k < 3; k++) {
    if (cli_parse_digits(&s, &n[k])) goto bad;
    if (*s != (k < 2 ? ',' : '\0')) goto bad;
    s++;
  }
  if (n[0] < 1 || n[1] < 1 || n[2] < 1)
    return cli_fail_usage("--mesh: NX, NY and NZ must be at least 1, got '%s'", text);
  if (n[0] > CLI_MAX_CELLS || n[1] > CLI_MAX_CELLS || n[2] > CLI_MAX_CELLS ||
      2.0 * n[0] * n[1] * n[2] > (double)CLI_MAX_CELLS)
    return cli_fail_usage("--mesh: '%s' is too large (at most %ld prisms)", text, CLI_MAX_CELLS);
  m->kind = CLI_MESH_BOX;
  m->nx = (int)n[0], m->ny = (int)n[1], m->nz = (int)n[2];
  m->file = NULL;
  return 0;
bad:
  return cli_fail_usage("--mesh: expected box:NX,NY,NZ, gmsh:FILE, FILE.msh, rect:NX,NY or "
                        "annulus:NR,NT, got '%s'",
                        text);
}

int cli_parse_choice(const char *option, const char *text, const char *const *names, int n)
{
  for (int i = 0; i < n; i++)
    if (strcmp(text, names[i]) == 0) return i;
  char list[160] = "";
  for (int i = 0; i < n; i++) {
    strncat(list, i ? (i == n - 1 ? " or " : ", ") : "", sizeof list - strlen(list) - 1);
    strncat(list, names[i], sizeof list - strlen(list) - 1);
  }
  cli_fail_usage("%s: expected %s, got '%s'", option, list, text);
  return -1;
}

int cli_parse_element(const char *text, int *shape)
{
  if (strcmp(text, "prism") == 0) *shape = FEMINT_PRISM;
  else if (strcmp(text, "quad") == 0) *shape = FEMINT_QUAD;
  else if (strcmp(text, "tet") == 0) *shape = FEMINT_TET;
  else return cli_fail_usage("--element: unsupported element '%s' (femint has: prism, quad, tet)", text);
  return 0;
}

int cli_mesh_shape(const struct cli_mesh *m)
{
  return m->kind == CLI_MESH_RECT || m->kind == CLI_MESH_ANNULUS ? FEMINT_QUAD : FEMINT_PRISM;
}

int cli_mesh_match(struct cli_mesh *m, int shape, int given)
{
  if (!given) {
    if (shape == FEMINT_QUAD) *m = (struct cli_mesh){CLI_MESH_RECT, 16, 16, 1, NULL};
    return 0;
  }
  if (cli_mesh_shape(m) == shape) return 0;
  return cli_fail_usage("--mesh: %s meshes are made of %s; --element %s takes %s", 
                        shape == FEMINT_QUAD ? "box and gmsh" : "rect and annulus",
                        shape == FEMINT_QUAD ? "prisms" : "quadrilaterals",
                        shape == FEMINT_QUAD ? "quad" : "prism",
                        shape == FEMINT_QUAD ? "rect:NX,NY or annulus:NR,NT"
                                             : "box:NX,NY,NZ or gmsh:FILE");
}

int cli_mesh_create(femint_context_t ctx, const struct cli_mesh *m, double perturb, unsigned seed,
                    femint_mesh_t *mesh)
{
  switch (m->kind) {
  case CLI_MESH_RECT:
    return femint_mesh_create_rectangle(ctx, m->nx, m->ny, m->nx, m->ny, perturb, seed, mesh);
  case CLI_MESH_ANNULUS: /* a quarter of the annulus 1 <= r <= 2 */
    return femint_mesh_create_annulus(ctx, m->nx, m->ny, 1.0, 2.0, M_PI / 2, mesh);
  case CLI_MESH_GMSH: return femint_mesh_read_gmsh(ctx, m->file, mesh);
  default:
    return femint_mesh_create_box(ctx, m->nx, m->ny, m->nz, m->nx, m->ny, m->nz, perturb, seed,
                                  mesh);
  }
}

int cli_check_writable(const char *path)
{
  struct stat st;
  int err = 0;
  if (stat(path, &st) == 0) {
    if (S_ISDIR(st.st_mode)) err = EISDIR;
    else if (access(path, W_OK) != 0) err = errno;
  } else if (errno != ENOENT || path[0] == '\0') {
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
  if (err) return cli_fail_usage("cannot write '%s': %s", path, strerror(err));
  return 0;
}

int cli_next_option(int argc, char **argv, int *i, char *name, size_t len, const char **value,
                    const char *const *with_value, const char *const *flags)
{
  const char *arg = argv[*i];
  if (strcmp(arg, "-h") == 0) arg = "--help";
  if (arg[0] != '-') return cli_fail_usage("unexpected argument '%s'", arg);
  const char *eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
  size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
  if (n >= len) return cli_fail_usage("unknown option '%.*s'", (int)n, arg);
  memcpy(name, arg, n);
  name[n] = '\0';
  *value = eq ? eq + 1 : NULL;
  int needs = 0, known = strcmp(name, "--help") == 0;
  for (int k = 0; with_value[k]; k++)
    if (strcmp(name, with_value[k]) == 0) needs = known = 1;
  for (int k = 0; flags[k]; k++)
    if (strcmp(name, flags[k]) == 0) known = 1;
  if (!known) return cli_fail_usage("unknown option '%s'", name);
  if (needs && !*value) {
    if (*i + 1 >= argc) return cli_fail_usage("%s needs a value", name);
    *value = argv[++*i];
  } else if (!needs && *value) {
    return cli_fail_usage("%s takes no value, got '%s'", name, *value);
  }
  return 0;
}

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

void cli_json_number(double x)
{
  if (isfinite(x)) printf("%.10g", x);
  else fputs("null", stdout);
}

void cli_json_workers(const struct femint_stats *st, char names[][CLI_NAME_LEN])
{
  for (int w = 0; w < st->nworker; w++) {
    printf("%s{\"name\":", w ? "," : "");
    cli_json_string(names[w]);
    printf(",\"kind\":\"%s\",\"integrate_tasks\":%d,\"assemble_tasks\":%d,\"busy_s\":",
           st->worker_is_opencl[w] ? "opencl" : "cpu", st->worker_tasks_integrate[w],
           st->worker_tasks_assemble[w]);
    cli_json_number(st->worker_busy[w]);
    putchar('}');
  }
}

int cli_problem_components(int problem, int shape)
{
  return problem == PROBLEM_LAPLACE ? 1 : shape == FEMINT_QUAD ? 2 : 3;
}

int cli_form_create(femint_context_t ctx, int problem, int shape, femint_form_t *form)
{
  const double one = 1, young = 1, poisson = 0.3;
  if (problem == PROBLEM_ELASTICITY && shape == FEMINT_QUAD)
    return femint_form_create_plane_elasticity(ctx, FEMINT_PLANE_STRESS, 1, &young, &poisson,
                                               form);
  if (problem == PROBLEM_ELASTICITY)
    return femint_form_create_elasticity(ctx, 1, &young, &poisson, form);
  if (problem == PROBLEM_LAPLACE) return femint_form_create_laplace(ctx, 1, 1, &one, form);
  return femint_form_create_mass(ctx, cli_problem_components(problem, shape), 1, &one, form);
}

/* ---- gnuplot ---- */

int cli_have_gnuplot(void)
{
  const char *path = getenv("PATH");
  if (!path || !*path) path = "/usr/bin:/bin";
  while (*path) {
    size_t n = strcspn(path, ":");
    char buf[4096];
    if (n > 0 && n + sizeof "/gnuplot" < sizeof buf) {
      memcpy(buf, path, n);
      strcpy(buf + n, "/gnuplot");
      struct stat st;
      if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0) return 1;
    }
    path += n;
    if (*path == ':') path++;
  }
  return 0;
}

int cli_gnuplot(const char *script)
{
  /* gnuplot's messages go to a temporary file so that a failure is reported in one line. */
  char log[] = "/tmp/femint-gnuplot.XXXXXX";
  int fd = mkstemp(log);
  if (fd < 0) {
    fprintf(stderr, "femint: gnuplot: cannot make a temporary file: %s\n", strerror(errno));
    return -1;
  }
  close(fd);
  char cmd[sizeof log + 32];
  snprintf(cmd, sizeof cmd, "gnuplot 2>%s", log);
  fflush(stdout);
  FILE *p = popen(cmd, "w");
  int st = -1;
  if (p) {
    fputs(script, p);
    st = pclose(p);
  }
  char line[512] = "";
  FILE *f = fopen(log, "r");
  if (f) {
    char buf[512];
    while (fgets(buf, sizeof buf, f))
      if (strspn(buf, " \t\n^") < strlen(buf)) snprintf(line, sizeof line, "%s", buf);
    fclose(f);
  }
  unlink(log);
  line[strcspn(line, "\n")] = '\0';
  if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    fprintf(stderr, "femint: gnuplot failed%s%s\n", line[0] ? ": " : "", line);
    return -1;
  }
  return 0;
}

char *cli_timeline_csv(const char *png)
{
  size_t n = strlen(png);
  char *csv = malloc(n + 5);
  if (!csv) return NULL;
  memcpy(csv, png, n + 1);
  if (n > 4 && strcmp(png + n - 4, ".png") == 0) csv[n - 4] = '\0';
  strcat(csv, ".csv");
  return csv;
}

/* Appends to a growing string; the string stays NULL after a failure. */
static void append(char **s, size_t *len, size_t *cap, const char *fmt, ...)
  __attribute__((format(printf, 4, 5)));
static void append(char **s, size_t *len, size_t *cap, const char *fmt, ...)
{
  if (!*s) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(*s + *len, *cap - *len, fmt, ap);
    va_end(ap);
    if (n < 0) {
      free(*s), *s = NULL;
      return;
    }
    if ((size_t)n < *cap - *len) {
      *len += (size_t)n;
      return;
    }
    char *t = realloc(*s, 2 * *cap + (size_t)n);
    if (!t) {
      free(*s), *s = NULL;
      return;
    }
    *s = t, *cap = 2 * *cap + (size_t)n;
  }
}

/* A string for a double-quoted gnuplot literal: backslashes and quotes become spaces. */
static void gnuplot_text(char *dst, size_t len, const char *src)
{
  snprintf(dst, len, "%s", src);
  for (char *c = dst; *c; c++)
    if (*c == '"' || *c == '\\' || *c == '\n') *c = ' ';
}

int cli_timeline_plot(femint_context_t ctx, const char *csv, const char *png, const char *title)
{
  if (!cli_have_gnuplot()) {
    fprintf(stderr, "femint: warning: gnuplot is not on the PATH: no chart '%s' (its data are "
                    "in '%s')\n", png, csv);
    return 0;
  }
  FILE *f = fopen(csv, "r");
  if (!f) {
    fprintf(stderr, "femint: cannot read the timeline '%s': %s\n", csv, strerror(errno));
    return EXIT_RUNTIME;
  }
  size_t len = 0, cap = 4096;
  char *s = malloc(cap), line[512], name[160], text[160];
  int used[FEMINT_MAX_WORKERS] = {0}, nrow = 0;
  double tmax = 0;
  /* Two data blocks, integration and assembly tasks: x1 x2 y1 y2 per task. */
  for (int pass = 0; pass < 2; pass++) {
    append(&s, &len, &cap, "$%s << EOD\n", pass ? "assemble" : "integrate");
    rewind(f);
    while (fgets(line, sizeof line, f)) {
      int w, order, cells;
      char kind[16], codelet[16];
      double t0, t1;
      if (sscanf(line, "%d,%15[^,],%15[^,],%d,%d,%lf,%lf", &w, kind, codelet, &order, &cells,
                 &t0, &t1) != 7 || w < 0 || w >= FEMINT_MAX_WORKERS)
        continue;
      if ((strcmp(codelet, "assemble") == 0) != pass) continue;
      used[w] = 1;
      tmax = fmax(tmax, t1);
      append(&s, &len, &cap, "%.6f %.6f %.2f %.2f %d\n", t0, t1, w - 0.4, w + 0.4, order);
      nrow++;
    }
    append(&s, &len, &cap, "0 0 -10 -10 0\nEOD\n");
  }
  fclose(f);
  if (!s) {
    fprintf(stderr, "femint: out of memory while drawing '%s'\n", png);
    return EXIT_RUNTIME;
  }
  if (nrow == 0) {
    free(s);
    fprintf(stderr, "femint: the timeline '%s' holds no task\n", csv);
    return EXIT_RUNTIME;
  }
  int wmax = 0;
  for (int w = 0; w < FEMINT_MAX_WORKERS; w++)
    if (used[w]) wmax = w;
  gnuplot_text(text, sizeof text, png);
  append(&s, &len, &cap,
         "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
         "  set terminal pngcairo size 1200,%d font \",10\"\n"
         "} else {\n  set terminal png size 1200,%d\n}\n"
         "set termoption noenhanced\nset output \"%s\"\n",
         160 + 40 * (wmax + 1), 160 + 40 * (wmax + 1), text);
  gnuplot_text(text, sizeof text, title);
  append(&s, &len, &cap,
         "set title \"%s\"\nset xlabel \"time since the first task [s]\"\n"
         "set xrange [0:%.6f]\nset yrange [-0.6:%.1f]\nset key outside top center horizontal\n"
         "set grid xtics\nset lmargin 48\nset ytics (",
         text, tmax > 0 ? 1.02 * tmax : 1, wmax + 0.6);
  for (int w = 0, k = 0; w <= wmax; w++) {
    if (!used[w]) continue;
    if (femint_context_worker_name(ctx, w, name, sizeof name) != 0)
      snprintf(name, sizeof name, "worker %d", w);
    gnuplot_text(text, sizeof text, name);
    append(&s, &len, &cap, "%s\"%s\" %d", k++ ? ", " : "", text, w);
  }
  append(&s, &len, &cap,
         ")\n"
         "plot $integrate using (($1+$2)/2):(($3+$4)/2):1:2:3:4 with boxxyerror "
         "fs solid 0.9 border lc rgb \"#1f77b4\" lc rgb \"#1f77b4\" title \"integrate\", \\\n"
         "     $assemble using (($1+$2)/2):(($3+$4)/2):1:2:3:4 with boxxyerror "
         "fs solid 0.9 border lc rgb \"#ff7f0e\" lc rgb \"#ff7f0e\" title \"assemble\"\n"
         "set output\n");
  int rc = s ? cli_gnuplot(s) : -1;
  free(s);
  return rc ? EXIT_RUNTIME : 0;
}
