import FoundationEssentials
import Glibc
import HapFormat

/// The attack, decay and release controls of a pattern (`HapticAttackTimeControl`,
/// `HapticDecayTimeControl`, `HapticReleaseTimeControl`) as a list of steps in frame units.
///
/// Core Haptics applies these dynamic parameters to "all active and future" events (SDK header
/// `CHHapticParameter.h`), so a change reaches events already sounding: their envelope goes on
/// from the level it has reached, at the new rate. They are steps: iOS refuses them as
/// `ParameterCurve`s (error -4820, iOS 26.1 loader, reverse-engineered), and hap's validator
/// refuses them too (`curve-parameter-unsupported`). A pattern built in code that has such a
/// curve anyway has each control point read as a step.
public struct EnvelopeControls: Sendable, Equatable {
  /// The control values in force from `frame` on (until the next change).
  public struct Change: Sendable, Equatable {
    public var frame: Int
    public var attack: Double
    public var decay: Double
    public var release: Double
  }

  /// Sorted by frame, one change per frame at most.
  public let changes: [Change]

  public static let none = EnvelopeControls(changes: [])

  init(changes: [Change]) { self.changes = changes }

  /// The haptic envelope controls of `pattern` or, with `audio`, the audio ones
  /// (`AudioAttackTimeControl`, ...), which act on audio events the same way.
  public init(pattern: Pattern, rate: Double, audio: Bool = false) {
    func chosen(_ id: DynamicParameterID) -> Bool { audio ? id.isAudioEnvelopeTime : id.isEnvelopeTime }
    var steps: [(frame: Int, order: Int, id: DynamicParameterID, value: Double)] = []
    func frame(_ time: Double) -> Int { Frames.from(seconds: time, rate: rate) }
    for (order, parameter) in pattern.parameters.enumerated() where chosen(parameter.id) {
      steps.append((frame(parameter.time), order, parameter.id, parameter.value))
    }
    var order = pattern.parameters.count
    for curve in pattern.curves where chosen(curve.id) {
      for point in curve.points {
        steps.append((frame(point.time), order, curve.id, point.value))
        order += 1
      }
    }
    guard !steps.isEmpty else {
      changes = []
      return
    }
    steps.sort { ($0.frame, $0.order) < ($1.frame, $1.order) }
    var current = Change(frame: 0, attack: 0, decay: 0, release: 0)
    var list: [Change] = []
    for step in steps {
      current.frame = step.frame
      switch step.id {
      case .hapticAttackTimeControl, .audioAttackTimeControl: current.attack = step.value
      case .hapticDecayTimeControl, .audioDecayTimeControl: current.decay = step.value
      default: current.release = step.value
      }
      if let last = list.last, last.frame == current.frame {
        list[list.count - 1] = current
      } else {
        list.append(current)
      }
    }
    changes = list
  }

  /// Index of the first change in `changes` after `frame` (binary search; allocates nothing).
  @inline(__always)
  static func index(after frame: Int, in changes: UnsafeBufferPointer<Change>) -> Int {
    var low = 0
    var high = changes.count
    while low < high {
      let mid = (low + high) / 2
      if changes[mid].frame <= frame { low = mid + 1 } else { high = mid }
    }
    return low
  }
}

extension DynamicParameterID {
  /// The three haptic envelope-time controls (attack, decay, release).
  var isEnvelopeTime: Bool {
    self == .hapticAttackTimeControl || self == .hapticDecayTimeControl || self == .hapticReleaseTimeControl
  }

  /// The three audio envelope-time controls.
  var isAudioEnvelopeTime: Bool {
    self == .audioAttackTimeControl || self == .audioDecayTimeControl || self == .audioReleaseTimeControl
  }
}

/// Live values of the envelope controls (NaN where not set live).
struct LiveEnvelope {
  var attack = Double.nan
  var decay = Double.nan
  var release = Double.nan

  var isActive: Bool { !attack.isNaN || !decay.isNaN || !release.isNaN }
}

