import Foundation
import HapTestSupport
import Testing

/// The resident memory high-water mark of process `pid` (VmHWM), in bytes; nil once it is gone.
func peakResident(_ pid: Int32) -> Int? {
  guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
    let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
    let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
  else { return nil }
  return kilobytes * 1024
}

/// Issue 20, items 11-14: the control stream of `hap play --control` has a line limit, keeps
/// reading a FIFO after its first writer, shows control bytes escaped and refuses NUL bytes.
/// (Item 12, the reader thread's priority, is LiveControlTests' check.)
@Suite("hap play --control: the stream's limits, FIFOs and hostile bytes", .serialized)
struct ControlStreamTests {
  let texture = Repository.bundledPattern("texture")

  /// `hap play --loop --control SOURCE texture` on `device`: SOURCE `-` reads `input`.
  func start(_ device: SimulatedExciter, control: String = "-", waitForSound: Bool = true) throws -> (
    Process, FileHandle, StreamLog
  ) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Hap.binary)
    process.arguments = ["play", "-D", "exciter", "--sample-format", "s16", "--loop", "--control", control, texture]
    process.environment = Hap.labelled(ProcessInfo.processInfo.environment.merging(device.environment) { $1 })
      .merging(["NO_COLOR": "1"]) { $1 }
    let input = Pipe()
    let errors = Pipe()
    process.standardInput = input
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    let log = StreamLog(errors)
    try process.run()
    if waitForSound { #expect(device.waitForCapture(frames: 4800, bytesPerFrame: 2), "nothing played") }
    return (process, input.fileHandleForWriting, log)
  }

  /// Sends `stop` down `input` (unless nil) and waits for exit 0 within 10 s.
  func stopped(_ process: Process, _ input: FileHandle?) -> Bool {
    if process.isRunning { input?.write(Data("stop\n".utf8)) }
    let ended = Wait.exit(of: process, within: 10)
    if !ended { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    return ended && process.terminationStatus == 0
  }

  @Test("a 64 MiB line: one warning, bounded memory, and a stop after it is still heard")
  func anOverLongLineIsOneWarningInBoundedMemory() throws {
    let device = try SimulatedExciter()
    let (process, input, log) = try start(device)
    let before = try #require(peakResident(process.processIdentifier))
    let block = Data(repeating: UInt8(ascii: "x"), count: 1 << 20)
    for _ in 0..<64 { input.write(block) }
    input.write(Data("\nintensity 0.5\n".utf8))
    // The line after it is parsed once the long one has been read through.
    input.write(Data("after-the-long-line\n".utf8))
    #expect(log.waitForLine(containing: "after-the-long-line", within: 30), "\(log.text)")
    let after = try #require(peakResident(process.processIdentifier))
    #expect(after - before < 16 << 20, "the reader grew from \(before >> 20) MiB to \(after >> 20) MiB")
    #expect(stopped(process, input), "\(log.text)")
    let warnings = log.text.split(separator: "\n").filter { $0.contains("longer than 4096 bytes") }
    #expect(warnings.count == 1, "\(log.text.prefix(2000))")
  }

  @Test("a control FIFO is read again after its first writer closes it: a second 'echo stop > fifo' is heard")
  func aSecondWriterOfAControlFIFOIsHeard() throws {
    let device = try SimulatedExciter()
    let fifo = device.folder.path("control.fifo")
    makeFIFO(fifo)
    let (process, _, log) = try start(device, control: fifo, waitForSound: false)
    func echo(_ line: String) -> Bool {
      let fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)  // ENXIO: nobody reads it any more
      guard fd >= 0 else { return false }
      defer { close(fd) }
      let bytes = Array((line + "\n").utf8)
      return bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count
    }
    #expect(Wait.until(30) { isWaiting(process.processIdentifier, on: fifo) }, "hap never opened the FIFO")
    #expect(echo("first-writer"))
    #expect(log.waitForLine(containing: "first-writer", within: 10), "\(log.text)")
    #expect(echo("stop"), "the FIFO has no reader after its first writer closed it")
    #expect(stopped(process, nil), "the second writer's stop was not heard: \(log.text)")
  }

  @Test("terminal escape bytes in a bad control line are shown escaped in the warning, never written raw")
  func controlBytesAreEscapedInWarnings() throws {
    let device = try SimulatedExciter()
    let (process, input, log) = try start(device)
    input.write(Data("\u{1B}]0;pwned\u{07}\u{1B}[2J\u{9B}1m\n".utf8))
    #expect(log.waitForLine(containing: "pwned", within: 10), "\(log.text)")
    #expect(stopped(process, input))
    let warning = log.text.split(separator: "\n").first { $0.contains("pwned") } ?? ""
    #expect(!warning.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(warning)")
    #expect(warning.contains("\\x1B]0;pwned\\x07\\x1B[2J"), "\(warning)")
  }

  @Test("a line holding a NUL byte is refused whole, not cut at the NUL and obeyed")
  func aLineWithANULIsRefused() throws {
    let device = try SimulatedExciter()
    let (process, input, log) = try start(device)
    input.write(Data("stop\u{0}junk\nmarker-after-the-nul\n".utf8))
    #expect(log.waitForLine(containing: "marker-after-the-nul", within: 10), "\(log.text)")
    #expect(log.text.contains("NUL"), "\(log.text)")
    // Still playing: a tenth of a second more reaches the device.
    #expect(device.waitForPlay(0.1, bytesPerFrame: 2), "'stop\\0junk' was obeyed as a stop")
    #expect(stopped(process, input))
  }
}
