/// The decimal digits at the start of eight bytes of text, read at once (SWAR: the eight bytes
/// as one 64-bit word), for the fraction of a number, which a pattern file writes hundreds of
/// thousands of times (`0.973163`).
struct JSONDigitRun {
  /// How many of the eight bytes are digits before the first that is not (0 to 8).
  let count: Int
  /// Those digits' value (`"973163,"`: 973163).
  let value: UInt64
  /// How many of those digits are `0` before the first that is not (`"0045"`: 2).
  let leadingZeros: Int

  /// 10 to the power of 0 through 8.
  static let powersOfTen: [UInt64] = [1, 10, 100, 1000, 10000, 100_000, 1_000_000, 10_000_000, 100_000_000]

  /// The run at `text`, which must have eight bytes readable.
  @inline(__always)
  init(_ text: UnsafePointer<UInt8>) {
    // Little-endian: the first byte is the lowest of the word.
    let word = UInt64(littleEndian: UnsafeRawPointer(text).loadUnaligned(as: UInt64.self))
    // A byte is a digit when its high nibble is 3 and, 6 added, still 3. A carry out of a byte
    // above 0xF9 reaches only the bytes after it, past the first that is not a digit.
    let nibbles = (word & 0xF0F0_F0F0_F0F0_F0F0) | (((word &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0) >> 4)
    let notDigits = JSONDigitRun.nonZeroBytes(nibbles ^ 0x3333_3333_3333_3333)
    count = notDigits == 0 ? 8 : notDigits.trailingZeroBitCount / 8
    guard count > 0 else {
      (value, leadingZeros) = (0, 0)
      return
    }
    // The digits' values, moved to the top of the word: the bytes below them read as leading
    // zeros of an eight-digit number.
    let digits = (word &- 0x3030_3030_3030_3030) << UInt64(8 * (8 - count))
    let nonZero = JSONDigitRun.nonZeroBytes(digits)
    leadingZeros = nonZero == 0 ? count : nonZero.trailingZeroBitCount / 8 - (8 - count)
    // Pairs of digits, then fours, then the eight (each step: high * 10^k + low, in place).
    var eight = (digits &* 2561) >> 8
    eight = ((eight & 0x00FF_00FF_00FF_00FF) &* 6_553_601) >> 16
    value = ((eight & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) >> 32
  }

  /// 0x80 in each byte of `word` that is not 0, 0 in the others.
  @inline(__always)
  private static func nonZeroBytes(_ word: UInt64) -> UInt64 {
    let low = 0x7F7F_7F7F_7F7F_7F7F as UInt64
    return (((word & low) &+ low) | word) & 0x8080_8080_8080_8080
  }
}
