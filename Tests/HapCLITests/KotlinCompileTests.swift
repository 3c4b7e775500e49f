import Foundation
import HapTestSupport
import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

/// The Kotlin `hap convert` writes, compiled: kotlinc (Debian's `kotlin`, which `make test`
/// installs) against stubs of the Android classes it calls (their signatures as the Android SDK
/// declares them), and every method's bytecode measured with javap against the JVM's 64 KB
/// limit (a method's code is at most 65,535 bytes).
@Suite("Kotlin output compiles, every method under the JVM's 64 KB")
struct KotlinCompileTests {
  /// android.os.Build, VibrationEffect (waveforms, compositions, the basic envelope) and
  /// Vibrator, with what the generated code calls.
  static let stubs: [String: String] = [
    "Build.java": """
    package android.os;
    public class Build { public static class VERSION { public static int SDK_INT = 36; } }
    """,
    "VibrationEffect.java": """
    package android.os;
    public abstract class VibrationEffect {
      public static VibrationEffect createWaveform(long[] timings, int[] amplitudes, int repeat) { return null; }
      public static VibrationEffect createWaveform(long[] timings, int repeat) { return null; }
      public static Composition startComposition() { return new Composition(); }
      public static final class Composition {
        public static final int PRIMITIVE_CLICK = 1, PRIMITIVE_THUD = 2, PRIMITIVE_SPIN = 3, PRIMITIVE_QUICK_RISE = 4,
          PRIMITIVE_SLOW_RISE = 5, PRIMITIVE_QUICK_FALL = 6, PRIMITIVE_TICK = 7, PRIMITIVE_LOW_TICK = 8;
        public Composition addPrimitive(int id, float scale, int delay) { return this; }
        public VibrationEffect compose() { return null; }
      }
      public static final class BasicEnvelopeBuilder {
        public BasicEnvelopeBuilder setInitialSharpness(float sharpness) { return this; }
        public BasicEnvelopeBuilder addControlPoint(float intensity, float sharpness, long durationMillis) { return this; }
        public VibrationEffect build() { return null; }
      }
    }
    """,
    "Vibrator.java": """
    package android.os;
    public abstract class Vibrator {
      public static final class EnvelopeEffectInfo {
        public int getMaxSize() { return 16; }
        public long getMinControlPointDurationMillis() { return 20; }
        public long getMaxControlPointDurationMillis() { return 1000; }
        public long getMaxDurationMillis() { return 16000; }
      }
      public abstract void vibrate(VibrationEffect effect);
      public abstract boolean hasAmplitudeControl();
      public boolean areEnvelopeEffectsSupported() { return false; }
      public boolean[] arePrimitivesSupported(int... ids) { return new boolean[ids.length]; }
      public EnvelopeEffectInfo getEnvelopeEffectInfo() { return new EnvelopeEffectInfo(); }
    }
    """,
  ]

  struct Ran {
    var status: Int32
    var output: String
  }

