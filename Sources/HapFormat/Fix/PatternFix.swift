/// `hap fix`: a pattern file's findings repaired where the repair is certain (docs/fix.md), the
/// rest of the file kept byte for byte.
///
/// Each pass validates the bytes, takes the repairs its findings offer (``ValidationResult/edits``,
/// one ``FixEdit`` each) and applies those that do not overlap an earlier one; the next pass
/// takes what was left out and what the repairs revealed, until a pass changes nothing (a fixed
/// point: one `hap fix` does what two did). A pass is kept only when the file it makes has no
/// finding of a rule the original did not have (but those of ``syntaxRules``, which a repair may
/// reveal, `"0.5"` once its misspelt `ParameterID` is known, and the next pass repairs) and fewer
/// findings of the other rules, or as many and fewer in all; otherwise the pass is tried again
/// with the repairs that change only how the file is written, and if that fails too the fixing
/// stops.
public enum PatternFix {
  /// The rules whose repairs change how the file is written but not what plays.
  public static let syntaxRules: Set<String> = [
    Rule.jsonTrailingComma.id, Rule.jsonByteOrderMark.id, Rule.timeSpelling.id, Rule.numberAsString.id,
    Rule.versionMissing.id,
  ]

  /// The rules `hap fix` repairs (where its findings offer a repair).
  public static let fixableRules: [String] = [
    Rule.jsonTrailingComma.id, Rule.jsonByteOrderMark.id, Rule.curveTimesAbsolute.id, Rule.valueOutOfRange.id,
    Rule.versionMissing.id, Rule.versionUnsupported.id, Rule.keyUnknown.id, Rule.timeSpelling.id,
    Rule.numberAsString.id, Rule.entryKind.id, Rule.parameterIDUnknown.id,
  ]

  /// The most passes made: each takes the repairs an earlier one left out or revealed.
  public static let maximumPasses = 8

  /// What fixing a file did.
  public struct Outcome: Sendable {
    public let original: [UInt8]
    public let fixed: [UInt8]
    /// The original's validation, and the fixed file's.
    public let before: ValidationResult
    public let after: ValidationResult
    /// The repairs applied, pass after pass (each pass's ranges in the bytes it read).
    public let applied: [FixEdit]

    public var changed: Bool { fixed != original }

    /// How many findings of each rule the fix removed (fewer after than before: those repaired,
    /// and those a repair made moot, such as `duration-missing` once `EventDuraton` is renamed),
    /// the fixable rules first in the order of ``PatternFix/fixableRules``.
    public var fixedFindings: [(rule: String, count: Int)] {
      let others = before.diagnostics.map(\.rule).filter { !PatternFix.fixableRules.contains($0) }
      var seen = Set<String>()
      return (PatternFix.fixableRules + others).compactMap { rule in
        guard seen.insert(rule).inserted else { return nil }
        let count = before.diagnostics.count { $0.rule == rule } - after.diagnostics.count { $0.rule == rule }
        return count > 0 ? (rule, count) : nil
      }
    }
  }

  /// Fixes `bytes`, validated with `context`, repairing only the rules `repairs` accepts (a
  /// project's rules turned off are left alone).
  public static func fix(
    _ bytes: [UInt8], context: ValidationContext = ValidationContext(),
    repairs: (String) -> Bool = { _ in true }
  ) -> Outcome {
    let before = Validator.validate(bytes, context: context)
    let rules = Set(before.diagnostics.map(\.rule))
    var current = (bytes: bytes, result: before)
    var applied: [FixEdit] = []
    for _ in 0..<maximumPasses {
      let offered = current.result.edits.filter { repairs($0.rule) }
      guard
        let pass = attempt(offered, on: current, rules: rules, context: context)
          ?? attempt(offered.filter { syntaxRules.contains($0.rule) }, on: current, rules: rules, context: context)
      else { break }
      applied += pass.applied
      current = (pass.bytes, pass.result)
    }
    return Outcome(original: bytes, fixed: current.bytes, before: before, after: current.result, applied: applied)
  }

  /// `edits` applied to `current`, when they change it without a finding of a new rule or more
  /// findings than before.
  private static func attempt(
    _ edits: [FixEdit], on current: (bytes: [UInt8], result: ValidationResult), rules: Set<String>,
    context: ValidationContext
  ) -> (bytes: [UInt8], result: ValidationResult, applied: [FixEdit])? {
    guard !edits.isEmpty else { return nil }
    let (bytes, applied) = FixEdit.apply(edits, to: current.bytes)
    guard bytes != current.bytes else { return nil }
    let result = Validator.validate(bytes, context: context)
    guard result.diagnostics.allSatisfy({ rules.contains($0.rule) || syntaxRules.contains($0.rule) }),
      progress(result) < progress(current.result)
    else { return nil }
    return (bytes, result, applied)
  }

  /// What a pass must lower: the findings of rules other than ``syntaxRules``, then all.
  private static func progress(_ result: ValidationResult) -> (Int, Int) {
    (result.diagnostics.count { !syntaxRules.contains($0.rule) }, result.diagnostics.count)
  }
}
