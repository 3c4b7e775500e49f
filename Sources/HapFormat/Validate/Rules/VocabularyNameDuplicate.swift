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
