/// Finds the known name closest to a misspelt one, for "did you mean" hints.
public enum Suggestion {
  /// The closest of `candidates` to `name`, or nil when none is plausibly meant.
  ///
  /// Case-insensitive edit distance, accepted up to a third of the name's length (at least 2);
  /// a candidate contained in the name or containing it (`HapticAttackTime` for `AttackTime`)
  /// is accepted too.
  /// Names longer than 128 bytes get no suggestion: no one misspells a key that badly, and
  /// comparing a 20 MB key with every candidate would take seconds.
  public static func closest(to name: String, among candidates: [String]) -> String? {
    ranked(name, among: candidates).first?.name
  }

  /// The closest of `candidates` to `name` when no other is as close (what `hap fix` renames a
  /// misspelt key to), else nil.
  public static func unique(to name: String, among candidates: [String]) -> String? {
    let found = ranked(name, among: candidates)
    guard let best = found.first, found.dropFirst().allSatisfy({ $0.score > best.score }) else { return nil }
    return best.name
  }

  /// The candidates plausibly meant by `name`, closest first (in their order where as close).
  static func ranked(_ name: String, among candidates: [String]) -> [(name: String, score: Int)] {
    guard name.utf8.count <= 128 else { return [] }
    let lowered = Array(name.lowercased().unicodeScalars)
    guard !lowered.isEmpty else { return [] }
    var found: [(name: String, score: Int)] = []
    for candidate in candidates where candidate != name {
      let other = Array(candidate.lowercased().unicodeScalars)
      var score = distance(lowered, other)
      let limit = max(2, max(lowered.count, other.count) / 3)
      let shorter = min(lowered.count, other.count)
      let contains =
        shorter >= 4
        && (name.lowercased().contains(candidate.lowercased())
          || candidate.lowercased().contains(name.lowercased()))
      if contains { score = min(score, limit) }
      guard score <= limit else { continue }
      found.append((candidate, score))
    }
    return found.enumerated().sorted { ($0.element.score, $0.offset) < ($1.element.score, $1.offset) }.map(\.element)
  }

  /// " (did you mean \"X\"?)" or "".
  package static func hint(for name: String, among candidates: [String]) -> String {
    closest(to: name, among: candidates).map { "; did you mean \"\($0)\"?" } ?? ""
  }

  static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    if a.count > 64 || b.count > 64 { return max(a.count, b.count) }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
      }
      swap(&previous, &current)
    }
    return previous[b.count]
  }
}
