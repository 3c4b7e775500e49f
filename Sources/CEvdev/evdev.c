#include "CEvdev.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define BITS_PER_LONG (8 * sizeof(unsigned long))
#define HAS_BIT(bits, n) (((bits)[(n) / BITS_PER_LONG] >> ((n) % BITS_PER_LONG)) & 1UL)

int hap_ff_open(const char *path) {
  int fd = open(path, O_RDWR | O_CLOEXEC);
  return fd < 0 ? -errno : fd;
}

void hap_ff_close(int fd) { close(fd); }

int hap_ff_caps_of(int fd, hap_ff_caps *caps) {
  unsigned long bits[FF_CNT / BITS_PER_LONG + 1];
  memset(bits, 0, sizeof bits);
  memset(caps, 0, sizeof *caps);
  if (ioctl(fd, EVIOCGBIT(EV_FF, sizeof bits), bits) < 0) return -errno;
  caps->rumble = HAS_BIT(bits, FF_RUMBLE);
  caps->periodic = HAS_BIT(bits, FF_PERIODIC);
  caps->gain = HAS_BIT(bits, FF_GAIN);
  int effects = 0;
  if (ioctl(fd, EVIOCGEFFECTS, &effects) < 0) return -errno;
  caps->effects = effects;
  return 0;
}

int hap_ff_name(int fd, char *out, int size) {
  if (size <= 0) return -EINVAL;
  memset(out, 0, (size_t)size);
  if (ioctl(fd, EVIOCGNAME(size - 1), out) < 0) return -errno;
  return 0;
}

// Uploads `effect` (its type and union already set) as `id` lasting `length_ms`; its id, or -errno.
static int upload(int fd, struct ff_effect *effect, int id, unsigned length_ms) {
  effect->id = (short)id;
  effect->replay.length = (unsigned short)(length_ms > 0x7fff ? 0x7fff : length_ms);
  effect->replay.delay = 0;
  if (ioctl(fd, EVIOCSFF, effect) < 0) return -errno;
  return effect->id;
}

int hap_ff_upload_rumble(int fd, int id, unsigned strong, unsigned weak, unsigned length_ms) {
  struct ff_effect effect;
  memset(&effect, 0, sizeof effect);
  effect.type = FF_RUMBLE;
  effect.u.rumble.strong_magnitude = (unsigned short)(strong > 0xffff ? 0xffff : strong);
  effect.u.rumble.weak_magnitude = (unsigned short)(weak > 0xffff ? 0xffff : weak);
  return upload(fd, &effect, id, length_ms);
}

int hap_ff_upload_periodic(int fd, int id, unsigned magnitude, unsigned period_ms, unsigned length_ms) {
  struct ff_effect effect;
  memset(&effect, 0, sizeof effect);
  effect.type = FF_PERIODIC;
  effect.u.periodic.waveform = FF_SINE;
  effect.u.periodic.period = (unsigned short)period_ms;
  effect.u.periodic.magnitude = (short)(magnitude > 0x7fff ? 0x7fff : magnitude);
  return upload(fd, &effect, id, length_ms);
}

static int write_event(int fd, unsigned short code, int value) {
  struct input_event event;
  memset(&event, 0, sizeof event);
  event.type = EV_FF;
  event.code = code;
  event.value = value;
  ssize_t n = write(fd, &event, sizeof event);
  if (n < 0) return -errno;
  return n == (ssize_t)sizeof event ? 0 : -EIO;
}

int hap_ff_play(int fd, int id, int value) { return write_event(fd, (unsigned short)id, value); }

int hap_ff_set_gain(int fd, unsigned gain) {
  return write_event(fd, FF_GAIN, (int)(gain > 0xffff ? 0xffff : gain));
}

int hap_ff_remove(int fd, int id) { return ioctl(fd, EVIOCRMFF, id) < 0 ? -errno : 0; }

static void (*probe_watch)(int);

void hap_ff_probe_resolve(void) { probe_watch = (void (*)(int))dlsym(RTLD_DEFAULT, "hap_probe_watch"); }

void hap_ff_probe_watch(int on) {
  if (probe_watch) probe_watch(on);
}
