/* Internal error helpers: record a detailed message on the context and return a FEMINT_E* code. */
#ifndef FEMINT_HOST_ERROR_H
#define FEMINT_HOST_ERROR_H

#include "femint.h"

/* Where the last detailed message of a context is kept. A context (scheduler/scheduler.h) begins
 * with one, so that the host layer records messages without knowing the rest of it. */
struct femint_errbuf {
  char msg[8192];
};

/* Record "fmt..." as the last error of ctx (or of the calling thread when ctx is NULL) and
 * return code. */
int femint_seterr(femint_context_t ctx, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The message of the last error recorded without a context on this thread. */
const char *femint_thread_error(void);
/* With FEMINT_TRACE set (not 0): one line on stderr, the seconds since the first trace of the
 * process and the message, to see where a first call spends its time. */
void femint_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Whether FEMINT_TRACE is set: steps that are asynchronous may then wait to be traced. */
int femint_tracing(void);

/* Long work of the host's threads on the calling thread (a mesh, a space, an operator's first
 * data): femint_host_quiet(1) before it and (0) after ask the runtime's idle workers, which poll
 * for tasks, to leave it the cores; nested and concurrent calls pair up. The scheduler layer
 * says how (femint_host_quiet_hook: StarPU's pause and resume while femint is initialized);
 * without a hook nothing happens. Nothing that waits for a task may run quiet. */
void femint_host_quiet(int on);
void femint_host_quiet_hook(void (*fn)(int on));

/* Propagate a non-zero return. */
#define FEMINT_CALL(expr)                                                                       \
  do {                                                                                          \
    int femint_ierr_ = (expr);                                                                  \
    if (femint_ierr_) return femint_ierr_;                                                      \
  } while (0)

/* Return code with a message unless cond holds. */
#define FEMINT_CHECK(cond, ctx, code, ...)                                                      \
  do {                                                                                          \
    if (!(cond)) return femint_seterr((ctx), (code), __VA_ARGS__);                              \
  } while (0)

#endif
