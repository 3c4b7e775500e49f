// The renderer's per-sample loops, compiled for the baseline and for AVX2 from one source.
// See include/CHapKernels.h. Both the continuous carrier (rotor_body) and the transient's burst
// (transient_rotor_body) are complex rotations, described in docs/rendering.md.
#include "CHapKernels.h"
#include "CHapCPU.h"

#include <math.h>

#pragma clang fp contract(off)
// 8-lane vectors (hap_v8) pass between always_inline helpers only, so no vector crosses a call
// between code compiled with and without AVX: the ABI warning does not apply.
#pragma clang diagnostic ignored "-Wpsabi"

// Swift's Float.pi (rounded toward zero), doubled.
#define TWO_PI_F (2.0f * 0x1.921fb4p+1f)
#define MAGIC 12582912.0f  // 1.5 * 2^23: adding and subtracting it rounds to an integer

#define THRESHOLD 0.85f
#define CEILING 0.99f

// The soft limiter (SoftLimiter in Renderer.swift): tanh z as (1 - e^-2z) / (1 + e^-2z), one
// expf where tanhf costs an expm1f and more.
float hap_limit(float x) {
  float magnitude = fabsf(x);
  if (magnitude <= THRESHOLD) return x;
  float headroom = CEILING - THRESHOLD;
  float e = expf(-2.0f * ((magnitude - THRESHOLD) / headroom));
  float y = THRESHOLD + headroom * ((1.0f - e) / (1.0f + e));
  return x < 0 ? -y : y;
}

typedef float hap_v8 __attribute__((vector_size(32)));
typedef int32_t hap_i8 __attribute__((vector_size(32)));

static inline __attribute__((always_inline)) hap_v8 load8(const float *p) {
  hap_v8 v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}

static inline __attribute__((always_inline)) void store8(float *p, hap_v8 v) {
  __builtin_memcpy(p, &v, sizeof v);
}

// The limiter on frame n, if it is above the threshold, counted in r.
static inline __attribute__((always_inline)) void limit_frame(float *restrict out, int32_t n, hap_finish_result *r) {
  float x = out[n];
  if (fabsf(x) > THRESHOLD) {
    float y = hap_limit(x);
    out[n] = y;
    r->limited += 1;
    r->sumOfSquares += y * y - x * x;
  }
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
    // The frames above the threshold, in order; eight at a time are passed over where none is.
    const hap_i8 magnitude = {0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff,
                              0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff};
    int32_t n = 0;
    for (; n + 8 <= count; n += 8) {
      hap_i8 above = (hap_v8)((hap_i8)load8(out + n) & magnitude) > THRESHOLD;
      if (__builtin_reduce_or(above) == 0) continue;
      for (int32_t j = n; j < n + 8; j++) limit_frame(out, j, &r);
    }
    for (; n < count; n++) limit_frame(out, n, &r);
  }
  return r;
}

#define AVX2 __attribute__((target("avx2,fma")))

static hap_finish_result finish_base(float *out, int32_t c, float gain, float peak) {
  return finish_body(out, c, gain, peak);
}
static AVX2 hap_finish_result finish_avx2(float *out, int32_t c, float gain, float peak) {
  return finish_body(out, c, gain, peak);
}

#define LANES 8

// The envelope of one call: level + slope k, or level powers[k] (geometric), k = k0, k0 + 1, ...
typedef struct {
  int32_t geometric;
  float level;
  float slope;
  const float *powers;
} hap_envelope;

// x less its nearest whole number of turns (-1/2 ... 1/2).
static inline __attribute__((always_inline)) double turn_fraction(double x) {
  return x - ((x + 6755399441055744.0) - 6755399441055744.0);
}

// Polynomials for sin f and cos f on [-pi/4, pi/4], of degree 7 and 6, with the coefficients
// that make the largest error smallest there (Remez; 1.8e-9 and 3.2e-8 in exact arithmetic):
// in Float they are as close as Taylor's of degree 9 and 8 were (6.0e-8 and 9.2e-8 against
// 6.0e-8 and 8.5e-8), with two multiplications and two additions fewer each.
#define SIN3 (-0x1.55554p-3f)
#define SIN5 (0x1.1105b4p-7f)
#define SIN7 (-0x1.98da64p-13f)
#define COS2 (-0x1.ffffbap-2f)
#define COS4 (0x1.553f94p-5f)
#define COS6 (-0x1.64756ep-10f)

