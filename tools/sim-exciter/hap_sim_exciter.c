/*
 * hap simulated exciter: an ALSA external (ioplug) playback PCM that behaves
 * like a real device paced by CLOCK_MONOTONIC, for testing `hap` on machines
 * without sound hardware.
 *
 *   pcm_type.hapsim { lib "/abs/path/libasound_module_pcm_hapsim.so" }
 *   pcm.exciter {
 *       type hapsim
 *       capture "/tmp/played.raw"   # every frame written (= played), raw, interleaved,
 *                                   # negotiated format; truncated on open, mode 0644
 *       capture_append false        # true: append instead of truncating
 *       capture_format raw          # wav: a WAV file, its header (as `hap render`
 *                                   # writes it: 44 bytes, 58 for float) written
 *                                   # at hw_params when the file is empty, its
 *                                   # sizes set on close (0xFFFFFFFF until then,
 *                                   # and past 4 GiB)
 *       stats "/tmp/stats.txt"      # on close: first_write_ns frames xruns rate format
 *                                   # channels period_size buffer_size (temp + rename)
 *       timing "/tmp/timing.txt"    # one line per transfer and clock start (below);
 *                                   # truncated on open, appended with capture_append
 *       stall_after_frames 48000    # once, when N frames have been transferred, the
 *       stall_ms 300                # transfer sleeps M ms (M > the client's buffer
 *                                   # time gives a real underrun, -EPIPE)
 *       vanish_after_frames 24000   # after N frames the device is gone: state
 *                                   # DISCONNECTED, I/O and prepare give -ENODEV
 *       reappear_ms -1              # -1: open keeps failing with -ENODEV; else it
 *                                   # works again M ms after the vanish (and the
 *                                   # device then does not vanish again)
 *       state "/tmp/exciter.state"  # carries "vanished at" and "stall done" across
 *                                   # opens and processes; without it they live in
 *                                   # process-global memory, per PCM name
 *   }
 *
 * Formats S16_LE, S24_3LE, S32_LE, FLOAT_LE; 1..8 channels; 8000..192000 Hz;
 * 2..8 periods; period 32 B .. 2 MiB (ioplug limits sizes in bytes only).
 *
 * Model: once started, the device clock is
 *     base_frames + (now - base_ns) * rate / 1e9     (CLOCK_MONOTONIC)
 * and the hardware pointer follows it, never past what the application wrote.
 * When the clock passes the written data while running (avail reaches
 * stop_threshold, by default the buffer size) the pointer callback reports
 * -EPIPE, as hardware does. With stop_threshold beyond the buffer (e.g. the
 * boundary) a dry device plays silence instead and resumes when fed. The poll
 * descriptor is a timerfd ticking at the period; poll_revents turns its
 * POLLIN into POLLOUT when avail >= avail_min.
 *
 * Timing file: maps each captured frame to the CLOCK_MONOTONIC time the device
 * plays it, from the pacing clock itself (a frame is played when the device
 * clock reaches its stream position, which is later than when it was written:
 * the frames queued ahead of it play first). Lines, all integers:
 *     w T CAPTURE STREAM CLOCK RUNNING   a transfer at time T (ns); its first
 *                                        frame is frame CAPTURE of the capture
 *                                        file and frame STREAM of the stream
 *                                        since the last prepare; CLOCK is the
 *                                        device clock (frames) at T; RUNNING 1
 *                                        when the clock is advancing
 *     s T CLOCK                          the clock starts (or restarts) at T
 *                                        at frame CLOCK
 *     p T                                prepare: stream positions restart at 0
 * A frame at stream position P of a running transfer plays at
 * T + (P - CLOCK) / rate; in a transfer made before the clock started, at
 * Ts + (P - CLOCKs) / rate of the next `s` line.
 *
 * Build: see build.sh (needs -fPIC -DPIC).
 */
#define _GNU_SOURCE
#include <alsa/asoundlib.h>
#include <alsa/pcm_external.h>
#include <alsa/pcm_ioplug.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_SEC 1000000000ULL
#define CAPTURE_CHUNK_FRAMES 4096

/* ---------------------------------------------------------------------------
 * Persistent one-shot state (vanish time, stall done): in a state file when
 * configured, otherwise in process-global statics keyed by PCM name.
 */
struct persist {
	int have_vanish;
	uint64_t vanish_ns;
	int stalled;
};

struct persist_node {
	struct persist_node *next;
	struct persist data;
	char name[];
};

static pthread_mutex_t g_persist_lock = PTHREAD_MUTEX_INITIALIZER;
static struct persist_node *g_persist_list;

typedef struct {
	snd_pcm_ioplug_t io;

	/* configuration */
	char *pcm_name;
	char *capture_path;
	int capture_append;
	int capture_wav;
	char *stats_path;
	char *timing_path;
	char *state_path;
	long long stall_after;          /* -1: off */
	long long stall_ms;
	long long vanish_after;         /* -1: off */
	long long reappear_ms;          /* -1: never */

	/* resources */
	int timer_fd;
	int capture_fd;
	int capture_failed;
	unsigned int wav_header_bytes;  /* 0: no WAV header written (yet) */
	int timing_fd;

	/* negotiated parameters */
	unsigned int frame_bytes;
	unsigned int sample_bytes;
	uint64_t period_ns;
	snd_pcm_uframes_t avail_min;
	snd_pcm_uframes_t stop_threshold;
	snd_pcm_uframes_t boundary;     /* from sw_params; hw pointer wraps here */
	int have_params;
	int ever_params;                /* for the stats file (hw_free runs before close) */

	/* clock model */
	int running;                    /* clock advancing */
	int xrun;                       /* underrun detected; cleared by prepare */
	uint64_t base_ns;               /* clock anchor (monotonic ns) */
	uint64_t base_frames;           /* clock frames at base_ns (frozen value when !running) */
	uint64_t clk_reported;          /* clock frames already reported to ALSA's hw_ptr */

	/* fault injection */
	int stall_armed;
	int vanish_armed;
	int vanished;

	/* statistics */
	uint64_t first_write_ns;
	int have_first_write;
	uint64_t frames_total;
	uint64_t xruns;

	unsigned char *scratch;         /* interleaving buffer for capture */
	size_t scratch_size;
} hapsim_t;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

