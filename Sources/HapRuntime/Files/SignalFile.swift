import FoundationEssentials
import Glibc
import HapCore

/// A rendered signal read back for `hap plot --signal` and `hap diff`: in pieces, bounded,
/// opened as every input is (``InputFile``).
extension SignalSeries {
  /// Reads `path` (a WAV file, else raw frames laid out as `raw`) in pieces, reduced to the
  /// columns of the window `window` gives for the signal's length in seconds.
  public static func read(_ path: String, raw: SignalSeries.Layout, window: (Double) -> PlotWindow)
    throws(SignalSeries.Failure) -> SignalSeries
  {
    let fd: Int32
    do throws(PatternFiles.ReadError) {
      fd = try InputFile.open(path, for: .seekable).fd
    } catch {
      throw SignalSeries.Failure(message: error.message)
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw SignalSeries.Failure(message: String(cString: strerror(errno))) }
    var head = [UInt8](repeating: 0, count: 4096)
    let got = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
    guard got >= 0 else { throw SignalSeries.Failure(message: String(cString: strerror(errno))) }
    head.removeSubrange(got...)
    let layout = try SignalSeries.wavLayout(head) ?? raw
    let size = UInt64(info.st_size)
    let available = size - min(size, UInt64(layout.dataOffset))
    let dataBytes = min(layout.dataBytes ?? available, available)
    var reducer = SignalSeries.Reducer(layout: layout, window: window(layout.duration(bytes: dataBytes)))
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    var offset = UInt64(layout.dataOffset)
    var left = dataBytes
    while left > 0 && !reducer.isPastWindow {
      let want = Int(min(UInt64(chunk.count), left))
      let count = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, off_t(offset)) }
      if count < 0 && errno == EINTR { continue }
      guard count >= 0 else { throw SignalSeries.Failure(message: String(cString: strerror(errno))) }
      if count == 0 { break }
      chunk.withUnsafeBytes { reducer.add(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
      offset += UInt64(count)
      left -= UInt64(count)
    }
    return reducer.series(name: path)
  }

  /// How long the WAV file at `path` lasts by the header in its first 64 KiB; nil when they do
  /// not say.
  public static func wavSeconds(_ path: String) -> Double? {
    guard let file = try? InputFile.open(path, for: .seekable) else { return nil }
    defer { close(file.fd) }
    var head = [UInt8](repeating: 0, count: 65536)
    let count = head.withUnsafeMutableBytes { Glibc.read(file.fd, $0.baseAddress, $0.count) }
    guard count > 0, let layout = try? SignalSeries.wavLayout(Array(head.prefix(count))) else { return nil }
    return layout.duration(bytes: layout.dataBytes ?? UInt64(max(0, (file.size ?? 0) - layout.dataOffset)))
  }

}
