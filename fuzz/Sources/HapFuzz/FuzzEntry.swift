import Glibc
import HapFuzzCheck

/// The target this run fuzzes: `$HAP_FUZZ_TARGET` (pattern, request, control, haptic, wav;
/// `make fuzz` sets it), pattern when unset. An unknown name stops at once.
let target: FuzzTarget = {
  let name = getenv("HAP_FUZZ_TARGET").map { String(cString: $0) } ?? ""
  if name.isEmpty { return .pattern }
  guard let target = FuzzTarget(rawValue: name) else {
    let line = Array("HapFuzz: unknown HAP_FUZZ_TARGET '\(name)'\n".utf8)
    _ = write(2, line, line.count)
    exit(2)
  }
  return target
}()

/// libFuzzer entry: every input goes through the chosen target's check (`FuzzTarget.run`). A
/// broken promise stops the process, and libFuzzer keeps the input; add it to
/// fuzz/regressions/ (in the target's folder, except for pattern) so `make test` replays it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  target.run(Array(UnsafeBufferPointer(start: data, count: size)))
  return 0
}