static void sleep_until_ns(uint64_t deadline)
{
	struct timespec ts;
	ts.tv_sec = (time_t)(deadline / NS_PER_SEC);
	ts.tv_nsec = (long)(deadline % NS_PER_SEC);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* ---------------------------------------------------------------------------
 * Small file helpers
 */
static int write_all(int fd, const void *buf, size_t len);

/* One line of the timing file (see the top comment); no allocation. */
static void timing_line(int fd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void timing_line(int fd, const char *fmt, ...)
{
	char line[160];
	va_list ap;
	int len;

	if (fd < 0)
		return;
	va_start(ap, fmt);
	len = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (len > 0 && (size_t)len < sizeof(line))
		(void)write_all(fd, line, (size_t)len);
}

static int write_all(int fd, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
	int k;
	for (k = 0; k < bytes; k++)
		p[k] = (unsigned char)(v >> (8 * k));
}

/* The WAV header hap's WAVHeader writes for this format (44 bytes for PCM, 58 with
 * a `fact` chunk for float), for `data` bytes of samples (0xFFFFFFFF: unknown). */
static unsigned int wav_header(unsigned char *h, snd_pcm_format_t format, unsigned int rate,
			       unsigned int channels, unsigned int sample_bytes, uint64_t data)
{
	int is_float = format == SND_PCM_FORMAT_FLOAT_LE;
	unsigned int size = is_float ? 58 : 44;
	unsigned int block = channels * sample_bytes;
	uint64_t riff = data + size - 8;
	unsigned char *p = h;

	if (data > 0xFFFFFFFFULL - size)
		riff = data = 0xFFFFFFFFULL;
	memcpy(p, "RIFF", 4); put_le(p + 4, riff, 4); memcpy(p + 8, "WAVE", 4); p += 12;
	memcpy(p, "fmt ", 4); put_le(p + 4, is_float ? 18 : 16, 4);
	put_le(p + 8, is_float ? 3 : 1, 2); put_le(p + 10, channels, 2);
	put_le(p + 12, rate, 4); put_le(p + 16, (uint64_t)rate * block, 4);
	put_le(p + 20, block, 2); put_le(p + 22, sample_bytes * 8, 2); p += 24;
	if (is_float) {
		put_le(p, 0, 2); p += 2;
		memcpy(p, "fact", 4); put_le(p + 4, 4, 4);
		put_le(p + 8, data == 0xFFFFFFFFULL ? 0xFFFFFFFFULL : data / block, 4); p += 12;
	}
	memcpy(p, "data", 4); put_le(p + 4, data, 4);
	return size;
}

/* Write a whole file atomically (temp file in the same folder + rename), mode 0644. */
static int write_file_atomic(const char *path, const char *text)
{
	size_t plen = strlen(path);
	char *tmp = malloc(plen + 16);
	int fd, err;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, plen + 16, "%s.tmpXXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		free(tmp);
		return err;
	}
	(void)fchmod(fd, 0644);
	err = write_all(fd, text, strlen(text));
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}

static void persist_read_file(const char *path, struct persist *p)
{
	FILE *f = fopen(path, "r");
	char key[64];
	unsigned long long val;

	memset(p, 0, sizeof(*p));
	if (!f)
		return;
	while (fscanf(f, "%63s %llu", key, &val) == 2) {
		if (strcmp(key, "vanished_ns") == 0) {
			p->have_vanish = 1;
			p->vanish_ns = val;
		} else if (strcmp(key, "stalled") == 0) {
			p->stalled = val != 0;
		}
	}
	fclose(f);
}

static void persist_write_file(const char *path, const struct persist *p)
{
	char text[128];
	int len = 0;

	if (p->have_vanish)
		len += snprintf(text + len, sizeof(text) - (size_t)len,
				"vanished_ns %llu\n", (unsigned long long)p->vanish_ns);
	snprintf(text + len, sizeof(text) - (size_t)len, "stalled %d\n", p->stalled ? 1 : 0);
	if (write_file_atomic(path, text) < 0)
		SNDERR("hapsim: cannot write state file %s", path);
}

/* Caller holds g_persist_lock. */
static struct persist *persist_global(const char *name)
{
	struct persist_node *n;
	size_t len = strlen(name);

	for (n = g_persist_list; n; n = n->next)
		if (strcmp(n->name, name) == 0)
			return &n->data;
	n = calloc(1, sizeof(*n) + len + 1);
	if (!n)
		return NULL;
	memcpy(n->name, name, len + 1);
	n->next = g_persist_list;
	g_persist_list = n;
	return &n->data;
}

static void persist_load(hapsim_t *s, struct persist *out)
{
	if (s->state_path) {
		persist_read_file(s->state_path, out);
		return;
	}
	pthread_mutex_lock(&g_persist_lock);
	{
		struct persist *g = persist_global(s->pcm_name);
		if (g)
			*out = *g;
		else
			memset(out, 0, sizeof(*out));
	}
	pthread_mutex_unlock(&g_persist_lock);
}

/* Read-modify-write: set vanish time and/or stalled flag. */
static void persist_update(hapsim_t *s, int set_vanish, uint64_t vanish_ns, int set_stalled)
{
	struct persist p;

	if (s->state_path) {
		persist_read_file(s->state_path, &p);
		if (set_vanish) {
			p.have_vanish = 1;
			p.vanish_ns = vanish_ns;
		}
		if (set_stalled)
			p.stalled = 1;
		persist_write_file(s->state_path, &p);
		return;
	}
	pthread_mutex_lock(&g_persist_lock);
	{
		struct persist *g = persist_global(s->pcm_name);
		if (g) {
			if (set_vanish) {
				g->have_vanish = 1;
				g->vanish_ns = vanish_ns;
			}
			if (set_stalled)
				g->stalled = 1;
		}
	}
	pthread_mutex_unlock(&g_persist_lock);
}

/* ---------------------------------------------------------------------------
 * Timer (poll descriptor)
 */

/* Fire once as soon as possible (keeps poll from sleeping), then every interval_ns (0: once). */
static void timer_arm_now(hapsim_t *s, uint64_t interval_ns)
{
	struct itimerspec its;

	if (s->timer_fd < 0)
		return;
	memset(&its, 0, sizeof(its));
	its.it_value.tv_nsec = 1;
	its.it_interval.tv_sec = (time_t)(interval_ns / NS_PER_SEC);
	its.it_interval.tv_nsec = (long)(interval_ns % NS_PER_SEC);
	timerfd_settime(s->timer_fd, 0, &its, NULL);
}

/* Periodic ticks at period boundaries of the device clock, starting at `start`. */
static void timer_arm_periodic(hapsim_t *s, uint64_t start)
{
	struct itimerspec its;
	uint64_t first = start + s->period_ns;

	if (s->timer_fd < 0)
		return;
	its.it_value.tv_sec = (time_t)(first / NS_PER_SEC);
	its.it_value.tv_nsec = (long)(first % NS_PER_SEC);
	its.it_interval.tv_sec = (time_t)(s->period_ns / NS_PER_SEC);
	its.it_interval.tv_nsec = (long)(s->period_ns % NS_PER_SEC);
	timerfd_settime(s->timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void timer_clear(hapsim_t *s)
{
	uint64_t expirations;

	if (s->timer_fd < 0)
		return;
	while (read(s->timer_fd, &expirations, sizeof(expirations)) < 0 && errno == EINTR)
		;
}

/* ---------------------------------------------------------------------------
 * Clock model
 */

/* Device clock in frames at time t. */
static uint64_t clock_frames(const hapsim_t *s, uint64_t t)
{
	uint64_t dt;

	if (!s->running || !s->io.rate)
		return s->base_frames;
	dt = t > s->base_ns ? t - s->base_ns : 0;
	return s->base_frames + (uint64_t)(((unsigned __int128)dt * s->io.rate) / NS_PER_SEC);
}

/* Frames written by the application but not yet reported as played. */
static snd_pcm_uframes_t queued_frames(const hapsim_t *s)
{
	if (!s->io.buffer_size)
		return 0;
	return snd_pcm_ioplug_hw_avail(&s->io, s->io.hw_ptr, s->io.appl_ptr);
}

/* Would `advance` clock frames past the last report be an underrun? */
static int is_underrun(const hapsim_t *s, uint64_t advance, snd_pcm_uframes_t queued)
{
	/* avail after advancing, as the kernel computes it against stop_threshold */
	unsigned __int128 avail = (unsigned __int128)s->io.buffer_size - queued + advance;
	return avail >= (unsigned __int128)s->stop_threshold;
}

static void flag_xrun(hapsim_t *s)
{
	if (!s->xrun) {
		s->xrun = 1;
		s->xruns++;
	}
	s->running = 0;
	timer_arm_now(s, 0);
}

static void do_vanish(hapsim_t *s)
{
	uint64_t t = now_ns();

	s->vanished = 1;
	s->vanish_armed = 0;
	s->running = 0;
	snd_pcm_ioplug_set_state(&s->io, SND_PCM_STATE_DISCONNECTED);
	timer_arm_now(s, 0);
	persist_update(s, 1, t, 0);
}

/* ---------------------------------------------------------------------------
 * ioplug callbacks
 */

static int hapsim_start(snd_pcm_ioplug_t *io)
{
	hapsim_t *s = io->private_data;
	uint64_t t;

	if (s->vanished)
		return -ENODEV;
	if (!s->have_params || !io->rate)
		return -EBADFD;
	t = now_ns();
	s->base_frames = s->clk_reported;
	s->base_ns = t;
	s->running = 1;
	timer_arm_periodic(s, t);
	timing_line(s->timing_fd, "s %llu %llu\n", (unsigned long long)t, (unsigned long long)s->base_frames);
	return 0;
}

static int hapsim_stop(snd_pcm_ioplug_t *io)
{
	hapsim_t *s = io->private_data;

	if (s->running) {
		s->base_frames = clock_frames(s, now_ns());
		s->running = 0;
	}
	timer_arm_now(s, 0);
	return 0;
}

/* ALSA's hw_ptr advanced by `advance` frames. With BOUNDARY_WA the pointer is
 * reported modulo the boundary, so an advance of a whole buffer (a full buffer
 * played between two calls) is not mistaken for no advance. */
static snd_pcm_sframes_t hw_position(const hapsim_t *s, uint64_t advance)
{
	uint64_t pos = (uint64_t)s->io.hw_ptr + advance;

	if (s->boundary && pos >= s->boundary)
		pos -= s->boundary;
	return (snd_pcm_sframes_t)pos;
}

static snd_pcm_sframes_t hapsim_pointer(snd_pcm_ioplug_t *io)
{
	hapsim_t *s = io->private_data;
	snd_pcm_uframes_t queued;
	uint64_t t, clk, advance;

	if (!io->buffer_size)
		return 0;
	if (s->vanished)
		return hw_position(s, 0); /* frozen; the state is DISCONNECTED */
	if (s->xrun)
		return -EPIPE;

	t = now_ns();
	clk = clock_frames(s, t); /* frozen when the clock is not running */
	advance = clk > s->clk_reported ? clk - s->clk_reported : 0;
	queued = queued_frames(s);

	if (io->state == SND_PCM_STATE_RUNNING && s->running) {
		if (is_underrun(s, advance, queued)) {
			flag_xrun(s);
			return -EPIPE;
		}
		if (advance > queued) {
			/* stop_threshold beyond the buffer: play silence, keep the
			 * position at what was written and restart the clock there */
			advance = queued;
			s->base_frames = s->clk_reported + queued;
			s->base_ns = t;
		}
	} else if (advance > queued) {
		/* draining (stops at the end of the data), paused, prepared, setup */
		advance = queued;
	}
	s->clk_reported += advance;
	return hw_position(s, advance);
}

/* Append `size` frames at `offset` of `areas` to the capture file, interleaved. */
static void capture_frames(hapsim_t *s, const snd_pcm_channel_area_t *areas,
			   snd_pcm_uframes_t offset, snd_pcm_uframes_t size)
{
	snd_pcm_ioplug_t *io = &s->io;
	unsigned int ch, channels = io->channels;
	unsigned int width = s->sample_bytes * 8;
	int contiguous = 1;
	int err = 0;

	if (s->capture_fd < 0 || s->capture_failed || !size)
		return;

	for (ch = 0; ch < channels; ch++) {
		if (areas[ch].addr != areas[0].addr ||
		    areas[ch].first != ch * width ||
		    areas[ch].step != channels * width) {
			contiguous = 0;
			break;
		}
	}
	if (contiguous) {
		const unsigned char *base = (const unsigned char *)areas[0].addr +
			(size_t)offset * s->frame_bytes;
		err = write_all(s->capture_fd, base, (size_t)size * s->frame_bytes);
	} else {
		snd_pcm_uframes_t done = 0;

		if (!s->scratch) {
			s->scratch_size = (size_t)CAPTURE_CHUNK_FRAMES * s->frame_bytes;
			s->scratch = malloc(s->scratch_size);
			if (!s->scratch) {
				err = -ENOMEM;
				goto out;
			}
		}
		while (done < size && !err) {
			snd_pcm_uframes_t n = size - done, f;
			unsigned char *dst = s->scratch;

			if (n > CAPTURE_CHUNK_FRAMES)
				n = CAPTURE_CHUNK_FRAMES;
			for (f = 0; f < n; f++) {
				for (ch = 0; ch < channels; ch++) {
					const snd_pcm_channel_area_t *a = &areas[ch];
					size_t bit = a->first + (size_t)a->step * (offset + done + f);
					const unsigned char *src = (const unsigned char *)a->addr + bit / 8;
					memcpy(dst, src, s->sample_bytes);
					dst += s->sample_bytes;
				}
			}
			err = write_all(s->capture_fd, s->scratch, (size_t)n * s->frame_bytes);
			done += n;
		}
	}
out:
	if (err) {
		SNDERR("hapsim: capture write failed: %s", strerror(-err));
		s->capture_failed = 1;
	}
}

static snd_pcm_sframes_t hapsim_transfer(snd_pcm_ioplug_t *io,
					 const snd_pcm_channel_area_t *areas,
					 snd_pcm_uframes_t offset,
					 snd_pcm_uframes_t size)
{
	hapsim_t *s = io->private_data;
	int vanish_now = 0;

	if (s->vanished)
		return -ENODEV;
	if (!s->have_params)
		return -EBADFD;
	if (!size)
		return 0;

	if (!s->have_first_write) {
		s->have_first_write = 1;
		s->first_write_ns = now_ns();
	}

	if (s->vanish_armed) {
		uint64_t limit = (uint64_t)s->vanish_after;
		uint64_t left = limit > s->frames_total ? limit - s->frames_total : 0;
		if (left == 0) {
			do_vanish(s);
			return -ENODEV;
		}
		if (size >= left) {
			size = (snd_pcm_uframes_t)left;
			vanish_now = 1;
		}
	}

	/* With stop_threshold beyond the buffer a dry device plays silence:
	 * new data starts playing now, not in the past. */
	if (s->running && io->state == SND_PCM_STATE_RUNNING) {
		uint64_t t = now_ns();
		uint64_t clk = clock_frames(s, t);
		snd_pcm_uframes_t queued = queued_frames(s);
		uint64_t written = s->clk_reported + queued;

		if (clk > written && !is_underrun(s, clk - s->clk_reported, queued)) {
			s->base_frames = written;
			s->base_ns = t;
		}
	}

	if (s->timing_fd >= 0) {
		uint64_t t = now_ns();
		timing_line(s->timing_fd, "w %llu %llu %llu %llu %d\n", (unsigned long long)t,
			    (unsigned long long)s->frames_total,
			    (unsigned long long)(s->clk_reported + queued_frames(s)),
			    (unsigned long long)clock_frames(s, t),
			    s->running && io->state == SND_PCM_STATE_RUNNING);
	}
	capture_frames(s, areas, offset, size);
	s->frames_total += size;

	if (vanish_now) {
		do_vanish(s);
		return (snd_pcm_sframes_t)size;
	}

	if (s->stall_armed && s->frames_total >= (uint64_t)s->stall_after) {
		s->stall_armed = 0;
		persist_update(s, 0, 0, 1);
		sleep_until_ns(now_ns() + (uint64_t)s->stall_ms * 1000000ULL);
	}
	return (snd_pcm_sframes_t)size;
}

static int hapsim_prepare(snd_pcm_ioplug_t *io)
{
	hapsim_t *s = io->private_data;

	if (s->vanished)
		return -ENODEV;
	if (!s->have_params)
		return -EBADFD;
	/* alsa-lib has already reset hw_ptr and appl_ptr to 0 */
	s->running = 0;
	s->xrun = 0;
	s->clk_reported = 0;
	s->base_frames = 0;
	s->base_ns = 0;
	timing_line(s->timing_fd, "p %llu\n", (unsigned long long)now_ns());
	timer_clear(s);
	/* keep the descriptor ticking so that a poll on a prepared stream
	 * reports room in the buffer, as hardware does */
	timer_arm_now(s, s->period_ns);
	return 0;
}

static int hapsim_drain(snd_pcm_ioplug_t *io)
{
	hapsim_t *s = io->private_data;

	for (;;) {
		snd_pcm_uframes_t queued;
		uint64_t t, target, wake, need;

		if (s->vanished)
			return -ENODEV;
		if (s->xrun)
			return -EPIPE;
		queued = queued_frames(s);
		target = s->clk_reported + queued;
		t = now_ns();
		if (!s->running) {
			if (queued == 0)
				return 0;
			/* draining a stream that never started: start it now */
			s->base_frames = s->clk_reported;
			s->base_ns = t;
			s->running = 1;
			timer_arm_periodic(s, t);
			timing_line(s->timing_fd, "s %llu %llu\n", (unsigned long long)t,
				    (unsigned long long)s->base_frames);
		}
		if (clock_frames(s, t) >= target)
			return 0;
		if (io->nonblock)
			return -EAGAIN;
		need = target - s->base_frames;
		wake = s->base_ns + (uint64_t)(((unsigned __int128)need * NS_PER_SEC + io->rate - 1) / io->rate);
		sleep_until_ns(wake);
	}
}

static int hapsim_pause(snd_pcm_ioplug_t *io, int enable)
{
	hapsim_t *s = io->private_data;
	uint64_t t = now_ns();

	if (s->vanished)
		return -ENODEV;
	if (enable) {
		if (s->running) {
			uint64_t clk = clock_frames(s, t);
			uint64_t written = s->clk_reported + queued_frames(s);
			s->base_frames = clk < written ? clk : written;
			s->running = 0;
		}
		timer_arm_now(s, s->period_ns);
	} else {
		s->base_ns = t;
		s->running = 1;
		timer_arm_periodic(s, t);
		timing_line(s->timing_fd, "s %llu %llu\n", (unsigned long long)t,
			    (unsigned long long)s->base_frames);
	}
	return 0;
}

static int hapsim_poll_revents(snd_pcm_ioplug_t *io, struct pollfd *pfd,
			       unsigned int nfds, unsigned short *revents)
{
	hapsim_t *s = io->private_data;
	snd_pcm_sframes_t avail;

	if (!revents)
		return -EINVAL;
	*revents = 0;
	if (nfds != 1 || !pfd)
		return -EINVAL;
	if (pfd[0].revents & POLLNVAL) {
		*revents = POLLNVAL;
		return 0;
	}

	switch (io->state) {
	case SND_PCM_STATE_PREPARED:
	case SND_PCM_STATE_RUNNING:
	case SND_PCM_STATE_DRAINING:
	case SND_PCM_STATE_PAUSED:
		if (s->vanished)
			break;
		timer_clear(s);
		/* updates hw_ptr through the pointer callback; may detect an xrun */
		avail = snd_pcm_avail_update(io->pcm);
		if (avail < 0) {
			*revents = POLLOUT | POLLERR;
			return 0;
		}
		if (io->state == SND_PCM_STATE_RUNNING || io->state == SND_PCM_STATE_PREPARED ||
		    io->state == SND_PCM_STATE_PAUSED) {
			if ((snd_pcm_uframes_t)avail >= s->avail_min)
				*revents = POLLOUT;
		} else if (io->state != SND_PCM_STATE_DRAINING) {
			/* drain finished (stream dropped to SETUP) */
			*revents = POLLOUT;
		}
		return 0;
	default:
		break;
	}
	/* xrun, disconnected, setup...: an error condition, level-triggered
	 * (the timer is left readable) */
	*revents = POLLOUT | POLLERR;
	return 0;
}

static int hapsim_delay(snd_pcm_ioplug_t *io, snd_pcm_sframes_t *delayp)
{
	hapsim_t *s = io->private_data;
	snd_pcm_uframes_t queued;
	uint64_t advance, clk;

	if (!delayp)
		return -EINVAL;
	if (s->vanished)
		return -ENODEV;
	if (s->xrun || io->state == SND_PCM_STATE_XRUN)
		return -EPIPE;
	queued = queued_frames(s);
	clk = clock_frames(s, now_ns());
	advance = clk > s->clk_reported ? clk - s->clk_reported : 0;
	if (io->state == SND_PCM_STATE_RUNNING && s->running && is_underrun(s, advance, queued)) {
		flag_xrun(s);
		snd_pcm_ioplug_set_state(io, SND_PCM_STATE_XRUN);
		return -EPIPE;
	}
	*delayp = advance >= queued ? 0 : (snd_pcm_sframes_t)(queued - advance);
	return 0;
}

static int hapsim_hw_params(snd_pcm_ioplug_t *io, snd_pcm_hw_params_t *params)
{
	hapsim_t *s = io->private_data;
	int width;

	(void)params;
	if (s->vanished)
		return -ENODEV;
	width = snd_pcm_format_physical_width(io->format);
	if (width <= 0 || width % 8 || !io->channels || !io->rate ||
	    !io->period_size || !io->buffer_size)
		return -EINVAL;
	s->sample_bytes = (unsigned int)width / 8;
	s->frame_bytes = s->sample_bytes * io->channels;
	/* round up: when the tick fires, a whole period has been played */
	s->period_ns = ((uint64_t)io->period_size * NS_PER_SEC + io->rate - 1) / io->rate;
	if (!s->period_ns)
		s->period_ns = 1;
	s->avail_min = io->period_size;
	s->stop_threshold = io->buffer_size;
	free(s->scratch);
	s->scratch = NULL;
	if (s->capture_wav && s->capture_fd >= 0 && !s->capture_failed) {
		struct stat st;
		if (fstat(s->capture_fd, &st) == 0 && st.st_size == 0) {
			unsigned char h[64];
			unsigned int n = wav_header(h, io->format, io->rate, io->channels,
						    s->sample_bytes, 0xFFFFFFFFULL);
			if (write_all(s->capture_fd, h, n) == 0)
				s->wav_header_bytes = n;
			else
				s->capture_failed = 1;
		} else if (s->capture_append) {
			/* appending to a capture this plugin began: its header's size */
			s->wav_header_bytes = io->format == SND_PCM_FORMAT_FLOAT_LE ? 58 : 44;
		}
	}
	s->have_params = 1;
	s->ever_params = 1;
	return 0;
}

static int hapsim_hw_free(snd_pcm_ioplug_t *io)
{
	hapsim_t *s = io->private_data;

	s->running = 0;
	s->have_params = 0;
	return 0;
}

static int hapsim_sw_params(snd_pcm_ioplug_t *io, snd_pcm_sw_params_t *params)
{
	hapsim_t *s = io->private_data;
	snd_pcm_uframes_t v;

	if (snd_pcm_sw_params_get_avail_min(params, &v) >= 0)
		s->avail_min = v ? v : 1;
	if (snd_pcm_sw_params_get_stop_threshold(params, &v) >= 0)
		s->stop_threshold = v;
	if (snd_pcm_sw_params_get_boundary(params, &v) >= 0)
		s->boundary = v;
	return 0;
}

static void hapsim_write_stats(hapsim_t *s)
{
	char text[512];
	const char *fmt = s->ever_params ? snd_pcm_format_name(s->io.format) : NULL;

	if (!s->stats_path)
		return;
	snprintf(text, sizeof(text),
		 "first_write_ns %llu\n"
		 "frames %llu\n"
		 "xruns %llu\n"
		 "rate %u\n"
		 "format %s\n"
		 "channels %u\n"
		 "period_size %lu\n"
		 "buffer_size %lu\n",
		 s->have_first_write ? (unsigned long long)s->first_write_ns : 0ULL,
		 (unsigned long long)s->frames_total,
		 (unsigned long long)s->xruns,
		 s->io.rate,
		 fmt ? fmt : "UNKNOWN",
		 s->io.channels,
		 (unsigned long)s->io.period_size,
		 (unsigned long)s->io.buffer_size);
	if (write_file_atomic(s->stats_path, text) < 0)
		SNDERR("hapsim: cannot write stats file %s", s->stats_path);
}

/* A WAV capture's sizes, from the file's size, once nothing more will be written. */
static void hapsim_finish_wav(hapsim_t *s)
{
	struct stat st;
	unsigned char h[64];
	unsigned int n;

	if (!s->wav_header_bytes || s->capture_fd < 0 || fstat(s->capture_fd, &st) < 0 ||
	    (uint64_t)st.st_size < s->wav_header_bytes)
		return;
	n = wav_header(h, s->io.format, s->io.rate, s->io.channels, s->sample_bytes,
		       (uint64_t)st.st_size - s->wav_header_bytes);
	if (n == s->wav_header_bytes && pwrite(s->capture_fd, h, n, 0) != (ssize_t)n)
		SNDERR("hapsim: cannot finish the WAV header of %s", s->capture_path);
}

static void hapsim_free(hapsim_t *s)
{
	if (s->timer_fd >= 0)
		close(s->timer_fd);
	if (s->capture_fd >= 0)
		close(s->capture_fd);
	if (s->timing_fd >= 0)
		close(s->timing_fd);
	free(s->scratch);
	free(s->pcm_name);
	free(s->capture_path);
	free(s->stats_path);
	free(s->timing_path);
	free(s->state_path);
	free(s);
}

static int hapsim_close(snd_pcm_ioplug_t *io)
{
	hapsim_t *s = io->private_data;

	hapsim_write_stats(s);
	hapsim_finish_wav(s);
	hapsim_free(s);
	return 0;
}

static void hapsim_dump(snd_pcm_ioplug_t *io, snd_output_t *out)
{
	hapsim_t *s = io->private_data;

	snd_output_printf(out, "hap simulated exciter (CLOCK_MONOTONIC paced)\n");
	snd_output_printf(out, "  capture: %s%s\n", s->capture_path ? s->capture_path : "(none)",
			  s->capture_append ? " (append)" : "");
	snd_output_printf(out, "  frames transferred: %llu, xruns: %llu%s\n",
			  (unsigned long long)s->frames_total, (unsigned long long)s->xruns,
			  s->vanished ? ", vanished" : "");
	if (io->pcm && s->have_params) {
		snd_output_printf(out, "Its setup is:\n");
		snd_pcm_dump_setup(io->pcm, out);
	}
}

static const snd_pcm_ioplug_callback_t hapsim_callbacks = {
	.start = hapsim_start,
	.stop = hapsim_stop,
	.pointer = hapsim_pointer,
	.transfer = hapsim_transfer,
	.close = hapsim_close,
	.hw_params = hapsim_hw_params,
	.hw_free = hapsim_hw_free,
	.sw_params = hapsim_sw_params,
	.prepare = hapsim_prepare,
	.drain = hapsim_drain,
	.pause = hapsim_pause,
	.poll_revents = hapsim_poll_revents,
	.dump = hapsim_dump,
	.delay = hapsim_delay,
};

/* ---------------------------------------------------------------------------
 * Configuration
 */

static int conf_get_i64(snd_config_t *n, const char *id, long long *out)
{
	long long v;
	long lv;
	const char *str;

	if (snd_config_get_integer64(n, &v) >= 0) {
		*out = v;
		return 0;
	}
	if (snd_config_get_integer(n, &lv) >= 0) {
		*out = lv;
		return 0;
	}
	if (snd_config_get_string(n, &str) >= 0 && str) {
		char *end;
		errno = 0;
		v = strtoll(str, &end, 10);
		if (!errno && end != str && *end == '\0') {
			*out = v;
			return 0;
		}
	}
	SNDERR("hapsim: %s must be an integer", id);
	return -EINVAL;
}

static int conf_get_str(snd_config_t *n, const char *id, char **out)
{
	const char *str;

	if (snd_config_get_string(n, &str) < 0 || !str) {
		SNDERR("hapsim: %s must be a string", id);
		return -EINVAL;
	}
	free(*out);
	*out = strdup(str);
	return *out ? 0 : -ENOMEM;
}

static int hapsim_parse_conf(hapsim_t *s, snd_config_t *conf)
{
	snd_config_iterator_t i, next;
	int err;

	snd_config_for_each(i, next, conf) {
		snd_config_t *n = snd_config_iterator_entry(i);
		const char *id;

		if (snd_config_get_id(n, &id) < 0)
			continue;
		if (strcmp(id, "comment") == 0 || strcmp(id, "type") == 0 ||
		    strcmp(id, "hint") == 0)
			continue;
		if (strcmp(id, "capture") == 0) {
			err = conf_get_str(n, id, &s->capture_path);
		} else if (strcmp(id, "capture_append") == 0) {
			err = snd_config_get_bool(n);
			if (err >= 0) {
				s->capture_append = err;
				err = 0;
			} else {
				SNDERR("hapsim: capture_append must be a boolean");
			}
		} else if (strcmp(id, "capture_format") == 0) {
			const char *str = NULL;
			if (snd_config_get_string(n, &str) >= 0 && str &&
			    (strcmp(str, "raw") == 0 || strcmp(str, "wav") == 0)) {
				s->capture_wav = strcmp(str, "wav") == 0;
				err = 0;
			} else {
				SNDERR("hapsim: capture_format must be raw or wav");
				err = -EINVAL;
			}
		} else if (strcmp(id, "stats") == 0) {
			err = conf_get_str(n, id, &s->stats_path);
		} else if (strcmp(id, "timing") == 0) {
			err = conf_get_str(n, id, &s->timing_path);
		} else if (strcmp(id, "state") == 0) {
			err = conf_get_str(n, id, &s->state_path);
		} else if (strcmp(id, "stall_after_frames") == 0) {
			err = conf_get_i64(n, id, &s->stall_after);
		} else if (strcmp(id, "stall_ms") == 0) {
			err = conf_get_i64(n, id, &s->stall_ms);
		} else if (strcmp(id, "vanish_after_frames") == 0) {
			err = conf_get_i64(n, id, &s->vanish_after);
		} else if (strcmp(id, "reappear_ms") == 0) {
			err = conf_get_i64(n, id, &s->reappear_ms);
		} else {
			SNDERR("hapsim: unknown field %s", id);
			err = -EINVAL;
		}
		if (err < 0)
			return err;
	}
	/* an empty path means "off" (convenient for templated configs) */
	if (s->capture_path && !*s->capture_path) {
		free(s->capture_path);
		s->capture_path = NULL;
	}
	if (s->stats_path && !*s->stats_path) {
		free(s->stats_path);
		s->stats_path = NULL;
	}
	if (s->timing_path && !*s->timing_path) {
		free(s->timing_path);
		s->timing_path = NULL;
	}
	if (s->state_path && !*s->state_path) {
		free(s->state_path);
		s->state_path = NULL;
	}
	if (s->stall_ms < 0) {
		SNDERR("hapsim: stall_ms must be >= 0");
		return -EINVAL;
	}
	return 0;
}

static int hapsim_set_constraints(snd_pcm_ioplug_t *io)
{
	static const unsigned int access_list[] = {
		SND_PCM_ACCESS_RW_INTERLEAVED,
		SND_PCM_ACCESS_RW_NONINTERLEAVED,
		SND_PCM_ACCESS_MMAP_INTERLEAVED,
		SND_PCM_ACCESS_MMAP_NONINTERLEAVED,
	};
	static const unsigned int format_list[] = {
		SND_PCM_FORMAT_S16_LE,
		SND_PCM_FORMAT_S24_3LE,
		SND_PCM_FORMAT_S32_LE,
		SND_PCM_FORMAT_FLOAT_LE,
	};
	int err;

	err = snd_pcm_ioplug_set_param_list(io, SND_PCM_IOPLUG_HW_ACCESS,
					    sizeof(access_list) / sizeof(access_list[0]), access_list);
	if (err < 0)
		return err;
	err = snd_pcm_ioplug_set_param_list(io, SND_PCM_IOPLUG_HW_FORMAT,
					    sizeof(format_list) / sizeof(format_list[0]), format_list);
	if (err < 0)
		return err;
	err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_CHANNELS, 1, 8);
	if (err < 0)
		return err;
	err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_RATE, 8000, 192000);
	if (err < 0)
		return err;
	/* ioplug constrains sizes in bytes: 32 B (16 frames of mono S16) up to
	 * 65536 frames of 8 x 32-bit channels */
	err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_PERIOD_BYTES, 32, 65536 * 32);
	if (err < 0)
		return err;
	err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_PERIODS, 2, 8);
	if (err < 0)
		return err;
	err = snd_pcm_ioplug_set_param_minmax(io, SND_PCM_IOPLUG_HW_BUFFER_BYTES, 64, 8 * 65536 * 32);
	if (err < 0)
		return err;
	return 0;
}

