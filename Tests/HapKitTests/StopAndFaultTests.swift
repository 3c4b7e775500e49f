import Foundation
import HapCore
import HapKit
import Synchronization
import Testing

/// A folder of its own under the temporary folder, removed with the value.
final class ScratchFolder {
  let path: String

  init() throws {
    path = FileManager.default.temporaryDirectory.appendingPathComponent("hapkit-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  func file(_ name: String) -> String { path + "/" + name }

  @discardableResult
  func write(_ name: String, _ bytes: [UInt8]) throws -> String {
    try Data(bytes).write(to: URL(fileURLWithPath: file(name)))
    return file(name)
  }

  func fifo(_ name: String) throws -> String {
    try #require(mkfifo(file(name), 0o600) == 0)
    return file(name)
  }

  var contents: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
}

/// A disk with room for `limit` bytes of each file (what `hap`'s `HAP_FAULT_WRITE_LIMIT` makes):
/// what fits is written, then ENOSPC.
func fullDisk(after limit: Int) -> FileWriter {
  FileWriter { fd, bytes, offset in
    guard offset < limit else { return -Int(ENOSPC) }
    let room = min(bytes.count, limit - offset)
    return FileWriter.system.write(fd, UnsafeRawBufferPointer(rebasing: bytes[..<room]), offset)
  }
}

@Suite("FileSink through a writer that fails like a full disk")
struct FileSinkFaultTests {
  /// Writes `count` bytes to `path` through `writer` as `hap render` does: the error, if any;
  /// the sink closed as a failure then.
  func render(_ count: Int, to path: String, writer: FileWriter) throws -> SinkError? {
    let sink = try FileSink(path: path, stop: nil, writer: writer)
    defer { sink.close(success: false) }
    do throws(SinkError) {
      try [UInt8](repeating: 7, count: count).withUnsafeBytes { buffer in
        Result { () throws(SinkError) in try sink.write(buffer) }
      }.get()
      try sink.drain()
      try sink.commit()
      return nil
    } catch {
      return error
    }
  }

  @Test("a write past the room fails with the disk's words, and no partial file is left")
  func noPartialFile() throws {
    let folder = try ScratchFolder()
    let path = folder.file("out.wav")
    for limit in [0, 1000] {
      let error = try #require(try render(4096, to: path, writer: fullDisk(after: limit)))
      #expect(error.message == "cannot write '\(path)': No space left on device", "\(limit)")
      #expect(folder.contents.isEmpty, "\(limit): \(folder.contents)")
    }
    // What fits is written: the same writer with room for it all completes the file.
    #expect(try render(4096, to: path, writer: fullDisk(after: 4096)) == nil)
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count == 4096)
  }

  @Test("a failed write keeps the file it would have replaced")
  func theExistingFileIsKept() throws {
    let folder = try ScratchFolder()
    let junk = Array("junk that must survive".utf8)
    let path = try folder.write("out.wav", junk)
    let error = try #require(try render(4096, to: path, writer: fullDisk(after: 1000)))
    #expect(error.message.hasSuffix("No space left on device"))
    #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == junk)
    #expect(folder.contents == ["out.wav"])
  }

  @Test("hap fix's replacement of a file fails as a whole: the file as it was, no temporary file")
  func aFixThatCannotBeWritten() throws {
    let folder = try ScratchFolder()
    let original = Array(#"{"Version": 1, "Pattern": []}"#.utf8)
    let path = try folder.write("x.ahap", original)
    #expect(throws: SinkError("cannot write '\(path)': No space left on device")) {
      try PatternFixing.replace(path, with: Array(repeating: 32, count: 100), writer: fullDisk(after: 10))
    }
    #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == original)
    #expect(folder.contents == ["x.ahap"])
  }
}

/// A value handed to one other thread, which alone uses it meanwhile.
final class Handed<T>: @unchecked Sendable {
  let value: T
  init(_ value: T) { self.value = value }
}

/// Runs `body` on a thread of its own; what it returned, once it has (nil after `seconds`).
func onThread<T: Sendable>(within seconds: Double = 5, _ body: @escaping @Sendable () -> T) -> T? {
  let result = Mutex<T?>(nil)
  let done = DispatchSemaphore(value: 0)
  Thread {
    let value = body()
    result.withLock { $0 = value }
    done.signal()
  }.start()
  guard done.wait(timeout: .now() + seconds) == .success else { return nil }
  return result.withLock { $0 }
}

@Suite("A stop request ends HapKit's waits")
struct StopRequestTests {
  @Test("a FIFO with no writer: the read waits until the stop is raised, then is interrupted")
  func readOfAFIFOWithoutAWriter() throws {
    let folder = try ScratchFolder()
    let fifo = try folder.fifo("in.ahap")
    let stop = StopRequest()
    let started = Date()
    let raiser = Thread {
      usleep(200_000)
      stop.request()
    }
    raiser.start()
    let outcome = onThread { () -> String in
      do throws(PatternFiles.ReadError) {
        return "read \(try InputFile.read(fifo, for: .namedInput, stop: stop).count) bytes"
      } catch {
        return error.message
      }
    }
    #expect(outcome == PatternFiles.ReadError.interrupted.message)
    // It waited for the stop, not a moment less.
    #expect(Date().timeIntervalSince(started) >= 0.19)
  }

