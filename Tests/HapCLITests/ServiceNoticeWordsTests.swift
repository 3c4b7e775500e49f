import HapCore
@testable import HapKit
@testable import HapRuntime
@testable import hap
import Testing

/// `hap serve`'s log lines for the notices HapKit's service tests find said
/// (Tests/HapKitTests: a pattern left out, an event over the memory budget), in process.
@Suite("hap serve's log: notices in words")
struct ServiceNoticeWordsTests {
  @Test("a pattern left out names its file")
  func aPatternLeftOutNamesItsFile() {
    let lines = ServiceNotices.lines(
      .patternLeftOut(file: "broken.json", reason: "it has errors", error: nil), verbose: false)
    #expect(lines.count == 1 && lines[0].contains("broken.json"), "\(lines)")
  }

  @Test("an event over the memory budget is one line saying it is left out, with the option to raise it")
  func anEventOverTheBudgetIsLeftOut() {
    let lines = ServiceNotices.lines(.overBudget(event: "texture", bytes: 5_760_000, budget: 4 << 20), verbose: false)
    #expect(lines.count == 1 && lines[0].contains("texture left out"), "\(lines)")
    #expect(lines.first?.contains("--memory-budget") == true, "\(lines)")
  }
}
