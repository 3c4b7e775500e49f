import Foundation
import HapCore
import HapKit
import Testing

@Suite("Core Haptics' patterns, events and errors")
struct PatternTests {
  @Test("a pattern from events exports the AHAP dictionary it was read from, and reads back the same")
  func eventsRoundTrip() throws {
    let pattern = try CHHapticPattern(
      events: [
        CHHapticEvent(
          eventType: .hapticTransient,
          parameters: [CHHapticEventParameter(parameterID: .hapticIntensity, value: 0.5)], relativeTime: 0.1),
        CHHapticEvent(eventType: .hapticContinuous, parameters: [], relativeTime: 0.2, duration: 0.3),
      ],
      parameters: [CHHapticDynamicParameter(parameterID: .hapticSharpnessControl, value: -0.2, relativeTime: 0.25)])
    #expect(abs(pattern.duration - 0.5) < 1e-12)
    let exported = try pattern.exportDictionary()
    #expect(exported[.version] as? Double == 1)
    let entries = try #require(exported[.pattern] as? [Any])
    #expect(entries.count == 3)
    let again = try CHHapticPattern(dictionary: exported)
    #expect(Validator.validate([UInt8](again.ahapData)).pattern == Validator.validate([UInt8](pattern.ahapData)).pattern)
  }

  @Test("a dictionary keyed as on iOS, with event types, parameter IDs and Floats as values")
  func dictionaryWithApplesTypes() throws {
    let pattern = try CHHapticPattern(dictionary: [
      .pattern: [
        [
          CHHapticPattern.Key.event: [
            CHHapticPattern.Key.eventType: CHHapticEvent.EventType.hapticContinuous,
            CHHapticPattern.Key.time: 0.001,
            CHHapticPattern.Key.eventDuration: 1.0,
            CHHapticPattern.Key.eventParameters: [
              [
                CHHapticPattern.Key.parameterID: CHHapticEvent.ParameterID.hapticIntensity,
                CHHapticPattern.Key.parameterValue: Float(0.25),
              ]
            ],
          ]
        ]
      ]
    ])
    let model = try #require(Validator.validate([UInt8](pattern.ahapData)).pattern)
    #expect(model.events.count == 1)
    #expect(model.events[0].type == .hapticContinuous)
    #expect(model.events[0].parameters.hapticIntensity == 0.25)
  }

  @Test("refusals carry Apple's code and hap's finding, and match as on iOS")
  func refusals() throws {
    let cases: [([CHHapticPattern.Key: Any], CHHapticError.Code)] = [
      ([:], .invalidPatternDictionary),
      ([.pattern: [["Event": ["EventType": "HapticTransient", "Time": -1.0]]]], .invalidEventTime),
      ([.pattern: [["Event": ["EventType": "HapticBuzz", "Time": 0.0]]]], .invalidEventType),
      ([.pattern: [["Event": ["EventType": "HapticContinuous", "Time": 0.0, "EventDuration": -1.0]]]], .invalidEventDuration),
      ([.version: 7.0, .pattern: [["Event": ["EventType": "HapticTransient", "Time": 0.0]]]], .notSupported),
    ]
    for (dictionary, expected) in cases {
      do {
        _ = try CHHapticPattern(dictionary: dictionary)
        Issue.record("\(dictionary) was accepted")
      } catch let error as CHHapticError {
        #expect(error.code == expected, "\(dictionary): \(error)")
        #expect(error.errorCode == expected.rawValue)
        #expect(CHHapticError.errorDomain == "com.apple.CoreHaptics")
        guard case .pattern(let findings)? = error.cause else {
          Issue.record("no finding behind \(error)")
          continue
        }
        #expect(findings.contains { $0.severity == .error })
      }
    }
    do {
      _ = try CHHapticPattern(events: [CHHapticEvent(eventType: .hapticTransient, parameters: [], relativeTime: -2)], parameters: [])
      Issue.record("a negative time was accepted")
    } catch CHHapticError.invalidEventTime {
    } catch {
      Issue.record("\(error)")
    }
  }

