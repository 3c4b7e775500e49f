import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// `hap studio`'s edits (``JSONPatchWriter``): each operation changes only the bytes it names,
/// in the file's own style, and the result reads back as the patch says.
@Suite("JSON Patch as byte-range edits")
struct JSONPatchWriterTests {
  static let pretty = """
    {
        "Version": 1.0,
        "Pattern": [
            {
                "Event": {
                    "Time": 0.0,
                    "EventType": "HapticTransient",
                    "EventParameters": [
                        { "ParameterID": "HapticIntensity", "ParameterValue": 1.0 }
                    ]
                }
            },
            {
                "Event": {
                    "Time": 0.25,
                    "EventType": "HapticContinuous",
                    "EventDuration": 0.5
                }
            }
        ]
    }

    """

  static func patched(_ text: String, _ ops: JSONPatchOperation...) throws -> String {
    String(decoding: try JSONPatchWriter.apply(ops, to: Array(text.utf8)), as: UTF8.self)
  }

  static func path(_ pointer: String) -> [String] { JSONPatchOperation.tokens(of: pointer)! }

  @Test("replace writes the number alone, spelt as the file spells numbers")
  func replaceNumber() throws {
    let out = try Self.patched(Self.pretty, .init(.replace, path: Self.path("/Pattern/0/Event/Time"), value: .number(0.125)))
    #expect(out == Self.pretty.replacingOccurrences("\"Time\": 0.0,", with: "\"Time\": 0.125,"))
    let whole = try Self.patched(Self.pretty, .init(.replace, path: Self.path("/Version"), value: .number(2)))
    #expect(whole.contains("\"Version\": 2.0,"))
  }

  @Test("an element added to the end takes its siblings' separator and indentation")
  func addElement() throws {
    let event: JSONValue = .object([
      (key: "Event", value: .object([(key: "Time", value: .number(1)), (key: "EventType", value: .string("HapticTransient"))]))
    ])
    let out = try Self.patched(Self.pretty, .init(.add, path: Self.path("/Pattern/-"), value: event))
    #expect(out.hasPrefix(String(Self.pretty.prefix(Self.pretty.count - 12))))
    let reread = try #require(JSONValue.parse(Array(out.utf8)))
    guard case .array(let entries) = reread["Pattern"] else { Issue.record("no Pattern"); return }
    #expect(entries.count == 3)
    #expect(entries[2]["Event"]?["Time"] == .number(1))
    #expect(out.contains("\n        {\n            \"Event\": {\n"))
    let result = Validator.validate(Array(out.utf8))
    #expect(result.diagnostics.filter { $0.severity == .error }.isEmpty)
  }

  @Test("remove takes the element out with one separator; undoing by bytes restores the file")
  func removeElement() throws {
    let first = try Self.patched(Self.pretty, .init(.remove, path: Self.path("/Pattern/0")))
    #expect(first.contains("\"Pattern\": [\n        {\n            \"Event\": {\n                \"Time\": 0.25,"))
    let last = try Self.patched(Self.pretty, .init(.remove, path: Self.path("/Pattern/1")))
    #expect(last.contains("        }\n    ]\n}"))
    #expect(JSONValue.parse(Array(last.utf8)) != nil)
    let both = try Self.patched(
      Self.pretty, .init(.remove, path: Self.path("/Pattern/1")), .init(.remove, path: Self.path("/Pattern/0")))
    #expect(both.contains("\"Pattern\": []"))
  }

