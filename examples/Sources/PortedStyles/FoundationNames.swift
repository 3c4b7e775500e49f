// Style 2: a file that imports only the haptics module and uses Foundation's names
// (TimeInterval, URL, Bundle, Data, JSONDecoder, Date), as `import CoreHaptics` allows on
// Apple's platforms.
#if canImport(CoreHaptics)
import CoreHaptics
#else
import HapKit
#endif

/// Where the program keeps its patterns: beside its executable (its bundle), else the folder
/// given.
func patternURL(named name: String, in folder: URL?) -> URL? {
    if let folder { return folder.appendingPathComponent(name).appendingPathExtension("ahap") }
    return Bundle.main.url(forResource: name, withExtension: "ahap")
}

/// Reads an AHAP file with the Codable reader.
func decodePattern(at url: URL) throws -> DecodedPattern {
    let data = try Data(contentsOf: url)
    return try JSONDecoder().decode(DecodedPattern.self, from: data)
}

/// How long something took, in seconds.
func seconds(since start: Date) -> TimeInterval {
    Date().timeIntervalSince(start)
}
