import HapCore
import Testing

/// The just-in-time margin: widened by a period after an underrun, narrowed again after a clean
/// stretch, never below what was asked for, never past the buffer less a period.
@Suite struct JustInTimeMarginTests {
  /// The service's default: 1 ms periods of 48 frames, a 4 ms buffer, 2 periods asked for.
  static func service() -> JustInTimeMargin {
    JustInTimeMargin(base: 96, periodFrames: 48, bufferFrames: 192, rate: 48000)
  }

  /// Plays `seconds` of periods with the underrun count unchanged.
  static func play(_ margin: inout JustInTimeMargin, seconds: Double, underruns: Int) {
    for _ in 0..<Int(seconds * 1000) { margin.played(48, underruns: underruns) }
  }

  @Test func withoutUnderrunsItKeepsWhatWasAskedFor() {
    var margin = Self.service()
    Self.play(&margin, seconds: 10, underruns: 0)
    #expect(margin.wakeFrames == 96)
  }

  @Test func anUnderrunWidensByAPeriodAndACleanStretchNarrowsBack() {
    var margin = Self.service()
    margin.played(48, underruns: 1)
    // 3 periods of a 4-period buffer: the buffer kept full.
    #expect(margin.level == 144)
    #expect(margin.wakeFrames == nil)
    Self.play(&margin, seconds: 1.9, underruns: 1)
    #expect(margin.wakeFrames == nil)
    Self.play(&margin, seconds: 0.2, underruns: 1)
    #expect(margin.wakeFrames == 96)
    // Never below the base.
    Self.play(&margin, seconds: 30, underruns: 1)
    #expect(margin.wakeFrames == 96)
  }

  @Test func neverPastTheBufferLessAPeriod() {
    var margin = JustInTimeMargin(base: 48, periodFrames: 48, bufferFrames: 480, rate: 48000)
    for count in 1...20 { margin.played(48, underruns: count) }
    #expect(margin.level == 432)
    #expect(margin.wakeFrames == nil)
  }

  @Test func eachUnderrunDoublesTheCleanStretchUpToItsLongest() {
    var margin = Self.service()
    #expect(margin.relaxFrames == 2 * 48000)
    margin.played(48, underruns: 1)
    #expect(margin.relaxFrames == 2 * 48000)
    margin.played(48, underruns: 2)
    #expect(margin.relaxFrames == 4 * 48000)
    for count in 3...20 { margin.played(48, underruns: count) }
    #expect(margin.relaxFrames == JustInTimeMargin.longestRelaxSeconds * 48000)
    // Two periods over the base now: each takes a 64 s clean stretch to give back.
    Self.play(&margin, seconds: 63.9, underruns: 20)
    #expect(margin.level == 144)
    Self.play(&margin, seconds: 0.2, underruns: 20)
    #expect(margin.level == 96)
  }

  @Test func severalUnderrunsInOnePeriodWidenOnce() {
    var margin = JustInTimeMargin(base: 48, periodFrames: 48, bufferFrames: 480, rate: 48000)
    margin.played(48, underruns: 3)
    #expect(margin.level == 96)
  }

  /// An underrun in silence (the service between fires) is inaudible: counted, level unchanged.
  @Test func anUnderrunInSilenceLeavesTheLevelAlone() {
    var margin = Self.service()
    margin.played(48, underruns: 1, sounding: false)
    margin.played(48, underruns: 3, sounding: false)
    #expect(margin.wakeFrames == 96)
    #expect(margin.silentUnderruns == 3)
    // The next one while sound is queued widens, and only it counts.
    margin.played(48, underruns: 4, sounding: true)
    #expect(margin.level == 144)
    #expect(margin.relaxFrames == 2 * 48000)
  }

  @Test func aPeriodIsSilentOnlyWhenEveryPlaneIsZero() {
    let frames = PeriodFrames(allocating: 48)
    defer { frames.deallocate() }
    #expect(frames.isSilent)
    frames[.haptic][47] = 1e-30
    #expect(!frames.isSilent)
    frames.silence(from: 0)
    #expect(frames.isSilent)
  }
}
