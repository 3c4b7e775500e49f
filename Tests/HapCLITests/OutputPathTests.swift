import Foundation
import Glibc
import HapRuntime
import Testing

/// ``OutputPlan/resolved(_:)``, which tells when an output would overwrite an input: links
/// followed and `..` taken after them (as the kernel does), whether the whole path exists (one
/// realpath(3)) or only its start does (the rest as written).
@Suite("Output paths: what a path names, links and all")
struct OutputPathTests {
  /// A folder holding real/f.wav and link -> real; its own path with its links followed.
  static func tree() throws -> (TemporaryFolder, String) {
    let folder = try TemporaryFolder()
    try FileManager.default.createDirectory(atPath: folder.path("real"), withIntermediateDirectories: true)
    _ = try folder.write("real/f.wav", "x")
    #expect(symlink("real", folder.path("link")) == 0)
    let real = realpath(folder.url.path, nil)!
    defer { free(real) }
    return (folder, String(cString: real))
  }

  @Test func aPathThatExistsIsItsTarget() throws {
    let (folder, base) = try Self.tree()
    #expect(OutputPlan.resolved(folder.path("link/f.wav")) == base + "/real/f.wav")
    // `..` after a link is the link target's parent, as open(2) takes it.
    #expect(OutputPlan.resolved(folder.path("link/../real/f.wav")) == base + "/real/f.wav")
    #expect(OutputPlan.resolved(folder.path("real/./f.wav")) == base + "/real/f.wav")
    #expect(OutputPlan.same(folder.path("link/f.wav"), folder.path("real/f.wav")))
  }

  @Test func aPathNotMadeYetKeepsItsNewParts() throws {
    let (folder, base) = try Self.tree()
    #expect(OutputPlan.resolved(folder.path("link/new/x.wav")) == base + "/real/new/x.wav")
    #expect(OutputPlan.resolved(folder.path("link/new/../g.wav")) == base + "/real/g.wav")
    #expect(OutputPlan.same(folder.path("link/new/x.wav"), folder.path("real/new/./x.wav")))
    #expect(!OutputPlan.same(folder.path("link/new/x.wav"), folder.path("real/x.wav")))
  }

  @Test func aDanglingLinkIsTakenAsWritten() throws {
    let (folder, base) = try Self.tree()
    #expect(symlink("nowhere", folder.path("real/dangling.wav")) == 0)
    #expect(OutputPlan.resolved(folder.path("link/dangling.wav")) == base + "/real/dangling.wav")
  }
}
