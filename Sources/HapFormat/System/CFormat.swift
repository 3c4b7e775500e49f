import Glibc

/// C's `printf` formatting of numbers (what `String(format:)` gave, which FoundationEssentials
/// lacks): `CFormat.string("%.3f", x)` is the same text, byte for byte, for `%d`, `%f` and
/// the like (`String(format:)` hands such conversions to the C library too).
package enum CFormat {
  package static func string(_ format: String, _ arguments: any CVarArg...) -> String {
    withVaList(arguments) { list in
      var buffer = [CChar](repeating: 0, count: 128)
      let needed = Int(buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, $0.count, format, list) })
      if needed < buffer.count { return text(buffer, count: needed) }
      return withVaList(arguments) { again in
        buffer = [CChar](repeating: 0, count: needed + 1)
        _ = buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, $0.count, format, again) }
        return text(buffer, count: needed)
      }
    }
  }

  /// The first `count` bytes `vsnprintf` wrote, as UTF-8.
  private static func text(_ buffer: [CChar], count: Int) -> String {
    String(decoding: buffer.prefix(max(0, count)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}

extension StringProtocol {
  /// The text without the scalars `set` holds at either end (Foundation's
  /// `trimmingCharacters(in:)`, which works on scalars too).
  package func trimming(_ set: ScalarSet) -> String {
    let scalars = unicodeScalars
    guard let first = scalars.firstIndex(where: { !set.contains($0) }) else { return "" }
    let last = scalars.lastIndex(where: { !set.contains($0) })!
    return String(String.UnicodeScalarView(scalars[first...last]))
  }
}

/// A set of Unicode scalars, as Foundation's `CharacterSet` names them.
package struct ScalarSet: Sendable {
  package let contains: @Sendable (Unicode.Scalar) -> Bool

  package init(_ contains: @escaping @Sendable (Unicode.Scalar) -> Bool) { self.contains = contains }

  /// These scalars alone (`CharacterSet(charactersIn:)`).
  package init(_ scalars: String) {
    let set = Set(scalars.unicodeScalars)
    contains = { set.contains($0) }
  }

  /// `CharacterSet.whitespaces`: the space separators (general category Zs) and tab.
  package static let whitespaces = ScalarSet { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
  /// `CharacterSet.newlines`: U+000A to U+000D, U+0085, U+2028 and U+2029.
  package static let newlines = ScalarSet { (0x0A...0x0D).contains($0.value) || [0x85, 0x2028, 0x2029].contains($0.value) }
  /// `CharacterSet.whitespacesAndNewlines`.
  package static let whitespacesAndNewlines = ScalarSet { whitespaces.contains($0) || newlines.contains($0) }
  /// `CharacterSet.alphanumerics`: letters, marks and numbers (general categories L*, M* and N*),
  /// by the standard library's Unicode tables (newer than Foundation's on Linux: a scalar
  /// assigned since is in this set, not in Foundation's).
  package static let alphanumerics = ScalarSet {
    switch $0.properties.generalCategory {
    case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .nonspacingMark,
      .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherNumber:
      true
    default: false
    }
  }
}

extension String {
  /// Foundation's `padding(toLength:withPad: " ", startingAt: 0)`: spaces added, or the end cut,
  /// to `length` UTF-16 code units.
  package func padded(toLength length: Int) -> String {
    let units = utf16.count
    if units >= length { return units == length ? self : String(decoding: Array(utf16.prefix(length)), as: UTF16.self) }
    return self + String(repeating: " ", count: length - units)
  }

  /// One segment of a URL's path, percent-encoded as `addingPercentEncoding(withAllowedCharacters:
  /// .urlPathAllowed.subtracting(["/", ";", "?", "#", "%"]))` encodes it: each UTF-8 byte but
  /// ASCII letters, digits and `!$&'()*+,-.:=@_~` as `%XX`.
  package var percentEncodedPathSegment: String {
    var out = ""
    for byte in utf8 {
      let scalar = Unicode.Scalar(byte)
      if byte < 0x80 && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "!$&'()*+,-.:=@_~".unicodeScalars.contains(scalar)) {
        out.unicodeScalars.append(scalar)
      } else {
        out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 15, radix: 16, uppercase: true)
      }
    }
    return out
  }
}

extension StringProtocol {
  /// Where `target` last occurs (Foundation's `range(of:options: .backwards)`).
  package func lastRange(of target: some StringProtocol) -> Range<Index>? {
    var found: Range<Index>?
    var from = startIndex
    while from < endIndex, let range = self[from...].firstRange(of: target) {
      found = range
      from = index(after: range.lowerBound)
    }
    return found
  }
}
