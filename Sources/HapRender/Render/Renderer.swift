import CHapKernels
import FoundationEssentials
import Glibc
import HapFormat

/// Which compiled variant of the per-sample loops a ``Renderer`` runs. Both give bit-identical
/// samples; ``best`` is AVX2 where the CPU has it (checked at run time), else the baseline.
public enum RenderKernel: Sendable, Equatable, CaseIterable {
  /// Baseline x86-64 (SSE2), or the portable C build elsewhere.
  case baseline
  /// Compiled for AVX2; used only where the CPU has AVX2 and FMA.
  case avx2

  /// Whether this CPU runs the variant.
  public var isAvailable: Bool {
    switch self {
    case .baseline: true
    case .avx2: RenderKernel.hasAVX2
    }
  }

  /// The fastest variant this CPU runs.
  public static var best: RenderKernel { hasAVX2 ? .avx2 : .baseline }

  private static let hasAVX2 = hap_kernel_avx2_available() != 0

  var code: hap_kernel { self == .avx2 ? 1 : 0 }
}

/// Streams the drive signal of a compiled ``Schedule``, block by block, as mono Float samples
/// in -1...1.
///
/// Rendering pulls blocks of any size. Only the voices sounding in a block cost anything, so the
/// cost of a block depends on what sounds in it, not on the pattern's length, and memory does
/// not grow with the pattern's duration. The output is a pure function of the frame index:
/// the same schedule gives bit-identical samples whatever block sizes it is pulled in.
public final class Renderer {
  /// Controls are evaluated exactly every `grid` frames (on absolute multiples, so block
  /// boundaries never matter) and interpolated linearly in between; the continuous carrier is
  /// re-anchored there too. 64 frames at 32 kHz and above (1.33 ms at 48 kHz), 32 below (4 ms at
  /// 8 kHz): far finer than any tactile zipper, and long enough to spread the oscillator's
  /// per-segment set-up over many samples.
  let grid: Int
  /// log2 of `grid`.
  let gridShift: Int32
  /// The control grid at `rate` frames per second.
  static func grid(rate: Double) -> Int { rate >= 32000 ? 2 * finestGrid : finestGrid }
  /// The control grid below 32 kHz, the finest there is.
  static let finestGrid = 32
  /// Blocks are rendered in chunks of at most this many frames, which bounds the scratch buffers.
  static let chunk = 4096
  /// Grid points a chunk can cover, on the finest grid.
  static let gridCapacity = chunk / finestGrid + 2

  public let schedule: Schedule
  /// Total frames the pattern renders to.
  public let frameCount: Int
  /// Frames rendered so far.
  public private(set) var position = 0
  public private(set) var statistics = RenderStatistics()

