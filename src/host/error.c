/* Error codes, their texts, and the last detailed message of a context or of a thread. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"

const char *femint_strerror(int code)
{
  switch (code) {
  case FEMINT_OK: return "success";
#define FEMINT_X_TEXT(name, value, text) \
  case FEMINT_##name: return text;
    FEMINT_ERRNO_MAP(FEMINT_X_TEXT)
#undef FEMINT_X_TEXT
  }
  return "unknown error";
}

const char *femint_error_name(int code)
{
  switch (code) {
  case FEMINT_OK: return "FEMINT_OK";
#define FEMINT_X_NAME(name, value, text) \
  case FEMINT_##name: return "FEMINT_" #name;
    FEMINT_ERRNO_MAP(FEMINT_X_NAME)
#undef FEMINT_X_NAME
  }
  return "FEMINT_EUNKNOWN";
}

static _Thread_local char thread_msg[8192];

const char *femint_thread_error(void) { return thread_msg; }

/* The context's buffer: its first member. */
static char *context_msg(femint_context_t ctx) { return ((struct femint_errbuf *)(void *)ctx)->msg; }

int femint_seterr(femint_context_t ctx, int code, const char *fmt, ...)
{
  /* Formatted apart first: the arguments may be the very messages being replaced (a caller that
   * adds context to femint_thread_error() or femint_last_error()). */
  char msg[sizeof thread_msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (ctx) memcpy(context_msg(ctx), msg, sizeof msg);
  memcpy(thread_msg, msg, sizeof msg);
  return code;
}

const char *femint_last_error(femint_context_t ctx) { return ctx ? context_msg(ctx) : thread_msg; }

const char *femint_init_error(void) { return thread_msg; }

static double trace_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int trace_on = -1;
static double trace_t0;

int femint_tracing(void)
{
  if (trace_on < 0) {
    const char *v = getenv("FEMINT_TRACE");
    trace_on = v && *v && strcmp(v, "0") != 0;
    trace_t0 = trace_now();
  }
  return trace_on;
}

void femint_trace(const char *fmt, ...)
{
  if (!femint_tracing()) return;
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "femint: trace %10.6f s  %s\n", trace_now() - trace_t0, msg);
}

static void (*quiet_fn)(int on);

void femint_host_quiet_hook(void (*fn)(int on)) { quiet_fn = fn; }

void femint_host_quiet(int on)
{
  void (*fn)(int) = quiet_fn;
  if (fn) fn(on);
}
