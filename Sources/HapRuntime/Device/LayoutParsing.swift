import FoundationEssentials
import Glibc
import HapALSA
import HapCore

/// Why `--layout` or `--channel` names no layout, with the value as given.
public enum LayoutFailure: Error, Sendable, Equatable {
  /// `--channel` given something that is not a channel number, a list of them or `all`.
  case notAChannel(String)
  /// `--channel K` beyond `--channels N`; `written`: the whole value when it is more than K
  /// (`2,5`, `haptic=3`, a layout's name).
  case channelBeyond(Int, channels: Int, written: String? = nil)
  /// `--channel` naming channel K (1-based) twice (`1,1`, `haptic=1/audio=1,2`).
  case channelTwice(String, channel: Int)
  /// `--channel ...audio=...` not given exactly two channels (left, right).
  case audioNeedsTwoChannels(String)
  /// `--layout` given neither a layout's name nor a channel map.
  case notALayout(String)
}

extension DeviceLayout {
  /// `--layout MAP`'s words, one per channel: a ``SignalChannel``'s name or `-`.
  public static func parse(_ text: String) throws(LayoutFailure) -> DeviceLayout {
    if let named = DeviceLayout.builtIn(named: text) { return named }
    let words = text.split(separator: ",", omittingEmptySubsequences: false)
    guard words.count > 1 || SignalChannel.allCases.contains(where: { $0.mapWord == text }), words.count <= 64
    else {
      throw .notALayout(text)
    }
    var roles: [SignalChannel?] = []
    for word in words {
      if word == "-" {
        roles.append(nil)
      } else if let channel = SignalChannel.allCases.first(where: { $0.mapWord == word }) {
        roles.append(channel)
      } else {
        throw .notALayout(text)
      }
    }
    return .map(roles, written: text)
  }

}

extension ChannelLayout {
  /// `--channel K|K,L,...|all`, routes (`haptic=K[,L...]/audio=L,R`) or a layout's name
  /// (``ChannelLayout/named``), checked against `--channels`.
  public static func parse(_ channel: String?, channels: Int?) throws(LayoutFailure) -> ChannelLayout {
    guard let channel, channel != "all" else { return .hapticOnAll }
    let text = ChannelLayout.named.first { $0.name == channel }?.routes ?? channel
    guard text.contains("=") else { return .haptic(on: try channelList(text, whole: channel, channels: channels)) }
    var routes: [ChannelLayout.Route] = []
    var named: Set<Int> = []
    for part in text.split(separator: "/", omittingEmptySubsequences: false) {
      let sides = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard sides.count == 2 else { throw .notAChannel(channel) }
      let list = try channelList(String(sides[1]), whole: channel, channels: channels)
      // A channel plays one signal: a second route onto it would silently replace the first.
      for k in list where !named.insert(k).inserted { throw .channelTwice(channel, channel: k + 1) }
      switch sides[0] {
      case "haptic": routes.append(.init(.haptic, to: .channels(list)))
      case "audio":
        guard list.count == 2 else { throw .audioNeedsTwoChannels(channel) }
        routes.append(.init(.audioLeft, to: .channels([list[0]])))
        routes.append(.init(.audioRight, to: .channels([list[1]])))
      default: throw .notAChannel(channel)
      }
    }
    return ChannelLayout(routes)
  }

  /// `K[,L...]` (1-based) as 0-based channels, each named once, checked against `--channels`.
  private static func channelList(_ text: String, whole: String, channels: Int?) throws(LayoutFailure) -> [Int] {
    var list: [Int] = []
    for item in text.split(separator: ",", omittingEmptySubsequences: false) {
      guard let k = Int(item), k >= 1, k <= 64 else { throw .notAChannel(whole) }
      if let channels, k > channels { throw .channelBeyond(k, channels: channels, written: whole) }
      if list.contains(k - 1) { throw .channelTwice(whole, channel: k) }
      list.append(k - 1)
    }
    return list
  }
}
