import Foundation
import HapFormat
import HapVocabulary
import Testing

/// What HapCore's modules use in place of Foundation's (they import FoundationEssentials alone,
/// issue 44): each gives what Foundation gave, compared here with Foundation itself.
@Suite("FoundationEssentials stand-ins")
struct EssentialsTests {
  static let paths = [
    "", "/", "//", "a", "a/", "/a", "/a/", "a/b", "/a/b", "/a/b/", "a//b", "//a//b//", "/a/b.c", "a.b.c", "b.", ".b",
    "..", ".", "/.", "/..", "a/..", "a/.b", "a/b..c", "/a/b.c/", "~/x.ahap", "dir.d/file", "x.tar.gz", "é/ü.ahap",
    "a/ b .c", "/tmp/hap test/file name.wav", "...", "a/...", "a/..b", "..b",
  ]

  @Test("PathText's words give what NSString's give")
  func pathWordsMatchNSString() {
    for path in Self.paths {
      let ns = path as NSString
      #expect(PathText.lastComponent(path) == ns.lastPathComponent, "\(path)")
      // NSString traps on a one-character relative path ("a", "a/", "."): PathText gives "".
      if ["a", "a/", "."].contains(path) {
        #expect(PathText.deletingLastComponent(path) == "")
      } else {
        #expect(PathText.deletingLastComponent(path) == ns.deletingLastPathComponent, "\(path)")
      }
      #expect(PathText.pathExtension(path) == ns.pathExtension, "\(path)")
      #expect(PathText.deletingPathExtension(path) == ns.deletingPathExtension, "\(path)")
      for component in ["", "b", "b/", "/b", "b.c", "x/y"] {
        #expect(PathText.appending(path, component) == ns.appendingPathComponent(component), "\(path) + \(component)")
      }
    }
  }

