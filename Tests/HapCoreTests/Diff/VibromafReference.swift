import Foundation
import HapTestSupport

/// vibromaf 0.0.8 (PyPI, MIT) run through the machine's `python3`, the reference that
/// ``PerceptualMetrics`` is held to. Where `import vibromaf` is missing (or another version), it
/// is installed with pip into a folder of the system's temporary directory that goes first on
/// PYTHONPATH (`--no-deps`: ST-SIM and SPQI need only NumPy and SciPy, which are added there
/// too when python3 lacks them; vibromaf's scikit-learn is for its fused model only). The folder
/// is kept, so later runs on the machine skip the install.
enum Vibromaf {
  static let version = "0.0.8"

  /// How to run it: the PYTHONPATH under which `python3` imports vibromaf 0.0.8.
  struct Runner {
    let pythonPath: String?
  }

  /// Why vibromaf cannot be run here.
  struct Unavailable: Error { let why: String }

  /// A python3 that imports vibromaf 0.0.8, installing it if need be.
  static func runner() -> Result<Runner, Unavailable> {
    let inherited = ProcessInfo.processInfo.environment["PYTHONPATH"]
    switch probe(pythonPath: inherited) {
    case .failure(let why): return .failure(why)
    case .success(.ready): return .success(Runner(pythonPath: inherited))
    case .success(let missing):
      let cache = FileManager.default.temporaryDirectory.appendingPathComponent("hap-vibromaf-\(version)").path
      let path = [cache, inherited].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ":")
      if case .success(.ready) = probe(pythonPath: path) { return .success(Runner(pythonPath: path)) }
      if let why = install(into: cache, withNumPy: missing == .numerics) { return .failure(why) }
      if case .success(.ready) = probe(pythonPath: path) { return .success(Runner(pythonPath: path)) }
      return .failure(Unavailable(why: "vibromaf \(version) was installed into \(cache) but does not import"))
    }
  }

  /// What `import vibromaf` lacks under a PYTHONPATH.
  enum Probe: Int32 { case ready = 0, vibromaf = 3, numerics = 4 }

  static let probeScript = """
    import sys
    try:
        import numpy, scipy.fftpack, scipy.stats
    except ImportError:
        sys.exit(4)
    try:
        import importlib.metadata, vibromaf.metrics.stsim, vibromaf.metrics.spqi
        sys.exit(0 if importlib.metadata.version("vibromaf") == "\(version)" else 3)
    except Exception:
        sys.exit(3)
    """

  static func probe(pythonPath: String?) -> Result<Probe, Unavailable> {
    let result = run(["python3", "-c", probeScript], pythonPath: pythonPath, within: 120)
    guard let status = result.status else { return .failure(Unavailable(why: result.error)) }
    guard let probe = Probe(rawValue: status) else {
      return .failure(Unavailable(why: "python3 could not be run (exit \(status)): \(result.error)"))
    }
    return .success(probe)
  }

  /// Installs vibromaf (and NumPy and SciPy if asked) into `folder`: into a folder of its own
  /// first, renamed into place, so two test runs at once do not mix their files. nil when done.
  static func install(into folder: String, withNumPy: Bool) -> Unavailable? {
    let files = FileManager.default
    let staging = folder + "-" + UUID().uuidString
    let packages = ["vibromaf==\(version)"] + (withNumPy ? ["numpy", "scipy"] : [])
    let result = run(
      [
        "python3", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-input", "--no-deps",
        "--target", staging,
      ] + packages, pythonPath: nil, within: 600)
    guard result.status == 0 else {
      try? files.removeItem(atPath: staging)
      return Unavailable(
        why: "vibromaf is not importable and `python3 -m pip install --target` failed: \(result.error.suffix(600))")
    }
    try? files.removeItem(atPath: folder)  // an incomplete one (the probe found no vibromaf in it)
    if (try? files.moveItem(atPath: staging, toPath: folder)) == nil { try? files.removeItem(atPath: staging) }
    return nil
  }

  /// ST-SIM and SPQI by vibromaf of each pair, written into `folder` as raw little-endian float64
  /// (`NAME.reference.f64`, `NAME.test.f64`), by name.
  static func scores(of pairs: [(name: String, reference: [Double], test: [Double])], in folder: URL, _ runner: Runner)
    throws -> [String: (stsim: Double, spqi: Double)]
  {
    for pair in pairs {
      for (side, samples) in [("reference", pair.reference), ("test", pair.test)] {
        let data = samples.withUnsafeBufferPointer { Data(buffer: $0) }
        try data.write(to: folder.appendingPathComponent("\(pair.name).\(side).f64"))
      }
    }
    let result = run(
      ["python3", "-c", scoreScript, folder.path] + pairs.map(\.name), pythonPath: runner.pythonPath, within: 300)
    guard result.status == 0 else { throw Unavailable(why: "vibromaf's run failed: \(result.error.suffix(800))") }
    var scores: [String: (stsim: Double, spqi: Double)] = [:]
    for line in result.output.split(separator: "\n") {
      let fields = line.split(separator: " ").map(String.init)
      guard fields.count == 4, let stsim = Double(fields[1]), let imaginary = Double(fields[2]),
        let spqi = Double(fields[3])
      else { throw Unavailable(why: "unexpected line from vibromaf's run: \(line)") }
      guard imaginary == 0 else { throw Unavailable(why: "vibromaf's ST-SIM of \(fields[0]) is complex: \(line)") }
      scores[fields[0]] = (stsim, spqi)
    }
    return scores
  }

  /// Prints `NAME STSIM-REAL STSIM-IMAGINARY SPQI` per pair (vibromaf's `st_sim` returns a
  /// complex number when the mean temporal similarity is negative). Both functions take the
  /// distorted signal first.
  static let scoreScript = """
    import sys, warnings
    import numpy as np
    from vibromaf.metrics.stsim import st_sim
    from vibromaf.metrics.spqi import spqi
    warnings.simplefilter("ignore")  # the cut of a longer test signal, log10(0) of silent blocks
    folder = sys.argv[1]
    for name in sys.argv[2:]:
        reference = np.fromfile(f"{folder}/{name}.reference.f64", dtype="<f8")
        test = np.fromfile(f"{folder}/{name}.test.f64", dtype="<f8")
        s = complex(st_sim(test, reference))
        print(name, repr(s.real), repr(s.imag), repr(float(spqi(test, reference))))
    """

  /// Runs `python3 ...` (found on PATH) with its output in files; the exit status, or nil with
  /// why when it could not start or did not end within `seconds` (it is then terminated).
  static func run(_ arguments: [String], pythonPath: String?, within seconds: Double)
    -> (status: Int32?, output: String, error: String)
  {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hap-python-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let out = folder.appendingPathComponent("out")
    let err = folder.appendingPathComponent("err")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    _ = FileManager.default.createFile(atPath: err.path, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["PYTHONPATH"] = pythonPath
    process.environment = environment
    do {
      process.standardOutput = try FileHandle(forWritingTo: out)
      process.standardError = try FileHandle(forWritingTo: err)
      try process.run()
    } catch { return (nil, "", "could not run python3: \(error)") }
    guard Wait.exit(of: process, within: seconds) else {
      process.terminate()
      process.waitUntilExit()
      return (nil, "", "python3 \(arguments.dropFirst().first ?? "") did not end within \(Int(seconds)) s")
    }
    let text = { (url: URL) in (try? String(contentsOf: url, encoding: .utf8)) ?? "" }
    if process.terminationStatus == 127 { return (nil, "", "python3 not found on PATH") }
    return (process.terminationStatus, text(out), text(err))
  }
}
