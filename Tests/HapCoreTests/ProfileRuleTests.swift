import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

@Suite("Rules: actuator profiles")
struct ProfileRuleTests {
  func assertProfile(
    _ text: String, _ expected: [(String, Int)], sourceLocation: SourceLocation = #_sourceLocation
  ) -> ActuatorProfile? {
    let marked = MarkedText(text, sourceLocation: sourceLocation)
    let (profile, diagnostics) = ProfileDecoder.decode(marked.source)
    checkDiagnosticInvariants(diagnostics, source: marked.bytes, sourceLocation: sourceLocation)
    compareFindings(diagnostics, expected, marked: marked, ignoring: [], sourceLocation: sourceLocation)
    return profile
  }

  @Test("profile-value-invalid: values outside their ranges point at the value")
  func outOfRange() {
    let profile = assertProfile(
      #"{"Name": "x", "MinimumFrequency": ⟨1⟩0, "MaximumFrequency": ⟨2⟩2001, "IntensityExponent": ⟨3⟩5, "MaximumAmplitude": ⟨4⟩-0.1, "TransientCycles": ⟨5⟩NaN}"#,
      (1...5).map { ("profile-value-invalid", $0) })
    #expect(profile == nil)
  }

  @Test("profile-value-invalid: MaximumAmplitude 0 and MinimumFrequency above MaximumFrequency")
  func silentAndInverted() {
    #expect(assertProfile(#"{"Name": "x", "MaximumAmplitude": ⟨1⟩0}"#, [("profile-value-invalid", 1)]) == nil)
    #expect(
      assertProfile(
        #"{"MaximumFrequency": 80, "Name": "x", "MinimumFrequency": ⟨1⟩300}"#, [("profile-value-invalid", 1)])
        == nil)
  }

  @Test("a valid profile decodes with defaults for what it leaves out")
  func validProfile() throws {
    let profile = try #require(
      assertProfile(#"{"Name": "shaker", "MinimumFrequency": 30, "MaximumFrequency": 30, "MaximumAmplitude": 1}"#, []))
    #expect(profile.name == "shaker")
    #expect(profile.minimumFrequency == 30)
    #expect(profile.maximumFrequency == 30)
    #expect(profile.maximumAmplitude == 1)
    #expect(profile.intensityExponent == ActuatorProfile.exciter.intensityExponent)
    #expect(profile.transientCycles == ActuatorProfile.exciter.transientCycles)
  }

  @Test("profiles share the other rules: type-mismatch, key-missing, key-unknown, json-syntax")
  func sharedRules() {
    #expect(assertProfile(#"⟨1⟩{"MinimumFrequency": ⟨2⟩"80"}"#, [("key-missing", 1), ("type-mismatch", 2)]) == nil)
    #expect(assertProfile(#"{"Name": "x", ⟨1⟩"MaximumFrequncy": 100}"#, [("key-unknown", 1)]) != nil)
    #expect(assertProfile(#"⟨1⟩["x"]"#, [("type-mismatch", 1)]) == nil)
    #expect(assertProfile(#"{"Name": ⟨1⟩'x'}"#, [("json-syntax", 1)]) == nil)
  }
}
