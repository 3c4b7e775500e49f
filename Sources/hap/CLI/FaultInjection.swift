import FoundationEssentials
import Glibc
import HapRuntime

/// `HAP_FAULT_WRITE_LIMIT=N` (docs/testing.md, "Fault injection"): each file `hap render` and
/// `hap fix` write fails with "No space left on device" after N bytes, so that the tests through
/// the binary reach the full-disk path (no partial file, exit 2) without a full disk. The CLI
/// reads the variable; HapKit only takes the writer it makes (``FileWriter``).
enum FaultInjection {
  static var writer: FileWriter {
    guard let limit = RunEnvironment["HAP_FAULT_WRITE_LIMIT"].flatMap(Int.init) else { return .system }
    return fullDisk(after: limit)
  }

  /// A disk with room for `limit` bytes of each file: what fits is written, then ENOSPC.
  static func fullDisk(after limit: Int) -> FileWriter {
    FileWriter { fd, bytes, offset in
      guard offset < limit else { return -Int(ENOSPC) }
      let room = min(bytes.count, limit - offset)
      return FileWriter.system.write(fd, UnsafeRawBufferPointer(rebasing: bytes[..<room]), offset)
    }
  }
}
