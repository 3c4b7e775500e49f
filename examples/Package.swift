// swift-tools-version:6.0
// Core Haptics programs built against HapKit, each as it was written for iOS with only its
// import line changed (`#if canImport(CoreHaptics) ... #else import HapKit #endif`). The
// seeds' SwiftUI views are replaced by small drivers (main.swift). Swift 5 language mode, as
// an iOS app target builds them. Run one with: HAP_DEVICE=sim swift run --package-path
// examples textured-drag (docs/hapkit.md).
import PackageDescription

let package = Package(
  name: "hapkit-examples",
  products: [
    .executable(name: "textured-drag", targets: ["TexturedDrag"]),
    .executable(name: "engine-owner", targets: ["EngineOwner"]),
    .executable(name: "vocabulary-service", targets: ["VocabularyService"]),
    .executable(name: "core-haptics-tour", targets: ["CoreHapticsTour"]),
    .executable(name: "ported-styles", targets: ["PortedStyles"]),
    .executable(name: "ricochet", targets: ["Ricochet"]),
  ],
  dependencies: [.package(name: "hap", path: "..")],
  targets: [
    .executableTarget(name: "TexturedDrag", dependencies: [.product(name: "HapKit", package: "hap")]),
    .executableTarget(name: "EngineOwner", dependencies: [.product(name: "HapKit", package: "hap")]),
    .executableTarget(name: "VocabularyService", dependencies: [.product(name: "HapKit", package: "hap")]),
    .executableTarget(name: "CoreHapticsTour", dependencies: [.product(name: "HapKit", package: "hap")]),
    // Core Haptics code in the styles public iOS projects use (issue 42).
    .executableTarget(name: "PortedStyles", dependencies: [.product(name: "HapKit", package: "hap")]),
    // Apple's HapticRicochet sample's engine set-up and AHAP loading, with its bundle's sounds.
    .executableTarget(name: "Ricochet", dependencies: [.product(name: "HapKit", package: "hap")]),
    // Apple's documented interface, symbol by symbol, with Apple's types: it only has to compile.
    .target(name: "CoreHapticsInterfaceProbe", dependencies: [.product(name: "HapKit", package: "hap")]),
  ],
  swiftLanguageModes: [.v5]
)
