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

int hap_sndfile_decode(const char *path, long long max_frames, float **samples, long long *frames, int *rate,
                       char *message, size_t size) {
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
  if (info.channels < 1 || info.samplerate < 1) {
    snprintf(message, size, "it has %d channels at %d Hz", info.channels, info.samplerate);
    p_sf_close(file);
    return -1;
  }
  // The frame count is a hint (some formats do not know it): read in blocks up to max_frames.
  enum { BLOCK = 4096 };
  float *block = malloc(sizeof(float) * BLOCK * (size_t)info.channels);
  long long capacity = info.frames > 0 && info.frames <= max_frames ? info.frames : 65536;
  float *out = malloc(sizeof(float) * (size_t)(capacity > 0 ? capacity : 1));
  if (!block || !out) {
    free(block);
    free(out);
    p_sf_close(file);
    snprintf(message, size, "out of memory");
    return -1;
  }
  long long count = 0;
  int status = 0;
  for (;;) {
    hap_sf_count_t got = p_sf_readf_float(file, block, BLOCK);
    if (got <= 0) break;
    if (count + got > max_frames) {
      status = -2;
      break;
    }
    if (count + got > capacity) {
      long long grown = capacity * 2 > count + got ? capacity * 2 : count + got;
      if (grown > max_frames) grown = max_frames;
      float *bigger = realloc(out, sizeof(float) * (size_t)grown);
      if (!bigger) {
        status = -1;
        snprintf(message, size, "out of memory");
        break;
      }
      out = bigger;
      capacity = grown;
    }
    for (hap_sf_count_t k = 0; k < got; k++) {
      float sum = 0;
      for (int c = 0; c < info.channels; c++) sum += block[k * info.channels + c];
      out[count + k] = sum / (float)info.channels;
    }
    count += got;
  }
  free(block);
  p_sf_close(file);
  if (status != 0) {
    if (status == -2) snprintf(message, size, "it holds more than %lld frames", max_frames);
    free(out);
    return status;
  }
  *samples = out;
  *frames = count;
  *rate = info.samplerate;
  return 0;
}

void hap_sndfile_free(float *samples) { free(samples); }
