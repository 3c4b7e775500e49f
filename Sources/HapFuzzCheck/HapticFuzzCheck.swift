import HapCore

/// The `.haptic` reader (`HapticClipDecoder`, `HapticReading`) and `hap convert`'s two
/// directions for a clip: never a trap; findings point into the input with short sentences; a
/// clip that reads converts to AHAP that passes hap's own checks (the converter never makes a
/// pattern its validator refuses), with finite values, no longer than a valid pattern may be,
/// that renders to the end; converting it to AHAP or back to `.haptic` never fails hap's own
/// checks on the output.
public enum HapticFuzzCheck {
  public static func run(_ bytes: [UInt8]) {
    let source = SourceText(bytes)
    let read = HapticReading.read(source)
    for finding in read.result.diagnostics {
      precondition(finding.line >= 1 && finding.column >= 1, "bad position")
      checkSentence(finding.message, "a finding")
    }
    let (clip, findings) = HapticClipDecoder.decode(source)
    guard let clip, !findings.hasErrors else { return }
    for point in clip.amplitude {
      precondition(point.time.isFinite && point.time >= 0 && point.time <= HapticClipDecoder.longestClip, "time")
      precondition((0...1).contains(point.amplitude), "amplitude \(point.amplitude) out of 0...1")
    }
    let converted = HapticToAHAP.convert(clip)
    let written = Validator.validate(Array(AHAPWriter.text(converted.pattern).utf8))
    for finding in written.diagnostics where finding.severity != .note {
      preconditionFailure("the AHAP made of a clip fails hap's own \(finding.rule): \(finding.message)")
    }
    guard let pattern = written.pattern else { preconditionFailure("the AHAP made of a clip does not read back") }
    for event in pattern.events {
      precondition(event.time.isFinite && event.duration.isFinite, "an event's time is not finite")
    }
    let schedule = Schedule(pattern: pattern, rate: FuzzCheck.rate)
    precondition(schedule.duration <= FuzzCheck.longest, "a clip renders for \(schedule.duration) s")
    FuzzCheck.render(schedule)
    for target in [ConversionFormat.ahap, .haptic] {
      do {
        _ = try Converter.convert(bytes, from: .haptic, to: target)
      } catch {
        if case .invalidOutput(let findings) = error {
          preconditionFailure(
            "a clip's conversion to \(target) fails hap's own checks: \(findings.first?.message ?? "")")
        }
      }
    }
  }
}
