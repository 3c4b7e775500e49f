// CALSA: ALSA (libasound) loaded at run time, behind a small typed API.
//
// The hap binary does not link libasound: validate, render, info and diff run on machines
// without it. hap_alsa_load() dlopens the library and resolves every function hap uses with
// dlsym into a pointer of the header's own type (so the compiler checks every call against
// <alsa/asoundlib.h>). Nothing here allocates after a device is configured; the write path
// is a straight call into alsa-lib.
#ifndef HAP_CALSA_H
#define HAP_CALSA_H

#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An open playback device (an snd_pcm_t).
typedef struct hap_pcm hap_pcm;

/// Sample formats, as hap names them.
enum {
  HAP_FORMAT_S16 = 0,
  HAP_FORMAT_S24 = 1,  // 3 bytes, little-endian (S24_3LE)
  HAP_FORMAT_S32 = 2,
  HAP_FORMAT_F32 = 3,
  HAP_FORMAT_COUNT = 4
};

/// Loads libasound (`library`, e.g. "libasound.so.2"). Returns 0, or -1 with a one-line reason
/// in `message`. Safe to call more than once.
int hap_alsa_load(const char *library, char *message, size_t size);

/// Reads ALSA's own configuration (alsa.conf, ~/.asoundrc and what they name) into alsa-lib's
/// global tree, as the first snd_pcm_open of a device by name would; the open then finds it read
/// (alsa-lib stats the files and reads them again only when one changed). Under alsa-lib's own
/// lock, so another thread may open a device meanwhile. 0, or a negative error code. The
/// library must be loaded.
int hap_alsa_read_configuration(void);

/// The text of an ALSA error code (negative errno).
const char *hap_alsa_strerror(int error);

/// The last message alsa-lib tried to print on this thread (hap silences its stderr output), or "".
const char *hap_alsa_last_message(void);

/// Opens `name` for playback (blocking mode). `config`: NULL to look `name` up in ALSA's own
/// configuration (asoundrc and all), or the text of a configuration that defines it, read
/// alone (hap's simulated exciter). Returns 0 or a negative errno.
int hap_pcm_open(hap_pcm **pcm, const char *name, const char *config);

/// What hap asks of a device, and what it got.
typedef struct {
  unsigned rate;             // in: wanted rate; out: the rate set (the nearest the device takes)
  int format;                // in: HAP_FORMAT_* or -1 for "best available, float first"; out: set
  unsigned channels;         // in: wanted channels (0: the fewest it takes); out: set
  unsigned long buffer_us;   // in: wanted buffer time in microseconds
  unsigned periods;          // in: periods per buffer
  unsigned long period_frames;  // out
  unsigned long buffer_frames;  // out
  unsigned long wake_frames;    // in: the writer renders just in time, when at most this many
                                // frames (rounded down to whole periods, at least one) are
                                // queued: start the device a period beyond that (0: start when
                                // the buffer is full)
  unsigned channels_at_least;   // in: with channels 0, at least this many (the highest channel
                                // a layout names), where the device takes them
} hap_pcm_config;

/// Negotiates hardware and software parameters. Returns 0, or a negative errno with what the
/// device refused in `refused`.
int hap_pcm_configure(hap_pcm *pcm, hap_pcm_config *config, char *refused, size_t size);

/// snd_pcm_writei: frames written, or a negative errno (-EPIPE underrun, -ESTRPIPE suspended,
/// -ENODEV gone, ...).
long hap_pcm_write(hap_pcm *pcm, const void *frames, unsigned long count);
int hap_pcm_prepare(hap_pcm *pcm);
/// snd_pcm_resume: 0, -EAGAIN (try again), or another error (then prepare).
int hap_pcm_resume(hap_pcm *pcm);
int hap_pcm_drain(hap_pcm *pcm);
int hap_pcm_drop(hap_pcm *pcm);
/// Frames queued but not yet played, or a negative errno.
long hap_pcm_delay(hap_pcm *pcm);
/// snd_pcm_wait: 1 when a period can be written, 0 after `timeout_ms`, or a negative errno
/// (-EPIPE, -ESTRPIPE, -ENODEV, ...). Allocates nothing (alsa-lib's poll array is on the stack).
int hap_pcm_wait(hap_pcm *pcm, int timeout_ms);
int hap_pcm_close(hap_pcm *pcm);

/// What a device takes, for `hap devices`.
typedef struct {
  int opens;              // 1 if it opened and reported its capabilities
  int error;              // the negative errno when it did not
  unsigned rate_min, rate_max;
  unsigned channels_min, channels_max;
  int formats[HAP_FORMAT_COUNT];        // 1 where the format is taken
  int standard_rates[8];                // 8000, 16000, 22050, 44100, 48000, 88200, 96000, 192000
} hap_pcm_caps;

/// Opens `name` (`config` as in hap_pcm_open) without blocking and reads what it takes.
/// Returns 0 or a negative errno.
int hap_pcm_probe(const char *name, const char *config, hap_pcm_caps *caps);

/// Calls `visit(context, name, description)` for each playback device ALSA's hints list.
/// Returns the number of devices, or a negative errno.
int hap_alsa_devices(void *context, void (*visit)(void *context, const char *name, const char *description));

/// The real-time probe (tests only): looks up `hap_probe_watch`, which exists only when the
/// probe library (Sources/HapRTProbe) is preloaded. Call before the playback thread starts.
void hap_rt_probe_resolve(void);

/// Marks the calling thread as watched (1) or not (0) by the probe; nothing without it.
/// Allocation- and lock-free.
void hap_rt_probe_watch(int on);

#ifdef __cplusplus
}
#endif

#endif
