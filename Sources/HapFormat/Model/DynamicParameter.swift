/// A `Parameter` entry: a step change of a dynamic parameter at `time`, in force until the
/// next `Parameter` or curve of the same ID.
public struct DynamicParameter: Sendable, Equatable, Hashable {
  public var id: DynamicParameterID
  /// Seconds from the start of the pattern.
  public var time: Double
  /// Clamped to the ID's range.
  public var value: Double
  public var source: SourceRef

  public init(id: DynamicParameterID, time: Double, value: Double, source: SourceRef = .none) {
    self.id = id
    self.time = time
    self.value = value
    self.source = source
  }
}
