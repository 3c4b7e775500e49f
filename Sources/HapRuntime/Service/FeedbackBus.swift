import CDBus
import FoundationEssentials
import Glibc
import HapCore
import Synchronization

/// Why `hap serve --dbus` cannot answer feedbackd's API.
public enum FeedbackBusError: Error, Sendable {
  /// libdbus-1 could not be loaded (`reason`: dlopen's).
  case libraryMissing(reason: String)
  /// No session bus: `reason`, libdbus's.
  case noBus(reason: String)
  /// Another process owns `org.sigxcpu.Feedback` (feedbackd).
  case nameTaken
  case failed(String)

  public var message: String {
    switch self {
    case .libraryMissing(let reason):
      "the D-Bus library cannot be loaded (\(reason)); install the Debian package libdbus-1-3"
    case .noBus(let reason):
      "cannot connect to the session bus: \(reason) (is DBUS_SESSION_BUS_ADDRESS set?)"
    case .nameTaken:
      "org.sigxcpu.Feedback is already owned on the session bus (feedbackd is running?); stop it, or serve without --dbus"
    case .failed(let reason): reason
    }
  }
}

/// feedbackd's D-Bus API (../notes: org.sigxcpu.Feedback on the session bus) answered by the
/// service: `TriggerFeedback` plays the vocabulary's event of that name, `EndFeedback` ends it,
/// `FeedbackEnded` says once when an id's voice ended, the `Profile` property is the service's
/// level, `Vibrate` plays relative amplitudes. Every client's triggered voices end when its
/// bus name goes away; a vibration plays to its end (as feedbackd's). One thread owns the connection (libdbus loaded at run time): it waits in `poll`
/// on the bus's socket and a pipe the service's threads wake it with (a voice's end, a
/// level change), so it never polls on a timer.
public final class FeedbackBus: @unchecked Sendable {
  public static let name = "org.sigxcpu.Feedback"
  public static let path = "/org/sigxcpu/Feedback"
  public static let haptic = "org.sigxcpu.Feedback.Haptic"
  static let properties = "org.freedesktop.DBus.Properties"
  /// Event names longer than this are refused (the spec's names are under 40 bytes).
  public static let maxEventBytes = 256
  /// Clients (bus names) with voices at once; a new one past it is refused.
  public static let maxClients = 4096

  /// FeedbackEnded's reasons (feedbackd's FbdEventEndReason).
  enum EndReason: UInt32 {
    case natural = 0
    case expired = 1
    case explicit = 2
    case notFound = 0xFFFF_FFFF
  }

  /// What the service's threads hand the bus's thread.
  enum Outgoing {
    case ended(UInt32)
    case level(ServiceLevel)
    case expire(UInt32)
  }

  let connection: UnsafeMutableRawPointer
  let service: VocabularyService
  let log: @Sendable (ServiceNotice) -> Void
  /// The pipe that wakes the bus's thread: its read end, polled, and its write end.
  private let wakeRead: Int32
  private let wake: Int32
  private let outgoing = Mutex<[Outgoing]>([])
  /// The bus thread's own state: each client's owner number, each id's client and why it ended.
  var clients: [String: Int32] = [:]
  var ids: [UInt32: String] = [:]
  var endedBy: [UInt32: EndReason] = [:]
  /// The voice `Vibrate` plays (one at a time, as feedbackd's haptic interface; no client's).
  var vibration: UInt32 = 0

