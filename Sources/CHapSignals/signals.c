#define _GNU_SOURCE  // pipe2
#include "CHapSignals.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

// Zero-initialised static storage: there before main, never allocated.
static atomic_bool interrupted;

_Static_assert(ATOMIC_BOOL_LOCK_FREE == 2, "the interrupt flag must be lock-free");

// The wake-up pipe: its read end becomes readable, and stays so, once the flag is raised, so a
// poll() on an input ends at once. -1 until hap_interrupt_install made it.
static int wake_pipe[2] = {-1, -1};

// write(2) is async-signal-safe; the pipe is non-blocking (a full one already wakes) and errno is
// kept as the interrupted code left it.
static void wake(void) {
  int saved = errno;
  int fd = wake_pipe[1];
  if (fd >= 0) {
    char byte = 1;
    ssize_t ignored = write(fd, &byte, 1);
    (void)ignored;
  }
  errno = saved;
}

static void on_signal(int sig) {
  (void)sig;
  atomic_store_explicit(&interrupted, true, memory_order_relaxed);
  wake();
}

int hap_interrupt_install(void) {
  if (wake_pipe[0] < 0 && pipe2(wake_pipe, O_NONBLOCK | O_CLOEXEC) != 0) return -errno;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  if (sigaction(SIGINT, &action, NULL) != 0 || sigaction(SIGTERM, &action, NULL) != 0) return -errno;
  // A parent may have started us with these signals blocked (threads of test runners and some
  // process managers do); unblock them, or Ctrl-C would never reach the handler.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return -pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

void hap_interrupt_raise(void) {
  atomic_store_explicit(&interrupted, true, memory_order_relaxed);
  wake();
}

int hap_interrupt_wake_fd(void) { return wake_pipe[0]; }

bool hap_interrupt_requested(void) { return atomic_load_explicit(&interrupted, memory_order_relaxed); }
