import Foundation
import HapCore
import Testing

@testable import HapKit
@testable import HapRuntime

/// Issue 45, item 22: a `CHHapticPattern` made in code is written as AHAP JSON in linear time
/// within the pattern budget (128 MiB, what HapKit reads of a pattern file), or refused at once.
@Suite("Core Haptics' patterns: huge ones made in code, within the budget")
struct PatternBudgetTests {
  /// Events, parameters and curves of every kind the writer writes.
  nonisolated(unsafe) static let events: [CHHapticEvent] = [
    CHHapticEvent(
      eventType: .hapticTransient,
      parameters: [
        CHHapticEventParameter(parameterID: .hapticIntensity, value: 0.1),
        CHHapticEventParameter(parameterID: .hapticSharpness, value: 1),
      ], relativeTime: 0.000_1),
    CHHapticEvent(eventType: .hapticTransient, parameters: [], relativeTime: 0, duration: 0.25),
    CHHapticEvent(
      eventType: .hapticContinuous, parameters: [CHHapticEventParameter(parameterID: .attackTime, value: 0.3)],
      relativeTime: 1e-7, duration: 2.5),
    CHHapticEvent(eventType: .audioContinuous, parameters: [], relativeTime: 3, duration: 0.5),
    CHHapticEvent(audioResourceID: 7, parameters: [CHHapticEventParameter(parameterID: .audioVolume, value: 0.75)], relativeTime: 4),
  ]

  /// The AHAP the old code wrote for the same objects (dictionaries through `JSONSerialization`).
  static func serialized(_ events: [CHHapticEvent], _ entries: [[String: Any]]) throws -> [UInt8] {
    let written: [[String: Any]] = events.map { event in
      var object: [String: Any] = ["EventType": event.type.rawValue, "Time": event.relativeTime]
      if event.type != .hapticTransient || event.duration != 0 { object["EventDuration"] = event.duration }
      if !event.eventParameters.isEmpty {
        object["EventParameters"] = event.eventParameters.map {
          ["ParameterID": $0.parameterID.rawValue, "ParameterValue": Double($0.value)] as [String: Any]
        }
      }
      if let id = event.audioResourceID { object["EventWaveformPath"] = CHHapticAudioResources.path(of: id) }
      return ["Event": object]
    }
    let data = try JSONSerialization.data(withJSONObject: ["Version": 1.0, "Pattern": written + entries], options: [.sortedKeys])
    return [UInt8](data)
  }

  static func model(_ json: [UInt8]) -> Pattern? { Validator.validate(json).pattern }

  @Test("events and parameters written straight from the objects read as JSONSerialization's dictionaries did")
  func sameAsDictionaries() throws {
    let parameters = [
      CHHapticDynamicParameter(parameterID: .hapticIntensityControl, value: 0.5, relativeTime: 0.2),
      CHHapticDynamicParameter(parameterID: .audioPanControl, value: -1, relativeTime: 1.5),
    ]
    let made = try CHHapticPattern(events: Self.events, parameters: parameters)
    let old = try Self.serialized(Self.events, [
      ["Parameter": ["ParameterID": "HapticIntensityControl", "ParameterValue": 0.5, "Time": 0.2]],
      ["Parameter": ["ParameterID": "AudioPanControl", "ParameterValue": -1.0, "Time": 1.5]],
    ])
    let model = try #require(Self.model([UInt8](made.ahapData)))
    #expect(model == Self.model(old))
    #expect(model.events.count == 5)
  }

  @Test("curves written straight from the objects read as JSONSerialization's dictionaries did")
  func curvesSameAsDictionaries() throws {
    let curve = CHHapticParameterCurve(
      parameterID: .hapticSharpnessControl,
      controlPoints: [.init(relativeTime: 0, value: 0.2), .init(relativeTime: 0.4, value: 0.9), .init(relativeTime: 1, value: 0)],
      relativeTime: 0.5)
    let made = try CHHapticPattern(events: Self.events, parameterCurves: [curve])
    let old = try Self.serialized(Self.events, [
      [
        "ParameterCurve": [
          "ParameterID": "HapticSharpnessControl", "Time": 0.5,
          "ParameterCurveControlPoints": [
            ["Time": 0.0, "ParameterValue": Double(Float(0.2))], ["Time": 0.4, "ParameterValue": Double(Float(0.9))],
            ["Time": 1.0, "ParameterValue": 0.0],
          ],
        ] as [String: Any]
      ]
    ])
    #expect(try #require(Self.model([UInt8](made.ahapData))) == Self.model(old))
  }

