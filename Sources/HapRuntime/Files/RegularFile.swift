import FoundationEssentials
import Glibc
import HapCore

/// Reading a file HapKit is named (a pattern, a sound), as hap reads files: opened without
/// blocking (a FIFO with no writer does not hang the caller), a regular file only (a FIFO or a
/// device such as /dev/zero is refused, not read), its bytes read from that descriptor (not
/// the name again) and bounded before they are read.
package enum RegularFile {
  /// Why a file was not read; a sentence in ``description``.
  package enum Failure: Error, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case notRegular(path: String)
    case tooLarge(path: String, limit: Int)
    case unreadable(path: String, reason: String)

    package var description: String {
      switch self {
      case .cannotOpen(let path, let reason): "cannot open '\(Format.excerpt(path))': \(reason)"
      case .notRegular(let path): "'\(Format.excerpt(path))' is not a regular file"
      case .tooLarge(let path, let limit):
        "'\(Format.excerpt(path))' is larger than \(limit >> 20) MiB, the most HapKit reads of one file"
      case .unreadable(let path, let reason): "cannot read '\(Format.excerpt(path))': \(reason)"
      }
    }
  }

  /// 128 MiB: what hap reads of a pattern file.
  package static let patternLimit = 128 << 20

  /// `path` opened for reading, a regular file, at most `limit` bytes long. The caller closes it.
  package static func open(_ path: String, limit: Int) throws(Failure) -> Int32 {
    let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
    guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      close(fd)
      throw .notRegular(path: path)
    }
    guard Int64(info.st_size) <= Int64(limit) else {
      close(fd)
      throw .tooLarge(path: path, limit: limit)
    }
    return fd
  }

  /// The bytes of `path` (``open(_:limit:)``).
  package static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
    let fd = try open(path, limit: limit)
    defer { close(fd) }
    return try read(fd, path: path, limit: limit)
  }

  /// The bytes of the regular file open on `fd`, from its start; more than `limit` (it grew
  /// since it was opened) is refused.
  package static func read(_ fd: Int32, path: String, limit: Int) throws(Failure) -> [UInt8] {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    var offset: off_t = 0
    while true {
      let got = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
      if got < 0 {
        if errno == EINTR { continue }
        throw .unreadable(path: path, reason: String(cString: strerror(errno)))
      }
      if got == 0 { return bytes }
      guard bytes.count + got <= limit else { throw .tooLarge(path: path, limit: limit) }
      bytes.append(contentsOf: chunk[0..<got])
      offset += off_t(got)
    }
  }

  /// Writes all of `bytes` to `fd` (a write cut short goes on; EINTR is retried); false when it
  /// cannot (a full disk, a reader gone).
  package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    var done = 0
    while done < bytes.count {
      let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { return false }
      done += n
    }
    return true
  }
}
