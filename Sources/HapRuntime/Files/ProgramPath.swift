import FoundationEssentials
import Glibc

/// This program's file, as Foundation's `Bundle.main.executablePath` gives it on Linux: the
/// link `/proc/self/exe` resolved, else the command's first word.
public enum ProgramPath {
  public static var executable: String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard n > 0 else { return CommandLine.arguments[0] }
    return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
