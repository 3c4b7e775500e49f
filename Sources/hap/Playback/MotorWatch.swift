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
    let unique = patterns.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
    let loop = try WatchLoop.command(unique)
    guard loop.start() else { return ExitStatus.trouble }
    var round = unique
    var noted = false
    while true {
      let loaded = round.compactMap { try? PatternLoading.load($0, reading: settings.reading.watching) }
      if !loaded.isEmpty {
        Console.error("hap: \(WatchLoop.clock()) playing \(round.map { Format.excerpt($0) }.joined(separator: ", "))")
        var walk = MotorPlayback.walk(loaded, gap: settings.gap, loops: settings.loops, speed: settings.speed)
        let status = RumblePlayback.run(
          &walk, path: path, gainDecibels: device.gain, verbose: device.verbose, stop: loop.beginAction(), noted: noted)
        loop.finished()
        noted = true
        if Interrupt.requested { return ExitStatus.interrupted }
        if status == ExitStatus.trouble { return status }
      }
      Console.error(WatchLoop.waiting(unique))
      guard let changed = loop.next() else { return ExitStatus.interrupted }
      Console.error(WatchLoop.separator(changed))
      round = changed
    }
  }
}
