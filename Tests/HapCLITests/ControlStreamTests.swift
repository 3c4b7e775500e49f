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

  /// `hap play --loop --control SOURCE texture` on `device`: SOURCE `-` reads `input`, written to
  /// while it plays; its standard error as it comes. In the test's process, or the binary when
  /// `launching` (for what only its process shows: its memory).
  func start(_ device: SimulatedExciter, control: String = "-", waitForSound: Bool = true, launching: Bool = false)
    throws -> (Hap.Started, FileHandle, StreamLog)
  {
    let hap = try device.started(
      ["play", "-D", "exciter", "--sample-format", "s16", "--loop", "--control", control, texture], live: true,
      adding: ["NO_COLOR": "1"], launching: launching)
    let log = StreamLog(reading: { hap.errorsSoFar })
    if waitForSound { #expect(device.waitForCapture(frames: 4800, bytesPerFrame: 2), "nothing played") }
    return (hap, try #require(hap.input), log)
  }

  /// Sends `stop` down `input` (unless nil) and waits for exit 0 within 10 s (else it is stopped).
  func stopped(_ hap: Hap.Started, _ input: FileHandle?) -> Bool {
    if hap.isRunning { input?.write(Data("stop\n".utf8)) }
    guard let result = hap.wait(timeout: 10) else {
      hap.finish(SIGKILL)
      return false
    }
    return result.status == 0
  }

  /// Launched: the memory measured is the process's (its high-water mark), which must be hap's
  /// alone.
  @Test("a 64 MiB line: one warning, bounded memory, and a stop after it is still heard")
  func anOverLongLineIsOneWarningInBoundedMemory() throws {
    let device = try SimulatedExciter()
    let (hap, input, log) = try start(device, launching: true)
    let process = try #require(hap.process)
    let before = try #require(peakResident(process.processIdentifier))
    let block = Data(repeating: UInt8(ascii: "x"), count: 1 << 20)
    for _ in 0..<64 { input.write(block) }
    input.write(Data("\nintensity 0.5\n".utf8))
    // The line after it is parsed once the long one has been read through.
    input.write(Data("after-the-long-line\n".utf8))
    #expect(log.waitForLine(containing: "after-the-long-line", within: 30), "\(log.text)")
    let after = try #require(peakResident(process.processIdentifier))
    #expect(after - before < 16 << 20, "the reader grew from \(before >> 20) MiB to \(after >> 20) MiB")
    #expect(stopped(hap, input), "\(log.text)")
    let warnings = log.text.split(separator: "\n").filter { $0.contains("longer than 4096 bytes") }
    #expect(warnings.count == 1, "\(log.text.prefix(2000))")
  }

  @Test("a control FIFO is read again after its first writer closes it: a second 'echo stop > fifo' is heard")
  func aSecondWriterOfAControlFIFOIsHeard() throws {
    let device = try SimulatedExciter()
    let fifo = device.folder.path("control.fifo")
    makeFIFO(fifo)
    let (hap, _, log) = try start(device, control: fifo, waitForSound: false)
    func echo(_ line: String) -> Bool {
      let fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)  // ENXIO: nobody reads it (any more)
      guard fd >= 0 else { return false }
      defer { close(fd) }
      let bytes = Array((line + "\n").utf8)
      return bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count
    }
    // The first writer: its open succeeds once hap has the FIFO open for reading (or waits in
    // its open for a writer, which counts as a reader): tried until then.
    #expect(Wait.until(30) { echo("first-writer") }, "hap never opened the FIFO: \(log.text)")
    #expect(log.waitForLine(containing: "first-writer", within: 10), "\(log.text)")
    #expect(echo("stop"), "the FIFO has no reader after its first writer closed it")
    #expect(stopped(hap, nil), "the second writer's stop was not heard: \(log.text)")
  }

  @Test("terminal escape bytes in a bad control line are shown escaped in the warning, never written raw")
  func controlBytesAreEscapedInWarnings() throws {
    let device = try SimulatedExciter()
    let (hap, input, log) = try start(device)
    input.write(Data("\u{1B}]0;pwned\u{07}\u{1B}[2J\u{9B}1m\n".utf8))
    #expect(log.waitForLine(containing: "pwned", within: 10), "\(log.text)")
    #expect(stopped(hap, input))
    let warning = log.text.split(separator: "\n").first { $0.contains("pwned") } ?? ""
    #expect(!warning.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(warning)")
    #expect(warning.contains("\\x1B]0;pwned\\x07\\x1B[2J"), "\(warning)")
  }

  @Test("a line holding a NUL byte is refused whole, not cut at the NUL and obeyed")
  func aLineWithANULIsRefused() throws {
    let device = try SimulatedExciter()
    let (hap, input, log) = try start(device)
    input.write(Data("stop\u{0}junk\nmarker-after-the-nul\n".utf8))
    #expect(log.waitForLine(containing: "marker-after-the-nul", within: 10), "\(log.text)")
    #expect(log.text.contains("NUL"), "\(log.text)")
    // Still playing: a tenth of a second more reaches the device.
    #expect(device.waitForPlay(0.1, bytesPerFrame: 2), "'stop\\0junk' was obeyed as a stop")
    #expect(stopped(hap, input))
  }
}
