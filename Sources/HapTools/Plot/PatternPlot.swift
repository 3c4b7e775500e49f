import FoundationEssentials
import Glibc
import HapFormat
import HapPlayback
import HapRender

/// Colours of a plot. `auto` is the light palette with a `prefers-color-scheme: dark` media
/// query, so one file suits both a light and a dark page.
public enum PlotTheme: String, Sendable, CaseIterable {
  case light
  case dark
  case auto
}

/// How to draw a plot: the picture's width, the time window and the colours.
public struct PlotOptions: Sendable, Equatable {
  /// The picture's width in pixels (the plot area is this less the margins).
  public var width = 1000
  /// The window in seconds; `to` nil: the end of the longest pattern (its written timeline or
  /// its sound with release tails, whichever is later).
  public var from = 0.0
  public var to: Double?
  public var theme = PlotTheme.light
  /// The rate the waveform is rendered at.
  public var rate = 48000.0

  public static let widthRange = 240...20000
  /// Margins left of the plot area (axis labels) and right of it (the frequency axis).
  static let left = 48.0
  static let right = 64.0

  public init(width: Int = 1000, from: Double = 0, to: Double? = nil, theme: PlotTheme = .light) {
    self.width = width
    self.from = from
    self.to = to
    self.theme = theme
  }
}

/// A pattern (or two, overlaid) as an SVG picture: one time axis, and the lanes events,
/// intensity, sharpness and waveform. Pure: the same input gives the same text. The picture's
/// size is bounded by the width: every lane holds at most a few elements per pixel column.
public enum PatternPlot {
  /// One pattern to draw and the name shown for it (its file name), and its audio track
  /// compiled with its sounds (the caller finds them; nil: no audio lane).
  public struct Input: Sendable {
    public var name: String
    public var pattern: Pattern
    public var audio: AudioSchedule?
    public init(name: String, pattern: Pattern, audio: AudioSchedule? = nil) {
      self.name = name
      self.pattern = pattern
      self.audio = audio
    }
  }

  /// The lanes of a pattern, top to bottom, with their heights in pixels.
  static let lanes: [(name: String, height: Double)] = [
    ("events", 60), ("intensity", 70), ("sharpness", 70), ("waveform", 90),
  ]
  /// The lane of a recorded signal (`hap plot --signal`), below the pattern's lanes if any.
  static let signalLane = (name: "signal", height: 90.0)
  /// The lane of the audio track (left channel above the middle, right below), below the
  /// waveform, for a pattern with audio events.
  static let audioLane = (name: "audio", height: 90.0)

  /// The window the options ask for: `from` to `to`, or to the end of the longest input or
  /// `atLeast` seconds (a recorded signal's length), at least 0.1 s past `from`.
  public static func window(_ inputs: [Input], profile: ActuatorProfile, options: PlotOptions, atLeast: Double = 0)
    -> PlotWindow
  {
    let columns = options.width - Int(PlotOptions.left + PlotOptions.right)
    if let to = options.to { return PlotWindow(from: options.from, to: to, columns: columns) }
    var end = atLeast
    for input in inputs {
      let schedule = Schedule(pattern: input.pattern, profile: profile, rate: options.rate)
      end = max(end, input.pattern.duration, schedule.duration, input.audio?.duration ?? 0)
    }
    return PlotWindow(from: options.from, to: max(end, options.from + 0.1), columns: columns)
  }

