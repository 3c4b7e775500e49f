/* wakeup-latency: how late a SCHED_FIFO thread wakes on this machine, the reference that
 * `make bench` prints beside hap's underrun counts.
 *
 * usage: wakeup-latency SECONDS [PERIOD_US [DEADLINE_US]]
 *
 * Sleeps until absolute deadlines PERIOD_US apart (default 1250, a period at hap's --latency 5)
 * on CLOCK_MONOTONIC at SCHED_FIFO priority 20 (hap's playback thread's), and counts the
 * wake-ups later than DEADLINE_US (default 2500: the 2.5 ms hap keeps queued ahead of the
 * device). A thread that does nothing but wake cannot be later than the machine makes it, so a
 * count here is jitter no player could absorb with that margin. Prints one line:
 *   wakeups N worst_ms W late K
 */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

int main(int argc, char **argv) {
	if (argc < 2) {
		fprintf(stderr, "usage: wakeup-latency SECONDS [PERIOD_US [DEADLINE_US]]\n");
		return 2;
	}
	double seconds = atof(argv[1]);
	uint64_t period = (argc > 2 ? strtoull(argv[2], NULL, 10) : 1250) * 1000ull;
	uint64_t deadline = (argc > 3 ? strtoull(argv[3], NULL, 10) : 2500) * 1000ull;
	struct sched_param parameters = {.sched_priority = 20};
	if (sched_setscheduler(0, SCHED_FIFO, &parameters) != 0) perror("wakeup-latency: SCHED_FIFO");
	uint64_t start = now_ns(), next = start, worst = 0, wakeups = 0, late = 0;
	while (now_ns() - start < (uint64_t)(seconds * 1e9)) {
		next += period;
		struct timespec until = {(time_t)(next / 1000000000ull), (long)(next % 1000000000ull)};
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL);
		uint64_t lateness = now_ns() - next;
		wakeups++;
		if (lateness > worst) worst = lateness;
		if (lateness > deadline) late++;
		/* After a long delay, go on from now rather than firing a burst of missed deadlines. */
		if (lateness > period) next = now_ns();
	}
	printf("wakeups %llu worst_ms %.3f late %llu\n", (unsigned long long)wakeups, worst / 1e6,
	       (unsigned long long)late);
	return 0;
}
