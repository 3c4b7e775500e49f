import FoundationEssentials
import Glibc
import HapCore

/// A finger's drag as control: `hap drag`'s touchpad (or a recording of one) and the textured
/// drag of seed 000, live or as timed messages.
extension Evdev.Source {
  /// The touchpad (or the recording) as a control source: its velocity, mapped as textured
  /// drag, pushed from a reader thread; a recording ends with a stop.
  public func controlSource(map: VelocityMap, window: Double) -> PlaybackSession.ControlSource {
    { [self] queue in
      let deliver: @Sendable (DragVelocity.Sample) -> Void = { sample in
        let (intensity, sharpness) = map.messages(vx: sample.vx, vy: sample.vy, time: nil)
        queue.push(intensity)
        queue.push(sharpness)
      }
      switch self {
      case .device(let fd, _, let scale):
        Evdev.startReading(fd: fd, scale: scale, window: window, deliver: deliver)
      case .recording(let events):
        Evdev.startReplaying(events, window: window, deliver: deliver) {
          queue.push(ControlMessage(action: .stop)) { usleep(1000) }
        }
      }
      return nil
    }
  }
}

extension Evdev {
  /// The timed control messages a recording implies: each velocity sample's intensity and
  /// sharpness at its time since the first event, and a stop one window after the last event.
  public static func messages(_ events: [DragVelocity.Event], map: VelocityMap, window: Double) -> [ControlMessage] {
    guard let origin = events.first?.microseconds, let last = events.last?.microseconds else { return [] }
    var velocity = DragVelocity(window: window)
    var samples: [DragVelocity.Sample] = []
    for var event in events {
      event.microseconds -= origin
      samples += velocity.feed(event)
    }
    if let zero = velocity.flush() { samples.append(zero) }
    var messages: [ControlMessage] = []
    for sample in samples {
      let (intensity, sharpness) = map.messages(vx: sample.vx, vy: sample.vy, time: sample.time)
      messages += [intensity, sharpness]
    }
    let end = Double(last - origin + Int64((window * 1e6).rounded())) / 1e6
    messages.append(ControlMessage(time: end, action: .stop))
    return messages
  }
}
