extension PatternDecoder {
  static let dynamicParameterIDs = NameTable<DynamicParameterID>()
  static let parameterEntryKeys = ["ParameterID", "Time", "ParameterValue"]
  static let curveKeys = ["ParameterID", "Time", "ParameterCurveControlPoints"]
  static let pointKeys = ["Time", "ParameterValue"]

  /// Reads the `ParameterID` of a `Parameter` or `ParameterCurve`.
  private mutating func dynamicID(_ index: Int?, in object: Int, what: String, base: @autoclosure () -> String)
    -> DynamicParameterID?
  {
    guard let index else {
      missingKey("ParameterID", in: object, what: what, pointer: base())
      return nil
    }
    guard document.node(index).kind == .string else {
      typeMismatch(index, key: "ParameterID", expected: "a string", pointer: base() + "/ParameterID")
      return nil
    }
    if let id = PatternDecoder.dynamicParameterIDs.lookup(document, index) { return id }
    let name = document.string(index)
    var message = "unknown dynamic parameter \"\(Format.excerpt(name))\""
    if let eventID = EventParameterID(rawValue: name),
      let control = DynamicParameterID.allCases.first(where: {
        $0.target == eventID && $0.isHaptic == eventID.applies(to: .hapticContinuous)
      })
    {
      message +=
        "; \(name) is an event parameter (for EventParameters), a \(what) takes \"\(control.rawValue)\""
    } else {
      message += Suggestion.hint(for: name, among: PatternDecoder.dynamicParameterIDs.spellings)
      offerParameterID(index, among: DynamicParameterID.allCases.map(\.rawValue))
    }
    findings.add(.parameterIDUnknown, message, at: Int(document.node(index).offset), pointer: base() + "/ParameterID")
    return nil
  }

  /// Reads a time that must be finite and not negative (`time-negative`), of an event,
  /// `Parameter`, `ParameterCurve` or control point (`what`).
  mutating func time(
    _ index: Int?, in object: Int, what: String, key: String = "Time", base: @autoclosure () -> String
  ) -> Double? {
    guard let index else {
      missingKey("Time", in: object, what: what, pointer: base())
      return nil
    }
    guard let value = number(index, key: key, pointer: base() + "/" + key) else { return nil }
    if value < 0 {
      findings.add(
        .timeNegative, "\(what) \(key) \(Format.number(value)) is before the start of the pattern",
        at: Int(document.node(index).offset), pointer: base() + "/" + key)
      return nil
    }
    return value
  }

  /// Reads the `ParameterValue` of an event parameter, `Parameter` or control point (`what`),
  /// reported as `key`: the value and the index of its node, or nil when it is missing or not a
  /// finite number.
  mutating func parameterValue(
    _ index: Int?, in object: Int, what: String, key: String = "ParameterValue", base: @autoclosure () -> String
  ) -> (value: Double, index: Int)? {
    guard let index else {
      missingKey("ParameterValue", in: object, what: what, pointer: base())
      return nil
    }
    return number(index, key: key, pointer: base() + "/ParameterValue").map { ($0, index) }
  }

  mutating func decodeParameter(_ index: Int, entry: Int) {
    func base() -> String { JSONPointer.entry(entry, "Parameter") }
    guard document.node(index).kind == .object else {
      typeMismatch(index, key: "Parameter", expected: "an object", pointer: base())
      return
    }
    var idIndex: Int?
    var timeIndex: Int?
    var otherTimeIndex: Int?
    var valueIndex: Int?
    document.forEachMember(of: index) { key, value in
      if document.stringEquals(key, "ParameterID") {
        idIndex = value
      } else if document.stringEquals(key, "Time") {
        timeIndex = value
      } else if document.stringEquals(key, "ParameterTime") {
        otherTimeIndex = value
      } else if document.stringEquals(key, "ParameterValue") {
        valueIndex = value
      } else {
        unknownKey(key, among: PatternDecoder.parameterEntryKeys, in: index, pointer: base())
      }
    }
    let id = dynamicID(idIndex, in: index, what: "Parameter", base: base())
    let (spelledIndex, timeKey) = spelledTime(
      timeIndex, other: otherTimeIndex, otherKey: "ParameterTime", what: "Parameter", base: base())
    let time = time(spelledIndex, in: index, what: "Parameter", key: timeKey, base: base())
    let value = parameterValue(valueIndex, in: index, what: "Parameter", base: base())
    guard let id, let time, let (raw, valueIndex) = value else { return }
    let clamped = clamp(raw, to: id.range, name: id.rawValue, at: valueIndex, pointer: base() + "/ParameterValue")
    parameters.append(
      DynamicParameter(
        id: id, time: time, value: clamped, source: SourceRef(offset: Int(document.node(index).offset), entry: entry)))
  }

