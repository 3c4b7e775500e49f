import FoundationEssentials
import Glibc
import HapCore

/// A progress line on standard error for long renders: only when standard error is a terminal,
/// only once the work has taken more than a second, overwritten in place (at most ten times a
/// second) and cleared at the end, so that nothing of it stays on the screen or reaches a
/// captured standard error.
struct Progress {
  let label: String
  let total: Int
  private let enabled: Bool
  /// ``delay``, read once.
  private let delay: Double
  private let started: Double
  private var lastShown = -Double.infinity
  private var shown = false

  /// Shows nothing before this many seconds (1; `HAP_PROGRESS_DELAY` changes it, for tests).
  static var delay: Double {
    guard let text = RunEnvironment["HAP_PROGRESS_DELAY"], let value = Double(text), value >= 0 else { return 1 }
    return value
  }

  init(label: String, total: Int, enabled: Bool = Console.stderrIsTerminal) {
    self.label = Format.excerpt(label, limit: 40)
    self.total = max(1, total)
    self.enabled = enabled
    delay = enabled ? Progress.delay : 1
    started = Progress.now()
  }

  static func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  /// Reports `done` of `total` units (frames).
  mutating func update(_ done: Int) {
    guard enabled else { return }
    let now = Progress.now()
    guard now - started >= delay, now - lastShown >= 0.1 else { return }
    lastShown = now
    shown = true
    let percent = Int(min(100, max(0, Double(done) / Double(total) * 100)))
    Console.status("\(label): rendering \(percent)%")
  }

  /// Clears the line, if one was shown.
  mutating func finish() {
    guard shown else { return }
    shown = false
    Console.status(nil)
  }
}
