#ifndef HAP_SCAN_H
#define HAP_SCAN_H

#include <stdint.h>

// The JSON parser's structural scan (HapFormat's JSONParser reads it): each 64-byte block of a
// file classified at once, with SIMD, into bit masks (bit j is the block's byte j). As the
// render kernels (CHapKernels) are, it is compiled twice from one source: for the baseline
// (SSE2 on x86-64, the target's own vectors elsewhere) and, through
// __attribute__((target("avx2"))), for AVX2, chosen at run time after a CPU check. Both give the
// same masks; the tests compare them. It allocates nothing and keeps no state of its own.

/// One 64-byte block's masks. Bytes past the end of the file read as NUL.
typedef struct {
  /// Space, tab, line feed, carriage return.
  uint64_t whitespace;
  /// Where a string's plain run stops: '"', '\\', a control byte (< 0x20) or a byte >= 0x80.
  uint64_t stop;
  /// Quotes not escaped by a backslash (an odd run of backslashes before them).
  uint64_t quote;
  /// Inside a string: from its opening quote up to, not including, its closing quote.
  uint64_t inString;
  /// '{', '}', '[', ']', ':' and ',' outside strings.
  uint64_t structural;
} hap_scan_block;

/// What carries from one block to the next: whether the next block's first byte is escaped,
/// and whether it is inside a string (all ones) or not (0). Zeroed at the start of a file.
typedef struct {
  uint64_t escaped;
  uint64_t inString;
} hap_scan_state;

/// 1 where this CPU runs the AVX2 variant, else 0.
int32_t hap_scan_avx2_available(void);

/// Scans blocks first ..< first + blockCount of bytes[0 ..< count] into out[0 ..< blockCount],
/// with the variant `kernel` (0 the baseline, 1 AVX2). `state` must be the state after block
/// first - 1 (zero for block 0), and is left as the state after the last block scanned.
void hap_scan_blocks(
  int32_t kernel, const uint8_t *bytes, int64_t count, int64_t first, int64_t blockCount, hap_scan_state *state,
  hap_scan_block *out);

#endif
