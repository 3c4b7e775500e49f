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
    }
    findings.add(.parameterIDUnknown, message, at: Int(document.node(index).offset), pointer: base() + "/ParameterID")
    return nil
  }

  /// Reads a time that must be finite and not negative.
  private mutating func time(
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
        unknownKey(key, among: PatternDecoder.parameterEntryKeys, pointer: base())
      }
    }
    let id = dynamicID(idIndex, in: index, what: "Parameter", base: base())
    let (spelledIndex, timeKey) = spelledTime(
      timeIndex, other: otherTimeIndex, otherKey: "ParameterTime", what: "Parameter", base: base())
    let time = time(spelledIndex, in: index, what: "Parameter", key: timeKey, base: base())
    var value: Double?
    if let valueIndex {
      value = number(valueIndex, key: "ParameterValue", pointer: base() + "/ParameterValue")
    } else {
      missingKey("ParameterValue", in: index, what: "Parameter", pointer: base())
    }
    guard let id, let time, let raw = value, let valueIndex else { return }
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
        unknownKey(key, among: PatternDecoder.curveKeys, pointer: base())
      }
    }
    let id = dynamicID(idIndex, in: index, what: "ParameterCurve", base: base())
    var refused = false
    if let id, let idIndex, !id.isCurvable {
      // iOS 26.1 loader (reverse-engineered): error -4820.
      findings.add(
        .curveParameterUnsupported,
        "iOS refuses a pattern with a ParameterCurve of \(id.rawValue) (error -4820); set it with Parameter entries (steps) instead",
        at: Int(document.node(idIndex).offset), pointer: base() + "/ParameterID")
      refused = true
    }
    let start = time(timeIndex, in: index, what: "ParameterCurve", base: base())
    func pointsPointer() -> String { base() + "/ParameterCurveControlPoints" }
    guard let pointsIndex else {
      findings.add(
        .curvePointsMissing, "this ParameterCurve has no ParameterCurveControlPoints", at: Int(node.offset),
        pointer: base())
      return
    }
    let pointsNode = document.node(pointsIndex)
    guard pointsNode.kind == .array else {
      typeMismatch(pointsIndex, key: "ParameterCurveControlPoints", expected: "an array", pointer: pointsPointer())
      return
    }
    guard pointsNode.count > 0 else {
      findings.add(
        .curvePointsMissing, "ParameterCurveControlPoints is empty; a curve needs at least one point",
        at: Int(pointsNode.offset), pointer: pointsPointer())
      return
    }
    var points: [ControlPoint] = []
    points.reserveCapacity(Int(pointsNode.count))
    var ok = true
    var previousTime = -Double.infinity
    var reportedUnsorted = false
    document.forEachElement(of: pointsIndex) { position, element in
      func pointer() -> String { pointsPointer() + "/\(position)" }
      guard document.node(element).kind == .object else {
        findings.add(
          .typeMismatch,
          "a control point must be an object with Time and ParameterValue, not \(document.node(element).kind.described)",
          at: Int(document.node(element).offset), pointer: pointer())
        ok = false
        return
      }
      var pointTimeIndex: Int?
      var valueIndex: Int?
      document.forEachMember(of: element) { key, value in
        if document.stringEquals(key, "Time") {
          pointTimeIndex = value
        } else if document.stringEquals(key, "ParameterValue") {
          valueIndex = value
        } else {
          unknownKey(key, among: PatternDecoder.pointKeys, pointer: pointer())
        }
      }
      let pointTime = time(pointTimeIndex, in: element, what: "control point", base: pointer())
      var value: Double?
      if let valueIndex {
        value = number(valueIndex, key: "ParameterValue", pointer: pointer() + "/ParameterValue")
      } else {
        missingKey("ParameterValue", in: element, what: "control point", pointer: pointer())
      }
      guard let pointTime, var value, let valueIndex else {
        ok = false
        return
      }
      if pointTime < previousTime && !reportedUnsorted {
        reportedUnsorted = true
        findings.add(
          .curvePointsUnsorted,
          "this point at \(Format.seconds(pointTime)) comes after one at \(Format.seconds(previousTime)); write control points in time order",
          at: Int(document.node(pointTimeIndex!).offset), pointer: pointer() + "/Time")
      }
      previousTime = max(previousTime, pointTime)
      if let id {
        value = clamp(value, to: id.range, name: id.rawValue, at: valueIndex, pointer: pointer() + "/ParameterValue")
      }
      points.append(
        ControlPoint(
          time: pointTime, value: value,
          source: SourceRef(offset: Int(document.node(pointTimeIndex!).offset), entry: entry, item: position)))
    }
    guard ok, !refused, let id, let start else { return }
    if reportedUnsorted {
      points = points.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
    }
    for k in points.indices { points[k].time += start }
    curves.append(
      ParameterCurve(
        id: id, time: start, points: points, source: SourceRef(offset: Int(node.offset), entry: entry),
        pointsSource: SourceRef(offset: Int(pointsNode.offset), entry: entry)))
  }
}
