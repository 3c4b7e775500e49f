import FoundationEssentials
import Glibc
import HapCore

/// Why the outputs of a command that writes one file per pattern cannot be planned, with what
/// they name; a sentence only at the edge.
public enum OutputPlanFailure: Error, Sendable, Equatable {
  /// A folder named as input holds no pattern.
  case noPatternsInFolder(String)
  /// `-o -` with several patterns (`folder`: a folder of them).
  case standardOutputTakesOne(folder: Bool)
  /// The output must be a folder (`folder`: a folder of patterns was named, else several
  /// patterns) and is a file; `suggested`: the folder to name instead.
  case notAFolder(output: String, folder: Bool, suggested: String)
  /// The output must be a folder and looks like a file's name.
  case looksLikeAFile(output: String, folder: Bool, suggested: String)
  /// Two patterns map to the same output.
  case sameOutput(String)
  /// A folder cannot be created: errno, or (0) a file of its name is in the way.
  case cannotCreate(folder: String, errno: Int32)
  /// An output is (or would be) a file the command reads.
  case overInput(output: String, input: ReadFile)
}

/// A file a command reads, which none of its outputs may be.
public struct ReadFile: Sendable, Equatable {
  public enum Role: Sendable, Equatable {
    /// A pattern (`noun`: how the command names its inputs: "input pattern", "input").
    case pattern(noun: String)
    /// A sound the pattern at this path plays.
    case sound(playedBy: String)
    case controlStream
    case profile
    /// A recorded signal (`hap plot --signal`).
    case signal

    /// The file `named` (its name as printed) in words: "the control stream 'c.txt'".
    public func words(_ named: String) -> String {
      switch self {
      case .pattern(let noun): "the \(noun) \(named)"
      case .sound(let pattern): "\(named), the sound '\(Format.excerpt(pattern))' plays"
      case .controlStream: "the control stream \(named)"
      case .profile: "the profile \(named)"
      case .signal: "the signal \(named)"
      }
    }
  }

  public var path: String
  public var role: Role

  public init(_ path: String, _ role: Role) {
    self.path = path
    self.role = role
  }

  /// The patterns among `paths` (standard input is no file), named `noun` in messages.
  public static func patterns(_ paths: [String], noun: String = "input pattern") -> [ReadFile] {
    paths.filter { $0 != "-" }.map { ReadFile($0, .pattern(noun: noun)) }
  }

  /// What a command reads: its patterns (named `noun`), each sound a pattern plays, found as
  /// `sounds` finds it (``SoundSearch/files(of:)``: only patterns that are regular files are read
  /// ahead), and the control stream's, the profile's and the recorded signal's files. Standard
  /// input is no file; a built-in profile's name is none.
  public static func inputs(
    patterns: [String], noun: String = "input pattern", sounds: SoundSearch, controlStream: String? = nil,
    profile: String? = nil, signal: String? = nil
  ) -> [ReadFile] {
    var files = Self.patterns(patterns, noun: noun)
    for pattern in patterns where pattern != "-" {
      files += sounds.files(of: pattern).map { ReadFile($0, .sound(playedBy: pattern)) }
    }
    if let controlStream, controlStream != "-" { files.append(ReadFile(controlStream, .controlStream)) }
    if let profile, !ActuatorProfile.builtIns.contains(where: { $0.name == profile }) {
      files.append(ReadFile(profile, .profile))
    }
    if let signal { files.append(ReadFile(signal, .signal)) }
    return files
  }
}

/// The patterns named on a command line that writes one output per pattern (`hap render`,
/// `plot`, `convert`) or reports on each (`hap info`): files as given, folders expanded as
/// `hap validate` expands them (``PatternFiles/expand(_:ignores:)``: `*.ahap`, `*.json` and
/// `*.haptic`, recursively, sorted, hidden entries skipped; a vocabulary's manifest is not a
/// pattern).
public struct PatternFolders: Sendable {
  /// The patterns, in order (`-` for standard input).
  public var paths: [String]
  /// Each pattern's output name without its extension: a file's own name, or, for a pattern
  /// found in a folder, its path inside that folder (`vocab/taps/soft.json` -> `taps/soft`),
  /// so an output folder mirrors the input folder.
  public var names: [String]
  /// Whether a folder was named (its outputs then go into an output folder).
  public var hasFolder: Bool

  /// Expands `arguments`. A folder without patterns is refused, as `hap validate` refuses it.
  public init(_ arguments: [String]) throws(OutputPlanFailure) {
    paths = []
    names = []
    hasFolder = false
    for argument in arguments {
      // `patterns/*.json` names the vocabulary's manifest too: not a pattern, left out.
      if arguments.count > 1 && PatternFiles.isManifest(argument) { continue }
      guard argument != "-", OutputPlan.isDirectory(argument) else {
        paths.append(argument)
        names.append(argument == "-" ? "stdin" : Self.stem(PathText.lastComponent(argument)))
        continue
      }
      hasFolder = true
      let prefix = argument.hasSuffix("/") ? argument : argument + "/"
      var found = 0
      for input in PatternFiles.expand([argument]) {
        let path: String
        switch input {
        // hap's own output, redirected into the folder (`hap info --format json . > i.json`).
        case .found(let found) where PatternFiles.isStandardOutput(found): continue
        // A *.json file that is not a pattern (package.json), as validate leaves it out.
        case .found(let found)
        where found.lowercased().hasSuffix(".json")
          && (try? PatternFiles.read(input)).map({ PatternFiles.isNotAPattern($0, path: found) }) == true:
          continue
        case .found(let found): path = found
        // A folder that cannot be read stays in the list: reading it says why.
        case .unreadable(let folder, _): path = folder
        default: continue
        }
        paths.append(path)
        let inside =
          path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : PathText.lastComponent(path)
        names.append(Self.stem(inside))
        found += 1
      }
      guard found > 0 else { throw .noPatternsInFolder(argument) }
    }
  }

