import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

/// `hap serve`'s log lines: each ``ServiceNotice`` and the device check in words.
enum ServiceNotices {
  /// The lines of `notice`; none for what only `--verbose` says, without it.
  static func lines(_ notice: ServiceNotice, verbose: Bool) -> [String] {
    switch notice {
    case .deviceOpened, .deviceClosed: verbose ? [line(notice)] : []
    case .request, .levelChanged, .voiceEnded, .notLogged: verbose ? [requestLine(notice)] : []
    case .themeLoaded(_, _, let notes): [line(notice)] + notes.map { "hap: theme: \(ServiceReply.oneLine($0))" }
    case .profileUnusable(let failure): PatternLoading.describe(failure, style: Style(enabled: false))
    case .profileWarnings(let file, let warnings):
      warnings.map { DiagnosticPrinter.text($0, file: file, style: Style(enabled: false)) }
    case .patternWarnings(let file, let warnings):
      warnings.map { DiagnosticPrinter.text($0, file: file, style: Style(enabled: false)) }
    case .configProfileUnusable(let failure):
      PatternLoading.describe(failure, style: Style(enabled: false)) + [line(notice)]
    default: [line(notice)]
    }
  }

  /// One notice in words.
  static func line(_ notice: ServiceNotice) -> String {
    switch notice {
    case .vocabularyMissing(let folder): "hap: \(folder.missing)"
    case .manifestUnreadable(let path, let error):
      "hap: \(Format.excerpt(path)): \(error.message); using the default settings"
    case .manifestError(let path, let diagnostic):
      "hap: \(Format.excerpt(path)): \(diagnostic.message) [\(diagnostic.rule)]"
    case .manifestUnusable(let path): "hap: \(Format.excerpt(path)) cannot be read; using the default settings"
    case .patternLeftOut(let file, let reason, let error):
      "hap: \(Format.excerpt(file)) left out: \(error.map { "\($0.message) [\($0.rule)]" } ?? reason)"
    case .noEvents(let folder):
      "hap: warning: the vocabulary '\(Format.excerpt(folder))' has no events (no valid *.ahap, *.json or *.haptic file in it); every fire is refused until one is added"
    case .eventUnfireable(let file, let why, let out):
      "hap: \(out ? "" : "warning: ")\(Format.excerpt(file)) \(out ? "left out:" : "loads, but") no client can fire its event by name: \(why)\(out ? " [vocabulary-name-unfireable]" : "; rename the file")"
    case .settingsUnusable(let path, let why): "hap: warning: \(path): \(why); the vocabulary loads without it"
    case .fileSkipped(let file, let why): "hap: warning: \(Format.excerpt(file)) is not served: \(why)"
    default: deviceLine(notice) ?? reloadLine(notice)
    }
  }

  /// The notices of events and devices.
  private static func deviceLine(_ notice: ServiceNotice) -> String? {
    switch notice {
    case .soundLeftOut(let event, let why):
      "hap: \(ServiceReply.oneLine(Format.excerpt(event))): its sound is left out (\(why)); its haptics play"
    case .overBudget(let event, let bytes, let budget):
      "hap: \(ServiceReply.oneLine(Format.excerpt(event))) left out: its render needs \(VocabularyService.megabytes(bytes)), more than the \(VocabularyService.megabytes(budget)) memory budget leaves (--memory-budget); shorten the pattern or raise the budget"
    case .busLost: "hap: the session bus went away; feedbackd's API is no longer answered (the socket still is)"
    case .busServing(let name): "hap: answering feedbackd's D-Bus API as \(name) on the session bus"
    case .themeLoaded(let path, let events, _):
      "hap: feedbackd's theme '\(path)' serves \(events.count) events the vocabulary lacks"
    case .themeMissing(let why): "hap: \(why); the vocabulary serves alone"
    case .themeFailed(let why): "hap: --feedback-theme: \(why)"
    case .ownerNotStopped(let thread): "hap: could not stop a closed connection's events (the \(thread) is stalled)"
    case .clientNotReading(let pid, let why):
      "hap: closed a connection\(pid > 0 ? " of process \(pid)" : "") that does not read its replies: \(notReading(why))"
    case .deviceOpened(let device, let capture, let soundCapture):
      "hap: device '\(device)' opened\(capture.map { ", recording to \($0)" } ?? "")\(soundCapture.map { ", its sound to \($0)" } ?? "")"
    case .deviceClosed(let device, let thread): "hap: device '\(device)' closed (\(thread))"
    case .deviceFailed(let failure): "hap: \(failure)"
    case .soundNotPlayed(let why):
      "hap: the pattern's sound is not played (\(why)); the haptics play ('--audio-device NAME' names a device for the sound, '--no-audio' leaves it out)"
    default: nil
    }
  }

