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

  @Test("a renderer's tables are its profile's curves at its rate, whichever profile's tables were kept before")
  func renderersTablesAreTheirProfiles() {
    for (profile, other, rate) in [(ActuatorProfile.exciter, ActuatorProfile.lra, 48000.0), (.lra, .exciter, 8000)] {
      for before in [other, profile] {
        Renderer.prepareTables(for: before)
        let renderer = Renderer(schedule: Schedule(pattern: Pattern(events: []), profile: profile, rate: rate))
        for k in Self.points {
          #expect(renderer.amplitudeTable[k].bitPattern == profile.amplitude(intensity: Self.x(k)).bitPattern)
          #expect(
            renderer.incrementTable[k].bitPattern == (profile.frequency(sharpness: Self.x(k)) / rate).bitPattern)
        }
      }
    }
  }
}
