import CALSA
import Dispatch
import FoundationEssentials
import Glibc
import HapALSA
import HapCore
import Synchronization

/// What the device engine did, for `--verbose`, the exit status and the service's status.
public struct EngineReport: Sendable {
  public enum Outcome: Sendable, Equatable {
    /// The source finished.
    case completed
    /// The stop request ended it (after the source's fade).
    case stopped
    /// The device failed for good; the sink's error, unchanged.
    case failed(SinkError)
  }

  public var outcome: Outcome = .completed
  public var framesPlayed = 0
  public var underruns = 0
  /// How often the stream was stopped while the source waited for input (just in time).
  public var idleStops = 0
  public var suspends = 0
  public var reconnects = 0
  /// Monotonic time (ns) when the first period was queued, or nil.
  public var firstPeriodQueued: UInt64?
  /// "SCHED_FIFO priority N" or why it ran without.
  public var scheduling = "not started"
  /// Whether memory was locked once the first period was queued ("memory locked", or why not).
  public var memory = "memory not locked (playback did not start)"

  /// On a motor: the effect's updates, the steps skipped because the thread woke more than a
  /// step late, and the latest an update was after its time (seconds).
  public var updates = 0
  public var skipped = 0
  public var worstLateness = 0.0

  /// The sink's error, when the device failed.
  public var failure: SinkError? {
    if case .failed(let error) = outcome { return error }
    return nil
  }
}

extension Unmanaged {
  /// Runs `body` on the instance without reference counting, its typed error thrown on.
  @inline(__always)
  func calling(_ body: (Instance) throws(SinkError) -> Void) throws(SinkError) {
    let failure = _withUnsafeGuaranteedRef { instance -> SinkError? in
      do throws(SinkError) {
        try body(instance)
        return nil
      } catch {
        return error
      }
    }
    if let failure { throw failure }
  }
}

/// An output back end of the ``DeviceEngine``: it paces the periods and takes each one the
/// source rendered. ``ALSAOutput`` (a sound device pulling periods, and the sound's second
/// device) and ``MotorOutput`` (a rumble motor paced by the clock, taking the period's motor
/// levels) are the two, as miniaudio's one device object sits over its back ends.
///
/// **Real-time contract**: the engine reaches it through `Unmanaged` from its loop, specialised
/// for each back end: these allocate, lock and retain nothing.
protocol EngineOutput: AnyObject {
  /// The period the source renders into (the back end's, made before the thread starts).
  var frames: PeriodFrames { get }
  /// Frames per period.
  var periodFrames: Int { get }
  /// Before the first period (a motor's gain).
  func begin() throws(SinkError)
  /// Blocks until the next period is due (room on the device, or the clock's step).
  func waitForPeriod() throws(SinkError)
  /// Takes the period rendered into ``frames``.
  func write(_ frames: PeriodFrames, report: inout EngineReport) throws(SinkError)
  /// Whether it takes the periods an idle source renders (a sound device: its silence keeps
  /// the stream going until it rests), or rests at once (a motor).
  static var takesIdlePeriods: Bool { get }
  /// Whether, the source being idle, the output may rest (what it still plays is silence).
  var mayRest: Bool { get }
  /// Rests until the source's next input (the stream stopped, the motor paused).
  func rest(report: inout EngineReport) throws(SinkError)
  /// Input arrived after a rest: the next period plays at once.
  func resume()
  /// While resting: a device lost meanwhile is waited for as a write would.
  func checkDevice() throws(SinkError)
  /// Plays out what is queued.
  func drain() throws(SinkError)
  /// Counters published while playing.
  var underruns: Int { get }
  var recoveries: Int { get }
  /// Its counters into the report, once the thread has ended.
  func finish(_ report: inout EngineReport)
  /// The real-time probe's hooks (tests): resolved before the thread starts, then watching the
  /// thread from its first period on.
  func resolveProbe()
  func watch(_ on: Bool)
}

