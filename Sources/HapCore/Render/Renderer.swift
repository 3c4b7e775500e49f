import Foundation

/// Streams the drive signal of a compiled ``Schedule``, block by block, as mono Float samples
/// in -1...1.
///
/// Rendering pulls blocks of any size. Only the voices sounding in a block cost anything, so the
/// cost of a block depends on what sounds in it, not on the pattern's length, and memory does
/// not grow with the pattern's duration. The output is a pure function of the frame index:
/// the same schedule gives bit-identical samples whatever block sizes it is pulled in.
public final class Renderer {
  /// Controls are evaluated exactly every `grid` frames (on absolute multiples, so block
  /// boundaries never matter) and interpolated linearly in between: 0.67 ms at 48 kHz, far
  /// finer than any audible or tactile zipper.
  static let grid = 32
  /// Blocks are rendered in chunks of at most this many frames, which bounds the scratch buffers.
  static let chunk = 4096
  static let gridCapacity = chunk / grid + 2

  public let schedule: Schedule
  /// Total frames the pattern renders to.
  public let frameCount: Int
  /// Frames rendered so far.
  public private(set) var position = 0
  public private(set) var statistics = RenderStatistics()

  private let voices: UnsafeMutableBufferPointer<Schedule.Voice>
  private let states: UnsafeMutableBufferPointer<VoiceState>
  private let active: UnsafeMutableBufferPointer<Int32>
  private var activeCount = 0
  private var nextVoice = 0
  private let intensityPoints: UnsafeMutableBufferPointer<ControlTrack.Breakpoint>
  private let sharpnessPoints: UnsafeMutableBufferPointer<ControlTrack.Breakpoint>
  private var intensityCursor = 0
  private var sharpnessCursor = 0
  private let intensityGrid: UnsafeMutableBufferPointer<Double>
  private let sharpnessGrid: UnsafeMutableBufferPointer<Double>
  private let amplitudeGrid: UnsafeMutableBufferPointer<Float>
  private let incrementGrid: UnsafeMutableBufferPointer<Double>
  private let gain: Float
  private let rate: Double
  private let profile: ActuatorProfile

  struct VoiceState {
    /// Carrier phase in cycles, 0..<1 (kept in Double: a Float phase drifts audibly).
    var phase: Double = 0
    /// Envelope level of the last frame rendered.
    var level: Double = 0
    /// Level of the exponential decay of a non-sustained continuous event.
    var decay: Double = 1
    /// Level at which the release started.
    var releaseFrom: Double = 0
  }

  /// Builds every buffer rendering will need; nothing is allocated after this.
  public init(schedule: Schedule) {
    self.schedule = schedule
    frameCount = schedule.frameCount
    rate = schedule.rate
    profile = schedule.profile
    gain = Float(schedule.gain)
    voices = .allocate(capacity: max(1, schedule.voices.count))
    _ = voices.initialize(from: schedule.voices)
    states = .allocate(capacity: max(1, schedule.voices.count))
    states.initialize(repeating: VoiceState())
    active = .allocate(capacity: max(1, schedule.voices.count))
    active.initialize(repeating: 0)
    intensityPoints = .allocate(capacity: max(1, schedule.intensityControl.breakpoints.count))
    _ = intensityPoints.initialize(from: schedule.intensityControl.breakpoints)
    sharpnessPoints = .allocate(capacity: max(1, schedule.sharpnessControl.breakpoints.count))
    _ = sharpnessPoints.initialize(from: schedule.sharpnessControl.breakpoints)
    intensityGrid = .allocate(capacity: Renderer.gridCapacity)
    intensityGrid.initialize(repeating: 1)
    sharpnessGrid = .allocate(capacity: Renderer.gridCapacity)
    sharpnessGrid.initialize(repeating: 0)
    amplitudeGrid = .allocate(capacity: Renderer.gridCapacity)
    amplitudeGrid.initialize(repeating: 0)
    incrementGrid = .allocate(capacity: Renderer.gridCapacity)
    incrementGrid.initialize(repeating: 0)
  }

  deinit {
    voices.deallocate()
    states.deallocate()
    active.deallocate()
    intensityPoints.deallocate()
    sharpnessPoints.deallocate()
    intensityGrid.deallocate()
    sharpnessGrid.deallocate()
    amplitudeGrid.deallocate()
    incrementGrid.deallocate()
  }

  /// Frames left to render.
  public var remaining: Int { frameCount - position }