SND_PCM_PLUGIN_DEFINE_FUNC(hapsim)
{
	hapsim_t *s;
	struct persist p;
	int err;

	(void)root;
	if (stream != SND_PCM_STREAM_PLAYBACK) {
		SNDERR("hapsim: %s is a playback-only device", name ? name : "hapsim");
		return -EINVAL;
	}

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->timer_fd = -1;
	s->capture_fd = -1;
	s->timing_fd = -1;
	s->stall_after = -1;
	s->stall_ms = 0;
	s->vanish_after = -1;
	s->reappear_ms = -1;
	s->pcm_name = strdup(name ? name : "hapsim");
	if (!s->pcm_name) {
		err = -ENOMEM;
		goto fail;
	}

	err = hapsim_parse_conf(s, conf);
	if (err < 0)
		goto fail;

	/* One-shot state from earlier opens (this process or others). */
	if (s->vanish_after >= 0 || s->stall_after >= 0) {
		persist_load(s, &p);
		if (s->vanish_after >= 0) {
			if (p.have_vanish) {
				uint64_t t = now_ns();
				if (s->reappear_ms < 0 ||
				    t < p.vanish_ns + (uint64_t)s->reappear_ms * 1000000ULL) {
					err = -ENODEV;
					goto fail;
				}
				/* it came back: it does not vanish again */
			} else {
				s->vanish_armed = 1;
			}
		}
		if (s->stall_after >= 0 && !p.stalled)
			s->stall_armed = 1;
	}

	s->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (s->timer_fd < 0) {
		err = -errno;
		SNDERR("hapsim: timerfd_create failed: %s", strerror(errno));
		goto fail;
	}

	if (s->capture_path) {
		/* Not O_APPEND, so that the WAV header can be rewritten with pwrite
		 * (Linux appends every pwrite to an O_APPEND file). */
		int flags = O_RDWR | O_CREAT | O_CLOEXEC | (s->capture_append ? 0 : O_TRUNC);
		s->capture_fd = open(s->capture_path, flags, 0644);
		if (s->capture_fd < 0) {
			err = -errno;
			SNDERR("hapsim: cannot open capture file %s: %s", s->capture_path, strerror(errno));
			goto fail;
		}
		if (s->capture_append && lseek(s->capture_fd, 0, SEEK_END) < 0) {
			err = -errno;
			goto fail;
		}
		(void)fchmod(s->capture_fd, 0644);
	}

	if (s->timing_path) {
		int flags = O_WRONLY | O_CREAT | O_CLOEXEC |
			(s->capture_append ? O_APPEND : O_TRUNC);
		s->timing_fd = open(s->timing_path, flags, 0644);
		if (s->timing_fd < 0) {
			err = -errno;
			SNDERR("hapsim: cannot open timing file %s: %s", s->timing_path, strerror(errno));
			goto fail;
		}
	}

	s->io.version = SND_PCM_IOPLUG_VERSION;
	s->io.name = "hap simulated exciter";
	/* No SND_PCM_IOPLUG_FLAG_MONOTONIC: it makes status timestamps
	 * CLOCK_MONOTONIC, but ioplug cannot set SND_PCM_INFO_MONOTONIC in the
	 * hw_params, so clients that check snd_pcm_hw_params_is_monotonic()
	 * (aplay's xrun report, for one) would compare them with
	 * gettimeofday(). Timestamps stay gettimeofday-based, consistently. */
	s->io.flags = SND_PCM_IOPLUG_FLAG_BOUNDARY_WA;
	s->io.mmap_rw = 0;
	s->io.callback = &hapsim_callbacks;
	s->io.private_data = s;
	/* a timerfd is readable (POLLIN); poll_revents turns that into POLLOUT */
	s->io.poll_fd = s->timer_fd;
	s->io.poll_events = POLLIN;

	err = snd_pcm_ioplug_create(&s->io, name, stream, mode);
	if (err < 0)
		goto fail;

	/* ioplug only learns non-blocking mode from snd_pcm_nonblock(), not
	 * from the open mode; start out consistent with the open mode */
	s->io.nonblock = (mode & SND_PCM_NONBLOCK) ? 1 : 0;

	err = hapsim_set_constraints(&s->io);
	if (err < 0) {
		snd_pcm_ioplug_delete(&s->io); /* calls hapsim_close, which frees s */
		return err;
	}

	*pcmp = s->io.pcm;
	return 0;

fail:
	hapsim_free(s);
	return err;
}

SND_PCM_PLUGIN_SYMBOL(hapsim);
