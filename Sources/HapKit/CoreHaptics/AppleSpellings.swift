import Dispatch
import Foundation
import HapRuntime

// Core Haptics' names that are not members of its classes, spelled as Apple's generated
// interface spells them, so that code written for iOS builds against HapKit unchanged.

/// `registerAudioResource(_:options:)`'s option keys (Apple's `CHHapticAudioResourceKey`).
public typealias CHHapticAudioResourceKey = String

/// Whether a registered sound fades in and out (Bool; default true), as an AHAP event's
/// `EventWaveformUseVolumeEnvelope`.
public let CHHapticAudioResourceKeyUseVolumeEnvelope: CHHapticAudioResourceKey = "UseVolumeEnvelope"

/// Whether a registered sound loops over its event's duration (Bool; default false), as an AHAP
/// event's `EventWaveformLoopEnabled`.
public let CHHapticAudioResourceKeyLoopEnabled: CHHapticAudioResourceKey = "LoopEnabled"

/// What an advanced player calls when it ends (Apple's
/// `CHHapticAdvancedPatternPlayerCompletionHandler`).
public typealias CHHapticAdvancedPatternPlayerCompletionHandler = ((any Error)?) -> Void

/// The least of AVFoundation's audio session that lets iOS's usual engine set-up build and run
/// (`CHHapticEngine(audioSession: .sharedInstance())`, Apple's samples). Linux has no audio
/// session: the engine does not use it; its device is chosen as ``CHHapticEngine/init()``
/// chooses (docs/hapkit.md).
open class AVAudioSession: NSObject, @unchecked Sendable {
  private static let shared = AVAudioSession()

  /// The process's one session.
  open class func sharedInstance() -> AVAudioSession { shared }
}

extension CHHapticEngine {
  /// As on iOS; the session is not used on Linux (there is none): the engine plays on the device
  /// ``init()`` chooses (`HAP_DEVICE`, else ALSA's `default`), sounds included, with or
  /// without a session (iOS's `nil`: the default audio behaviour).
  public convenience init(audioSession: AVAudioSession?) throws {
    try self.init()
  }
}

extension DispatchTime {
  /// This time plus `n` (Apple's Dispatch makes `DispatchTime` `Strideable`; Linux's lacks it).
  public func advanced(by n: DispatchTimeInterval) -> DispatchTime { self + n }

  /// From this time to `other`, in nanoseconds (negative when `other` is earlier).
  public func distance(to other: DispatchTime) -> DispatchTimeInterval {
    let from = uptimeNanoseconds
    let to = other.uptimeNanoseconds
    let difference = to >= from ? Int(clamping: to - from) : -Int(clamping: from - to)
    return .nanoseconds(difference)
  }
}
