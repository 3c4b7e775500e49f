import Glibc

/// Large buffers asked to be backed by transparent huge pages (2 MiB), where the system offers
/// them (`/sys/kernel/mm/transparent_hugepage/enabled` set to `madvise` or `always`).
///
/// A buffer of tens of megabytes (a large pattern file's bytes, its JSON nodes, its events) is
/// otherwise touched into being 4 KiB at a time: one page fault, one page zeroed, one memory
/// cgroup charge for each, which was a third of `hap validate`'s time on a 75 MB file. With the
/// advice, one fault brings 2 MiB. Nothing changes but speed: where the system has no huge
/// pages to give, the advice is ignored, and the buffer holds what it would have held.
package enum HugePages {
  /// Buffers from this size up are advised; below it, a huge page would mostly be waste.
  package static let threshold = 4 << 20
  /// The size of a transparent huge page on x86-64 and AArch64 (4 KiB base pages).
  static let size = 2 << 20

  /// Asks the system to back the whole huge pages inside `buffer` with huge pages when they
  /// are first touched (`madvise(MADV_HUGEPAGE)`): a no-op below ``threshold``. The buffer's
  /// own memory is unchanged; its edges, short of a whole huge page, stay in small pages.
  package static func advise(_ buffer: UnsafeMutableRawBufferPointer) {
    guard buffer.count >= threshold, let base = buffer.baseAddress else { return }
    let start = (UInt(bitPattern: base) + UInt(size - 1)) & ~UInt(size - 1)
    let end = (UInt(bitPattern: base) + UInt(buffer.count)) & ~UInt(size - 1)
    guard end > start else { return }
    _ = madvise(UnsafeMutableRawPointer(bitPattern: start), Int(end - start), MADV_HUGEPAGE)
  }
}

extension Array {
  /// An empty array with room for `capacity` elements, its storage advised to be backed by
  /// huge pages (``HugePages/advise(_:)``) before anything is written to it.
  package init(hugePageCapacity capacity: Int) {
    self.init(unsafeUninitializedCapacity: capacity) { buffer, count in
      HugePages.advise(UnsafeMutableRawBufferPointer(buffer))
      count = 0
    }
  }
}
