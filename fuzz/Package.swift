// swift-tools-version:6.0
// A libFuzzer target for hap (`make fuzz`): parser, decoder and validator, and for every valid
// input the renderer, info's summary and diff (HapFuzzCheck). Kept out of the main package: it
// only links when built with `--sanitize=fuzzer`.
import PackageDescription

let package = Package(
  name: "hap-fuzz",
  dependencies: [.package(name: "hap", path: "..")],
  targets: [
    .executableTarget(name: "HapFuzz", dependencies: [.product(name: "HapFuzzCheck", package: "hap")])
  ]
)
