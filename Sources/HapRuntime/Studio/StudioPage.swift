import HapCore

/// The page, embedded in the binary (SwiftPM's `embedInCode`: no resource folder, works
/// offline), and each rule's documentation as a small page of its own (a finding's link).
enum StudioPage {
  static func response(for path: String) -> StudioResponse? {
    switch path {
    case "/", "/index.html": return .file(PackageResources.studio_html, type: "text/html; charset=utf-8")
    case "/studio.js": return .file(PackageResources.studio_js, type: "text/javascript; charset=utf-8")
    case "/studio.css": return .file(PackageResources.studio_css, type: "text/css; charset=utf-8")
    case "/favicon.ico": return StudioResponse(status: 204, headers: StudioResponse.common, body: [])
    default:
      guard path.hasPrefix("/rules/") else { return nil }
      return rule(String(path.dropFirst("/rules/".count)))
    }
  }

  /// A rule's documentation (`hap rules RULE`) as a page.
  private static func rule(_ id: String) -> StudioResponse {
    guard let rule = Rule.all.first(where: { $0.id == id }) else {
      return .failure(.notFound("there is no rule \(Format.excerpt(id))"))
    }
    let html = """
      <!doctype html>
      <html lang="en"><head><meta charset="utf-8"><title>\(escape(rule.id)) · hap</title>
      <link rel="stylesheet" href="/studio.css"></head>
      <body class="rule-page"><main><h1>\(escape(rule.id))</h1>
      <p class="rule-level">default level: \(rule.severity.rawValue)</p>
      <p class="rule-summary">\(escape(rule.summary))</p>
      <pre class="rule-doc">\(escape(rule.documentation))</pre></main></body></html>

      """
    return .file(Array(html.utf8), type: "text/html; charset=utf-8")
  }

  /// Text for the page: markup escaped, control characters shown (as validate's reports do).
  static func escape(_ text: String) -> String { ReportWriter.xml(text, lines: true) }
}
