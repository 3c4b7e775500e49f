import FoundationEssentials
import Glibc

extension CurveTimesAbsolute {
  /// The repair of each `curve-times-absolute` finding: every control point's `Time` less the
  /// curve's `Time`, so that the points start where they were written. None for a curve whose
  /// `Time` or any point's `Time` is not a plain number, or where a point would come before the
  /// curve.
  static func edits(in document: JSONDocument, for diagnostics: [Diagnostic]) -> [FixEdit] {
    diagnostics.filter { $0.rule == Rule.curveTimesAbsolute.id }.flatMap { finding -> [FixEdit] in
      // The pointer is /Pattern/N/ParameterCurve/ParameterCurveControlPoints/K/Time.
      let parts = finding.pointer.split(separator: "/")
      guard parts.count >= 3, let entry = Int(parts[1]), let pattern = document.member("Pattern", of: document.root),
        let element = document.element(entry, of: pattern), let curve = document.member("ParameterCurve", of: element)
      else { return [] }
      return edits(curve: curve, in: document) ?? []
    }
  }

  private static func edits(curve: Int, in document: JSONDocument) -> [FixEdit]? {
    guard let time = document.member("Time", of: curve), document.node(time).kind == .number,
      let start = document.writtenText(time), let origin = Decimal(string: start),
      let points = document.member("ParameterCurveControlPoints", of: curve), document.node(points).kind == .array
    else { return nil }
    var edits: [FixEdit] = []
    var failed = false
    document.forEachElement(of: points) { _, point in
      guard !failed, let pointTime = document.member("Time", of: point), document.node(pointTime).kind == .number,
        let range = document.writtenRange(pointTime), let written = document.writtenText(pointTime),
        let relative = relativeText(written, origin: origin, less: document.node(time).number)
      else {
        failed = true
        return
      }
      edits.append(FixEdit(rule: Rule.curveTimesAbsolute.id, range: range, replacement: Array(relative.utf8)))
    }
    return failed ? nil : edits
  }

  /// `written` less `origin`, worked out in decimal (`0.3` less `0.1` is `0.2`), when it reads
  /// back as the difference of the two numbers within a nanosecond; nil when negative.
  static func relativeText(_ written: String, origin: Decimal, less start: Double) -> String? {
    guard let value = Decimal(string: written), let absolute = Double(written) else { return nil }
    let difference = value - origin
    guard difference >= 0 else { return nil }
    var text = "\(difference)"
    guard let back = Double(text), abs(back - (absolute - start)) <= 1e-9 else { return nil }
    if !text.contains(".") && written.contains(".") { text += ".0" }
    return text
  }
}
