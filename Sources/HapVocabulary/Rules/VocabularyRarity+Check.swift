import HapFormat
import HapPlayback
import HapRender
import HapTools

/// The check of ``Rule/vocabularyRarity`` (declared, with its documentation, among the format's rules).
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
