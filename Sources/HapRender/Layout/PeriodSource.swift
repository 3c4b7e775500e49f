import HapFormat

/// The named channels a source renders. A ``ChannelLayout`` maps them onto a device's
/// channels: the exciter's drive (`haptic`) and the pattern's sound, the audio track's stereo
/// pair (`audioLeft`, `audioRight`: the library's ``AudioRenderer`` output, frame k the same
/// instant as the haptic plane's frame k).
public enum SignalChannel: Int, CaseIterable, Sendable, CustomStringConvertible {
  /// The exciter's drive signal.
  case haptic
  /// The audio track's left channel.
  case audioLeft
  /// The audio track's right channel.
  case audioRight

  /// How many named channels there are: the planes of ``PeriodFrames``.
  public static let count = allCases.count

  public var description: String {
    switch self {
    case .haptic: "haptic"
    case .audioLeft: "audio left"
    case .audioRight: "audio right"
    }
  }

  /// Its word in a channel map (`--layout left,right,haptic,haptic`).
  public var mapWord: String {
    switch self {
    case .haptic: "haptic"
    case .audioLeft: "left"
    case .audioRight: "right"
    }
  }
}

/// One period of frames, one plane (a run of Floats) per ``SignalChannel``, and the period's
/// **motor levels**: what a rumble motor plays for it (its strong and weak magnitudes, 0...65535
/// as Floats, the largest any voice of the period asks for; a motor's period is one 5 ms step).
/// Made before the playback thread starts and freed by its owner with ``deallocate()``. It holds
/// a pointer and plain values, so passing it around retains nothing.
public struct PeriodFrames: @unchecked Sendable {
  /// Frames per plane.
  public let count: Int
  private let base: UnsafeMutablePointer<Float>

  /// Zeroed planes of `count` frames.
  public init(allocating count: Int) {
    self.count = count
    base = .allocate(capacity: Self.capacity(count))
    base.initialize(repeating: 0, count: Self.capacity(count))
  }

  /// The planes, then the two motor levels.
  private static func capacity(_ count: Int) -> Int { max(1, count) * SignalChannel.count + 2 }

  /// The motor levels' place, after the planes.
  @inline(__always)
  private var motor: UnsafeMutablePointer<Float> { base + max(1, count) * SignalChannel.count }

  /// The period's strong (dull) motor magnitude, 0...65535.
  @inline(__always)
  public var strong: Float { motor[0] }
  /// The period's weak (sharp) motor magnitude, 0...65535.
  @inline(__always)
  public var weak: Float { motor[1] }

  /// Raises the motor levels to at least `strong` and `weak` (the largest wins: a motor's
  /// magnitude is its speed, not a wave that sums).
  @inline(__always)
  public func raiseMotor(strong: Float, weak: Float) {
    motor[0] = max(motor[0], strong)
    motor[1] = max(motor[1], weak)
  }

  /// Motor levels back to nothing.
  @inline(__always)
  public func clearMotor() {
    motor[0] = 0
    motor[1] = 0
  }

  public func deallocate() { base.deallocate() }

  /// The plane of `channel`.
  @inline(__always)
  public subscript(channel: SignalChannel) -> UnsafeMutableBufferPointer<Float> {
    UnsafeMutableBufferPointer(start: base + channel.rawValue * count, count: count)
  }

  /// Whether every plane is all zeros (a period that sounds nothing).
  @inline(__always)
  public var isSilent: Bool {
    for k in 0..<count * SignalChannel.count where base[k] != 0 { return false }
    return true
  }

  /// Silences every plane from `frame` to the end (from 0: the motor levels too).
  @inline(__always)
  public func silence(from frame: Int) {
    if frame <= 0 { clearMotor() }
    guard frame < count else { return }
    for channel in 0..<SignalChannel.count {
      (base + channel * count + frame).update(repeating: 0, count: count - frame)
    }
  }
}

/// What the device engine plays: something that renders the next period of named channels,
/// says when it has finished, and fades out when asked to stop. ``Player`` (patterns, under
/// live control) and ``EventMixer`` (the service's fires) are the two.
///
/// **Real-time contract.** The engine calls these on its playback thread, through an
/// `Unmanaged` reference, once per period: they allocate nothing, take no lock, print nothing
/// and retain or release nothing; live input reaches them through ``SPSCRing``s.
public protocol PeriodSource: AnyObject, SendableMetatype {
  /// Takes what live input arrived, then renders the next `frames.count` frames into `frames`
  /// (the planes it does not render stay as they are, silence); returns how many it rendered,
  /// fewer only when it has finished (the engine silences the rest).
  func render(into frames: PeriodFrames) -> Int

  /// Whether it has nothing more to play (the engine drains the device and ends).
  var isFinished: Bool { get }

  /// Begins the stop: fade out over the ``StopFade`` and finish. Called once.
  func beginStop()

  /// Whether nothing sounds and no live input is queued, so that until some arrives every
  /// period would be silence: the engine may then stop the device's stream (its queued silence
  /// dropped) and ``waitForInput(milliseconds:)``, so that the next input plays at once instead
  /// of behind a margin of silence. Sources without live input are never idle.
  var isIdle: Bool { get }

  /// Whether nothing sounded in the period just rendered and nothing will before the next live
  /// input: ``isIdle``, except that input may have arrived since the render took what had
  /// arrived (it plays from the next period). A motor skips such a silent period, and when
  /// input waits, its next period starts at once instead of a step later. Sources whose
  /// input all arrives before their render (or that have none) are quiet exactly when idle.
  var isQuiet: Bool { get }

  /// Blocks until live input arrives or `milliseconds` pass (returning at once when some
  /// arrived since the last wait). Only called while ``isIdle``.
  func waitForInput(milliseconds: Int32)
}

extension PeriodSource {
  public var isIdle: Bool { false }
  public var isQuiet: Bool { isIdle }
  public func waitForInput(milliseconds: Int32) {}
}