  static func run(_ tool: String, _ arguments: [String], in folder: URL) throws -> Ran {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    process.currentDirectoryURL = folder
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Ran(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
  }

  /// Each method's largest bytecode offset, from `javap -c -p` (the last instruction's offset:
  /// the code is at most a few bytes longer).
  static func largestOffsets(_ javap: String) -> [String: Int] {
    var method = ""
    var largest: [String: Int] = [:]
    for line in javap.split(separator: "\n") {
      if line.hasPrefix("  ") && !line.hasPrefix("   ") && (line.contains("(") || line.contains("static {}")) {
        method = line.trimmingCharacters(in: .whitespaces)
      } else if let colon = line.firstIndex(of: ":"),
        let offset = Int(line[..<colon].trimmingCharacters(in: .whitespaces))
      {
        largest[method] = max(largest[method] ?? 0, offset)
      }
    }
    return largest
  }

  @Test(
    "long_clip (70 s), 200 primitives and a short pattern: kotlinc compiles each, every method's bytecode under 64 KB",
    .enabled(if: HapticCorpus.isPresent, "corpus not found (set HAP_CORPUS); skipped"))
  func compiles() throws {
    guard let kotlinc = systemTool("kotlinc"), let javac = systemTool("javac"), let javap = systemTool("javap") else {
      cannotCheck("kotlinc, javac or javap is not installed (make test installs kotlin and default-jdk-headless)")
      return
    }
    let folder = try temporaryFolder()
    let stubs = folder.appendingPathComponent("android/os")
    try FileManager.default.createDirectory(at: stubs, withIntermediateDirectories: true)
    for (name, text) in Self.stubs {
      try text.write(to: stubs.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }
    let javacRun = try Self.run(
      javac, ["-d", "stubs"] + Self.stubs.keys.sorted().map { "android/os/\($0)" }, in: folder)
    try #require(javacRun.status == 0, "javac: \(javacRun.output)")
    // 200 transients 100 ms apart: more than a chain holds, so the primitives are added in a loop.
    let taps = (0..<200).map {
      #"{"Event": {"Time": \#(Double($0) / 10), "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.8}, {"ParameterID": "HapticSharpness", "ParameterValue": \#($0 % 2 == 0 ? 0.8 : 0.2)}]}}"#
    }
    try (#"{"Version": 1, "Pattern": ["# + taps.joined(separator: ", ") + "]}")
      .write(to: folder.appendingPathComponent("taps.ahap"), atomically: true, encoding: .utf8)
    let inputs = [
      HapticCorpus.folder.appendingPathComponent("Lofelt__NiceVibrations/long_clip.haptic").path,
      folder.appendingPathComponent("taps.ahap").path, Repository.bundledPattern("correct"),
    ]
    for (input, name) in zip(inputs, ["Long.kt", "Taps.kt", "Correct.kt"]) {
      let result = try Hap.run(["convert", input, "-o", folder.appendingPathComponent(name).path])
      try #require(result.status == 0, "\(result.stderr)")
    }
    // Issue 45, item 21: a folder whose names differ only in case or punctuation: one object
    // name each (TickSoftHaptic was declared four times, which does not compile).
    let names = ["tick-soft", "tick_soft", "Tick Soft", "TickSoft"]
    for name in names {
      try FileManager.default.createDirectory(at: folder.appendingPathComponent("names"), withIntermediateDirectories: true)
      try FileManager.default.copyItem(
        atPath: Repository.bundledPattern("tick"), toPath: folder.appendingPathComponent("names/\(name).json").path)
    }
    let converted = try Hap.run(
      ["convert", folder.appendingPathComponent("names").path, "-o", folder.appendingPathComponent("kt").path, "--to", "kotlin"])
    try #require(converted.status == 0, "\(converted.stderr)")
    #expect(converted.stderr.components(separatedBy: "a Kotlin package takes each name once").count == names.count, "\(converted.stderr)")
    let folderKotlin = names.map { "kt/\($0).kt" }
    let taps200 = try String(contentsOf: folder.appendingPathComponent("Taps.kt"), encoding: .utf8)
    #expect(taps200.contains("for (i in PRIMITIVE_KIND.indices)"), "the primitives are not added in a loop")
    let kotlincRun = try Self.run(
      kotlinc, ["-cp", "stubs", "-d", "classes", "Long.kt", "Taps.kt", "Correct.kt"] + folderKotlin, in: folder)
    try #require(kotlincRun.status == 0, "kotlinc: \(kotlincRun.output)")
    let classes = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("classes").path)
      .filter { $0.hasSuffix(".class") }.map { "classes/\($0)" }
    #expect(classes.contains("classes/LongClipHaptic.class") && classes.contains("classes/TapsHaptic.class"))
    #expect(
      Set(["TickSoftHaptic", "TickSoft2Haptic", "TickSoft3Haptic", "TickSoft4Haptic"].map { "classes/\($0).class" })
        .isSubset(of: classes), "\(classes)")
    let javapRun = try Self.run(javap, ["-c", "-p"] + classes, in: folder)
    try #require(javapRun.status == 0, "javap: \(javapRun.output)")
    let offsets = Self.largestOffsets(javapRun.output)
    #expect(offsets.count > 10, "javap's methods were not found: \(javapRun.output.prefix(400))")
    for (method, offset) in offsets {
      #expect(offset < 65_500, "\(method): bytecode reaches offset \(offset)")
    }
    let largest = offsets.max { $0.value < $1.value }
    print(
      "Kotlin output: \(offsets.count) methods, the largest \(largest?.key ?? "?") at offset \(largest?.value ?? 0)")
  }
}
