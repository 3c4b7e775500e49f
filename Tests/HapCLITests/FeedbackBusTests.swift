import Foundation
import HapTestSupport
import Testing

/// A private session bus for one test: `dbus-daemon` with a configuration of its own (its own
/// socket, no service directories, so nothing is auto-started), stopped with the test.
final class PrivateBus {
  let folder: TemporaryFolder
  let address: String
  private let process = Process()

  /// nil (after saying why the check cannot run) when dbus-daemon is not installed.
  static func start() throws -> PrivateBus? {
    guard let daemon = systemTool("dbus-daemon") else {
      cannotCheck("dbus-daemon is not installed ('make test' installs it)")
      return nil
    }
    return try PrivateBus(daemon)
  }

  private init(_ daemon: String) throws {
    folder = try TemporaryFolder()
    let socket = folder.path("bus.sock")
    address = "unix:path=\(socket)"
    let config = try folder.write(
      "bus.conf",
      """
      <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
       "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
      <busconfig>
        <type>session</type>
        <listen>\(address)</listen>
        <policy context="default">
          <allow send_destination="*" eavesdrop="true"/>
          <allow eavesdrop="true"/>
          <allow own="*"/>
        </policy>
      </busconfig>
      """)
    process.executableURL = URL(fileURLWithPath: daemon)
    process.arguments = ["--config-file=\(config)", "--nofork", "--nopidfile"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    #expect(Wait.until(10, every: 0.01) { FileManager.default.fileExists(atPath: socket) }, "the bus did not start")
  }

  var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

  deinit {
    // SIGKILL: a test process may hold SIGTERM blocked, and a child inherits the mask.
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }
}

/// A program on the private bus, its standard input held open (fbcli ends its feedback at EOF)
/// and its output read after it exits.
final class BusClient {
  let process = Process()
  let input = Pipe()
  let output = Pipe()

  init(_ tool: String, _ arguments: [String], bus: PrivateBus) throws {
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    process.environment = Hap.labelled(ProcessInfo.processInfo.environment.merging(bus.environment) { $1 })
    process.standardInput = input
    process.standardOutput = output
    process.standardError = output
    try process.run()
  }

