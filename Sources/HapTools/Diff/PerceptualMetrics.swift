import FoundationEssentials
import Glibc
import HapFormat
import HapPlayback
import HapRender

/// Two measures of how alike two vibrotactile signals feel, ST-SIM and SPQI, computed as the
/// `vibromaf` package defines them: version 0.0.8 (MIT licence, Markus Hofbauer and Andreas Noll,
/// `vibromaf/metrics/stsim.py`, `spqi.py`, `vibromaf/signal/transform.py`, `spectrum.py` and
/// `perception.py`), after Hassen & Steinbach (ST-SIM, IEEE 2019). hap's own code, written from
/// reading theirs; the tests hold it to vibromaf's results within 1e-3.
///
/// Both read signals at 8 kHz (``rate``, the rate vibromaf's threshold curve is made for; see
/// ``downsampled(_:from:)``) in blocks of 512 samples (64 ms), one after another, not
/// overlapping; the samples past the last whole block are left out. A test signal longer than
/// the reference is cut to the reference's length; a shorter one is an error.
///
/// - **Perceptual spectrum** of a block: the orthonormal DCT-II, `20·log10|X[k]|` in dB, minus the
///   detection threshold `T(f) = |62 / log10(a)² · log10(f/550 + a)²| − 77` with `a = 1 − 250/550`
///   (−15 dB at 0 Hz, lowest, −77 dB, at 250 Hz), held at its first positive value from there
///   on (0.27 dB from 782 Hz on). Bin k is read at `f = k · 8000/1023` (vibromaf's
///   `linspace(0, 8000, 1024)[:512]`, not the DCT's own `k · 8000/1024`). The threshold is in
///   the signal's own units: a full-scale tone's strongest bins sit some 100 dB above it.
/// - **ST-SIM** = `temporal^(2/3) · spectral^(1/3)`. Each is the mean over blocks of
///   `Σ ref·test / (Σ ref² + ε)` (ε = 2.2e-16), over the blocks' samples less their mean and
///   divided by their standard deviation (+ ε) for the temporal part, over the spectral support
///   `Φ(P/12)` (the normal distribution's CDF of the perceptual spectrum P in dB, scale 12 dB)
///   for the spectral part.
/// - **SPQI**: per block `d = 10·log10(Σ|p_ref − p_test| / (Σ p_ref + ε))` with
///   `p = 10^(P/10)`, scored `(1 − tanh(0.3·d + 2)) / 2`; the mean over blocks.
///
/// What follows from those definitions (vibromaf's, kept here):
/// - A test equal to the reference (after the cut) scores exactly 1 on both, before anything is
///   computed. Otherwise a block that is silent in the reference adds 0 to ST-SIM's means, even
///   when the test is silent there too: a reference half silent scores about 0.5 against a copy
///   that differs in the last bits.
/// - The temporal part is a correlation per block, averaged: a 200 Hz sine shifted by 5° scores
///   0.99, by 45° 0.79, by 90° about 0. ST-SIM forgives small shifts of the carrier, not large
///   ones, nor a drift: over 2 s a 150 Hz tone against 150.5 Hz (a change no one feels) drifts
///   through all phases, its blocks' correlations cancel, and ST-SIM is 0 or nearly.
/// - The spectral part is not bounded by 1: a test louder than the reference scores above 1
///   (a sine at twice the level: ST-SIM 1.008).
/// - A negative mean temporal similarity (an inverted or anti-phase signal) makes vibromaf's
///   `pow(temporal, 2/3)` a complex number; hap counts it as no similarity: ST-SIM 0.
/// - SPQI is steep: a copy at half the level scores 0.037, silence 0.018, an inverted copy 1
///   (the DCT's magnitudes are the same).
///
/// Unlike vibromaf, a reference shorter than one block is always an error (vibromaf scores 1
/// for two equal short signals before it looks at their length), and so is a sample that is
/// not finite (vibromaf returns NaN).
public enum PerceptualMetrics {
  /// The rate both measures read their signals at, in Hz.
  public static let rate = 8000.0
  /// Samples in a block (64 ms at ``rate``).
  public static let blockLength = 512

  /// Why two signals cannot be measured.
  public enum Failure: Error, Equatable, Sendable {
    /// Which of the two signals.
    public enum Signal: String, Sendable { case reference, test }

    /// The reference has fewer samples than one block.
    case tooShort(samples: Int)
    /// The test signal has fewer samples than the reference.
    case testShorterThanReference(test: Int, reference: Int)
    /// A sample (within the part that is measured) is NaN or infinite.
    case nonFinite(Signal, index: Int)

