import Foundation
import HapTestSupport
import Testing

/// Issue 31: what the sound-card tree (`/proc/asound`, `$HAP_PROC_ASOUND`) holds is outside
/// text and an outside file: a card's id or name with control characters is printed escaped,
/// and a FIFO where a file should be (`cards`, `cardN/id`, `cardN/usbid`) is not waited on.
@Suite("Sound-card files: escaped, never waited on", .serialized)
struct SoundCardFilesTests {
  @Test("a card id and name holding ESC, BEL, CR and CSI are escaped by devices, devices -D dualsense and play's error")
  func hostileCard() throws {
    let machine = try DualSenseTests.Machine(cards: [
      (1, "Con\u{1B}]0;x\u{07}tr\r", "054c:0ce6", "Wireless \u{1B}[31mController\u{9B}")
    ])
    let runs: [[String]] = [
      // The whole list (ALSA's hints: launched), and the controller named (in process).
      ["devices"], ["devices", "-D", "dualsense"], ["devices", "-D", "dualsense", "--format", "json"],
      ["play", "-D", "dualsense", DualSenseTests.correct],
    ]
    for arguments in runs {
      let result = try machine.run(arguments)
      #expect(result.status <= 2, "\(arguments): \(result.stderr)")
      OutsideTextTests.expectShown(result, arguments)
    }
    let listed = try machine.run(["devices", "-D", "dualsense"])
    #expect(
      listed.stdout.contains("hw:1,0"), "a card whose id ALSA cannot take is opened by its number: \(listed.stdout)")
  }

  @Test("a FIFO as cards, cardN/id or cardN/usbid: devices and play -D dualsense finish, the file skipped")
  func fifoInTheTree() throws {
    for name in ["cards", "card1/id", "card1/usbid"] {
      let machine = try DualSenseTests.Machine()
      let path = machine.folder.path("proc/" + name)
      try FileManager.default.removeItem(atPath: path)
      #expect(mkfifo(path, 0o644) == 0)
      defer {
        // Whatever still waits on the FIFO is released: a writer opens it and goes.
        let fd = open(path, O_WRONLY | O_NONBLOCK)
        if fd >= 0 { close(fd) }
      }
      // `devices -D dualsense` reads the tree as the whole list does (`DualSense.cards`).
      for arguments in [["devices", "-D", "dualsense"], ["play", "-D", "dualsense", DualSenseTests.correct]] {
        do {
          let result = try Hap.run(arguments, environment: machine.environment, timeout: 20) {
            $0 != "HAP_DEVICE" && $0 != "ALSA_CONFIG_PATH"
          }
          #expect(result.reason == .exit && result.status <= 2, "\(name): \(arguments): \(result.stderr)")
        } catch {
          Issue.record("\(name) as a FIFO: \(error)")
        }
      }
    }
  }
}
