// CHapLibrary: the one way hap loads a C library at run time, shared by CALSA, CSndFile, CSoxr,
// CDBus and CMicroHTTPD.
//
// hap links none of those libraries, so the commands that do not need one run on a machine
// without it; the Swift side turns a failed load into one sentence naming the package to
// install. Each shim keeps its own typed function pointers and hands their addresses here in
// a table: the compiler still checks every call it makes through them.
#ifndef HAP_CHAPLIBRARY_H
#define HAP_CHAPLIBRARY_H

#include <pthread.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One function to resolve: its name in the library and the shim's typed pointer that receives
/// it, passed as `(void **)&pointer`.
typedef struct {
  const char *name;
  void **slot;
  /// 0: a library without it is refused; 1: it may be missing (its slot is then NULL).
  int optional;
} hap_library_symbol;

/// A library loaded once per process: the first load that succeeds holds for good (it is never
/// unloaded); a failed one leaves nothing behind, so the next call tries again.
typedef struct {
  pthread_mutex_t lock;
  void *handle;  // under `lock`; set once every slot is filled
} hap_library;

#define HAP_LIBRARY_INITIALIZER {PTHREAD_MUTEX_INITIALIZER, NULL}

/// The number of entries of a symbol table (an array, not a pointer).
#define HAP_LIBRARY_COUNT(symbols) (sizeof(symbols) / sizeof((symbols)[0]))

/// Opens `file` (dlopen, RTLD_NOW | RTLD_LOCAL) and fills the slot of each of the `count`
/// `symbols`. Returns the handle; or NULL, with no slot left pointing into the library (it is
/// closed again) and the reason in `message`: dlopen's ("FILE: cannot open shared object file:
/// ..."), or "FILE lacks SYMBOL" for the first required symbol missing, whose name is then also
/// stored in `*missing` (when `missing` is not NULL; NULL there otherwise), for a shim that words
/// it its own way. Not locked: the caller makes sure no other thread uses the slots meanwhile.
void *hap_library_open(const char *file, const hap_library_symbol *symbols, size_t count, const char **missing,
                       char *message, size_t size);

/// hap_library_open into `library`, unless it is loaded already: then 0 at once, whatever `file`
/// names. Safe from any thread. `loaded`, when not NULL, runs once, after a load succeeds and
/// before any other caller sees the library (a shim's set-up through its new pointers). Returns
/// 0, or -1 as hap_library_open fails.
int hap_library_load(hap_library *library, const char *file, const hap_library_symbol *symbols, size_t count,
                     void (*loaded)(void), const char **missing, char *message, size_t size);

/// Whether `library` is loaded (its slots may then be called from this thread).
int hap_library_is_loaded(hap_library *library);

#ifdef __cplusplus
}
#endif

#endif
