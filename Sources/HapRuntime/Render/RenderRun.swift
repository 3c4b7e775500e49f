import FoundationEssentials
import Glibc
import HapCore

/// How a render's files are written: the samples' format and rate, whether a terminal may
/// take binary audio (`--force`), how bytes reach the disk (``FileWriter``; a test's full
/// disk), and the stop that ends a render (or a wait for a FIFO's reader) part way.
public struct RenderOutputSettings: Sendable {
  public var format: SampleFormat
  public var rate: Int
  public var allowTerminal: Bool
  public var writer: FileWriter
  public var stop: StopRequest

  public init(
    format: SampleFormat, rate: Int, allowTerminal: Bool = false, writer: FileWriter = .system,
    stop: StopRequest = StopRequest()
  ) {
    self.format = format
    self.rate = rate
    self.allowTerminal = allowTerminal
    self.writer = writer
    self.stop = stop
  }
}

extension RenderJob {
  /// The parts of one render `hap render` (and `hap drag -o`) asks for: the pattern's audio
  /// track (nil: none, or it cannot be had and is not written), whether the track is written
  /// (`--audio`, or a layout's channels), `--audio`'s file, the controlled player and its
  /// length (control messages), and the file's layout.
  public struct Parts {
    public var track: PatternAudio.Track?
    public var writesTrack: Bool
    public var trackFile: (path: String, raw: Bool)?
    public var controlled: (player: Player, frames: Int)?
    public var layout: RenderLayout?

    public init(
      track: PatternAudio.Track?, writesTrack: Bool, trackFile: (path: String, raw: Bool)?,
      controlled: (player: Player, frames: Int)?, layout: RenderLayout?
    ) {
      self.track = track
      self.writesTrack = writesTrack
      self.trackFile = trackFile
      self.controlled = controlled
      self.layout = layout
    }
  }

  /// A render longer than a file can state: its length in seconds.
  public struct TooLong: Error {
    public let seconds: Double
  }

  /// What renders `schedule` (named `name`, written to `output`, raw or WAV): its renderer and
  /// its audio track's beside it, or a Player (the control messages', or one that renders the
  /// layout's channels); its size checked, for `format`, before anything is written (RF64 past
  /// 4 GiB; a length no header could state is refused).
  public static func compose(
    _ pattern: Pattern, _ schedule: Schedule, named name: String, to output: String, raw: Bool, profile: ActuatorProfile,
    format: SampleFormat, parts: Parts
  ) -> Result<RenderJob, TooLong> {
    var job = RenderJob(
      name: name, path: output, raw: raw, renderer: Renderer(schedule: schedule), player: nil,
      frameCount: parts.track?.renderer.frameCount ?? schedule.frameCount)
    let sounds = parts.writesTrack ? parts.track?.sounds : nil
    if let controlled = parts.controlled {
      job.player = controlled.player
      job.frameCount = controlled.frames
    } else if parts.layout != nil {
      job.player = player(pattern: pattern, schedule: schedule, profile: profile, messages: [], sounds: sounds)
      job.pads = true
    } else if let track = parts.track, let file = parts.trackFile {
      job.audio = (track.renderer, file.path, file.raw)
    }
    if let layout = parts.layout { job.planes = layout.planes }
    if job.player != nil { job.soundFile = parts.trackFile }
    let widest = max(job.planes.count, job.audio != nil || job.soundFile != nil ? 2 : 1)
    guard WAVHeader.dataBytes(format: format, channels: widest, frames: job.frameCount) != nil else {
      return .failure(TooLong(seconds: Double(job.frameCount) / schedule.rate))
    }
    return .success(job)
  }

  /// Why a render's files were not written.
  public enum RunFailure: Error {
    /// The stop came while an output was being opened (a FIFO waiting for its reader): nothing
    /// was written to it.
    case stoppedOpening(path: String)
    /// The stop came while writing: for each output, whether what it holds is incomplete (an
    /// output written in place: standard output, a FIFO, a device) or nothing was written (a
    /// file, which is only renamed into place once complete).
    case stopped([(path: String, partial: Bool)])
    /// An output could not be opened or written.
    case sink(SinkError)
  }

  /// Writes the job to its output (and its audio track to its own file): each file atomically
  /// (written beside, renamed into place once complete; standard output for '-'); `progress` is
  /// told the frames done. Nothing is left half-written on a failure or a stop.
  public mutating func run(_ settings: RenderOutputSettings, progress: @escaping (Int) -> Void = { _ in })
    -> Result<Void, RunFailure>
  {
    var sinks: [(sink: any PCMSink, file: FileSink?, path: String)] = []
    defer { for opened in sinks { opened.sink.close(success: false) } }
    for path in [path] + [audio?.path ?? soundFile?.path].compactMap({ $0 }) {
      do {
        let file =
          path == "-"
          ? nil
          : try FileSink(path: path, allowTerminal: settings.allowTerminal, stop: settings.stop, writer: settings.writer)
        sinks.append((file ?? StandardOutputSink(stop: settings.stop), file, path))
      } catch {
        return .failure(settings.stop.isRequested ? .stoppedOpening(path: path) : .sink(error))
      }
    }
    let stopped = RunFailure.stopped(sinks.map { ($0.path, $0.file?.isDirect ?? true) })
    do {
      let stop = settings.stop
      guard
        try pump(
          into: sinks[0].sink, audioSink: sinks.count > 1 ? sinks[1].sink : nil, format: settings.format,
          rate: settings.rate, progress: progress, shouldStop: { stop.isRequested })
      else { return .failure(stopped) }
      for opened in sinks { try opened.sink.drain() }
      // Only complete, renamed (and folder-synced) files count as written.
      for opened in sinks { try opened.file?.commit() }
    } catch {
      if case .interrupted = error { return .failure(stopped) }
      return .failure(.sink(error))
    }
    return .success(())
  }
}
