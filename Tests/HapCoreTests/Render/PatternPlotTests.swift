import Foundation
import HapCore
import HapTestSupport
import Testing

// `PatternPlot`: the SVG parsed with a real XML parser; marks where their times say, the
// waveform as tall as the rendered signal, both series of a diff, cropping, and a size bounded
// by the width.

@Suite("hap plot: the picture")
struct PatternPlotTests {
  static func transient(_ time: Double, _ intensity: Double = 0.8) -> Event {
    var p = EventParameters(defaultsFor: .hapticTransient)
    p.hapticIntensity = intensity
    return Event(time: time, type: .hapticTransient, parameters: p)
  }

  static func continuous(_ time: Double, _ duration: Double, _ intensity: Double = 1) -> Event {
    var p = EventParameters(defaultsFor: .hapticContinuous)
    p.hapticIntensity = intensity
    p.hapticSharpness = 0.5
    return Event(time: time, type: .hapticContinuous, duration: duration, parameters: p)
  }

  /// Transients at 0.1 and 0.35 s, a continuous event from 0.5 to 0.7 s.
  static let pattern = Pattern(events: [transient(0.1), transient(0.35, 0.5), continuous(0.5, 0.2)])

  static func plot(
    _ inputs: [PatternPlot.Input], _ options: PlotOptions = PlotOptions(width: 600, from: 0, to: 1)
  ) throws -> SVGElement {
    let text = PatternPlot.svg(inputs, profile: .exciter, options: options)
    return try #require(SVGElement.parse(Data(text.utf8)), "not well-formed XML:\n\(text.prefix(2000))")
  }

  static func plot(_ pattern: Pattern, _ options: PlotOptions = PlotOptions(width: 600, from: 0, to: 1)) throws
    -> SVGElement
  {
    try plot([.init(name: "p.ahap", pattern: pattern)], options)
  }

  /// The lane's frame: x, width, y and height of its plot area.
  static func frame(_ svg: SVGElement, _ lane: String) throws -> (x: Double, width: Double, y: Double, height: Double) {
    let group = try #require(svg.element(id: "lane-\(lane)"))
    let rect = try #require(group.find("rect", class: "frame").first)
    return try (
      #require(rect.number("x")), #require(rect.number("width")), #require(rect.number("y")),
      #require(rect.number("height"))
    )
  }

  @Test("the picture has a title, a heading, the four lanes with labels, and nothing external")
  func lanes() throws {
    let svg = try Self.plot(Self.pattern)
    #expect(svg.name == "svg")
    #expect(svg.find("title").first?.text == "p.ahap")
    #expect(svg.find("text", class: "heading").first?.text == "p.ahap")
    for lane in ["events", "intensity", "sharpness", "waveform"] {
      let group = try #require(svg.element(id: "lane-\(lane)"), "no \(lane) lane")
      #expect(group.find("text", class: "label").first?.text == lane)
      #expect(!group.find("g", class: "series-a").isEmpty)
    }
    #expect(svg.find("script").isEmpty)
    #expect(svg.all.allSatisfy { element in !element.attributes.keys.contains { $0.hasSuffix("href") } })
    #expect(svg.find("style").first?.text.contains("url(") == false)
  }

  @Test("event marks sit at the x of their time, with their height by intensity")
  func marksAtTheirTime() throws {
    let svg = try Self.plot(Self.pattern)
    let (x, width, y, height) = try Self.frame(svg, "events")
    let lane = try #require(svg.element(id: "lane-events"))
    let ticks = lane.find("line", class: "transient")
    #expect(ticks.count == 2)
    for (tick, (time, intensity)) in zip(ticks, [(0.1, 0.8), (0.35, 0.5)]) {
      #expect(abs(try #require(tick.number("x1")) - (x + time * width)) <= 0.1)
      let top = try #require(tick.number("y2"))
      #expect(abs((y + height - top) / height - intensity) < 0.01)
    }
    let bar = try #require(lane.find("rect", class: "continuous").first)
    #expect(abs(try #require(bar.number("x")) - (x + 0.5 * width)) <= 0.1)
    #expect(abs(try #require(bar.number("width")) - 0.2 * width) <= 0.2)
    #expect(lane.find("text", class: "index").map(\.text) == ["0", "1", "2"])
  }

