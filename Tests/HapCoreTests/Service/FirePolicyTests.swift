import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

@Suite("FirePolicy")
struct FirePolicyTests {
  // A debounce exact in binary, so the boundary is exact too.
  let plain = EventSettings(debounce: 0.125)
  let essential = EventSettings(debounce: 0.125, essential: true)

  @Test func aRepeatWithinTheDebounceIsCoalesced() {
    var policy = FirePolicy()
    #expect(policy.decide("correct", settings: plain, at: 10) == .play)
    #expect(policy.decide("correct", settings: plain, at: 10.01) == .coalesce)
    #expect(policy.decide("correct", settings: plain, at: 10.124) == .coalesce)
    #expect(policy.decide("correct", settings: plain, at: 10.125) == .play)
    // Another event is not held back.
    #expect(policy.decide("pass", settings: plain, at: 10.126) == .play)
    #expect(policy.counters.fires == 5)
    #expect(policy.counters.played == 3)
    #expect(policy.counters.coalesced == 2)
    #expect(policy.counters.refused == 0)
  }

  @Test func theIntervalRunsFromTheLastPlayNotTheLastFire() {
    var policy = FirePolicy()
    var decisions: [FireDecision] = []
    // A fire every 40 ms for 0.4 s: plays at 0, 0.16 and 0.32 (every fourth).
    for k in 0..<10 { decisions.append(policy.decide("tick", settings: plain, at: Double(k) * 0.04 + 0.0001)) }
    #expect(decisions.filter { $0 == .play }.count == 3)
    #expect(policy.counters.coalesced == 7)
  }

  @Test func aZeroDebounceNeverCoalesces() {
    var policy = FirePolicy()
    let settings = EventSettings(debounce: 0)
    #expect(policy.decide("a", settings: settings, at: 1) == .play)
    #expect(policy.decide("a", settings: settings, at: 1) == .play)
  }

  @Test func aClockGoingBackIsWithinTheInterval() {
    var policy = FirePolicy()
    #expect(policy.decide("a", settings: plain, at: 5) == .play)
    #expect(policy.decide("a", settings: plain, at: 4) == .coalesce)
  }

  @Test func mutedRefusesEverything() {
    var policy = FirePolicy(muted: true)
    #expect(policy.decide("a", settings: essential, at: 0) == .refuse(.muted))
    policy.muted = false
    #expect(policy.decide("a", settings: essential, at: 0.01) == .play)
    // Refusals do not move the last play.
    policy.muted = true
    #expect(policy.decide("b", settings: plain, at: 1) == .refuse(.muted))
    policy.muted = false
    #expect(policy.decide("b", settings: plain, at: 1.01) == .play)
    #expect(policy.counters.refused == 2)
  }

  @Test func levelsKeepWhatTheyShould() {
    var policy = FirePolicy(level: .quiet)
    #expect(policy.decide("a", settings: plain, at: 0) == .refuse(.level(.quiet)))
    #expect(policy.decide("b", settings: essential, at: 0) == .play)
    policy.level = .silent
    #expect(policy.decide("c", settings: essential, at: 1) == .refuse(.level(.silent)))
    #expect(policy.decide("d", settings: plain, at: 1) == .refuse(.level(.silent)))
    policy.level = .full
    #expect(policy.decide("a", settings: plain, at: 2) == .play)
    // Muted beats the level.
    policy.level = .silent
    policy.muted = true
    #expect(policy.decide("a", settings: plain, at: 3) == .refuse(.muted))
    #expect(
      policy.counters
        == {
          var c = FireCounters()
          c.fires = 6
          c.played = 2
          c.refused = 4
          return c
        }())
  }

  @Test func aBusyFireIsCountedOnceAndDoesNotMoveTheLastPlay() {
    var policy = FirePolicy()
    #expect(policy.preview("correct", settings: plain, at: 10) == .play)
    policy.countBusy()  // could not be queued: it did not play
    #expect(policy.decide("correct", settings: plain, at: 10.01) == .play)
    #expect(policy.preview("correct", settings: plain, at: 10.02) == .coalesce)
    let c = policy.counters
    #expect(c.fires == 2 && c.busy == 1 && c.played == 1)
    #expect(c.fires == c.played + c.coalesced + c.refused + c.busy)
  }

  @Test func defaultsAreDocumented() {
    let settings = EventSettings()
    #expect(settings.priority == EventSettings.defaultPriority)
    #expect(settings.debounce == EventSettings.defaultDebounce)
    #expect(!settings.essential)
    #expect(settings.ducking == 1)
  }
}
