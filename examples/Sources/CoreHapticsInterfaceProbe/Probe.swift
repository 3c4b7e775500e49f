// Apple's documented Core Haptics interface, symbol by symbol, each used with the exact type
// Apple's generated Swift interface gives it (iOS 17 SDK: CHHapticEngine, CHHapticPattern,
// CHHapticEvent, CHHapticParameter, CHHapticPatternPlayer, CHHapticDeviceCapability,
// CHHapticErrors). It only has to compile: `swift build` of examples/ proves that HapKit
// spells all of it as Apple does. What HapKit cannot spell is left out here and listed in
// docs/hapkit.md ("What differs from Apple's interface").
#if canImport(CoreHaptics)
import AVFoundation
import CoreHaptics
#else
import HapKit
#endif

// MARK: Globals

let immediate: TimeInterval = CHHapticTimeImmediate
let resource: CHHapticAudioResourceID = 0
let volumeKey: CHHapticAudioResourceKey = CHHapticAudioResourceKeyUseVolumeEnvelope
let loopKey: CHHapticAudioResourceKey = CHHapticAudioResourceKeyLoopEnabled
let domain: String = CoreHapticsErrorDomain
let completion: CHHapticAdvancedPatternPlayerCompletionHandler = { (_: Error?) in }

// MARK: CHHapticEngine

func engineInterface() throws {
    let make: () throws -> CHHapticEngine = CHHapticEngine.init
    let fromSession: (AVAudioSession?) throws -> CHHapticEngine = CHHapticEngine.init(audioSession:)
    let engine = try make()
    _ = try fromSession(AVAudioSession.sharedInstance())
    let capability: CHHapticDeviceCapability = CHHapticEngine.capabilitiesForHardware()
    _ = capability
    let now: TimeInterval = engine.currentTime
    _ = now
    let stopped: CHHapticEngine.StoppedHandler = { (reason: CHHapticEngine.StoppedReason) in _ = reason.rawValue }
    engine.stoppedHandler = stopped
    let reset: CHHapticEngine.ResetHandler = {}
    engine.resetHandler = reset
    engine.playsHapticsOnly = engine.playsHapticsOnly
    engine.playsAudioOnly = engine.playsAudioOnly
    engine.isMutedForAudio = engine.isMutedForAudio
    engine.isMutedForHaptics = engine.isMutedForHaptics
    engine.isAutoShutdownEnabled = engine.isAutoShutdownEnabled
    let started: CHHapticEngine.CompletionHandler = { (_: Error?) in }
    engine.start(completionHandler: started)
    engine.start(completionHandler: nil)
    try engine.start()
    engine.stop(completionHandler: started)
    engine.stop(completionHandler: nil)
    engine.notifyWhenPlayersFinished { (_: Error?) -> CHHapticEngine.FinishedAction in .leaveEngineRunning }
    let pattern = try CHHapticPattern(events: [], parameters: [])
    let player: CHHapticPatternPlayer = try engine.makePlayer(with: pattern)
    let advanced: CHHapticAdvancedPatternPlayer = try engine.makeAdvancedPlayer(with: pattern)
    _ = (player, advanced)
    let id: CHHapticAudioResourceID = try engine.registerAudioResource(URL(fileURLWithPath: "/x.wav"), options: [:])
    _ = try engine.registerAudioResource(URL(fileURLWithPath: "/x.wav"))
    try engine.unregisterAudioResource(id)
    try engine.playPattern(from: URL(fileURLWithPath: "/x.ahap"))
    try engine.playPattern(from: Data())
    let reasons: [CHHapticEngine.StoppedReason] = [
        .audioSessionInterrupt, .applicationSuspended, .idleTimeout, .notifyWhenFinished, .engineDestroyed,
        .gameControllerDisconnect, .systemError,
    ]
    _ = reasons.map { CHHapticEngine.StoppedReason(rawValue: $0.rawValue) }
    let actions: [CHHapticEngine.FinishedAction] = [.stopEngine, .leaveEngineRunning]
    _ = actions.map { CHHapticEngine.FinishedAction(rawValue: $0.rawValue) }
    let finished: CHHapticEngine.FinishedHandler = { _ in .stopEngine }
    _ = finished
}

