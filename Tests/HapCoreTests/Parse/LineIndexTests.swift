import Testing

@testable import HapFormat

/// Issue 45, item 15: columns from checkpoints (``LineIndex/stride``) are the columns counted
/// from the line's start, at every offset, across checkpoints, multi-byte characters and lines.
@Suite("LineIndex: line and column of every byte")
struct LineIndexTests {
  /// The column counted the plain way: the scalars from the line's start, plus one.
  static func naive(_ bytes: [UInt8], _ offset: Int) -> (line: Int, column: Int) {
    var (line, column) = (1, 1)
    for i in 0..<offset {
      if bytes[i] == 0x0A {
        (line, column) = (line + 1, 1)
      } else if bytes[i] & 0xC0 != 0x80 {
        column += 1
      }
    }
    return (line, column)
  }

  @Test("equal to counting from the line's start, for random text with long lines, UTF-8 and newlines")
  func sameAsCounting() {
    var generator = SystemRandomNumberGenerator()
    let pieces: [[UInt8]] = [Array("a".utf8), Array("é".utf8), Array("😀".utf8), [0x0A], Array("{\"x\": 1}".utf8)]
    for size in [0, 1, 1023, 1024, 1025, 2048, 5000] {
      var bytes: [UInt8] = []
      while bytes.count < size {
        let piece = pieces[Int.random(in: 0..<(bytes.count % 700 == 0 ? pieces.count : 3), using: &generator)]
        bytes += piece
      }
      let index = LineIndex(SourceText(bytes))
      var expected = (line: 1, column: 1)
      for offset in 0...bytes.count {
        if offset > 0 { expected = Self.naive(bytes, offset) }
        let got = index.location(of: offset)
        #expect(got.line == expected.line && got.column == expected.column, "size \(size), offset \(offset)")
        if got.line != expected.line || got.column != expected.column { return }
      }
    }
  }
}
