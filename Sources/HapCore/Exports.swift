// HapCore is the format, rendering, real-time playback, the tools and the vocabulary, each a
// module of its own whose boundaries Package.swift enforces; importing HapCore imports them all.
@_exported import HapFormat
@_exported import HapPlayback
@_exported import HapRender
@_exported import HapTools
@_exported import HapVocabulary
