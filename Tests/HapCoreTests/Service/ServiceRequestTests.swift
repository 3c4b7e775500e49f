import Foundation
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

private let vocabulary = ["correct", "pass", "reveal", "start", "stop", "timerPulse", "timerUrgent", "winner"]

private func parse(_ line: String) -> Result<ServiceRequest, ServiceError> { ServiceRequest.parse(line) }

private func code(_ result: Result<ServiceRequest, ServiceError>) -> ServiceError.Code? {
  if case .failure(let error) = result { return error.code }
  return nil
}

@Suite("ServiceRequest")
struct ServiceRequestTests {
  @Test func everyRequestParses() throws {
    #expect(try parse("fire correct").get() == .fire(name: "correct", intensity: nil, sharpness: nil))
    #expect(try parse("fire correct intensity=0.5").get() == .fire(name: "correct", intensity: 0.5, sharpness: nil))
    #expect(
      try parse("fire correct sharpness=-0.25 intensity=1").get()
        == .fire(name: "correct", intensity: 1, sharpness: -0.25))
    #expect(try parse("stop").get() == .stop(name: nil))
    #expect(try parse("stop texture").get() == .stop(name: "texture"))
    #expect(try parse("status").get() == .status)
    #expect(try parse("mute").get() == .mute)
    #expect(try parse("unmute").get() == .unmute)
    #expect(try parse("level full").get() == .level(.full))
    #expect(try parse("level quiet").get() == .level(.quiet))
    #expect(try parse("level silent").get() == .level(.silent))
    #expect(try parse("ping").get() == .ping)
  }

  @Test func fireTakesLoopOrDetach() throws {
    #expect(
      try parse("fire texture loop").get() == .fire(name: "texture", intensity: nil, sharpness: nil, loop: true))
    #expect(
      try parse("fire correct detach intensity=0.5").get()
        == .fire(name: "correct", intensity: 0.5, sharpness: nil, detach: true))
    for line in ["fire texture loop detach", "fire texture loop loop", "fire correct detach detach"] {
      #expect(code(parse(line)) == .badRequest, "\(line)")
    }
    guard case .failure(let typo) = parse("fire texture lop") else {
      Issue.record("expected an error")
      return
    }
    #expect(typo.message.hasSuffix("did you mean \"loop\"?"), "\(typo.message)")
  }

  @Test func oddWhitespaceIsAccepted() throws {
    #expect(
      try parse("  fire\tcorrect   intensity=0.5  ").get() == .fire(name: "correct", intensity: 0.5, sharpness: nil))
    #expect(try parse("ping\r").get() == .ping)  // CRLF line ends (telnet, some socat set-ups)
    #expect(try parse("\tstatus\t").get() == .status)
    #expect(try parse("fire\u{00A0}correct").get() == .fire(name: "correct", intensity: nil, sharpness: nil))
    // Non-ASCII names are names.
    #expect(try parse("fire réussite").get() == .fire(name: "réussite", intensity: nil, sharpness: nil))
  }

  @Test func malformedLinesAreBadRequests() {
    let bad = [
      "", "   ", "\r", "fire", "fire intensity=0.5", "FIRE correct", "fly correct", "fire correct intensity",
      "fire correct intensity=", "fire correct intensity=1.5", "fire correct intensity=-0.1",
      "fire correct sharpness=2", "fire correct intensity=nan", "fire correct intensity=inf",
      "fire correct intensity=0x1p-1", "fire correct intensity=0.5 intensity=0.6", "fire correct loudness=1",
      "fire correct intensity = 0.5", "stop a b", "status now", "mute please", "ping pong", "level",
      "level loud", "level quiet silent", "fire correct\u{0}", "fire\u{1B}[31m correct", "ping\nping",
      "fire correct\rintensity=1",
    ]
    for line in bad {
      #expect(code(parse(line)) == .badRequest, "\(line.debugDescription)")
    }
  }

  @Test func invalidUTF8IsABadRequest() throws {
    #expect(code(ServiceRequest.parse(bytes: Array("fire ".utf8) + [0xFF, 0xFE])) == .badRequest)
    #expect(try ServiceRequest.parse(bytes: Array("ping".utf8)).get() == .ping)
  }

  @Test func aLineOverTheLimitIsTooLong() throws {
    let limit = ServiceRequest.maxLineBytes
    let name = String(repeating: "a", count: limit - 5)
    #expect(try parse("fire " + name).get() == .fire(name: name, intensity: nil, sharpness: nil))
    #expect(code(parse("fire " + name + "a")) == .tooLong)
    #expect(code(ServiceRequest.parse(bytes: [UInt8](repeating: 0x61, count: 1 << 20))) == .tooLong)
  }

  @Test func unknownNamesGetASuggestion() throws {
    let result = ServiceRequest.parse("fire corect", events: vocabulary)
    guard case .failure(let error) = result else {
      Issue.record("expected unknown-event, got \(result)")
      return
    }
    #expect(error.code == .unknownEvent)
    #expect(error.message.contains("\"correct\""))
    #expect(error.reply.hasPrefix("error unknown-event "))
    #expect(code(ServiceRequest.parse("stop textur", events: vocabulary)) == .unknownEvent)
    #expect(code(ServiceRequest.parse("fire zzzzzzzz", events: vocabulary)) == .unknownEvent)
    // Nothing close: no suggestion.
    if case .failure(let far) = ServiceRequest.parse("fire zzzzzzzz", events: vocabulary) {
      #expect(!far.message.contains("did you mean"))
    }
    #expect(
      try ServiceRequest.parse("fire timerPulse", events: vocabulary).get()
        == .fire(name: "timerPulse", intensity: nil, sharpness: nil))
    #expect(try ServiceRequest.parse("stop", events: vocabulary).get() == .stop(name: nil))
    // A syntax error wins over an unknown name.
    #expect(code(ServiceRequest.parse("fire nothing volume=1", events: vocabulary)) == .badRequest)
  }

  @Test func messagesQuoteAtMost80CharactersOfInput() {
    let huge = String(repeating: "x", count: 4000)
    for line in ["fire " + huge + " ", "fire correct " + huge + "=1", huge, "level " + huge] {
      guard case .failure(let error) = ServiceRequest.parse(line, events: vocabulary) else {
        Issue.record("expected an error")
        continue
      }
      #expect(error.reply.utf8.count < 250)
      #expect(!error.reply.contains("\n"))
    }
  }

  @Test func verbsGetADidYouMean() {
    guard case .failure(let error) = parse("stauts") else {
      Issue.record("expected bad-request")
      return
    }
    #expect(error.message.contains("\"status\""))
  }
}

