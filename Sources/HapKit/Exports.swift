// `import CoreHaptics` brings Foundation with it on Apple's platforms, so a file that imports
// only the haptics module uses `TimeInterval`, `URL`, `Bundle` and `JSONDecoder`. `import
// HapKit` does the same, so that such a file builds unchanged (docs/hapkit.md).
@_exported import Foundation
