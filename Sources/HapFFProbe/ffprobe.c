// The force-feedback stand-in for tests: LD_PRELOADed into `hap`, it makes every regular file
// under $HAP_FF_FAKE (a folder path prefix) behave as a Linux event device with force
// feedback, and records what hap does to it in $HAP_FF_LOG, one line per call, each starting
// with CLOCK_MONOTONIC nanoseconds:
//   T open PATH | T upload id=N type=T strong=S weak=W length=MS | T play id=N value=V
//   T gain value=G | T remove id=N | T close
// The file's own text describes the device: words `rumble`, `periodic`, `gain`,
// `effects=N`, `name=NAME` (to the end of its line) and `fail_upload_after=N` (uploads after
// the Nth fail with EIO). Calls on other descriptors go to libc unchanged.
#define _GNU_SOURCE
#include "HapFFProbe.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_FAKES 16

typedef struct {
  int fd;
  int rumble, periodic, gain, effects, fail_after, uploads, next_id;
  char name[128];
} fake_t;

static fake_t fakes[MAX_FAKES];
static int fake_count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int (*real_open)(const char *, int, ...);
static int (*real_ioctl)(int, unsigned long, ...);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_read)(int, void *, size_t);
static int (*real_close)(int);

static void resolve(void) {
  if (real_open) return;
  real_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
  real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
  real_read = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
  real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
  real_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
}

// The log, opened once (appending) so that a line costs one write(2), not an open and close.
static int log_fd = -1;

