import CHapKernels
import FoundationEssentials
import Glibc
import HapFormat

/// Streams the audio track of a compiled ``AudioSchedule``, block by block, as interleaved
/// stereo Float frames (left, right) in -1...1: the second signal beside the haptic one, at the
/// same rate, frame k of one the same instant as frame k of the other.
///
/// Like ``Renderer``: the controls are evaluated on absolute multiples of the control grid and
/// interpolated linearly between them, every per-voice state (read position, tone phase, filter,
/// envelope) advances one frame at a time whatever the block size, so the samples are a pure
/// function of the frame index (blocks of 1, 37, 512 or 4096 frames give identical output); the
/// voices are mixed in admission order, scaled by the gain and passed through the same soft
/// limiter (``SoftLimiter``). It holds the schedule's sounds (shared, not copied) plus buffers
/// of a size fixed at `init`; rendering allocates nothing.
public final class AudioRenderer {
  public let schedule: AudioSchedule
  /// Total frames the track renders to (at least the schedule's; the haptic signal's length
  /// when the caller passes it, so both signals are as long).
  public let frameCount: Int
  public private(set) var position = 0
  public private(set) var statistics = RenderStatistics()

  let grid: Int
  private let rate: Double
  private let gain: Float
  private let voiceCount: Int
  private let voices: UnsafeMutableBufferPointer<AudioSchedule.Voice>
  private let states: UnsafeMutableBufferPointer<State>
  private let active: UnsafeMutableBufferPointer<Int32>
  private var activeCount = 0
  private var nextVoice = 0
  private let entries: UnsafeMutableBufferPointer<SoundBank.Entry>
  private let samples: UnsafeMutableBufferPointer<Float>
  private let envelopeChanges: UnsafeMutableBufferPointer<EnvelopeControls.Change>
  private let planner: EnvelopePlanner
  /// The four controls' breakpoints and their values on the chunk's grid points.
  private let tracks: [UnsafeMutableBufferPointer<ControlTrack.Breakpoint>]
  private let trackCounts: [Int]
  private let defaults: [Double]
  /// Each control's breakpoint cursor: storage of its own (an array literal is a shared, static
  /// buffer in an optimised build, which the first write on the playback thread would copy).
  private let cursors: UnsafeMutableBufferPointer<Int>
  private let controlGrid: UnsafeMutableBufferPointer<Double>
  /// One grid segment of a voice: its source (left, right) and its envelope level.
  private let sourceLeft: UnsafeMutablePointer<Float>
  private let sourceRight: UnsafeMutablePointer<Float>
  private let levels: UnsafeMutablePointer<Float>
  private let kernelCode = RenderKernel.best.code
  private static let volume = 0
  private static let pan = 1
  private static let pitch = 2
  private static let brightness = 3

  struct State {
    /// Read position in the sound's frames, or the tone's phase in cycles.
    var position: Double = 0
    var envelope = EnvelopePiece.silent
    /// The two cascaded one-pole low-passes' outputs, left and right.
    var filter: (Float, Float, Float, Float) = (0, 0, 0, 0)
  }

  /// Builds every buffer rendering needs. `frameCount` lengthens the track (to the haptic
  /// signal's length); it is never shorter than the schedule's.
  public init(schedule: AudioSchedule, frameCount: Int = 0) {
    self.schedule = schedule
    self.frameCount = max(frameCount, schedule.frameCount)
    rate = schedule.rate
    gain = Float(schedule.gain)
    grid = Renderer.grid(rate: schedule.rate)
    voiceCount = schedule.voices.count
    voices = .allocate(capacity: max(1, voiceCount))
    _ = voices.initialize(from: schedule.voices)
    states = .allocate(capacity: max(1, voiceCount))
    states.initialize(repeating: State())
    active = .allocate(capacity: max(1, voiceCount))
    active.initialize(repeating: 0)
    entries = .allocate(capacity: max(1, schedule.sounds.entries.count))
    _ = entries.initialize(from: schedule.sounds.entries)
    samples = schedule.sounds.samples
    let changes = schedule.envelopeControls.changes
    envelopeChanges = .allocate(capacity: max(1, changes.count))
    _ = envelopeChanges.initialize(from: changes)
    planner = EnvelopePlanner(
      changes: UnsafeBufferPointer(rebasing: envelopeChanges[0..<changes.count]), rate: schedule.rate,
      limit: self.frameCount)
    let controls = [schedule.volumeControl, schedule.panControl, schedule.pitchControl, schedule.brightnessControl]
    tracks = controls.map { track in
      let points = UnsafeMutableBufferPointer<ControlTrack.Breakpoint>.allocate(
        capacity: max(1, track.breakpoints.count))
      _ = points.initialize(from: track.breakpoints)
      return points
    }
    trackCounts = controls.map(\.breakpoints.count)
    cursors = .allocate(capacity: 4)
    cursors.initialize(repeating: 0)
    defaults = controls.map(\.defaultValue)
    controlGrid = .allocate(capacity: 4 * Renderer.gridCapacity)
    controlGrid.initialize(repeating: 0)
    sourceLeft = .allocate(capacity: grid)
    sourceLeft.initialize(repeating: 0, count: grid)
    sourceRight = .allocate(capacity: grid)
    sourceRight.initialize(repeating: 0, count: grid)
    levels = .allocate(capacity: grid)
    levels.initialize(repeating: 0, count: grid)
  }

