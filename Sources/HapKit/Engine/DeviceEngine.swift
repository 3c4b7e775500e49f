import CALSA
import Foundation
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

  /// The sink's error, when the device failed.
  public var failure: SinkError? {
    if case .failed(let error) = outcome { return error }
    return nil
  }
}

/// The one real-time engine: plays a ``PeriodSource`` on an ``ALSASink`` from a dedicated
/// thread. `hap play`, `play --watch` and `hap drag` play a ``Player``; `hap serve` plays its
/// ``EventMixer``. The source renders named channels, the ``ChannelLayout`` (resolved for the
/// device) lays them out, the sink writes and handles every xrun, suspend and reconnect.
///
/// The engine owns what every source shares: the thread (SCHED_FIFO where permitted), memory
/// locking once the first period is queued, the one stop request (which also ends a wait for a
/// lost device: the sink's ``ALSASink/abandonReconnect`` polls it), the render-ahead policy
/// (``RenderAhead``), the drain and the ``EngineReport``.
///
/// **Real-time contract.** Everything is built before the thread starts: the source (and so
/// its schedules and every render buffer), the period buffers, the device and its parameters.
/// Each period the thread waits for room (and, just in time, until the margin), renders from
/// the source, lays out and converts the frames, writes to the device and handles the result.
/// It allocates nothing, takes no lock, prints nothing, touches no file and retains or releases
/// nothing: the source is reached through `Unmanaged` (its owner keeps it alive), and the loop is
/// specialised for each source (no existential, no generic dispatch). The stop request and live
/// input arrive through atomics; the counters are published with relaxed atomic stores. The
/// only exception is recovering from a lost device, which has to reopen it. Tests prove this
/// with the real-time probe (docs/architecture.md).
public final class DeviceEngine<Source: PeriodSource>: @unchecked Sendable {
  private let sink: ALSASink
  /// A second device fed the same periods (the pattern's sound, `--audio-device`), its own
  /// layout of the planes; `secondSink`: the same without reference counting, for the loop.
  private let second: ALSASink?
  private let secondSink: Unmanaged<ALSASink>?
  private let secondBuffers: PeriodBuffers?
  /// The source, owned here; the loop uses `liveSource`, the same one without reference counting.
  public let source: Source
  private let liveSource: Unmanaged<Source>
  private let stopRequest: StopRequest
  private let buffers: PeriodBuffers
  private let name: String
  /// The playback thread's (read by ``wait()`` once it has finished).
  private var report = EngineReport()
  /// The memory locker thread's (read by ``wait()`` once it has finished).
  private var memory = ""
  /// Just in time: what is left queued when the thread renders the next period, widened after
  /// an underrun and narrowed after a clean stretch; nil: the buffer kept full.
  private var margin: JustInTimeMargin?
  /// `margin`'s current level in frames; 0: whenever a period has room (the buffer kept full).
  private var wakeLevel: Int
  /// Periods written since the last that held sound, up to a buffer's worth: while below that,
  /// sound may still be queued, so an underrun is heard.
  private var periodsSinceSound = Int.max / 2
  /// Silent periods after which an idle source's stream stops (``idleAfter``, at least a buffer).
  private let idlePeriods: Int

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
  public init(
    sink: ALSASink, source: Source, planes: [Int], stop: StopRequest = StopRequest(), name: String = "hap playback",
    second: (sink: ALSASink, planes: [Int])? = nil
  ) {
    self.sink = sink
    self.second = second?.sink
    secondSink = second.map { Unmanaged.passUnretained($0.sink) }
    self.source = source
    liveSource = Unmanaged.passUnretained(source)
    stopRequest = stop
    self.name = name
    buffers = PeriodBuffers(configuration: sink.configuration, planes: planes)
    let shared = buffers.frames
    secondBuffers = second.map {
      PeriodBuffers(configuration: $0.sink.configuration, planes: $0.planes, sharing: shared)
    }
    let configuration = sink.configuration
    margin = sink.wakeFrames.map {
      JustInTimeMargin(
        base: $0, periodFrames: configuration.periodFrames, bufferFrames: configuration.bufferFrames,
        rate: configuration.rate)
    }
    wakeLevel = sink.wakeFrames ?? 0
    let period = max(1, configuration.periodFrames)
    idlePeriods = max(
      configuration.bufferFrames / period + 1, Int(Self.idleAfter * Double(configuration.rate)) / period)
    sink.abandonReconnect = { stop.isRequested }
    second?.sink.abandonReconnect = { stop.isRequested }
  }

