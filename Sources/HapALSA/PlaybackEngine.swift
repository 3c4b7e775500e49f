import CALSA
import Foundation
import HapCore
import Synchronization

/// Plays a list of patterns on an ALSA device from a dedicated real-time thread.
///
/// **Real-time contract.** Everything is built before the thread starts: the renderers (and so
/// the schedules and every render buffer), the period buffers, the device and its parameters.
/// Each period the thread renders from the compiled schedule, converts the format, writes to
/// the device and handles the result. It allocates nothing, takes no lock, prints nothing,
/// touches no file and retains or releases nothing (the control queue and the renderers are
/// reached through `Unmanaged` references that others keep alive); the stop request and live
/// controls arrive through atomics, and the counters it keeps are read by the main thread only
/// after it has finished. The only exception is recovering from a lost device, which has to
/// reopen it. Tests prove this with the real-time probe (docs/architecture.md).
public final class PlaybackEngine: @unchecked Sendable {
  /// Where the signal goes on a device with several channels.
  public enum ChannelRouting: Sendable, Equatable {
    case all
    /// One channel (0-based); silence on the others.
    case single(Int)
  }

  public struct Options: Sendable {
    /// Silence between patterns (and between loops), in seconds.
    public var gap: Double = 0
    /// How many times to play the list; nil: until stopped.
    public var loops: Int? = 1
    public var routing: ChannelRouting = .all
    /// The speed the renderers were built for (`--speed`).
    public var speed = 1.0
    public init() {}
  }

  /// What happened, for `--verbose` and the exit status.
  public struct Report: Sendable {
    public enum Outcome: Sendable, Equatable {
      case completed
      case stopped
      case failed(String)
    }

    public var outcome: Outcome
    public var framesPlayed: Int
    public var underruns: Int
    public var suspends: Int
    public var reconnects: Int
    /// Monotonic time (ns) when the first period was queued, or nil.
    public var firstPeriodQueued: UInt64?
    /// "SCHED_FIFO priority N" or why it ran without.
    public var scheduling: String
  }

  private let sink: ALSASink
  private let renderers: [Renderer]
  /// Patterns, gaps, loops and live control.
  public let player: Player
  /// Owns the control queue; the loop uses `liveControls`, the same queue without reference
  /// counting (a strong `if let` of this one retained and released it every period).
  private let controls: ControlQueue?
  private let liveControls: Unmanaged<ControlQueue>?
  private let options: Options
  private let stopRequest: StopRequest
  private let buffers: PeriodBuffers
  private var report: Report
  /// Frames left queued when the thread renders the next period (just in time); 0: whenever a
  /// period has room. Widened by a period after each underrun.
  private var wakeLevel: Int
  private var underrunsSeen = 0

  /// `renderers` must render at the device's negotiated rate. Playback fades out and stops
  /// when `stop` is requested (e.g. `StopRequest.interrupt`, raised by Ctrl-C).
  public init(
    sink: ALSASink, renderers: [Renderer], options: Options, stop: StopRequest = StopRequest(),
    controls: ControlQueue? = nil
  ) {
    self.sink = sink
    self.renderers = renderers
    self.options = options
    self.controls = controls
    liveControls = controls.map { Unmanaged.passUnretained($0) }
    player = Player(
      renderers: renderers, gapFrames: Int((options.gap * Double(sink.configuration.rate)).rounded()),
      loops: options.loops,
      rampFrames: sink.configuration.periodFrames, speed: options.speed)
    stopRequest = stop
    buffers = PeriodBuffers(configuration: sink.configuration, routing: options.routing)
    wakeLevel = sink.wakeFrames ?? 0
    report = Report(
      outcome: .completed, framesPlayed: 0, underruns: 0, suspends: 0, reconnects: 0, firstPeriodQueued: nil,
      scheduling: "not started")
  }

  deinit { buffers.deallocate() }

  /// Asks the playback thread to fade out and stop (safe from any thread).
  public func stop() { stopRequest.request() }

  private let finished = DispatchSemaphore(value: 0)
  private let started = Atomic<Bool>(false)

  /// Whether the first period has been queued on the device (or playback already ended).
  public var hasStarted: Bool { started.load(ordering: .acquiring) }

  /// Starts playback on its own thread and returns at once.
  public func start() {
    Self.startPlaybackThread(named: "hap playback") { [self] scheduling in
      report.scheduling = scheduling
      playLoop()
      started.store(true, ordering: .releasing)
      finished.signal()
    }
  }

