// Seed 000, "Textured drag (velocity-driven rumble)": the Core Haptics code as written for iOS,
// with its import line changed. The SwiftUI view is now a plain class: its `@State` values are
// stored properties, its gesture's closures the methods `dragChanged` and `dragEnded`, and
// `onAppear` a method; main.swift drives them with a velocity source.
#if canImport(CoreHaptics)
import CoreHaptics
#else
import HapKit
#endif

final class TexturedSurface {
    private var engine: CHHapticEngine?
    private var player: CHHapticAdvancedPatternPlayer?

    /// `.gesture(DragGesture(minimumDistance: 0).onChanged { value in ... })`
    func dragChanged(velocityWidth: Double, velocityHeight: Double) {
        if player == nil { startLoop() }
        // Map velocity (pts/s) to 0–1
        let speed = min(1, abs(velocityWidth) / 2000
                         + abs(velocityHeight) / 2000)
        update(intensity: Float(0.2 + 0.8 * speed),
               sharpness: Float(0.3 * speed))
    }

    /// `.onEnded { _ in stopLoop() }`
    func dragEnded() { stopLoop() }

    /// `.onAppear { ... }`
    func onAppear() {
        guard CHHapticEngine.capabilitiesForHardware().supportsHaptics
        else { return }
        engine = try? CHHapticEngine()
        try? engine?.start()
    }

    private func startLoop() {
        guard let engine else { return }
        let event = CHHapticEvent(
            eventType: .hapticContinuous,
            parameters: [
                CHHapticEventParameter(parameterID: .hapticIntensity, value: 0.2),
                CHHapticEventParameter(parameterID: .hapticSharpness, value: 0.2),
            ],
            relativeTime: 0, duration: 100) // long-lived; we stop it manually
        guard let pattern = try? CHHapticPattern(events: [event], parameters: [])
        else { return }
        player = try? engine.makeAdvancedPlayer(with: pattern)
        try? player?.start(atTime: CHHapticTimeImmediate)
    }

    private func update(intensity: Float, sharpness: Float) {
        try? player?.sendParameters([
            CHHapticDynamicParameter(parameterID: .hapticIntensityControl,
                                     value: intensity, relativeTime: 0),
            CHHapticDynamicParameter(parameterID: .hapticSharpnessControl,
                                     value: sharpness, relativeTime: 0),
        ], atTime: CHHapticTimeImmediate)
    }

    private func stopLoop() {
        try? player?.stop(atTime: CHHapticTimeImmediate)
        player = nil
    }
}
