import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

extension RenderTests {
  @Suite("Profile decoder")
  struct ProfileDecoderTests {
    static func decode(_ text: String) -> (profile: ActuatorProfile?, rules: [String], diagnostics: [Diagnostic]) {
      let (profile, diagnostics) = ProfileDecoder.decode(SourceText(text))
      return (profile, diagnostics.map(\.rule), diagnostics)
    }

    @Test("a complete profile decodes with all its values")
    func complete() throws {
      let result = Self.decode(
        #"{"Name": "shaker", "Description": "bass shaker under the seat", "MinimumFrequency": 30, "#
          + #""MaximumFrequency": 120, "IntensityExponent": 2, "MaximumAmplitude": 0.9, "TransientCycles": 3}"#)
      #expect(result.diagnostics.isEmpty)
      let p = try #require(result.profile)
      #expect(p.name == "shaker")
      #expect(p.description == "bass shaker under the seat")
      #expect(p.minimumFrequency == 30)
      #expect(p.maximumFrequency == 120)
      #expect(p.intensityExponent == 2)
      #expect(p.maximumAmplitude == 0.9)
      #expect(p.transientCycles == 3)
      #expect(abs(p.frequency(sharpness: 0.5) - 60) < 1e-9)
      #expect(abs(p.amplitude(intensity: 0.5) - 0.9 * 0.25) < 1e-12)
    }

    @Test("a decoded profile drives the renderer")
    func rendersWithDecodedProfile() throws {
      let p = try #require(
        Self.decode(#"{"Name": "low", "MinimumFrequency": 40, "MaximumFrequency": 40, "MaximumAmplitude": 0.5}"#)
          .profile)
      let r = renderPattern(Pattern(events: [RenderFixture.continuous(0, 0.5, sharpness: 0.7)]), profile: p)
      #expect(abs(r.frequency(0.1, 0.4) / 40 - 1) < 0.02)
      #expect(abs(Double(r.peak(0.1, 0.4)) - 0.5) < 0.005)
    }

    @Test("MinimumFrequency above MaximumFrequency is profile-value-invalid")
    func inverted() {
      let result = Self.decode(#"{"Name": "x", "MinimumFrequency": 200, "MaximumFrequency": 100}"#)
      #expect(result.profile == nil)
      #expect(result.rules == ["profile-value-invalid"])
      #expect(result.diagnostics.first?.pointer == "/MinimumFrequency")
      #expect(result.diagnostics.first?.severity == .error)
    }

    @Test("an unknown key is a key-unknown warning; the profile is still returned")
    func unknownKey() throws {
      let result = Self.decode(#"{"Name": "x", "Resonance": 170}"#)
      #expect(result.rules == ["key-unknown"])
      #expect(result.diagnostics.first?.severity == .warning)
      #expect(result.diagnostics.first?.pointer == "/Resonance")
      let p = try #require(result.profile)
      #expect(p.minimumFrequency == ActuatorProfile.exciter.minimumFrequency)
    }

    @Test("a profile without Name is key-missing and refused")
    func missingName() {
      let result = Self.decode(#"{"MinimumFrequency": 50}"#)
      #expect(result.profile == nil)
      #expect(result.rules == ["key-missing"])
    }

    @Test("built-in profiles")
    func builtIns() {
      #expect(ActuatorProfile.builtIn(named: "exciter") == .exciter)
      #expect(ActuatorProfile.builtIn(named: "lra") == .lra)
      #expect(ActuatorProfile.builtIn(named: "nope") == nil)
      #expect(ActuatorProfile.exciter.frequency(sharpness: 0) == 60)
      #expect(abs(ActuatorProfile.exciter.frequency(sharpness: 1) - 240) < 1e-9)
      #expect(ActuatorProfile.exciter.frequency(sharpness: -3) == 60)
      #expect(abs(ActuatorProfile.lra.frequency(sharpness: 1) - 185) < 1e-9)
      #expect(ActuatorProfile.exciter.amplitude(intensity: 0) == 0)
      #expect(ActuatorProfile.exciter.amplitude(intensity: 1) == 0.8)
      #expect(ActuatorProfile.exciter.amplitude(intensity: 2) == 0.8)
    }
  }
}
