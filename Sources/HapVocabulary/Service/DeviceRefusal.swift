import HapFormat
import HapPlayback
import HapRender
import HapTools

extension ServiceError {
  /// The answer to a fire when the device cannot be opened: `busy` when another program has it
  /// (``SinkError/busy(device:)``: it may be free soon), else `no-device` (missing, refused, lost:
  /// the next fire tries again). `sentence` is the session's failure, said.
  public static func deviceUnavailable(_ cause: SinkError?, _ sentence: String) -> ServiceError {
    if case .busy = cause { return ServiceError(.busy, "\(sentence).") }
    return ServiceError(.noDevice, "\(sentence).")
  }
}
