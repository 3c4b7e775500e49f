import FoundationEssentials
import Glibc
import HapCore

/// The profiles the plot previews: hap's built-ins, the one `--profile` named (a built-in or a
/// file), and the ACF and profile files in the studio's folder (read when asked for).
struct StudioProfiles: Sendable {
  /// The id of the profile the studio starts with.
  let initial: String
  private let named: (id: String, profile: ActuatorProfile)?

  init(initial: String?) throws(StudioFailure) {
    guard let initial else {
      self.initial = ActuatorProfile.exciter.name
      named = nil
      return
    }
    do {
      let (profile, _) = try ActuatorProfile.load(initial)
      self.initial = ActuatorProfile.builtIn(named: initial) == nil ? "file:" + initial : profile.name
      named = ActuatorProfile.builtIn(named: initial) == nil ? (self.initial, profile) : nil
    } catch {
      throw .badRequest("--profile \(initial): the profile cannot be used")
    }
  }

  /// The profile `id` names: a built-in's name, `file:PATH` as given to `--profile`, or
  /// `acf:NAME` for an `.acf` file of the folder `root`.
  func profile(_ id: String?, root: String) throws(StudioFailure) -> (id: String, profile: ActuatorProfile) {
    let id = id ?? initial
    if let builtIn = ActuatorProfile.builtIn(named: id) { return (id, builtIn) }
    if let named, named.id == id { return named }
    if id.hasPrefix("acf:") {
      let name = String(id.dropFirst(4))
      guard !name.contains("/"), name.lowercased().hasSuffix(".acf"), let real = StudioPaths.real(root + "/" + name),
        StudioPaths.isInside(real, root), let (profile, _) = try? ActuatorProfile.load(real)
      else { throw .notFound("there is no usable device file \(Format.excerpt(name)) in the folder") }
      return (id, profile)
    }
    throw .notFound("there is no profile \(Format.excerpt(id))")
  }

  func listJSON(root: String) -> String {
    var items = ActuatorProfile.builtIns.map { ($0.name, $0.name) }
    if let named { items.append((named.id, named.profile.name)) }
    let files = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
    for file in files.sorted() where file.lowercased().hasSuffix(".acf") && !file.hasPrefix(".") {
      var info = stat()
      guard stat(root + "/" + file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
      items.append(("acf:" + file, file))
    }
    return JSONOutput.array(
      items.map { JSONOutput.object([("id", JSONOutput.string($0.0)), ("name", JSONOutput.string($0.1))]) })
  }
}

extension Studio {
  /// The longest span `/api/render` renders, in seconds.
  static let longestRender = 600.0

  /// `/api/render`: the rendered signal reduced to columns.
  func render(_ query: [String: String]) throws(StudioFailure) -> String {
    let document = try document(named: query["path"])
    let (id, profile) = try profiles.profile(query["profile"], root: root)
    guard let t0 = query["t0"].flatMap(Double.init), let t1 = query["t1"].flatMap(Double.init), t0.isFinite,
      t1.isFinite, t1 > t0, t1 - t0 <= Self.longestRender, t0 > -Self.longestRender,
      t1 <= ValidationContext.defaultLongestPattern + Self.longestRender
    else { throw .badRequest("t0 and t1 must be seconds with t0 < t1, at most \(Int(Self.longestRender)) s apart") }
    guard let columns = query["columns"].flatMap(Int.init), (1...4096).contains(columns) else {
      throw .badRequest("columns must be 1…4096")
    }
    let pattern: Pattern? = try locked { () throws(StudioFailure) in
      query["side"] == "baseline" ? document.baselineResult.pattern : document.result.pattern
    }
    let reduced = pattern.map { StudioPlot(pattern: $0, profile: profile).columns(from: t0, to: t1, count: columns) }
    return JSONOutput.object([
      ("t0", JSONOutput.number(t0)), ("t1", JSONOutput.number(t1)), ("columns", String(columns)),
      ("profile", JSONOutput.string(id)),
      ("min", JSONOutput.array((reduced?.low ?? []).map { CFormat.string("%.4f", $0) })),
      ("max", JSONOutput.array((reduced?.high ?? []).map { CFormat.string("%.4f", $0) })),
      ("frequency", JSONOutput.array((reduced?.frequency ?? []).map { $0.map { CFormat.string("%.1f", $0) } ?? "null" })),
      ("audio", "null"),
    ])
  }