@Suite("ServiceReply")
struct ServiceReplyTests {
  /// The service's sentences read as one: a did-you-mean or the list, never both glued together
  /// (issue 23: `did you mean "fire"?; expected one of ...`), and single quotes around a command.
  @Test func unknownWordsGetOneSentence() {
    func message(_ line: String) -> String {
      if case .failure(let error) = ServiceRequest.parse(line) { return error.message }
      return ""
    }
    #expect(message("fre") == "unknown request \"fre\"; did you mean \"fire\"?")
    #expect(
      message("xyzzy")
        == "unknown request \"xyzzy\"; expected one of fire, set, stop, status, mute, unmute, level or ping.")
    #expect(message("level ful") == "unknown level \"ful\"; did you mean \"full\"?")
    #expect(message("level xyzzy") == "unknown level \"xyzzy\"; expected one of full, quiet or silent.")
    guard case .error(let muted) = ServiceReply.fire("a", .refuse(.muted)) else {
      Issue.record("a muted fire is not an error")
      return
    }
    #expect(muted.message == "the service is muted; 'hap unmute' turns it back on.")
  }

  @Test func repliesAreOneLineEach() {
    let status = ServiceStatus(
      events: ["correct", "pass"], level: .quiet, muted: false, device: "open", counters: FireCounters(), underruns: 2,
      recoveries: 1, playing: 3)
    let replies: [(ServiceReply, String)] = [
      (.fired("correct"), "ok fired correct"), (.coalesced("correct"), "ok coalesced correct"),
      (.filtered("pass", .quiet), "ok filtered pass level=quiet"), (.stopped(nil), "ok stopped all"),
      (.stopped("texture"), "ok stopped texture"), (.muted, "ok muted"), (.unmuted, "ok unmuted"),
      (.level(.silent), "ok level silent"), (.pong, "ok pong"),
      (.error(ServiceError(.noDevice, "no device.")), "error no-device no device."),
    ]
    for (reply, line) in replies { #expect(reply.line == line) }
    let line = ServiceReply.status(status).line
    #expect(line.hasPrefix("ok {"))
    #expect(!line.contains("\n"))
    let decoded = try? JSONDecoder().decode(ServiceStatus.self, from: Data(line.dropFirst(3).utf8))
    #expect(decoded == status)
  }

  @Test("a client reads an ok reply back into its case, as the service wrote it (hap fire --stop decides so)")
  func okRepliesReadBackIntoTheirCase() {
    let status = ServiceStatus(events: ["a"], level: .full, muted: true, device: "closed", counters: FireCounters())
    let replies: [ServiceReply] = [
      .fired("correct"), .coalesced("correct"), .filtered("pass", .quiet), .stopped(nil), .stopped("texture"), .muted,
      .unmuted, .level(.silent), .pong, .status(status),
    ]
    for reply in replies {
      guard case .ok(let text)? = ServiceResponse.parse(reply.line) else {
        Issue.record("\(reply.line) is not read as ok")
        continue
      }
      #expect(ServiceReply(ok: text) == reply, "\(reply.line)")
    }
    for text in ["", "fired", "stopped", "level loud", "filtered pass", "muted now", "{not json"] {
      #expect(ServiceReply(ok: text) == nil, "\(text)")
    }
  }

  @Test func fireRepliesFollowThePolicy() {
    #expect(ServiceReply.fire("a", .play) == .fired("a"))
    #expect(ServiceReply.fire("a", .coalesce) == .coalesced("a"))
    #expect(ServiceReply.fire("a", .refuse(.level(.quiet))) == .filtered("a", .quiet))
    guard case .error(let error) = ServiceReply.fire("a", .refuse(.muted)) else {
      Issue.record("muted must be an error")
      return
    }
    #expect(error.code == .muted)
  }

  @Test func clientsReadReplies() {
    #expect(ServiceResponse.parse("ok pong") == .ok("pong"))
    #expect(ServiceResponse.parse("ok") == .ok(""))
    #expect(ServiceResponse.parse("ok fired correct\r") == .ok("fired correct"))
    #expect(
      ServiceResponse.parse("error unknown-event no event \"x\".")
        == .error(code: "unknown-event", message: "no event \"x\"."))
    #expect(ServiceResponse.parse("hello") == nil)
    #expect(ServiceResponse.parse("error ") == nil)
    for code in ServiceError.Code.allCases {
      let error = ServiceError(code, "why.")
      #expect(ServiceResponse.parse(error.reply) == .error(code: code.rawValue, message: "why."))
    }
  }
}

