import CALSA
import FoundationEssentials
import Glibc
import HapCore

/// A playback device opened through ALSA: the sink of `hap play`.
///
/// All ALSA calls and all of its fault handling live here, and nowhere else:
/// - underrun (-EPIPE): re-prepare and write again; counted;
/// - suspend (-ESTRPIPE): resume, or re-prepare if it cannot; counted;
/// - device lost (-ENODEV and friends): close, and try to reopen with the same configuration
///   for up to `reconnectSeconds` (or until ``abandonReconnect`` says stop: the engine's stop
///   request), then carry on writing where playback was; if it does not come back, fail with
///   ``SinkError/lost(device:status:seconds:)`` (``SinkError/abandoned(device:status:)`` when a stop
///   ended the wait).
///
/// Steady-state `write` calls go straight into alsa-lib and allocate nothing. The recovery
/// paths (re-prepare is cheap; reopening is not) are the exception, on purpose.
public final class ALSASink: PCMSink {
  /// What to ask the device for.
  public struct Request: Sendable {
    public var rate: Int
    /// nil: the best the device takes, float first.
    public var format: SampleFormat?
    /// nil: the fewest channels the device takes, and at least ``fewestChannels``.
    public var channels: Int?
    /// With `channels` nil: the fewest channels to ask for (the highest channel a layout names),
    /// the device's nearest when it takes fewer.
    public var fewestChannels = 1
    public var latency: Double
    public var periods: Int
    /// How far ahead the writer renders (``RenderAhead``): the whole buffer, or just in time.
    public var renderAhead: RenderAhead

    /// Just in time: seconds of audio left queued when the writer is woken (rounded down to whole
    /// periods, at least one, since a device wakes its writer at period boundaries; the device
    /// starts once that and a period are written), so a period rendered after ``ALSASink/waitForRoom()``
    /// plays that much later instead of a whole buffer later. nil (``RenderAhead/full``, or a
    /// margin of at least the buffer less a period): the writer wakes whenever a period has room
    /// and the buffer is kept full.
    public var wakeAt: Double? {
      if case .justInTime(let margin) = renderAhead { return margin }
      return nil
    }

    public init(
      rate: Int = 48000, format: SampleFormat? = nil, channels: Int? = nil, latency: Double = 0.010, periods: Int = 4,
      renderAhead: RenderAhead = .full
    ) {
      self.rate = rate
      self.format = format
      self.channels = channels
      self.latency = latency
      self.periods = periods
      self.renderAhead = renderAhead
    }
  }

  /// What the device agreed to.
  public struct Configuration: Sendable, Equatable {
    public var rate: Int
    public var format: SampleFormat
    public var channels: Int
    public var periodFrames: Int
    public var bufferFrames: Int

    public init(rate: Int, format: SampleFormat, channels: Int, periodFrames: Int, bufferFrames: Int) {
      self.rate = rate
      self.format = format
      self.channels = channels
      self.periodFrames = periodFrames
      self.bufferFrames = bufferFrames
    }
  }

  public let device: String
  /// The ALSA configuration `device` is opened from when it is not ALSA's own (nil): the text
  /// of one built in memory, as for hap's simulated exciter.
  public let alsaConfiguration: String?
  public let request: Request
  public private(set) var configuration: Configuration
  public let reconnectSeconds: Double
  /// Asked while waiting for a lost device to come back: stop waiting when it says so (the
  /// device engine points it at its stop request).
  public var abandonReconnect: @Sendable () -> Bool = { false }

  // Counters, written by the playback thread and read after it has finished.
  public private(set) var underruns = 0
  public private(set) var suspends = 0
  public private(set) var reconnects = 0
  public private(set) var framesWritten = 0

  private var pcm: OpaquePointer?
  private let bytesPerFrame: Int

  /// Opens and configures `device`, from ALSA's configuration or from `alsaConfiguration` alone
  /// (see ``alsaConfiguration``). Errors carry the device and what it refused.
  public init(
    device: String, request: Request, reconnectSeconds: Double = 2, alsaConfiguration: String? = nil
  ) throws(SinkError) {
    self.device = device
    self.alsaConfiguration = alsaConfiguration
    self.request = request
    self.reconnectSeconds = reconnectSeconds
    let (pcm, configuration) = try ALSASink.open(device, alsaConfiguration, request)
    self.pcm = pcm
    self.configuration = configuration
    bytesPerFrame = configuration.channels * configuration.format.bytesPerSample
  }