  /// `/api/compare`: `hap diff`'s verdict by feel, the baseline against the file.
  func compare(_ name: String?) throws(StudioFailure) -> String {
    let document = try document(named: name)
    let (baseline, current, label, results) = try locked { () throws(StudioFailure) in
      (document.baseline, document.bytes, document.baselineName, (document.baselineResult, document.result))
    }
    let before = Self.comparable(results.0)
    let after = Self.comparable(results.1)
    var members = [("baseline", JSONOutput.string(label)), ("same", baseline == current ? "true" : "false")]
    if baseline == current {
      members.append(("verdict", JSONOutput.string("the file is as \(label == "git HEAD" ? "at git HEAD" : "when the studio opened it"): nothing to compare")))
    } else if let before, let after {
      let profile = profiles.initialProfile
      let report = FeelReport(before, after, profile: profile, rate: 48000)
      let psnr = SignalComparison(before, after, profile: profile, rate: 48000).psnr
      members[1] = ("same", report.sameFeel ? "true" : "false")
      members.append(
        ("verdict", JSONOutput.string(report.sentence(psnr: psnr, audioPSNR: nil, structural: "the file against \(label)"))))
    } else {
      members.append(
        (
          "verdict",
          JSONOutput.string(
            "one side has errors, or lasts over \(Int(Self.longestComparison)) s; compare them with hap diff --signal")
        ))
    }
    return JSONOutput.object(members)
  }

  /// The longest pattern `/api/compare` judges, in seconds (its cost grows with the length: a
  /// longer one is for `hap diff --signal`).
  static let longestComparison = 120.0

  /// A side's pattern to compare: nil with errors, or longer than ``longestComparison``.
  static func comparable(_ result: ValidationResult) -> Pattern? {
    guard result.isValid, let pattern = result.pattern, pattern.duration <= longestComparison else { return nil }
    return pattern
  }

  /// `/api/folder`: the folder's patterns with their place in the vocabulary.
  func folderJSON() -> String {
    let collected = NoticeList()
    let folder = VocabularyFolder(path: root, source: .named)
    let vocabulary = folder.load(search: settings.reading.sounds, quiet: true) { collected.add(StudioNotices.describe($0)) }
    let notices = collected.lines
    let patterns = PatternFiles.vocabularyPaths(in: root).filter { path in
      StudioPaths.real(path).map { StudioPaths.isInside($0, root) } ?? false
    }.map { patternJSON($0, vocabulary: vocabulary) }
    let findings = notices.filter { !$0.isEmpty }.map { JSONOutput.object([("message", JSONOutput.string($0))]) }
    return JSONOutput.object([("patterns", JSONOutput.array(patterns)), ("findings", JSONOutput.array(findings))])
  }

  private func patternJSON(_ path: String, vocabulary: Vocabulary?) -> String {
    let name = PathText.deletingPathExtension(PathText.lastComponent(path))
    let relative = path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : PathText.lastComponent(path)
    let tier = vocabulary?.tiers.first { $0.contains(name) }.map { tier in
      "\(tier.firstIndex(of: name)! + 1) of \(tier.count) (\(tier.joined(separator: " → ")))"
    }
    let rarity = vocabulary.flatMap { $0.rarity.firstIndex(of: name) }.map { "\($0 + 1) of \(vocabulary!.rarity.count)" }
    let checked = settings.reading.check(path)
    var counts = (errors: 0, warnings: 0, duration: 0.0)
    switch checked {
    case .valid(let pattern, let findings):
      counts = (0, findings.count { $0.severity == .warning }, pattern.duration)
    case .invalid(let findings): counts.errors = findings.count { $0.severity == .error }
    case .unreadable: counts.errors = 1
    }
    return JSONOutput.object([
      ("path", JSONOutput.string(relative)), ("name", JSONOutput.string(name)),
      ("tier", tier.map(JSONOutput.string) ?? "null"), ("rarity", rarity.map(JSONOutput.string) ?? "null"),
      ("duration", JSONOutput.number(counts.duration)), ("errors", String(counts.errors)),
      ("warnings", String(counts.warnings)),
    ])
  }
}

extension StudioProfiles {
  var initialProfile: ActuatorProfile {
    named?.profile ?? ActuatorProfile.builtIn(named: initial) ?? .exciter
  }
}

/// The rendered signal of a pattern reduced to pixel columns: min, max and the dominant
/// frequency (zero crossings over at least 10 ms around each column).
struct StudioPlot {
  let pattern: Pattern
  let profile: ActuatorProfile
  static let rate = 48_000.0

