#include "CHapSignals.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

// Zero-initialised static storage: there before main, never allocated.
static atomic_bool interrupted;

_Static_assert(ATOMIC_BOOL_LOCK_FREE == 2, "the interrupt flag must be lock-free");

static void on_signal(int sig) {
  (void)sig;
  atomic_store_explicit(&interrupted, true, memory_order_relaxed);
}

int hap_interrupt_install(void) {
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

void hap_interrupt_raise(void) { atomic_store_explicit(&interrupted, true, memory_order_relaxed); }

bool hap_interrupt_requested(void) { return atomic_load_explicit(&interrupted, memory_order_relaxed); }
