// hap-bench: measures the render loop alone (no file, no encoding), for `make bench`.
// usage: hap-bench PATTERN [REPEATS] [baseline|avx2]
import Foundation
import HapCore

exit(RenderBenchmark.run(Array(CommandLine.arguments.dropFirst())))
