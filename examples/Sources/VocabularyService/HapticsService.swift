// Seed 004, "Haptic Design": the semantic-vocabulary service it sketches, written out as the
// seed's rules ask, with its import line the only Linux change: one central service owns the
// engine; game code speaks in meanings (`fire(.correct)`); lazy engine start on the first fire;
// a capability gate read once; stopped and reset handlers null the engine so that the next
// fire restarts it; the engine stopped on background; an off switch.
#if canImport(CoreHaptics)
import CoreHaptics
#else
import HapKit
#endif
import Observation

enum HapticEvent: CaseIterable {
    case start          // round/session begins
    case correct        // success tap
    case pass           // skip / failure tap
    case reveal         // content shown (card, letter, dare)
    case timerPulse     // gentle urgency (e.g. 10s left)
    case timerUrgent    // hard urgency (e.g. 5s left)
    case stop           // the signature interrupt (music stop, freeze, catch)
    case roundEnd       // round complete, score committed
    case winner         // the rarest, biggest pattern
}

/// SwiftUI's scene phases, as the service sees them.
enum ScenePhase { case active, inactive, background }

@MainActor @Observable
final class HapticsService {
    @ObservationIgnored private var engine: CHHapticEngine?
    @ObservationIgnored private let supportsHaptics =
        CHHapticEngine.capabilitiesForHardware().supportsHaptics
    /// The off switch: a setting the user owns (Core Haptics ignores any system setting).
    var isEnabled = true
    /// Events played since launch (what a settings screen or a test may show).
    private(set) var fired = 0

    func fire(_ event: HapticEvent) {
        guard supportsHaptics, isEnabled else { return }   // silent no-op without haptics, or off
        startEngineIfNeeded()                              // lazy start on first use
        guard let engine else { return }
        do {
            let pattern = try CHHapticPattern(events: events(for: event), parameterCurves: curves(for: event))
            let player = try engine.makePlayer(with: pattern)
            try player.start(atTime: CHHapticTimeImmediate)
            fired += 1
        } catch {
            self.engine = nil                              // the next fire starts a fresh engine
        }
    }

    /// Stop on background; lazy start recovers on foreground.
    func handleScenePhase(_ phase: ScenePhase) {
        guard phase == .background, let engine else { return }
        engine.stop()
        self.engine = nil
    }

    private func startEngineIfNeeded() {
        guard engine == nil else { return }
        do {
            let engine = try CHHapticEngine()
            // The system stops engines freely: null it, and the next fire restarts one.
            engine.stoppedHandler = { [weak self] _ in
                Task { @MainActor in self?.engine = nil }
            }
            engine.resetHandler = { [weak self] in
                Task { @MainActor in self?.engine = nil }
            }
            try engine.start()
            self.engine = engine
        } catch {
            engine = nil
        }
    }

    // MARK: Pattern sketches: transients for instants, curves for continuous moments; the two
    // timer tiers share a shape; the rarest moment (winner) is the biggest.

    func events(for event: HapticEvent) -> [CHHapticEvent] {
        switch event {
        case .start: return [tap(0.6, 0.5, at: 0), tap(0.9, 0.7, at: 0.12)]
        case .correct: return [tap(0.7, 0.8, at: 0), tap(1.0, 0.9, at: 0.07)]
        case .pass: return [tap(0.5, 0.2, at: 0)]
        case .reveal: return [tap(0.4, 0.6, at: 0), hum(0.3, 0.3, at: 0.02, for: 0.12)]
        case .timerPulse: return [tap(0.45, 0.4, at: 0), tap(0.45, 0.4, at: 0.15)]
        case .timerUrgent: return [tap(0.9, 0.7, at: 0), tap(0.9, 0.7, at: 0.15)]
        case .stop: return [tap(1.0, 1.0, at: 0), hum(0.8, 0.1, at: 0.01, for: 0.25)]
        case .roundEnd: return [tap(0.7, 0.5, at: 0), tap(0.7, 0.5, at: 0.1), tap(0.9, 0.6, at: 0.2)]
        case .winner: return [hum(1.0, 0.5, at: 0, for: 0.9), tap(1.0, 1.0, at: 0.9)]
        }
    }

    func curves(for event: HapticEvent) -> [CHHapticParameterCurve] {
        guard event == .winner else { return [] }
        // A spin deserves an intensity ramp, not repeated transients.
        return [CHHapticParameterCurve(
            parameterID: .hapticIntensityControl,
            controlPoints: [
                .init(relativeTime: 0, value: 0.2),
                .init(relativeTime: 0.6, value: 1.0),
                .init(relativeTime: 0.9, value: 0.6),
            ],
            relativeTime: 0)]
    }

    private func tap(_ intensity: Float, _ sharpness: Float, at time: Double) -> CHHapticEvent {
        CHHapticEvent(eventType: .hapticTransient, parameters: [
            CHHapticEventParameter(parameterID: .hapticIntensity, value: intensity),
            CHHapticEventParameter(parameterID: .hapticSharpness, value: sharpness),
        ], relativeTime: time)
    }

    private func hum(_ intensity: Float, _ sharpness: Float, at time: Double, for duration: Double) -> CHHapticEvent {
        CHHapticEvent(eventType: .hapticContinuous, parameters: [
            CHHapticEventParameter(parameterID: .hapticIntensity, value: intensity),
            CHHapticEventParameter(parameterID: .hapticSharpness, value: sharpness),
        ], relativeTime: time, duration: duration)
    }
}