  @Test("a FIFO with no reader, and one whose reader does not read: the write ends with the stop")
  func writesToAStalledFIFO() throws {
    let folder = try ScratchFolder()
    let fifo = try folder.fifo("out.raw")
    let stop = StopRequest()
    stop.request()
    #expect(throws: SinkError.interrupted("'\(fifo)' (no reader came)")) { _ = try FileSink(path: fifo, stop: stop) }

    // A reader that never reads: the pipe fills, then the write waits for room.
    let reader = open(fifo, O_RDONLY | O_NONBLOCK)
    try #require(reader >= 0)
    defer { close(reader) }
    let stalled = StopRequest()
    let sink = Handed(try FileSink(path: fifo, stop: stalled))
    defer { sink.value.close(success: false) }
    let raiser = Thread {
      usleep(200_000)
      stalled.request()
    }
    raiser.start()
    let outcome = onThread { () -> SinkError? in
      do throws(SinkError) {
        try [UInt8](repeating: 1, count: 4 << 20).withUnsafeBytes { buffer in
          Result { () throws(SinkError) in try sink.value.write(buffer) }
        }.get()
        return nil
      } catch {
        return error
      }
    }
    #expect(outcome == .some(.interrupted("'\(fifo)'")))
  }

  @Test("a request follows its parent, and the parent's request wakes a wait on it")
  func following() throws {
    let parent = StopRequest()
    let child = StopRequest(following: parent)
    let other = StopRequest(following: parent)
    child.request()
    #expect(child.isRequested && !parent.isRequested && !other.isRequested)

    var ends: [Int32] = [-1, -1]
    try #require(pipe(&ends) == 0)
    defer { ends.forEach { close($0) } }
    let readEnd = ends[0]
    let raiser = Thread {
      usleep(100_000)
      parent.request()
    }
    raiser.start()
    #expect(onThread { other.wait(for: readEnd, events: Int16(POLLIN)) } == false)
    #expect(other.isRequested)
  }

  @Test("a watch loop's next() ends, and its action's stop is raised, once the loop's stop is")
  func watchLoop() throws {
    let folder = try ScratchFolder()
    let path = try folder.write("x.ahap", [])
    let stop = StopRequest()
    let loop = try WatchLoop([path], stop: stop)
    let action = loop.beginAction()
    #expect(!action.isRequested)
    stop.request()
    #expect(action.isRequested)
    #expect(onThread { loop.next { _ in } == nil } == true)
  }
}

/// The bridge a program makes from its signal handler: C functions over static storage (here,
/// a flag and a pipe the test raises as a handler would), and a count of the waits they saw.
private let signalRaised = Atomic<Bool>(false)
private let signalWakeFD = Atomic<Int32>(-1)
private let openWaits = Atomic<Int>(0)
private let waitsBegun = Atomic<Int>(0)

@Suite("A stop request bridged to a signal")
struct SignalBridgeTests {
  @Test("the signal's flag and wake-up descriptor end a wait, which runs between its begin and end")
  func bridged() throws {
    var wake: [Int32] = [-1, -1]
    var input: [Int32] = [-1, -1]
    try #require(pipe(&wake) == 0 && pipe(&input) == 0)
    defer { (wake + input).forEach { close($0) } }
    signalWakeFD.store(wake[0], ordering: .relaxed)
    let stop = StopRequest(
      signal: StopRequest.Signal(
        raised: { signalRaised.load(ordering: .relaxed) }, wakeFD: { signalWakeFD.load(ordering: .relaxed) },
        waitBegins: {
          openWaits.add(1, ordering: .relaxed)
          waitsBegun.add(1, ordering: .relaxed)
        },
        waitEnds: { openWaits.subtract(1, ordering: .relaxed) }))
    let (writeEnd, readEnd) = (wake[1], input[0])
    let handler = Thread {
      usleep(100_000)
      // What the handler does: the flag, then a byte to the pipe.
      signalRaised.store(true, ordering: .relaxed)
      var byte: UInt8 = 1
      _ = write(writeEnd, &byte, 1)
    }
    handler.start()
    #expect(
      onThread { () -> Bool in
        // Within the wait, the signal is caught.
        stop.waiting { openWaits.load(ordering: .relaxed) == 1 } && !stop.wait(for: readEnd, events: Int16(POLLIN))
      } == true)
    #expect(stop.isRequested)
    #expect(openWaits.load(ordering: .relaxed) == 0 && waitsBegun.load(ordering: .relaxed) == 2)
  }
}