  @Test("PathText.standardizing follows links and takes out . and .. as NSString.standardizingPath does")
  func standardizingMatchesNSString() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("hap-essentials-\(getpid())-\(UUID())").path
    defer { try? FileManager.default.removeItem(atPath: root) }
    try FileManager.default.createDirectory(atPath: root + "/real/inner", withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: "real")
    try FileManager.default.createSymbolicLink(atPath: root + "/absolute", withDestinationPath: root + "/real/inner")
    try FileManager.default.createSymbolicLink(atPath: root + "/chain", withDestinationPath: "link")
    let cases = [
      root, root + "/", root + "/real", root + "/link", root + "/link/inner", root + "/absolute", root + "/absolute/..",
      root + "/chain/inner/.", root + "/./real//inner/../inner", root + "/missing/../link", root + "/link/missing",
      "/", "/..", "/a/../b", "/tmp/../tmp/./", "relative/path", "./x", "",
    ]
    for path in cases {
      #expect(PathText.standardizing(path) == (path as NSString).standardizingPath, "\(path)")
    }
  }

  @Test("CFormat writes numbers as String(format:) does")
  func formattingMatchesStringFormat() {
    let values: [Double] = [0, -0.0, 1, -1, 0.0005, 0.0015, 0.00049999, 2.5, 1e-7, 123456.789, 1e300, -3.14159, 0.1, 0.3]
      + (0..<500).map { Double($0) * 0.012345 - 2 }
    for value in values {
      for format in ["%.1f", "%.3f", "%.4f", "%.9f", "%g", "%e"] {
        #expect(CFormat.string(format, value) == String(format: format, value), "\(format) \(value)")
      }
    }
    for value in [0, 5, 9, 10, 59, 123, -4] {
      #expect(CFormat.string("%02d:%02d", Int32(value), value) == String(format: "%02d:%02d", Int32(value), value))
    }
    #expect(CFormat.string("%.300f", 1.0).count == 302)
  }

  @Test("trimming and lastRange give what trimmingCharacters and range(of:options:.backwards) give")
  func trimmingMatchesFoundation() {
    let texts = [
      "", " ", "  a b  ", "\ta\t", "\u{A0}x\u{2003}", "\n x \r\n", "\u{2028}y\u{85}", "x\n\n", "\" name \"", "é ", " \u{301}a",
    ]
    for text in texts {
      #expect(text.trimming(.whitespaces) == text.trimmingCharacters(in: .whitespaces), "\(text.debugDescription)")
      #expect(text.trimming(.newlines) == text.trimmingCharacters(in: .newlines), "\(text.debugDescription)")
      #expect(
        text.trimming(.whitespacesAndNewlines) == text.trimmingCharacters(in: .whitespacesAndNewlines),
        "\(text.debugDescription)")
      #expect(
        text.trimming(ScalarSet("\" ")) == text.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")),
        "\(text.debugDescription)")
    }
    for (text, target) in [("a voice=1 voice=2", " voice="), ("x", " voice="), (" level= level=", " level="), ("aaa", "aa")] {
      let ours = text.lastRange(of: target).map { text.distance(from: text.startIndex, to: $0.lowerBound) }
      let theirs = text.range(of: target, options: .backwards).map { text.distance(from: text.startIndex, to: $0.lowerBound) }
      #expect(ours == theirs, "\(text) \(target)")
    }
  }

  /// Foundation's tables on Linux are older than the standard library's (Unicode 16 has letters
  /// it does not know), so the comparison is over scalars both have long known.
  @Test("ScalarSet.alphanumerics is CharacterSet.alphanumerics")
  func alphanumericsMatchFoundation() {
    let ranges: [ClosedRange<UInt32>] = [0...0x24F, 0x370...0x52F, 0x591...0x6FF, 0x900...0x97F, 0x3040...0x30FF, 0x4E00...0x4FFF, 0xFF00...0xFFEF, 0x1F300...0x1F64F]
    for range in ranges {
      for value in range {
        guard let scalar = Unicode.Scalar(value) else { continue }
        #expect(ScalarSet.alphanumerics.contains(scalar) == CharacterSet.alphanumerics.contains(scalar), "U+\(String(value, radix: 16))")
      }
    }
  }

  @Test("padded(toLength:) and percentEncodedPathSegment give what padding and addingPercentEncoding give")
  func paddingAndPercentEncodingMatchFoundation() {
    for text in ["", "a", "validate", "--sound-path FOLDER", "é", "\u{1F600}x", "naïve names", "tab\there"] {
      for length in [0, 1, 2, 5, 13, 24] {
        #expect(text.padded(toLength: length) == text.padding(toLength: length, withPad: " ", startingAt: 0), "\(text) \(length)")
      }
    }
    let allowed = CharacterSet.urlPathAllowed.subtracting(["/", ";", "?", "#", "%"])
    var texts = ["", "patterns", "a b", "50%", "x;y?z#w", "é/ü", "\u{1F600}", "[x]{y}|\\^`\"<>", "~!$&'()*+,-.:=@_"]
    texts.append(String(String.UnicodeScalarView((0x20...0x7E).compactMap(Unicode.Scalar.init))))
    for text in texts {
      #expect(text.percentEncodedPathSegment == text.addingPercentEncoding(withAllowedCharacters: allowed), "\(text)")
    }
  }

  @Test("the service's timestamps are ISO8601DateFormatter's, milliseconds rounded")
  func timestampsMatchISO8601DateFormatter() {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    for step in 0..<20_000 {
      let date = Date(timeIntervalSince1970: 1.7e9 + Double(step) * 0.01234571 + 0.0004999 * Double(step % 3))
      #expect(ServiceStatus.timestamp(date) == formatter.string(from: date), "\(date.timeIntervalSince1970)")
    }
    #expect(ServiceStatus.timestamp(Date(timeIntervalSince1970: 59.9996)) == "1970-01-01T00:01:00.000Z")
  }
}