  private let voices: UnsafeMutableBufferPointer<Schedule.Voice>
  /// Number of voices (the buffers hold at least one element, even for a pattern without any).
  private let voiceCount: Int
  private let states: UnsafeMutableBufferPointer<VoiceState>
  private let active: UnsafeMutableBufferPointer<Int32>
  private var activeCount = 0
  private var nextVoice = 0
  /// The envelope controls' steps, and the planner that reads them for continuous voices.
  private let envelopeChanges: UnsafeMutableBufferPointer<EnvelopeControls.Change>
  private let planner: EnvelopePlanner
  /// The intensity control as the continuous voices hear it (``withoutSpikes(_:)``), and how
  /// many breakpoints it has.
  private let intensityPoints: UnsafeMutableBufferPointer<ControlTrack.Breakpoint>
  private let intensityCount: Int
  private let sharpnessPoints: UnsafeMutableBufferPointer<ControlTrack.Breakpoint>
  private var intensityCursor = 0
  /// The cursor of ``amplitude(_:at:)``, which reads the control between grid points.
  private var kinkCursor = 0
  /// The cursor of ``nextKink(after:before:)``: the first breakpoint past the frame asked last.
  private var kinkSearch = 0
  /// A kinked segment's sub-run as the kernel reads it: the amplitudes at the segment's two grid
  /// points of the line through the control's values at the sub-run's ends.
  private let kinkGrid: UnsafeMutableBufferPointer<Float>
  private var sharpnessCursor = 0
  private let intensityGrid: UnsafeMutableBufferPointer<Double>
  private let sharpnessGrid: UnsafeMutableBufferPointer<Double>
  private let amplitudeGrid: UnsafeMutableBufferPointer<Float>
  private let incrementGrid: UnsafeMutableBufferPointer<Double>
  /// Powers of a decay factor, for the decay stage (one grid segment plus a group of eight).
  private let decayPowers: UnsafeMutableBufferPointer<Float>
  private let gain: Float
  private let rate: Double
  private let profile: ActuatorProfile
  /// An ACF read through Lofelt's mapping (``ActuatorProfile/FrequencyScale/quadratic``): the
  /// controls are √ of Meta's amplitude and frequency, and interpolate as Meta's values do
  /// (linearly in their squares), so the breakpoints are kept squared (sign kept).
  private let squareLaw: Bool
  /// Meta's emphasis (a plain value: read on the playback thread without reference counting).
  private let emphasis: ActuatorProfile.Emphasis?
  /// The frames Meta's emphasis oscillator sounds in (each burst until the next one cuts it),
  /// start and end of each span in order, and what the continuous signal is multiplied by there
  /// (1 − the ACF's ducking): a restart extends the ducking.
  private let burstSpans: UnsafeMutableBufferPointer<Int>
  private let burstCount: Int
  private let duck: Float
  /// The profile's intensity → amplitude and sharpness → phase increment mappings, sampled at
  /// `tableSize` + 1 points over 0...1 and interpolated linearly (monotonic, and within 3e-5 of
  /// the exact curves), so the per-sample work makes no `pow` or `exp` calls (the envelope
  /// planner makes a few per envelope piece and grid segment).
  /// (Internal, not private: the tests compare them with the profile's curves.)
  let amplitudeTable: UnsafeMutableBufferPointer<Double>
  let incrementTable: UnsafeMutableBufferPointer<Double>
  static let tableSize = 1024
  /// The compiled variant of the per-sample loops (``RenderKernel``).
  public let kernel: RenderKernel
  private let kernelCode: hap_kernel

  struct VoiceState {
    /// Carrier phase in cycles, 0..<1, at the start of the grid segment being rendered (kept
    /// in Double: a Float phase drifts audibly over minutes).
    var phase: Double = 0
    /// Continuous voices: the piece of the envelope being rendered.
    var envelope = EnvelopePiece.silent
  }

  /// Builds every buffer rendering will need; nothing is allocated after this. `kernel` picks the
  /// compiled variant of the per-sample loops (an unavailable one falls back to the baseline).
  public init(schedule: Schedule, kernel: RenderKernel = .best) {
    emphasis = schedule.profile.emphasis
    duck = Float(1 - min(max(schedule.profile.emphasis?.ducking ?? 0, 0), 1))
    let bursts = Self.union(
      schedule.voices.filter { $0.burst && $0.soundEnd > $0.start }.map { ($0.start, $0.soundEnd) })
    burstSpans = .allocate(capacity: max(1, bursts.count))
    _ = burstSpans.initialize(from: bursts)
    burstCount = bursts.count / 2
    self.kernel = kernel.isAvailable ? kernel : .baseline
    kernelCode = self.kernel.code
    self.schedule = schedule
    frameCount = schedule.frameCount
    rate = schedule.rate
    profile = schedule.profile
    gain = Float(schedule.gain)
    voiceCount = schedule.voices.count
    voices = .allocate(capacity: max(1, schedule.voices.count))
    _ = voices.initialize(from: schedule.voices)
    states = .allocate(capacity: max(1, schedule.voices.count))
    states.initialize(repeating: VoiceState())
    active = .allocate(capacity: max(1, schedule.voices.count))
    active.initialize(repeating: 0)
    envelopeChanges = .allocate(capacity: max(1, schedule.envelopeControls.changes.count))
    _ = envelopeChanges.initialize(from: schedule.envelopeControls.changes)
    planner = EnvelopePlanner(
      changes: UnsafeBufferPointer(rebasing: envelopeChanges[0..<schedule.envelopeControls.changes.count]),
      rate: schedule.rate, limit: schedule.frameCount)
    squareLaw = schedule.profile.frequencyScale == .quadratic
    let heard = Self.withoutSpikes(schedule.intensityControl.breakpoints)
    intensityCount = heard.count
    intensityPoints = .allocate(capacity: max(1, heard.count))
    _ = intensityPoints.initialize(from: Self.squared(heard, squareLaw))
    sharpnessPoints = .allocate(capacity: max(1, schedule.sharpnessControl.breakpoints.count))
    _ = sharpnessPoints.initialize(from: Self.squared(schedule.sharpnessControl.breakpoints, squareLaw))
    kinkGrid = .allocate(capacity: 2)
    kinkGrid.initialize(repeating: 0)
    intensityGrid = .allocate(capacity: Renderer.gridCapacity)
    intensityGrid.initialize(repeating: 1)
    sharpnessGrid = .allocate(capacity: Renderer.gridCapacity)
    sharpnessGrid.initialize(repeating: 0)
    amplitudeGrid = .allocate(capacity: Renderer.gridCapacity)
    amplitudeGrid.initialize(repeating: 0)
    incrementGrid = .allocate(capacity: Renderer.gridCapacity)
    incrementGrid.initialize(repeating: 0)
    grid = Renderer.grid(rate: schedule.rate)
    gridShift = Int32(grid.trailingZeroBitCount)
    decayPowers = .allocate(capacity: grid + 8)
    decayPowers.initialize(repeating: 0)
    // The profile's curves are made once per process (ProfileTables); the increments are this
    // rate's.
    let tables = ProfileTables.of(schedule.profile)
    amplitudeTable = .allocate(capacity: Renderer.tableSize + 2)
    incrementTable = .allocate(capacity: Renderer.tableSize + 2)
    _ = amplitudeTable.initialize(from: tables.amplitude)
    for k in 0...(Renderer.tableSize + 1) {
      (incrementTable.baseAddress! + k).initialize(to: tables.frequency[k] / schedule.rate)
    }
  }

