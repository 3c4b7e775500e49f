import Foundation
import HapCore
import HapResample
import HapTestSupport
import Testing

/// `hap play` with a pattern's sound (issue 21): on a second device (`--audio-device`) or on the
/// device's own audio channels (`--channel ...audio=L,R`), bit for bit the library's audio track,
/// the haptics lasting as long as the sound, and the two devices aligned.
@Suite("hap play: the pattern's sound", .serialized)
struct SoundPlaybackTests {
  static let ricochet = SharedCorpus.ahapAudio.appendingPathComponent("apple__unityplugins")

  /// A corpus pattern with its sounds decoded (and resampled to `rate`, as `hap play` does).
  static func pattern(_ name: String, rate: Double = 48000) throws -> (path: String, Pattern, [String: DecodedSound]) {
    let path = ricochet.appendingPathComponent(name).path
    let pattern = try #require(Validator.validate(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))).pattern)
    var sounds: [String: DecodedSound] = [:]
    for event in pattern.events where event.type == .audioCustom {
      guard let waveform = event.waveformPath, sounds[waveform] == nil else { continue }
      let file = ricochet.appendingPathComponent(waveform).path
      let sound = try DecodedSound.wav([UInt8](try Data(contentsOf: URL(fileURLWithPath: file))))
      sounds[waveform] = try Resampler.resample(sound, to: rate)
    }
    return (path, pattern, sounds)
  }

  /// The haptic reference: the pattern's render to `frames` frames (silence past its end).
  static func haptic(_ pattern: Pattern, frames: Int) -> [Float] {
    PatternRender.samples(pattern, rate: 48000, frames: frames)
  }

  /// Frames the haptic renderer alone gives for `pattern` at 48 kHz.
  static func hapticLength(_ pattern: Pattern) -> Int {
    Renderer(schedule: Schedule(pattern: pattern, rate: 48000)).frameCount
  }

  /// `values` is `reference`, then only zeros.
  static func isPrefixThenSilence(_ values: [Float], _ reference: [Float]) -> Bool {
    values.count >= reference.count && Array(values[0..<reference.count]) == reference
      && values[reference.count...].allSatisfy { $0 == 0 }
  }