  @Test("a continuous event that starts with a transient keeps its label, along its bar")
  func aContinuousEventStartingWithATransientIsLabelled() throws {
    let svg = try Self.plot(Pattern(events: [Self.transient(0.2), Self.continuous(0.2, 0.5)]))
    let lane = try #require(svg.element(id: "lane-events"))
    let labels = lane.find("text", class: "index")
    #expect(labels.map(\.text) == ["0", "1"])
    let (x, width, _, _) = try Self.frame(svg, "events")
    let xs = labels.compactMap { $0.number("x") }
    #expect(xs.count == 2 && xs[1] > xs[0] && xs[1] < x + 0.7 * width, "\(xs)")
  }

  @Test("the waveform's extent is the rendered signal's, scaled back from the drawing")
  func waveformExtent() throws {
    let svg = try Self.plot(Self.pattern)
    let (_, _, y, height) = try Self.frame(svg, "waveform")
    let path = try #require(svg.element(id: "lane-waveform")?.find("path", class: "signal").first)
    let strokes = SVGElement.strokes(try #require(path.attributes["d"]))
    #expect(!strokes.isEmpty)
    let middle = y + height / 2
    let drawnHigh = (middle - strokes.map(\.top).min()!) / (height / 2)
    let drawnLow = (middle - strokes.map(\.bottom).max()!) / (height / 2)
    // The same pattern rendered with the library.
    let samples = PatternRender.samples(Self.pattern, rate: 48000)
    let tolerance = 0.06 / (height / 2)  // rounding to 0.1 px
    #expect(abs(drawnHigh - Double(samples.max()!)) <= tolerance)
    #expect(abs(drawnLow - Double(samples.min()!)) <= tolerance)
    #expect(samples.max()! > 0.5)
  }

  @Test("the intensity lane follows the control and the envelope; control points are marked")
  func effectiveIntensity() throws {
    let pattern = Pattern(
      events: [Self.continuous(0, 1)],
      parameters: [DynamicParameter(id: .hapticIntensityControl, time: 0.5, value: 0.5)])
    let svg = try Self.plot(pattern, PlotOptions(width: 600, from: 0, to: 1.2))
    let (x, width, y, height) = try Self.frame(svg, "intensity")
    let lane = try #require(svg.element(id: "lane-intensity"))
    let level = SVGElement.points(try #require(lane.find("path", class: "level").first?.attributes["d"]))
    func value(at t: Double) -> Double? {
      level.min { abs($0.x - (x + t / 1.2 * width)) < abs($1.x - (x + t / 1.2 * width)) }.map {
        (y + height - $0.y) / height
      }
    }
    #expect(abs(try #require(value(at: 0.25)) - 1) < 0.02)
    #expect(abs(try #require(value(at: 0.75)) - 0.5) < 0.02)
    // The release after 1 s brings it down to nothing by 1.2 s.
    #expect((value(at: 1.1) ?? 0) < 0.5)
    let point = try #require(lane.find("circle", class: "point").first)
    #expect(abs(try #require(point.number("cx")) - (x + 0.5 / 1.2 * width)) <= 0.1)
    #expect(abs(try #require(point.number("cy")) - (y + height * 0.5)) <= 0.1)
  }

  @Test("two patterns are two series in every lane, with a legend naming both")
  func diffOverlay() throws {
    let other = Pattern(events: [Self.transient(0.2), Self.continuous(0.6, 0.3, 0.5)])
    let svg = try Self.plot([.init(name: "old.ahap", pattern: Self.pattern), .init(name: "new.ahap", pattern: other)])
    for lane in ["events", "intensity", "sharpness", "waveform"] {
      let group = try #require(svg.element(id: "lane-\(lane)"))
      for series in ["series-a", "series-b"] {
        let drawn = try #require(group.find("g", class: series).first, "\(lane): no \(series)")
        #expect(!drawn.children.isEmpty, "\(lane): \(series) is empty")
      }
    }
    let (x, width, _, _) = try Self.frame(svg, "events")
    let b = try #require(svg.element(id: "lane-events")?.find("g", class: "series-b").first)
    #expect(abs(try #require(b.find("line", class: "transient").first?.number("x1")) - (x + 0.2 * width)) <= 0.1)
    let legend = try #require(svg.find("g", class: "legend").first)
    let names = legend.find("text").map(\.text)
    #expect(names.contains { $0.contains("old.ahap") } && names.contains { $0.contains("new.ahap") })
    #expect(svg.find("title").first?.text == "old.ahap vs new.ahap")
  }

  @Test("--from and --to crop: marks outside are left out, the rest move to their place")
  func crop() throws {
    let svg = try Self.plot(Self.pattern, PlotOptions(width: 600, from: 0.3, to: 0.6))
    let (x, width, _, _) = try Self.frame(svg, "events")
    let lane = try #require(svg.element(id: "lane-events"))
    let ticks = lane.find("line", class: "transient")
    #expect(ticks.count == 1)
    #expect(abs(try #require(ticks.first?.number("x1")) - (x + (0.35 - 0.3) / 0.3 * width)) <= 0.1)
    // The continuous bar from 0.5 s is cut at the right edge.
    let bar = try #require(lane.find("rect", class: "continuous").first)
    let barEnd = try #require(bar.number("x")) + (try #require(bar.number("width")))
    #expect(abs(barEnd - (x + width)) <= 0.2)
    // Nothing is drawn outside the plot area, in any lane.
    for stroke in SVGElement.strokes(
      try #require(svg.element(id: "lane-waveform")?.find("path", class: "signal").first?.attributes["d"]))
    {
      #expect(stroke.x >= x && stroke.x <= x + width)
    }
    let labels = svg.element(id: "time-axis")!.find("text", class: "tick-label").map(\.text)
    #expect(labels.first == "0.3" && labels.last == "0.6")
  }

  @Test("themes: dark colours, and auto adds a prefers-color-scheme query")
  func themes() throws {
    let light = try #require(Self.plot(Self.pattern, PlotOptions(width: 600, theme: .light)).find("style").first?.text)
    let dark = try #require(Self.plot(Self.pattern, PlotOptions(width: 600, theme: .dark)).find("style").first?.text)
    let auto = try #require(Self.plot(Self.pattern, PlotOptions(width: 600, theme: .auto)).find("style").first?.text)
    #expect(light.contains(".background { fill: #ffffff; }") && !light.contains("prefers-color-scheme"))
    #expect(dark.contains(".background { fill: #0d1117; }") && !dark.contains("prefers-color-scheme"))
    #expect(auto.contains("prefers-color-scheme: dark"))
  }

  @Test("an hour with thousands of events plots in a size bounded by the width")
  func hugePattern() throws {
    var events = (0..<3000).map { Self.transient(Double($0) * 1.2, 0.3 + Double($0 % 7) / 10) }
    events += (0..<20).map { Self.continuous(Double($0) * 180 + 0.5, 0.5) }
    events.append(Self.transient(3600))
    let pattern = Pattern(events: events)
    let svg = PatternPlot.svg(
      [.init(name: "long", pattern: pattern)], profile: .exciter, options: PlotOptions(width: 800))
    let root = try #require(SVGElement.parse(Data(svg.utf8)))
    let columns = 800 - 48 - 64
    let lane = try #require(root.element(id: "lane-events"))
    // At most one mark of each kind starts in a pixel column, and a label only where there is room.
    #expect(lane.find("line", class: "transient").count <= columns)
    #expect(lane.find("text", class: "index").count <= columns)
    #expect(lane.find("text", class: "index").contains { $0.text.contains("–") })
    let strokes = SVGElement.strokes(
      try #require(root.element(id: "lane-waveform")?.find("path", class: "signal").first?.attributes["d"]))
    #expect(strokes.count <= columns)
    // A generous bound per column (the lanes hold a few short items per column): not per event.
    #expect(svg.utf8.count < 200 * columns)
    let ticks = root.element(id: "time-axis")!.find("text", class: "tick-label").map(\.text)
    #expect(ticks == ["0", "1000", "2000", "3000"])
  }
}