  deinit {
    voices.deallocate()
    states.deallocate()
    active.deallocate()
    entries.deallocate()
    envelopeChanges.deallocate()
    for track in tracks { track.deallocate() }
    cursors.deallocate()
    controlGrid.deallocate()
    sourceLeft.deallocate()
    sourceRight.deallocate()
    levels.deallocate()
  }

  /// Bytes the renderer allocated beside the sounds it shares: the same for a pattern however
  /// long it plays (they grow with its number of events, not its duration).
  public var workingBytes: Int {
    voices.count * MemoryLayout<AudioSchedule.Voice>.stride + states.count * MemoryLayout<State>.stride
      + active.count * 4 + entries.count * MemoryLayout<SoundBank.Entry>.stride
      + envelopeChanges.count * MemoryLayout<EnvelopeControls.Change>.stride
      + tracks.reduce(0) { $0 + $1.count * MemoryLayout<ControlTrack.Breakpoint>.stride } + controlGrid.count * 8 + 3
      * grid * 4
  }

  /// Frames left to render.
  public var remaining: Int { frameCount - position }

  /// Rewinds to the start (for looping). Allocates nothing.
  public func reset() {
    seek(to: 0)
    statistics = RenderStatistics()
  }

  /// Jumps to `frame` (a player's seek): the voices sounding there sound from where they would
  /// be, their envelopes advanced to `frame`, a sound's read position (or the tone's phase) as
  /// if its pitch had been the one in force at `frame` since it started, its filter from rest
  /// (the caller ramps the output around the jump). Allocates nothing.
  public func seek(to frame: Int) {
    position = min(max(0, frame), frameCount)
    activeCount = 0
    for c in 0..<4 { cursors[c] = 0 }
    var k = 0
    while k < voiceCount && voices[k].start < position {
      if voices[k].soundEnd > position { resume(k, at: position) }
      k += 1
    }
    nextVoice = k
    for c in 0..<4 { cursors[c] = 0 }
  }

  /// Admits voice `k` part way through, at `frame` (``seek(to:)``).
  private func resume(_ k: Int, at frame: Int) {
    admit(k)
    let voice = voices[k]
    if voice.usesEnvelope {
      planner.advance(voice.envelope, &states[k].envelope, to: frame, live: LiveEnvelope())
      if states[k].envelope.stage == .done {
        activeCount -= 1
        return
      }
    }
    let pitch = Renderer.evaluate(
      tracks[AudioRenderer.pitch], trackCounts[AudioRenderer.pitch], &cursors[AudioRenderer.pitch], Double(frame),
      defaults[AudioRenderer.pitch])
    var increment = AudioChoices.rateFactor(pitch: voice.pitch + pitch)
    let elapsed = Double(frame - voice.start)
    switch voice.source {
    case .tone:
      let cycles = elapsed * increment * AudioChoices.toneFrequency / rate
      states[k].position = cycles - cycles.rounded(.down)
    case .sound(let s):
      increment *= entries[s].rate / rate
      var read = elapsed * increment
      if voice.loops && entries[s].frames > 0 { read = read.truncatingRemainder(dividingBy: Double(entries[s].frames)) }
      states[k].position = read
    }
  }

  /// Renders the next `min(buffer.count / 2, remaining)` frames into `buffer` (interleaved left,
  /// right) and returns how many. The real-time contract of ``Renderer/render(into:)`` holds.
  public func render(into buffer: UnsafeMutableBufferPointer<Float>) -> Int {
    let total = min(buffer.count / 2, frameCount - position)
    guard total > 0, let base = buffer.baseAddress else { return 0 }
    var written = 0
    while written < total {
      let count = min(Renderer.chunk, total - written)
      renderChunk(base + 2 * written, count: count)
      written += count
      position += count
    }
    return written
  }

