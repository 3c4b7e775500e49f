// Style 1: an AHAP reader written with Codable, as several iOS projects write one: each Core
// Haptics type is subclassed to add `Decodable`, and `init(from:)` hands the decoded values
// to the class's own initialiser. This needs the classes to be open (they are NSObject
// subclasses on Apple's platforms).
#if canImport(CoreHaptics)
import CoreHaptics
#else
import HapKit
#endif

final class DecodedPattern: CHHapticPattern, Decodable {
    private struct Entry: Decodable {
        var Event: DecodedEvent?
        var ParameterCurve: DecodedCurve?
    }

    private enum Keys: String, CodingKey {
        case pattern = "Pattern"
    }

    required convenience init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let entries = try container.decode([Entry].self, forKey: .pattern)
        try self.init(events: entries.compactMap { $0.Event }, parameterCurves: entries.compactMap { $0.ParameterCurve })
    }
}

final class DecodedEvent: CHHapticEvent, Decodable {
    private enum Keys: String, CodingKey {
        case time = "Time", type = "EventType", duration = "EventDuration", parameters = "EventParameters"
    }

    required convenience init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let type = CHHapticEvent.EventType(rawValue: try container.decode(String.self, forKey: .type))
        let time = try container.decode(TimeInterval.self, forKey: .time)
        let parameters = try container.decodeIfPresent([DecodedEventParameter].self, forKey: .parameters) ?? []
        if let duration = try container.decodeIfPresent(TimeInterval.self, forKey: .duration) {
            self.init(eventType: type, parameters: parameters, relativeTime: time, duration: duration)
        } else {
            self.init(eventType: type, parameters: parameters, relativeTime: time)
        }
    }
}

final class DecodedEventParameter: CHHapticEventParameter, Decodable {
    private enum Keys: String, CodingKey {
        case id = "ParameterID", value = "ParameterValue"
    }

    required convenience init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        self.init(
            parameterID: CHHapticEvent.ParameterID(rawValue: try container.decode(String.self, forKey: .id)),
            value: try container.decode(Float.self, forKey: .value))
    }
}

final class DecodedCurve: CHHapticParameterCurve, Decodable {
    private enum Keys: String, CodingKey {
        case id = "ParameterID", time = "Time", points = "ParameterCurveControlPoints"
    }

    required convenience init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        self.init(
            parameterID: CHHapticDynamicParameter.ID(rawValue: try container.decode(String.self, forKey: .id)),
            controlPoints: try container.decode([DecodedPoint].self, forKey: .points),
            relativeTime: try container.decode(TimeInterval.self, forKey: .time))
    }
}

final class DecodedPoint: CHHapticParameterCurve.ControlPoint, Decodable {
    private enum Keys: String, CodingKey {
        case time = "Time", value = "ParameterValue"
    }

    required convenience init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        self.init(
            relativeTime: try container.decode(TimeInterval.self, forKey: .time),
            value: try container.decode(Float.self, forKey: .value))
    }
}
