import HapFormat
import HapRender

/// How much a just-in-time writer keeps queued on the device, adapted to the machine: the
/// `--margin` the user asked for (in whole periods), a period more after each underrun, and a
/// period less again after a clean stretch, so one late wake-up early in a long-running service
/// does not cost every later fire a whole buffer of latency (docs/architecture.md, "Render
/// ahead").
///
/// - An underrun while sound was queued or about to be (a glitch, or a fire played late) widens
///   the level by a period, up to the buffer less a period, where the writer stops waiting and
///   keeps the buffer full (``wakeFrames`` is nil). An underrun in silence (the service's device
///   kept open between fires, a pause in a control stream) is inaudible and costs nothing: it
///   is counted (``silentUnderruns``) but leaves the level alone, so a machine whose threads
///   now and then wake late (a VM: `make bench`'s reference thread) does not make every later
///   fire wait behind a full buffer.
/// - After ``relaxSeconds`` of playing with no underrun, the level narrows by a period, never
///   below the margin asked for. Each underrun doubles the clean stretch needed (up to
///   ``longestRelaxSeconds``), so a machine that keeps stalling ends up with a wider margin for
///   longer, and a single hiccup costs two seconds of a wider margin.
///
/// Integers only, no allocation: it is updated by the real-time thread after each period.
public struct JustInTimeMargin: Sendable, Equatable {
  /// The first clean stretch after an underrun before the level narrows by a period.
  public static let relaxSeconds = 2
  /// The longest clean stretch the doubling reaches.
  public static let longestRelaxSeconds = 64

  /// The level asked for (frames, whole periods).
  public let base: Int
  public let periodFrames: Int
  public let bufferFrames: Int
  /// The current level (frames, whole periods, from ``base`` to the buffer less a period).
  public private(set) var level: Int
  /// Frames played with no underrun since the last underrun or narrowing.
  private var cleanFrames = 0
  /// Clean frames needed before narrowing by a period.
  public private(set) var relaxFrames: Int
  private let longestRelaxFrames: Int
  private var underrunsSeen = 0
  /// Underruns that came while nothing sounded, so left the level alone.
  public private(set) var silentUnderruns = 0
  /// Underruns that came while sound was queued (each widened the level).
  public private(set) var heardUnderruns = 0

  /// `base` frames queued when the writer wakes (a whole number of periods, at least one, less
  /// than the buffer less a period: ``ALSASink/wakeFrames``), on a device of `rate` Hz.
  public init(base: Int, periodFrames: Int, bufferFrames: Int, rate: Int) {
    self.base = base
    self.periodFrames = periodFrames
    self.bufferFrames = bufferFrames
    level = base
    relaxFrames = Self.relaxSeconds * rate
    longestRelaxFrames = Self.longestRelaxSeconds * rate
  }

  /// Frames left queued when the writer renders the next period; nil: whenever a period has
  /// room (the buffer kept full).
  public var wakeFrames: Int? { level + periodFrames >= bufferFrames ? nil : level }

  /// After writing `frames`, with `underruns` counted by the device so far; `sounding`: whether
  /// the period written, or one still queued when the device ran dry, held sound.
  public mutating func played(_ frames: Int, underruns: Int, sounding: Bool = true) {
    if underruns != underrunsSeen && !sounding {
      silentUnderruns += underruns - underrunsSeen
      underrunsSeen = underruns
    }
    if underruns != underrunsSeen {
      if heardUnderruns > 0 { relaxFrames = min(relaxFrames * 2, longestRelaxFrames) }
      heardUnderruns += 1
      underrunsSeen = underruns
      level = min(level + periodFrames, bufferFrames - periodFrames)
      cleanFrames = 0
      return
    }
    guard level > base else { return }
    cleanFrames += frames
    if cleanFrames >= relaxFrames {
      level -= periodFrames
      cleanFrames = 0
    }
  }
}
