import FoundationEssentials
import Glibc
import HapFormat
import HapPlayback
import HapRender

/// Whether two patterns feel the same, judged as a person feels a vibration rather than sample by
/// sample (PSNR follows the carrier's phase: the same envelope and frequency with another phase
/// scores low). Both are rendered (streamed, with the same profile and rate) and compared frame by
/// frame on what the skin resolves (the README's `hap diff`; `../shared/notes/perceptual-metrics.md`):
///
/// - **level:** the envelope, RMS over 5 ms frames; a frame differs when no frame of the other
///   signal within ``timeTolerance`` (5 ms: touch and sound feel simultaneous within it) is within
///   ``levelThreshold`` (2.2 dB, the amplitude change a person notices);
/// - **frequency:** the dominant frequency of 20 ms frames (upward zero crossings); a frame
///   differs when the two are more than ``frequencyThreshold`` (18 %, the Weber fraction) apart;
/// - only frames above ``floor`` (−40 dB under the louder signal's loudest frame) are judged, and
///   the two feel the same when at most ``tolerated`` (5 %) of the judged frames differ in level and
///   at most as many in frequency;
/// - a frame below the detection threshold at its frequency (``PerceptualMetrics/detectionLevel(frequency:)``,
///   vibromaf's curve: lowest at 250 Hz) is nothing felt, as silence is: two patterns too faint
///   to feel feel the same, silence included.
public struct FeelComparison: Sendable, Equatable {
  public static let levelThreshold = 2.2
  public static let frequencyThreshold = 0.18
  public static let timeTolerance = 0.005
  public static let floor = -40.0
  public static let tolerated = 0.05
  static let levelFrame = 0.005
  static let frequencyFrame = 0.02

  /// Frames judged and frames that differ, by level and by frequency.
  public let levelFrames: Int
  public let levelDiffering: Int
  public let frequencyFrames: Int
  public let frequencyDiffering: Int
  /// The median level change (dB, new against old) and frequency ratio over the judged frames.
  public let medianLevelChange: Double
  public let medianFrequencyRatio: Double
  /// ST-SIM and SPQI of the new signal against the old (``PerceptualMetrics``, over the first
  /// ``measuredSeconds`` at 8 kHz); nil for signals too short to measure (under 64 ms).
  public var stsim: Double? = nil
  public var spqi: Double? = nil
  /// The seconds ST-SIM and SPQI measure, from the start (the memory they take is bounded).
  public static let measuredSeconds = 60.0

  public var sameFeel: Bool {
    Double(levelDiffering) <= Self.tolerated * Double(levelFrames)
      && Double(frequencyDiffering) <= Self.tolerated * Double(frequencyFrames)
  }

  public init(_ a: Pattern, _ b: Pattern, profile: ActuatorProfile = .exciter, rate: Double = 48000) {
    let first = Features(Renderer(schedule: Schedule(pattern: a, profile: profile, rate: rate)), rate: rate)
    let second = Features(Renderer(schedule: Schedule(pattern: b, profile: profile, rate: rate)), rate: rate)
    self.init(first, second, rate: rate)
    (stsim, spqi) = Self.measures(first.head, second.head, rate: rate)
  }

  /// ST-SIM and SPQI of `new` against `old` (both from the start, padded to the same length).
  static func measures(_ old: [Float], _ new: [Float], rate: Double) -> (Double?, Double?) {
    let count = max(old.count, new.count)
    let reference = PerceptualMetrics.downsampled(old + [Float](repeating: 0, count: count - old.count), from: rate)
    let test = PerceptualMetrics.downsampled(new + [Float](repeating: 0, count: count - new.count), from: rate)
    let stsim = try? PerceptualMetrics.stsim(reference: reference, test: test)
    let spqi = try? PerceptualMetrics.spqi(reference: reference, test: test)
    return (stsim, spqi)
  }

