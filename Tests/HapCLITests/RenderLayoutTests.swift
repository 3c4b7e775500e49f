import Foundation
import HapCore
import HapTestSupport
import Testing

/// `hap render --layout/--channel/--channels`: one multichannel file, each channel the haptic
/// signal, the sound's left or right channel or silence, bit for bit what `-o` and `--audio`
/// write apart and what `hap play` sends through the same layout (issue 21).
@Suite("hap render: a layout's channels in one file")
struct RenderLayoutTests {
  static let ricochet = SharedCorpus.ahapAudio.appendingPathComponent("apple__unityplugins")

  static var ricochetPaths: [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: ricochet.path)) ?? []
    return names.filter { $0.hasSuffix(".ahap") }.sorted().map { ricochet.appendingPathComponent($0).path }
  }

  /// The path of Ricochet pattern `name`, or nil after saying the corpus lacks it.
  static func ricochetPattern(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
    let path = ricochet.appendingPathComponent(name).path
    guard FileManager.default.fileExists(atPath: path) else {
      corpusMissing(name, at: ricochet, sourceLocation: sourceLocation)
      return nil
    }
    return path
  }

  /// `hap render ARGUMENTS --sample-format f32`, expected to succeed: its stderr.
  @discardableResult
  static func render(_ arguments: [String]) throws -> String {
    let result = try Hap.run(["render", "--sample-format", "f32"] + arguments)
    #expect(result.status == 0, "\(arguments): \(result.stderr)")
    return result.stderr
  }

  /// The pattern's two signals as `-o` and `--audio` write them apart (with `extra` options).
  static func apart(_ path: String, in folder: TemporaryFolder, _ extra: [String] = []) throws -> (
    haptic: [Float], left: [Float], right: [Float]
  ) {
    try render([path, "-o", folder.path("haptic.wav"), "--audio", folder.path("audio.wav"), "--quiet"] + extra)
    let haptic = try RenderedWAV(path: folder.path("haptic.wav")).samples()
    let audio = try RenderedWAV(path: folder.path("audio.wav")).channelSamples()
    return (haptic, audio[0], audio[1])
  }

  @Test("--layout dualsense and routes: each channel is what -o and --audio write apart, bit for bit")
  func channelsAreTheSignalsWrittenApart() throws {
    let paths = Self.ricochetPaths
    guard paths.count == 7 else {
      corpusMissing("the seven Ricochet patterns", at: Self.ricochet)
      return
    }
    let silence: [Float]? = nil
    for path in paths {
      let folder = try TemporaryFolder()
      // The DualSense layout takes its profile, as 'hap play --layout dualsense' does.
      let dualSense = try Self.apart(path, in: folder, ["--profile", "dualsense"])
      let exciter = try Self.apart(path, in: folder)
      let cases: [([String], [Float]?, [[Float]?])] = [
        (
          ["--layout", "dualsense"], dualSense.haptic,
          [dualSense.left, dualSense.right, dualSense.haptic, dualSense.haptic]
        ),
        (
          ["--layout", "dualsense", "--actuator", "left"], dualSense.haptic,
          [dualSense.left, dualSense.right, dualSense.haptic, silence]
        ),
        (["--channel", "haptic=3/audio=1,2"], exciter.haptic, [exciter.left, exciter.right, exciter.haptic]),
        (["--channel", "exciter+speakers"], exciter.haptic, [exciter.haptic, exciter.left, exciter.right]),
        (["--layout", "right,-,haptic,left"], exciter.haptic, [exciter.right, silence, exciter.haptic, exciter.left]),
        (["--channels", "2"], exciter.haptic, [exciter.haptic, exciter.haptic]),
        (["--channel", "2", "--channels", "3"], exciter.haptic, [silence, exciter.haptic, silence]),
      ]
      for (options, haptic, expected) in cases {
        let out = folder.path("layout.wav")
        let stderr = try Self.render([path, "-o", out] + options)
        let wav = try RenderedWAV(path: out)
        #expect(wav.channels == expected.count && wav.rate == 48000, "\(path) \(options)")
        let channels = wav.channelSamples()
        for (k, want) in expected.enumerated() where k < channels.count {
          let same = channels[k] == (want ?? [Float](repeating: 0, count: haptic?.count ?? 0))
          #expect(same, "\(path) \(options): channel \(k + 1)")
        }
        #expect(stderr.contains("\(expected.count) channels ("), "\(options): \(stderr)")
        // A layout without the sound still says once that the audio track was not written.
        let routesSound =
          options.contains { $0.contains("audio") || $0.contains("left") || $0.contains("dualsense") }
          || options.contains("exciter+speakers")
        #expect(stderr.contains("was not written") == !routesSound, "\(options): \(stderr)")
      }
    }
  }

  @Test("what render writes through a layout is what play sends through it to the simulated device")
  func renderIsWhatPlaySends() throws {
    guard let path = Self.ricochetPattern("CollisionSmall.ahap") else { return }
    for layout in [
      ["--layout", "dualsense"], ["--channel", "haptic=1/audio=2,3"], ["--layout", "pair", "--actuator", "right"],
    ] {
      let folder = try TemporaryFolder()
      try Self.render([path, "-o", folder.path("render.wav"), "--quiet"] + layout)
      let rendered = try RenderedWAV(path: folder.path("render.wav"))
      // A layout without the sound's channels plays it on a second device (here the speaker).
      let device = try SimulatedExciter(speaker: "")
      let second = layout.contains("pair") ? ["--audio-device", "speaker"] : []
      let played = try Hap.run(
        ["play", "-D", "exciter", "-f", "f32", path] + layout + second, environment: device.environment)
      #expect(played.status == 0, "\(layout): \(played.stderr)")
      let capture = try PCM.floats(contentsOf: device.capture, format: .f32)
      let samples = rendered.samples()
      #expect(capture.count >= samples.count, "\(layout): the device got \(capture.count) samples")
      guard capture.count >= samples.count else { continue }
      let same = Array(capture[0..<samples.count]) == samples
      #expect(same, "\(layout): the device's frames are not the render's")
      #expect(capture[samples.count...].allSatisfy { $0 == 0 }, "\(layout): only silence after the render's end")
      #expect(samples.contains { $0 != 0 })
    }
  }

  @Test("--control moves the sound with the transport: --audio and a layout's channels alike")
  func controlMovesTheSound() throws {
    guard let path = Self.ricochetPattern("Spawn.ahap") else { return }
    let folder = try TemporaryFolder()
    try folder.write("pause.txt", "@0.1 pause\n@0.3 resume\n")
    let plain = try Self.apart(path, in: folder)
    let paused = try Self.apart(path, in: folder, ["--control", folder.path("pause.txt")])
    // Until the pause fades, the sound is the uncontrolled one; while paused it is silent;
    // afterwards it goes on where it paused, so the track is about 0.2 s longer.
    let fadeStart = 4800
    #expect(Array(paused.left[0..<fadeStart]) == Array(plain.left[0..<fadeStart]))
    #expect(paused.left[6000..<14400].allSatisfy { $0 == 0 }, "silent while paused")
    #expect(paused.left[14400...].contains { $0 != 0 }, "the sound resumes")
    #expect(abs(paused.left.count - plain.left.count - 9600) < 960, "\(paused.left.count) against \(plain.left.count)")
    #expect(paused.haptic.count == paused.left.count, "both files as long")
    // The same control file through a layout: its channels are the two files'.
    try Self.render([
      path, "-o", folder.path("layout.wav"), "--channel", "haptic=3/audio=1,2", "--control", folder.path("pause.txt"),
      "--quiet",
    ])
    let channels = try RenderedWAV(path: folder.path("layout.wav")).channelSamples()
    #expect(channels[0] == paused.left && channels[1] == paused.right && channels[2] == paused.haptic)
    // A rate change builds the sound again at the new speed instead of dropping it.
    try folder.write("rate.txt", "@0.05 rate 2\n")
    let faster = try Self.apart(path, in: folder, ["--control", folder.path("rate.txt")])
    #expect(faster.left[4800...].contains { $0 != 0 }, "the sound plays on after the rate change")
  }

  @Test("raw output interleaves the channels; several patterns each get the layout")
  func rawAndFolders() throws {
    let folder = try TemporaryFolder()
    let patterns = Hap.root.appendingPathComponent("patterns")
    try Self.render([
      patterns.appendingPathComponent("correct.json").path, "-o", folder.path("x.raw"), "--channels", "3", "--quiet",
    ])
    let wav = folder.path("x.wav")
    try Self.render([patterns.appendingPathComponent("correct.json").path, "-o", wav, "--channels", "3", "--quiet"])
    let raw = try PCM.floats(contentsOf: folder.path("x.raw"), format: .f32)
    #expect(raw == (try RenderedWAV(path: wav)).samples())
    let out = folder.path("out") + "/"
    try Self.render([
      patterns.appendingPathComponent("correct.json").path, patterns.appendingPathComponent("pass.json").path, "-o",
      out, "--layout", "pair", "--quiet",
    ])
    for name in ["correct", "pass"] {
      let each = try RenderedWAV(path: folder.path("out/\(name).wav"))
      let channels = each.channelSamples()
      #expect(each.channels == 2 && channels[0] == channels[1] && channels[0].contains { $0 != 0 }, "\(name)")
    }
  }

  @Test(
    "refusals: the sound in two places, --channel with --layout, --actuator without a pair, channels beyond --channels",
    arguments: [
      (["--layout", "dualsense", "--audio", "s.wav"], "the layout already writes it into -o's channels 1,2"),
      (["--channel", "audio=1,2/haptic=3", "--audio", "s.wav"], "the layout already writes it into -o's channels 1,2"),
      (["--channel", "3", "--layout", "pair"], "'--channel' and '--layout'"),
      (["--actuator", "left"], "'--actuator left' needs a layout with a left and a right actuator"),
      (
        ["--layout", "mono", "--actuator", "right"],
        "'--actuator right' needs a layout with a left and a right actuator"
      ),
      (["--channel", "3", "--channels", "2"], "'--channel 3' is beyond '--channels 2'"),
      // Routes and named layouts: the channel is named with what was written.
      (
        ["--channel", "speakers+exciter", "--channels", "2"],
        "'--channel speakers+exciter' names channel 3, beyond '--channels 2'"
      ),
      (["--channel", "haptic=2", "--channels", "1"], "'--channel haptic=2' names channel 2, beyond '--channels 1'"),
      (
        ["--layout", "dualsense", "--channels", "2"], "'--layout dualsense' takes 4 channels, more than '--channels 2'"
      ),
      (["--layout", "haptic,sound"], "'--layout' must be"),
      (["--channel", "audio=1"], "the sound takes two channels"),
      // A channel named twice would silently lose one of the two signals (issue 21 review).
      (["--channel", "haptic=1/audio=1,2"], "'--channel haptic=1/audio=1,2' names channel 1 twice"),
      (["--channel", "1,1"], "'--channel 1,1' names channel 1 twice"),
      (["--channel", "audio=2,2/haptic=1"], "'--channel audio=2,2/haptic=1' names channel 2 twice"),
    ])
  func refusals(options: [String], message: String) throws {
    let folder = try TemporaryFolder()
    let correct = Hap.root.appendingPathComponent("patterns/correct.json").path
    // `--audio s.wav` names a file in the test's folder (in process, where the working folder is
    // the test process's, a relative name would not be there).
    let options = options.map { $0 == "s.wav" ? folder.path("s.wav") : $0 }
    let result = try Hap.run(["render", correct, "-o", folder.path("x.wav")] + options)
    #expect(result.status == 2, "\(options): \(result.stderr)")
    #expect(result.stderr.contains(message), "\(options): \(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: folder.path("x.wav")), "nothing written")
    #expect(!FileManager.default.fileExists(atPath: folder.path("s.wav")), "nothing written")
  }

  @Test("a layout without the haptic signal: the summary gives no haptic peak, only what the file holds")
  func summaryWithoutHaptic() throws {
    guard let path = Self.ricochetPattern("Spawn.ahap") else { return }
    let folder = try TemporaryFolder()
    let left = try Hap.run(["render", path, "-o", folder.path("left.wav"), "--layout", "left"])
    #expect(left.status == 0, "\(left.stderr)")
    #expect(left.stderr.contains("1 channel (left), sound peak "), "\(left.stderr)")
    #expect(!left.stderr.contains("), peak "), "no haptic peak: \(left.stderr)")
    let correct = Hap.root.appendingPathComponent("patterns/correct.json").path
    let silent = try Hap.run(["render", correct, "-o", folder.path("silent.wav"), "--layout", "-,-"])
    #expect(silent.status == 0, "\(silent.stderr)")
    #expect(silent.stderr.contains("2 channels (-, -), silent"), "\(silent.stderr)")
    #expect(try RenderedWAV(path: folder.path("silent.wav")).samples().allSatisfy { $0 == 0 })
  }
}
