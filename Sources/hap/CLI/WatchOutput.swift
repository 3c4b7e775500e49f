import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

/// `--watch` on the command line: its refusals and notes on standard error, its separators.
extension WatchLoop {
  /// The watch of `paths` (folders too with `folders`), for a command, until Ctrl-C or SIGTERM.
  static func command(_ paths: [String], folders: Bool = false) throws(UsageError) -> WatchLoop {
    do throws(WatchFailure) {
      return try WatchLoop(paths, folders: folders, stop: Interrupt.stop)
    } catch {
      throw .refused("'--watch' cannot watch standard input ('-'); name a file")
    }
  }

  /// `hap play --watch`'s line while it waits for saves of `paths`.
  static func waiting(_ paths: [String]) -> String {
    "hap: watching \(paths.count == 1 ? "'\(Format.excerpt(paths[0]))'" : "\(paths.count) files") for saves; Ctrl-C ends"
  }

  /// Starts watching; false, after a message, when a folder cannot be watched.
  func start() -> Bool { start { Console.error("hap: \($0)") } }

  /// The next change (nil: Ctrl-C); a deleted file is said and waited for.
  func next() -> [String]? {
    next { Console.error("hap: '\(Format.excerpt($0))' was deleted; waiting for it to come back") }
  }

  /// The separator printed before each round of output: the time and what changed.
  static func separator(_ changed: [String], verb: String = "saved") -> String {
    let names = changed.map { Format.excerpt($0) }.joined(separator: ", ")
    return "--- \(clock()) \(verb): \(names) ---"
  }

  /// The local time as HH:MM:SS.
  static func clock() -> String {
    var now = time(nil)
    var parts = tm()
    localtime_r(&now, &parts)
    return CFormat.string("%02d:%02d:%02d", parts.tm_hour, parts.tm_min, parts.tm_sec)
  }
}