@Suite("ServiceLineFramer")
struct ServiceLineFramerTests {
  @Test func linesComeOutWhateverTheReadSizes() {
    let text = Array("fire correct\nping\n\nstatus\n".utf8)
    for size in [1, 2, 5, 100] {
      var framer = ServiceLineFramer()
      var frames: [ServiceLineFramer.Frame] = []
      var k = 0
      while k < text.count {
        frames += framer.feed(text[k..<min(k + size, text.count)])
        k += size
      }
      #expect(
        frames == [
          .line(Array("fire correct".utf8)), .line(Array("ping".utf8)), .line([]), .line(Array("status".utf8)),
        ])
      #expect(framer.finish() == nil)
    }
  }

  @Test func aHugeLineIsOneTooLongAndTheNextLineStillWorks() {
    var framer = ServiceLineFramer()
    var frames: [ServiceLineFramer.Frame] = []
    let chunk = [UInt8](repeating: 0x61, count: 64 * 1024)
    for _ in 0..<16 {  // 1 MB without a newline
      frames += framer.feed(chunk)
      #expect(framer.buffered <= ServiceRequest.maxLineBytes)
    }
    frames += framer.feed(Array("\nping\n".utf8))
    #expect(frames == [.tooLong, .line(Array("ping".utf8))])
    // Exactly the limit is a line; one byte more is too long.
    let exact = [UInt8](repeating: 0x62, count: ServiceRequest.maxLineBytes)
    #expect(framer.feed(exact + [0x0A]) == [.line(exact)])
    #expect(framer.feed(exact + [0x62, 0x0A]) == [.tooLong])
  }

  @Test("a line keeps only its own bytes, not the framer's whole line buffer")
  func aLineHoldsItsBytesOnly() {
    // Each line used to share the framer's buffer (reserved for a whole 4096-byte line): a
    // 7.7 MB control file of 300,000 lines took 1.2 GB to read (issue 21 review).
    var framer = ServiceLineFramer()
    let frames = framer.feed(Array("@0.1 pause\n# a comment\n".utf8))
    #expect(frames == [.line(Array("@0.1 pause".utf8)), .line(Array("# a comment".utf8))])
    for frame in frames {
      guard case .line(let bytes) = frame else { continue }
      #expect(bytes.capacity < 64, "a \(bytes.count)-byte line holds \(bytes.capacity) bytes")
    }
  }

  /// The framer's frames taken a byte at a time, as it did before it took each run at once.
  static func byteByByte(_ chunks: [[UInt8]], limit: Int) -> (
    frames: [ServiceLineFramer.Frame], last: ServiceLineFramer.Frame?
  ) {
    var frames: [ServiceLineFramer.Frame] = []
    var pending: [UInt8] = []
    var discarding = false
    for byte in chunks.joined() {
      if byte == UInt8(ascii: "\n") {
        frames.append(discarding ? .tooLong : .line(pending))
        pending = []
        discarding = false
      } else if !discarding {
        if pending.count == limit {
          discarding = true
          pending = []
        } else {
          pending.append(byte)
        }
      }
    }
    return (frames, discarding ? .tooLong : pending.isEmpty ? nil : .line(pending))
  }

  @Test("runs taken at once give the frames a byte at a time gives, whatever the reads, around the limit too")
  func runsAgreeWithBytes() {
    var generator = SystemRandomNumberGenerator()
    for trial in 0..<400 {
      let limit = [1, 2, 7, 64, ServiceRequest.maxLineBytes][trial % 5]
      // Lines of lengths around the limit, some without their newline, in chunks of any size.
      var stream: [UInt8] = []
      for _ in 0..<Int.random(in: 0...8, using: &generator) {
        let length =
          max(0, limit + Int.random(in: -2...2, using: &generator)) * (Bool.random(using: &generator) ? 1 : 0)
          + Int.random(in: 0...3, using: &generator)
        stream += (0..<length).map { _ in UInt8.random(in: 32...126, using: &generator) }
        if Int.random(in: 0..<5, using: &generator) > 0 { stream.append(UInt8(ascii: "\n")) }
      }
      var chunks: [[UInt8]] = []
      var k = 0
      while k < stream.count {
        let size = Int.random(in: 1...(limit + 3), using: &generator)
        chunks.append(Array(stream[k..<min(k + size, stream.count)]))
        k += size
      }
      var framer = ServiceLineFramer(limit: limit)
      var frames: [ServiceLineFramer.Frame] = []
      for chunk in chunks {
        frames += framer.feed(chunk[...])
        #expect(framer.buffered <= limit)
      }
      let expected = Self.byteByByte(chunks, limit: limit)
      #expect(frames == expected.frames, "limit \(limit), chunks \(chunks.map(\.count))")
      #expect(framer.finish() == expected.last)
    }
  }

  @Test func theLastLineWithoutANewlineCounts() {
    var framer = ServiceLineFramer()
    #expect(framer.feed(Array("ping\nsta".utf8)) == [.line(Array("ping".utf8))])
    #expect(framer.finish() == .line(Array("sta".utf8)))
    _ = framer.feed([UInt8](repeating: 0x61, count: 5000))
    #expect(framer.finish() == .tooLong)
    #expect(framer.finish() == nil)
  }
}