// e^(2 pi i x) in each lane (x in cycles, |x| < 2^21): x is reduced to the nearest quarter
// turn, then the polynomials above on [-pi/4, pi/4] (error below 1e-7), and the quarter turn
// applied by swapping and negating.
static inline __attribute__((always_inline)) void cis8(hap_v8 x, hap_v8 *re, hap_v8 *im) {
  const hap_v8 magic = {MAGIC, MAGIC, MAGIC, MAGIC, MAGIC, MAGIC, MAGIC, MAGIC};
  hap_v8 quarters = x * 4.0f;
  hap_v8 q = (quarters + magic) - magic;  // the nearest integer
  hap_v8 f = (x - q * 0.25f) * TWO_PI_F;
  hap_v8 f2 = f * f;
  hap_v8 s = f * (1.0f + f2 * (SIN3 + f2 * (SIN5 + f2 * SIN7)));
  hap_v8 c = 1.0f + f2 * (COS2 + f2 * (COS4 + f2 * COS6));
  hap_i8 turn = __builtin_convertvector(q, hap_i8) & 3;
  hap_i8 swap = -(turn & 1);                   // all ones where a quarter or three quarters
  hap_i8 flipRe = ((turn + 1) & 2) << 30;      // the sign bit where a quarter or a half
  hap_i8 flipIm = (turn & 2) << 30;            // the sign bit where a half or three quarters
  hap_i8 si = (hap_i8)s, ci = (hap_i8)c;
  *re = (hap_v8)(((ci & ~swap) | (si & swap)) ^ flipRe);
  *im = (hap_v8)(((si & ~swap) | (ci & swap)) ^ flipIm);
}

// (re, im) times (byRe, byIm), lane by lane: a turn of each lane's phasor.
static inline __attribute__((always_inline)) void rotate(hap_v8 *re, hap_v8 *im, hap_v8 byRe, hap_v8 byIm) {
  hap_v8 r = *re * byRe - *im * byIm;
  *im = *re * byIm + *im * byRe;
  *re = r;
}

// The eight lanes of a grid segment's carrier: P, each lane's phasor at the first sub-block; G,
// each lane's turn from one sub-block to the next; E, G's own turn under a chirp.
typedef struct {
  hap_v8 pr, pi, gr, gi;
  float er, ei;
  int chirp;
} hap_lanes;

// From one sub-block of the continuous carrier to the next: each lane's phasor P turns by its
// rotation G, which itself turns by E under a chirp.
static inline __attribute__((always_inline)) void next_sub_block(hap_lanes *l) {
  rotate(&l->pr, &l->pi, l->gr, l->gi);
  if (l->chirp) rotate(&l->gr, &l->gi, (hap_v8){} + l->er, (hap_v8){} + l->ei);
}

// The segment's lanes at its phase (e(x) = e^(2 pi i x); see rotor_body):
// P_j = e(x(j)) and G_j = e(x(8 + j) - x(j)) = e(8 a + 28 step + 8 step j), a = increment + step s.
// Whole turns are taken out in Double where an argument can exceed one, so that Float keeps its
// precision for the fraction.
static inline __attribute__((always_inline)) void anchor_lanes(double phase, double ad, double step, hap_lanes *l) {
  const hap_v8 lane = {0, 1, 2, 3, 4, 5, 6, 7};
  float a = (float)ad, st = (float)step;
  cis8((float)phase + (a * lane + st * (lane * (lane - 1.0f) * 0.5f)), &l->pr, &l->pi);
  cis8((float)turn_fraction(8.0 * ad + 28.0 * step) + (8.0f * st) * lane, &l->gr, &l->gi);
}

