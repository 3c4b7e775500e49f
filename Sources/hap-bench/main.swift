// hap-bench: measures the render loop alone (no file, no encoding), for `make bench`.
// usage: hap-bench PATTERN [REPEATS] [baseline|avx2]
//        hap-bench resample [SECONDS] [REPEATS]   (libsoxr, 44.1 kHz stereo to 48 kHz)
//        hap-bench --audio REPEATS PATTERN...   (haptic signal alone vs with the audio track)
import Foundation
import HapCore

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "resample": exit(ResampleBenchmark.run(Array(arguments.dropFirst())))
case "--audio": exit(AudioBenchmark.run(Array(arguments.dropFirst())))
default: exit(RenderBenchmark.run(arguments))
}
