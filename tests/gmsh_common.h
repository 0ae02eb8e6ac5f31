/* Helpers of the Gmsh reader tests (t203, t207): files in a temporary folder, edits of their
 * text, the meshes of tests/data, and a fuzzer that cuts and changes files and asks a reader
 * whether it answered sanely. */
#ifndef FEMINT_TEST_GMSH_COMMON_H
#define FEMINT_TEST_GMSH_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static char test_dir[64];
static char paths[64][128];
static int npath;

/* Write len bytes to a file of the temporary folder (the same name: the same file); its path. */
static inline const char *write_bytes(const char *name, const void *buf, size_t len)
{
  char path[128];
  int i = 0;
  snprintf(path, sizeof path, "%s/%s", test_dir, name);
  while (i < npath && strcmp(paths[i], path)) i++;
  if (i == (int)(sizeof paths / sizeof paths[0])) {
    printf("Bail out! too many files\n");
    exit(1);
  }
  if (i == npath) snprintf(paths[npath++], sizeof paths[0], "%s", path);
  /* A new file each time: rewriting one in place can make the file system flush it. */
  unlink(paths[i]);
  FILE *f = fopen(paths[i], "wb");
  if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
    printf("Bail out! cannot write %s\n", paths[i]);
    exit(1);
  }
  return paths[i];
}

/* Write text to a file of the temporary folder; its path. */
static inline const char *write_file(const char *name, const char *text)
{
  return write_bytes(name, text, strlen(text));
}

/* The number of the first line of text that contains needle. */
static inline int line_of(const char *text, const char *needle)
{
  const char *at = strstr(text, needle);
  int line = 1;
  for (const char *s = text; at && s < at; s++) line += *s == '\n';
  return at ? line : -1;
}

/* Whether the last error message contains "PATH:LINE:" and what. */
static inline int names_line(const char *path, int line, const char *what)
{
  char where[200];
  snprintf(where, sizeof where, "%s:%d:", path, line);
  const char *msg = femint_last_error(NULL);
  return strstr(msg, where) == msg && strstr(msg, what) != NULL;
}

/* Whether the last error message is "PATH: " (no line: a message about the file or a cell of it)
 * followed by text that contains what. */
static inline int names_file(const char *path, const char *what)
{
  const char *msg = femint_last_error(NULL);
  const size_t n = strlen(path);
  return !strncmp(msg, path, n) && !strncmp(msg + n, ": ", 2) && strstr(msg, what) != NULL;
}

/* A copy of text with the first occurrence of from replaced by to. */
static inline char *replace(const char *text, const char *from, const char *to)
{
  const char *at = strstr(text, from);
  if (!at) {
    printf("Bail out! '%s' is not in the text\n", from);
    exit(1);
  }
  size_t n = strlen(text) + strlen(to) + 1, k = (size_t)(at - text);
  char *s = malloc(n);
  memcpy(s, text, k);
  snprintf(s + k, n - k, "%s%s", to, at + strlen(from));
  return s;
}

#ifndef FEMINT_TEST_DATA
#define FEMINT_TEST_DATA "tests/data"
#endif

static inline const char *data_path(const char *name)
{
  static char path[8][512];
  static int k;
  char *p = path[k++ % 8];
  snprintf(p, sizeof path[0], "%s/%s", FEMINT_TEST_DATA, name);
  return p;
}

/* The bytes of a file (NUL-terminated) and their number. */
static inline char *read_bytes(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  long n;
  if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
      !(buf = malloc((size_t)n + 1)) || fread(buf, 1, (size_t)n, f) != (size_t)n) {
    printf("Bail out! cannot read %s\n", path);
    exit(1);
  }
  fclose(f);
  buf[n] = '\0';
  *len = (size_t)n;
  return buf;
}

/* A copy of a binary file with n bytes at offset at replaced by the bytes of v. */
static inline const char *patch(const char *name, const char *buf, size_t len, size_t at,
                                const void *v, size_t n)
{
  char *copy = malloc(len);
  memcpy(copy, buf, len);
  memcpy(copy + at, v, n);
  const char *path = write_bytes(name, copy, len);
  free(copy);
  return path;
}

