import Foundation
import HapCore
import HapKit

/// `hap play --watch -D evdev:PATH`: `--watch` on a rumble motor. Each round plays the saved
/// patterns as `hap play -D evdev:` does (their rumble tracks, one effect updated every 5 ms);
/// a save during a play stops it (the effect stopped and removed) and plays the new version;
/// Ctrl-C ends it with 130.
enum MotorWatch {
  static func run(_ patterns: [String], path: String, settings: PlayCommand.Settings, device: DeviceOptions)
    throws(UsageError) -> Int32
  {
    var unique: [String] = []
    for name in patterns where !unique.contains(name) { unique.append(name) }
    let loop = try WatchLoop.command(unique)
    guard loop.start() else { return ExitStatus.trouble }
    var round = unique
    var noted = false
    while true {
      let loaded = round.compactMap { try? PatternLoading.load($0, reading: settings.reading.watching) }
      if !loaded.isEmpty {
        Console.error("hap: \(WatchLoop.clock()) playing \(round.map { Format.excerpt($0) }.joined(separator: ", "))")
        let status = RumblePlayback.play(
          loaded, path: path, gap: settings.gap, loops: settings.loops, speed: settings.speed,
          gainDecibels: device.gain, verbose: device.verbose, stop: loop.beginAction(), noted: noted)
        loop.finished()
        noted = true
        if Interrupt.requested { return ExitStatus.interrupted }
        if status == ExitStatus.trouble { return status }
      }
      Console.error(
        "hap: watching \(unique.count == 1 ? "'\(Format.excerpt(unique[0]))'" : "\(unique.count) files") for saves; Ctrl-C ends"
      )
      guard let changed = loop.next() else { return ExitStatus.interrupted }
      Console.error(WatchLoop.separator(changed))
      round = changed
    }
  }
}
