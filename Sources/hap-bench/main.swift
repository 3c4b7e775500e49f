// hap-bench: measures the render loop alone (no file, no encoding), for `make bench`.
// usage: hap-bench PATTERN [REPEATS] [baseline|avx2]
//        hap-bench --audio REPEATS PATTERN...   (haptic signal alone vs with the audio track)
import Foundation
import HapCore

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--audio" {
  exit(AudioBenchmark.run(Array(arguments.dropFirst())))
}
exit(RenderBenchmark.run(arguments))
