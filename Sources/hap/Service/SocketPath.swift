import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

/// Where the service's socket is, as the command line and the environment say.
extension ServiceSocket {
  /// `--socket`, else `$HAP_SOCKET`, else `$XDG_RUNTIME_DIR/hap.sock` (the variables read one by
  /// one, only when needed: no dictionary of the whole environment on `hap fire`'s way).
  static func path(_ option: String?) throws(UsageError) -> String {
    if let option { return try checkedPath(option) }
    if let path = RunEnvironment["HAP_SOCKET"], !path.isEmpty { return try checkedPath(path) }
    if let folder = RunEnvironment["XDG_RUNTIME_DIR"], !folder.isEmpty {
      return try checkedPath(PathText.appending(folder, "hap.sock"))
    }
    throw .refused("no socket: give '--socket PATH', or set $HAP_SOCKET or $XDG_RUNTIME_DIR")
  }

  private static func checkedPath(_ path: String) throws(UsageError) -> String {
    guard !path.isEmpty, !path.utf8.contains(0) else { throw .refused("the socket path is empty or holds a NUL") }
    guard path.utf8.count <= ServiceSocket.maxPathBytes else {
      throw .refused(
        "the socket path '\(Format.excerpt(path))' is longer than \(ServiceSocket.maxPathBytes) bytes, the limit of a Unix socket")
    }
    return path
  }
}
