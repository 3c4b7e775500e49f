#ifndef HAP_FF_PROBE_H
#define HAP_FF_PROBE_H

// The force-feedback stand-in (tests only): a shared library loaded into `hap` with LD_PRELOAD
// (never linked into it) that plays the kernel's part for rumble motors. See ffprobe.c.

// How many fake devices are open (for the library's own checks).
int hap_ff_probe_open_count(void);

#endif
