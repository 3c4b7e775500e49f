// The JSON parser's structural scan, compiled for the baseline and for AVX2 from one source.
// See include/CHapScan.h.
#include "CHapScan.h"
#include "CHapCPU.h"

#include <string.h>

#define ALWAYS_INLINE static inline __attribute__((always_inline))
// Vectors pass between always_inline helpers only, so none crosses a call between code
// compiled with and without AVX: the ABI warning does not apply.
#pragma clang diagnostic ignored "-Wpsabi"

// 32 bytes as one vector: clang splits it into two SSE2 registers or keeps it in one AVX2
// register. A comparison gives each lane all ones or zero, and the lanes make the mask
// (pmovmskb / vpmovmskb).
typedef uint8_t bytes32 __attribute__((ext_vector_type(32)));
typedef signed char signed32 __attribute__((ext_vector_type(32)));
typedef char lanes32 __attribute__((ext_vector_type(32)));  // what a comparison gives
typedef _Bool bits32 __attribute__((ext_vector_type(32)));

ALWAYS_INLINE uint64_t mask32(lanes32 lanes) {
  uint32_t mask = __builtin_bit_cast(uint32_t, __builtin_convertvector(lanes != 0, bits32));
  // The mask as a number here: left as lanes, clang carries them past the escape loop and
  // rebuilds them a byte at a time.
  __asm__("" : "+r"(mask));
  return mask;
}

/// The masks of one 32-byte half, at bit `shift` of each.
typedef struct {
  uint64_t whitespace, quote, backslash, special, operators;
} raw_masks;

ALWAYS_INLINE void classify(const uint8_t *p, int shift, raw_masks *m) {
  bytes32 v;
  memcpy(&v, p, 32);
  lanes32 whitespace = (v == ' ') | (v == '\t') | (v == '\n') | (v == '\r');
  // Control bytes and those of 0x80 and above: as signed bytes, below 0x20.
  lanes32 special = __builtin_bit_cast(signed32, v) < 0x20;
  bytes32 folded = v | 0x20;  // '[' and ']' fold onto '{' and '}'
  lanes32 operators = (folded == '{') | (folded == '}') | (v == ':') | (v == ',');
  m->whitespace |= mask32(whitespace) << shift;
  m->quote |= mask32(v == '"') << shift;
  m->backslash |= mask32(v == '\\') << shift;
  m->special |= mask32(special) << shift;
  m->operators |= mask32(operators) << shift;
}

/// Which bytes are escaped (follow an unescaped backslash). Backslashes are rare in patterns:
/// one step per escape, on the mask alone.
ALWAYS_INLINE uint64_t escaped_bytes(uint64_t backslash, uint64_t *carry) {
  uint64_t escaped = 0;
  if (*carry) {
    escaped = 1;
    backslash &= ~(uint64_t)1;  // an escaped backslash escapes nothing
  }
  *carry = 0;
  while (backslash) {
    int j = __builtin_ctzll(backslash);
    if (j == 63) {
      *carry = 1;
      break;
    }
    escaped |= (uint64_t)2 << j;
    backslash &= ~((uint64_t)3 << j);
  }
  return escaped;
}

/// Bit j set where an odd number of bits 0...j of x are set.
ALWAYS_INLINE uint64_t prefix_xor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

ALWAYS_INLINE void scan_block(const uint8_t *p, hap_scan_state *state, hap_scan_block *out) {
  raw_masks m = {0, 0, 0, 0, 0};
  classify(p, 0, &m);
  classify(p + 32, 32, &m);
  uint64_t whitespace = m.whitespace, quote = m.quote, backslash = m.backslash, special = m.special;
  uint64_t operators = m.operators;
  uint64_t unescaped = quote & ~escaped_bytes(backslash, &state->escaped);
  uint64_t inString = prefix_xor(unescaped) ^ state->inString;
  state->inString = (uint64_t)((int64_t)inString >> 63);
  out->whitespace = whitespace;
  out->stop = quote | backslash | special;
  out->quote = unescaped;
  out->inString = inString;
  out->structural = operators & ~inString;
}

ALWAYS_INLINE void scan_body(
  const uint8_t *bytes, int64_t count, int64_t first, int64_t blockCount, hap_scan_state *state,
  hap_scan_block *out) {
  for (int64_t k = 0; k < blockCount; k++) {
    int64_t at = (first + k) * 64;
    if (at + 64 <= count) {
      scan_block(bytes + at, state, out + k);
    } else {
      uint8_t tail[64] = {0};
      if (at < count) memcpy(tail, bytes + at, (size_t)(count - at));
      scan_block(tail, state, out + k);
    }
  }
}

#if defined(__x86_64__)
#define AVX2 __attribute__((target("avx2")))

static AVX2 void scan_avx2(
  const uint8_t *bytes, int64_t count, int64_t first, int64_t n, hap_scan_state *state, hap_scan_block *out) {
  scan_body(bytes, count, first, n, state, out);
}
#endif

static void scan_base(
  const uint8_t *bytes, int64_t count, int64_t first, int64_t n, hap_scan_state *state, hap_scan_block *out) {
  scan_body(bytes, count, first, n, state, out);
}

void hap_scan_blocks(
  int32_t kernel, const uint8_t *bytes, int64_t count, int64_t first, int64_t blockCount, hap_scan_state *state,
  hap_scan_block *out) {
#if defined(__x86_64__)
  if (kernel == 1) {
    scan_avx2(bytes, count, first, blockCount, state, out);
    return;
  }
#endif
  scan_base(bytes, count, first, blockCount, state, out);
}

int32_t hap_scan_avx2_available(void) { return hap_cpu_has_avx2(); }
