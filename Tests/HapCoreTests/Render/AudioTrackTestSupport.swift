import Foundation
import HapTestSupport
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

// Helpers of the audio track tests: audio events from model values, sounds made in the test,
// rendering an audio track completely, and measuring one channel of it.

enum AudioFixture {
  static let rate = 48000.0

  /// An `AudioCustom` event playing `path`.
  static func custom(
    _ time: Double, _ path: String = "s.wav", duration: Double = 0, volume: Double = 1, pan: Double = 0,
    pitch: Double = 0, brightness: Double = 1, envelope: Bool = true, loops: Bool = false, attack: Double = 0,
    decay: Double = 0, release: Double = 0, sustained: Bool = true
  ) -> Event {
    var p = EventParameters()
    p.audioVolume = volume
    p.audioPan = pan
    p.audioPitch = pitch
    p.audioBrightness = brightness
    p.attackTime = attack
    p.decayTime = decay
    p.releaseTime = release
    p.sustained = sustained
    return Event(
      time: time, type: .audioCustom, duration: duration, parameters: p, waveformPath: path,
      waveformUsesVolumeEnvelope: envelope, waveformLoops: loops)
  }

  /// An `AudioContinuous` event.
  static func tone(
    _ time: Double, _ duration: Double, volume: Double = 1, pitch: Double = 0, brightness: Double = 1,
    attack: Double = 0, decay: Double = 0, release: Double = 0, sustained: Bool = true
  ) -> Event {
    var p = EventParameters()
    p.audioVolume = volume
    p.audioPitch = pitch
    p.audioBrightness = brightness
    p.attackTime = attack
    p.decayTime = decay
    p.releaseTime = release
    p.sustained = sustained
    return Event(time: time, type: .audioContinuous, duration: duration, parameters: p)
  }

  /// A mono sound.
  static func mono(_ x: [Float], rate: Double = rate) -> DecodedSound {
    DecodedSound(rate: rate, channels: 1, samples: x)
  }

  /// A sine of `frequency` Hz and `amplitude`, `seconds` long.
  static func sine(_ frequency: Double, seconds: Double, amplitude: Float = 0.5) -> [Float] {
    (0..<Int(seconds * rate)).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / rate)) }
  }

  /// Uniform white noise in -amplitude...amplitude (seeded).
  static func noise(seconds: Double, amplitude: Float = 0.5) -> [Float] {
    var random = SplitMix64(seed: 7)
    return (0..<Int(seconds * rate)).map { _ in amplitude * Float(Double(random.next() % 20001) / 10000 - 1) }
  }

  /// The audio track of `pattern` rendered to the end in blocks of `block` frames.
  static func render(
    _ pattern: Pattern, sounds: [String: DecodedSound] = [:], block: Int = 4096, frameCount: Int = 0
  ) -> AudioTrack {
    let schedule = AudioSchedule(pattern: pattern, sounds: sounds, rate: rate)
    let renderer = AudioRenderer(schedule: schedule, frameCount: frameCount)
    var out: [Float] = []
    out.reserveCapacity(2 * renderer.frameCount)
    var buffer = [Float](repeating: 0, count: 2 * block)
    while renderer.remaining > 0 {
      let n = buffer.withUnsafeMutableBufferPointer { renderer.render(into: $0) }
      out += buffer[0..<(2 * n)]
    }
    return AudioTrack(samples: out, schedule: schedule, statistics: renderer.statistics)
  }
}

/// A rendered audio track: interleaved left, right.
struct AudioTrack {
  var samples: [Float]
  var schedule: AudioSchedule
  var statistics: RenderStatistics
  var frames: Int { samples.count / 2 }
  var left: [Float] { stride(from: 0, to: samples.count, by: 2).map { samples[$0] } }
  var right: [Float] { stride(from: 1, to: samples.count, by: 2).map { samples[$0] } }

  /// The first frame where either channel is not zero.
  var firstSound: Int? { samples.firstIndex { $0 != 0 }.map { $0 / 2 } }
  /// The frame after the last where either channel is not zero.
  var soundEnd: Int? { samples.lastIndex { $0 != 0 }.map { $0 / 2 + 1 } }
}

/// Measures of one channel, independent of the renderer.
enum Signal {
  static func rms(_ x: ArraySlice<Float>) -> Double {
    guard !x.isEmpty else { return 0 }
    return (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count)).squareRoot()
  }

  /// Mean frequency (Hz) between the first and last upward zero crossing.
  static func frequency(_ x: ArraySlice<Float>, rate: Double = AudioFixture.rate) -> Double {
    var crossings: [Double] = []
    var n = x.startIndex + 1
    while n < x.endIndex {
      if x[n - 1] < 0 && x[n] >= 0 {
        crossings.append(Double(n - 1) + Double(-x[n - 1]) / Double(x[n] - x[n - 1]))
      }
      n += 1
    }
    guard crossings.count >= 2 else { return 0 }
    return Double(crossings.count - 1) / (crossings.last! - crossings.first!) * rate
  }

  /// Amplitude of the component at `frequency` Hz (a single-bin DFT over a Hann window).
  static func amplitude(_ x: ArraySlice<Float>, at frequency: Double, rate: Double = AudioFixture.rate) -> Double {
    var re = 0.0
    var im = 0.0
    var weight = 0.0
    let n = Double(x.count)
    for (k, value) in x.enumerated() {
      let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(k) / n)
      let phase = 2 * Double.pi * frequency * Double(k) / rate
      re += w * Double(value) * cos(phase)
      im -= w * Double(value) * sin(phase)
      weight += w
    }
    return 2 * (re * re + im * im).squareRoot() / weight
  }

  /// Mean square of the first difference over the mean square: how much of the energy is high.
  static func highFrequencyShare(_ x: ArraySlice<Float>) -> Double {
    var d = 0.0
    var e = 0.0
    var n = x.startIndex + 1
    while n < x.endIndex {
      let step = Double(x[n] - x[n - 1])
      d += step * step
      e += Double(x[n]) * Double(x[n])
      n += 1
    }
    return e == 0 ? 0 : d / e
  }
}
