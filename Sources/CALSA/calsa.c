// Typed dlsym table over <alsa/asoundlib.h> (the way SDL's ALSA back end does it): every
// pointer has the type of the function it points at, so calls are checked by the compiler,
// and the binary never links libasound.
#define _GNU_SOURCE  // RTLD_DEFAULT
#include "CALSA.h"

#include <CHapLibrary.h>
#include <alsa/asoundlib.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HAP_ALSA_FUNCTIONS(X)               \
  X(snd_strerror)                           \
  X(snd_lib_error_set_handler)              \
  X(snd_pcm_open)                           \
  X(snd_pcm_open_lconf)                     \
  X(snd_config_top)                         \
  X(snd_config_load)                        \
  X(snd_config_delete)                      \
  X(snd_config_update)                      \
  X(snd_input_buffer_open)                  \
  X(snd_input_close)                        \
  X(snd_pcm_close)                          \
  X(snd_pcm_nonblock)                       \
  X(snd_pcm_hw_params_malloc)               \
  X(snd_pcm_hw_params_free)                 \
  X(snd_pcm_hw_params_any)                  \
  X(snd_pcm_hw_params_set_access)           \
  X(snd_pcm_hw_params_test_format)          \
  X(snd_pcm_hw_params_set_format)           \
  X(snd_pcm_hw_params_get_channels_min)     \
  X(snd_pcm_hw_params_get_channels_max)     \
  X(snd_pcm_hw_params_set_channels_near)    \
  X(snd_pcm_hw_params_set_rate_resample)    \
  X(snd_pcm_hw_params_set_rate_near)        \
  X(snd_pcm_hw_params_get_rate_min)         \
  X(snd_pcm_hw_params_get_rate_max)         \
  X(snd_pcm_hw_params_test_rate)            \
  X(snd_pcm_hw_params_set_buffer_time_near) \
  X(snd_pcm_hw_params_set_period_size_near) \
  X(snd_pcm_hw_params_get_buffer_size)      \
  X(snd_pcm_hw_params_get_period_size)      \
  X(snd_pcm_hw_params)                      \
  X(snd_pcm_sw_params_malloc)               \
  X(snd_pcm_sw_params_free)                 \
  X(snd_pcm_sw_params_current)              \
  X(snd_pcm_sw_params_set_start_threshold)  \
  X(snd_pcm_sw_params_set_avail_min)        \
  X(snd_pcm_sw_params)                      \
  X(snd_pcm_writei)                         \
  X(snd_pcm_prepare)                        \
  X(snd_pcm_resume)                         \
  X(snd_pcm_drain)                          \
  X(snd_pcm_drop)                           \
  X(snd_pcm_delay)                          \
  X(snd_pcm_wait)                           \
  X(snd_device_name_hint)                   \
  X(snd_device_name_get_hint)               \
  X(snd_device_name_free_hint)

#define HAP_DECLARE(name) static __typeof__(name) *p_##name;
HAP_ALSA_FUNCTIONS(HAP_DECLARE)
#undef HAP_DECLARE

#define HAP_SYMBOL(name) {#name, (void **)&p_##name, 0},
static const hap_library_symbol symbols[] = {HAP_ALSA_FUNCTIONS(HAP_SYMBOL)};
#undef HAP_SYMBOL

static hap_library alsa = HAP_LIBRARY_INITIALIZER;
// Each thread's own: `hap play` reads ALSA's configuration on a thread of its own
// (DeviceWarmUp), and the tests run several commands in one process.
static _Thread_local char last_message[256];

// alsa-lib prints its own complaints to stderr; hap reports errors itself, in one line, so it
// keeps only the last message (for --verbose and error details).
static void quiet_error_handler(const char *file, int line, const char *function, int err, const char *fmt, ...) {
  (void)file;
  (void)line;
  (void)function;
  (void)err;
  va_list args;
  va_start(args, fmt);
  vsnprintf(last_message, sizeof last_message, fmt, args);
  va_end(args);
}

// Once loaded, before any device is opened: alsa-lib's messages go to quiet_error_handler.
static void silence_alsa(void) { p_snd_lib_error_set_handler(quiet_error_handler); }

int hap_alsa_load(const char *library, char *message, size_t size) {
  const char *missing = NULL;
  int result = hap_library_load(&alsa, library, symbols, HAP_LIBRARY_COUNT(symbols), silence_alsa, &missing,
                                message, size);
  if (missing) snprintf(message, size, "%s has no %s (is it ALSA's libasound?)", library, missing);
  return result;
}

