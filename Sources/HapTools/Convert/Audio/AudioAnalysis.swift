import FoundationEssentials
import Glibc
import HapFormat
import HapPlayback
import HapRender

/// What a designer tunes when hap turns a sound into a pattern (`hap convert`'s options).
public struct AudioConversionOptions: Sendable, Equatable {
  /// Onset sensitivity, 0...1 (default 0.5): higher finds softer onsets. The onset threshold is
  /// `0.05 + 0.25 × (1 − sensitivity)` above the local mean of the onset function.
  public var sensitivity = 0.5
  /// Envelope smoothing in seconds, 0...1 (default 0.05): the width of the centred moving
  /// average over the 10 ms loudness frames (0: none).
  public var smoothing = 0.05
  /// Whether onsets become `HapticTransient`s (`--no-transients`).
  public var transients = true
  /// Whether the loudness envelope becomes `HapticContinuous` events (`--no-continuous`).
  public var continuous = true
  /// Gain in dB, -60...+24 (default 0), as if the sound were that much louder: every intensity
  /// (envelope and transients) is multiplied by ``intensityFactor``, 10^(gain / 30), so that
  /// the rendered amplitude (intensity^1.5) rises by `gain` dB; results are clamped to 1.
  public var gain = 0.0

  public var intensityFactor: Double { pow(10, gain / 30) }

  public static let sensitivityRange = 0.0...1.0
  public static let smoothingRange = 0.0...1.0
  public static let gainRange = -60.0...24.0

  public init() {}
}

/// The analysis of a sound, each step documented in docs/convert.md: onsets (energy rise in a
/// perceptual dB scale, adaptive threshold, minimum gap), the loudness envelope (RMS, perceptual
/// scale), the spectral centroid (brightness), and the spans that are not silent.
public struct AudioAnalysis: Sendable {
  /// Hop of the onset function (seconds).
  public static let onsetHop = 0.005
  /// Hop of the loudness and brightness frames (seconds), and the RMS window around each.
  public static let frameHop = 0.01
  public static let rmsWindow = 0.02
  /// The onset function's scale: dB below the sound's loudest 10 ms mapped onto 1...0.
  public static let onsetRangeDB = 60.0
  /// Half the window of the onset threshold's local mean (seconds).
  public static let thresholdHalfWindow = 0.1
  /// The shortest time between two onsets (seconds).
  public static let minimumGap = 0.05
  /// A frame is silent when its RMS is below both this level (dBFS)...
  public static let silenceFloorDB = -60.0
  /// ...or this far below the loudest frame (dB).
  public static let silenceRelativeDB = -40.0
  /// Silent gaps shorter than this (seconds) do not split a sounding span.
  public static let mergeGap = 0.05
  /// A swell is not an attack: an onset whose sound keeps rising for more than this (dB) after
  /// its first ``attackWindow`` is the start of a fade-in or a swell, which the continuous
  /// events follow, not a transient's jolt.
  public static let swellRiseDB = 10.0
  /// How long an attack takes to reach its level (seconds).
  public static let attackWindow = 0.03
  /// How far after an onset a swell's rise is followed (seconds).
  public static let swellWindow = 0.3
  /// Spectral centroids mapped onto sharpness 0...1, logarithmically.
  public static let centroidLow = 150.0
  public static let centroidHigh = 6000.0

  public struct Onset: Sendable, Equatable {
    /// Seconds from the start of the sound.
    public var time: Double
    /// The rise of the onset function, 0...1 (1: from silence to the sound's loudest).
    public var strength: Double
    /// Sharpness from the spectral centroid of the window starting at the onset.
    public var sharpness: Double
  }