  private func renderChunk(_ out: UnsafeMutablePointer<Float>, count: Int) {
    let first = position
    let last = position + count
    out.update(repeating: 0, count: 2 * count)
    while nextVoice < voiceCount && voices[nextVoice].start < last {
      admit(nextVoice)
      nextVoice += 1
    }
    guard activeCount > 0 else {
      statistics.frames += count
      return
    }
    let gridFirst = evaluateControls(first: first, last: last)
    var k = 0
    while k < activeCount {
      let index = Int(active[k])
      let voice = voices[index]
      let to = min(last, voice.soundEnd)
      let from = max(first, voice.start)
      if from < to { renderVoice(index, out, first: first, gridFirst: gridFirst, from: from, to: to) }
      if voice.soundEnd <= last || states[index].envelope.stage == .done {
        for j in k..<(activeCount - 1) { active[j] = active[j + 1] }
        activeCount -= 1
      } else {
        k += 1
      }
    }
    finish(out, count: count)
  }

  private func admit(_ k: Int) {
    var state = State()
    if voices[k].usesEnvelope {
      state.envelope = planner.first(voices[k].envelope, live: LiveEnvelope())
    } else {
      // No envelope: a constant level 1 until the sound ends.
      state.envelope = EnvelopePiece(
        stage: .hold, start: voices[k].start, end: .max, stageEnd: .max, level: 1, rate: 0, releaseLevel: 1)
    }
    states[k] = state
    active[activeCount] = Int32(k)
    activeCount += 1
  }

  /// The four controls on the grid points covering `first..<last` (row-major: control, point);
  /// returns the index of the first grid point.
  private func evaluateControls(first: Int, last: Int) -> Int {
    let gridFirst = first / grid
    let gridLast = (last - 1) / grid + 1
    for c in 0..<4 {
      if trackCounts[c] == 0 {
        // A control the pattern never sets: its default everywhere (what evaluate returns).
        (controlGrid.baseAddress! + c * Renderer.gridCapacity).update(
          repeating: defaults[c], count: gridLast - gridFirst + 1)
        continue
      }
      for k in gridFirst...gridLast {
        controlGrid[c * Renderer.gridCapacity + k - gridFirst] = Renderer.evaluate(
          tracks[c], trackCounts[c], &cursors[c], Double(k * grid), defaults[c])
      }
    }
    return gridFirst
  }

  @inline(__always)
  private func control(_ c: Int, _ point: Int) -> Double { controlGrid[c * Renderer.gridCapacity + point] }

  /// What a voice's parameters are at one grid point: channel gains (volume and pan), the
  /// read-position (or phase) increment and the filter coefficient.
  struct Point {
    var left: Float
    var right: Float
    var increment: Double
    var coefficient: Float
  }

  private func point(_ voice: AudioSchedule.Voice, _ g: Int) -> Point {
    let volume = min(max(voice.volume * control(AudioRenderer.volume, g), 0), 1)
    let gains = AudioChoices.panLaw.gains(voice.pan + control(AudioRenderer.pan, g))
    var increment = AudioChoices.rateFactor(pitch: voice.pitch + control(AudioRenderer.pitch, g))
    switch voice.source {
    case .tone: increment *= AudioChoices.toneFrequency / rate
    case .sound(let s): increment *= entries[s].rate / rate
    }
    let coefficient =
      voice.filtered
      ? AudioChoices.filterCoefficient(brightness: voice.brightness + control(AudioRenderer.brightness, g), rate: rate)
      : 1
    return Point(
      left: Float(volume * gains.left), right: Float(volume * gains.right), increment: increment,
      coefficient: coefficient)
  }

  /// Adds voice `index` over frames `from..<to` of the chunk starting at `first`, one grid
  /// segment at a time.
  private func renderVoice(
    _ index: Int, _ out: UnsafeMutablePointer<Float>, first: Int, gridFirst: Int, from: Int, to: Int
  ) {
    let voice = voices[index]
    var state = states[index]
    var n = from
    var b = point(voice, n / grid - gridFirst)
    while n < to && state.envelope.stage != .done {
      let g = n / grid
      let end = min(to, (g + 1) * grid)
      let a = b
      b = point(voice, g - gridFirst + 1)
      renderSegment(voice, &state, out + 2 * (n - first), from: n, to: end, segmentStart: g * grid, a, b)
      n = end
    }
    states[index] = state
  }