int hap_alsa_read_configuration(void) { return p_snd_config_update != NULL ? p_snd_config_update() : -ENOSYS; }

const char *hap_alsa_strerror(int error) {
  return p_snd_strerror != NULL ? p_snd_strerror(error) : strerror(-error);
}

const char *hap_alsa_last_message(void) { return last_message; }

struct hap_pcm {
  snd_pcm_t *pcm;
};

// Opens `name` from ALSA's own configuration or, when `config` is given, from that text alone
// (a configuration built in memory: neither ~/.asoundrc nor ALSA_CONFIG_PATH is read).
static int open_pcm(snd_pcm_t **pcm, const char *name, const char *config, int mode) {
  if (config == NULL) return p_snd_pcm_open(pcm, name, SND_PCM_STREAM_PLAYBACK, mode);
  snd_config_t *top = NULL;
  snd_input_t *input = NULL;
  int err = p_snd_config_top(&top);
  if (err < 0) return err;
  err = p_snd_input_buffer_open(&input, config, (ssize_t)strlen(config));
  if (err >= 0) {
    err = p_snd_config_load(top, input);
    p_snd_input_close(input);
  }
  if (err >= 0) err = p_snd_pcm_open_lconf(pcm, name, SND_PCM_STREAM_PLAYBACK, mode, top);
  p_snd_config_delete(top);
  return err;
}

int hap_pcm_open(hap_pcm **out, const char *name, const char *config) {
  snd_pcm_t *pcm = NULL;
  int err = open_pcm(&pcm, name, config, 0);
  if (err < 0) return err;
  hap_pcm *handle = malloc(sizeof *handle);
  if (handle == NULL) {
    p_snd_pcm_close(pcm);
    return -ENOMEM;
  }
  handle->pcm = pcm;
  *out = handle;
  return 0;
}

static const snd_pcm_format_t format_codes[HAP_FORMAT_COUNT] = {
    SND_PCM_FORMAT_S16_LE, SND_PCM_FORMAT_S24_3LE, SND_PCM_FORMAT_S32_LE, SND_PCM_FORMAT_FLOAT_LE};
static const char *format_names[HAP_FORMAT_COUNT] = {"s16", "s24", "s32", "f32"};

// Sample format: the one asked for, or the best the device takes, float first.
static int configure_format(snd_pcm_t *pcm, snd_pcm_hw_params_t *hw, hap_pcm_config *config, char *refused,
                            size_t size) {
  int err;
  if (config->format >= 0 && config->format < HAP_FORMAT_COUNT) {
    if ((err = p_snd_pcm_hw_params_set_format(pcm, hw, format_codes[config->format])) < 0) {
      snprintf(refused, size, "sample format %s", format_names[config->format]);
    }
    return err;
  }
  static const int preference[HAP_FORMAT_COUNT] = {HAP_FORMAT_F32, HAP_FORMAT_S32, HAP_FORMAT_S24, HAP_FORMAT_S16};
  for (int k = 0; k < HAP_FORMAT_COUNT; k++) {
    if (p_snd_pcm_hw_params_test_format(pcm, hw, format_codes[preference[k]]) == 0 &&
        p_snd_pcm_hw_params_set_format(pcm, hw, format_codes[preference[k]]) == 0) {
      config->format = preference[k];
      return 0;
    }
  }
  snprintf(refused, size, "every sample format hap writes (f32, s32, s24, s16)");
  return -EINVAL;
}

// Channels (the fewest it takes, and at least channels_at_least, when none is asked for) and the rate: the nearest the device
// takes, without alsa-lib resampling behind hap's back where possible.
static int configure_channels_and_rate(snd_pcm_t *pcm, snd_pcm_hw_params_t *hw, hap_pcm_config *config,
                                       char *refused, size_t size) {
  int err;
  unsigned channels = config->channels;
  if (channels == 0) {
    p_snd_pcm_hw_params_get_channels_min(hw, &channels);
    if (channels < config->channels_at_least) channels = config->channels_at_least;
  }
  if ((err = p_snd_pcm_hw_params_set_channels_near(pcm, hw, &channels)) < 0) {
    snprintf(refused, size, "%u channels", config->channels);
    return err;
  }
  config->channels = channels;
  p_snd_pcm_hw_params_set_rate_resample(pcm, hw, 0);
  unsigned rate = config->rate;
  int direction = 0;
  if ((err = p_snd_pcm_hw_params_set_rate_near(pcm, hw, &rate, &direction)) < 0) {
    snprintf(refused, size, "a rate near %u Hz", config->rate);
    return err;
  }
  config->rate = rate;
  return 0;
}