  @Test("on a second device, the sound is the library's audio track bit for bit, and the haptics last as long")
  func soundOnASecondDeviceIsTheAudioTrack() throws {
    let device = try SimulatedExciter(speaker: "")
    let (path, pattern, sounds) = try Self.pattern("CollisionLarge.ahap")
    let result = try Hap.run(
      ["play", "-D", "exciter", "-f", "f32", "--audio-device", "speaker", path], environment: device.environment)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.isEmpty, "\(result.stderr)")
    let haptic = try PCM.floats(contentsOf: device.capture, format: .f32)
    let sound = try PCM.floats(contentsOf: device.speakerCapture, format: .f32)
    let length = max(
      Self.hapticLength(pattern), AudioSchedule(pattern: pattern, sounds: sounds, rate: 48000).frameCount)
    #expect(length > Self.hapticLength(pattern), "the sound outlasts the haptics in this pattern")
    // Both devices took the same number of frames, enough for the sound.
    #expect(haptic.count == sound.count / 2)
    #expect(haptic.count >= length)
    #expect(Self.isPrefixThenSilence(haptic, Self.haptic(pattern, frames: length)))
    let audio = PatternRender.audio(pattern, sounds: sounds, rate: 48000, frames: Self.hapticLength(pattern))
    #expect(audio.contains { $0 != 0 })
    #expect(Self.isPrefixThenSilence(sound, audio), "the sound differs from the library's audio track")
    // --gain scales the sound as it scales the haptics (as hap render --audio renders it).
    let quieter = try Hap.run(
      ["play", "-D", "exciter", "--gain", "-6", "--audio-device", "speaker", path], environment: device.environment)
    #expect(quieter.status == 0, "\(quieter.stderr)")
    let scaled = PatternRender.audio(
      pattern, sounds: sounds, rate: 48000, frames: Self.hapticLength(pattern), gain: pow(10, -6.0 / 20))
    #expect(Self.isPrefixThenSilence(try PCM.floats(contentsOf: device.speakerCapture, format: .f32), scaled))
  }

  @Test("a layout with audio channels plays both on one device: haptic=1/audio=2,3 and a named layout")
  func soundOnTheDevicesOwnChannels() throws {
    let (path, pattern, sounds) = try Self.pattern("CollisionSmall.ahap")
    let audio = PatternRender.audio(pattern, sounds: sounds, rate: 48000, frames: Self.hapticLength(pattern))
    let length = audio.count / 2
    let haptic = Self.haptic(pattern, frames: length)
    let left: [Float] = (0..<length).map { audio[2 * $0] }
    let right: [Float] = (0..<length).map { audio[2 * $0 + 1] }
    for (layout, order) in [("haptic=1/audio=2,3", [0, 1, 2]), ("speakers+exciter", [2, 0, 1])] {
      let device = try SimulatedExciter()
      let result = try Hap.run(
        ["play", "-D", "exciter", "-f", "f32", "--channels", "3", "--channel", layout, path],
        environment: device.environment)
      #expect(result.status == 0, "\(result.stderr)")
      let frames = try PCM.floats(contentsOf: device.capture, format: .f32)
      let channels: [[Float]] = (0..<3).map { c in stride(from: c, to: frames.count, by: 3).map { frames[$0] } }
      #expect(Self.isPrefixThenSilence(channels[order[0]], haptic), "\(layout): haptic")
      #expect(Self.isPrefixThenSilence(channels[order[1]], left), "\(layout): left")
      #expect(Self.isPrefixThenSilence(channels[order[2]], right), "\(layout): right")
    }
  }

  @Test("the default sound device that does not open is one line and the haptics play; a named one is trouble")
  func soundDeviceThatDoesNotOpen() throws {
    let device = try SimulatedExciter()
    let (path, pattern, _) = try Self.pattern("CollisionSmall.ahap")
    // No sound hardware here: 'default' does not open (machine-facts.md).
    let result = try Hap.run(["play", "-D", "exciter", "-f", "f32", path], environment: device.environment)
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stderr.split(separator: "\n")
    #expect(lines.count == 1 && lines[0].contains("sound is not played"), "\(result.stderr)")
    let haptic = try PCM.floats(contentsOf: device.capture, format: .f32)
    #expect(
      Array(haptic.prefix(Self.hapticLength(pattern))) == Self.haptic(pattern, frames: Self.hapticLength(pattern)))
    let named = try Hap.run(
      ["play", "-D", "exciter", "--audio-device", "nowhere", path], environment: device.environment)
    #expect(named.status == 2, "\(named.stderr)")
    #expect(named.stderr.contains("nowhere"))
    let quiet = try Hap.run(["play", "-D", "exciter", "--no-audio", path], environment: device.environment)
    #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
    let both = try Hap.run(
      ["play", "-D", "exciter", "--no-audio", "--audio-only", path], environment: device.environment)
    #expect(both.status == 2, "\(both.stderr)")
  }

  @Test("--audio-only plays the sound alone on its device; --no-audio the haptics alone, as long as they last")
  func audioOnlyAndNoAudio() throws {
    let device = try SimulatedExciter(speaker: "")
    let (path, pattern, sounds) = try Self.pattern("CollisionLarge.ahap")
    let result = try Hap.run(
      ["play", "-D", "exciter", "--audio-only", "--audio-device", "speaker", path], environment: device.environment)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: device.capture), "the haptic device was opened")
    let sound = try PCM.floats(contentsOf: device.speakerCapture, format: .f32)
    let audio = PatternRender.audio(pattern, sounds: sounds, rate: 48000)
    #expect(Self.isPrefixThenSilence(sound, audio))
    let haptics = try Hap.run(
      ["play", "-D", "exciter", "-f", "f32", "--no-audio", path], environment: device.environment)
    #expect(haptics.status == 0, "\(haptics.stderr)")
    let haptic = try PCM.floats(contentsOf: device.capture, format: .f32)
    #expect(Self.isPrefixThenSilence(haptic, Self.haptic(pattern, frames: Self.hapticLength(pattern))))
    #expect(haptic.count < audio.count / 2, "--no-audio still waited for the sound")
  }
}

