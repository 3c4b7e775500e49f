import HapFormat
import HapRender
import Synchronization

/// A record of where a ``Player``'s messages acted: each message with the output frame at which
/// it took effect, pushed by the playback thread (``Player/record(into:)``) and taken by another
/// thread (``take(_:)``), which may write it out as control lines (`@SECONDS ACTION`): rendered
/// with `hap render --control`, they give what played, frame for frame.
///
/// Its ring is made by `init`: recording allocates nothing, takes no lock and retains nothing.
/// A full ring drops the newest record and counts it (``dropped``), never blocks the playback
/// thread.
public final class ControlTrace: @unchecked Sendable {
  /// One message, where it acted.
  public struct Entry: Sendable, Equatable {
    /// Output frame of the player (frames since it started, pauses included).
    public var frame: Int
    public var action: ControlMessage.Action
  }

  private let ring: SPSCRing<Entry>
  private let lost = Atomic<Int>(0)

  /// `capacity` records may wait to be taken (rounded up to a power of two).
  public init(capacity: Int = 4096) {
    ring = SPSCRing(capacity: capacity, filler: Entry(frame: 0, action: .pause))
  }

  /// Playback thread: records `action`, acting at `frame`.
  @inline(__always)
  public func record(frame: Int, _ action: ControlMessage.Action) {
    if !ring.push(Entry(frame: frame, action: action)) { lost.add(1, ordering: .relaxed) }
  }

  /// Another thread: hands over every record waiting, oldest first.
  public func take(_ body: (Entry) -> Void) {
    while let entry = ring.pop() { body(entry) }
  }

  /// Records dropped because the ring was full.
  public var dropped: Int { lost.load(ordering: .relaxed) }

  /// `entry` as a control line at `rate` (`@0.250000000 intensity 0.8`), in the words
  /// ``ControlParser`` reads.
  public static func line(_ entry: Entry, rate: Double) -> String {
    let time = "@" + String(format9: Double(entry.frame) / rate)
    switch entry.action {
    case .parameter(let id, let value): return "\(time) \(id.rawValue) \(value)"
    case .pause: return "\(time) pause"
    case .resume: return "\(time) resume"
    case .stop: return "\(time) stop"
    case .seek(let seconds): return "\(time) seek \(seconds)"
    case .rate(let value): return "\(time) rate \(value)"
    case .loop(let on): return "\(time) loop \(on ? "on" : "off")"
    }
  }
}

extension String {
  /// `value` with nine decimals (a frame at any rate up to 192 kHz read back exactly).
  init(format9 value: Double) {
    let scaled = (value * 1e9).rounded()
    let whole = Int(scaled / 1e9)
    let fraction = Int(scaled - Double(whole) * 1e9)
    let digits = String(fraction)
    self = "\(whole)." + String(repeating: "0", count: 9 - digits.count) + digits
  }
}
