// A small driver for the seed's engine owner: the two building blocks it describes, a tick
// (a transient) and a buzz (a continuous event), then a short phrase of both, each one-shot
// pattern played through `HapticEngine.shared.play` and given time to end before the next.
#if canImport(CoreHaptics)
import CoreHaptics
#else
import HapKit
#endif
import Foundation

func intensity(_ value: Float) -> CHHapticEventParameter {
    CHHapticEventParameter(parameterID: .hapticIntensity, value: value)
}

func sharpness(_ value: Float) -> CHHapticEventParameter {
    CHHapticEventParameter(parameterID: .hapticSharpness, value: value)
}

let tick = [CHHapticEvent(eventType: .hapticTransient, parameters: [intensity(1), sharpness(1)], relativeTime: 0)]
let buzz = [
    CHHapticEvent(eventType: .hapticContinuous, parameters: [intensity(0.6), sharpness(0.2)],
                  relativeTime: 0, duration: 0.25),
]
let phrase = [
    CHHapticEvent(eventType: .hapticTransient, parameters: [intensity(0.8), sharpness(0.9)], relativeTime: 0),
    CHHapticEvent(eventType: .hapticTransient, parameters: [intensity(0.5), sharpness(0.9)], relativeTime: 0.08),
    CHHapticEvent(eventType: .hapticContinuous, parameters: [intensity(1), sharpness(0.4)],
                  relativeTime: 0.16, duration: 0.2),
]

print("engine-owner: supportsHaptics \(HapticEngine.shared.supportsHaptics)")
for (name, events) in [("tick", tick), ("buzz", buzz), ("phrase", phrase)] {
    HapticEngine.shared.play(events)
    print("engine-owner: played \(name)")
    Thread.sleep(forTimeInterval: 0.5)
}
