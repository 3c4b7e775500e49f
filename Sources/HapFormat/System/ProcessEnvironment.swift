import Glibc

/// One environment variable, read with getenv(3): not `ProcessInfo`'s dictionary of the whole
/// environment, whose making (a String per variable, a hashed table) was up to 15 % of a
/// command's start, for the one or two variables a command reads.
package enum ProcessEnvironment {
  /// `name`'s value in `given` when there is one (a run with an environment of its own: the
  /// tests' in-process runs), else the process's; nil when unset.
  package static func variable(_ name: String, in given: [String: String]? = nil) -> String? {
    if let given { return given[name] }
    return getenv(name).map { String(cString: $0) }
  }

  /// `name`'s value, or `fallback` when it is unset or empty (the libraries' names hap loads:
  /// `$HAP_LIBASOUND`, else `libasound.so.2`).
  package static func nonEmpty(_ name: String, else fallback: String) -> String {
    guard let value = variable(name), !value.isEmpty else { return fallback }
    return value
  }
}
