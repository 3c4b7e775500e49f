import Dispatch
import Foundation
import HapALSA
import HapCore

/// The playback set-up every command that plays shares: device options → sink → renderers at
/// the negotiated rate → the engine with its control sources → the report. A command keeps only
/// what is its own (its patterns, loops and gaps, where its control comes from).
final class PlaybackSession {
  /// Why the session could not start: one sentence, printed by ``fail(_:)``.
  struct Failure: Error {
    let message: String
    init(_ message: String) { self.message = message }
  }

  /// Where live control messages come from (`--control`, `hap drag`'s touchpad reader): started
  /// once the device is open, it pushes into the queue from a thread of its own. Returns an
  /// error message when it cannot start.
  typealias ControlSource = (ControlQueue) -> String?

  let options: DeviceOptions
  let sink: ALSASink
  /// Compiles patterns at the rate the device took.
  let factory: RendererFactory
  /// Keeps renderer sets built while playing (live `rate`) alive until playback ends.
  let keeper = RendererKeeper()
  /// Monotonic time when the command started reading its command line (`--verbose`).
  let commandStarted: UInt64
  /// `-D sim`: the simulated exciter's capture file (`--verbose` says where it is).
  let capture: String?

  private init(
    options: DeviceOptions, sink: ALSASink, profile: ActuatorProfile, commandStarted: UInt64, capture: String?
  ) {
    self.options = options
    self.sink = sink
    self.commandStarted = commandStarted
    self.capture = capture
    factory = RendererFactory(
      profile: profile, rate: Double(sink.configuration.rate), linearGain: options.linearGain)
  }

  /// Loads libasound, opens and configures the device, and checks `--channel` against the
  /// channels it took. Ctrl-C abandons waiting for a lost device. `justInTime`: see
  /// `DeviceOptions.request(justInTime:)`.
  static func open(_ options: DeviceOptions, profile: ActuatorProfile, commandStarted: UInt64, justInTime: Bool = true)
    throws(Failure) -> PlaybackSession
  {
    let sink: ALSASink
    let simulated: SimulatedDevice?
    do {
      simulated = try SimulatedDevice.resolve(options.device)
    } catch {
      throw Failure(error.message)
    }
    do {
      try ALSALibrary.load()
      sink = try ALSASink(
        device: simulated == nil ? options.device : SimulatedDevice.name,
        request: options.request(justInTime: justInTime),
        reconnectSeconds: options.reconnect, alsaConfiguration: simulated?.alsaConfiguration)
    } catch {
      throw Failure(error.message)
    }
    if case .single(let k) = options.routing, k >= sink.configuration.channels {
      sink.close(success: false)
      throw Failure(
        "device '\(options.device)' has \(sink.configuration.channels) channel(s); there is no channel \(k + 1)")
    }
    sink.abandonReconnect = { Interrupt.requested }
    return PlaybackSession(
      options: options, sink: sink, profile: profile, commandStarted: commandStarted, capture: simulated?.capture)
  }

  /// Prints `failure` as one line; exit status 2.
  static func fail(_ failure: Failure) -> Int32 {
    Console.error("hap: \(failure.message)")
    return ExitStatus.trouble
  }

  /// The device's negotiated configuration.
  var configuration: ALSASink.Configuration { sink.configuration }

  /// A time in seconds as a frame count at the negotiated rate.
  func frames(_ seconds: Double) -> Int { Int((seconds * Double(configuration.rate)).rounded()) }

  /// Plays `renderers` (built by ``factory``) with the command's `playback` options (the
  /// routing is the device options'), with control from `controls` when there are any, until
  /// the end, a stop or Ctrl-C; closes the device, prints the report and returns the exit status.
  /// `prepare` sets up the player (loop end, ...) before the engine starts.
  func play(
    _ renderers: [Renderer], playback: PlaybackEngine.Options, controls: [ControlSource],
    prepare: (Player) -> Void = { _ in }
  ) -> Int32 {
    var engineOptions = playback
    engineOptions.routing = options.routing
    let queue = controls.isEmpty ? nil : ControlQueue(capacity: 1024)
    if let queue {
      for source in controls {
        if let failure = source(queue) {
          sink.close(success: false)
          return Self.fail(Failure(failure))
        }
      }
    }
    let engine = PlaybackEngine(
      sink: sink, renderers: renderers, options: engineOptions, stop: Interrupt.stop, controls: queue)
    prepare(engine.player)
    // Ctrl-C and SIGTERM raise Interrupt.stop, which the playback thread polls each period.
    engine.start()
    let memory = Self.lockMemory(once: engine)
    let report = engine.wait()
    withExtendedLifetime(keeper) {}
    sink.close(success: report.outcome == .completed)
    return finish(report, memory: memory)
  }