  deinit {
    burstSpans.deallocate()
    voices.deallocate()
    envelopeChanges.deallocate()
    states.deallocate()
    active.deallocate()
    intensityPoints.deallocate()
    sharpnessPoints.deallocate()
    intensityGrid.deallocate()
    kinkGrid.deallocate()
    sharpnessGrid.deallocate()
    amplitudeGrid.deallocate()
    incrementGrid.deallocate()
    decayPowers.deallocate()
    amplitudeTable.deallocate()
    incrementTable.deallocate()
  }

  /// Frames left to render.
  public var remaining: Int { frameCount - position }

  /// Frames from ``position`` on that are certainly silent: no voice sounds until the next one
  /// starts (or the pattern ends). 0 while a voice sounds.
  public var silentFrames: Int {
    guard activeCount == 0 else { return 0 }
    let next = nextVoice < voiceCount ? min(voices[nextVoice].start, frameCount) : frameCount
    return max(0, next - position)
  }

  /// Moves past up to `frames` frames of ``silentFrames`` without computing them; the statistics
  /// count them as the zeros ``render(into:)`` would have given. Allocates nothing. A caller that
  /// measures the signal (`hap info`, `hap diff`) thereby pays for what sounds, not for the
  /// pattern's length.
  public func skipSilence(_ frames: Int) {
    let n = min(frames, silentFrames)
    guard n > 0 else { return }
    position += n
    statistics.frames += n
  }

  /// Rewinds to the start of the pattern (for looping). Live control values stay in force.
  /// Allocates nothing.
  public func reset() {
    seek(to: 0)
    statistics = RenderStatistics()
  }

  /// Jumps to `frame`: the voices sounding there start sounding (with a fresh carrier phase; the
  /// caller ramps the output around the jump). Allocates nothing.
  public func seek(to frame: Int) {
    position = min(max(0, frame), frameCount)
    activeCount = 0
    intensityCursor = 0
    kinkSearch = 0
    sharpnessCursor = 0
    var k = 0
    while k < voiceCount && voices[k].start < position {
      // A live envelope control may have lengthened a continuous voice past the schedule's
      // `soundEnd`: then its own envelope decides whether it still sounds here.
      let continuous = voices[k].kind == .continuous
      if voices[k].soundEnd > position || (continuous && liveEnvelope.isActive) {
        admit(k)
        if continuous {
          planner.advance(voices[k], &states[k].envelope, to: position, live: liveEnvelope)
          if states[k].envelope.stage == .done { activeCount -= 1 }
        }
      }
      k += 1
    }
    nextVoice = k
  }

  // MARK: Live controls

