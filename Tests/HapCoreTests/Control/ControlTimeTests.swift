import HapCore
import Testing

/// The `@SECONDS` before a control line has one parser: a plain control line and a velocity
/// line (`--map velocity`) accept and refuse the same times, with the same sentence.
@Suite("control lines: @time is read the same everywhere")
struct ControlTimeTests {
  func failure(_ body: () throws -> Void) -> String? {
    do {
      try body()
      return nil
    } catch {
      return (error as? ControlParser.Failure)?.message ?? "\(error)"
    }
  }

  @Test(arguments: ["@", "@x", "@-1", "@inf", "@nan", "@1e999", "@1,5", "@2"])
  func badTimesFailAlike(time: String) throws {
    let plain = failure { () throws in
      _ = try ControlParser.parse(Substring(time + (time == "@2" ? "" : " intensity 0.5")))
    }
    let velocity = failure { () throws in
      _ = try VelocityMap().parse(Substring(time + (time == "@2" ? "" : " 100 200")))
    }
    #expect(plain != nil)
    #expect(plain == velocity, "\(time)")
  }

  @Test func goodTimesReadAlike() throws {
    for time in ["@0", "@1.25", "@0x1p3", "@3e-1"] {
      let plain = try ControlParser.parse(Substring(time + " stop"))
      let velocity = try VelocityMap().parse(Substring(time + " stop"))
      #expect(plain != nil && velocity == [plain!], "\(time)")
      let pair = try VelocityMap().parse(Substring(time + " 100 0"))
      #expect(pair.map(\.time) == [plain!.time, plain!.time], "\(time)")
    }
  }

  @Test("a refused line is a Failure with its cause, the sentence written from it")
  func failuresCarryTheirCause() {
    let cases: [(String, ControlParser.Failure)] = [
      ("@x intensity 1", .notATime("@x")), ("@1", .nothingAfterTime("@1")), ("rate 5", .rateOutOfRange(5)),
      ("seek -1", .negativeSeek), ("loop maybe", .loopNeedsOnOrOff), ("pause 3", .takesNoValue(control: "pause")),
      ("intensity", .needsOneNumber(control: "intensity")),
      ("intensty 1", .unknownControl("intensty", suggestion: "intensity")),
    ]
    for (line, expected) in cases {
      #expect(throws: expected, "\(line)") { _ = try ControlParser.parse(Substring(line)) }
    }
    #expect(ControlParser.Failure.rateOutOfRange(5).message == "'rate' takes 0.25 to 4, not 5")
  }

  /// Issue 20, item 14: `stop\0junk` was cut at the NUL (by a C string) and obeyed. A line
  /// holding a NUL is refused whole, plain or velocity.
  @Test func aLineWithANULIsRefused() {
    for line in ["stop\u{0}junk", "@1 stop\u{0}", "\u{0}", "intensity 0.5\u{0}"] {
      #expect(failure { () throws in _ = try ControlParser.parse(Substring(line)) } == "the line holds a NUL byte")
      #expect(failure { () throws in _ = try VelocityMap().parse(Substring(line)) } == "the line holds a NUL byte")
    }
  }
}
