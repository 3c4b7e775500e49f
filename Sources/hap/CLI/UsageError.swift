import HapCore
import HapRuntime

/// A usage error, with its cause: the option, the value, the range or the choices. It becomes a
/// sentence only where it is printed (``message``, by ``HapCommandLine/usageError(_:command:)``).
/// Exit status 2.
enum UsageError: Error, Equatable {
  // MARK: The parser's

  /// `--name` is not an option of `hap command`; `suggestion`: the closest one.
  case unknownOption(String, command: String, suggestion: String?)
  /// `-x` is not an option of `hap command`.
  case unknownShortOption(Character, command: String)
  /// A flag given a value (`written`, inside `argument` when glued to it: `-qx`).
  case valueNotTaken(String, in: String?)
  /// An option given last, without its value.
  case missingValue(String, valueName: String, choices: [String])
  /// A value outside an option's closed set.
  case notAChoice(String, option: String, choices: [String], suggestion: String?)
  /// A number outside an option's range (or not a number).
  case outOfRange(option: String, range: ClosedRange<Double>, unit: OptionUnit?, given: String)
  /// A whole number outside an option's range (or not one).
  case notAWholeNumber(option: String, range: ClosedRange<Int>, given: String)
  /// A count below `minimum` (or not a whole number).
  case notACount(option: String, minimum: Int, given: String)

  // MARK: The commands'

  /// No pattern argument.
  case noPattern
  /// `hap validate` without files.
  case noPatternFiles
  /// A folder named as input that holds no pattern files.
  case noPatternsInFolder(String)
  /// `hap convert` without an input.
  case noInput
  /// No `-o`; `forms`: what to write, e.g. `-o FILE.wav (or -o - for standard output)`.
  case noOutput(forms: String)
  /// `-` named twice.
  case standardInputTwice
  /// The pattern and `--control` both from standard input.
  case bothFromStandardInput
  /// A command that takes no arguments was given `extra`.
  case noArgumentsTaken(command: String, extra: String)
  /// `--option` needs `other` (written as in help: `'--control FILE'`).
  case needs(String, String)
  /// Two options that do not go together.
  case conflict(String, String)
  /// A word that names none of `what` (a rule, a level, a shell, a format); `known`: the ones
  /// that exist, listed when few; `suggestion`: the closest.
  case unknownName(String, what: String, known: [String], suggestion: String?)
  /// A refusal only one command makes, said where it is found (the value it names is in it).
  /// `--layout` or `--channel` naming no layout.
  case layout(LayoutFailure)
  /// `--actuator left|right` without a layout of a left and a right actuator; `onDevice`: the
  /// command plays, so `-D dualsense` gives one too.
  case actuatorWithoutPair(String, onDevice: Bool)
  /// `--layout NAME` (`needs` channels) with fewer `--channels`.
  case layoutBeyond(layout: String, needs: Int, channels: Int)
  case refused(String)

