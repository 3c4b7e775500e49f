extension PatternDecoder {
  static let eventKeys = [
    "Time", "EventType", "EventDuration", "EventParameters", "EventWaveformPath",
    "EventWaveformUseVolumeEnvelope", "EventWaveformLoopEnabled",
  ]
  static let eventTypes = NameTable<EventType>()
  static let eventParameterIDs = NameTable<EventParameterID>()
  static let parameterKeys = ["ParameterID", "ParameterValue"]

  /// Where an event writes each key it knows: the index of the value, nil when it is absent.
  private struct EventMembers {
    var time: Int?
    var otherTime: Int?
    var type: Int?
    var duration: Int?
    var parameters: Int?
    var waveformPath: Int?
    var usesEnvelope: Int?
    var loops: Int?
  }

  /// Decodes the `Event` of entry `entry`, one key at a time, and appends it to ``events`` when
  /// nothing in it makes it unplayable.
  ///
  /// The keys are read in this order: Time, EventType, EventDuration, EventParameters,
  /// EventWaveformPath, then the two waveform switches; findings at the same offset (those at
  /// the event itself, for missing keys) come in that order.
  mutating func decodeEvent(_ index: Int, entry: Int) {
    let node = document.node(index)
    guard node.kind == .object else {
      typeMismatch(index, key: "Event", expected: "an object", pointer: JSONPointer.entry(entry, "Event"))
      return
    }
    let members = eventMembers(of: index, entry: entry)
    let time = eventTime(members, in: index, entry: entry)
    let type = eventType(members.type, in: index, entry: entry)
    let duration = eventDuration(members.duration, type: type, in: index, entry: entry)
    let parameters = eventParameters(members.parameters, type: type, entry: entry)
    if type == .audioContinuous, duration == 0, let parameters, parameters.sustained {
      audioContinuousDurationMissing(members.duration, in: index, entry: entry)
      return
    }
    let waveform = eventWaveformPath(members.waveformPath, type: type, in: index, entry: entry)
    let usesEnvelope = waveformSwitch(
      members.usesEnvelope, key: "EventWaveformUseVolumeEnvelope", type: type, entry: entry)
    let loops = waveformSwitch(members.loops, key: "EventWaveformLoopEnabled", type: type, entry: entry)
    guard let time, let type, let duration, let parameters, waveform.usable, let usesEnvelope, let loops
    else { return }
    let entryRef = SourceRef(offset: Int(node.offset), entry: entry)
    func ref(_ value: Int?) -> SourceRef {
      value.map { SourceRef(offset: Int(document.node($0).offset), entry: entry) } ?? entryRef
    }
    let source = EventSource(
      entry: entryRef, duration: ref(members.duration), waveformPath: ref(members.waveformPath))
    events.append(
      Event(
        time: time, type: type, duration: duration, parameters: parameters, waveformPath: waveform.path,
        waveformUsesVolumeEnvelope: usesEnvelope, waveformLoops: loops, source: source))
  }

  /// Finds the keys of the event at `index`, reporting `key-unknown` for any other.
  private mutating func eventMembers(of index: Int, entry: Int) -> EventMembers {
    var members = EventMembers()
    document.forEachMember(of: index) { key, value in
      if document.stringEquals(key, "Time") {
        members.time = value
      } else if document.stringEquals(key, "EventTime") {
        members.otherTime = value
      } else if document.stringEquals(key, "EventType") {
        members.type = value
      } else if document.stringEquals(key, "EventDuration") {
        members.duration = value
      } else if document.stringEquals(key, "EventParameters") {
        members.parameters = value
      } else if document.stringEquals(key, "EventWaveformPath") {
        members.waveformPath = value
      } else if document.stringEquals(key, "EventWaveformUseVolumeEnvelope") {
        members.usesEnvelope = value
      } else if document.stringEquals(key, "EventWaveformLoopEnabled") {
        members.loops = value
      } else {
        unknownKey(key, among: PatternDecoder.eventKeys, in: index, pointer: JSONPointer.entry(entry, "Event"))
      }
    }
    return members
  }

  /// `Time` (or `EventTime`): nil when it is missing, not a number or negative.
  private mutating func eventTime(_ members: EventMembers, in index: Int, entry: Int) -> Double? {
    func base() -> String { JSONPointer.entry(entry, "Event") }
    let (spelled, key) = spelledTime(
      members.time, other: members.otherTime, otherKey: "EventTime", what: "event", base: base())
    return time(spelled, in: index, what: "event", key: key, base: base())
  }

  /// `EventType`: nil when it is missing, not a string or not a type iOS knows.
  private mutating func eventType(_ value: Int?, in index: Int, entry: Int) -> EventType? {
    func pointer() -> String { JSONPointer.entry(entry, "Event", "EventType") }
    guard let value else {
      missingKey("EventType", in: index, what: "event", pointer: JSONPointer.entry(entry, "Event"))
      return nil
    }
    guard document.node(value).kind == .string else {
      typeMismatch(value, key: "EventType", expected: "a string", pointer: pointer())
      return nil
    }
    if let known = PatternDecoder.eventTypes.lookup(document, value) { return known }
    let name = document.string(value)
    let spellings = PatternDecoder.eventTypes.spellings
    findings.add(
      .eventTypeUnknown,
      "unknown EventType \"\(Format.excerpt(name))\"" + Suggestion.hint(for: name, among: spellings)
        + (Suggestion.closest(to: name, among: spellings) == nil
          ? " (HapticTransient, HapticContinuous, AudioCustom, AudioContinuous)" : ""),
      at: Int(document.node(value).offset), pointer: pointer())
    return nil
  }

  /// `EventDuration`: 0 when absent from an event that needs none; nil when it is not a number,
  /// negative, or missing or 0 on a HapticContinuous event. An AudioContinuous event's missing or
  /// 0 duration is 0 here: it is refused only when it is sustained
  /// (``audioContinuousDurationMissing(_:in:entry:)``).
  private mutating func eventDuration(_ value: Int?, type: EventType?, in index: Int, entry: Int) -> Double? {
    func pointer() -> String { JSONPointer.entry(entry, "Event", "EventDuration") }
    let continuous = type == .hapticContinuous
    guard let value else {
      guard let type, continuous else { return 0 }
      findings.add(
        .durationMissing,
        "this \(type.rawValue) event has no EventDuration; continuous events need a positive duration",
        at: Int(document.node(index).offset), pointer: JSONPointer.entry(entry, "Event"))
      return nil
    }
    guard let duration = number(value, key: "EventDuration", pointer: pointer()) else { return nil }
    if duration < 0 {
      // iOS 26.1 loader (reverse-engineered): a negative duration throws (-4823), on any type.
      findings.add(
        .durationNegative,
        "EventDuration \(Format.number(duration)) is negative, and iOS refuses the pattern (error -4823)",
        at: Int(document.node(value).offset), pointer: pointer())
      return nil
    }
    if let type, continuous, duration == 0 {
      findings.add(
        .durationMissing, "EventDuration is 0; a \(type.rawValue) event needs a positive duration",
        at: Int(document.node(value).offset), pointer: pointer())
      return nil
    }
    return duration
  }

  /// `EventParameters` over the type's defaults: nil when an error makes the event unplayable.
  private mutating func eventParameters(_ value: Int?, type: EventType?, entry: Int) -> EventParameters? {
    var parameters = type.map { EventParameters(defaultsFor: $0) } ?? EventParameters()
    if let value, !decodeEventParameters(value, type: type, into: &parameters, entry: entry) { return nil }
    return parameters
  }

  /// An AudioContinuous event with no (or a 0) duration and `Sustained` not 0: iOS refuses it
  /// (-4823, iOS 26.1 loader, reverse-engineered); with `Sustained` 0 it is an attack-decay
  /// sound that needs no duration.
  private mutating func audioContinuousDurationMissing(_ value: Int?, in index: Int, entry: Int) {
    findings.add(
      .durationMissing,
      "this AudioContinuous event has \(value == nil ? "no EventDuration" : "an EventDuration of 0") and is sustained (Sustained is not 0); iOS refuses it (error -4823): give it a positive duration, or set Sustained to 0 for an attack-decay sound",
      at: Int(document.node(value ?? index).offset),
      pointer: JSONPointer.entry(entry, "Event") + (value == nil ? "" : "/EventDuration"))
  }

  /// `EventWaveformPath`: `usable` is false when it is null, not a string, or missing on an
  /// AudioCustom event.
  private mutating func eventWaveformPath(_ value: Int?, type: EventType?, in index: Int, entry: Int) -> (
    path: String?, usable: Bool
  ) {
    func pointer() -> String { JSONPointer.entry(entry, "Event", "EventWaveformPath") }
    guard let value else {
      guard type == .audioCustom else { return (nil, true) }
      findings.add(
        .waveformMissing, "this AudioCustom event has no EventWaveformPath naming the sound to play",
        at: Int(document.node(index).offset), pointer: JSONPointer.entry(entry, "Event"))
      return (nil, false)
    }
    switch document.node(value).kind {
    case .null:
      // iOS 26.1 loader (reverse-engineered): a null is a value, handed to
      // `NSURL fileURLWithPath:` as a path by the resource scan, and the load fails.
      findings.add(
        .waveformPathNull,
        "EventWaveformPath is null, which iOS's loader takes as a path (its resource scan hands it to NSURL fileURLWithPath:), so the load fails; leave the key out",
        at: Int(document.node(value).offset), pointer: pointer())
      return (nil, false)
    case .string:
      if let type, type != .audioCustom {
        findings.add(
          .parameterNotApplicable,
          "EventWaveformPath only applies to AudioCustom events; this \(type.rawValue) event ignores it",
          at: Int(document.node(value).offset), pointer: pointer())
      }
      let path = document.string(value)
      if let nul = path.unicodeScalars.firstIndex(of: "\0") {
        let position = path.unicodeScalars.distance(from: path.unicodeScalars.startIndex, to: nul) + 1
        findings.add(
          .waveformPathNUL,
          "EventWaveformPath holds a NUL character (its character \(position)), which no file name can hold: the system would read the path only up to it",
          at: Int(document.node(value).offset), pointer: pointer())
        return (nil, false)
      }
      return (path, true)
    default:
      typeMismatch(value, key: "EventWaveformPath", expected: "a string", pointer: pointer())
      return (nil, false)
    }
  }

  /// `EventWaveformUseVolumeEnvelope` or `EventWaveformLoopEnabled`: when absent or null (iOS's
  /// loader ignores a null switch, as if the key were absent) its default, true for the volume
  /// envelope of an AudioCustom event (`CHHapticAudioResourceKeyUseVolumeEnvelope`: "The default
  /// value is true"), else false; nil when it is not a boolean.
  private mutating func waveformSwitch(_ value: Int?, key: String, type: EventType?, entry: Int) -> Bool? {
    func pointer() -> String { JSONPointer.entry(entry, "Event") + "/" + key }
    let absent = type == .audioCustom && key == "EventWaveformUseVolumeEnvelope"
    guard let value else { return absent }
    if document.node(value).kind == .null {
      ignoredNull(value, key: key, pointer: pointer())
      return absent
    }
    let on = boolean(value, key: key, pointer: pointer())
    if let type, type != .audioCustom {
      findings.add(
        .parameterNotApplicable, "\(key) only applies to AudioCustom events; this \(type.rawValue) event ignores it",
        at: Int(document.node(value).offset), pointer: pointer())
    }
    return on
  }

  /// Decodes `EventParameters`; returns false when an error makes the event unplayable.
  private mutating func decodeEventParameters(
    _ index: Int, type: EventType?, into parameters: inout EventParameters, entry: Int
  ) -> Bool {
    guard document.node(index).kind == .array else {
      typeMismatch(
        index, key: "EventParameters", expected: "an array",
        pointer: JSONPointer.entry(entry, "Event", "EventParameters"))
      return false
    }
    var ok = true
    // Which IDs were given already, one bit per ID (no allocation per event).
    var seen: UInt32 = 0
    document.forEachElement(of: index) { position, element in
      if !decodeEventParameter(
        element, position: position, type: type, seen: &seen, into: &parameters, entry: entry)
      {
        ok = false
      }
    }
    return ok
  }

  /// Decodes the event parameter at `position` of `EventParameters` into `parameters`; returns
  /// false when an error makes the event unplayable. `seen` has a bit for each ID given before.
  private mutating func decodeEventParameter(
    _ element: Int, position: Int, type: EventType?, seen: inout UInt32, into parameters: inout EventParameters,
    entry: Int
  ) -> Bool {
    func pointer() -> String { JSONPointer.entry(entry, "Event", "EventParameters") + "/\(position)" }
    guard
      let (idIndex, valueIndex) = pairMembers(
        of: element, "ParameterID", "ParameterValue", what: "an event parameter",
        known: PatternDecoder.parameterKeys, pointer: pointer()),
      let (id, idIndex) = eventParameterID(idIndex, in: element, pointer: pointer()),
      let (value, valueIndex) = parameterValue(
        valueIndex, in: element, what: "event parameter", key: id.rawValue, base: pointer())
    else { return false }
    let accepted = checkEventParameterType(id, at: idIndex, type: type, pointer: pointer())
    let bit: UInt32 = 1 << UInt32(id.ordinal)
    if seen & bit != 0 {
      findings.add(
        .parameterDuplicate,
        "\(id.rawValue) is given more than once in this event; this later value wins",
        at: Int(document.node(idIndex).offset), pointer: pointer() + "/ParameterID")
    }
    seen |= bit
    var switched = value
    if id == .sustained && value != 0 && value != 1 {
      let on = value > 0
      findings.add(
        .valueOutOfRange,
        "Sustained is \(Format.number(value)); it is a switch, 0 or 1, and this reads as \(on ? 1 : 0)",
        at: Int(document.node(valueIndex).offset), pointer: pointer() + "/ParameterValue")
      switched = on ? 1 : 0
      offerValue(switched, at: valueIndex, rule: .valueOutOfRange)
    }
    parameters[id] = clamp(
      switched, to: id.range, name: id.rawValue, at: valueIndex, pointer: pointer() + "/ParameterValue")
    return accepted
  }

  /// The `ParameterID` of an event parameter and the index of its value: nil when it is
  /// missing, not a string or unknown.
  private mutating func eventParameterID(_ index: Int?, in element: Int, pointer: @autoclosure () -> String)
    -> (id: EventParameterID, index: Int)?
  {
    guard let index else {
      missingKey("ParameterID", in: element, what: "event parameter", pointer: pointer())
      return nil
    }
    guard document.node(index).kind == .string else {
      typeMismatch(index, key: "ParameterID", expected: "a string", pointer: pointer() + "/ParameterID")
      return nil
    }
    if let id = PatternDecoder.eventParameterIDs.lookup(document, index) { return (id, index) }
    let name = document.string(index)
    var message = "unknown event parameter \"\(Format.excerpt(name))\""
    if let dynamic = DynamicParameterID(rawValue: name) {
      message +=
        "; \(dynamic.rawValue) is a dynamic parameter (for Parameter and ParameterCurve entries), the event parameter is \"\(dynamic.target.rawValue)\""
    } else {
      message += Suggestion.hint(for: name, among: PatternDecoder.eventParameterIDs.spellings)
      offerParameterID(index, among: EventParameterID.allCases.map(\.rawValue))
    }
    findings.add(
      .parameterIDUnknown, message, at: Int(document.node(index).offset), pointer: pointer() + "/ParameterID")
    return nil
  }

  /// Checks that `id` suits the event's type: returns false when iOS refuses it there
  /// (`parameter-wrong-event-type`); warns `parameter-not-applicable` when it has no effect.
  private mutating func checkEventParameterType(
    _ id: EventParameterID, at index: Int, type: EventType?, pointer: @autoclosure () -> String
  ) -> Bool {
    guard let type else { return true }
    if !id.isAccepted(on: type) {
      findings.add(
        .parameterWrongEventType,
        "\(id.rawValue) is \(type.isHaptic ? "an audio" : "a haptic") parameter; iOS refuses it on a \(type.rawValue) event (error -4820)",
        at: Int(document.node(index).offset), pointer: pointer() + "/ParameterID")
      return false
    }
    if !id.applies(to: type) {
      findings.add(
        .parameterNotApplicable,
        "\(id.rawValue) has no effect on a \(type.rawValue) event",
        at: Int(document.node(index).offset), pointer: pointer() + "/ParameterID")
    }
    return true
  }
}
