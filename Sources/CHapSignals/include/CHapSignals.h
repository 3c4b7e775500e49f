#ifndef HAP_SIGNALS_H
#define HAP_SIGNALS_H

#include <stdbool.h>

// Ctrl-C and SIGTERM. The handler does one thing: a relaxed store of `true` to an atomic flag in
// static storage, which exists before the handler is installed (nothing is created, allocated or
// locked in the handler). Long-running work polls hap_interrupt_requested.

/// Installs the handler for SIGINT and SIGTERM (restarting interrupted system calls) and
/// unblocks both signals on the calling thread. Returns 0 or a negative errno.
int hap_interrupt_install(void);

/// Raises the flag as the handler does (for a program that takes the signals with sigwait).
void hap_interrupt_raise(void);

/// Whether SIGINT or SIGTERM has arrived since the handler was installed. Lock-free.
bool hap_interrupt_requested(void);

#endif