// The buffer time nearest the one asked for, then `config->periods` periods in it (4 if 0);
// `buffer_frames` and `period` are what the device offered for them.
static int configure_buffer(snd_pcm_t *pcm, snd_pcm_hw_params_t *hw, const hap_pcm_config *config, char *refused,
                            size_t size, snd_pcm_uframes_t *buffer_frames, snd_pcm_uframes_t *period) {
  int err;
  unsigned buffer_us = (unsigned)config->buffer_us;
  int direction = 0;
  if ((err = p_snd_pcm_hw_params_set_buffer_time_near(pcm, hw, &buffer_us, &direction)) < 0) {
    snprintf(refused, size, "a %lu us buffer", config->buffer_us);
    return err;
  }
  p_snd_pcm_hw_params_get_buffer_size(hw, buffer_frames);
  *period = *buffer_frames / (config->periods > 0 ? config->periods : 4);
  if (*period < 1) *period = 1;
  direction = 0;
  if ((err = p_snd_pcm_hw_params_set_period_size_near(pcm, hw, period, &direction)) < 0) {
    snprintf(refused, size, "a period of %lu frames", (unsigned long)*period);
  }
  return err;
}

// The hardware parameters: interleaved access, format, channels, rate, buffer and period; the
// buffer and period sizes set are stored in `config`.
static int configure_hardware(snd_pcm_t *pcm, snd_pcm_hw_params_t *hw, hap_pcm_config *config, char *refused,
                              size_t size) {
  int err;
  if ((err = p_snd_pcm_hw_params_any(pcm, hw)) < 0) {
    snprintf(refused, size, "it reports no playback configuration");
    return err;
  }
  if ((err = p_snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED)) < 0) {
    snprintf(refused, size, "interleaved access");
    return err;
  }
  if ((err = configure_format(pcm, hw, config, refused, size)) < 0) return err;
  if ((err = configure_channels_and_rate(pcm, hw, config, refused, size)) < 0) return err;
  snd_pcm_uframes_t buffer_frames = 0, period = 0;
  if ((err = configure_buffer(pcm, hw, config, refused, size, &buffer_frames, &period)) < 0) return err;
  if ((err = p_snd_pcm_hw_params(pcm, hw)) < 0) {
    snprintf(refused, size, "the configuration %u Hz %s %u ch", config->rate, format_names[config->format],
             config->channels);
    return err;
  }
  int direction = 0;
  p_snd_pcm_hw_params_get_buffer_size(hw, &buffer_frames);
  p_snd_pcm_hw_params_get_period_size(hw, &period, &direction);
  config->buffer_frames = buffer_frames;
  config->period_frames = period;
  return 0;
}

// The software parameters, once the buffer and period are known. By default: start when the
// buffer is full; wake the writer a period at a time. With wake_frames (just in time), the
// writer waits further itself (PlaybackEngine) until only that much is left queued, so what it
// renders next plays sooner; a device wakes its writer at period boundaries only, so the level
// is whole periods (at least one: less would find the device dry). The writer writes while at
// most that is queued, so the device must start a period beyond it.
static int configure_software(snd_pcm_t *pcm, const hap_pcm_config *config, char *refused, size_t size) {
  snd_pcm_uframes_t buffer_frames = config->buffer_frames, period = config->period_frames;
  snd_pcm_uframes_t full = buffer_frames - buffer_frames % period;
  snd_pcm_uframes_t avail_min = period, start = full;
  snd_pcm_uframes_t wake = config->wake_frames - config->wake_frames % period;
  if (wake < period) wake = period;
  if (config->wake_frames > 0 && wake + period < full) start = wake + period;
  snd_pcm_sw_params_t *sw = NULL;
  int err = p_snd_pcm_sw_params_malloc(&sw);
  if (err < 0) return err;
  p_snd_pcm_sw_params_current(pcm, sw);
  p_snd_pcm_sw_params_set_start_threshold(pcm, sw, start);
  p_snd_pcm_sw_params_set_avail_min(pcm, sw, avail_min);
  if ((err = p_snd_pcm_sw_params(pcm, sw)) < 0) {
    snprintf(refused, size, "its software parameters");
  } else {
    err = 0;
  }
  p_snd_pcm_sw_params_free(sw);
  return err;
}

