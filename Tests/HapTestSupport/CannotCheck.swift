import Foundation
import Testing

/// Says that a test could not run its check here (the system refused SCHED_FIFO, a tool or the
/// corpus is missing, ...): a known issue in the test's results, with why, instead of a silent
/// pass. The test returns after it; where the check must run (CI), test for that before.
public func cannotCheck(_ why: Comment, sourceLocation: SourceLocation = #_sourceLocation) {
  withKnownIssue(why, sourceLocation: sourceLocation) { Issue.record(sourceLocation: sourceLocation) }
}

/// Says that the shared corpus (or the part of it named by `what`) is not at `url`: a failure
/// where CI requires it (`HAP_REQUIRE_CORPUS=1`), a known issue elsewhere.
public func corpusMissing(_ what: String, at url: URL, sourceLocation: SourceLocation = #_sourceLocation) {
  if SharedCorpus.required {
    Issue.record("HAP_REQUIRE_CORPUS=1 but no \(what) at \(url.path)", sourceLocation: sourceLocation)
  } else {
    cannotCheck("\(what) not found at \(url.path) (set HAP_CORPUS)", sourceLocation: sourceLocation)
  }
}

/// The path of the system tool `name` (in /usr/bin, /bin or /usr/local/bin), if installed.
public func systemTool(_ name: String) -> String? {
  ["/usr/bin", "/bin", "/usr/local/bin"].map { "\($0)/\(name)" }.first {
    FileManager.default.isExecutableFile(atPath: $0)
  }
}
