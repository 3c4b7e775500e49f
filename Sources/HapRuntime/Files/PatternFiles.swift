import FoundationEssentials
import Glibc
import HapCore

/// Finding and reading pattern files: the command line's side of the file system.
public enum PatternFiles {
  /// The largest pattern file hap reads: 128 MiB. A real AHAP file is a few kilobytes; the
  /// limit keeps a mistaken argument (a video, a disk image) from taking the machine's memory.
  public static let sizeLimit = 128 * 1024 * 1024

  /// Extensions picked up when walking a directory (case-insensitive).
  public static let patternExtensions: Set<String> = ["ahap", "json", "haptic"]
  /// Extensions of a vocabulary's pattern files: AHAP, and `.haptic` clips (as they play).
  public static let vocabularyExtensions: Set<String> = ["ahap", "json", "haptic"]

  /// One input named on the command line, after expanding directories.
  /// Whether `path` is the regular file standard output writes to (the same device and
  /// inode), so that hap never reads its own report as an input.
  /// Standard output is looked at once; `path` only when standard output is a regular file.
  public static func isStandardOutput(_ path: String) -> Bool {
    guard let output = standardOutputFile(StandardStreams.output) else { return false }
    var file = stat()
    return stat(path, &file) == 0 && file.st_dev == output.device && file.st_ino == output.inode
  }

  /// The device and inode of the regular file standard output writes to; nil for anything else.
  private static func standardOutputFile(_ fd: Int32) -> (device: dev_t, inode: ino_t)? {
    var output = stat()
    guard fstat(fd, &output) == 0, output.st_mode & S_IFMT == S_IFREG else { return nil }
    return (output.st_dev, output.st_ino)
  }

  public enum Input: Sendable {
    /// A file named on the command line.
    case file(String)
    /// A pattern file found by walking a folder named on the command line: read only if it is
    /// still a regular file when opened.
    case found(String)
    case standardInput
    /// A vocabulary manifest (a file named ``manifestName``): checked with its folder's patterns.
    /// `ignoring`: the names of its folder's entries the walk that found it left out (its ignore
    /// globs): not said to be passed over, as the user asked them left out.
    case manifest(String, ignoring: Set<String> = [])
    /// A path that could not be listed or does not exist; the message says why.
    case unreadable(String, String)

    public var displayName: String {
      switch self {
      case .file(let path), .found(let path), .manifest(let path, _), .unreadable(let path, _): path
      case .standardInput: "<stdin>"
      }
    }

    /// The path of a pattern file (named or found); nil for the others.
    /// The path of a file a folder walk found (a pattern or a manifest).
    public var walkedPath: String? {
      switch self {
      case .found(let path), .manifest(let path, _): path
      case .file, .unreadable, .standardInput: nil
      }
    }

    public var patternPath: String? {
      switch self {
      case .file(let path), .found(let path): path
      case .manifest, .unreadable, .standardInput: nil
      }
    }
  }

  /// The name of a vocabulary's manifest: a file of this name is a manifest, not a pattern.
  public static let manifestName = "vocabulary.json"

  /// Expands `paths`: files as given, directories recursively (`*.ahap`, `*.json`, sorted,
  /// skipping hidden entries and not following symbolic links to directories), `-` as
  /// standard input. A file named ``manifestName`` is a `.manifest`. What `ignores` leaves out
  /// is not walked into or listed (paths given are always listed).
  public static func expand(_ paths: [String], ignores: WalkIgnores? = nil) -> [Input] {
    var inputs: [Input] = []
    for path in paths {
      if path == "-" {
        inputs.append(.standardInput)
        continue
      }
      var info = stat()
      guard stat(path, &info) == 0 else {
        let code = errno
        inputs.append(
          .unreadable(path, String(cString: strerror(code)) + (code == ENOENT ? PathSuggestion.hint(for: path) : "")))
        continue
      }
      if info.st_mode & S_IFMT == S_IFDIR {
        walk(path, root: path, ignores: ignores, into: &inputs)
      } else {
        inputs.append(isManifest(path) ? .manifest(path) : .file(path))
      }
    }
    return inputs
  }