/* The offset of the data of a section (after its line) in buf. */
static inline size_t data_of(const char *buf, size_t len, const char *section)
{
  char line[64];
  snprintf(line, sizeof line, "\n%s\n", section);
  for (size_t i = 0; i + strlen(line) <= len; i++)
    if (!memcmp(buf + i, line, strlen(line))) return i + strlen(line);
  printf("Bail out! no %s\n", section);
  exit(1);
}

/* Cut a file's bytes at every offset (every = 1) or at 300 places, then make nchange random
 * changes of 1 or 8 bytes (seeded): read_is_sane says whether the reader of each copy gave a
 * valid mesh or an error naming the file (*failed: which of the two). One TAP line each. */
static inline void fuzz(const char *label, const char *buf, size_t len, int every, int nchange,
                        uint64_t seed, int (*read_is_sane)(const char *path, int *failed))
{
  char *copy = malloc(len + 1);
  int ncut = every ? (int)len : 300, bad = 0, errors = 0, failed;
  for (int i = 0; i < ncut; i++) {
    size_t at = every ? (size_t)i : (size_t)((double)i * len / ncut);
    const char *path = write_bytes("fuzz.msh", buf, at);
    if (!read_is_sane(path, &failed) && bad++ < 3)
      tap_diag("%s cut at %zu: \"%s\"", label, at, femint_last_error(NULL));
    errors += failed;
  }
  tap_ok(bad == 0, "%s: %d truncations, %d errors, %d valid meshes, %d bad results", label, ncut,
         errors, ncut - errors, bad);
  bad = errors = 0;
  for (int i = 0; i < nchange; i++) {
    memcpy(copy, buf, len);
    int kind = (int)(test_rand(&seed) * 6);
    size_t at = (size_t)(test_rand(&seed) * len), n = kind >= 4 ? 8 : 1;
    if (at + n > len) at = len - n;
    for (size_t j = 0; j < n; j++) {
      unsigned char *c = (unsigned char *)&copy[at + j];
      switch (kind) {
      case 0: *c ^= (unsigned char)(1u << (int)(test_rand(&seed) * 8)); break;
      case 1: *c = (unsigned char)(test_rand(&seed) * 256); break;
      case 2: *c = "0123456789-. \n$e"[(int)(test_rand(&seed) * 16)]; break;
      case 3: *c = '9'; break;
      case 4: *c = 0xff; break;
      default: *c = (unsigned char)(test_rand(&seed) * 256); break;
      }
    }
    const char *path = write_bytes("fuzz.msh", copy, len);
    if (!read_is_sane(path, &failed) && bad++ < 3)
      tap_diag("%s change %d (kind %d at %zu): \"%s\"", label, i, kind, at,
               femint_last_error(NULL));
    errors += failed;
  }
  tap_ok(bad == 0, "%s: %d random changes, %d errors, %d valid meshes, %d bad results", label,
         nchange, errors, nchange - errors, bad);
  free(copy);
}

/* A copy of text with the first occurrences of from1 and from2 replaced by to1 and to2. */
static inline char *replace2(const char *text, const char *from1, const char *to1,
                             const char *from2, const char *to2)
{
  char *a = replace(text, from1, to1), *b = replace(a, from2, to2);
  free(a);
  return b;
}

/* Make the temporary folder /tmp/femint-NAME.XXXXXX of the files the test writes. */
static inline void test_dir_create(const char *name)
{
  snprintf(test_dir, sizeof test_dir, "/tmp/femint-%s.XXXXXX", name);
  if (!mkdtemp(test_dir)) {
    printf("Bail out! mkdtemp failed\n");
    exit(1);
  }
}

/* Remove the files written and their folder. */
static inline void test_dir_remove(void)
{
  for (int i = 0; i < npath; i++) unlink(paths[i]);
  rmdir(test_dir);
}

#endif
