import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

@Suite("service requests: set ID and stop ID")
struct ServiceVoiceRequestTests {
  @Test func setAndStopTakeAVoiceNumber() throws {
    #expect(try ServiceRequest.parse("set 7 intensity=0.5").get() == .set(voice: 7, intensity: 0.5, sharpness: nil))
    #expect(
      try ServiceRequest.parse("set 7 sharpness=-0.25 intensity=1").get()
        == .set(voice: 7, intensity: 1, sharpness: -0.25))
    #expect(try ServiceRequest.parse("stop 12").get() == .stopVoice(12))
    #expect(try ServiceRequest.parse("stop engine").get() == .stop(name: "engine"))
    // A number names a voice even where the vocabulary has no such event.
    #expect(try ServiceRequest.parse("stop 12", events: ["engine"]).get() == .stopVoice(12))
  }

  @Test(arguments: [
    ("set", "set needs a voice number"), ("set 7", "set needs a voice number"),
    ("set x intensity=1", "\"x\" is not a voice number"), ("set 0 intensity=1", "\"0\" is not a voice number"),
    ("set 4294967296 intensity=1", "is not a voice number"), ("set -1 intensity=1", "is not a voice number"),
    ("set 7 intensity=2", "intensity must be a number from 0 to 1"),
    ("set 7 sharpness=nan", "sharpness must be a number from -1 to 1"),
    ("set 7 intensity=1 intensity=0", "intensity is given twice"), ("set 7 loop", "expected intensity=X"),
    ("set 7 gain=1", "unknown option \"gain\""), ("stop 0", "\"0\" is not a voice number"),
    ("stop 99999999999999999999", "is not a voice number"),
  ])
  func badVoiceRequestsAreRefusedWithTheirRule(line: String, said: String) {
    guard case .failure(let error) = ServiceRequest.parse(line) else {
      Issue.record("\(line) parsed")
      return
    }
    #expect(error.code == .badRequest)
    #expect(error.message.contains(said), "\(error.message)")
  }

  @Test func repliesNameTheVoiceAndReadBack() {
    let replies: [(ServiceReply, String)] = [
      (.fired("engine", voice: 3), "ok fired engine voice=3"), (.coalesced("tap", voice: 9), "ok coalesced tap voice=9"),
      (.fired("engine"), "ok fired engine"), (.set(voice: 4), "ok set voice=4"),
      (.stoppedVoice(5), "ok stopped voice=5"),
    ]
    for (reply, line) in replies {
      #expect(reply.line == line)
      #expect(ServiceReply(ok: String(line.dropFirst(3))) == reply, "\(line)")
    }
    // A name ending in something like a voice word is still read whole when no number follows.
    #expect(ServiceReply(ok: "fired a voice=x") == .fired("a voice=x"))
  }
}
