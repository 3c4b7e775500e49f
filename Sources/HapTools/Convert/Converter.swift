import HapFormat
import HapPlayback
import HapRender

/// The formats `hap convert` knows, and whether each direction is built yet.
public enum ConversionFormat: String, Sendable, CaseIterable {
  case ahap
  case haptic
  case audio
  case android
  /// Android's vibration XML (`vibration-select`, Android 16): ``AndroidXML``.
  case androidXML = "android-xml"

  /// The format a file name's extension says, if any: `.ahap`/`.json` AHAP, `.haptic` Meta's
  /// clip, `.wav` and other audio.
  public init?(fileName: String) {
    guard let dot = fileName.lastIndex(of: "."), !fileName[dot...].contains("/") else { return nil }
    switch fileName[fileName.index(after: dot)...].lowercased() {
    case "ahap", "json": self = .ahap
    case "haptic": self = .haptic
    case "wav", "wave", "flac", "ogg", "oga", "mp3", "aif", "aiff": self = .audio
    case "kt": self = .android
    case "xml": self = .androidXML
    default: return nil
    }
  }

  /// What `--from`/`--to` accept: the format names, `android` and `android-xml`.
  public init?(name: String) {
    switch name.lowercased() {
    case "ahap", "json": self = .ahap
    case "haptic": self = .haptic
    case "audio", "wav": self = .audio
    case "android", "kotlin": self = .android
    case "android-xml": self = .androidXML
    default: return nil
    }
  }

  /// The extension hap gives an output of this format in a folder.
  public var fileExtension: String {
    switch self {
    case .ahap: "ahap"
    case .haptic: "haptic"
    case .audio: "wav"
    case .android: "json"
    case .androidXML: "xml"
    }
  }
}

/// One conversion, from bytes to bytes: the input read with its findings, converted by the
/// converter of that direction, and the output checked with hap's own rules before the caller
/// writes it.
public enum Converter {
  public enum Failure: Error, Sendable, Equatable {
    /// The input has errors (exit 1); these are its findings.
    case invalidInput([Diagnostic])
    /// No converter for that direction yet (a usage error): the sentence says so.
    case notBuilt(String)
    /// The output failed hap's own checks: a bug in the converter (exit 2), with its findings.
    case invalidOutput([Diagnostic])
    /// `--portable` cannot rewrite the input faithfully (exit 1): the sentence says why.
    case notPortable(String)
    /// The input cannot become a pattern (exit 1): a sound that is not WAV or is silent; the
    /// sentence says why.
    case unusableInput(String)
    /// A sound of `seconds`, longer than a pattern may be (`pattern-too-long`, an hour): refused
    /// before it is analysed (exit 1); ``sentence`` says how to cut it.
    case soundTooLong(seconds: Double)

    /// The longest sound `hap convert` takes: the longest pattern (``ValidationContext/defaultLongestPattern``).
    public static let longestSound = ValidationContext.defaultLongestPattern

    /// The one sentence for ``soundTooLong(seconds:)``.
    public static func tooLongSentence(seconds: Double) -> String {
      "the sound lasts \(Format.duration(seconds)), and a pattern is at most an hour long (\(Format.seconds(longestSound)), hap's pattern-too-long rule); cut it into parts of an hour or less first, e.g. 'sox IN.wav PART.wav trim 0 1:00:00 : newfile : restart'"
    }
  }

  /// How to convert: `--portable` (AHAP to AHAP), and for `--to android` whether the output is
  /// the Kotlin snippet (an OUTPUT ending in `.kt`) or the JSON description.
  public struct Options: Sendable {
    public var portable: Bool
    public var kotlin: Bool
    /// The name the Kotlin snippet gives its object (from the input's file name).
    public var name: String
    public init(portable: Bool = false, kotlin: Bool = false, name: String = "pattern") {
      self.portable = portable
      self.kotlin = kotlin
      self.name = name
    }
  }

  public struct Output: Sendable {
    /// The bytes to write.
    public var bytes: [UInt8]
    /// The input's findings (warnings and notes; errors make a `Failure`).
    public var diagnostics: [Diagnostic]
    /// What was approximated, one sentence each (`--verbose`).
    public var approximations: [String]
    /// The input and the output as hap plays them, to score the one against the other
    /// (``FeelComparison``); nil where the output is not read back (audio input). An Android
    /// output's result is what it plays first (``AndroidPlayedPattern``).
    public var source: Pattern? = nil
    public var result: Pattern? = nil