@Suite("ServiceRequest: the words of a line")
struct RequestWordsTests {
  @Test("an ASCII line's words, and the error of a control character in it, are the Unicode way's")
  func asciiWordsAreUnicodeWords() {
    var generator = SystemRandomNumberGenerator()
    let alphabet: [UInt8] = Array(0...127)
    let common = Array(" \tfire tick=x.1".utf8)
    for _ in 0..<3000 {
      let length = Int.random(in: 0...40, using: &generator)
      let bytes = (0..<length).map { _ in
        Int.random(in: 0..<10, using: &generator) < 8
          ? common.randomElement(using: &generator)! : alphabet.randomElement(using: &generator)!
      }
      let text = Substring(String(decoding: bytes, as: UTF8.self))
      let fast = ServiceRequest.asciiWords(text)
      let slow = ServiceRequest.unicodeWords(text)
      switch (fast, slow) {
      case (.success(let a), .success(let b)): #expect(a == b, "\(bytes)")
      case (.failure(let a), .failure(let b)): #expect(a == b, "\(bytes)")
      default: Issue.record("\(bytes): \(fast) against \(slow)")
      }
    }
  }

  @Test(
    "a line with any non-ASCII scalar is split the Unicode way: a no-break space separates, a combining mark does not join"
  )
  func unicodeLinesStayUnicode() throws {
    #expect(try ServiceRequest.parse("fire\u{00A0}tick").get() == .fire(name: "tick", intensity: nil, sharpness: nil))
    #expect(
      try ServiceRequest.parse("fire \u{301}tick").get() == .fire(name: "\u{301}tick", intensity: nil, sharpness: nil))
    #expect(code(ServiceRequest.parse("fire tick\u{2028}")) == .badRequest)
    #expect(code(ServiceRequest.parse("fire a=b")) == .badRequest)
    #expect(code(ServiceRequest.parse("fire \u{e9}=b")) == .badRequest)
  }
}

@Suite("ServiceRequest.canFire: the names a client can fire")
struct CanFireTests {
  @Test func names() {
    for name in ["tick", "timer-urgent", "ü", "loop", "a.b", "x_1"] {
      #expect(ServiceRequest.canFire(name), "\(name)")
    }
    for name in ["low health", "tab\there", "bell\u{7}", "a=b", "", String(repeating: "x", count: 5000), "nl\nx"] {
      #expect(!ServiceRequest.canFire(name), "\(name.debugDescription)")
      #expect(!ServiceRequest.unfireableReason(name).isEmpty)
    }
  }
}
