/// Two events of a vocabulary have the same name, or the manifest names an event twice in
/// `Events`, in `Tiers` or in `Rarity`.
///
/// An event is fired by its name, so a name must mean one pattern. Two files with the same stem
/// (`tick.json` and `tick.ahap`) would be the same event; the first in name order is used. Each
/// event has one `Events` entry, belongs to at most one tier ladder, and has one place in the
/// rarity order.
///
/// Bad:
/// ```json
/// {"Events": [{"Name": "tick", "Priority": 10}, {"Name": "tick", "Priority": 90}]}
/// ```
///
/// Good:
/// ```json
/// {"Events": [{"Name": "tick", "Priority": 10}]}
/// ```
extension Rule {
  public static let vocabularyNameDuplicate = Rule(id: "vocabulary-name-duplicate", severity: .error)
}

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
