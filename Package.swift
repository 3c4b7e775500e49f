// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "hap",
  products: [
    .executable(name: "hap", targets: ["hap"]),
    .library(name: "HapCore", targets: ["HapCore"]),
    // Core Haptics' API on Linux, and hap's runtime (devices, the engine) as a library.
    .library(name: "HapKit", targets: ["HapKit"]),
    // What every input must survive: the fuzzer's check, also replayed over fuzz/regressions/.
    .library(name: "HapFuzzCheck", targets: ["HapFuzzCheck"]),
    // Tests only: LD_PRELOADed into `hap` to prove the real-time contract (never linked into it).
    .library(name: "HapRTProbe", type: .dynamic, targets: ["HapRTProbe"]),
    // Tests only: LD_PRELOADed into `hap` to stand in for the kernel's force feedback.
    .library(name: "HapFFProbe", type: .dynamic, targets: ["HapFFProbe"]),
  ],
  targets: [
    // HapCore, split by concern (docs/architecture.md, "Targets"); each module sees only the ones
    // below it, and none sees a terminal, a device or a folder walk.
    // The format: the model, JSON parsing, decoding, diagnostics, validation and its rules,
    // `hap fix`'s fixes and edits, control messages, actuator profiles.
    .target(name: "HapFormat", dependencies: ["CHapScan"]),
    // Rendering: the schedule, the renderer and the audio track, envelopes, sample formats, WAV
    // headers and sinks, the named channels of a period and their layout, the level series.
    .target(name: "HapRender", dependencies: ["HapFormat", "CHapKernels"]),
    // Real-time playback: the player, the mixers, rings, the stop request, real-time scheduling.
    .target(name: "HapPlayback", dependencies: ["HapFormat", "HapRender"]),
    // Tools over patterns: convert, diff, plot.
    .target(name: "HapTools", dependencies: ["HapFormat", "HapRender", "HapPlayback"]),
    // The vocabulary (folders of named events, manifests, feedbackd themes, their checks) and
    // the service's protocol.
    .target(name: "HapVocabulary", dependencies: ["HapFormat", "HapRender", "HapPlayback", "HapTools"]),
    // All of the above as one import (HapKit, the tools and the tests import HapCore).
    .target(name: "HapCore", dependencies: ["HapFormat", "HapRender", "HapPlayback", "HapTools", "HapVocabulary"]),
    // The renderer's per-sample loops in C, each compiled for the baseline and for AVX2
    // (a function attribute, no special flags), picked at run time.
    .target(name: "CHapKernels", dependencies: ["CHapCPU"], linkerSettings: [.linkedLibrary("m")]),
    // The JSON parser's structural scan in C (whitespace, quotes, escapes, brackets, commas: bit
    // masks per 64 bytes), compiled for the baseline and for AVX2 as CHapKernels is, picked at
    // run time.
    .target(name: "CHapScan", dependencies: ["CHapCPU"]),
    // What the CPU runs (AVX2, FMA), asked of CPUID when a kernel is first picked: the two above
    // choose their variant with it.
    .target(name: "CHapCPU"),
    // The one loader of the libraries hap opens at run time (CALSA, CSndFile, CSoxr, CDBus,
    // CMicroHTTPD): dlopen, then a table of symbols into each shim's typed function pointers,
    // once per process, thread-safely.
    .target(name: "CHapLibrary", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]),
    // ALSA's C API, loaded at run time with CHapLibrary and resolved into typed pointers.
    // Building needs <alsa/asoundlib.h> (libasound2-dev); the binary does not link libasound.
    // (dl: the real-time probe's lookup.)
    .target(name: "CALSA", dependencies: ["CHapLibrary"], linkerSettings: [.linkedLibrary("dl")]),
    // The ALSA sink, device listing and the real-time playback engine.
    .target(name: "HapALSA", dependencies: ["HapCore", "CALSA"]),
    // libsndfile (FLAC, Ogg, MP3 for `hap convert`), loaded at run time with CHapLibrary; its few
    // prototypes are declared in the target, so building needs no libsndfile header.
    .target(name: "CSndFile", dependencies: ["CHapLibrary"]),
    // libsoxr (resampling a sound to the output's rate), loaded at run time with CHapLibrary; its
    // few prototypes and structures are declared in the target, so building needs no libsoxr header.
    .target(name: "CSoxr", dependencies: ["CHapLibrary"]),
    // Resampler: a DecodedSound at another rate, through CSoxr (HapCore loads no library; the
    // CLI and hap-bench share this).
    .target(name: "HapResample", dependencies: ["HapCore", "CSoxr"]),
    // libdbus-1 (feedbackd's D-Bus API, `hap serve --dbus`), loaded at run time with CHapLibrary;
    // its few prototypes and structures are declared in the target, so building needs no libdbus
    // header.
    .target(name: "CDBus", dependencies: ["CHapLibrary"]),
    // libmicrohttpd (`hap studio`'s local web server), loaded at run time with CHapLibrary; its few
    // prototypes and constants are declared in the target, so building needs no header of it.
    .target(name: "CMicroHTTPD", dependencies: ["CHapLibrary"]),
    // Linux force feedback (rumble motors behind /dev/input/eventN): the ioctls and writes.
    .target(name: "CEvdev", linkerSettings: [.linkedLibrary("dl")]),
    // The rumble motor: its device, the paced engine that updates one effect, the listing.
    .target(name: "HapRumble", dependencies: ["HapCore", "CEvdev"]),
    // Everything that plays, as a library, without full Foundation (so without ICU): the typed
    // device address, opening it, the engine that mixes many players on one device, sounds,
    // files, the service and the studio (docs/hapkit.md). Prints nothing; no global mutable state.
    .target(
      name: "HapRuntime",
      dependencies: [
        "HapCore", "HapALSA", "CALSA", "HapResample", "HapRumble", "CEvdev", "CSndFile", "CHapSignals", "CDBus",
        "CMicroHTTPD",
      ],
      // `hap studio`'s page, in the binary: no resource folder, works offline.
      resources: [
        .embedInCode("Studio/Page/studio.html"), .embedInCode("Studio/Page/studio.css"),
        .embedInCode("Studio/Page/studio.js"),
      ]),
    // Core Haptics' API over HapRuntime, for apps (docs/hapkit.md): its classes are `NSObject`
    // subclasses and its error bridges to `NSError`, as Apple's, so it imports (and re-exports)
    // full Foundation; `hap` does not link it.
    .target(name: "HapKit", dependencies: ["HapRuntime", "HapCore", "HapALSA", "HapResample"]),
    // `make bench`'s in-process figures for HapKit (start to first sample, sendParameters).
    .executableTarget(name: "hapkit-bench", dependencies: ["HapKit"]),
    // The Ctrl-C / SIGTERM handler: one store to an atomic in static storage.
    .target(name: "CHapSignals"),
    // The process's arguments for Swift's CommandLine, kept by a constructor as glibc hands
    // them over, so the static hap leaves out the runtime's own search of /proc/self/maps
    // (include/CHapArguments.h). The program's alone: not HapKit's, whose users link as they will.
    .target(name: "CHapArguments"),
    // The command-line front end: argument parsing, commands, output formatting.
    .executableTarget(
      name: "hap", dependencies: ["HapRuntime", "CHapArguments"]),
    // The fuzzer's check (fuzz/, `make fuzz`), shared with the regression test of what it found.
    .target(name: "HapFuzzCheck", dependencies: ["HapCore", "HapRuntime"]),
    // `make bench`: the render loop alone, without I/O.
    .executableTarget(name: "hap-bench", dependencies: ["HapCore", "HapResample"]),
    // The real-time probe (tests only): counts allocations, retains and releases on the
    // playback thread and allocations in signal handlers; can freeze the wall clock.
    .target(name: "HapRTProbe", linkerSettings: [.linkedLibrary("dl")]),
    // The force-feedback stand-in (tests only): fake event devices, every call recorded.
    .target(name: "HapFFProbe", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]),
    // Helpers shared by both test targets (SwiftPM test targets cannot share sources).
    .target(name: "HapTestSupport", dependencies: ["HapCore"], path: "Tests/HapTestSupport"),
    .testTarget(
      name: "HapCoreTests",
      dependencies: [
        "HapCore", "HapFormat", "HapRender", "HapPlayback", "HapTools", "HapVocabulary", "HapTestSupport", "HapFuzzCheck",
      ]),
    // HapKit and HapRuntime in process: Core Haptics' API on the simulated exciter, against `hap render`.
    .testTarget(name: "HapKitTests", dependencies: ["HapKit", "HapRuntime", "HapCore", "HapTestSupport", "HapResample"]),
    // End-to-end: runs the built `hap` binary (and reads the shared corpus).
    .testTarget(
      name: "HapCLITests", dependencies: ["HapCore", "HapKit", "HapRuntime", "HapTestSupport", "hap", "HapResample", "HapRumble"],
      exclude: ["Golden", "CorpusVerdictChanges.tsv", "Schemas", "Studio"]),
  ]
)
