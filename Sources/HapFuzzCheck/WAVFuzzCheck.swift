import HapCore

/// The WAV reader (`AudioSignal.wav`, on `SignalSeries.wavLayout`) and `hap convert`'s audio
/// analysis: never a trap; a refusal is one short sentence; a sound that reads has a positive
/// rate, no more samples than the bytes hold, every sample finite; its conversion either is a
/// pattern that passes `hap validate --strict` or a one-sentence refusal (never a failure of
/// hap's own checks on its output).
public enum WAVFuzzCheck {
  public static func run(_ bytes: [UInt8]) {
    let signal: AudioSignal
    do {
      signal = try AudioSignal.wav(bytes)
    } catch {
      checkSentence(error.message, "a refusal")
      return
    }
    precondition(signal.rate >= 1 && signal.rate.isFinite, "rate \(signal.rate)")
    precondition(signal.samples.count <= bytes.count / 2, "more samples than the bytes hold")
    for sample in signal.samples { precondition(sample.isFinite, "a sample is not finite") }
    do {
      let output = try Converter.convertAudio(signal)
      let check = Validator.validate(output.bytes)
      precondition(check.isStrictlyValid, "a sound's conversion is not strictly valid")
    } catch {
      switch error {
      case .invalidOutput(let findings):
        preconditionFailure("a sound's conversion fails hap's own checks: \(findings.first?.message ?? "")")
      case .unusableInput(let sentence): checkSentence(sentence, "a refusal")
      default: preconditionFailure("a sound's conversion fails with \(error)")
      }
    }
  }
}