extension SoundPlaybackTests {
  @Test("play --watch plays the sound on its device with each play, the audio track bit for bit")
  func watchPlaysTheSound() throws {
    let device = try SimulatedExciter(speaker: "")
    let (path, pattern, sounds) = try Self.pattern("CollisionSmall.ahap")
    let audio = PatternRender.audio(pattern, sounds: sounds, rate: 48000, frames: Self.hapticLength(pattern))
    let hap = try StartedHap(
      ["play", "--watch", "-D", "exciter", "--audio-device", "speaker", path], environment: device.environment)
    let bytes = 4 * audio.count
    let played = hap.poll { Wait.fileSize(device.speakerCapture) >= bytes && hap.stderr.contains("watching") }
    #expect(played, "the sound never played: \(hap.stderr)")
    #expect(hap.interrupt() == 130, "\(hap.stderr)")
    let sound = try PCM.floats(contentsOf: device.speakerCapture, format: .f32)
    #expect(Array(sound.prefix(audio.count)) == audio)
  }

  @Test("hap drag plays the pattern's sound too, on its device, untouched by the gesture's haptic controls")
  func dragPlaysTheSound() throws {
    let device = try SimulatedExciter(speaker: "")
    let (path, pattern, sounds) = try Self.pattern("CollisionSmall.ahap")
    let recording = try device.folder.write(
      "drag.ev", DragCommandTests.recording(Array(DragCommandTests.gesture.events.prefix(20))))
    let result = try Hap.run(
      ["drag", path, "--input", recording, "-D", "exciter", "--audio-device", "speaker"],
      environment: device.environment)
    #expect(result.status == 0, "\(result.stderr)")
    let sound = try PCM.floats(contentsOf: device.speakerCapture, format: .f32)
    let audio = PatternRender.audio(pattern, sounds: sounds, rate: 48000, frames: Self.hapticLength(pattern))
    // Up to the end of the first pass, less the stop's fade (10 ms) where the recording ends first.
    let compared = min(audio.count, sound.count - 2 * 960)
    #expect(compared > 2 * 4800, "the drag played \(sound.count / 2) frames of sound")
    #expect(Array(sound.prefix(max(0, compared))) == Array(audio.prefix(max(0, compared))))
  }
}

/// The two devices stay aligned: a sound onset and a haptic onset written at the same pattern
/// time reach their devices within 1 ms of each other, at the start and after 60 s. When each
/// device *plays* a captured frame comes from its timing file (the pacing clock,
/// `SimulatedExciterTimingTests`).
@Suite("hap play: haptics and sound aligned on two devices", .serialized)
struct SoundAlignmentTests {
  /// When capture frame `frame` is played, in ns of CLOCK_MONOTONIC (nil: after a prepare, the
  /// stream restarted, so the file cannot place it in the same run).
  static func playTime(of frame: UInt64, _ lines: [SimulatedExciterTimingTests.Line], rate: UInt64 = 48000) -> UInt64? {
    var transfer: SimulatedExciterTimingTests.Transfer?
    var index = 0
    for (k, line) in lines.enumerated() {
      if case .transfer(let t) = line, t.capture <= frame {
        transfer = t
        index = k
      }
    }
    guard let transfer else { return nil }
    let stream = transfer.stream + (frame - transfer.capture)
    if transfer.running { return transfer.time + (stream - transfer.clock) * 1_000_000_000 / rate }
    for line in lines[index...] {
      if case .start(let time, let clock) = line { return time + (stream - clock) * 1_000_000_000 / rate }
    }
    return nil
  }

  /// Prepares after the first clock start: each an underrun's restart, which the alignment
  /// cannot survive on one device alone.
  static func restarts(_ lines: [SimulatedExciterTimingTests.Line]) -> Int {
    guard let first = lines.firstIndex(where: { if case .start = $0 { true } else { false } }) else { return 0 }
    return lines[first...].filter { if case .prepare = $0 { true } else { false } }.count
  }

