/// Where rendered frames go: a WAV or raw file, standard output, or (for `hap play`) a sound
/// device. The renderer is the data source; a sink only writes frames and reports failure.
public protocol PCMSink: AnyObject {
  /// Writes interleaved frames already encoded in the sink's sample format.
  func write(_ bytes: UnsafeRawBufferPointer) throws(SinkError)
  /// Waits until everything written has been delivered (flushed to disk, played).
  func drain() throws(SinkError)
  /// Releases the sink. After a failure, the partial output is discarded.
  func close(success: Bool)
}

/// A sink failure, said in one line: what failed and why.
public struct SinkError: Error, Sendable, CustomStringConvertible {
  public let message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
