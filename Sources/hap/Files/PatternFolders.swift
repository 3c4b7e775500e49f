import Foundation
import HapCore
import HapKit

/// The patterns named on a command line that writes one output per pattern (`hap render`,
/// `plot`, `convert`) or reports on each (`hap info`): files as given, folders expanded as
/// `hap validate` expands them (``PatternFiles/expand(_:)``: `*.ahap`, `*.json` and `*.haptic`,
/// recursively, sorted, hidden entries skipped; a vocabulary's manifest is not a pattern).
struct PatternFolders {
  /// The patterns, in order (`-` for standard input).
  var paths: [String]
  /// Each pattern's output name without its extension: a file's own name, or, for a pattern
  /// found in a folder, its path inside that folder (`vocab/taps/soft.json` -> `taps/soft`),
  /// so an output folder mirrors the input folder.
  var names: [String]
  /// Whether a folder was named (its outputs then go into an output folder).
  var hasFolder: Bool

  /// Expands `arguments`. A folder without patterns is refused, as `hap validate` refuses it.
  init(_ arguments: [String]) throws(UsageError) {
    paths = []
    names = []
    hasFolder = false
    for argument in arguments {
      guard argument != "-", RenderCommand.isDirectory(argument) else {
        paths.append(argument)
        names.append(argument == "-" ? "stdin" : PatternFolders.stem((argument as NSString).lastPathComponent))
        continue
      }
      hasFolder = true
      let prefix = argument.hasSuffix("/") ? argument : argument + "/"
      var found = 0
      for input in PatternFiles.expand([argument]) {
        // A folder that cannot be read stays in the list: reading it says why.
        let path: String
        switch input {
        case .found(let found): path = found
        // A folder that cannot be read stays in the list: reading it says why.
        case .unreadable(let folder, _): path = folder
        default: continue
        }
        paths.append(path)
        let inside =
          path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : (path as NSString).lastPathComponent
        names.append(PatternFolders.stem(inside))
        found += 1
      }
      guard found > 0 else { throw .noPatternsInFolder(argument) }
    }
  }

  /// `name` without its extension.
  static func stem(_ name: String) -> String { (name as NSString).deletingPathExtension }
}
