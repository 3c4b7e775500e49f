import HapFormat
import HapPlayback
import HapRender

/// The Kotlin snippet of an ``AndroidEffect``: one `object` with the data and `effect(vibrator)`,
/// which picks, in order: transient primitives (a pattern of transients only, where
/// `arePrimitivesSupported`), the envelope (Android 16, `areEnvelopeEffectsSupported`, within
/// `envelopeEffectInfo`'s limits: points, shortest and longest point, total duration), the
/// amplitude waveform (`hasAmplitudeControl`), the on/off timings.
///
/// **The JVM's 64 KB method limit.** Every method stays small whatever the pattern's length: an
/// array of more than ``inlineLimit`` values is written as string constants of at most
/// ``chunkCharacters`` characters (far under the class file's 65,535-byte constant) decoded on
/// first use, not as an array literal (each element of a literal costs about 8 bytes of the
/// object's static initialiser: 7,000 values of three arrays would pass 64 KB); more than
/// ``chainLimit`` envelope points or primitives are added in a loop over such arrays, not as
/// a chain of calls (about 20 bytes each).
extension AndroidEffect {
  public static let inlineLimit = 512
  public static let chainLimit = 64
  public static let chunkCharacters = 16_000

  /// A Kotlin identifier made of a file name: letters and digits, capitalised, `Haptic` suffix.
  public static func identifier(_ name: String) -> String {
    let words = name.split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
    var id = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    if id.isEmpty || id.first!.isNumber { id = "Pattern" + id }
    return String(id.prefix(60)) + "Haptic"
  }

  /// Names for the objects of files converted together (one Kotlin package), each identifier
  /// unique: a stem whose identifier an earlier one has (`tick-soft`, `tick_soft`, `Tick Soft`
  /// are all `TickSoftHaptic`) gets the lowest number that makes it unique (`tick_soft2`:
  /// `TickSoft2Haptic`), in the order given; the others are kept as they are.
  public static func uniqueNames(_ stems: [String]) -> [String] {
    var taken = Set<String>()
    let wanted = Set(stems.map(identifier))
    return stems.map { stem in
      if taken.insert(identifier(stem)).inserted { return stem }
      var n = 2
      while wanted.contains(identifier(stem + String(n))) || !taken.insert(identifier(stem + String(n))).inserted {
        n += 1
      }
      return stem + String(n)
    }
  }

  public func kotlin(name: String) -> String {
    let object = AndroidEffect.identifier(name)
    let primitiveBranch = primitives.isEmpty || hasContinuous || !primitivesKeepTiming ? "" : primitiveComposition
    let data =
      [
        Self.array(
          "TIMINGS", "Long", timings.map(String.init),
          doc: "createWaveform(timings, amplitudes, -1): every device with amplitude control."),
        Self.array("AMPLITUDES", "Int", amplitudes.map(String.init)),
        Self.array(
          "ON_OFF_TIMINGS", "Long", onOffTimings.map(String.init),
          doc: "Off, on, off, on… for devices without amplitude control."),
      ] + envelopeData + primitiveData
    return """
      // Made by `hap convert --to android` (docs/convert.md): \(durationMs) ms, sampled every \(AndroidEffect.stepMs) ms.
      import android.os.Build
      import android.os.VibrationEffect
      import android.os.Vibrator

      object \(object) {
      \(data.joined(separator: "\n"))
          const val ENVELOPE_POINTS = \(envelope.count)
          const val ENVELOPE_SHORTEST_MS = \(envelope.map(\.durationMs).min() ?? 0)L
          const val ENVELOPE_LONGEST_MS = \(envelope.map(\.durationMs).max() ?? 0)L
          const val DURATION_MS = \(durationMs)L

          fun play(vibrator: Vibrator) {
              vibrator.vibrate(effect(vibrator))
          }

          fun effect(vibrator: Vibrator): VibrationEffect {
      \(primitiveBranch)        if (Build.VERSION.SDK_INT >= 36 && vibrator.areEnvelopeEffectsSupported() &&
                  fitsEnvelope(vibrator)) {
      \(envelopeBuilder)
              }
              if (vibrator.hasAmplitudeControl()) {
                  return VibrationEffect.createWaveform(TIMINGS, AMPLITUDES, -1)
              }
              return VibrationEffect.createWaveform(ON_OFF_TIMINGS, -1)
          }

          /** The envelope within this vibrator's limits: points, their durations, the total. */
          private fun fitsEnvelope(vibrator: Vibrator): Boolean {
              val info = vibrator.envelopeEffectInfo
              return ENVELOPE_POINTS <= info.maxSize &&
                  ENVELOPE_SHORTEST_MS >= info.minControlPointDurationMillis &&
                  ENVELOPE_LONGEST_MS <= info.maxControlPointDurationMillis &&
                  DURATION_MS <= info.maxDurationMillis
          }

          /** Comma-separated values written as string constants (the JVM's method size limit). */
          private fun values(chunks: Array<String>): List<String> =
              chunks.filter { it.isNotEmpty() }.joinToString(",").split(',')
      }

      """
  }

