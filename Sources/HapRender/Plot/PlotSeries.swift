import FoundationEssentials
import Glibc
import HapFormat

/// The time window a plot shows, cut into one column per pixel of the plot area.
public struct PlotWindow: Sendable, Equatable {
  /// Seconds at the left and right edges of the plot area.
  public let from: Double
  public let to: Double
  /// Columns (pixels) across the plot area.
  public let columns: Int

  public init(from: Double, to: Double, columns: Int) {
    precondition(to > from && columns > 0)
    self.from = from
    self.to = to
    self.columns = columns
  }

  public var span: Double { to - from }

  /// The column (possibly outside 0..<columns) holding time `t`.
  public func column(at t: Double) -> Int {
    let c = ((t - from) / span * Double(columns)).rounded(.down)
    return Int(min(max(c, -1), Double(columns)))
  }
}

/// What one pattern contributes to a plot, reduced to the plot's columns: its event marks, its
/// effective intensity and sharpness per column, its rendered signal's min/max per column and
/// the control points of its intensity and sharpness controls. Its size is bounded by the
/// number of columns, whatever the pattern's length or number of events.
///
/// Everything is derived from the ``Schedule`` the renderer plays: the voices (with their
/// envelopes planned by the same ``EnvelopePlanner``), the control tracks, and the samples of
/// a ``Renderer``.
public struct PlotSeries: Sendable {
  /// One mark in the events lane: an event, or several whose starts fall in the same column.
  public struct Mark: Sendable, Equatable {
    public var continuous: Bool
    /// Start and end in seconds (a transient: end == start).
    public var start: Double
    public var end: Double
    /// The largest intensity of the merged events (the event's own HapticIntensity).
    public var intensity: Double
    /// The first and last event merged into the mark (their entry numbers in the file's
    /// `Pattern` array, or their index in the sorted event list for a pattern built in code).
    public var first: Int
    public var last: Int
  }

  /// A control point of an intensity or sharpness control (a `Parameter` or a curve point).
  public struct ControlPoint: Sendable, Equatable {
    public var time: Double
    public var value: Double
  }

  public let window: PlotWindow
  public let marks: [Mark]
  /// Per column: the largest effective intensity of the voices sounding there (event
  /// intensity × intensity control × envelope level), nil where nothing sounds.
  public let intensity: [Double?]
  /// Per column: the lowest and highest effective sharpness of the voices sounding there.
  public let sharpness: [ClosedRange<Double>?]
  /// Per column: the intensity control's value (nil where the control never changes).
  public let intensityControl: [Double]?
  /// Per column: the sharpness control's value (an offset, -1...1; nil when constant).
  public let sharpnessControl: [Double]?
  public let intensityPoints: [ControlPoint]
  public let sharpnessPoints: [ControlPoint]
  /// Per column: the lowest and highest sample of the rendered signal (nil: nothing rendered
  /// there, past the end of the signal).
  public let waveform: [ClosedRange<Float>?]
  /// The rendered signal's peak magnitude within the window.
  public let peak: Float

  public init(pattern: Pattern, profile: ActuatorProfile, window: PlotWindow, rate: Double = 48000) {
    self.window = window
    let schedule = Schedule(pattern: pattern, profile: profile, rate: rate)
    marks = PlotSeries.marks(pattern, window: window)
    (intensity, sharpness) = PlotSeries.levels(schedule, window: window)
    intensityControl = PlotSeries.track(schedule.intensityControl, window: window, rate: rate)
    sharpnessControl = PlotSeries.track(schedule.sharpnessControl, window: window, rate: rate)
    intensityPoints = PlotSeries.points(pattern, .hapticIntensityControl, window: window)
    sharpnessPoints = PlotSeries.points(pattern, .hapticSharpnessControl, window: window)
    (waveform, peak) = PlotSeries.waveform(schedule, window: window)
  }

  /// The events lane: haptic events in the window, merged where their starts share a column
  /// (so there are at most two marks per column, one of each kind).
  static func marks(_ pattern: Pattern, window: PlotWindow) -> [Mark] {
    var marks: [Mark] = []
    var lastColumn: [Bool: (index: Int, column: Int)] = [:]
    for (index, event) in pattern.events.enumerated() where event.type.isHaptic {
      let continuous = event.type == .hapticContinuous
      let end = event.time + Schedule.soundingLength(of: event)
      guard end >= window.from, event.time <= window.to else { continue }
      let number = event.source.entry.entry >= 0 ? event.source.entry.entry : index
      let column = max(0, window.column(at: event.time))
      if let previous = lastColumn[continuous], previous.column == column {
        marks[previous.index].end = max(marks[previous.index].end, end)
        marks[previous.index].intensity = max(marks[previous.index].intensity, event.parameters.hapticIntensity)
        marks[previous.index].first = min(marks[previous.index].first, number)
        marks[previous.index].last = max(marks[previous.index].last, number)
        continue
      }
      lastColumn[continuous] = (marks.count, column)
      marks.append(
        Mark(
          continuous: continuous, start: event.time, end: end, intensity: event.parameters.hapticIntensity,
          first: number, last: number))
    }
    return marks
  }

