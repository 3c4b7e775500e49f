import FoundationEssentials
import Glibc
import HapCore
import HapRuntime

/// `--control`'s options and warnings on the command line.
extension ControlInput {
  /// `--map SPEC` of `hap play` and `hap render`.
  static let mapOption = Option<String?>.text(
    "map", "SPEC", .words(["velocity"]),
    "With --control: lines are finger velocities 'vx vy' (velocity, or\nvelocity:full=N points/s), mapped as textured drag: intensity 0.2..1, sharpness 0..0.3."
  )

  /// `--map SPEC` (`option`: the command's declaration of it).
  static func map(_ arguments: Arguments, _ option: Option<String?> = mapOption) throws(UsageError) -> VelocityMap? {
    guard let spec = arguments[option] else { return nil }
    guard let map = VelocityMap(specification: spec) else {
      throw .refused(
        "'--map' takes velocity or velocity:full=N (N > 0, points per second), not '\(Format.excerpt(spec))'")
    }
    return map
  }

  /// The control source `name` of a command, its warnings on standard error with control
  /// characters escaped (a line's ESC or BEL is shown, never obeyed by the terminal); Ctrl-C
  /// and SIGTERM end a wait for its bytes.
  static func command(name: String, map: VelocityMap?, live: Bool = false) -> ControlInput {
    // Said by the reading thread: bound to the run that asked (``RunContext/bound(_:)``).
    ControlInput(name: name, map: map, live: live, stop: Interrupt.stop, warning: RunContext.bound { warning in
      Console.error(Format.visibleControls("\(warning.source):\(warning.line): warning: \(warning.text)"))
    })
  }
}