  /// A dynamic parameter set live (a control stream), ramping from its previous value.
  struct LiveValue {
    var isActive = false
    var from = 0.0
    var to = 0.0
    var start = 0.0
    var length = 1.0

    @inline(__always)
    func value(at frame: Double) -> Double {
      if frame <= start { return from }
      if frame >= start + length { return to }
      return from + (to - from) * (frame - start) / length
    }
  }

  private var liveIntensity = LiveValue()
  private var liveSharpness = LiveValue()
  /// Live attack, decay and release controls (NaN when not set).
  private var liveEnvelope = LiveEnvelope()

  /// Sets a dynamic parameter live, as a `Parameter` at the current position would, ramping
  /// intensity and sharpness linearly over `rampFrames` so they never click. It overrides the
  /// pattern's own values of that parameter from now on. Intensity acts on every event (a
  /// transient takes it at its start); sharpness on continuous events; attack, decay and
  /// release on continuous events already sounding (from the level they have reached) and
  /// on those to come. Allocates nothing (the real-time contract holds).
  public func setControl(_ id: DynamicParameterID, to value: Double, rampFrames: Int) {
    let value = min(max(value, id.range.lowerBound), id.range.upperBound)
    let here = Double(position)
    func ramp(_ live: inout LiveValue, _ track: ControlTrack) {
      let current = live.isActive ? live.value(at: here) : track.value(at: here)
      live = LiveValue(isActive: true, from: current, to: value, start: here, length: Double(max(1, rampFrames)))
    }
    switch id {
    case .hapticIntensityControl: ramp(&liveIntensity, schedule.intensityControl)
    case .hapticSharpnessControl: ramp(&liveSharpness, schedule.sharpnessControl)
    // A repeated value changes nothing (and splits no envelope piece).
    case .hapticAttackTimeControl where liveEnvelope.attack != value:
      liveEnvelope.attack = value
      replanActiveEnvelopes()
    case .hapticDecayTimeControl where liveEnvelope.decay != value:
      liveEnvelope.decay = value
      replanActiveEnvelopes()
    case .hapticReleaseTimeControl where liveEnvelope.release != value:
      liveEnvelope.release = value
      replanActiveEnvelopes()
    default: break  // audio controls do not shape the haptic signal
    }
  }

  /// Continues every sounding continuous voice's envelope from here with the live values.
  private func replanActiveEnvelopes() {
    for k in 0..<activeCount {
      let index = Int(active[k])
      let voice = voices[index]
      guard voice.kind == .continuous else { continue }
      let here = max(position, states[index].envelope.start)
      planner.advance(voice, &states[index].envelope, to: here, live: liveEnvelope)
      states[index].envelope = planner.replan(voice, states[index].envelope, at: here, live: liveEnvelope)
    }
  }

