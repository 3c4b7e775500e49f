import Foundation
import HapTestSupport
import Testing

@Suite("make install and uninstall", .serialized)
struct InstallTests {
  func make(_ arguments: [String]) throws -> Hap.Result {
    try Hap.run(
      ["make", "-s", "-C", Hap.root.path] + arguments + ["NO_BUILD=1", "HAP=\(Hap.binary)"],
      timeout: 120, executable: "/usr/bin/env")
  }

  @Test func makeInstallPutsTheBinaryTheVocabularyAndTheUnitInPlace() throws {
    let folder = try TemporaryFolder()
    let root = folder.path("root")
    let installed = try make(["install", "DESTDIR=\(root)", "PREFIX=/usr"])
    try #require(installed.status == 0, "\(installed.stderr)")
    #expect(FileManager.default.isExecutableFile(atPath: root + "/usr/bin/hap"))
    #expect(FileManager.default.fileExists(atPath: root + "/usr/share/hap/patterns/correct.json"))
    let unit = try String(contentsOfFile: root + "/usr/lib/systemd/user/hap.service", encoding: .utf8)
    let lines = unit.split(separator: "\n").map(String.init)
    #expect(lines.contains("ExecStart=/usr/bin/hap serve --vocabulary /usr/share/hap/patterns"), "\(unit)")
    #expect(lines.contains("ExecReload=/bin/kill -HUP $MAINPID"))
    #expect(lines.contains("Restart=on-failure"))
    #expect(!unit.contains("%h/.local"), "a path was not rewritten to PREFIX")
    // The completions and the man page, as the binary writes them.
    let generated = [
      "share/bash-completion/completions/hap": ["completion", "bash"],
      "share/zsh/site-functions/_hap": ["completion", "zsh"],
      "share/fish/vendor_completions.d/hap.fish": ["completion", "fish"],
      "share/man/man1/hap.1": ["help", "--man"],
    ]
    for (path, arguments) in generated {
      let installedText = try? String(contentsOfFile: root + "/usr/" + path, encoding: .utf8)
      #expect(installedText == (try Hap.run(arguments).stdout), "\(path)")
    }
    #expect(FileManager.default.fileExists(atPath: root + "/usr/share/hap/desktop/message-new-instant.json"))
    // The D-Bus activation file only on request (it would take the name from feedbackd).
    let activation = root + "/usr/share/dbus-1/services/org.sigxcpu.Feedback.service"
    #expect(!FileManager.default.fileExists(atPath: activation))
    let withBus = try make(["install", "DESTDIR=\(root)", "PREFIX=/usr", "DBUS_ACTIVATION=1"])
    try #require(withBus.status == 0, "\(withBus.stderr)")
    let service = try String(contentsOfFile: activation, encoding: .utf8)
    #expect(service.contains("\nName=org.sigxcpu.Feedback\nExec=/usr/bin/hap serve --dbus\n"), "\(service)")
    let removed = try make(["uninstall", "DESTDIR=\(root)", "PREFIX=/usr"])
    #expect(removed.status == 0, "\(removed.stderr)")
    for path in ["bin/hap", "lib/systemd/user/hap.service", "share/hap", "share/dbus-1/services/org.sigxcpu.Feedback.service"]
      + generated.keys
    {
      #expect(!FileManager.default.fileExists(atPath: root + "/usr/" + path), "\(path) was not removed")
    }
  }

  /// systemd-analyze checks the unit and that its ExecStart is an executable (only where
  /// systemd-analyze is installed; the unit goes to a prefix of its own, so the binary is there).
  @Test func theInstalledUnitVerifies() throws {
    guard let analyze = systemTool("systemd-analyze") else {
      cannotCheck("systemd-analyze is not installed: the installed unit is not verified")
      return
    }
    let folder = try TemporaryFolder()
    let prefix = folder.path("prefix")
    let installed = try make(["install", "PREFIX=\(prefix)"])
    try #require(installed.status == 0, "\(installed.stderr)")
    let unit = prefix + "/lib/systemd/user/hap.service"
    #expect(try String(contentsOfFile: unit, encoding: .utf8).contains("ExecStart=\(prefix)/bin/hap serve"))
    // Documentation=man:hap(1): systemd-analyze runs man, which finds the page where a user's
    // MANPATH (or man's own PREFIX/share/man) does.
    let verified = try Hap.run(["verify", unit], environment: ["MANPATH": prefix + "/share/man"], executable: analyze)
    #expect(verified.status == 0, "\(verified.stderr)")
  }
}
