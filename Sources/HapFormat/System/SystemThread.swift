import Glibc

/// A thread of its own running one closure (what Foundation's `Thread` was used for: a name,
/// a stack size, `start()`), over `pthread_create`, detached.
package final class SystemThread: @unchecked Sendable {
  /// The name the thread gives itself (`pthread_setname_np`: Linux keeps 15 bytes at most, and
  /// a longer name is refused, leaving the process's, as Foundation's `Thread` left it).
  package var name: String?
  /// Bytes of stack; 0: the system's default.
  package var stackSize = 0
  private let body: @Sendable () -> Void

  package init(block: @escaping @Sendable () -> Void) { body = block }
  package convenience init(_ block: @escaping @Sendable () -> Void) { self.init(block: block) }

  /// Starts the thread (at most once); a thread that cannot be made is a fatal error.
  package func start() {
    let status = startIfPossible()
    precondition(status == 0, "cannot start a thread: \(String(cString: strerror(status)))")
  }

  /// Starts the thread (at most once); pthread_create's error number when it could not (the
  /// closure then never runs), else 0.
  package func startIfPossible() -> Int32 {
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    if stackSize > 0 { pthread_attr_setstacksize(&attributes, stackSize) }
    let context = Unmanaged.passRetained(self).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(&thread, &attributes, { context in
      let started = Unmanaged<SystemThread>.fromOpaque(context!).takeRetainedValue()
      if let name = started.name, let setName { _ = setName(pthread_self(), name) }
      started.body()
      return nil
    }, context)
    if status != 0 { Unmanaged<SystemThread>.fromOpaque(context).release() }
    return status
  }
}

/// glibc's `pthread_setname_np`, which its Swift module leaves out (a GNU extension), looked up
/// once.
private let setName: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32)? = dlsym(nil, "pthread_setname_np").map {
  unsafeBitCast($0, to: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32).self)
}