  deinit {
    secondBuffers?.deallocate()
    buffers.deallocate()
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
    hap_rt_probe_resolve()  // the real-time probe's hooks resolved first (tests)
    let thread = Thread { [self] in
      report.scheduling = RealTime.request()
      loop()
      started.store(true, ordering: .releasing)
      ended.store(true, ordering: .releasing)
      finished.signal()
    }
    thread.stackSize = 1 << 20
    thread.name = name
    thread.start()
    let locker = Thread { [self] in
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
    report.underruns = sink.underruns + (second?.underruns ?? 0)
    report.suspends = sink.suspends + (second?.suspends ?? 0)
    report.reconnects = sink.reconnects + (second?.reconnects ?? 0)
    return report
  }

  /// The real-time loop. See the contract on the type.
  @_specialize(exported:true,where Source == Player)
  @_specialize(exported:true,where Source == EventMixer)
  // Specialised for the sources the CLI hands in (through the generic `PlaybackSession.start`);
  // the engine's `PlayerMixer` is made in this module, which specialises the loop for it itself
  // (an exported specialisation of it was referenced from other object files of the optimised
  // build but never emitted, so the library did not link). Not private: those object files
  // reference the specialisations.
  func loop() {
    var stopping = false
    do throws(SinkError) {
      while true {
        if !stopping && stopRequest.isRequested {
          stopping = true
          liveSource._withUnsafeGuaranteedRef { $0.beginStop() }
        }
        // Room first, then render: the input that arrived while waiting (a control, a fire)
        // goes into the period written now (just in time, one that plays soon), not into one
        // that waits for room (docs/testing.md, "Control latency").
        try sink.waitForRoom()
        try waitForSecond()
        waitUntilDue()
        let frames = buffers.frames
        let rendered = liveSource._withUnsafeGuaranteedRef { $0.render(into: frames) }
        let finished = liveSource._withUnsafeGuaranteedRef { $0.isFinished }
        if rendered < frames.count { frames.silence(from: rendered) }
        if rendered > 0 || !finished { try writePeriod(audible: margin != nil && !frames.isSilent) }
        if finished { break }
        if isIdle { try idle() }
      }
      hap_rt_probe_watch(0)
      try sink.drain()
      try second?.drain()
      // A stop during the drain (up to a whole buffer, kept full) is a stop too: exit 130.
      report.outcome = stopping || stopRequest.isRequested ? .stopped : .completed
    } catch {
      hap_rt_probe_watch(0)
      publishCounters()
      report.outcome = .failed(error)
    }
  }

  /// Just in time, whether the stream may stop: the source has nothing to play until live
  /// input arrives, and what is queued on the device is silence (the periods written since the
  /// last sound fill the buffer, and last at least ``idleAfter`` seconds).
  private var isIdle: Bool {
    guard margin != nil, periodsSinceSound >= idlePeriods else { return false }
    return liveSource._withUnsafeGuaranteedRef { $0.isIdle }
  }

  /// Stops the device's stream (its queued silence dropped) and waits for the source's next
  /// input (or the stop request, checked every ``idleCheck`` ms with the device: one lost
  /// meanwhile is waited for as a write would), so that the next fire starts
  /// the stream and plays at once, not behind the margin of silence kept queued for it; and
  /// an idle service costs no CPU. The stream stops and restarts only in silence.
  private func idle() throws(SinkError) {
    try sink.stopStream()
    if let secondSink {
      let failure = secondSink._withUnsafeGuaranteedRef { sink -> SinkError? in
        do throws(SinkError) {
          try sink.stopStream()
          return nil
        } catch {
          return error
        }
      }
      if let failure { throw failure }
    }
    report.idleStops += 1
    while !stopRequest.isRequested && liveSource._withUnsafeGuaranteedRef({ $0.isIdle }) {
      liveSource._withUnsafeGuaranteedRef { $0.waitForInput(milliseconds: Self.idleCheck) }
      try sink.checkDevice()
      publishCounters()
    }
    periodsSinceSound = 0
  }

  /// How long the silence written must last before the stream stops: short enough that
  /// separate fires (a game's moments, a timer's pulses) each find it stopped and play at once,
  /// long enough that a burst (fires under 20 ms apart) keeps it running, so a device that is
  /// slow to start (USB) restarts once per burst.
  public static var idleAfter: Double { 0.02 }
  /// How often an idle engine looks at the stop request (ms).
  static var idleCheck: Int32 { 50 }

  /// Waits for room on the second device too (it runs on the same clock: at once, mostly).
  private func waitForSecond() throws(SinkError) {
    guard let secondSink else { return }
    let failure = secondSink._withUnsafeGuaranteedRef { sink -> SinkError? in
      do throws(SinkError) {
        try sink.waitForRoom()
        return nil
      } catch {
        return error
      }
    }
    if let failure { throw failure }
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

  /// After an underrun the thread was late by more than the wake-up level: keep a period more
  /// queued, and a period less again after a clean stretch (``JustInTimeMargin``).
  private func adaptMargin(audible: Bool) {
    guard margin != nil else { return }
    let periods = sink.configuration.bufferFrames / max(1, sink.configuration.periodFrames)
    let sounding = audible || periodsSinceSound < periods
    periodsSinceSound = audible ? 0 : min(periodsSinceSound + 1, Int.max / 2)
    margin!.played(buffers.period, underruns: sink.underruns, sounding: sounding)
    wakeLevel = margin!.wakeFrames ?? 0
  }

  private func writePeriod(audible: Bool) throws(SinkError) {
    try buffers.write(to: sink)
    if let secondBuffers, let secondSink {
      let failure = secondSink._withUnsafeGuaranteedRef { sink -> SinkError? in
        do throws(SinkError) {
          try secondBuffers.write(to: sink)
          return nil
        } catch {
          return error
        }
      }
      if let failure { throw failure }
    }
    adaptMargin(audible: audible)
    publishCounters()
    if report.firstPeriodQueued == nil {
      report.firstPeriodQueued = DispatchTime.now().uptimeNanoseconds
      started.store(true, ordering: .releasing)
      hap_rt_probe_watch(1)  // from here on, the real-time contract holds (tests count it)
    }
    report.framesPlayed += buffers.period
  }

  /// Two relaxed atomic stores: no allocation, no lock.
  private func publishCounters() {
    var underruns = sink.underruns
    var recoveries = sink.reconnects + sink.suspends
    secondSink?._withUnsafeGuaranteedRef {
      underruns += $0.underruns
      recoveries += $0.reconnects + $0.suspends
    }
    liveUnderruns.store(underruns, ordering: .relaxed)
    liveRecoveries.store(recoveries, ordering: .relaxed)
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
