extension PatternDecoder {
  static let eventKeys = [
    "Time", "EventType", "EventDuration", "EventParameters", "EventWaveformPath",
    "EventWaveformUseVolumeEnvelope", "EventWaveformLoopEnabled",
  ]
  static let eventTypes = NameTable<EventType>()
  static let eventParameterIDs = NameTable<EventParameterID>()
  static let parameterKeys = ["ParameterID", "ParameterValue"]

  mutating func decodeEvent(_ index: Int, entry: Int) {
    func base() -> String { JSONPointer.entry(entry, "Event") }
    let node = document.node(index)
    guard node.kind == .object else {
      typeMismatch(index, key: "Event", expected: "an object", pointer: base())
      return
    }
    var timeIndex: Int?
    var otherTimeIndex: Int?
    var typeIndex: Int?
    var durationIndex: Int?
    var parametersIndex: Int?
    var waveformIndex: Int?
    var envelopeIndex: Int?
    var loopIndex: Int?
    document.forEachMember(of: index) { key, value in
      if document.stringEquals(key, "Time") {
        timeIndex = value
      } else if document.stringEquals(key, "EventTime") {
        otherTimeIndex = value
      } else if document.stringEquals(key, "EventType") {
        typeIndex = value
      } else if document.stringEquals(key, "EventDuration") {
        durationIndex = value
      } else if document.stringEquals(key, "EventParameters") {
        parametersIndex = value
      } else if document.stringEquals(key, "EventWaveformPath") {
        waveformIndex = value
      } else if document.stringEquals(key, "EventWaveformUseVolumeEnvelope") {
        envelopeIndex = value
      } else if document.stringEquals(key, "EventWaveformLoopEnabled") {
        loopIndex = value
      } else {
        unknownKey(key, among: PatternDecoder.eventKeys, pointer: base())
      }
    }
    var ok = true

    // Time
    var time = 0.0
    let (spelledIndex, timeKey) = spelledTime(
      timeIndex, other: otherTimeIndex, otherKey: "EventTime", what: "event", base: base())
    if let timeIndex = spelledIndex {
      if let value = number(timeIndex, key: timeKey, pointer: base() + "/" + timeKey) {
        if value < 0 {
          findings.add(
            .timeNegative, "event \(timeKey) \(Format.number(value)) is before the start of the pattern",
            at: Int(document.node(timeIndex).offset), pointer: base() + "/" + timeKey)
          ok = false
        }
        time = value
      } else {
        ok = false
      }
    } else {
      missingKey("Time", in: index, what: "event", pointer: base())
      ok = false
    }

    // EventType
    var type: EventType?
    if let typeIndex {
      if document.node(typeIndex).kind != .string {
        typeMismatch(typeIndex, key: "EventType", expected: "a string", pointer: base() + "/EventType")
      } else if let known = PatternDecoder.eventTypes.lookup(document, typeIndex) {
        type = known
      } else {
        let name = document.string(typeIndex)
        findings.add(
          .eventTypeUnknown,
          "unknown EventType \"\(Format.excerpt(name))\""
            + Suggestion.hint(for: name, among: PatternDecoder.eventTypes.spellings)
            + (Suggestion.closest(to: name, among: PatternDecoder.eventTypes.spellings) == nil
              ? " (HapticTransient, HapticContinuous, AudioCustom, AudioContinuous)" : ""),
          at: Int(document.node(typeIndex).offset), pointer: base() + "/EventType")
      }
    } else {
      missingKey("EventType", in: index, what: "event", pointer: base())
    }
    if type == nil { ok = false }

    // EventDuration
    var duration = 0.0
    var durationWritten = false
    if let durationIndex {
      if let value = number(durationIndex, key: "EventDuration", pointer: base() + "/EventDuration") {
        duration = value
        durationWritten = true
        if value < 0 {
          // iOS 26.1 loader (reverse-engineered): a negative duration throws (-4823), on any type.
          findings.add(
            .durationNegative,
            "EventDuration \(Format.number(value)) is negative, and iOS refuses the pattern (error -4823)",
            at: Int(document.node(durationIndex).offset), pointer: base() + "/EventDuration")
          ok = false
        }
      } else {
        ok = false
      }
    }
    if let type, type.isContinuous {
      if durationIndex == nil {
        findings.add(
          .durationMissing,
          "this \(type.rawValue) event has no EventDuration; continuous events need a positive duration",
          at: Int(node.offset), pointer: base())
        ok = false
      } else if durationWritten && duration == 0 {
        findings.add(
          .durationMissing,
          "EventDuration is 0; a \(type.rawValue) event needs a positive duration",
          at: Int(document.node(durationIndex!).offset), pointer: base() + "/EventDuration")
        ok = false
      }
    }

    // EventParameters
    var parameters = type.map { EventParameters(defaultsFor: $0) } ?? EventParameters()
    if let parametersIndex {
      if !decodeEventParameters(parametersIndex, type: type, into: &parameters, entry: entry) { ok = false }
    }

    // Waveform
    var waveformPath: String?
    if let waveformIndex {
      if document.node(waveformIndex).kind == .null {
        // iOS 26.1 loader (reverse-engineered): a null is a value, handed to
        // `NSURL fileURLWithPath:` as a path by the resource scan, and the load fails.
        findings.add(
          .waveformPathNull,
          "EventWaveformPath is null, which iOS's loader takes as a path (its resource scan hands it to NSURL fileURLWithPath:), so the load fails; leave the key out",
          at: Int(document.node(waveformIndex).offset), pointer: base() + "/EventWaveformPath")
        ok = false
      } else if document.node(waveformIndex).kind == .string {
        waveformPath = document.string(waveformIndex)
        if let type, type != .audioCustom {
          findings.add(
            .parameterNotApplicable,
            "EventWaveformPath only applies to AudioCustom events; this \(type.rawValue) event ignores it",
            at: Int(document.node(waveformIndex).offset), pointer: base() + "/EventWaveformPath")
        }
      } else {
        typeMismatch(
          waveformIndex, key: "EventWaveformPath", expected: "a string", pointer: base() + "/EventWaveformPath")
        ok = false
      }
    }
    if type == .audioCustom && waveformIndex == nil {
      findings.add(
        .waveformMissing, "this AudioCustom event has no EventWaveformPath naming the sound to play",
        at: Int(node.offset), pointer: base())
      ok = false
    }
    // A null waveform switch is ignored by iOS's loader: as if the key were absent.
    if let index = envelopeIndex, document.node(index).kind == .null {
      ignoredNull(index, key: "EventWaveformUseVolumeEnvelope", pointer: base() + "/EventWaveformUseVolumeEnvelope")
      envelopeIndex = nil
    }
    if let index = loopIndex, document.node(index).kind == .null {
      ignoredNull(index, key: "EventWaveformLoopEnabled", pointer: base() + "/EventWaveformLoopEnabled")
      loopIndex = nil
    }
    var usesEnvelope = false
    if let envelopeIndex {
      if let value = boolean(
        envelopeIndex, key: "EventWaveformUseVolumeEnvelope", pointer: base() + "/EventWaveformUseVolumeEnvelope")
      {
        usesEnvelope = value
      } else {
        ok = false
      }
    }
    var loops = false
    if let loopIndex {
      if let value = boolean(loopIndex, key: "EventWaveformLoopEnabled", pointer: base() + "/EventWaveformLoopEnabled")
      {
        loops = value
      } else {
        ok = false
      }
    }

    if let type, type != .audioCustom {
      for (index, key) in [(envelopeIndex, "EventWaveformUseVolumeEnvelope"), (loopIndex, "EventWaveformLoopEnabled")] {
        guard let index else { continue }
        findings.add(
          .parameterNotApplicable, "\(key) only applies to AudioCustom events; this \(type.rawValue) event ignores it",
          at: Int(document.node(index).offset), pointer: base() + "/" + key)
      }
    }

    guard ok, let type else { return }
    let entryRef = SourceRef(offset: Int(node.offset), entry: entry)
    let source = EventSource(
      entry: entryRef,
      duration: durationIndex.map { SourceRef(offset: Int(document.node($0).offset), entry: entry) } ?? entryRef,
      waveformPath: waveformIndex.map { SourceRef(offset: Int(document.node($0).offset), entry: entry) } ?? entryRef)
    events.append(
      Event(
        time: time, type: type, duration: duration, parameters: parameters, waveformPath: waveformPath,
        waveformUsesVolumeEnvelope: usesEnvelope, waveformLoops: loops, source: source))
  }