// E = e(64 step), G's turn per sub-block under a chirp.
static inline __attribute__((always_inline)) void chirp_turn(double step, hap_lanes *l) {
  l->chirp = step != 0.0;
  l->er = 1.0f;
  l->ei = 0.0f;
  if (!l->chirp) return;
  double x = turn_fraction(64.0 * step);
  if (fabs(x) < 1.0 / 64) {
    // A small turn (every glide slower than a quarter of the band per millisecond at 48 kHz):
    // Taylor polynomials in Double, error below 2e-11.
    double t = x * (2.0 * 3.14159265358979323846), t2 = t * t;
    l->er = (float)(1.0 + t2 * (-0.5 + t2 * (1.0 / 24 + t2 * (-1.0 / 720))));
    l->ei = (float)(t * (1.0 + t2 * (-1.0 / 6 + t2 * (1.0 / 120))));
  } else {
    hap_v8 lanes = {(float)x, 0, 0, 0, 0, 0, 0, 0}, r, i;
    cis8(lanes, &r, &i);
    l->er = r[0];
    l->ei = i[0];
  }
}

// rotor_body's whole-segment case: the same operations on every lane as its general loop, so
// the samples are the same bits whichever path computed them.
static inline __attribute__((always_inline)) void rotor_whole(
  float *restrict out, const hap_lanes *l, float amplitude, float amplitudeStep, int32_t k0, hap_envelope envelope,
  int32_t grid, const int geometric, const int chirp) {
  const hap_v8 lane = {0, 1, 2, 3, 4, 5, 6, 7};
  hap_lanes t = *l;
  t.chirp = chirp;
  hap_v8 gain = amplitude + amplitudeStep * ((float)0 + lane);
  hap_v8 gainStep = (hap_v8){} + 8.0f * amplitudeStep;
  hap_v8 linear = envelope.level + envelope.slope * ((float)k0 + lane);
  hap_v8 linearStep = (hap_v8){} + 8.0f * envelope.slope;
#pragma clang loop unroll(full)
  for (int32_t base = 0; base < grid; base += LANES) {
    hap_v8 env = geometric ? envelope.level * load8(envelope.powers + k0 + base) : linear;
    store8(out + base, load8(out + base) + (gain * t.pi) * env);
    if (base + LANES == grid) break;
    gain += gainStep;
    linear += linearStep;
    next_sub_block(&t);
  }
}

// rotor_whole with its envelope's kind and the chirp as constants: the branches hoisted out of
// the sub-blocks.
static inline __attribute__((always_inline)) void rotor_segment(
  float *restrict out, const hap_lanes *l, float amplitude, float amplitudeStep, int32_t k0, hap_envelope envelope,
  int32_t grid) {
  if (envelope.geometric) {
    if (l->chirp) rotor_whole(out, l, amplitude, amplitudeStep, k0, envelope, grid, 1, 1);
    else rotor_whole(out, l, amplitude, amplitudeStep, k0, envelope, grid, 1, 0);
  } else {
    if (l->chirp) rotor_whole(out, l, amplitude, amplitudeStep, k0, envelope, grid, 0, 1);
    else rotor_whole(out, l, amplitude, amplitudeStep, k0, envelope, grid, 0, 0);
  }
}

// An envelope piece anchored kk frames after its start: level rate^kk (geometric, the powers
// after it from `powers`) or level + rate kk with the slope rate.
static inline __attribute__((always_inline)) hap_envelope piece_envelope(
  int32_t geometric, double pieceLevel, double pieceRate, double kk, const float *powers) {
  hap_envelope envelope = {geometric, 0, 0, powers};
  if (geometric) {
    envelope.level = (float)(pieceLevel * pow(pieceRate, kk));
  } else {
    envelope.level = (float)(pieceLevel + pieceRate * kk);
    envelope.slope = (float)pieceRate;
  }
  return envelope;
}