  /// Renders the next `min(buffer.count, remaining)` frames into `buffer` and returns how many.
  ///
  /// **Real-time contract.** This is the function the playback thread calls once per period.
  /// It allocates nothing, takes no locks, does no I/O and makes no calls through existentials
  /// or closures: every buffer it touches was made by `init`. Its cost is proportional to the
  /// frames asked for times the voices sounding in them.
  ///
  /// The samples written are a pure function of their frame index: pulling the pattern in blocks
  /// of 1, 64, 480 or 4096 frames gives bit-identical output.
  public func render(into buffer: UnsafeMutableBufferPointer<Float>) -> Int {
    let total = min(buffer.count, frameCount - position)
    guard total > 0, let base = buffer.baseAddress else { return 0 }
    var written = 0
    while written < total {
      let count = min(Renderer.chunk, total - written)
      renderChunk(base + written, count: count)
      written += count
      position += count
    }
    return written
  }

  private func renderChunk(_ out: UnsafeMutablePointer<Float>, count: Int) {
    let first = position
    let last = position + count
    out.update(repeating: 0, count: count)

    // Admit the voices that start in this chunk.
    while nextVoice < voices.count && voices[nextVoice].start < last {
      states[nextVoice] = VoiceState()
      active[activeCount] = Int32(nextVoice)
      activeCount += 1
      nextVoice += 1
    }
    if activeCount > 0 {
      // Evaluate the controls on the grid points that cover this chunk.
      let gridFirst = first / Renderer.grid
      let gridLast = (last - 1) / Renderer.grid + 1
      for k in gridFirst...gridLast {
        let frame = Double(k * Renderer.grid)
        intensityGrid[k - gridFirst] = Renderer.evaluate(
          intensityPoints, schedule.intensityControl.breakpoints.count, &intensityCursor, frame, 1)
        sharpnessGrid[k - gridFirst] = Renderer.evaluate(
          sharpnessPoints, schedule.sharpnessControl.breakpoints.count, &sharpnessCursor, frame, 0)
      }
      var k = 0
      while k < activeCount {
        let index = Int(active[k])
        let voice = voices[index]
        let from = max(first, voice.start)
        let to = min(last, voice.soundEnd)
        if from < to {
          switch voice.kind {
          case .transient:
            renderTransient(voice, out, first: first, from: from, to: to)
          case .continuous:
            renderContinuous(voice, index, out, first: first, gridFirst: gridFirst, from: from, to: to)
          }
        }
        if voice.soundEnd <= last {
          // Finished: drop it, keeping the others in admission order so that floating-point
          // sums happen in the same order whatever the block size.
          for j in k..<(activeCount - 1) { active[j] = active[j + 1] }
          activeCount -= 1
        } else {
          k += 1
        }
      }
    }
    finish(out, count: count)
  }

  @inline(__always)
  static func evaluate(
    _ points: UnsafeMutableBufferPointer<ControlTrack.Breakpoint>, _ count: Int, _ cursor: inout Int,
    _ frame: Double, _ defaultValue: Double
  ) -> Double {
    if count == 0 || frame < points[0].frame { return defaultValue }
    while cursor + 1 < count && points[cursor + 1].frame <= frame { cursor += 1 }
    let a = points[cursor]
    if cursor == count - 1 { return a.value }
    let b = points[cursor + 1]
    if b.frame <= a.frame { return b.value }
    return a.value + (b.value - a.value) * (frame - a.frame) / (b.frame - a.frame)
  }

  private func renderTransient(
    _ voice: Schedule.Voice, _ out: UnsafeMutablePointer<Float>, first: Int, from: Int, to: Int
  ) {
    let peak = voice.peak
    let rise = voice.riseFrames
    let fall = voice.fallFrames
    for n in from..<to {
      let m = Double(n - voice.start)
      // Raised-cosine window: up over `rise`, down over `fall`; cos(πx) = sin(2π(x/2 + 1/4)).
      let window =
        m < rise
        ? 0.5 - 0.5 * Double(Renderer.sine(cycles: m / rise * 0.5 + 0.25))
        : 0.5 + 0.5 * Double(Renderer.sine(cycles: min((m - rise) / fall, 1) * 0.5 + 0.25))
      let carrier = Renderer.sine(cycles: voice.increment * m)
      out[n - first] += Float(peak * window) * carrier
    }
    statistics.noteFrequency(voice.increment * rate)
  }

