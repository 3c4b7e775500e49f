import Foundation
import HapCore
import HapTestSupport
import Testing

// `hap plot`'s audio lane (issue 21): drawn only for a pattern with an audio track, each
// channel's min/max per column in its half of the lane, as tall as the track the library renders.

@Suite("hap plot: the audio lane")
struct PlotAudioLaneTests {
  static let rate = 48000.0

  /// A tap at 0.1 s and, from 0.2 s, a 0.3 s sine of amplitude 0.4 panned hard left.
  static func pattern() -> (Pattern, AudioSchedule) {
    var p = EventParameters(defaultsFor: .audioCustom)
    p.audioPan = -1
    let sound = Event(
      time: 0.2, type: .audioCustom, parameters: p, waveformPath: "s.wav", waveformUsesVolumeEnvelope: true)
    let pattern = Pattern(events: [PatternPlotTests.transient(0.1), sound])
    let sine = (0..<Int(0.3 * rate)).map { Float(0.4 * sin(2 * Double.pi * 200 * Double($0) / rate)) }
    let schedule = AudioSchedule(
      pattern: pattern, sounds: ["s.wav": DecodedSound(rate: rate, channels: 1, samples: sine)], rate: rate)
    return (pattern, schedule)
  }

  @Test("a pattern with audio: an audio lane below the waveform, left as loud as the track, right silent")
  func audioLane() throws {
    let (pattern, audio) = Self.pattern()
    let svg = try PatternPlotTests.plot([.init(name: "p.ahap", pattern: pattern, audio: audio)])
    let lanes = svg.find("g", class: "lane").compactMap { $0.attributes["id"] }
    #expect(lanes == ["lane-events", "lane-intensity", "lane-sharpness", "lane-waveform", "lane-audio"])
    let (_, _, y, height) = try PatternPlotTests.frame(svg, "audio")
    let lane = try #require(svg.element(id: "lane-audio"))
    let left = try #require(lane.find("g", class: "audio-left").first?.find("path", class: "signal").first)
    let strokes = SVGElement.strokes(try #require(left.attributes["d"]))
    let middle = y + height / 4
    let drawn = (middle - strokes.map(\.top).min()!) / (height / 4)
    // The library's own track: its left channel's peak.
    let renderer = AudioRenderer(schedule: audio)
    var track = [Float](repeating: 0, count: 2 * renderer.frameCount)
    _ = track.withUnsafeMutableBufferPointer { renderer.render(into: $0) }
    let peak = stride(from: 0, to: track.count, by: 2).map { track[$0] }.max()!
    #expect(abs(drawn - Double(peak)) <= 0.06 / (height / 4) + 1e-9, "drawn \(drawn), rendered \(peak)")
    #expect(peak > 0.39)
    // Pan -1: the right channel is silent, so its half has no strokes.
    #expect(lane.find("g", class: "audio-right").first?.find("path", class: "signal").isEmpty == true)
  }

  @Test("a pattern without an audio track: the four lanes, no audio lane")
  func noAudioLane() throws {
    let svg = try PatternPlotTests.plot(PatternPlotTests.pattern)
    #expect(svg.element(id: "lane-audio") == nil)
    let (pattern, _) = Self.pattern()
    #expect(try PatternPlotTests.plot(pattern).element(id: "lane-audio") == nil, "no track given: no lane")
  }

  @Test("the window runs to the end of the audio track")
  func windowCoversTheSound() throws {
    let (pattern, audio) = Self.pattern()
    let options = PlotOptions(width: 600)
    let window = PatternPlot.window(
      [.init(name: "p", pattern: pattern, audio: audio)], profile: .exciter, options: options)
    #expect(window.to >= 0.5 - 1e-9, "\(window.to)")
  }
}
