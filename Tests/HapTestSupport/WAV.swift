import Foundation
import HapCore

/// A WAV file as `hap render` writes it, parsed chunk by chunk (RIFF/WAVE, `fmt `, optional
/// `fact`, `data`), with every size field checked against the file's real length.
public struct RenderedWAV {
  public struct Malformed: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
  }

  public let fileSize: Int
  public let riffSize: Int
  public let fmtSize: Int
  public let formatTag: Int
  public let channels: Int
  public let rate: Int
  public let byteRate: Int
  public let blockAlign: Int
  public let bitsPerSample: Int
  /// The `fact` chunk's frame count (IEEE float files), if there is one.
  public let factFrames: Int?
  public let dataOffset: Int
  public let dataSize: Int
  public let data: Data

  public var frames: Int { blockAlign == 0 ? 0 : dataSize / blockAlign }
  public var payload: Data { data.subdata(in: dataOffset..<(dataOffset + dataSize)) }

  public init(path: String) throws { try self.init(Data(contentsOf: URL(fileURLWithPath: path))) }

  public init(_ data: Data) throws {
    let bytes = [UInt8](data)
    self.data = data
    fileSize = bytes.count
    func u32(_ at: Int) throws -> Int {
      guard at + 4 <= bytes.count else { throw Malformed("truncated at byte \(at)") }
      return Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
    }
    func u16(_ at: Int) throws -> Int {
      guard at + 2 <= bytes.count else { throw Malformed("truncated at byte \(at)") }
      return Int(bytes[at]) | Int(bytes[at + 1]) << 8
    }
    func tag(_ at: Int) throws -> String {
      guard at + 4 <= bytes.count else { throw Malformed("truncated at byte \(at)") }
      return String(decoding: bytes[at..<(at + 4)], as: UTF8.self)
    }
    guard try tag(0) == "RIFF" else { throw Malformed("no RIFF tag") }
    riffSize = try u32(4)
    guard try tag(8) == "WAVE" else { throw Malformed("no WAVE tag") }
    var offset = 12
    var fmt: (size: Int, at: Int)?
    var fact: Int?
    var dataChunk: (at: Int, size: Int)?
    while offset + 8 <= bytes.count {
      let id = try tag(offset)
      let size = try u32(offset + 4)
      let body = offset + 8
      switch id {
      case "fmt ": fmt = (size, body)
      case "fact": fact = try u32(body)
      case "data": dataChunk = (body, size)
      default: break
      }
      if id == "data" { break }
      offset = body + size + (size & 1)
    }
    guard let fmt else { throw Malformed("no fmt chunk") }
    guard let dataChunk else { throw Malformed("no data chunk") }
    fmtSize = fmt.size
    formatTag = try u16(fmt.at)
    channels = try u16(fmt.at + 2)
    rate = try u32(fmt.at + 4)
    byteRate = try u32(fmt.at + 8)
    blockAlign = try u16(fmt.at + 12)
    bitsPerSample = try u16(fmt.at + 14)
    factFrames = fact
    dataOffset = dataChunk.at
    dataSize = dataChunk.size
    guard dataOffset + dataSize <= bytes.count else {
      throw Malformed("data chunk says \(dataSize) bytes but only \(bytes.count - dataOffset) follow")
    }
  }

  /// The data chunk's sample format (nil for one hap does not write).
  public var format: SampleFormat? {
    switch (formatTag, bitsPerSample) {
    case (3, 32): .f32
    case (1, 16): .s16
    case (1, 24): .s24
    case (1, 32): .s32
    default: nil
    }
  }

  /// The samples as Float (`PCM.floats` of the data chunk; none for a format hap does not write).
  public func samples() -> [Float] { format.map { PCM.floats(payload, format: $0) } ?? [] }

  /// The samples of each channel, deinterleaved: `channelSamples()[c][n]` is frame n of channel c.
  public func channelSamples() -> [[Float]] {
    let samples = samples()
    return (0..<channels).map { c in stride(from: c, to: samples.count, by: channels).map { samples[$0] } }
  }
}
