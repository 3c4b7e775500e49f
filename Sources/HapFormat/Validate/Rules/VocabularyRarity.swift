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