  /// The first frame from `from` on whose magnitude passes `level` (one channel of `channels`).
  static func onset(_ samples: [Float], channels: Int, from: Int, level: Float = 0.05) -> Int? {
    var frame = from
    while frame * channels < samples.count {
      if abs(samples[frame * channels]) > level { return frame }
      frame += 1
    }
    return nil
  }

  @Test("a sound and a haptic onset at the same pattern time reach their devices within 1 ms, at 0 s and after 60 s")
  func onsetsStayWithinAMillisecond() throws {
    let device = try SimulatedExciter("timing \"EXCITER-TIMING\"", speaker: "timing \"SPEAKER-TIMING\"")
    // Each device's own timing file, in the device's folder.
    let hapticTiming = device.folder.path("exciter-timing.txt")
    let soundTiming = device.folder.path("speaker-timing.txt")
    let config = device.folder.path("config/alsa/asoundrc")
    try String(contentsOfFile: config, encoding: .utf8)
      .replacingOccurrences(of: "EXCITER-TIMING", with: hapticTiming)
      .replacingOccurrences(of: "SPEAKER-TIMING", with: soundTiming)
      .write(toFile: config, atomically: true, encoding: .utf8)
    let click: [Float] = (0..<960).map { $0 < 480 ? 0.5 : 0 }
    _ = try device.folder.write("click.wav", Data(SyntheticSound.wav([click], rate: 48000)))
    let times = [0.05, 60.05]
    let events = times.map { time in
      """
      {"Event": {"Time": \(time), "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}]}},
      {"Event": {"Time": \(time), "EventType": "AudioCustom", "EventWaveformPath": "click.wav", "EventWaveformUseVolumeEnvelope": false}}
      """
    }
    let pattern = try device.folder.write(
      "aligned.json", "{\"Version\": 1, \"Pattern\": [\(events.joined(separator: ",\n"))]}")
    let result = try Hap.run(
      ["play", "-D", "exciter", "-f", "f32", "--latency", "40", "--audio-device", "speaker", pattern],
      environment: device.environment, timeout: 120)
    #expect(result.status == 0, "\(result.stderr)")
    let hapticLines = try SimulatedExciterTimingTests.lines(hapticTiming)
    let soundLines = try SimulatedExciterTimingTests.lines(soundTiming)
    let haptic = try PCM.floats(contentsOf: device.capture, format: .f32)
    let sound = try PCM.floats(contentsOf: device.speakerCapture, format: .f32)
    // An underrun re-prepares the device it hit (each recovers alone): past it, a skew is the
    // loaded host's, not the design's, and is recorded as a known issue with its figures.
    let restarts = (Self.restarts(hapticLines), Self.restarts(soundLines))
    for time in times {
      let expected = Int((time * 48000).rounded())
      let h = try #require(
        Self.onset(haptic, channels: 1, from: expected - 48, level: 0.01), "no haptic onset at \(time) s")
      let s = try #require(Self.onset(sound, channels: 2, from: expected - 48), "no sound onset at \(time) s")
      #expect(abs(s - expected) <= 1, "the sound starts at frame \(s), not \(expected)")
      #expect(abs(h - expected) <= 48, "the haptic onset at frame \(h), not near \(expected)")
      let hapticAt = try #require(Self.playTime(of: UInt64(expected), hapticLines))
      let soundAt = try #require(Self.playTime(of: UInt64(expected), soundLines))
      let apart = Double(Int64(bitPattern: hapticAt &- soundAt)) / 1e6
      if restarts != (0, 0) && abs(apart) >= 1 {
        withKnownIssue("an underrun restarted a device's clock (a loaded host): \(restarts) restarts") {
          Issue.record("at \(time) s the devices play the same pattern frame \(apart) ms apart")
        }
        continue
      }
      #expect(abs(apart) < 1, "at \(time) s the devices play the same pattern frame \(apart) ms apart")
    }
  }
}