/// One stretch of a continuous voice's envelope over which the level follows one formula:
/// linear (`level + rate × (n − start)`) for the attack, hold and release, geometric
/// (`level × rate^(n − start)`) for the decay of an event that is not sustained.
///
/// A piece ends where the stage ends, where the event's duration ends, or where an envelope
/// control changes; the next piece is planned there from the level reached. Every value is a
/// function of frame numbers alone, so the envelope does not depend on block sizes.
struct EnvelopePiece: Equatable {
  enum Stage: UInt8 {
    case attack
    case hold
    case decay
    case release
    case done
  }

  var stage: Stage
  /// First frame of the piece.
  var start: Int
  /// The frame after the last one of the piece: the next piece is planned there.
  var end: Int
  /// Where the stage itself ends (the attack reaches 1, the decay the floor, the release 0);
  /// when `end` is earlier, the stage goes on in the next piece.
  var stageEnd: Int
  /// Level at `start`.
  var level: Double
  /// Per-frame slope (linear stages) or factor (decay).
  var rate: Double
  /// The level the release started from (its slope is this over the release time).
  var releaseLevel: Double

  static let silent = EnvelopePiece(
    stage: .done, start: 0, end: .max, stageEnd: .max, level: 0, rate: 0, releaseLevel: 0)

  var isGeometric: Bool { stage == .decay }

  /// The level at `frame` (within or at the end of the piece).
  @inline(__always)
  func level(at frame: Int) -> Double {
    let k = Double(frame - start)
    return isGeometric ? level * pow(rate, k) : level + rate * k
  }
}

/// Plans the envelope of continuous voices piece by piece. Used by ``Schedule`` (to find where
/// each voice falls silent) and by ``Renderer`` (to render it); allocates nothing.
///
/// The envelope, from the event parameters plus the envelope controls in force (each clamped
/// to 0...1, mapped to seconds by ``EnvelopeTiming``):
/// 1. **attack**: linear from 0 to 1 over the attack time;
/// 2. **Sustained 1**: hold at 1 until `EventDuration` ends; **Sustained 0**: exponential decay
///    with the decay time as its time constant, and the event falls silent when the level
///    reaches ``floor`` (−60 dB), even before its duration ends;
/// 3. **release**: when the duration ends (at most 30 s after the start), linear from the level
///    reached to 0 over the release time.
/// A control change during a stage keeps the level and changes the rate from there on.
struct EnvelopePlanner {
  /// Where a decaying event falls silent: −60 dB.
  static let floor = 0.001

  /// The pattern's envelope-control changes (``EnvelopeControls/changes``), in memory the
  /// caller owns for the planner's lifetime.
  let changes: UnsafeBufferPointer<EnvelopeControls.Change>
  let rate: Double
  /// No sound runs past this frame (the renderer's `frameCount`; `Int.max` in the schedule).
  /// With the pattern's own controls nothing reaches it; a live control that lengthens a sound
  /// has it released (over at most the shortest release) so that it ends there, without a click.
  let limit: Int

  /// The first piece of `voice`, at its start.
  func first(_ voice: Schedule.Voice, live: LiveEnvelope) -> EnvelopePiece {
    plan(voice, stage: .attack, at: voice.start, level: 0, releaseLevel: 0, live: live)
  }

  /// The piece after `piece`, which has ended.
  func next(_ voice: Schedule.Voice, after piece: EnvelopePiece, live: LiveEnvelope) -> EnvelopePiece {
    let frame = piece.end
    var stage = piece.stage
    var level = piece.level(at: frame)
    if frame >= piece.stageEnd {
      switch stage {
      case .attack:
        stage = voice.sustained ? .hold : .decay
        level = 1
      case .decay, .release, .done:
        stage = .done
      case .hold:
        break
      }
    }
    return plan(voice, stage: stage, at: frame, level: level, releaseLevel: piece.releaseLevel, live: live)
  }