  /// Effective intensity and sharpness per column, from the schedule's voices: a transient
  /// sounds at its intensity × the intensity control at its start; a continuous voice at its
  /// intensity × the control × its envelope level, piece by piece as the renderer plans it.
  /// Each column takes the values at the ends of every piece within it.
  package static func levels(_ schedule: Schedule, window: PlotWindow) -> ([Double?], [ClosedRange<Double>?]) {
    var intensity = [Double?](repeating: nil, count: window.columns)
    var sharpness = [ClosedRange<Double>?](repeating: nil, count: window.columns)
    let rate = schedule.rate
    let first = window.from * rate
    let perColumn = window.span * rate / Double(window.columns)
    func note(_ frame: Int, level: Double, sharp: Double) {
      let c = Int(((Double(frame) - first) / perColumn).rounded(.down))
      guard c >= 0 && c < window.columns else { return }
      intensity[c] = max(intensity[c] ?? 0, level)
      let s = min(max(sharp, 0), 1)
      sharpness[c] = sharpness[c].map { min($0.lowerBound, s)...max($0.upperBound, s) } ?? s...s
    }
    /// Calls `body` with the first and last frame of each column that `range` covers.
    func columns(_ range: Range<Int>, _ body: (Int, Int) -> Void) {
      let low = max(range.lowerBound, Int(first.rounded(.up)))
      let high = min(range.upperBound, Int((window.to * rate).rounded(.down)) + 1)
      guard low < high else { return }
      var a = low
      while a < high {
        let c = ((Double(a) - first) / perColumn).rounded(.down)
        let next = Int((first + (c + 1) * perColumn).rounded(.up))
        let b = min(high, max(next, a + 1))
        body(a, b - 1)
        a = b
      }
    }
    schedule.envelopeControls.changes.withUnsafeBufferPointer { changes in
      let planner = EnvelopePlanner(changes: changes, rate: rate, limit: .max)
      for voice in schedule.voices {
        switch voice.kind {
        case .transient:
          let level = voice.intensity * schedule.intensityControl.value(at: Double(voice.start))
          columns(voice.start..<max(voice.soundEnd, voice.start + 1)) { a, b in
            note(a, level: level, sharp: voice.sharpness)
            note(b, level: level, sharp: voice.sharpness)
          }
        case .continuous:
          var piece = planner.first(voice, live: LiveEnvelope())
          while piece.stage != .done {
            columns(piece.start..<piece.end) { a, b in
              for frame in [a, b] {
                let level = piece.level(at: frame) * voice.intensity
                let control = schedule.intensityControl.value(at: Double(frame))
                let sharp = voice.sharpness + schedule.sharpnessControl.value(at: Double(frame))
                note(frame, level: min(max(level * control, 0), 1), sharp: sharp)
              }
            }
            piece = planner.next(voice, after: piece, live: LiveEnvelope())
          }
        }
      }
    }
    return (intensity, sharpness)
  }

  /// A control track's value at each column's centre, or nil when it never changes.
  static func track(_ track: ControlTrack, window: PlotWindow, rate: Double) -> [Double]? {
    guard !track.isConstant else { return nil }
    return (0..<window.columns).map { c in
      let t = window.from + (Double(c) + 0.5) * window.span / Double(window.columns)
      return track.value(at: t * rate)
    }
  }

  /// The `Parameter`s and curve points of `id` within the window, at most one per column and
  /// value (hundredths), in time order.
  static func points(_ pattern: Pattern, _ id: DynamicParameterID, window: PlotWindow) -> [ControlPoint] {
    var all: [ControlPoint] = pattern.parameters.filter { $0.id == id }.map {
      ControlPoint(time: $0.time, value: $0.value)
    }
    for curve in pattern.curves where curve.id == id {
      all += curve.points.map { ControlPoint(time: $0.time, value: $0.value) }
    }
    all.sort { ($0.time, $0.value) < ($1.time, $1.value) }
    var seen: Set<[Int]> = []
    return all.filter { point in
      guard point.time >= window.from && point.time <= window.to else { return false }
      return seen.insert([window.column(at: point.time), Int((point.value * 100).rounded())]).inserted
    }
  }

  /// Renders the pattern with the real renderer (silence skipped, nothing kept but one block)
  /// and keeps each column's lowest and highest sample.
  static func waveform(_ schedule: Schedule, window: PlotWindow) -> ([ClosedRange<Float>?], Float) {
    var columns = [ClosedRange<Float>?](repeating: nil, count: window.columns)
    var peak: Float = 0
    let rate = schedule.rate
    let firstFrame = Frames.from(seconds: window.from, rate: rate)
    let endFrame = min(schedule.frameCount, Frames.from(seconds: window.to, rate: rate) + 1)
    let first = window.from * rate
    let perColumn = window.span * rate / Double(window.columns)
    let renderer = Renderer(schedule: schedule)
    let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096)
    defer { block.deallocate() }
    func note(_ frame: Int, _ low: Float, _ high: Float) {
      let c = Int(((Double(frame) - first) / perColumn).rounded(.down))
      guard c >= 0 && c < window.columns else { return }
      columns[c] = columns[c].map { min($0.lowerBound, low)...max($0.upperBound, high) } ?? low...high
    }
    while renderer.position < endFrame {
      let quiet = renderer.silentFrames
      if quiet > 0 {
        // Silence: zero in the columns it covers (their first and last frame are enough).
        let a = max(renderer.position, firstFrame)
        let b = min(renderer.position + quiet, endFrame)
        if a < b {
          var frame = a
          while frame < b {
            note(frame, 0, 0)
            let c = ((Double(frame) - first) / perColumn).rounded(.down)
            frame = max(frame + 1, Int((first + (c + 1) * perColumn).rounded(.up)))
          }
          note(b - 1, 0, 0)
        }
        renderer.skipSilence(quiet)
        continue
      }
      let start = renderer.position
      let count = renderer.render(into: UnsafeMutableBufferPointer(rebasing: block[0..<min(4096, endFrame - start)]))
      if count == 0 { break }
      for k in 0..<count where start + k >= firstFrame {
        let x = block[k]
        note(start + k, x, x)
        peak = max(peak, abs(x))
      }
    }
    return (columns, peak)
  }
}