  /// Locks memory once the first period is queued, so nothing the playback loop has touched can
  /// be paged out. MCL_ONFAULT: the pages already in memory (the loop's code and data, used by
  /// the first periods) are locked, others as they are first touched, instead of faulting in
  /// every mapping, most of it never used (Foundation's 30 MB of ICU data, in the static build
  /// too): a 10 s play kept 66 MB (static) or 72 MB (dynamic) resident, now 17 or 22 MB.
  /// Not MCL_FUTURE: the loop allocates nothing, and it costs ~1% of a core in page locking for
  /// the device's own buffers. Returns what happened, for `--verbose`.
  static func lockMemory(once engine: PlaybackEngine) -> String {
    for _ in 0..<200 where !engine.hasStarted { usleep(500) }
    return mlockall(MCL_CURRENT | MCL_ONFAULT) == 0
      ? "memory locked" : "memory not locked (\(String(cString: strerror(errno))))"
  }

  /// Prints the report (`--verbose`: the statistics; else any underruns and reconnects) and
  /// returns the exit status of `report`'s outcome.
  func finish(_ report: PlaybackEngine.Report, memory: String) -> Int32 {
    if options.verbose {
      printStatistics(report, memory: memory)
    } else if report.underruns > 0 || report.reconnects > 0 {
      var line = "hap: \(report.underruns) underrun\(report.underruns == 1 ? "" : "s") recovered"
      if report.reconnects > 0 {
        line += ", device reconnected \(report.reconnects) time\(report.reconnects == 1 ? "" : "s")"
      }
      Console.error(line)
    }
    switch report.outcome {
    case .completed: return ExitStatus.ok
    case .stopped: return ExitStatus.interrupted
    case .failed(let message):
      Console.error("hap: \(message)")
      return Interrupt.requested ? ExitStatus.interrupted : ExitStatus.trouble
    }
  }

  /// `--verbose`: device, format, scheduling, start latency, underruns and frames played.
  private func printStatistics(_ report: PlaybackEngine.Report, memory: String) {
    let c = configuration
    func ms(_ frames: Int) -> String {
      Format.number((Double(frames) / Double(c.rate) * 10000).rounded() / 10) + " ms"
    }
    Console.error("device      \(options.device)")
    Console.error(
      "format      \(c.rate) Hz \(c.format.rawValue), \(c.channels) channel\(c.channels == 1 ? "" : "s")\(Self.routingText(options.routing)), period \(c.periodFrames) frames (\(ms(c.periodFrames))), buffer \(c.bufferFrames) frames (\(ms(c.bufferFrames)))"
    )
    Console.error("scheduling  \(report.scheduling); \(memory)")
    if let first = report.firstPeriodQueued {
      let since = Double(first &- HapCommandLine.startedAt) / 1e6
      let sinceCommand = Double(first &- commandStarted) / 1e6
      Console.error(
        "start       first period queued \(Format.number((since * 10).rounded() / 10)) ms after hap started (\(Format.number((sinceCommand * 10).rounded() / 10)) ms after reading the command line)"
      )
    }
    Console.error(
      "underruns   \(report.underruns) (each recovered by re-preparing the device)\(report.suspends > 0 ? "; \(report.suspends) suspends" : "")\(report.reconnects > 0 ? "; \(report.reconnects) reconnects" : "")"
    )
    if let capture {
      let kind = capture.lowercased().hasSuffix(".raw") ? "raw, \(c.format.rawValue) little-endian, interleaved" : "WAV"
      Console.error("capture     \(capture) (\(kind); 'hap plot --signal' draws it)")
    }
    Console.error(
      "frames      \(report.framesPlayed) (\(Format.seconds((Double(report.framesPlayed) / Double(c.rate) * 1000).rounded() / 1000)))"
    )
  }

  static func routingText(_ routing: PlaybackEngine.ChannelRouting) -> String {
    switch routing {
    case .all: ""
    case .single(let k): " (signal on channel \(k + 1))"
    }
  }
}

/// Compiles patterns into renderers at the device's negotiated rate, with the session's
/// profile and gain; all buffers are made here, never on the playback thread.
struct RendererFactory: Sendable {
  let profile: ActuatorProfile
  let rate: Double
  let linearGain: Double

  /// `patterns` played `speed` times faster (time-scaled, not the carrier).
  func renderers(_ patterns: [Pattern], speed: Double = 1) -> [Renderer] {
    patterns.map {
      Renderer(
        schedule: Schedule(
          pattern: speed == 1 ? $0 : $0.timeScaled(by: 1 / speed), profile: profile, rate: rate, gain: linearGain))
    }
  }
}

/// Keeps renderer sets built for live `rate` changes alive until playback ends, so the playback
/// thread never frees one.
final class RendererKeeper: @unchecked Sendable {
  private var sets: [RendererSet] = []
  private let lock = NSLock()

  func keep(_ set: RendererSet) {
    lock.lock()
    sets.append(set)
    lock.unlock()
  }
}
