import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

@Suite("ServiceConfig")
struct ServiceConfigTests {
  func parse(_ text: String) throws(ServiceConfigError) -> ServiceConfig.Parsed {
    try ServiceConfig.parse(Array(text.utf8))
  }

  @Test func everyKeyIsRead() throws {
    let parsed = try parse(
      #"{"level": "quiet", "muted": true, "device": "hw:1,0", "profile": "lra", "gain": -6.5}"#)
    #expect(parsed.config == ServiceConfig(level: .quiet, muted: true, device: "hw:1,0", profile: "lra", gain: -6.5))
    #expect(parsed.warnings.isEmpty)
  }

  @Test func anEmptyFileOrObjectSetsNothing() throws {
    #expect(try parse("").config == ServiceConfig())
    #expect(try parse(" \n").config == ServiceConfig())
    #expect(try parse("{}").config == ServiceConfig())
  }

  @Test func anUnknownKeyIsAWarningWithADidYouMean() throws {
    let parsed = try parse(#"{"levle": "silent", "muted": false}"#)
    #expect(parsed.config == ServiceConfig(muted: false))
    #expect(parsed.warnings.count == 1)
    #expect(parsed.warnings[0].contains("\"level\""), "\(parsed.warnings)")
  }

  @Test func aWrongValueNamesItsKeyAndValue() {
    #expect(throws: ServiceConfigError.badValue(key: "level", value: "\"loud\"", expected: "full, quiet or silent")) {
      try parse(#"{"level": "loud"}"#)
    }
    #expect(throws: ServiceConfigError.badValue(key: "muted", value: "1", expected: "true or false")) {
      try parse(#"{"muted": 1}"#)
    }
    #expect(throws: ServiceConfigError.badValue(key: "gain", value: "99", expected: "a number of dB from -60 to 24")) {
      try parse(#"{"gain": 99}"#)
    }
    #expect(throws: ServiceConfigError.badValue(key: "device", value: "\"\"", expected: "a non-empty string")) {
      try parse(#"{"device": ""}"#)
    }
  }

  @Test func aValueIsQuotedAtMostEightyCharacters() throws {
    let long = String(repeating: "x", count: 5000)
    do {
      _ = try parse(#"{"level": "\#(long)"}"#)
      Issue.record("a long level was accepted")
    } catch {
      #expect(error.message.count < 200, "\(error.message)")
    }
  }

  @Test func notJSONOrNotAnObjectIsRefused() {
    #expect {
      try parse(#"{"level": "quiet""#)
    } throws: { error in
      guard case ServiceConfigError.syntax(let line, _, _) = error else { return false }
      return line == 1
    }
    #expect(throws: ServiceConfigError.notAnObject) { try parse("[1, 2]") }
    #expect(throws: ServiceConfigError.tooLarge(ServiceConfig.maxBytes + 1)) {
      try ServiceConfig.parse([UInt8](repeating: 0x20, count: ServiceConfig.maxBytes + 1))
    }
  }

  @Test func anUpdateKeepsTheOtherKeysInOrder() throws {
    let parsed = try parse(#"{"device": "hw:1", "theme": {"a": [1, "b\n"]}, "level": "quiet"}"#)
    let (config, text) = parsed.config.updated(muted: true)
    #expect(config.muted == true && config.level == .quiet && config.device == "hw:1")
    let again = try parse(text)
    #expect(again.config == config)
    #expect(again.config.members.map(\.key) == ["device", "theme", "level", "muted"])
    #expect(again.config.members[1].value == .object([(key: "a", value: .array([.number(1), .string("b\n")]))]))
    let (_, levelText) = again.config.updated(level: .silent)
    #expect(try parse(levelText).config == ServiceConfig(level: .silent, muted: true, device: "hw:1"))
  }

  @Test func anUpdateOfDuplicateKeysLeavesOne() throws {
    let parsed = try parse(#"{"muted": false, "gain": 1, "muted": false}"#)
    let (_, text) = parsed.config.updated(muted: true)
    #expect(try parse(text).config.members.map(\.key) == ["muted", "gain"])
    #expect(try parse(text).config.muted == true)
  }
}
