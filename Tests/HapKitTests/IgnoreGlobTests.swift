import Foundation
import Testing

@testable import HapKit
@testable import HapRuntime

/// The globs of `--ignore` and `.haprc.json`'s `ignore` list (``IgnoreGlob``): `**` matched in
/// time linear in the glob's segments times the path's names, whatever the glob (a hostile
/// `.haprc.json` in a pull request must not hang CI's `hap validate`).
@Suite("Ignore globs: gitignore's rules, in bounded time")
struct IgnoreGlobTests {
  /// The plain recursive definition the matcher must agree with (exponential in the `**`s).
  static func reference(_ glob: ArraySlice<String>, _ names: ArraySlice<Substring>) -> Bool {
    guard let first = glob.first else { return names.isEmpty }
    if first == "**" {
      return (names.startIndex...names.endIndex).contains { reference(glob.dropFirst(), names[$0...]) }
    }
    guard let name = names.first, fnmatch(first, String(name), 0) == 0 else { return false }
    return reference(glob.dropFirst(), names.dropFirst())
  }

  @Test("every glob of up to 5 segments agrees with the recursive definition on paths of up to 5 names")
  func agreesWithTheDefinition() {
    let segments = ["**", "a", "*", "b*", "?"]
    let names: [Substring] = ["a", "b", "bc", "ab"]
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<3_000 {
      let glob = (0..<Int.random(in: 0...5, using: &generator)).map { _ in segments.randomElement(using: &generator)! }
      let path = (0..<Int.random(in: 0...5, using: &generator)).map { _ in names.randomElement(using: &generator)! }
      #expect(IgnoreGlob.match(glob[...], path[...]) == Self.reference(glob[...], path[...]), "\(glob) \(path)")
    }
  }

  /// Without the bound, 30 `**` against 60 names is 60^30 steps: this test never ended.
  @Test("thirty ** segments against a path sixty folders deep are matched at once")
  func manyDoubleStars() {
    let glob = IgnoreGlob(Array(repeating: "**", count: 30).joined(separator: "/") + "/x", base: "/p")
    let deep = "/p/" + Array(repeating: "a", count: 60).joined(separator: "/")
    #expect(!glob.matches(deep + "/y.json", isFolder: false, root: "/p"))
    #expect(glob.matches(deep + "/x", isFolder: false, root: "/p"))
    let alternating = IgnoreGlob(Array(repeating: "**/a", count: 25).joined(separator: "/") + "/b", base: "/p")
    #expect(!alternating.matches(deep + "/c", isFolder: true, root: "/p"))
    #expect(alternating.matches(deep + "/b", isFolder: true, root: "/p"))
    let unanchored = IgnoreGlob("*.json", base: "/p")
    #expect(unanchored.matches(deep + "/y.json", isFolder: false, root: "/p"))
    #expect(!unanchored.matches(deep + "/y.ahap", isFolder: false, root: "/p"))
  }
}
