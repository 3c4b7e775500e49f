// The renderer's per-sample loops, compiled for the baseline and for AVX2 from one source.
// See include/CHapKernels.h. The arithmetic follows the Swift reference it replaced operation
// by operation (Renderer.Segment.carrier, Renderer.sine), so the samples did not move.
#include "CHapKernels.h"

#include <math.h>

#pragma clang fp contract(off)

// Swift's Float.pi (rounded toward zero), doubled.
#define TWO_PI_F (2.0f * 0x1.921fb4p+1f)
#define MAGIC 12582912.0f  // 1.5 * 2^23: adding and subtracting it rounds to an integer

static inline __attribute__((always_inline)) float carrier(const hap_segment *g, float u) {
  float linearPart = g->increment * (u - g->s);
  float squares = u * (u - 1.0f) - g->sTerm;
  float x = g->phase + linearPart + g->step * squares * 0.5f;
  float amplitude = g->amplitude + g->amplitudeStep * u;
  float y = x + 0.25f;
  float floorY = (y + MAGIC) - MAGIC;
  // Subtracting 0 or 1 (a mask and a subtraction; the values of a select).
  floorY = floorY - (floorY > y ? 1.0f : 0.0f);
  float d = x - floorY - 0.25f;
  float v = 0.25f - fabsf(d);
  float z = v * TWO_PI_F;
  float z2 = z * z;
  float p = 1.0f / 362880.0f;
  p = p * z2 - 1.0f / 5040.0f;
  p = p * z2 + 1.0f / 120.0f;
  p = p * z2 - 1.0f / 6.0f;
  p = p * z2 + 1.0f;
  return amplitude * z * p;
}

static inline __attribute__((always_inline)) void linear_body(
  float *restrict out, int32_t count, int32_t u0, int32_t k0, hap_segment g, float level, float slope) {
  if (count == 32) {
    // A whole grid segment (most calls): a fixed trip count, unrolled without a remainder loop.
    for (int32_t i = 0; i < 32; i++) {
      float u = (float)(u0 + i);
      float k = (float)(k0 + i);
      out[i] += carrier(&g, u) * (level + slope * k);
    }
    return;
  }
  for (int32_t i = 0; i < count; i++) {
    float u = (float)(u0 + i);
    float k = (float)(k0 + i);
    out[i] += carrier(&g, u) * (level + slope * k);
  }
}

static inline __attribute__((always_inline)) void geometric_body(
  float *restrict out, int32_t count, int32_t u0, int32_t k0, hap_segment g, float level,
  const float *restrict powers) {
  for (int32_t i = 0; i < count; i++) {
    float u = (float)(u0 + i);
    out[i] += carrier(&g, u) * (level * powers[k0 + i]);
  }
}

// Renderer.sine: the fold in Double (a transient's phase grows over its length), the polynomial
// in Float, scaled so the peak is 1.
static inline __attribute__((always_inline)) float sine_d(double x) {
  // x + 1/4 >= 0, so truncation is floor: rounding by adding and subtracting 1.5 * 2^52 and
  // stepping down where that rounded up gives the same value, and vectorises on SSE2.
  double y = x + 0.25;
  double floorY = (y + 6755399441055744.0) - 6755399441055744.0;
  floorY = floorY > y ? floorY - 1.0 : floorY;
  double wrapped = x - floorY;
  float v = (float)(0.25 - fabs(wrapped - 0.25));
  float z = v * TWO_PI_F;
  float z2 = z * z;
  return z * (1.0f + z2 * (-1.0f / 6.0f + z2 * (1.0f / 120.0f + z2 * (-1.0f / 5040.0f + z2 * (1.0f / 362880.0f)))))
    * (float)(1.0 / 1.0000035425842861);
}

static inline __attribute__((always_inline)) void transient_body(
  float *restrict out, int32_t count, int64_t m0, double peak, double rise, double fall, double increment,
  double carrierOffset) {
  for (int32_t i = 0; i < count; i++) {
    double m = (double)(m0 + i);
    double window = m < rise ? 0.5 - 0.5 * (double)sine_d(m / rise * 0.5 + 0.25)
                             : 0.5 + 0.5 * (double)sine_d(fmin((m - rise) / fall, 1.0) * 0.5 + 0.25);
    float c = sine_d(increment * m + carrierOffset);
    out[i] += (float)(peak * window) * c;
  }
}

#define THRESHOLD 0.85f
#define CEILING 0.99f

