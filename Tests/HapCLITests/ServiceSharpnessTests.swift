import Foundation
import HapTestSupport
import Testing

/// `fire NAME sharpness=X` on the simulated exciter: the event rendered with X added to its
/// sharpness (docs/service.md).
@Suite("hap serve: fires with a sharpness", .serialized)
struct ServiceSharpnessTests {
  /// `hap render` of bundled pattern `name` at 48 kHz in f32, with `sharpness` (if any) added as
  /// a `HapticSharpnessControl` Parameter at time 0 of the file.
  func render(_ name: String, sharpness: Double?, in folder: TemporaryFolder) throws -> [UInt8] {
    var path = Hap.root.appendingPathComponent("patterns/\(name).json").path
    let label = "\(name)-\(sharpness.map { "\($0)" } ?? "plain")"
    if let sharpness {
      let data = try Data(contentsOf: URL(fileURLWithPath: path))
      var document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
      var entries = try #require(document["Pattern"] as? [Any])
      entries.insert(
        [
          "Parameter": ["ParameterID": "HapticSharpnessControl", "Time": 0.0, "ParameterValue": sharpness]
        ], at: 0)
      document["Pattern"] = entries
      path = try folder.write("\(label).json", try JSONSerialization.data(withJSONObject: document))
    }
    let out = folder.path("\(label).raw")
    let result = try Hap.run([
      "render", path, "-o", out, "--sample-format", "f32", "--rate", "48000", "--quiet",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    return [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
  }

  /// Finds each render in `played`, in order, each after the previous one (each fire starts on
  /// a period boundary after the previous one's silence); nothing else sounds.
  func expectPlayed(_ renders: [(String, [UInt8])], in played: [UInt8]) throws {
    var from = 0
    for (name, rendered) in renders {
      let r0 = try #require(rendered.firstIndex { $0 != 0 })
      let c0 = try #require(played[from...].firstIndex { $0 != 0 }, "\(name) was not played")
      let start = (c0 - r0) / 4 * 4
      try #require(start >= from && start + rendered.count <= played.count, "\(name) is cut short")
      let same = played[start..<(start + rendered.count)].elementsEqual(rendered)
      #expect(same, "\(name) is not its render")
      from = start + rendered.count
    }
    #expect(played[from...].allSatisfy { $0 == 0 })
  }

  @Test func aFireWithSharpnessPlaysTheRenderWithThatSharpnessControl() throws {
    let service = try RunningService(["--sample-format", "f32", "--keep-open"])
    // stop has a continuous event; correct is transients only, which the control does not reach.
    let fires: [[String]] = [
      ["fire", "stop", "--sharpness", "0.5"], ["fire", "stop"], ["fire", "stop", "--sharpness", "0.5"],
      ["fire", "correct", "--sharpness", "0.5"], ["fire", "stop", "--sharpness", "-0.3"],
    ]
    for fire in fires {
      let mark = (try? service.device.captured().count) ?? 0
      let result = try service.hap(fire)
      #expect(result.status == 0, "\(fire): \(result.stderr)")
      // Heard, then silent: right after its reply the fire may not sound yet (a client run in
      // process asks at once), and the next one must not overlap it.
      let heard = Wait.until(10, every: 0.01) {
        (try? service.device.captured())?.dropFirst(mark).contains { $0 != 0 } == true
      }
      #expect(heard, "\(fire) did not sound")
      try service.waitUntilSilent()
    }
    #expect(try service.counters()["played"] == fires.count)
    #expect(service.terminate() == 0)
    let played = try service.device.captured()
    let folder = try TemporaryFolder()
    let sharper = try render("stop", sharpness: 0.5, in: folder)
    let plain = try render("stop", sharpness: nil, in: folder)
    let duller = try render("stop", sharpness: -0.3, in: folder)
    let correct = try render("correct", sharpness: nil, in: folder)
    let changed = sharper != plain && duller != plain
    #expect(changed, "the sharpness changed nothing")
    let transientsAlike = try render("correct", sharpness: 0.5, in: folder) == correct
    #expect(transientsAlike, "the sharpness reached a transient")
    try expectPlayed(
      [
        ("stop sharpness=0.5", sharper), ("stop", plain), ("stop sharpness=0.5 (cached)", sharper),
        ("correct sharpness=0.5", correct), ("stop sharpness=-0.3", duller),
      ], in: played)
  }

  @Test func whileEveryVariantSoundsANewSharpnessIsBusyAndASoundingOneIsKept() throws {
    // A 30 s hum (at 8 kHz, so that nine renders are quick), fired without debounce.
    let device = try SimulatedExciter()
    try device.folder.write(
      "vocabulary/hum.json",
      #"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 30}}]}"#)
    try device.folder.write("vocabulary/vocabulary.json", #"{"Events": [{"Name": "hum", "Debounce": 0}]}"#)
    let service = try RunningService(
      ["--vocabulary", device.folder.path("vocabulary"), "--rate", "8000", "--keep-open"], device: device)
    let connection = try ServiceConnection(service.socket)
    defer { connection.close() }
    for k in 1...8 {
      connection.send("fire hum sharpness=0.\(k)\n")
      #expect(withoutVoice(connection.readLine()) == "ok fired hum", "sharpness=0.\(k)")
    }
    // Eight variants sound: a ninth value has no slot; the eight cached ones still play.
    connection.send("fire hum sharpness=0.9\n")
    #expect(connection.readLine().hasPrefix("error busy "))
    let refused = try service.hap(["fire", "hum", "--sharpness", "-0.9"])
    #expect(refused.status == 2)
    connection.send("fire hum sharpness=0.3\n")
    #expect(withoutVoice(connection.readLine()) == "ok fired hum")
    connection.send("fire hum\n")
    #expect(withoutVoice(connection.readLine()) == "ok fired hum")
    // Ten sound once the playback thread has taken the last fires (the replies come first).
    let ten = try Wait.until(5, every: 0.005) { try service.status()["playing"] as? Int == 10 }
    #expect(ten, "not 10 voices sound")
    // Once they have faded out, their slots are reused.
    #expect(try service.hap(["fire", "--stop"]).status == 0)
    try service.waitUntilSilent()
    connection.send("fire hum sharpness=0.9\n")
    #expect(withoutVoice(connection.readLine()) == "ok fired hum")
    #expect(try service.hap(["fire", "--stop"]).status == 0)
    try service.waitUntilSilent()
    #expect(service.terminate() == 0)
  }

  /// `hap fire --sharpness` out of range is refused by the client, before any request (the
  /// request's own range: HapKitTests, ServiceRequestTests).
  @Test func aSharpnessOutOfRangeIsRefusedByHapFire() throws {
    let service = try RunningService()
    for value in ["1.5", "-2", "x"] {
      let result = try service.hap(["fire", "stop", "--sharpness", value])
      #expect(result.status == 2, "--sharpness \(value)")
      #expect(result.stderr.contains("--sharpness"), "\(result.stderr)")
    }
    #expect(try service.hap(["fire", "--stop", "--sharpness", "0.5"]).status == 2)
    #expect(try service.counters()["fires"] == 0)
    #expect(service.terminate() == 0)
  }
}
