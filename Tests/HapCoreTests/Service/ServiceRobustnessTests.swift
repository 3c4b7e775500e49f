import Foundation
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// Issue 20, items 5 and 8: every reply is exactly one line, whatever the names hold; the
/// empty request's message and an overflowing config number read right.
@Suite("Service replies and config values (issue 20)")
struct ServiceRobustnessTests {
  /// A pattern file named `zap<newline>zap.json` is the event `zap\nzap`: a did-you-mean that
  /// quotes it must not make the reply two lines.
  @Test func aNameWithALineBreakKeepsTheReplyOneLine() {
    let events = ["zap\nzap", "tab\there", "esc\u{1B}[2J", "sep\u{2028}x", "del\u{7F}", "c1\u{85}x"]
    let replies: [ServiceReply] =
      [
        .error(.unknownEvent("zapzap", among: events)), .fired("zap\nzap"), .coalesced("esc\u{1B}[2J"),
        .filtered("sep\u{2028}x", .quiet), .stopped("c1\u{85}x"), .fired("del\u{7F}"),
      ]
    for reply in replies {
      let line = reply.line
      #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(line)")
      #expect(!line.contains("\u{2028}") && !line.contains("\u{2029}"), "\(line)")
    }
    #expect(ServiceReply.error(.unknownEvent("zapzap", among: events)).line.contains(#""zap\nzap""#))
    #expect(ServiceReply.fired("zap\nzap").line == #"ok fired zap\nzap"#)
  }

  /// The status line's JSON stays valid JSON with the names escaped.
  @Test func theStatusLineStaysJSON() throws {
    let status = ServiceStatus(
      events: ["zap\nzap", "sep\u{2028}x"], level: .full, muted: false, device: "closed", counters: FireCounters())
    let line = ServiceReply.status(status).line
    #expect(!line.contains("\n") && !line.contains("\u{2028}"))
    let object = try JSONSerialization.jsonObject(with: Data(line.dropFirst(3).utf8)) as? [String: Any]
    #expect(object?["events"] as? [String] == ["zap\nzap", "sep\u{2028}x"])
  }

  @Test func theEmptyRequestSaysWhatIsExpectedWithoutAStrayParenthesis() throws {
    guard case .failure(let error) = ServiceRequest.parse("") else {
      Issue.record("an empty request parsed")
      return
    }
    #expect(error.message == "the request is empty; expected one of fire, set, stop, status, mute, unmute, level, ping.")
  }

  @Test func aGainThatOverflowsIsNotANumberNotNull() throws {
    #expect(throws: ServiceConfigError.self) { try ServiceConfig.parse(Array(#"{"gain": 1e400}"#.utf8)) }
    do {
      _ = try ServiceConfig.parse(Array(#"{"gain": 1e400}"#.utf8))
    } catch {
      #expect(!error.message.contains("null"), "\(error.message)")
      #expect(error.message.contains("\"gain\"") && error.message.contains("finite"), "\(error.message)")
    }
    do {
      _ = try ServiceConfig.parse(Array(#"{"gain": -1e400}"#.utf8))
    } catch {
      #expect(!error.message.contains("null"), "\(error.message)")
    }
  }
}
