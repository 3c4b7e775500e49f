// libsndfile through dlopen/dlsym; the prototypes are libsndfile's own (sndfile.h), declared
// here so that no development package is needed to build.
#include "CSndFile.h"

#include <CHapLibrary.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int64_t hap_sf_count_t;  // sf_count_t: 64-bit on every platform libsndfile supports

typedef struct {
  hap_sf_count_t frames;
  int samplerate;
  int channels;
  int format;
  int sections;
  int seekable;
} hap_sf_info;  // SF_INFO

typedef struct SNDFILE_tag SNDFILE;
enum { HAP_SFM_READ = 0x10 };

static SNDFILE *(*p_sf_open_fd)(int fd, int mode, hap_sf_info *info, int close_desc);
static hap_sf_count_t (*p_sf_readf_float)(SNDFILE *file, float *ptr, hap_sf_count_t frames);
static int (*p_sf_close)(SNDFILE *file);
static const char *(*p_sf_strerror)(SNDFILE *file);

static const hap_library_symbol symbols[] = {
    {"sf_open_fd", (void **)&p_sf_open_fd, 0},
    {"sf_readf_float", (void **)&p_sf_readf_float, 0},
    {"sf_close", (void **)&p_sf_close, 0},
    {"sf_strerror", (void **)&p_sf_strerror, 0},
};
static hap_library sndfile = HAP_LIBRARY_INITIALIZER;

int hap_sndfile_load(const char *library, char *message, size_t size) {
  const char *missing = NULL;
  int result = hap_library_load(&sndfile, library, symbols, HAP_LIBRARY_COUNT(symbols), NULL, &missing, message, size);
  if (missing) snprintf(message, size, "%s lacks sf_open_fd, sf_readf_float, sf_close or sf_strerror", library);
  return result;
}

// Samples read so far (frames of one or two channels), in a buffer that grows.
typedef struct {
  float *samples;
  long long count;
  long long capacity;
} mono_buffer;

enum { BLOCK = 4096 };

// As a sound card plays it (AudioSignal.clipped): within -1...1, NaN as silence.
static float clipped(float x) { return x != x ? 0 : x > 1 ? 1 : x < -1 ? -1 : x; }

// Makes room in `buffer` for `more` samples, growing it at least twice (at most to max_frames,
// which the caller keeps count + more within): 0, or -1 when out of memory. Counts are in
// samples.
static int reserve(mono_buffer *buffer, long long more, long long max_frames) {
  long long needed = buffer->count + more;
  if (needed <= buffer->capacity) return 0;
  long long grown = buffer->capacity * 2 > needed ? buffer->capacity * 2 : needed;
  if (grown > max_frames) grown = max_frames;
  float *bigger = realloc(buffer->samples, sizeof(float) * (size_t)grown);
  if (!bigger) return -1;
  buffer->samples = bigger;
  buffer->capacity = grown;
  return 0;
}

// Reads `file` to its end a BLOCK of frames at a time through `block` (room for BLOCK frames of
// `channels` samples) into `buffer`: each frame averaged to mono when `keep` is 0, kept as it is
// otherwise: 0, -1 when out of memory (said in `message`), or -2 when it holds more than
// max_samples samples.
static int read_frames(SNDFILE *file, int channels, int keep, long long max_samples, float *block,
                       mono_buffer *buffer, char *message, size_t size) {
  int out_channels = keep ? channels : 1;
  for (;;) {
    hap_sf_count_t got = p_sf_readf_float(file, block, BLOCK);
    if (got <= 0) return 0;
    long long more = (long long)got * out_channels;
    if (buffer->count + more > max_samples) return -2;
    if (reserve(buffer, more, max_samples) != 0) {
      snprintf(message, size, "out of memory");
      return -1;
    }
    float *out = buffer->samples + buffer->count;
    if (keep) {
      for (long long k = 0; k < more; k++) out[k] = clipped(block[k]);
    } else {
      for (hap_sf_count_t k = 0; k < got; k++) {
        float sum = 0;
        for (int c = 0; c < channels; c++) sum += block[k * channels + c];
        out[k] = clipped(sum / (float)channels);
      }
    }
    buffer->count += more;
  }
}

// The decoders under libsndfile print to standard error themselves (libmpg123's "Note: Illegal
// Audio-MPEG-Header", "warning: ID3v2: ..."): libmpg123 has no process-wide setting for its
// verbosity and libsndfile neither sets MPG123_QUIET nor exposes the handle, and libsndfile's
// own log goes to a buffer (SFC_GET_LOG_INFO), not to standard error. So while libsndfile opens
// and reads a file, file descriptor 2 points to /dev/null. This is safe because `hap convert`
// (and validate, info, render, play) decodes on one thread while no other writes to standard error
// (`hap serve`, whose log thread does, decodes sounds without it: SoundSearch.silencesDecoders) (hap's own
// messages about the file are written after the decode returns); a failure to redirect leaves
// standard error as it is.
static int silence_stderr(void) {
  fflush(stderr);
  int saved = fcntl(2, F_DUPFD_CLOEXEC, 3);
  int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (saved < 0 || null < 0 || dup2(null, 2) < 0) {
    if (saved >= 0) close(saved);
    if (null >= 0) close(null);
    return -1;
  }
  close(null);
  return saved;
}

