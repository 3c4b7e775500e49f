/// A `Version` number outside 1.0 to 1.1, which iOS refuses.
///
/// iOS's AHAP loader refuses a pattern whose `Version` is a number below 1.0 or above 1.1 (error
/// -4809, "Unsupported version number"; source: iOS 26.1 loader, reverse-engineered). 1.0, 1.1 and
/// anything between are accepted (compared as 32-bit floats, as the loader reads them). A
/// `Version` that is not a number at all is ignored by the loader (`version-missing`).
///
/// `hap fix` writes 1.0 (docs/fix.md).
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
  public static let versionUnsupported = Rule(id: "version-unsupported", severity: .error)
}
