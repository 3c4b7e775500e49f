import Foundation
import HapTestSupport
import Testing

/// Issue 32, "Words": the README's examples run as written from the repository's root. Each
/// `hap ...` line of its code blocks, and each inline example of its opening, runs through
/// `sh -c` (globs and `&&` as a shell reads them) in a copy of the root's patterns/ and
/// examples/, with `hap` on the PATH and `HAP_DEVICE` naming the simulated exciter. An example
/// that cannot run here is left out only for a reason the test names (hardware, a service,
/// Ctrl-C, or a file of the reader's own, never one of the repository's own folders).
@Suite("The README's examples run as written", .serialized)
struct ReadmeExamplesTests {
  /// The repository's folders an example may name; any file under them must exist.
  static let repositoryFolders = ["patterns/", "examples/", "desktop/", "docs/", "contrib/"]

  /// The examples: code-block lines (usage lines, which hold `[`, aside) and the opening's inline ones.
  static func examples() throws -> [String] {
    let readme = try String(contentsOf: Hap.root.appendingPathComponent("README.md"), encoding: .utf8)
    var found: [String] = []
    let blocks = readme.components(separatedBy: "```")
    for (k, block) in blocks.enumerated() where k % 2 == 1 {
      for raw in block.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
        var line =
          raw.hasPrefix("$ ") ? String(raw.dropFirst(2)) : raw.hasPrefix("- run: ") ? String(raw.dropFirst(7)) : raw
        // Usage lines (`[--x]`, `a|b`, `OLD-FILE`) are checked against `hap help` elsewhere.
        let words = line.split(separator: " ")
        guard line.hasPrefix("hap "), !line.contains("["),
          !words.contains(where: {
            $0.count > 1 && $0.contains("|")
              || !$0.hasPrefix("-") && $0.count > 2 && $0.allSatisfy { $0.isUppercase || $0 == "-" }
          })
        else { continue }
        if let comment = line.range(of: "  #") { line = String(line[..<comment.lowerBound]) }
        found.append(line.trimmingCharacters(in: .whitespaces))
      }
    }
    let opening = readme.components(separatedBy: "## Set-up").first ?? ""
    for part in opening.components(separatedBy: "`").enumerated() where part.offset % 2 == 1 {
      if part.element.hasPrefix("hap "), part.element.split(separator: " ").count > 2 { found.append(part.element) }
    }
    return found
  }

  /// Why `example` cannot run here, or nil.
  static func reasonNotRun(_ example: String) -> String? {
    let words = example.split(separator: " ").map(String.init)
    if words.contains("--watch") { return "runs until Ctrl-C" }
    if ["serve", "drag"].contains(words[1]) { return "runs until stopped, on a device or input device" }
    if words[1] == "studio" { return "serves the studio until Ctrl-C (StudioBrowserTests drive it)" }
    if ["fire", "mute", "unmute", "level", "status"].contains(words[1]) { return "needs a running hap serve" }
    for (k, word) in words.enumerated() where ["-D", "--device", "--audio-device"].contains(word) {
      if k + 1 < words.count, words[k + 1] != "sim" { return "needs the device \(words[k + 1])" }
    }
    if example.contains("| aplay") { return "plays through the speakers" }
    for word in words where word.contains("*") {
      let folder = String(word.prefix { $0 != "*" })
      if !repositoryFolders.contains(where: folder.hasPrefix) && !folder.isEmpty {
        return "a glob of the reader's own: \(word)"
      }
    }
    for input in inputs(words)
    where !FileManager.default.fileExists(atPath: Hap.root.appendingPathComponent(input).path) {
      // One of ours (a path into the repository's folders, or the name of a bundled pattern
      // without its folder, as `hap play correct.json` once was): it must run, and fails.
      let bundled = Hap.root.appendingPathComponent("patterns/" + input).path
      if repositoryFolders.contains(where: input.hasPrefix)
        || (!input.contains("/") && FileManager.default.fileExists(atPath: bundled))
      {
        return nil
      }
      return "names a file of the reader's own: \(input)"
    }
    return nil
  }

  /// The files and folders an example reads (not what follows an output option, nor globs).
  /// `hap WORDS`'s arguments as a shell in `root` would hand them to hap, for a command line of
  /// plain words (nil for quotes, pipes, redirections, variables, `&&`): a word naming a file or
  /// folder of `root` (or the output of `-o`, `--audio`, `--plot`) as its path in `root`, a glob
  /// as the sorted paths it matches there.
  static func words(of example: String, in root: String) -> [String]? {
    guard !example.contains(where: { "\"'|<>&;$`\\(){}".contains($0) }) else { return nil }
    let words = example.split(separator: " ").map(String.init)
    guard words.first == "hap" else { return nil }
    let outputs: Set<String> = ["-o", "--output", "--audio", "--plot"]
    var arguments: [String] = []
    for (k, word) in words.enumerated().dropFirst() {
      if word.contains("*") {
        let folder = (word as NSString).deletingLastPathComponent
        let pattern = (word as NSString).lastPathComponent
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + folder)) ?? []
        let matched = names.filter { fnmatch(pattern, $0, 0) == 0 && !$0.hasPrefix(".") }.sorted()
        guard !matched.isEmpty else { return nil }
        arguments += matched.map { root + "/" + (folder.isEmpty ? $0 : folder + "/" + $0) }
      } else if word != "-", !word.hasPrefix("-"),
        outputs.contains(words[k - 1]) || FileManager.default.fileExists(atPath: root + "/" + word)
      {
        arguments.append(root + "/" + word)
      } else {
        arguments.append(word)
      }
    }
    return arguments
  }

  static func inputs(_ words: [String]) -> [String] {
    let outputs: Set<String> = ["-o", "--output", "--audio", "--plot"]
    return words.enumerated().compactMap { k, word in
      guard k > 1, !word.hasPrefix("-"), !outputs.contains(words[k - 1]), !word.contains("*"), word != "&&" else {
        return nil
      }
      guard word.contains("/") || word.contains(".") else { return nil }
      return word
    }.filter { !["hap", "play", "render"].contains($0) }
  }

  @Test("every example runs (exit 0) or is left out for a reason the test names")
  func everyExample() throws {
    let examples = try Self.examples()
    #expect(examples.count > 40)
    #expect(examples.contains("hap play patterns/correct.json"), "the README's first example")
    let device = try SimulatedExciter()
    let root = device.folder.path("root")
    // The repository's files, not hidden entries: examples/.build is another test's, built
    // while this one runs.
    for folder in ["patterns", "examples", "desktop"] {
      let source = Hap.root.appendingPathComponent(folder)
      let files = FileManager.default.enumerator(
        at: source, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
      while let file = files?.nextObject() as? URL {
        guard (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
        let inside = String(file.path.dropFirst(source.path.count))
        let target = URL(fileURLWithPath: root + "/" + folder + inside)
        try FileManager.default.createDirectory(
          at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: file, to: target)
      }
    }
    let binaries = URL(fileURLWithPath: Hap.binary).deletingLastPathComponent().path
    let path = binaries + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    var ran = 0
    var throughTheShell = 0
    let environment = device.environment.merging(["HAP_DEVICE": "exciter"]) { $1 }
    for example in examples {
      if let reason = Self.reasonNotRun(example) {
        #expect(!reason.isEmpty)
        continue
      }
      // The first example run, and any with the shell's own syntax, as written through a
      // shell in the folder; the others' words in process, each path the folder's (the shell
      // would resolve it there), each glob expanded as the shell expands it.
      let words = ran == 0 ? nil : Self.words(of: example, in: root)
      let result: Hap.Result
      if let words {
        result = try Hap.run(words, environment: environment, timeout: 120)
      } else {
        result = try Hap.run(
          ["-c", example], environment: environment.merging(["PATH": path]) { $1 },
          directory: URL(fileURLWithPath: root), timeout: 120, executable: "/bin/sh")
        throughTheShell += 1
      }
      #expect(result.status == 0, "\(example): exit \(result.status)\n\(result.stderr.suffix(600))")
      ran += 1
    }
    #expect(throughTheShell >= 1, "no example ran as written through a shell")
    #expect(ran >= 16, "only \(ran) examples ran")
  }
}
