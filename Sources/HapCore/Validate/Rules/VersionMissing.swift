/// No top-level `Version`.
///
/// Core Haptics assumes version 1.0, but a file that says what it is stays readable as the format
/// evolves.
///
/// Bad:
/// ```json
/// {"Pattern": []}
/// ```
///
/// Good:
/// ```json
/// {"Version": 1.0, "Pattern": []}
/// ```
extension Rule {
  public static let versionMissing = Rule(id: "version-missing", severity: .warning)
}