// One grid segment of a continuous voice, by complex rotation (e(x) = e^(2 pi i x)). The
// carrier at segment frame u (u = s + d, s the segment's first sounding frame) is sin(2 pi x(d)),
//   x(d) = phase + a d + step d (d - 1) / 2,   a = increment + step s.
// The segment is cut into sub-blocks of 8 lanes. Lane j of sub-block 0 starts at
// P_j = e(x(j)); from one sub-block to the next it turns by G_j = e(x(d + 8) - x(d))
// = e(8 a + 28 step + 8 step j + 64 step b), so G itself turns by E = e(64 step) under a chirp.
// `l` holds P, G and E at the segment's start (anchor_lanes, chirp_turn). Every value of
// sub-block b is reached by the same operations from there, whichever frame a call starts at, so
// the samples are a function of the frame index alone. Frames u0 ..< u0 + count are added
// (s <= u0, u0 + count <= grid); the sample is (amplitude + amplitudeStep u) carrier envelope(k),
// k counted from k0 at u0.
static inline __attribute__((always_inline)) void rotor_body(
  float *restrict out, int32_t count, int32_t u0, int32_t s, hap_lanes *l, float amplitude, float amplitudeStep,
  int32_t k0, hap_envelope envelope, int32_t grid) {
  if (s == 0 && u0 == 0 && count == grid) {
    // A whole segment: grid / 8 sub-blocks, no lane left out, the branches hoisted. (run_body
    // gives the renderer's whole segments to whole_segments; this serves a call whose piece
    // starts after `from`, which the renderer does not make.)
    rotor_segment(out, l, amplitude, amplitudeStep, k0, envelope, grid);
    return;
  }
  const hap_v8 lane = {0, 1, 2, 3, 4, 5, 6, 7};
  // The amplitude and a linear envelope go up by a step per sub-block from the first, s (k0 +
  // s - u0 for the envelope): the same values whichever frame the call starts at.
  hap_v8 gain = amplitude + amplitudeStep * ((float)s + lane);
  hap_v8 gainStep = (hap_v8){} + 8.0f * amplitudeStep;
  hap_v8 linear = envelope.level + envelope.slope * ((float)(k0 + s - u0) + lane);
  hap_v8 linearStep = (hap_v8){} + 8.0f * envelope.slope;
  int32_t end = u0 + count;
  for (int32_t base = s; base < end; base += LANES) {
    if (base + LANES > u0) {
      hap_v8 shaped = gain * l->pi;
      int32_t k = k0 + (base - u0);  // the envelope index of lane 0 (negative before u0)
      if (base >= u0 && base + LANES <= end) {
        hap_v8 env = envelope.geometric ? envelope.level * load8(envelope.powers + k) : linear;
        store8(out + (base - u0), load8(out + (base - u0)) + shaped * env);
      } else {
        int32_t from = base > u0 ? base : u0;
        int32_t to = base + LANES < end ? base + LANES : end;
        for (int32_t n = from; n < to; n++) {
          int32_t j = n - base;
          float env = envelope.geometric ? envelope.level * envelope.powers[k + j] : linear[j];
          out[n - u0] += shaped[j] * env;
        }
      }
    }
    if (base + LANES >= end) break;
    gain += gainStep;
    linear += linearStep;
    next_sub_block(l);
  }
}

