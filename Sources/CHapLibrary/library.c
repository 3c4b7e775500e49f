// The loader the shims share: dlopen, then dlsym into each slot of a table, once per process.
#include "CHapLibrary.h"

#include <dlfcn.h>
#include <stdio.h>

void *hap_library_open(const char *file, const hap_library_symbol *symbols, size_t count, const char **missing,
                       char *message, size_t size) {
  if (missing) *missing = NULL;
  void *handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();  // never NULL after a failed dlopen; checked all the same
    if (reason) snprintf(message, size, "%s", reason);
    else snprintf(message, size, "%s: not found", file);
    return NULL;
  }
  const char *lacking = NULL;
  for (size_t i = 0; i < count && !lacking; i++) {
    *symbols[i].slot = dlsym(handle, symbols[i].name);
    if (!*symbols[i].slot && !symbols[i].optional) lacking = symbols[i].name;
  }
  if (!lacking) return handle;
  // No pointer into the library is left behind once it is closed.
  for (size_t i = 0; i < count; i++) *symbols[i].slot = NULL;
  dlclose(handle);
  snprintf(message, size, "%s lacks %s", file, lacking);
  if (missing) *missing = lacking;
  return NULL;
}

int hap_library_load(hap_library *library, const char *file, const hap_library_symbol *symbols, size_t count,
                     void (*loaded)(void), const char **missing, char *message, size_t size) {
  if (missing) *missing = NULL;
  pthread_mutex_lock(&library->lock);
  if (!library->handle) {
    void *handle = hap_library_open(file, symbols, count, missing, message, size);
    if (handle && loaded) loaded();
    library->handle = handle;
  }
  int result = library->handle ? 0 : -1;
  pthread_mutex_unlock(&library->lock);
  return result;
}

int hap_library_is_loaded(hap_library *library) {
  pthread_mutex_lock(&library->lock);
  int loaded = library->handle != NULL;
  pthread_mutex_unlock(&library->lock);
  return loaded;
}
