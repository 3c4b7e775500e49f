import FoundationEssentials
import Glibc
import HapCore

/// What a running service has to say that nobody asked (its log): typed values with their
/// causes, handed to the service's `log`; `hap serve` turns each into one line of standard
/// error. HapKit prints nothing.
public enum ServiceNotice: Sendable {
  // MARK: Loading the vocabulary

  /// The vocabulary folder is not there (`folder` says which, and why that one).
  case vocabularyMissing(VocabularyFolder)
  /// `vocabulary.json` cannot be read; the default settings are used.
  case manifestUnreadable(path: String, PatternFiles.ReadError)
  /// An error in `vocabulary.json`.
  case manifestError(path: String, Diagnostic)
  /// `vocabulary.json` has errors; the default settings are used.
  case manifestUnusable(path: String)
  /// A pattern file left out: it cannot be read (`reason`), or its first error.
  case patternLeftOut(file: String, reason: String, error: Diagnostic?)
  /// A pattern file loaded whose event no client can fire by name (`why`: ``ServiceRequest/unfireableReason(_:)``).
  /// `leftOut`: the project's `.haprc.json` makes `vocabulary-name-unfireable` an error.
  case eventUnfireable(file: String, why: String, leftOut: Bool)
  /// The project's `.haprc.json` cannot be used: the vocabulary loads at the rules' own levels.
  case settingsUnusable(path: String, why: String)
  /// An entry of the folder passed over (``PatternFiles/vocabularyEntries(in:)``), and why.
  case fileSkipped(file: String, why: String)
  /// A pattern's warnings and notes at the project's levels (not under `hap serve -q`).
  case patternWarnings(file: String, [Diagnostic])
  /// No pattern of the folder is valid: every fire is refused until one is added.
  case noEvents(folder: String)

  // MARK: Events

  /// An event's sounds cannot be had (why); its haptics play.
  case soundLeftOut(event: String, why: String)
  /// An event whose render does not fit the memory budget is left out.
  case overBudget(event: String, bytes: Int, budget: Int)
  /// `--verbose`: a request the service acted on or refused (``VocabularyService/logsRequests``):
  /// who asked, what (the socket's line, or a D-Bus call in words), and the answer.
  case request(by: Requester, asked: String, answer: String)
  /// `--verbose`: the level changed, and who changed it.
  case levelChanged(from: ServiceLevel, to: ServiceLevel, by: Requester)
  /// `--verbose`: a numbered voice of `event` ended: a loop, whatever ended it, or any voice
  /// that did not play to its end or by a stop (stolen, refused, unplayable, its device closed).
  /// `owner`: the connection (or D-Bus client) that started it (0: none, a vibration).
  case voiceEnded(id: UInt32, event: String, loops: Bool, owner: Int32, why: VoiceEnd.Reason)
  /// `--verbose`: `count` lines about `by`'s requests were not logged, past its
  /// ``RequestLog/perSecond`` (a client must not flood the log).
  case notLogged(by: Requester, count: Int)
  /// The session bus connection ended: feedbackd's API is no longer answered.
  case busLost
  /// `hap serve --dbus` answers feedbackd's API.
  case busServing(name: String)
  /// feedbackd's theme at `path` serves the vocabulary's missing `events`; `notes`: what it
  /// leaves out.
  case themeLoaded(path: String, events: [String], notes: [String])
  /// feedbackd's default theme is not there (said once; the vocabulary serves alone).
  case themeMissing(String)
  /// The theme `--feedback-theme` names cannot be had: the service does not start.
  case themeFailed(String)
  /// The voices of a closed connection could not be stopped (the device's thread is stalled).
  case ownerNotStopped(thread: String)
  /// A connection (of process `pid`; 0: not known) was closed because its client did not read
  /// what the service wrote it (docs/service.md, "Limits").
  case clientNotReading(pid: pid_t, why: NotReading)

  /// Why a client that does not read was closed.
  public enum NotReading: Sendable {
    /// The lines waiting for it passed this many bytes.
    case overBudget(Int)
    /// Nothing it was written was taken for the idle time-out.
    case stalled(seconds: Double)
  }

  // MARK: The device

  /// The device opened (`--verbose`): where it records, on the simulated exciter.
  case deviceOpened(device: String, capture: String?, soundCapture: String?)
  /// The device closed (`--verbose`), with its thread's figures in words.
  case deviceClosed(device: String, thread: String)
  /// The device's thread ended on a failure.
  case deviceFailed(String)
  /// The default sound device did not open: the events' sounds are not played.
  case soundNotPlayed(why: String)

  // MARK: The config file and reloads

  /// The config file cannot be used; `atStart`: the service starts with the defaults, else it
  /// keeps the last good settings.
  case configUnusable(file: String, why: String, atStart: Bool)
  case configWarning(file: String, String)
  /// A profile file's warnings (`file`: the profile as named), each time it is loaded.
  case profileWarnings(file: String, [Diagnostic])
  /// The config file's profile cannot be loaded (at start: the service starts without it).
  case profileUnusable(ProfileFailure)
  /// The config file's profile cannot be loaded; the last good device settings are kept.
  case configProfileUnusable(ProfileFailure)
  case configReread(file: String)
  /// A change of the off switch (`what`: mute, unmute, level) was not saved into the config file.
  case switchNotSaved(what: String, failure: String)
  /// The vocabulary could not be loaded again; the one loaded before is kept.
  case vocabularyKept
  /// The vocabulary was loaded again (`reason`: SIGHUP, a change of its folder).
  case vocabularyLoaded(reason: String, events: Int)
  /// The vocabulary folder went away; SIGHUP loads it again.
  case vocabularyFolderGone(folder: String)
  /// Changes cannot be watched (`failure`), so some need a restart or SIGHUP (`what`).
  case notWatched(failure: String, what: WatchLoss)

  /// What a watch that could not be set up costs.
  public enum WatchLoss: Sendable {
    /// No file's change is seen: they need a restart.
    case files
    /// The config file's changes need a restart.
    case config
    /// The vocabulary folder's changes need SIGHUP.
    case vocabulary
  }
}

/// Who asked the service for something, as its `--verbose` log names them. The names a client
/// gives (its program's name, a D-Bus app id) are its own: the log escapes and shortens them.
public enum Requester: Sendable, Equatable {
  /// A socket connection: its owner number (``VocabularyService/connected(pid:)``), its process
  /// (0: not known) and that process's name (`/proc/PID/comm`; nil: not known).
  case connection(owner: Int32, pid: pid_t, program: String?)
  /// A D-Bus client: its unique bus name, its owner number once it has one (0: none), and the
  /// app id its call gave (nil: the call has none).
  case bus(sender: String, owner: Int32, app: String?)
  /// The config file (a level or mute written into it).
  case configFile

  /// The key its log budget is kept under (nil: never limited).
  var budgetKey: String? {
    switch self {
    case .connection(let owner, _, _): "#\(owner)"
    case .bus(let sender, _, _): sender
    case .configFile: nil
    }
  }
}