  mutating func decodeCurve(_ index: Int, entry: Int) {
    func base() -> String { JSONPointer.entry(entry, "ParameterCurve") }
    let node = document.node(index)
    guard node.kind == .object else {
      typeMismatch(index, key: "ParameterCurve", expected: "an object", pointer: base())
      return
    }
    var idIndex: Int?
    var timeIndex: Int?
    var pointsIndex: Int?
    document.forEachMember(of: index) { key, value in
      if document.stringEquals(key, "ParameterID") {
        idIndex = value
      } else if document.stringEquals(key, "Time") {
        timeIndex = value
      } else if document.stringEquals(key, "ParameterCurveControlPoints") {
        pointsIndex = value
      } else {
        unknownKey(key, among: PatternDecoder.curveKeys, in: index, pointer: base())
      }
    }
    let parameter = curveID(idIndex, in: index, entry: entry)
    let start = time(timeIndex, in: index, what: "ParameterCurve", base: base())
    guard let pointsIndex = curvePointsList(pointsIndex, in: index, entry: entry),
      var points = controlPoints(pointsIndex, id: parameter.id, entry: entry),
      let id = parameter.usable, let start
    else { return }
    for k in points.indices { points[k].time += start }
    curves.append(
      ParameterCurve(
        id: id, time: start, points: points, source: SourceRef(offset: Int(node.offset), entry: entry),
        pointsSource: SourceRef(offset: Int(document.node(pointsIndex).offset), entry: entry)))
  }

  /// The `ParameterID` of a curve: `id` for clamping its points (nil when it is missing or
  /// unknown), `usable` nil too when iOS refuses a curve of it (`curve-parameter-unsupported`).
  private mutating func curveID(_ index: Int?, in curve: Int, entry: Int) -> (
    id: DynamicParameterID?, usable: DynamicParameterID?
  ) {
    func base() -> String { JSONPointer.entry(entry, "ParameterCurve") }
    guard let id = dynamicID(index, in: curve, what: "ParameterCurve", base: base()) else { return (nil, nil) }
    guard let index, !id.isCurvable else { return (id, id) }
    // iOS 26.1 loader (reverse-engineered): error -4820.
    findings.add(
      .curveParameterUnsupported,
      "iOS refuses a pattern with a ParameterCurve of \(id.rawValue) (error -4820); set it with Parameter entries (steps) instead",
      at: Int(document.node(index).offset), pointer: base() + "/ParameterID")
    return (id, nil)
  }

  /// `ParameterCurveControlPoints`: its index, or nil when it is missing, not an array or empty.
  private mutating func curvePointsList(_ index: Int?, in curve: Int, entry: Int) -> Int? {
    func pointer() -> String { JSONPointer.entry(entry, "ParameterCurve", "ParameterCurveControlPoints") }
    guard let index else {
      findings.add(
        .curvePointsMissing, "this ParameterCurve has no ParameterCurveControlPoints",
        at: Int(document.node(curve).offset), pointer: JSONPointer.entry(entry, "ParameterCurve"))
      return nil
    }
    let node = document.node(index)
    guard node.kind == .array else {
      typeMismatch(index, key: "ParameterCurveControlPoints", expected: "an array", pointer: pointer())
      return nil
    }
    guard node.count > 0 else {
      findings.add(
        .curvePointsMissing, "ParameterCurveControlPoints is empty; a curve needs at least one point",
        at: Int(node.offset), pointer: pointer())
      return nil
    }
    return index
  }

  /// The control points of the list at `index`, in time order (relative to the curve's start),
  /// their values clamped to the range of `id`; nil when one of them is unusable. Reports
  /// `curve-points-unsorted` once, at the first point that goes back in time.
  private mutating func controlPoints(_ index: Int, id: DynamicParameterID?, entry: Int) -> [ControlPoint]? {
    var points: [ControlPoint] = []
    points.reserveCapacity(Int(document.node(index).count))
    var ok = true
    var previousTime = -Double.infinity
    var reportedUnsorted = false
    document.forEachElement(of: index) { position, element in
      guard let point = controlPoint(element, position: position, id: id, entry: entry) else {
        ok = false
        return
      }
      if point.time < previousTime && !reportedUnsorted {
        reportedUnsorted = true
        findings.add(
          .curvePointsUnsorted,
          "this point at \(Format.seconds(point.time)) comes after one at \(Format.seconds(previousTime)); write control points in time order",
          at: point.source.offset,
          pointer: JSONPointer.entry(entry, "ParameterCurve", "ParameterCurveControlPoints") + "/\(position)/Time")
      }
      previousTime = max(previousTime, point.time)
      points.append(point)
    }
    guard ok else { return nil }
    if reportedUnsorted {
      points = points.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
    }
    return points
  }

  /// The control point at `position`, its value clamped to the range of `id`; nil when it is
  /// not an object or its `Time` or `ParameterValue` is unusable.
  private mutating func controlPoint(_ element: Int, position: Int, id: DynamicParameterID?, entry: Int)
    -> ControlPoint?
  {
    func pointer() -> String {
      JSONPointer.entry(entry, "ParameterCurve", "ParameterCurveControlPoints") + "/\(position)"
    }
    guard
      let (timeIndex, valueIndex) = pairMembers(
        of: element, "Time", "ParameterValue", what: "a control point", known: PatternDecoder.pointKeys,
        pointer: pointer())
    else { return nil }
    let time = time(timeIndex, in: element, what: "control point", base: pointer())
    let written = parameterValue(valueIndex, in: element, what: "control point", base: pointer())
    guard let time, let timeIndex, let (raw, valueIndex) = written else { return nil }
    var value = raw
    if let id {
      value = clamp(raw, to: id.range, name: id.rawValue, at: valueIndex, pointer: pointer() + "/ParameterValue")
    }
    return ControlPoint(
      time: time, value: value,
      source: SourceRef(offset: Int(document.node(timeIndex).offset), entry: entry, item: position))
  }
}
