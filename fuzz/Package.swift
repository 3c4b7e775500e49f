// swift-tools-version:6.0
// libFuzzer targets for hap (`make fuzz`), one binary picking its target from $HAP_FUZZ_TARGET:
// pattern (parser, decoder, validator, renderer, info's summary, diff), request (the service's
// request lines), control (control lines), haptic (the .haptic reader and convert), wav (the WAV
// reader and the audio analysis); the checks are HapFuzzCheck's. Kept out of the main package:
// it only links when built with `--sanitize=fuzzer`.
import PackageDescription

let package = Package(
  name: "hap-fuzz",
  dependencies: [.package(name: "hap", path: "..")],
  targets: [
    .executableTarget(name: "HapFuzz", dependencies: [.product(name: "HapFuzzCheck", package: "hap")])
  ]
)
