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
    skippedAudioEvents = schedule.skippedAudioEvents
    let renderer = Renderer(schedule: schedule)
    let columns = max(1, columns)
    var peaks = [Double](repeating: 0, count: columns)
    let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096)
    defer { block.deallocate() }
    let frameCount = max(1, schedule.frameCount)
    while renderer.remaining > 0 {
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