  /// Re-plans `piece` at `frame` (inside it) with the controls in force now.
  func replan(_ voice: Schedule.Voice, _ piece: EnvelopePiece, at frame: Int, live: LiveEnvelope) -> EnvelopePiece {
    guard piece.stage != .done else { return piece }
    return plan(
      voice, stage: piece.stage, at: frame, level: piece.level(at: frame), releaseLevel: piece.releaseLevel,
      live: live)
  }

  /// Advances `piece` until it covers `frame` (or the voice is done).
  func advance(_ voice: Schedule.Voice, _ piece: inout EnvelopePiece, to frame: Int, live: LiveEnvelope) {
    while piece.stage != .done && piece.end <= frame {
      piece = next(voice, after: piece, live: live)
    }
  }

  private func plan(
    _ voice: Schedule.Voice, stage: EnvelopePiece.Stage, at frame: Int, level: Double, releaseLevel: Double,
    live: LiveEnvelope
  ) -> EnvelopePiece {
    if stage == .done { return done(at: frame) }
    // Where the release begins: the event's end, or, when live controls may have lengthened
    // the sound, early enough for the shortest release to end by `limit`.
    let end = live.isActive ? min(voice.end, limit - shortestRelease) : voice.end
    // Constants, not variables: `piece` below captures them, and a captured variable is a heap
    // box in a debug build (an allocation on the playback thread).
    let ended = stage != .release && frame >= end
    let stage = ended ? .release : stage
    let releaseLevel = ended ? level : releaseLevel
    let next = EnvelopeControls.index(after: frame, in: changes)
    let change = next < changes.count ? changes[next].frame : Int.max
    let inForce = next > 0 ? changes[next - 1] : EnvelopeControls.Change(frame: 0, attack: 0, decay: 0, release: 0)
    func clamp01(_ x: Double) -> Double { min(max(x, 0), 1) }
    func piece(_ rate: Double, stageEnd: Int, end: Int) -> EnvelopePiece {
      EnvelopePiece(
        stage: stage, start: frame, end: min(end, stageEnd), stageEnd: stageEnd, level: level, rate: rate,
        releaseLevel: releaseLevel)
    }
    switch stage {
    case .attack:
      if level >= 1 {
        return plan(voice, stage: voice.sustained ? .hold : .decay, at: frame, level: 1, releaseLevel: 0, live: live)
      }
      let time = clamp01(voice.attackTime + (live.attack.isNaN ? inForce.attack : live.attack))
      let frames = EnvelopeTiming.attack(time) * rate
      let stageEnd = frame + max(1, Int(((1 - level) * frames).rounded(.up)))
      return piece(1 / frames, stageEnd: stageEnd, end: min(end, change))
    case .hold:
      return piece(0, stageEnd: .max, end: end)
    case .decay:
      if level <= EnvelopePlanner.floor { return done(at: frame) }
      let time = clamp01(voice.decayTime + (live.decay.isNaN ? inForce.decay : live.decay))
      let constant = EnvelopeTiming.decay(time) * rate
      let stageEnd = frame + max(1, Int((constant * log(level / EnvelopePlanner.floor)).rounded(.up)))
      return piece(exp(-1 / constant), stageEnd: stageEnd, end: min(end, change))
    case .release:
      if level <= 0 || releaseLevel <= 0 || frame >= limit { return done(at: frame) }
      let time = clamp01(voice.releaseTime + (live.release.isNaN ? inForce.release : live.release))
      let frames = max(1, (EnvelopeTiming.release(time) * rate).rounded())
      var slope = -releaseLevel / frames
      var count = level == releaseLevel ? Int(frames) : Int((level / -slope).rounded(.up))
      if count > limit - frame {
        count = limit - frame
        slope = -level / Double(count)
      }
      return piece(slope, stageEnd: frame + max(1, count), end: change)
    case .done:
      return done(at: frame)
    }
  }

  /// Frames of the shortest release (ReleaseTime 0).
  private var shortestRelease: Int { max(1, Int((EnvelopeTiming.release(0) * rate).rounded())) }

  private func done(at frame: Int) -> EnvelopePiece {
    var piece = EnvelopePiece.silent
    piece.start = frame
    return piece
  }
}