static void logf_line(const char *format, ...) {
  const char *path = getenv("HAP_FF_LOG");
  if (!path) return;
  if (log_fd < 0) log_fd = real_open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (log_fd < 0) return;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  char line[512];
  int n = snprintf(line, sizeof line, "%lld ", (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
  va_list args;
  va_start(args, format);
  n += vsnprintf(line + n, sizeof line - (size_t)n - 1, format, args);
  va_end(args);
  if (n > (int)sizeof line - 2) n = (int)sizeof line - 2;
  line[n++] = '\n';
  real_write(log_fd, line, (size_t)n);
}

static fake_t *find(int fd) {
  for (int k = 0; k < fake_count; k++)
    if (fakes[k].fd == fd) return &fakes[k];
  return NULL;
}

static int number_after(const char *text, const char *key, int fallback) {
  const char *at = strstr(text, key);
  return at ? atoi(at + strlen(key)) : fallback;
}

// Reads the device's description from the file just opened as `fd`.
static void describe(fake_t *fake, int fd) {
  char text[1024];
  ssize_t n = real_read(fd, text, sizeof text - 1);
  text[n > 0 ? n : 0] = 0;
  fake->rumble = strstr(text, "rumble") != NULL;
  fake->periodic = strstr(text, "periodic") != NULL;
  fake->gain = strstr(text, "gain") != NULL;
  fake->effects = number_after(text, "effects=", 16);
  fake->fail_after = number_after(text, "fail_upload_after=", -1);
  const char *name = strstr(text, "name=");
  snprintf(fake->name, sizeof fake->name, "%s", name ? name + 5 : "hap fake force-feedback device");
  char *end = strchr(fake->name, '\n');
  if (end) *end = 0;
}

static int opened(const char *path, int fd) {
  const char *prefix = getenv("HAP_FF_FAKE");
  if (fd < 0 || !prefix || !*prefix || strncmp(path, prefix, strlen(prefix)) != 0) return fd;
  pthread_mutex_lock(&lock);
  if (fake_count < MAX_FAKES) {
    fake_t *fake = &fakes[fake_count++];
    memset(fake, 0, sizeof *fake);
    fake->fd = fd;
    describe(fake, fd);
    logf_line("open %s", path);
  }
  pthread_mutex_unlock(&lock);
  return fd;
}

// open and open64 alike: the mode is read only when the flags create a file.
#define OPEN_BODY(path, flags)                         \
  resolve();                                           \
  mode_t mode = 0;                                     \
  if ((flags) & (O_CREAT | O_TMPFILE)) {               \
    va_list args;                                      \
    va_start(args, flags);                             \
    mode = va_arg(args, mode_t);                       \
    va_end(args);                                      \
  }                                                    \
  return opened(path, real_open(path, flags, mode));

int open(const char *path, int flags, ...) { OPEN_BODY(path, flags) }
int open64(const char *path, int flags, ...) { OPEN_BODY(path, flags) }

int __open_2(const char *path, int flags) { return open(path, flags); }
int __open64_2(const char *path, int flags) { return open(path, flags); }

#define SIZELESS(request) ((request) & ~((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT))

// The kernel's side of the ioctls hap makes on a fake device.
static int fake_ioctl(fake_t *fake, unsigned long request, void *arg) {
  if (SIZELESS(request) == SIZELESS(EVIOCGBIT(EV_FF, 0))) {
    unsigned char *bits = arg;
    memset(bits, 0, _IOC_SIZE(request));
    if (fake->rumble) bits[FF_RUMBLE / 8] |= 1 << (FF_RUMBLE % 8);
    if (fake->periodic) bits[FF_PERIODIC / 8] |= 1 << (FF_PERIODIC % 8);
    if (fake->gain) bits[FF_GAIN / 8] |= 1 << (FF_GAIN % 8);
    return 0;
  }
  if (SIZELESS(request) == SIZELESS(EVIOCGNAME(0))) {
    snprintf(arg, _IOC_SIZE(request), "%s", fake->name);
    return (int)strlen(arg);
  }
  if (request == EVIOCGEFFECTS) {
    *(int *)arg = fake->effects;
    return 0;
  }
  if (request == EVIOCSFF) {
    struct ff_effect *effect = arg;
    if (!fake->rumble && !fake->periodic) return errno = EINVAL, -1;
    if (fake->fail_after >= 0 && fake->uploads >= fake->fail_after) return errno = EIO, -1;
    fake->uploads++;
    if (effect->id == -1) {
      if (fake->next_id >= fake->effects) return errno = ENOSPC, -1;
      effect->id = (short)fake->next_id++;
    }
    logf_line("upload id=%d type=%d strong=%u weak=%u length=%u", effect->id, effect->type,
              effect->u.rumble.strong_magnitude, effect->u.rumble.weak_magnitude, effect->replay.length);
    return 0;
  }
  if (request == EVIOCRMFF) {
    logf_line("remove id=%d", (int)(long)arg);
    return 0;
  }
  return errno = ENOTTY, -1;
}

int ioctl(int fd, unsigned long request, ...) {
  resolve();
  va_list args;
  va_start(args, request);
  void *arg = va_arg(args, void *);
  va_end(args);
  pthread_mutex_lock(&lock);
  fake_t *fake = find(fd);
  int result = fake ? fake_ioctl(fake, request, arg) : 0;
  pthread_mutex_unlock(&lock);
  return fake ? result : real_ioctl(fd, request, arg);
}

ssize_t write(int fd, const void *buffer, size_t size) {
  resolve();
  pthread_mutex_lock(&lock);
  fake_t *fake = find(fd);
  if (fake && size == sizeof(struct input_event)) {
    const struct input_event *event = buffer;
    if (event->type == EV_FF && event->code == FF_GAIN)
      logf_line("gain value=%d", event->value);
    else if (event->type == EV_FF)
      logf_line("play id=%d value=%d", event->code, event->value);
  }
  pthread_mutex_unlock(&lock);
  return fake ? (ssize_t)size : real_write(fd, buffer, size);
}

int close(int fd) {
  resolve();
  pthread_mutex_lock(&lock);
  fake_t *fake = find(fd);
  if (fake) {
    logf_line("close");
    *fake = fakes[--fake_count];
  }
  pthread_mutex_unlock(&lock);
  return real_close(fd);
}

int hap_ff_probe_open_count(void) { return fake_count; }
