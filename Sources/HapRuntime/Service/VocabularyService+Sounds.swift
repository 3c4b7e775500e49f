import FoundationEssentials
import Glibc
import HapCore
import HapResample

/// feedbackd's `sound-file` hint: a sound file played, at the full level, in place of the
/// event's own sound (feedbackd's `add_event_feedbacks` puts it in place of the theme's Sound).
extension VocabularyService {
  /// A hinted sound as the mixer stores it, at the rate the events were made at.
  public struct HintedSound: Sendable {
    public let sound: EventMixer.Sound
    public let rate: Double
  }

  /// The sound at `path` made for the mixer as `hap render --audio` renders an AudioCustom
  /// event at time 0 without its volume envelope (the file as it is, as feedbackd plays it;
  /// default volume, the service's gain), within a variant slot's share of the
  /// memory budget: the decode is bounded by it, and the frames it will have at the events' rate
  /// are checked before resampling. Read without blocking (a FIFO or device is refused).
  public func hintedSound(_ path: String) -> Result<HintedSound, ServiceError> {
    guard path.hasPrefix("/") else {
      return .failure(ServiceError(.badRequest, "the sound-file hint must be an absolute path, not '\(Format.excerpt(path))'."))
    }
    let (_, rate, gain, budget) = signalSettings
    lock.lock()
    let search = settings.search
    lock.unlock()
    guard !playsRumble else {
      return .failure(ServiceError(.badRequest, "a sound-file is not played on a rumble motor (it has no sound)."))
    }
    let tooLarge = { (bytes: Int?) in
      ServiceError(
        .noMemory,
        "the sound-file '\(Format.excerpt(path))' needs \(bytes.map { "\(Self.megabytes($0)), " } ?? "")more than the \(Self.megabytes(budget)) the memory budget leaves a sound (hap serve --memory-budget)."
      )
    }
    let decoded: DecodedSound
    switch search.decode(path, maxSamples: budget / MemoryLayout<Float>.size) {
    case .failure(.tooLarge): return .failure(tooLarge(nil))
    case .failure(let failure):
      return .failure(ServiceError(.badRequest, "the sound-file '\(Format.excerpt(path))' cannot be played: \(failure.message)."))
    case .success(let found): decoded = found.sound
    }
    // Stereo floats at the events' rate, before the resampler makes them.
    let frames = (Double(decoded.frames) * rate / decoded.rate).rounded(.up)
    let bytes = frames * Double(2 * MemoryLayout<Float>.size)
    guard bytes <= Double(budget) else { return .failure(tooLarge(bytes < Double(Int.max) ? Int(bytes) : nil)) }
    let sound: DecodedSound
    do {
      sound = try Resampler.resample(decoded, to: rate)
    } catch {
      return .failure(ServiceError(.badRequest, "the sound-file '\(Format.excerpt(path))' cannot be resampled: \(error.message)."))
    }
    let event = Event(
      time: 0, type: .audioCustom, parameters: EventParameters(defaultsFor: .audioCustom), waveformPath: path)
    let schedule = AudioSchedule(pattern: Pattern(events: [event]), sounds: [path: sound], rate: rate, gain: gain)
    return .success(HintedSound(sound: AudioRenderer(schedule: schedule).renderForMixer(), rate: rate))
  }
}
