/// No top-level `Version`, or one that is not a number.
///
/// Core Haptics assumes version 1.0. iOS's AHAP loader also ignores a `Version` that is not a
/// number (a string such as `"1.0"`, a boolean, an object or an array) and assumes 1.0 (source:
/// iOS 26.1 loader, reverse-engineered). A file that says what it is, as a number, stays readable
/// as the format evolves. (`"Version": null` is `null-ignored`.)
///
/// `hap fix` writes `"Version": 1.0` (docs/fix.md).
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
