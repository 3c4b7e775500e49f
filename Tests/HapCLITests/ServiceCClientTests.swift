import Foundation
import HapTestSupport
import Testing

/// A vocabulary of one long, steady event, `hum`: 4 s at full intensity and sharpness (a 240 Hz
/// carrier, a crest every 2.1 ms), never debounced.
private func humVocabulary(_ device: SimulatedExciter) throws -> String {
  try device.folder.write(
    "hum/hum.json",
    """
    {"Version": 1.0, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 4,
      "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1},
                          {"ParameterID": "HapticSharpness", "ParameterValue": 1}]}}]}
    """)
  try device.folder.write("hum/vocabulary.json", #"{"Events": [{"Name": "hum", "Debounce": 0}]}"#)
  return device.folder.path("hum")
}

/// The C client of docs/service.md ("A client in C"), compiled from the page as it stands and
/// run against `hap serve` on the simulated exciter: the documented program works.
@Suite("hap serve: the C client of docs/service.md", .serialized)
struct ServiceCClientTests {
  /// The first line inside the block that holds the program.
  static let marker = "/* hap-client.c */"

  /// The program: the fenced block of docs/service.md whose first line is ``marker``.
  static func documentedSource() throws -> String {
    let page = try String(contentsOf: Hap.root.appendingPathComponent("docs/service.md"), encoding: .utf8)
    let lines = page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let starts = lines.indices.dropLast().filter { lines[$0].hasPrefix("```") && lines[$0 + 1] == marker }
    #expect(starts.count == 1, "docs/service.md should hold one block starting with \(marker), not \(starts.count)")
    let start = try #require(starts.first, "no block starting with \(marker) in docs/service.md") + 1
    let end = try #require(lines[start...].firstIndex(of: "```"), "the block of \(marker) is not closed")
    return lines[start..<end].joined(separator: "\n") + "\n"
  }

  /// The program compiled with `cc` into `folder`, as the brief's flags ask (C99, POSIX, every
  /// warning an error); nil, said as a known issue, when there is no `cc`.
  static func compiledClient(in folder: TemporaryFolder) throws -> String? {
    guard let cc = systemTool("cc") else {
      cannotCheck("no cc in /usr/bin, /bin or /usr/local/bin: the C client of docs/service.md is not checked")
      return nil
    }
    let source = try folder.write("hap-client.c", try documentedSource())
    let binary = folder.path("hap-client")
    let flags = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-D_POSIX_C_SOURCE=200809L"]
    let compiled = try Hap.run(flags + ["-o", binary, source], executable: cc)
    try #require(compiled.status == 0, "cc refused the C client of docs/service.md:\n\(compiled.stderr)")
    #expect(compiled.stderr.isEmpty, "cc said:\n\(compiled.stderr)")
    return binary
  }

  /// The largest magnitude of `s` in `range` (clipped to the signal).
  static func peak(_ s: [Float], _ range: Range<Int>) -> Float {
    let r = max(0, range.lowerBound)..<min(s.count, max(0, range.upperBound))
    return r.isEmpty ? 0 : s[r].map { abs($0) }.max() ?? 0
  }

  @Test func theClientFiresALoopLowersItAndStopsItByItsVoice() throws {
    let folder = try TemporaryFolder()
    guard let client = try Self.compiledClient(in: folder) else { return }
    let device = try SimulatedExciter()
    let service = try RunningService(
      ["--vocabulary", try humVocabulary(device), "--keep-open", "--sample-format", "f32"], device: device)
    let run = try Hap.run(["hum"], environment: ["HAP_SOCKET": service.socket], timeout: 30, executable: client)
    #expect(run.status == 0, "stdout:\n\(run.stdout)stderr:\n\(run.stderr)")
    #expect(run.stderr.isEmpty, "\(run.stderr)")
    let replies = run.stdoutLines
    try #require(replies.count == 3, "three replies expected:\n\(run.stdout)")
    let fired = "ok fired hum voice="
    let id = replies[0].hasPrefix(fired) ? String(replies[0].dropFirst(fired.count)) : ""
    #expect(!id.isEmpty && id.allSatisfy(\.isASCII) && id.allSatisfy(\.isNumber), "not a fire's reply: \(replies[0])")
    #expect(replies[1] == "ok set voice=\(id)")
    #expect(replies[2] == "ok stopped voice=\(id)")
    try service.waitUntilSilent()
    #expect(service.terminate() == 0)
    try Self.checkLevels(PCM.floats(try device.captured(), format: .f32))
  }

  /// The capture of that run: the loop at full level, then about 0.3 of it (the `set`) up to the
  /// stop's 10 ms fade. Loosely: the peak over the last 20 ms before the fade is 0.2 to 0.4 of
  /// the peak over the first 50 ms.
  static func checkLevels(_ s: [Float]) throws {
    let rate = 48000
    let first = try #require(s.firstIndex { $0 != 0 }, "nothing was played")
    let last = try #require(s.lastIndex { $0 != 0 })
    #expect(last - first > rate / 10, "the loop played \(last - first) frames, under the client's 100 ms")
    let fade = last - rate / 100
    let before = peak(s, first..<(first + rate / 20))
    let after = peak(s, (fade - rate / 50)..<fade)
    #expect(before > 0.5, "the loop did not start at full level: \(before)")
    let ratio = after / max(before, .leastNonzeroMagnitude)
    #expect(ratio > 0.2 && ratio < 0.4, "the level before the stop is \(ratio) of the first 50 ms's, wanted about 0.3")
  }

  @Test func noServiceIsExitTwo() throws {
    let folder = try TemporaryFolder()
    guard let client = try Self.compiledClient(in: folder) else { return }
    let missing = folder.path("none.sock")
    let byVariable = try Hap.run(["hum"], environment: ["HAP_SOCKET": missing], executable: client)
    #expect(byVariable.status == 2, "\(byVariable.stderr)")
    #expect(byVariable.stdout.isEmpty, "\(byVariable.stdout)")
    #expect(byVariable.stderr.contains("cannot connect to \(missing)"), "\(byVariable.stderr)")
    // The argument comes before $HAP_SOCKET.
    let byArgument = try Hap.run(
      ["hum", missing], environment: ["HAP_SOCKET": folder.path("other.sock")], executable: client)
    #expect(byArgument.status == 2, "\(byArgument.stderr)")
    #expect(byArgument.stderr.contains("cannot connect to \(missing)"), "\(byArgument.stderr)")
  }
}