  /// Frames `from..<to` of one grid segment (starting at `segmentStart`), the gains and the
  /// increment interpolated linearly between its two grid points `a` and `b`: the source into
  /// the scratch buffers, filtered, times the envelope and the gains, added to `out`.
  @inline(__always)
  private func renderSegment(
    _ voice: AudioSchedule.Voice, _ state: inout State, _ out: UnsafeMutablePointer<Float>, from: Int, to: Int,
    segmentStart: Int, _ a: Point, _ b: Point
  ) {
    let count = envelopeLevels(voice, &state, from: from, to: to)
    guard count > 0 else { return }
    // A mono source (a mono sound, the tone) is only in its left buffer; a mono sound read
    // as it is, unfiltered, straight from the bank.
    let mono = isMono(voice)
    var left = sourceLeft
    if let direct = directSource(voice, state, count: count, a.increment, b.increment) {
      left = direct
      state.position += Double(count)
    } else {
      fillSource(voice, &state, from: from, count: count, segmentStart: segmentStart, a.increment, b.increment)
    }
    let right = mono ? left : sourceRight
    if voice.filtered {
      if mono {
        for k in 0..<count { filterOne(&state.filter, &sourceLeft[k], a.coefficient) }
      } else {
        for k in 0..<count { filter(&state.filter, &sourceLeft[k], &sourceRight[k], a.coefficient) }
      }
    }
    let scale = 1 / Float(grid)
    let t0 = Float(from - segmentStart) * scale
    let dl = b.left - a.left
    let dr = b.right - a.right
    if dl == 0 && dr == 0 {
      // Gains constant over the segment (the usual case): the same products, a + 0 × t being a.
      for k in 0..<count {
        let e = levels[k]
        out[2 * k] += a.left * e * left[k]
        out[2 * k + 1] += a.right * e * right[k]
      }
      return
    }
    for k in 0..<count {
      let t = t0 + Float(k) * scale
      let e = levels[k]
      out[2 * k] += (a.left + dl * t) * e * left[k]
      out[2 * k + 1] += (a.right + dr * t) * e * right[k]
    }
  }

  /// Where a mono sound's next `count` frames already are in the bank, when the voice reads
  /// them as they are (rate 1 from a whole position, no loop, no filter, all within the file):
  /// the copy ``fillSource`` would make, without making it. Nil otherwise.
  @inline(__always)
  private func directSource(
    _ voice: AudioSchedule.Voice, _ state: State, count: Int, _ a: Double, _ b: Double
  ) -> UnsafeMutablePointer<Float>? {
    guard a == 1 && b == 1, !voice.loops, !voice.filtered, case .sound(let s) = voice.source else { return nil }
    let entry = entries[s]
    guard entry.channels == 1, state.position.rounded(.down) == state.position else { return nil }
    let i = Int(state.position)
    guard i >= 0 && i + count <= entry.frames else { return nil }
    return samples.baseAddress! + entry.offset + i
  }

  /// The envelope's level at frames `from..<to` into `levels`; returns how many frames sound
  /// (fewer when the envelope ends within them).
  @inline(__always)
  private func envelopeLevels(_ voice: AudioSchedule.Voice, _ state: inout State, from: Int, to: Int) -> Int {
    var n = from
    while n < to {
      if n >= state.envelope.end {
        planner.advance(voice.envelope, &state.envelope, to: n, live: LiveEnvelope())
        if state.envelope.stage == .done { break }
      }
      let piece = state.envelope
      let end = min(to, piece.end)
      if piece.isGeometric {
        for m in n..<end { levels[m - from] = Float(piece.level(at: m)) }
      } else {
        // Anchored where the piece or the grid segment starts (frames that do not depend on
        // where a block starts), so the levels are a function of the frame index.
        let anchor = max(piece.start, n - n % grid)
        let base = Float(piece.level + piece.rate * Double(anchor - piece.start))
        let slope = Float(piece.rate)
        if slope == 0 {
          // A held level (base + 0 × k is base).
          (levels + (n - from)).update(repeating: base, count: end - n)
        } else {
          for m in n..<end { levels[m - from] = base + slope * Float(m - anchor) }
        }
      }
      n = end
    }
    return n - from
  }

  /// The voice's source over `count` frames from `from` into the scratch buffers, advancing
  /// its position. A sound read at rate 1 from a whole position is copied as it is.
  @inline(__always)
  private func fillSource(
    _ voice: AudioSchedule.Voice, _ state: inout State, from: Int, count: Int, segmentStart: Int, _ a: Double,
    _ b: Double
  ) {
    let scale = 1 / Double(grid)
    let t0 = Double(from - segmentStart) * scale
    if a == 1 && b == 1, case .sound(let s) = voice.source, !voice.loops,
      state.position.rounded(.down) == state.position
    {
      let entry = entries[s]
      let i = Int(state.position)
      let base = samples.baseAddress! + entry.offset
      let available = max(0, min(count, entry.frames - i))
      if entry.channels == 1 {
        for k in 0..<available { sourceLeft[k] = base[i + k] }
      } else {
        for k in 0..<available {
          sourceLeft[k] = base[2 * (i + k)]
          sourceRight[k] = base[2 * (i + k) + 1]
        }
      }
      for k in available..<count {
        sourceLeft[k] = 0
        sourceRight[k] = 0
      }
      state.position += Double(count)
      return
    }
    for k in 0..<count {
      let unity = a == 1 && b == 1
      (sourceLeft[k], sourceRight[k]) = source(voice, &state, unity: unity, t: t0 + Double(k) * scale, a, b)
    }
  }

