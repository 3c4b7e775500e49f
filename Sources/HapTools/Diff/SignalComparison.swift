import FoundationEssentials
import Glibc
import HapFormat
import HapPlayback
import HapRender

/// Compares the drive signals of two patterns, rendered with the same profile and rate.
///
/// Both are streamed block by block in lockstep (constant memory); the shorter is padded with
/// silence. PSNR is measured over the full-scale range -1...1 (a peak-to-peak range of 2):
/// `PSNR = 10 log10(2² / MSE)`. Identical signals report ``identicalPSNR`` (100 dB), as the
/// MPEG haptics reference software does, and no PSNR is ever reported above it.
public struct SignalComparison: Sendable {
  public static let identicalPSNR = 100.0

  public struct Levels: Sendable, Equatable {
    public var peak: Double
    public var rms: Double
    public var duration: Double
  }

  public let old: Levels
  public let new: Levels
  /// Largest |old - new| over all samples.
  public let maximumDifference: Double
  /// RMS of old - new.
  public let differenceRMS: Double
  /// Peak signal-to-noise ratio in dB, capped at 100.
  public let psnr: Double
  /// Peak level in each of `columns` slices of the longer signal, for the side-by-side timeline.
  public let oldTimeline: [Double]
  public let newTimeline: [Double]

  public init(_ a: Pattern, _ b: Pattern, profile: ActuatorProfile = .exciter, rate: Double = 48000, columns: Int = 60)
  {
    let first = Renderer(schedule: Schedule(pattern: a, profile: profile, rate: rate))
    let second = Renderer(schedule: Schedule(pattern: b, profile: profile, rate: rate))
    let total = max(first.frameCount, second.frameCount)
    let tally = SignalComparison.compare(first, second, total: total, columns: PatternSummary.clampColumns(columns))
    self.init(tally, frames: (first.frameCount, second.frameCount), rate: rate, channels: 1)
  }

  /// The audio tracks of two patterns (issue 21), compiled at the same rate, compared as the
  /// haptic signals are: both rendered (``AudioRenderer``) in lockstep, the shorter padded with
  /// silence, over every sample of both channels (PSNR over the same -1...1 range).
  public init(audio a: AudioSchedule, _ b: AudioSchedule, columns: Int = 60) {
    let first = AudioRenderer(schedule: a)
    let second = AudioRenderer(schedule: b)
    let total = max(first.frameCount, second.frameCount)
    let tally = SignalComparison.compare(first, second, total: total, columns: PatternSummary.clampColumns(columns))
    self.init(tally, frames: (first.frameCount, second.frameCount), rate: a.rate, channels: 2)
  }

  /// From the tally over `channels` samples a frame of signals `frames` long.
  private init(_ tally: Tally, frames lengths: (Int, Int), rate: Double, channels: Int) {
    let samples = Double(max(max(lengths.0, lengths.1) * channels, 1))
    // Each signal's RMS is over its own length; the difference is over the longer one.
    old = Levels(
      peak: tally.peakA, rms: (tally.sumA / Double(max(lengths.0 * channels, 1))).squareRoot(),
      duration: Double(lengths.0) / rate)
    new = Levels(
      peak: tally.peakB, rms: (tally.sumB / Double(max(lengths.1 * channels, 1))).squareRoot(),
      duration: Double(lengths.1) / rate)
    maximumDifference = tally.maxD
    differenceRMS = (tally.sumD / samples).squareRoot()
    let mse = tally.sumD / samples
    psnr = mse == 0 ? SignalComparison.identicalPSNR : min(SignalComparison.identicalPSNR, 10 * log10(4 / mse))
    oldTimeline = tally.timelineA
    newTimeline = tally.timelineB
  }

  /// Peaks, sums of squares and timeline peaks of two signals (A and B) and of their difference
  /// (D), added up block by block.
  private struct Tally {
    var peakA = 0.0, peakB = 0.0, sumA = 0.0, sumB = 0.0, sumD = 0.0, maxD = 0.0
    var timelineA: [Double]
    var timelineB: [Double]

