import FoundationEssentials
import Glibc
import HapCore

/// What the server tells the pages: Server-Sent Events, one subscription per open stream
/// (`GET /api/events`). At most ``limit`` streams at once; each holds at most ``backlog``
/// messages not yet sent (a page that reads none of them is dropped; `EventSource` reconnects).
public final class StudioEvents: @unchecked Sendable {
  public static let limit = 16
  public static let backlog = 512
  /// A comment line is sent when nothing else was for this long, so that proxies and the
  /// page notice a dead stream.
  public static let heartbeat = 15.0

  private let lock = Lock()
  private var subscriptions: [ObjectIdentifier: Subscription] = [:]
  private var nextID = 1
  private var closed = false

  public init() {}

  /// A new stream, or nil when ``limit`` are open (or the server stops).
  public func subscribe() -> Subscription? {
    lock.lock()
    defer { lock.unlock() }
    guard !closed, subscriptions.count < Self.limit else { return nil }
    let subscription = Subscription(owner: self)
    subscriptions[ObjectIdentifier(subscription)] = subscription
    subscription.enqueue("retry: 1000\n\n")
    return subscription
  }

  /// Sends `event` with `data` (one line of JSON) to every stream.
  public func send(_ event: String, _ data: String) {
    lock.lock()
    let id = nextID
    nextID += 1
    let open = Array(subscriptions.values)
    lock.unlock()
    let text = "id: \(id)\nevent: \(event)\ndata: \(data)\n\n"
    for subscription in open where !subscription.enqueue(text) { remove(subscription) }
  }

  /// How many streams are open.
  public var count: Int {
    lock.lock()
    defer { lock.unlock() }
    return subscriptions.count
  }

  /// Ends every stream (their readers return at once) and refuses new ones.
  public func close() {
    lock.lock()
    closed = true
    let open = Array(subscriptions.values)
    subscriptions.removeAll()
    lock.unlock()
    for subscription in open { subscription.end() }
  }

  func remove(_ subscription: Subscription) {
    lock.lock()
    subscriptions[ObjectIdentifier(subscription)] = nil
    lock.unlock()
    subscription.end()
  }

  /// One stream: the text queued for it, read by the server's connection thread.
  public final class Subscription: @unchecked Sendable {
    private let condition = Condition()
    private var queued: [UInt8] = []
    private var messages = 0
    private var ended = false
    private weak var owner: StudioEvents?

    init(owner: StudioEvents) { self.owner = owner }

    /// Queues `text`; false when the stream has ended or holds too much already.
    @discardableResult
    func enqueue(_ text: String) -> Bool {
      condition.lock()
      defer { condition.unlock() }
      guard !ended, messages < StudioEvents.backlog else { return false }
      queued += Array(text.utf8)
      messages += 1
      condition.signal()
      return true
    }

    func end() {
      condition.lock()
      ended = true
      condition.broadcast()
      condition.unlock()
    }

    /// The next bytes, at most `capacity`: what is queued, a heartbeat comment after
    /// ``StudioEvents/heartbeat`` seconds of nothing, or nil once the stream has ended.
    public func next(capacity: Int) -> [UInt8]? {
      condition.lock()
      defer { condition.unlock() }
      let deadline = Date(timeIntervalSinceNow: StudioEvents.heartbeat)
      while queued.isEmpty && !ended {
        if !condition.wait(until: deadline) { return Array(": heartbeat\n\n".utf8) }
      }
      if queued.isEmpty { return nil }
      let count = min(capacity, queued.count)
      let chunk = Array(queued[..<count])
      queued.removeFirst(count)
      if queued.isEmpty { messages = 0 }
      return chunk
    }

    /// Called when the connection closes, however it closes.
    public func finished() {
      owner?.remove(self)
      end()
    }
  }
}