  /// The sentence printed after `hap: `.
  var message: String {
    switch self {
    case .unknownOption(let name, let command, let suggestion):
      "unknown option '--\(name)' for 'hap \(command)'" + Self.hint(suggestion.map { "--" + $0 })
    case .unknownShortOption(let letter, let command):
      "unknown option '-\(letter)' for 'hap \(command)'"
    case .valueNotTaken(let written, let argument?):
      "option '\(written)' takes no value (in '\(argument)')"
    case .valueNotTaken(let written, nil):
      "option '\(written)' takes no value"
    case .missingValue(let written, let valueName, let choices):
      "option '\(written)' needs a value (\(valueName)\(Self.list(choices)))"
    case .notAChoice(let value, let option, let choices, let suggestion):
      "'\(value)' is not a valid value for '\(option)'\(Self.list(choices))" + Self.hint(suggestion)
    case .outOfRange(let option, let range, let unit, let given):
      "'--\(option)' must be a number\(Self.unitBefore(unit)) from \(Format.number(range.lowerBound)) to \(Format.number(range.upperBound))\(Self.unitAfter(unit)), not '\(Format.excerpt(given))'"
    case .notAWholeNumber(let option, let range, let given):
      "'--\(option)' must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(Format.excerpt(given))'"
    case .notACount(let option, let minimum, let given):
      "'--\(option)' takes a count of \(minimum) or more, not '\(Format.excerpt(given))'"
    case .noPattern: "no pattern given"
    case .noPatternFiles: "no pattern files given; name files, folders, or '-' for standard input"
    case .noPatternsInFolder(let folder):
      "no pattern files in '\(Format.excerpt(folder))' (searched for *.ahap, *.json and *.haptic)"
    case .noInput: "no input given"
    case .noOutput(let forms): "no output given; use \(forms)"
    case .standardInputTwice: "'-' (standard input) can be given only once"
    case .bothFromStandardInput: "the pattern and the control stream cannot both come from standard input"
    case .noArgumentsTaken(let command, let extra):
      "'hap \(command)' takes no arguments, not '\(Format.excerpt(extra))'"
    case .needs(let option, let other): "'\(option)' needs \(other)"
    case .conflict(let first, let second): "'\(first)' and '\(second)' cannot be given together"
    case .unknownName(let word, let what, let known, let suggestion):
      "'\(Format.excerpt(word))' is not \(what)\(known.isEmpty ? "" : " (\(known.joined(separator: ", ")))")"
        + Self.hint(suggestion)
    case .layout(let failure): Self.message(failure)
    case .actuatorWithoutPair(let actuator, let onDevice):
      "'--actuator \(actuator)' needs a layout with a left and a right actuator ('--layout dualsense' or 'pair'\(onDevice ? ", or -D dualsense" : ""))"
    case .layoutBeyond(let layout, let needs, let channels):
      "'--layout \(Format.excerpt(layout))' takes \(needs) channels, more than '--channels \(channels)'"
    case .refused(let sentence): sentence
    }
  }

  private static func hint(_ suggestion: String?) -> String {
    suggestion.map { "; did you mean '\($0)'?" } ?? ""
  }

  private static func list(_ choices: [String]) -> String {
    choices.isEmpty ? "" : ": one of " + choices.joined(separator: ", ")
  }

  /// `of dB`, `of seconds`: units a message names before the range; others follow it (`ms`).
  private static func unitBefore(_ unit: OptionUnit?) -> String {
    switch unit {
    case .decibels: " of dB"
    case .seconds: " of seconds"
    default: ""
    }
  }

  private static func unitAfter(_ unit: OptionUnit?) -> String {
    switch unit {
    case .milliseconds: " ms"
    case .hertz: " Hz"
    default: ""
    }
  }

  /// `--layout` or `--channel` naming no layout, in words.
  static func message(_ failure: LayoutFailure) -> String {
    switch failure {
    case .notAChannel(let given):
      "'--channel' must be a channel number from 1 to 64, a list of them (3,4), 'all', routes (haptic=3/audio=1,2) or a layout's name (\(ChannelLayout.namesLine)), not '\(Format.excerpt(given))'"
    case .channelBeyond(let k, let channels, let written?) where written != String(k):
      "'--channel \(Format.excerpt(written))' names channel \(k), beyond '--channels \(channels)'"
    case .channelBeyond(let k, let channels, _): "'--channel \(k)' is beyond '--channels \(channels)'"
    case .channelTwice(let given, let k):
      "'--channel \(Format.excerpt(given))' names channel \(k) twice: each channel plays one signal"
    case .audioNeedsTwoChannels(let given):
      "'--channel \(Format.excerpt(given))': the sound takes two channels, left and right (audio=1,2)"
    case .notALayout(let given):
      "'--layout' must be \(DeviceLayout.builtIns.map { "'\($0.name)'" }.joined(separator: ", ")) or a channel map, one word per channel (\(SignalChannel.allCases.map(\.mapWord).joined(separator: ", ")) or -: e.g. left,right,haptic,haptic), not '\(Format.excerpt(given))'"
    }
  }
}