  /// Starts voice `k` sounding: a transient takes the live intensity (if set) at its start; a
  /// continuous voice plans the first piece of its envelope.
  private func admit(_ k: Int) {
    states[k] = VoiceState()
    active[activeCount] = Int32(k)
    activeCount += 1
    let voice = voices[k]
    switch voice.kind {
    case .transient:
      guard liveIntensity.isActive else { return }
      voices[k].peak = profile.transientPeak(intensity: voice.intensity * liveIntensity.value(at: Double(voice.start)))
    case .continuous:
      states[k].envelope = planner.first(voice, live: liveEnvelope)
    }
  }

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
    while nextVoice < voiceCount && voices[nextVoice].start < last {
      admit(nextVoice)
      nextVoice += 1
    }
    guard activeCount > 0 else {
      // Nothing sounds in this chunk: its zeros leave the statistics but the frame count as
      // they were.
      statistics.frames += count
      return
    }
    let gridFirst = evaluateControls(first: first, last: last)
    // Meta's bursts come last: what the voices before them sum to (the continuous signal) is
    // ducked, sample by sample, where the emphasis oscillator sounds.
    for k in 0..<activeCount where !voices[Int(active[k])].burst {
      renderVoice(Int(active[k]), out, first: first, last: last, gridFirst: gridFirst)
    }
    if burstCount > 0 {
      duckUnderBursts(out, first: first, last: last)
      for k in 0..<activeCount where voices[Int(active[k])].burst {
        renderVoice(Int(active[k]), out, first: first, last: last, gridFirst: gridFirst)
      }
    }
    // Drop the finished voices, keeping the others in admission order so that floating-point
    // sums happen in the same order whatever the block size.
    var kept = 0
    for k in 0..<activeCount where !hasFinished(Int(active[k]), by: last) {
      active[kept] = active[k]
      kept += 1
    }
    activeCount = kept
    finish(out, count: count)
  }

  /// Whether voice `index` sounds no more from frame `last` on (after rendering up to it).
  @inline(__always)
  private func hasFinished(_ index: Int, by last: Int) -> Bool {
    switch voices[index].kind {
    case .transient: voices[index].soundEnd <= last
    case .continuous: states[index].envelope.stage == .done
    }
  }

  /// Evaluates the intensity and sharpness controls (live, or the schedule's) on the grid
  /// points that cover frames `first..<last`; returns the index of the first grid point.
  @inline(__always)
  private func evaluateControls(first: Int, last: Int) -> Int {
    let gridFirst = first / grid
    let gridLast = (last - 1) / grid + 1
    for k in gridFirst...gridLast {
      let frame = Double(k * grid)
      intensityGrid[k - gridFirst] =
        liveIntensity.isActive
        ? liveIntensity.value(at: frame)
        : Self.root(
          Renderer.evaluate(intensityPoints, intensityCount, &intensityCursor, frame, 1),
          squareLaw)
      sharpnessGrid[k - gridFirst] =
        liveSharpness.isActive
        ? liveSharpness.value(at: frame)
        : Self.root(
          Renderer.evaluate(sharpnessPoints, schedule.sharpnessControl.breakpoints.count, &sharpnessCursor, frame, 0),
          squareLaw)
    }
    return gridFirst
  }

  /// Adds the sounding voice `index` to the chunk of frames `first..<last` at `out`.
  @inline(__always)
  private func renderVoice(_ index: Int, _ out: UnsafeMutablePointer<Float>, first: Int, last: Int, gridFirst: Int) {
    let voice = voices[index]
    let from = max(first, voice.start)
    switch voice.kind {
    case .transient:
      let to = min(last, voice.soundEnd)
      if from < to {
        if voice.burst { renderBurst(voice, out, first: first, from: from, to: to) } else {
          renderTransient(voice, out, first: first, from: from, to: to)
        }
      }
    case .continuous:
      // Where the sound ends, if within this chunk: the envelope itself says (a live
      // envelope control may have moved it from the schedule's `soundEnd`).
      var ahead = states[index].envelope
      planner.advance(voice, &ahead, to: last, live: liveEnvelope)
      let to = ahead.stage == .done ? min(last, ahead.start) : last
      if from < to { renderContinuous(voice, index, out, first: first, gridFirst: gridFirst, from: from, to: to) }
      planner.advance(voice, &states[index].envelope, to: last, live: liveEnvelope)
    }
  }

  /// `points` without the breakpoints whose neighbours both lie within a frame of them: an
  /// excursion narrower than a frame falls between a continuous signal's samples, so the
  /// continuous voices do not hear it; a transient reads the control at its exact time and does.
  /// (hap's reading of a `.haptic` clip raises the intensity control so for an emphasis stronger
  /// than the continuous under it, ``HapticToAHAP/narrowRaiseHalfWidth``: the continuous signal
  /// keeps the clip's amplitude even where a control step of the grid falls on the emphasis.)
  static func withoutSpikes(_ points: [ControlTrack.Breakpoint]) -> [ControlTrack.Breakpoint] {
    guard points.count > 2 else { return points }
    var kept = [points[0]]
    for k in 1..<(points.count - 1)
    where !(points[k].frame - points[k - 1].frame < 1 && points[k + 1].frame - points[k].frame < 1) {
      kept.append(points[k])
    }
    kept.append(points[points.count - 1])
    return kept
  }

  /// `points` with their values squared, sign kept (`squareLaw`; else as they are).
  static func squared(_ points: [ControlTrack.Breakpoint], _ squareLaw: Bool) -> [ControlTrack.Breakpoint] {
    guard squareLaw else { return points }
    return points.map { point in
      var squared = point
      squared.value = point.value * abs(point.value)
      return squared
    }
  }

  /// The signed square root of `x` (`squareLaw`; else `x`).
  @inline(__always)
  static func root(_ x: Double, _ squareLaw: Bool) -> Double {
    guard squareLaw else { return x }
    return x < 0 ? -(-x).squareRoot() : x.squareRoot()
  }

  @inline(__always)
  static func evaluate(
    _ points: UnsafeMutableBufferPointer<ControlTrack.Breakpoint>, _ count: Int, _ cursor: inout Int,
    _ frame: Double, _ defaultValue: Double
  ) -> Double {
    if count == 0 || frame < points[0].frame { return defaultValue }
    // Each chunk evaluates one grid point past its end, and the next chunk starts by
    // re-evaluating the grid point before its first frame: the cursor may have to step back.
    while cursor > 0 && points[cursor].frame > frame { cursor -= 1 }
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
    hap_add_transient(
      kernelCode, out + (from - first), Int32(to - from), Int64(from - voice.start), voice.peak, voice.riseFrames,
      voice.fallFrames, voice.increment, voice.carrierOffset)
    statistics.noteFrequency(voice.increment * rate)
  }

  /// Meta's emphasis burst: gated, from phase 0, the low and high shapes blended, its gain
  /// falling linearly over the burst by the fade's share (`fadeShare`, 0...1).
  private func renderBurst(
    _ voice: Schedule.Voice, _ out: UnsafeMutablePointer<Float>, first: Int, from: Int, to: Int
  ) {
    guard let emphasis else { return }
    for n in from..<to {
      let t = Double(n - voice.start)
      let phase = (t * voice.increment).truncatingRemainder(dividingBy: 1)
      let wave =
        (1 - voice.blend) * Self.wave(emphasis.low.shape, phase) + voice.blend * Self.wave(emphasis.high.shape, phase)
      // fade_out_percent: the gain falls linearly over the whole burst to 1 − that share.
      let fade = 1 - voice.fadeShare * t / Double(max(1, voice.end - voice.start))
      out[n - first] += Float(voice.peak * fade * wave)
    }
    statistics.noteFrequency(voice.increment * rate)
  }

  /// One period of `shape` at `phase` (cycles, 0..<1), starting at 0 (a square at +1).
  @inline(__always)
  static func wave(_ shape: ActuatorProfile.Emphasis.Shape, _ phase: Double) -> Double {
    switch shape {
    case .sine: sin(2 * Double.pi * phase)
    case .square: phase < 0.5 ? 1 : -1
    case .triangle: phase < 0.25 ? 4 * phase : phase < 0.75 ? 2 - 4 * phase : 4 * phase - 4
    case .sawtooth: phase < 0.5 ? 2 * phase : 2 * phase - 2
    }
  }

  /// The frames some span covers, as disjoint spans in order (`spans` in start order), flattened
  /// to start, end pairs.
  static func union(_ spans: [(Int, Int)]) -> [Int] {
    var merged: [Int] = []
    for (start, end) in spans {
      if let last = merged.last, start <= last {
        merged[merged.count - 1] = max(last, end)
      } else {
        merged += [start, end]
      }
    }
    return merged
  }

  /// The continuous signal under Meta's bursts: the chunk's frames `first..<last` at `out` (the
  /// voices that are not bursts, summed) multiplied by ``duck`` wherever the emphasis oscillator
  /// sounds, switched at the sample as Meta's renderer does.
  private func duckUnderBursts(_ out: UnsafeMutablePointer<Float>, first: Int, last: Int) {
    // The first span ending after `first` (binary search over the ends).
    var low = 0
    var high = burstCount
    while low < high {
      let middle = (low + high) / 2
      if burstSpans[2 * middle + 1] <= first { low = middle + 1 } else { high = middle }
    }
    var span = low
    while span < burstCount && burstSpans[2 * span] < last {
      for n in max(first, burstSpans[2 * span])..<min(last, burstSpans[2 * span + 1]) { out[n - first] *= duck }
      span += 1
    }
  }

  private func renderContinuous(
    _ voice: Schedule.Voice, _ index: Int, _ out: UnsafeMutablePointer<Float>, first: Int, gridFirst: Int,
    from: Int, to: Int
  ) {
    // Amplitude and phase increment on the grid points this voice covers in the chunk.
    let g0 = from / grid - gridFirst
    let g1 = (to - 1) / grid + 1 - gridFirst
    var lowest = Double.infinity
    var highest = 0.0
    hap_fill_grid(
      kernelCode, Int32(g1 - g0 + 1), intensityGrid.baseAddress! + g0, sharpnessGrid.baseAddress! + g0, voice.intensity,
      voice.sharpness, amplitudeTable.baseAddress, incrementTable.baseAddress, Int32(Renderer.tableSize),
      amplitudeGrid.baseAddress! + g0, incrementGrid.baseAddress! + g0, &lowest, &highest)
    statistics.noteFrequency(lowest * rate)
    statistics.noteFrequency(highest * rate)
    // The carrier's phase is kept at grid-segment starts only; inside a segment the increment
    // is linear in the frame, so the phase has a closed form and no sample depends on the one
    // before it. That keeps the inner loops free of serial dependencies, and the result a
    // function of the frame index alone. The run is split where the envelope's pieces change;
    // each piece's level is anchored at a frame that does not depend on where the block started
    // (the later of the segment's and the piece's first frame).
    var phase = states[index].phase
    var n = from
    while n < to {
      if n >= states[index].envelope.end {
        planner.advance(voice, &states[index].envelope, to: n, live: liveEnvelope)
      }
      let piece = states[index].envelope
      if piece.stage == .done { break }
      let pieceEnd = min(to, piece.end)
      if piece.isGeometric { fillPowers(piece.rate) }
      addRun(voice, out, first: first, gridFirst: gridFirst, from: n, to: pieceEnd, piece: piece, phase: &phase)
      n = pieceEnd
    }
    states[index].phase = phase
  }

  /// Adds frames `from..<to` of one envelope `piece` of the continuous `voice`: through the kernel
  /// on the control grid, but a grid segment in which the intensity control (as the continuous
  /// voices hear it) has a breakpoint (``nextKink(after:before:)``) is split there, each sub-run
  /// given the line through the control's amplitudes at its own ends, so the amplitude follows
  /// the breakpoints to the sample (``addKinkedSegment``). The sub-runs use the same kernel with the
  /// same carrier (the phase is still kept at grid points), and every line depends on the segment
  /// and the breakpoints alone, so the samples stay a function of the frame index.
  private func addRun(
    _ voice: Schedule.Voice, _ out: UnsafeMutablePointer<Float>, first: Int, gridFirst: Int, from: Int, to: Int,
    piece: EnvelopePiece, phase: inout Double
  ) {
    var n = from
    while n < to {
      let end = ((to - 1) & ~(grid - 1)) + grid
      let kink = nextKink(after: n & ~(grid - 1), before: end)
      let kinked = kink == .max ? end : kink & ~(grid - 1)
      if kinked > n {
        let runEnd = min(to, kinked)
        hap_add_run(
          kernelCode, out, Int64(first), Int64(n), Int64(runEnd), Int64(voice.start), amplitudeGrid.baseAddress,
          incrementGrid.baseAddress, Int64(gridFirst), &phase, piece.isGeometric ? 1 : 0, Int64(piece.start),
          piece.level, piece.rate, decayPowers.baseAddress, gridShift)
        n = runEnd
      }
      if n < to {
        let segmentEnd = min(to, kinked + grid)
        addKinkedSegment(
          voice, out, first: first, gridFirst: gridFirst, segment: kinked, from: n, to: segmentEnd, piece: piece,
          phase: &phase)
        n = segmentEnd
      }
    }
  }

  /// Frames `from..<to` of the grid segment starting at frame `segment`, in which the intensity
  /// control has breakpoints: a sub-run from each breakpoint's first frame to the next's, its
  /// amplitude the line from the control's at its first frame (the grid's at the segment's start)
  /// to the control's at its last (the grid's at the segment's end, for the last sub-run).
  private func addKinkedSegment(
    _ voice: Schedule.Voice, _ out: UnsafeMutablePointer<Float>, first: Int, gridFirst: Int, segment: Int, from: Int,
    to: Int, piece: EnvelopePiece, phase: inout Double
  ) {
    let k = segment / grid - gridFirst
    let segmentEnd = segment + grid
    var a = segment
    var aValue = Double(amplitudeGrid[k])
    while a < to {
      let b = min(nextKink(after: a, before: segmentEnd), segmentEnd)
      let (ub, bValue) =
        b == segmentEnd ? (grid, Double(amplitudeGrid[k + 1])) : (b - 1 - segment, amplitude(voice, at: b - 1))
      let ua = a - segment
      let slope = ub > ua ? (bValue - aValue) / Double(ub - ua) : 0
      kinkGrid[0] = Float(aValue - slope * Double(ua))
      kinkGrid[1] = Float(aValue + slope * Double(grid - ua))
      if b > from {
        hap_add_run(
          kernelCode, out, Int64(first), Int64(max(a, from)), Int64(min(b, to)), Int64(voice.start),
          kinkGrid.baseAddress, incrementGrid.baseAddress! + k, Int64(segment / grid), &phase,
          piece.isGeometric ? 1 : 0, Int64(piece.start), piece.level, piece.rate, decayPowers.baseAddress, gridShift)
      }
      a = b
      if a < segmentEnd { aValue = amplitude(voice, at: a) }
    }
  }

  /// The first frame after `frame` and before `limit` on which the intensity control as the
  /// continuous voices hear it has a breakpoint off the grid: the first frame at or after the
  /// breakpoint, which is not a grid point (.max if none, or if the live control overrides it).
  @inline(__always)
  private func nextKink(after frame: Int, before limit: Int) -> Int {
    guard !liveIntensity.isActive, intensityCount > 0 else { return .max }
    // The first breakpoint past `frame`: the cursor walks there from the frame asked last (either
    // way, so the answer does not depend on what was asked before).
    let here = Double(frame)
    while kinkSearch > 0 && intensityPoints[kinkSearch - 1].frame > here { kinkSearch -= 1 }
    while kinkSearch < intensityCount && intensityPoints[kinkSearch].frame <= here { kinkSearch += 1 }
    var low = kinkSearch
    while low < intensityCount {
      let kink = Int(intensityPoints[low].frame.rounded(.up))
      if kink >= limit { return .max }
      if kink & (grid - 1) != 0 { return kink }
      low += 1
    }
    return .max
  }

  /// The continuous `voice`'s amplitude at `frame` from the intensity control there, as the grid
  /// gets it (``hap_fill_grid``'s table look-up).
  private func amplitude(_ voice: Schedule.Voice, at frame: Int) -> Double {
    let control = Self.root(
      Renderer.evaluate(intensityPoints, intensityCount, &kinkCursor, Double(frame), 1), squareLaw)
    // The kernels' look-up: clamped to 0...1, linear between the table's points.
    let x = min(max(voice.intensity * control, 0), 1) * Double(Renderer.tableSize)
    let index = Int(x)
    let fraction = x - Double(index)
    return amplitudeTable[index] + (amplitudeTable[index + 1] - amplitudeTable[index]) * fraction
  }

  /// factor^0 ... factor^(grid + 7) into `decayPowers` (the same values every time).
  private func fillPowers(_ factor: Double) {
    var power = 1.0
    for k in 0..<decayPowers.count {
      decayPowers[k] = Float(power)
      power *= factor
    }
  }

  /// Gain, soft limiter and statistics over the mixed chunk.
  private func finish(_ out: UnsafeMutablePointer<Float>, count: Int) {
    let result = hap_finish(kernelCode, out, Int32(count), gain, statistics.peakBeforeLimiter)
    // Limiting never raises a level, so the output peak is the limited input peak.
    statistics.peakBeforeLimiter = result.peakBefore
    statistics.peak = max(statistics.peak, SoftLimiter.limit(result.peakBefore))
    statistics.sumOfSquares += Double(result.sumOfSquares)
    statistics.limitedFrames += Int(result.limited)
    statistics.frames += count
  }
}

/// The soft limiter: transparent up to ``threshold``, then a tanh knee that approaches full scale
/// without ever reaching it, so overlapping events never clip hard. Memoryless, so it keeps the
/// output independent of block size.
public enum SoftLimiter {
  /// Levels up to here pass unchanged. A single event at full intensity peaks at the profile's
  /// MaximumAmplitude (0.8 for the built-ins), below this, so only overlapping events reach it.
  public static let threshold: Float = 0.85
  /// The limiter's output never exceeds this (-0.09 dBFS).
  public static let ceiling: Float = 0.99

  /// The knee, `sign(x) × (threshold + h tanh((|x| − threshold) / h))` with h = ceiling −
  /// threshold, tanh z taken as (1 − e^−2z) / (1 + e^−2z). One implementation, in C
  /// (`hap_limit`), which the renderer's kernels use too.
  @inline(__always)
  public static func limit(_ x: Float) -> Float { hap_limit(x) }
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