@available(iOS 13.0, macOS 10.15, *)
func engineAsyncInterface(_ engine: CHHapticEngine) async throws {
    try await engine.start()
    try await engine.stop()
}

// MARK: CHHapticPattern

func patternInterface() throws {
    let keys: [CHHapticPattern.Key] = [
        .version, .pattern, .event, .eventType, .time, .eventDuration, .eventWaveformPath, .eventParameters,
        .eventWaveformUseVolumeEnvelope, .eventWaveformLoopEnabled, .parameter, .parameterID, .parameterValue,
        .parameterCurve, .parameterCurveControlPoints,
    ]
    _ = keys
    let fromEvents: ([CHHapticEvent], [CHHapticDynamicParameter]) throws -> CHHapticPattern =
        CHHapticPattern.init(events:parameters:)
    let fromCurves: ([CHHapticEvent], [CHHapticParameterCurve]) throws -> CHHapticPattern =
        CHHapticPattern.init(events:parameterCurves:)
    let fromDictionary: ([CHHapticPattern.Key: Any]) throws -> CHHapticPattern = CHHapticPattern.init(dictionary:)
    let fromFile: (URL) throws -> CHHapticPattern = CHHapticPattern.init(contentsOf:)
    let pattern = try fromEvents([], [])
    _ = (fromCurves, fromDictionary, fromFile)
    let duration: TimeInterval = pattern.duration
    let exported: [CHHapticPattern.Key: Any] = try pattern.exportDictionary()
    _ = (duration, exported)
    let object: NSObject = pattern
    _ = object
}

// MARK: CHHapticEvent and parameters

func eventInterface() {
    let types: [CHHapticEvent.EventType] = [.hapticTransient, .hapticContinuous, .audioContinuous, .audioCustom]
    _ = types.map { CHHapticEvent.EventType(rawValue: $0.rawValue) }
    let ids: [CHHapticEvent.ParameterID] = [
        .hapticIntensity, .hapticSharpness, .attackTime, .decayTime, .releaseTime, .sustained, .audioVolume,
        .audioPitch, .audioPan, .audioBrightness,
    ]
    _ = ids.map { CHHapticEvent.ParameterID(rawValue: $0.rawValue) }
    let parameter = CHHapticEventParameter(parameterID: .hapticIntensity, value: 1)
    let parameterID: CHHapticEvent.ParameterID = parameter.parameterID
    parameter.value = 0.5
    _ = parameterID
    let event = CHHapticEvent(eventType: .hapticTransient, parameters: [parameter], relativeTime: 0)
    _ = CHHapticEvent(eventType: .hapticContinuous, parameters: [], relativeTime: 0, duration: 1)
    _ = CHHapticEvent(audioResourceID: 1, parameters: [], relativeTime: 0)
    _ = CHHapticEvent(audioResourceID: 1, parameters: [], relativeTime: 0, duration: 1)
    let type: CHHapticEvent.EventType = event.type
    let parameters: [CHHapticEventParameter] = event.eventParameters
    event.relativeTime = 0.1
    event.duration = 0.2
    _ = (type, parameters)
    let objects: [NSObject] = [event, parameter]
    _ = objects
}

