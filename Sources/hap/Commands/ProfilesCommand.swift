import HapCore

/// `hap profiles`: the built-in actuator profiles and their values.
enum ProfilesCommand: Command {
  static let name = "profiles"
  static let summary = "List the built-in actuator profiles, or check a profile file."
  static let forms = ["[PROFILE-FILE...]"]
  static let description = """
    An actuator profile maps sharpness to the carrier frequency (logarithmically between
    MinimumFrequency and MaximumFrequency) and intensity to amplitude
    (MaximumAmplitude * intensity ^ IntensityExponent), and sets a transient's length in
    carrier cycles. Without arguments, lists the built-ins; with files, checks and shows them.
    Use one with --profile NAME|FILE on render, info and play. A profile file is JSON:

      {"Name": "shaker", "Description": "bass shaker under the seat",
       "MinimumFrequency": 30, "MaximumFrequency": 120,
       "IntensityExponent": 1.5, "MaximumAmplitude": 0.8, "TransientCycles": 2}

    Every key but Name is optional (default: the exciter profile's value).
    """
  static let options: [any DeclaredOption] = [Options.format]
  static let examples = [
    ("hap profiles", "See the built-in profiles"),
    ("hap profiles my-shaker.json", "Check a profile file"),
  ]

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
    var profiles = ActuatorProfile.builtIns
    if !arguments.positionals.isEmpty {
      profiles = []
      for path in arguments.positionals {
        do {
          profiles.append(try PatternLoading.profile(path))
        } catch {
          return ExitStatus.trouble
        }
      }
    }
    if arguments[Options.format] == .json {
      Console.line(
        JSONOutput.array(
          profiles.map { p in
            JSONOutput.object([
              ("name", JSONOutput.string(p.name)), ("description", JSONOutput.string(p.description)),
              ("minimumFrequency", JSONOutput.number(p.minimumFrequency)),
              ("maximumFrequency", JSONOutput.number(p.maximumFrequency)),
              ("intensityExponent", JSONOutput.number(p.intensityExponent)),
              ("maximumAmplitude", JSONOutput.number(p.maximumAmplitude)),
              ("transientCycles", JSONOutput.number(p.transientCycles)),
              ("frequencyScale", JSONOutput.string(p.frequencyScale.rawValue)), ("emphasis", p.emphasisJSON),
            ])
          }))
      return ExitStatus.ok
    }
    for (index, p) in profiles.enumerated() {
      if index > 0 { Console.line("") }
      Console.line(Console.shownLines("\(p.name): \(p.description)"))
      for line in p.mappingLines { Console.line("  " + line) }
    }
    return ExitStatus.ok
  }
}
