import Dispatch
import FoundationEssentials
import Glibc
import HapCore

/// Linux input devices for `hap drag`: finding a touchpad or mouse, opening it (or a recording
/// of one), and reading its events on a thread of its own.
public enum Evdev {
  /// A pointing device listed in /proc/bus/input/devices.
  public struct Candidate: Equatable {
    public let name: String
    public let path: String
  }

  /// The touchpads and mice in a /proc/bus/input/devices listing (blocks whose handlers include
  /// a `mouseN` and an `eventN`), touchpads first, otherwise in the listing's order.
  public static func candidates(in listing: String) -> [Candidate] {
    var found: [(candidate: Candidate, touchpad: Bool)] = []
    let blocks = listing.components(separatedBy: "\n\n")
    for block in blocks {
      var name = ""
      var handlers: [Substring] = []
      for line in block.split(separator: "\n") {
        if line.hasPrefix("N: Name=") {
          name = String(line.dropFirst("N: Name=".count)).trimming(ScalarSet("\" "))
        } else if line.hasPrefix("H: Handlers=") {
          handlers = line.dropFirst("H: Handlers=".count).split(separator: " ")
        }
      }
      func numbered(_ prefix: String) -> Substring? {
        handlers.first {
          $0.hasPrefix(prefix) && $0.count > prefix.count && $0.dropFirst(prefix.count).allSatisfy(\.isNumber)
        }
      }
      guard numbered("mouse") != nil, let event = numbered("event") else { continue }
      let candidate = Candidate(name: name.isEmpty ? String(event) : name, path: "/dev/input/\(event)")
      found.append((candidate, name.lowercased().contains("touchpad")))
    }
    return found.filter(\.touchpad).map(\.candidate) + found.filter { !$0.touchpad }.map(\.candidate)
  }

  /// The first touchpad, else the first mouse, in `folders`' list of input devices (the
  /// kernel's, `/proc/bus/input/devices`, unless the program stands another file in), or nil.
  public static func discover(in folders: SystemFolders = .standard) -> Candidate? {
    guard let bytes = try? InputFile.read(folders.inputDevices, for: .config) else { return nil }
    let listing = String(decoding: bytes, as: UTF8.self)
    return candidates(in: listing).first
  }

  public struct Failure: Error {
    public let message: String
  }

  /// What `--input` names, opened.
  public enum Source {
    /// A live stream of events: an evdev device (with its name and the points per unit of its
    /// absolute axes) or a pipe.
    case device(fd: Int32, name: String?, scale: [UInt16: Double])
    /// A recording (a regular file of `input_event` records), read whole.
    case recording([DragVelocity.Event])
  }

  public static let permissionHint =
    "reading input devices needs membership of the 'input' group (sudo usermod -aG input $USER, then log in again)"

