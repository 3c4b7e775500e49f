import HapFormat
import HapRender
import Synchronization

/// A numbered voice's end, as a mixer's real-time thread reports it (its ``VoiceTable``: in
/// ``EventMixer`` and ``PlayerMixer``): once per voice started with a number, whatever ended it.
public struct VoiceEnd: Equatable, Sendable {
  /// Why a numbered voice ended.
  public enum Reason: UInt8, Sendable {
    /// It played to its end.
    case played
    /// A stop ended it (of its voice, its event, its owner, or everything).
    case stopped
    /// A newcomer took its place (every voice was sounding).
    case stolen
    /// It never started: the mixer was full of voices of higher priority.
    case refused
    /// It never started: its command named no event or an empty variant slot.
    case unplayable
    /// The mixer stopped (its device closed) while it sounded.
    case closed
  }

  public var id: UInt32
  public var reason: Reason

  public init(id: UInt32, reason: Reason) {
    self.id = id
    self.reason = reason
  }
}

/// The ring a mixer's real-time thread reports numbered voices' ends into (``SPSCRing``, plain
/// values: reporting allocates, locks and retains nothing), and the producer's side takes.
final class VoiceEnds: @unchecked Sendable {
  private let ring: SPSCRing<VoiceEnd>
  private let lostCount = Atomic<Int>(0)

  /// At least `capacity` ends (4096 at least): every start ends once, and the producer takes
  /// them every few milliseconds while numbered voices sound.
  init(capacity: Int) {
    ring = SPSCRing(capacity: max(4096, capacity), filler: VoiceEnd(id: 0, reason: .played))
    // A push and a pop here, on the thread that makes the mixer: whatever the runtime
    // instantiates lazily for them (metadata, in an unoptimised build) is not made later on
    // the real-time thread, at its first report.
    _ = ring.push(VoiceEnd(id: 0, reason: .played))
    _ = ring.pop()
  }

  /// Real-time thread: voice `id` ended (0: not numbered, nothing to say). A full ring loses
  /// the report and counts it.
  @inline(__always)
  func report(_ id: UInt32, _ reason: VoiceEnd.Reason) {
    guard id != 0 else { return }
    if !ring.push(VoiceEnd(id: id, reason: reason)) { lostCount.add(1, ordering: .relaxed) }
  }

  /// The ends reported since the last call, oldest first (one thread at a time).
  func take(_ body: (VoiceEnd) -> Void) {
    while let end = ring.pop() { body(end) }
  }

  var lost: Int { lostCount.load(ordering: .relaxed) }
}
