#ifndef HAP_KERNELS_H
#define HAP_KERNELS_H

#include <stdint.h>

// The renderer's per-sample loops (HapCore's Renderer calls them). Each is compiled twice from
// one source: for the baseline x86-64 (SSE2) and, through __attribute__((target("avx2"))), for
// AVX2, chosen at run time after a CPU check; never a special build. Floating-point contraction
// is off, so both give bit-identical samples. They allocate nothing, lock nothing and keep no
// state: the real-time contract holds.

/// Which compiled variant runs: 0 the baseline, 1 AVX2.
typedef int32_t hap_kernel;

/// 1 where this CPU runs the AVX2 variant, else 0.
int32_t hap_kernel_avx2_available(void);

/// One grid segment of a continuous voice: the carrier's phase is
/// phase + increment (u - s) + step (u (u - 1) - s (s - 1)) / 2 at frame u of the segment, and
/// its amplitude amplitude + amplitudeStep u.
typedef struct {
  float phase;
  float s;
  float sTerm;  // s * (s - 1), rounded in Float
  float increment;
  float step;
  float amplitude;
  float amplitudeStep;
} hap_segment;

/// Adds `count` frames, the first at segment frame u0, with the envelope level + slope k
/// (k = k0, k0 + 1, ...).
void hap_add_linear(
  hap_kernel kernel, float *out, int32_t count, int32_t u0, int32_t k0, hap_segment segment, float level,
  float slope);

/// Adds `count` frames, the first at segment frame u0, with the envelope level powers[k]
/// (k = k0, k0 + 1, ...).
void hap_add_geometric(
  hap_kernel kernel, float *out, int32_t count, int32_t u0, int32_t k0, hap_segment segment, float level,
  const float *powers);

/// A transient's raised-cosine burst: adds frames m0 ..< m0 + count of the voice (m counted
/// from its start).
void hap_add_transient(
  hap_kernel kernel, float *out, int32_t count, int64_t m0, double peak, double rise, double fall, double increment,
  double carrierOffset);

/// What `hap_finish` measured over a chunk.
typedef struct {
  float peakBefore;  // largest magnitude before the limiter (starting from the value passed in)
  float sumOfSquares;
  int64_t limited;
} hap_finish_result;

/// Scales `count` samples by `gain` and applies the soft limiter (threshold 0.85, ceiling 0.99).
hap_finish_result hap_finish(hap_kernel kernel, float *out, int32_t count, float gain, float peakBefore);

#endif