  public var onsets: [Onset] = []
  /// Frame times (k × ``frameHop``), with the frame's perceptual level (0...1, gain applied),
  /// sharpness (0...1) and whether it is silent.
  public var frameTimes: [Double] = []
  public var levels: [Double] = []
  public var sharpness: [Double] = []
  public var silent: [Bool] = []
  /// The spans that sound, (first frame, last frame).
  public var spans: [ClosedRange<Int>] = []
  /// Where each span's sound starts (seconds): its first sample above the silence floor, so
  /// that the touch never leads the sound (the frames' RMS window and smoothing reach earlier).
  public var spanStarts: [Double] = []
  public var duration: Double = 0

  public init(_ signal: AudioSignal, options: AudioConversionOptions) {
    duration = signal.duration
    guard signal.rate > 0, !signal.samples.isEmpty else { return }
    let squares = Self.prefixSquares(signal.samples)
    envelope(signal, squares: squares, options: options)
    if !spans.isEmpty {
      let spectrum = Spectrum(rate: signal.rate)
      brightness(signal, spectrum: spectrum)
      if options.transients { findOnsets(signal, squares: squares, spectrum: spectrum, options: options) }
    }
  }

  static func prefixSquares(_ x: [Float]) -> [Double] {
    var sums = [Double](repeating: 0, count: x.count + 1)
    var total = 0.0
    for k in 0..<x.count {
      total += Double(x[k]) * Double(x[k])
      sums[k + 1] = total
    }
    return sums
  }

  static func meanSquare(_ squares: [Double], _ from: Int, _ to: Int) -> Double {
    let a = max(0, min(from, squares.count - 1))
    let b = max(0, min(to, squares.count - 1))
    return b > a ? max(0, squares[b] - squares[a]) / Double(b - a) : 0
  }

  /// Loudness: RMS over ``rmsWindow`` centred on each frame, smoothed by a centred moving
  /// average of `smoothing` seconds; level = 10^(gain/30) × (RMS / loudest RMS)^(2/3), so that the
  /// renderer's amplitude (intensity^1.5) follows the sound's RMS; silence and sounding spans.
  mutating func envelope(_ signal: AudioSignal, squares: [Double], options: AudioConversionOptions) {
    let hop = signal.rate * Self.frameHop
    let count = Int((Double(signal.samples.count) / hop).rounded(.up))
    let half = Int((signal.rate * Self.rmsWindow / 2).rounded())
    var rms = [Double](repeating: 0, count: count)
    for k in 0..<count {
      let centre = Int((Double(k) * hop).rounded())
      rms[k] = Self.meanSquare(squares, centre - half, centre + half).squareRoot()
    }
    let width = Int((options.smoothing / Self.frameHop).rounded())
    if width > 1 {
      var sums = [Double](repeating: 0, count: count + 1)
      for k in 0..<count { sums[k + 1] = sums[k] + rms[k] }
      let h = width / 2
      rms = (0..<count).map { k in
        let a = max(0, k - h)
        let b = min(count, k + h + 1)
        return (sums[b] - sums[a]) / Double(b - a)
      }
    }
    frameTimes = (0..<count).map { Double($0) * Self.frameHop }
    let loudest = rms.max() ?? 0
    let floor = max(pow(10, Self.silenceFloorDB / 20), loudest * pow(10, Self.silenceRelativeDB / 20))
    silent = rms.map { $0 < floor }
    levels = rms.map { loudest > 0 ? min(1, options.intensityFactor * pow($0 / loudest, 2.0 / 3)) : 0 }
    let gap = Int((Self.mergeGap / Self.frameHop).rounded())
    var k = 0
    while k < count {
      guard !silent[k] else {
        k += 1
        continue
      }
      var end = k
      var j = k + 1
      while j < count && j - end <= gap {
        if !silent[j] { end = j }
        j += 1
      }
      spans.append(k...end)
      k = end + 1
    }
    spanStarts = spans.map { Self.soundStart(signal, frame: $0.lowerBound, floor: floor, options: options) }
  }

