import HapCore
import Testing

@Suite("LineDiff: a unified line diff of two texts")
struct LineDiffTests {
  func hunks(_ old: String, _ new: String, context: Int = 3) -> [String] {
    if case .hunks(let lines) = LineDiff.unified(old, new, context: context) { return lines }
    return []
  }

  @Test func sameTextsAreSame() {
    #expect(LineDiff.unified("a\nb\n", "a\nb\n") == .same)
    #expect(LineDiff.unified("", "") == .same)
  }

  @Test func oneChangedLineWithContext() {
    let old = (1...10).map { "line \($0)" }.joined(separator: "\n") + "\n"
    let new = old.replacingOccurrences(of: "line 5\n", with: "line five\n")
    #expect(
      hunks(old, new) == [
        "@@ -2,7 +2,7 @@", " line 2", " line 3", " line 4", "-line 5", "+line five", " line 6", " line 7", " line 8",
      ])
  }

  @Test func addedAndRemovedWholeTexts() {
    #expect(hunks("", "a\nb\n") == ["@@ -0,0 +1,2 @@", "+a", "+b"])
    #expect(hunks("a\nb\n", "") == ["@@ -1,2 +0,0 @@", "-a", "-b"])
  }

  @Test func distantChangesAreSeparateHunksAndNearOnesMerge() {
    let old = (1...20).map(String.init).joined(separator: "\n")
    var new = old.replacingOccurrences(of: "\n2\n", with: "\nTWO\n")
    new = new.replacingOccurrences(of: "\n18\n", with: "\nEIGHTEEN\n")
    let separate = hunks(old, new, context: 1)
    #expect(separate.filter { $0.hasPrefix("@@") } == ["@@ -1,3 +1,3 @@", "@@ -17,3 +17,3 @@"])
    let merged = hunks(old, new, context: 8)
    #expect(merged.filter { $0.hasPrefix("@@") } == ["@@ -1,20 +1,20 @@"])
  }

  @Test func insertionInTheMiddleKeepsTheCommonLines() {
    let lines = hunks("a\nb\nc\nd\n", "a\nb\nx\nc\nd\n", context: 1)
    #expect(lines == ["@@ -2,2 +2,3 @@", " b", "+x", " c"])
  }

  @Test func tooManyChangedLinesGiveTheCountsInstead() {
    let old = (0..<3000).map { "old \($0)" }.joined(separator: "\n")
    let new = (0..<2000).map { "new \($0)" }.joined(separator: "\n")
    #expect(LineDiff.unified(old, new) == .tooLarge(oldLines: 3000, newLines: 2000))
    // The same lines around a small change cost nothing: the common head and tail are set aside.
    let big = (0..<100_000).map { "line \($0)" }.joined(separator: "\n")
    let changed = big.replacingOccurrences(of: "line 50000\n", with: "changed\n")
    #expect(hunks(big, changed).contains("+changed"))
  }
}
