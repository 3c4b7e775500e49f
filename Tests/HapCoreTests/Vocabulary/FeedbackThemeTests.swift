import Foundation
import HapTestSupport
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

@Suite("feedbackd themes")
struct FeedbackThemeTests {
  static let debianTheme = "/usr/share/feedbackd/themes/default.json"

  func parse(_ json: String, path: String = "t.json") throws -> FeedbackTheme {
    try FeedbackTheme.parse(Array(json.utf8), path: path)
  }

  /// The error `json` gives (nil when it reads).
  func error(_ json: String) -> FeedbackThemeError? {
    error(Array(json.utf8))
  }

  func error(_ bytes: [UInt8]) -> FeedbackThemeError? {
    do {
      _ = try FeedbackTheme.parse(bytes, path: "t.json")
      return nil
    } catch {
      return error
    }
  }

  /// A theme of one profile section holding `feedbacks` (JSON objects, comma-separated).
  func theme(_ feedbacks: String, profile: String = "full") -> String {
    "{\"name\": \"t\", \"profiles\": [{\"name\": \"\(profile)\", \"feedbacks\": [\(feedbacks)]}]}"
  }

  /// The case's name, for comparing errors without their places.
  func kind(_ error: FeedbackThemeError?) -> String {
    guard let error else { return "none" }
    return String(String(describing: error).prefix { $0 != "(" })
  }

  func haptic(_ pattern: Pattern) -> [Event] { pattern.events.filter(\.type.isHaptic) }

  // MARK: The installed default theme

  /// What feedbackd plays of one feedback as the raw JSON says it, worked out here apart from
  /// the reader: the milliseconds of vibration, and when the last one ends.
  static func expectedVibration(_ feedback: [String: Any]) -> (on: Int, end: Int)? {
    func int(_ key: String, _ fallback: Int) -> Int { (feedback[key] as? NSNumber)?.intValue ?? fallback }
    switch feedback["type"] as? String {
    case "VibraRumble":
      let (duration, count, pause) = (int("duration", 1000), int("count", 1), int("pause", 0))
      let period = duration / count
      return (count * (period - pause), (count - 1) * period + period - pause)
    case "VibraPeriodic":
      return (int("duration", 1000), int("duration", 1000))
    case "VibraPattern":
      let magnitudes = (feedback["magnitudes"] as? [NSNumber] ?? []).map(\.doubleValue)
      let durations = (feedback["durations"] as? [NSNumber] ?? []).map(\.intValue)
      var (on, end, t) = (0, 0, 0)
      for (m, d) in zip(magnitudes, durations) {
        if m > 0, d > 0 { (on, end) = (on + d, t + d) }
        t += d
      }
      return (on, end)
    default: return nil
    }
  }