  /// The first sample whose magnitude reaches `floor` from where frame `frame`'s smoothed RMS
  /// window begins; the frame's time if none does.
  static func soundStart(_ signal: AudioSignal, frame: Int, floor: Double, options: AudioConversionOptions) -> Double {
    let time = Double(frame) * frameHop
    let reach = rmsWindow / 2 + options.smoothing / 2 + frameHop
    let from = max(0, Int(((time - reach) * signal.rate).rounded(.down)))
    let to = min(signal.samples.count, Int(((time + reach) * signal.rate).rounded(.up)))
    guard from < to else { return time }
    for k in from..<to where Double(abs(signal.samples[k])) >= floor { return Double(k) / signal.rate }
    return time
  }

  /// Sharpness per frame from the spectral centroid (Hann window of ``Spectrum/size`` samples
  /// centred on the frame); silent frames hold the nearest sounding frame's value.
  mutating func brightness(_ signal: AudioSignal, spectrum: Spectrum) {
    var spectrum = spectrum
    let hop = signal.rate * Self.frameHop
    sharpness = [Double](repeating: -1, count: frameTimes.count)
    for span in spans {
      for k in span {
        let start = Int((Double(k) * hop).rounded()) - spectrum.size / 2
        sharpness[k] = Self.sharpness(centroid: spectrum.centroid(signal.samples, from: start))
      }
    }
    var last = sharpness.first { $0 >= 0 } ?? 0
    for k in sharpness.indices {
      if sharpness[k] < 0 { sharpness[k] = last } else { last = sharpness[k] }
    }
  }

  /// log(centroid / 150 Hz) / log(6000 Hz / 150 Hz), clamped to 0...1.
  public static func sharpness(centroid: Double) -> Double {
    guard centroid > 0 else { return 0 }
    return min(1, max(0, log(centroid / centroidLow) / log(centroidHigh / centroidLow)))
  }

  /// Onsets: the onset function d[n] is the rise of the level (dB below the loudest 10 ms,
  /// scaled over ``onsetRangeDB`` onto 0...1) of the 10 ms window at hop n over the 10 ms
  /// window just before it. An onset is a local maximum (±15 ms) of d above the adaptive
  /// threshold (the mean of d over ±100 ms plus `0.05 + 0.25 × (1 − sensitivity)`), at least
  /// ``minimumGap`` after the previous one, and not the start of a swell (``isSwell``). Its time is refined to the first sample whose
  /// magnitude reaches a quarter of the way from the level before to the peak after.
  mutating func findOnsets(
    _ signal: AudioSignal, squares: [Double], spectrum: Spectrum, options: AudioConversionOptions
  ) {
    var spectrum = spectrum
    let x = signal.samples
    let hop = max(1, Int((signal.rate * Self.onsetHop).rounded()))
    let count = (x.count + hop - 1) / hop
    var db = [Double](repeating: 0, count: count)
    for n in 0..<count {
      db[n] = 10 * log10(Self.meanSquare(squares, n * hop, (n + 2) * hop) + 1e-20)
    }
    let reference = db.max() ?? 0
    let u = db.map { min(1, max(0, 1 + ($0 - reference) / Self.onsetRangeDB)) }
    var d = [Double](repeating: 0, count: count)
    for n in 0..<count { d[n] = max(0, u[n] - (n >= 2 ? u[n - 2] : 0)) }
    var sums = [Double](repeating: 0, count: count + 1)
    for n in 0..<count { sums[n + 1] = sums[n] + d[n] }
    let k = Int((Self.thresholdHalfWindow / Self.onsetHop).rounded())
    let delta = 0.05 + 0.25 * (1 - options.sensitivity)
    let near = 3
    let gap = Int((Self.minimumGap / Self.onsetHop).rounded())
    var last = -gap
    for n in 0..<count where d[n] > delta {
      let a = max(0, n - k)
      let b = min(count, n + k + 1)
      guard d[n] > delta + (sums[b] - sums[a]) / Double(b - a) else { continue }
      guard (max(0, n - near)..<n).allSatisfy({ d[$0] < d[n] }),
        (n + 1..<min(count, n + near + 1)).allSatisfy({ d[$0] <= d[n] }), n - last >= gap,
        !Self.isSwell(db, at: n)
      else { continue }
      last = n
      let sample = Self.refine(x, from: max(0, (n - 1) * hop), to: min(x.count, (n + 2) * hop), before: (n - 2) * hop)
      let sharp = Self.sharpness(centroid: spectrum.centroid(x, from: sample))
      onsets.append(Onset(time: Double(sample) / signal.rate, strength: d[n], sharpness: sharp))
    }
  }

