import FoundationEssentials
import Glibc
import HapFormat
import HapPlayback
import HapRender

/// A pattern's audio track reduced to a plot's columns: the lowest and highest sample of each
/// channel per column (nil: past the track's end), from an ``AudioRenderer`` pulled block by
/// block, so its size is bounded by the number of columns whatever the track's length.
public struct AudioSeries: Sendable {
  public let left: [ClosedRange<Float>?]
  public let right: [ClosedRange<Float>?]

  /// Renders `schedule` (at its own rate) from the window's start to its end.
  public init(_ schedule: AudioSchedule, window: PlotWindow) {
    var left = [ClosedRange<Float>?](repeating: nil, count: window.columns)
    var right = left
    let rate = schedule.rate
    let firstFrame = Frames.from(seconds: window.from, rate: rate)
    let renderer = AudioRenderer(schedule: schedule)
    let endFrame = min(renderer.frameCount, Frames.from(seconds: window.to, rate: rate) + 1)
    let first = window.from * rate
    let perColumn = window.span * rate / Double(window.columns)
    let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 2 * 4096)
    defer { block.deallocate() }
    func note(_ columns: inout [ClosedRange<Float>?], _ c: Int, _ x: Float) {
      columns[c] = columns[c].map { min($0.lowerBound, x)...max($0.upperBound, x) } ?? x...x
    }
    while renderer.position < endFrame {
      let start = renderer.position
      let wanted = min(4096, endFrame - start)
      let count = renderer.render(into: UnsafeMutableBufferPointer(rebasing: block[0..<(2 * wanted)]))
      if count == 0 { break }
      for k in 0..<count where start + k >= firstFrame {
        let c = Int(((Double(start + k) - first) / perColumn).rounded(.down))
        guard c >= 0 && c < window.columns else { continue }
        note(&left, c, block[2 * k])
        note(&right, c, block[2 * k + 1])
      }
    }
    self.left = left
    self.right = right
  }
}
