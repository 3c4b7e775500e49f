import FoundationEssentials
import Glibc

/// The descriptors HapKit reads for `-` (standard input) and writes for `-` (standard output):
/// the process's, unless the program runs with others of its own. One process may run several
/// programs at once (hap's tests run its command line in process, each run with its own
/// streams): each binds its descriptors for the work it calls, with `$input.withValue(fd)` and
/// `$output.withValue(fd)`, and what HapKit opens there (a read of standard input, a
/// ``StandardOutputSink``, a control stream on `-`) takes them when it is made.
public enum StandardStreams {
  @TaskLocal public static var input: Int32 = STDIN_FILENO
  @TaskLocal public static var output: Int32 = STDOUT_FILENO
}
