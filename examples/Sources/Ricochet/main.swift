// The engine set-up and AHAP loading of Apple's HapticRicochet sample, in its style (written
// here, not copied): the engine made from the shared audio session, stopped and reset
// handlers, and patterns read from the app bundle through JSONSerialization into a dictionary
// keyed by `CHHapticPattern.Key`, whose sounds (`EventWaveformPath`) are found in the bundle.
// On Linux the bundle is the executable's folder: HapKitExamplesTests lays the AHAP files and
// their sounds out beside a copy of this program, as an app bundle holds them.
#if canImport(CoreHaptics)
import AVFoundation
import CoreHaptics
#else
import HapKit
#endif

final class RicochetHaptics {
    var engine: CHHapticEngine!
    var engineNeedsStart = true

    lazy var supportsHaptics: Bool = {
        CHHapticEngine.capabilitiesForHardware().supportsHaptics
    }()

    func createAndStartHapticEngine() {
        guard supportsHaptics else { return }
        do {
            engine = try CHHapticEngine(audioSession: .sharedInstance())
        } catch let error {
            fatalError("Engine Creation Error: \(error)")
        }
        engine.stoppedHandler = { reason in
            print("ricochet: the engine stopped: \(reason.rawValue)")
            self.engineNeedsStart = true
        }
        engine.resetHandler = {
            do {
                try self.engine.start()
                self.engineNeedsStart = false
            } catch {
                print("ricochet: failed to restart the engine: \(error)")
            }
        }
        do {
            try engine.start()
            engineNeedsStart = false
        } catch let error {
            print("ricochet: the engine failed to start: \(error)")
        }
    }

    func createPatternFromAHAP(_ filename: String) -> CHHapticPattern? {
        let patternURL = Bundle.main.url(forResource: filename, withExtension: "ahap")!
        do {
            let patternJSONData = try Data(contentsOf: patternURL, options: [])
            let dict = try JSONSerialization.jsonObject(with: patternJSONData, options: [])
            if let patternDict = dict as? [CHHapticPattern.Key: Any] {
                return try CHHapticPattern(dictionary: patternDict)
            }
        } catch let error {
            print("ricochet: error creating haptic pattern: \(error)")
        }
        return nil
    }

    func play(_ name: String) throws {
        guard let pattern = createPatternFromAHAP(name) else { throw CHHapticError(.invalidPatternData) }
        if engineNeedsStart { try engine.start() }
        let player = try engine.makePlayer(with: pattern)
        try player.start(atTime: CHHapticTimeImmediate)
        let done = DispatchSemaphore(value: 0)
        engine.notifyWhenPlayersFinished { _ in
            done.signal()
            return .leaveEngineRunning
        }
        done.wait()
    }
}

let haptics = RicochetHaptics()
haptics.createAndStartHapticEngine()
for name in CommandLine.arguments.dropFirst() {
    do {
        try haptics.play(name)
        print("ricochet: played \(name)")
    } catch {
        print("ricochet: \(name) failed: \(error)")
        exit(1)
    }
}