  /// Decodes `EventParameters`; returns false when an error makes the event unplayable.
  private mutating func decodeEventParameters(
    _ index: Int, type: EventType?, into parameters: inout EventParameters, entry: Int
  ) -> Bool {
    func listPointer() -> String { JSONPointer.entry(entry, "Event", "EventParameters") }
    guard document.node(index).kind == .array else {
      typeMismatch(index, key: "EventParameters", expected: "an array", pointer: listPointer())
      return false
    }
    var ok = true
    // Which IDs were given already, one bit per ID (no allocation per event).
    var seen: UInt32 = 0
    document.forEachElement(of: index) { position, element in
      func pointer() -> String { listPointer() + "/\(position)" }
      let node = document.node(element)
      guard node.kind == .object else {
        findings.add(
          .typeMismatch,
          "an event parameter must be an object with ParameterID and ParameterValue, not \(node.kind.described)",
          at: Int(node.offset), pointer: pointer())
        ok = false
        return
      }
      var idIndex: Int?
      var valueIndex: Int?
      document.forEachMember(of: element) { key, value in
        if document.stringEquals(key, "ParameterID") {
          idIndex = value
        } else if document.stringEquals(key, "ParameterValue") {
          valueIndex = value
        } else {
          unknownKey(key, among: PatternDecoder.parameterKeys, pointer: pointer())
        }
      }
      guard let idIndex else {
        missingKey("ParameterID", in: element, what: "event parameter", pointer: pointer())
        ok = false
        return
      }
      guard document.node(idIndex).kind == .string else {
        typeMismatch(idIndex, key: "ParameterID", expected: "a string", pointer: pointer() + "/ParameterID")
        ok = false
        return
      }
      guard let id = PatternDecoder.eventParameterIDs.lookup(document, idIndex) else {
        let name = document.string(idIndex)
        var message = "unknown event parameter \"\(Format.excerpt(name))\""
        if let dynamic = DynamicParameterID(rawValue: name) {
          message +=
            "; \(dynamic.rawValue) is a dynamic parameter (for Parameter and ParameterCurve entries), the event parameter is \"\(dynamic.target.rawValue)\""
        } else {
          message += Suggestion.hint(for: name, among: PatternDecoder.eventParameterIDs.spellings)
        }
        findings.add(
          .parameterIDUnknown, message, at: Int(document.node(idIndex).offset), pointer: pointer() + "/ParameterID")
        ok = false
        return
      }
      guard let valueIndex else {
        missingKey("ParameterValue", in: element, what: "event parameter", pointer: pointer())
        ok = false
        return
      }
      guard var value = number(valueIndex, key: id.rawValue, pointer: pointer() + "/ParameterValue") else {
        ok = false
        return
      }
      if let type, !id.isAccepted(on: type) {
        findings.add(
          .parameterWrongEventType,
          "\(id.rawValue) is \(type.isHaptic ? "an audio" : "a haptic") parameter; iOS refuses it on a \(type.rawValue) event (error -4820)",
          at: Int(document.node(idIndex).offset), pointer: pointer() + "/ParameterID")
        ok = false
      } else if let type, !id.applies(to: type) {
        findings.add(
          .parameterNotApplicable,
          "\(id.rawValue) has no effect on a \(type.rawValue) event",
          at: Int(document.node(idIndex).offset), pointer: pointer() + "/ParameterID")
      }
      let bit: UInt32 = 1 << UInt32(id.ordinal)
      if seen & bit != 0 {
        findings.add(
          .parameterDuplicate,
          "\(id.rawValue) is given more than once in this event; this later value wins",
          at: Int(document.node(idIndex).offset), pointer: pointer() + "/ParameterID")
      }
      seen |= bit
      if id == .sustained && value != 0 && value != 1 {
        let on = value > 0
        findings.add(
          .valueOutOfRange,
          "Sustained is \(Format.number(value)); it is a switch, 0 or 1, and this reads as \(on ? 1 : 0)",
          at: Int(document.node(valueIndex).offset), pointer: pointer() + "/ParameterValue")
        value = on ? 1 : 0
      }
      parameters[id] = clamp(
        value, to: id.range, name: id.rawValue, at: valueIndex, pointer: pointer() + "/ParameterValue")
    }
    return ok
  }
}
