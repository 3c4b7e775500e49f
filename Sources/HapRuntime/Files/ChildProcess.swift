import FoundationEssentials
import Glibc
import HapCore

/// Another program run with `posix_spawn` (in place of Foundation's `Process`, which full
/// Foundation alone has): standard input from /dev/null, standard output and error to /dev/null
/// unless one of them is read back.
package enum ChildProcess {
  /// Which of the child's outputs is read back.
  package enum Captured: Int32 {
    case output = 1
    case error = 2
  }

  /// What a run that ended gave: its exit status (128 + the signal when one ended it) and the
  /// first `limit` bytes of the captured output, with whether there were more.
  package struct Ended {
    package let status: Int32
    package let output: [UInt8]
    package let truncated: Bool
  }

  /// Runs `executable` with `arguments` and waits for it. `environment` nil: this process's.
  /// `folder`: the child's working folder. Throws the reason the program cannot be started.
  package static func run(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil, folder: String? = nil,
    capture: Captured? = nil, limit: Int = 1 << 20
  ) throws(Failure) -> Ended {
    var pipe: [Int32] = [-1, -1]
    if capture != nil {
      guard Glibc.pipe(&pipe) == 0 else { throw Failure(errno) }
      for fd in pipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    }
    let pid: pid_t
    do {
      pid = try spawn(executable, arguments, environment: environment, folder: folder, capture: capture, into: pipe[1])
    } catch {
      if capture != nil { close(pipe[0]); close(pipe[1]) }
      throw error
    }
    var bytes: [UInt8] = []
    var truncated = false
    if capture != nil {
      close(pipe[1])
      truncated = readAll(pipe[0], into: &bytes, limit: limit)
      close(pipe[0])
    }
    return Ended(status: wait(pid), output: bytes, truncated: truncated)
  }

  /// Starts `executable` with `arguments` and does not wait for it: a thread of its own reaps it.
  package static func start(_ executable: String, _ arguments: [String]) throws(Failure) {
    let pid = try spawn(executable, arguments, environment: nil, folder: nil, capture: nil, into: -1)
    let reaper = SystemThread { _ = wait(pid) }
    reaper.name = "hap reaper"
    reaper.start()
  }

  /// Why a program cannot be started: `posix_spawn`'s error, in words.
  package struct Failure: Error, CustomStringConvertible {
    package let code: Int32
    init(_ code: Int32) { self.code = code }
    package var description: String { String(cString: strerror(code)) }
  }

  private static func spawn(
    _ executable: String, _ arguments: [String], environment: [String: String]?, folder: String?,
    capture: Captured?, into writeEnd: Int32
  ) throws(Failure) -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    for fd: Int32 in [1, 2] {
      if let capture, capture.rawValue == fd {
        posix_spawn_file_actions_adddup2(&actions, writeEnd, fd)
      } else {
        posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_WRONLY, 0)
      }
    }
    if let folder {
      guard let addchdir = addchdir else { throw Failure(ENOSYS) }
      addchdir(&actions, folder)
    }
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for word in argv { free(word) } }
    let words: [UnsafeMutablePointer<CChar>?]? = environment.map { pairs in
      pairs.map { (key, value) -> UnsafeMutablePointer<CChar>? in strdup("\(key)=\(value)") } + [nil]
    }
    defer { for word in words ?? [] { free(word) } }
    var pid: pid_t = 0
    let status: Int32 =
      if let words {
        posix_spawn(&pid, executable, &actions, nil, argv, words)
      } else {
        posix_spawn(&pid, executable, &actions, nil, argv, environ)
      }
    guard status == 0 else { throw Failure(status) }
    return pid
  }

  /// glibc's `posix_spawn_file_actions_addchdir_np` (2.29 and later), which Swift's Glibc module
  /// does not declare.
  private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>)
    -> Int32
  private static let addchdir: AddChdir? = dlsym(
    UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np"
  ).map { unsafeBitCast($0, to: AddChdir.self) }

  /// Reads `fd` to its end, keeping the first `limit` bytes; whether there were more.
  private static func readAll(_ fd: Int32, into bytes: inout [UInt8], limit: Int) -> Bool {
    var buffer = [UInt8](repeating: 0, count: 65536)
    var truncated = false
    while true {
      let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { return truncated }
      let room = max(0, limit - bytes.count)
      if n > room { truncated = true }
      bytes += buffer.prefix(min(n, room))
    }
  }

  /// Waits for `pid`; its exit status, or 128 + the signal that ended it.
  private static func wait(_ pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
      guard errno == EINTR else { return -1 }
    }
    let signal = status & 0x7f
    return signal == 0 ? (status >> 8) & 0xff : 128 + signal
  }
}
