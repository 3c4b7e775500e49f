/// The Kotlin snippet of an ``AndroidEffect``: one `object` with the data and `effect(vibrator)`,
/// which picks, in order: transient primitives (a pattern of transients only, where
/// `arePrimitivesSupported`), the envelope (Android 16, `areEnvelopeEffectsSupported`, within
/// `envelopeEffectInfo`'s limits: points, shortest and longest point, total duration), the amplitude waveform (`hasAmplitudeControl`), the on/off
/// timings.
extension AndroidEffect {
  /// A Kotlin identifier made of a file name: letters and digits, capitalised, `Haptic` suffix.
  public static func identifier(_ name: String) -> String {
    let words = name.split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
    var id = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    if id.isEmpty || id.first!.isNumber { id = "Pattern" + id }
    return String(id.prefix(60)) + "Haptic"
  }

  public func kotlin(name: String) -> String {
    let object = AndroidEffect.identifier(name)
    let envelopeCalls = envelope.map {
      "                .addControlPoint(\(float($0.intensity)), \(float($0.sharpness)), \($0.durationMs)L)"
    }.joined(separator: "\n")
    let primitiveBranch = primitives.isEmpty || hasContinuous ? "" : primitiveComposition
    return """
      // Made by `hap convert --to android` (docs/convert.md): \(durationMs) ms, sampled every \(AndroidEffect.stepMs) ms.
      import android.os.Build
      import android.os.VibrationEffect
      import android.os.Vibrator

      object \(object) {
          /** createWaveform(timings, amplitudes, -1): every device with amplitude control. */
          val TIMINGS = longArrayOf(\(AndroidEffect.list(timings)))
          val AMPLITUDES = intArrayOf(\(AndroidEffect.list(amplitudes)))
          /** Off, on, off, on… for devices without amplitude control. */
          val ON_OFF_TIMINGS = longArrayOf(\(AndroidEffect.list(onOffTimings)))
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
                  return VibrationEffect.BasicEnvelopeBuilder()
                      .setInitialSharpness(\(float(initialSharpness)))
      \(envelopeCalls)
                      .build()
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
      }

      """
  }

  /// The branch of `effect(vibrator)` that plays the transients as a composition of
  /// primitives, where the device supports every primitive used.
  private var primitiveComposition: String {
    let used = Set(primitives.map(\.name)).sorted()
    var previous = 0
    let primitiveCalls = primitives.map { p -> String in
      defer { previous = p.timeMs }
      return
        "            .addPrimitive(VibrationEffect.Composition.\(p.name), \(float(p.scale)), \(p.timeMs - previous))"
    }.joined(separator: "\n")
    return """
          if (Build.VERSION.SDK_INT >= 31 &&
              vibrator.arePrimitivesSupported(\(used.map { "VibrationEffect.Composition.\($0)" }.joined(separator: ", ")))
                  .all { it }) {
              return VibrationEffect.startComposition()
      \(primitiveCalls)
                  .compose()
          }

      """
  }

  func float(_ value: Double) -> String { AHAPWriter.number(value) + "f" }
}
