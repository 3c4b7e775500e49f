import Foundation
import HapCore
import HapRuntime

/// Core Haptics' error: a code of Apple's `CHHapticErrors.h` (domain `com.apple.CoreHaptics`,
/// the same raw values) and, on Linux, the cause: what hap found (a pattern's findings with
/// their positions, the device's refusal), so a program can say why.
///
/// Matches as on iOS: `catch CHHapticError.engineNotRunning`, `error.code == .invalidEventTime`;
/// bridges to `NSError` in domain ``CoreHapticsErrorDomain``. Sendable as Apple's error is:
/// `userInfo`'s values are the caller's, taken as given.
public struct CHHapticError: Error, @unchecked Sendable, CustomStringConvertible, CustomNSError, Hashable {
  /// The codes of `CHHapticErrors.h`, with Apple's raw values.
  public enum Code: Int, Sendable, CaseIterable {
    case engineNotRunning = -4805
    case operationNotPermitted = -4806
    case engineStartTimeout = -4808
    case notSupported = -4809
    case serverInitFailed = -4810
    case serverInterrupted = -4811
    case invalidPatternPlayer = -4812
    case invalidPatternData = -4813
    case invalidPatternDictionary = -4814
    case invalidAudioSession = -4815
    case invalidEngineParameter = -4816
    case invalidParameterType = -4820
    case invalidEventType = -4821
    case invalidEventTime = -4822
    case invalidEventDuration = -4823
    case invalidAudioResource = -4824
    case resourceNotAvailable = -4825
    case badEventEntry = -4830
    case badParameterEntry = -4831
    case invalidTime = -4840
    case fileNotFound = -4851
    case insufficientPower = -4897
    case unknownError = -4898
    case memoryError = -4899
  }

  /// Why, on Linux: the cause behind the code.
  public enum Cause: Sendable {
    /// The pattern's findings (errors first), each with its rule and position.
    case pattern([Diagnostic])
    /// The device refused or went away.
    case device(SinkError)
    /// `-D`'s words (`HAP_DEVICE`, `CHHapticEngine(device:)`) name nothing.
    case address(DeviceAddress.Failure)
    /// The simulated exciter cannot be used.
    case simulated(SimulatedDevice.Failure)
    /// No DualSense as asked.
    case dualSense(DualSenseDevice.Failure)
    /// Anything else, said in a sentence.
    case other(String)
  }

  public let code: Code
  /// Linux: what hap found (nil for an error made by a program).
  public let cause: Cause?
  /// What the error carries besides its code, as Apple's `CHHapticError(_:userInfo:)` takes it.
  public let userInfo: [String: Any]

  /// As on Apple's platforms: a code and what it carries.
  public init(_ code: Code, userInfo: [String: Any] = [:]) {
    self.code = code
    cause = nil
    self.userInfo = userInfo
  }

  /// Linux: a code and its cause.
  public init(_ code: Code, _ cause: Cause) {
    self.code = code
    self.cause = cause
    userInfo = [:]
  }

  public static var errorDomain: String { CoreHapticsErrorDomain }
  public var errorCode: Int { code.rawValue }
  /// ``userInfo``, with the description under `NSLocalizedDescriptionKey` unless it gives one.
  public var errorUserInfo: [String: Any] {
    userInfo.merging([NSLocalizedDescriptionKey: description]) { given, _ in given }
  }

  /// Equal when the code and what is said of it (the description) are.
  public static func == (a: CHHapticError, b: CHHapticError) -> Bool {
    a.code == b.code && a.description == b.description
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(code)
    hasher.combine(description)
  }

  public var description: String {
    let what = "\(code) (\(code.rawValue))"
    guard let cause else { return "Core Haptics error \(what)" }
    switch cause {
    case .pattern(let findings):
      let first = findings.first { $0.severity == .error } ?? findings.first
      let more = findings.filter { $0.severity == .error }.count - 1
      return "\(what): "
        + (first.map { "\($0.message) (\($0.rule), line \($0.line), column \($0.column))" } ?? "invalid pattern")
        + (more > 0 ? "; \(more) more error\(more == 1 ? "" : "s")" : "")
    case .device(.noSuchDevice(let device)):  // hap's advice: a close name, and -D sim
      return "\(what): \(PlaybackSession.Failure.sink(.noSuchDevice(device: device)).description)"
    case .device(let error): return "\(what): \(error)"
    case .address(let failure): return "\(what): \(failure)"
    case .simulated(let failure): return "\(what): \(failure)"
    case .dualSense(let failure): return "\(what): \(failure)"
    case .other(let sentence): return "\(what): \(sentence)"
    }
  }