  init(_ a: Features, _ b: Features, rate: Double) {
    let (a, b) = (a.felt, b.felt)
    let loudest = max(a.levels.max() ?? 0, b.levels.max() ?? 0)
    let floor = loudest * pow(10, Self.floor / 20)
    let reach = max(1, Int((Self.timeTolerance / Self.levelFrame).rounded()))
    var (judged, differing) = (0, 0)
    var changes: [Double] = []
    for k in 0..<max(a.levels.count, b.levels.count) {
      let x = k < a.levels.count ? a.levels[k] : 0
      let y = k < b.levels.count ? b.levels[k] : 0
      guard max(x, y) > floor else { continue }
      judged += 1
      if x > 0 && y > 0 { changes.append(20 * log10(y / x)) }
      if !Self.matches(x, b.levels, around: k, reach: reach, floor: floor)
        || !Self.matches(y, a.levels, around: k, reach: reach, floor: floor)
      {
        differing += 1
      }
    }
    (levelFrames, levelDiffering) = (judged, differing)
    medianLevelChange = Self.median(changes) ?? 0
    var ratios: [Double] = []
    var frequencyDiffering = 0
    let step = Int((Self.frequencyFrame / Self.levelFrame).rounded())
    for k in 0..<min(a.frequencies.count, b.frequencies.count) {
      let loud = (k * step..<(k + 1) * step).contains { max(a.level($0), b.level($0)) > floor }
      guard loud, let x = a.frequencies[k], let y = b.frequencies[k] else { continue }
      ratios.append(y / x)
      if abs(y / x - 1) > Self.frequencyThreshold { frequencyDiffering += 1 }
    }
    (frequencyFrames, self.frequencyDiffering) = (ratios.count, frequencyDiffering)
    medianFrequencyRatio = Self.median(ratios) ?? 1
  }

  /// Whether `level` is within the level threshold of some frame of `other` within `reach` of
  /// frame `k` (both under the floor also match).
  static func matches(_ level: Double, _ other: [Double], around k: Int, reach: Int, floor: Double) -> Bool {
    for j in max(0, k - reach)...(k + reach) {
      let y = j < other.count ? other[j] : 0
      if level <= floor && y <= floor { return true }
      if level > 0 && y > 0 && abs(20 * log10(y / level)) <= levelThreshold { return true }
    }
    return false
  }

  static func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
  }

  /// One rendered signal's envelope (5 ms RMS) and dominant frequency (20 ms frames; nil with
  /// fewer than two upward zero crossings), measured while it streams: memory grows with the
  /// frames (400 a second), not the samples.
  struct Features {
    var levels: [Double] = []
    var frequencies: [Double?] = []
    /// The samples of the first ``FeelComparison/measuredSeconds``.
    var head: [Float] = []

    func level(_ k: Int) -> Double { k < levels.count ? levels[k] : 0 }

    /// The features with each level frame below the detection threshold at its 20 ms frame's
    /// frequency set to 0: what is felt.
    var felt: Features {
      var copy = self
      let step = Int((FeelComparison.frequencyFrame / FeelComparison.levelFrame).rounded())
      for k in copy.levels.indices {
        let frequency = k / step < frequencies.count ? frequencies[k / step] : nil
        if copy.levels[k] < PerceptualMetrics.detectionLevel(frequency: frequency) { copy.levels[k] = 0 }
      }
      return copy
    }

    init(_ renderer: Renderer, rate: Double) {
      let window = max(1, Int((FeelComparison.levelFrame * rate).rounded()))
      let frame = window * Int((FeelComparison.frequencyFrame / FeelComparison.levelFrame).rounded())
      var buffer = [Float](repeating: 0, count: frame)
      var previous: Float = 0
      while renderer.remaining > 0 {
        let count = buffer.withUnsafeMutableBufferPointer { renderer.render(into: $0) }
        guard count > 0 else { break }
        for start in stride(from: 0, to: count, by: window) {
          let end = min(count, start + window)
          var sum = 0.0
          for n in start..<end { sum += Double(buffer[n]) * Double(buffer[n]) }
          levels.append((sum / Double(end - start)).squareRoot())
        }
        frequencies.append(Self.frequency(buffer[0..<count], previous: previous, rate: rate))
        let kept = Int(FeelComparison.measuredSeconds * rate) - head.count
        if kept > 0 { head += buffer[0..<min(count, kept)] }
        previous = buffer[count - 1]
      }
    }

    /// The frequency from the upward zero crossings of `samples` (interpolated between samples).
    static func frequency(_ samples: ArraySlice<Float>, previous: Float, rate: Double) -> Double? {
      var first: Double?
      var last = 0.0
      var crossings = 0
      var before = previous
      for (offset, x) in samples.enumerated() {
        if before < 0 && x >= 0 {
          let at = Double(offset - 1) + Double(-before) / Double(x - before)
          if first == nil { first = at }
          last = at
          crossings += 1
        }
        before = x
      }
      guard let first, crossings >= 2, last > first else { return nil }
      return Double(crossings - 1) / ((last - first) / rate)
    }
  }
}
