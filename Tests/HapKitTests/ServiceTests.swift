import Foundation
import HapCore
@testable import HapKit
@testable import HapRuntime
import HapTestSupport
import Testing

/// The service as a library (`VocabularyService`), in process on the simulated exciter: what
/// `hap serve` runs behind its socket, reached here without launching the binary.
@Suite("HapKit's service in process", .serialized)
struct ServiceTests {
  /// A service over a vocabulary folder on `-D sim`, its notices (the folder's load's too)
  /// collected, and its connections (``connect(timeout:)``) served as `hap serve` serves them.
  final class Served: @unchecked Sendable {
    /// Where the files are written, and the capture (removed at the end).
    let scratch: URL
    /// The vocabulary folder: `scratch`, or hap's bundled `patterns` (`bundled`).
    let folder: URL
    let service: VocabularyService
    let connections = ServiceConnections()
    private let notices = Collected<ServiceNotice>()

    /// `files` (name → text) in a new folder, or with `bundled` the
    /// bundled vocabulary; `idleClose` nil is `--keep-open`.
    init(
      _ files: [String: String] = [:], bundled: Bool = false, budget: Int = VocabularyService.defaultMemoryBudget,
      idleClose: Double? = nil, latency: Double = 4
    ) throws {
      let plugin = try #require(SimEngine.plugin, "the simulated exciter is not built: run 'make sim'")
      scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hapkit-service-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
      for (name, text) in files { try text.write(to: scratch.appendingPathComponent(name), atomically: true, encoding: .utf8) }
      folder = bundled ? Repository.url("patterns") : scratch
      var device = DeviceSettings(device: "sim:CAPTURE=\(scratch.appendingPathComponent("capture.raw").path)")
      device.environment["HAP_SIM_PLUGIN"] = plugin
      device.latency = latency
      let notices = self.notices
      let vocabulary = try #require(
        VocabularyFolder(path: folder.path, source: .named).load(search: SoundSearch(folders: [])) { notices.add($0) })
      service = VocabularyService(
        vocabulary: vocabulary,
        settings: ServiceSettings(device: device, profile: .exciter, idleClose: idleClose, memoryBudget: budget),
        logsRequests: true, log: { notices.add($0) })
      service.notify = { [connections] in connections.tell($0, $1) }
    }

    func ask(_ line: String, owner: Int32 = 0) -> String {
      service.reply(to: .line(Array(line.utf8)), owner: owner)
    }

    var said: [ServiceNotice] { notices.all }

    /// `status`'s JSON.
    func status() throws -> [String: Any] {
      let reply = ask("status")
      try #require(reply.hasPrefix("ok {"), "\(reply)")
      let json = try JSONSerialization.jsonObject(with: Data(reply.utf8.dropFirst(3)))
      return try #require(json as? [String: Any])
    }

    func counters() throws -> [String: Int] { try #require(try status()["counters"] as? [String: Int]) }

    /// Waits until no voice sounds.
    func waitUntilSilent() throws {
      if try !Wait.until(10, every: 0.02, { try status()["playing"] as? Int == 0 }) {
        Issue.record("the service kept playing")
      }
    }

    /// A connection as `hap serve` accepts one (``ServiceServer``, on a thread of its own, closed
    /// after `timeout` idle seconds), over a socketpair: the client's end.
    func connect(timeout: Double? = nil) throws -> PairedConnection {
      try PairedConnection(service, connections, timeout: timeout)
    }

    deinit {
      service.shutDown()
      try? FileManager.default.removeItem(at: scratch)
    }
  }

