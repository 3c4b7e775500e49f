// Style 3: extensions on the Core Haptics types, as apps add their own shorthands: a
// convenience initialiser, static factories and a computed property.
#if canImport(CoreHaptics)
import CoreHaptics
#else
import HapKit
#endif

extension CHHapticEvent {
    convenience init(tapAt time: TimeInterval, intensity: Float, sharpness: Float) {
        self.init(eventType: .hapticTransient, parameters: [
            CHHapticEventParameter(parameterID: .hapticIntensity, value: intensity),
            CHHapticEventParameter(parameterID: .hapticSharpness, value: sharpness),
        ], relativeTime: time)
    }

    static func buzz(at time: TimeInterval, for duration: TimeInterval, intensity: Float) -> CHHapticEvent {
        CHHapticEvent(eventType: .hapticContinuous, parameters: [
            CHHapticEventParameter(parameterID: .hapticIntensity, value: intensity),
        ], relativeTime: time, duration: duration)
    }

    var intensity: Float? {
        eventParameters.first { $0.parameterID == .hapticIntensity }?.value
    }
}

extension CHHapticPattern {
    static func heartbeat() throws -> CHHapticPattern {
        try CHHapticPattern(events: [
            CHHapticEvent(tapAt: 0, intensity: 0.8, sharpness: 0.3),
            CHHapticEvent(tapAt: 0.15, intensity: 1.0, sharpness: 0.4),
            .buzz(at: 0.3, for: 0.2, intensity: 0.4),
        ], parameters: [])
    }
}
