import HapFormat

/// What `hap info` reports about a pattern: its contents and its rendered signal.
public struct PatternSummary: Sendable {
  /// Length in seconds including release tails.
  public let duration: Double
  public let eventCounts: [(type: EventType, count: Int)]
  public let parameterCounts: [(id: DynamicParameterID, count: Int)]
  public let curveCounts: [(id: DynamicParameterID, count: Int)]
  public let statistics: RenderStatistics
  /// Peak level of the signal in each of `timeline.count` equal slices of the pattern, 0...1.
  public let timeline: [Double]
  public let skippedAudioEvents: Int
  public let rate: Double
  /// What decided the length (nil for a pattern with no events).
  public let end: PatternEnd?
  /// The end of the written timeline (``Pattern/duration``: events, parameters and curves,
  /// without release tails). When it is later than `duration`, parameters or curves run on
  /// after the last sound, in silence.
  public let writtenDuration: Double

  /// Renders `pattern` completely (in constant memory) and measures it.
  public init(pattern: Pattern, profile: ActuatorProfile, rate: Double = 48000, columns: Int = 60) {
    self.rate = rate
    eventCounts = EventType.allCases.compactMap { type in
      let count = pattern.events.filter { $0.type == type }.count
      return count > 0 ? (type, count) : nil
    }
    parameterCounts = DynamicParameterID.allCases.compactMap { id in
      let count = pattern.parameters.filter { $0.id == id }.count
      return count > 0 ? (id, count) : nil
    }
    curveCounts = DynamicParameterID.allCases.compactMap { id in
      let count = pattern.curves.filter { $0.id == id }.count
      return count > 0 ? (id, count) : nil
    }
    let schedule = Schedule(pattern: pattern, profile: profile, rate: rate)
    duration = schedule.duration
    writtenDuration = pattern.duration
    end = schedule.lastSoundingEvent.map { PatternEnd(pattern: pattern, schedule: schedule, event: $0) }
    skippedAudioEvents = schedule.skippedAudioEvents
    let renderer = Renderer(schedule: schedule)
    let columns = PatternSummary.clampColumns(columns)
    var peaks = [Double](repeating: 0, count: columns)
    let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096)
    defer { block.deallocate() }
    let frameCount = max(1, schedule.frameCount)
    while renderer.remaining > 0 {
      // Silence costs nothing: it adds no peak, and the statistics count it without samples.
      let quiet = renderer.silentFrames
      if quiet > 0 {
        renderer.skipSilence(quiet)
        continue
      }
      let start = renderer.position
      let frames = renderer.render(into: block)
      for k in 0..<frames {
        let column = min(columns - 1, (start + k) * columns / frameCount)
        peaks[column] = max(peaks[column], Double(abs(block[k])))
      }
    }
    timeline = peaks
    statistics = renderer.statistics
  }

  /// Timelines have 1 to 512 columns, so that frame × columns cannot overflow even at the
  /// largest frame position (``Frames/maximum``).
  package static func clampColumns(_ columns: Int) -> Int { min(512, max(1, columns)) }

  /// The timeline as Unicode block characters (a space for silence), scaled so that `fullScale`
  /// is a full block.
  public func timelineBars(fullScale: Double) -> String {
    let bars: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
    return String(
      timeline.map { level -> Character in
        if level <= 0 { return " " }
        let index = Int((level / fullScale * 8).rounded(.up))
        return bars[min(8, max(1, index))]
      })
  }
}

/// The event whose sound ends last, which decides a pattern's length, and how its sound ends.
public struct PatternEnd: Sendable, Equatable {
  public enum Ending: String, Sendable {
    /// A transient's burst.
    case tap
    /// A continuous event's release tail.
    case release
    /// A continuous event with Sustained 0 that decayed to silence before its duration ended.
    case decay
    /// An audio event's span (not rendered, but it sounds on the device).
    case audio
  }

  public let type: EventType
  /// Start of the event, in seconds.
  public let time: Double
  /// Its index in the file's `Pattern` array (-1 for a pattern built in code).
  public let entry: Int
  public let ending: Ending

  init(pattern: Pattern, schedule: Schedule, event index: Int) {
    let event = pattern.events[index]
    type = event.type
    time = event.time
    entry = event.source.entry.entry
    if !event.type.isHaptic {
      ending = .audio
    } else if event.type == .hapticTransient {
      ending = .tap
    } else if let voice = schedule.voices.first(where: { $0.event == index }), voice.soundEnd <= voice.end {
      ending = .decay
    } else {
      ending = .release
    }
  }

  /// "the release of the HapticContinuous at 0.1 s (/Pattern/3)".
  public var description: String {
    let what: String
    switch ending {
    case .tap: what = "the \(type.rawValue)"
    case .release: what = "the release of the \(type.rawValue)"
    case .decay: what = "the decay to silence of the \(type.rawValue)"
    case .audio: what = "the \(type.rawValue) event"
    }
    return "\(what) at \(Format.seconds(time))" + (entry >= 0 ? " (/Pattern/\(entry))" : "")
  }
}
