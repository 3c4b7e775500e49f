// libsoxr through dlopen/dlsym; the prototypes and structures are libsoxr's own (soxr.h),
// declared here so that no development package is needed to build.
#include "CSoxr.h"

#include <CHapLibrary.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef const char *hap_soxr_error_t;  // soxr_error_t: NULL, or a static string

typedef struct {
  int itype;  // soxr_datatype_t
  int otype;
  double scale;
  void *e;
  unsigned long flags;
} hap_soxr_io_spec;  // soxr_io_spec_t

typedef struct {
  double precision;
  double phase_response;
  double passband_end;
  double stopband_begin;
  void *e;
  unsigned long flags;
} hap_soxr_quality_spec;  // soxr_quality_spec_t

typedef struct {
  unsigned log2_min_dft_size;
  unsigned log2_large_dft_size;
  unsigned coef_size_kbytes;
  unsigned num_threads;
  void *e;
  unsigned long flags;
} hap_soxr_runtime_spec;  // soxr_runtime_spec_t

enum { HAP_SOXR_FLOAT32_I = 0 };

struct hap_soxr_library {
  char *name;
  struct hap_soxr_library *next;
  hap_soxr_error_t (*oneshot)(double input_rate, double output_rate, unsigned num_channels, const void *in,
                              size_t ilen, size_t *idone, void *out, size_t olen, size_t *odone,
                              const hap_soxr_io_spec *io, const hap_soxr_quality_spec *quality,
                              const hap_soxr_runtime_spec *runtime);
  hap_soxr_io_spec (*io_spec)(int itype, int otype);
  hap_soxr_quality_spec (*quality_spec)(unsigned long recipe, unsigned long flags);
  hap_soxr_runtime_spec (*runtime_spec)(unsigned num_threads);
};

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
// Every library loaded so far, by name: unlike the other shims, which load one library for the
// process, each call names its libsoxr (`Resampler.resample(library:)`), and a name that does not
// load must fail even after another did (ResamplerTests asks for a missing one in process).
static struct hap_soxr_library *loaded;

// Opens `library` and resolves its functions into `lib`: 0, or -1 with the reason in `message`.
// The library stays open for good (its functions are `lib`'s).
static int resolve(const char *library, struct hap_soxr_library *lib, char *message, size_t size) {
  const hap_library_symbol symbols[] = {
      {"soxr_oneshot", (void **)&lib->oneshot, 0},
      {"soxr_io_spec", (void **)&lib->io_spec, 0},
      {"soxr_quality_spec", (void **)&lib->quality_spec, 0},
      {"soxr_runtime_spec", (void **)&lib->runtime_spec, 0},
  };
  const char *missing = NULL;
  if (hap_library_open(library, symbols, HAP_LIBRARY_COUNT(symbols), &missing, message, size)) return 0;
  if (missing) {
    snprintf(message, size, "%s lacks soxr_oneshot, soxr_io_spec, soxr_quality_spec or soxr_runtime_spec", library);
  }
  return -1;
}

const hap_soxr_library *hap_soxr_load(const char *library, char *message, size_t size) {
  pthread_mutex_lock(&load_lock);
  struct hap_soxr_library *lib = loaded;
  while (lib && strcmp(lib->name, library) != 0) lib = lib->next;
  if (!lib) {
    struct hap_soxr_library *fresh = calloc(1, sizeof *fresh);
    char *name = strdup(library);
    if (!fresh || !name) {
      snprintf(message, size, "out of memory");
    } else if (resolve(library, fresh, message, size) == 0) {
      fresh->name = name;
      fresh->next = loaded;
      loaded = lib = fresh;
    }
    if (!lib) {
      free(fresh);
      free(name);
    }
  }
  pthread_mutex_unlock(&load_lock);
  return lib;
}

int hap_soxr_resample(const hap_soxr_library *library, const float *in, size_t frames, unsigned channels, double in_rate, double out_rate,
                      unsigned long recipe, float *out, size_t capacity, size_t *written, char *message,
                      size_t size) {
  *written = 0;
  hap_soxr_io_spec io = library->io_spec(HAP_SOXR_FLOAT32_I, HAP_SOXR_FLOAT32_I);
  hap_soxr_quality_spec quality = library->quality_spec(recipe, 0);  // linear phase, rolloff <= 0.01 dB
  hap_soxr_runtime_spec runtime = library->runtime_spec(1);
  size_t used = 0;
  hap_soxr_error_t error = library->oneshot(in_rate, out_rate, channels, in, frames, &used, out, capacity, written,
                                          &io, &quality, &runtime);
  if (error) {
    snprintf(message, size, "%s", error);
    return -1;
  }
  return 0;
}
