/// How serious a finding is.
///
/// - ``error``: Core Haptics would refuse to load or play the pattern.
/// - ``warning``: Core Haptics accepts it, but it is probably not what the author meant,
///   or it will not carry to iOS or to other players.
/// - ``note``: information that needs no action.
public enum Severity: String, Sendable, Equatable, Hashable, Comparable, CaseIterable {
  case note
  case warning
  case error

  private var rank: Int {
    switch self {
    case .note: 0
    case .warning: 1
    case .error: 2
    }
  }

  public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
}
