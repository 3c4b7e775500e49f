/// An event of the manifest's `Rarity` order is stronger than the rarest event, which comes first.
///
/// The rarest moment gets the biggest pattern (a game's `winner`), and frequent moments are kept
/// small so they don't tire. `Rarity` lists events from the rarest to the most frequent; the
/// first must be the strongest of them all: no other listed event may have a higher rendered
/// peak, as much rendered energy, or a longer length (patterns rendered on the `exciter`
/// profile).
///
/// Bad:
/// ```text
/// "Rarity": ["winner", "roundEnd"]   (roundEnd is longer than winner)
/// ```
///
/// Good:
/// ```text
/// "Rarity": ["winner", "roundEnd"]   (winner is longer, peaks higher and carries more energy)
/// ```
extension Rule {
  public static let vocabularyRarity = Rule(id: "vocabulary-rarity", severity: .warning)
}

enum VocabularyRarity: VocabularyCheck {
  static func check(_ input: VocabularyCheckInput, findings: inout FindingCollector) {
    guard let rarest = input.manifest.rarity.first, let pattern = input.validPattern(rarest.name) else { return }
    let top = PatternStrength(pattern)
    var seen: Set<String> = [rarest.name]
    for other in input.manifest.rarity.dropFirst() where seen.insert(other.name).inserted {
      guard let candidate = input.validPattern(other.name) else { continue }
      let strength = PatternStrength(candidate)
      var reasons: [String] = []
      if strength.peak > top.peak + 1e-6 { reasons.append("peaks higher") }
      if strength.energy >= top.energy { reasons.append("carries as much energy or more") }
      if strength.duration > top.duration + 1e-9 { reasons.append("is longer") }
      guard !reasons.isEmpty else { continue }
      findings.add(
        .vocabularyRarity,
        "\"\(Format.excerpt(other.name))\" is more frequent than the rarest event \"\(Format.excerpt(rarest.name))\" but \(reasons.joined(separator: ", ")); the rarest event should be the strongest",
        at: other.offset, pointer: other.pointer)
    }
  }
}