  /// `--verbose`'s lines of requests, level changes and voices' ends. What a client wrote (its
  /// request, its program's name, its app id) is shortened and its control characters escaped.
  static func requestLine(_ notice: ServiceNotice) -> String {
    switch notice {
    case .request(let by, let asked, let answer):
      "hap: \(who(by)) '\(client(asked))' -> \(client(answer, limit: 400))"
    case .levelChanged(let from, let to, let by): "hap: level \(from.rawValue) -> \(to.rawValue), by \(who(by))"
    case .voiceEnded(let id, let event, let loops, let owner, let why):
      "hap: voice \(id) (\(loops ? "loop of " : "")\(client(event))\(owner > 0 ? ", client \(owner)" : "")) ended: \(ended(why))"
    case .notLogged(let by, let count):
      "hap: \(who(by)): \(count) more line\(count == 1 ? "" : "s") not logged (over \(VocabularyService.requestsLoggedPerSecond) a second)"
    default: line(notice)
    }
  }

  /// Who asked, in words: `client 3 (pid 4242, python3)`, `D-Bus :1.42 (client 5, app org.example.App)`.
  static func who(_ requester: Requester) -> String {
    switch requester {
    case .connection(let owner, let pid, let program):
      return "client \(owner)\(pid > 0 ? " (pid \(pid)\(program.map { ", \(client($0, limit: 32))" } ?? ""))" : "")"
    case .bus(let sender, let owner, let app):
      let details = [owner > 0 ? "client \(owner)" : nil, app.map { "app \(client($0))" }].compactMap { $0 }
      return "D-Bus \(client(sender, limit: 64))" + (details.isEmpty ? "" : " (\(details.joined(separator: ", ")))")
    case .configFile: return "the config file"
    }
  }

  /// A client's text: at most `limit` characters, its control characters escaped.
  static func client(_ text: String, limit: Int = 80) -> String { ServiceReply.oneLine(Format.excerpt(text, limit: limit)) }

  /// Why a voice ended, in words.
  static func ended(_ why: VoiceEnd.Reason) -> String {
    switch why {
    case .played: "played to its end"
    case .stopped: "stopped"
    case .stolen: "a newer voice took its place (every voice was sounding)"
    case .refused: "it never started (every voice was sounding, each of a higher priority)"
    case .unplayable: "it could not be played"
    case .closed: "the device was closed"
    }
  }

  /// `hap serve --verbose`'s time at the start of each line: the local time of day to the
  /// millisecond (`12:03:04.512`), which a developer reads beside their app's log and the journal's.
  static func timestamp() -> String {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    var seconds = now.tv_sec
    var parts = tm()
    localtime_r(&seconds, &parts)
    let milliseconds = Int(now.tv_nsec / 1_000_000)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let padded = milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
    return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(padded)"
  }

  /// Why a client that does not read was closed, in words.
  private static func notReading(_ why: ServiceNotice.NotReading) -> String {
    switch why {
    case .overBudget(let bytes): "more than \(bytes >> 10) KiB waited for it"
    case .stalled(let seconds): "it took nothing for \(Format.seconds(seconds)) (--client-timeout)"
    }
  }

  /// The notices of the config file and reloads.
  private static func reloadLine(_ notice: ServiceNotice) -> String {
    switch notice {
    case .configUnusable(let file, let why, let atStart):
      "hap: the config file '\(file)' cannot be used (\(why)); \(atStart ? "starting with the defaults" : "keeping the last good settings")"
    case .configWarning(let file, let warning): "hap: warning: '\(file)': \(warning)"
    case .configProfileUnusable:
      "hap: the config file's profile cannot be loaded; keeping the last good device settings"
    case .configReread(let file): "hap: the config file '\(file)' was read again"
    case .switchNotSaved(let what, let failure): "hap: the \(what) was not saved: \(failure)"
    case .vocabularyKept: "hap: keeping the vocabulary loaded before"
    case .vocabularyLoaded(let reason, let events): "hap: \(reason): \(events) event\(events == 1 ? "" : "s") loaded"
    case .vocabularyFolderGone(let folder):
      "hap: the vocabulary folder '\(Format.excerpt(folder))' went away; SIGHUP loads it again"
    case .notWatched(let failure, .files): "hap: \(failure); changes to the files need a restart"
    case .notWatched(let failure, .config): "hap: \(failure); changes to the config file need a restart"
    case .notWatched(let failure, .vocabulary): "hap: \(failure); SIGHUP reloads it"
    default: "hap: \(notice)"
    }
  }

  /// The log's line for `count` lines it dropped.
  static func dropped(_ count: Int) -> String {
    "hap: \(count) log line\(count == 1 ? " was" : "s were") dropped (standard error was not read)"
  }

  /// The device check at start, in words.
  static func line(_ check: DeviceCheck) -> String {
    switch check {
    case .unavailable(let device, let why):
      "hap: device '\(device)' not available (\(why.hasSuffix(".") ? String(why.dropLast()) : why)); fires will try again"
    case .sound(let device, let c, let soundDevice, let onChannels):
      "hap: device '\(device)': \(c.rate) Hz \(c.format.rawValue), \(c.channels) channel\(c.channels == 1 ? "" : "s"), period \(c.periodFrames) frames"
        + (soundDevice.map { "; sound on '\($0)'" } ?? (onChannels ? "; sound on its audio channels" : ""))
    case .motor(let path):
      "hap: device 'evdev:\(path)': a rumble motor; intensity over time only (no carrier frequency, sharpness as the balance of its motors)"
    }
  }
}
