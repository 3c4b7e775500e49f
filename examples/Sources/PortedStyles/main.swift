// Core Haptics code written in the styles public iOS projects use, built against HapKit with
// only the import changed (HapKitExamplesTests): a Codable AHAP reader that subclasses the CH
// types, a file that uses Foundation's names through the haptics import alone, extensions on
// the CH types, and a library that uses Apple's global keys, typealiases, error domain and
// `DispatchTime.advanced(by:)`. Arguments: [PATTERNS FOLDER] [SOUND FILE].
#if canImport(CoreHaptics)
import CoreHaptics
#else
import HapKit
#endif
import Foundation

func say(_ line: String) {
    print("ported-styles: \(line)")
    fflush(stdout)
}

func waitForPlayers(_ engine: CHHapticEngine) {
    let done = DispatchSemaphore(value: 0)
    engine.notifyWhenPlayersFinished { _ in
        done.signal()
        return .leaveEngineRunning
    }
    done.wait()
}

let arguments = CommandLine.arguments
let folder = arguments.count > 1 ? URL(fileURLWithPath: arguments[1]) : nil
let sound = arguments.count > 2 ? URL(fileURLWithPath: arguments[2]) : nil

do {
    let started = Date()
    let engine = try CHHapticEngine()
    try engine.start()

    // The Codable reader: an AHAP file with events and curves, decoded into subclasses.
    guard let url = patternURL(named: "reveal", in: folder) else {
        say("no reveal.ahap beside the program")
        exit(1)
    }
    let decoded = try decodePattern(at: url)
    try engine.makePlayer(with: decoded).start(atTime: CHHapticTimeImmediate)
    waitForPlayers(engine)
    say("played a decoded pattern of \(decoded.duration) s")

    // Extensions: a pattern of shorthand events; NSObject's identity equality and hashing.
    let tap = CHHapticEvent(tapAt: 0, intensity: 0.5, sharpness: 0.5)
    let same = CHHapticEvent(tapAt: 0, intensity: 0.5, sharpness: 0.5)
    let set: Set<CHHapticEvent> = [tap, tap, same]
    say("events equal by identity: \(tap == tap && tap != same && set.count == 2), intensity \(tap.intensity ?? -1)")
    say("an event describes itself as \(String(describing: tap).contains("CHHapticEvent") ? "an object" : "something else")")
    try engine.makePlayer(with: CHHapticPattern.heartbeat()).start(atTime: CHHapticTimeImmediate)
    waitForPlayers(engine)
    say("played a heartbeat")

    // The library: a delayed start and a typed completion handler.
    let library = HapticsLibrary(engine: engine)
    var events = [CHHapticEvent(tapAt: 0, intensity: 1, sharpness: 0.7)]
    if let sound {
        let resource = try library.registerSound(sound)
        events.append(CHHapticEvent(audioResourceID: resource, parameters: [], relativeTime: 0))
        say("registered a sound as resource \(resource)")
    }
    let ended = DispatchSemaphore(value: 0)
    var failure: Error?
    try library.play(CHHapticPattern(events: events, parameters: []), after: .milliseconds(20)) { error in
        failure = error
        ended.signal()
    }
    ended.wait()
    say("the library's player completed (error: \(failure.map(describe) ?? "none"))")
    say("a library error reads \(describe(HapticsLibrary.notReady("not yet")))")
    let mine = CHHapticError(.invalidEventTime, userInfo: ["why": "a test"])
    say("userInfo kept: \(mine.userInfo["why"] as? String ?? "-"), domain \(CoreHapticsErrorDomain)")
    engine.stop(completionHandler: nil)
    say("done in \(seconds(since: started) > 0 ? "some" : "no") time")
} catch {
    say("failed: \(error)")
    exit(1)
}
