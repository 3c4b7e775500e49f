#ifndef HAP_SIGNALS_H
#define HAP_SIGNALS_H

#include <stdbool.h>

// Ctrl-C and SIGTERM. The handler does one thing: a relaxed store of `true` to an atomic flag in
// static storage, which exists before the handler is installed (nothing is created, allocated or
// locked in the handler) and one write(2) of a byte to a wake-up pipe made at install. Long-running
// work polls hap_interrupt_requested; a wait on an input polls hap_interrupt_wake_fd with it.

/// Makes the wake-up pipe (once), installs the handler for SIGINT and SIGTERM (restarting
/// interrupted system calls) and unblocks both signals on the calling thread. Returns 0 or a negative errno.
int hap_interrupt_install(void);

/// A wait on an input (a FIFO, a pipe, standard input) in a program that has not installed the
/// handler for good: between begin and end (counted, for waits on several threads), SIGINT and
/// SIGTERM raise the flag and wake the wait instead of ending the process by their default
/// action; at the last end the actions before are restored. Both do nothing once
/// hap_interrupt_install ran. begin returns 0 or a negative errno.
int hap_interrupt_wait_begin(void);
void hap_interrupt_wait_end(void);

/// Raises the flag as the handler does (for a program that takes the signals with sigwait).
void hap_interrupt_raise(void);

/// The read end of the wake-up pipe (non-blocking, close-on-exec): readable from the moment the
/// flag is raised, for good (it is never drained). -1 before hap_interrupt_install.
int hap_interrupt_wake_fd(void);

/// Whether SIGINT or SIGTERM has arrived since the handler was installed. Lock-free.
bool hap_interrupt_requested(void);

#endif