  /// Why a file whose name is not UTF-8 is not read.
  static let notUTF8Name = "its name is not valid UTF-8, and hap opens files by their names as text; rename it"

  /// Whether `name` ends in one of `extensions` (case-insensitive; a leading dot is no extension).
  private static func hasExtension(_ name: String, in extensions: Set<String> = patternExtensions) -> Bool {
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
    return extensions.contains(name[name.index(after: dot)...].lowercased())
  }

  private static func walk(_ directory: String, root: String, ignores: WalkIgnores?, into inputs: inout [Input]) {
    guard let stream = opendir(directory) else {
      inputs.append(.unreadable(directory, String(cString: strerror(errno))))
      return
    }
    var names: [String] = []
    while let entry = readdir(stream) {
      let (name, valid) = withUnsafePointer(to: entry.pointee.d_name) {
        $0.withMemoryRebound(to: CChar.self, capacity: 256) {
          (String(cString: $0), String(validatingCString: $0) != nil)
        }
      }
      if name.hasPrefix(".") { continue }
      // A name that is not UTF-8 cannot be opened by its decoded text: said, never passed over.
      guard valid else {
        let shown = directory.hasSuffix("/") ? directory + name : directory + "/" + name
        if hasExtension(name) { inputs.append(.unreadable(shown, Self.notUTF8Name)) }
        continue
      }
      names.append(name)
    }
    closedir(stream)
    // A vocabulary's folder: what the walk leaves out of it goes with its manifest.
    let vocabulary = names.contains(manifestName)
    var ignored: Set<String> = []
    var manifest: Int?
    for name in names.sorted() {
      let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
      var info = stat()
      guard lstat(path, &info) == 0 else { continue }
      var kind = info.st_mode & S_IFMT
      if kind == S_IFLNK {
        // Follow links to files, never to directories (no cycles).
        guard stat(path, &info) == 0 else { continue }
        kind = info.st_mode & S_IFMT
        if kind == S_IFDIR { continue }
      }
      let pattern = kind == S_IFREG && hasExtension(name)
      guard kind == S_IFDIR || pattern || vocabulary else { continue }
      if ignores?.ignores(path, isFolder: kind == S_IFDIR, root: root) == true {
        ignored.insert(name)
      } else if kind == S_IFDIR {
        walk(path, root: root, ignores: ignores, into: &inputs)
      } else if pattern {
        if name == manifestName { manifest = inputs.count }
        inputs.append(name == manifestName ? .manifest(path) : .found(path))
      }
    }
    if let manifest, case .manifest(let path, _) = inputs[manifest] { inputs[manifest] = .manifest(path, ignoring: ignored) }
  }

  /// Whether a `*.json` file a folder walk found is clearly not a pattern: its top level is an
  /// object with no `Pattern` key and no near miss of one (`Patern`, `pattern`), as
  /// package.json, tsconfig.json or a .vscode setting are. Core Haptics refuses such a file
  /// (-4814), so it cannot be meant as one; a near miss, a top level that is not an object, or
  /// broken JSON is still validated, as are `*.ahap` files and files named on the command line.
  public static func isNotAPattern(_ bytes: [UInt8], path: String) -> Bool {
    guard path.lowercased().hasSuffix(".json") else { return false }
    var findings = FindingCollector()
    guard let document = JSONParser.parse(SourceText(bytes), findings: &findings),
      document.node(document.root).kind == JSONNode.Kind.object
    else { return false }
    var patternLike = false
    document.forEachMember(of: document.root) { key, _ in
      let name = document.string(key)
      if name == "Pattern" || Suggestion.closest(to: name, among: ["Pattern"]) != nil { patternLike = true }
    }
    return !patternLike
  }

  public static func isManifest(_ path: String) -> Bool { PathText.lastComponent(path) == manifestName }

  /// The paths of a vocabulary folder's pattern files, sorted, without reading them (what
  /// ``vocabularyFiles(in:)`` reads; `hap completion --list events` names their stems).
  public static func vocabularyPaths(in folder: String) -> [String] { vocabularyEntries(in: folder).served }