    /// One sentence saying what is wrong.
    public var message: String {
      switch self {
      case .tooShort(let samples):
        return "The reference has \(samples) samples, fewer than the \(PerceptualMetrics.blockLength) "
          + "of one block (64 ms at 8 kHz), the least the perceptual measures can judge."
      case .testShorterThanReference(let test, let reference):
        return "The test signal has \(test) samples, fewer than the reference's \(reference), "
          + "and the perceptual measures judge only a test at least as long as its reference."
      case .nonFinite(let signal, let index):
        return "Sample \(index) of the \(signal.rawValue) signal is not a finite number."
      }
    }
  }

  /// ST-SIM (spectral temporal similarity) of `test` against `reference`, both at 8 kHz: 1 for
  /// the same signal, 0 for silence against a signal (see the type's notes for its range).
  public static func stsim(reference: [Double], test: [Double]) throws(Failure) -> Double {
    let test = try measured(reference: reference, test: test)
    if test.elementsEqual(reference) { return 1 }
    var spectral = 0.0
    var temporal = 0.0
    var blocks = 0
    forEachBlock(reference, test) { ref, tested in
      spectral += similarity(ref.spectrum, tested.spectrum, through: spectralSupport)
      temporal += temporalSimilarity(ref.samples, tested.samples)
      blocks += 1
    }
    spectral /= Double(blocks)
    temporal /= Double(blocks)
    // vibromaf's pow of a negative mean is a complex number: no similarity.
    guard temporal > 0 else { return 0 }
    return pow(temporal, stsimEta) * pow(spectral, 1 - stsimEta)
  }

  /// SPQI (spectral perceptual quality index) of `test` against `reference`, both at 8 kHz: 1
  /// for the same signal, towards 0 as their perceptual power spectra part.
  public static func spqi(reference: [Double], test: [Double]) throws(Failure) -> Double {
    let test = try measured(reference: reference, test: test)
    if test.elementsEqual(reference) { return 1 }
    var total = 0.0
    var blocks = 0
    forEachBlock(reference, test) { ref, tested in
      total += spqiScore(ref.spectrum, tested.spectrum)
      blocks += 1
    }
    return total / Double(blocks)
  }

  // MARK: - vibromaf's constants

  /// ST-SIM's weight of the temporal part (vibromaf's `eta`, 2/3).
  static let stsimEta = 2.0 / 3.0
  /// SPQI's slope and offset (vibromaf's `eta` 0.3 and `threshold` −2).
  static let spqiSlope = 0.3
  static let spqiOffset = -2.0
  /// The scale, in dB, of the normal CDF that turns the perceptual spectrum into its support.
  static let supportScale = 12.0
  /// NumPy's `finfo(float).eps`, added to every denominator.
  static let epsilon = Double.ulpOfOne

  /// The detection threshold in dB at each of a block's DCT bins (vibromaf's
  /// `PerceptualThreshold(8000).calculate(512)`).
  static let threshold: [Double] = {
    let yScaler = 1.0 / 550
    let xOffset = 1 - 250 * yScaler
    let step = rate / Double(2 * blockLength - 1)
    var curve = (0..<blockLength).map { k in
      abs(62 / pow(log10(xOffset), 2) * pow(log10(yScaler * (Double(k) * step) + xOffset), 2)) - 77
    }
    // Held at its first positive value (NumPy's argmax of none true is 0: all at the first).
    let limit = curve.firstIndex { $0 > 0 } ?? 0
    for k in limit..<blockLength { curve[k] = curve[limit] }
    return curve
  }()

  /// The detection threshold at `frequency` (Hz; nil: unknown, the lowest, at 250 Hz), as the
  /// RMS level of a sine at it (full scale 1): the sine of amplitude A puts `A·√(N/2)` in its
  /// bin of the orthonormal DCT of a block, felt from `T(f)` dB up.
  public static func detectionLevel(frequency: Double?) -> Double {
    let step = rate / Double(2 * blockLength - 1)
    let t = frequency.map { threshold[min(blockLength - 1, max(0, Int(($0 / step).rounded())))] } ?? threshold.min()!
    return pow(10, t / 20) / (Double(blockLength) / 2).squareRoot() / 2.0.squareRoot()
  }

  /// 10^(−T/10) per bin: `|X|²` times this is SPQI's `10^(P/10)`.
  static let powerWeight: [Double] = threshold.map { pow(10, -$0 / 10) }

  static let dct = OrthonormalDCT(count: blockLength)
}

// MARK: - Blocks

extension PerceptualMetrics {
  /// One block of one signal: its samples and its orthonormal DCT.
  struct Block {
    let samples: UnsafeBufferPointer<Double>
    let spectrum: UnsafeBufferPointer<Double>
  }