    init(columns: Int) {
      timelineA = [Double](repeating: 0, count: columns)
      timelineB = [Double](repeating: 0, count: columns)
    }

    /// Adds `count` samples of each signal, from frame `position` of `total`.
    mutating func add(
      _ x: UnsafeMutableBufferPointer<Float>, _ y: UnsafeMutableBufferPointer<Float>, count: Int, position: Int,
      total: Int
    ) {
      let columns = timelineA.count
      for k in 0..<count {
        let p = Double(x[k])
        let q = Double(y[k])
        peakA = max(peakA, abs(p))
        peakB = max(peakB, abs(q))
        sumA += p * p
        sumB += q * q
        let d = p - q
        sumD += d * d
        maxD = max(maxD, abs(d))
        let column = total == 0 ? 0 : min(columns - 1, (position + k) * columns / total)
        timelineA[column] = max(timelineA[column], abs(p))
        timelineB[column] = max(timelineB[column], abs(q))
      }
    }
  }

  /// Streams both renderers in lockstep over `total` frames (the shorter padded with silence),
  /// skipping where both are silent.
  private static func compare(_ first: Renderer, _ second: Renderer, total: Int, columns: Int) -> Tally {
    var tally = Tally(columns: columns)
    let block = 4096
    let x = UnsafeMutableBufferPointer<Float>.allocate(capacity: block)
    let y = UnsafeMutableBufferPointer<Float>.allocate(capacity: block)
    defer {
      x.deallocate()
      y.deallocate()
    }
    var position = 0
    while position < total {
      // Where both are silent, skip: zeros change no sum, peak or timeline column.
      let quiet = min(
        first.remaining > 0 ? first.silentFrames : .max, second.remaining > 0 ? second.silentFrames : .max,
        total - position)
      if quiet > 0 {
        first.skipSilence(quiet)
        second.skipSilence(quiet)
        position += quiet
        continue
      }
      let count = min(block, total - position)
      let slice = { (buffer: UnsafeMutableBufferPointer<Float>) in
        UnsafeMutableBufferPointer(rebasing: buffer[0..<count])
      }
      let gotA = first.render(into: slice(x))
      let gotB = second.render(into: slice(y))
      for k in gotA..<count { x[k] = 0 }
      for k in gotB..<count { y[k] = 0 }
      tally.add(x, y, count: count, position: position, total: total)
      position += count
    }
    return tally
  }

  /// Streams two audio tracks in lockstep over `total` frames, interleaved stereo (the
  /// shorter padded with silence); the tally counts samples, its timeline spans the frames.
  private static func compare(_ first: AudioRenderer, _ second: AudioRenderer, total: Int, columns: Int) -> Tally {
    var tally = Tally(columns: columns)
    let block = 4096
    let x = UnsafeMutableBufferPointer<Float>.allocate(capacity: 2 * block)
    let y = UnsafeMutableBufferPointer<Float>.allocate(capacity: 2 * block)
    defer {
      x.deallocate()
      y.deallocate()
    }
    var position = 0
    while position < total {
      let count = min(block, total - position)
      let gotA = first.render(into: UnsafeMutableBufferPointer(rebasing: x[0..<2 * count]))
      let gotB = second.render(into: UnsafeMutableBufferPointer(rebasing: y[0..<2 * count]))
      for k in 2 * gotA..<2 * count { x[k] = 0 }
      for k in 2 * gotB..<2 * count { y[k] = 0 }
      tally.add(x, y, count: 2 * count, position: 2 * position, total: 2 * total)
      position += count
    }
    return tally
  }

  /// A level in dBFS (-inf for silence).
  public static func decibels(_ level: Double) -> Double { level > 0 ? 20 * log10(level) : -.infinity }
}