  @Test("Debian's default.json: every event is a vocabulary event or a Led-only note; vibrations as written")
  func installedDefaultTheme() throws {
    guard let data = FileManager.default.contents(atPath: Self.debianTheme) else {
      cannotCheck("\(Self.debianTheme) is not installed (Debian's feedbackd-common package)")
      return
    }
    let parsed = try FeedbackTheme.parse(Array(data), path: Self.debianTheme)
    #expect(parsed.name == "default")
    #expect(parsed.parentName == nil)
    #expect(parsed.warnings.isEmpty)
    let (vocabulary, notes) = parsed.vocabulary()
    // The raw JSON, read by Foundation: what each event's sections say.
    let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    var raw: [String: [(profile: String, feedback: [String: Any])]] = [:]
    for profile in try #require(root["profiles"] as? [[String: Any]]) {
      for feedback in try #require(profile["feedbacks"] as? [[String: Any]]) {
        raw[try #require(feedback["event-name"] as? String), default: []].append((profile["name"] as! String, feedback))
      }
    }
    #expect(Set(parsed.eventNames) == Set(raw.keys))
    for (name, sections) in raw {
      let played = sections.filter { $0.feedback["type"] as? String != "Led" }
      guard let event = vocabulary.event(named: name) else {
        #expect(played.isEmpty, "\(name) has a played feedback but is not in the vocabulary")
        #expect(notes.contains("\(name): Led only, not played"))
        continue
      }
      // Kept whole at the quiet level when it has nothing louder; else played there in its quiet form.
      let quiet = played.filter { $0.profile != "full" }
      let hasFull = played.contains { $0.profile == "full" }
      #expect(event.settings.essential == (!quiet.isEmpty && !hasFull), "\(name)")
      let form = vocabulary.quietForms[name].flatMap { vocabulary.event(named: $0) }
      #expect((form != nil) == (!quiet.isEmpty && hasFull), "\(name)")
      if let form {
        #expect(form.settings.essential)
        #expect(form.pattern.events.filter { $0.type == .audioCustom }.count == quiet.filter { $0.feedback["type"] as? String == "Sound" }.count, "\(name)")
        #expect(haptic(form.pattern).count == haptic(event.pattern).count, "\(name): the full section of Debian's theme holds sounds only")
      }
      let expected = sections.compactMap { Self.expectedVibration($0.feedback) }
      let vibrations = haptic(event.pattern)
      #expect(vibrations.count > 0 || expected.isEmpty, "\(name)")
      if expected.count == 1 {
        let on = vibrations.reduce(0) { $0 + $1.duration }
        #expect(abs(on - Double(expected[0].on) / 1000) < 1e-9, "\(name): \(on) s of vibration")
        #expect(abs(event.pattern.events.map(\.end).max()! - Double(expected[0].end) / 1000) < 1e-9, "\(name)")
      }
      let sounds = event.pattern.events.filter { $0.type == .audioCustom }
      #expect(sounds.count == sections.filter { $0.feedback["type"] as? String == "Sound" }.count, "\(name)")
      for sound in sounds { #expect(sound.waveformPath?.hasPrefix(FeedbackTheme.defaultSoundFolder + "/") == true) }
      if expected.isEmpty { #expect(notes.contains("\(name): sound only, no vibration")) }
    }
    // Debian 12's feedbackd-common 0.0.3 file (another version may name other events).
    if raw.count == 24 {
      #expect(vocabulary.firedNames.count == 18)
      #expect(vocabulary.quietForms.count == 10)
      #expect(notes.filter { $0.hasSuffix("Led only, not played") }.count == 6)
      #expect(notes.filter { $0.hasSuffix("sound only, no vibration") }.count == 6)
      #expect(vocabulary.events.filter(\.settings.essential).count == 12)
    }
  }

  // MARK: Conversion

  @Test("VibraRumble: count rumbles in duration ms, each the period less the pause (feedbackd's reading)")
  func rumble() throws {
    let json = theme(
      #"{"event-name": "message-new-email", "type": "VibraRumble", "duration": 750, "count": 3, "pause": 100}"#,
      profile: "quiet")
    let (vocabulary, notes) = try parse(json).vocabulary()
    let event = try #require(vocabulary.event(named: "message-new-email"))
    #expect(event.fileName == "feedbackd:message-new-email")
    #expect(event.settings.essential)
    #expect(notes.isEmpty)
    let vibrations = haptic(event.pattern)
    #expect(vibrations.map(\.time) == [0, 0.25, 0.5])
    #expect(vibrations.allSatisfy { $0.duration == 0.15 && $0.type == .hapticContinuous })
    #expect(vibrations.allSatisfy { $0.parameters.hapticIntensity == 1 && $0.parameters.hapticSharpness == 0.5 })
    #expect(event.pattern.curves.isEmpty)
    // Defaults: one rumble of 1000 ms; magnitude (hap's reading) scales it.
    let plain = try parse(theme(#"{"event-name": "a", "type": "VibraRumble", "magnitude": 0.25}"#)).vocabulary().0
    let single = haptic(try #require(plain.event(named: "a")).pattern)
    #expect(single.map(\.duration) == [1] && single[0].parameters.hapticIntensity == 0.25)
  }

  @Test("VibraPeriodic: one vibration, the fade an intensity curve from fade-in-level to the magnitude")
  func periodic() throws {
    let json = theme(
      #"""
      {"event-name": "alarm", "type": "VibraPeriodic", "magnitude": 32767, "duration": 10000,
       "fade-in-time": 4000, "fade-in-level": 4096},
      {"event-name": "flat", "type": "VibraPeriodic", "duration": 500},
      {"event-name": "half", "type": "VibraPeriodic", "duration": 500, "magnitude": 16384},
      {"event-name": "whole", "type": "VibraPeriodic", "duration": 2000, "fade-in-level": 8192, "magnitude": 16384},
      {"event-name": "cut", "type": "VibraPeriodic", "duration": 1000, "fade-in-time": 4000, "fade-in-level": 0}
      """#, profile: "quiet")
    let vocabulary = try parse(json).vocabulary().0
    let alarm = try #require(vocabulary.event(named: "alarm")).pattern
    #expect(
      alarm.events.count == 1 && alarm.events[0].duration == 10 && alarm.events[0].parameters.hapticIntensity == 1)
    let curve = try #require(alarm.curves.first)
    #expect(curve.id == .hapticIntensityControl)
    #expect(curve.points.map(\.time) == [0, 4])
    #expect(abs(curve.points[0].value - 4096.0 / 32767) < 1e-12 && curve.points[1].value == 1)
    let flat = try #require(vocabulary.event(named: "flat")).pattern
    #expect(flat.curves.isEmpty && flat.events[0].parameters.hapticIntensity == 1 && flat.events[0].duration == 0.5)
    let half = try #require(vocabulary.event(named: "half")).pattern
    #expect(half.curves.isEmpty && abs(half.events[0].parameters.hapticIntensity - 16384.0 / 32767) < 1e-12)
    // fade-in-time 0: the fade lasts the whole duration (as feedbackd hands it to the kernel).
    let whole = try #require(vocabulary.event(named: "whole")).pattern
    #expect(whole.curves.first?.points.map(\.time) == [0, 2] && whole.curves.first?.points.map(\.value) == [0.5, 1])
    // fade-in-level 0 is no fade.
    #expect(try #require(vocabulary.event(named: "cut")).pattern.curves.isEmpty)
  }

  @Test("VibraPattern: consecutive vibrations, zero magnitudes as gaps")
  func vibraPattern() throws {
    let json = theme(
      #"{"event-name": "p", "type": "VibraPattern", "magnitudes": [1, 0, 0.5, 0.25], "durations": [200, 50, 300, 0]}"#)
    let pattern = try #require(try parse(json).vocabulary().0.event(named: "p")).pattern
    #expect(pattern.events.map(\.time) == [0, 0.25])
    #expect(pattern.events.map(\.duration) == [0.2, 0.3])
    #expect(pattern.events.map(\.parameters.hapticIntensity) == [1, 0.5])
  }

  /// Found by the fuzzer's theme target: such an event was served with an empty pattern, one
  /// iOS refuses (pattern-empty).
  @Test("a vibration that plays nothing (magnitudes 0, or its strong part 0 ms) leaves its event out, with a note")
  func silentVibrations() throws {
    let json = """
      {"name": "t", "profiles": [
        {"name": "full", "feedbacks": [
          {"event-name": "p", "type": "VibraPattern", "magnitudes": [0, 0, 0.0, 0.25], "durations": [200, 50, 300, 0]},
          {"event-name": "r", "type": "VibraRumble", "duration": 75, "count": 3, "pause": 10, "magnitude": 0},
          {"event-name": "both", "type": "VibraPattern", "magnitudes": [0.5], "durations": [100]}]},
        {"name": "quiet", "feedbacks": [
          {"event-name": "both", "type": "VibraPattern", "magnitudes": [0], "durations": [100]}]}]}
      """
    let (vocabulary, notes) = try parse(json).vocabulary()
    for name in ["p", "r"] {
      #expect(vocabulary.event(named: name) == nil, "\(name)")
      #expect(notes.contains("\(name): its vibration plays nothing (every magnitude 0, or 0 ms long), not played"), "\(notes)")
    }
    for event in vocabulary.events { #expect(!event.pattern.events.isEmpty, "\(event.name)") }
    let both = try #require(vocabulary.event(named: "both"))
    #expect(both.pattern.events.count == 1)
    #expect(vocabulary.quietForms["both"] == nil)
    #expect(notes.contains("both: its quiet vibration plays nothing (every magnitude 0, or 0 ms long), not played"), "\(notes)")
  }

  @Test("Sound: an AudioCustom at time 0 with the absolute path; sound-only and Led-only events noted")
  func soundAndLed() throws {
    let json = theme(
      #"""
      {"event-name": "camera-shutter", "type": "Sound", "effect": "camera-shutter", "media-role": "event"},
      {"event-name": "battery-caution", "type": "Led", "color": "red", "frequency": 5000},
      {"event-name": "both", "type": "Sound", "effect": "bell"}
      """#)
    let parsed = try parse(json)
    #expect(parsed.events["camera-shutter"]?[.full] == .sound(effect: "camera-shutter", mediaRole: "event"))
    #expect(parsed.events["battery-caution"]?[.full] == .led(color: "red", frequency: 5000))
    let (vocabulary, notes) = parsed.vocabulary(soundFolder: "/snd/")
    #expect(vocabulary.events.map(\.name) == ["both", "camera-shutter"])
    let shutter = try #require(vocabulary.event(named: "camera-shutter"))
    #expect(shutter.pattern.events.count == 1)
    #expect(shutter.pattern.events[0].type == .audioCustom && shutter.pattern.events[0].time == 0)
    #expect(shutter.pattern.events[0].waveformPath == "/snd/camera-shutter.oga")
    #expect(!shutter.settings.essential)
    #expect(notes.contains("battery-caution: Led only, not played"))
    #expect(notes.contains("camera-shutter: sound only, no vibration"))
    #expect(
      parsed.vocabulary().0.event(named: "both")?.pattern.events[0].waveformPath
        == "/usr/share/sounds/freedesktop/stereo/bell.oga")
  }

  // MARK: Levels

  @Test("levels: full plays all three sections, quiet two, silent one; an event with a full section plays a quiet form at quiet")
  func levels() throws {
    let json = #"""
      {"name": "t", "profiles": [
        {"name": "full", "feedbacks": [
          {"event-name": "loud", "type": "VibraRumble", "duration": 10},
          {"event-name": "mixed", "type": "Sound", "effect": "message"}]},
        {"name": "quiet", "feedbacks": [
          {"event-name": "mixed", "type": "VibraRumble", "duration": 20},
          {"event-name": "quietOnly", "type": "VibraRumble", "duration": 30}]},
        {"name": "silent", "feedbacks": [
          {"event-name": "silentSound", "type": "Sound", "effect": "bell"},
          {"event-name": "mixed", "type": "Led", "color": "blue"}]}]}
      """#
    let parsed = try parse(json)
    #expect(parsed.feedbacks(of: "mixed", at: .full).map(\.section) == [.full, .quiet, .silent])
    #expect(parsed.feedbacks(of: "mixed", at: .quiet).map(\.section) == [.quiet, .silent])
    #expect(parsed.feedbacks(of: "mixed", at: .silent).map(\.section) == [.silent])
    #expect(parsed.feedbacks(of: "loud", at: .quiet).isEmpty)
    let (vocabulary, notes) = parsed.vocabulary()
    #expect(vocabulary.event(named: "loud")?.settings.essential == false)
    #expect(vocabulary.event(named: "quietOnly")?.settings.essential == true)
    #expect(vocabulary.event(named: "silentSound")?.settings.essential == true)
    let mixed = try #require(vocabulary.event(named: "mixed"))
    // At the quiet level it plays its quiet form: the quiet section's rumble, not the sound.
    #expect(!mixed.settings.essential)
    #expect(mixed.pattern.events.map(\.type) == [.hapticContinuous, .audioCustom])
    #expect(vocabulary.quietForms == ["mixed": FeedbackTheme.quietFormName("mixed")])
    let quietMixed = try #require(vocabulary.event(named: FeedbackTheme.quietFormName("mixed")))
    #expect(quietMixed.settings.essential)
    #expect(quietMixed.pattern.events.map(\.type) == [.hapticContinuous])
    #expect(abs(quietMixed.pattern.events[0].duration - 0.02) < 1e-9)
    #expect(vocabulary.firedNames == ["loud", "mixed", "quietOnly", "silentSound"])
    #expect(notes.contains("mixed: its Led feedback is not played"))
  }

  // MARK: Parents

  static let parent = FeedbackTheme(
    name: "default",
    events: [
      "a": [.full: .sound(effect: "a", mediaRole: nil), .quiet: .rumble(.init(duration: 100))],
      "b": [.quiet: .rumble(.init(duration: 200))],
    ])

  @Test("merging: the child wins per event and profile; the parent fills the rest")
  func merging() throws {
    let child = try parse(
      #"""
      {"name": "custom", "parent-name": "default", "profiles": [
        {"name": "quiet", "feedbacks": [{"event-name": "a", "type": "VibraRumble", "duration": 50}]},
        {"name": "full", "feedbacks": [{"event-name": "c", "type": "Sound", "effect": "c"}]}]}
      """#)
    #expect(child.parentName == "default")
    let merged = child.merged(withParent: Self.parent)
    #expect(merged.name == "custom" && merged.parentName == nil)
    #expect(merged.events["a"]?[.quiet] == .rumble(.init(duration: 50)))
    #expect(merged.events["a"]?[.full] == .sound(effect: "a", mediaRole: nil))
    #expect(merged.events["b"]?[.quiet] == .rumble(.init(duration: 200)))
    #expect(merged.eventNames == ["a", "b", "c"])
    let resolved = try child.resolvingParents { name in name == "default" ? Self.parent : nil }
    #expect(resolved == merged)
  }

  /// Issue 45, item 13: 16,000 feedbacks took 6 s and 32,000 23 s (each feedback's line was
  /// found by counting the columns of its one long line). 16 times the feedbacks take about 16
  /// times as long (a quadratic reading: 256 times), and each warning is placed as fast.
  @Test("a theme of many feedbacks on one line reads in linear time, warnings too")
  func manyFeedbacksReadInLinearTime() throws {
    func theme(_ count: Int) -> [UInt8] {
      let feedbacks = (0..<count).map {
        #"{"event-name": "x-\#($0)", "type": "VibraRumble", "duration": 30, "extra": 1}"#
      }
      return Array(
        #"{"name": "t", "profiles": [{"name": "full", "feedbacks": [\#(feedbacks.joined(separator: ", "))]}]}"#.utf8)
    }
    func seconds(_ bytes: [UInt8], runs: Int) throws -> Double {
      var best = Double.infinity
      for _ in 0..<runs {
        let start = Date()
        let read = try FeedbackTheme.parse(bytes, path: "t.json")
        best = min(best, Date().timeIntervalSince(start))
        #expect(read.warnings.count == read.events.count, "one warning (\"extra\") per feedback")
      }
      return best
    }
    let (small, large) = (try seconds(theme(1000), runs: 3), try seconds(theme(16000), runs: 1))
    #expect(large < small * 64, "1,000 feedbacks: \(small) s; 16,000: \(large) s")
  }

  @Test("parents: cycles, more than 8 and a missing one are errors")
  func parentChains() throws {
    func chained(_ name: String, _ parent: String?) -> FeedbackTheme {
      FeedbackTheme(name: name, parentName: parent, path: "\(name).json")
    }
    let cycle: [String: FeedbackTheme] = ["a": chained("a", "b"), "b": chained("b", "a")]
    #expect(throws: FeedbackThemeError.self) { try cycle["a"]!.resolvingParents { cycle[$0] } }
    do {
      _ = try cycle["a"]!.resolvingParents { cycle[$0] }
    } catch {
      #expect(error == .parentCycle(FeedbackThemePlace(path: "a.json"), chain: ["a", "b", "a"]))
      #expect(error.message == "a.json: the parent themes go round in a circle: \"a\" → \"b\" → \"a\".")
    }
    let own = chained("self", "self")
    #expect(kind(catching { try own.resolvingParents { _ in own } }) == "parentCycle")
    // t0 → t1 → ... → t9: 8 parents are followed, a 9th is too many.
    let deep = Dictionary(
      uniqueKeysWithValues: (0...9).map { ("t\($0)", chained("t\($0)", $0 < 9 ? "t\($0 + 1)" : nil)) })
    #expect(kind(catching { try deep["t0"]!.resolvingParents { deep[$0] } }) == "parentsTooDeep")
    #expect(kind(catching { try deep["t1"]!.resolvingParents { deep[$0] } }) == "none")
    #expect(kind(catching { try chained("x", "gone").resolvingParents { _ in nil } }) == "parentNotFound")
  }

  func catching(_ body: () throws -> FeedbackTheme) -> FeedbackThemeError? {
    do {
      _ = try body()
      return nil
    } catch {
      return error as? FeedbackThemeError
    }
  }

  // MARK: Lookup

  @Test("lookup: $FEEDBACK_THEME, then XDG_CONFIG_HOME (or ~/.config), then each XDG_DATA_DIRS folder")
  func lookup() {
    let environment = [
      "FEEDBACK_THEME": "/tmp/mine.json", "XDG_CONFIG_HOME": "/cfg", "HOME": "/home/u",
      "XDG_DATA_DIRS": "/a:relative::/b/",
    ]
    #expect(
      FeedbackTheme.searchPaths(theme: "custom", environment: environment) == [
        "/tmp/mine.json", "/cfg/feedbackd/themes/custom.json", "/a/feedbackd/themes/custom.json",
        "/b/feedbackd/themes/custom.json",
      ])
    #expect(
      FeedbackTheme.searchPaths(theme: "custom", environment: environment, includingOverride: false).first
        == "/cfg/feedbackd/themes/custom.json")
    #expect(
      FeedbackTheme.searchPaths(environment: ["HOME": "/home/u"]) == [
        "/home/u/.config/feedbackd/themes/default.json", "/usr/local/share/feedbackd/themes/default.json",
        "/usr/share/feedbackd/themes/default.json",
      ])
    #expect(FeedbackTheme.searchPaths(environment: [:]).count == 2)
    #expect(FeedbackTheme.searchPaths(environment: ["XDG_CONFIG_HOME": ""]).count == 2)
    #expect(FeedbackTheme.searchPaths(theme: "../../etc/x", environment: ["HOME": "/h"]).isEmpty)
    var asked: [String] = []
    let found = FeedbackTheme.locate(theme: "custom", environment: environment) { path in
      asked.append(path)
      return path.hasPrefix("/a/")
    }
    #expect(found == "/a/feedbackd/themes/custom.json")
    #expect(asked == ["/tmp/mine.json", "/cfg/feedbackd/themes/custom.json", "/a/feedbackd/themes/custom.json"])
    #expect(FeedbackTheme.locate(environment: [:]) { _ in false } == nil)
  }

  // MARK: Malformed themes

  @Test("malformed themes: each a typed error with the file, position and event")
  func malformed() {
    let cases: [(String, String)] = [
      ("", "syntax"),
      ("[1, 2]", "wrongType"),
      ("{\"profiles\": []}", "missingKey"),
      ("{\"name\": 5}", "wrongType"),
      ("{\"name\": \"t\", \"profiles\": {}}", "wrongType"),
      ("{\"name\": \"t\", \"profiles\": [{\"name\": \"loud\"}]}", "unknownProfile"),
      ("{\"name\": \"t\", \"profiles\": [{\"name\": \"full\"}, {\"name\": \"full\"}]}", "duplicateProfile"),
      (theme(#"{"type": "Sound", "effect": "x"}"#), "missingKey"),
      (theme(#"{"event-name": "a", "type": "Buzz"}"#), "unknownType"),
      (theme(#"{"event-name": "a", "type": "VibraRumble", "duration": "10"}"#), "wrongType"),
      (theme(#"{"event-name": "a", "type": "VibraRumble", "duration": 10.5}"#), "outOfRange"),
      (theme(#"{"event-name": "a", "type": "VibraRumble", "duration": -1}"#), "outOfRange"),
      (theme(#"{"event-name": "a", "type": "VibraRumble", "duration": 1e999}"#), "outOfRange"),
      (theme(#"{"event-name": "a", "type": "VibraRumble", "duration": NaN}"#), "outOfRange"),
      (theme(#"{"event-name": "a", "type": "VibraRumble", "duration": 60001}"#), "tooLong"),
      (theme(#"{"event-name": "a", "type": "VibraRumble", "duration": 0}"#), "outOfRange"),
      (theme(#"{"event-name": "a", "type": "VibraRumble", "count": 0}"#), "outOfRange"),
      (theme(#"{"event-name": "a", "type": "VibraRumble", "count": 1e300}"#), "tooManyPulses"),
      (theme(#"{"event-name": "a", "type": "VibraRumble", "count": 1001}"#), "tooManyPulses"),
      (theme(#"{"event-name": "a", "type": "VibraRumble", "duration": 500, "count": 1000}"#), "outOfRange"),
      (theme(#"{"event-name": "a", "type": "VibraRumble", "duration": 300, "count": 3, "pause": 100}"#), "outOfRange"),
      (theme(#"{"event-name": "a", "type": "VibraRumble", "magnitude": 1.5}"#), "outOfRange"),
      (theme(#"{"event-name": "a", "type": "VibraPeriodic", "magnitude": 0.5}"#), "outOfRange"),
      (theme(#"{"event-name": "a", "type": "VibraPeriodic", "magnitude": 65536}"#), "outOfRange"),
      (theme(#"{"event-name": "a", "type": "VibraPeriodic", "fade-in-level": -3}"#), "outOfRange"),
      (
        theme(#"{"event-name": "a", "type": "VibraPattern", "magnitudes": [1], "durations": [1, 2]}"#),
        "mismatchedLengths"
      ),
      (theme(#"{"event-name": "a", "type": "VibraPattern", "magnitudes": [2], "durations": [1]}"#), "outOfRange"),
      (theme(#"{"event-name": "a", "type": "VibraPattern", "magnitudes": [1], "durations": [1e999]}"#), "outOfRange"),
      (
        theme(#"{"event-name": "a", "type": "VibraPattern", "magnitudes": [1, 1], "durations": [60000, 1]}"#), "tooLong"
      ),
      (theme(#"{"event-name": "a", "type": "VibraPattern", "magnitudes": [], "durations": []}"#), "outOfRange"),
      (theme(#"{"event-name": "a", "type": "VibraPattern", "magnitudes": "1", "durations": [1]}"#), "wrongType"),
      (theme(#"{"event-name": "a", "type": "VibraPattern", "durations": [1]}"#), "missingKey"),
      (theme(#"{"event-name": "a", "type": "Sound"}"#), "missingKey"),
      (theme(#"{"event-name": "a", "type": "Sound", "effect": "../../etc/passwd"}"#), "badName"),
      (theme(#"{"event-name": "a", "type": "Led", "frequency": -1}"#), "outOfRange"),
      (theme(#"{"event-name": "", "type": "Led"}"#), "badName"),
      (theme(#"{"event-name": "a\u0000b", "type": "Led"}"#), "badName"),
      (theme(#"{"event-name": ["a"], "type": "Led"}"#), "wrongType"),
      (theme(#"{"event-name": "a", "type": "Led"}, {"event-name": "a", "type": "Led"}"#), "duplicateEvent"),
      (theme(#"5"#), "wrongType"),
      ("{\"name\": \"t\", \"parent-name\": \"../x\"}", "badName"),
    ]
    for (json, expected) in cases {
      let error = error(json)
      #expect(kind(error) == expected, "\(json)")
      guard let error else { continue }
      #expect(error.message.hasPrefix("t.json:"), "\(error.message)")
      #expect(error.message.hasSuffix("."), "\(error.message)")
      if json.contains("\"event-name\": \"a\"") && expected != "syntax" {
        #expect(error.message.contains("event \"a\""), "\(error.message)")
      }
    }
  }

  @Test("error messages: position, event and a readable reason")
  func messages() {
    let json = """
      {"name": "t", "profiles": [{"name": "quiet", "feedbacks": [
        {"event-name": "message-new-email", "type": "VibraRumble", "count": "3"}]}]}
      """
    #expect(
      error(json)?.message
        == "t.json:2:71: event \"message-new-email\": \"count\" must be a number, not a string.")
    let duplicate = theme(#"{"event-name": "a", "type": "Led"},"# + "\n" + #"{"event-name": "a", "type": "Led"}"#)
    #expect(
      error(duplicate)?.message
        == "t.json:2:16: event \"a\": a second feedback in the profile \"full\" (the first is at line 1); "
        + "feedbackd takes one feedback per event and profile.")
    #expect(
      error("{\"name\": \"t\", \"profiles\": [{\"name\": \"quite\"}]}")?.message.contains("did you mean \"quiet\"")
        == true)
    #expect(error("{\"name\": \"t\",")?.message.hasPrefix("t.json:1:") == true)
    let periodic = error(theme(#"{"event-name": "a", "type": "VibraPeriodic", "magnitude": 0.5}"#))
    #expect(
      periodic?.message
        == "t.json:1:117: event \"a\": \"magnitude\" must be a whole number from 0 to 65535 "
        + "(32767 is full strength), not 0.5.")
  }

  @Test("hostile input: a 1 MB name, NUL bytes, deep nesting, long arrays and every prefix never crash")
  func hostile() throws {
    let long = String(repeating: "x", count: 1 << 20)
    let big = error(theme("{\"event-name\": \"\(long)\", \"type\": \"Led\"}"))
    #expect(kind(big) == "badName")
    #expect((big?.message.utf8.count ?? 0) < 400)
    #expect(
      kind(error(theme("{\"event-name\": \"\(String(repeating: "\\u0041", count: 300))\", \"type\": \"Led\"}")))
        == "badName")
    var raw = Array(theme(#"{"event-name": "aXb", "type": "Led"}"#).utf8)
    raw[raw.firstIndex(of: UInt8(ascii: "X"))!] = 0
    #expect(kind(error(raw)) == "syntax")
    #expect(kind(error(String(repeating: "[", count: 100_000))) == "syntax")
    let many = Array(repeating: "1", count: 100_000).joined(separator: ",")
    #expect(
      kind(error(theme(#"{"event-name": "a", "type": "VibraPattern", "magnitudes": [\#(many)], "durations": [1]}"#)))
        == "tooManyPulses")
    // The control character is shown escaped in the message.
    #expect(error(theme(#"{"event-name": "a\u0007", "type": "Led"}"#))?.message.contains("U+0007") == true)
    let sample = Array(
      theme(
        #"""
        {"event-name": "a", "type": "VibraRumble", "duration": 750, "count": 3, "pause": 100},
        {"event-name": "b", "type": "VibraPeriodic", "magnitude": 32767, "fade-in-level": 4096, "fade-in-time": 50},
        {"event-name": "c", "type": "VibraPattern", "magnitudes": [0.5, 0], "durations": [10, 20]},
        {"event-name": "d", "type": "Sound", "effect": "bell"}, {"event-name": "e", "type": "Led", "color": "red"}
        """#, profile: "quiet"
      ).utf8)
    #expect(try FeedbackTheme.parse(sample, path: "t.json").events.count == 5)
    for end in 0..<sample.count {
      _ = error(Array(sample[..<end]))  // every truncation: an error, never a crash
    }
  }

  @Test("warnings: unknown keys, magnitudes above full strength, a default theme with a parent")
  func warnings() throws {
    let json = """
      {"name": "default", "parent-name": "base", "colour": 1, "profiles": [{"name": "full", "feedbacks": [
        {"event-name": "a", "type": "VibraPeriodic", "magnitude": 40000, "duraton": 5},
        {"event-name": "b", "type": "VibraRumble", "duration": 10,}]}]}
      """
    let parsed = try parse(json)
    #expect(parsed.warnings.count == 5)
    #expect(
      parsed.warnings.contains { $0.contains("unknown key \"duraton\"") && $0.contains("did you mean \"duration\"") })
    #expect(parsed.warnings.contains { $0.hasPrefix("t.json:2:61: event \"a\": \"magnitude\" 40000 is above full") })
    #expect(parsed.warnings.contains { $0.contains("refuses a parent") })
    #expect(parsed.warnings.allSatisfy { $0.hasPrefix("t.json:") })
    guard case .periodic(let periodic) = parsed.events["a"]?[.full] else {
      Issue.record("a is not periodic")
      return
    }
    #expect(periodic.level == 1)
  }
}
