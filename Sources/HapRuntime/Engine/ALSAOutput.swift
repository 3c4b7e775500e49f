import CALSA
import FoundationEssentials
import Glibc
import HapALSA
import HapCore

/// The engine's ALSA back end: a sound device (``ALSASink``) pulling periods, and a second device
/// fed the same periods in its own layout (the pattern's sound, `--audio-device`). It owns the
/// render-ahead policy (just in time: ``JustInTimeMargin``), the idle stop of the stream and
/// every xrun, suspend and reconnect (the sink's).
///
/// **Real-time contract**: as the engine's (``DeviceEngine``): reached through `Unmanaged`, it
/// allocates, locks and retains nothing per period.
final class ALSAOutput: EngineOutput {
  let sink: ALSASink
  /// The second device; `secondSink`: the same without reference counting, for the loop.
  let second: ALSASink?
  private let secondSink: Unmanaged<ALSASink>?
  private let secondBuffers: PeriodBuffers?
  private let buffers: PeriodBuffers
  /// Just in time: what is left queued when the thread renders the next period, widened after
  /// an underrun and narrowed after a clean stretch; nil: the buffer kept full.
  private var margin: JustInTimeMargin?
  /// `margin`'s current level in frames; 0: whenever a period has room (the buffer kept full).
  private var wakeLevel: Int
  /// Periods written since the last that held sound, up to a buffer's worth: while below that,
  /// sound may still be queued, so an underrun is heard.
  private var periodsSinceSound = Int.max / 2
  /// Silent periods after which an idle source's stream stops (``DeviceEngine/idleAfter``, at
  /// least a buffer).
  private let idlePeriods: Int

  /// `planes`: the channel layout resolved for `sink`; `second`: another device, opened with the
  /// same rate and period size, that plays its own layout of the same periods.
  init(sink: ALSASink, planes: [Int], second: (sink: ALSASink, planes: [Int])?, stop: StopRequest) {
    self.sink = sink
    self.second = second?.sink
    secondSink = second.map { Unmanaged.passUnretained($0.sink) }
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
      configuration.bufferFrames / period + 1, Int(DeviceEngine<Player>.idleAfter * Double(configuration.rate)) / period)
    sink.abandonReconnect = { stop.isRequested }
    second?.sink.abandonReconnect = { stop.isRequested }
  }

  deinit {
    secondBuffers?.deallocate()
    buffers.deallocate()
  }

  var frames: PeriodFrames { buffers.frames }
  var periodFrames: Int { buffers.period }

  static var takesIdlePeriods: Bool { true }

  func begin() throws(SinkError) {}
  func resolveProbe() { hap_rt_probe_resolve() }
  func watch(_ on: Bool) { hap_rt_probe_watch(on ? 1 : 0) }

  /// Room first (on both devices: the same clock, so mostly at once), then, just in time, the
  /// margin: the input that arrived while waiting goes into the period written now.
  func waitForPeriod() throws(SinkError) {
    try sink.waitForRoom()
    try onSecond { sink throws(SinkError) in try sink.waitForRoom() }
    waitUntilDue()
  }

  /// Writes the period to the device, then to the second.
  func write(_ frames: PeriodFrames, report: inout EngineReport) throws(SinkError) {
    try buffers.write(to: sink)
    if let secondBuffers {
      try onSecond { sink throws(SinkError) in try secondBuffers.write(to: sink) }
    }
    adaptMargin(audible: margin != nil && !frames.isSilent)
  }

  /// Just in time, whether the stream may stop: what is queued on the device is silence (the
  /// periods written since the last sound fill the buffer, and last at least
  /// ``DeviceEngine/idleAfter``).
  var mayRest: Bool { margin != nil && periodsSinceSound >= idlePeriods }

  /// Stops the streams (their queued silence dropped).
  func rest(report: inout EngineReport) throws(SinkError) {
    try sink.stopStream()
    try onSecond { sink throws(SinkError) in try sink.stopStream() }
  }

  func resume() { periodsSinceSound = 0 }

  func checkDevice() throws(SinkError) { try sink.checkDevice() }

  func drain() throws(SinkError) {
    try sink.drain()
    try second?.drain()
  }

  var underruns: Int {
    sink.underruns + (secondSink?._withUnsafeGuaranteedRef { $0.underruns } ?? 0)
  }

  var recoveries: Int {
    sink.reconnects + sink.suspends + (secondSink?._withUnsafeGuaranteedRef { $0.reconnects + $0.suspends } ?? 0)
  }

  func finish(_ report: inout EngineReport) {
    report.underruns = sink.underruns + (second?.underruns ?? 0)
    report.suspends = sink.suspends + (second?.suspends ?? 0)
    report.reconnects = sink.reconnects + (second?.reconnects ?? 0)
  }

  /// Runs `body` on the second device, when there is one, without reference counting.
  @inline(__always)
  private func onSecond(_ body: (ALSASink) throws(SinkError) -> Void) throws(SinkError) {
    try secondSink?.calling(body)
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
}
