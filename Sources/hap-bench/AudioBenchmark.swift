import Foundation
import Synchronization
import HapCore

/// `hap-bench --audio REPEATS PATTERN...`: renders each pattern's haptic signal alone, then the
/// haptic signal and its audio track (the sounds of its AudioCustom events read from beside it,
/// as WAV), in 480-frame blocks, and reports the best total time of each over `REPEATS` runs
/// of the whole set, side by side (issue 21's target: with the sounds at most twice the time).
enum AudioBenchmark {
  static func run(_ arguments: [String]) -> Int32 {
    guard arguments.count >= 2, let repeats = Int(arguments[0]) else {
      FileHandle.standardError.write(Data("usage: hap-bench --audio REPEATS PATTERN...\n".utf8))
      return 2
    }
    var sets: [(Schedule, AudioSchedule)] = []
    for path in arguments.dropFirst() {
      guard let data = FileManager.default.contents(atPath: path), let pattern = Validator.validate(Array(data)).pattern
      else {
        FileHandle.standardError.write(Data("hap-bench: \(path) is not a readable pattern\n".utf8))
        return 1
      }
      let sounds = loadSounds(pattern, folder: URL(fileURLWithPath: path).deletingLastPathComponent())
      sets.append(
        (Schedule(pattern: pattern, rate: 48000), AudioSchedule(pattern: pattern, sounds: sounds, rate: 48000)))
    }
    let frames = sets.reduce(0) { $0 + max($1.0.frameCount, $1.1.frameCount) }
    let sounded = sets.reduce(0) { $0 + $1.1.voices.count }
    print(
      "audio track: \(sets.count) patterns, \(sounded) audio events, \(frames) frames at 48 kHz, best of \(repeats)")
    let haptic = best(repeats) { for (s, a) in sets { renderHaptic(s, frames: max(s.frameCount, a.frameCount)) } }
    let both = best(repeats) {
      for (s, a) in sets {
        renderHaptic(s, frames: max(s.frameCount, a.frameCount))
        renderAudio(a, frames: s.frameCount)
      }
    }
    print(String(format: "  haptic signal only:        %8.3f ms", haptic * 1000))
    print(String(format: "  haptic signal + audio track: %6.3f ms = %.2fx (target <= 2x)", both * 1000, both / haptic))
    return 0
  }

  /// The decoded sounds of `pattern`'s AudioCustom events, found beside it (WAV only).
  static func loadSounds(_ pattern: Pattern, folder: URL) -> [String: DecodedSound] {
    var sounds: [String: DecodedSound] = [:]
    for event in pattern.events where event.type == .audioCustom {
      guard let path = event.waveformPath, sounds[path] == nil,
        let bytes = FileManager.default.contents(atPath: folder.appendingPathComponent(path).path),
        let signal = try? AudioSignal.wav(Array(bytes))
      else { continue }
      sounds[path] = DecodedSound(rate: signal.rate, channels: 1, samples: signal.samples)
    }
    return sounds
  }

  static func best(_ repeats: Int, _ body: () -> Void) -> Double {
    var best = Double.infinity
    for _ in 0..<max(1, repeats) {
      let start = DispatchTime.now().uptimeNanoseconds
      body()
      best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return best
  }

  /// Where each render's checksum goes, so the optimiser cannot drop the work it measures.
  static let sink = Atomic<UInt32>(0)

  /// The haptic signal, padded with silence to `frames` (the audio track's length) as a
  /// caller writing both would.
  static func renderHaptic(_ schedule: Schedule, frames: Int) {
    let renderer = Renderer(schedule: schedule)
    let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 480)
    defer { block.deallocate() }
    var done = 0
    var checksum: Float = 0
    while done < frames {
      let n = renderer.render(into: block)
      if n == 0 { block.update(repeating: 0) }
      checksum += block[0]
      done += n == 0 ? 480 : n
    }
    sink.store(checksum.bitPattern, ordering: .relaxed)
  }

  static func renderAudio(_ schedule: AudioSchedule, frames: Int) {
    let renderer = AudioRenderer(schedule: schedule, frameCount: frames)
    let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 960)
    defer { block.deallocate() }
    var checksum: Float = 0
    while renderer.remaining > 0 {
      _ = renderer.render(into: block)
      checksum += block[1]
    }
    sink.store(checksum.bitPattern, ordering: .relaxed)
  }
}
