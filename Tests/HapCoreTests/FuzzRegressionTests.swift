import Foundation
import HapFuzzCheck
import HapTestSupport
import Testing

/// Every input the fuzzer ever stopped on (`fuzz/regressions/`, one file each, named after what it
/// broke) goes through the fuzzer's own check again, so a fixed crash stays fixed.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
  static let folder = Repository.url("fuzz/regressions")

  static var inputs: [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted()
  }

  @Test("the regression folder holds inputs") func present() {
    #expect(!Self.inputs.isEmpty, "no regression inputs in \(Self.folder.path)")
  }

  @Test("each input the fuzzer found passes the fuzzer's check", arguments: inputs)
  func replay(_ name: String) throws {
    let bytes = try [UInt8](Data(contentsOf: Self.folder.appendingPathComponent(name)))
    FuzzCheck.run(bytes)
  }
}