  /// The voice's source at its position (left, right), then the position advanced.
  @inline(__always)
  private func source(
    _ voice: AudioSchedule.Voice, _ state: inout State, unity: Bool, t: Double, _ a: Double, _ b: Double
  ) -> (Float, Float) {
    let increment = unity ? 1 : a + (b - a) * t
    switch voice.source {
    case .tone:
      let value = Float(AudioChoices.toneWaveform.value(state.position))
      state.position += increment
      state.position -= state.position.rounded(.down)
      return (value, value)
    case .sound(let s):
      let entry = entries[s]
      let frame = sample(entry, at: state.position, loops: voice.loops, exact: unity)
      state.position += increment
      if voice.loops && state.position >= Double(entry.frames) { state.position -= Double(entry.frames) }
      return frame
    }
  }

  /// The sound's frame at fractional `position` (4-point cubic Hermite, Catmull-Rom, between
  /// frames; exact on a whole position); outside the file, silence (or the loop's wrap).
  @inline(__always)
  private func sample(_ entry: SoundBank.Entry, at position: Double, loops: Bool, exact: Bool) -> (Float, Float) {
    let i = Int(position.rounded(.down))
    let base = samples.baseAddress! + entry.offset
    let ch = entry.channels
    @inline(__always) func at(_ k: Int, _ c: Int) -> Float {
      var k = k
      if loops {
        k %= entry.frames
        if k < 0 { k += entry.frames }
      } else if k < 0 || k >= entry.frames {
        return 0
      }
      return base[k * ch + c]
    }
    let t = Float(position - Double(i))
    if exact || t == 0 {
      let l = at(i, 0)
      return (l, ch == 2 ? at(i, 1) : l)
    }
    @inline(__always) func cubic(_ c: Int) -> Float {
      let p0 = at(i - 1, c)
      let p1 = at(i, c)
      let p2 = at(i + 1, c)
      let p3 = at(i + 2, c)
      return p1 + 0.5 * t * (p2 - p0 + t * (2 * p0 - 5 * p1 + 4 * p2 - p3 + t * (3 * (p1 - p2) + p3 - p0)))
    }
    let l = cubic(0)
    return (l, ch == 2 ? cubic(1) : l)
  }

  /// Whether the voice's source is mono (a mono sound, or the tone).
  @inline(__always)
  private func isMono(_ voice: AudioSchedule.Voice) -> Bool {
    if case .sound(let s) = voice.source { return entries[s].channels == 1 }
    return true
  }

  /// The filter on a mono source (the left channel's state).
  @inline(__always)
  private func filterOne(_ z: inout (Float, Float, Float, Float), _ x: inout Float, _ a: Float) {
    z.0 += a * (x - z.0)
    z.1 += a * (z.0 - z.1)
    x = z.1
  }

  /// Two cascaded one-pole low-passes on each channel (12 dB per octave above the cutoff).
  @inline(__always)
  private func filter(_ z: inout (Float, Float, Float, Float), _ l: inout Float, _ r: inout Float, _ a: Float) {
    z.0 += a * (l - z.0)
    z.1 += a * (z.0 - z.1)
    z.2 += a * (r - z.2)
    z.3 += a * (z.2 - z.3)
    l = z.1
    r = z.3
  }

  /// Gain, soft limiter and statistics over the mixed chunk (both channels; the haptic
  /// signal's kernel over the interleaved samples). `limitedFrames` counts samples here.
  private func finish(_ out: UnsafeMutablePointer<Float>, count: Int) {
    let result = hap_finish(kernelCode, out, Int32(2 * count), gain, statistics.peakBeforeLimiter)
    statistics.peakBeforeLimiter = result.peakBefore
    statistics.peak = max(statistics.peak, SoftLimiter.limit(result.peakBefore))
    statistics.sumOfSquares += Double(result.sumOfSquares) / 2
    statistics.limitedFrames += Int(result.limited)
    statistics.frames += count
  }
}
