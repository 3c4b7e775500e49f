// hap: author, check, render and play haptic patterns (Apple AHAP).
// Everything happens in HapCommandLine; this file stays free of logic.
import FoundationEssentials
import Glibc

LaunchLog.record(Array(CommandLine.arguments.dropFirst()))
exit(HapCommandLine.run(Array(CommandLine.arguments.dropFirst())))