  /// The SVG text of `inputs` (one, or two overlaid with a legend), and of a recorded `signal`
  /// in a lane of its own below them (its window is the picture's: make it with ``window``,
  /// `atLeast` its length). With a signal, `inputs` may be empty: the signal's lane alone.
  public static func svg(
    _ inputs: [Input], profile: ActuatorProfile, options: PlotOptions, signal: SignalSeries? = nil
  ) -> String {
    let window = signal?.window ?? window(inputs, profile: profile, options: options)
    let series = inputs.map { PlotSeries(pattern: $0.pattern, profile: profile, window: window, rate: options.rate) }
    let audio = inputs.map { input in input.audio.map { AudioSeries($0, window: window) } }
    let audioLanes = audio.contains { $0 != nil } ? [audioLane] : []
    let lanes = (inputs.isEmpty ? [] : Self.lanes + audioLanes) + (signal == nil ? [] : [signalLane])
    let layout = Layout(window: window, width: Double(options.width), legend: inputs.count > 1, lanes: lanes)
    var svg = SVGText()
    let title = (inputs.map(\.name) + (signal.map { [$0.name] } ?? [])).map { Format.excerpt($0) }.joined(
      separator: inputs.count > 1 ? " vs " : ", ")
    svg.line("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
    svg.open(
      "svg",
      [
        ("xmlns", .text("http://www.w3.org/2000/svg")), ("width", .number(layout.width)),
        ("height", .number(layout.height)), ("viewBox", .text("0 0 \(options.width) \(SVGText.number(layout.height))")),
        ("font-family", .text("sans-serif")), ("font-size", .number(11)),
      ])
    svg.element("title", [], content: title)
    PlotStyle.write(options.theme, into: &svg)
    svg.element(
      "rect",
      [
        ("class", .text("background")), ("x", .number(0)), ("y", .number(0)), ("width", .number(layout.width)),
        ("height", .number(layout.height)),
      ])
    svg.element("text", [("class", .text("heading")), ("x", .number(12)), ("y", .number(22))], content: title)
    if inputs.count > 1 { legend(inputs, layout: layout, into: &svg) }
    layout.drawGrid(into: &svg)
    for index in layout.lanes.indices {
      drawLane(index, layout: layout, series: series, audio: audio, signal: signal, profile: profile, into: &svg)
    }
    layout.drawTimeAxis(into: &svg)
    svg.close("svg")
    return svg.text
  }

  /// Lane `index` of `layout`: its frame, label and axis, and each series drawn in it.
  static func drawLane(
    _ index: Int, layout: Layout, series: [PlotSeries], audio: [AudioSeries?], signal: SignalSeries?,
    profile: ActuatorProfile, into svg: inout SVGText
  ) {
    let lane = layout.lanes[index]
    let frame = layout.lane(index)
    svg.open("g", [("id", .text("lane-\(lane.name)")), ("class", .text("lane"))])
    svg.element(
      "rect",
      [
        ("class", .text("frame")), ("x", .number(frame.x)), ("y", .number(frame.y)),
        ("width", .number(frame.width)), ("height", .number(frame.height)),
      ])
    svg.element(
      "text", [("class", .text("label")), ("x", .number(frame.x)), ("y", .number(frame.y - 4))], content: lane.name)
    PlotLanes.axis(lane.name, frame: frame, profile: profile, into: &svg)
    if lane.name == signalLane.name, let signal {
      PlotLanes.strokes(signal.columns, frame: frame, layout: layout, into: &svg)
      svg.close("g")
      return
    }
    for (k, one) in series.enumerated() {
      svg.open("g", [("class", .text("series series-\(k == 0 ? "a" : "b")"))])
      if lane.name == audioLane.name {
        if let track = audio[k] { PlotLanes.audio(track, frame: frame, layout: layout, into: &svg) }
      } else {
        PlotLanes.draw(lane.name, one, frame: frame, layout: layout, labelOffset: Double(k) * 10, into: &svg)
      }
      svg.close("g")
    }
    svg.close("g")
  }

  static func legend(_ inputs: [Input], layout: Layout, into svg: inout SVGText) {
    svg.open("g", [("class", .text("legend"))])
    var x = 12.0
    for (k, input) in inputs.enumerated() {
      let name = Format.excerpt(input.name)
      svg.open("g", [("class", .text("series-\(k == 0 ? "a" : "b")"))])
      svg.element(
        "rect",
        [
          ("class", .text("swatch")), ("x", .number(x)), ("y", .number(32)), ("width", .number(10)),
          ("height", .number(10)),
        ])
      svg.element("text", [("x", .number(x + 14)), ("y", .number(41))], content: (k == 0 ? "old: " : "new: ") + name)
      svg.close("g")
      x += 14 + Double(name.count + 5) * 6.5 + 16
    }
    svg.close("g")
  }

  /// Where things go: the plot area's columns, the lanes' frames, the time axis.
  struct Layout {
    struct Frame {
      var x: Double
      var y: Double
      var width: Double
      var height: Double
      var bottom: Double { y + height }
    }

    let window: PlotWindow
    let width: Double
    let top: Double
    /// The lanes drawn, top to bottom.
    let lanes: [(name: String, height: Double)]
    static let labelRow = 16.0

    init(window: PlotWindow, width: Double, legend: Bool, lanes: [(name: String, height: Double)] = PatternPlot.lanes) {
      self.window = window
      self.width = width
      self.lanes = lanes
      top = legend ? 52 : 36
    }

    var left: Double { PlotOptions.left }
    var plotWidth: Double { Double(window.columns) }

    func lane(_ index: Int) -> Frame {
      var y = top
      for k in 0..<index { y += Layout.labelRow + lanes[k].height }
      return Frame(x: left, y: y + Layout.labelRow, width: plotWidth, height: lanes[index].height)
    }

    var lanesBottom: Double { lane(lanes.count - 1).bottom }
    var height: Double { lanesBottom + 40 }

    /// The x of time `t` (seconds).
    func x(_ t: Double) -> Double { left + (t - window.from) / window.span * plotWidth }
    /// The x of column `c`'s centre.
    func x(column c: Int) -> Double { left + Double(c) + 0.5 }

    /// Tick times: multiples of 1, 2 or 5 × 10^k, about one per 100 pixels.
    var ticks: (step: Double, times: [Double]) {
      let wanted = max(1, plotWidth / 100)
      let raw = window.span / wanted
      let magnitude = pow(10, (log10(raw)).rounded(.down))
      let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? 10 * magnitude
      // A hair of slack, so that 0.6 / 0.05 = 11.999... still ends on 0.6.
      let first = (window.from / step - 1e-9).rounded(.up)
      let last = (window.to / step + 1e-9).rounded(.down)
      guard first <= last else { return (step, []) }
      return (step, stride(from: first, through: last, by: 1).map { $0 * step })
    }

    func drawGrid(into svg: inout SVGText) {
      svg.open("g", [("class", .text("grid"))])
      for t in ticks.times {
        for index in lanes.indices {
          let frame = lane(index)
          svg.element(
            "line",
            [("x1", .number(x(t))), ("y1", .number(frame.y)), ("x2", .number(x(t))), ("y2", .number(frame.bottom))])
        }
      }
      svg.close("g")
    }

    func drawTimeAxis(into svg: inout SVGText) {
      svg.open("g", [("id", .text("time-axis")), ("class", .text("axis"))])
      let bottom = lanesBottom
      for t in ticks.times {
        svg.element(
          "line",
          [
            ("class", .text("tick")), ("x1", .number(x(t))), ("y1", .number(bottom)), ("x2", .number(x(t))),
            ("y2", .number(bottom + 4)),
          ])
        svg.element(
          "text", [("class", .text("tick-label")), ("x", .number(x(t))), ("y", .number(bottom + 15))],
          content: Format.number((t * 1e9).rounded() / 1e9))
      }
      svg.element(
        "text", [("class", .text("label")), ("x", .number(left)), ("y", .number(bottom + 31))], content: "time (s)")
      svg.close("g")
    }
  }
}
