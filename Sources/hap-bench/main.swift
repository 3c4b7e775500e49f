// hap-bench: measures the render loop alone (no file, no encoding), for `make bench`.
// usage: hap-bench PATTERN [REPEATS] [baseline|avx2]
//        hap-bench resample [SECONDS] [REPEATS]   (libsoxr, 44.1 kHz stereo to 48 kHz)
import Foundation
import HapCore

let arguments = Array(CommandLine.arguments.dropFirst())
exit(
  arguments.first == "resample"
    ? ResampleBenchmark.run(Array(arguments.dropFirst())) : RenderBenchmark.run(arguments))
