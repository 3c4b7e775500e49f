import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

/// `hap render`: the drive signal of a pattern as a WAV (or raw) file.
enum RenderCommand: Command {
  static let name = "render"
  static let summary = "Render patterns to WAV (or raw) files: exactly what the exciter would play."
  static let forms = ["PATTERN -o OUT.wav", "PATTERN...|FOLDER... -o FOLDER/ [options]"]
  static let description = """
    Renders each pattern with the same renderer 'hap play' uses, so what you preview is what
    the exciter plays. Output is mono (unless a layout gives it channels, below): a standard WAV
    file (sox, Python's wave module and Audacity read it), or headerless samples with --raw or
    an OUT ending in .raw or .pcm; any other extension is refused unless --raw is given. '-o -'
    writes to standard output: hap render x.json -o - | aplay (not to a terminal, unless
    --force).

    With several patterns, a folder of them (searched as 'hap validate' searches it: *.ahap,
    *.json, *.haptic), or an OUT ending in '/', OUT is a folder (created if missing, as mkdir -p)
    and each pattern becomes NAME.wav in it, a subfolder's pattern in the same subfolder; a
    folder with '-o FILE.wav' is refused. Files are written atomically (a temporary file, then
    renamed, then the folder synced), so an interrupted or failed render never leaves a partial
    file; a FIFO, a device such as /dev/null, or /dev/fd/N is written directly, never replaced.
    The summary line is printed only once the output is complete. A pattern with errors is
    refused with its diagnostics (exit 1); an unwritable output, a failed write, close or
    rename, a bad rate or format is exit 2.

    Audio events (AudioCustom sounds, AudioContinuous tones) are not part of the haptic signal:
    --audio FILE writes them, the pattern's audio track, as a stereo WAV (raw for .raw/.pcm or
    --raw) at the same rate and sample format, and both files are as long, covering the last
    sound (sounds are found beside the pattern, then in --sound-path and $HAP_SOUND_PATH, and
    resampled to --rate). Frame k of one is the same instant as frame k of the other. Both are
    written block by block together (so two FIFOs can be read at once), atomically; '--audio -'
    is standard output. With a folder of patterns --audio names a folder too. A sound that
    cannot be found or decoded refuses the pattern (exit 1). Without --audio one note says the
    audio track was not written. With --control, the sound follows the transport (pause, seek,
    stop, loops, rate), as 'hap play --control' plays it.

    --channels, --channel and --layout write one file of several channels, each what 'hap play'
    would send to that channel of a device with the same options: the haptic signal, the sound's
    left or right channel, or silence. '--layout dualsense' writes the DualSense's four (the sound
    on 1-2, the actuators on 3-4, with its profile unless --profile);
    '--channel haptic=3/audio=1,2' three; '--channels 2' the haptic signal twice; a channel named
    twice is refused. A layout that carries the sound writes the audio track into its channels,
    so --audio is then refused.

    A pattern is at most an hour long (pattern-too-long): --max-duration raises that limit for
    one render. A WAV file whose data passes 4 GiB is written as RF64 (sox and ffmpeg read it).
    On a terminal, a render that takes more than a second shows its progress.
    """
  static let output = Option<String?>.text(
    "output", short: "o", "OUT", .files, "Output file, folder (several patterns) or '-' for standard output.")
  /// The largest `--max-duration`: 1,000,000 s (11.5 days), far below any frame count or file
  /// size that could overflow.
  static let maxDuration = Option<Double>.number(
    "max-duration", "S", in: 0.001...1_000_000, unit: .seconds, default: ValidationContext.defaultLongestPattern,
    "The longest pattern to render, {}:\nlater events, parameters and curve points are errors (pattern-too-long).")
  static let control = Option<String?>.text(
    "control", "FILE", .files,
    "Apply a file of timestamped control lines ('@1.25 intensity 0.8', 'seek 2',\n'pause', ...; see 'hap help play'), deterministically."
  )

