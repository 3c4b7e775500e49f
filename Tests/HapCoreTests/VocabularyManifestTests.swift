import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

@Suite("vocabulary manifest decoder")
struct VocabularyManifestTests {
  func decode(_ marked: MarkedText) -> (VocabularyManifest?, [Diagnostic]) {
    var findings = FindingCollector()
    let manifest = ManifestDecoder.decode(marked.source, findings: &findings)
    let diagnostics = findings.diagnostics(in: marked.source)
    checkDiagnosticInvariants(diagnostics, source: marked.bytes, sourceLocation: #_sourceLocation)
    return (manifest, diagnostics)
  }

  @Test("settings, defaults, and the positions and pointers of every name")
  func positions() throws {
    let marked = MarkedText(
      """
      {"Events": [
        {"Name": ⟨1⟩"timerPulse", "Category": "timer", "Essential": true, "Debounce": 0.5, "Priority": 30},
        {"Name": ⟨2⟩"tick", "Loop": true}
      ],
       "Tiers": [[⟨3⟩"timerPulse", ⟨4⟩"timerUrgent"]],
       "Rarity": [⟨5⟩"winner"]}
      """)
    let (decoded, diagnostics) = decode(marked)
    #expect(diagnostics.isEmpty)
    let manifest = try #require(decoded)
    #expect(manifest.events.map(\.name.name) == ["timerPulse", "tick"])
    #expect(
      manifest.events[0].settings
        == EventSettings(priority: 30, debounce: 0.5, category: "timer", essential: true))
    #expect(manifest.events[1].settings == EventSettings(loops: true))
    #expect(
      EventSettings()
        == EventSettings(priority: 50, debounce: 0.05, category: "general", essential: false, ducking: 1, loops: false))
    let refs = manifest.events.map(\.name) + manifest.tiers[0] + manifest.rarity
    #expect(refs.map(\.pointer) == ["/Events/0/Name", "/Events/1/Name", "/Tiers/0/0", "/Tiers/0/1", "/Rarity/0"])
    for (index, ref) in refs.enumerated() {
      let position = try #require(marked.markers[index + 1])
      #expect(bytePosition(marked.bytes, ref.offset) == (position.line, position.column), "\(ref.name)")
    }
  }

  @Test("wrong types, values out of range, unknown keys and a missing name are reported where they stand")
  func findings() {
    let marked = MarkedText(
      #"{"Events": [{"Name": "a", "Debounce": ⟨1⟩-1, "Priority": ⟨2⟩7.5, "Essential": ⟨3⟩"yes", ⟨4⟩"Prio": 1}, ⟨5⟩{"Category": "x"}, ⟨6⟩3], "#
        + #""Tiers": ⟨7⟩"a", "Rarity": [⟨8⟩1, ⟨9⟩""], ⟨10⟩"Raritty": []}"#)
    let (manifest, diagnostics) = decode(marked)
    compareFindings(
      diagnostics,
      [
        ("value-out-of-range", 1), ("value-out-of-range", 2), ("type-mismatch", 3), ("key-unknown", 4),
        ("key-missing", 5), ("type-mismatch", 6), ("type-mismatch", 7), ("type-mismatch", 8),
        ("value-out-of-range", 9), ("key-unknown", 10),
      ], marked: marked)
    #expect(manifest?.events.map(\.name.name) == ["a"])
    #expect(manifest?.events.first?.settings == EventSettings())
  }

  @Test("a manifest that is not an object, or not JSON, gives no vocabulary and an error")
  func notAManifest() {
    for text in ["⟨1⟩[1, 2]", #"{"Events": [⟨1⟩}"#] {
      let marked = MarkedText(text)
      let result = VocabularyValidator.validate(manifest: marked.source, files: [])
      #expect(result.vocabulary == nil)
      #expect(!result.isValid)
      #expect(result.diagnostics.hasErrors, "\(text)")
    }
  }

  @Test("the vocabulary: valid patterns only, named after their stems, with the manifest's settings")
  func model() throws {
    let manifest = SourceText(#"{"Events": [{"Name": "soft", "Essential": true}], "Tiers": [["soft", "loud"]]}"#)
    let files = [
      VocabularyFile(fileName: "loud.ahap", bytes: Array(heartbeat(0.9, 0.9).utf8)),
      VocabularyFile(fileName: "soft.json", bytes: Array(heartbeat(0.4, 0.3).utf8)),
      VocabularyFile(fileName: "broken.json", bytes: Array("{".utf8)),
      VocabularyFile(fileName: "gone.json", contents: .failure(VocabularyReadError("permission denied"))),
    ]
    let result = VocabularyValidator.validate(manifest: manifest, files: files)
    #expect(result.diagnostics.map(\.rule) == ["vocabulary-pattern-invalid", "vocabulary-pattern-invalid"])
    let vocabulary = try #require(result.vocabulary)
    #expect(vocabulary.events.map(\.name) == ["loud", "soft"])
    #expect(vocabulary.event(named: "loud")?.fileName == "loud.ahap")
    #expect(vocabulary.event(named: "soft")?.settings.essential == true)
    #expect(vocabulary.event(named: "loud")?.settings == EventSettings())
    #expect(vocabulary.escalation(of: "soft") == "loud")
    #expect(vocabulary.escalation(of: "loud") == nil)
    // Without a manifest every valid file is an event with the default settings.
    let bare = VocabularyValidator.validate(manifest: nil, files: files)
    #expect(bare.diagnostics.isEmpty)
    #expect(bare.vocabulary?.events.map(\.name) == ["loud", "soft"])
  }
}
