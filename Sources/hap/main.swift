// hap: author, check, render and play haptic patterns (Apple AHAP).
// Everything happens in HapCommandLine; this file stays free of logic.
import Foundation

exit(HapCommandLine.run(Array(CommandLine.arguments.dropFirst())))
