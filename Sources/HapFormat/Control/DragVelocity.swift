/// `hap drag`: finger (or mouse) velocity from Linux input events, for the textured drag.
///
/// Feed it the events of an evdev stream (`struct input_event`: time, type, code, value) in
/// order; at each `SYN_REPORT` it adds up the motion of that report and returns the velocity
/// (points per second) over a sliding window of the reports' own timestamps: the motion of the
/// reports in `(t - window, t]`, divided by the window. Constant motion therefore reads its
/// true speed once the window has filled (20 points every 10 ms: 2000 points/s after 50 ms),
/// and rises to it in steps of one report before that.
///
/// - Relative motion (mice: `REL_X`, `REL_Y`): counts are points.
/// - Absolute motion (touchpads: `ABS_X`/`ABS_Y`, or `ABS_MT_POSITION_X/Y` of slot 0 where the
///   device has no single-touch axes): differences of successive positions while touching,
///   times a per-axis scale (points per device unit; 1 where the resolution is unknown). A new
///   touch (`BTN_TOUCH` down) starts afresh, so it does not jump; lifting the finger
///   (`BTN_TOUCH` up) drops the velocity to 0 at once.
/// - No motion for a whole window: the velocity falls to 0, timed `window` after the last
///   motion (offline, noticed at the next event; live, call `flush()` when nothing has arrived
///   for a window).
///
/// At most one sample per `SYN_REPORT` (plus the zero after a pause). Pure computation: no
/// device I/O.
public struct DragVelocity: Sendable {
  /// One decoded input event. Time is kept in whole microseconds, as the kernel reports it.
  public struct Event: Sendable, Equatable {
    public var microseconds: Int64
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(microseconds: Int64, type: UInt16, code: UInt16, value: Int32) {
      self.microseconds = microseconds
      self.type = type
      self.code = code
      self.value = value
    }

    /// `time` in seconds (rounded to the microsecond).
    public init(time: Double, type: UInt16, code: UInt16, value: Int32) {
      self.init(microseconds: Int64((time * 1e6).rounded()), type: type, code: code, value: value)
    }

    public var time: Double { Double(microseconds) / 1e6 }
  }

  /// A velocity in points per second, at `time` (seconds, on the events' clock).
  public struct Sample: Sendable, Equatable {
    public var time: Double
    public var vx: Double
    public var vy: Double

    public init(time: Double, vx: Double, vy: Double) {
      self.time = time
      self.vx = vx
      self.vy = vy
    }
  }

  // Event types and codes (linux/input-event-codes.h).
  public static let EV_SYN: UInt16 = 0
  public static let EV_KEY: UInt16 = 1
  public static let EV_REL: UInt16 = 2
  public static let EV_ABS: UInt16 = 3
  public static let SYN_REPORT: UInt16 = 0
  public static let SYN_DROPPED: UInt16 = 3
  public static let BTN_TOUCH: UInt16 = 0x14a
  public static let REL_X: UInt16 = 0
  public static let REL_Y: UInt16 = 1
  public static let ABS_X: UInt16 = 0
  public static let ABS_Y: UInt16 = 1
  public static let ABS_MT_SLOT: UInt16 = 0x2f
  public static let ABS_MT_POSITION_X: UInt16 = 0x35
  public static let ABS_MT_POSITION_Y: UInt16 = 0x36
  public static let ABS_MT_TRACKING_ID: UInt16 = 0x39

  /// `struct input_event` on 64-bit Linux: tv_sec (Int64), tv_usec (Int64), type (UInt16),
  /// code (UInt16), value (Int32), little-endian.
  public static let recordSize = 24

  /// 1 point = 1/160 inch.
  public static let millimetresPerPoint = 0.15875

  /// Points per device unit for an absolute axis whose resolution is `resolution` units per
  /// millimetre (`struct input_absinfo`); 1 (units are points) when it is unknown (0).
  public static func pointsPerUnit(resolution: Int32) -> Double {
    resolution > 0 ? 1 / (Double(resolution) * millimetresPerPoint) : 1
  }

