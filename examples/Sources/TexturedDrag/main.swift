// The driver that replaces the seed's SwiftUI view: a velocity source feeds the surface as a
// DragGesture would. The source is a recorded drag (`@SECONDS VX VY` lines, as `hap drag
// --record` writes and examples/drag-trace.txt holds), replayed in real time: its file is the
// first argument, else examples/drag-trace.txt. Each recorded line is one `onChanged`; the end
// of the file is `onEnded`.
import Foundation

let trace = CommandLine.arguments.count > 1
    ? CommandLine.arguments[1]
    : URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../drag-trace.txt").standardized.path

guard let text = try? String(contentsOfFile: trace, encoding: .utf8) else {
    FileHandle.standardError.write(Data("textured-drag: cannot read \(trace)\n".utf8))
    exit(2)
}

/// The recorded moves: (seconds, vx, vy).
let moves: [(Double, Double, Double)] = text.split(separator: "\n").compactMap { line in
    let words = line.split(separator: " ")
    guard words.count == 3, words[0].hasPrefix("@"),
          let t = Double(words[0].dropFirst()), let vx = Double(words[1]), let vy = Double(words[2])
    else { return nil }
    return (t, vx, vy)
}

let surface = TexturedSurface()
surface.onAppear()
let start = Date()
for (time, vx, vy) in moves {
    let wait = time - Date().timeIntervalSince(start)
    if wait > 0 { Thread.sleep(forTimeInterval: wait) }
    surface.dragChanged(velocityWidth: vx, velocityHeight: vy)
}
surface.dragEnded()
Thread.sleep(forTimeInterval: 0.1)  // the stop's 10 ms fade, heard before the process ends
print("textured-drag: replayed \(moves.count) moves from \(trace)")
