import Foundation
import HapCore
import HapTestSupport
import Testing

@testable import HapKit

/// The D-Bus calls of `hap serve --dbus`, read from their wire form (the fuzzer's `dbus` seeds,
/// made by libdbus with fuzz/make-dbus-seeds.py) as the bus reads them.
@Suite("D-Bus calls read")
struct FeedbackCallTests {
  /// What the seed `name` reads as (nil when libdbus-1 is missing: the test says so).
  func read(_ name: String) throws -> Result<FeedbackCall, FeedbackCall.Refusal>? {
    let bytes = [UInt8](try Data(contentsOf: Repository.url("fuzz/seeds/dbus/\(name)")))
    guard FeedbackCall.libraryLoaded else {
      withKnownIssue("libdbus-1.so.3 is missing (Debian: libdbus-1-3); the D-Bus reader cannot be checked") {
        Issue.record("libdbus-1 missing")
      }
      return nil
    }
    return try #require(FeedbackCall.withMessage(wire: bytes) { FeedbackCall.read($0) })
  }

  @Test("every kind of call reads to what the service acts on")
  func calls() throws {
    let expected: [(String, FeedbackCall)] = [
      (
        "trigger.bin",
        .trigger(
          app: "org.example.App", event: "button-pressed", timeout: -1, hint: nil, important: false, soundFile: nil)
      ),
      (
        "trigger-hints.bin",
        .trigger(
          app: "org.example.App", event: "message-new-email", timeout: 5, hint: .quiet, important: true,
          soundFile: "/tmp/s.oga")
      ),
      ("end.bin", .endFeedback(id: 3)),
      (
        "vibrate.bin",
        .vibrate(
          app: "org.example.Game",
          parts: [
            .init(amplitude: 1, milliseconds: 200), .init(amplitude: 0, milliseconds: 50),
            .init(amplitude: 0.5, milliseconds: 300),
          ])
      ),
      ("get.bin", .getProfile), ("set.bin", .setProfile(.silent)), ("ping.bin", .ping),
      ("introspect-root.bin", .introspectNode(child: "org")),
    ]
    for (name, call) in expected {
      guard let result = try read(name) else { return }
      #expect(result == .success(call), "\(name)")
    }
  }

  @Test("a call hap cannot act on is refused with the D-Bus error and one escaped line")
  func refusals() throws {
    let expected: [(String, String, String)] = [
      ("trigger-bad-hint.bin", "InvalidArgs", "the hint important must be a boolean."),
      ("trigger-no-interface.bin", "InvalidArgs", "unknown profile \"loud\"; expected full, quiet or silent."),
      ("vibrate-bad.bin", "InvalidArgs", "each part lasts at most 10000 ms, not 20000."),
      ("get-all.bin", "InvalidArgs", "org.sigxcpu.Feedback.Haptic has no properties."),
      ("set-wrong-type.bin", "InvalidArgs", "Profile is one of full, quiet or silent (a string)."),
      ("unknown.bin", "UnknownMethod", "no method Frobnicate in interface org.sigxcpu.Feedback"),
    ]
    for (name, error, text) in expected {
      guard let result = try read(name) else { return }
      guard case .failure(let refusal) = result else {
        Issue.record("\(name) read as \(result)")
        continue
      }
      #expect(refusal.name == "org.freedesktop.DBus.Error.\(error)", "\(name)")
      #expect(refusal.text.hasPrefix(text), "\(name): \(refusal.text)")
    }
  }

  @Test("bytes that are not one message are no call")
  func notAMessage() throws {
    guard try read("ping.bin") != nil else { return }
    #expect(FeedbackCall.withMessage(wire: Array("ping".utf8)) { _ in true } == nil)
    #expect(FeedbackCall.withMessage(wire: []) { _ in true } == nil)
  }
}