  /// Decodes whole `input_event` records (a trailing partial record is ignored).
  public static func decode(_ bytes: UnsafeRawBufferPointer) -> [Event] {
    var events: [Event] = []
    events.reserveCapacity(bytes.count / recordSize)
    var offset = 0
    while offset + recordSize <= bytes.count {
      let seconds = Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int64.self))
      let micros = Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: Int64.self))
      let type = UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt16.self))
      let code = UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 18, as: UInt16.self))
      let value = Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 20, as: Int32.self))
      events.append(Event(microseconds: seconds &* 1_000_000 &+ micros, type: type, code: code, value: value))
      offset += recordSize
    }
    return events
  }

  /// The window, in seconds.
  public let window: Double
  private let windowMicroseconds: Int64
  /// Points per device unit for each absolute axis code (missing: 1).
  public let absoluteScale: [UInt16: Double]

  /// Motion reported at each SYN_REPORT still in the window (oldest first).
  private var reports: [(microseconds: Int64, dx: Double, dy: Double)] = []
  /// Motion of the report being assembled.
  private var pendingX = 0.0
  private var pendingY = 0.0
  /// Absolute positions: now, and at the last report (nil: none yet in this touch).
  private var singleNow: (x: Int32?, y: Int32?) = (nil, nil)
  private var singleLast: (x: Int32?, y: Int32?) = (nil, nil)
  private var multiNow: (x: Int32?, y: Int32?) = (nil, nil)
  private var multiLast: (x: Int32?, y: Int32?) = (nil, nil)
  private var hasSingleTouchAxes = false
  private var slot: Int32 = 0
  private var touching = true
  private var lifted = false
  /// After SYN_DROPPED: motion is discarded up to the next SYN_REPORT.
  private var dropping = false
  /// The last velocity returned.
  public private(set) var current = (vx: 0.0, vy: 0.0)

  /// `window` in seconds (default 50 ms); `absoluteScale`: points per unit by axis code.
  public init(window: Double = 0.05, absoluteScale: [UInt16: Double] = [:]) {
    self.window = window
    windowMicroseconds = max(1, Int64((window * 1e6).rounded()))
    self.absoluteScale = absoluteScale
  }

  /// Takes the next event; returns the velocity samples it produces (none, one at a
  /// SYN_REPORT, or first a zero when a pause of a whole window has just ended).
  public mutating func feed(_ event: Event) -> [Sample] {
    var samples: [Sample] = []
    if let newest = reports.last, event.microseconds >= newest.microseconds + windowMicroseconds {
      reports.removeAll()
      if current != (0, 0) {
        current = (0, 0)
        samples.append(Sample(time: Double(newest.microseconds + windowMicroseconds) / 1e6, vx: 0, vy: 0))
      }
    }
    if dropping {
      // Positions still update (they are state, not motion); nothing else counts.
      if event.type == Self.EV_SYN && event.code == Self.SYN_REPORT {
        dropping = false
        resynchronise()
        return samples
      }
      if event.type != Self.EV_ABS { return samples }
    }
    switch event.type {
    case Self.EV_REL:
      if event.code == Self.REL_X { pendingX += Double(event.value) }
      if event.code == Self.REL_Y { pendingY += Double(event.value) }
    case Self.EV_ABS:
      switch event.code {
      case Self.ABS_X:
        singleNow.x = event.value
        hasSingleTouchAxes = true
      case Self.ABS_Y:
        singleNow.y = event.value
        hasSingleTouchAxes = true
      case Self.ABS_MT_SLOT: slot = event.value
      case Self.ABS_MT_POSITION_X where slot == 0: multiNow.x = event.value
      case Self.ABS_MT_POSITION_Y where slot == 0: multiNow.y = event.value
      case Self.ABS_MT_TRACKING_ID where slot == 0 && event.value < 0:
        multiNow = (nil, nil)
        multiLast = (nil, nil)
      default: break
      }
    case Self.EV_KEY where event.code == Self.BTN_TOUCH:
      if event.value != 0 {
        touching = true
        singleLast = (nil, nil)
        multiLast = (nil, nil)
      } else {
        touching = false
        lifted = true
      }
    case Self.EV_SYN:
      if event.code == Self.SYN_DROPPED {
        dropping = true
      } else if event.code == Self.SYN_REPORT, let sample = report(at: event.microseconds) {
        samples.append(sample)
      }
    default: break
    }
    return samples
  }

  /// Nothing has arrived for a window (live: a poll timeout): the velocity falls to 0. Returns
  /// that zero, timed a window after the last motion, unless it is 0 already.
  public mutating func flush() -> Sample? {
    let newest = reports.last
    reports.removeAll()
    guard current != (0, 0) else { return nil }
    current = (0, 0)
    return Sample(time: Double((newest?.microseconds ?? 0) + windowMicroseconds) / 1e6, vx: 0, vy: 0)
  }

  /// The end of dropped events: the positions they left are where motion continues from.
  private mutating func resynchronise() {
    pendingX = 0
    pendingY = 0
    singleLast = singleNow
    multiLast = multiNow
  }

  private func difference(_ now: Int32?, _ last: Int32?, scale code: UInt16) -> Double {
    guard let now, let last else { return 0 }
    return Double(Int64(now) - Int64(last)) * (absoluteScale[code] ?? 1)
  }

  private mutating func report(at time: Int64) -> Sample? {
    var dx = pendingX
    var dy = pendingY
    pendingX = 0
    pendingY = 0
    if touching {
      if hasSingleTouchAxes {
        dx += difference(singleNow.x, singleLast.x, scale: Self.ABS_X)
        dy += difference(singleNow.y, singleLast.y, scale: Self.ABS_Y)
      } else {
        dx += difference(multiNow.x, multiLast.x, scale: Self.ABS_MT_POSITION_X)
        dy += difference(multiNow.y, multiLast.y, scale: Self.ABS_MT_POSITION_Y)
      }
      singleLast = singleNow
      multiLast = multiNow
    } else {
      singleLast = (nil, nil)
      multiLast = (nil, nil)
    }
    let moved = dx != 0 || dy != 0
    if lifted {
      // The finger left the pad: the drag is over, whatever the window holds.
      lifted = false
      reports.removeAll()
    } else if moved {
      reports.append((time, dx, dy))
    }
    if let k = reports.firstIndex(where: { $0.microseconds > time - windowMicroseconds }) {
      reports.removeFirst(k)
    } else {
      reports.removeAll()
    }
    var sumX = 0.0
    var sumY = 0.0
    for report in reports {
      sumX += report.dx
      sumY += report.dy
    }
    let span = Double(windowMicroseconds)
    let velocity = (vx: sumX * 1e6 / span, vy: sumY * 1e6 / span)
    guard moved || velocity != current else { return nil }
    current = velocity
    return Sample(time: Double(time) / 1e6, vx: velocity.vx, vy: velocity.vy)
  }
}
