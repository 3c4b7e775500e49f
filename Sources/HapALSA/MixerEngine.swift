import CALSA
import Dispatch
import Foundation
import HapCore
import Synchronization

/// Plays an ``EventMixer`` on an ALSA device from a dedicated real-time thread, for the
/// service: each period the thread renders the mixer (which applies the commands queued
/// through its ring), routes, encodes and writes, until ``stop()``.
///
/// **Real-time contract.** As ``PlaybackEngine``'s: every buffer is made by `init`; the loop
/// reaches the mixer through an `Unmanaged` reference the engine keeps alive, polls an atomic
/// stop flag, and allocates, locks, prints and retains nothing (recovering from a lost device
/// excepted, which reopens it).
public final class MixerEngine: @unchecked Sendable {
  public struct Report: Sendable {
    public var failure: String?
    public var framesPlayed = 0
    public var underruns = 0
    public var suspends = 0
    public var reconnects = 0
    public var scheduling = "not started"
  }

  private let sink: ALSASink
  private let mixer: EventMixer
  private let liveMixer: Unmanaged<EventMixer>
  private let buffers: PeriodBuffers
  private let stopFlag = Atomic<Bool>(false)
  private let finished = DispatchSemaphore(value: 0)
  private let ended = Atomic<Bool>(false)
  private let liveUnderruns = Atomic<Int>(0)
  private let liveRecoveries = Atomic<Int>(0)
  private var report = Report()

  /// Whether the thread has ended (stopped, or the device failed for good).
  public var hasEnded: Bool { ended.load(ordering: .acquiring) }

  /// Underruns so far, published by the playback thread after each period it writes (any
  /// thread may read it while the device is open).
  public var underruns: Int { liveUnderruns.load(ordering: .relaxed) }

  /// Recoveries so far (reconnects and resumed suspends), published as ``underruns`` is.
  public var recoveries: Int { liveRecoveries.load(ordering: .relaxed) }

  /// `mixer` must mix at the device's negotiated rate.
  public init(sink: ALSASink, mixer: EventMixer, routing: PlaybackEngine.ChannelRouting) {
    self.sink = sink
    self.mixer = mixer
    liveMixer = Unmanaged.passUnretained(mixer)
    buffers = PeriodBuffers(configuration: sink.configuration, routing: routing)
  }

  deinit { buffers.deallocate() }

  /// Starts the playback thread and returns at once.
  public func start() {
    PlaybackEngine.startPlaybackThread(named: "hap service playback") { [self] scheduling in
      report.scheduling = scheduling
      loop()
      ended.store(true, ordering: .releasing)
      finished.signal()
    }
  }

  /// Asks the thread to end after the period it is writing (fade first with the mixer's
  /// `stopAll` when something may be sounding).
  public func stop() { stopFlag.store(true, ordering: .releasing) }

  /// Waits for the thread to end; returns what happened.
  public func wait() -> Report {
    finished.wait()
    report.underruns = sink.underruns
    report.suspends = sink.suspends
    report.reconnects = sink.reconnects
    return report
  }

  private func loop() {
    var watching = false
    do throws(SinkError) {
      while !stopFlag.load(ordering: .acquiring) {
        // Room first, then render: the commands that arrived meanwhile (a fire) go into the
        // period written now, not into one that waits a period for room (docs/service.md).
        try sink.waitForRoom()
        let mono = buffers.mono
        liveMixer._withUnsafeGuaranteedRef { $0.render(into: mono) }
        try buffers.write(to: sink)
        report.framesPlayed += buffers.period
        publishCounters()
        if !watching {
          watching = true
          hap_rt_probe_watch(1)
        }
      }
      hap_rt_probe_watch(0)
      try sink.drain()
    } catch {
      hap_rt_probe_watch(0)
      publishCounters()
      report.failure = error.message
    }
  }

  /// Two relaxed atomic stores: no allocation, no lock.
  private func publishCounters() {
    liveUnderruns.store(sink.underruns, ordering: .relaxed)
    liveRecoveries.store(sink.reconnects + sink.suspends, ordering: .relaxed)
  }
}
