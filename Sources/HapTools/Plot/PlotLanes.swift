import HapFormat
import HapPlayback
import HapRender

/// Drawing one series into one lane, and each lane's value axis.
enum PlotLanes {
  typealias Frame = PatternPlot.Layout.Frame
  typealias Layout = PatternPlot.Layout

  static func draw(
    _ lane: String, _ series: PlotSeries, frame: Frame, layout: Layout, labelOffset: Double,
    into svg: inout SVGText
  ) {
    switch lane {
    case "events": events(series, frame: frame, layout: layout, labelOffset: labelOffset, into: &svg)
    case "intensity": intensity(series, frame: frame, layout: layout, into: &svg)
    case "sharpness": sharpness(series, frame: frame, layout: layout, into: &svg)
    default: waveform(series, frame: frame, layout: layout, into: &svg)
    }
  }

  /// Value labels: 0 and 1 on the left; for sharpness the carrier frequency on the right.
  static func axis(_ lane: String, frame: Frame, profile: ActuatorProfile, into svg: inout SVGText) {
    func label(_ text: String, y: Double, right: Bool = false) {
      let x = right ? frame.x + frame.width + 4 : frame.x - 4
      svg.element(
        "text", [("class", .text("axis-label \(right ? "right" : "left")")), ("x", .number(x)), ("y", .number(y + 3))],
        content: text)
    }
    switch lane {
    case "waveform", "signal":
      label("1", y: frame.y)
      label("0", y: frame.y + frame.height / 2)
      label("-1", y: frame.bottom)
      svg.element(
        "line",
        [
          ("class", .text("zero")), ("x1", .number(frame.x)), ("y1", .number(frame.y + frame.height / 2)),
          ("x2", .number(frame.x + frame.width)), ("y2", .number(frame.y + frame.height / 2)),
        ])
    case "audio":
      // Each channel in its half: left above the middle line, right below it.
      label("L", y: frame.y + frame.height / 4)
      label("R", y: frame.y + 3 * frame.height / 4)
      svg.element(
        "line",
        [
          ("class", .text("zero")), ("x1", .number(frame.x)), ("y1", .number(frame.y + frame.height / 2)),
          ("x2", .number(frame.x + frame.width)), ("y2", .number(frame.y + frame.height / 2)),
        ])
    case "sharpness":
      label("1", y: frame.y)
      label("0", y: frame.bottom)
      for s in [0.0, 0.5, 1] {
        let hz = (profile.frequency(sharpness: s)).rounded()
        label("\(Format.number(hz)) Hz", y: frame.bottom - s * frame.height, right: true)
      }
    default:
      label("1", y: frame.y)
      label("0", y: frame.bottom)
    }
  }

  /// Transients as ticks and continuous events as bars, height by intensity, labelled with
  /// their entry number (a range for merged marks) where there is room.
  static func events(_ series: PlotSeries, frame: Frame, layout: Layout, labelOffset: Double, into svg: inout SVGText) {
    var free = -Double.infinity
    let right = frame.x + frame.width
    for mark in series.marks {
      let height = min(max(mark.intensity, 0), 1) * frame.height
      let x0 = max(frame.x, layout.x(mark.start))
      if mark.continuous {
        let x1 = min(right, layout.x(mark.end))
        svg.element(
          "rect",
          [
            ("class", .text("continuous")), ("x", .number(x0)), ("y", .number(frame.bottom - height)),
            ("width", .number(max(1, x1 - x0))), ("height", .number(height)),
          ])
      } else {
        svg.element(
          "line",
          [
            ("class", .text("transient")), ("x1", .number(x0)), ("y1", .number(frame.bottom)), ("x2", .number(x0)),
            ("y2", .number(frame.bottom - height)),
          ])
      }
      let label = mark.first == mark.last ? "\(mark.first)" : "\(mark.first)–\(mark.last)"
      let width = Double(label.count) * 5.5 + 3
      // Where another label already stands (a transient at the same start), a continuous
      // event's label moves right, along its own bar, if the bar has room for it there.
      var at = x0
      if at < free {
        guard mark.continuous, free + width <= min(right, layout.x(mark.end)) else { continue }
        at = free
      }
      free = at + width
      let y = min(frame.bottom - 2, max(frame.y + 9, frame.bottom - height - 2) + labelOffset)
      svg.element("text", [("class", .text("index")), ("x", .number(at + 1)), ("y", .number(y))], content: label)
    }
  }

