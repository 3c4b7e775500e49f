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

/// Decodes the sound file at `path` to mono float samples (channels averaged), at most
/// `max_frames` frames. On success returns 0, with `*samples` (malloc'd; free with
/// hap_sndfile_free), `*frames` and `*rate` set. Returns -1 with a one-line reason in `message`
/// when the file cannot be opened or read, -2 when it holds more than `max_frames` frames.
int hap_sndfile_decode(const char *path, long long max_frames, float **samples, long long *frames, int *rate,
                       char *message, size_t size);

/// Decodes the sound file at `path` keeping its channels (at most `max_channels`), interleaved,
/// at most `max_samples` samples (frames × channels). Returns 0 with `*samples`, `*frames`,
/// `*rate` and `*channels` set; -1 with a reason in `message`; -2 when it holds more than
/// `max_samples`; -3 when it has more than `max_channels` channels (its count in `message`).
int hap_sndfile_decode_channels(const char *path, int max_channels, long long max_samples, float **samples,
                                long long *frames, int *rate, int *channels, char *message, size_t size);

void hap_sndfile_free(float *samples);

#ifdef __cplusplus
}
#endif

#endif
