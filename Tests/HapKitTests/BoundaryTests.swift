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

  /// The Swift modules of this package that `hap` links: its target and every dependency of it,
  /// read from Package.swift (a name with a folder of Swift files under Sources/).
  static func modulesLinkedIntoHap() throws -> Set<String> {
    let manifest = try String(contentsOf: Repository.url("Package.swift"), encoding: .utf8)
    var dependencies: [String: [String]] = [:]
    for match in manifest.matches(of: /name: "([A-Za-z0-9_-]+)",\s*dependencies: \[([^\]]*)\]/) {
      dependencies[String(match.1)] = match.2.matches(of: /"([A-Za-z0-9_-]+)"/).map { String($0.1) }
    }
    var linked: Set<String> = []
    var next = ["hap"]
    while let module = next.popLast() {
      guard linked.insert(module).inserted else { continue }
      next += dependencies[module] ?? []
    }
    return linked.filter { module in
      let files = FileManager.default.enumerator(atPath: Repository.url("Sources/\(module)").path)?.compactMap { $0 as? String }
      return files?.contains { $0.hasSuffix(".swift") } ?? false
    }
  }

  /// Modules linked into `hap` that still import full Foundation (issue 44, item 1, not yet
  /// done: HapKit's Core Haptics classes are `NSObject` subclasses, and `hap studio` plays through
  /// them, so they wait for a module of their own that `hap` does not link; `hap` sees
  /// Foundation through HapKit's re-export). Every other module imports FoundationEssentials at
  /// most, so that the static `hap` can drop Foundation, FoundationInternationalization and ICU.
  static let stillImportingFoundation: Set<String> = ["HapKit", "hap"]

  @Test("no module linked into hap imports full Foundation but the ones listed")
  func onlyTheListedModulesImportFoundation() throws {
    let linked = try Self.modulesLinkedIntoHap()
    #expect(linked.isSuperset(of: ["hap", "HapKit", "HapFormat", "HapResample"]), "\(linked.sorted())")
    var importing: [String: [String]] = [:]
    for module in linked {
      let folder = Repository.url("Sources/\(module)")
      let files = try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
        .filter { $0.hasSuffix(".swift") }
      for file in files {
        let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
        let imports = text.split(separator: "\n").contains { line in
          line.contains("import") && line.contains("Foundation")
            && line.firstMatch(of: /^(@_exported\s+)?import\s+(class\s+|struct\s+|func\s+)?Foundation(\.|\s|$)/) != nil
        }
        if imports { importing[module, default: []].append(file) }
      }
    }
    let offending = importing.filter { !Self.stillImportingFoundation.contains($0.key) }
    #expect(offending.isEmpty, "import FoundationEssentials (or Glibc) instead of Foundation in \(offending)")
    // The list cannot go stale: a module on it that no longer imports Foundation leaves it.
    let stale = Self.stillImportingFoundation.filter { importing[$0] == nil }
    #expect(stale.isEmpty, "\(stale.sorted()) import Foundation no more: take them off the list")
  }
}
