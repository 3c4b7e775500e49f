/// A pattern file's `Pattern` entries as written, each with the JSON pointer of every value it
/// writes: what `hap studio`'s page draws and edits (an edit names the pointer of the value it
/// changes). Read from the tape, so every entry of the array is here, also one the decoder
/// leaves out, and indices are the file's own.
public struct PatternOutline: Sendable {
  public struct Entry: Sendable, Equatable {
    /// The element's position in `Pattern`.
    public var index: Int
    /// `Event`, `Parameter`, `ParameterCurve`, or nil for an element that is none of them.
    public var kind: String?
    /// The `EventType`, `ParameterID` as written (nil when absent or not a string).
    public var type: String?
    /// Each number written directly in the entry (`Time`, `EventDuration`, `ParameterValue`)
    /// and each event parameter (by its `ParameterID`): its value and pointer.
    public var numbers: [String: Double] = [:]
    public var paths: [String: String] = [:]
    /// `EventWaveformPath` as written.
    public var waveform: String?
    /// The pointer of the event's `EventParameters` array (nil when it has none).
    public var parametersPath: String?
    /// A curve's control points: `Time` and `ParameterValue` as written, with their pointers.
    public var points: [Point] = []
    /// The pointer of `ParameterCurveControlPoints`.
    public var pointsPath: String?
    /// The element as written (what a copy of it pastes).
    public var value: JSONValue = .null
  }

  public struct Point: Sendable, Equatable {
    public var time: Double?
    public var value: Double?
    public var timePath: String
    public var valuePath: String
  }

  public let entries: [Entry]

  /// The outline of `bytes`; nil when they are not JSON with a `Pattern` array.
  public init?(_ bytes: [UInt8]) {
    var findings = FindingCollector()
    guard let document = JSONParser.parse(SourceText(bytes), findings: &findings),
      document.node(document.root).kind == .object, let pattern = document.member("Pattern", of: document.root),
      document.node(pattern).kind == .array
    else { return nil }
    var entries: [Entry] = []
    document.forEachElement(of: pattern) { position, element in
      entries.append(Self.entry(document, element, at: position))
    }
    self.entries = entries
  }

  private static func entry(_ document: JSONDocument, _ element: Int, at position: Int) -> Entry {
    var entry = Entry(index: position)
    entry.value = JSONValue(document, element)
    guard document.node(element).kind == .object else { return entry }
    for kind in ["Event", "Parameter", "ParameterCurve"] {
      if let body = document.member(kind, of: element), document.node(body).kind == .object {
        entry.kind = kind
        read(document, body, pointer: "/Pattern/\(position)/\(kind)", into: &entry)
        break
      }
    }
    return entry
  }

  private static func read(_ document: JSONDocument, _ body: Int, pointer: String, into entry: inout Entry) {
    document.forEachMember(of: body) { key, value in
      let name = document.string(key)
      let path = JSONPointer.member(pointer, name)
      let node = document.node(value)
      switch (name, node.kind) {
      case ("EventType", .string), ("ParameterID", .string): entry.type = document.string(value)
      case ("EventWaveformPath", .string): entry.waveform = document.string(value)
      case ("EventParameters", .array):
        entry.parametersPath = path
        readParameters(document, value, pointer: path, into: &entry)
      case ("ParameterCurveControlPoints", .array):
        entry.pointsPath = path
        entry.points = points(document, value, pointer: path)
      case (_, .number):
        entry.numbers[name] = node.number
        entry.paths[name] = path
      default: break
      }
    }
  }

  private static func readParameters(_ document: JSONDocument, _ array: Int, pointer: String, into entry: inout Entry) {
    document.forEachElement(of: array) { k, item in
      guard document.node(item).kind == .object, let id = document.member("ParameterID", of: item),
        document.node(id).kind == .string
      else { return }
      let name = document.string(id)
      entry.paths[name] = "\(pointer)/\(k)/ParameterValue"
      if let value = document.member("ParameterValue", of: item), document.node(value).kind == .number {
        entry.numbers[name] = document.node(value).number
      }
    }
  }

  private static func points(_ document: JSONDocument, _ array: Int, pointer: String) -> [Point] {
    var points: [Point] = []
    document.forEachElement(of: array) { k, item in
      var point = Point(time: nil, value: nil, timePath: "\(pointer)/\(k)/Time", valuePath: "\(pointer)/\(k)/ParameterValue")
      if document.node(item).kind == .object {
        if let t = document.member("Time", of: item), document.node(t).kind == .number { point.time = document.node(t).number }
        if let v = document.member("ParameterValue", of: item), document.node(v).kind == .number {
          point.value = document.node(v).number
        }
      }
      points.append(point)
    }
    return points
  }
}