  /// Opens a device or a recording; the error names it and, for a permission problem, what is
  /// needed.
  public static func open(_ path: String) throws(Failure) -> Source {
    let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else {
      let code = errno
      var message = "cannot read \(path): \(String(cString: strerror(code)))"
      if code == EACCES || code == EPERM { message += "; \(permissionHint)" }
      throw Failure(message: message)
    }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      let reason = String(cString: strerror(errno))
      close(fd)
      throw Failure(message: "cannot read \(path): \(reason)")
    }
    switch info.st_mode & S_IFMT {
    case S_IFDIR:
      close(fd)
      throw Failure(message: "cannot read \(path): it is a folder; give a device (/dev/input/eventN) or a recording")
    case S_IFREG:
      defer { close(fd) }
      return .recording(try readRecording(fd, path: path))
    case S_IFCHR:
      var version: Int32 = 0
      guard ioctl(fd, UInt(eviocgversion), &version) == 0 else {
        close(fd)
        throw Failure(message: "cannot read \(path): it is not an input event device (those are /dev/input/eventN)")
      }
      return .device(fd: fd, name: deviceName(fd), scale: scales(fd))
    default:
      // A pipe or socket carrying input_event records.
      return .device(fd: fd, name: nil, scale: [:])
    }
  }

  // ioctl requests (linux/input.h): _IOR('E', nr, size).
  private static let eviocgversion: UInt32 = 0x8004_4501
  private static func eviocgname(_ length: Int) -> UInt32 { 0x8000_4506 | UInt32(length) << 16 }
  private static func eviocgabs(_ axis: UInt16) -> UInt32 { 0x8018_4540 + UInt32(axis) }

  private static func deviceName(_ fd: Int32) -> String? {
    var bytes = [CChar](repeating: 0, count: 256)
    let n = bytes.withUnsafeMutableBufferPointer { ioctl(fd, UInt(eviocgname(255)), $0.baseAddress!) }
    guard n > 0 else { return nil }
    let name = bytes.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    return name.isEmpty ? nil : name
  }

  /// Points per unit of the absolute axes that report a resolution (units per mm).
  private static func scales(_ fd: Int32) -> [UInt16: Double] {
    var scale: [UInt16: Double] = [:]
    for axis in [
      DragVelocity.ABS_X, DragVelocity.ABS_Y, DragVelocity.ABS_MT_POSITION_X, DragVelocity.ABS_MT_POSITION_Y,
    ] {
      // struct input_absinfo: value, minimum, maximum, fuzz, flat, resolution.
      var absinfo = [Int32](repeating: 0, count: 6)
      let result = absinfo.withUnsafeMutableBufferPointer { ioctl(fd, UInt(eviocgabs(axis)), $0.baseAddress!) }
      if result == 0 && absinfo[5] > 0 { scale[axis] = DragVelocity.pointsPerUnit(resolution: absinfo[5]) }
    }
    return scale
  }

  /// The largest recording read: 64 MiB (2.8 million events, hours of dragging).
  public static let recordingLimit = 64 * 1024 * 1024

  private static func readRecording(_ fd: Int32, path: String) throws(Failure) -> [DragVelocity.Event] {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
      if n < 0 {
        if errno == EINTR || errno == EAGAIN { continue }
        throw Failure(message: "cannot read \(path): \(String(cString: strerror(errno)))")
      }
      if n == 0 { break }
      bytes += chunk[0..<n]
      if bytes.count > recordingLimit {
        throw Failure(message: "\(path) is too large for a recording of input events (over 64 MiB)")
      }
    }
    guard !bytes.isEmpty else { throw Failure(message: "\(path) is empty: a recording holds input_event records") }
    guard bytes.count % DragVelocity.recordSize == 0 else {
      throw Failure(
        message:
          "\(path) is not a recording of input events: its size (\(bytes.count) bytes) is not a whole number of \(DragVelocity.recordSize)-byte input_event records"
      )
    }
    return bytes.withUnsafeBytes { DragVelocity.decode($0) }
  }

  /// Reads a device on a thread of its own until it goes away, handing each velocity to
  /// `deliver`. Waits at most one window for events: when none come, the velocity falls to 0.
  public static func startReading(
    fd: Int32, scale: [UInt16: Double], window: Double, deliver: @escaping @Sendable (DragVelocity.Sample) -> Void
  ) {
    let thread = SystemThread {
      var velocity = DragVelocity(window: window, absoluteScale: scale)
      let capacity = 64 * DragVelocity.recordSize
      let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 8)
      defer { buffer.deallocate() }
      let timeout = Int32(max(1, (window * 1000).rounded(.up)))
      var carried = 0  // bytes of a record split across reads (pipes)
      while true {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, timeout)
        if ready < 0 {
          if errno == EINTR { continue }
          break
        }
        if ready == 0 {
          if let sample = velocity.flush() { deliver(sample) }
          continue
        }
        let n = read(fd, buffer.baseAddress! + carried, capacity - carried)
        if n < 0 {
          if errno == EINTR || errno == EAGAIN { continue }
          break  // ENODEV: unplugged
        }
        if n == 0 { break }  // the writer of a pipe closed it
        let total = carried + n
        let whole = total - total % DragVelocity.recordSize
        for event in DragVelocity.decode(UnsafeRawBufferPointer(rebasing: buffer[0..<whole])) {
          for sample in velocity.feed(event) { deliver(sample) }
        }
        carried = total - whole
        if carried > 0 { memmove(buffer.baseAddress!, buffer.baseAddress! + whole, carried) }
      }
      if let sample = velocity.flush() { deliver(sample) }
      close(fd)
    }
    thread.name = "hap drag input"
    thread.start()
  }

  /// Replays a recording in real time on a thread of its own, as a device would deliver it
  /// (with the same fall to 0 after a window without events), then calls `end` one window
  /// after the last event.
  public static func startReplaying(
    _ events: [DragVelocity.Event], window: Double, deliver: @escaping @Sendable (DragVelocity.Sample) -> Void,
    end: @escaping @Sendable () -> Void
  ) {
    let thread = SystemThread {
      var velocity = DragVelocity(window: window)
      let windowMicroseconds = Int64((window * 1e6).rounded())
      let origin = events.first?.microseconds ?? 0
      let start = DispatchTime.now().uptimeNanoseconds
      func sleep(until microseconds: Int64) {
        let due = start + UInt64(max(0, microseconds)) * 1000
        let now = DispatchTime.now().uptimeNanoseconds
        if due > now { usleep(useconds_t(min(UInt64(UInt32.max), (due - now) / 1000))) }
      }
      var previous: Int64 = 0
      for event in events {
        let due = event.microseconds - origin
        if due - previous >= windowMicroseconds {
          sleep(until: previous + windowMicroseconds)
          if let sample = velocity.flush() { deliver(sample) }
        }
        sleep(until: due)
        previous = due
        for sample in velocity.feed(event) { deliver(sample) }
      }
      sleep(until: previous + windowMicroseconds)
      if let sample = velocity.flush() { deliver(sample) }
      end()
    }
    thread.name = "hap drag replay"
    thread.start()
  }
}