  @Test("100,000 events make a pattern of 100,000 events, as its AHAP file reads")
  func hundredThousand() throws {
    let events = (0..<100_000).map { i in
      CHHapticEvent(
        eventType: .hapticTransient,
        parameters: [CHHapticEventParameter(parameterID: .hapticIntensity, value: Float(i % 10) / 10)],
        relativeTime: Double(i) * 0.01)
    }
    let pattern = try CHHapticPattern(events: events, parameters: [])
    #expect(pattern.model.events.count == 100_000)
    #expect(pattern.model.events[99_999].time == 999.99)
    #expect(pattern.model.events[12_345].parameters.hapticIntensity == Double(Float(5) / 10))
  }

  @Test("more entries than the budget can hold are refused at once, before anything is written")
  func refusedAtOnce() throws {
    // 3.4 million references to one event: 27 MB of array, 3.4 × 47 bytes of JSON at the least.
    let event = CHHapticEvent(eventType: .hapticTransient, parameters: [], relativeTime: 0)
    let many = Array(repeating: event, count: PatternJSONWriter.limit / PatternJSONWriter.entryFloor + 1)
    let error = try #require(throws: CHHapticError.self) { try CHHapticPattern(events: many, parameters: []) }
    #expect(error.code == .memoryError)
    #expect("\(error)".contains("takes more than 128 MiB of AHAP JSON, the most HapKit reads of one pattern"))
    var writer = PatternJSONWriter()
    #expect(throws: PatternJSONWriter.Failure.tooLarge(limit: PatternJSONWriter.limit)) {
      try writer.pattern(events: many, then: [])
    }
    #expect(writer.bytes.isEmpty)
  }

  @Test("a pattern whose JSON passes the budget is refused when it does, never written past it")
  func refusedAtTheBudget() throws {
    // One event with 1,000 parameters: one entry, admitted, then 50 KB of JSON against 4 KB.
    let parameter = CHHapticEventParameter(parameterID: .hapticIntensity, value: 0.5)
    let event = CHHapticEvent(eventType: .hapticTransient, parameters: Array(repeating: parameter, count: 1_000), relativeTime: 0)
    var writer = PatternJSONWriter(limit: 4_096)
    #expect(throws: PatternJSONWriter.Failure.tooLarge(limit: 4_096)) { try writer.pattern(events: [event], then: []) }
    #expect(writer.bytes.count <= 4_096)
    #expect(writer.bytes.count > 4_000)
    let error = try #require(throws: CHHapticError.self) {
      try CHHapticPattern(events: [event], then: [], limit: 4_096)
    }
    #expect(error.code == .memoryError)
    #expect("\(error)".contains("a pattern of 1 entries takes more than 4096 bytes of AHAP JSON"))
  }

  @Test("AHAP data past the budget is refused before it is read, as a file past it is")
  func dataPastTheBudget() throws {
    let data = Data(count: PatternJSONWriter.limit + 1)
    let error = try #require(throws: CHHapticError.self) { try CHHapticPattern(ahapData: data) }
    #expect(error.code == .memoryError)
    #expect("\(error)".contains("134217729 bytes of AHAP JSON are more than 128 MiB, the most HapKit reads of one pattern"))
  }

  @Test("a dictionary's values: NSNumbers as JSONSerialization reads them, Booleans, and what JSON cannot hold")
  func dictionaryValues() throws {
    let text = #"{"Version":1,"Pattern":[{"Event":{"EventType":"AudioCustom","Time":0.5,"EventWaveformPath":"a.wav","EventWaveformUseVolumeEnvelope":true,"EventWaveformLoopEnabled":false}}]}"#
    let read = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    var writer = PatternJSONWriter()
    try writer.value(read)
    let written = String(decoding: writer.bytes, as: UTF8.self)
    #expect(written.contains(#""EventWaveformUseVolumeEnvelope":true"#))
    #expect(written.contains(#""EventWaveformLoopEnabled":false"#))
    #expect(written.contains(#""Time":0.5"#))
    #expect(Self.model(writer.bytes) == Self.model(Array(text.utf8)))
    for bad: Any in [Double.nan, Float.infinity, Date(), ["a": URL(fileURLWithPath: "/")]] {
      var writer = PatternJSONWriter()
      #expect(throws: PatternJSONWriter.Failure.notJSON) { try writer.value(["Pattern": [bad]]) }
    }
    let nan = CHHapticEvent(
      eventType: .hapticTransient, parameters: [CHHapticEventParameter(parameterID: .hapticIntensity, value: .nan)], relativeTime: 0)
    let error = try #require(throws: CHHapticError.self) { try CHHapticPattern(events: [nan], parameters: []) }
    #expect(error.code == .invalidPatternDictionary)
  }
}
