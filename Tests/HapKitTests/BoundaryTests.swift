import Foundation
import HapTestSupport
import Testing

/// The layers' boundaries (issue 43): the command-line front end reaches the devices, files and
/// libraries only through HapRuntime, as Package.swift declares; and nothing it links imports
/// full Foundation (issue 44).
@Suite("Boundaries between the layers")
struct BoundaryTests {
  /// The modules only HapRuntime (and HapKit over it) may use: the back ends and the C libraries
  /// behind them.
  static let beneathHapRuntime = [
    "HapALSA", "HapRumble", "HapResample", "CALSA", "CEvdev", "CSndFile", "CSoxr", "CDBus", "CMicroHTTPD",
    "CHapSignals", "CHapLibrary", "CHapArguments",
  ]

  /// CHapArguments is no layer: the program's own start (include/CHapArguments.h), which
  /// HapKit's users must not get with HapRuntime.
  @Test("hap's target depends on HapRuntime alone, and CHapArguments")
  func theCommandDependsOnHapRuntimeAlone() throws {
    let manifest = try String(contentsOf: Repository.root.appendingPathComponent("Package.swift"), encoding: .utf8)
    let declaration = try #require(
      manifest.firstMatch(of: /\.executableTarget\(\s*name: "hap",\s*dependencies: \[([^\]]*)\]/),
      "Package.swift declares no executable target named hap")
    let dependencies = declaration.1.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    #expect(dependencies == ["\"HapRuntime\"", "\"CHapArguments\""])
  }

  @Test("no file of the command-line front end imports what lies beneath HapRuntime, nor HapKit")
  func theCommandImportsNothingBeneathHapRuntime() throws {
    let folder = Repository.root.appendingPathComponent("Sources/hap")
    let files = try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
      .filter { $0.hasSuffix(".swift") }
    #expect(files.count > 10, "Sources/hap holds \(files.count) Swift files: the walk found the wrong folder")
    var offending: [String] = []
    for file in files {
      let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
      for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.contains(" import ") {
        let module = line.split(separator: " ").last.map(String.init) ?? ""
        if Self.beneathHapRuntime.contains(module) || module == "HapKit" { offending.append("\(file): \(line)") }
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
    let all = Set(
      Self.layers.map(\.module) + Self.beneathHapRuntime + ["HapCore", "HapKit", "HapRuntime", "CHapKernels", "CHapScan"])
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

  /// The modules that import full Foundation, and with it FoundationInternationalization and
  /// ICU's 37.5 MB of data: HapKit, Core Haptics' façade for apps (its classes are `NSObject`
  /// subclasses and its error bridges to `NSError`, as Apple's), and the two benchmarks. Every
  /// other module imports FoundationEssentials at most.
  static let importingFoundation: Set<String> = ["HapKit", "hap-bench", "hapkit-bench"]

  @Test("only HapKit's façade and the benchmarks import full Foundation, and hap links none of them")
  func onlyTheFacadeImportsFoundation() throws {
    let linked = try Self.modulesLinkedIntoHap()
    #expect(linked.isSuperset(of: ["hap", "HapRuntime", "HapFormat", "HapResample"]), "\(linked.sorted())")
    #expect(linked.isDisjoint(with: Self.importingFoundation), "hap links \(linked.intersection(Self.importingFoundation).sorted())")
    let modules = try FileManager.default.contentsOfDirectory(atPath: Repository.url("Sources").path)
    #expect(modules.count > 20, "Sources holds \(modules.count) folders: the walk found the wrong folder")
    var importing: [String: [String]] = [:]
    for module in modules {
      let folder = Repository.url("Sources/\(module)")
      let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String }
        .filter { $0.hasSuffix(".swift") } ?? []
      for file in files {
        let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
        let imports = text.split(separator: "\n").contains { line in
          line.contains("import") && line.contains("Foundation")
            && line.firstMatch(of: /^(@_exported\s+)?import\s+(class\s+|struct\s+|func\s+)?Foundation(\.|\s|$)/) != nil
        }
        if imports { importing[module, default: []].append(file) }
      }
    }
    let offending = importing.filter { !Self.importingFoundation.contains($0.key) }
    #expect(offending.isEmpty, "import FoundationEssentials (or Glibc) instead of Foundation in \(offending)")
    // The list cannot go stale: a module on it that no longer imports Foundation leaves it.
    let stale = Self.importingFoundation.filter { importing[$0] == nil }
    #expect(stale.isEmpty, "\(stale.sorted()) import Foundation no more: take them off the list")
  }

  /// `make static`'s binary (.build/static/release/hap), when it has been built.
  static let staticHap = Repository.url(".build/static/release/hap")

  /// Its symbols, as `nm` lists them (its DWARF is stripped, its symbol table kept).
  @Test(
    "the static hap holds no ICU, no FoundationInternationalization and no Foundation",
    .enabled(
      if: FileManager.default.isExecutableFile(atPath: staticHap.path),
      "no static hap to read: 'make static' builds .build/static/release/hap"))
  func theStaticBinaryHoldsNoICU() throws {
    let nm = Process()
    nm.executableURL = URL(fileURLWithPath: "/usr/bin/nm")
    nm.arguments = [Self.staticHap.path]
    let output = Pipe()
    nm.standardOutput = output
    nm.standardError = FileHandle(forWritingAtPath: "/dev/null")
    try nm.run()
    let listing = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    nm.waitUntilExit()
    #expect(nm.terminationStatus == 0)
    let names = listing.split(separator: "\n").compactMap { $0.split(separator: " ").last }
    #expect(names.count > 10_000, "nm listed \(names.count) symbols: the binary's symbol table is missing")
    #expect(names.contains { $0.hasPrefix("$s20FoundationEssentials") }, "no FoundationEssentials: not the binary expected")
    let icu = names.filter { $0.firstMatch(of: /^icudt[0-9]+_dat$|^swift_ucol_open$/) != nil }
    #expect(icu.isEmpty, "ICU in the static hap: \(icu)")
    let foundation = names.filter { $0.hasPrefix("$s10Foundation") || $0.contains("FoundationInternationalization") }
    #expect(foundation.isEmpty, "\(foundation.count) symbols of Foundation in the static hap, such as \(foundation.prefix(3))")
  }
}
