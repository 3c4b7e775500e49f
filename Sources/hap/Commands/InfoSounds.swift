import HapCore
import HapRuntime

/// `hap info`'s list of a pattern's sounds: each distinct `EventWaveformPath` of its AudioCustom
/// events, where it was found, its format and what it decodes to (iOS's budget counts that).
enum InfoSounds {
  /// A text line for `row`: "NAME: PATH (PLACE), FORMAT".
  static func text(_ row: PatternSound) -> String {
    switch row.lookup {
    case .notFound:
      return "\(row.waveform): not found"
    case .found(let path, let place, .failure(let failure)):
      return "\(row.waveform): \(path) (\(place.description)), cannot be decoded: \(failure.message)"
    case .found(let path, let place, .success(let format)):
      let channels = format.channels == 1 ? "mono" : "stereo"
      return
        "\(row.waveform): \(path) (\(place.description)), \(format.container) \(Format.number(format.rate)) Hz \(channels), \(format.frames) frames (\(Format.length(format.duration))), \(format.decodedBytes) bytes decoded"
    }
  }

  /// The text rows: one per sound, then the total against iOS's budget.
  static func textRows(_ rows: [PatternSound]) -> [String] {
    guard !rows.isEmpty else { return ["none"] }
    return rows.map(text)
      + ["\(PatternSound.decodedBytes(rows)) bytes decoded in all, of iOS's budget of \(DecodedSound.iOSMemoryBudget)"]
  }

  /// The JSON array of the rows.
  static func json(_ rows: [PatternSound]) -> String {
    JSONOutput.array(rows.map(jsonObject))
  }

  private static func jsonObject(_ row: PatternSound) -> String {
    var fields = [("waveform", JSONOutput.string(row.waveform))]
    guard case .found(let path, let place, let decoded) = row.lookup else {
      return JSONOutput.object(fields + [("found", "false")])
    }
    fields += [("found", "true"), ("file", JSONOutput.string(path)), ("place", JSONOutput.string(place.word))]
    if case .soundPath(let folder) = place { fields.append(("soundPath", JSONOutput.string(folder))) }
    switch decoded {
    case .failure(let failure):
      fields.append(("error", JSONOutput.string(failure.message)))
    case .success(let format):
      fields += [
        ("format", JSONOutput.string(format.container)), ("rate", JSONOutput.number(format.rate)),
        ("channels", String(format.channels)), ("frames", String(format.frames)),
        ("duration", JSONOutput.number(format.duration)), ("decodedBytes", String(format.decodedBytes)),
      ]
    }
    return JSONOutput.object(fields)
  }
}