  /// `val NAME` of `type` (`Long`, `Int` or `Float`) holding `values`: an array literal, or past
  /// ``inlineLimit`` values string constants decoded on first use.
  static func array(_ name: String, _ type: String, _ values: [String], doc: String? = nil) -> String {
    let comment = doc.map { "    /** \($0) */\n" } ?? ""
    let suffix = type == "Long" ? "L" : type == "Float" ? "f" : ""
    guard values.count > inlineLimit else {
      let literal = values.map { $0 + suffix }.joined(separator: ", ")
      return comment + "    val \(name) = \(type.lowercased())ArrayOf(\(literal))"
    }
    var chunks: [String] = []
    var current = ""
    for value in values {
      if current.count + value.count + 1 > chunkCharacters {
        chunks.append(current)
        current = ""
      }
      current += current.isEmpty ? value : "," + value
    }
    chunks.append(current)
    let strings = chunks.map { "\"\($0)\"" }.joined(separator: ",\n        ")
    return comment + """
          private val \(name)_DATA = arrayOf(
              \(strings))
          val \(name): \(type)Array by lazy { values(\(name)_DATA).map { it.to\(type)() }.to\(type)Array() }
      """
  }

  /// The envelope's data, when it is added in a loop.
  private var envelopeData: [String] {
    guard envelope.count > Self.chainLimit else { return [] }
    return [
      Self.array("ENVELOPE_INTENSITIES", "Float", envelope.map { AHAPWriter.number($0.intensity) }),
      Self.array("ENVELOPE_SHARPNESSES", "Float", envelope.map { AHAPWriter.number($0.sharpness) }),
      Self.array("ENVELOPE_DURATIONS", "Long", envelope.map { String($0.durationMs) }),
    ]
  }

  /// The envelope branch: a chain of calls, or past ``chainLimit`` points a loop over the data.
  private var envelopeBuilder: String {
    guard envelope.count > Self.chainLimit else {
      let calls = envelope.map {
        "                .addControlPoint(\(float($0.intensity)), \(float($0.sharpness)), \($0.durationMs)L)"
      }
      return
        ([
          "            return VibrationEffect.BasicEnvelopeBuilder()",
          "                .setInitialSharpness(\(float(initialSharpness)))",
        ]
        + calls + ["                .build()"]).joined(separator: "\n")
    }
    return """
                  val builder = VibrationEffect.BasicEnvelopeBuilder().setInitialSharpness(\(float(initialSharpness)))
                  for (i in 0 until ENVELOPE_POINTS) {
                      builder.addControlPoint(ENVELOPE_INTENSITIES[i], ENVELOPE_SHARPNESSES[i], ENVELOPE_DURATIONS[i])
                  }
                  return builder.build()
      """
  }

  /// The primitives' data, when they are added in a loop: each one's kind (an index into the
  /// kinds used), scale and delay after the one before.
  private var primitiveData: [String] {
    guard primitives.count > Self.chainLimit, !hasContinuous, primitivesKeepTiming else { return [] }
    let used = Set(primitives.map(\.name)).sorted()
    let delays = primitives.map { String($0.delayMs) }
    return [
      "    private val PRIMITIVE_KINDS = intArrayOf(\(used.map { "VibrationEffect.Composition.\($0)" }.joined(separator: ", ")))",
      Self.array("PRIMITIVE_KIND", "Int", primitives.map { String(used.firstIndex(of: $0.name)!) }),
      Self.array("PRIMITIVE_SCALES", "Float", primitives.map { AHAPWriter.number($0.scale) }),
      Self.array("PRIMITIVE_DELAYS", "Int", delays),
    ]
  }

  /// The branch of `effect(vibrator)` that plays the transients as a composition of
  /// primitives, where the device supports every primitive used.
  private var primitiveComposition: String {
    let used = Set(primitives.map(\.name)).sorted()
    let composed: String
    if primitives.count > Self.chainLimit {
      composed = """
                    val composition = VibrationEffect.startComposition()
                    for (i in PRIMITIVE_KIND.indices) {
                        composition.addPrimitive(PRIMITIVE_KINDS[PRIMITIVE_KIND[i]], PRIMITIVE_SCALES[i], PRIMITIVE_DELAYS[i])
                    }
                    return composition.compose()
        """
    } else {
      let calls = primitives.map { p -> String in
        "                .addPrimitive(VibrationEffect.Composition.\(p.name), \(float(p.scale)), \(p.delayMs))"
      }
      composed = (["            return VibrationEffect.startComposition()"] + calls + ["                .compose()"])
        .joined(separator: "\n")
    }
    return """
          if (Build.VERSION.SDK_INT >= 31 &&
              vibrator.arePrimitivesSupported(\(used.map { "VibrationEffect.Composition.\($0)" }.joined(separator: ", ")))
                  .all { it }) {
      \(composed)
          }

      """
  }

  func float(_ value: Double) -> String { AHAPWriter.number(value) + "f" }
}
