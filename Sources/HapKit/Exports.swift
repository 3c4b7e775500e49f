// `import CoreHaptics` brings Foundation with it on Apple's platforms, so a file that imports
// only the haptics module uses `TimeInterval`, `URL`, `Bundle` and `JSONDecoder`. `import
// HapKit` does the same, so that such a file builds unchanged (docs/hapkit.md); and it brings
// HapRuntime (devices, the engine, sounds, the service), which HapKit's Core Haptics is made of.
@_exported import Foundation
@_exported import HapRuntime
