/* The text of an OpenCL source: the embedded copy, or a file of $FEMINT_KERNEL_DIR while kernels
 * are being edited. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

static char *read_file(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *text = NULL;
  if (fseek(f, 0, SEEK_END) == 0) {
    long n = ftell(f);
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)n + 1))) {
      if (fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
      } else {
        text[n] = 0;
      }
    }
  }
  fclose(f);
  return text;
}

/* text after a #line directive naming path (so that a compiler's messages name the file and
 * its line); the text alone when the path cannot be quoted. */
static char *with_line(const char *path, char *text)
{
  if (!text || strpbrk(path, "\"\\\n")) return text;
  const size_t n = strlen(path) + strlen(text) + 16;
  char *out = malloc(n);
  if (out) snprintf(out, n, "#line 1 \"%s\"\n%s", path, text);
  free(text);
  return out;
}

char *femint_kernel_text(const char *name)
{
  const char *dir = getenv("FEMINT_KERNEL_DIR");
  char path[4096];
  if (dir && *dir) {
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = read_file(path);
    if (text) return with_line(path, text);
  }
  snprintf(path, sizeof path, "kernels/%s", name);
  for (const struct femint_kernel_source *k = femint_kernel_sources; k->name; k++)
    if (!strcmp(k->name, name)) return with_line(path, strdup(k->text));
  return NULL;
}