  /// Whether it exited within `seconds`; its output.
  func finish(within seconds: Double) -> (Bool, String) {
    let exited = Wait.exit(of: process, within: seconds)
    if !exited {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    return (exited, String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
  }
}

@Suite("hap serve --dbus: feedbackd's API on a private bus, with its own clients", .serialized)
struct FeedbackBusTests {
  /// The vocabulary these tests serve: the bundled desktop one (feedbackd's event names).
  static func vocabulary(_ device: SimulatedExciter) throws -> String { Hap.root.appendingPathComponent("desktop").path }

  /// The service on a private bus, and a monitor of its signals.
  struct Served {
    let bus: PrivateBus
    let service: RunningService
    let monitor: BusClient
    var folder: String

    /// `copied`: the vocabulary served from a copy of its own (a test may change it).
    init?(
      _ extra: [String] = [], copied: Bool = false, speaker: Bool = false,
      device made: ((SimulatedExciter) throws -> [String: String])? = nil
    ) throws {
      guard let bus = try PrivateBus.start() else { return nil }
      guard let monitorTool = systemTool("dbus-monitor"), systemTool("fbcli") != nil else {
        cannotCheck("dbus-monitor or fbcli is not installed ('make test' installs dbus and feedbackd)")
        return nil
      }
      let device = try SimulatedExciter(speaker: speaker ? "" : nil)
      let environment = try made?(device) ?? [:]
      folder = try FeedbackBusTests.vocabulary(device)
      if copied {
        try FileManager.default.copyItem(atPath: folder, toPath: device.folder.path("desktop"))
        folder = device.folder.path("desktop")
      }
      self.bus = bus
      service = try RunningService(
        ["--vocabulary", folder, "--keep-open", "--sample-format", "f32", "--dbus"] + extra, device: device,
        extra: bus.environment.merging(environment) { $1 })
      monitor = try BusClient(
        monitorTool, ["--address", bus.address, "type='signal',interface='org.sigxcpu.Feedback'"], bus: bus)
      // The monitor is listening once it has said so.
      usleep(200_000)
      // The service answers on its socket before it owns its bus name: a client's first call waits for the name.
      #expect(try Wait.until(20, every: 0.05) { try nameOwned() }, "hap serve --dbus did not take its name")
    }

    /// Whether org.sigxcpu.Feedback has an owner on the bus (true without gdbus: not checked).
    func nameOwned() throws -> Bool {
      guard let gdbus = systemTool("gdbus") else { return true }
      let (_, said) = try BusClient(
        gdbus,
        [
          "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus", "--method",
          "org.freedesktop.DBus.NameHasOwner", "org.sigxcpu.Feedback",
        ], bus: bus
      ).finish(within: 10)
      return said.contains("true")
    }

    func fbcli(_ arguments: [String]) throws -> BusClient { try BusClient("/usr/bin/fbcli", arguments, bus: bus) }

    /// `gdbus call ... Vibrate org.example.Test PATTERN`, one-shot (gdbus leaves the bus as soon
    /// as it has the answer): what it printed, trimmed; nil (after saying why) without gdbus.
    func vibrate(_ pattern: String) throws -> String? {
      guard let gdbus = systemTool("gdbus") else {
        cannotCheck("gdbus is not installed (Debian: libglib2.0-bin)")
        return nil
      }
      let call = try BusClient(
        gdbus,
        [
          "call", "--session", "--dest", "org.sigxcpu.Feedback", "--object-path", "/org/sigxcpu/Feedback", "--method",
          "org.sigxcpu.Feedback.Haptic.Vibrate", "org.example.Test", pattern,
        ], bus: bus)
      let (exited, said) = call.finish(within: 20)
      #expect(exited && call.process.terminationStatus == 0, "\(said)")
      return said.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What the exciter played from byte `offset` of its capture on, once it played to its end:
    /// nothing sounds and the capture's last sounding sample stayed where it was for a poll.
    func playedSince(_ offset: Int, within seconds: Double = 20) throws -> [Float] {
      var last = -1
      var samples: [Float] = []
      let done = try Wait.until(seconds, every: 0.05) {
        samples = PCM.floats(Array(try service.device.captured().dropFirst(offset)), format: .f32)
        let end = samples.lastIndex { $0 != 0 } ?? -1
        defer { last = end }
        guard end >= 0, end == last else { return false }
        return try service.status()["playing"] as? Int == 0
      }
      #expect(done, "nothing played, or it did not end within \(seconds) s")
      return samples
    }

    /// Whether python3 with libfeedback's introspection data is there (after saying why not).
    func libfeedback() -> Bool {
      let probe = Process()
      probe.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
      probe.arguments = ["-c", "import gi; gi.require_version('Lfb', '0.0'); from gi.repository import Lfb"]
      probe.standardOutput = FileHandle.nullDevice
      probe.standardError = FileHandle.nullDevice
      guard (try? probe.run()) != nil, Wait.exit(of: probe, within: 30), probe.terminationStatus == 0 else {
        cannotCheck("python3 with libfeedback is not installed (Debian: python3-gi, gir1.2-lfb-0.0)")
        return false
      }
      return true
    }

    /// The FeedbackEnded signals the monitor saw (after stopping it).
    func endedSignals() -> Int { endedReasons().count }

    /// The reasons of the FeedbackEnded signals the monitor saw, in order (after stopping it).
    func endedReasons() -> [UInt32] {
      kill(monitor.process.processIdentifier, SIGKILL)
      let (_, text) = monitor.finish(within: 5)
      return text.components(separatedBy: "member=FeedbackEnded").dropFirst().map { signal in
        // dbus-monitor prints the arguments one a line: `uint32 ID`, then `uint32 REASON`.
        let values = signal.split(separator: "\n").filter { $0.contains("uint32 ") }.prefix(2)
        return values.count == 2 ? UInt32(values.last!.split(separator: " ").last!) ?? 0 : 0
      }
    }
  }

  @Test func fbcliPlaysTheEventBitForBitAndFeedbackEndedComesOnce() throws {
    guard let served = try Served() else { return }
    let fbcli = try served.fbcli(["-E", "message-new-instant"])
    let (exited, said) = fbcli.finish(within: 20)
    #expect(exited, "fbcli did not end: no FeedbackEnded? \(said)")
    #expect(fbcli.process.terminationStatus == 0, "\(said)")
    try served.service.waitUntilSilent()
    #expect(served.service.terminate() == 0)
    #expect(served.endedSignals() == 1)
    let played = try served.service.device.captured()
    let out = served.service.device.folder.path("tick.raw")
    let render = try Hap.run([
      "render", served.folder + "/message-new-instant.json", "-o", out, "--sample-format", "f32", "--rate", "48000",
      "--quiet",
    ])
    #expect(render.status == 0, "\(render.stderr)")
    let rendered = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
    let r0 = try #require(rendered.firstIndex { $0 != 0 })
    let c0 = try #require(played.firstIndex { $0 != 0 }, "nothing was played")
    let start = (c0 - r0) / 4 * 4
    try #require(start >= 0 && start + rendered.count <= played.count, "the event is cut short")
    #expect(Array(played[start..<(start + rendered.count)]) == rendered, "not the event's render")
  }

  @Test func aLoopEndsWhenItsClientGoesAndATimeoutEndsIt() throws {
    guard let served = try Served() else { return }
    let looping = try served.fbcli(["-E", "phone-incoming-call", "-t", "0"])
    #expect(try Wait.until(20, every: 0.02) { try served.service.status()["playing"] as? Int == 1 }, "no loop")
    // The client dies: its bus name goes away, and so does its loop.
    kill(looping.process.processIdentifier, SIGKILL)
    _ = looping.finish(within: 5)
    #expect(try Wait.until(10, every: 0.02) { try served.service.status()["playing"] as? Int == 0 }, "the loop went on")
    // -t 3: the service ends it after 3 s, and fbcli ends with it.
    let started = Date()
    let timed = try served.fbcli(["-E", "phone-incoming-call", "-t", "3"])
    let (exited, said) = timed.finish(within: 20)
    let elapsed = Date().timeIntervalSince(started)
    #expect(exited && timed.process.terminationStatus == 0, "\(said)")
    #expect(elapsed >= 2.9, "ended after \(elapsed) s")
    #expect(try served.service.status()["playing"] as? Int == 0)
    #expect(served.service.terminate() == 0)
    // feedbackd's reasons: 2 (explicit) for a client gone, as for EndFeedback; 1 for a timeout.
    #expect(served.endedReasons() == [2, 1])
  }

  @Test func fbcliSetsTheProfileAndTheLevelFollows() throws {
    guard let served = try Served() else { return }
    let setter = try served.fbcli(["-P", "quiet"])
    let (exited, said) = setter.finish(within: 20)
    #expect(exited && setter.process.terminationStatus == 0, "fbcli -P waits for PropertiesChanged: \(said)")
    #expect(try served.service.status()["level"] as? String == "quiet")
    let read = try BusClient(
      "/usr/bin/gdbus",
      [
        "call", "--session", "--dest", "org.sigxcpu.Feedback", "--object-path", "/org/sigxcpu/Feedback", "--method",
        "org.freedesktop.DBus.Properties.Get", "org.sigxcpu.Feedback", "Profile",
      ], bus: served.bus)
    let (readDone, profile) = read.finish(within: 20)
    #expect(readDone && profile.contains("<'quiet'>"), "the Profile property: \(profile)")
    // At the quiet level only the essential event plays.
    let before = try served.service.counters()
    for event in ["message-new-instant", "alarm-clock-elapsed"] {
      let client = try served.fbcli(["-E", event])
      let (done, text) = client.finish(within: 20)
      #expect(done, "\(event): \(text)")
    }
    let after = try served.service.counters()
    #expect(after["played"]! - before["played"]! == 1)
    #expect(after["refused"]! - before["refused"]! == 1)
    #expect(served.service.terminate() == 0)
  }

  @Test func libfeedbackFromPythonPlays() throws {
    guard let served = try Served() else { return }
    let python = "/usr/bin/python3"
    let script = """
      import gi
      gi.require_version('Lfb', '0.0')
      from gi.repository import Lfb
      Lfb.init('org.example.HapTest')
      print(Lfb.Event.new('message-new-instant').trigger_feedback())
      """
    let client = try BusClient(python, ["-c", script], bus: served.bus)
    let (exited, said) = client.finish(within: 20)
    #expect(exited && client.process.terminationStatus == 0, "\(said)")
    #expect(said.contains("True"), "\(said)")
    #expect(try Wait.until(10, every: 0.02) { try served.service.counters()["played"] == 1 })
    #expect(served.service.terminate() == 0)
  }

  /// Calls no feedbackd client would make, and a hundred clients at once: every call gets a
  /// reply (an error for the malformed), and the service answers `hap status` after.
  @Test func malformedCallsGetErrorsAndAHundredClientsGetIds() throws {
    guard let served = try Served() else { return }
    let script = """
      import sys, threading
      from gi.repository import Gio, GLib
      address = sys.argv[1]
      def connect():
          return Gio.DBusConnection.new_for_address_sync(address,
              Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
      def call(bus, interface, method, args, reply=None):
          try:
              result = bus.call_sync('org.sigxcpu.Feedback', '/org/sigxcpu/Feedback', interface, method, args,
                                     GLib.VariantType(reply) if reply else None, 0, 5000, None)
              return 'ok ' + str(result.unpack())
          except GLib.Error as e:
              return 'error ' + Gio.DBusError.get_remote_error(e)
      bus = connect()
      print('signature', call(bus, 'org.sigxcpu.Feedback', 'TriggerFeedback', GLib.Variant('(ss)', ('a', 'b'))))
      print('interface', call(bus, 'org.example.Nothing', 'TriggerFeedback', None))
      print('huge', call(bus, 'org.sigxcpu.Feedback', 'TriggerFeedback',
                         GLib.Variant('(ssa{sv}i)', ('a', 'x' * (1 << 20), {}, -1))))
      print('unknown', call(bus, 'org.sigxcpu.Feedback', 'TriggerFeedback',
                            GLib.Variant('(ssa{sv}i)', ('a', 'no-such-event', {}, -1))))
      root = bus.call_sync('org.sigxcpu.Feedback', '/', 'org.freedesktop.DBus.Introspectable', 'Introspect', None,
                           GLib.VariantType('(s)'), 0, 5000, None).unpack()[0]
      print('root', '<node name="org"/>' in root)
      bare = Gio.DBusMessage.new_method_call('org.sigxcpu.Feedback', '/org/sigxcpu/Feedback', None, 'Get')
      bare.set_body(GLib.Variant('(ss)', ('org.sigxcpu.Feedback', 'Profile')))
      answer = bus.send_message_with_reply_sync(bare, Gio.DBusSendMessageFlags.NONE, 5000, None)[0]
      print('bare', 'ok' if answer.get_message_type() == Gio.DBusMessageType.METHOD_RETURN else 'error')
      print('machine', call(bus, 'org.freedesktop.DBus.Peer', 'GetMachineId', None, '(s)'))
      ids = []
      def one():
          c = connect()
          ids.append(call(c, 'org.sigxcpu.Feedback', 'TriggerFeedback',
                          GLib.Variant('(ssa{sv}i)', ('a', 'message-new-instant', {}, -1)), '(u)'))
      threads = [threading.Thread(target=one) for _ in range(100)]
      for t in threads: t.start()
      for t in threads: t.join()
      print('ids', sum(1 for r in ids if r.startswith('ok ')), len(set(ids)))
      """
    let client = try BusClient("/usr/bin/python3", ["-c", script, served.bus.address], bus: served.bus)
    let (exited, said) = client.finish(within: 60)
    #expect(exited && client.process.terminationStatus == 0, "\(said)")
    #expect(said.contains("signature error org.freedesktop.DBus.Error.InvalidArgs"), "\(said)")
    #expect(said.contains("interface error org.freedesktop.DBus.Error.UnknownMethod"), "\(said)")
    #expect(said.contains("huge error org.freedesktop.DBus.Error.InvalidArgs"), "\(said)")
    // An event with no pattern answers an id, as feedbackd does (FeedbackEnded, not found, follows).
    #expect(said.contains("unknown ok ("), "\(said)")
    #expect(said.contains("ids 100 100"), "\(said)")
    #expect(said.contains("root True"), "tools walking the object tree from / find the object: \(said)")
    #expect(said.contains("bare ok"), "a call without an interface header: \(said)")
    let machine = (try? String(contentsOfFile: "/etc/machine-id", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    if let machine { #expect(said.contains("machine ok ('\(machine)',)"), "Peer.GetMachineId: \(said)") }
    #expect(try served.service.status()["device"] as? String == "open")
    #expect(served.service.terminate() == 0)
  }

  /// feedbackd's `Vibrate` as its documented one-shot `gdbus call` makes it: the caller leaves
  /// the bus at once, and the whole pattern plays all the same (feedbackd never ties a vibration
  /// to its caller), at the quiet level too (feedbackd plays Vibrate at quiet); relative
  /// amplitudes, as its motors take them. A new Vibrate replaces the running one; an empty
  /// array stops it.
  @Test func aOneShotVibrateAtTheQuietLevelPlaysItsWholePattern() throws {
    guard let served = try Served() else { return }
    // The level lowered to quiet while a vibration plays: it plays on (feedbackd's profile change
    // ends triggered events alone).
    guard let first = try served.vibrate("[(1.0, 800)]") else { return }
    #expect(first == "(true,)")
    #expect(try Wait.until(10, every: 0.02) { try served.service.status()["playing"] as? Int == 1 }, "no vibration")
    let (set, text) = try served.fbcli(["-P", "quiet"]).finish(within: 20)
    #expect(set, "\(text)")
    #expect(try served.service.status()["level"] as? String == "quiet")
    let kept = Self.parts(try served.playedSince(0))
    #expect(kept.count == 1 && abs((kept.first?.ms ?? 0) - 800) <= 3, "parts (ms, sounding): \(kept)")
    let start = try served.service.device.captured().count
    guard let answer = try served.vibrate("[(1.0, 200), (0.0, 100), (0.5, 200)]") else { return }
    #expect(answer == "(true,)")
    let s = try served.playedSince(start)
    let parts = Self.parts(s)
    #expect(parts.count == 3, "parts (ms, sounding): \(parts)")
    if parts.count == 3 {
      for (part, expected) in zip(parts, [(200.0, true), (100.0, false), (200.0, true)]) {
        #expect(abs(part.ms - expected.0) <= 3 && part.sounding == expected.1, "parts (ms, sounding): \(parts)")
      }
      // The amplitudes relative to the first part's: the third at 0.5.
      let first = Self.rms(s, from: parts[0].start + 1200, to: parts[0].start + 8400)
      let third = Self.rms(s, from: parts[2].start + 1200, to: parts[2].start + 8400)
      #expect(first > 0.1 && abs(third / first - 0.5) < 0.01, "third part \(third / first) of the first")
    }
    // A new one replaces the running one; an empty array stops it (each answered true).
    for (next, longest) in [("[(0.5, 300)]", 3000.0), ("[]", 3000.0)] {
      let from = try served.service.device.captured().count
      #expect(try served.vibrate("[(1.0, 5000)]") == "(true,)")
      #expect(try Wait.until(10, every: 0.02) { try served.service.status()["playing"] as? Int == 1 }, "no vibration")
      #expect(try served.vibrate(next) == "(true,)")
      let played = Self.parts(try served.playedSince(from)).reduce(0) { $0 + $1.ms }
      #expect(played < longest, "\(next): the 5 s vibration went on (\(played) ms played)")
    }
    #expect(served.service.terminate() == 0)
  }

  /// feedbackd clamps a vibration, it does not refuse one (its `fbd-haptic-manager.c`): of 11
  /// pairs the first 10 play, a pair of 20,000 ms plays 10,000 ms; each answers true.
  @Test func vibrateClampsAsFeedbackdDoesAndAnswersTrue() throws {
    guard let served = try Served() else { return }
    // Five 40 ms bursts 40 ms apart, then an 11th pair, of 300 ms, that does not play.
    let eleven = "[" + Array(repeating: "(1.0, 40), (0.0, 40)", count: 5).joined(separator: ", ") + ", (1.0, 300)]"
    guard let answer = try served.vibrate(eleven) else { return }
    #expect(answer == "(true,)")
    let bursts = Self.parts(try served.playedSince(0))
    #expect(bursts.count == 9, "parts (ms, sounding): \(bursts)")
    for (k, part) in bursts.enumerated() {
      #expect(abs(part.ms - 40) <= 3 && part.sounding == (k % 2 == 0), "parts (ms, sounding): \(bursts)")
    }
    let from = try served.service.device.captured().count
    #expect(try served.vibrate("[(1.0, 20000)]") == "(true,)")
    let long = Self.parts(try served.playedSince(from, within: 40))
    #expect(long.count == 1 && abs((long.first?.ms ?? 0) - 10_000) <= 5, "parts (ms, sounding): \(long)")
    #expect(served.service.terminate() == 0)
  }

  /// An event with no pattern is no error, as feedbackd answers it: an id, then at once
  /// `FeedbackEnded(id, 4294967295)` (not found), so that fbcli ends well and libfeedback's
  /// `trigger_feedback()` succeeds and sees its event end, reason not found.
  @Test func anUnknownEventAnswersAnIdAndFeedbackEndedNotFound() throws {
    guard let served = try Served() else { return }
    let fbcli = try served.fbcli(["-E", "no-such-event"])
    let (exited, said) = fbcli.finish(within: 20)
    #expect(exited, "fbcli did not end: no FeedbackEnded? \(said)")
    #expect(fbcli.process.terminationStatus == 0, "\(said)")
    guard served.libfeedback() else { return }
    let script = """
      import gi
      gi.require_version('Lfb', '0.0')
      from gi.repository import Lfb, GLib
      Lfb.init('org.example.HapTest')
      loop = GLib.MainLoop()
      event = Lfb.Event.new('no-such-event')
      ended = []
      event.connect('feedback-ended', lambda e: (ended.append(int(e.get_end_reason())), loop.quit()))
      print('triggered', event.trigger_feedback())
      GLib.timeout_add_seconds(10, loop.quit)
      loop.run()
      print('ended', ended)
      """
    let client = try BusClient("/usr/bin/python3", ["-c", script], bus: served.bus)
    let (done, text) = client.finish(within: 30)
    #expect(done && client.process.terminationStatus == 0, "\(text)")
    #expect(text.contains("triggered True") && text.contains("ended [-1]"), "\(text)")
    #expect(try served.service.counters()["played"] == 0)
    #expect(served.service.terminate() == 0)
    #expect(served.endedReasons() == [4_294_967_295, 4_294_967_295])
  }

  /// The parts of a vibration as the exciter played them, from its first sounding sample to its
  /// last: sounding stretches and silent ones (a run of at least 5 ms of zero samples), each
  /// with its first sample and its length in ms at 48 kHz.
  static func parts(_ s: [Float]) -> [(start: Int, ms: Double, sounding: Bool)] {
    guard let first = s.firstIndex(where: { $0 != 0 }), let last = s.lastIndex(where: { $0 != 0 }) else { return [] }
    var parts: [(start: Int, ms: Double, sounding: Bool)] = []
    var start = first
    var n = first
    while n <= last {
      guard s[n] == 0 else {
        n += 1
        continue
      }
      let zeros = s[n...last].prefix { $0 == 0 }.count
      if zeros >= 240 {
        parts.append((start, Double(n - start) / 48, true))
        parts.append((n, Double(zeros) / 48, false))
        start = n + zeros
      }
      n += zeros
    }
    parts.append((start, Double(last + 1 - start) / 48, true))
    return parts
  }

  static func rms(_ s: [Float], from: Int, to: Int) -> Double {
    let part = s[min(from, s.count)..<min(to, s.count)]
    return (part.reduce(0) { $0 + Double($1) * Double($1) } / Double(max(1, part.count))).squareRoot()
  }

  /// feedbackd's own theme (Debian's default.json) serves the events the desktop vocabulary
  /// lacks: every event it names plays, or is listed as not played (LED only).
  @Test func feedbackdsDefaultThemeFillsInTheEventsTheVocabularyLacks() throws {
    let theme = "/usr/share/feedbackd/themes/default.json"
    guard FileManager.default.fileExists(atPath: theme) else {
      cannotCheck("feedbackd's default theme is not installed ('make test' installs feedbackd)")
      return
    }
    guard let served = try Served(["--feedback-theme", theme]) else { return }
    let events = try #require(try served.service.status()["events"] as? [String])
    let client = try served.fbcli(["-E", "bell-terminal"])
    let (exited, said) = client.finish(within: 20)
    #expect(exited && client.process.terminationStatus == 0, "\(said)")
    #expect(try Wait.until(10, every: 0.02) { try served.service.counters()["played"] == 1 })
    #expect(served.service.terminate() == 0)
    let log = served.service.log
    #expect(log.contains("feedbackd's theme '\(theme)' serves"), "\(log)")
    let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: theme))) as? [String: Any]
    let profiles = try #require(json?["profiles"] as? [[String: Any]])
    let named = Set(profiles.flatMap { ($0["feedbacks"] as? [[String: Any]] ?? []).compactMap { $0["event-name"] as? String } })
    #expect(named.count > 20)
    for name in named.sorted() {
      #expect(events.contains(name) || log.contains("hap: theme: \(name): Led only, not played"), "\(name): \(log)")
    }
  }

  /// At the quiet level a theme event plays its quiet section alone (feedbackd's lookup), not
  /// its full section's vibration or sound; lowering the level ends what it no longer plays.
  @Test func theQuietLevelPlaysAThemeEventsQuietSectionAndEndsLouderVoices() throws {
    let device = try SimulatedExciter()
    let theme = device.folder.path("ring.json")
    try #"""
      {"name": "ring", "profiles": [
        {"name": "full", "feedbacks": [
          {"event-name": "x-hap-ring", "type": "VibraRumble", "duration": 300},
          {"event-name": "x-hap-loud", "type": "VibraRumble", "duration": 400}]},
        {"name": "quiet", "feedbacks": [
          {"event-name": "x-hap-ring", "type": "VibraRumble", "duration": 50, "magnitude": 0.5}]}]}
      """#.write(toFile: theme, atomically: true, encoding: .utf8)
    guard let served = try Served(["--feedback-theme", theme]) else { return }
    let events = try #require(try served.service.status()["events"] as? [String])
    #expect(events.contains("x-hap-ring") && !events.contains { $0.contains("(quiet)") }, "\(events)")
    // A loop of an event the quiet level does not play ends when the level becomes quiet.
    let looping = try served.fbcli(["-E", "x-hap-loud", "-t", "0"])
    defer { kill(looping.process.processIdentifier, SIGKILL) }
    #expect(try Wait.until(20, every: 0.02) { try served.service.status()["playing"] as? Int == 1 }, "no loop")
    let (set, said) = try served.fbcli(["-P", "quiet"]).finish(within: 20)
    #expect(set, "\(said)")
    #expect(try Wait.until(10, every: 0.02) { try served.service.status()["playing"] as? Int == 0 }, "the loop went on")
    let (fired, text) = try served.fbcli(["-E", "x-hap-ring"]).finish(within: 20)
    #expect(fired, "\(text)")
    try served.service.waitUntilSilent()
    #expect(served.service.terminate() == 0)
    #expect(served.endedSignals() == 2)
    // The capture holds what the engine wrote (it writes nothing while idle): the last
    // vibration, after the loop's fade and at least 5 ms of silence, is the quiet section's
    // 50 ms rumble (and its release), not the full section's 300 ms.
    let s = PCM.floats(try served.service.device.captured(), format: .f32)
    let last = try #require(s.lastIndex { $0 != 0 }, "nothing played")
    var first = last
    var zeros = 0
    for k in stride(from: last, through: 0, by: -1) {
      if s[k] == 0 { zeros += 1 } else { (first, zeros) = (k, 0) }
      if zeros == 240 { break }
    }
    let ms = Double(last - first) / 48
    #expect(ms >= 49 && ms < 65, "the quiet fire lasted \(ms) ms, not the quiet section's 50")
  }

  /// The `sound-file` hint plays the file in place of the event's sound, with the event's
  /// haptics, as `hap render --audio` renders an AudioCustom of it at time 0 (the file as it is,
  /// no volume envelope: as feedbackd plays it); for an event with no
  /// pattern it plays alone (as feedbackd). A relative path, a FIFO or a file that is not a sound
  /// is an InvalidArgs error at once.
  @Test func theSoundFileHintPlaysTheFileWithTheEventsHaptics() throws {
    guard let served = try Served(["--audio-device", "speaker"], speaker: true) else { return }
    let folder = served.service.device.folder
    let tone = (0..<4800).map { Float(sin(Double($0) * 2 * .pi * 440 / 48000) * 0.5) }
    let wav = folder.path("hint.wav")
    try Data(SyntheticSound.wav([tone], rate: 48000)).write(to: URL(fileURLWithPath: wav))
    try "not a sound".write(toFile: folder.path("text.wav"), atomically: true, encoding: .utf8)
    #expect(mkfifo(folder.path("fifo.wav"), 0o600) == 0)
    // The client stays on the bus while its feedback plays (it ends when the client leaves).
    func trigger(_ event: String, _ file: String) throws -> (Bool, String) {
      let script = """
        import sys, time
        from gi.repository import Gio, GLib
        bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        try:
            print(bus.call_sync('org.sigxcpu.Feedback', '/org/sigxcpu/Feedback', 'org.sigxcpu.Feedback',
                'TriggerFeedback', GLib.Variant('(ssa{sv}i)', ('org.example.Test', sys.argv[1],
                {'sound-file': GLib.Variant('s', sys.argv[2])}, -1)), GLib.VariantType('(u)'), 0, 5000, None).unpack())
            time.sleep(0.5)
        except GLib.Error as error:
            print(error.message)
        """
      return try BusClient("/usr/bin/python3", ["-c", script, event, file], bus: served.bus).finish(within: 20)
    }
    for (file, why) in [("hint.wav", "absolute path"), (folder.path("fifo.wav"), "cannot be played"), (folder.path("text.wav"), "cannot be played")] {
      let (done, said) = try trigger("message-new-instant", file)
      #expect(done && said.contains("InvalidArgs") && said.contains(why), "\(file): \(said)")
    }
    let (done, said) = try trigger("message-new-instant", wav)
    #expect(done && said.hasPrefix("("), "\(said)")
    try served.service.waitUntilSilent()
    let (alone, text) = try trigger("x-hap-no-pattern", wav)
    #expect(alone && text.hasPrefix("("), "\(text)")
    try served.service.waitUntilSilent()
    #expect(served.service.terminate() == 0)
    // The references: the event's haptic render, and the sound as an AudioCustom at time 0.
    let pattern = folder.path("hint.ahap")
    let event = #"{"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "\#(wav)", "#
    try (#"{"Pattern": [{"Event": "# + event + #""EventWaveformUseVolumeEnvelope": false}}]}"#)
      .write(toFile: pattern, atomically: true, encoding: .utf8)
    let rendered = folder.path("hint.raw")
    let render = try Hap.run([
      "render", pattern, "-o", folder.path("none.raw"), "--audio", rendered, "--sample-format", "f32", "--rate", "48000",
      "--quiet",
    ])
    #expect(render.status == 0, "\(render.stderr)")
    let sound = try PCM.floats(contentsOf: rendered, format: .f32)
    let end = try #require(sound.lastIndex { $0 != 0 }) + 1
    let reference = Array(sound[(try #require(sound.firstIndex { $0 != 0 }) / 2 * 2)..<end])
    let played = try PCM.floats(contentsOf: served.service.device.speakerCapture, format: .f32)
    // Twice, each from a frame of its own: the first with the event, the second alone.
    var found: [Int] = []
    var from = 0
    while let start = played[from...].firstIndex(where: { $0 != 0 }) {
      let aligned = start / 2 * 2
      guard aligned + reference.count <= played.count else { break }
      #expect(Array(played[aligned..<(aligned + reference.count)]) == reference, "not the sound-file's render")
      found.append(aligned)
      from = aligned + reference.count
    }
    #expect(found.count == 2, "the sound played \(found.count) times")
    // The event's haptics, bit for bit its render (the sound alone adds none).
    let haptic = PCM.floats(try served.service.device.captured(), format: .f32)
    let eventRender = folder.path("event.raw")
    let made = try Hap.run([
      "render", served.folder + "/message-new-instant.json", "-o", eventRender, "--sample-format", "f32", "--rate",
      "48000", "--quiet",
    ])
    #expect(made.status == 0, "\(made.stderr)")
    let whole = try PCM.floats(contentsOf: eventRender, format: .f32)
    let r0 = try #require(whole.firstIndex { $0 != 0 })
    let r1 = try #require(whole.lastIndex { $0 != 0 }) + 1
    let c0 = try #require(haptic.firstIndex { $0 != 0 }, "the event's haptics did not play")
    #expect(c0 + (r1 - r0) <= haptic.count && Array(haptic[c0..<(c0 + r1 - r0)]) == Array(whole[r0..<r1]))
    #expect(haptic[(c0 + r1 - r0)...].allSatisfy { $0 == 0 }, "something else vibrated")
  }

  /// What stops --dbus before it serves, each one sentence and exit 2: no D-Bus library, no
  /// bus, the name already owned (feedbackd, or another hap).
  @Test func noLibraryNoBusOrANameTakenIsOneSentence() throws {
    guard let served = try Served() else { return }
    let device = try SimulatedExciter()
    let vocabulary = Hap.root.appendingPathComponent("desktop").path
    func serve(_ environment: [String: String]) throws -> Hap.Result {
      try Hap.run(
        ["serve", "-D", "sim", "--dbus", "--vocabulary", vocabulary, "--socket", device.folder.path("other.sock")],
        environment: device.environment.merging(environment) { $1 }, timeout: 30)
    }
    let cases: [([String: String], String)] = [
      (served.bus.environment.merging(["HAP_LIBDBUS": "/nonexistent/libdbus-1.so.3"]) { $1 },
       "install the Debian package libdbus-1-3"),
      (["DBUS_SESSION_BUS_ADDRESS": "unix:path=" + device.folder.path("no-bus")], "cannot connect to the session bus"),
      (served.bus.environment, "org.sigxcpu.Feedback is already owned on the session bus"),
    ]
    for (environment, said) in cases {
      let result = try serve(environment)
      #expect(result.status == 2, "\(said): \(result.stderr)")
      #expect(result.stderr.contains("hap: --dbus: ") && result.stderr.contains(said), "\(result.stderr)")
      #expect(!FileManager.default.fileExists(atPath: device.folder.path("other.sock")), "the socket was left behind")
    }
    #expect(try served.service.status()["device"] != nil)
    #expect(served.service.terminate() == 0)
  }

  /// A reload keeps a D-Bus loop of an unchanged event, debounced or not (the loop's voice
  /// once held its event with the debounce the trigger set aside, and a reload read that as a
  /// change, ending it).
  @Test func aReloadKeepsADBusLoopOfAnUnchangedEvent() throws {
    guard let served = try Served(copied: true) else { return }
    let looping = try served.fbcli(["-E", "message-new-instant", "-t", "0"])
    #expect(try Wait.until(20, every: 0.02) { try served.service.status()["playing"] as? Int == 1 }, "no loop")
    let loads = try served.service.status()["loads"] as? Int ?? 0
    let other = served.folder + "/phone-hangup.json"
    try (try String(contentsOfFile: other, encoding: .utf8) + "\n").write(toFile: other, atomically: true, encoding: .utf8)
    #expect(try Wait.until(20, every: 0.05) { try served.service.status()["loads"] as? Int ?? 0 > loads }, "no reload")
    // The stimulus is over; the loop must still sound a while after (it ended within 1 s before).
    #expect(!(try Wait.until(1.5, every: 0.05) { try served.service.status()["playing"] as? Int == 0 }), "the loop ended")
    kill(looping.process.processIdentifier, SIGKILL)
    _ = looping.finish(within: 5)
    // The client's name gone, its loop ends (FeedbackEnded is said then), before the service stops.
    #expect(try Wait.until(10, every: 0.02) { try served.service.status()["playing"] as? Int == 0 }, "the loop went on")
    #expect(served.service.terminate() == 0)
    #expect(served.endedSignals() == 1)
  }

  /// A vibration longer than the memory budget leaves a variant slot is refused, one sentence,
  /// and the service goes on (the budget is asked before the signal is made).
  @Test func aVibrationOverTheBudgetIsRefused() throws {
    guard let served = try Served(["--memory-budget", "8"]) else { return }
    let long = "[" + Array(repeating: "(1.0, 10000)", count: 10).joined(separator: ", ") + "]"
    let client = try BusClient(
      "/usr/bin/gdbus",
      [
        "call", "--session", "--dest", "org.sigxcpu.Feedback", "--object-path", "/org/sigxcpu/Feedback", "--method",
        "org.sigxcpu.Feedback.Haptic.Vibrate", "org.example.Test", long,
      ], bus: served.bus)
    let (exited, said) = client.finish(within: 20)
    #expect(exited && said.contains("the vibration needs 19.2 MB, more than"), "\(said)")
    #expect(try served.service.status()["device"] != nil)
    #expect(served.service.terminate() == 0)
  }
}