  /// `name` without its extension.
  public static func stem(_ name: String) -> String { PathText.deletingPathExtension(name) }
}

/// Where each pattern's output goes, and the folders to create first.
public enum OutputPlan {
  /// Where each pattern goes: `output` itself for one pattern, or FOLDER/NAME`suffix` for
  /// several (or a folder of them, or when `output` ends in '/' or is a folder), and the
  /// folders to create first (`mkdir -p`) if missing. `fileExtensions` are the extensions that
  /// make a missing `output` look like a file rather than a folder. A pattern found in a
  /// subfolder of a folder named as input goes into the same subfolder of `output`.
  public static func jobs(_ inputs: PatternFolders, output: String, suffix: String, fileExtensions: Set<String>)
    throws(OutputPlanFailure) -> ([(pattern: String, output: String)], folders: [String])
  {
    let patterns = inputs.paths
    let folderMode = patterns.count > 1 || inputs.hasFolder || output.hasSuffix("/") || isDirectory(output)
    guard folderMode else { return ([(patterns[0], output)], []) }
    var folders: [String] = []
    if output == "-" { throw .standardOutputTakesOne(folder: inputs.hasFolder) }
    if !isDirectory(output) {
      try checkFolderName(output, inputs: inputs, fileExtensions: fileExtensions)
      folders.append(output)
    }
    var seen: Set<String> = []
    var jobs: [(pattern: String, output: String)] = []
    for (pattern, name) in zip(patterns, inputs.names) {
      let target = PathText.appending(output, name + suffix)
      guard seen.insert(target).inserted else { throw .sameOutput(target) }
      let parent = PathText.deletingLastComponent(target)
      if name.contains("/") && folders.last != parent { folders.append(parent) }
      jobs.append((pattern, target))
    }
    return (jobs, folders)
  }

  /// Refuses an `output` that must be a folder (several patterns, or a folder of them) but is
  /// a file, or looks like a file's name.
  static func checkFolderName(_ output: String, inputs: PatternFolders, fileExtensions: Set<String>)
    throws(OutputPlanFailure)
  {
    let stem = PathText.deletingPathExtension(output)
    let folder = stem == output ? "FOLDER" : stem
    var info = stat()
    if lstat(output, &info) == 0 { throw .notAFolder(output: output, folder: inputs.hasFolder, suggested: folder) }
    let ext = PathText.pathExtension(output).lowercased()
    if !output.hasSuffix("/") && fileExtensions.contains(ext) {
      throw .looksLikeAFile(output: output, folder: inputs.hasFolder, suggested: folder)
    }
  }

  /// Refuses an output that is, or will be, one of the files read (``same(_:_:)``), before
  /// anything is written. Standard output (`-`) is no file.
  public static func refuseOverwriting(_ outputs: [String], _ inputs: [ReadFile]) throws(OutputPlanFailure) {
    for output in outputs where output != "-" {
      if let input = inputs.first(where: { same($0.path, output) }) { throw .overInput(output: output, input: input) }
    }
  }

  /// `mkdir -p folder`.
  public static func createFolder(_ folder: String) throws(OutputPlanFailure) {
    var path = folder.hasPrefix("/") ? "/" : ""
    for component in folder.split(separator: "/") {
      path += component + "/"
      if mkdir(path, 0o777) != 0 && errno != EEXIST { throw .cannotCreate(folder: folder, errno: errno) }
    }
    guard isDirectory(folder) else { throw .cannotCreate(folder: folder, errno: 0) }
  }

  public static func isDirectory(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
  }

  /// Whether `a` and `b` are, or will be, one file: the same device and inode when both exist,
  /// else the same ``resolved(_:)`` path (so `out/` and `./out/`, or `x/../s.wav` and `s.wav`,
  /// are one even before `out/` is made).
  public static func same(_ a: String, _ b: String) -> Bool {
    sameFile(a, b) || resolved(a) == resolved(b)
  }

  /// The absolute path of the file `path` names or will name: `.` and `..` resolved, and each
  /// part that exists with its links followed (realpath(3)); the parts that do not exist yet
  /// are taken as written.
  public static func resolved(_ path: String) -> String {
    // A path that exists whole is realpath(3)'s, in one call: resolving it a part at a time from
    // the root costs a readlink per part per part (21 for a 6-deep file, against 6).
    if !path.isEmpty, let real = realpath(path, nil) {
      defer { free(real) }
      return String(cString: real)
    }
    var current = path.hasPrefix("/") ? "" : FileManager.default.currentDirectoryPath
    if current == "/" { current = "" }
    for component in path.split(separator: "/") {
      switch component {
      case ".": continue
      case "..":
        current = PathText.deletingLastComponent(current)
        if current == "/" { current = "" }
      default:
        // String + String: String + Substring is generic code, 170,000 instructions its first time.
        let candidate = current + "/" + String(component)
        var info = stat()
        if lstat(candidate, &info) == 0, let real = realpath(candidate, nil) {
          current = String(cString: real)
          free(real)
          if current == "/" { current = "" }
        } else {
          current = candidate
        }
      }
    }
    return current.isEmpty ? "/" : current
  }

  /// Whether `a` and `b` are one file (the same device and inode).
  public static func sameFile(_ a: String, _ b: String) -> Bool {
    var x = stat()
    var y = stat()
    guard stat(a, &x) == 0, stat(b, &y) == 0 else { return false }
    return x.st_dev == y.st_dev && x.st_ino == y.st_ino
  }
}
