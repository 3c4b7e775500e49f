import FoundationEssentials
import Glibc
import HapFormat

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

/// A sink failure, with its cause: the device, the errno or ALSA status, what was refused.
/// Said as one line (``description``) only where it is printed; nothing reads that text back.
public enum SinkError: Error, Sendable, Equatable, CustomStringConvertible {
  /// libasound (`library`) could not be loaded; `reason` is the loader's own.
  case libraryMissing(library: String, reason: String)
  /// Another program has the device open (EBUSY).
  case busy(device: String)
  /// There is no such device (ENOENT, ENODEV, ENXIO).
  case noSuchDevice(device: String)
  /// The device did not open for another reason (`status`: a negative errno or ALSA code).
  case cannotOpen(device: String, status: Int32)
  /// The device refused `what` (a setting, as ALSA's configuration step names it; empty: the
  /// whole configuration).
  case refused(device: String, what: String, status: Int32)
  /// The device took another number of channels than the one asked for.
  case channelsRefused(device: String, wanted: Int, offered: Int)
  /// The device went away (`status`) and did not come back within `seconds`.
  case lost(device: String, status: Int32, seconds: Double)
  /// The device went away (`status`) and a stop (Ctrl-C, the engine's stop request) ended the
  /// wait for it to come back.
  case abandoned(device: String, status: Int32)
  /// The sink was used after it was closed.
  case closed(device: String)
  /// Draining failed.
  case drainFailed(device: String, status: Int32)
  /// A file sink's failure (FileSink), still made as a sentence where it happens.
  case file(String)
  /// Ctrl-C or SIGTERM ended a write that waited on a stream's reader (`output`: what was
  /// written, as named in messages).
  case interrupted(String)
  /// A rumble motor's effect (`path`: its event device) failed: uploading, playing, stopping or
  /// removing it (`operation`), with its errno.
  case effect(path: String, operation: String, errno: Int32)

  /// A file sink's failure.
  public init(_ message: String) { self = .file(message) }

  /// The one line printed.
  public var message: String { description }

  public var description: String {
    switch self {
    case .libraryMissing(let library, let reason):
      "cannot load ALSA's library \(library) (\(reason)); install it with 'apt install libasound2' (Debian, Ubuntu) or 'dnf install alsa-lib' (Fedora)"
    case .busy, .noSuchDevice, .cannotOpen:
      "\(openSummary ?? ""); 'hap devices' lists the playback devices"
    case .refused(let device, let what, let status):
      "device '\(device)' refused \(what.isEmpty ? "hap's configuration" : what): \(Self.describe(status)); 'hap devices' shows what it takes"
    case .channelsRefused(let device, let wanted, let offered):
      "device '\(device)' refused \(wanted) channels (it offers \(offered)); 'hap devices' shows what it takes"
    case .lost(let device, let status, let seconds):
      "device '\(device)' was lost (\(Self.describe(status))) and did not come back within \(Format.number(seconds)) s"
    case .abandoned(let device, let status):
      "device '\(device)' was lost (\(Self.describe(status))); stopped waiting for it to come back"
    case .closed(let device): "device '\(device)' is closed"
    case .drainFailed(let device, let status):
      "device '\(device)' failed while draining: \(Self.describe(status))"
    case .file(let message): message
    case .interrupted(let output): "interrupted while writing \(output)"
    case .effect(let path, let operation, let code):
      "the rumble effect on '\(path)' failed (\(operation)): \(String(cString: strerror(code)))"
    }
  }

  /// An open failure without the hint (`hap devices` prints it beside the device), or nil for
  /// other failures.
  public var openSummary: String? {
    switch self {
    case .busy(let device): "cannot open device '\(device)': it is busy (another program is using it)"
    case .noSuchDevice(let device): "cannot open device '\(device)': no such device"
    case .cannotOpen(let device, let status): "cannot open device '\(device)': \(Self.describe(status))"
    default: nil
    }
  }

  /// The open failure of `device` for ALSA's `status` (a negative errno).
  public static func openFailure(_ device: String, status: Int32) -> SinkError {
    switch -status {
    case EBUSY: .busy(device: device)
    case ENOENT, ENODEV, ENXIO: .noSuchDevice(device: device)
    default: .cannotOpen(device: device, status: status)
    }
  }

  /// ALSA's words for a status (snd_strerror's): the system's for an errno, else ALSA's own.
  public static func describe(_ status: Int32) -> String {
    let code = status < 0 ? -status : status
    if code < 500_000 { return String(cString: strerror(code)) }
    switch code - 500_000 {
    case 0: return "Sound protocol is not compatible"
    case 1: return "alisp nil"
    default: return "Unknown error"
    }
  }
}
