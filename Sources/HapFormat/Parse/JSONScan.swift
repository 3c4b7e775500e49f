import CHapScan

/// Which compiled variant of the structural scan (CHapScan) runs: chosen at run time, as the
/// render kernels are.
package enum JSONScanKernel: Sendable, CaseIterable {
  /// The baseline build (SSE2 on x86-64).
  case baseline
  /// Compiled for AVX2; used only where the CPU has it.
  case avx2

  /// Whether this CPU runs the variant.
  package var isAvailable: Bool { self == .baseline || JSONScanKernel.hasAVX2 }

  /// The fastest variant this CPU runs.
  package static var best: JSONScanKernel { hasAVX2 ? .avx2 : .baseline }

  private static let hasAVX2 = hap_scan_avx2_available() != 0

  var code: Int32 { self == .avx2 ? 1 : 0 }
}

/// The structural scan's masks (``hap_scan_block``) over a window of a file, scanned ahead in
/// order as the parser reads on: bit j of block b is byte 64 b + j. The parser reads only
/// forwards, so one window of ``blockCount`` blocks is enough, whatever the file's size.
struct JSONScanWindow {
  /// Blocks per window (4 KiB of text).
  static let blockCount = 64

  private let bytes: UnsafePointer<UInt8>
  private let count: Int
  private let kernel: Int32
  private let masks: UnsafeMutablePointer<hap_scan_block>
  /// The first block held, and the one past the last.
  private var first = 0
  private var end = 0
  private var state = hap_scan_state()

  /// A window over `bytes[0 ..< count]`; `masks` must hold ``blockCount`` blocks.
  init(bytes: UnsafePointer<UInt8>, count: Int, kernel: JSONScanKernel, masks: UnsafeMutablePointer<hap_scan_block>) {
    self.bytes = bytes
    self.count = count
    self.kernel = kernel.code
    self.masks = masks
  }

  /// The masks of block `block` (at or after the window's first; before the file's end).
  @inline(__always)
  mutating func block(_ block: Int) -> hap_scan_block {
    if block >= end { advance(to: block) }
    return masks[block - first]
  }

  /// Scans on, window after window (the carries need every block), until `block` is held.
  private mutating func advance(to block: Int) {
    let blocks = (count + 63) / 64
    repeat {
      first = end
      let n = min(JSONScanWindow.blockCount, blocks - first)
      hap_scan_blocks(kernel, bytes, Int64(count), Int64(first), Int64(n), &state, masks)
      end = first + n
    } while block >= end
  }

  /// Every block of `bytes`, scanned at once by `kernel` (for the tests that compare the two
  /// variants, and the masks with what they mean).
  package static func scan(_ bytes: [UInt8], kernel: JSONScanKernel) -> [JSONScanMasks] {
    let blocks = (bytes.count + 63) / 64
    var state = hap_scan_state()
    var masks = [hap_scan_block](repeating: hap_scan_block(), count: blocks)
    bytes.withUnsafeBufferPointer { input in
      masks.withUnsafeMutableBufferPointer { out in
        if blocks > 0 {
          hap_scan_blocks(
            kernel.code, input.baseAddress!, Int64(bytes.count), 0, Int64(blocks), &state, out.baseAddress!)
        }
      }
    }
    return masks.map {
      JSONScanMasks(
        whitespace: $0.whitespace, stop: $0.stop, quote: $0.quote, inString: $0.inString, structural: $0.structural)
    }
  }
}

/// One block's masks from the structural scan (``hap_scan_block``), comparable.
package struct JSONScanMasks: Equatable, Sendable {
  package var whitespace: UInt64
  package var stop: UInt64
  package var quote: UInt64
  package var inString: UInt64
  package var structural: UInt64

  package init(whitespace: UInt64, stop: UInt64, quote: UInt64, inString: UInt64, structural: UInt64) {
    self.whitespace = whitespace
    self.stop = stop
    self.quote = quote
    self.inString = inString
    self.structural = structural
  }
}
