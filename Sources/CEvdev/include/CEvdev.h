#ifndef HAP_CEVDEV_H
#define HAP_CEVDEV_H

// Linux force feedback (kernel Documentation/input/ff.rst, include/uapi/linux/input.h) for a
// rumble motor behind /dev/input/eventN: the few calls hap makes, each returning 0 (or an
// effect id) on success and -errno on failure.

// What an event device's force-feedback bits (EVIOCGBIT(EV_FF)) and EVIOCGEFFECTS say.
typedef struct {
  int rumble;   // FF_RUMBLE
  int periodic; // FF_PERIODIC
  int gain;     // FF_GAIN
  int effects;  // how many effects it holds at once
} hap_ff_caps;

// Opens `path` for reading and writing (close-on-exec); a descriptor, or -errno.
int hap_ff_open(const char *path);
void hap_ff_close(int fd);
// Reads the force-feedback bits and the effect count; -ENOTTY: not an event device.
int hap_ff_caps_of(int fd, hap_ff_caps *caps);
// The device's name (EVIOCGNAME) into `out` (`size` bytes, NUL-terminated), or -errno.
int hap_ff_name(int fd, char *out, int size);
// Uploads an FF_RUMBLE effect (id -1: a new one; else updates that one) lasting `length_ms`;
// returns its id, or -errno.
int hap_ff_upload_rumble(int fd, int id, unsigned strong, unsigned weak, unsigned length_ms);
// Uploads an FF_PERIODIC sine effect (for a device without FF_RUMBLE) of `magnitude`
// (0..0x7FFF) and a period of `period_ms`; returns its id, or -errno.
int hap_ff_upload_periodic(int fd, int id, unsigned magnitude, unsigned period_ms, unsigned length_ms);
// Plays (value 1) or stops (0) effect `id`: a write of {EV_FF, id, value}.
int hap_ff_play(int fd, int id, int value);
// The device-wide gain, 0..0xFFFF: a write of {EV_FF, FF_GAIN, gain}.
int hap_ff_set_gain(int fd, unsigned gain);
// Removes effect `id` (EVIOCRMFF).
int hap_ff_remove(int fd, int id);

// The real-time probe (tests only): looks up `hap_probe_watch`, which exists only when the
// probe library is preloaded; call before the loop (dlsym may allocate).
void hap_ff_probe_resolve(void);
// Marks the calling thread as watched (1) or not (0) by the probe; nothing without it.
void hap_ff_probe_watch(int on);

#endif
