#ifndef HAP_RT_PROBE_H
#define HAP_RT_PROBE_H

// The real-time probe: a shared library for tests, loaded into `hap` with LD_PRELOAD (never
// linked into it). See probe.c.

// Marks the calling thread as watched (1) or not (0). `hap` calls it on its playback thread,
// through CALSA's hap_rt_probe_watch, after the first period is queued and when the loop ends.
void hap_probe_watch(int on);

#endif
