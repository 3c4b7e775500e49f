import HapRumble

/// Where HapKit reads what the kernel lists: the sound cards and the input devices. A program
/// that stands other files in (hap does, from its `HAP_INPUT_DEVICES`, for its tests) passes
/// them; HapKit itself reads no environment variable for them.
public struct SystemFolders: Sendable, Equatable {
  /// A file laid out like `/proc/bus/input/devices`: the input devices `hap drag` looks through.
  public var inputDevices: String
  /// A folder laid out like `/proc/asound`: the sound cards a DualSense is looked for among.
  public var soundCards: String
  /// Where input event devices (rumble motors) are looked for.
  public var eventDevices: String
  /// The ALSA configuration sound devices open from, read alone (as `ALSA_CONFIG_PATH`'s files
  /// are, in place of alsa.conf and the user's asoundrc); nil: ALSA's own, as the process finds it.
  /// A program hands it in when it reads its configuration's place for itself (hap: its run's
  /// `ALSA_CONFIG_PATH`, whatever the process's); devices are listed from ALSA's own.
  public var alsaConfiguration: String?
  /// Whose force feedback an input event device's is: the kernel's, or a driver a program hands
  /// in to stand in for it (hap's tests: files that behave as event devices, every call recorded).
  public var forceFeedback: any ForceFeedbackDriver = KernelForceFeedback.shared

  public init(
    inputDevices: String = "/proc/bus/input/devices", soundCards: String = "/proc/asound",
    eventDevices: String = "/dev/input"
  ) {
    self.inputDevices = inputDevices
    self.soundCards = soundCards
    self.eventDevices = eventDevices
  }

  /// The kernel's own.
  public static let standard = SystemFolders()

  public static func == (a: SystemFolders, b: SystemFolders) -> Bool {
    a.inputDevices == b.inputDevices && a.soundCards == b.soundCards && a.eventDevices == b.eventDevices
      && a.alsaConfiguration == b.alsaConfiguration && a.forceFeedback === b.forceFeedback
  }
}
