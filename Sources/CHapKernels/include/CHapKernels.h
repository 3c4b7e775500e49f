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

/// A run of a continuous voice within one envelope piece, over frames from ..< to (absolute),
/// split at the control grid (2^gridShift frames: 32 or 64): the segment at grid point k takes
/// its amplitude and phase increment from amplitudeGrid[k - gridFirst] and
/// incrementGrid[k - gridFirst] (and the next point's, linearly in between). The envelope is the piece's: level + rate (frame -
/// pieceStart), or with `geometric` level rate^(frame - pieceStart), anchored at the later of the
/// segment's and the piece's start (powers[j] = rate^j for the frames after it). `phase` is the
/// carrier's phase at the start of the segment holding `from` (in cycles), and is carried to
/// each segment end reached. `out` is the sample of frame `first`.
void hap_add_run(
  hap_kernel kernel, float *out, int64_t first, int64_t from, int64_t to, int64_t voiceStart,
  const float *amplitudeGrid, const double *incrementGrid, int64_t gridFirst, double *phase, int32_t geometric,
  int64_t pieceStart, double pieceLevel, double pieceRate, const float *powers, int32_t gridShift);

/// A transient's raised-cosine burst: adds frames m0 ..< m0 + count of the voice (m counted
/// from its start).
void hap_add_transient(
  hap_kernel kernel, float *out, int32_t count, int64_t m0, double peak, double rise, double fall, double increment,
  double carrierOffset);

/// A continuous voice's amplitude and phase increment on `count` grid points: the amplitude
/// table at intensity x intensityGrid[g], the increment table at sharpness + sharpnessGrid[g]
/// (each table has tableSize + 1 points over 0...1, read linearly, x clamped to 0...1);
/// `lowest` and `highest` are lowered and raised to the increments seen.
void hap_fill_grid(
  hap_kernel kernel, int32_t count, const double *intensityGrid, const double *sharpnessGrid, double intensity,
  double sharpness, const double *amplitudeTable, const double *incrementTable, int32_t tableSize,
  float *amplitudeGrid, double *incrementGrid, double *lowest, double *highest);

/// What `hap_finish` measured over a chunk.
typedef struct {
  float peakBefore;  // largest magnitude before the limiter (starting from the value passed in)
  float sumOfSquares;
  int64_t limited;
} hap_finish_result;

/// The soft limiter: x up to 0.85 in magnitude, above it sign(x) (0.85 + 0.14 tanh((|x| - 0.85)
/// / 0.14)), below the ceiling 0.99 (HapCore's SoftLimiter).
float hap_limit(float x);

/// Scales `count` samples by `gain` and applies the soft limiter (`hap_limit`).
hap_finish_result hap_finish(hap_kernel kernel, float *out, int32_t count, float gain, float peakBefore);

/// SampleFormat.s16's conversion: each sample clamped to -1...1, scaled by 32767 and rounded
/// half away from zero, stored as native-endian int16.
void hap_encode_s16(hap_kernel kernel, const float *samples, int16_t *destination, int64_t count);

#endif
