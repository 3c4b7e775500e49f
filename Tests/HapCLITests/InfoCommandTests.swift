import Foundation
import Testing

@Suite("hap info and hap profiles")
struct InfoCommandTests {
  let correct = RenderFixtures.pattern("correct")

  /// The text of a labelled row (`label` padded to 13 columns), or nil.
  func row(_ label: String, in output: String) -> String? {
    let prefix = label.padding(toLength: 13, withPad: " ", startingAt: 0)
    return output.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(13)) }
  }

  @Test func textOutputHasEveryLine() throws {
    let result = try Hap.run(["info", correct])
    #expect(result.status == 0, "\(result.stderr)")
    let out = result.stdout
    #expect(row("pattern", in: out) == correct)
    let duration = try #require(row("duration", in: out))
    // correct.json ends with its second tap (entry 1 of its Pattern array).
    #expect(duration.hasSuffix(" s, where the HapticTransient at 0.09 s (/Pattern/1) ends"), "\(duration)")
    #expect(row("events", in: out) == "2 HapticTransient")
    #expect(row("parameters", in: out) == "none")
    #expect(row("curves", in: out) == "none")
    let frequency = try #require(row("frequency", in: out))
    #expect(frequency.hasSuffix(" Hz (profile exciter)"), "\(frequency)")
    let peak = try #require(row("peak", in: out))
    #expect(peak.contains(" dBFS  rms ") && peak.hasSuffix(" dBFS"), "\(peak)")
    let limiter = try #require(row("limiter", in: out))
    #expect(limiter.hasPrefix("did not act (peak before it "), "\(limiter)")
    let timeline = try #require(row("timeline", in: out))
    #expect(timeline.hasPrefix("│") && timeline.hasSuffix("│"))
    #expect(timeline.count == 62)  // 60 columns between the bars
    #expect(row("audio", in: out) == nil)
    // The axis under the timeline: 0 s ... duration.
    let lines = out.split(separator: "\n").map(String.init)
    let axis = try #require(lines.last)
    #expect(axis.trimmingCharacters(in: .whitespaces).hasPrefix("0 s"))
    #expect(axis.hasSuffix(String(duration.prefix { $0 != "," })))
  }

  @Test func textAndJSONForAPatternThatDrivesTheLimiter() throws {
    // Two full-intensity continuous events at once: 0.8 + 0.8 before the limiter.
    let folder = try TemporaryFolder()
    let pattern = try folder.write(
      "loud.json",
      #"""
      {"Version": 1, "Pattern": [
        {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.3,
          "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}]}},
        {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.3,
          "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}]}},
        {"ParameterCurve": {"ParameterID": "HapticSharpnessControl", "Time": 0,
          "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 0}, {"Time": 0.3, "ParameterValue": 0.5}]}}
      ]}
      """#)
    let result = try Hap.run(["info", pattern])
    #expect(result.status == 0, "\(result.stderr)")
    let limiter = try #require(row("limiter", in: result.stdout))
    #expect(limiter.hasPrefix("acted on ") && limiter.contains(" frames; peak before it "), "\(limiter)")
    #expect(row("events", in: result.stdout) == "2 HapticContinuous")
    #expect(row("curves", in: result.stdout) == "1 HapticSharpnessControl")
    let json = try Hap.run(["info", "--format", "json", pattern])
    let document = try decodeJSON(json.stdout)
    #expect(document["limiterActed"] as? Bool == true)
    let peak = try #require(document["peak"] as? Double)
    let before = try #require(document["peakBeforeLimiter"] as? Double)
    #expect(before > 1 && peak < 1 && peak < before, "peak \(peak), before the limiter \(before)")
  }

  static let documentedKeys: Set<String> = [
    "file", "duration", "rate", "profile", "events", "parameters", "curves", "frequency", "peak", "rms",
    "peakBeforeLimiter", "limiterActed", "skippedAudioEvents", "renderedDuration", "sounds", "timeline", "end",
    "writtenDuration",
  ]

  @Test func jsonOutputHasTheDocumentedKeys() throws {
    let result = try Hap.run(["info", "--format", "json", correct])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdoutLines.count == 1)
    let document = try decodeJSON(result.stdout)
    #expect(Set(document.keys) == Self.documentedKeys)
    #expect(document["file"] as? String == correct)
    let duration = try #require(document["duration"] as? Double)
    #expect(duration > 0.05 && duration < 0.2)
    #expect(document["rate"] as? Int == 48000)
    #expect(document["profile"] as? String == "exciter")
    #expect(document["events"] as? [String: Int] == ["HapticTransient": 2])
    #expect((document["parameters"] as? [String: Int])?.isEmpty == true)
    #expect((document["curves"] as? [String: Int])?.isEmpty == true)
    let frequency = try #require(document["frequency"] as? [String: Double])
    #expect(Set(frequency.keys) == ["minimum", "maximum"])
    let low = try #require(frequency["minimum"])
    let high = try #require(frequency["maximum"])
    #expect(60 <= low && low <= high && high <= 240)
    let peak = try #require(document["peak"] as? Double)
    let rms = try #require(document["rms"] as? Double)
    let before = try #require(document["peakBeforeLimiter"] as? Double)
    #expect(0 < rms && rms < peak && peak < 1 && peak <= before)
    #expect(document["limiterActed"] as? Bool == false)
    #expect(document["skippedAudioEvents"] as? Int == 0)
    let timeline = try #require(document["timeline"] as? [Double])
    #expect(timeline.count == 60)
    #expect(timeline.allSatisfy { 0 <= $0 && $0 <= 1 })
    #expect(abs((timeline.max() ?? 0) - peak) < 0.001)
    let end = try #require(document["end"] as? [String: Any])
    #expect(end["type"] as? String == "HapticTransient")
    #expect(end["entry"] as? Int == 1)
    #expect(end["ending"] as? String == "tap")
    #expect(document["writtenDuration"] as? Double == 0.09)
    // The duration agrees with the text output.
    let text = try Hap.run(["info", correct])
    // (the text to the millisecond, as players show a length; the JSON exact)
    let shown = row("duration", in: text.stdout)?.split(separator: " ").first.flatMap { Double($0) }
    let exact = try #require(document["duration"] as? Double)
    #expect(shown.map { abs($0 - exact) <= 0.0005 } == true, "\(text.stdout)")
  }

  @Test func jsonOutputWithCurvesProfileAndAudio() throws {
    let folder = try TemporaryFolder()
    let pattern = try folder.write(
      "mixed.json",
      #"""
      {"Version": 1, "Pattern": [
        {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.5}},
        {"Event": {"Time": 0, "EventType": "AudioContinuous", "EventDuration": 0.2}},
        {"Parameter": {"ParameterID": "HapticSharpnessControl", "Time": 0.1, "ParameterValue": 0.5}},
        {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0,
          "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"Time": 0.5, "ParameterValue": 0.2}]}}
      ]}
      """#)
    let result = try Hap.run(["info", "--format", "json", "--profile", "lra", "--rate", "8000", pattern])
    #expect(result.status == 0, "\(result.stderr)")
    let document = try decodeJSON(result.stdout)
    #expect(Set(document.keys) == Self.documentedKeys)
    #expect(document["rate"] as? Int == 8000)
    #expect(document["profile"] as? String == "lra")
    #expect(document["events"] as? [String: Int] == ["HapticContinuous": 1, "AudioContinuous": 1])
    #expect(document["parameters"] as? [String: Int] == ["HapticSharpnessControl": 1])
    #expect(document["curves"] as? [String: Int] == ["HapticIntensityControl": 1])
    #expect(document["skippedAudioEvents"] as? Int == 1)
    let frequency = try #require(document["frequency"] as? [String: Double])
    #expect((frequency["minimum"] ?? 0) >= 155 && (frequency["maximum"] ?? 1000) <= 185, "\(frequency)")
    // Text: the audio row.
    let text = try Hap.run(["info", pattern])
    #expect(row("audio", in: text.stdout) == "1 audio event not part of the haptic signal")
  }

  // Regression test: with no haptic event, the renderer read one uninitialised voice (see
  // RenderCommandTests.aPatternWithoutHapticEventsRendersExactSilence): hap info then reported
  // "frequency 0..0 Hz" ({"minimum":0,"maximum":0}) instead of "none (no haptic event sounds)"
  // (null), or crashed. Run several times because the symptom depends on the memory's content.
  // Failed at commit 6fd1b8b; passes since acfce2a, where the renderer admits only real voices.
  @Test(arguments: RenderCommandTests.patternsWithoutHapticEvents)
  func aPatternWithoutHapticSoundHasNoFrequency(_ text: String) throws {
    let folder = try TemporaryFolder()
    let pattern = try folder.write("silent.json", text)
    for attempt in 1...4 {
      let json = try Hap.run(["info", "--format", "json", pattern])
      #expect(json.status == 0, "attempt \(attempt): \(json.stderr)")
      guard json.status == 0 else { continue }
      let document = try decodeJSON(json.stdout)
      #expect(document["frequency"] is NSNull, "attempt \(attempt): frequency \(document["frequency"] ?? "missing")")
      #expect(document["peak"] as? Double == 0, "attempt \(attempt)")
      #expect(document["limiterActed"] as? Bool == false)
      #expect((document["timeline"] as? [Double])?.allSatisfy { $0 == 0 } == true)
      let text = try Hap.run(["info", pattern])
      #expect(text.status == 0, "attempt \(attempt): \(text.stderr)")
      #expect(row("frequency", in: text.stdout) == "none (no haptic event sounds)", "attempt \(attempt)")
      #expect(row("peak", in: text.stdout) == "-inf dBFS  rms -inf dBFS", "attempt \(attempt)")
    }
  }

  @Test func widthSetsTheTimelineLength() throws {
    for width in [10, 25, 400] {
      let json = try Hap.run(["info", "--format", "json", "--width", String(width), correct])
      #expect(json.status == 0)
      let timeline = try #require(try decodeJSON(json.stdout)["timeline"] as? [Double])
      #expect(timeline.count == width)
      let text = try Hap.run(["info", "--width", String(width), correct])
      let bars = try #require(row("timeline", in: text.stdout))
      #expect(bars.count == width + 2, "\(bars)")
    }
    for bad in ["9", "401", "wide"] {
      let result = try Hap.run(["info", "--width", bad, correct])
      #expect(result.status == 2, "--width \(bad)")
      #expect(
        result.stderr.contains("'--width' must be a whole number from 10 to 400, not '\(bad)'"), "\(result.stderr)")
      #expect(result.stdout.isEmpty)
    }
  }

  @Test func aPatternWithErrorsIsExitOne() throws {
    let folder = try TemporaryFolder()
    let pattern = try folder.write(
      "broken.json", #"{"Version": 1, "Pattern": [{"Event": {"Time": -1, "EventType": "HapticTransient"}}]}"#)
    for format in ["text", "json"] {
      let result = try Hap.run(["info", "--format", format, pattern])
      #expect(result.status == 1, "\(format)")
      #expect(result.stderr.contains("[time-negative]"), "\(result.stderr)")
      #expect(result.stdout.isEmpty, "\(format): \(result.stdout)")
    }
    let missing = try Hap.run(["info", folder.path("nope.json")])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("cannot read"))
  }

  // MARK: several patterns

  @Test func severalPatternsGiveOneTextReportEach() throws {
    let roundEnd = RenderFixtures.pattern("roundEnd")
    let result = try Hap.run(["info", correct, roundEnd])
    #expect(result.status == 0, "\(result.stderr)")
    let reports = result.stdout.components(separatedBy: "\n\n")
    try #require(reports.count == 2, "\(result.stdout)")
    #expect(row("pattern", in: reports[0]) == correct)
    #expect(row("pattern", in: reports[1]) == roundEnd)
    // Each report is headed by its name and is the one that pattern gets alone.
    #expect(reports[0].hasPrefix("pattern"))
    #expect(reports[1].hasPrefix("pattern"))
    let alone = try Hap.run(["info", roundEnd])
    #expect(reports[1] == alone.stdout)
  }

  @Test func severalPatternsAsJSONAreAnArrayInOrder() throws {
    let roundEnd = RenderFixtures.pattern("roundEnd")
    let result = try Hap.run(["info", "--format", "json", correct, roundEnd, correct])
    #expect(result.status == 0, "\(result.stderr)")
    let array = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
    #expect(array.compactMap { $0["file"] as? String } == [correct, roundEnd, correct])
    for object in array { #expect(Set(object.keys) == Self.documentedKeys) }
    let alone = try decodeJSON(try Hap.run(["info", "--format", "json", roundEnd]).stdout)
    #expect(array[1]["duration"] as? Double == alone["duration"] as? Double)
  }

  @Test func severalPatternsExitWithTheWorstStatus() throws {
    let folder = try TemporaryFolder()
    let broken = try folder.write(
      "broken.json", #"{"Version": 1, "Pattern": [{"Event": {"Time": -1, "EventType": "HapticTransient"}}]}"#)
    let missing = folder.path("nope.json")
    let invalid = try Hap.run(["info", correct, broken])
    #expect(invalid.status == 1, "\(invalid.stderr)")
    #expect(row("pattern", in: invalid.stdout) == correct, "the good file is still described")
    #expect(invalid.stderr.contains("[time-negative]"))
    let trouble = try Hap.run(["info", missing, correct, broken])
    #expect(trouble.status == 2)
    #expect(row("pattern", in: trouble.stdout) == correct)
    let json = try Hap.run(["info", "--format", "json", broken, correct, missing])
    #expect(json.status == 2)
    let array = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
    #expect(array.compactMap { $0["file"] as? String } == [broken, correct, missing])
    #expect(array[0]["error"] is String && array[2]["error"] is String)
    #expect(array[1]["duration"] is Double)
    let twoStdin = try Hap.run(["info", "-", "-"], input: Data())
    #expect(twoStdin.status == 2)
  }

  // MARK: hap profiles

  @Test func profilesListsTheBuiltIns() throws {
    let result = try Hap.run(["profiles"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("exciter: wideband voice-coil exciter (the default)"))
    #expect(result.stdout.contains("lra: linear resonant actuator"))
    #expect(result.stdout.contains("sharpness 0..1   -> 60..240 Hz"))
    #expect(result.stdout.contains("sharpness 0..1   -> 155..185 Hz"))
  }

  @Test func profilesAsJSON() throws {
    let result = try Hap.run(["profiles", "--format", "json"])
    #expect(result.status == 0, "\(result.stderr)")
    let array = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
    #expect(
      array.compactMap { $0["name"] as? String } == [
        "exciter", "lra", "dualsense", "metaquest", "console-pcm", "console-simple",
      ])
    let keys: Set<String> = [
      "name", "description", "minimumFrequency", "maximumFrequency", "intensityExponent", "maximumAmplitude",
      "transientCycles", "frequencyScale", "emphasis",
    ]
    for profile in array { #expect(Set(profile.keys) == keys) }
    // An ACF profile: Meta's scale and its emphasis burst; hap's own: its transients (null).
    #expect(array[3]["frequencyScale"] as? String == "quadratic")
    let emphasis = try #require(array[3]["emphasis"] as? [String: Any])
    #expect(emphasis["ducking"] as? Double == 0.5 && (emphasis["low"] as? [String: Any])?["shape"] as? String == "sine")
    #expect(array[0]["emphasis"] is NSNull && array[0]["frequencyScale"] as? String == "logarithmic")
    #expect(array[0]["minimumFrequency"] as? Double == 60)
    #expect(array[0]["maximumFrequency"] as? Double == 240)
    #expect(array[1]["minimumFrequency"] as? Double == 155)
    #expect(array[1]["maximumFrequency"] as? Double == 185)
  }

  @Test func profilesChecksAFile() throws {
    let folder = try TemporaryFolder()
    let good = try folder.write(
      "shaker.json",
      #"{"Name": "shaker", "Description": "bass shaker", "MinimumFrequency": 30, "MaximumFrequency": 120}"#)
    let ok = try Hap.run(["profiles", "--format", "json", good])
    #expect(ok.status == 0, "\(ok.stderr)")
    let array = try #require(try JSONSerialization.jsonObject(with: Data(ok.stdout.utf8)) as? [[String: Any]])
    #expect(array.count == 1)
    #expect(array.first?["name"] as? String == "shaker")
    #expect(array.first?["minimumFrequency"] as? Double == 30)
    // A file's profile works with info, too.
    let info = try Hap.run(["info", "--format", "json", "--profile", good, correct])
    #expect(info.status == 0)
    #expect(try decodeJSON(info.stdout)["profile"] as? String == "shaker")

    let bad = try folder.write("badprofile.json", #"{"Name": "bad", "MinimumFrequency": 300, "MaximumFrequency": 80}"#)
    let refused = try Hap.run(["profiles", bad])
    #expect(refused.status == 2)
    #expect(refused.stderr.contains("[profile-value-invalid]"), "\(refused.stderr)")
    #expect(refused.stdout.isEmpty)
    let missing = try Hap.run(["profiles", folder.path("nope.json")])
    #expect(missing.status == 2)
    let infoBad = try Hap.run(["info", "--profile", bad, correct])
    #expect(infoBad.status == 2)
    #expect(infoBad.stderr.contains("[profile-value-invalid]"))
  }

  @Test func curvesAfterTheLastSoundAreSaidNotRendered() throws {
    let folder = try TemporaryFolder()
    let path = folder.path("tail.ahap")
    try #"""
    {"Version": 1.0, "Pattern": [
      {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.2}},
      {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0,
        "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"Time": 9, "ParameterValue": 0.2}]}}
    ]}
    """#.write(toFile: path, atomically: true, encoding: .utf8)
    let text = try Hap.run(["info", path])
    #expect(text.status == 0, "\(text.stderr)")
    #expect(
      row("duration", in: text.stdout) == "0.205 s, where the release of the HapticContinuous at 0 s (/Pattern/0) ends")
    #expect(text.stdout.contains("the written timeline runs on to 9 s, silent there (not rendered)"))
    let json = try decodeJSON(try Hap.run(["info", "--format", "json", path]).stdout)
    #expect(json["duration"] as? Double == 0.205)
    #expect(json["writtenDuration"] as? Double == 9)
    #expect((json["end"] as? [String: Any])?["ending"] as? String == "release")
  }
}
