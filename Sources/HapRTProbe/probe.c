// The real-time probe, for tests: LD_PRELOAD=libHapRTProbe.so hap play ...
//
// - Counts malloc, calloc, realloc, free, posix_memalign, aligned_alloc, memalign, valloc and
//   pvalloc calls, and swift_retain/swift_release (and their _n and bridge-object variants) and
//   swift_beginAccess calls, made on a thread while it is watched. `hap`'s playback thread
//   watches itself after its first period is queued and stops when its loop ends
//   (hap_probe_watch, found by CALSA with dlsym; without this library it is a no-op).
// - Wraps handlers installed with signal() or sigaction() (without SA_SIGINFO) and counts the
//   allocations made while one runs.
// - HAP_PROBE_FREEZE_REALTIME=1: the wall clock (CLOCK_REALTIME, gettimeofday, time) stands
//   still, so code that waits on the wall clock instead of the monotonic one never ends.
// - HAP_PROBE_TRACE=N: prints the stack of the first N counted allocations to stderr, and calls
//   hap_probe_retain_traced for each counted retain (break there in gdb).
// - At exit, writes the counts to $HAP_PROBE_OUT, one "name value" per line.
//
// Allocation calls go straight to glibc's __libc_* functions, so counting never recurses.
#define _GNU_SOURCE
#include "HapRTProbe.h"

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);

static __thread int watched __attribute__((tls_model("initial-exec")));
static __thread int in_handler __attribute__((tls_model("initial-exec")));

static atomic_long watch_calls, allocs, frees, retains, releases, accesses, handler_calls, handler_allocs;

static void trace_alloc(void) {
  static atomic_int traced;
  const char *setting = getenv("HAP_PROBE_TRACE");
  if (!setting || atomic_fetch_add(&traced, 1) >= atoi(setting)) return;
  int was = watched;
  watched = 0;
  void *frames[48];
  int n = backtrace(frames, 48);
  backtrace_symbols_fd(frames, n, 2);
  write(2, "----\n", 5);
  watched = was;
}

// A place for a debugger's breakpoint: called for each counted retain when HAP_PROBE_TRACE is set.
__attribute__((noinline)) void hap_probe_retain_traced(void) { __asm__ volatile(""); }

static inline void trace_retain(void) {
  static int tracing = -1;
  if (tracing < 0) tracing = getenv("HAP_PROBE_TRACE") != NULL;
  if (tracing) hap_probe_retain_traced();
}

static inline void count_alloc(void) {
  if (watched) {
    atomic_fetch_add_explicit(&allocs, 1, memory_order_relaxed);
    trace_alloc();
  }
  if (in_handler) atomic_fetch_add_explicit(&handler_allocs, 1, memory_order_relaxed);
}

void hap_probe_watch(int on) {
  if (on) atomic_fetch_add_explicit(&watch_calls, 1, memory_order_relaxed);
  watched = on;
}

void *malloc(size_t size) {
  count_alloc();
  return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
  count_alloc();
  return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
  count_alloc();
  return __libc_realloc(pointer, size);
}

void free(void *pointer) {
  if (pointer && watched) atomic_fetch_add_explicit(&frees, 1, memory_order_relaxed);
  if (pointer && in_handler) atomic_fetch_add_explicit(&handler_allocs, 1, memory_order_relaxed);
  __libc_free(pointer);
}

void *memalign(size_t alignment, size_t size) {
  count_alloc();
  return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
  count_alloc();
  return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
  count_alloc();
  if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
  void *pointer = __libc_memalign(alignment, size);
  if (!pointer) return ENOMEM;
  *out = pointer;
  return 0;
}

void *valloc(size_t size) {
  count_alloc();
  return __libc_valloc(size);
}

void *pvalloc(size_t size) {
  count_alloc();
  return __libc_pvalloc(size);
}

