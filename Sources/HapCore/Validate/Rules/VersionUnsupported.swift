/// A `Version` other than 1.0, the only AHAP version there is.
///
/// hap reads the file as version 1.0; a player that checks the version may refuse it.
///
/// Bad:
/// ```json
/// {"Version": 2.0, "Pattern": []}
/// ```
///
/// Good:
/// ```json
/// {"Version": 1.0, "Pattern": []}
/// ```
extension Rule {
  public static let versionUnsupported = Rule(id: "version-unsupported", severity: .warning)
}