func dynamicParameterInterface() {
    let ids: [CHHapticDynamicParameter.ID] = [
        .hapticIntensityControl, .hapticSharpnessControl, .hapticAttackTimeControl, .hapticDecayTimeControl,
        .hapticReleaseTimeControl, .audioVolumeControl, .audioPanControl, .audioPitchControl,
        .audioBrightnessControl, .audioAttackTimeControl, .audioDecayTimeControl, .audioReleaseTimeControl,
    ]
    _ = ids.map { CHHapticDynamicParameter.ID(rawValue: $0.rawValue) }
    let parameter = CHHapticDynamicParameter(parameterID: .hapticIntensityControl, value: 1, relativeTime: 0)
    let id: CHHapticDynamicParameter.ID = parameter.parameterID
    parameter.value = 0.5
    parameter.relativeTime = 0.1
    _ = id
    let point = CHHapticParameterCurve.ControlPoint(relativeTime: 0, value: 1)
    point.relativeTime = 0.1
    point.value = 0.5
    let curve = CHHapticParameterCurve(parameterID: .hapticIntensityControl, controlPoints: [point], relativeTime: 0)
    let curveID: CHHapticDynamicParameter.ID = curve.parameterID
    let points: [CHHapticParameterCurve.ControlPoint] = curve.controlPoints
    curve.relativeTime = 0.2
    _ = (curveID, points)
    let objects: [NSObject] = [parameter, point, curve]
    _ = objects
}

// MARK: Players

func playerInterface(_ player: CHHapticPatternPlayer, _ advanced: CHHapticAdvancedPatternPlayer) throws {
    try player.start(atTime: CHHapticTimeImmediate)
    try player.stop(atTime: 0)
    try player.sendParameters([], atTime: 0)
    try player.scheduleParameterCurve(
        CHHapticParameterCurve(parameterID: .hapticIntensityControl, controlPoints: [], relativeTime: 0), atTime: 0)
    try player.cancel()
    player.isMuted = true
    try advanced.pause(atTime: 0)
    try advanced.resume(atTime: 0)
    try advanced.seek(toOffset: 0)
    advanced.loopEnabled = true
    advanced.loopEnd = 1
    advanced.playbackRate = 1
    advanced.completionHandler = completion
    let handler: CHHapticAdvancedPatternPlayerCompletionHandler = advanced.completionHandler
    _ = handler
}

// MARK: Capabilities

func capabilityInterface(_ capability: CHHapticDeviceCapability) throws {
    let haptics: Bool = capability.supportsHaptics
    let audio: Bool = capability.supportsAudio
    let event: CHHapticParameterAttributes = try capability.attributes(
        forEventParameter: .hapticIntensity, eventType: .hapticTransient)
    let dynamic: CHHapticParameterAttributes = try capability.attributes(forDynamicParameter: .hapticIntensityControl)
    let values: [Float] = [event.minValue, event.maxValue, event.defaultValue, dynamic.minValue]
    _ = (haptics, audio, values)
}

// MARK: Errors

func errorInterface() {
    let codes: [CHHapticError.Code] = [
        .engineNotRunning, .operationNotPermitted, .engineStartTimeout, .notSupported, .serverInitFailed,
        .serverInterrupted, .invalidPatternPlayer, .invalidPatternData, .invalidPatternDictionary,
        .invalidAudioSession, .invalidEngineParameter, .invalidParameterType, .invalidEventType, .invalidEventTime,
        .invalidEventDuration, .invalidAudioResource, .resourceNotAvailable, .badEventEntry, .badParameterEntry,
        .invalidTime, .fileNotFound, .insufficientPower, .unknownError, .memoryError,
    ]
    _ = codes.map { CHHapticError.Code(rawValue: $0.rawValue) }
    let error = CHHapticError(.engineNotRunning, userInfo: ["key": "value"])
    let plain = CHHapticError(.notSupported)
    let code: CHHapticError.Code = error.code
    let info: [String: Any] = error.userInfo
    let errorDomain: String = CHHapticError.errorDomain
    let shorthand: CHHapticError.Code = CHHapticError.engineNotRunning
    _ = (plain, code, info, errorDomain, shorthand, error == plain)
    do {
        throw error
    } catch CHHapticError.engineNotRunning {
    } catch {}
    let ns = error as NSError
    _ = ns.domain == CoreHapticsErrorDomain
}

// MARK: Dispatch, as iOS code schedules haptics

func dispatchInterface() {
    let later: DispatchTime = DispatchTime.now().advanced(by: .milliseconds(10))
    let gap: DispatchTimeInterval = DispatchTime.now().distance(to: later)
    _ = gap
}
