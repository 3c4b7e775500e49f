import Foundation
import HapCore
import HapResample
import HapTestSupport
import Testing

/// `hap render --audio`: the audio track beside the haptic signal, through the command line,
/// against the library's ``AudioRenderer`` bit for bit (f32 output), and the properties of
/// Apple's Ricochet patterns' sounds (issue 21).
@Suite("hap render --audio")
struct RenderAudioTests {
  static var ricochet: URL { SharedCorpus.folder.appendingPathComponent("ahap-audio/apple__unityplugins") }
  static let rate = 48000.0
  static let attackFrames = Int((EnvelopeTiming.attack(0) * rate).rounded(.up))
  static let releaseFrames = Int((EnvelopeTiming.release(0) * rate).rounded())

  static var ricochetNames: [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: ricochet.path)) ?? []
    return names.filter { $0.hasSuffix(".ahap") }.sorted()
  }

  /// A pattern file and its sounds decoded by the tests (WAV), keyed as written.
  static func load(_ path: String) throws -> (Pattern, [String: DecodedSound]) {
    let pattern = try #require(Validator.validate(Array(try Data(contentsOf: URL(fileURLWithPath: path)))).pattern)
    var sounds: [String: DecodedSound] = [:]
    let folder = (path as NSString).deletingLastPathComponent
    for event in pattern.events where event.type == .audioCustom {
      let waveform = try #require(event.waveformPath)
      let wav = try RenderedWAV(path: (folder as NSString).appendingPathComponent(waveform))
      sounds[waveform] = DecodedSound(rate: Double(wav.rate), channels: wav.channels, samples: wav.samples())
    }
    return (pattern, sounds)
  }

  /// The library's two signals of `pattern` at 48 kHz: the haptic one padded to the audio
  /// track's length, and the track (interleaved), as `hap render --audio` must write them.
  static func library(_ pattern: Pattern, sounds: [String: DecodedSound]) throws -> (haptic: [Float], audio: [Float]) {
    let schedule = Schedule(pattern: pattern, rate: rate)
    var resampled: [String: DecodedSound] = [:]
    for (key, sound) in sounds { resampled[key] = try Resampler.resample(sound, to: rate) }
    let renderer = AudioRenderer(
      schedule: AudioSchedule(pattern: pattern, sounds: resampled, rate: rate), frameCount: schedule.frameCount)
    var audio = [Float](repeating: 0, count: 2 * renderer.frameCount)
    audio.withUnsafeMutableBufferPointer { buffer in
      var done = 0
      while renderer.remaining > 0 {
        done += 2 * renderer.render(into: UnsafeMutableBufferPointer(rebasing: buffer[done...]))
      }
    }
    return (PatternRender.samples(pattern, rate: rate, frames: renderer.frameCount), audio)
  }

  /// `hap render PATTERN -o H.wav --audio A.wav --sample-format f32`: both files read back.
  static func render(_ pattern: String, in folder: TemporaryFolder, _ extra: [String] = []) throws -> (
    haptic: RenderedWAV, audio: RenderedWAV, stderr: String
  ) {
    let haptic = folder.path("haptic.wav")
    let audio = folder.path("audio.wav")
    let result = try Hap.run(
      ["render", pattern, "-o", haptic, "--audio", audio, "--sample-format", "f32"] + extra)
    #expect(result.status == 0, "\(result.stderr)")
    return (try RenderedWAV(path: haptic), try RenderedWAV(path: audio), result.stderr)
  }

  @Test("the Ricochet patterns: both signals as the library renders them, each sound at its time and level, L = R")
  func ricochetPatterns() throws {
    guard Self.ricochetNames.count == 7 else {
      corpusMissing("the seven Ricochet patterns", at: Self.ricochet)
      return
    }
    var checkedVolume = false
    for name in Self.ricochetNames {
      let path = Self.ricochet.appendingPathComponent(name).path
      let (pattern, sounds) = try Self.load(path)
      let folder = try TemporaryFolder()
      let (haptic, audio, _) = try Self.render(path, in: folder)
      let expected = try Self.library(pattern, sounds: sounds)
      #expect(haptic.channels == 1 && audio.channels == 2 && audio.rate == 48000, "\(name)")
      #expect(haptic.frames == audio.frames, "\(name): the two signals are as long")
      // (Compared as Bools: a failed comparison of arrays this long prints them whole.)
      let sameHaptic = haptic.samples() == expected.haptic
      #expect(sameHaptic, "\(name): the haptic signal is the library's")
      let track = audio.samples()
      let sameTrack = track == expected.audio
      #expect(sameTrack, "\(name): the audio track is the library's, bit for bit")
      let left = stride(from: 0, to: track.count, by: 2).map { track[$0] }
      let right = stride(from: 1, to: track.count, by: 2).map { track[$0] }
      let centred = left == right
      #expect(centred, "\(name): L = R at pan 0")
      let event = try #require(pattern.events.first { $0.type == .audioCustom })
      let sound = try #require(sounds[event.waveformPath!])
      let start = Frames.from(seconds: event.time, rate: Self.rate)
      // The whole sound fits in both signals (the haptic signal no longer stops at its tap).
      #expect(haptic.frames >= start + sound.frames - Self.releaseFrames, "\(name): \(haptic.frames) frames")
      // The file's first sound lands at the event's time plus the file's own lead, within one sample.
      let lead = try #require(sound.samples.firstIndex { $0 != 0 })
      let first = try #require(left.firstIndex { $0 != 0 })
      #expect(first >= start + lead && first <= start + lead + 1, "\(name): first sound at \(first), event at \(start)")
      // Between the envelope's ramps the level is the file's × AudioVolume (0.75: -2.5 dB).
      let volume = Float(event.parameters.audioVolume)
      var worst: Float = 0
      for k in Self.attackFrames..<(sound.frames - Self.releaseFrames) {
        let want = volume * sound.samples[k]
        if abs(want) < SoftLimiter.threshold { worst = max(worst, abs(left[start + k] - want)) }
      }
      #expect(worst < 1e-6, "\(name): off the file × \(volume) by \(worst)")
      if volume == 0.75 { checkedVolume = true }
    }
    #expect(checkedVolume, "a Ricochet pattern at AudioVolume 0.75 was checked")
  }

  /// A pattern of one AudioCustom event at `pan` playing `tone.wav` (a 440 Hz sine at 0.5).
  static func panned(_ pan: Double, in folder: TemporaryFolder) throws -> String {
    let sine = (0..<4800).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / rate)) }
    try folder.write("tone.wav", Data(SyntheticSound.wav([sine], rate: 48000, format: .f32)))
    return try folder.write(
      "pan.json",
      #"{"Version": 1, "Pattern": [{"Event": {"Time": 0.01, "EventType": "AudioCustom", "EventWaveformPath": "tone.wav", "EventParameters": [{"ParameterID": "AudioPan", "ParameterValue": \#(pan)}]}}]}"#
    )
  }

  @Test(
    "the pan law at -1 and 1: each channel at the law's gain (balance: the far side silent)", arguments: [-1.0, 1.0])
  func panLaw(pan: Double) throws {
    let folder = try TemporaryFolder()
    let pattern = try Self.panned(pan, in: folder)
    let (_, audio, _) = try Self.render(pattern, in: folder)
    let track = audio.samples()
    let left = stride(from: 0, to: track.count, by: 2).map { Double(track[$0]) }
    let right = stride(from: 1, to: track.count, by: 2).map { Double(track[$0]) }
    let gains = AudioChoices.panLaw.gains(pan)
    let start = 480 + Self.attackFrames
    let middle = start..<(start + 2400)
    func peak(_ x: [Double]) -> Double { middle.map { abs(x[$0]) }.max() ?? 0 }
    #expect(abs(peak(left) - 0.5 * gains.left) < 1e-3, "left \(peak(left)), law \(gains.left)")
    #expect(abs(peak(right) - 0.5 * gains.right) < 1e-3, "right \(peak(right)), law \(gains.right)")
    #expect(min(gains.left, gains.right) == 0 && max(gains.left, gains.right) == 1)
  }

  @Test("without --audio: the haptic signal as long as with it, and one note for all patterns; --quiet none")
  func noteOnce() throws {
    let folder = try TemporaryFolder()
    let pattern = try Self.panned(0, in: folder)
    let second = try folder.write(
      "tap.json",
      #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}, {"Event": {"Time": 0, "EventType": "AudioContinuous", "EventDuration": 0.2}}]}"#
    )
    let (withAudio, _, _) = try Self.render(pattern, in: folder)
    let alone = try Hap.run(["render", pattern, "-o", folder.path("alone.wav"), "--sample-format", "f32"])
    #expect(alone.status == 0, "\(alone.stderr)")
    let same = try RenderedWAV(path: folder.path("alone.wav")).samples() == withAudio.samples()
    #expect(same, "the haptic signal is the same without --audio")
    #expect(alone.stderr.contains("note: the audio track (1 audio event) was not written; add --audio FILE.wav"))
    let two = try Hap.run(["render", pattern, second, "-o", folder.path("out/")])
    #expect(two.status == 0, "\(two.stderr)")
    #expect(two.stderr.components(separatedBy: "not written").count == 2, "once: \(two.stderr)")
    #expect(
      two.stderr.contains("the audio tracks of 2 patterns (2 audio events) were not written; add --audio FOLDER/"))
    let quiet = try Hap.run(["render", pattern, "-o", folder.path("quiet.wav"), "--quiet"])
    #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
  }

  @Test("several patterns with --audio FOLDER/: one track per pattern, named like its haptic signal")
  func audioFolder() throws {
    let folder = try TemporaryFolder()
    let pattern = try Self.panned(0.5, in: folder)
    let tap = try folder.write(
      "tap.json", #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#)
    let result = try Hap.run(["render", pattern, tap, "-o", folder.path("h/"), "--audio", folder.path("a/")])
    #expect(result.status == 0, "\(result.stderr)")
    for name in ["pan", "tap"] {
      let haptic = try RenderedWAV(path: folder.path("h/\(name).wav"))
      let audio = try RenderedWAV(path: folder.path("a/\(name).wav"))
      #expect(audio.channels == 2 && haptic.frames == audio.frames, "\(name)")
    }
    let same = try Hap.run(["render", pattern, tap, "-o", folder.path("h/"), "--audio", folder.path("h/")])
    #expect(same.status == 2 && same.stderr.contains("--audio and -o"), "\(same.stderr)")
  }

  @Test("a sound that cannot be found or decoded: refused with the validator's message, nothing written")
  func badSound() throws {
    let folder = try TemporaryFolder()
    let missing = try folder.write(
      "missing.json",
      #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "nowhere.wav"}}]}"#
    )
    let broken = try folder.write(
      "broken.json",
      #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "bad.wav"}}]}"#
    )
    try folder.write("bad.wav", Data("RIFF\u{4}\u{0}\u{0}\u{0}WAVEjunk".utf8))
    for (pattern, rule) in [(missing, "waveform-not-found"), (broken, "waveform-undecodable")] {
      let result = try Hap.run(["render", pattern, "-o", folder.path("h.wav"), "--audio", folder.path("a.wav")])
      #expect(result.status == 1, "\(result.stderr)")
      #expect(result.stderr.contains(rule), "\(result.stderr)")
      #expect(!FileManager.default.fileExists(atPath: folder.path("h.wav")))
      #expect(!FileManager.default.fileExists(atPath: folder.path("a.wav")))
    }
    // From standard input the validator cannot look beside it: the render says so, exit 1.
    let text = try String(contentsOfFile: missing, encoding: .utf8)
    let piped = try Hap.run(
      ["render", "-", "-o", folder.path("h.wav"), "--audio", folder.path("a.wav")], input: Data(text.utf8))
    #expect(piped.status == 1 && piped.stderr.contains("nowhere.wav"), "\(piped.stderr)")
    #expect(!FileManager.default.fileExists(atPath: folder.path("h.wav")))
  }

  @Test("two FIFOs, read at once by one reader (as sox -M would): both written in place, in lockstep")
  func twoFIFOs() throws {
    let folder = try TemporaryFolder()
    _ = try Self.panned(0, in: folder)  // writes tone.wav
    // Long enough that neither signal fits in a pipe's buffer: written one after the other, the
    // reader below (which takes a block of each in turn) and hap would wait on each other.
    let long = try folder.write(
      "long.json",
      #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 2}}, {"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "tone.wav"}}]}"#
    )
    let haptic = folder.path("haptic.fifo")
    let audio = folder.path("audio.fifo")
    #expect(mkfifo(haptic, 0o600) == 0 && mkfifo(audio, 0o600) == 0)
    let reader = Process()
    reader.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    reader.arguments = [
      "-c",
      "import sys\nh=open(sys.argv[1],'rb'); a=open(sys.argv[2],'rb'); n=[0,0]\nwhile True:\n x=h.read(4096); y=a.read(8192)\n n[0]+=len(x); n[1]+=len(y)\n if not x and not y: break\nopen(sys.argv[3],'w').write('%d %d' % tuple(n))",
      haptic, audio, folder.path("counts"),
    ]
    try reader.run()
    defer {
      if reader.isRunning { kill(reader.processIdentifier, SIGKILL) }
      reader.waitUntilExit()
    }
    let result = try Hap.run(["render", long, "-o", haptic, "--audio", audio], timeout: 30)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(Wait.exit(of: reader, within: 20), "the reader never saw both ends")
    let counts = try String(contentsOfFile: folder.path("counts"), encoding: .utf8).split(separator: " ")
    let bytes = counts.compactMap { Int($0) }
    // 2 s of s16 at 48 kHz (and its release), mono and stereo, each with a 44-byte header.
    #expect(bytes.count == 2 && bytes[0] > 192_000 && bytes[1] == 2 * (bytes[0] - 44) + 44, "\(counts)")
  }

  @Test("outputs: '--audio -' on standard output, an unwritable track leaves no haptic file, refusals")
  func outputs() throws {
    let folder = try TemporaryFolder()
    let pattern = try Self.panned(0, in: folder)
    let piped = try BinaryRun.hap(["render", pattern, "-o", folder.path("h.wav"), "--audio", "-"])
    #expect(piped.status == 0, "\(piped.stderr)")
    let track = try RenderedWAV(piped.stdout)
    let written = try RenderedWAV(path: folder.path("h.wav"))
    #expect(track.channels == 2 && track.frames == written.frames)
    let unwritable = try Hap.run(["render", pattern, "-o", folder.path("h2.wav"), "--audio", "/nonexistent/a.wav"])
    #expect(unwritable.status == 2, "\(unwritable.stderr)")
    #expect(!FileManager.default.fileExists(atPath: folder.path("h2.wav")))
    #expect(RenderFixtures.leftovers(in: folder.url.path).isEmpty)
    for (arguments, words) in [
      (["-o", "-", "--audio", "-"], "cannot both be '-'"),
      (["-o", folder.path("x.wav"), "--audio", folder.path("x.wav")], "same file"),
      (["-o", folder.path("x.wav"), "--audio", folder.path("x.png")], "not a format hap writes"),
    ] {
      let result = try Hap.run(["render", pattern] + arguments)
      #expect(result.status == 2 && result.stderr.contains(words), "\(arguments): \(result.stderr)")
    }
  }
}

extension RenderAudioTests {
  @Test("hap info says how long render writes a pattern whose sound outlasts its tap")
  func infoRenderedDuration() throws {
    let path = Self.ricochet.appendingPathComponent("CollisionSmall.ahap").path
    guard FileManager.default.fileExists(atPath: path) else {
      corpusMissing("CollisionSmall.ahap", at: Self.ricochet)
      return
    }
    let folder = try TemporaryFolder()
    let render = try Hap.run(["render", path, "-o", folder.path("h.wav")])
    #expect(render.status == 0, "\(render.stderr)")
    let frames = try RenderedWAV(path: folder.path("h.wav")).frames
    let json = try Hap.run(["info", "--format", "json", path])
    #expect(json.status == 0, "\(json.stderr)")
    let rendered = try #require(try decodeJSON(json.stdout)["renderedDuration"] as? Double)
    #expect(abs(rendered * Self.rate - Double(frames)) < 1, "info \(rendered) s, render \(frames) frames")
    let text = try Hap.run(["info", path])
    #expect(text.stdout.contains("'hap render' writes both signals that long"), "\(text.stdout)")
  }
}