  /// A vocabulary folder's entries: the paths of its pattern files (`*.ahap`, `*.json`,
  /// `*.haptic` that are regular files, sorted; hidden entries and the manifest aside), and the
  /// names it passes over that look meant as events, with why: such a name that is not a
  /// regular file, a pattern's name with more after it (`tick.ahap.orig`), a subfolder
  /// holding pattern files (the service does not read subfolders).
  public static func vocabularyEntries(in folder: String) -> (
    served: [String], skipped: [(fileName: String, why: String)]
  ) {
    var served: [String] = []
    var skipped: [(fileName: String, why: String)] = []
    for name in folderNames(folder) where !name.hasPrefix(".") && name != manifestName {
      let path = folder.isEmpty ? name : (folder.hasSuffix("/") ? folder + name : folder + "/" + name)
      var info = stat()
      let exists = stat(path, &info) == 0
      let kind = InputFile.Kind(mode: info.st_mode)
      if hasExtension(name, in: vocabularyExtensions) {
        if exists && kind == .regularFile {
          served.append(path)
        } else {
          skipped.append((name, exists ? "it is \(kind.phrase), not a regular file" : "it is a link to nothing"))
        }
      } else if exists && kind == .directory {
        if folderNames(path).contains(where: { hasExtension($0, in: vocabularyExtensions) }) {
          skipped.append((name, "it is a folder, and the service reads only its folder's own pattern files"))
        }
      } else if vocabularyExtensions.contains(where: {
        name.lowercased().contains(".\($0).") || name.lowercased().hasSuffix(".\($0)~")
      }) {
        skipped.append((name, "its name does not end in .ahap, .json or .haptic"))
      }
    }
    return (served, skipped)
  }

  /// The names in `folder`, sorted ("." and ".." aside); none when it cannot be opened.
  private static func folderNames(_ folder: String) -> [String] {
    guard let stream = opendir(folder.isEmpty ? "." : folder) else { return [] }
    var names: [String] = []
    while let entry = readdir(stream) {
      let name = withUnsafePointer(to: entry.pointee.d_name) {
        $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
      }
      if name != "." && name != ".." { names.append(name) }
    }
    closedir(stream)
    return names.sorted()
  }

  /// The pattern files of a vocabulary folder (not recursive: `*.ahap` and `*.json` directly
  /// in it, sorted, hidden entries and the manifest skipped), each read or with why not.
  public static func vocabularyFiles(in folder: String) -> [VocabularyFile] {
    vocabularyFiles(vocabularyPaths(in: folder))
  }

  /// The pattern files at `paths` (``vocabularyEntries(in:)``'s `served`), each read or with why not.
  /// A file that is no pattern is no event (issue 45): a `*.json` file with no `"Pattern"` key
  /// (``isNotAPattern(_:path:)``: package.json, a report of `hap validate --format json`) and
  /// the file standard output writes to (`hap validate . > report.json`) are left out, as a
  /// folder walk leaves them out.
  public static func vocabularyFiles(_ paths: [String]) -> [VocabularyFile] {
    paths.filter { !isStandardOutput($0) }.map(Input.found).compactMap { input -> VocabularyFile? in
      let name = PathText.lastComponent(input.displayName)
      do throws(ReadError) {
        let bytes = try read(input)
        if isNotAPattern(bytes, path: input.displayName) { return nil }
        return VocabularyFile(fileName: name, bytes: bytes)
      } catch {
        return VocabularyFile(fileName: name, contents: .failure(VocabularyReadError(error.message)))
      }
    }
  }

  /// Why a file cannot be read, with its cause; a sentence only in ``message``.
  public enum ReadError: Error, Equatable {
    /// open(2), fstat(2) or read(2) failed with `errno`.
    case system(errno: Int32)
    case isDirectory
    /// Not of a kind read as `purpose` (a FIFO named .haprc.json, a socket).
    case wrongKind(InputFile.Kind, InputFile.Purpose)
    /// Above ``PatternFiles/sizeLimit``; nil: a stream that passed it.
    case tooLarge(size: Int?)
    /// Found unreadable while the inputs were listed (`reason` said then).
    case unlisted(reason: String)
    /// The project's `.haprc.json` for the file cannot be used (``PatternReading/read(_:checkingSettings:)``).
    case unusableSettings(path: String, why: String)
    /// The caller's stop (`hap`: Ctrl-C or SIGTERM) ended the wait for a FIFO's writer (or its
    /// next bytes).
    case interrupted
    /// The name holds a NUL (from a JSON string's `\u0000`): the system would read it only up
    /// to the NUL, another file.
    case nulInName
    /// No file of that name (ENOENT), and `closest` exists and is close to it
    /// (``PathSuggestion``: `patterns/corect.json`, `patterns/correct.json`).
    case notFound(closest: String)

