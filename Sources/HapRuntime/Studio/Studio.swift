import FoundationEssentials
import Glibc
import HapCore

/// What `hap studio` is started with.
public struct StudioSettings: Sendable {
  /// The file or folder opened.
  public var target: String
  /// The device the studio plays on (`-D`'s words, as `hap play` reads them).
  public var device: String
  /// The profile the plot previews at first (`--profile`: a built-in name or an ACF file).
  public var profile: String?
  public var reading: PatternReading
  public var environment: [String: String]
  /// hap's version, shown by the page.
  public var version = "unknown"
  /// The `hap` command, run for exports (`hap convert`, `hap render`); nil: no exports.
  public var executable: String?

  public init(
    target: String, device: String, profile: String? = nil, reading: PatternReading = PatternReading(),
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) {
    self.target = target
    self.device = device
    self.profile = profile
    self.reading = reading
    self.environment = environment
  }
}

/// `hap studio`'s server side (docs/studio.md): the open documents, the API that reads and
/// edits them, playback on one engine, and the events the pages are sent. Independent of
/// HTTP: ``respond(to:)`` takes a request and gives the answer, so the whole API is tested in
/// process; ``StudioServer`` puts it on the network.
public final class Studio: @unchecked Sendable {
  public let settings: StudioSettings
  /// The real path of the folder whose files the studio may open.
  public let root: String
  /// The file opened (its name under ``root``), nil for a folder.
  public let file: String?
  public let events = StudioEvents()
  let playback: StudioPlayback
  let waveforms: StudioWaveforms
  let profiles: StudioProfiles
  private let lock = Lock()
  private var documents: [String: StudioDocument] = [:]
  private var editTimes: [Double] = []
  private var watcher: SystemThread?
  private var stopping = false
  private var folderListing: [String] = []

  /// The most edits (edit, undo, redo, fix) accepted per second.
  public static let editsPerSecond = 100
  /// The largest request body read.
  public static let maxBody = 1 << 20

  public init(settings: StudioSettings) throws(StudioFailure) {
    self.settings = settings
    guard let real = StudioPaths.real(settings.target) else {
      throw .notFound("'\(settings.target)' does not exist")
    }
    var info = stat()
    _ = stat(real, &info)
    if info.st_mode & S_IFMT == S_IFDIR {
      root = real
      file = nil
    } else if info.st_mode & S_IFMT == S_IFREG {
      root = PathText.deletingLastComponent(real)
      file = PathText.lastComponent(real)
      guard StudioPaths.patternExtensions.contains(PathText.pathExtension(real).lowercased()) else {
        throw .badRequest("'\(settings.target)' is not a pattern file (.ahap or .json)")
      }
    } else {
      throw .badRequest("'\(settings.target)' is neither a pattern file nor a folder")
    }
    waveforms = StudioWaveforms(root: root, search: settings.reading.sounds)
    profiles = try StudioProfiles(initial: settings.profile)
    playback = StudioPlayback(device: settings.device, environment: settings.environment, events: events)
    if let file { _ = try document(named: file) }
  }

  /// Starts the device and the thread that notices files changed by other programs.
  public func start() {
    playback.open()
    startWatching()
  }

  /// Starts the thread that notices files changed by other programs (``start()`` does).
  public func startWatching() {
    guard watcher == nil else { return }
    let thread = SystemThread { [weak self] in self?.watch() }
    thread.name = "hap studio watcher"
    watcher = thread
    thread.start()
  }

  /// Why the device does not play (it is tried again at each play), or nil.
  public var deviceProblem: String? { playback.problemNow }

  /// Ends every event stream, stops playback and closes the device.
  public func stop() {
    lock.lock()
    stopping = true
    lock.unlock()
    events.close()
    playback.close()
  }

  // MARK: Documents

  /// The open document `name` names (opened now when it is not yet).
  func document(named name: String?) throws(StudioFailure) -> StudioDocument {
    let found = try StudioPaths.pattern(name, root: root)
    lock.lock()
    defer { lock.unlock() }
    if let open = documents[found.path] { return open }
    let opened = try StudioDocument(name: found.name, path: found.path, reading: settings.reading)
    guard !PatternFiles.isNotAPattern(opened.bytes, path: found.path) else {
      throw .forbidden("\(Format.excerpt(found.name)) is JSON without a \"Pattern\": the studio opens pattern files only")
    }
    documents[found.path] = opened
    return opened
  }

  /// Runs `body` with the studio's lock held (documents are not thread-safe on their own).
  func locked<T>(_ body: () throws(StudioFailure) -> T) throws(StudioFailure) -> T {
    lock.lock()
    defer { lock.unlock() }
    return try body()
  }

  /// Counts an edit against ``editsPerSecond``.
  func admitEdit() throws(StudioFailure) {
    let now = ProcessInfo.processInfo.systemUptime
    lock.lock()
    defer { lock.unlock() }
    editTimes.removeAll { now - $0 >= 1 }
    guard editTimes.count < Self.editsPerSecond else {
      throw .tooMany("more than \(Self.editsPerSecond) edits in a second; slow down")
    }
    editTimes.append(now)
  }

  // MARK: Watching

  /// Every 20 ms: each open document read again when another program changed it (a
  /// `document` event), and in a folder its list of patterns (a `folder` event).
  private func watch() {
    var tick = 0
    while true {
      lock.lock()
      if stopping {
        lock.unlock()
        return
      }
      let open = Array(documents.values)
      var changed: [StudioDocument] = []
      for document in open where document.reloadIfChanged() { changed.append(document) }
      lock.unlock()
      for document in changed { announce(document) }
      if file == nil, tick % 25 == 0 { watchFolder() }
      tick += 1
      usleep(20_000)
    }
  }

  private func watchFolder() {
    let listing = PatternFiles.vocabularyPaths(in: root)
    lock.lock()
    let changed = listing != folderListing
    folderListing = listing
    lock.unlock()
    if changed { events.send("folder", "{}") }
  }

  /// Tells the pages that `document` has a new revision.
  func announce(_ document: StudioDocument) {
    events.send(
      "document",
      JSONOutput.object([("path", JSONOutput.string(document.name)), ("revision", String(document.revision))]))
  }
}
