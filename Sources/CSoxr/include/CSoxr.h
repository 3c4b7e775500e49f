// CSoxr: libsoxr (the SoX Resampler library) loaded at run time, behind one function.
//
// hap does not link libsoxr, and building needs no header of it: the functions hap calls are
// declared in csoxr.c with libsoxr's documented C prototypes (soxr.h, stable since 0.1.0) and
// resolved with dlsym.
#ifndef HAP_CSOXR_H
#define HAP_CSOXR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// libsoxr's quality recipes hap uses (soxr.h's SOXR_HQ and SOXR_VHQ).
enum { HAP_SOXR_HQ = 4, HAP_SOXR_VHQ = 6 };

/// A loaded libsoxr: its functions, resolved once; never unloaded.
typedef struct hap_soxr_library hap_soxr_library;

/// Loads libsoxr (`library`, e.g. "libsoxr.so.0"), once per name. Returns it, or NULL with a
/// one-line reason in `message`. Safe to call more than once, from any thread.
const hap_soxr_library *hap_soxr_load(const char *library, char *message, size_t size);

/// Resamples `frames` interleaved float frames of `channels` channels from `in_rate` to
/// `out_rate` in one call (soxr_oneshot: linear phase, the filter's delay removed, the input's
/// end flushed), with quality `recipe`, on one thread. `out` has room for `capacity` frames;
/// `*written` is set to the frames written; `library` is from hap_soxr_load. Returns 0, or -1 with libsoxr's reason in `message`.
int hap_soxr_resample(const hap_soxr_library *library, const float *in, size_t frames, unsigned channels, double in_rate, double out_rate,
                      unsigned long recipe, float *out, size_t capacity, size_t *written, char *message,
                      size_t size);

#ifdef __cplusplus
}
#endif

#endif
