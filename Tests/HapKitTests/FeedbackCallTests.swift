import Foundation
import HapCore
import HapTestSupport
import Testing

@testable import HapKit
@testable import HapRuntime

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
      // feedbackd clamps a vibration, it does not refuse one (fbd-haptic-manager.c): the first 10
      // of 13 pairs, 20,000 ms as 10,000, amplitudes into 0...1 (NaN as 0: hap's choice); an
      // empty app id is no error there either.
      (
        "vibrate-clamped.bin",
        .vibrate(
          app: "g",
          parts: [
            .init(amplitude: 1, milliseconds: 10_000), .init(amplitude: 0, milliseconds: 10),
            .init(amplitude: 0, milliseconds: 10), .init(amplitude: 1, milliseconds: 5),
          ] + Array(repeating: .init(amplitude: 0.25, milliseconds: 1), count: 6))
      ),
      ("vibrate-no-app.bin", .vibrate(app: "", parts: [])),
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

  /// A Vibrate of a million pairs, made from vibrate.bin's header with a body of its own.
  static func millionPairs(_ seed: [UInt8]) -> [UInt8] {
    func u32(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(value).littleEndian, Array.init) }
    let count = 1_000_000
    var body = u32(1) + Array("g".utf8) + [0, 0, 0]  // the app id, padded to the array's length
    body += u32(count * 16 - 4) + [0, 0, 0, 0]  // the length, padded to the first pair (8)
    let pair = withUnsafeBytes(of: (0.5).bitPattern.littleEndian, Array.init) + u32(7) + [0, 0, 0, 0]
    body.reserveCapacity(body.count + count * 16)
    for _ in 0..<count { body += pair }
    body.removeLast(4)
    // The header's length is what the seed has before its body; its 4th field is the body's length.
    let seedBody = seed[4..<8].withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))) }
    var header = Array(seed.prefix(seed.count - seedBody))
    header.replaceSubrange(4..<8, with: u32(body.count))
    return header + body
  }

  @Test("a million pairs read as their first ten (feedbackd plays the first ten), in bounded memory")
  func millionPairs() throws {
    guard try read("vibrate.bin") != nil else { return }
    let seed = [UInt8](try Data(contentsOf: Repository.url("fuzz/seeds/dbus/vibrate.bin")))
    #expect(seed.first == UInt8(ascii: "l"), "the seed is little-endian")
    let result = try #require(FeedbackCall.withMessage(wire: Self.millionPairs(seed)) { FeedbackCall.read($0) })
    let ten = Array(repeating: Vibration.Part(amplitude: 0.5, milliseconds: 7), count: 10)
    #expect(result == .success(.vibrate(app: "g", parts: ten)))
  }

  @Test("bytes that are not one message are no call")
  func notAMessage() throws {
    guard try read("ping.bin") != nil else { return }
    #expect(FeedbackCall.withMessage(wire: Array("ping".utf8)) { _ in true } == nil)
    #expect(FeedbackCall.withMessage(wire: []) { _ in true } == nil)
  }
}