  /// Connects to the session bus and takes the name. `address`: the session bus's address as
  /// the program found it (hap: its run's `DBUS_SESSION_BUS_ADDRESS`); nil: the one libdbus
  /// finds in the process's environment.
  public init(
    service: VocabularyService, address: String? = nil, log: @escaping @Sendable (ServiceNotice) -> Void
  ) throws(FeedbackBusError) {
    var message = [CChar](repeating: 0, count: 512)
    // $HAP_LIBDBUS names another library (tests check the missing-library path with it).
    let library = ProcessEnvironment.nonEmpty("HAP_LIBDBUS", else: "libdbus-1.so.3")
    guard hap_dbus_load(library, &message, message.count) == 0 else {
      throw .libraryMissing(reason: Self.text(message))
    }
    guard let connection = hap_dbus_connect_session(address, &message, message.count) else {
      throw .noBus(reason: Self.text(message))
    }
    let answer = hap_dbus_request_name(connection, Self.name, &message, message.count)
    guard answer == 1 || answer == 4 else {
      hap_dbus_close(connection)
      if answer < 0 { throw .failed("cannot take the name \(Self.name): \(Self.text(message))") }
      throw .nameTaken
    }
    let rule = "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged'"
    guard hap_dbus_add_match(connection, rule, &message, message.count) == 0 else {
      hap_dbus_close(connection)
      throw .failed("cannot watch the bus's clients: \(Self.text(message))")
    }
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else {
      hap_dbus_close(connection)
      throw .failed("no descriptor left for the bus's thread (\(String(cString: strerror(errno))))")
    }
    for end in ends {
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
      _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
    }
    self.connection = connection
    (wakeRead, wake) = (ends[0], ends[1])
    self.service = service
    self.log = log
  }

  /// Connects, takes the name and answers on a thread of its own (`hap serve --dbus`) until
  /// the bus goes away or ``stop()``.
  @discardableResult
  public static func start(
    service: VocabularyService, address: String? = nil, log: @escaping @Sendable (ServiceNotice) -> Void
  ) throws(FeedbackBusError) -> FeedbackBus {
    let bus = try FeedbackBus(service: service, address: address, log: log)
    log(.busServing(name: name))
    let thread = SystemThread { bus.run() }
    thread.name = "hap feedback bus"
    thread.start()
    return bus
  }

  private let stopping = Atomic<Bool>(false)

  deinit {
    close(wakeRead)
    close(wake)
  }

  /// Ends the bus's thread: it gives the name up and closes the connection (a program that
  /// goes on after its service stops).
  public func stop() {
    stopping.store(true, ordering: .sequentiallyConsistent)
    var one: UInt8 = 1
    _ = write(wake, &one, 1)
  }

  /// The text a C call wrote into `buffer` (up to its first NUL).
  static func text(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Hands `item` to the bus's thread and wakes it (any thread).
  func send(_ item: Outgoing) {
    outgoing.withLock { $0.append(item) }
    // A full pipe already holds a wake-up.
    var one: UInt8 = 1
    _ = write(wake, &one, 1)
  }

  /// The bus's thread: answers calls until the bus goes away.
  public func run() {
    service.voiceEnded = { [weak self] id, _ in self?.send(.ended(id)) }
    service.levelChanged = { [weak self] level in self?.send(.level(level)) }
    var fds = [pollfd(fd: hap_dbus_fd(connection), events: Int16(POLLIN), revents: 0),
               pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
    while true {
      while let message = hap_dbus_pop(connection) {
        handle(message)
        hap_dbus_unref(message)
      }
      drainOutgoing()
      hap_dbus_flush(connection)
      if poll(&fds, 2, -1) < 0 && errno != EINTR { break }
      if fds[1].revents != 0 {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &bytes, bytes.count) > 0 {}
      }
      if stopping.load(ordering: .sequentiallyConsistent) {
        hap_dbus_close(connection)
        return
      }
      if fds[0].revents != 0 && hap_dbus_read(connection) == 0 { break }
    }
    log(.busLost)
  }

  private func drainOutgoing() {
    let items = outgoing.withLock { items in
      defer { items.removeAll() }
      return items
    }
    for item in items {
      switch item {
      case .ended(let id): ended(id)
      case .level(let level):
        _ = hap_dbus_signal_property(connection, Self.path, Self.name, "Profile", level.rawValue)
      case .expire(let id):
        guard let sender = ids[id], endedBy[id] == nil else { continue }
        endedBy[id] = .expired
        _ = service.endVoice(id, by: clients[sender] ?? 0)
      }
    }
  }

  /// Voice `id` ended: FeedbackEnded, once, if a trigger of the bus started it (a vibration
  /// has no id its client knows).
  func ended(_ id: UInt32) {
    if vibration == id { vibration = 0 }
    guard ids.removeValue(forKey: id) != nil else { return }
    let reason = endedBy.removeValue(forKey: id) ?? .natural
    _ = hap_dbus_signal_two_u32(connection, Self.path, Self.name, "FeedbackEnded", id, reason.rawValue)
  }
}
