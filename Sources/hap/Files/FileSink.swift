import Foundation
import HapCore

/// Writes rendered output to a file atomically: into a temporary file in the same folder, then
/// renamed over the destination only when complete. An interrupted or failed render never
/// leaves a partial file, and an existing file is replaced only by a complete one.
final class FileSink: PCMSink {
  let path: String
  private let temporaryPath: String
  private var fd: Int32
  private var written = 0
  /// Test hook (documented in docs/testing.md): `HAP_FAULT_WRITE_LIMIT=N` makes writes fail
  /// with "No space left on device" after N bytes, to exercise the full-disk path.
  private let faultLimit: Int? = ProcessInfo.processInfo.environment["HAP_FAULT_WRITE_LIMIT"].flatMap(Int.init)

  init(path: String) throws(SinkError) {
    self.path = path
    let folder = (path as NSString).deletingLastPathComponent
    let name = (path as NSString).lastPathComponent
    var template = Array(((folder.isEmpty ? "." : folder) + "/.\(name).hap-XXXXXX").utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else {
      let reason = String(cString: strerror(errno))
      var info = stat()
      if stat(folder.isEmpty ? "." : folder, &info) != 0 {
        throw SinkError("cannot write '\(path)': the folder '\(folder)' does not exist")
      }
      throw SinkError("cannot write '\(path)': \(reason)")
    }
    self.fd = fd
    temporaryPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
  }

  func write(_ bytes: UnsafeRawBufferPointer) throws(SinkError) {
    var offset = 0
    while offset < bytes.count {
      if let faultLimit, written >= faultLimit {
        throw SinkError("cannot write '\(path)': \(String(cString: strerror(ENOSPC)))")
      }
      let chunk = faultLimit.map { min(bytes.count - offset, max(1, $0 - written)) } ?? (bytes.count - offset)
      let result = Foundation.write(fd, bytes.baseAddress! + offset, chunk)
      if result < 0 {
        if errno == EINTR { continue }
        throw SinkError("cannot write '\(path)': \(String(cString: strerror(errno)))")
      }
      offset += result
      written += result
    }
  }

  func drain() throws(SinkError) {
    if fsync(fd) != 0 && errno != EINVAL {
      throw SinkError("cannot write '\(path)': \(String(cString: strerror(errno)))")
    }
  }

  func close(success: Bool) {
    guard fd >= 0 else { return }
    if success {
      // mkstemp makes the file 0600; give it the permissions a new file normally gets.
      let mask = umask(0)
      umask(mask)
      fchmod(fd, 0o666 & ~mask)
    }
    Foundation.close(fd)
    fd = -1
    if success {
      if rename(temporaryPath, path) != 0 {
        unlink(temporaryPath)
      }
    } else {
      unlink(temporaryPath)
    }
  }

  deinit { close(success: false) }
}

/// Writes rendered output to standard output (`-o -`), e.g. for `| aplay`.
final class StandardOutputSink: PCMSink {
  func write(_ bytes: UnsafeRawBufferPointer) throws(SinkError) {
    var offset = 0
    while offset < bytes.count {
      let result = Foundation.write(STDOUT_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
      if result < 0 {
        if errno == EINTR { continue }
        throw SinkError("cannot write to standard output: \(String(cString: strerror(errno)))")
      }
      offset += result
    }
  }

  func drain() throws(SinkError) {}
  func close(success: Bool) {}
}