  @Test("a member added to an object, and one that exists replaced")
  func addMember() throws {
    let compact = #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#
    let out = try Self.patched(
      compact, .init(.add, path: Self.path("/Pattern/0/Event/EventParameters"), value: .array([])),
      .init(
        .add, path: Self.path("/Pattern/0/Event/EventParameters/-"),
        value: .object([(key: "ParameterID", value: .string("HapticSharpness")), (key: "ParameterValue", value: .number(0.5))])))
    #expect(
      out
        == #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [{ "ParameterID": "HapticSharpness", "ParameterValue": 0.5 }]}}]}"#
    )
    let replaced = try Self.patched(compact, .init(.add, path: Self.path("/Version"), value: .number(2)))
    #expect(replaced == compact.replacingOccurrences(#""Version": 1,"#, with: #""Version": 2,"#))
  }

  @Test("insert at an index, and the errors a page can cause")
  func insertAndFailures() throws {
    let compact = #"{"Pattern": [1, 2]}"#
    #expect(try Self.patched(compact, .init(.add, path: Self.path("/Pattern/0"), value: .number(0))) == #"{"Pattern": [0.0, 1, 2]}"#)
    #expect(try Self.patched(compact, .init(.add, path: Self.path("/Pattern/2"), value: .number(3))) == #"{"Pattern": [1, 2, 3.0]}"#)
    #expect(throws: JSONPatchFailure.self) { try Self.patched(compact, .init(.add, path: Self.path("/Pattern/3"), value: .null)) }
    #expect(throws: JSONPatchFailure.self) { try Self.patched(compact, .init(.replace, path: Self.path("/Nope"), value: .null)) }
    #expect(throws: JSONPatchFailure.self) { try Self.patched(compact, .init(.remove, path: Self.path("/Pattern/01"))) }
    #expect(throws: JSONPatchFailure.self) { try Self.patched("{", .init(.remove, path: Self.path("/Pattern"))) }
    #expect(JSONPatchOperation.tokens(of: "/a~1b/~0") == ["a/b", "~"])
    #expect(JSONPatchOperation.tokens(of: "/a~2") == nil)
    #expect(JSONPatchOperation.tokens(of: "Pattern") == nil)
  }

  @Test("a patch read from a request's JSON")
  func operationsFromJSON() throws {
    let value = try #require(JSONValue.parse(Array(#"[{"op": "replace", "path": "/Pattern/0/Event/Time", "value": 1}]"#.utf8)))
    let ops = try JSONPatchOperation.operations(from: value)
    #expect(ops == [JSONPatchOperation(.replace, path: ["Pattern", "0", "Event", "Time"], value: .number(1))])
    for bad in [#"{}"#, #"[{"op": "move", "path": "/a"}]"#, #"[{"op": "add", "path": "/a"}]"#, #"[{"op": "remove", "path": ""}]"#] {
      let parsed = try #require(JSONValue.parse(Array(bad.utf8)))
      #expect(throws: JSONPatchFailure.self) { try JSONPatchOperation.operations(from: parsed) }
    }
  }

  /// `ops` applied one call each: the reference a run made in one pass must equal.
  static func oneByOne(_ text: String, _ ops: [JSONPatchOperation]) throws -> String {
    var current = text
    for op in ops { current = try patched(current, op) }
    return current
  }

  static func events(_ count: Int, pretty: Bool) -> String {
    let entries = (0..<count).map { k in
      pretty
        ? "    {\n      \"Event\": {\n        \"Time\": \(k),\n        \"EventType\": \"HapticTransient\"\n      }\n    }"
        : "{\"Event\": {\"Time\": \(k), \"EventType\": \"HapticTransient\"}}"
    }
    return pretty
      ? "{\n  \"Pattern\": [\n" + entries.joined(separator: ",\n") + "\n  ]\n}\n"
      : "{\"Pattern\": [" + entries.joined(separator: ", ") + "]}"
  }

  @Test("removals by falling index in one pass: byte for byte what one removal at a time makes", arguments: [false, true])
  func batchedRemovals(pretty: Bool) throws {
    let text = Self.events(12, pretty: pretty)
    var generator = SystemRandomNumberGenerator()
    for trial in 0..<60 {
      var chosen = (0..<12).filter { _ in Bool.random(using: &generator) }
      if trial == 0 { chosen = Array(0..<12) }
      if trial == 1 { chosen = [11] }
      if trial == 2 { chosen = [0] }
      if chosen.isEmpty { continue }
      let ops = chosen.reversed().map { JSONPatchOperation(.remove, path: ["Pattern", String($0)]) }
      let batched = String(decoding: try JSONPatchWriter.apply(ops, to: Array(text.utf8)), as: UTF8.self)
      #expect(batched == (try Self.oneByOne(text, ops)), "removing \(chosen)")
    }
  }

  @Test("additions to an array's end in one pass: byte for byte what one at a time makes, also from empty", arguments: [false, true])
  func batchedAdditions(pretty: Bool) throws {
    let event: JSONValue = .object([
      (key: "Event", value: .object([(key: "Time", value: .number(2.5)), (key: "EventType", value: .string("HapticTransient"))]))
    ])
    for count in [0, 1, 3] {
      let text = Self.events(count, pretty: pretty)
      let ops = (0..<5).map { _ in JSONPatchOperation(.add, path: ["Pattern", "-"], value: event) }
      let batched = String(decoding: try JSONPatchWriter.apply(ops, to: Array(text.utf8)), as: UTF8.self)
      #expect(batched == (try Self.oneByOne(text, ops)), "\(count) elements")
      #expect(Validator.validate(Array(batched.utf8)).pattern?.events.count == count + 5)
    }
  }

  @Test("replacements in one pass (a multi-selection moved): byte for byte what one at a time makes")
  func batchedReplacements() throws {
    let text = Self.events(10, pretty: true)
    let ops = (0..<10).reversed().map { k in
      JSONPatchOperation(.replace, path: ["Pattern", String(k), "Event", "Time"], value: .number(Double(k) + 0.125))
    }
    let batched = String(decoding: try JSONPatchWriter.apply(ops, to: Array(text.utf8)), as: UTF8.self)
    #expect(batched == (try Self.oneByOne(text, ops)))
    #expect(batched.contains("\"Time\": 9.125,"))
    // A container among them, or one value named twice: made one by one, the same result.
    let mixed = ops + [
      JSONPatchOperation(.replace, path: ["Pattern", "0", "Event"], value: .object([(key: "Time", value: .number(7))])),
      JSONPatchOperation(.replace, path: ["Pattern", "1", "Event", "Time"], value: .number(3)),
      JSONPatchOperation(.replace, path: ["Pattern", "1", "Event", "Time"], value: .number(4)),
    ]
    #expect(String(decoding: try JSONPatchWriter.apply(mixed, to: Array(text.utf8)), as: UTF8.self) == (try Self.oneByOne(text, mixed)))
    #expect(throws: JSONPatchFailure.self) {
      try JSONPatchWriter.apply(ops + [JSONPatchOperation(.replace, path: ["Nope"], value: .null)], to: Array(text.utf8))
    }
  }
}
