/// The exit statuses every hap command uses.
enum ExitStatus {
  /// Everything fine (warnings allowed, unless `--strict`).
  static let ok: Int32 = 0
  /// An invalid pattern, or (for `diff`) the patterns differ.
  static let failure: Int32 = 1
  /// Trouble: a usage error, an unreadable or unwritable file, a device problem.
  static let trouble: Int32 = 2
  /// Interrupted by Ctrl-C or SIGTERM.
  static let interrupted: Int32 = 130
}