/// The one real-time engine: plays a ``PeriodSource`` on an output back end (``EngineOutput``)
/// from a dedicated thread: a sound device (``ALSAOutput``: the sink and the sound's second
/// device) or a rumble motor (``MotorOutput``). `hap play`, `play --watch` and `hap drag` play
/// a ``Player``; `hap serve` plays its ``EventMixer``; HapKit's engine its ``PlayerMixer``. The
/// source renders named channels and the period's motor levels; the back end takes what it
/// plays.
///
/// The engine owns what every source and back end shares: the thread (SCHED_FIFO where
/// permitted), memory locking once the first period is queued, the one stop request (which
/// also ends a wait for a lost device), idling while the source waits for input, the end and
/// the ``EngineReport``.
///
/// **Real-time contract.** Everything is built before the thread starts: the source (and so
/// its schedules and every render buffer), the back end's buffers, the device and its
/// parameters. Each period the thread waits for the back end, renders from the source and
/// hands the period over. It allocates nothing, takes no lock, prints nothing, touches no file
/// and retains or releases nothing: the source and the back end are reached through `Unmanaged`
/// (their owners keep them alive), and the loop is specialised for each source and back end
/// (no existential, no generic dispatch). The stop request and live input arrive through
/// atomics; the counters are published with relaxed atomic stores. The only exception is
/// recovering from a lost sound device, which has to reopen it. Tests prove this with the
/// real-time probe (docs/architecture.md).
public final class DeviceEngine<Source: PeriodSource>: @unchecked Sendable {
  /// The back end: one of the two, owned here.
  private let alsa: ALSAOutput?
  private let motor: MotorOutput?
  /// The source, owned here; the loop uses `liveSource`, the same one without reference counting.
  public let source: Source
  private let liveSource: Unmanaged<Source>
  private let stopRequest: StopRequest
  private let name: String
  /// The playback thread's (read by ``wait()`` once it has finished).
  private var report = EngineReport()
  /// The memory locker thread's (read by ``wait()`` once it has finished).
  private var memory = ""

  private let finished = DispatchSemaphore(value: 0)
  private let memoryChecked = DispatchSemaphore(value: 0)
  private let started = Atomic<Bool>(false)
  private let ended = Atomic<Bool>(false)
  private let liveUnderruns = Atomic<Int>(0)
  private let liveRecoveries = Atomic<Int>(0)

  /// `source` must render at the device's negotiated rate; `planes` is the channel layout
  /// resolved for the device (``ChannelLayout/map(deviceChannels:)``). Playback fades out (the
  /// source's stop) and ends when `stop` is requested (e.g. by Ctrl-C, through
  /// `StopRequest(signal:)`); a wait for a lost device ends then too. `name` names the thread.
  ///
  /// `second`: another device, opened with the same rate and period size, that plays its own
  /// layout (`planes`) of the same periods: the loop writes each period to `sink`, then to it, so
  /// both start with the same period (each starts when its buffer is full, one write apart) and
  /// stay aligned frame for frame; both are drained at the end.
  public convenience init(
    sink: ALSASink, source: Source, planes: [Int], stop: StopRequest = StopRequest(), name: String = "hap playback",
    second: (sink: ALSASink, planes: [Int])? = nil
  ) {
    self.init(
      alsa: ALSAOutput(sink: sink, planes: planes, second: second, stop: stop), motor: nil, source: source, stop: stop,
      name: name)
  }

  /// Plays `source` (rendering at `motor`'s rate, one step a period) on a rumble motor.
  convenience init(motor: MotorOutput, source: Source, stop: StopRequest, name: String) {
    self.init(alsa: nil, motor: motor, source: source, stop: stop, name: name)
  }

  private init(alsa: ALSAOutput?, motor: MotorOutput?, source: Source, stop: StopRequest, name: String) {
    self.alsa = alsa
    self.motor = motor
    self.source = source
    liveSource = Unmanaged.passUnretained(source)
    stopRequest = stop
    self.name = name
  }

  /// Asks the playback thread to fade out and stop (safe from any thread); a wait for a lost
  /// device ends at once.
  public func stop() { stopRequest.request() }

  /// Whether the first period has been queued on the device (or playback already ended).
  public var hasStarted: Bool { started.load(ordering: .acquiring) }

  /// Whether the thread has ended (the source finished, a stop, or the device failed for good).
  public var hasEnded: Bool { ended.load(ordering: .acquiring) }

