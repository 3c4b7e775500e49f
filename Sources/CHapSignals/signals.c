#define _GNU_SOURCE  // pipe2
#include "CHapSignals.h"

#include <errno.h>
#include <pthread.h>
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

// The waits' scope (hap_interrupt_wait_begin/end): how many waits are open, and the actions
// the handler replaced while they are; `for_good` once hap_interrupt_install ran.
static pthread_mutex_t scope_lock = PTHREAD_MUTEX_INITIALIZER;
static int waits;
static bool for_good;
static struct sigaction saved_int, saved_term;

static int install_handler(struct sigaction *old_int, struct sigaction *old_term) {
  if (wake_pipe[0] < 0 && pipe2(wake_pipe, O_NONBLOCK | O_CLOEXEC) != 0) return -errno;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  if (sigaction(SIGINT, &action, old_int) != 0 || sigaction(SIGTERM, &action, old_term) != 0) return -errno;
  // A parent may have started us with these signals blocked (threads of test runners and some
  // process managers do); unblock them, or Ctrl-C would never reach the handler.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return -pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

int hap_interrupt_install(void) {
  pthread_mutex_lock(&scope_lock);
  for_good = true;
  int result = install_handler(NULL, NULL);
  pthread_mutex_unlock(&scope_lock);
  return result;
}

int hap_interrupt_wait_begin(void) {
  pthread_mutex_lock(&scope_lock);
  int result = 0;
  if (!for_good && waits++ == 0) result = install_handler(&saved_int, &saved_term);
  pthread_mutex_unlock(&scope_lock);
  return result;
}

void hap_interrupt_wait_end(void) {
  pthread_mutex_lock(&scope_lock);
  if (!for_good && waits > 0 && --waits == 0) {
    sigaction(SIGINT, &saved_int, NULL);
    sigaction(SIGTERM, &saved_term, NULL);
  }
  pthread_mutex_unlock(&scope_lock);
}

void hap_interrupt_raise(void) {
  atomic_store_explicit(&interrupted, true, memory_order_relaxed);
  wake();
}

int hap_interrupt_wake_fd(void) { return wake_pipe[0]; }

bool hap_interrupt_requested(void) { return atomic_load_explicit(&interrupted, memory_order_relaxed); }
