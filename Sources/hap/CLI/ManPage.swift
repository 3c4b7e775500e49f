/// `hap help --man`: the manual page hap.1 (roff, man macros), written from the same commands,
/// forms, option tables and examples as `hap help`, so it cannot drift from the parser.
enum ManPage {
  /// Text escaped for roff: backslashes, and a line that would start with `.` or `'`.
  static func escape(_ text: String) -> String {
    var out = ""
    for character in text {
      switch character {
      case "\\": out += "\\e"
      case "-": out += "\\-"
      default: out.append(character)
      }
    }
    return out
  }

  /// A paragraph of running text: each source line escaped, and protected when it starts with
  /// a control character.
  static func paragraph(_ text: String) -> [String] {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      let trimmed = line.drop { $0 == " " }
      if trimmed.isEmpty { return ".PP" }
      let escaped = escape(String(trimmed))
      return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
    }
  }

  static let environment: [(String, String)] = [
    ("HAP_DEVICE", "The ALSA device hap play, hap drag and hap serve open when no \\-\\-device is given."),
    ("HAP_SOCKET", "The service's socket (hap serve and its clients); else $XDG_RUNTIME_DIR/hap.sock."),
    ("XDG_RUNTIME_DIR", "Where the service's socket lives by default."),
    (
      "XDG_CONFIG_HOME",
      "The service's config file is $XDG_CONFIG_HOME/hap/config.json (else ~/.config/hap/config.json)."
    ),
    ("HAP_INPUT_DEVICES", "Where hap drag looks for input devices (default /dev/input)."),
    ("HAP_LIBASOUND", "The path of ALSA's library to load instead of libasound.so.2."),
    ("HAP_LIBDBUS", "The path of libdbus-1 to load instead of libdbus-1.so.3 (hap serve --dbus)."),
    ("HAP_LIBSNDFILE", "The path of libsndfile to load instead of libsndfile.so.1 (hap convert of FLAC, Ogg, MP3)."),
    ("HAP_LIBSOXR", "The path of libsoxr to load instead of libsoxr.so.0 (sounds at another rate than the output)."),
    (
      "HAP_SIM_PLUGIN",
      "The simulated exciter's ALSA plugin (\\-D sim); else PREFIX/lib/hap/ beside the installed binary, else the build tree's .build/sim/."
    ),
    ("HAP_SOUND_PATH", "Folders (separated by ':') where AudioCustom sounds are looked for after \\-\\-sound\\-path."),
    ("XDG_CACHE_HOME", "The simulated exciter's capture goes to $XDG_CACHE_HOME/hap/ when $XDG_RUNTIME_DIR is unset."),
    ("NO_COLOR", "When set, no colour is used."),
  ]

  static let files: [(String, String)] = [
    (
      ".haprc.json",
      "Rule levels for hap validate, {\"rules\": {\"RULE\": \"off\"|\"warning\"|\"error\"}}; the nearest one above each checked file applies."
    ),
    ("~/.config/hap/config.json", "The service's config file (level, muted, device, profile, gain)."),
    (
      "PREFIX/share/hap/patterns",
      "The bundled vocabulary of patterns, with vocabulary.json: hap serve loads it when there is no ./patterns and no --vocabulary is given."
    ),
    (
      "PREFIX/lib/hap/libasound_module_pcm_hapsim.so",
      "The simulated exciter's ALSA plugin, which -D sim plays on (installed when it was built: make sim)."
    ),
    (
      "$XDG_RUNTIME_DIR/hap/sim-capture.wav",
      "What -D sim played last (a WAV file; else ~/.cache/hap/sim-capture.wav); -D sim:CAPTURE=FILE names another."
    ),
  ]

  static func page() -> String {
    var lines = [
      ".TH HAP 1 \"\" \"hap \(HapCommandLine.version)\" \"User Commands\"",
      ".SH NAME",
      "hap \\- author, check, render and play haptic patterns (Apple AHAP files)",
      ".SH SYNOPSIS",
      ".B hap",
      ".I COMMAND",
      "[\\fIOPTIONS\\fR] [\\fIARGUMENTS\\fR]",
      ".br",
      ".B hap help",
      "[\\fICOMMAND\\fR]",
      ".br",
      ".B hap",
      "\\-\\-version",
      ".SH DESCRIPTION",
      "hap validates Apple AHAP haptic patterns as Core Haptics reads them, renders them to WAV,",
      "describes, draws and compares them, and plays them on an ALSA device in real time.",
      "Every command has \\fB\\-\\-help\\fR; \\fBhap help\\fR \\fICOMMAND\\fR shows the same.",
    ]
    for command in HapCommandLine.commands { lines += section(for: command) }
    lines += [
      ".SH EXIT STATUS",
      ".TP", ".B 0", "Everything fine (warnings allowed, unless \\-\\-strict).",
      ".TP", ".B 1", "An invalid pattern, or (hap diff) the patterns differ.",
      ".TP", ".B 2", "Trouble: a usage error, an unreadable or unwritable file, a device problem.",
      ".TP", ".B 130", "Interrupted by Ctrl\\-C or SIGTERM.",
      ".SH ENVIRONMENT",
    ]
    for (name, text) in environment { lines += [".TP", ".B \(name)", text] }
    lines.append(".SH FILES")
    for (name, text) in files { lines += [".TP", ".I \(escape(name))", escape(text)] }
    lines.append(".SH EXAMPLES")
    for command in HapCommandLine.commands {
      for (example, comment) in command.examples {
        lines += [".PP", escape(comment) + ":", ".PP", ".RS", ".nf", "\\f(CW\(escape(example))\\fR", ".fi", ".RE"]
      }
    }
    lines += [".SH SEE ALSO", "The README and docs/ of hap's source; \\fBhap rules\\fR for the validation rules."]
    return lines.joined(separator: "\n") + "\n"
  }

  /// One command's subsection: its usage lines, description and options.
  static func section(for command: any Command.Type) -> [String] {
    var lines = [".SS \"hap \(command.name)\"", escape(command.summary), ".PP", ".nf"]
    lines += HapCommandLine.usage(for: command, width: 78).map { "\\&" + escape($0) }
    lines += [".fi", ".PP"]
    lines += paragraph(command.description)
    for option in HapCommandLine.allOptions(of: command) {
      var head = option.short.map { "\\fB\\-\($0)\\fR, " } ?? ""
      head += "\\fB\\-\\-\(escape(option.name))\\fR"
      if let valueName = option.valueName {
        let value = option.choices.isEmpty ? valueName : option.choices.joined(separator: "|")
        head += option.optionalValue ? "[=\\fI\(escape(value))\\fR]" : " \\fI\(escape(value))\\fR"
      }
      lines += [".TP", head]
      lines += paragraph(option.help)
    }
    return lines
  }
}