  /// Underruns so far, published by the playback thread after each period it writes (any
  /// thread may read it while the device is open).
  public var underruns: Int { liveUnderruns.load(ordering: .relaxed) }

  /// Recoveries so far (reconnects and resumed suspends), published as ``underruns`` is.
  public var recoveries: Int { liveRecoveries.load(ordering: .relaxed) }

  /// Starts playback on its own thread and returns at once. Another (ordinary) thread locks
  /// memory once the first period is queued (``MemoryLock``).
  public func start() {
    alsa?.resolveProbe()  // the real-time probe's hooks resolved first (tests)
    motor?.resolveProbe()
    let thread = SystemThread { [self] in
      report.scheduling = RealTime.request()
      loop()
      started.store(true, ordering: .releasing)
      ended.store(true, ordering: .releasing)
      finished.signal()
    }
    thread.stackSize = 1 << 20
    thread.name = name
    thread.start()
    let locker = SystemThread { [self] in
      memory = MemoryLock.once { for _ in 0..<200 where !hasStarted { usleep(500) } }
      memoryChecked.signal()
    }
    locker.name = "hap memory lock"
    locker.start()
  }

  /// Waits for playback to end; returns what happened.
  public func wait() -> EngineReport {
    finished.wait()
    memoryChecked.wait()
    report.memory = memory
    alsa?.finish(&report)
    motor?.finish(&report)
    return report
  }

  /// The real-time loop on the session's back end. See the contract on the type.
  @_specialize(exported:true,where Source == Player)
  @_specialize(exported:true,where Source == EventMixer)
  // Specialised for the sources the CLI hands in (through the generic `PlaybackSession.start`);
  // the engine's `PlayerMixer` is made in this module, which specialises the loop for it itself
  // (an exported specialisation of it was referenced from other object files of the optimised
  // build but never emitted, so the library did not link). Not private: those object files
  // reference the specialisations.
  func loop() {
    if let alsa {
      run(Unmanaged.passUnretained(alsa))
    } else if let motor {
      run(Unmanaged.passUnretained(motor))
    }
  }

  /// Each period: the stop taken, the back end's wait, the source's render, the back end's
  /// write; an idle source rests the back end; at the end, the drain.
  @inline(__always)
  private func run<Output: EngineOutput>(_ output: Unmanaged<Output>) {
    var stopping = false
    do throws(SinkError) {
      try output.calling { output throws(SinkError) in try output.begin() }
      while true {
        if !stopping && stopRequest.isRequested {
          stopping = true
          liveSource._withUnsafeGuaranteedRef { $0.beginStop() }
        }
        // Room first, then render: the input that arrived while waiting (a control, a fire)
        // goes into the period written now (just in time, one that plays soon), not into one
        // that waits for room (docs/testing.md, "Control latency").
        try output.calling { output throws(SinkError) in try output.waitForPeriod() }
        let frames = output._withUnsafeGuaranteedRef { $0.frames }
        frames.clearMotor()
        let rendered = liveSource._withUnsafeGuaranteedRef { $0.render(into: frames) }
        let finished = liveSource._withUnsafeGuaranteedRef { $0.isFinished }
        // The rest of a short period silenced (all of it, the motor levels too, when empty).
        if rendered < frames.count { frames.silence(from: rendered) }
        // A motor takes no silent period from a quiet or stopping source (it rests, or the
        // play ends, instead); a sound device takes its silence.
        let quiet = !Output.takesIdlePeriods && !stopping && liveSource._withUnsafeGuaranteedRef { $0.isQuiet }
        let skipped = !Output.takesIdlePeriods && frames.strong == 0 && frames.weak == 0 && (stopping || quiet)
        if (rendered > 0 || !finished) && !skipped { try write(frames, to: output) }
        if finished { break }
        if output._withUnsafeGuaranteedRef({ $0.mayRest }) {
          if liveSource._withUnsafeGuaranteedRef({ $0.isIdle }) {
            try rest(output)
          } else if skipped && quiet {
            // Input arrived after the render took its input (a fire that opened the device
            // while its first period rendered): the skipped period is not waited for; the
            // next one renders it now, not a step later.
            output._withUnsafeGuaranteedRef { $0.resume() }
          }
        }
      }
      output._withUnsafeGuaranteedRef { $0.watch(false) }
      try output.calling { output throws(SinkError) in try output.drain() }
      // A stop during the drain (up to a whole buffer, kept full) is a stop too: exit 130.
      report.outcome = stopping || stopRequest.isRequested ? .stopped : .completed
    } catch {
      output._withUnsafeGuaranteedRef { $0.watch(false) }
      publishCounters(output)
      report.outcome = .failed(error)
    }
  }

