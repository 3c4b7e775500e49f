/// The file is not JSON: hap points at the exact byte where reading failed.
///
/// Core Haptics cannot load a pattern it cannot parse. Typical causes: a missing comma or quote, a
/// comment, single quotes, a stray character, an empty file, invalid UTF-8, or nesting deeper than
/// 512 levels. A file that is not text at all (a WAV file, or any binary) is named as such.
/// Reading stops at the first such fault, so fix it and validate again.
///
/// An actuator configuration file (`--profile FILE.acf`, Meta's ACF) is read as JSON5 instead,
/// which allows comments, single quotes, keys without quotes, trailing commas and hexadecimal
/// numbers; the same rule reports what is not JSON5 (nesting is limited to 64 levels there).
///
/// Bad:
/// ```json
/// {"Pattern": [ {"Event": {"Time": 0 "EventType": "HapticTransient"}} ]}
/// ```
///
/// Good:
/// ```json
/// {"Pattern": [ {"Event": {"Time": 0, "EventType": "HapticTransient"}} ]}
/// ```
extension Rule {
  public static let jsonSyntax = Rule(id: "json-syntax", severity: .error)
}
