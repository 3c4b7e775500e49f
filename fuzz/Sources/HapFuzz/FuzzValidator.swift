import HapFuzzCheck

/// libFuzzer entry: every input goes through `FuzzCheck.run` (validate; for a valid pattern,
/// render it completely, summarise it and diff it with itself). A broken promise stops the process,
/// and libFuzzer keeps the input; add it to fuzz/regressions/ so `make test` replays it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzValidator(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  FuzzCheck.run(Array(UnsafeBufferPointer(start: data, count: size)))
  return 0
}
