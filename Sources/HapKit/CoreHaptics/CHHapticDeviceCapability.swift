import Foundation
import HapALSA
import HapCore
import HapRuntime

/// A parameter's range and default (Core Haptics' `CHHapticParameterAttributes`).
public protocol CHHapticParameterAttributes {
  var minValue: Float { get }
  var maxValue: Float { get }
  var defaultValue: Float { get }
}

/// What a device can play (Core Haptics' `CHHapticDeviceCapability`).
public protocol CHHapticDeviceCapability {
  var supportsHaptics: Bool { get }
  var supportsAudio: Bool { get }
  func attributes(forEventParameter inParameter: CHHapticEvent.ParameterID, eventType type: CHHapticEvent.EventType)
    throws -> any CHHapticParameterAttributes
  func attributes(forDynamicParameter inParameter: CHHapticDynamicParameter.ID) throws
    -> any CHHapticParameterAttributes
}

struct ParameterAttributes: CHHapticParameterAttributes {
  let minValue: Float
  let maxValue: Float
  let defaultValue: Float
}

/// The default device's capability (`HAP_DEVICE`, else ALSA's `default`): it supports haptics
/// when it can be opened (the simulated exciter when its plugin is built), audio when its layout
/// has channels for the sound (a DualSense's speaker). Ranges and defaults are Core Haptics'
/// own (HapCore's ``EventParameterID`` and ``DynamicParameterID``).
struct HapKitCapability: CHHapticDeviceCapability {
  private(set) var supportsHaptics = false
  private(set) var supportsAudio = false

  init(environment: [String: String]) {
    guard let address = try? DeviceAddress.fromEnvironment(environment) else { return }
    do {
      let session = try EngineDevice.open(address, environment: environment, capturing: false)
      supportsHaptics = true
      supportsAudio = session.playsSound
      session.close(success: false)
    } catch {
      // A device another program (or this one's engine) holds is there: it supports haptics.
      if case .device(.busy)? = CHHapticError(error).cause { supportsHaptics = true }
    }
  }

  func attributes(forEventParameter inParameter: CHHapticEvent.ParameterID, eventType type: CHHapticEvent.EventType)
    throws -> any CHHapticParameterAttributes
  {
    guard let eventType = EventType(rawValue: type.rawValue) else {
      throw CHHapticError(.invalidEventType, .other("'\(Format.excerpt(type.rawValue))' is not an event type"))
    }
    guard let id = EventParameterID(rawValue: inParameter.rawValue) else {
      throw CHHapticError(.invalidParameterType, .other("'\(Format.excerpt(inParameter.rawValue))' is not an event parameter"))
    }
    return ParameterAttributes(
      minValue: Float(id.range.lowerBound), maxValue: Float(id.range.upperBound),
      defaultValue: Float(id.defaultValue(for: eventType)))
  }

  func attributes(forDynamicParameter inParameter: CHHapticDynamicParameter.ID) throws
    -> any CHHapticParameterAttributes
  {
    guard let id = inParameter.model else {
      throw CHHapticError(.invalidParameterType, .other("'\(Format.excerpt(inParameter.rawValue))' is not a dynamic parameter"))
    }
    let neutral: Float = id.combination == .multiplies ? 1 : 0
    return ParameterAttributes(
      minValue: Float(id.range.lowerBound), maxValue: Float(id.range.upperBound), defaultValue: neutral)
  }
}
