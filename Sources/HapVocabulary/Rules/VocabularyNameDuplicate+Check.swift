import HapFormat
import HapPlayback
import HapRender
import HapTools

/// The check of ``Rule/vocabularyNameDuplicate`` (declared, with its documentation, among the format's rules).
enum VocabularyNameDuplicate: VocabularyCheck {
  static func check(_ input: VocabularyCheckInput, findings: inout FindingCollector) {
    for (index, pattern) in input.patterns.enumerated() {
      guard let first = input.firstFile[pattern.file.stem], first != index else { continue }
      let (offset, pointer) = input.location(of: pattern.file.stem)
      findings.add(
        .vocabularyNameDuplicate,
        "\"\(Format.excerpt(input.patterns[first].file.fileName))\" and \"\(Format.excerpt(pattern.file.fileName))\" are both the event \"\(Format.excerpt(pattern.file.stem))\"; only the first is used",
        at: offset, pointer: pointer)
    }
    let lists: [(String, [VocabularyManifest.NameRef])] = [
      ("Events", input.manifest.events.map(\.name)), ("Tiers", input.manifest.tiers.flatMap { $0 }),
      ("Rarity", input.manifest.rarity),
    ]
    for (list, names) in lists {
      var seen: Set<String> = []
      for name in names where !seen.insert(name.name).inserted {
        findings.add(
          .vocabularyNameDuplicate, "\"\(Format.excerpt(name.name))\" is named twice in \"\(list)\"",
          at: name.offset, pointer: name.pointer)
      }
    }
  }
}