  @Test("the codes are CHHapticErrors.h's")
  func codes() {
    #expect(CHHapticError.Code.engineNotRunning.rawValue == -4805)
    #expect(CHHapticError.Code.invalidPatternDictionary.rawValue == -4814)
    #expect(CHHapticError.Code.invalidAudioResource.rawValue == -4824)
    #expect(CHHapticError.Code.badParameterEntry.rawValue == -4831)
    #expect(CHHapticError.Code.fileNotFound.rawValue == -4851)
    #expect(CHHapticError.Code.memoryError.rawValue == -4899)
    #expect(CHHapticEngine.StoppedReason.systemError.rawValue == -1)
    #expect(CHHapticEngine.StoppedReason.gameControllerDisconnect.rawValue == 6)
    #expect(CHHapticEngine.FinishedAction.leaveEngineRunning.rawValue == 2)
    #expect(CHHapticTimeImmediate == 0)
  }

  @Test("a file that is not there is fileNotFound; JSON that is not a pattern is invalidPatternData")
  func files() throws {
    #expect(throws: CHHapticError.self) { try CHHapticPattern(contentsOf: URL(fileURLWithPath: "/no/such.ahap")) }
    let engine = try CHHapticEngine(address: .alsa("null"))
    do {
      try engine.playPattern(from: Data("{\"Pattern\": [".utf8))
      Issue.record("accepted")
    } catch CHHapticError.invalidPatternData {
    } catch CHHapticError.engineNotRunning {
      Issue.record("the pattern should be refused before the engine is asked")
    } catch {
      Issue.record("\(error)")
    }
  }

  @Test("a FIFO, a device or a folder named as a pattern or a sound is refused at once, never read",
    .timeLimit(.minutes(1)))
  func filesThatAreNotFiles() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hapkit-files-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let fifo = folder.appendingPathComponent("pattern.ahap")
    #expect(mkfifo(fifo.path, 0o600) == 0)
    let engine = try CHHapticEngine(address: .alsa("null"))
    for url in [fifo, URL(fileURLWithPath: "/dev/zero"), folder] {
      do {
        _ = try CHHapticPattern(contentsOf: url)
        Issue.record("\(url.path) was read as a pattern")
      } catch let error as CHHapticError {
        #expect(error.code == .invalidPatternData, "\(url.path): \(error)")
      }
      do {
        _ = try engine.registerAudioResource(url)
        Issue.record("\(url.path) was read as a sound")
      } catch let error as CHHapticError {
        #expect(error.code == .invalidAudioResource, "\(url.path): \(error)")
      }
    }
  }

  @Test("parameter attributes are Core Haptics' ranges and defaults")
  func attributes() throws {
    let capability = CHHapticEngine.capabilitiesForHardware()
    let intensity = try capability.attributes(forEventParameter: .hapticIntensity, eventType: .hapticTransient)
    #expect(intensity.minValue == 0 && intensity.maxValue == 1 && intensity.defaultValue == 0.75)
    let pan = try capability.attributes(forEventParameter: .audioPan, eventType: .audioCustom)
    #expect(pan.minValue == -1 && pan.maxValue == 1 && pan.defaultValue == 0)
    let control = try capability.attributes(forDynamicParameter: .hapticSharpnessControl)
    #expect(control.minValue == -1 && control.maxValue == 1 && control.defaultValue == 0)
    #expect(throws: CHHapticError.self) {
      try capability.attributes(forDynamicParameter: CHHapticDynamicParameter.ID(rawValue: "Wobble"))
    }
  }
}

