/// The fuzzer's targets (`make fuzz`, `FUZZ_TARGET=NAME` picks one): each takes any bytes and
/// checks its own promises, stopping the process (`precondition`) when one is broken. The
/// regression inputs in `fuzz/regressions/` replay through the same checks: files at the top
/// level through ``pattern``, files in a folder named after a target through that target.
public enum FuzzTarget: String, CaseIterable, Sendable {
  /// AHAP patterns: ``FuzzCheck/run(_:)`` (validate, render, summarise, diff).
  case pattern
  /// The service's request lines: ``RequestFuzzCheck/run(_:)``.
  case request
  /// Control stream lines (`hap play --control`): ``ControlFuzzCheck/run(_:)``.
  case control
  /// `.haptic` clips: ``HapticFuzzCheck/run(_:)``.
  case haptic
  /// WAV files (`hap convert X.wav`): ``WAVFuzzCheck/run(_:)``.
  case wav
  /// Meta's actuator configuration files (`--profile X.acf`): ``ACFFuzzCheck/run(_:)``.
  case acf
  /// feedbackd theme files (`hap serve --theme`): ``ThemeFuzzCheck/run(_:)``.
  case theme
  /// D-Bus method calls in their wire form (`hap serve --dbus`): ``DBusFuzzCheck/run(_:)``.
  case dbus
  /// `.haprc.json` files (rule levels, ignore globs): ``SettingsFuzzCheck/run(_:)``.
  case settings
  /// `hap studio`'s API requests: ``StudioFuzzCheck/run(_:)``.
  case studio

  public func run(_ bytes: [UInt8]) {
    switch self {
    case .pattern: FuzzCheck.run(bytes)
    case .request: RequestFuzzCheck.run(bytes)
    case .control: ControlFuzzCheck.run(bytes)
    case .haptic: HapticFuzzCheck.run(bytes)
    case .wav: WAVFuzzCheck.run(bytes)
    case .acf: ACFFuzzCheck.run(bytes)
    case .theme: ThemeFuzzCheck.run(bytes)
    case .dbus: DBusFuzzCheck.run(bytes)
    case .settings: SettingsFuzzCheck.run(bytes)
    case .studio: StudioFuzzCheck.run(bytes)
    }
  }
}

/// A sentence meant for one line of a terminal, log or reply: short, and no line break.
func checkSentence(_ message: String, _ what: String) {
  precondition(message.utf8.count < 2000, "\(what) echoes too much of the input")
  precondition(
    !message.unicodeScalars.contains { $0 == "\n" || $0 == "\r" || $0 == "\u{2028}" || $0 == "\u{2029}" },
    "\(what) breaks its line")
}