    /// The AudioCustom events of the input (nil when it is not read back as a pattern).
    public var soundEvents: Int? { source?.events.filter { $0.type == .audioCustom }.count }
  }

  /// Whether `from` → `to` is built: the later directions say so in one sentence.
  public static func check(from: ConversionFormat, to: ConversionFormat) -> String? {
    switch (from, to) {
    case (.ahap, .haptic), (.haptic, .ahap), (.haptic, .haptic), (.ahap, .ahap), (.ahap, .android), (.haptic, .android),
      (.ahap, .androidXML), (.haptic, .androidXML), (.audio, .ahap):
      nil
    case (.audio, _):
      "hap converts audio to AHAP only ('-o NAME.ahap' or '--to ahap'); convert that AHAP on to another format"
    case (_, .audio): "hap does not convert to audio; 'hap render' writes a pattern's drive signal as WAV"
    case (.android, _), (.androidXML, _):
      "hap does not read Android effects; it converts .haptic to AHAP and AHAP to .haptic"
    }
  }

  /// A sound (WAV bytes; other formats decoded by the caller) to AHAP, checked as every AHAP
  /// output is.
  public static func convertAudio(
    _ signal: AudioSignal, options: AudioConversionOptions = AudioConversionOptions()
  ) throws(Failure) -> Output {
    // Before the analysis, which takes time in proportion: a pattern cannot hold more.
    guard signal.duration <= Failure.longestSound else { throw .soundTooLong(seconds: signal.duration) }
    let converted = AudioToAHAP.convert(signal, options: options)
    guard let pattern = converted.pattern else {
      throw .unusableInput(
        signal.samples.isEmpty
          ? "the sound has no samples: nothing to convert"
          : "the sound is silent (below \(Format.number(AudioAnalysis.silenceFloorDB)) dBFS) or every event is turned off: nothing to convert"
      )
    }
    let text = Array(AHAPWriter.text(pattern).utf8)
    let check = Validator.validate(text)
    guard check.isStrictlyValid else { throw .invalidOutput(check.diagnostics) }
    return Output(bytes: text, diagnostics: [], approximations: converted.approximations)
  }

  public static func convert(
    _ bytes: [UInt8], from: ConversionFormat, to: ConversionFormat,
    context: ValidationContext = ValidationContext(), options: Options = Options(),
    audio: AudioConversionOptions = AudioConversionOptions()
  ) throws(Failure) -> Output {
    if let refusal = check(from: from, to: to) { throw .notBuilt(refusal) }
    if from == .audio {
      let signal: AudioSignal
      do {
        signal = try AudioSignal.wav(bytes)
      } catch {
        throw .unusableInput(error.message)
      }
      return try convertAudio(signal, options: audio)
    }
    var (input, pattern, approximations) = try read(bytes, from: from, context: context)
    if options.portable {
      let findings = input.diagnostics.filter { PortableAHAP.unfixable.contains($0.rule) }
      if let first = findings.first {
        throw .notPortable("\(first.rule): \(first.message); --portable has no faithful rewrite for it")
      }
      let portable = PortableAHAP.convert(pattern, findings: input.diagnostics)
      pattern = portable.pattern
      approximations += portable.rewrites
    }
    var output = try write(
      pattern, from: from, to: to, input: input, context: context, options: options, approximations: approximations)
    // The input as hap plays it: a clip through hap's reading, not the one written for iOS.
    output.source = from == .haptic ? HapticReading.read(SourceText(bytes)).pattern : pattern
    return output
  }

  /// Reads a pattern (AHAP, or a `.haptic` clip converted): its findings, the pattern, and what
  /// the reading approximated.
  private static func read(_ bytes: [UInt8], from: ConversionFormat, context: ValidationContext) throws(Failure) -> (
    input: ValidationResult, pattern: Pattern, approximations: [String]
  ) {
    switch from {
    case .haptic:
      // Written out for iOS: with Lofelt's dip under each emphasis (iOS has no ducking).
      let read = HapticReading.read(SourceText(bytes), dippingUnderEmphases: true)
      guard read.result.isValid, let converted = read.pattern else { throw .invalidInput(read.result.diagnostics) }
      return (read.result, converted, read.approximations)
    default:
      let input = Validator.validate(bytes, context: context)
      guard input.isValid, let decoded = input.pattern else { throw .invalidInput(input.diagnostics) }
      return (input, decoded, [])
    }
  }