  private func renderContinuous(
    _ voice: Schedule.Voice, _ index: Int, _ out: UnsafeMutablePointer<Float>, first: Int, gridFirst: Int,
    from: Int, to: Int
  ) {
    // Amplitude and phase increment on the grid points this voice covers in the chunk.
    let g0 = from / Renderer.grid - gridFirst
    let g1 = (to - 1) / Renderer.grid + 1 - gridFirst
    for g in g0...g1 {
      amplitudeGrid[g] = Float(profile.amplitude(intensity: voice.intensity * intensityGrid[g]))
      let frequency = profile.frequency(sharpness: voice.sharpness + sharpnessGrid[g])
      incrementGrid[g] = frequency / rate
      statistics.noteFrequency(frequency)
    }
    var state = states[index]
    let step = 1 / Double(Renderer.grid)
    for n in from..<to {
      let g = n / Renderer.grid - gridFirst
      let fraction = Double(n % Renderer.grid) * step
      // Envelope.
      let m = n - voice.start
      var level: Double
      if n < voice.end {
        if Double(m) < voice.attackFrames {
          level = Double(m) / voice.attackFrames
        } else if voice.decayFactor == 1 {
          level = 1
        } else {
          level = state.decay
          state.decay *= voice.decayFactor
        }
        state.level = level
      } else {
        if n == voice.end { state.releaseFrom = state.level }
        level = state.releaseFrom * (1 - Double(n - voice.end) / voice.releaseFrames)
      }
      let a0 = amplitudeGrid[g]
      let amplitude = a0 + (amplitudeGrid[g + 1] - a0) * Float(fraction)
      let i0 = incrementGrid[g]
      let increment = i0 + (incrementGrid[g + 1] - i0) * fraction
      out[n - first] += amplitude * Float(level) * Renderer.sine(cycles: state.phase)
      state.phase += increment
      if state.phase >= 1 { state.phase -= 1 }
    }
    states[index] = state
  }

  /// Gain, soft limiter and statistics over the mixed chunk.
  private func finish(_ out: UnsafeMutablePointer<Float>, count: Int) {
    var peakBefore = statistics.peakBeforeLimiter
    var peak = statistics.peak
    var sum = 0.0
    var limited = 0
    for n in 0..<count {
      let x = out[n] * gain
      let magnitude = abs(x)
      peakBefore = max(peakBefore, magnitude)
      var y = x
      if magnitude > SoftLimiter.threshold {
        y = SoftLimiter.limit(x)
        limited += 1
      }
      out[n] = y
      peak = max(peak, abs(y))
      sum += Double(y) * Double(y)
    }
    statistics.peakBeforeLimiter = peakBefore
    statistics.peak = peak
    statistics.sumOfSquares += sum
    statistics.limitedFrames += limited
    statistics.frames += count
  }

  /// sin(2πx) from a 9th-order polynomial after folding to a quarter wave (error < 4e-6).
  @inline(__always)
  static func sine(cycles x: Double) -> Float {
    var t = Float(x - x.rounded(.down)) - 0.5
    // sin(2π(t + 1/2)) = -sin(2πt); fold t from [-1/2, 1/2) into [-1/4, 1/4].
    if t > 0.25 {
      t = 0.5 - t
    } else if t < -0.25 {
      t = -0.5 - t
    }
    let z = t * (2 * Float.pi)
    let z2 = z * z
    let s = z * (1 + z2 * (-1 / 6 + z2 * (1 / 120 + z2 * (-1 / 5040 + z2 * (1 / 362_880)))))
    return -s
  }
}

/// The soft limiter: transparent up to ``threshold``, then a tanh knee that approaches full scale
/// without ever reaching it, so overlapping events never clip hard. Memoryless, so it keeps the
/// output independent of block size.
public enum SoftLimiter {
  public static let threshold: Float = 0.8

  @inline(__always)
  public static func limit(_ x: Float) -> Float {
    let magnitude = abs(x)
    if magnitude <= threshold { return x }
    let headroom = 1 - threshold
    let y = threshold + headroom * tanh((magnitude - threshold) / headroom)
    return x < 0 ? -y : y
  }
}

/// What rendering measured, for `hap info` and `--verbose`.
public struct RenderStatistics: Sendable, Equatable {
  /// Largest magnitude of the mix before the limiter (may exceed 1).
  public var peakBeforeLimiter: Float = 0
  /// Largest magnitude of the output.
  public var peak: Float = 0
  public var sumOfSquares: Double = 0
  /// Frames the limiter changed.
  public var limitedFrames = 0
  public var frames = 0
  /// Lowest and highest carrier frequency used, in Hz (nil before any haptic event sounded).
  public var minimumFrequency: Double?
  public var maximumFrequency: Double?

  public var rms: Double { frames == 0 ? 0 : (sumOfSquares / Double(frames)).squareRoot() }
  public var limiterActed: Bool { limitedFrames > 0 }

  @inline(__always)
  mutating func noteFrequency(_ frequency: Double) {
    if minimumFrequency == nil || frequency < minimumFrequency! { minimumFrequency = frequency }
    if maximumFrequency == nil || frequency > maximumFrequency! { maximumFrequency = frequency }
  }
}
