// A tour of Core Haptics' API, written as for iOS (only the import differs): patterns from
// events, from a dictionary and from an AHAP file; an advanced player with its loop, live
// parameters at set times, a seek and its completion handler; `notifyWhenPlayersFinished`.
// The times are set on the engine's clock, so what plays is exactly `hap render` of each
// pattern with the same changes at the same times (HapKitExamplesTests checks the capture).
#if canImport(CoreHaptics)
import CoreHaptics
#else
import HapKit
#endif
import Foundation

func say(_ line: String) {
    print("core-haptics-tour: \(line)")
    fflush(stdout)
}

/// Waits until no player sounds (leaving the engine running).
func waitForPlayers(_ engine: CHHapticEngine) {
    let done = DispatchSemaphore(value: 0)
    engine.notifyWhenPlayersFinished { _ in
        done.signal()
        return .leaveEngineRunning
    }
    done.wait()
}

let ahapFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../../patterns/correct.json").standardized
let file = CommandLine.arguments.count > 1 ? URL(fileURLWithPath: CommandLine.arguments[1]) : ahapFile

do {
    guard CHHapticEngine.capabilitiesForHardware().supportsHaptics else {
        say("no haptics on this device")
        exit(2)
    }
    let engine = try CHHapticEngine()
    var stoppedReason: CHHapticEngine.StoppedReason?
    engine.stoppedHandler = { reason in stoppedReason = reason }
    try engine.start()

    // 1. A pattern from events: a tap, then a swell.
    let fromEvents = try CHHapticPattern(events: [
        CHHapticEvent(eventType: .hapticTransient, parameters: [
            CHHapticEventParameter(parameterID: .hapticIntensity, value: 0.9),
            CHHapticEventParameter(parameterID: .hapticSharpness, value: 0.8),
        ], relativeTime: 0),
        CHHapticEvent(eventType: .hapticContinuous, parameters: [
            CHHapticEventParameter(parameterID: .hapticIntensity, value: 0.5),
            CHHapticEventParameter(parameterID: .hapticSharpness, value: 0.3),
        ], relativeTime: 0.05, duration: 0.2),
    ], parameters: [CHHapticDynamicParameter(parameterID: .hapticIntensityControl, value: 0.7, relativeTime: 0.15)])
    let first = try engine.makePlayer(with: fromEvents)
    try first.start(atTime: engine.currentTime + 0.05)
    waitForPlayers(engine)
    say("played a pattern from events (\(fromEvents.duration) s)")

    // 2. A pattern from a dictionary, on an advanced player: looped, changed at set times,
    //    sought, stopped; its completion handler says so.
    let fromDictionary = try CHHapticPattern(dictionary: [
        .version: 1.0,
        .pattern: [
            [CHHapticPattern.Key.event: [
                CHHapticPattern.Key.eventType: CHHapticEvent.EventType.hapticContinuous,
                CHHapticPattern.Key.time: 0.0,
                CHHapticPattern.Key.eventDuration: 0.4,
                CHHapticPattern.Key.eventParameters: [
                    [CHHapticPattern.Key.parameterID: CHHapticEvent.ParameterID.hapticIntensity,
                     CHHapticPattern.Key.parameterValue: 0.8],
                ],
            ]],
            [CHHapticPattern.Key.parameterCurve: [
                CHHapticPattern.Key.parameterID: CHHapticDynamicParameter.ID.hapticSharpnessControl,
                CHHapticPattern.Key.time: 0.0,
                CHHapticPattern.Key.parameterCurveControlPoints: [
                    [CHHapticPattern.Key.time: 0.0, CHHapticPattern.Key.parameterValue: -0.3],
                    [CHHapticPattern.Key.time: 0.4, CHHapticPattern.Key.parameterValue: 0.3],
                ],
            ]],
        ],
    ])
    let advanced = try engine.makeAdvancedPlayer(with: fromDictionary)
    let completed = DispatchSemaphore(value: 0)
    var completionError: Error?
    advanced.completionHandler = { error in
        completionError = error
        completed.signal()
    }
    advanced.loopEnabled = true
    let t = engine.currentTime + 0.05
    try advanced.start(atTime: t)
    try advanced.sendParameters([
        CHHapticDynamicParameter(parameterID: .hapticIntensityControl, value: 0.4, relativeTime: 0),
        CHHapticDynamicParameter(parameterID: .hapticSharpnessControl, value: 0.5, relativeTime: 0.1),
    ], atTime: t + 0.5)
    try advanced.sendParameters([
        CHHapticDynamicParameter(parameterID: .hapticIntensityControl, value: 1.0, relativeTime: 0),
    ], atTime: t + 0.9)
    Thread.sleep(forTimeInterval: 0.3)
    try advanced.seek(toOffset: 0.1)
    try advanced.stop(atTime: t + 1.3)
    completed.wait()
    say("advanced player completed (error: \(completionError.map { "\($0)" } ?? "none"))")
    waitForPlayers(engine)

    // 3. A pattern from an AHAP file, played at once.
    let fromFile = try CHHapticPattern(contentsOf: file)
    try engine.makePlayer(with: fromFile).start(atTime: CHHapticTimeImmediate)
    let finished = DispatchSemaphore(value: 0)
    engine.notifyWhenPlayersFinished { _ in
        finished.signal()
        return .stopEngine
    }
    finished.wait()
    Thread.sleep(forTimeInterval: 0.2)
    say("played \(file.lastPathComponent); the engine stopped (\(stoppedReason.map { "\($0)" } ?? "no reason given"))")
    exit(stoppedReason == .notifyWhenFinished && completionError == nil ? 0 : 1)
} catch {
    say("\(error)")
    exit(1)
}
