// swift-tools-version:6.0
// A libFuzzer target for hap's parser, decoder and validator (`make fuzz`). Kept out of the main
// package: it only links when built with `--sanitize=fuzzer`.
import PackageDescription

let package = Package(
  name: "hap-fuzz",
  dependencies: [.package(name: "hap", path: "..")],
  targets: [
    .executableTarget(name: "HapFuzz", dependencies: [.product(name: "HapCore", package: "hap")])
  ]
)