  func columns(from t0: Double, to t1: Double, count: Int) -> (low: [Float], high: [Float], frequency: [Double?]) {
    let renderer = Renderer(schedule: Schedule(pattern: pattern, profile: profile, rate: Self.rate, gain: 1))
    let first = Int((t0 * Self.rate).rounded(.down))
    let last = Int((t1 * Self.rate).rounded(.up))
    var low = [Float](repeating: 0, count: count)
    var high = [Float](repeating: 0, count: count)
    var crossings = Crossings(count: count)
    let perColumn = Double(last - first) / Double(count)
    var buffer = [Float](repeating: 0, count: 4096)
    var previous: Float = 0
    var position = -1
    for c in 0..<count {
      // The column's frames, within the pattern (before and after it, silence).
      let a = max(0, first + Int((Double(c) * perColumn).rounded(.down)))
      let b = min(renderer.frameCount, first + Int((Double(c + 1) * perColumn).rounded(.down)))
      var frame = a
      if frame < b, position != frame {
        renderer.seek(to: frame)
        position = frame
      }
      while frame < b {
        let want = min(buffer.count, b - frame)
        let got = buffer.withUnsafeMutableBufferPointer { all in
          renderer.render(into: UnsafeMutableBufferPointer(rebasing: all[0..<want]))
        }
        if got == 0 { break }
        var lo = low[c]
        var hi = high[c]
        for k in 0..<got {
          let v = buffer[k]
          lo = min(lo, v)
          hi = max(hi, v)
          if (v >= 0) != (previous >= 0) { crossings.add(frame + k, column: c) }
          previous = v
        }
        low[c] = lo
        high[c] = hi
        frame += got
        position = frame
      }
    }
    return (low, high, crossings.frequencies(low: low, high: high, seconds: perColumn / Self.rate, rate: Self.rate))
  }
}

/// Zero crossings per column: how many, and the frames of the first and the last, from which
/// a frequency is read without the error of counting whole crossings in a short window.
struct Crossings {
  var count: [Int]
  var first: [Int]
  var last: [Int]

  init(count columns: Int) {
    count = Array(repeating: 0, count: columns)
    first = Array(repeating: Int.max, count: columns)
    last = Array(repeating: Int.min, count: columns)
  }

  mutating func add(_ frame: Int, column: Int) {
    count[column] += 1
    first[column] = min(first[column], frame)
    last[column] = max(last[column], frame)
  }

  /// For each sounding column (above -60 dB), the crossings within 10 ms around it: half
  /// their number less one over the time from the first to the last; nil where silent or
  /// with fewer than three crossings.
  func frequencies(low: [Float], high: [Float], seconds: Double, rate: Double) -> [Double?] {
    let reach = max(0, Int((0.005 / seconds).rounded(.up)))
    return count.indices.map { c in
      guard max(high[c], -low[c]) > 1e-3 else { return nil }
      let lo = max(0, c - reach)
      let hi = min(count.count - 1, c + reach)
      let total = count[lo...hi].reduce(0, +)
      let from = first[lo...hi].min() ?? Int.max
      let to = last[lo...hi].max() ?? Int.min
      guard total >= 3, to > from else { return nil }
      return Double(total - 1) / 2 / (Double(to - from) / rate)
    }
  }
}

/// Lines gathered from a loader's log, from any thread.
private final class NoticeList: @unchecked Sendable {
  private let lock = Lock()
  private var stored: [String] = []

  func add(_ line: String) {
    lock.lock()
    stored.append(line)
    lock.unlock()
  }

  var lines: [String] {
    lock.lock()
    defer { lock.unlock() }
    return stored
  }
}
