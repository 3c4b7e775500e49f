// See include/CHapArguments.h.
#include "CHapArguments.h"

#include <stddef.h>
#include <stdlib.h>  // a C library header: glibc's defines __GLIBC__

// glibc alone hands constructors argc and argv (musl hands them nothing): elsewhere the
// runtime's own functions stay.
#if defined(__linux__) && defined(__GLIBC__)

static char **capturedArgv = NULL;
static int capturedArgc = 0;
static char **overrideArgv = NULL;
static int overrideArgc = 0;

// glibc calls each constructor with the process's argc, argv and envp.
__attribute__((constructor)) static void capture_arguments(int argc, char **argv, char **envp) {
  (void)envp;
  capturedArgc = argc;
  capturedArgv = argv;
}

// The runtime's own spellings and calling convention (SWIFT_CC(swift)), as its CommandLine.cpp
// declares them: the override (for a JIT) first, then the process's.
__attribute__((swiftcall)) void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc) {
  overrideArgv = argv;
  overrideArgc = argc;
}

__attribute__((swiftcall)) char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen) {
  if (overrideArgv != NULL) {
    *outArgLen = overrideArgc;
    return overrideArgv;
  }
  if (capturedArgv != NULL) {
    *outArgLen = capturedArgc;
    return capturedArgv;
  }
  static char *empty[] = {NULL};
  *outArgLen = 0;
  return empty;
}
#endif