  /// A path through one value per column (nil: a gap), `value` mapped to y.
  static func path(_ values: [Double?], layout: Layout, y: (Double) -> Double) -> String {
    var d = ""
    var drawing = false
    for (c, value) in values.enumerated() {
      guard let value else {
        drawing = false
        continue
      }
      d +=
        (d.isEmpty ? "" : " ") + (drawing ? "L" : "M") + SVGText.number(layout.x(column: c)) + " "
        + SVGText.number(y(value))
      drawing = true
    }
    return d
  }

  static func intensity(_ series: PlotSeries, frame: Frame, layout: Layout, into svg: inout SVGText) {
    func y(_ v: Double) -> Double { frame.bottom - min(max(v, 0), 1) * frame.height }
    if let control = series.intensityControl {
      svg.element("path", [("class", .text("control")), ("d", .text(path(control, layout: layout, y: y)))])
    }
    let d = path(series.intensity, layout: layout, y: y)
    if !d.isEmpty { svg.element("path", [("class", .text("level")), ("d", .text(d))]) }
    for point in series.intensityPoints {
      svg.element(
        "circle",
        [
          ("class", .text("point")), ("cx", .number(layout.x(point.time))), ("cy", .number(y(point.value))),
          ("r", .number(2.5)),
        ])
    }
  }

  /// The highest effective sharpness per column, the lowest too where voices differ, and the
  /// control points as triangles under the lane (their value is an offset, not a sharpness).
  static func sharpness(_ series: PlotSeries, frame: Frame, layout: Layout, into svg: inout SVGText) {
    func y(_ v: Double) -> Double { frame.bottom - min(max(v, 0), 1) * frame.height }
    let high = path(series.sharpness.map { $0?.upperBound }, layout: layout, y: y)
    if !high.isEmpty { svg.element("path", [("class", .text("level")), ("d", .text(high))]) }
    if series.sharpness.contains(where: { $0.map { $0.lowerBound < $0.upperBound } ?? false }) {
      let low = path(series.sharpness.map { $0?.lowerBound }, layout: layout, y: y)
      svg.element("path", [("class", .text("level low")), ("d", .text(low))])
    }
    for point in series.sharpnessPoints {
      let x = layout.x(point.time)
      let d = "M\(SVGText.number(x)) \(SVGText.number(frame.bottom - 5)) l3 5 h-6 z"
      svg.element("path", [("class", .text("marker")), ("d", .text(d))])
    }
  }

  /// The rendered signal: a vertical stroke per column from its lowest to its highest sample,
  /// full scale (±1) at the lane's edges.
  static func waveform(_ series: PlotSeries, frame: Frame, layout: Layout, into svg: inout SVGText) {
    strokes(series.waveform, frame: frame, layout: layout, into: &svg)
  }

  /// The audio track: each channel's strokes (min/max per column, full scale at the half's
  /// edges) in its half of the lane, left above, right below.
  static func audio(_ track: AudioSeries, frame: Frame, layout: Layout, into svg: inout SVGText) {
    let half = frame.height / 2
    for (channel, columns) in [("left", track.left), ("right", track.right)] {
      let y = channel == "left" ? frame.y : frame.y + half
      svg.open("g", [("class", .text("audio-\(channel)"))])
      strokes(columns, frame: Frame(x: frame.x, y: y, width: frame.width, height: half), layout: layout, into: &svg)
      svg.close("g")
    }
  }

  /// A vertical stroke per column from its lowest to its highest sample (the rendered signal, or
  /// a recorded one), full scale (±1) at the lane's edges; silent columns are left out.
  static func strokes(_ columns: [ClosedRange<Float>?], frame: Frame, layout: Layout, into svg: inout SVGText) {
    let middle = frame.y + frame.height / 2
    var d = ""
    for (c, range) in columns.enumerated() {
      guard let range, range.lowerBound != 0 || range.upperBound != 0 else { continue }
      let top = middle - Double(range.upperBound) * frame.height / 2
      let bottom = middle - Double(range.lowerBound) * frame.height / 2
      d +=
        (d.isEmpty ? "" : " ")
        + "M\(SVGText.number(layout.x(column: c))) \(SVGText.number(top))V\(SVGText.number(bottom))"
    }
    if !d.isEmpty { svg.element("path", [("class", .text("signal")), ("d", .text(d))]) }
  }
}
