/// The raw bytes of a pattern file, as read. Everything hap reports points back into these bytes.
public struct SourceText: Sendable {
  public let bytes: [UInt8]

  public init(_ bytes: [UInt8]) { self.bytes = bytes }
  public init(_ string: String) { self.bytes = Array(string.utf8) }

  /// Decodes `count` bytes at `start` as UTF-8 (invalid sequences become U+FFFD).
  func string(from start: Int, count: Int) -> String {
    bytes.withUnsafeBufferPointer { buffer in
      String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<start + count]), as: UTF8.self)
    }
  }
}

/// Maps byte offsets to 1-based line and column. Built once per file, when the first
/// finding needs a position. A position is found in constant time whatever the line's length
/// (a file of one long line places each of its findings as fast as a short file): the line by a
/// binary search, the column from the count of scalars before each ``blockSize``-byte block.
package struct LineIndex {
  /// The bytes of one block of scalar counts.
  static let blockSize = 1024
  /// Byte offset at which each line starts.
  private var lineStarts: [Int] = [0]
  /// The Unicode scalars (bytes that are not UTF-8 continuation bytes) before each block.
  private var scalarsBefore: [Int] = []
  private let source: SourceText

  package init(_ source: SourceText) {
    self.source = source
    scalarsBefore.reserveCapacity(source.bytes.count / Self.blockSize + 1)
    var scalars = 0
    source.bytes.withUnsafeBufferPointer { buffer in
      for i in 0..<buffer.count {
        if i % Self.blockSize == 0 { scalarsBefore.append(scalars) }
        let byte = buffer[i]
        if byte & 0xC0 != 0x80 { scalars += 1 }
        if byte == 0x0A { lineStarts.append(i + 1) }
      }
    }
    scalarsBefore.append(scalars)
  }

  /// 1-based line of the byte at `offset`.
  package func line(of offset: Int) -> Int {
    let offset = max(0, min(offset, source.bytes.count))
    var low = 0
    var high = lineStarts.count - 1
    while low < high {
      let mid = (low + high + 1) / 2
      if lineStarts[mid] <= offset { low = mid } else { high = mid - 1 }
    }
    return low + 1
  }

  /// Line and column of the byte at `offset`. Columns count Unicode scalars, so a
  /// character written with several UTF-8 bytes is one column, as editors show it.
  package func location(of offset: Int) -> (line: Int, column: Int) {
    let offset = max(0, min(offset, source.bytes.count))
    let line = line(of: offset)
    return (line, 1 + scalars(before: offset) - scalars(before: lineStarts[line - 1]))
  }

  /// The scalars in the bytes before `offset`: its block's count, then at most a block counted.
  private func scalars(before offset: Int) -> Int {
    let block = offset / Self.blockSize
    var count = scalarsBefore[block]
    var i = block * Self.blockSize
    while i < offset {
      if source.bytes[i] & 0xC0 != 0x80 { count += 1 }
      i += 1
    }
    return count
  }
}