static void restore_stderr(int saved) {
  if (saved < 0) return;
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
}

// libsndfile's words without their final period.
static void reason(char *message, size_t size, const char *text) {
  snprintf(message, size, "%s", text ? text : "unknown error");
  size_t length = strlen(message);
  while (length > 0 && (message[length - 1] == '.' || message[length - 1] == '\n')) message[--length] = 0;
}

// What a decode is asked for: mono (keep 0) or the file's own channels (keep 1, at most
// max_channels), at most max_samples samples, at most max_seconds long by its header.
typedef struct {
  int keep;
  int max_channels;
  long long max_samples;
  double max_seconds;
} request;

// Opens `fd` with libsndfile and reads it as `ask` says; see CSndFile.h for the results.
static int decode_fd(int fd, request ask, float **samples, long long *frames, int *rate, int *channels,
                     char *message, size_t size) {
  hap_sf_info info;
  memset(&info, 0, sizeof info);
  // libsndfile is handed a duplicate it owns (close_desc 1): it closes the descriptor it was
  // given when it cannot read the file, even with close_desc 0 (1.2.0), and the caller's close
  // would then close whatever another thread opened under that number meanwhile.
  int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (own < 0) {
    snprintf(message, size, "cannot duplicate its descriptor: %s", strerror(errno));
    return -1;
  }
  SNDFILE *file = p_sf_open_fd(own, HAP_SFM_READ, &info, 1);
  if (!file) {
    reason(message, size, p_sf_strerror(NULL));
    return -1;
  }
  int too_many = ask.keep && info.channels > ask.max_channels;
  if (info.channels < 1 || info.samplerate < 1 || too_many) {
    snprintf(message, size, "it has %d channels at %d Hz", info.channels, info.samplerate);
    p_sf_close(file);
    return too_many ? -4 : -1;
  }
  *rate = info.samplerate;
  // Longer than max_seconds, by its header: refused before it is decoded.
  if (info.frames > 0 && (double)info.frames / info.samplerate > ask.max_seconds) {
    *frames = info.frames;
    p_sf_close(file);
    return -3;
  }
  int out_channels = ask.keep ? info.channels : 1;
  // The frame count is a hint (some formats do not know it): read in blocks up to max_samples.
  long long hint =
    info.frames > 0 && info.frames * out_channels <= ask.max_samples ? info.frames * out_channels : 65536;
  float *block = malloc(sizeof(float) * BLOCK * (size_t)info.channels);
  mono_buffer buffer = {NULL, 0, hint};
  buffer.samples = malloc(sizeof(float) * (size_t)(buffer.capacity > 0 ? buffer.capacity : 1));
  if (!block || !buffer.samples) {
    free(block);
    free(buffer.samples);
    p_sf_close(file);
    snprintf(message, size, "out of memory");
    return -1;
  }
  int status = read_frames(file, info.channels, ask.keep, ask.max_samples, block, &buffer, message, size);
  free(block);
  p_sf_close(file);
  if (status != 0) {
    if (status == -2) snprintf(message, size, "it holds more than %lld samples", ask.max_samples);
    free(buffer.samples);
    return status;
  }
  *samples = buffer.samples;
  *frames = buffer.count / out_channels;
  if (channels) *channels = out_channels;
  return 0;
}

static int decode(int fd, request ask, int quiet, float **samples, long long *frames, int *rate, int *channels,
                  char *message, size_t size) {
  *samples = NULL;
  *frames = 0;
  *rate = 0;
  if (!hap_library_is_loaded(&sndfile)) {
    snprintf(message, size, "libsndfile is not loaded");
    return -1;
  }
  int saved = quiet ? silence_stderr() : -1;
  int status = decode_fd(fd, ask, samples, frames, rate, channels, message, size);
  restore_stderr(saved);
  return status;
}

int hap_sndfile_decode_fd(int fd, long long max_frames, double max_seconds, float **samples, long long *frames,
                          int *rate, char *message, size_t size) {
  request ask = {0, 1, max_frames, max_seconds};
  return decode(fd, ask, 1, samples, frames, rate, NULL, message, size);
}

int hap_sndfile_decode_channels_fd(int fd, int max_channels, long long max_samples, int quiet, float **samples,
                                   long long *frames, int *rate, int *channels, char *message, size_t size) {
  request ask = {1, max_channels, max_samples, 1e300};
  return decode(fd, ask, quiet, samples, frames, rate, channels, message, size);
}

void hap_sndfile_free(float *samples) { free(samples); }
