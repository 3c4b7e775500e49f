import HapCore

/// `hap diff --signal`'s verdict by feel (``FeelComparison``) with the perceptual measures beside
/// it, in the words and JSON the command prints.
public struct FeelReport: Sendable {
  public let feel: FeelComparison

  public init(_ old: Pattern, _ new: Pattern, profile: ActuatorProfile, rate: Double) {
    feel = FeelComparison(old, new, profile: profile, rate: rate)
  }

  public var sameFeel: Bool { feel.sameFeel }

  /// A conversion's result scored against its source (`convert --verbose`), on the default
  /// exciter at 48 kHz: the sentence, nil when the output is not read back (Android).
  public static func score(_ converted: Converter.Output) -> String? {
    guard let source = converted.source, let result = converted.result else { return nil }
    let report = FeelReport(source, result, profile: .exciter, rate: 48000)
    let psnr = SignalComparison(source, result, profile: .exciter, rate: 48000).psnr
    return report.sentence(psnr: psnr, audioPSNR: nil, structural: "the output against the input, on the exciter")
  }

  /// `same feel: …` or `different feel: …`, with the frames that differ, the thresholds and PSNR.
  public func sentence(psnr: Double, audioPSNR: Double?, structural: String) -> String {
    let f = feel
    let level = "level \(f.levelDiffering) of \(f.levelFrames) frames off by more than \(Format.number(FeelComparison.levelThreshold)) dB (median \(signed(f.medianLevelChange)) dB)"
    let percent = Format.number(((f.medianFrequencyRatio - 1) * 1000).rounded() / 10)
    let frequency = "frequency \(f.frequencyDiffering) of \(f.frequencyFrames) off by more than \(Format.number(FeelComparison.frequencyThreshold * 100)) % (median \(f.medianFrequencyRatio >= 1 ? "+" : "")\(percent) %)"
    var measures = ""
    if let stsim = f.stsim, let spqi = f.spqi {
      measures = "ST-SIM \(Format.number((stsim * 1000).rounded() / 1000)), SPQI \(Format.number((spqi * 1000).rounded() / 1000)), "
    }
    measures += "PSNR \(Format.number((psnr * 10).rounded() / 10)) dB"
    if let audioPSNR { measures += ", audio PSNR \(Format.number((audioPSNR * 10).rounded() / 10)) dB" }
    let verdict = f.sameFeel ? "same feel" : "different feel"
    if f.levelFrames == 0 {
      return "\(verdict): neither is felt (every frame below the detection threshold at its frequency); \(measures) (\(structural))"
    }
    return "\(verdict): \(level), \(frequency), within \(Format.number(FeelComparison.timeTolerance * 1000)) ms; \(measures) (\(structural))"
  }

  private func signed(_ x: Double) -> String {
    let r = (x * 10).rounded() / 10
    return (r >= 0 ? "+" : "") + Format.number(r)
  }

  /// The comparison as JSON (`feel` of `hap diff --signal --format json`).
  public var json: String {
    let f = feel
    let value: JSONValue = .object([
      ("sameFeel", .bool(f.sameFeel)), ("levelFrames", .number(Double(f.levelFrames))),
      ("levelDiffering", .number(Double(f.levelDiffering))), ("medianLevelChangeDb", .number(f.medianLevelChange)),
      ("frequencyFrames", .number(Double(f.frequencyFrames))),
      ("frequencyDiffering", .number(Double(f.frequencyDiffering))),
      ("medianFrequencyRatio", .number(f.medianFrequencyRatio)),
      ("levelThresholdDb", .number(FeelComparison.levelThreshold)),
      ("frequencyThreshold", .number(FeelComparison.frequencyThreshold)),
      ("timeTolerance", .number(FeelComparison.timeTolerance)),
      ("stsim", f.stsim.map { .number($0) } ?? .null), ("spqi", f.spqi.map { .number($0) } ?? .null),
    ])
    return value.jsonText
  }
}
