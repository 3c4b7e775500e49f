import Foundation
import HapTestSupport
import Testing

/// The layers' boundaries (issue 43): the command-line front end reaches the devices, files and
/// libraries only through HapKit, as Package.swift declares.
@Suite("Boundaries between the layers")
struct BoundaryTests {
  /// The modules only HapKit may use: the back ends and the C libraries behind them.
  static let beneathHapKit = [
    "HapALSA", "HapRumble", "HapResample", "CALSA", "CEvdev", "CSndFile", "CSoxr", "CDBus", "CMicroHTTPD",
    "CHapSignals", "CHapLibrary",
  ]

  @Test("hap's target depends on HapKit alone")
  func theCommandDependsOnHapKitAlone() throws {
    let manifest = try String(contentsOf: Repository.root.appendingPathComponent("Package.swift"), encoding: .utf8)
    let declaration = try #require(
      manifest.firstMatch(of: /\.executableTarget\(\s*name: "hap",\s*dependencies: \[([^\]]*)\]/),
      "Package.swift declares no executable target named hap")
    let dependencies = declaration.1.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    #expect(dependencies == ["\"HapKit\""])
  }

  @Test("no file of the command-line front end imports what lies beneath HapKit")
  func theCommandImportsNothingBeneathHapKit() throws {
    let folder = Repository.root.appendingPathComponent("Sources/hap")
    let files = try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
      .filter { $0.hasSuffix(".swift") }
    #expect(files.count > 10, "Sources/hap holds \(files.count) Swift files: the walk found the wrong folder")
    var offending: [String] = []
    for file in files {
      let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
      for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.contains(" import ") {
        let module = line.split(separator: " ").last.map(String.init) ?? ""
        if Self.beneathHapKit.contains(module) { offending.append("\(file): \(line)") }
      }
    }
    #expect(offending.isEmpty, "\(offending)")
  }

  @Test("every source file docs/architecture.md names exists")
  func theArchitectureNamesFilesThatExist() throws {
    let text = try String(contentsOf: Repository.url("docs/architecture.md"), encoding: .utf8)
    let named = Set(text.matches(of: /`([A-Za-z0-9_+\/.-]+\.(?:swift|c))`/).map { String($0.1) })
    #expect(named.count > 3, "docs/architecture.md names \(named.count) source files: the search is wrong")
    var files: [String] = []
    for folder in ["Sources", "Tests", "tools", "fuzz", "examples"] {
      let enumerator = FileManager.default.enumerator(atPath: Repository.url(folder).path)
      files += (enumerator?.compactMap { $0 as? String } ?? []).map { "\(folder)/\($0)" }
    }
    let missing = named.filter { name in !files.contains { $0 == name || $0.hasSuffix("/" + name) } }
    #expect(missing.isEmpty, "docs/architecture.md names files that do not exist: \(missing.sorted())")
  }

  /// HapCore's modules, each with the modules it may import: only those below it.
  static let layers: [(module: String, below: Set<String>)] = [
    ("HapFormat", ["CHapScan"]),
    ("HapRender", ["HapFormat", "CHapKernels"]),
    ("HapPlayback", ["HapFormat", "HapRender"]),
    ("HapTools", ["HapFormat", "HapRender", "HapPlayback"]),
    ("HapVocabulary", ["HapFormat", "HapRender", "HapPlayback", "HapTools"]),
  ]

  @Test("HapCore's modules import only the ones below them: the format nothing of hap's, the renderer no player")
  func hapCoreIsLayered() throws {
    let system: Set<String> = ["Foundation", "FoundationEssentials", "Synchronization", "Glibc", "Darwin", "Dispatch"]
    let all = Set(Self.layers.map(\.module) + Self.beneathHapKit + ["HapCore", "HapKit", "CHapKernels", "CHapScan"])
    var offending: [String] = []
    for (module, below) in Self.layers {
      let folder = Repository.url("Sources/\(module)")
      let files = try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
        .filter { $0.hasSuffix(".swift") }
      #expect(!files.isEmpty, "Sources/\(module) holds no Swift file")
      for file in files {
        let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
        for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.hasPrefix("@_exported import ")
        {
          let name = String(line.split(separator: " ").last ?? "")
          if all.contains(name) && !below.contains(name) && !system.contains(name) {
            offending.append("\(module)/\(file): \(line)")
          }
        }
      }
    }
    #expect(offending.isEmpty, "\(offending)")
  }
}
