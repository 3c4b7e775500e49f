/// `"EventWaveformPath": null`, which makes iOS's loader fail, on any event type.
///
/// A `null` is a value to iOS's AHAP loader, not an absent key: iOS 26.1's resource scan hands
/// every event's `EventWaveformPath` to `NSURL fileURLWithPath:` as a path, so a `null` there makes
/// the load fail, even on a haptic event that has no use for a waveform (source: iOS 26.1 loader,
/// reverse-engineered). At least one authoring app's exporter writes `null` on haptic events.
/// Leave the key out unless the event is an AudioCustom one with a real file.
///
/// Bad:
/// ```json
/// {"Event": {"Time": 0, "EventType": "HapticTransient", "EventWaveformPath": null}}
/// ```
///
/// Good:
/// ```json
/// {"Event": {"Time": 0, "EventType": "HapticTransient"}}
/// ```
extension Rule {
  public static let waveformPathNull = Rule(id: "waveform-path-null", severity: .error)
}
