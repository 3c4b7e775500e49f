import Foundation
import HapCore
import Testing

/// The bundled vocabulary in patterns/ upholds the design rules.
@Suite("bundled patterns")
struct VocabularyTests {
  static let names = [
    "start", "correct", "pass", "reveal", "timerPulse", "timerUrgent", "stop", "roundEnd", "winner", "tick", "buzz",
    "texture",
  ]

  func load(_ name: String) throws -> Pattern {
    let url = Hap.root.appendingPathComponent("patterns/\(name).json")
    let result = Validator.validate(Array(try Data(contentsOf: url)))
    #expect(result.isStrictlyValid, "\(name): \(result.diagnostics.map(\.rule))")
    return try #require(result.pattern)
  }

  @Test func everyPatternPassesStrictValidation() throws {
    let result = try Hap.run(["validate", "--strict", Hap.root.appendingPathComponent("patterns").path])
    #expect(result.status == 0)
    // The patterns and the manifest, vocabulary.json.
    let files = Self.names.count + 1
    #expect(
      result.stdoutLines.last?.hasPrefix("\(files) files checked (1 vocabulary manifest): \(files) valid") == true)
    for name in Self.names { _ = try load(name) }
  }

  @Test func timerTiersAreTheSameShapeAtDifferentStrength() throws {
    let pulse = try load("timerPulse")
    let urgent = try load("timerUrgent")
    #expect(pulse.events.count == urgent.events.count)
    #expect(pulse.events.map(\.time) == urgent.events.map(\.time))
    #expect(pulse.events.map(\.type) == urgent.events.map(\.type))
    #expect(pulse.events.map(\.duration) == urgent.events.map(\.duration))
    #expect(pulse.curves.map { $0.points.map(\.time) } == urgent.curves.map { $0.points.map(\.time) })
    for (calm, pressing) in zip(pulse.events, urgent.events) {
      #expect(pressing.parameters.hapticIntensity > calm.parameters.hapticIntensity)
      #expect(pressing.parameters.hapticSharpness > calm.parameters.hapticSharpness)
    }
  }

  @Test func winnerIsTheBiggestPattern() throws {
    let winner = try load("winner")
    let roundEnd = try load("roundEnd")
    #expect(winner.duration > roundEnd.duration)
    let peak = { (p: Pattern) in p.events.map(\.parameters.hapticIntensity).max() ?? 0 }
    #expect(peak(winner) > peak(roundEnd))
    for name in Self.names where name != "winner" && name != "texture" && name != "buzz" {
      #expect(try load(name).duration < winner.duration, "\(name)")
    }
  }

  @Test func buildingBlocks() throws {
    let tick = try load("tick")
    #expect(tick.events.map(\.type) == [.hapticTransient])
    let buzz = try load("buzz")
    #expect(buzz.events.map(\.type) == [.hapticContinuous])
  }

  @Test func textureRestsLowButCanRiseToFull() throws {
    let texture = try load("texture")
    #expect(texture.events.count == 1)
    let event = try #require(texture.events.first)
    #expect(event.type == .hapticContinuous)
    #expect(event.parameters.hapticIntensity == 1)
    let resting = texture.parameters.filter { $0.id == .hapticIntensityControl && $0.time == 0 }
    #expect(resting.count == 1)
    #expect(abs((resting.first?.value ?? 0) - 0.2) < 0.05)
  }
}