  /// Hands the period to the back end; the first one queued starts the contract's watch.
  @inline(__always)
  private func write<Output: EngineOutput>(_ frames: PeriodFrames, to output: Unmanaged<Output>) throws(SinkError) {
    try output.calling { output throws(SinkError) in try output.write(frames, report: &report) }
    publishCounters(output)
    if report.firstPeriodQueued == nil {
      report.firstPeriodQueued = DispatchTime.now().uptimeNanoseconds
      started.store(true, ordering: .releasing)
      output._withUnsafeGuaranteedRef { $0.watch(true) }  // from here on, the contract holds (tests count it)
    }
    report.framesPlayed += frames.count
  }

  /// Rests the back end (the stream stopped, the motor paused) and waits for the source's next
  /// input (or the stop request, checked every ``idleCheck`` ms with the device: one lost
  /// meanwhile is waited for as a write would), so that the next fire plays at once, not behind
  /// the margin of silence kept queued for it; and an idle service costs no CPU. A sound stream
  /// stops and restarts only in silence.
  private func rest<Output: EngineOutput>(_ output: Unmanaged<Output>) throws(SinkError) {
    try output.calling { output throws(SinkError) in try output.rest(report: &report) }
    report.idleStops += 1
    while !stopRequest.isRequested && liveSource._withUnsafeGuaranteedRef({ $0.isIdle }) {
      liveSource._withUnsafeGuaranteedRef { $0.waitForInput(milliseconds: Self.idleCheck) }
      try output.calling { output throws(SinkError) in try output.checkDevice() }
      publishCounters(output)
    }
    output._withUnsafeGuaranteedRef { $0.resume() }
  }

  /// How long the silence written must last before the stream stops: short enough that
  /// separate fires (a game's moments, a timer's pulses) each find it stopped and play at once,
  /// long enough that a burst (fires under 20 ms apart) keeps it running, so a device that is
  /// slow to start (USB) restarts once per burst.
  public static var idleAfter: Double { 0.02 }
  /// How often an idle engine looks at the stop request (ms).
  static var idleCheck: Int32 { 50 }

  /// Two relaxed atomic stores: no allocation, no lock.
  @inline(__always)
  private func publishCounters<Output: EngineOutput>(_ output: Unmanaged<Output>) {
    liveUnderruns.store(output._withUnsafeGuaranteedRef { $0.underruns }, ordering: .relaxed)
    liveRecoveries.store(output._withUnsafeGuaranteedRef { $0.recoveries }, ordering: .relaxed)
  }
}

/// Memory locking, once per process, after the first period of the first playback is queued:
/// MCL_CURRENT | MCL_ONFAULT locks the pages already in memory (the playback loop's code and
/// data, used by the first periods) and others as they are first touched, instead of faulting
/// in every mapping, most of it never used (Foundation's 30 MB of ICU data, in the static build
/// too): a 10 s play kept 66 MB (static) or 72 MB (dynamic) resident, now 17 or 22 MB. Not
/// MCL_FUTURE: the loop allocates nothing, and it costs ~1% of a core in page locking for the
/// device's own buffers. A later playback (`--watch`, the service's next open) reports the first
/// one's result.
enum MemoryLock {
  private static let result = Mutex<String?>(nil)

  /// Runs `waitForFirstPeriod`, then locks memory unless it was locked before; says what
  /// happened.
  static func once(_ waitForFirstPeriod: () -> Void) -> String {
    if let done = result.withLock({ $0 }) { return done }
    waitForFirstPeriod()
    return result.withLock { value in
      if let done = value { return done }
      let said =
        mlockall(MCL_CURRENT | MCL_ONFAULT) == 0
        ? "memory locked" : "memory not locked (\(String(cString: strerror(errno))))"
      value = said
      return said
    }
  }
}