  /// `test` cut to the reference's length, once both are checked.
  static func measured(reference: [Double], test: [Double]) throws(Failure) -> ArraySlice<Double> {
    guard test.count >= reference.count else {
      throw .testShorterThanReference(test: test.count, reference: reference.count)
    }
    guard reference.count >= blockLength else { throw .tooShort(samples: reference.count) }
    if let index = reference.firstIndex(where: { !$0.isFinite }) { throw .nonFinite(.reference, index: index) }
    let cut = test.prefix(reference.count)
    if let index = cut.firstIndex(where: { !$0.isFinite }) { throw .nonFinite(.test, index: index) }
    return cut
  }

  /// Calls `body` with each whole block of both signals, in order.
  static func forEachBlock(_ reference: [Double], _ test: ArraySlice<Double>, _ body: (Block, Block) -> Void) {
    let n = blockLength
    var work = [Double](repeating: 0, count: 4 * n)
    reference.withUnsafeBufferPointer { reference in
      test.withUnsafeBufferPointer { test in
        work.withUnsafeMutableBufferPointer { work in
          let spectra = (
            UnsafeMutableBufferPointer(rebasing: work[0..<n]), UnsafeMutableBufferPointer(rebasing: work[n..<2 * n])
          )
          let real = UnsafeMutableBufferPointer(rebasing: work[2 * n..<3 * n])
          let imaginary = UnsafeMutableBufferPointer(rebasing: work[3 * n..<4 * n])
          for start in stride(from: 0, through: reference.count - n, by: n) {
            let samples = (
              UnsafeBufferPointer(rebasing: reference[start..<start + n]),
              UnsafeBufferPointer(rebasing: test[start..<start + n])
            )
            dct.transform(samples.0, into: spectra.0, real: real, imaginary: imaginary)
            dct.transform(samples.1, into: spectra.1, real: real, imaginary: imaginary)
            body(
              Block(samples: samples.0, spectrum: UnsafeBufferPointer(spectra.0)),
              Block(samples: samples.1, spectrum: UnsafeBufferPointer(spectra.1)))
          }
        }
      }
    }
  }

  /// vibromaf's block similarity `Σ a·b / (Σ a² + ε)` of the reference's values `a` and the
  /// test's `b`, each value first passed through `transform` (with its index).
  static func similarity(
    _ reference: UnsafeBufferPointer<Double>, _ test: UnsafeBufferPointer<Double>,
    through transform: (Double, Int) -> Double
  ) -> Double {
    var product = 0.0
    var energy = 0.0
    for k in 0..<reference.count {
      let a = transform(reference[k], k)
      product += a * transform(test[k], k)
      energy += a * a
    }
    return product / (energy + epsilon)
  }

  /// The spectral support of DCT coefficient `x` at bin `k`: `Φ(P / 12)`, P its level above the
  /// threshold in dB (0 for a coefficient that is exactly 0).
  static func spectralSupport(_ x: Double, _ k: Int) -> Double {
    let level = 20 * log10(abs(x)) - threshold[k]
    return 0.5 * erfc(-level / (supportScale * 2.0.squareRoot()))
  }

  /// The temporal similarity of two blocks: each less its mean and over its (population)
  /// standard deviation + ε, then vibromaf's `Σ a·b / (Σ a² + ε)`.
  static func temporalSimilarity(_ reference: UnsafeBufferPointer<Double>, _ test: UnsafeBufferPointer<Double>)
    -> Double
  {
    let a = standardisation(reference)
    let b = standardisation(test)
    var product = 0.0
    var energy = 0.0
    for k in 0..<reference.count {
      let x = (reference[k] - a.mean) / a.scale
      product += x * ((test[k] - b.mean) / b.scale)
      energy += x * x
    }
    return product / (energy + epsilon)
  }

  /// A block's mean and the divisor vibromaf normalises it by (its deviation + ε).
  static func standardisation(_ x: UnsafeBufferPointer<Double>) -> (mean: Double, scale: Double) {
    var sum = 0.0
    for value in x { sum += value }
    let mean = sum / Double(x.count)
    var squares = 0.0
    for value in x { squares += (value - mean) * (value - mean) }
    return (mean, (squares / Double(x.count)).squareRoot() + epsilon)
  }

  /// One block's SPQI score from the two blocks' DCTs.
  static func spqiScore(_ reference: UnsafeBufferPointer<Double>, _ test: UnsafeBufferPointer<Double>) -> Double {
    var difference = 0.0
    var power = 0.0
    powerWeight.withUnsafeBufferPointer { weight in
      for k in 0..<reference.count {
        let p = reference[k] * reference[k] * weight[k]
        difference += abs(p - test[k] * test[k] * weight[k])
        power += p
      }
    }
    let d = 10 * log10(difference / (power + epsilon))
    return (1 - tanh(spqiSlope * d - spqiOffset)) / 2
  }
}