// A transient's burst by rotation, like the continuous carrier: the carrier sin(2 pi (increment m
// + offset)), the rising half of the window 0.5 - 0.5 cos(pi m / rise) and the falling half
// 0.5 + 0.5 cos(pi (m - rise) / fall) (0 from rise + fall on) are three phasors per lane,
// computed at each multiple of 32 of m and turned by a constant rotation per sub-block of 8, so
// each sample is a function of m alone. Whole turns are taken out in Double.
static inline __attribute__((always_inline)) void transient_rotor_body(
  float *restrict out, int32_t count, int64_t m0, double peak, double rise, double fall, double increment,
  double carrierOffset) {
  const hap_v8 lane = {0, 1, 2, 3, 4, 5, 6, 7};
  const hap_i8 lanes = {0, 1, 2, 3, 4, 5, 6, 7};
  double riseTurns = 0.5 / rise, fallTurns = 0.5 / fall;  // turns of the window per frame
  int64_t riseEnd = (int64_t)ceil(rise), fallEnd = (int64_t)ceil(rise + fall);  // first m of each beyond
  hap_v8 stepRe, stepIm;
  hap_v8 steps = {(float)turn_fraction(8.0 * increment), (float)turn_fraction(8.0 * riseTurns),
                  (float)turn_fraction(8.0 * fallTurns), 0, 0, 0, 0, 0};
  cis8(steps, &stepRe, &stepIm);
  float cr = stepRe[0], ci = stepIm[0], rr = stepRe[1], ri = stepIm[1], fr = stepRe[2], fi = stepIm[2];
  int64_t end = m0 + count;
  for (int64_t anchor = m0 & ~(int64_t)31; anchor < end; anchor += 32) {
    hap_v8 pr, pi, wr, wi, vr, vi;
    cis8((float)turn_fraction(increment * (double)anchor + carrierOffset) + (float)increment * lane, &pr, &pi);
    cis8((float)turn_fraction(riseTurns * (double)anchor) + (float)riseTurns * lane, &wr, &wi);
    cis8((float)turn_fraction(fallTurns * ((double)anchor - rise)) + (float)fallTurns * lane, &vr, &vi);
    for (int64_t base = anchor; base < anchor + 32 && base < end; base += LANES) {
      if (base + LANES > m0) {
        hap_i8 m = (int32_t)(base - riseEnd) + lanes;   // m - riseEnd
        hap_i8 n = (int32_t)(base - fallEnd) + lanes;   // m - fallEnd
        hap_v8 rising = 0.5f - 0.5f * wr, falling = 0.5f + 0.5f * vr;
        hap_i8 isRising = m < 0, isSounding = n < 0;
        hap_i8 window = (((hap_i8)rising & isRising) | ((hap_i8)falling & ~isRising)) & isSounding;
        hap_v8 sample = (float)peak * (hap_v8)window * pi;
        if (base >= m0 && base + LANES <= end) {
          store8(out + (base - m0), load8(out + (base - m0)) + sample);
        } else {
          int64_t from = base > m0 ? base : m0, to = base + LANES < end ? base + LANES : end;
          for (int64_t k = from; k < to; k++) out[k - m0] += sample[k - base];
        }
      }
      rotate(&pr, &pi, (hap_v8){} + cr, (hap_v8){} + ci);
      rotate(&wr, &wi, (hap_v8){} + rr, (hap_v8){} + ri);
      rotate(&vr, &vi, (hap_v8){} + fr, (hap_v8){} + fi);
    }
  }
}

static void transient_base(float *out, int32_t c, int64_t m0, double p, double r, double f, double i, double o) {
  transient_rotor_body(out, c, m0, p, r, f, i, o);
}
static AVX2 void transient_avx2(float *out, int32_t c, int64_t m0, double p, double r, double f, double i, double o) {
  transient_rotor_body(out, c, m0, p, r, f, i, o);
}

// run_body's whole segments (grid frames from a grid point, after the voice's and the piece's
// start), from `n` to `end`: the same operations as run_body's general loop with s, u0 and k0 at
// 0, so the same bits, in a loop of their own with the grid a constant (the sub-blocks unrolled).
static inline __attribute__((always_inline)) void whole_segments(
  float *out, int64_t n, int64_t end, const float *amplitudeGrid, const double *incrementGrid, int64_t gridFirst,
  double *phaseInOut, int32_t geometric, int64_t pieceStart, double pieceLevel, double pieceRate,
  const float *powers, const int32_t gridShift) {
  const int32_t grid = 1 << gridShift;
  const double perGrid = 1.0 / (double)grid, u = (double)grid, turns = u * (u - 1);
  const float perGridF = 1.0f / (float)grid;
  double phase = *phaseInOut;
  for (; n < end; n += grid, out += grid) {
    int64_t k = (n >> gridShift) - gridFirst;
    double increment = incrementGrid[k];
    double incrementStep = (incrementGrid[k + 1] - incrementGrid[k]) * perGrid;
    float amplitude = amplitudeGrid[k];
    float amplitudeStep = (amplitudeGrid[k + 1] - amplitudeGrid[k]) * perGridF;
    double kk = (double)(n - pieceStart);
    hap_envelope envelope = piece_envelope(geometric, pieceLevel, pieceRate, kk, powers);
    hap_lanes lanes;
    // run_body's a = increment + incrementStep s is increment itself at s = 0, and its phase
    // step below the same with startOffset 0.
    anchor_lanes(phase, increment, incrementStep, &lanes);
    chirp_turn(incrementStep, &lanes);
    rotor_segment(out, &lanes, amplitude, amplitudeStep, 0, envelope, grid);
    phase = phase + increment * u + incrementStep * turns * 0.5;
    phase -= (double)(int64_t)phase;
  }
  *phaseInOut = phase;
}

