import Foundation
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapRender

/// The renderer's amplitude and frequency tables, made once per profile and shared
/// (``ProfileTables``): the values are the profile's own, whichever profile was asked for last,
/// and a renderer renders the same bits whether it found its tables made or made them.
@Suite("ProfileTables")
struct ProfileTablesTests {
  static let points = 0...(Renderer.tableSize + 1)

  static func x(_ k: Int) -> Double { min(Double(k) / Double(Renderer.tableSize), 1) }

  @Test("the tables are the profile's curves at the table points, bit for bit, for each profile in turn")
  func tablesAreTheProfilesCurves() {
    for profile in [ActuatorProfile.exciter, .lra, .exciter, .lra] {
      let tables = ProfileTables.of(profile)
      #expect(tables.amplitude.count == Self.points.count && tables.frequency.count == Self.points.count)
      for k in Self.points {
        #expect(tables.amplitude[k].bitPattern == profile.amplitude(intensity: Self.x(k)).bitPattern)
        #expect(tables.frequency[k].bitPattern == profile.frequency(sharpness: Self.x(k)).bitPattern)
      }
    }
  }

  @Test("profiles that differ only in what the curves do not use share tables; -0 and 0 do not")
  func keyIsWhatTheCurvesUse() {
    var renamed = ActuatorProfile.exciter
    renamed.name = "another name"
    renamed.transientCycles += 1
    #expect(ProfileTables.Key(renamed) == ProfileTables.Key(.exciter))
    var positive = ActuatorProfile.exciter
    positive.maximumAmplitude = 0
    var negative = positive
    negative.maximumAmplitude = -0.0
    #expect(ProfileTables.Key(positive) != ProfileTables.Key(negative))
    #expect(ProfileTables.of(positive).amplitude[Renderer.tableSize].sign == .plus)
    #expect(ProfileTables.of(negative).amplitude[Renderer.tableSize].sign == .minus)
  }

  @Test("a renderer renders the same bits with its tables made ahead, made by another profile's turn, or made again")
  func renderersAgreeWhicheverMadeTheTables() throws {
    let pattern = try RenderTests.StreamingTests.loadBundled("texture.json")
    func render(_ profile: ActuatorProfile) -> [Float] {
      let renderer = Renderer(schedule: Schedule(pattern: pattern, profile: profile, rate: 48000))
      var samples = [Float](repeating: 0, count: renderer.frameCount)
      samples.withUnsafeMutableBufferPointer { _ = renderer.render(into: $0) }
      return samples
    }
    Renderer.prepareTables(for: .exciter)
    let ahead = render(.exciter)
    _ = render(.lra)  // the kept tables are the LRA's now
    let again = render(.exciter)
    #expect(ahead.count > 0)
    #expect(ahead.map(\.bitPattern) == again.map(\.bitPattern))
  }
}
