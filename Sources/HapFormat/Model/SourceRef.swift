/// Where a model value was written: the byte offset of its JSON value and the index of its
/// `Pattern` entry. Resolved to line and column (and a JSON pointer) only when a finding needs it.
///
/// Positions say where a value was written, not what it means: two `SourceRef`s always compare
/// equal, so that model equality is semantic equality (a reformatted file is the same pattern).
public struct SourceRef: Sendable, Equatable, Hashable {
  /// Byte offset of the entry's value (e.g. the `{` after `"Event":`).
  public var offset: Int
  /// Index in the top-level `Pattern` array, or -1 for values made by hap.
  public var entry: Int
  /// Index within the entry's list (a control point's place in `ParameterCurveControlPoints`
  /// as written), or -1.
  public var item: Int

  public init(offset: Int, entry: Int, item: Int = -1) {
    self.offset = offset
    self.entry = entry
    self.item = item
  }

  public static let none = SourceRef(offset: 0, entry: -1)

  public static func == (lhs: SourceRef, rhs: SourceRef) -> Bool { true }
  public func hash(into hasher: inout Hasher) {}
}