  /// Starts a playback thread (this engine's, or the service's ``MixerEngine``): the real-time
  /// probe's hooks resolved first (tests), a 1 MiB stack, SCHED_FIFO asked for on the thread;
  /// `body` gets what ``requestRealTime(priority:)`` said.
  static func startPlaybackThread(named name: String, _ body: @escaping @Sendable (String) -> Void) {
    hap_rt_probe_resolve()
    let thread = Thread { body(PlaybackEngine.requestRealTime()) }
    thread.stackSize = 1 << 20
    thread.name = name
    thread.start()
  }

  /// Waits for playback to end; returns what happened.
  public func wait() -> Report {
    finished.wait()
    report.underruns = sink.underruns
    report.suspends = sink.suspends
    report.reconnects = sink.reconnects
    return report
  }

  /// Seconds of audio left queued when `hap play`'s thread wakes to render the next period
  /// (``ALSASink/Request/wakeAt``): a control reaches the device after at most this plus a
  /// period, and the thread has this long to get the CPU before the device runs dry.
  public static let wakeAt = 0.0025

  /// The SCHED_FIFO priority of `hap play`'s control reader thread (below the playback thread's).
  public static let readerPriority: Int32 = 10

  /// SCHED_FIFO where the system permits it (root, or CAP_SYS_NICE / rtprio limits), for the
  /// calling thread: priority 20 for playback threads; a control reader asks for less
  /// (``readerPriority``), so it gets a line to the queue at once on a loaded machine but never
  /// delays the playback thread.
  public static func requestRealTime(priority: Int32 = 20) -> String {
    var parameters = sched_param()
    parameters.sched_priority = priority
    let status = pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters)
    if status == 0 { return "SCHED_FIFO priority \(priority)" }
    return "normal (SCHED_FIFO refused: \(String(cString: strerror(status))))"
  }

  /// The real-time loop. See the contract on the type.
  private func playLoop() {
    var stopping = false
    do throws(SinkError) {
      while true {
        if stopRequest.isRequested && !stopping {
          stopping = true
          player.apply(.stop)
        }
        // Room first, then render: the controls that arrived while waiting go into the period
        // written now (with ALSASink.Request.wakeAt, one that plays soon), not into one that
        // waits for room (docs/testing.md, "Control latency").
        try sink.waitForRoom()
        waitUntilDue()
        liveControls?._withUnsafeGuaranteedRef { $0.deliver(to: player) }
        let mono = buffers.mono
        let frames = player.render(into: mono)
        if frames < mono.count { (mono.baseAddress! + frames).update(repeating: 0, count: mono.count - frames) }
        if frames > 0 || !player.isFinished { try writePeriod() }
        if player.isFinished { break }
      }
      hap_rt_probe_watch(0)
      try sink.drain()
      report.outcome = stopRequest.isRequested ? .stopped : .completed
    } catch {
      hap_rt_probe_watch(0)
      report.outcome = .failed(error.message)
    }
  }

  /// Just in time: sleeps until no more than `wakeLevel` frames are queued on the device.
  private func waitUntilDue() {
    guard wakeLevel > 0 else { return }
    let early = sink.queuedFrames() - wakeLevel
    guard early > 0 else { return }
    var deadline = timespec()
    clock_gettime(CLOCK_MONOTONIC, &deadline)
    let nanoseconds = deadline.tv_nsec + early * 1_000_000_000 / sink.configuration.rate
    deadline.tv_sec += nanoseconds / 1_000_000_000
    deadline.tv_nsec = nanoseconds % 1_000_000_000
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
  }

  /// After an underrun, the thread was late by more than the wake-up level: keep a period more
  /// queued from then on (up to the buffer less a period, where waking ends).
  private func widenMarginAfterUnderrun() {
    guard wakeLevel > 0, sink.underruns != underrunsSeen else { return }
    underrunsSeen = sink.underruns
    let period = sink.configuration.periodFrames
    wakeLevel += period
    if wakeLevel + period >= sink.configuration.bufferFrames { wakeLevel = 0 }
  }

  private func writePeriod() throws(SinkError) {
    try buffers.write(to: sink)
    widenMarginAfterUnderrun()
    if report.firstPeriodQueued == nil {
      report.firstPeriodQueued = DispatchTime.now().uptimeNanoseconds
      started.store(true, ordering: .releasing)
      hap_rt_probe_watch(1)  // from here on, the real-time contract holds (tests count it)
    }
    report.framesPlayed += buffers.period
  }
}