  public static var engineNotRunning: Code { .engineNotRunning }
  public static var operationNotPermitted: Code { .operationNotPermitted }
  public static var engineStartTimeout: Code { .engineStartTimeout }
  public static var notSupported: Code { .notSupported }
  public static var serverInitFailed: Code { .serverInitFailed }
  public static var serverInterrupted: Code { .serverInterrupted }
  public static var invalidPatternPlayer: Code { .invalidPatternPlayer }
  public static var invalidPatternData: Code { .invalidPatternData }
  public static var invalidPatternDictionary: Code { .invalidPatternDictionary }
  public static var invalidAudioSession: Code { .invalidAudioSession }
  public static var invalidEngineParameter: Code { .invalidEngineParameter }
  public static var invalidParameterType: Code { .invalidParameterType }
  public static var invalidEventType: Code { .invalidEventType }
  public static var invalidEventTime: Code { .invalidEventTime }
  public static var invalidEventDuration: Code { .invalidEventDuration }
  public static var invalidAudioResource: Code { .invalidAudioResource }
  public static var resourceNotAvailable: Code { .resourceNotAvailable }
  public static var badEventEntry: Code { .badEventEntry }
  public static var badParameterEntry: Code { .badParameterEntry }
  public static var invalidTime: Code { .invalidTime }
  public static var fileNotFound: Code { .fileNotFound }
  public static var insufficientPower: Code { .insufficientPower }
  public static var unknownError: Code { .unknownError }
  public static var memoryError: Code { .memoryError }
}

/// Core Haptics' error domain, `com.apple.CoreHaptics` (Apple's `CoreHapticsErrorDomain`).
public let CoreHapticsErrorDomain: String = "com.apple.CoreHaptics"

extension CHHapticError.Code {
  /// `catch CHHapticError.invalidEventTime`.
  public static func ~= (code: Self, error: any Error) -> Bool {
    (error as? CHHapticError)?.code == code
  }
}

extension CHHapticError {
  /// The code iOS gives a pattern refused for `findings` (the first error's rule decides): the
  /// loader's codes as the reverse-engineered iOS 26.1 loader raises them
  /// (`../shared/notes/core-haptics-loader.md`).
  static func pattern(_ findings: [Diagnostic]) -> CHHapticError {
    let rule = findings.first { $0.severity == .error }?.rule ?? ""
    let code: Code =
      switch rule {
      case "json-syntax", "json-byte-order-mark": .invalidPatternData
      case "pattern-missing", "pattern-empty", "entry-kind": .invalidPatternDictionary
      case "version-unsupported": .notSupported
      case "event-type-unknown": .invalidEventType
      case "time-negative": .invalidEventTime
      case "duration-negative", "duration-missing", "waveform-loop-duration-missing": .invalidEventDuration
      case "waveform-not-found", "waveform-missing", "waveform-path-null": .badEventEntry
      case "waveform-undecodable": .invalidAudioResource
      case "waveform-budget-exceeded": .resourceNotAvailable
      case "parameter-wrong-event-type", "parameter-not-applicable", "curve-parameter-unsupported": .invalidParameterType
      case "key-missing": .badEventEntry
      default: rule.hasPrefix("curve-") || rule.hasPrefix("parameter-") ? .badParameterEntry : .invalidPatternData
      }
    return CHHapticError(code, .pattern(findings))
  }
}

extension CHHapticError {
  /// The session's failure as Core Haptics' nearest code.
  init(_ failure: PlaybackSession.Failure) {
    switch failure {
    case .simulated(let why): self.init(.serverInitFailed, .simulated(why))
    case .dualSense(let why): self.init(.notSupported, .dualSense(why))
    case .sink(let error): self.init(.serverInitFailed, .device(error))
    case .motor: self.init(.serverInitFailed, .other(failure.description))
    default: self.init(.serverInitFailed, .other(failure.description))
    }
  }
}

extension CHHapticError {
  /// A sound that cannot be used, as Core Haptics' nearest code.
  init(_ failure: SoundReader.Failure) {
    switch failure.kind {
    case .notFound: self.init(.fileNotFound, .other(failure.description))
    case .unavailable: self.init(.resourceNotAvailable, .other(failure.description))
    case .invalid: self.init(.invalidAudioResource, .other(failure.description))
    }
  }
}
