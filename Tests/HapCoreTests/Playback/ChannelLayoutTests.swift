import Testing

@testable import HapCore
@testable import HapFormat
@testable import HapPlayback
@testable import HapRender
@testable import HapTools
@testable import HapVocabulary

@Suite("ChannelLayout")
struct ChannelLayoutTests {
  /// Interleaves a period whose haptic plane is 1, 2, 3, ... onto `channels` device channels.
  func interleaved(_ layout: ChannelLayout, channels: Int, frames: Int = 4) throws -> [Float] {
    let planes = try layout.map(deviceChannels: channels)
    let map = ChannelMap(planes: planes)
    defer { map.deallocate() }
    let period = PeriodFrames(allocating: frames)
    defer { period.deallocate() }
    for n in 0..<frames { period[.haptic][n] = Float(n + 1) }
    var out = [Float](repeating: -9, count: frames * channels)
    out.withUnsafeMutableBufferPointer { map.interleave(period, frames: frames, into: $0.baseAddress!) }
    return out
  }

  @Test("all (the default): the haptic signal on every channel")
  func all() throws {
    #expect(try interleaved(.hapticOnAll, channels: 3, frames: 2) == [1, 1, 1, 2, 2, 2])
    #expect(ChannelLayout.hapticOnAll.namedChannels == nil)
  }

  @Test("one channel (--channel 2): the signal there, silence on the others")
  func single() throws {
    #expect(try interleaved(.haptic(on: [1]), channels: 3, frames: 2) == [0, 1, 0, 0, 2, 0])
  }

  @Test("several channels (--channel 3,4): the signal on each, silence on the others")
  func several() throws {
    let layout = ChannelLayout.haptic(on: [3, 2])
    #expect(layout.namedChannels == [2, 3])
    #expect(try interleaved(layout, channels: 4, frames: 2) == [0, 0, 1, 1, 0, 0, 2, 2])
  }

  @Test("a mono device: its one channel plays the plane as it is")
  func mono() throws {
    let map = ChannelMap(planes: try ChannelLayout.hapticOnAll.map(deviceChannels: 1))
    defer { map.deallocate() }
    #expect(map.soloPlane == .haptic)
    #expect(try interleaved(.haptic(on: [0]), channels: 1) == [1, 2, 3, 4])
  }

  @Test("a channel beyond the device is named precisely")
  func beyond() {
    #expect(throws: ChannelLayout.Failure.beyondDevice(channel: 4, deviceChannels: 2)) {
      try ChannelLayout.haptic(on: [1, 4]).map(deviceChannels: 2)
    }
  }

  @Test("later routes win: a channel of its own over all")
  func laterRoutesWin() throws {
    let layout = ChannelLayout([.init(.haptic, to: .all), .init(.haptic, to: .channels([0]))])
    #expect(try layout.map(deviceChannels: 2) == [SignalChannel.haptic.rawValue, SignalChannel.haptic.rawValue])
  }
}

@Suite("SinkError")
struct SinkErrorTests {
  @Test("an open failure keeps its cause: busy and missing apart")
  func openFailures() {
    #expect(SinkError.openFailure("hw:1", status: -16) == .busy(device: "hw:1"))  // EBUSY
    #expect(SinkError.openFailure("hw:1", status: -19) == .noSuchDevice(device: "hw:1"))  // ENODEV
    #expect(SinkError.openFailure("hw:1", status: -2) == .noSuchDevice(device: "hw:1"))  // ENOENT
    #expect(SinkError.openFailure("hw:1", status: -13) == .cannotOpen(device: "hw:1", status: -13))
    #expect(
      SinkError.busy(device: "hw:1").description
        == "cannot open device 'hw:1': it is busy (another program is using it); 'hap devices' lists the playback devices"
    )
    #expect(SinkError.noSuchDevice(device: "x").openSummary == "cannot open device 'x': no such device")
    #expect(
      SinkError.lost(device: "x", status: -19, seconds: 0.5).description
        == "device 'x' was lost (No such device) and did not come back within 0.5 s")
  }

  @Test("the service answers a busy device busy, a missing one no-device")
  func serviceReplies() {
    let busy = ServiceError.deviceUnavailable(.busy(device: "hw:1"), "cannot open device 'hw:1': it is busy")
    #expect(busy.code == .busy)
    #expect(busy.reply == "error busy cannot open device 'hw:1': it is busy.")
    #expect(ServiceError.deviceUnavailable(.noSuchDevice(device: "hw:1"), "gone").code == .noDevice)
    #expect(ServiceError.deviceUnavailable(nil, "no channel 3").code == .noDevice)
  }
}
