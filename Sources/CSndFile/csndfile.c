// libsndfile through dlopen/dlsym; the prototypes are libsndfile's own (sndfile.h), declared
// here so that no development package is needed to build.
#include "CSndFile.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static SNDFILE *(*p_sf_open)(const char *path, int mode, hap_sf_info *info);
static hap_sf_count_t (*p_sf_readf_float)(SNDFILE *file, float *ptr, hap_sf_count_t frames);
static int (*p_sf_close)(SNDFILE *file);
static const char *(*p_sf_strerror)(SNDFILE *file);

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static void *library_handle;

int hap_sndfile_load(const char *library, char *message, size_t size) {
  pthread_mutex_lock(&load_lock);
  int result = 0;
  if (!library_handle) {
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *reason = dlerror();
      snprintf(message, size, "%s", reason ? reason : "not found");
      result = -1;
    } else {
      *(void **)&p_sf_open = dlsym(handle, "sf_open");
      *(void **)&p_sf_readf_float = dlsym(handle, "sf_readf_float");
      *(void **)&p_sf_close = dlsym(handle, "sf_close");
      *(void **)&p_sf_strerror = dlsym(handle, "sf_strerror");
      if (!p_sf_open || !p_sf_readf_float || !p_sf_close || !p_sf_strerror) {
        snprintf(message, size, "%s lacks sf_open, sf_readf_float, sf_close or sf_strerror", library);
        dlclose(handle);
        result = -1;
      } else {
        library_handle = handle;
      }
    }
  }
  pthread_mutex_unlock(&load_lock);
  return result;
}

// Samples read so far (frames of one or two channels), in a buffer that grows.
typedef struct {
  float *samples;
  long long count;
  long long capacity;
} mono_buffer;

enum { BLOCK = 4096 };

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
      memcpy(out, block, sizeof(float) * (size_t)more);
    } else {
      for (hap_sf_count_t k = 0; k < got; k++) {
        float sum = 0;
        for (int c = 0; c < channels; c++) sum += block[k * channels + c];
        out[k] = sum / (float)channels;
      }
    }
    buffer->count += more;
  }
}

// Decodes `path`: mono (keep 0) or its own channels (keep 1, at most max_channels), at most
// max_samples samples; see CSndFile.h.
static int decode(const char *path, int keep, int max_channels, long long max_samples, float **samples,
                  long long *frames, int *rate, int *channels, char *message, size_t size) {
  *samples = NULL;
  *frames = 0;
  *rate = 0;
  if (!library_handle) {
    snprintf(message, size, "libsndfile is not loaded");
    return -1;
  }
  hap_sf_info info;
  memset(&info, 0, sizeof info);
  SNDFILE *file = p_sf_open(path, HAP_SFM_READ, &info);
  if (!file) {
    snprintf(message, size, "%s", p_sf_strerror(NULL));
    return -1;
  }
  if (info.channels < 1 || info.samplerate < 1 || (keep && info.channels > max_channels)) {
    snprintf(message, size, "it has %d channels at %d Hz", info.channels, info.samplerate);
    p_sf_close(file);
    return keep && info.channels > max_channels ? -3 : -1;
  }
  int out_channels = keep ? info.channels : 1;
  // The frame count is a hint (some formats do not know it): read in blocks up to max_samples.
  long long hint = info.frames > 0 && info.frames * out_channels <= max_samples ? info.frames * out_channels : 65536;
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
  int status = read_frames(file, info.channels, keep, max_samples, block, &buffer, message, size);
  free(block);
  p_sf_close(file);
  if (status != 0) {
    if (status == -2) snprintf(message, size, "it holds more than %lld samples", max_samples);
    free(buffer.samples);
    return status;
  }
  *samples = buffer.samples;
  *frames = buffer.count / out_channels;
  *rate = info.samplerate;
  if (channels) *channels = out_channels;
  return 0;
}

int hap_sndfile_decode(const char *path, long long max_frames, float **samples, long long *frames, int *rate,
                       char *message, size_t size) {
  return decode(path, 0, 0, max_frames, samples, frames, rate, NULL, message, size);
}

int hap_sndfile_decode_channels(const char *path, int max_channels, long long max_samples, float **samples,
                                long long *frames, int *rate, int *channels, char *message, size_t size) {
  return decode(path, 1, max_channels, max_samples, samples, frames, rate, channels, message, size);
}

void hap_sndfile_free(float *samples) { free(samples); }
