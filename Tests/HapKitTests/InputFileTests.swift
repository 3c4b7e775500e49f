import Foundation
import Testing

@testable import HapKit
@testable import HapRuntime

/// `InputFile`'s budget: a file one byte past the limit is refused whatever the allocator
/// rounds the first read's storage up to (the read goes straight into storage that may be
/// larger than asked), and one at the limit is read whole.
@Suite("InputFile: the size budget at its edge")
struct InputFileTests {
  @Test("limit and limit + 1 bytes, for limits around the allocator's sizes")
  func theEdge() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hap-input-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    for limit in [1, 7, 15, 16, 17, 100, 1000, 4095, 4096, 65535, 100_000] {
      let path = folder.appendingPathComponent("f").path
      try Data(repeating: 0x41, count: limit).write(to: URL(fileURLWithPath: path))
      let read = try InputFile.read(path, for: .namedInput, limit: limit, stop: nil)
      #expect(read.count == limit, "limit \(limit)")
      try Data(repeating: 0x41, count: limit + 1).write(to: URL(fileURLWithPath: path))
      #expect(throws: PatternFiles.ReadError.self, "limit \(limit): one byte over was read") {
        _ = try InputFile.read(path, for: .namedInput, limit: limit, stop: nil)
      }
    }
  }
}
