import FoundationEssentials
import Glibc
import HapALSA
import HapCore

/// The service's reloads (``ServiceReloader``: the config file, SIGHUP, the vocabulary folder):
/// the switch, a new vocabulary, new device settings, and the loops kept across them.
extension VocabularyService {
  // MARK: Reloading (ServiceReloader: the config file, SIGHUP, the vocabulary folder)

  /// The config file's level and mute switch, at once (a mute fades out what sounds).
  public func setSwitch(level: ServiceLevel, muted: Bool) {
    lock.lock()
    changeLevel(to: level, by: .configFile)
    if muted && !policy.muted { stopEverything(why: "the service was muted (its config file)") }
    policy.muted = muted
    unlockSaying()
  }

  /// A vocabulary loaded again (its folder changed, SIGHUP), and with `theme` (SIGHUP) the
  /// events it lacks read again (`.some(nil)`: none now; nil: the ones read before).
  public func reload(vocabulary: Vocabulary, theme: Vocabulary?? = nil) {
    lock.lock()
    let settings = self.settings
    if let theme { fallback = theme }
    let merged = Self.merged(vocabulary, fallback)
    lock.unlock()
    reload(merged, settings: settings)
  }

  /// The config file's device, profile or gain changed (under the command line's).
  public func reload(device: DeviceSettings, profile: ActuatorProfile) {
    lock.lock()
    var settings = self.settings
    lock.unlock()
    settings.device = device
    settings.profile = profile
    reload(nil, settings: settings)
  }

  /// Swaps in `vocabulary` (nil: the same one) and `settings`. Makes every event again
  /// (outside the lock) when the vocabulary, the profile, the gain or the budget changed; then,
  /// under the lock, closes the device (what sounds fades out), so the real-time thread never
  /// sees its events go away, and swaps the new ones in. The loops of events the new vocabulary
  /// holds unchanged start again (the device opens again for them); the clients of the others
  /// are told. Otherwise the device opens again at the next fire (at once with `--keep-open`).
  /// A new device name alone closes the device the same way, without rendering.
  func reload(_ newVocabulary: Vocabulary?, settings newSettings: ServiceSettings) {
    lock.lock()
    let vocabulary = newVocabulary ?? self.vocabulary
    let remake = newVocabulary != nil || output.remakes(from: settings, to: newSettings)
    let reopen = remake || newSettings.device.device != settings.device.device
    if !reopen { settings = newSettings }
    let rate = output.rate
    lock.unlock()
    guard reopen else { return }
    let fresh = remake ? output.prepare(vocabulary, newSettings, rate: rate) : nil
    lock.lock()
    let wasOpen = output.isOpen
    closeDevice(keepingLoops: true)
    if let fresh {
      self.vocabulary = vocabulary
      (names, index) = Self.names(vocabulary)
      output.install(fresh)
      policy.forgetPlays()
    }
    settings = newSettings
    if newVocabulary != nil { loaded = (ServiceStatus.timestamp(Date()), loaded.count + 1) }
    untold += restartLoops()
    if wasOpen && settings.idleClose == nil && !shuttingDown { _ = openDevice() }
    collectEnds()
    lock.broadcast()
    unlockSaying()
  }

  /// After a reload closed the device (lock held): each loop of an event the vocabulary still
  /// holds unchanged starts again, from its start; the others are forgotten. Returns the lines
  /// that tell their clients (`ended NAME: why`).
  func restartLoops() -> [(Int32, String)] {
    let previous = loops
    loops = []
    // The closed mixer's reports of the loops about to start again (same numbers) are not ends.
    collectEnds(sparing: Set(previous.map(\.id)))
    for loop in previous { _ = live.ended(loop.id) }
    var notices: [(Int32, String)] = []
    for loop in previous {
      let name = loop.event.name
      var why: String?
      if let (event, k, _) = played(name, at: loop.form == nil ? .full : .quiet) {
        if event != loop.event {
          why = "changed by a reload"
        } else if output.refused[name] != nil {
          why = "left out by the memory budget at a reload"
        } else if shuttingDown {
          why = "the service is stopping"
        } else if let failure = openDevice() {
          why = "the device could not be opened again after a reload (\(failure.message.hasSuffix(".") ? String(failure.message.dropLast()) : failure.message))"
        } else if case .failure(let error) = start(loop, k, loops: true, bound: true) {
          why = error.message
        } else {
          loops.append(loop)
        }
      } else {
        why = "removed by a reload"
      }
      if let why {
        notices.append((loop.owner, ServiceReply.oneLine("ended \(Format.excerpt(name)): \(why)")))
        endsToSay.append((loop.id, .closed))
      }
    }
    return notices
  }
}