static float limit(float x) {
  float magnitude = fabsf(x);
  if (magnitude <= THRESHOLD) return x;
  float headroom = CEILING - THRESHOLD;
  float y = THRESHOLD + headroom * tanhf((magnitude - THRESHOLD) / headroom);
  return x < 0 ? -y : y;
}

static inline __attribute__((always_inline)) hap_finish_result finish_body(
  float *restrict out, int32_t count, float gain, float peakBefore) {
  // Eight partial sums and maxima, so the loop vectorises; the limiter's rare frames are
  // redone afterwards.
  float sums[8] = {0}, peaks[8] = {0};
  int32_t i = 0;
  for (; i + 8 <= count; i += 8) {
    for (int j = 0; j < 8; j++) {
      float x = out[i + j] * gain;
      out[i + j] = x;
      float a = fabsf(x);
      peaks[j] = peaks[j] > a ? peaks[j] : a;
      sums[j] += x * x;
    }
  }
  for (; i < count; i++) {
    float x = out[i] * gain;
    out[i] = x;
    float a = fabsf(x);
    peaks[0] = peaks[0] > a ? peaks[0] : a;
    sums[0] += x * x;
  }
  float peak = 0, sum = 0;
  for (int j = 0; j < 8; j++) {
    peak = peak > peaks[j] ? peak : peaks[j];
    sum += sums[j];
  }
  hap_finish_result r = {peakBefore > peak ? peakBefore : peak, sum, 0};
  if (peak > THRESHOLD) {
    for (int32_t n = 0; n < count; n++) {
      float x = out[n];
      if (fabsf(x) > THRESHOLD) {
        float y = limit(x);
        out[n] = y;
        r.limited += 1;
        r.sumOfSquares += y * y - x * x;
      }
    }
  }
  return r;
}

#define AVX2 __attribute__((target("avx2,fma")))

static void linear_base(float *out, int32_t c, int32_t u0, int32_t k0, hap_segment g, float l, float s) {
  linear_body(out, c, u0, k0, g, l, s);
}
static AVX2 void linear_avx2(float *out, int32_t c, int32_t u0, int32_t k0, hap_segment g, float l, float s) {
  linear_body(out, c, u0, k0, g, l, s);
}
static void geometric_base(float *out, int32_t c, int32_t u0, int32_t k0, hap_segment g, float l, const float *p) {
  geometric_body(out, c, u0, k0, g, l, p);
}
static AVX2 void geometric_avx2(
  float *out, int32_t c, int32_t u0, int32_t k0, hap_segment g, float l, const float *p) {
  geometric_body(out, c, u0, k0, g, l, p);
}
static void transient_base(float *out, int32_t c, int64_t m0, double p, double r, double f, double i, double o) {
  transient_body(out, c, m0, p, r, f, i, o);
}
static AVX2 void transient_avx2(float *out, int32_t c, int64_t m0, double p, double r, double f, double i, double o) {
  transient_body(out, c, m0, p, r, f, i, o);
}
static hap_finish_result finish_base(float *out, int32_t c, float gain, float peak) {
  return finish_body(out, c, gain, peak);
}
static AVX2 hap_finish_result finish_avx2(float *out, int32_t c, float gain, float peak) {
  return finish_body(out, c, gain, peak);
}

#define GRID 32