  private static func open(_ device: String, _ alsaConfiguration: String?, _ request: Request) throws(SinkError) -> (
    OpaquePointer, Configuration
  ) {
    var handle: OpaquePointer?
    let error = hap_pcm_open(&handle, device, alsaConfiguration)
    guard error >= 0, let handle else {
      throw SinkError.openFailure(device, status: error)
    }
    var config = hap_pcm_config(
      rate: UInt32(request.rate), format: request.format?.alsaCode ?? -1, channels: UInt32(request.channels ?? 0),
      buffer_us: UInt(request.latency * 1_000_000), periods: UInt32(request.periods), period_frames: 0,
      buffer_frames: 0,
      wake_frames: UInt(((request.wakeAt ?? 0) * Double(request.rate)).rounded()),
      channels_at_least: UInt32(max(1, request.fewestChannels))
    )
    var refused = [CChar](repeating: 0, count: 256)
    let status = hap_pcm_configure(handle, &config, &refused, refused.count)
    guard status >= 0, let format = SampleFormat(alsaCode: config.format) else {
      hap_pcm_close(handle)
      let what = String(decoding: refused.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      throw .refused(device: device, what: what, status: status)
    }
    if let wanted = request.channels, Int(config.channels) != wanted {
      hap_pcm_close(handle)
      throw .channelsRefused(device: device, wanted: wanted, offered: Int(config.channels))
    }
    return (
      handle,
      Configuration(
        rate: Int(config.rate), format: format, channels: Int(config.channels), periodFrames: Int(config.period_frames),
        bufferFrames: Int(config.buffer_frames))
    )
  }

  /// Writes whole frames, recovering from underruns, suspends and a lost device.
  public func write(_ bytes: UnsafeRawBufferPointer) throws(SinkError) {
    guard let base = bytes.baseAddress else { return }
    let frames = bytes.count / bytesPerFrame
    var done = 0
    while done < frames {
      guard let pcm else { throw .closed(device: device) }
      let result = hap_pcm_write(pcm, base + done * bytesPerFrame, UInt(frames - done))
      if result >= 0 {
        done += result
        framesWritten += result
        continue
      }
      try recover(from: Int32(result))
    }
  }

  /// The wake-up level of ``Request/wakeAt`` in frames: whole periods, at least one (a device
  /// wakes its writer at period boundaries); nil when it would not leave a period of the buffer.
  public var wakeFrames: Int? {
    guard let wakeAt = request.wakeAt, wakeAt > 0 else { return nil }
    let period = configuration.periodFrames
    // At the rate the device took (the one the periods are counted in), not the one asked for.
    let asked = Int((wakeAt * Double(configuration.rate)).rounded())
    let wake = max(period, asked - asked % period)
    return wake + period < configuration.bufferFrames - configuration.bufferFrames % period ? wake : nil
  }

  /// Frames written and not yet played (0 when the device cannot say; the next write
  /// recovers).
  public func queuedFrames() -> Int {
    guard let pcm else { return 0 }
    return max(0, hap_pcm_delay(pcm))
  }

  /// Waits until a period can be written without blocking, recovering as ``write(_:)`` does.
  /// A caller that renders after this wait instead of before the write renders a period later
  /// in time, so what it renders (a fire, a control) reaches the device a period sooner.
  public func waitForRoom() throws(SinkError) {
    guard let pcm else { return }
    let status = hap_pcm_wait(pcm, 1000)
    if status < 0 { try recover(from: status) }
  }

  /// Looks at a stopped stream's device without waiting: one that was lost (unplugged) or
  /// suspended meanwhile is recovered as ``write(_:)`` would, so an idle service notices.
  public func checkDevice() throws(SinkError) {
    guard let pcm else { return }
    let status = hap_pcm_wait(pcm, 0)
    if status < 0 { try recover(from: status) }
  }

  private func recover(from error: Int32) throws(SinkError) {
    guard let pcm else { return }
    switch -error {
    case EINTR, EAGAIN:
      return
    case EPIPE:
      underruns += 1
      let status = hap_pcm_prepare(pcm)
      if status < 0 { try reconnectOrFail(status) }
    case ESTRPIPE:
      suspends += 1
      var status = hap_pcm_resume(pcm)
      var tries = 0
      while status == -EAGAIN && tries < 1000 {
        usleep(1000)
        status = hap_pcm_resume(pcm)
        tries += 1
      }
      if status < 0 && hap_pcm_prepare(pcm) < 0 { try reconnectOrFail(status) }
    default:
      try reconnectOrFail(error)
    }
  }

  /// The device is gone (or broken): reopen it with the same configuration, for up to
  /// `reconnectSeconds`.
  private func reconnectOrFail(_ error: Int32) throws(SinkError) {
    if let pcm { hap_pcm_close(pcm) }
    pcm = nil
    // The monotonic clock: a wall clock that is set back (NTP, the user) must not stretch the
    // wait, nor one set forward cut it short.
    let deadline = ALSASink.monotonicNanoseconds() + UInt64(reconnectSeconds * 1e9)
    let fixed = Request(
      rate: configuration.rate, format: configuration.format, channels: configuration.channels,
      latency: request.latency, periods: request.periods, renderAhead: request.renderAhead)
    while ALSASink.monotonicNanoseconds() < deadline && !abandonReconnect() {
      if let (handle, configuration) = try? ALSASink.open(device, alsaConfiguration, fixed),
        configuration == self.configuration
      {
        pcm = handle
        reconnects += 1
        return
      } else {
        usleep(20_000)
      }
    }
    if abandonReconnect() { throw .abandoned(device: device, status: error) }
    throw .lost(device: device, status: error, seconds: reconnectSeconds)
  }

  /// CLOCK_MONOTONIC, in nanoseconds.
  static func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
  }

  /// Makes a drained device ready to play again (`hap play --watch` keeps the device open
  /// between plays); a device that was lost meanwhile is reopened as ``write(_:)`` would.
  public func prepare() throws(SinkError) {
    guard let pcm else { throw .closed(device: device) }
    let status = hap_pcm_prepare(pcm)
    if status < 0 { try reconnectOrFail(status) }
  }

  /// Stops the stream at once, dropping what is queued, and makes it ready to start again with
  /// the next write (which starts it, as the first did). The device stays open. A device lost
  /// meanwhile is reopened as ``write(_:)`` would.
  public func stopStream() throws(SinkError) {
    guard let pcm else { throw .closed(device: device) }
    let status = hap_pcm_drop(pcm)
    if status < 0 { try reconnectOrFail(status) }
    try prepare()
  }

  /// Plays out everything queued.
  public func drain() throws(SinkError) {
    guard let pcm else { return }
    let status = hap_pcm_drain(pcm)
    if status < 0 && status != -EPIPE {
      throw .drainFailed(device: device, status: status)
    }
  }

  public func close(success: Bool) {
    guard let pcm else { return }
    if !success { hap_pcm_drop(pcm) }
    hap_pcm_close(pcm)
    self.pcm = nil
  }

  deinit { close(success: false) }
}
