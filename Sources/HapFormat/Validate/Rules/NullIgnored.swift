/// A `null` for a key that iOS's loader ignores (`Metadata`, `Version`, `EventWaveformUseVolumeEnvelope`, `EventWaveformLoopEnabled`): read as if the key were absent.
///
/// iOS's AHAP loader never reads `Metadata`, assumes version 1.0 when `Version` is missing or not a
/// number, and reads the two waveform switches only when they hold a value (source: iOS 26.1
/// loader, reverse-engineered). So such a `null` loads, and hap treats it as if the key were not
/// written (a `null` Version counts as 1.0, without `version-missing`). It still says nothing, and
/// stricter readers (JSON schema checkers, converters) may refuse it: leave the key out instead.
/// A `null` anywhere else is a `type-mismatch` error, and a `null` `EventWaveformPath` is
/// `waveform-path-null`.
///
/// Bad:
/// ```json
/// {"Version": 1.0, "Metadata": null, "Pattern": [ {"Event": {"Time": 0, "EventType": "HapticTransient"}} ]}
/// ```
///
/// Good:
/// ```json
/// {"Version": 1.0, "Pattern": [ {"Event": {"Time": 0, "EventType": "HapticTransient"}} ]}
/// ```
extension Rule {
  public static let nullIgnored = Rule(id: "null-ignored", severity: .warning)
}