// Swift reference counting and exclusivity checks, counted on a watched thread. Calls from the
// `hap` binary and Swift libraries other than libswiftCore go through the PLT and land here;
// calls libswiftCore makes to itself do not (see docs/architecture.md).
#define FORWARD(name, type) \
  static __typeof__(type) real_##name; \
  if (!real_##name) real_##name = (type)dlsym(RTLD_NEXT, #name);

void *swift_retain(void *object) {
  FORWARD(swift_retain, void *(*)(void *))
  if (watched && object) {
    atomic_fetch_add_explicit(&retains, 1, memory_order_relaxed);
    trace_retain();
  }
  return real_swift_retain(object);
}

void *swift_retain_n(void *object, uint32_t n) {
  FORWARD(swift_retain_n, void *(*)(void *, uint32_t))
  if (watched && object) {
    atomic_fetch_add_explicit(&retains, 1, memory_order_relaxed);
    trace_retain();
  }
  return real_swift_retain_n(object, n);
}

void swift_release(void *object) {
  FORWARD(swift_release, void (*)(void *))
  if (watched && object) atomic_fetch_add_explicit(&releases, 1, memory_order_relaxed);
  real_swift_release(object);
}

void swift_release_n(void *object, uint32_t n) {
  FORWARD(swift_release_n, void (*)(void *, uint32_t))
  if (watched && object) atomic_fetch_add_explicit(&releases, 1, memory_order_relaxed);
  real_swift_release_n(object, n);
}

void *swift_bridgeObjectRetain(void *object) {
  FORWARD(swift_bridgeObjectRetain, void *(*)(void *))
  if (watched && object) {
    atomic_fetch_add_explicit(&retains, 1, memory_order_relaxed);
    trace_retain();
  }
  return real_swift_bridgeObjectRetain(object);
}

void swift_bridgeObjectRelease(void *object) {
  FORWARD(swift_bridgeObjectRelease, void (*)(void *))
  if (watched && object) atomic_fetch_add_explicit(&releases, 1, memory_order_relaxed);
  real_swift_bridgeObjectRelease(object);
}

void swift_beginAccess(void *pointer, void *buffer, uintptr_t flags, void *pc) {
  FORWARD(swift_beginAccess, void (*)(void *, void *, uintptr_t, void *))
  if (watched) atomic_fetch_add_explicit(&accesses, 1, memory_order_relaxed);
  real_swift_beginAccess(pointer, buffer, flags, pc);
}

// Signal handlers, wrapped.
#define MAX_SIGNAL 65
static void (*user_handlers[MAX_SIGNAL])(int);

static void wrapped_handler(int sig) {
  atomic_fetch_add_explicit(&handler_calls, 1, memory_order_relaxed);
  in_handler++;
  if (sig > 0 && sig < MAX_SIGNAL && user_handlers[sig]) user_handlers[sig](sig);
  in_handler--;
}

sighandler_t signal(int sig, sighandler_t handler) {
  FORWARD(signal, sighandler_t (*)(int, sighandler_t))
  if (sig <= 0 || sig >= MAX_SIGNAL || handler == SIG_DFL || handler == SIG_IGN || handler == SIG_ERR) {
    return real_signal(sig, handler);
  }
  user_handlers[sig] = handler;
  return real_signal(sig, wrapped_handler);
}

int sigaction(int sig, const struct sigaction *action, struct sigaction *old) {
  FORWARD(sigaction, int (*)(int, const struct sigaction *, struct sigaction *))
  if (!action || sig <= 0 || sig >= MAX_SIGNAL || (action->sa_flags & SA_SIGINFO) ||
      action->sa_handler == SIG_DFL || action->sa_handler == SIG_IGN) {
    return real_sigaction(sig, action, old);
  }
  struct sigaction wrapped = *action;
  user_handlers[sig] = action->sa_handler;
  wrapped.sa_handler = wrapped_handler;
  return real_sigaction(sig, &wrapped, old);
}

// The wall clock, frozen on request.
static int frozen = -1;
static struct timespec frozen_at;

static int realtime_frozen(void) {
  if (frozen < 0) {
    const char *setting = getenv("HAP_PROBE_FREEZE_REALTIME");
    frozen = setting && strcmp(setting, "1") == 0;
    frozen_at.tv_sec = 1700000000;
    frozen_at.tv_nsec = 0;
  }
  return frozen;
}

int clock_gettime(clockid_t clock, struct timespec *out) {
  FORWARD(clock_gettime, int (*)(clockid_t, struct timespec *))
  if ((clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE) && realtime_frozen()) {
    *out = frozen_at;
    return 0;
  }
  return real_clock_gettime(clock, out);
}

int gettimeofday(struct timeval *restrict out, void *restrict zone) {
  FORWARD(gettimeofday, int (*)(struct timeval *restrict, void *restrict))
  if (realtime_frozen()) {
    out->tv_sec = frozen_at.tv_sec;
    out->tv_usec = 0;
    return 0;
  }
  return real_gettimeofday(out, zone);
}

time_t time(time_t *out) {
  FORWARD(time, time_t (*)(time_t *))
  if (realtime_frozen()) {
    if (out) *out = frozen_at.tv_sec;
    return frozen_at.tv_sec;
  }
  return real_time(out);
}

__attribute__((destructor)) static void report(void) {
  const char *path = getenv("HAP_PROBE_OUT");
  if (!path) return;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  char text[512];
  int length = snprintf(
      text, sizeof text,
      "watched %ld\nallocs %ld\nfrees %ld\nretains %ld\nreleases %ld\naccesses %ld\nhandler_calls %ld\n"
      "handler_allocs %ld\n",
      atomic_load(&watch_calls), atomic_load(&allocs), atomic_load(&frees), atomic_load(&retains),
      atomic_load(&releases), atomic_load(&accesses), atomic_load(&handler_calls), atomic_load(&handler_allocs));
  if (length > 0) (void)!write(fd, text, (size_t)length);
  close(fd);
}
