// CSndFile: libsndfile loaded at run time, behind one function.
//
// hap does not link libsndfile, and building needs no header of it: the four functions hap
// calls are declared here with libsndfile's documented C prototypes (sndfile.h, stable since
// 1.0) and resolved with dlsym. WAV is read by hap itself; FLAC, Ogg and MP3 come through here.
#ifndef HAP_CSNDFILE_H
#define HAP_CSNDFILE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Loads libsndfile (`library`, e.g. "libsndfile.so.1"). Returns 0, or -1 with a one-line
/// reason in `message`. Safe to call more than once.
int hap_sndfile_load(const char *library, char *message, size_t size);

/// Decodes the sound file open on `fd` (a regular file; not closed) to mono float samples
/// (channels averaged, each within -1...1, NaN as 0), at most `max_frames` frames. On success
/// returns 0, with `*samples` (malloc'd; free with hap_sndfile_free), `*frames` and `*rate`
/// set. Returns -1 with libsndfile's one-line reason in `message` when it is not a sound
/// libsndfile reads, -2 when it holds more than `max_frames` frames, -3 (with `*frames` and
/// `*rate` from its header) when it lasts more than `max_seconds`. Standard error is silenced
/// meanwhile (the decoders print to it): call it only where no other thread writes there.
int hap_sndfile_decode_fd(int fd, long long max_frames, double max_seconds, float **samples, long long *frames,
                          int *rate, char *message, size_t size);

/// Decodes the sound file open on `fd` keeping its channels (at most `max_channels`),
/// interleaved, each sample within -1...1 (NaN as 0), at most `max_samples` samples (frames ×
/// channels). Returns 0 with `*samples`, `*frames`, `*rate` and `*channels` set; -1 with a
/// reason in `message`; -2 when it holds more than `max_samples`; -4 when it has more than
/// `max_channels` channels (its count in `message`). With `quiet`, standard error is silenced
/// meanwhile, as for hap_sndfile_decode_fd.
int hap_sndfile_decode_channels_fd(int fd, int max_channels, long long max_samples, int quiet, float **samples,
                                   long long *frames, int *rate, int *channels, char *message, size_t size);

void hap_sndfile_free(float *samples);

#ifdef __cplusplus
}
#endif

#endif
