import FoundationEssentials
import Glibc
import HapCore

/// A vocabulary's notices as the studio's folder list shows them (one line each; those that
/// say nothing about the folder's files are left out).
enum StudioNotices {
  static func describe(_ notice: ServiceNotice) -> String {
    switch notice {
    case .manifestError(let path, let d):
      "\(name(path)):\(d.line):\(d.column): \(d.severity.rawValue): \(d.message) [\(d.rule)]"
    case .manifestUnreadable(let path, let error): "\(name(path)): cannot be read: \(error.message)"
    case .manifestUnusable(let path): "\(name(path)) cannot be used; every event takes the default settings"
    case .patternLeftOut(let file, let reason, _): "\(name(file)): left out of the vocabulary: \(reason)"
    case .eventUnfireable(let file, let why, _): "\(name(file)): \(why)"
    case .fileSkipped(let file, let why): "\(name(file)): \(why)"
    case .settingsUnusable(let path, let why): "\(name(path)): \(why)"
    case .noEvents: "the folder has no pattern a client can fire"
    default: ""
    }
  }

  private static func name(_ path: String) -> String { PathText.lastComponent(path) }
}
