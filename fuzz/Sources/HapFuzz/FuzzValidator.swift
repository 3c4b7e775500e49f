import HapCore

/// libFuzzer entry: any bytes must give findings or a pattern, never a crash or a hang. Valid
/// patterns are also rendered briefly and diffed against themselves.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzValidator(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  let result = Validator.validate(bytes)
  for diagnostic in result.diagnostics {
    precondition(diagnostic.line >= 1 && diagnostic.column >= 1, "bad position")
  }
  if result.isValid, let pattern = result.pattern, pattern.duration < 5 {
    let renderer = Renderer(schedule: Schedule(pattern: pattern, rate: 8000))
    let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 512)
    defer { block.deallocate() }
    var frames = 0
    while renderer.remaining > 0 && frames < 80_000 {
      let n = renderer.render(into: block)
      for k in 0..<n { precondition(block[k].isFinite && abs(block[k]) < 1, "sample out of range") }
      frames += n
    }
    precondition(PatternDiff(pattern, pattern).isEqual, "a pattern differs from itself")
  }
  let (_, _) = ProfileDecoder.decode(SourceText(bytes))
  return 0
}