@Suite("-D's words, parsed once")
struct DeviceAddressTests {
  @Test func words() throws {
    #expect(try DeviceAddress(parsing: "sim") == .simulated(capture: nil))
    #expect(try DeviceAddress(parsing: "sim:CAPTURE=/tmp/x.wav") == .simulated(capture: "/tmp/x.wav"))
    #expect(try DeviceAddress(parsing: "dualsense") == .dualSense(ordinal: 1))
    #expect(try DeviceAddress(parsing: "dualsense:2") == .dualSense(ordinal: 2))
    #expect(try DeviceAddress(parsing: "evdev:/dev/input/event5") == .motor(path: "/dev/input/event5"))
    #expect(try DeviceAddress(parsing: "hw:1,0") == .alsa("hw:1,0"))
    #expect(try DeviceAddress(parsing: "simple") == .alsa("simple"))
    #expect(try DeviceAddress(parsing: "sim:APPEND=/tmp/x.raw") == .simulated(capture: "/tmp/x.raw", appending: true))
    for words in ["sim", "sim:CAPTURE=/a b.raw", "sim:APPEND=/a b.raw", "dualsense", "dualsense:3", "evdev:/x", "plughw:CARD=X"] {
      #expect(try DeviceAddress(parsing: words).description == words)
    }
    #expect(throws: DeviceAddress.Failure.dualSenseNotANumber("dualsense:0")) { try DeviceAddress(parsing: "dualsense:0") }
    #expect(throws: DeviceAddress.Failure.motorWithoutPath) { try DeviceAddress(parsing: "evdev:") }
    #expect(throws: DeviceAddress.Failure.simulatedArgument("sim:foo")) { try DeviceAddress(parsing: "sim:foo") }
    // A WAV capture cannot be appended to (its header would be wrong).
    #expect(throws: DeviceAddress.Failure.simulatedArgument("sim:APPEND=/tmp/x.wav")) {
      try DeviceAddress(parsing: "sim:APPEND=/tmp/x.wav")
    }
    #expect(throws: DeviceAddress.Failure.empty) { try DeviceAddress(parsing: " ") }
    #expect(try DeviceAddress.fromEnvironment([:]) == .alsa("default"))
    #expect(try DeviceAddress.fromEnvironment(["HAP_DEVICE": "sim"]) == .simulated(capture: nil))
  }

  @Test("the simulated exciter appends to its capture when its address says so, never because of the environment")
  func simulatedAppendIsTheAddresss() throws {
    let folder = try ScratchFolder()
    // The plugin is only looked for here, not loaded.
    let environment = ["HAP_SIM_PLUGIN": try folder.write("plugin.so", []), "HAP_SIM_APPEND": "1"]
    let capture = folder.file("capture.raw")
    let appending = try #require(try SimulatedDevice.resolve("sim:APPEND=\(capture)", environment: environment))
    #expect(appending.appends && appending.capture == capture)
    #expect(appending.alsaConfiguration.contains("capture_append true"), "\(appending.alsaConfiguration)")
    let sound = try #require(try SimulatedDevice.resolveSound("sim", haptic: appending, environment: environment))
    #expect(sound.appends)
    let truncating = try #require(try SimulatedDevice.resolve("sim:CAPTURE=\(capture)", environment: environment))
    #expect(!truncating.appends && !truncating.alsaConfiguration.contains("capture_append"))
  }

  @Test("an engine on a motor or on a device that is not there says why, with Apple's code")
  func devicesThatDoNotPlay() throws {
    let motor = try CHHapticEngine(device: "evdev:/nowhere/event9")
    do {
      try motor.start()
      Issue.record("a motor that is not there started")
    } catch let error as CHHapticError {
      #expect(error.code == .serverInitFailed)
      #expect("\(error)".contains("cannot open '/nowhere/event9'"), "\(error)")
    }
    let nowhere = try CHHapticEngine(device: "no_such_device_here")
    do {
      try nowhere.start()
      Issue.record("started")
    } catch let error as CHHapticError {
      #expect(error.code == .serverInitFailed)
      guard case .device? = error.cause else {
        Issue.record("\(error)")
        return
      }
    }
    #expect(throws: CHHapticError.self) { try CHHapticEngine(device: "dualsense:x") }
  }
}
