import Foundation
import HapCore
import Synchronization

/// Plays a list of patterns on an ALSA device from a dedicated real-time thread.
///
/// **Real-time contract.** Everything is built before the thread starts: the renderers (and so
/// the schedules and every render buffer), the period buffers, the device and its parameters.
/// Each period the thread renders from the compiled schedule, converts the format, writes to
/// the device and handles the result. It allocates nothing, takes no lock, prints nothing and
/// touches no file; controls (the stop request) arrive through an atomic flag, and the counters
/// it keeps are read by the main thread only after it has finished. The only exception is
/// recovering from a lost device, which has to reopen it.
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
    /// Length of the fade to silence on stop, in seconds (at most one period).
    public var fade: Double = 0.010
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
  private let options: Options
  private let stopRequest: StopRequest
  private let period: Int
  private let channels: Int
  private let format: SampleFormat
  private let mono: UnsafeMutableBufferPointer<Float>
  private let interleaved: UnsafeMutableBufferPointer<Float>
  private let bytes: UnsafeMutableRawBufferPointer
  private var report: Report
  /// The renderers without reference counting, for the loop (`renderers` keeps them alive).
  private let voices: UnsafeMutableBufferPointer<Unmanaged<Renderer>>

  /// `renderers` must render at the device's negotiated rate. Playback fades out and stops
  /// when `stop` is requested (e.g. `StopRequest.interrupt`, raised by Ctrl-C).
  public init(sink: ALSASink, renderers: [Renderer], options: Options, stop: StopRequest = StopRequest()) {
    self.sink = sink
    self.renderers = renderers
    self.options = options
    stopRequest = stop
    period = sink.configuration.periodFrames
    channels = sink.configuration.channels
    format = sink.configuration.format
    mono = .allocate(capacity: period)
    mono.initialize(repeating: 0)
    interleaved = .allocate(capacity: period * channels)
    interleaved.initialize(repeating: 0)
    bytes = .allocate(byteCount: period * channels * format.bytesPerSample, alignment: 16)
    bytes.initializeMemory(as: UInt8.self, repeating: 0)
    voices = .allocate(capacity: max(1, renderers.count))
    for (k, renderer) in renderers.enumerated() { (voices.baseAddress! + k).initialize(to: Unmanaged.passUnretained(renderer)) }
    report = Report(
      outcome: .completed, framesPlayed: 0, underruns: 0, suspends: 0, reconnects: 0, firstPeriodQueued: nil,
      scheduling: "not started")
  }

  deinit {
    mono.deallocate()
    interleaved.deallocate()
    bytes.deallocate()
    voices.deallocate()
  }

  /// Asks the playback thread to fade out and stop (safe from any thread).
  public func stop() { stopRequest.request() }

  private let finished = DispatchSemaphore(value: 0)
  private let started = Atomic<Bool>(false)

  /// Whether the first period has been queued on the device (or playback already ended).
  public var hasStarted: Bool { started.load(ordering: .acquiring) }

  /// Starts playback on its own thread and returns at once.
  public func start() {
    let thread = Thread { [self] in
      report.scheduling = PlaybackEngine.requestRealTime()
      playLoop()
      started.store(true, ordering: .releasing)
      finished.signal()
    }
    thread.stackSize = 1 << 20
    thread.name = "hap playback"
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

  /// SCHED_FIFO where the system permits it (root, or CAP_SYS_NICE / rtprio limits).
  static func requestRealTime() -> String {
    var parameters = sched_param()
    parameters.sched_priority = 20
    let status = pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters)
    if status == 0 { return "SCHED_FIFO priority 20" }
    return "normal (SCHED_FIFO refused: \(String(cString: strerror(status))))"
  }

  /// The real-time loop. See the contract on the type.
  private func playLoop() {
    var item = 0
    var loop = 0
    var gapLeft = 0
    let gapFrames = Int((options.gap * Double(sink.configuration.rate)).rounded())
    var finished = renderers.isEmpty
    let fadeFrames = max(1, Int(options.fade * Double(sink.configuration.rate)))
    var fadeDone = 0
    do throws(SinkError) {
      while !finished {
        let stopping = stopRequest.isRequested
        // Fill one period: pattern, gap, next pattern, ..., then silence.
        var filled = 0
        while filled < period && !finished {
          if gapLeft > 0 {
            let n = min(gapLeft, period - filled)
            (mono.baseAddress! + filled).update(repeating: 0, count: n)
            filled += n
            gapLeft -= n
            continue
          }
          let (n, remaining) = voices[item]._withUnsafeGuaranteedRef { renderer in
            (renderer.render(into: UnsafeMutableBufferPointer(rebasing: mono[filled..<period])), renderer.remaining)
          }
          filled += n
          if remaining == 0 {
            item += 1
            if item == renderers.count {
              item = 0
              loop += 1
              if let loops = options.loops, loop >= loops {
                finished = true
                break
              }
            }
            voices[item]._withUnsafeGuaranteedRef { $0.reset() }
            gapLeft = gapFrames
          }
        }
        if filled < period { (mono.baseAddress! + filled).update(repeating: 0, count: period - filled) }
        if stopping {
          // Fade to silence across as many periods as the fade takes, then stop.
          if fadeOut(fadeDone, fadeFrames) { finished = true }
          fadeDone += period
        }
        try writePeriod()
      }
      try sink.drain()
      report.outcome = stopRequest.isRequested ? .stopped : .completed
    } catch {
      report.outcome = .failed(error.message)
    }
  }

  /// Applies the part of the linear fade to silence (`length` frames long, `done` of them
  /// already played) that falls in this period; returns true when the fade is complete.
  private func fadeOut(_ done: Int, _ length: Int) -> Bool {
    for n in 0..<period {
      let k = done + n
      mono[n] *= k < length ? Float(length - k) / Float(length + 1) : 0
    }
    return done + period >= length
  }

  private func writePeriod() throws(SinkError) {
    let source: UnsafeBufferPointer<Float>
    if channels == 1 {
      source = UnsafeBufferPointer(mono)
    } else {
      switch options.routing {
      case .all:
        for n in 0..<period {
          for c in 0..<channels { interleaved[n * channels + c] = mono[n] }
        }
      case .single(let channel):
        for n in 0..<period {
          for c in 0..<channels { interleaved[n * channels + c] = c == channel ? mono[n] : 0 }
        }
      }
      source = UnsafeBufferPointer(interleaved)
    }
    format.encode(source, into: bytes.baseAddress!)
    try sink.write(UnsafeRawBufferPointer(bytes))
    if report.firstPeriodQueued == nil {
      report.firstPeriodQueued = DispatchTime.now().uptimeNanoseconds
      started.store(true, ordering: .releasing)
    }
    report.framesPlayed += period
  }
}