  static let options: [any DeclaredOption] =
    [
      output, Options.rate, Options.sampleFormat, Options.profile, Options.gain, Options.raw, Options.force,
      maxDuration,
      control, ControlInput.mapOption, Options.quiet, Options.soundPath, RenderAudio.option,
    ] + RenderLayout.options
  static let examples = [
    ("hap render patterns/correct.json -o correct.wav", "Preview a pattern"),
    ("hap render patterns/*.json -o previews/", "Render the whole vocabulary into a folder"),
    ("hap render patterns/winner.json -o - | aplay", "Listen through the speakers"),
    ("hap render Spawn.ahap -o spawn.wav --audio spawn-sound.wav", "The haptic signal and its sound, aligned"),
    (
      "hap render Spawn.ahap -o spawn-dualsense.wav --layout dualsense",
      "One 4-channel file: sound on 1-2, actuators 3-4"
    ),
    ("hap render patterns/ -o previews/", "A folder: one WAV per pattern, names kept"),
    ("hap render x.ahap -o x.raw --sample-format f32 --rate 8000", "Raw float samples at 8 kHz"),
    (
      "hap render patterns/texture.json --control examples/drag-trace.txt --map velocity -o drag.wav",
      "Preview a recorded drag gesture on the texture"
    ),
  ]

  struct Settings {
    var rate: Int
    var format: SampleFormat
    var profile: ActuatorProfile
    /// What `--profile` names (a file, or a built-in profile's name).
    var profileFile: String?
    var gain: Double
    var raw: Bool
    var quiet: Bool
    var force = false
    var control: ControlInput?
    var maxDuration = ValidationContext.defaultLongestPattern
    /// `--channels`, `--channel`, `--layout`: a file of several channels; nil: mono.
    var layout: RenderLayout?
    /// How the patterns and their sounds are read (`--sound-path`).
    var reading = PatternReading(stop: Interrupt.stop)
  }

  static func settings(_ arguments: Arguments) throws(UsageError) -> Settings {
    var settings = Settings(
      rate: arguments[Options.rate], format: arguments[Options.sampleFormat] ?? .s16, profile: .exciter,
      gain: arguments[Options.gain], raw: arguments[Options.raw], quiet: arguments[Options.quiet],
      force: arguments[Options.force])
    let map = try ControlInput.map(arguments)
    let control = arguments[Self.control]
    if map != nil && control == nil { throw .needs("--map", "'--control FILE'") }
    settings.control = control.map { ControlInput.command(name: $0, map: map) }
    settings.maxDuration = arguments[maxDuration]
    settings.layout = try RenderLayout.parse(arguments)
    settings.reading = arguments.reading
    return settings
  }

