import HapFormat
import HapPlayback
import HapRender

/// The plot's `<style>` element: one palette per theme, the light one with a dark media query
/// for `auto`.
enum PlotStyle {
  struct Palette {
    var background: String
    var text: String
    var frame: String
    var grid: String
    var seriesA: String
    var seriesB: String
  }

  static let light = Palette(
    background: "#ffffff", text: "#1f2328", frame: "#8c959f", grid: "#e1e4e8", seriesA: "#0969da", seriesB: "#cf222e")
  static let dark = Palette(
    background: "#0d1117", text: "#e6edf3", frame: "#6e7681", grid: "#30363d", seriesA: "#58a6ff", seriesB: "#ff7b72")

  /// The colour rules of `palette`.
  static func colours(_ palette: Palette) -> [String] {
    [
      ".background { fill: \(palette.background); }",
      "text { fill: \(palette.text); }",
      ".frame { fill: none; stroke: \(palette.frame); }",
      ".grid line, .zero { stroke: \(palette.grid); }",
      ".tick { stroke: \(palette.frame); }",
      ".series-a { color: \(palette.seriesA); }",
      ".series-b { color: \(palette.seriesB); }",
      ".point { fill: \(palette.background); }",
    ]
  }

  /// Rules that hold in every theme.
  static let shapes = [
    ".heading { font-size: 14px; font-weight: bold; }",
    ".tick-label { text-anchor: middle; }",
    ".axis-label { font-size: 10px; }",
    ".axis-label.right { text-anchor: start; }",
    ".axis-label.left { text-anchor: end; }",
    ".transient, .level, .signal { fill: none; stroke: currentColor; stroke-width: 1; }",
    ".transient { stroke-width: 1.5; }",
    ".continuous { fill: currentColor; fill-opacity: 0.3; stroke: currentColor; }",
    ".index { fill: currentColor; font-size: 9px; }",
    ".level.low { stroke-opacity: 0.5; }",
    ".control { fill: none; stroke: currentColor; stroke-dasharray: 3 2; stroke-opacity: 0.6; }",
    ".point { stroke: currentColor; }",
    ".marker { fill: currentColor; }",
    ".series-b .signal, .series-b .continuous { opacity: 0.7; }",
    ".swatch { fill: currentColor; }",
  ]

  static func write(_ theme: PlotTheme, into svg: inout SVGText) {
    svg.open("style")
    for rule in colours(theme == .dark ? dark : light) + shapes { svg.line(rule) }
    if theme == .auto {
      svg.openBlock("@media (prefers-color-scheme: dark) {")
      for rule in colours(dark) { svg.line(rule) }
      svg.closeBlock("}")
    }
    svg.close("style")
  }
}