    public var message: String {
      switch self {
      case .system(let code): String(cString: strerror(code))
      case .isDirectory: "is a directory"
      case .wrongKind(let kind, let purpose) where purpose.takesStreams: "it is \(kind.phrase); \(purpose.rule)"
      case .wrongKind(let kind, let purpose): "it is \(kind.phrase), not a regular file; \(purpose.rule)"
      case .tooLarge(let size?):
        "it is \(PatternFiles.formatBytes(size)); hap reads pattern files up to \(PatternFiles.formatBytes(PatternFiles.sizeLimit)) (real AHAP files are a few kilobytes)"
      case .tooLarge(nil):
        "it goes on past \(PatternFiles.formatBytes(PatternFiles.sizeLimit)), the most hap reads of one file (real AHAP files are a few kilobytes)"
      case .unlisted(let reason): reason
      case .interrupted: "interrupted while waiting for its writer"
      case .nulInName: "its name holds a NUL character (\\u0000), which no file name can"
      case .notFound(let closest):
        "\(String(cString: strerror(ENOENT))); did you mean '\(Format.excerpt(closest))'?"
      case .unusableSettings(let path, let why):
        "the project's settings '\(Format.excerpt(path))' cannot be used: \(why)"
      }
    }
  }

  /// Reads a whole file (or standard input), refusing anything above ``sizeLimit``: a named
  /// file as `purpose` says (``InputFile/Purpose/namedInput``, a FIFO or a character device
  /// too, unless told otherwise: `--watch` reads ``InputFile/Purpose/watched``), a manifest only
  /// from a regular file. A stream (standard input, a FIFO) is waited on until `stop` is raised
  /// (``ReadError/interrupted``); with no `stop`, until its writer writes or ends.
  public static func read(_ input: Input, as purpose: InputFile.Purpose? = nil, stop: StopRequest? = nil)
    throws(ReadError) -> [UInt8]
  {
    switch input {
    case .unreadable(_, let reason):
      throw .unlisted(reason: reason)
    case .standardInput:
      return try InputFile.readStandardInput(stop: stop)
    case .file(let path):
      return try InputFile.read(path, for: purpose ?? .namedInput, stop: stop)
    case .found(let path):
      return try InputFile.read(path, for: purpose ?? .folderPattern)
    case .manifest(let path, _):
      return try InputFile.read(path, for: purpose ?? .manifest)
    }
  }

  public static func formatBytes(_ bytes: Int) -> String {
    if bytes >= 1 << 30 { return Format.number((Double(bytes) / Double(1 << 30) * 10).rounded() / 10) + " GiB" }
    if bytes >= 1 << 20 { return Format.number((Double(bytes) / Double(1 << 20) * 10).rounded() / 10) + " MiB" }
    if bytes >= 1 << 10 { return Format.number((Double(bytes) / Double(1 << 10) * 10).rounded() / 10) + " KiB" }
    return "\(bytes) bytes"
  }

  /// Validates a pattern file's bytes: a `.haptic` clip through its conversion to AHAP (the
  /// findings speak of the clip), anything else as AHAP.
  public static func validate(_ bytes: [UInt8], input: Input, context: ValidationContext) -> ValidationResult {
    if let path = input.patternPath, HapticReading.isClip(path) {
      return HapticReading.read(SourceText(bytes)).result
    }
    return Validator.validate(bytes, context: context)
  }

  /// The validation context for a pattern read from `input`: each sound is looked for as iOS
  /// does, then in the sound folders (``SoundSearch``), and decoded (standard input has no
  /// folder: only absolute paths and the sound folders, and nothing is checked without those).
  public static func context(for input: Input, sounds: SoundSearch) -> ValidationContext {
    ValidationContext(sound: sounds.validationLookup(patternPath: input.patternPath))
  }
}