  /// Writes `pattern` in the format `to`, checking what is written (an output that does not read
  /// back as valid is `invalidOutput`); `input` is what reading it found.
  private static func write(
    _ pattern: Pattern, from: ConversionFormat, to: ConversionFormat, input: ValidationResult,
    context: ValidationContext, options: Options, approximations: [String]
  ) throws(Failure) -> Output {
    var approximations = approximations
    switch to {
    case .android:
      let effect = AndroidEffect(pattern)
      approximations += effect.losses
      let text = options.kotlin ? effect.kotlin(name: options.name) : effect.json()
      approximations.append(AndroidPlayedPattern.scoredNote(effect.firstBranch, where: "the first branch"))
      return Output(
        bytes: Array(text.utf8), diagnostics: input.diagnostics, approximations: approximations,
        result: AndroidPlayedPattern.pattern(effect.firstBranch, effect: effect))
    case .androidXML:
      let effect = AndroidEffect(pattern)
      let xml = AndroidXML(effect)
      approximations += xml.approximations
      if pattern.events.contains(where: { $0.type.isAudio }) { approximations.append("audio events are left out") }
      let first = xml.alternatives[0]
      approximations.append(AndroidPlayedPattern.scoredNote(first, where: "the first alternative"))
      return Output(
        bytes: Array(xml.text.utf8), diagnostics: input.diagnostics, approximations: approximations,
        result: AndroidPlayedPattern.pattern(first, effect: effect))
    case .haptic:
      let reverse = AHAPToHaptic.convert(pattern)
      approximations += reverse.approximations
      let text = Array(HapticWriter.text(reverse.clip).utf8)
      let check = HapticReading.read(SourceText(text)).result
      guard check.isValid else { throw .invalidOutput(check.diagnostics) }
      return Output(
        bytes: text, diagnostics: input.diagnostics, approximations: approximations, result: check.pattern)
    default:
      let text = Array(AHAPWriter.text(pattern).utf8)
      let check = Validator.validate(text, context: context)
      guard check.isStrictlyValid || (from == .ahap && !options.portable && check.isValid) else {
        throw .invalidOutput(check.diagnostics)
      }
      return Output(
        bytes: text, diagnostics: input.diagnostics, approximations: approximations, result: check.pattern)
    }
  }
}

/// A `.haptic` clip read as a pattern, for `validate`, `render`, `info`, `play` and `convert`:
/// the findings speak of the clip (positions and JSON pointers in it); the pattern is its
/// conversion to AHAP.
public enum HapticReading {
  public struct Read: Sendable {
    /// The converted pattern and the clip's findings.
    public var result: ValidationResult
    public var pattern: Pattern? { result.pattern }
    /// What the conversion approximated (not findings: it is the conversion's, not the clip's).
    public var approximations: [String]
  }

  /// `dippingUnderEmphases`: the AHAP written for iOS, Lofelt's 20 % dip of the intensity at
  /// each emphasis's breakpoint; hap's own reading (render, play) leaves it out: Meta's renderer
  /// ducks the continuous signal under a burst itself, as hap does with an ACF's emphasis.
  public static func read(_ source: SourceText, dippingUnderEmphases: Bool = false) -> Read {
    var (clip, findings) = HapticClipDecoder.decode(source)
    guard let clip else {
      return Read(
        result: ValidationResult(pattern: nil, diagnostics: findings.diagnostics(in: source)), approximations: [])
    }
    let converted = HapticToAHAP.convert(clip, for: dippingUnderEmphases ? .iOS : .hap)
    var approximations: [String] = []
    for adjustment in converted.adjustments {
      if adjustment.aboutClip {
        findings.add(.hapticClipAdjusted, adjustment.message, at: adjustment.offset, pointer: "")
      } else {
        approximations.append(adjustment.message)
      }
    }
    // The converted pattern must pass hap's own checks; if it does not, that is a bug, said
    // at the clip's start.
    let written = Validator.validate(Array(AHAPWriter.text(converted.pattern).utf8))
    for finding in written.diagnostics where finding.severity != .note {
      findings.add(
        Rule(id: finding.rule, severity: finding.severity),
        "in the AHAP hap made of this clip (a bug in hap's conversion): \(finding.message)", at: 0, pointer: "")
    }
    return Read(
      result: ValidationResult(
        pattern: written.pattern ?? converted.pattern, diagnostics: findings.diagnostics(in: source)),
      approximations: approximations)
  }

  /// Whether a file name says it is a `.haptic` clip.
  public static func isClip(_ fileName: String) -> Bool { ConversionFormat(fileName: fileName) == .haptic }
}
