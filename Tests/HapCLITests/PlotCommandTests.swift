import Foundation
import HapTestSupport
import Testing

// End to end: `hap plot` and `hap diff --plot` through the built binary.

@Suite("hap plot")
struct PlotCommandTests {
  static func pattern(_ name: String) -> String { Hap.root.appendingPathComponent("patterns/\(name)").path }

  @Test("'-o -' writes one SVG to standard output; several patterns make NAME.svg in a folder")
  func outputs() throws {
    let out = try Hap.run(["plot", Self.pattern("winner.json"), "-o", "-"])
    #expect(out.status == 0, "\(out.stderr)")
    let svg = try #require(SVGElement.parse(out.stdoutData))
    #expect(svg.element(id: "lane-waveform") != nil)
    #expect(svg.find("title").first?.text.hasSuffix("winner.json") == true)

    let folder = try TemporaryFolder()
    let target = folder.url.path + "/plots/"
    let many = try Hap.run(["plot", Self.pattern("winner.json"), Self.pattern("tick.json"), "-o", target, "-q"])
    #expect(many.status == 0, "\(many.stderr)")
    let names = try FileManager.default.contentsOfDirectory(atPath: target).sorted()
    #expect(names == ["tick.svg", "winner.svg"])
    let tick = try #require(SVGElement.parse(Data(contentsOf: URL(fileURLWithPath: target + "tick.svg"))))
    #expect(tick.find("title").first?.text.hasSuffix("tick.json") == true)
  }

  @Test("bad options are usage errors (exit 2) and write nothing")
  func badOptions() throws {
    let folder = try TemporaryFolder()
    let svg = folder.path("out.svg")
    let cases: [[String]] = [
      ["--width", "0", "-o", svg], ["--width", "wide", "-o", svg], ["--from", "1", "--to", "1", "-o", svg],
      ["--from", "2", "--to", "1", "-o", svg], ["--from", "-1", "-o", svg], ["--theme", "sepia", "-o", svg],
      ["-o", folder.path("out.png")], ["-o", folder.path("out")], [],
    ]
    for arguments in cases {
      let result = try Hap.run(["plot", Self.pattern("tick.json")] + arguments)
      #expect(result.status == 2, "\(arguments): \(result.stderr)")
      #expect(result.stderr.hasPrefix("hap: "), "\(arguments)")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
  }

  @Test("a pattern with errors is refused with its findings (exit 1), an unreadable one is exit 2")
  func invalidPattern() throws {
    let folder = try TemporaryFolder()
    let bad = try folder.write("bad.ahap", #"{"Pattern": [{"Event": {"Time": -1, "EventType": "HapticTransient"}}]}"#)
    let result = try Hap.run(["plot", bad, "-o", folder.path("bad.svg")])
    #expect(result.status == 1)
    #expect(result.stderr.contains("[time-negative]"))
    #expect(!FileManager.default.fileExists(atPath: folder.path("bad.svg")))
    let missing = try Hap.run(["plot", folder.path("missing.ahap"), "-o", folder.path("missing.svg")])
    #expect(missing.status == 2)
  }

  @Test("hap diff --plot draws both patterns; the report and exit status stay the same")
  func diffPlot() throws {
    let folder = try TemporaryFolder()
    let old = Self.pattern("winner.json")
    let new = Self.pattern("correct.json")
    let plain = try Hap.run(["diff", old, new])
    let plotted = try Hap.run(["diff", old, new, "--plot", folder.path("change.svg")])
    #expect(plain.status == 1)
    #expect(plotted.status == plain.status)
    #expect(plotted.stdout == plain.stdout)
    let svg = try #require(SVGElement.parse(Data(contentsOf: URL(fileURLWithPath: folder.path("change.svg")))))
    for lane in ["events", "waveform"] {
      let group = try #require(svg.element(id: "lane-\(lane)"))
      #expect(group.find("g", class: "series-a").first?.children.isEmpty == false)
      #expect(group.find("g", class: "series-b").first?.children.isEmpty == false)
    }
    let legend = try #require(svg.find("g", class: "legend").first).find("text").map(\.text)
    #expect(legend.contains { $0.hasSuffix("winner.json") } && legend.contains { $0.hasSuffix("correct.json") })
    let same = try Hap.run(["diff", old, old, "--plot", folder.path("same.svg")])
    #expect(same.status == 0)
    let png = try Hap.run(["diff", old, new, "--plot", folder.path("change.png")])
    #expect(png.status == 2)
    #expect(png.stdout.isEmpty)
  }
}
