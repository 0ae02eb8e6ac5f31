/* Charts drawn with gnuplot: the Gantt chart of the tasks of a verb (--timeline), and the helpers
 * that find gnuplot and run a script through it with its errors reported in one line. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

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

/* The longest a chart may take: 120 s, or FEMINT_CHART_TIMEOUT seconds. */
static int chart_seconds(void)
{
  const char *e = getenv("FEMINT_CHART_TIMEOUT");
  const int s = e ? atoi(e) : 0;
  return s > 0 ? s : 120;
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
  /* at most chart_seconds() (coreutils' timeout, where there is one): a chart never holds the
   * results back */
  const int seconds = chart_seconds();
  char cmd[sizeof log + 160];
  snprintf(cmd, sizeof cmd,
           "if command -v timeout >/dev/null; then exec timeout %d gnuplot; else exec gnuplot; "
           "fi 2>%s",
           seconds, log);
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
  if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 124)
    snprintf(line, sizeof line, "stopped after %d s", seconds);
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

void cli_append(char **s, size_t *len, size_t *cap, const char *fmt, ...)
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

void cli_gnuplot_text(char *dst, size_t len, const char *src)
{
  snprintf(dst, len, "%s", src);
  for (char *c = dst; *c; c++)
    if (*c == '"' || *c == '\\' || *c == '\n') *c = ' ';
}

void cli_gnuplot_png(char **s, size_t *len, size_t *cap, int width, int height, const char *png)
{
  char text[4096];
  cli_gnuplot_text(text, sizeof text, png);
  cli_append(s, len, cap,
             "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
             "  set terminal pngcairo size %d,%d font \",10\"\n"
             "} else {\n  set terminal png size %d,%d\n}\n"
             "set termoption noenhanced\nset output \"%s\"\n",
             width, height, width, height, text);
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
  /* Two data blocks, integration tasks and the others (assembly, sums): x1 x2 y1 y2 per task. */
  for (int pass = 0; pass < 2; pass++) {
    cli_append(&s, &len, &cap, "$%s << EOD\n", pass ? "assemble" : "integrate");
    rewind(f);
    while (fgets(line, sizeof line, f)) {
      int w, order, cells;
      char kind[16], codelet[32];
      double t0, t1;
      if (sscanf(line, "%d,%15[^,],%31[^,],%d,%d,%lf,%lf", &w, kind, codelet, &order, &cells,
                 &t0, &t1) != 7 || w < 0 || w >= FEMINT_MAX_WORKERS)
        continue;
      if ((strcmp(codelet, "integrate") != 0) != pass) continue;
      used[w] = 1;
      tmax = fmax(tmax, t1);
      cli_append(&s, &len, &cap, "%.6f %.6f %.2f %.2f %d\n", t0, t1, w - 0.4, w + 0.4, order);
      nrow++;
    }
    cli_append(&s, &len, &cap, "0 0 -10 -10 0\nEOD\n");
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
  cli_gnuplot_png(&s, &len, &cap, 1200, 160 + 40 * (wmax + 1), png);
  cli_gnuplot_text(text, sizeof text, title);
  cli_append(&s, &len, &cap,
         "set title \"%s\"\nset xlabel \"time since the first task [s]\"\n"
         "set xrange [0:%.6f]\nset yrange [-0.6:%.1f]\nset key outside top center horizontal\n"
         "set grid xtics\nset lmargin 48\nset ytics (",
         text, tmax > 0 ? 1.02 * tmax : 1, wmax + 0.6);
  for (int w = 0, k = 0; w <= wmax; w++) {
    if (!used[w]) continue;
    if (femint_context_worker_name(ctx, w, name, sizeof name) != 0)
      snprintf(name, sizeof name, "worker %d", w);
    cli_gnuplot_text(text, sizeof text, name);
    cli_append(&s, &len, &cap, "%s\"%s\" %d", k++ ? ", " : "", text, w);
  }
  cli_append(&s, &len, &cap,
         ")\n"
         "plot $integrate using (($1+$2)/2):(($3+$4)/2):1:2:3:4 with boxxyerror "
         "fs solid 0.9 border lc rgb \"#1f77b4\" lc rgb \"#1f77b4\" title \"integrate\", \\\n"
         "     $assemble using (($1+$2)/2):(($3+$4)/2):1:2:3:4 with boxxyerror "
         "fs solid 0.9 border lc rgb \"#ff7f0e\" lc rgb \"#ff7f0e\" title \"assemble, sum\"\n"
         "set output\n");
  int rc = s ? cli_gnuplot(s) : -1;
  free(s);
  return rc ? EXIT_RUNTIME : 0;
}
