@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// Resolves RFC 6901 JSON pointers against a parsed ``JSONDocument`` (last duplicate key wins,
/// as in the decoder), so that tests can check a finding's pointer names the value its
/// line and column point at.
enum PointerResolver {
  /// The node index the pointer designates, or nil when it names nothing.
  static func resolve(_ pointer: String, in document: JSONDocument) -> Int? {
    var index = document.root
    if pointer.isEmpty { return index }
    guard pointer.hasPrefix("/") else { return nil }
    let components = pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
      String($0).replacingOccurrences("~1", with: "/").replacingOccurrences("~0", with: "~")
    }
    for component in components {
      let node = document.node(index)
      switch node.kind {
      case .object:
        var found: Int?
        document.forEachMember(of: index) { key, value in
          if document.string(key) == component { found = value }
        }
        guard let found else { return nil }
        index = found
      case .array:
        guard let position = Int(component), position >= 0, position < Int(node.count) else { return nil }
        var found = -1
        document.forEachElement(of: index) { k, element in
          if k == position { found = element }
        }
        index = found
      default:
        return nil
      }
    }
    return index
  }

  /// The key node of the member the pointer's last component names (for findings about keys).
  static func resolveKey(_ pointer: String, in document: JSONDocument) -> Int? {
    guard let slash = pointer.lastIndex(of: "/") else { return nil }
    let parentPointer = String(pointer[..<slash])
    let name = String(pointer[pointer.index(after: slash)...])
      .replacingOccurrences("~1", with: "/").replacingOccurrences("~0", with: "~")
    guard let parent = resolve(parentPointer, in: document), document.node(parent).kind == .object else { return nil }
    var found: Int?
    document.forEachMember(of: parent) { key, _ in
      if document.string(key) == name { found = key }
    }
    return found
  }
}

/// Parses bytes that must be JSON, for tests that look at the document itself.
func parseDocument(_ bytes: [UInt8]) -> (document: JSONDocument?, diagnostics: [Diagnostic]) {
  var findings = FindingCollector()
  let source = SourceText(bytes)
  let document = JSONParser.parse(source, findings: &findings)
  return (document, findings.diagnostics(in: source))
}

func parseDocument(_ text: String) -> (document: JSONDocument?, diagnostics: [Diagnostic]) {
  parseDocument(Array(text.utf8))
}
