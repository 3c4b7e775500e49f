#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// Matches the raw bytes of a JSON string against a fixed set of names without making a String.
struct NameTable<Value>: Sendable where Value: Sendable {
  private let names: [[UInt8]]
  private let values: [Value]
  /// The names, for suggestions.
  let spellings: [String]

  init(_ entries: [(String, Value)]) {
    names = entries.map { Array($0.0.utf8) }
    values = entries.map(\.1)
    spellings = entries.map(\.0)
  }

  /// The value named by the string node at `index`, or nil.
  func lookup(_ document: JSONDocument, _ index: Int) -> Value? {
    let node = document.node(index)
    if node.flags & JSONNode.hasEscapes != 0 {
      let text = document.string(index)
      return spellings.firstIndex(of: text).map { values[$0] }
    }
    let start = Int(node.offset) + 1
    let count = Int(node.end) - start
    return document.source.bytes.withUnsafeBufferPointer { buffer -> Value? in
      let base = buffer.baseAddress! + start
      for (k, name) in names.enumerated() where name.count == count {
        if name.withUnsafeBufferPointer({ memcmp($0.baseAddress!, base, count) == 0 }) {
          return values[k]
        }
      }
      return nil
    }
  }
}

extension NameTable where Value: CaseIterable & RawRepresentable, Value.RawValue == String {
  init() { self.init(Value.allCases.map { ($0.rawValue, $0) }) }
}
