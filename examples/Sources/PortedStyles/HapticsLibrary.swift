// Style 4: a small haptics library as published ones are written: audio resources registered
// with Apple's global option keys, a completion handler typed with Apple's typealias, errors
// in Core Haptics' domain, and a delayed start through `DispatchTime.advanced(by:)`.
#if canImport(CoreHaptics)
import CoreHaptics
#else
import HapKit
#endif
import Foundation

final class HapticsLibrary {
    let engine: CHHapticEngine
    private var player: CHHapticAdvancedPatternPlayer?

    init(engine: CHHapticEngine) {
        self.engine = engine
    }

    func registerSound(_ url: URL) throws -> CHHapticAudioResourceID {
        let options: [CHHapticAudioResourceKey: Any] = [
            CHHapticAudioResourceKeyUseVolumeEnvelope: true,
            CHHapticAudioResourceKeyLoopEnabled: false,
        ]
        return try engine.registerAudioResource(url, options: options)
    }

    /// Plays `pattern` after `delay` and calls `done` when it has ended.
    func play(_ pattern: CHHapticPattern, after delay: DispatchTimeInterval,
              done: @escaping CHHapticAdvancedPatternPlayerCompletionHandler) throws {
        let player = try engine.makeAdvancedPlayer(with: pattern)
        player.completionHandler = done
        self.player = player
        let when = DispatchTime.now().advanced(by: delay)
        DispatchQueue.global().asyncAfter(deadline: when) {
            do {
                try player.start(atTime: CHHapticTimeImmediate)
            } catch {
                done(error)
            }
        }
    }

    /// An error of the library's own, in Core Haptics' domain.
    static func notReady(_ why: String) -> Error {
        CHHapticError(.engineNotRunning, userInfo: [NSLocalizedDescriptionKey: why])
    }
}

func describe(_ error: Error) -> String {
    let ns = error as NSError
    return "\(ns.domain) \(ns.code)"
}