// whole_segments with the grid a constant for the renderer's two grids (32 and 64 frames), and
// for any other a caller passes; the phase at `end`.
static inline __attribute__((always_inline)) double whole_run(
  float *out, int64_t n, int64_t end, const float *amplitudeGrid, const double *incrementGrid, int64_t gridFirst,
  double phase, int32_t geometric, int64_t pieceStart, double pieceLevel, double pieceRate, const float *powers,
  int32_t gridShift) {
  if (gridShift == 6)
    whole_segments(out, n, end, amplitudeGrid, incrementGrid, gridFirst, &phase, geometric, pieceStart, pieceLevel,
                   pieceRate, powers, 6);
  else if (gridShift == 5)
    whole_segments(out, n, end, amplitudeGrid, incrementGrid, gridFirst, &phase, geometric, pieceStart, pieceLevel,
                   pieceRate, powers, 5);
  else
    whole_segments(out, n, end, amplitudeGrid, incrementGrid, gridFirst, &phase, geometric, pieceStart, pieceLevel,
                   pieceRate, powers, gridShift);
  return phase;
}

// Renderer.renderContinuous's segment loop, within one envelope piece.
static inline __attribute__((always_inline)) void run_body(
  float *out, int64_t first, int64_t from, int64_t to, int64_t voiceStart, const float *amplitudeGrid,
  const double *incrementGrid, int64_t gridFirst, double *phaseInOut, int32_t geometric, int64_t pieceStart,
  double pieceLevel, double pieceRate, const float *powers, int32_t gridShift) {
  int64_t grid = (int64_t)1 << gridShift;
  double perGrid = 1.0 / (double)grid;
  float perGridF = 1.0f / (float)grid;
  double phase = *phaseInOut;
  int64_t n = from;
  while (n < to) {
    if ((n & (grid - 1)) == 0 && n >= voiceStart && n >= pieceStart && n + grid <= to) {
      // The whole segments from here (most of a voice's frames).
      int64_t end = to & ~(int64_t)(grid - 1);
      phase = whole_run(out + (n - first), n, end, amplitudeGrid, incrementGrid, gridFirst, phase, geometric,
                        pieceStart, pieceLevel, pieceRate, powers, gridShift);
      n = end;
      continue;
    }
    int64_t gridStart = n & ~(int64_t)(grid - 1);
    int64_t segment = gridStart >> gridShift;
    int64_t segmentStart = gridStart > voiceStart ? gridStart : voiceStart;
    int64_t segmentEnd = gridStart + grid;
    int64_t runEnd = to < segmentEnd ? to : segmentEnd;
    int64_t k = segment - gridFirst;
    double increment = incrementGrid[k];
    // grid is a power of two: multiplying by its reciprocal is the division, exactly (the same
    // bits), without a division's latency on the set-up's critical path.
    double incrementStep = (incrementGrid[k + 1] - incrementGrid[k]) * perGrid;
    double startOffset = (double)(segmentStart - gridStart);
    float amplitude = amplitudeGrid[k];
    float amplitudeStep = (amplitudeGrid[k + 1] - amplitudeGrid[k]) * perGridF;
    int64_t anchor = gridStart > pieceStart ? gridStart : pieceStart;
    double kk = (double)(anchor - pieceStart);
    int32_t count = (int32_t)(runEnd - n);
    int32_t u0 = (int32_t)(n - gridStart);
    int32_t k0 = (int32_t)(n - anchor);
    hap_envelope envelope = piece_envelope(geometric, pieceLevel, pieceRate, kk, powers);
    int32_t s = (int32_t)(segmentStart - gridStart);
    hap_lanes lanes;
    anchor_lanes(phase, increment + incrementStep * (double)s, incrementStep, &lanes);
    chirp_turn(incrementStep, &lanes);
    rotor_body(out + (n - first), count, u0, s, &lanes, amplitude, amplitudeStep, k0, envelope, (int32_t)grid);
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

#define RUN_PARAMETERS \
  float *out, int64_t first, int64_t from, int64_t to, int64_t voiceStart, const float *amplitudeGrid, \
    const double *incrementGrid, int64_t gridFirst, double *phase, int32_t geometric, int64_t pieceStart, \
    double pieceLevel, double pieceRate, const float *powers, int32_t gridShift
#define RUN_ARGUMENTS \
  out, first, from, to, voiceStart, amplitudeGrid, incrementGrid, gridFirst, phase, geometric, pieceStart, \
    pieceLevel, pieceRate, powers, gridShift

static void run_base(RUN_PARAMETERS) { run_body(RUN_ARGUMENTS); }
static AVX2 void run_avx2(RUN_PARAMETERS) { run_body(RUN_ARGUMENTS); }

void hap_add_run(
  hap_kernel kernel, float *out, int64_t first, int64_t from, int64_t to, int64_t voiceStart,
  const float *amplitudeGrid, const double *incrementGrid, int64_t gridFirst, double *phase, int32_t geometric,
  int64_t pieceStart, double pieceLevel, double pieceRate, const float *powers, int32_t gridShift) {
  if (kernel == 1) run_avx2(RUN_ARGUMENTS);
  else run_base(RUN_ARGUMENTS);
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

int32_t hap_kernel_avx2_available(void) { return hap_cpu_has_avx2_fma(); }

void hap_add_transient(
  hap_kernel kernel, float *out, int32_t count, int64_t m0, double peak, double rise, double fall, double increment,
  double carrierOffset) {
  if (kernel == 1) transient_avx2(out, count, m0, peak, rise, fall, increment, carrierOffset);
  else transient_base(out, count, m0, peak, rise, fall, increment, carrierOffset);
}

hap_finish_result hap_finish(hap_kernel kernel, float *out, int32_t count, float gain, float peakBefore) {
  return kernel == 1 ? finish_avx2(out, count, gain, peakBefore) : finish_base(out, count, gain, peakBefore);
}

// The table's value at x (clamped to 0...1), interpolated linearly between its `size` + 1
// points. The same operations as the Swift it replaced (Renderer.lookup), so the same bits.
static inline __attribute__((always_inline)) double lookup(const double *table, int32_t size, double x) {
  double clamped = 0 >= x ? 0 : x;  // Swift's max(x, 0) and min(_, 1)
  clamped = 1 < clamped ? 1 : clamped;
  double position = clamped * (double)size;
  int64_t index = (int64_t)position;
  double fraction = position - (double)index;
  double a = table[index];
  return a + (table[index + 1] - a) * fraction;
}

static inline __attribute__((always_inline)) void fill_grid_body(
  int32_t count, const double *restrict intensityGrid, const double *restrict sharpnessGrid, double intensity,
  double sharpness, const double *restrict amplitudeTable, const double *restrict incrementTable, int32_t tableSize,
  float *restrict amplitudeGrid, double *restrict incrementGrid, double *lowest, double *highest) {
  double low = *lowest, high = *highest;
  for (int32_t g = 0; g < count; g++) {
    amplitudeGrid[g] = (float)lookup(amplitudeTable, tableSize, intensity * intensityGrid[g]);
    double increment = lookup(incrementTable, tableSize, sharpness + sharpnessGrid[g]);
    incrementGrid[g] = increment;
    low = increment < low ? increment : low;  // Swift's min(low, increment)
    high = high >= increment ? high : increment;  // Swift's max(high, increment)
  }
  *lowest = low;
  *highest = high;
}

#define GRID_PARAMETERS \
  int32_t count, const double *intensityGrid, const double *sharpnessGrid, double intensity, double sharpness, \
    const double *amplitudeTable, const double *incrementTable, int32_t tableSize, float *amplitudeGrid, \
    double *incrementGrid, double *lowest, double *highest
#define GRID_ARGUMENTS \
  count, intensityGrid, sharpnessGrid, intensity, sharpness, amplitudeTable, incrementTable, tableSize, \
    amplitudeGrid, incrementGrid, lowest, highest

static void fill_grid_base(GRID_PARAMETERS) { fill_grid_body(GRID_ARGUMENTS); }
static AVX2 void fill_grid_avx2(GRID_PARAMETERS) { fill_grid_body(GRID_ARGUMENTS); }

void hap_fill_grid(hap_kernel kernel, GRID_PARAMETERS) {
  if (kernel == 1) fill_grid_avx2(GRID_ARGUMENTS);
  else fill_grid_base(GRID_ARGUMENTS);
}
