/// A comma before a closing `]` or `}`.
///
/// Apple's own AHAP files have them and Core Haptics reads them, but strict JSON parsers (jq,
/// Python, most game engines) refuse the file.
///
/// `hap fix` removes the comma (docs/fix.md).
///
/// Bad:
/// ```json
/// {"Pattern": [ {"Event": {"Time": 0, "EventType": "HapticTransient",}}, ]}
/// ```
///
/// Good:
/// ```json
/// {"Pattern": [ {"Event": {"Time": 0, "EventType": "HapticTransient"}} ]}
/// ```
extension Rule {
  public static let jsonTrailingComma = Rule(id: "json-trailing-comma", severity: .warning)
}
