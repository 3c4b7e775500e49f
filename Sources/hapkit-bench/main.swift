// `make bench`'s in-process HapKit figures, and the real-time probe's load (tests). Plays on
// the device `HAP_DEVICE` names; prints one CLOCK_MONOTONIC time (ns) per line, taken just
// before each call measured, for scripts/bench.py to find in the simulated exciter's timing.
//
//   hapkit-bench start N PATTERN    engine running; N × start(atTime: CHHapticTimeImmediate), 60 ms apart
//   hapkit-bench cold N PATTERN     N × (a new engine; engine.start(), then start(atTime: immediate)),
//                                   HAPKIT_BENCH_SETTLE_MS after making it (default 0)
//   hapkit-bench params N PATTERN   one looping player; N × sendParameters(intensity 0.2, then 1.0), 60 ms apart
//   hapkit-bench load SECONDS PATTERN  8 looping players, another thread sending parameters at 1 kHz
//   hapkit-bench make N PATTERN     N transients with two parameters each, made in code: prints the ms
//                                   to make the CHHapticPattern, to read the same AHAP from a file, to
//                                   make a player of it (no engine started), and the peak RSS in KiB
import Foundation
import HapKit

func now() -> UInt64 {
  var t = timespec()
  clock_gettime(CLOCK_MONOTONIC, &t)
  return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}

func sleep(ms: Double) { usleep(useconds_t(ms * 1000)) }

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("hapkit-bench: \(message)\n".utf8))
  exit(2)
}

/// `make`: a huge pattern made in code, then read from its AHAP file, then a player made.
func make(events count: Int) throws {
  let events = (0..<count).map { i in
    CHHapticEvent(
      eventType: .hapticTransient,
      parameters: [
        CHHapticEventParameter(parameterID: .hapticIntensity, value: Float(i % 10) / 10),
        CHHapticEventParameter(parameterID: .hapticSharpness, value: 0.5),
      ], relativeTime: Double(i) * 0.01)
  }
  var t0 = now()
  let made = try CHHapticPattern(events: events, parameters: [])
  let madeNs = now() - t0
  let file = NSTemporaryDirectory() + "hapkit-bench-make-\(getpid()).ahap"
  try made.ahapData.write(to: URL(fileURLWithPath: file))
  defer { unlink(file) }
  t0 = now()
  _ = try CHHapticPattern(contentsOf: URL(fileURLWithPath: file))
  let readNs = now() - t0
  let engine = try CHHapticEngine()
  t0 = now()
  _ = try engine.makePlayer(with: made)
  let playerNs = now() - t0
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  print(Double(madeNs) / 1e6, Double(readNs) / 1e6, Double(playerNs) / 1e6, usage.ru_maxrss)
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Double(arguments[2]) else {
  fail("usage: hapkit-bench start|cold|params|load N PATTERN")
}
let pattern: CHHapticPattern
do {
  pattern = try CHHapticPattern(contentsOf: URL(fileURLWithPath: arguments[3]))
} catch {
  fail("\(error)")
}

/// `HAPKIT_BENCH_SETTLE_MS`: cold mode's pause between making the engine and starting it.
let settle = Double(ProcessInfo.processInfo.environment["HAPKIT_BENCH_SETTLE_MS"] ?? "") ?? 0

func intensity(_ value: Float) -> [CHHapticDynamicParameter] {
  [CHHapticDynamicParameter(parameterID: .hapticIntensityControl, value: value, relativeTime: 0)]
}

do {
  switch arguments[1] {
  case "start":
    let engine = try CHHapticEngine()
    try engine.start()
    sleep(ms: 200)
    for _ in 0..<Int(count) {
      let player = try engine.makePlayer(with: pattern)
      let t0 = now()
      try player.start(atTime: CHHapticTimeImmediate)
      print(t0)
      sleep(ms: 60)
    }
    engine.stop()
    sleep(ms: 100)
  case "cold":
    for _ in 0..<Int(count) {
      let engine = try CHHapticEngine()
      let player = try engine.makePlayer(with: pattern)
      // `settle` ms between making the engine (at launch) and starting it (when needed).
      sleep(ms: settle)
      let t0 = now()
      try engine.start()
      let t1 = now()
      try player.start(atTime: CHHapticTimeImmediate)
      print(t0)
      if ProcessInfo.processInfo.environment["HAPKIT_BENCH_VERBOSE"] != nil {
        FileHandle.standardError.write(Data("engine.start() \(Double(t1 - t0) / 1e6) ms, player.start \(Double(now() - t1) / 1e6) ms\n".utf8))
      }
      sleep(ms: 60)
      let done = DispatchSemaphore(value: 0)
      engine.stop { _ in done.signal() }
      done.wait()
    }
  case "params":
    let engine = try CHHapticEngine()
    try engine.start()
    let player = try engine.makeAdvancedPlayer(with: pattern)
    player.loopEnabled = true
    try player.start(atTime: CHHapticTimeImmediate)
    try player.sendParameters(
      [CHHapticDynamicParameter(parameterID: .hapticSharpnessControl, value: 0.6, relativeTime: 0)],
      atTime: CHHapticTimeImmediate)
    sleep(ms: 300)
    for _ in 0..<Int(count) {
      try player.sendParameters(intensity(0.2), atTime: CHHapticTimeImmediate)
      sleep(ms: 60)
      let t0 = now()
      try player.sendParameters(intensity(1.0), atTime: CHHapticTimeImmediate)
      print(t0)
      sleep(ms: 60)
    }
    try player.stop(atTime: CHHapticTimeImmediate)
    sleep(ms: 100)
    engine.stop()
    sleep(ms: 100)
  case "load":
    let engine = try CHHapticEngine()
    try engine.start()
    var started: [any CHHapticAdvancedPatternPlayer] = []
    for _ in 0..<8 {
      let player = try engine.makeAdvancedPlayer(with: pattern)
      player.loopEnabled = true
      try player.start(atTime: CHHapticTimeImmediate)
      started.append(player)
    }
    let players = started
    final class Count: @unchecked Sendable { var value = 0 }
    let sent = Count()
    let end = now() + UInt64(count * 1e9)
    let sender = Thread {
      while now() < end {
        let value = Float(sent.value % 100) / 100
        for player in players {
          try? player.sendParameters(
            [
              CHHapticDynamicParameter(parameterID: .hapticIntensityControl, value: value, relativeTime: 0),
              CHHapticDynamicParameter(parameterID: .hapticSharpnessControl, value: 1 - value, relativeTime: 0),
            ], atTime: CHHapticTimeImmediate)
        }
        sent.value += 1
        usleep(1000)
      }
    }
    sender.start()
    while now() < end { sleep(ms: 50) }
    sleep(ms: 20)
    let done = DispatchSemaphore(value: 0)
    engine.stop { _ in done.signal() }
    done.wait()
    print(sent.value)
  case "make":
    try make(events: Int(count))
  default:
    fail("no mode '\(arguments[1])'")
  }
} catch {
  fail("\(error)")
}
