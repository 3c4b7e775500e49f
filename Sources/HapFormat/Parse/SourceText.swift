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
/// finding needs a position. A column is found in constant time whatever the line's length (a
/// minified file is one line: counting from its start for each of thousands of findings was
/// quadratic): the scalars before every ``stride``-th byte are counted once.
package struct LineIndex {
  /// Byte offset at which each line starts.
  private var lineStarts: [Int] = [0]
  /// Unicode scalars (bytes that are not UTF-8 continuation bytes) before byte `k · stride`.
  private var scalarsBefore: [Int] = [0]
  private let source: SourceText
  static let stride = 1024

  package init(_ source: SourceText) {
    self.source = source
    source.bytes.withUnsafeBufferPointer { buffer in
      var scalars = 0
      for i in 0..<buffer.count {
        if i > 0 && i % Self.stride == 0 { scalarsBefore.append(scalars) }
        if buffer[i] & 0xC0 != 0x80 { scalars += 1 }
        if buffer[i] == 0x0A { lineStarts.append(i + 1) }
      }
      if buffer.count > 0 && buffer.count % Self.stride == 0 { scalarsBefore.append(scalars) }
    }
  }

  /// Line and column of the byte at `offset`. Columns count Unicode scalars, so a
  /// character written with several UTF-8 bytes is one column, as editors show it.
  package func location(of offset: Int) -> (line: Int, column: Int) {
    let offset = max(0, min(offset, source.bytes.count))
    let line = line(of: offset)
    return (line, scalars(before: offset) - scalars(before: lineStarts[line - 1]) + 1)
  }

  /// The 1-based line of the byte at `offset` alone (a binary search of the lines' starts).
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

  /// The scalars before byte `offset`: a checkpoint's count and at most ``stride`` bytes more.
  private func scalars(before offset: Int) -> Int {
    let block = offset / Self.stride
    var count = scalarsBefore[block]
    var i = block * Self.stride
    while i < offset {
      if source.bytes[i] & 0xC0 != 0x80 { count += 1 }
      i += 1
    }
    return count
  }
}
