import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// An SVG picture parsed with a real XML parser (Foundation's XMLParser), as a tree of elements,
/// for the plot tests.
public final class SVGElement {
  public let name: String
  public let attributes: [String: String]
  public internal(set) var children: [SVGElement] = []
  public internal(set) var text = ""

  init(name: String, attributes: [String: String]) {
    self.name = name
    self.attributes = attributes
  }

  public var classes: [String] { (attributes["class"] ?? "").split(separator: " ").map(String.init) }

  public func number(_ attribute: String) -> Double? { attributes[attribute].flatMap(Double.init) }

  /// This element and everything under it, in document order.
  public var all: [SVGElement] { [self] + children.flatMap(\.all) }

  /// Every element under this one (and itself) named `name` and having `className`, if given.
  public func find(_ name: String? = nil, class className: String? = nil) -> [SVGElement] {
    all.filter { element in
      (name == nil || element.name == name) && (className.map { element.classes.contains($0) } ?? true)
    }
  }

  /// The element with this id.
  public func element(id: String) -> SVGElement? { all.first { $0.attributes["id"] == id } }

  /// Parses `data`; nil when it is not well-formed XML.
  public static func parse(_ data: Data) -> SVGElement? {
    let builder = Builder()
    let parser = XMLParser(data: data)
    parser.delegate = builder
    guard parser.parse(), let root = builder.root else { return nil }
    return root
  }

  /// The pairs (x, top y, bottom y) of a waveform path ("Mx yVy ...").
  public static func strokes(_ d: String) -> [(x: Double, top: Double, bottom: Double)] {
    d.split(separator: "M").compactMap { part in
      let pieces = part.split(separator: "V")
      guard pieces.count == 2 else { return nil }
      let xy = pieces[0].split(separator: " ").compactMap { Double($0) }
      guard xy.count == 2, let bottom = Double(pieces[1].trimmingCharacters(in: .whitespaces)) else { return nil }
      return (xy[0], xy[1], bottom)
    }
  }

  /// The points of a polyline path ("Mx y Lx y ...").
  public static func points(_ d: String) -> [(x: Double, y: Double)] {
    let numbers = d.split(whereSeparator: { $0 == " " || $0 == "M" || $0 == "L" }).compactMap { Double($0) }
    return stride(from: 0, to: numbers.count - 1, by: 2).map { (numbers[$0], numbers[$0 + 1]) }
  }

  private final class Builder: NSObject, XMLParserDelegate {
    var root: SVGElement?
    var stack: [SVGElement] = []

    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
      attributes: [String: String] = [:]
    ) {
      let element = SVGElement(name: elementName, attributes: attributes)
      stack.last?.children.append(element)
      if root == nil { root = element }
      stack.append(element)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
      stack.removeLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { stack.last?.text += string }
  }
}