  static let tap = #"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#
  static let hum = #"""
    {"Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.3,
      "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.8}]}}]}
    """#

  @Test("fire, stop, status and the off switch answer as the socket's protocol says, with no socket")
  func requestsInProcess() throws {
    let served = try Served(["tap.ahap": Self.tap, "hum.ahap": Self.hum])
    let check = served.service.checkDevice()
    guard case .sound(_, let configuration, _, _) = check else {
      Issue.record("the simulated exciter did not open: \(check)")
      return
    }
    #expect(configuration.rate == 48000)
    #expect(withoutVoice(served.ask("fire tap")) == "ok fired tap")
    #expect(served.ask("fire nothing").hasPrefix("error unknown-event"))
    #expect(served.ask("mute") == "ok muted")
    #expect(served.ask("fire tap").hasPrefix("error muted"))
    #expect(served.ask("unmute") == "ok unmuted")
    #expect(served.ask("stop") == "ok stopped all")
    let status = served.ask("status")
    #expect(status.hasPrefix("ok {"), "\(status)")
    #expect(status.contains("\"device\":\"open\""), "\(status)")
    // What a service says goes to its log as typed notices, never to standard error.
    // Each request with its answer (`hap serve --verbose` says them), who asked: connection 0.
    #expect(
      served.said.contains {
        if case .request(.connection(owner: 0, _, _), "fire tap", let answer) = $0 { answer.hasPrefix("ok fired tap") } else { false }
      })
    #expect(served.said.contains { if case .deviceOpened = $0 { true } else { false } })
  }

  @Test("a connection's loop stops with it; a reload keeps an unchanged loop and tells a changed one's owner")
  func loopsAcrossReloads() throws {
    let served = try Served(["tap.ahap": Self.tap, "hum.ahap": Self.hum])
    let told = Collected<(Int32, String)>()
    served.service.notify = { owner, line in told.add((owner, line)) }
    let first = served.service.connected()
    let second = served.service.connected()
    #expect(withoutVoice(served.ask("fire hum loop", owner: first)) == "ok fired hum")
    #expect(withoutVoice(served.ask("fire tap loop", owner: second)) == "ok fired tap")
    #expect(served.service.isLooping(first) && served.service.isLooping(second))
    try Self.hum.replacingOccurrences(of: "0.8", with: "0.5").write(
      to: served.folder.appendingPathComponent("hum.ahap"), atomically: true, encoding: .utf8)
    let reloaded = try #require(
      VocabularyFolder(path: served.folder.path, source: .named).load(search: SoundSearch(folders: [])) { _ in })
    served.service.reload(vocabulary: reloaded)
    #expect(!served.service.isLooping(first), "the changed event's loop ended")
    #expect(served.service.isLooping(second), "the unchanged event's loop goes on")
    let lines = told.all
    #expect(lines.count == 1 && lines.first?.0 == first && lines.first?.1.hasPrefix("ended hum: changed") == true)
    served.service.disconnected(second)
    #expect(!served.service.isLooping(second))
  }

  @Test("a sharpness variant over the budget is refused before the policy and the device (a review's finding)")
  func variantOverBudgetIsRefusedFirst() throws {
    // hum's render (0.3 s, 57.6 kB) fits; what is left for each variant does not hold one.
    let served = try Served(["hum.ahap": Self.hum], budget: 60_000)
    let reply = served.ask("fire hum sharpness=0.3")
    #expect(reply.hasPrefix("error no-memory"), "\(reply)")
    let status = served.ask("status")
    #expect(status.contains("\"device\":\"closed\""), "the device was opened for a refused fire: \(status)")
    #expect(status.contains("\"noDevice\":0"), "\(status)")
    #expect(status.contains("\"fires\":0"), "a refused fire went through the policy: \(status)")
  }

  @Test("the config file's profile: its warnings are notices, each time it is loaded (a review's finding)")
  func profileWarningsAreSaid() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hapkit-reloader-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let profile = folder.appendingPathComponent("shaker.json").path
    try #"{"Name": "shaker", "MinimumFrequency": 30, "MaximumFrequency": 120, "Bogus": 1}"#.write(
      toFile: profile, atomically: true, encoding: .utf8)
    let config = folder.appendingPathComponent("config.json").path
    try #"{"profile": "\#(profile)"}"#.write(toFile: config, atomically: true, encoding: .utf8)
    let notices = Collected<ServiceNotice>()
    let reloader = ServiceReloader(
      config: ConfigFile(path: config), folder: folder.path, search: SoundSearch(folders: []),
      commandLine: .init(device: DeviceSettings(device: "sim"), gaveDevice: true, gaveProfile: false, gaveGain: false),
      log: { notices.add($0) })
    guard case .success(let (_, loaded)) = reloader.start() else {
      Issue.record("the config's profile did not load: \(notices.all)")
      return
    }
    #expect(loaded.name == "shaker")
    let warned = notices.all.contains {
      if case .profileWarnings(let file, let warnings) = $0 { file == profile && !warnings.isEmpty } else { false }
    }
    #expect(warned, "\(notices.all)")
  }

  @Test("an event over the memory budget is left out with a notice, and its fire says why")
  func budgetIsANotice() throws {
    let served = try Served(["hum.ahap": Self.hum], budget: 1024)
    let refused = served.said.contains { if case .overBudget(event: "hum", _, budget: 1024) = $0 { true } else { false } }
    #expect(refused, "\(served.said)")
    #expect(served.ask("fire hum").hasPrefix("error no-memory"))
  }
}

/// Values handed over from other threads (a log, a notify callback).
final class Collected<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var values: [Value] = []

  func add(_ value: Value) {
    lock.lock()
    values.append(value)
    lock.unlock()
  }

  var all: [Value] {
    lock.lock()
    defer { lock.unlock() }
    return values
  }
}

/// The client's end of a socketpair whose other end ``ServiceServer`` serves (as `hap serve`
/// serves an accepted connection), one request line and one reply line at a time.
struct PairedConnection: LineClient {
  let fd: Int32
  private let ended = DispatchSemaphore(value: 0)

  init(_ service: VocabularyService, _ connections: ServiceConnections, timeout: Double? = nil) throws {
    var ends: [Int32] = [0, 0]
    try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0, "socketpair: errno \(errno)")
    fd = ends[1]
    guard case .success(let client) = connections.admit(ends[0]) else {
      Glibc.close(ends[0])
      Glibc.close(ends[1])
      throw CancellationError()
    }
    let ended = self.ended
    let thread = Thread {
      ServiceServer.run(client, service: service, connections: connections, timeout: timeout)
      ended.signal()
    }
    thread.start()
    // A missing reply fails the test rather than hanging it.
    readsGiveUp(after: 30)
  }

  /// Closes the client's end and waits for the service's side to end (its bound voices stopped).
  func close() {
    Glibc.close(fd)
    if ended.wait(timeout: .now() + 30) == .timedOut { Issue.record("the connection's thread did not end") }
  }
}