  /// Whether the level `db` (per ``onsetHop``) at an onset at `n` keeps rising after its first
  /// ``attackWindow`` by more than ``swellRiseDB`` (followed while it stays within 3 dB of its
  /// highest, for at most ``swellWindow``): a fade-in or a swell, where an attack (a click, a
  /// hit) has reached its level and then holds or decays.
  static func isSwell(_ db: [Double], at n: Int) -> Bool {
    let attackEnd = min(db.count, n + Int((attackWindow / onsetHop).rounded()) + 1)
    let limit = min(db.count, n + Int((swellWindow / onsetHop).rounded()) + 1)
    guard attackEnd > n else { return false }
    let reached = db[n..<attackEnd].max()!
    var highest = reached
    var m = attackEnd
    while m < limit && db[m] >= highest - 3 {
      highest = max(highest, db[m])
      m += 1
    }
    return highest - reached > swellRiseDB
  }

  /// The first sample in `from..<to` whose magnitude reaches a quarter of the way from the
  /// largest magnitude in the hop before `from` (from `before`) to the largest in the range.
  static func refine(_ x: [Float], from: Int, to: Int, before: Int) -> Int {
    guard to > from else { return from }
    var peak: Float = 0
    for k in from..<to { peak = max(peak, abs(x[k])) }
    var floor: Float = 0
    for k in max(0, before)..<max(0, min(from, x.count)) { floor = max(floor, abs(x[k])) }
    let level = floor + (peak - floor) / 4
    for k in from..<to where abs(x[k]) >= level && abs(x[k]) > floor { return k }
    return from
  }
}

/// A Hann-windowed magnitude spectrum of ``size`` samples (the power of two nearest 20 ms),
/// by ``RadixTwoFFT``, for spectral centroids.
struct Spectrum {
  let size: Int
  let rate: Double
  private let window: [Double]
  private let fft: RadixTwoFFT
  private var real: [Double]
  private var imaginary: [Double]

  init(rate: Double) {
    var size = 64
    while size < 4096 && Double(size) < rate * 0.02 { size *= 2 }
    self.size = size
    self.rate = rate
    window = (0..<size).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(size)) }
    fft = RadixTwoFFT(count: size)
    real = [Double](repeating: 0, count: size)
    imaginary = [Double](repeating: 0, count: size)
  }

  /// The magnitude-weighted mean frequency (Hz) of `x[from ..< from + size]` (zeros outside
  /// the signal), or 0 for silence.
  mutating func centroid(_ x: [Float], from: Int) -> Double {
    let reversed = fft.bitReversed
    for k in 0..<size {
      let at = from + k
      real[reversed[k]] = at >= 0 && at < x.count ? Double(x[at]) * window[k] : 0
      imaginary[reversed[k]] = 0
    }
    real.withUnsafeMutableBufferPointer { real in
      imaginary.withUnsafeMutableBufferPointer { imaginary in fft.transform(real, imaginary) }
    }
    var weighted = 0.0
    var total = 0.0
    for k in 1..<size / 2 {
      let magnitude = (real[k] * real[k] + imaginary[k] * imaginary[k]).squareRoot()
      weighted += magnitude * Double(k)
      total += magnitude
    }
    return total > 1e-12 ? weighted / total * rate / Double(size) : 0
  }
}