int hap_pcm_configure(hap_pcm *handle, hap_pcm_config *config, char *refused, size_t size) {
  snd_pcm_hw_params_t *hw = NULL;
  int err = p_snd_pcm_hw_params_malloc(&hw);
  if (err < 0) return err;
  refused[0] = 0;
  err = configure_hardware(handle->pcm, hw, config, refused, size);
  p_snd_pcm_hw_params_free(hw);
  if (err < 0) return err;
  return configure_software(handle->pcm, config, refused, size);
}

long hap_pcm_write(hap_pcm *handle, const void *frames, unsigned long count) {
  return (long)p_snd_pcm_writei(handle->pcm, frames, (snd_pcm_uframes_t)count);
}

int hap_pcm_prepare(hap_pcm *handle) { return p_snd_pcm_prepare(handle->pcm); }
int hap_pcm_resume(hap_pcm *handle) { return p_snd_pcm_resume(handle->pcm); }
int hap_pcm_drain(hap_pcm *handle) { return p_snd_pcm_drain(handle->pcm); }
int hap_pcm_drop(hap_pcm *handle) { return p_snd_pcm_drop(handle->pcm); }
int hap_pcm_wait(hap_pcm *handle, int timeout_ms) { return p_snd_pcm_wait(handle->pcm, timeout_ms); }

long hap_pcm_delay(hap_pcm *handle) {
  snd_pcm_sframes_t delay = 0;
  int err = p_snd_pcm_delay(handle->pcm, &delay);
  return err < 0 ? err : (long)delay;
}

int hap_pcm_close(hap_pcm *handle) {
  if (handle == NULL) return 0;
  int err = p_snd_pcm_close(handle->pcm);
  free(handle);
  return err;
}

int hap_pcm_probe(const char *name, const char *config, hap_pcm_caps *caps) {
  static const unsigned rates[8] = {8000, 16000, 22050, 44100, 48000, 88200, 96000, 192000};
  memset(caps, 0, sizeof *caps);
  snd_pcm_t *pcm = NULL;
  int err = open_pcm(&pcm, name, config, SND_PCM_NONBLOCK);
  if (err < 0) {
    caps->error = err;
    return err;
  }
  snd_pcm_hw_params_t *hw = NULL;
  if ((err = p_snd_pcm_hw_params_malloc(&hw)) < 0 || (err = p_snd_pcm_hw_params_any(pcm, hw)) < 0) {
    caps->error = err;
    if (hw != NULL) p_snd_pcm_hw_params_free(hw);
    p_snd_pcm_close(pcm);
    return err;
  }
  int direction = 0;
  p_snd_pcm_hw_params_get_rate_min(hw, &caps->rate_min, &direction);
  p_snd_pcm_hw_params_get_rate_max(hw, &caps->rate_max, &direction);
  p_snd_pcm_hw_params_get_channels_min(hw, &caps->channels_min);
  p_snd_pcm_hw_params_get_channels_max(hw, &caps->channels_max);
  for (int k = 0; k < HAP_FORMAT_COUNT; k++) {
    caps->formats[k] = p_snd_pcm_hw_params_test_format(pcm, hw, format_codes[k]) == 0;
  }
  for (int k = 0; k < 8; k++) {
    caps->standard_rates[k] = p_snd_pcm_hw_params_test_rate(pcm, hw, rates[k], 0) == 0;
  }
  caps->opens = 1;
  p_snd_pcm_hw_params_free(hw);
  p_snd_pcm_close(pcm);
  return 0;
}

int hap_alsa_devices(void *context, void (*visit)(void *, const char *, const char *)) {
  void **hints = NULL;
  int err = p_snd_device_name_hint(-1, "pcm", &hints);
  if (err < 0) return err;
  int count = 0;
  for (void **hint = hints; *hint != NULL; hint++) {
    char *name = p_snd_device_name_get_hint(*hint, "NAME");
    char *description = p_snd_device_name_get_hint(*hint, "DESC");
    char *io = p_snd_device_name_get_hint(*hint, "IOID");
    // IOID is absent for devices that do both directions.
    if (name != NULL && (io == NULL || strcmp(io, "Output") == 0)) {
      visit(context, name, description != NULL ? description : "");
      count++;
    }
    free(name);
    free(description);
    free(io);
  }
  p_snd_device_name_free_hint(hints);
  return count;
}

// The real-time probe (tests only; see CALSA.h).
static void (*probe_watch)(int);

void hap_rt_probe_resolve(void) { probe_watch = (void (*)(int))dlsym(RTLD_DEFAULT, "hap_probe_watch"); }

void hap_rt_probe_watch(int on) {
  if (probe_watch) probe_watch(on);
}