// Renderer.renderContinuous's segment loop, within one envelope piece.
static inline __attribute__((always_inline)) void run_body(
  int avx2, float *out, int64_t first, int64_t from, int64_t to, int64_t voiceStart, const float *amplitudeGrid,
  const double *incrementGrid, int64_t gridFirst, double *phaseInOut, int32_t geometric, int64_t pieceStart,
  double pieceLevel, double pieceRate, const float *powers) {
  double phase = *phaseInOut;
  int64_t n = from;
  while (n < to) {
    int64_t gridStart = n & ~(int64_t)(GRID - 1);
    int64_t segmentStart = gridStart > voiceStart ? gridStart : voiceStart;
    int64_t segmentEnd = gridStart + GRID;
    int64_t runEnd = to < segmentEnd ? to : segmentEnd;
    int64_t k = gridStart / GRID - gridFirst;
    double increment = incrementGrid[k];
    double incrementStep = (incrementGrid[k + 1] - incrementGrid[k]) / (double)GRID;
    double startOffset = (double)(segmentStart - gridStart);
    float s = (float)startOffset;
    hap_segment g = {
      (float)phase, s, s * (s - 1.0f), (float)increment, (float)incrementStep, amplitudeGrid[k],
      (amplitudeGrid[k + 1] - amplitudeGrid[k]) / (float)GRID};
    int64_t anchor = gridStart > pieceStart ? gridStart : pieceStart;
    double kk = (double)(anchor - pieceStart);
    int32_t count = (int32_t)(runEnd - n);
    int32_t u0 = (int32_t)(n - gridStart);
    int32_t k0 = (int32_t)(n - anchor);
    if (geometric) {
      float level = (float)(pieceLevel * pow(pieceRate, kk));
      if (avx2) geometric_avx2(out + (n - first), count, u0, k0, g, level, powers);
      else geometric_base(out + (n - first), count, u0, k0, g, level, powers);
    } else {
      float level = (float)(pieceLevel + pieceRate * kk);
      if (avx2) linear_avx2(out + (n - first), count, u0, k0, g, level, (float)pieceRate);
      else linear_base(out + (n - first), count, u0, k0, g, level, (float)pieceRate);
    }
    if (runEnd == segmentEnd) {
      double u = (double)(segmentEnd - gridStart);
      phase = phase + increment * (u - startOffset)
        + incrementStep * (u * (u - 1) - startOffset * (startOffset - 1)) * 0.5;
      phase -= (double)(int64_t)phase;
    }
    n = runEnd;
  }
  *phaseInOut = phase;
}

void hap_add_run(
  hap_kernel kernel, float *out, int64_t first, int64_t from, int64_t to, int64_t voiceStart,
  const float *amplitudeGrid, const double *incrementGrid, int64_t gridFirst, double *phase, int32_t geometric,
  int64_t pieceStart, double pieceLevel, double pieceRate, const float *powers) {
  run_body(
    kernel == 1, out, first, from, to, voiceStart, amplitudeGrid, incrementGrid, gridFirst, phase, geometric,
    pieceStart, pieceLevel, pieceRate, powers);
}

static inline __attribute__((always_inline)) void encode_s16_body(
  const float *restrict samples, int16_t *restrict destination, int64_t count) {
  for (int64_t i = 0; i < count; i++) {
    float x = samples[i];
    float clamped = x > -1.0f ? x : -1.0f;  // Swift's max(x, -1) and min(_, 1), NaN aside
    clamped = clamped < 1.0f ? clamped : 1.0f;
    float v = clamped * 32767.0f;
    destination[i] = (int16_t)(int32_t)(v < 0 ? v - 0.5f : v + 0.5f);
  }
}
static void encode_s16_base(const float *samples, int16_t *destination, int64_t count) {
  encode_s16_body(samples, destination, count);
}
static AVX2 void encode_s16_avx2(const float *samples, int16_t *destination, int64_t count) {
  encode_s16_body(samples, destination, count);
}

void hap_encode_s16(hap_kernel kernel, const float *samples, int16_t *destination, int64_t count) {
  if (kernel == 1) encode_s16_avx2(samples, destination, count);
  else encode_s16_base(samples, destination, count);
}

int32_t hap_kernel_avx2_available(void) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 1 : 0;
#else
  return 0;
#endif
}

void hap_add_linear(
  hap_kernel kernel, float *out, int32_t count, int32_t u0, int32_t k0, hap_segment segment, float level,
  float slope) {
  if (kernel == 1) linear_avx2(out, count, u0, k0, segment, level, slope);
  else linear_base(out, count, u0, k0, segment, level, slope);
}

void hap_add_geometric(
  hap_kernel kernel, float *out, int32_t count, int32_t u0, int32_t k0, hap_segment segment, float level,
  const float *powers) {
  if (kernel == 1) geometric_avx2(out, count, u0, k0, segment, level, powers);
  else geometric_base(out, count, u0, k0, segment, level, powers);
}

void hap_add_transient(
  hap_kernel kernel, float *out, int32_t count, int64_t m0, double peak, double rise, double fall, double increment,
  double carrierOffset) {
  if (kernel == 1) transient_avx2(out, count, m0, peak, rise, fall, increment, carrierOffset);
  else transient_base(out, count, m0, peak, rise, fall, increment, carrierOffset);
}

hap_finish_result hap_finish(hap_kernel kernel, float *out, int32_t count, float gain, float peakBefore) {
  return kernel == 1 ? finish_avx2(out, count, gain, peakBefore) : finish_base(out, count, gain, peakBefore);
}