  static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
    var settings = try settings(arguments)
    guard !arguments.positionals.isEmpty else { throw .noPattern }
    guard let output = arguments[Self.output] else {
      throw .noOutput(forms: "-o FILE.wav (or -o - for standard output)")
    }
    if arguments.positionals.filter({ $0 == "-" }).count > 1 { throw .standardInputTwice }
    let inputs = try PatternFolders.command(arguments.positionals)
    if settings.control != nil && (inputs.paths.count > 1 || inputs.hasFolder) {
      throw .refused("'--control' takes a single pattern")
    }
    if settings.control?.name == "-" && inputs.paths.contains("-") { throw .bothFromStandardInput }
    settings.profileFile = arguments[Options.profile]
    do {
      settings.profile = try PatternLoading.profile(
        arguments[Options.profile] ?? settings.layout?.deviceLayout?.profile)
    } catch {
      return ExitStatus.trouble
    }
    if (output == "-" || arguments[RenderAudio.option] == "-") && Console.stdoutIsTerminal && !settings.force {
      throw .refused(terminalRefusal)
    }
    guard let jobs = try plan(inputs, output: output, audio: arguments[RenderAudio.option], settings: settings) else {
      return ExitStatus.trouble
    }
    Interrupt.install()
    var status = ExitStatus.ok
    var unwritten = RenderAudio.Unwritten()
    for job in jobs {
      let result = render(job.pattern, to: job.output, audio: job.audio, settings: settings, unwritten: &unwritten)
      if result == ExitStatus.interrupted { return result }
      if result == ExitStatus.trouble || (result == ExitStatus.failure && status == ExitStatus.ok) { status = result }
    }
    if !settings.quiet, let note = unwritten.note(fix: .audioOption) { Console.error(note) }
    return status
  }

  /// One render: a pattern, its output and its audio track's (`--audio`).
  struct Job {
    var pattern: String
    var output: String
    var audio: String?
  }

  /// The renders to make, their folders created; nil after a message when they cannot be.
  static func plan(_ inputs: PatternFolders, output: String, audio: String?, settings: Settings) throws(UsageError)
    -> [Job]?
  {
    let (jobs, folders) = try self.jobs(inputs, output: output, raw: settings.raw)
    var plan = jobs.map { Job(pattern: $0.pattern, output: $0.output) }
    var all = folders
    var outputs = jobs
    if let audio {
      try RenderAudio.check(audio, output: output, settings: settings)
      let (tracks, trackFolders) = try self.jobs(inputs, output: audio, raw: settings.raw)
      // Resolved, not as spelled: `-o out/ --audio ./out/` is one folder even before it exists.
      let written = Set(jobs.map { OutputPlan.resolved($0.output) })
      for track in tracks where track.output != "-" && written.contains(OutputPlan.resolved(track.output)) {
        throw .refused(
          "--audio and -o would both write '\(Format.excerpt(track.output))': give the audio tracks their own folder")
      }
      for k in plan.indices { plan[k].audio = tracks[k].output }
      all += trackFolders
      outputs += tracks
    }
    let reading = ReadFile.inputs(
      patterns: inputs.paths, sounds: settings.reading.sounds, controlStream: settings.control?.name,
      profile: settings.profileFile)
    guard prepareOutputs(outputs, folders: all, reading: reading) else { return nil }
    for (path, given) in [(jobs[0].output, output), (plan[0].audio, audio)] where jobs.count == 1 && path == given {
      if let path { try checkExtension(path, raw: settings.raw) }
    }
    return plan
  }

  static let terminalRefusal =
    "refusing to write binary audio to a terminal; redirect standard output (> out.wav, | aplay) or add --force"

  /// Refuses an output file named for a format hap does not write (`-o x.png`) unless `--raw`.
  static func checkExtension(_ output: String, raw: Bool) throws(UsageError) {
    guard let ext = FileSink.unwrittenExtension(output, raw: raw) else { return }
    throw .refused(
      "'.\(Format.excerpt(ext, limit: 20))' is not a format hap writes: name the output .wav (WAV) or .raw or .pcm (raw samples), or add --raw to write raw samples under any name"
    )
  }

  /// Where each pattern goes: `output` itself for one pattern, or FOLDER/NAME.wav for several
  /// (or a folder of them, or when `output` ends in '/' or is a folder), and the folders to
  /// create first (`mkdir -p`) if missing.
  static func jobs(_ inputs: PatternFolders, output: String, raw: Bool) throws(UsageError) -> (
    [(pattern: String, output: String)], folders: [String]
  ) {
    try jobs(inputs, output: output, suffix: raw ? ".raw" : ".wav", fileExtensions: FileSink.writtenExtensions)
  }

  /// The same for any kind of output file (`hap plot`: NAME.svg): ``OutputPlan/jobs(_:output:suffix:fileExtensions:)``.
  static func jobs(_ inputs: PatternFolders, output: String, suffix: String, fileExtensions: Set<String>)
    throws(UsageError) -> ([(pattern: String, output: String)], folders: [String])
  {
    do throws(OutputPlanFailure) {
      return try OutputPlan.jobs(inputs, output: output, suffix: suffix, fileExtensions: fileExtensions)
    } catch {
      throw .refused(outputPlanMessage(error))
    }
  }

  /// A plan's failure in words.
  static func outputPlanMessage(_ failure: OutputPlanFailure) -> String {
    switch failure {
    case .noPatternsInFolder(let folder):
      "no pattern files in '\(Format.excerpt(folder))' (searched for *.ahap, *.json and *.haptic)"
    case .standardOutputTakesOne(let folder):
      folder ? "'-o -' takes a single pattern, not a folder of them" : "'-o -' takes a single pattern"
    case .notAFolder(let output, let folder, let suggested):
      "\(folder ? "with a folder of patterns" : "with several patterns"), -o must name a folder ('\(output)' is not one): name the folder for one output per pattern, e.g. -o '\(suggested)/'"
    case .looksLikeAFile(let output, let folder, let suggested):
      "\(folder ? "with a folder of patterns" : "with several patterns"), -o names a folder, and '\(output)' looks like a file name: write -o '\(suggested)/', or '\(output)/' to make a folder of that name"
    case .sameOutput(let target): "two patterns would both be written to '\(target)'"
    case .cannotCreate(let folder, 0): "cannot create the folder '\(folder)': a file of that name is in the way"
    case .cannotCreate(let folder, let code): "cannot create the folder '\(folder)': \(String(cString: strerror(code)))"
    case .overInput(let output, let input):
      "refusing to write over \(input.role.words("'\(Format.excerpt(input.path))'")): the output '\(Format.excerpt(output))' is that file"
    }
  }

  /// Makes the outputs of `jobs` ready to write: refuses an output that is one of the files
  /// read (``OutputPlan/refuseOverwriting(_:_:)``: render, plot and convert never write over
  /// what they read), then creates `folders` (`mkdir -p`). Says why on standard error and
  /// returns false when it cannot; nothing is written then.
  static func prepareOutputs(_ jobs: [(pattern: String, output: String)], folders: [String], reading: [ReadFile])
    -> Bool
  {
    do throws(OutputPlanFailure) {
      try OutputPlan.refuseOverwriting(jobs.map(\.output), reading)
      for folder in folders { try OutputPlan.createFolder(folder) }
      return true
    } catch {
      Console.error("hap: \(outputPlanMessage(error))")
      return false
    }
  }

  /// Renders one pattern to one output (and its audio track to `audio`); returns its exit
  /// status. Control messages come from `settings.control`, or are given (`hap drag -o`
  /// passes a recorded gesture's).
  /// `unwritten`: counts an audio track left unwritten (said once at the end of the run).
  static func render(
    _ patternPath: String, to output: String, audio: String? = nil, settings: Settings,
    messages given: [ControlMessage]? = nil, unwritten: inout RenderAudio.Unwritten
  ) -> Int32 {
    for path in [output, audio] where path == "-" && Console.stdoutIsTerminal && !settings.force {
      Console.error("hap: \(terminalRefusal)")
      return ExitStatus.trouble
    }
    let pattern: Pattern
    do {
      pattern = try PatternLoading.load(
        patternPath, reading: settings.reading, quietWarnings: settings.quiet, longestPattern: settings.maxDuration,
        renderRate: Double(settings.rate))
    } catch {
      return PatternLoading.status(error)
    }
    let name = patternPath == "-" ? "<stdin>" : patternPath
    let schedule = Schedule(
      pattern: pattern, profile: settings.profile, rate: Double(settings.rate), gain: pow(10, settings.gain / 20))
    let writesTrack = audio != nil || settings.layout?.routesAudio == true
    let track: PatternAudio.Track?
    switch RenderAudio.renderer(
      pattern, named: name, patternPath: patternPath, schedule: schedule, written: writesTrack,
      search: settings.reading.sounds)
    {
    case .success(let made): track = made
    case .failure(let failure): return RenderAudio.status(failure)
    }
    if !writesTrack && schedule.skippedAudioEvents > 0 {
      unwritten.patterns += 1
      unwritten.events += schedule.skippedAudioEvents
    }
    let sound = Sound(track: track, written: writesTrack, file: audio.map { ($0, FileSink.isRaw($0, flag: settings.raw)) })
    guard var job = prepare(pattern, schedule, named: name, to: output, settings: settings, given: given, sound: sound)
    else {
      // Ctrl-C while waiting for a --control FIFO's writer
      return Interrupt.requested ? ExitStatus.interrupted : ExitStatus.trouble
    }
    return write(&job, settings: settings)
  }

  /// A render's audio track: its renderer and sounds (nil: the pattern has none, or they
  /// cannot be had and the track is not written), whether it is written (`--audio`, or a
  /// layout's channels), and `--audio`'s file.
  struct Sound {
    var track: PatternAudio.Track?
    var written: Bool
    var file: (path: String, raw: Bool)?
  }

  /// What renders `schedule` (``RenderJob/compose(_:_:named:to:raw:profile:format:parts:)``):
  /// the control messages' player when there are any; nil after a message.
  static func prepare(
    _ pattern: Pattern, _ schedule: Schedule, named name: String, to output: String, settings: Settings,
    given: [ControlMessage]?, sound: Sound
  ) -> RenderJob? {
    let raw = FileSink.isRaw(output, flag: settings.raw)
    let sounds = sound.written ? sound.track?.sounds : nil
    var controlled: (player: Player, frames: Int)?
    if settings.control != nil || given != nil {
      let length = sounds == nil ? schedule.frameCount : sound.track?.renderer.frameCount ?? schedule.frameCount
      guard
        let (player, frames) = controlledPlayer(
          pattern: pattern, schedule: schedule, settings: settings, given: given, raw: raw, sounds: sounds,
          length: length)
      else { return nil }
      controlled = (player, frames)
    }
    let parts = RenderJob.Parts(
      track: sound.track, writesTrack: sound.written, trackFile: sound.file, controlled: controlled,
      layout: settings.layout)
    switch RenderJob.compose(
      pattern, schedule, named: name, to: output, raw: raw, profile: settings.profile, format: settings.format,
      parts: parts)
    {
    case .success(let job): return job
    case .failure(let tooLong):
      Console.error("hap: '\(name)' would render \(Format.length(tooLong.seconds)), more than a file can hold")
      return nil
    }
  }

  /// Writes `job` to its output (and its audio track to its own), atomically for files
  /// (``RenderJob/run(_:progress:)``), and prints the summary line; the exit status.
  static func write(_ job: inout RenderJob, settings: Settings) -> Int32 {
    var progress = Progress(label: job.name, total: job.frameCount)
    let output = RenderOutputSettings(
      format: settings.format, rate: settings.rate, allowTerminal: settings.force, writer: FaultInjection.writer,
      stop: Interrupt.stop)
    let result = job.run(output) { progress.update($0) }
    progress.finish()
    switch result {
    case .success: break
    case .failure(.stoppedOpening(let path)):
      Console.error("hap: interrupted; nothing was written to '\(path)'")
      return ExitStatus.interrupted
    case .failure(.stopped(let outputs)): return interrupted(outputs)
    case .failure(.sink(let error)):
      Console.error("hap: \(error.message)")
      return ExitStatus.trouble
    }
    if !settings.quiet && job.path != "-" { Console.error(summary(job, settings: settings)) }
    return ExitStatus.ok
  }

  /// Says what each output holds after Ctrl-C or SIGTERM; exit 130.
  static func interrupted(_ outputs: [(path: String, partial: Bool)]) -> Int32 {
    for (path, partial) in outputs {
      Console.error("hap: interrupted; \(partial ? "what was written to '\(path)' is incomplete" : "nothing was written to '\(path)'")")
    }
    return ExitStatus.interrupted
  }


  /// `NAME -> OUT: 1.2 s, 48000 Hz s16, peak -3 dBFS`, and whether the limiter acted; a
  /// layout's channels, and the audio track's file or peak.
  static func summary(_ job: RenderJob, settings: Settings) -> String {
    let channels = job.planes.count
    let rf64 = WAVHeader.needsRF64(format: settings.format, channels: channels, frames: job.frameCount)
    let stats = job.player?.renderers.first?.statistics ?? job.renderer.statistics
    let seconds = Format.length(Double(job.frameCount) / Double(settings.rate))
    let kind = job.raw ? " raw" : rf64 ? " RF64" : ""
    let layout = settings.layout.map { ", " + $0.summary } ?? ""
    var line = "\(job.name) -> \(job.path): \(seconds), \(settings.rate) Hz \(settings.format.rawValue)\(kind)\(layout)"
    // A layout without the haptic signal (`--layout left`, `-,-`) gives no haptic peak: the
    // file holds only the sound, or silence.
    let haptic = job.planes.contains(SignalChannel.haptic.rawValue)
    if haptic {
      line += ", peak \(decibels(stats.peak))"
    } else if settings.layout?.routesAudio != true {
      line += ", silent"
    }
    if haptic && stats.limiterActed { line += " (limiter acted; peak before it \(decibels(stats.peakBeforeLimiter)))" }
    let sound = job.audio.map { ($0.renderer.statistics, $0.path, $0.raw) }
    let played = (job.player?.sounds.first ?? nil)?.statistics
    if let (audio, path, raw) = sound ?? job.soundFile.flatMap({ file in played.map { ($0, file.path, file.raw) } }) {
      let kind =
        raw ? " raw" : WAVHeader.needsRF64(format: settings.format, channels: 2, frames: job.frameCount) ? " RF64" : ""
      line += "; audio track -> \(path): stereo\(kind), peak \(decibels(audio.peak))"
      if audio.limiterActed { line += " (limiter acted)" }
    } else if settings.layout?.routesAudio == true, let played {
      line +=
        (haptic ? "; " : ", ") + "sound peak \(decibels(played.peak))" + (played.limiterActed ? " (limiter acted)" : "")
    } else if !haptic && settings.layout?.routesAudio == true {
      line += ", silent"  // the sound's channels, and the pattern has no sound
    }
    return line
  }

  /// The Player applying the control messages (`settings.control`, or `given`) and the frames to render (one
  /// pass, its sounds' included; for WAV found with a dry run, the header stating the length first). Nil, after
  /// a message, when the messages cannot be read or run past the longest render.
  static func controlledPlayer(
    pattern: Pattern, schedule: Schedule, settings: Settings, given: [ControlMessage]?, raw: Bool,
    sounds: [String: DecodedSound]?, length: Int
  ) -> (Player, Int)? {
    var messages = given ?? []
    if given == nil, let control = settings.control {
      do {
        messages = try control.readAll()
      } catch {
        if error != .interrupted {
          Console.error("hap: cannot read control file '\(control.name)': \(error.message)")
        }
        return nil
      }
    }
    do throws(RenderJob.TooLate) {
      return try RenderJob.controlledPlayer(
        pattern: pattern, schedule: schedule, profile: settings.profile, messages: messages, raw: raw, sounds: sounds,
        length: length, longest: settings.maxDuration)
    } catch {
      let source = settings.control.map { "'\(Format.excerpt($0.name))'" } ?? "the control stream"
      Console.error(
        "hap: \(source) has a line at \(Format.seconds(error.time)), later than the longest render (\(Format.seconds(settings.maxDuration))); --max-duration raises it"
      )
      return nil
    }
  }

  static func decibels(_ level: Float) -> String {
    level <= 0 ? "-inf dBFS" : Format.number((20 * log10(Double(level)) * 10).rounded() / 10) + " dBFS"
  }
}

extension PatternFolders {
  /// The patterns a command names (``PatternFolders/init(_:)``); a folder without any is a
  /// usage error.
  static func command(_ arguments: [String]) throws(UsageError) -> PatternFolders {
    do throws(OutputPlanFailure) {
      return try PatternFolders(arguments)
    } catch {
      if case .noPatternsInFolder(let folder) = error { throw .noPatternsInFolder(folder) }
      throw .refused(RenderCommand.outputPlanMessage(error))
    }
  }
}
